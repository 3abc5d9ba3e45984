"""Play the same seeds under a base rule set and variants of it, and compare the games.

Each rule set is its own tournament (:func:`hsim.runner.run.run_tournament`) with the
same seed and players, so game ``g`` is dealt the same hands in every run (deal by deal,
as long as both games last); a variant may change play options too (docs/rules.md A1). Every
rule set is played, never re-scored from another's deals, so Kierki variants (every
Kierki option changes play, docs/rules.md part B) are compared as they play. For each variant
the report gives the share of games whose winner set changed against the base (the set
of seats with the best final score, co-winners included: the lowest in Hearts, the
highest in Kierki; a tie that becomes a sole win is a change), with a Wilson interval,
and per rule set the mean game length, the moon rate (Hearts), and the distribution of
final scores.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hsim.analysis.cells import GameColumns, dictionary_codes
from hsim.analysis.frames import (
    SummaryTally,
    WinnerTally,
    _scoring_mask,
    _upgrade,
    as_rules,
    compare_games,
    jsonable,
    play_differences,
)
from hsim.analysis.report import (
    REPORT_DEAL_COLUMNS,
    REPORT_GAME_COLUMNS,
    ReportTally,
    played_games,
    report_dict,
)
from hsim.analysis.scan import BATCH_ROWS, aligned, open_run
from hsim.model.rules import (
    HEARTS_OPTIONS,
    KIERKI_OPTIONS,
    RULE_FIELDS,
    Rules,
    RulesError,
    canonical,
    differences,
)
from hsim.runner.config import RunConfig, validate
from hsim.runner.run import RunError, run_tournament
from hsim.runner.verify import require_complete

SUMMARY_FILE = "compare.json"


@dataclasses.dataclass(frozen=True)
class Variant:
    """A rule set to compare with the base: text as given, its rules, its label (the
    canonical string), the play options (docs/rules.md A1) it changes."""

    text: str
    rules: Rules
    label: str
    changes_play: tuple[str, ...]


def parse_variant(text: str, base: Rules, preset: str = "classic") -> Variant:
    """Read ``--variant`` text: ``name=value[,name=value]`` on top of ``base``, or a full
    rules string (``openspiel(omnibus=true)``).

    :raises RulesError: empty, invalid, the same rules as the base, another game or
        number of players than the base (the same players must play both), or only
        options of the other game (they would play the base's games again); the message
        says why.
    """
    t = text.strip()
    if not t:
        raise RulesError("an empty --variant: write name=value[,name=value]")
    options = KIERKI_OPTIONS if base.is_kierki else HEARTS_OPTIONS
    inside = t.partition("(")[2].rstrip(")") if "(" in t else t
    for piece in inside.split(","):
        name = piece.partition("=")[0].strip()
        if "=" in piece and name not in RULE_FIELDS:  # the base's game's options only
            raise RulesError(
                f"--variant {text!r}: unknown rule option {name!r}; the options of "
                f"{'Kierki' if base.is_kierki else 'Hearts'}: {', '.join(options)} (see "
                "`hsim rules` for their values)"
            )
    try:
        rules = as_rules(t, base)
    except RulesError as exc:
        raise RulesError(f"--variant {text!r}: {exc}") from None
    if rules == base:
        raise RulesError(
            f"--variant {text!r} is the same rule set as the base ({canonical(base, preset)}); "
            "it would compare the base with itself"
        )
    for name in ("game", "players"):
        if getattr(rules, name) != getattr(base, name):
            raise RulesError(
                f"--variant {text!r} changes {name} ({getattr(base, name)} -> "
                f"{getattr(rules, name)}); a variant plays the base's players at the "
                "same game: choose the base with --rules instead"
            )
    other = HEARTS_OPTIONS if base.is_kierki else KIERKI_OPTIONS
    changed = differences(base, rules)
    if all(n in other for n in changed):
        game = "Kierki" if base.is_kierki else "Hearts"
        raise RulesError(
            f"--variant {text!r} sets only {', '.join(changed)}, which "
            f"{'has' if len(changed) == 1 else 'have'} no effect in {game}: it would play "
            "the base's games again (see `hsim rules` for the options of each game)"
        )
    return Variant(t, rules, canonical(rules, preset), tuple(play_differences(base, rules)))


def compare_rules(
    base: Rules,
    variants: list[Variant],
    players: tuple[str, ...],
    games: int,
    seed: int,
    out: Path,
    workers: int = 1,
    preset: str = "classic",
    overwrite: bool = False,
    progress: bool = False,
    argv: list[str] | None = None,
    echo=None,
    cluster=None,
) -> dict[str, Any]:
    """Play ``games`` games of ``players`` with ``seed`` under ``base`` and each variant
    into ``out/base``, ``out/variant-1``, …; return the comparison (also written to
    ``out/compare.json``).

    Returned keys: seed, games, players, out; base: {rules, run_dir, summary}; variants:
    one per variant with text, rules, changes_play (list of A1 options), differs (the
    options that differ from the base), run_dir, summary (see
    :func:`hsim.analysis.frames.games_summary`), winner_change (see
    :class:`hsim.analysis.frames.WinnerChange`), by_strategy (win rates under base and
    variant and the seat-games whose win status flipped, per strategy) and by_length
    (winner changes by the base game's length). echo: called with a line of progress.
    cluster: a :class:`hsim.runner.cluster.DaskCluster` to play every rule set on instead
    of ``workers`` local processes.

    :raises hsim.runner.run.RunError: ``out`` exists (without ``overwrite``) or a run
        failed. :raises hsim.strategy.contract.StrategyError: a bad player spec.
    """

    runs = [("base", base, "base")] + [
        (f"variant-{i}", v.rules, v.label) for i, v in enumerate(variants, 1)
    ]
    configs = [
        RunConfig(rules=rules, players=tuple(players), games=games, seed=seed, rules_preset=preset)
        for _, rules, _ in runs
    ]
    for config in configs:  # every rule set's settings, before anything is written
        validate(config, workers)
    out = Path(out)
    _prepare(out, overwrite)
    dirs = {}
    for (name, _, label), config in zip(runs, configs, strict=True):
        if echo:
            echo(f"playing {games:,} games under {label} -> {out / name}")
        result = run_tournament(
            config,
            out / name,
            workers=workers,
            overwrite=True,
            progress=progress,
            argv=argv,
            cluster=cluster,
        )
        if result.status != "complete":  # interrupted: exit 130/143, as the run would
            raise RunError(
                f"the {name} run was {result.status}; its parts are in {out / name}",
                exit_code=result.exit_code,
            )
        require_complete(out / name)  # nothing is compared from a damaged run
        dirs[name] = out / name

    base_summary, figures = compare_runs(
        dirs["base"], [dirs[f"variant-{i}"] for i in range(1, len(variants) + 1)],
        base, [v.rules for v in variants],
    )  # fmt: skip
    report: dict[str, Any] = {
        "seed": seed,
        "games": games,
        "players": list(players),
        "out": str(out),
        "game": base.game,
        "winner_change_definition": f"a game's winner set (the seats with the "
        f"{_best(base)} final score, co-winners included) differs between the base and "
        "the variant",
        "base": {
            "rules": canonical(base, preset),
            "run_dir": str(dirs["base"]),
            "summary": base_summary,
        },
        "variants": [],
    }
    for i, (v, fig) in enumerate(zip(variants, figures, strict=True), 1):
        report["variants"].append(
            {
                "text": v.text,
                "rules": v.label,
                "changes_play": list(v.changes_play),
                "play_changed": fig["play_changed"],
                "differs": {k: _jsonable(x) for k, x in differences(base, v.rules).items()},
                "run_dir": str(dirs[f"variant-{i}"]),
                **{k: x for k, x in fig.items() if k != "play_changed"},
            }
        )
    report = jsonable(report)
    (out / SUMMARY_FILE).write_text(json.dumps(report, indent=2) + "\n")
    return report


def compare_runs(
    base_dir,
    variant_dirs: list,
    base: Rules,
    variants: list[Rules],
    rows: int = BATCH_ROWS,
    tables: bool = True,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Compare run folders played with the same seeds and players under ``base`` and each
    of ``variants``, in one pass over all of them in batches of whole games (memory does
    not grow with the runs).

    Returns (the base's summary, one dict per variant with play_changed, summary,
    winner_change, by_strategy, by_length): see :func:`compare_rules`. Only games present
    in both runs are compared. tables: read the deals as numpy columns straight from
    Arrow (the same figures in a fraction of the time); False reads them as pandas
    frames, the reference the tests hold the tables to.

    :raises RunFolderError: a folder is not a run, or a part is damaged; two runs seat
        different strategies in a game.
    """
    folders = [open_run(base_dir), *(open_run(d) for d in variant_dirs)]
    reading = _Reading(folders, [base, *variants], reports=False)
    return reading.run(rows, tables)[:2]


def compare_and_report(
    base_dir, variant_dirs: list, base: Rules, variants: list[Rules], rows: int = BATCH_ROWS
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[np.ndarray]]:
    """:func:`compare_runs`, and in the same pass over the runs each run's report and
    spreads (``hsim atlas`` reads every run once).

    Returns (the base's summary, the variants' figures as :func:`compare_runs`; per run,
    base first, :func:`hsim.analysis.report.build_report` of it and the spread of each of
    its games: float64[games], its highest final score minus its lowest, in game order).

    :raises RunFolderError: as :func:`compare_runs`.
    """
    folders = [open_run(base_dir), *(open_run(d) for d in variant_dirs)]
    return _Reading(folders, [base, *variants], reports=True).run(rows, tables=True)


class _Reading:
    """One pass over several runs of the same seeds: the tallies of :func:`compare_runs`
    and, with ``reports``, each run's :class:`hsim.analysis.report.ReportTally`."""

    def __init__(self, folders, all_rules: list[Rules], reports: bool) -> None:
        self.folders = folders
        self.reports = (
            [ReportTally(f.rules, bool(f.manifest.get("duplicate", False))) for f in folders]
            if reports
            else None
        )
        self.summaries = [SummaryTally(r, moons=True) for r in all_rules]
        self.winners = [WinnerTally() for _ in all_rules[1:]]
        self.changed = [{"deals": 0, "compared": 0} for _ in all_rules[1:]]
        self.spreads: list[list[np.ndarray]] = [[] for _ in folders]

    def run(self, rows: int, tables: bool):
        """Read every batch; return (base summary, figures, reports, spreads)."""
        game_columns, deal_columns = _GAME_COLUMNS, (*_DEAL_COLUMNS, *PLAY_FACTS)
        if self.reports is not None:
            game_columns = (*game_columns, *REPORT_GAME_COLUMNS)
            deal_columns = (*deal_columns, *REPORT_DEAL_COLUMNS)
        streams = []
        for folder in self.folders:
            streams.append(folder.batches("games", game_columns, rows))
            streams.append(folder.batches("deals", deal_columns, rows))
        for batch in aligned(*streams):
            self._add(batch, tables)
        summaries, winners, changed = self.summaries, self.winners, self.changed
        figures = [
            {
                "play_changed": changed[k - 1],
                "summary": summaries[k].result(),
                "winner_change": tally.winner_change().to_dict(),
                "by_strategy": tally.by_strategy().to_dict("records"),
                "by_length": tally.by_length().to_dict("records"),
            }
            for k, tally in enumerate(winners, 1)
        ]
        if self.reports is None:
            return summaries[0].result(), figures, [], []
        reports = [
            report_dict(f, tally, f.rules)
            for f, tally in zip(self.folders, self.reports, strict=True)
        ]
        spreads = [np.concatenate(s) if s else np.zeros(0) for s in self.spreads]
        return summaries[0].result(), figures, reports, spreads

    def _add(self, batch, tables: bool) -> None:
        frames = []
        played = []
        for k, folder in enumerate(self.folders):
            summary = self.summaries[k]
            if tables:
                games = played_games(batch[2 * k], folder.rules)
                frames.append(games)
                deals = DealColumns.of(batch[2 * k + 1])
                if isinstance(games, GameColumns):
                    summary.add_columns(games)
                    if summary.moons and len(games):
                        summary.add_moons(*deals.moons(games.game[games.starts()]))
                else:
                    summary.add_games(games)
                    if summary.moons and len(games):
                        summary.add_moons(*deals.moons(games["game"].unique()))
            else:
                games = _frame(batch[2 * k])
                if len(games):
                    games = games[_scoring_mask(games, folder.rules, folder.rules)]
                games = games.assign(censored=False)
                frames.append(games)
                deals = _frame(batch[2 * k + 1])
                if "after_end" in deals.columns:
                    deals = deals[~deals["after_end"].to_numpy(bool)]
                summary.add(games, deals)
            if self.reports is not None:
                self.reports[k].add_table(deals.table, games)
                if len(games):
                    self.spreads[k].append(_spreads(games))
            played.append(deals)
        for k, tally in enumerate(self.winners, 1):
            if len(frames[0]) and len(frames[k]):
                _compare(tally, frames[0], frames[k])
            if len(played[0]) and len(played[k]):
                counts = play_changed(played[0], played[k])
                for key in counts:
                    self.changed[k - 1][key] += counts[key]


def _compare(tally: WinnerTally, a, b) -> None:
    """Add to ``tally`` the games of two batches of games rows (frames or
    :class:`hsim.analysis.cells.GameColumns`) of the same games: on numpy columns when
    they allow it, else by :func:`hsim.analysis.frames.compare_games` of frames."""
    if isinstance(a, GameColumns) and isinstance(b, GameColumns) and tally.add_columns(a, b):
        return
    a, b = (f.frame() if isinstance(f, GameColumns) else f for f in (a, b))
    tally.add(compare_games(a, b))


def _spreads(games: pd.DataFrame | GameColumns) -> np.ndarray:
    """Return per game of a games frame or columns (rows of a game together), in game
    order, its highest final score minus its lowest (float64)."""
    if isinstance(games, GameColumns):  # sorted by game
        starts = games.starts()
        score = games.score
        return (np.maximum.reduceat(score, starts) - np.minimum.reduceat(score, starts)).astype(
            float
        )
    game = games["game"].to_numpy()
    order = np.argsort(game, kind="stable")
    game, score = game[order], games["score"].to_numpy().astype(np.int64)[order]
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    return (np.maximum.reduceat(score, starts) - np.minimum.reduceat(score, starts)).astype(float)


_GAME_COLUMNS = ("game", "seat", "strategy", "scoring", "score", "winner", "place", "deals",
                 "ended_by")  # fmt: skip
_DEAL_COLUMNS = ("game", "deal", "seat", "moon", "after_end")  # and PLAY_FACTS


def _frame(table):

    return pd.DataFrame() if table is None else _upgrade(table.to_pandas())


#: Recorded facts of a deal that only the play decides, whatever the scoring (the hands
#: are the deal's own; points, moons and scores depend on the scoring options too).
PLAY_FACTS = (
    "passed",
    "tricks",
    "hearts",
    "queen_spades",
    "jack_diamonds",
    "trump",
    "lottery_place",
)


def play_changed(base_deals, deals) -> dict[str, int]:
    """Count the deals both runs played (the same game and deal index, so the same hands)
    in which some seat's passed cards, tricks, hearts, QS or JD taken, trump or lottery
    place differ: play that changed under the variant. A lower bound: a deal played with
    other cards to the same tricks and cards taken is not counted.

    base_deals, deals: the ``deals`` rows of the two runs (game, deal, seat and the
    columns of :data:`PLAY_FACTS` that are present), both pandas frames or both
    :class:`DealColumns`. Returns {"deals": changed, "compared": deals in both}.
    """
    a, b = (_columns(d) for d in (base_deals, deals))
    cols = [c for c in PLAY_FACTS if c in a.names and c in b.names]
    fast = _play_changed_by_keys(a, b, cols)
    if fast is not None:
        return fast
    base_deals, deals = a.frame(), b.frame()
    keys = ["game", "deal", "seat"]
    both = base_deals[keys + cols].merge(deals[keys + cols], on=keys, suffixes=("_a", "_b"))
    differs = np.zeros(len(both), bool)
    for c in cols:
        # As objects: categoricals of two runs compare only with the same categories.
        x, y = both[f"{c}_a"].astype(object), both[f"{c}_b"].astype(object)
        same = (x == y).fillna(False).to_numpy(bool) | (x.isna() & y.isna()).to_numpy(bool)
        differs |= ~same
    per_deal = pd.Series(differs).groupby([both["game"].to_numpy(), both["deal"].to_numpy()])
    per_deal = per_deal.any()
    return {"deals": int(per_deal.sum()), "compared": int(len(per_deal))}


def _columns(deals) -> DealColumns:
    return deals if isinstance(deals, DealColumns) else DealColumns.of_frame(deals)


class DealColumns:
    """A batch of a run's deal rows as numpy columns, rows after a game's end left out:
    ``game``, ``deal``, ``seat`` (int[n], the integer type the column stores, int64 for
    other types), ``moon`` (bool[n], None when the run has no
    moon column), ``names`` (the columns present), :meth:`comparable` for the play facts.
    Made from a pyarrow table (:meth:`of`, no pandas) or a frame (:meth:`of_frame`)."""

    def __init__(self, names, column, comparable, frame, table=None) -> None:
        self.names = set(names)
        self.table = table
        self.game, self.deal, self.seat = (
            _integers(column(c)) if c in self.names else np.zeros(0, np.int64)
            for c in ("game", "deal", "seat")
        )
        self.moon = np.asarray(column("moon"), bool) if "moon" in self.names else None
        self._comparable = comparable
        self.frame = frame

    @classmethod
    def of(cls, table: pa.Table | None) -> DealColumns:
        """Read a pyarrow table of deal rows (None: no rows)."""
        if table is None:
            return cls.of_frame(pd.DataFrame())
        if "after_end" in table.column_names and pc.any(table.column("after_end")).as_py():
            table = table.filter(pc.invert(table.column("after_end")))
        return cls(
            table.column_names,
            lambda c: table.column(c).to_numpy(),
            lambda c: _comparable_arrow(table.column(c)),
            lambda: _frame(table),
            table,
        )

    @classmethod
    def of_frame(cls, frame: pd.DataFrame) -> DealColumns:
        """Read a frame of deal rows (``after_end`` rows already left out)."""
        return cls(
            frame.columns,
            lambda c: frame[c].to_numpy(),
            lambda c: _comparable(frame[c]),
            lambda: frame,
        )

    def __len__(self) -> int:
        return len(self.game)

    def comparable(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """Return (values, missing) of a column as arrays that compare across two runs."""
        return self._comparable(column)

    def moons(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Return, for the rows of ``games`` (rows sorted by game), per game in order its
        moon flags summed and its rows, and the seats per deal: the arguments of
        :meth:`hsim.analysis.frames.SummaryTally.add_moons`."""
        game = self.game
        starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]]) if len(game) else game
        rows = np.diff(np.r_[starts, len(game)])
        kept = np.isin(game[starts], games)  # per game, not per row
        if self.moon is None or not kept.any():
            return np.zeros(0, np.int64), np.zeros(0, np.int64), 4
        moons = np.add.reduceat(self.moon, starts, dtype=np.int64)[kept]
        seat = self.seat if kept.all() else self.seat[np.repeat(kept, rows)]
        return moons, rows[kept], int(seat.max()) + 1


def _integers(values) -> np.ndarray:
    """Return ``values`` as a numpy array of integers: as they are when they are, else
    int64."""
    values = np.asarray(values)
    return values if values.dtype.kind in "iu" else values.astype(np.int64)


def _deal_keys(d: DealColumns) -> np.ndarray:
    """Return int64 keys ordering rows by (game, deal, seat): game << 16 | deal << 2 | seat."""
    game, deal, seat = (c.astype(np.int64, copy=False) for c in (d.game, d.deal, d.seat))
    return (game << 16) | (deal << 2) | seat


def _comparable(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Return (values, missing) of a column as arrays that compare across two runs."""
    missing = column.isna().to_numpy(bool)
    if isinstance(column.dtype, pd.CategoricalDtype) or column.dtype == object:
        return column.astype(object).to_numpy(), missing  # categories differ between runs
    return column.to_numpy(np.float64, na_value=np.nan), missing  # masks < 2**52: exact


def _comparable_arrow(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_comparable` of a pyarrow column: names for strings, float64 for numbers."""
    missing = column.is_null().to_numpy(zero_copy_only=False)
    if column.null_count == len(column):
        return np.zeros(len(column)), missing
    if pa.types.is_dictionary(column.type) or pa.types.is_string(column.type):
        codes, names = dictionary_codes(column)
        return names[np.where(codes < 0, 0, codes)], missing
    values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)  # masks < 2**52: exact
    return values, missing


def _play_changed_by_keys(base: DealColumns, deals: DealColumns, cols) -> dict[str, int] | None:
    """:func:`play_changed` by sorted keys and numpy (no merge of the two frames), or None
    when the keys do not fit (a game index of 2**47 or more, a deal index of 2**14)."""
    common = _common_deals(base, deals)
    if common is not None:  # laid out as a run writes them: no keys to sort or search
        ia, ib, seats = common
    else:
        for d in (base, deals):
            if len(d) and (d.game.max() >= 1 << 47 or d.deal.max() >= 1 << 14):
                return None
        ka, kb = _deal_keys(base), _deal_keys(deals)
        for k in (ka, kb):  # a row per (game, deal, seat), as a run writes them
            ordered = k if np.all(k[1:] > k[:-1]) else np.sort(k)
            if np.any(ordered[1:] == ordered[:-1]):
                return None
        keys, ia, ib = _intersect(ka, kb)
    differs = np.zeros(len(ia), bool)
    for c in cols:
        same = _same_arrow(base.table, deals.table, c, ia, ib)
        if same is not None:
            differs |= ~same
            continue
        a, a_missing = base.comparable(c)
        b, b_missing = deals.comparable(c)
        if a_missing.all() and b_missing.all():  # a column that does not apply: equal
            continue
        a, a_missing, b, b_missing = a[ia], a_missing[ia], b[ib], b_missing[ib]
        same = (a_missing & b_missing) | (~a_missing & ~b_missing & (a == b))
        differs |= ~same
    if common is not None:
        changed = differs.reshape(-1, seats).any(axis=1)
        return {"deals": int(changed.sum()), "compared": len(changed)}
    deal_keys = keys >> 2  # sorted, as keys are
    if not len(deal_keys):
        return {"deals": 0, "compared": 0}
    starts = np.flatnonzero(np.r_[True, deal_keys[1:] != deal_keys[:-1]])
    changed = np.logical_or.reduceat(differs, starts)
    return {"deals": int(changed.sum()), "compared": int(len(starts))}


def _deal_layout(d: DealColumns):
    """Return (seats S, the games in order, each game's first deal, its deals) of deal
    rows laid out as a run writes them: games in increasing order, a game's deals 0, 1,
    … in order, each deal's S rows seats 0..S-1; None for any other layout."""
    n = len(d)
    if not n:
        return None
    s = int(d.seat[: min(n, 64)].max()) + 1
    if s < 1 or n % s:
        return None
    m = n // s
    if not np.array_equal(d.seat.reshape(m, s), np.broadcast_to(np.arange(s), (m, s))):
        return None
    game, deal = d.game[::s], d.deal[::s]
    for column, first in ((d.game, game), (d.deal, deal)):
        if not np.array_equal(column.reshape(m, s), np.broadcast_to(first[:, None], (m, s))):
            return None
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    games = game[starts]
    if np.any(games[1:] <= games[:-1]):
        return None
    counts = np.diff(np.r_[starts, m])
    if not np.array_equal(deal, np.arange(m) - np.repeat(starts, counts)):
        return None
    return s, games, starts, counts


def _common_deals(a: DealColumns, b: DealColumns):
    """Return (rows of ``a``, rows of ``b``: int64[k * S], the same (game, deal, seat)
    row by row, deal after deal; S) for the deals both played, when both are laid out as
    :func:`_deal_layout` says (then a game's deals in both are its first ones); None
    otherwise."""
    la, lb = _deal_layout(a), _deal_layout(b)
    if la is None or lb is None or la[0] != lb[0]:
        return None
    s = la[0]
    at = np.minimum(np.searchsorted(lb[1], la[1]), len(lb[1]) - 1)
    ja = np.flatnonzero(lb[1][at] == la[1])
    jb = at[ja]
    length = np.minimum(la[3][ja], lb[3][jb])  # the deals both played, per common game
    offset = np.repeat(np.cumsum(length) - length, length)
    within = np.arange(int(length.sum())) - offset

    def rows(layout, j):
        deals = np.repeat(layout[2][j], length) + within
        return (deals[:, None] * s + np.arange(s)).ravel()

    return rows(la, ja), rows(lb, jb), s


def _same_arrow(a: pa.Table | None, b: pa.Table | None, column: str, ia, ib):
    """Return bool[k]: whether rows ``ia`` of ``a`` and ``ib`` of ``b`` (pyarrow tables)
    hold the same value of ``column`` (both null counts as the same), compared as stored
    (integers and booleans as numbers, strings by their text), as
    :func:`_comparable_arrow` compares them; None when the columns are not of one kind
    or not pyarrow (then compare them so)."""
    if a is None or b is None:
        return None
    x, y = a.column(column), b.column(column)
    if x.null_count == len(x) and y.null_count == len(y):
        return np.ones(len(ia), bool)  # a column that does not apply: equal
    if pa.types.is_dictionary(x.type) and pa.types.is_dictionary(y.type):
        (xc, xn), (yc, yn) = dictionary_codes(x), dictionary_codes(y)
        if len(set(xn)) < len(xn):
            return None  # a name twice in the dictionary: compare the texts
        index = {name: i for i, name in enumerate(xn)}
        # b's codes in a's numbering (-2: a name a lacks; -1, null, stays -1)
        recode = np.array([index.get(name, -2) for name in yn] + [-1], np.int64)
        return xc[ia] == recode[yc[ib]]
    kinds = (x.type, y.type)
    if not all(pa.types.is_integer(t) or pa.types.is_boolean(t) for t in kinds):
        return None
    if x.null_count or y.null_count:
        return None
    u = x.to_numpy()[ia]
    v = y.to_numpy()[ib]
    return u == v


def _intersect(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (the keys in both, sorted; their indices in ``a``; in ``b``) of two arrays
    of unique keys (numpy's intersect1d, without a sort when both are sorted already)."""
    if not (np.all(a[1:] > a[:-1]) and np.all(b[1:] > b[:-1])):
        return np.intersect1d(a, b, assume_unique=True, return_indices=True)
    at = np.minimum(np.searchsorted(b, a), max(len(b) - 1, 0))
    hit = b[at] == a if len(b) else np.zeros(len(a), bool)
    ia = np.flatnonzero(hit)
    return a[ia], ia, at[ia]


def play_label(variant: dict[str, Any]) -> str:
    """Return what a variant does to play, for ``hsim compare-rules``'s list of rule sets:
    the play options (docs/rules.md A1) it changes, or that it changes scoring options only,
    which still changes what every strategy observes (the rules and the scores), so a
    bot that reads them may play otherwise; then how many of the deals dealt in both
    runs were played differently (:func:`play_changed`)."""
    if variant["changes_play"]:
        what = f"changes the rules of play: {', '.join(variant['changes_play'])}"
    else:
        what = (
            "scoring options only: the same rules of play, but bots that read the rules or "
            "the scores may play differently"
        )
    seen = variant.get("play_changed")
    if seen and seen["compared"]:
        what += f"; play differed in {seen['deals']:,} of {seen['compared']:,} deals dealt in both"
    return what


def _best(rules: Rules) -> str:
    """Return which final score wins: docs/rules.md A3 (Hearts) lowest, B5 (Kierki) highest."""
    return "highest" if rules.is_kierki else "lowest"


def _jsonable(x):
    return x if isinstance(x, (bool, int, str)) else str(x)


def _prepare(out: Path, overwrite: bool) -> None:

    if not out.exists():
        out.mkdir(parents=True)
        return
    if not out.is_dir():
        raise RunError(f"--out {out} is a file, not a folder")
    if not any(out.iterdir()):
        return
    if not overwrite:
        raise RunError(
            f"output folder {out} already exists; choose another --out or pass --overwrite "
            "to replace it"
        )
    if not (out / SUMMARY_FILE).exists():
        raise RunError(
            f"--overwrite refused: {out} is not empty and holds no {SUMMARY_FILE}, so it is "
            "not an hsim compare-rules folder; choose another --out"
        )
    shutil.rmtree(out)
    out.mkdir(parents=True)


def _iv(d, digits: int) -> str:
    if d is None:
        return "-"
    return f"{d['estimate']:.{digits}f} [{d['low']:.{digits}f}, {d['high']:.{digits}f}]"


def format_comparison(report: dict[str, Any]) -> list[str]:
    """Return the comparison as lines of text (what ``hsim compare-rules`` prints)."""
    sets = [("base", report["base"])] + [
        (f"variant {i}", v) for i, v in enumerate(report["variants"], 1)
    ]
    lines = [
        f"{report['games']:,} games of {','.join(report['players'])}, seed {report['seed']}, "
        f"the same deals under each rule set (95% intervals)",
    ]
    for name, s in sets:
        lines.append(f"  {name}: {s['rules']}  ({s['run_dir']})")
        if name != "base":
            lines.append(f"    {play_label(s)}")
    lines.append("")
    w = 30
    header = f"{'':<24}" + "".join(f"{name:>{w}}" for name, _ in sets)
    lines.append(header)

    def row(label, fn):
        lines.append(f"{label:<24}" + "".join(f"{fn(s):>{w}}" for _, s in sets))

    kierki = report.get("game") == "kierki"
    row("deals per game", lambda s: _iv(s["summary"]["game_length"], 2))
    if not kierki:  # Kierki has no moon
        row("moons per deal", lambda s: _iv(s["summary"].get("moon_rate"), 4))
    row("mean final score", lambda s: _iv(s["summary"]["final_score"], 2))
    row("mean winning score", lambda s: _iv(s["summary"]["winning_score"], 2))
    row(
        "final score q5/25/50/75/95",
        lambda s: "/".join(f"{v:g}" for v in s["summary"]["score_quantiles"].values()),
    )
    if not kierki:  # a Kierki game always plays its fixed list of deals
        row(
            "ended by max_deals",
            lambda s: f"{s['summary']['ended_by'].get('max_deals', 0):,}",
        )

    def change(s):
        wc = s.get("winner_change")
        if wc is None:
            return "-"
        return _iv(wc["share"], 4)

    row("winner changed vs base", change)
    row(
        "  (games changed)",
        lambda s: (
            f"{s['winner_change']['changed']:,} of {s['winner_change']['compared']:,}"
            if "winner_change" in s
            else "-"
        ),
    )
    strategies = [r["strategy"] for r in report["variants"][0]["by_strategy"]] if sets[1:] else []
    for name in strategies:

        def win(s, name=name, side="b"):
            if "by_strategy" not in s:
                by = report["variants"][0]["by_strategy"]
                side = "a"
            else:
                by = s["by_strategy"]
            r = next(r for r in by if r["strategy"] == name)
            return (
                f"{r[f'win_rate_{side}']:.4f} [{r[f'win_rate_{side}_low']:.4f}, "
                f"{r[f'win_rate_{side}_high']:.4f}]"
            )

        row(f"win rate {name}"[:24], win)
    lines.append("")
    # A Kierki game always plays its fixed list of deals: no lengths to break down by.
    for i, v in enumerate([] if kierki else report["variants"], 1):
        parts = [f"{r['length']}: {r['share']:.3f} ({r['games']:,})" for r in v["by_length"]]
        lines.append(
            f"variant {i}, winner changed by base game length (deals): " + ", ".join(parts)
        )
    best = "highest" if kierki else "lowest"
    lines.append(
        f"winner changed: the set of seats with the {best} final score (co-winners "
        "included) differs from the base game's"
    )
    scoring_only = [
        v["text"] for v in report["variants"] if not v["changes_play"] and v.get("text")
    ]
    if not kierki:
        example = scoring_only[0] if scoring_only else "omnibus=true"
        lines.append(
            "these runs play each rule set, so a change mixes the rule's effect with the bots "
            "playing differently under it; for the scoring's effect alone on the same play: "
            f"hsim tournament ... --score-also {example}, then hsim report RUN"
        )
    return lines
