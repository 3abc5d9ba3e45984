"""Per-strategy report of a run: points per deal, win rate, places, moons, with intervals.

Hearts runs are broken down by pass direction; Kierki runs (RULES.md part B: 4 or 3
seats, higher scores better, no moon, ``points`` = ``deal_score``) by deal kind instead,
and their moon columns are left out.

Intervals (95% by default):

- points per deal, score per deal, moon rate, mean place, score per deal of a kind:
  ratio estimators with a cluster-robust t interval over games
  (:func:`hsim.analysis.stats.ratio_interval`), because deals of one game are
  correlated (and copies of a strategy share games);
- win rate and the place shares: Wilson intervals over seat-games (seat-games of one game
  are treated as independent; with several copies of a strategy at a table they are
  in fact negatively correlated, which makes these intervals a little wide).

Games censored under a re-scoring (their recorded deals ran out) are left out of the
win rate and places, and counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hsim.analysis.frames import (
    N_SEATS,
    Run,
    as_rules,
    games_summary,
    interval_dict,
    rescore_run,
    safe_ratio_interval,
)
from hsim.analysis.stats import wilson_interval
from hsim.errors import HsimError
from hsim.rules import KIERKI_KINDS, Rules, canonical


def report_frames(run: Run, scoring: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (deals, games) to report ``run`` under ``scoring``.

    scoring: None or ``base``: the deals as played (``after_end`` rows dropped) and the
    recorded games. Otherwise a rules string or ``name=value`` assignments on the played
    rules (scoring options only): the deals counted under that scoring, with its
    ``deal_score`` and ``score``, and its games, re-scored from the recorded deals (with
    ``censored`` games where the deals ran out).

    :raises RulesError: the scoring is invalid, changes play, or re-scores a Kierki run
        (Kierki has no scoring options; its own rules are its recorded games).
    """
    if (
        scoring is not None
        and run.rules.is_kierki
        and scoring.strip() != "base"
        and as_rules(scoring, run.rules) == run.rules
    ):
        scoring = None
    if scoring is None or scoring.strip() == "base":
        deals = run.base_deals
        games = run.games if run.scoring == "base" else run.games_for("base")
        return deals, games
    result = rescore_run(run, scoring)
    deals = result.deals[result.deals["counted"].to_numpy(bool)]
    return deals, result.games


def _key_values(frame: pd.DataFrame, by: str) -> pd.Series:
    return frame[by].astype(str) if by == "strategy" else frame[by]


def _ratio(frame: pd.DataFrame, value: str) -> dict[str, float] | None:
    per = frame.groupby("game", sort=False)[value].agg(["sum", "size"])
    return interval_dict(safe_ratio_interval(per["sum"], per["size"]))


def _wilson(k: int, n: int) -> dict[str, float] | None:
    return interval_dict(wilson_interval(k, n)) if n else None


def strategy_rows(
    deals: pd.DataFrame, games: pd.DataFrame, by: str = "strategy", rules: Rules | None = None
) -> list[dict]:
    """Return one dict per value of ``by`` (``strategy``, ``seat`` or ``player``), sorted.

    rules: the rules of the games (None: Hearts), for the seat count and the moons.
    Keys: the ``by`` value; strategies (the specs seen, for seat/player); seat_games,
    seat_deals (int); censored (seat-games left out); points_per_deal, score_per_deal
    (``deal_score``: after moon and bonuses; in Kierki the same as points), moon_rate
    (moons shot per seat-deal; Hearts only), mean_place: ``{estimate, low, high, n}``
    clustered by game; win_rate: Wilson; places: share of seat-games in place 1..seats
    (``{"1": {...}, ...}``, Wilson).
    """
    seats = N_SEATS if rules is None else rules.players
    moons = rules is None or not rules.is_kierki
    done = games[~games["censored"].to_numpy(bool)] if "censored" in games else games
    dkey = _key_values(deals, by)
    gkey = _key_values(done, by)
    rows = []
    for value in sorted(set(dkey.unique()) | set(_key_values(games, by).unique())):
        d = deals[(dkey == value).to_numpy()]
        g = done[(gkey == value).to_numpy()]
        all_g = games[(_key_values(games, by) == value).to_numpy()]
        n = len(g)
        row: dict[str, Any] = {by: value.item() if hasattr(value, "item") else value}
        if by != "strategy":
            row["strategies"] = sorted(set(all_g["strategy"].astype(str)))
        row.update(
            {
                "seat_games": n,
                "seat_deals": len(d),
                "censored": len(all_g) - n,
                "points_per_deal": _ratio(d, "points") if len(d) else None,
                "score_per_deal": _ratio(d, "deal_score") if len(d) and "deal_score" in d else None,
                **(
                    {"moon_rate": _ratio(d, "moon") if len(d) and "moon" in d else None}
                    if moons
                    else {}
                ),
                "win_rate": _wilson(int(g["winner"].astype(bool).sum()), n),
                "mean_place": _ratio(g.assign(place=g["place"].astype(float)), "place")
                if n
                else None,
                "places": {
                    str(p): _wilson(int((g["place"].astype(int) == p).sum()), n)
                    for p in range(1, seats + 1)
                },
            }
        )
        rows.append(row)
    return rows


