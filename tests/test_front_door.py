"""What a newcomer meets first: the Omnibus question answered by `hsim report`, default
run folders that never collide, a summary that says what it shows and what to run next,
help that is not cut, SPRT verdicts in words, `hsim warm`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.cli.sprt import verdict_words

PLAYERS = "lowcard,random,lowcard,random"


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def score_also_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("front") / "omnibus"
    done = _cli(
        "tournament", "--players", PLAYERS, "--games", 300, "--seed", 3, "--no-progress",
        "--score-also", "omnibus=true", "--score-also", "no_trick_bonus=no_points",
        "--out", run,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return run, done.output


def _winner_sets(games: pd.DataFrame) -> pd.Series:
    won = games[games["winner"]]
    return won.groupby("game")["seat"].apply(lambda s: frozenset(s.tolist()))


def test_report_gives_how_often_each_scoring_changes_the_winner(score_also_run):
    run, _ = score_also_run
    done = _cli("report", run, "--json")
    assert done.exit_code == 0, done.output
    rows = json.loads(done.output)["score_also"]
    assert [r["scoring"] for r in rows] == [
        "classic(omnibus=true)",
        "classic(no_trick_bonus=no_points)",
    ]
    games = pd.read_parquet(run / "games")
    base = _winner_sets(games[games["scoring"] == "base"])
    for r in rows:
        other = _winner_sets(games[games["scoring"] == r["scoring"]])
        changed = (base != other.reindex(base.index)).sum()
        wc = r["winner_change"]
        assert (wc["compared"], wc["changed"]) == (len(base), int(changed))
        share = wc["share"]
        assert share["estimate"] == pytest.approx(changed / len(base))
        assert share["low"] < share["estimate"] < share["high"]
        deals = games[games["seat"] == 0].pivot(index="game", columns="scoring", values="deals")
        diff = (deals[r["scoring"]] - deals["base"]).mean()
        assert r["game_length"]["difference"]["estimate"] == pytest.approx(diff)
    text = _cli("report", run).output
    assert "how often the winner changes" in text
    first = rows[0]["winner_change"]["share"]
    assert f"{first['estimate']:.1%} [{first['low']:.1%}, {first['high']:.1%}]" in text


def test_the_tournament_summary_has_intervals_a_legend_and_the_next_command(score_also_run):
    run, output = score_also_run
    assert "win rate [95% interval]" in output
    assert "points/deal: penalty points taken per deal, lower is better" in output
    last = output.strip().splitlines()[-1]
    assert last.startswith(f"next: hsim report {run}") and "changes the winner" in last


def test_two_runs_started_together_with_one_seed_get_their_own_folders(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    args = [sys.executable, "-m", "hsim.cli", "tournament", "--players", PLAYERS, "--games", "50"]
    procs = [
        subprocess.Popen([*args, "--no-progress"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]  # fmt: skip
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], results
    folders = sorted((tmp_path / "results").iterdir())
    assert len(folders) == 3 and all(f.name.startswith("run-") for f in folders)
    assert all("-seed1-" in f.name and (f / "run.json").is_file() for f in folders)


def test_the_command_list_is_not_cut_mid_phrase():
    text = _cli("--help").output
    commands = text.split("Commands:")[1].strip().splitlines()
    assert len(commands) >= 13
    for line in commands:
        assert not line.rstrip().endswith("..."), line


@pytest.mark.parametrize(
    ("verdict", "d0", "d1", "start"),
    [
        ("H1", 0, 0.3, "PASS: the candidate is stronger"),
        ("H0", 0, 0.3, "FAIL: the candidate is not shown stronger"),
        ("H1", -0.3, 0, "PASS: the candidate is not weaker"),
        ("H0", -0.3, 0, "FAIL: the candidate is weaker"),
        ("H1", -0.1, 0.2, "PASS: the candidate's advantage is on the H1 side"),
    ],
)
def test_sprt_verdicts_read_as_words(verdict, d0, d1, start):
    text = verdict_words(verdict, d0, d1)
    assert text.startswith(start) and f"({verdict} accepted" in text


def test_warm_leaves_nothing_to_compile():
    done = _cli("warm", "--no-progress")
    assert done.exit_code == 0, done.output
    for what in ("engine", "heuristic", "pimc", "heuristic's game loop", "rescore"):
        assert f"\n{what}: " in "\n" + done.output
    assert "ready: everything is compiled" in done.output


def test_warm_says_what_it_could_not_cache(monkeypatch):
    import hsim.experiments.warm as warm

    monkeypatch.setattr(warm, "still_cold", lambda: ["pimc"])
    done = _cli("warm", "--no-progress")
    assert done.exit_code == 1 and "still not in the cache after compiling: pimc" in done.output


def test_every_command_that_shows_progress_accepts_no_progress(score_also_run):
    run, _ = score_also_run
    done = _cli("report", run, "--no-progress")
    assert done.exit_code == 0 and "how often the winner changes" in done.output
    for name, command in main.commands.items():
        options = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        if "--progress" in options:
            assert "--no-progress" in options, name
    shows = {
        n
        for n, c in main.commands.items()
        if any("--no-progress" in p.secondary_opts for p in c.params)
    }
    assert {"tournament", "resume", "sprt", "ladder", "compare-rules", "report", "warm"} <= shows
