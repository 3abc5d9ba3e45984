"""Ladder, report and compare-rules on Kierki runs (docs/rules.md part B: higher scores are
better, 4 or 3 seats, no moon, deal kinds instead of pass directions)."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.analysis import compare_games, load_run, winner_change
from hsim.analysis.report import KIERKI_KINDS
from hsim.cli import main
from hsim.cli.analysis import compare_rules, report
from hsim.experiments.compare_rules import parse_variant
from hsim.experiments.ladder import board_advantages, default_bots, rung_players
from hsim.model.rules import PRESETS, RulesError
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

KIERKI4 = PRESETS["kierki4"]
KIERKI3 = PRESETS["kierki3"]


def _ladder(tmp_path, rules, bots, boards):
    r = CliRunner().invoke(
        main,
        ["ladder", "--rules", rules, "--bots", bots, "--boards", str(boards), "--seed", "2",
         "--out", str(tmp_path), "--workers", "1", "--no-progress"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    (line,) = [x for x in r.output.splitlines() if " over " in x and x[0] != "("]
    return line, r.output


def test_board_advantages_higher_is_better():
    deals = pd.DataFrame(
        {
            "board": [0] * 4 + [1] * 4,
            "player": [0, 1, 2, 3] * 2,
            "deal_score": [-20, -60, -100, 0, 800, 500, 0, 0],
        }
    )
    # Board 0: upper -20, the others -160/3; board 1: upper 800, the others 500/3.
    edge = board_advantages(deals, higher_is_better=True)
    assert edge == pytest.approx([-20 + 160 / 3, 800 - 500 / 3])
    assert board_advantages(deals) == pytest.approx(-edge)  # Hearts: lower is better


def test_kierki_ladder_sign(tmp_path):
    # lowcard sheds its low cards first, which is bad Kierki: random beats it.
    line, out = _ladder(tmp_path / "a", "kierki4", "lowcard,random", 100)
    assert line.startswith("random over 3 x lowcard") and line.endswith("yes"), out
    assert float(line.split()[7]) > 0
    assert "higher is better" in out and "after moon" not in out
    line, out = _ladder(tmp_path / "b", "kierki4", "random,lowcard", 100)
    assert line.startswith("lowcard over 3 x random") and line.endswith("NO"), out
    assert float(line.split()[7]) < 0


def test_kierki3_ladder_seats_three_players(tmp_path):
    line, _ = _ladder(tmp_path, "kierki3", "lowcard,random", 20)
    assert line.startswith("random over 2 x lowcard")
    run = tmp_path / "random-over-lowcard"
    manifest = json.loads((run / "run.json").read_text())
    assert [p["spec"] for p in manifest["players"]] == ["random", "lowcard", "lowcard"]
    deals = pd.read_parquet(run / "deals", columns=["game", "deal", "seat", "player"])
    assert sorted(deals["seat"].unique()) == sorted(deals["player"].unique()) == [0, 1, 2]
    assert deals.groupby(["game", "deal"]).size().eq(3).all()
    # 20 boards x 3 rotations x 10 deals, each deal counted once.
    assert int(line.split()[6].replace(",", "")) == 20 * 3 * 10 == len(deals) // 3


def test_default_kierki_ladder():
    assert default_bots(KIERKI4) == ("random", "kierki")
    assert default_bots(PRESETS["classic"])[:2] == ("random", "lowcard")
    assert rung_players("a", "b", KIERKI3) == ("a", "b", "b")


@pytest.fixture(scope="module")
def kierki_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("kierki")
    runs = {}
    for name, rules, preset, players, duplicate in (
        ("k4", KIERKI4, "kierki4", ("random", "lowcard", "random", "lowcard"), False),
        # A manifest whose preset does not name the rules (as RunConfig's default makes).
        ("k3", KIERKI3, "classic", ("random", "lowcard", "random"), True),
    ):
        config = RunConfig(
            rules=rules,
            players=players,
            games=60,
            seed=5,
            duplicate=duplicate,
            rules_preset=preset,
        )
        run_tournament(config, base / name, workers=1, progress=False)
        runs[name] = base / name
    return runs


def _report(*args):
    r = CliRunner().invoke(report, [*map(str, args)])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.parametrize("name", ["k4", "k3"])
def test_report_winning_score_is_the_highest(kierki_runs, name):
    rep = json.loads(_report(kierki_runs[name], "--json"))
    games = pd.read_parquet(kierki_runs[name] / "games")
    best = games.groupby("game")["score"].max()
    assert rep["summary"]["winning_score"]["estimate"] == pytest.approx(best.mean())
    # The engine's winners are the seats with the highest score.
    top = games["score"] == games.groupby("game")["score"].transform("max")
    assert (games["winner"] == top).all()


@pytest.mark.parametrize("name", ["k4", "k3"])
def test_report_by_kind_matches_the_deals(kierki_runs, name):
    rep = json.loads(_report(kierki_runs[name], "--json"))
    deals = pd.read_parquet(kierki_runs[name] / "deals")
    direct = deals.groupby([deals["strategy"].astype(str), "kind"])["deal_score"].agg(
        ["mean", "size"]
    )
    rows = rep["by_kind"]
    assert len(rows) == len(direct) and "by_pass_direction" not in rep
    for r in rows:
        mean, size = direct.loc[(r["strategy"], r["kind"])]
        assert r["seat_deals"] == size
        iv = r["score_per_deal"]
        assert iv["estimate"] == pytest.approx(mean)
        assert iv["low"] < iv["estimate"] < iv["high"] and iv["n"] == deals["game"].nunique()
    kinds = [r["kind"] for r in rows if r["strategy"] == "random"]
    assert kinds == [k for k in KIERKI_KINDS if k in set(deals["kind"])]
    seats = 4 if name == "k4" else 3
    for r in rep["strategies"] + rep["by_seat"]:
        assert "moon_rate" not in r and list(r["places"]) == [str(p) for p in range(1, seats + 1)]
    assert "moon_rate" not in rep["summary"]
    assert [r["seat"] for r in rep["by_seat"]] == list(range(seats))


def test_text_report_on_kierki3(kierki_runs):
    text = _report(kierki_runs["k3"])
    assert "by deal kind:" in text and "king_of_hearts" in text and "1st/2nd/3rd\n" in text
    assert "re-scored" not in text  # the run's own rules (its manifest names no preset)
    for hearts_only in ("moon", "by pass direction", "points/deal", "4th"):
        assert hearts_only not in text
    assert "by player:" in text  # a duplicate run
    r = CliRunner().invoke(report, [str(kierki_runs["k3"]), "--scoring", "must_trump=true"])
    assert r.exit_code != 0 and "cannot be re-scored" in r.output and "Traceback" not in r.output


def test_compare_rules_on_kierki3(tmp_path):
    out = tmp_path / "c"
    r = CliRunner().invoke(
        compare_rules,
        ["--rules", "kierki3", "--players", "random,lowcard,random", "--games", "60",
         "--seed", "4", "--out", str(out), "--variant", "rebel=true", "--workers", "1",
         "--no-progress", "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert "highest final score" in rep["winner_change_definition"]
    (v,) = rep["variants"]
    assert v["changes_play"] == ["rebel"]  # played again, not re-scored
    # Winner sets from the final scores (the highest, ties included), independently.
    base = pd.read_parquet(out / "base" / "games")
    rebel = pd.read_parquet(out / "variant-1" / "games")
    assert set(rebel["deals"]) == {11} and set(base["deals"]) == {10}

    def winners(games):
        top = games["score"] == games.groupby("game")["score"].transform("max")
        return games[top].groupby("game")["seat"].apply(frozenset)

    changed = int((winners(base) != winners(rebel)).sum())
    wc = v["winner_change"]
    assert wc["compared"] == 60 and wc["changed"] == changed > 0
    compared = compare_games(load_run(out / "base").games, load_run(out / "variant-1").games)
    assert winner_change(compared).changed == changed
    for s in (rep["base"]["summary"], v["summary"]):
        assert "moon_rate" not in s
    assert rep["base"]["summary"]["winning_score"]["estimate"] == pytest.approx(
        base.groupby("game")["score"].max().mean()
    )
    win = {x["strategy"]: x["win_rate_a"] for x in v["by_strategy"]}
    for name, w in win.items():
        assert w == pytest.approx(base.loc[base["strategy"] == name, "winner"].mean())
    text = CliRunner().invoke(
        compare_rules,
        ["--rules", "kierki3", "--players", "random,lowcard,random", "--games", "60",
         "--seed", "4", "--out", str(out), "--overwrite", "--variant", "rebel=true",
         "--workers", "1", "--no-progress"],
    ).stdout  # fmt: skip
    assert "highest final score" in text and "moons" not in text and "max_deals" not in text
    assert f"{changed:,} of 60" in text


@pytest.mark.parametrize(
    "text, message",
    [
        ("omnibus=true", "no effect in Kierki"),
        ("players=3", "changes players"),
        ("classic", "changes game"),
    ],
)
def test_kierki_variants_that_cannot_be_compared(text, message):
    with pytest.raises(RulesError, match=message):
        parse_variant(text, KIERKI4, "kierki4")
    assert parse_variant("must_trump=true", KIERKI4, "kierki4").changes_play == ("must_trump",)


def test_winner_changes_of_three_seat_games():
    def frame(winners):
        return pd.DataFrame(
            {
                "game": np.repeat([0, 1], 3),
                "seat": np.tile([0, 1, 2], 2),
                "score": 0,
                "winner": winners,
                "place": 1,
                "deals": 10,
            }
        )

    a = frame([True, False, False, False, True, True])
    b = frame([True, False, False, False, True, False])
    wc = winner_change(compare_games(a, b))
    assert (wc.compared, wc.changed) == (2, 1)
