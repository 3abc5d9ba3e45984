"""hsim report: per-strategy points, wins, places and moons with intervals; charts."""

import builtins
import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.analysis import load_run, rescore_frames, rescore_run
from hsim.analysis.report import build_report, censoring_warnings
from hsim.analysis.stats import Interval, mean_interval, ratio_interval, wilson_interval
from hsim.cli.analysis import report
from hsim.model.rules import Rules, parse_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

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
    assert r.exit_code != 0 and "pip install -e '.[plot]'" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "charts").exists()


# ------------------------------------------------- the report against plain pandas


def _iv_equal(got, want):
    """A report interval dict equals a stats Interval (None for None)."""
    if want is None:
        assert got is None
        return
    assert got is not None and got["n"] == want.n
    for key in ("estimate", "low", "high"):
        w = getattr(want, key)
        assert (
            (np.isnan(got[key]) and np.isnan(w))
            if np.isnan(w)
            else (got[key] == pytest.approx(w, rel=1e-9, abs=1e-12))
        ), key


def _ratio(frame, value):
    per = frame.groupby("game")[value].agg(["sum", "size"])
    if not len(per):
        return None
    if len(per) < 2:
        return Interval(per["sum"].sum() / per["size"].sum(), math.nan, math.nan, 1)
    return ratio_interval(per["sum"].astype(float), per["size"].astype(float))


def _mean(values):
    values = np.asarray(values, float)
    if not len(values):
        return None
    if len(values) < 2:
        return Interval(values[0], math.nan, math.nan, 1)
    return mean_interval(values)


def _check_rows(rows, deals, games, by, seats, moons):
    done = games[~games["censored"].to_numpy(bool)]
    key_d = deals[by].astype(str) if by == "strategy" else deals[by]
    key_g = games[by].astype(str) if by == "strategy" else games[by]
    values = sorted(set(key_d) | set(key_g))
    assert [r[by] for r in rows] == values
    for r, value in zip(rows, values, strict=True):
        d = deals[(key_d == value).to_numpy()]
        g = done[(key_g[done.index] == value).to_numpy()]
        assert r["seat_deals"] == len(d) and r["seat_games"] == len(g)
        assert r["censored"] == int((key_g == value).sum()) - len(g)
        _iv_equal(r["points_per_deal"], _ratio(d, "points"))
        _iv_equal(r["score_per_deal"], _ratio(d, "deal_score"))
        if moons:
            _iv_equal(r["moon_rate"], _ratio(d.assign(moon=d["moon"].astype(int)), "moon"))
        else:
            assert "moon_rate" not in r
        if len(g):
            _iv_equal(r["win_rate"], wilson_interval(int(g["winner"].astype(bool).sum()), len(g)))
            _iv_equal(r["mean_place"], _ratio(g.assign(place=g["place"].astype(float)), "place"))
            for p in range(1, seats + 1):
                k = int((g["place"].astype(int) == p).sum())
                _iv_equal(r["places"][str(p)], wilson_interval(k, len(g)))
        else:
            assert r["win_rate"] is None and r["mean_place"] is None
        if by != "strategy":
            strategies = games.loc[(key_g == value).to_numpy(), "strategy"].astype(str)
            assert r["strategies"] == sorted(set(strategies))


def _check_split(rows, deals, column, values):
    groups = deals.groupby([deals["strategy"].astype(str), deals[column].astype(str)])
    assert len(rows) == groups.ngroups
    for r in rows:
        d = groups.get_group((r["strategy"], r[column]))
        assert r["seat_deals"] == len(d)
        for name, value in values.items():
            want = _ratio(d.assign(**{value: d[value].astype(int)}), value)
            _iv_equal(r[name], want)


