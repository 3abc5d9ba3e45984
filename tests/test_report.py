"""hsim report: per-strategy points, wins, places and moons with intervals; charts."""

import builtins
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli.analysis import report
from hsim.rules import Rules
from hsim.runner.run import RunConfig, run_tournament

PLAYERS = ("random", "lowcard", "random", "lowcard")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("rep") / "r"
    config = RunConfig(rules=Rules(), players=PLAYERS, games=120, seed=8)
    run_tournament(config, path, workers=1, progress=False)
    return path


def _json(*args):
    r = CliRunner().invoke(report, [*map(str, args), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_json_report_matches_the_datasets(run_dir):
    rep = _json(run_dir)
    deals = pd.read_parquet(run_dir / "deals")
    games = pd.read_parquet(run_dir / "games")
    assert rep["scoring"] == rep["rules"] == "classic" and rep["summary"]["games"] == 120
    rows = {r["strategy"]: r for r in rep["strategies"]}
    assert set(rows) == {"random", "lowcard"}
    for name, r in rows.items():
        d = deals[deals.strategy == name]
        g = games[games.strategy == name]
        assert r["seat_deals"] == len(d) and r["seat_games"] == len(g) == 240
        ppd = r["points_per_deal"]
        assert ppd["estimate"] == pytest.approx(d.points.mean())
        assert ppd["low"] < ppd["estimate"] < ppd["high"] and ppd["n"] == 120  # games
        assert r["win_rate"]["estimate"] == pytest.approx(g.winner.mean())
        assert r["mean_place"]["estimate"] == pytest.approx(g.place.mean())
        assert r["moon_rate"]["estimate"] == pytest.approx(d.moon.mean())
        assert sum(p["estimate"] for p in r["places"].values()) == pytest.approx(1)
    assert rows["lowcard"]["points_per_deal"]["high"] < rows["random"]["points_per_deal"]["low"]
    assert [r["seat"] for r in rep["by_seat"]] == [0, 1, 2, 3]
    assert rep["by_seat"][1]["strategies"] == ["lowcard"]
    dirs = [r["pass_direction"] for r in rep["by_pass_direction"] if r["strategy"] == "random"]
    assert dirs == ["left", "right", "across", "hold"]
    assert sum(r["seat_deals"] for r in rep["by_pass_direction"]) == len(deals)


def test_text_report(run_dir):
    r = CliRunner().invoke(report, [str(run_dir)])
    assert r.exit_code == 0, r.output
    for text in ("points/deal", "win rate", "by seat:", "by pass direction:", "lowcard", "±"):
        assert text in r.stdout


def test_report_under_another_scoring(run_dir):
    rep = _json(run_dir, "--scoring", "omnibus=true")
    assert rep["scoring"] == "classic(omnibus=true)" and rep["rules"] == "classic"
    s = rep["summary"]
    # Omnibus games outlast most classic records: those are censored, and counted.
    assert s["censored"] > 0 and s["games"] + s["censored"] == 120
    assert all(r["censored"] == 2 * s["censored"] for r in rep["strategies"])
    assert sum(r["seat_games"] for r in rep["strategies"]) == 4 * s["games"]
    text = CliRunner().invoke(report, [str(run_dir), "--scoring", "omnibus=true"]).stdout
    assert "censored" in text and "re-scored" in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["--scoring", "passing=none"], "changes play"),
        (["--scoring", "omnibus=perhaps"], "omnibus takes true|false"),
    ],
)
def test_bad_scorings_are_clear_errors(run_dir, args, message):
    r = CliRunner().invoke(report, [str(run_dir), *args])
    assert r.exit_code != 0 and message in r.output and "Traceback" not in r.output


def test_not_a_run_folder(tmp_path):
    r = CliRunner().invoke(report, [str(tmp_path)])
    assert r.exit_code != 0 and "not an hsim run folder" in r.output


def test_duplicate_runs_report_by_player(tmp_path):
    path = tmp_path / "d"
    config = RunConfig(rules=Rules(), players=PLAYERS, games=10, seed=1, duplicate=True)
    run_tournament(config, path, workers=1, progress=False)
    rep = _json(path)
    assert rep["duplicate"] and [r["player"] for r in rep["by_player"]] == [0, 1, 2, 3]
    assert rep["by_seat"][0]["strategies"] == ["lowcard", "random"]


def test_plot_writes_charts(run_dir, tmp_path):
    pytest.importorskip("matplotlib")
    r = CliRunner().invoke(report, [str(run_dir), "--plot", str(tmp_path / "charts")])
    assert r.exit_code == 0, r.output
    for name in ("final_scores.png", "game_length.png", "points_per_deal.png"):
        data = (tmp_path / "charts" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000


def test_plot_without_matplotlib_says_how_to_install_it(run_dir, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    r = CliRunner().invoke(report, [str(run_dir), "--plot", str(tmp_path / "charts")])
    assert r.exit_code != 0 and "pip install matplotlib" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "charts").exists()
