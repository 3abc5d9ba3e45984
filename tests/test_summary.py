"""The per-scoring summary a tournament prints for its --score-also scorings."""

import pandas as pd
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import Rules, scoring_variant
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from hsim.runner.summary import scoring_summaries

PLAYERS = ("random", "lowcard", "random", "lowcard")


def test_scoring_summaries_agree_with_the_runner_and_the_games(tmp_path):
    rules = Rules()
    also = (scoring_variant(rules, "omnibus=true"),)
    config = RunConfig(rules=rules, players=PLAYERS, games=60, seed=5, score_also=also)
    result = run_tournament(config, tmp_path / "run", workers=1, progress=False)
    (name,) = config.scoring_names()[1:]
    got = scoring_summaries(tmp_path / "run", ["base", name])
    for mine, theirs in zip(got["base"], result.summary, strict=True):  # the runner's sums
        assert mine["strategy"] == theirs["strategy"] and mine["games"] == 60
        assert mine["win_rate"] == theirs["win_rate"]
        assert mine["mean_place"] == theirs["mean_place"]
    games = pd.read_parquet(tmp_path / "run" / "games")
    omnibus = games[games.scoring == name]
    for row in got[name]:
        seat = omnibus[omnibus.player == row["seat"]]
        assert row["win_rate"] == seat.winner.mean() and row["mean_place"] == seat.place.mean()
    assert got[name] != got["base"]  # the JD moves some places
    assert scoring_summaries(tmp_path / "run", []) == {}


def test_tournament_prints_every_scoring(tmp_path):
    r = CliRunner().invoke(
        main,
        ["tournament", "--players", ",".join(PLAYERS), "--games", "40", "--seed", "2",
         "--workers", "1", "--no-progress", "--out", str(tmp_path / "run"),
         "--score-also", "omnibus=true", "--score-also", "no_trick_bonus=no_points"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    for name in ("classic(omnibus=true)", "classic(no_trick_bonus=no_points)"):
        at = lines.index(f"scored as {name} (--score-also; same deals):")
        assert lines[at + 1].split() == ["seat", "strategy", "win", "rate", "mean", "place"]
        rows = [line.split() for line in lines[at + 2 : at + 6]]
        assert [row[:2] for row in rows] == [[str(s), p] for s, p in enumerate(PLAYERS)]
        assert 1 <= sum(float(row[2]) for row in rows) <= 4  # co-winners share a game