def _check_summary(s, deals, games, kierki):
    done = games[~games["censored"].to_numpy(bool)]
    per = done.groupby("game")
    assert s["games"] == done["game"].nunique()
    assert s["censored"] == games.loc[games["censored"].to_numpy(bool), "game"].nunique()
    assert s["ended_by"] == {
        str(k): int(v) for k, v in per["ended_by"].first().astype(str).value_counts().items()
    }
    _iv_equal(s["game_length"], _mean(per["deals"].first()))
    _iv_equal(s["final_score"], _mean(per["score"].mean()))
    _iv_equal(s["winning_score"], _mean(per["score"].max() if kierki else per["score"].min()))
    qs = [0.05, 0.25, 0.5, 0.75, 0.95]
    want = done["score"].quantile(qs, interpolation="nearest").tolist() if len(done) else []
    assert list(s["score_quantiles"].values()) == want
    if kierki:
        assert "moon_rate" not in s
    else:
        d = deals[deals["game"].isin(done["game"])]
        seats = int(d["seat"].max()) + 1 if len(d) else 4
        per_d = d.groupby("game")["moon"].agg(["sum", "size"])
        want = None
        if len(per_d) >= 2:
            want = ratio_interval(per_d["sum"].astype(float), per_d["size"] / seats)
        elif len(per_d):
            want = Interval(per_d["sum"].sum() / (per_d["size"].sum() / seats), math.nan,
                            math.nan, 1)  # fmt: skip
        _iv_equal(s["moon_rate"], want)


def _check_report(rep, deals, games, rules, duplicate=False):
    kierki = rules.is_kierki
    _check_summary(rep["summary"], deals, games, kierki)
    for key, by in (("strategies", "strategy"), ("by_seat", "seat")) + (
        (("by_player", "player"),) if duplicate else ()
    ):
        _check_rows(rep[key], deals, games, by, rules.players, not kierki)
    if kierki:
        _check_split(rep["by_kind"], deals, "kind", {"score_per_deal": "deal_score"})
    else:
        values = {"points_per_deal": "points", "moon_rate": "moon"}
        _check_split(rep["by_pass_direction"], deals, "pass_direction", values)


@pytest.fixture(scope="module")
def duplicate_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("dup") / "d"
    config = RunConfig(rules=Rules(), players=PLAYERS, games=30, seed=3, duplicate=True)
    run_tournament(config, path, workers=1, progress=False)
    return path


@pytest.fixture(scope="module")
def kierki_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("kierki") / "k"
    rules = parse_rules("kierki3")
    config = RunConfig(rules=rules, players=("random", "random", "random"), games=12, seed=2)
    run_tournament(config, path, workers=1, progress=False)
    return path


@pytest.mark.parametrize("rows", [None, 301])  # the default batches, and many small ones
def test_every_section_equals_plain_pandas_on_the_recorded_games(
    run_dir, duplicate_dir, kierki_dir, rows
):
    extra = {} if rows is None else {"rows": rows}
    for path, duplicate in ((run_dir, False), (duplicate_dir, True), (kierki_dir, False)):
        rep = build_report(path, **extra)
        run = load_run(path)
        _check_report(rep, run.base_deals, run.games, run.rules, duplicate)
        assert rep["warnings"] == []


@pytest.mark.parametrize("scoring", ["omnibus=true", "no_trick_bonus=no_points,end_score=80"])
@pytest.mark.parametrize("rows", [None, 301])
def test_every_section_equals_plain_pandas_when_re_scored(run_dir, duplicate_dir, scoring, rows):
    extra = {} if rows is None else {"rows": rows}
    for path, duplicate in ((run_dir, False), (duplicate_dir, True)):
        rep = build_report(path, scoring, **extra)
        run = load_run(path)
        result = rescore_run(run, scoring)
        deals = result.deals[result.deals["counted"]]
        _check_report(rep, deals, result.games, result.rules, duplicate)


def test_plain_pandas_checks_can_fail(run_dir):
    rep = build_report(run_dir)
    run = load_run(run_dir)
    games = run.games.copy()
    games.loc[games.index[0], "place"] = 4 if games["place"].iloc[0] != 4 else 1
    with pytest.raises(AssertionError):
        _check_report(rep, run.base_deals, games, run.rules)


# ------------------------------------------------------------- censoring, moons


