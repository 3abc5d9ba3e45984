"""hsim gauntlet: candidates against a panel on duplicate boards."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.experiments.gauntlet import DEFAULT_PANEL, default_panel, measure_pairing
from hsim.model.rules import Rules, parse_rules


def gauntlet(tmp_path, *args, name="g"):
    result = CliRunner().invoke(main, [
        "gauntlet", "--json", "--no-progress", "--out", str(tmp_path / name), *args])  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gauntlet")
    args = ["--candidates", "heuristic,random", "--panel", "duck,lowcard", "--boards", "8",
            "--seed", "3"]  # fmt: skip
    return tmp, gauntlet(tmp, *args, "--workers", "1"), gauntlet(tmp, *args, "--workers", "2",
                                                                  name="g2")  # fmt: skip


def test_a_stronger_candidate_gains_and_a_weaker_loses(small):
    _, result, _ = small
    by = {(p["candidate"], p["opponent"]): p for p in result["pairings"]}
    assert set(by) == {(c, o) for c in ("heuristic", "random") for o in ("duck", "lowcard")}
    for o in ("duck", "lowcard"):
        assert by["heuristic", o]["advantage_low"] > 0
        assert by["random", o]["advantage_high"] < 0
        assert by["heuristic", o]["boards"] == 8
        assert by["heuristic", o]["cpu_ms_per_decision"] > 0
    assert result["panel"]["heuristic"]["advantage_low"] > 0
    assert result["panel"]["random"]["advantage_high"] < 0


def test_every_pairing_plays_the_same_deals(small):
    _, result, _ = small
    first = None
    for p in result["pairings"]:
        d = pd.read_parquet(p["run_dir"] + "/deals", columns=["game", "deal", "seat", "hand"])
        dealt = d[d["deal"] == 0].sort_values(["game", "seat"])["hand"].to_numpy()
        if first is None:
            first = dealt
        assert (dealt == first).all()


def test_the_result_does_not_depend_on_the_workers(small):
    _, one, two = small

    def without_paths(result):
        for p in result["pairings"]:
            del p["run_dir"], p["cpu_ms_per_decision"]
        return result

    assert without_paths(one) == without_paths(two)


def test_moons_are_counted_from_the_rows():
    rules = Rules()
    deals = pd.DataFrame({
        "game": [0] * 8 + [1] * 8, "board": [0] * 8 + [1] * 8,
        "deal": [0, 0, 0, 0, 1, 1, 1, 1] * 2, "player": [0, 1, 2, 3] * 4,
        "moon": [True, False, False, False, False, False, True, False,
                 False, False, False, False, False, True, False, False],
        "deal_score": [0, 26, 26, 26, 26, 26, 0, 26, 5, 8, 13, 0, 26, 0, 26, 26],
    })  # fmt: skip
    f = measure_pairing(deals, rules)
    assert f["deals"] == 4
    assert f["moons_shot"] == 1 / 4
    assert f["moons_conceded"] == 2 / 4
    assert f["score"] == (0 + 26 + 5 + 26) / 4


def test_an_unknown_panel_member_is_named(tmp_path):
    result = CliRunner().invoke(main, [
        "gauntlet", "--candidates", "heuristic", "--panel", "duck,no_such_bot",
        "--boards", "4", "--out", str(tmp_path / "g"), "--no-progress"])  # fmt: skip
    assert result.exit_code == 2
    assert "no_such_bot" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--candidates", ""], "empty seat"), (["--candidates", "heuristic", "--boards", "1"],
     "1 is not in the range"), (["--candidates", "kierki", "--panel", "duck"], "does not play")],
)  # fmt: skip
def test_bad_input_is_a_clean_error(tmp_path, args, words):
    result = CliRunner().invoke(main, [
        "gauntlet", "--panel", "duck", *args, "--out", str(tmp_path / "g"),
        "--no-progress"])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert words in result.output and "Traceback" not in result.output


def test_openspiel_ismcts_sits_in_a_panel(tmp_path):
    result = gauntlet(tmp_path, "--candidates", "heuristic", "--panel",
                      "openspiel:ismcts(simulations=20)", "--boards", "2", "--seed", "1",
                      "--workers", "1", "--rules", "openspiel")  # fmt: skip
    (p,) = result["pairings"]
    assert p["opponent"] == "openspiel:ismcts(simulations=20)" and p["deals"] > 0


def test_the_default_panel_holds_outside_opponents():
    assert "shooter" in DEFAULT_PANEL
    assert any(spec.startswith("openspiel:ismcts") for spec in DEFAULT_PANEL)
    panel, notes = default_panel(parse_rules("openspiel"))
    assert panel == DEFAULT_PANEL and notes == []
    panel, notes = default_panel(Rules())  # OpenSpiel cannot play the classic rules
    assert "shooter" in panel and not any("ismcts" in s for s in panel)
    assert len(notes) == 1 and "ismcts" in notes[0] and "--rules openspiel" in notes[0]


@pytest.mark.parametrize("unit, code", [("pairing", 130), ("rung", 143)])
def test_an_interrupted_pairing_or_rung_says_what_it_left(capsys, tmp_path, unit, code):
    import types

    from hsim.cli.common import exit_stopped
    from hsim.experiments.ladder import LadderStopped

    result = types.SimpleNamespace(games_done=4 * 7 + 3, run_dir=tmp_path / "r", exit_code=code)
    with pytest.raises(SystemExit) as stop:
        exit_stopped(LadderStopped("pimc vs 3 x shooter", result, 50), unit, 4)
    assert stop.value.code == code
    err = capsys.readouterr().err
    assert f"the {unit} pimc vs 3 x shooter stopped after 7 of 50 boards" in err
    assert f"hsim resume {tmp_path / 'r'}" in err and f"the {unit}s after it" in err