def _rows_by(deals: pd.DataFrame, by: str, column: str, order: tuple, measures) -> list[dict]:
    """Return one dict per (``by`` value, ``column`` value) with ``seat_deals`` and each
    ``measures`` name applied to the group's deals; sorted by ``by``, then ``column`` in
    ``order`` (values not in it last, by name).
    """
    rank = {value: i for i, value in enumerate(order)}
    rows = []
    key = _key_values(deals, by)
    for (value, group), d in deals.groupby([key, deals[column].astype(str)]):
        row = {by: value.item() if hasattr(value, "item") else value, column: group}
        row["seat_deals"] = len(d)
        row.update({name: measure(d) for name, measure in measures.items()})
        rows.append(row)
    rows.sort(key=lambda r: (str(r[by]), rank.get(r[column], len(rank)), r[column]))
    return rows


def pass_direction_rows(deals: pd.DataFrame, by: str = "strategy") -> list[dict]:
    """Return one dict per (``by`` value, pass direction): seat_deals, points_per_deal and
    moon_rate (intervals clustered by game). Directions in the order left, right,
    across, hold."""
    measures = {
        "points_per_deal": lambda d: _ratio(d, "points"),
        "moon_rate": lambda d: _ratio(d, "moon") if "moon" in d else None,
    }
    return _rows_by(deals, by, "pass_direction", ("left", "right", "across", "hold"), measures)


def kind_rows(deals: pd.DataFrame, by: str = "strategy") -> list[dict]:
    """Return one dict per (``by`` value, Kierki deal kind): seat_deals (int) and
    score_per_deal (mean ``deal_score``, the seat's signed points for the deal, with an
    interval clustered by game). Kinds in the order they are played (RULES.md B1).
    """
    measures = {"score_per_deal": lambda d: _ratio(d, "deal_score")}
    return _rows_by(deals, by, "kind", KIERKI_KINDS, measures)


def build_report(run: Run, scoring: str | None = None) -> dict[str, Any]:
    """Return the whole report of ``run`` under ``scoring`` as a JSON-ready dict.

    Keys: run, status, rules, scoring, seed, players, duplicate; summary (see
    :func:`hsim.analysis.frames.games_summary`); strategies (:func:`strategy_rows`);
    by_pass_direction (:func:`pass_direction_rows`; Hearts) or by_kind
    (:func:`kind_rows`; Kierki); by_seat (:func:`strategy_rows` by seat; in duplicate
    play every player sits at every seat, so see by_player too).

    :raises RulesError: ``scoring`` is invalid, changes play, or re-scores a Kierki run.
    """
    deals, games = report_frames(run, scoring)
    base = scoring is None or scoring.strip() == "base"
    rules = run.rules if base else as_rules(scoring, run.rules)
    played = canonical(run.rules, run.manifest.get("rules", {}).get("preset"))
    out: dict[str, Any] = {
        "run": str(run.path),
        "status": run.manifest.get("status"),
        "rules": played,
        # The played rules are named as the run named them, so that they read as such.
        "scoring": played if rules == run.rules else canonical(rules),
        "seed": run.manifest.get("seed"),
        "players": [p.get("spec") for p in run.manifest.get("players", [])],
        "duplicate": bool(run.manifest.get("duplicate", False)),
        "summary": games_summary(games, deals, rules=rules),
        "strategies": strategy_rows(deals, games, "strategy", rules),
    }
    if rules.is_kierki:
        out["by_kind"] = kind_rows(deals, "strategy")
    else:
        out["by_pass_direction"] = pass_direction_rows(deals, "strategy")
    out["by_seat"] = strategy_rows(deals, games, "seat", rules)
    if out["duplicate"]:
        out["by_player"] = strategy_rows(deals, games, "player", rules)
    return out