def test_a_re_scoring_that_censors_most_games_warns(run_dir):
    r = CliRunner().invoke(report, [str(run_dir), "--scoring", "omnibus=true", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    s = rep["summary"]
    assert s["censored"] > 0.05 * 120
    (warning,) = rep["warnings"]
    assert f"{s['censored']:,} of 120 games" in warning
    assert "--score-also omnibus=true" in warning and "short games" in warning
    assert warning in r.stderr.replace("\n", " ") or warning[:60] in r.stderr
    text = CliRunner().invoke(report, [str(run_dir), "--scoring", "omnibus=true"])
    assert "warning: " in text.stderr and "--score-also omnibus=true" in text.stderr


def test_no_warning_when_the_scoring_was_played_alongside(tmp_path):
    path = tmp_path / "also"
    omnibus = Rules(omnibus=True)
    config = RunConfig(rules=Rules(), players=PLAYERS, games=40, seed=8, score_also=(omnibus,))
    run_tournament(config, path, workers=1, progress=False)
    r = CliRunner().invoke(report, [str(path), "--scoring", "omnibus=true", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["summary"]["censored"] == 0 and rep["warnings"] == []
    assert "warning" not in r.stderr


@pytest.mark.parametrize("censored, warns", [(0, False), (5, False), (6, True), (100, True)])
def test_the_warning_starts_above_five_percent(censored, warns):
    summary = {"games": 100 - censored, "censored": censored}
    got = censoring_warnings(summary, Rules(), Rules(end_score=150))
    assert bool(got) == warns
    if warns:
        assert f"{censored} of 100 games" in got[0] and "--score-also end_score=150" in got[0]


def _moon_deal(jack_seat):
    """One recorded deal: seat 0 took every heart and the QS (26 points); ``jack_seat``
    took the JD."""
    return pd.DataFrame(
        {
            "game": [0] * 4,
            "deal": [0] * 4,
            "seat": [0, 1, 2, 3],
            "points": [26, 0, 0, 0],
            "tricks": [10, 1, 1, 1],
            "jack_diamonds": [s == jack_seat for s in range(4)],
            "moon": [True, False, False, False],
        }
    )


@pytest.mark.parametrize(
    "rules, jack_seat, moon, scores",
    [
        (Rules(), 1, True, [0, 26, 26, 26]),
        (Rules(omnibus=True, moon_requires_jack=True), 1, False, [26, -10, 0, 0]),
        (Rules(omnibus=True, moon_requires_jack=True), 0, True, [0, 26, 26, 26]),
        (Rules(omnibus=True, moon_requires_jack=False), 1, True, [0, 26, 26, 26]),
        (
            Rules(omnibus=True, moon_requires_jack=False, jack_in_moon_deal=True),
            1,
            True,
            [0, 16, 26, 26],
        ),
    ],
)
def test_re_scoring_re_scores_the_moons(rules, jack_seat, moon, scores):
    deals = _moon_deal(jack_seat)
    result = rescore_frames(deals, rules, Rules())
    assert result.deals["moon"].tolist() == [moon, False, False, False]
    assert result.deals["moon_played"].tolist() == [True, False, False, False]
    assert result.deals["deal_score"].tolist() == scores


def test_the_report_counts_the_moons_of_the_re_scoring(tmp_path):
    path = tmp_path / "m"
    omnibus = Rules(omnibus=True)
    config = RunConfig(rules=Rules(), players=PLAYERS, games=150, seed=5, score_also=(omnibus,))
    run_tournament(config, path, workers=1, progress=False)
    deals = pd.read_parquet(path / "deals")
    base = build_report(path)["summary"]["moon_rate"]
    rescored = build_report(path, "omnibus=true")["summary"]["moon_rate"]
    # Counted from the raw facts: a moon under omnibus needs the JD too (A2.2).
    shot = deals[(deals["points"] == 26) & ~deals["after_end"]]
    with_jack = shot[shot["jack_diamonds"]]
    assert len(with_jack) < len(shot)  # the run has moons that omnibus does not count
    result = rescore_run(load_run(path), omnibus)
    counted = result.deals[result.deals["counted"]]
    want = int(((counted["points"] == 26) & counted["moon"]).sum())
    assert want == int(counted["moon"].sum())
    assert rescored["estimate"] * len(counted) / 4 == pytest.approx(want)
    assert base["estimate"] * (~deals["after_end"]).sum() / 4 == pytest.approx(len(shot))
