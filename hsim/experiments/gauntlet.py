"""The gauntlet: each candidate against three copies of each opponent of a panel, on
duplicate boards (docs/bots.md).

A bot's strength on the ladder is measured against hsim's own bots; the gauntlet measures
it against a panel that should hold opponents from outside that family (OpenSpiel's
ISMCTS through the bridge, a moon shooter, an engine of the protocol). Each pairing is a
ladder rung (:func:`hsim.experiments.ladder.run_rung`: the candidate in one seat, the
opponent in the others, every rotation of every board), on the same boards for every
pairing, so the deals are the same for every candidate against every opponent.

Per pairing: the candidate's edge in score per deal over the opponents (their mean minus
its mean in Hearts, after moon and bonuses; its mean minus theirs in Kierki) with a 95%
interval over boards; the candidate's and the opponents' mean score per deal; the moons
it shot (per deal it played) and the moons it conceded (deals in which an opponent shot
the moon, per deal); and the candidate's CPU milliseconds per decision, timed over
:data:`TIMED_DEALS` deals of its own against the same opponent.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hsim.analysis.stats import Interval, mean_interval
from hsim.engine.layout import H_DECIDER
from hsim.errors import ConfigError
from hsim.experiments.ladder import (
    ACTION_NOTE,
    advantages_from_sums,
    board_sums,
    check_pairs,
    holding,
    plan_folders,
    play_pair,
    run_board_sums,
    rung_config,
    rung_players,
    slug,
)
from hsim.model.rules import Rules

#: The default panel: a moon shooter, OpenSpiel's ISMCTS (the ``openspiel`` extra; 200
#: simulations a decision keep a default gauntlet to minutes), hsim's heuristic, and
#: random play.
DEFAULT_PANEL = (
    "shooter",
    "openspiel:ismcts(simulations=200)",
    "heuristic",
    "random",
)
#: The default panel under Kierki rules (the Hearts bots above do not play Kierki).
KIERKI_DEFAULT_PANEL = ("kierki", "random")
#: Deals the candidate plays alone against each opponent to time its decisions.
TIMED_DEALS = 4


def default_panel(rules: Rules) -> tuple[tuple[str, ...], list[str]]:
    """Return the default panel for ``rules`` and a note for each member of it that
    cannot play here and is left out (OpenSpiel's bots play only OpenSpiel's rules,
    ``--rules openspiel``, and need the ``openspiel`` extra)."""
    # deferred: loading a bot compiles it; the panel is checked only when it is asked for
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.loader import load_players

    panel, notes = [], []
    for spec in KIERKI_DEFAULT_PANEL if rules.is_kierki else DEFAULT_PANEL:
        try:
            load_players([spec] * rules.players, rules)
        except StrategyError as exc:
            notes.append(f"the default panel's {spec} is left out: {exc}")
            continue
        panel.append(spec)
    return tuple(panel), notes


@dataclasses.dataclass
class Pairing:
    """One candidate against three copies of one opponent (two in 3-player Kierki).

    advantage: the candidate's edge in mean score per deal, per board (positive: the
    candidate did better), with its 95% interval. score, opponents_score: mean score per
    deal of the candidate and of the opponents' seats. moons_shot: share of the deals it
    played in which it shot the moon; moons_conceded: share of them in which an opponent
    did. deals: deals played (each once). cpu_ms: the candidate's CPU milliseconds per
    decision (None when not timed). boards: the figures per board (:func:`figures_from_sums`),
    for the whole-panel line and the paired differences.
    """

    candidate: str
    opponent: str
    advantage: Interval
    score: float
    opponents_score: float
    moons_shot: float
    moons_conceded: float
    deals: int
    cpu_ms: float | None
    run_dir: Path
    boards: pd.DataFrame

    def to_json(self) -> dict:
        """Return the pairing as a JSON-able dict."""
        a = self.advantage
        return {
            "candidate": self.candidate,
            "opponent": self.opponent,
            "advantage": a.estimate,
            "advantage_low": a.low,
            "advantage_high": a.high,
            "boards": a.n,
            "deals": self.deals,
            "score": self.score,
            "opponents_score": self.opponents_score,
            "moons_shot": self.moons_shot,
            "moons_conceded": self.moons_conceded,
            "cpu_ms_per_decision": self.cpu_ms,
            "run_dir": str(self.run_dir),
        }


def check_gauntlet(candidates, panel, boards: int, seed: int, workers: int, rules: Rules):
    """Check every pairing's settings before any is played.

    :raises ConfigError: no candidate or no opponent, a spec given twice in either, fewer
        than 2 boards.
    :raises StrategyError: a spec that cannot be loaded or does not play the rules' game
        (the message names it).
    """
    if not candidates:
        raise ConfigError("a gauntlet needs at least one candidate (--candidates)")
    if not panel:
        raise ConfigError("a gauntlet needs at least one opponent (--panel)")
    for option, specs in (("--candidates", candidates), ("--panel", panel)):
        twice = sorted({s for s in specs if list(specs).count(s) > 1})
        if twice:
            raise ConfigError(
                f"{', '.join(twice)} is given more than once in {option}: its pairings would "
                "be played twice; give each spec once"
            )
    check_pairs([(c, o) for c in candidates for o in panel], boards, seed, workers, rules)


def measure_pairing(deals: pd.DataFrame, rules: Rules) -> dict:
    """Return a pairing's figures from its duplicate run's ``deals`` (the columns of
    :data:`~hsim.experiments.ladder.TALLY_COLUMNS`; the candidate is player 0), as
    :func:`figures_from_sums` gives them."""
    return figures_from_sums(board_sums(deals), rules)


def figures_from_sums(sums: pd.DataFrame, rules: Rules) -> dict:
    """Return a pairing's figures from its :func:`~hsim.experiments.ladder.board_sums`:
    ``advantage`` (an :class:`Interval` over boards), ``score``, ``opponents_score``,
    ``moons_shot``, ``moons_conceded``, ``deals`` and ``boards`` (per board, indexed by
    board: ``advantage``, points per deal, as
    :func:`~hsim.experiments.ladder.board_advantages`, and ``conceded``, the share of
    the board's deals in which an opponent shot the moon, 0..1; see :class:`Pairing`)."""
    deals = sums["upper_deals"]
    advantage = advantages_from_sums(sums, higher_is_better=rules.is_kierki)
    conceded = (sums["conceded"] / deals).to_numpy()
    boards = pd.DataFrame({"advantage": advantage, "conceded": conceded}, index=sums.index)
    n = int(deals.sum())
    return {
        "advantage": mean_interval(boards["advantage"]),
        "score": float(sums["upper_score"].sum() / n),
        "opponents_score": float(sums["other_score"].sum() / sums["other_rows"].sum()),
        "moons_shot": float(sums["upper_moons"].sum() / n),
        "moons_conceded": float(sums["conceded"].sum() / n),
        "deals": n,
        "boards": boards,
    }


def decision_cpu_ms(candidate: str, opponent: str, seed: int, rules: Rules) -> float | None:
    """Return the candidate's CPU milliseconds per decision over :data:`TIMED_DEALS` deals
    against three copies of ``opponent`` (game 0 of ``seed``), or None if it made none.
    Timed in this process, through the step-by-step driver (a compiled bot's call from
    Python adds about a microsecond)."""
    # deferred: the step-by-step driver compiles its kernels on first use
    from hsim.play.games import PythonDriver
    from hsim.strategy.loader import load_players

    players = load_players(list(rung_players(candidate, opponent, rules)), rules)
    driver = PythonDriver(rules, players, seed)
    spent = [0.0, 0]
    decide = driver.decide

    def timed(status: int) -> int:
        if int(driver.state.hidden[H_DECIDER]) != 0:  # another seat's decision
            return decide(status)
        start = time.process_time()
        try:
            return decide(status)
        finally:
            spent[0] += time.process_time() - start
            spent[1] += 1

    driver.decide = timed
    driver.start_game(0)
    for _ in range(TIMED_DEALS):
        if driver.play_deal():
            break
    return 1000 * spent[0] / spent[1] if spent[1] else None


def run_pairing(
    candidate: str,
    opponent: str,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
    cluster=None,
    timed: bool = True,
    action: str = "replace",
) -> Pairing:
    """Play one pairing into run folder ``out`` and measure it; ``timed``: also time the
    candidate's decisions (:func:`decision_cpu_ms`). action: see
    :func:`~hsim.experiments.ladder.play_pair` (default: replace a run there).

    :raises LadderStopped: a signal stopped the pairing's run.
    """
    label = pairing_label(candidate, opponent, rules)
    play_pair(
        candidate, opponent, boards, seed, workers, out, rules, progress, cluster, label, action
    )
    figures = figures_from_sums(run_board_sums(out), rules)
    cpu = decision_cpu_ms(candidate, opponent, seed, rules) if timed else None
    return Pairing(candidate, opponent, cpu_ms=cpu, run_dir=out, **figures)


def pairing_label(candidate: str, opponent: str, rules: Rules) -> str:
    """Return a pairing's name: ``pimc vs 3 x shooter``."""
    return f"{candidate} vs {rules.players - 1} x {opponent}"


def run_gauntlet(
    candidates,
    panel,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
    echo=None,
    cluster=None,
    timed: bool = True,
    mode: str | None = None,
):
    """Yield a :class:`Pairing` for each candidate against each opponent of ``panel``, in
    that order; every pairing is checked (:func:`check_gauntlet`), and its folder planned
    (:func:`~hsim.experiments.ladder.plan_folders`; ``mode``: ``RESUME``, ``OVERWRITE`` or
    None), before the first is played. Run folders: ``out/<k>-<candidate>-vs-<opponent>``.
    echo: called before each pairing with a line naming it.

    :raises RunError: ``out`` is in use or cannot be created, or a pairing's folder cannot
        be used as ``mode`` asks (nothing is played).
    """
    check_gauntlet(candidates, panel, boards, seed, workers, rules)
    pairs = [(c, o) for c in candidates for o in panel]
    with holding(out):
        # numbered: two long specs (an engine's command line) may share their first letters
        folders = [out / f"{k:02d}-{slug(c)[:60]}-vs-{slug(o)[:60]}"
                   for k, (c, o) in enumerate(pairs, 1)]  # fmt: skip
        runs = [
            (folder, rung_config(c, o, boards, seed, rules),
             f"the pairing {pairing_label(c, o, rules)}")
            for folder, (c, o) in zip(folders, pairs, strict=True)
        ]  # fmt: skip
        actions = plan_folders(runs, mode)
        for k, ((candidate, opponent), folder, action) in enumerate(
            zip(pairs, folders, actions, strict=True), 1
        ):
            if echo is not None:
                echo(
                    f"pairing {k} of {len(pairs)}: {pairing_label(candidate, opponent, rules)}, "
                    f"{boards * rules.players:,} games{ACTION_NOTE[action]}"
                )
            yield run_pairing(
                candidate, opponent, boards, seed, workers, folder, rules, progress,
                cluster, timed, action,
            )  # fmt: skip


def panel_summary(pairings: list[Pairing], rules: Rules) -> Interval | None:
    """Return one candidate's advantage over the whole panel: board by board (the boards
    are the same in every pairing), the mean of its pairings' advantages, with its 95%
    interval over boards; None without pairings."""
    if not pairings:
        return None
    per_board = [p.boards["advantage"].to_numpy() for p in pairings]
    return mean_interval(np.mean(per_board, axis=0))


@dataclasses.dataclass
class Difference:
    """A candidate against the reference candidate on the same boards: against one
    opponent (``opponent``), or over the whole panel (``opponent`` None, each board's
    figures averaged over the pairings).

    advantage: the candidate's advantage minus the reference's, points per deal, with
    its 95% interval over boards (positive: the candidate did better against the same
    opponents on the same deals); moons_conceded: the candidate's share of deals with a
    moon conceded minus the reference's, with its interval (negative: it conceded fewer).
    """

    candidate: str
    reference: str
    opponent: str | None
    advantage: Interval
    moons_conceded: Interval

    def to_json(self) -> dict:
        """Return the difference as a JSON-able dict."""
        a, m = self.advantage, self.moons_conceded
        return {
            "candidate": self.candidate,
            "reference": self.reference,
            "opponent": self.opponent,
            "advantage": a.estimate,
            "advantage_low": a.low,
            "advantage_high": a.high,
            "moons_conceded": m.estimate,
            "moons_conceded_low": m.low,
            "moons_conceded_high": m.high,
            "boards": a.n,
        }


def paired_differences(pairings: list[Pairing], rules: Rules) -> list[Difference]:
    """Return every candidate but the first against the first (the reference), paired
    board by board: per opponent, then over the whole panel when it holds two or more
    (:class:`Difference`).
    Empty with fewer than two candidates.

    :raises ValueError: two pairings that did not play the same boards.
    """
    candidates = list(dict.fromkeys(p.candidate for p in pairings))
    if len(candidates) < 2:
        return []
    figures = {(p.candidate, p.opponent): p.boards for p in pairings}
    panel = list(dict.fromkeys(p.opponent for p in pairings))
    reference = candidates[0]
    out = []
    for c in candidates[1:]:
        rows = []
        for o in panel:
            if (c, o) not in figures or (reference, o) not in figures:
                continue
            mine, ref = figures[c, o], figures[reference, o]
            if not mine.index.equals(ref.index):
                raise ValueError(f"{c} and {reference} did not play the same boards against {o}")
            diff = mine - ref
            rows.append(diff)
            out.append(Difference(c, reference, o, mean_interval(diff["advantage"]),
                                  mean_interval(diff["conceded"])))  # fmt: skip
        if len(rows) > 1:
            whole = sum(rows) / len(rows)
            out.append(Difference(c, reference, None, mean_interval(whole["advantage"]),
                                  mean_interval(whole["conceded"])))  # fmt: skip
    return out


def difference_label(d: Difference, rules: Rules) -> str:
    """Return a paired line's name: ``pimc - heuristic vs 3 x shooter``, or ``pimc -
    heuristic over the whole panel``."""
    against = (
        "over the whole panel" if d.opponent is None else f"vs {rules.players - 1} x {d.opponent}"
    )
    return f"{d.candidate} - {d.reference} {against}"


def format_difference_header(reference: str, width: int) -> str:
    """Return the paired table's header, its first column ``width`` wide: each line is a
    candidate minus ``reference`` on the same boards (:func:`format_difference`)."""
    return (
        f"{'paired with ' + reference + ' (same boards)':<{width}} "
        f"{'advantage, 95% CI':<24}  moons conceded, points of %"
    )


def format_difference(d: Difference, width: int, rules: Rules) -> str:
    """Return one line of the paired table, its name ``width`` wide (:func:`difference_label`),
    then the advantage in points per deal and the moons conceded in points of percentage,
    each with its 95% interval: ``+2.150 [+1.902, +2.398]  -1.7 [-2.5, -0.9]``."""
    a, m = d.advantage, d.moons_conceded
    return (
        f"{difference_label(d, rules):<{width}} {a.estimate:+.3f} [{a.low:+.3f}, {a.high:+.3f}]  "
        f"{100 * m.estimate:+.1f} [{100 * m.low:+.1f}, {100 * m.high:+.1f}]"
    )


def format_header(width: int) -> str:
    """Return the gauntlet table's header, its first column ``width`` wide."""
    return (
        f"{'pairing':<{width}} {'boards':>6} {'score':>7} {'theirs':>7}  "
        f"{'advantage, 95% CI':<27} {'moons':>6} {'conceded':>8} {'ms/dec':>8}"
    )


def format_pairing(p: Pairing, width: int, rules: Rules) -> str:
    """Return one pairing's line of the table (see :func:`format_header`)."""
    a = p.advantage
    estimate = f"{a.estimate:+.3f} [{a.low:+.3f}, {a.high:+.3f}]"
    cpu = "" if p.cpu_ms is None else f"{p.cpu_ms:8.3f}"
    return (
        f"{pairing_label(p.candidate, p.opponent, rules):<{width}} {a.n:>6} {p.score:7.3f} "
        f"{p.opponents_score:7.3f}  {estimate:<27} {p.moons_shot:6.1%} {p.moons_conceded:8.1%} "
        f"{cpu:>8}"
    )


def label_width(candidates, panel, rules: Rules) -> int:
    """Return the first column's width for these pairings."""
    labels = [pairing_label(c, o, rules) for c in candidates for o in panel]
    return max([len("pairing"), *map(len, labels)]) + 2
