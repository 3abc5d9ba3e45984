"""hsim compare-rules: the same seeds under a base and variants, winner changes."""

import json

import pytest
from click.testing import CliRunner

from hsim.analysis import compare_games, load_run, rescore_run, winner_change
from hsim.cli.analysis import compare_rules

PLAYERS = "random,lowcard,random,lowcard"


def _invoke(*args):
    return CliRunner().invoke(compare_rules, ["--no-progress", "--workers", "1", *args])


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "c"
    r = _invoke(
        "--players", PLAYERS, "--games", "80", "--seed", "3", "--out", str(out), "--json",
        "--variant", "omnibus=true", "--variant", "passing=none,no_trick_bonus=no_points",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


def test_json_report(compared):
    out, rep = compared
    assert rep["games"] == 80 and rep["players"] == PLAYERS.split(",")
    assert rep["base"]["rules"] == "classic"
    assert json.loads((out / "compare.json").read_text()) == rep
    omnibus, nopass = rep["variants"]
    assert omnibus["rules"] == "classic(omnibus=true)" and omnibus["changes_play"] == []
    assert nopass["changes_play"] == ["passing"]
    assert nopass["differs"] == {"passing": "none", "no_trick_bonus": "no_points"}
    for v in (omnibus, nopass):
        wc = v["winner_change"]
        assert wc["games"] == wc["compared"] == 80 and wc["censored"] == 0
        share = wc["share"]
        assert share["low"] <= share["estimate"] == wc["changed"] / 80 <= share["high"]
        assert {r["strategy"] for r in v["by_strategy"]} == {"random", "lowcard"}
        assert sum(r["games"] for r in v["by_length"]) == 80
    for s in [rep["base"]] + rep["variants"]:
        summary = s["summary"]
        assert summary["games"] == 80
        assert summary["game_length"]["low"] < summary["game_length"]["estimate"]
        assert 0 <= summary["moon_rate"]["estimate"] < 0.1
        assert list(summary["score_quantiles"]) == ["0.05", "0.25", "0.5", "0.75", "0.95"]
    # The omnibus variant's games end later on average (JD -10 slows scores down).
    base_len = rep["base"]["summary"]["game_length"]["estimate"]
    assert omnibus["summary"]["game_length"]["estimate"] > base_len


def test_winner_changes_agree_with_the_run_folders(compared):
    out, rep = compared
    base = load_run(out / "base")
    omnibus = load_run(out / "variant-1")
    wc = winner_change(compare_games(base.games, omnibus.games))
    assert wc.changed == rep["variants"][0]["winner_change"]["changed"]
    # random and lowcard ignore the score: re-scoring the base deals as omnibus gives the
    # played omnibus winners wherever the base deals last long enough.
    again = winner_change(compare_games(rescore_run(base, "omnibus=true").games, omnibus.games))
    assert again.changed == 0 and again.compared + again.censored == 80


def test_text_output_and_refusals(compared, tmp_path):
    out, _ = compared
    r = _invoke(
        "--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "t"),
        "--variant", "omnibus=true",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "winner changed vs base" in r.stdout and "[scoring only]" in r.stdout
    # An existing folder is not replaced without --overwrite.
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(out), "--variant", "omnibus=1")
    assert r.exit_code != 0 and "--overwrite" in r.output


@pytest.mark.parametrize(
    "variant, message",
    [
        ("omnibuss=true", "unknown rule option 'omnibuss'"),
        ("omnibus=maybe", "omnibus takes true|false"),
        ("omnibus", "needs a value"),
        ("omnibus=false", "same rule set as the base"),
        ("classic(omnibus=true", "missing closing parenthesis"),
        ("", "empty --variant"),
    ],
)
def test_bad_variants_are_clear_errors(tmp_path, variant, message):
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "x"),
                "--variant", variant)  # fmt: skip
    assert r.exit_code != 0 and message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()


def test_other_mistakes_are_clear_errors(tmp_path):
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "x"),
                "--variant", "omnibus=true", "--variant", "classic(omnibus=true)")  # fmt: skip
    assert r.exit_code != 0 and "same rule set as --variant" in r.output
    r = _invoke("--games", "10", "--variant", "omnibus=true")
    assert r.exit_code != 0 and "no players" in r.output
    r = _invoke("--players", "random,random,random", "--games", "10",
                "--out", str(tmp_path / "y"), "--variant", "omnibus=true")  # fmt: skip
    assert r.exit_code != 0 and "has 4 seats" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "y").exists()