def _iv(d: dict | None, digits: int = 3) -> str:
    if d is None:
        return "-"
    half = (d["high"] - d["low"]) / 2
    if np.isnan(half):
        return f"{d['estimate']:.{digits}f}"
    return f"{d['estimate']:.{digits}f} ± {half:.{digits}f}"


def format_report(rep: dict[str, Any]) -> list[str]:
    """Return the report as lines of text (what ``hsim report`` prints)."""
    s = rep["summary"]
    kierki = "by_kind" in rep  # Kierki: no moons, points = score, by deal kind
    moons = "" if kierki else f"; moons per deal {_iv(s.get('moon_rate'), 4)}"
    lines = [
        f"run {rep['run']} ({rep['status']}); rules {rep['rules']}; seed {rep['seed']}",
        f"scoring: {rep['scoring']}" + ("" if rep["scoring"] == rep["rules"] else " (re-scored)"),
        f"games {s['games']:,}"
        + (f" (+{s['censored']:,} censored: the recorded deals ran out)" if s["censored"] else "")
        + f"; deals per game {_iv(s['game_length'], 2)}{moons}; ended by "
        + ", ".join(f"{k} {v:,}" for k, v in s["ended_by"].items()),
        f"final score: mean {_iv(s['final_score'], 2)}, winner's {_iv(s['winning_score'], 2)}; "
        "quantiles "
        + " ".join(f"q{float(q) * 100:g}={v:g}" for q, v in s["score_quantiles"].items()),
        "(± 95% intervals: per-deal rates clustered by game, win rates Wilson)"
        if not kierki
        else "(± 95% intervals: per-deal rates clustered by game, win rates Wilson; "
        "Kierki: the highest score wins)",
        "",
    ]
    places = list(rep["strategies"][0]["places"]) if rep["strategies"] else list("1234")
    ordinals = "/".join(f"{p}{_SUFFIX.get(p, 'th')}" for p in places)
    if kierki:
        head = (
            f"{'strategy':<24} {'score/deal':>15} {'win rate':>15} {'mean place':>15} "
            f"{ordinals:>19}"
        )
    else:
        head = (
            f"{'strategy':<24} {'points/deal':>15} {'score/deal':>15} {'win rate':>15} "
            f"{'mean place':>15} {ordinals:>19} {'moons/deal':>17}"
        )
    lines.append(head)
    for r in rep["strategies"]:
        lines.append(_row(str(r["strategy"]), r, kierki))
    lines += ["", "by seat:", head.replace("strategy", "seat    ", 1)]
    for r in rep["by_seat"]:
        lines.append(_row(f"{r['seat']} {'/'.join(r['strategies'])}", r, kierki))
    if "by_player" in rep:
        lines += ["", "by player:", head.replace("strategy", "player  ", 1)]
        for r in rep["by_player"]:
            lines.append(_row(f"{r['player']} {'/'.join(r['strategies'])}", r, kierki))
    if kierki:
        lines += ["", "by deal kind:", f"{'strategy':<24} {'kind':<16} {'score/deal':>17}"]
        for r in rep["by_kind"]:
            lines.append(f"{str(r['strategy']):<24} {r['kind']:<16} {_iv(r['score_per_deal']):>17}")
        return lines
    lines += [
        "",
        "by pass direction:",
        f"{'strategy':<24} {'direction':<9} {'points/deal':>15} {'moons/deal':>17}",
    ]
    for r in rep["by_pass_direction"]:
        lines.append(
            f"{str(r['strategy']):<24} {r['pass_direction']:<9} "
            f"{_iv(r['points_per_deal']):>15} {_iv(r['moon_rate'], 5):>17}"
        )
    return lines


_SUFFIX = {"1": "st", "2": "nd", "3": "rd"}


def _row(label: str, r: dict, kierki: bool = False) -> str:
    places = "/".join(
        f"{r['places'][p]['estimate']:.2f}" if r["places"][p] else "-" for p in r["places"]
    )
    if kierki:
        return (
            f"{label[:24]:<24} {_iv(r['score_per_deal']):>15} {_iv(r['win_rate']):>15} "
            f"{_iv(r['mean_place']):>15} {places:>19}"
        )
    return (
        f"{label[:24]:<24} {_iv(r['points_per_deal']):>15} {_iv(r['score_per_deal']):>15} "
        f"{_iv(r['win_rate']):>15} {_iv(r['mean_place']):>15} {places:>19} "
        f"{_iv(r['moon_rate'], 5):>17}"
    )


class PlotUnavailable(HsimError, RuntimeError):
    """matplotlib is not installed; the message says how to install it."""


def plot_report(
    deals: pd.DataFrame, games: pd.DataFrame, out_dir, rules: Rules | None = None
) -> list[Path]:
    """Write PNG charts of a run to ``out_dir`` (created) and return their paths.

    final_scores.png: histogram of final game scores per strategy; game_length.png: games
    by number of deals; then for Hearts (``rules`` None or Hearts) points_per_deal.png:
    share of deals by raw points taken, per strategy; for Kierki score_by_kind.png: mean
    score per deal of each deal kind, per strategy. Censored games are left out.

    :raises PlotUnavailable: matplotlib is missing.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(
            "--plot needs matplotlib, which is not installed: pip install matplotlib "
            "(or pip install 'hsim[plot]')"
        ) from None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    done = games[~games["censored"].to_numpy(bool)] if "censored" in games else games
    paths = []

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    high = int(done["score"].max()) if len(done) else 1
    low = min(0, int(done["score"].min())) if len(done) else 0
    kierki = rules is not None and rules.is_kierki
    step = 25 if kierki else 5  # Kierki scores run to the thousands, in steps of 5
    bins = np.arange(low, high + step + 1, step)
    for name, g in done.groupby(done["strategy"].astype(str)):
        ax.hist(g["score"], bins=bins, histtype="step", density=True, label=name, linewidth=1.5)
    ax.set(
        xlabel="final game score",
        ylabel="share of seat-games per point",
        title="Final scores by strategy",
    )
    ax.legend()
    paths.append(_save(fig, out / "final_scores.png"))

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    lengths = done.groupby("game")["deals"].first().value_counts().sort_index()
    ax.bar(lengths.index, lengths.to_numpy() / lengths.sum())
    ax.set(xlabel="deals in the game", ylabel="share of games", title="Game length")
    paths.append(_save(fig, out / "game_length.png"))

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    names = sorted(deals["strategy"].astype(str).unique())
    width = 0.8 / max(1, len(names))
    if kierki:
        seen = set(deals["kind"].astype(str))
        kinds = [k for k in KIERKI_KINDS if k in seen]
        means = deals.groupby([deals["strategy"].astype(str), deals["kind"].astype(str)])[
            "deal_score"
        ].mean()
        for i, name in enumerate(names):
            values = [means.get((name, k), np.nan) for k in kinds]
            ax.bar(np.arange(len(kinds)) + i * width, values, width=width, label=name)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(kinds)) + width * (len(names) - 1) / 2, kinds, rotation=30)
        ax.set(ylabel="mean score per deal", title="Score per deal by deal kind and strategy")
        ax.legend()
        paths.append(_save(fig, out / "score_by_kind.png"))
        return paths
    for i, name in enumerate(names):
        pts = deals.loc[(deals["strategy"].astype(str) == name).to_numpy(), "points"]
        share = pts.value_counts(normalize=True).reindex(range(27), fill_value=0)
        ax.bar(np.arange(27) + i * width, share.to_numpy(), width=width, label=name)
    ax.set_yscale("log")
    ax.set(
        xlabel="raw points taken in a deal",
        ylabel="share of seat-deals",
        title="Points per deal by strategy",
    )
    ax.legend()
    paths.append(_save(fig, out / "points_per_deal.png"))
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
