"""Run folders as pandas frames; re-scoring recorded deals; winner changes between scorings.

A run's ``deals`` hold the raw facts of every deal (points, tricks, who took the JD, the
moon outcome applied), so the same deals can be scored under other *scoring* options
(docs/rules.md A2, A3: omnibus, no-trick bonus, clamp, Perfect 100, end score, no draw…)
without playing them again. :func:`rescore_frames` does that with the engine's own
scoring kernels (:func:`hsim.analysis.rescoring.rescore`); it never re-implements a scoring rule,
and the moons it reports are those of the re-scoring (with omnibus and
moon_requires_jack a 26-point deal without the JD is no moon), not the recorded ones.

Censoring: a re-scored game may need more deals than were recorded (the run's game ended
first, e.g. ``end_score=150`` over a run played to 100). Such a game is *censored*: it
keeps its score so far but gets no winner and no place (``<NA>``), and every function
here leaves it out of shares and says how many it left out.

New Moon: with ``moon=new_moon`` the shooter's strategy may choose its outcome. The
choice recorded in the run is used where the strategy was asked when the run was played
(the run used New Moon and the shooter had 26 or more before the deal); where the
re-scoring asks for a choice that was never made, the default rule of docs/rules.md A2.2
stands in for it, and the game is flagged ``moon_choice_assumed`` when its result
depends on that choice.

Winner change (between two scorings, or two runs of the same seeds): a game's winner set
is the set of seats with the best final score, co-winners included: the lowest in Hearts
(docs/rules.md A3), the highest in Kierki (B5); it is read from the games' ``winner`` column.
A game *changes winner* when the two winner sets differ, so a tie that becomes a sole
win counts as a change. Games censored in either are not compared.

Kierki (docs/rules.md part B) has no scoring options to vary: its deals cannot be re-scored,
only played again (``hsim compare-rules``); its games have 4 seats, or 3.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from hsim.analysis.rescoring import rescore
from hsim.analysis.scan import RunFolderError, open_run
from hsim.analysis.stats import Interval, mean_interval, ratio_interval, wilson_interval
from hsim.analysis.tally import Moments, RatioSums, nearest_quantiles
from hsim.engine.hearts import deck_points
from hsim.model.cards import parse_card
from hsim.model.rules import PLAY_OPTIONS as RULES_PLAY_OPTIONS
from hsim.model.rules import (
    PRESETS,
    RULE_FIELDS,
    Rules,
    RulesError,
    canonical,
    parse_assignments,
    parse_rules,
)

N_SEATS = 4
ENDED_BY = {0: "end_score", 1: "max_deals", -1: "censored"}
#: Options of docs/rules.md A1: they change play, so re-scoring recorded deals cannot apply them.
PLAY_OPTIONS: tuple[str, ...] = tuple(n for n in RULE_FIELDS if n in RULES_PLAY_OPTIONS)
#: The deals columns re-scoring and the report read (load_run's ``deal_columns``).
ANALYSIS_DEAL_COLUMNS = (
    "board", "rotation", "player", "strategy", "pass_direction", "jack_diamonds", "tricks",
    "points", "moon", "moon_choice", "deal_score", "score", "kind", "taken",
)  # fmt: skip
#: Options of docs/rules.md A2-A3: re-scoring recorded deals applies them.
SCORING_OPTIONS: tuple[str, ...] = tuple(n for n in RULE_FIELDS if n not in PLAY_OPTIONS)
_CHOICE_CODES = {"add": 1, "subtract": 2}
_CARRIED = ("board", "rotation", "player", "strategy", "pass_direction", "points")
_ENDED_NAMES = np.array(["end_score", "max_deals", "censored"])  # index -1: censored
_KIERKI_RESCORE = (
    "Kierki deals cannot be re-scored: Kierki has no scoring options, and every Kierki "
    "option changes play (docs/rules.md part B); compare rule sets with `hsim compare-rules "
    "--variant ...`, which plays the games again"
)


def no_games_message(folder) -> str:
    """Return the error for a run folder (:class:`hsim.analysis.scan.RunFolder`) that
    holds no games yet."""
    status = folder.manifest.get("status", "unknown")
    return f"{folder.path} holds no games yet (run status: {status})"


@dataclasses.dataclass
class Run:
    """A loaded run folder.

    path: the folder. manifest: ``run.json``. rules: the rules it was played under.
    deals: the ``deals`` dataset, every recorded row (columns and dtypes:
    ``results/README.md``; schema 3 adds ``after_end``, deals played on after the base
    game ended so that ``--score-also`` scorings could finish; :attr:`base_deals` drops
    them). games: the ``games`` rows of one scoring, plus ``censored`` (bool, all False:
    recorded games always finished). scoring: that scoring's label (``base`` for the
    played rules, else a rules string); scoring_rules: its rules. games_all: the whole
    ``games`` dataset (every scoring). scorings: the scoring labels it holds, in order.
    """

    path: Path
    manifest: dict[str, Any]
    rules: Rules
    deals: pd.DataFrame
    games: pd.DataFrame
    scoring: str
    scoring_rules: Rules
    games_all: pd.DataFrame
    scorings: list[str]

    @property
    def base_deals(self) -> pd.DataFrame:
        """The deals of the games as played (without ``after_end`` rows)."""
        if "after_end" not in self.deals.columns:
            return self.deals
        return self.deals[~self.deals["after_end"].to_numpy(bool)]

    def games_for(self, scoring: str | Rules) -> pd.DataFrame:
        """Return the recorded games rows of another scoring (a label of :attr:`scorings`,
        a rules string, ``name=value`` assignments on the played rules, or a Rules), with
        ``censored`` False.

        :raises RunFolderError: the run did not record that scoring (re-score its deals
            with :func:`rescore_run` instead).
        """
        wanted = scoring if isinstance(scoring, Rules) else _scoring_rules(scoring, self.rules)
        mask = _scoring_mask(self.games_all, wanted, self.rules)
        if not mask.any():
            raise RunFolderError(
                f"the run recorded no games under {canonical(wanted)!r}; it holds "
                f"{', '.join(self.scorings)} (re-score its deals: hsim.analysis.rescore_run)"
            )
        chosen = self.games_all[mask].sort_values(["game", "seat"], kind="stable")
        return chosen.reset_index(drop=True).assign(censored=False)


def as_rules(text: str, base: Rules) -> Rules:
    """Read a rules string (``classic(omnibus=true)``) or assignments (``omnibus=true,…``)
    applied on top of ``base``.

    :raises RulesError: neither form is valid; the message says why.
    """
    t = text.strip()
    if "(" in t or t in PRESETS:
        return parse_rules(t)
    return dataclasses.replace(base, **parse_assignments([t]))


def play_differences(a: Rules, b: Rules) -> list[str]:
    """Return the options of docs/rules.md A1 (they change play) on which ``a`` and ``b`` differ."""
    return [n for n in PLAY_OPTIONS if getattr(a, n) != getattr(b, n)]


def load_run(run_dir, scoring: str | None = None, deal_columns: list[str] | None = None) -> Run:
    """Load run folder ``run_dir`` into memory as frames (see :class:`Run`).

    Holds both datasets in memory: for runs larger than memory use the batch readers of
    :mod:`hsim.analysis.scan` (``hsim report`` and ``hsim compare-rules`` do).
    scoring: which scoring's games to put in :attr:`Run.games` when the run recorded
    several (``--score-also``): ``base`` (default, the played rules), a rules string, or
    ``name=value`` assignments on the played rules. deal_columns: read only these deals
    columns (game, deal, seat and, when present, after_end are always read).
    Schema version 1 runs get ``board`` (= game), ``rotation`` (0), ``player`` (= seat).

    :raises RunFolderError: no ``run.json`` or a damaged one (the message names the
        field), no games, or a scoring the run did not record.
    """

    folder = open_run(run_dir)
    path, manifest, rules = folder.path, folder.manifest, folder.rules
    deals = _read(path / "deals", deal_columns)
    games = _read(path / "games", None)
    if games.empty:
        raise RunFolderError(no_games_message(folder))
    deals = _upgrade(deals)
    games = _upgrade(games)
    label = "base" if scoring is None else scoring
    try:
        wanted = _scoring_rules(label, rules)
    except RulesError as exc:
        raise RunFolderError(f"scoring {scoring!r}: {exc}") from None
    if "scoring" in games.columns:
        labels = [str(v) for v in dict.fromkeys(games["scoring"].fillna("base").tolist())]
        mask = _scoring_mask(games, wanted, rules)
        if not mask.any():
            raise RunFolderError(
                f"the run recorded no games under scoring {scoring!r}; it holds: "
                f"{', '.join(labels)} (or re-score its deals: hsim.analysis.rescore_run)"
            )
        chosen = games[mask].sort_values(["game", "seat"], kind="stable")
        chosen = chosen.reset_index(drop=True)
    else:
        labels = ["base"]
        if wanted != rules:
            raise RunFolderError(
                f"the run recorded only its own scoring; re-score its deals for {scoring!r} "
                "instead (hsim.analysis.rescore_run)"
            )
        chosen = games
    if wanted == rules:
        label = "base"
    return Run(
        path, manifest, rules, deals, chosen.assign(censored=False), label, wanted, games, labels
    )


def _read(path: Path, columns) -> pd.DataFrame:
    if not path.is_dir():
        raise FileNotFoundError(f"no {path.name} dataset ({path} is missing)")
    if not any(p.suffix == ".parquet" and not p.name.startswith(".") for p in path.iterdir()):
        return pd.DataFrame()
    if columns is not None:
        names = pq.ParquetDataset(path).schema.names
        wanted = ["game", "deal", "seat", "after_end", *columns]
        columns = [c for c in dict.fromkeys(wanted) if c in names]
    frame = pd.read_parquet(path, columns=columns)
    if "scoring" in frame.columns:  # keep the recorded order of the scorings: base first
        return frame.sort_values("game", kind="stable")
    keys = [k for k in ("game", "deal", "seat") if k in frame.columns]
    return frame.sort_values(keys, kind="stable")


def _upgrade(frame: pd.DataFrame) -> pd.DataFrame:
    """Add schema-2 columns to a schema-1 frame (board = game, rotation 0, player = seat)."""
    if frame.empty or "game" not in frame.columns:
        return frame.reset_index(drop=True)
    extra = {}
    if "board" not in frame.columns:
        extra["board"] = frame["game"]
    if "rotation" not in frame.columns:
        extra["rotation"] = np.zeros(len(frame), np.int8)
    if "player" not in frame.columns and "seat" in frame.columns:
        extra["player"] = frame["seat"].astype(np.int8)
    return frame.assign(**extra).reset_index(drop=True)


def _scoring_rules(label, rules: Rules) -> Rules:
    """Return the rules of a scoring label: ``base``/empty is the played rules."""
    if label is None or (isinstance(label, float) and np.isnan(label)):
        return rules
    text = str(label).strip()
    if text in ("", "base"):
        return rules
    return as_rules(text, rules)


def _scoring_mask(games: pd.DataFrame, wanted: Rules, rules: Rules) -> np.ndarray:
    if "scoring" not in games.columns:
        return np.full(len(games), wanted == rules)
    column = games["scoring"]
    if isinstance(column.dtype, pd.CategoricalDtype):  # one verdict per category
        values = column.cat.categories.tolist()
        return scoring_codes_mask(column.cat.codes.to_numpy(), values, wanted, rules)
    values = list(dict.fromkeys(column.tolist()))
    verdict = _scoring_verdicts(values, wanted, rules)
    return column.map(verdict).fillna(wanted == rules).to_numpy(bool)


def _scoring_verdicts(values: list, wanted: Rules, rules: Rules) -> dict:
    verdict = {}
    for value in values:
        try:
            verdict[value] = _scoring_rules(value, rules) == wanted
        except RulesError:
            verdict[value] = False
    return verdict


def scoring_codes_mask(codes: np.ndarray, values: list, wanted: Rules, rules: Rules) -> np.ndarray:
    """Return bool[m]: which games rows, their ``scoring`` given as codes (int[m], -1 for
    null: the played scoring) into ``values`` (labels), are scored under ``wanted`` (of
    a run played under ``rules``)."""
    verdict = _scoring_verdicts(values, wanted, rules)
    table = np.array([verdict[v] for v in values] + [wanted == rules], bool)
    return table[codes]  # code -1 (null): the last entry


# --------------------------------------------------------------------------- re-scoring


@dataclasses.dataclass
class DealFacts:
    """Per-deal arrays of a deals frame (n deals, sorted by game then deal).

    game int64[n], deal int64[n], points and tricks int64[n, 4], jack int64[n] (seat that
    took JD, -1 if none), choice int64[n] (the shooter's recorded New Moon outcome where
    its strategy was asked when the run was played: 1 add, 2 subtract; else 0).
    """

    game: np.ndarray
    deal: np.ndarray
    points: np.ndarray
    tricks: np.ndarray
    jack: np.ndarray
    choice: np.ndarray


def _sorted_deals(deals: pd.DataFrame, seats: int | None = None) -> pd.DataFrame:
    need = {"game", "deal", "seat"}
    if not need <= set(deals.columns):
        raise RunFolderError(f"a deals frame needs columns {sorted(need)}")
    keys = deals[["game", "deal", "seat"]].to_numpy(np.int64)
    if len(keys) > 1:
        order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0]))
        if np.any(order != np.arange(len(order))):
            deals = deals.iloc[order]
    seats = seats or seat_count(deals)
    if len(deals) % seats or not np.array_equal(
        deals["seat"].to_numpy(np.int64), np.tile(np.arange(seats), len(deals) // seats)
    ):
        raise RunFolderError(f"every deal needs exactly one row per seat 0..{seats - 1}")
    return deals


def seat_count(deals: pd.DataFrame) -> int:
    """Return the seats of a deals frame: its highest seat + 1, 3 to 6 (Hearts for 3 to
    6, Kierki for 3 or 4, docs/rules.md A1.1, B1); 4 for an empty frame."""
    if "seat" not in deals.columns or not len(deals):
        return N_SEATS
    return max(3, int(deals["seat"].max()) + 1)


def deal_facts(
    deals: pd.DataFrame, played: Rules | None = None, bonus_card: str = "JD", seats: int = 0
) -> DealFacts:
    """Return the :class:`DealFacts` of a deals frame (any row order; one row per seat per
    deal, 4 or 3 seats).

    played: the rules the deals were played under; a recorded moon outcome counts as the
    strategy's choice only when ``played`` uses New Moon and the shooter held 26 (the
    deck's points, A1.8) or more before the deal, or at any score with
    ``new_moon_any_score`` (docs/rules.md A2.2). None: no recorded choice is used.
    bonus_card: the ``omnibus_card`` whose taker ``jack`` holds (A2.3): ``JD`` from the
    ``jack_diamonds`` column, another card from ``taken``.
    seats: the rows per deal, 4 or 3 (docs/rules.md A1.1); 0: ``played``'s players, or
    without ``played`` 3 when the highest seat is 2, else 4.

    :raises RunFolderError: missing columns (``taken`` for another card than JD: runs
        recorded before schema 7 lack it), or a deal without exactly one row per seat.
    """
    need = ["points", "tricks", "jack_diamonds" if bonus_card == "JD" else "taken"]
    if played is not None and played.moon == "new_moon":
        need += ["moon_choice", "score"]
    missing = [c for c in need if c not in deals.columns]
    if "taken" in missing:
        raise RunFolderError(
            f"re-scoring under omnibus_card={bonus_card} needs the deals column taken (who "
            f"took {bonus_card}), which runs recorded before schema 7 lack; play the run "
            "again with this hsim, or re-score with omnibus_card=JD"
        )
    if missing:
        raise RunFolderError(f"re-scoring needs the deals columns {', '.join(missing)}")
    seats = seats or (played.players if played is not None else seat_count(deals))
    d = _sorted_deals(deals, seats)
    n = len(d) // seats
    game = d["game"].to_numpy(np.int64)[::seats]
    if bonus_card == "JD":
        jack_rows = d["jack_diamonds"].to_numpy(bool).reshape(n, seats)
    else:
        bit = np.int64(1) << np.int64(parse_card(bonus_card))
        jack_rows = (d["taken"].to_numpy(np.int64) & bit).astype(bool).reshape(n, seats)
    jack = np.where(jack_rows.any(axis=1), jack_rows.argmax(axis=1), -1)
    choice = np.zeros(n, np.int64)
    if played is not None and played.moon == "new_moon" and n:
        # astype(object): a categorical column (schema 5) maps to a categorical, which
        # cannot take the fill value.
        codes = d["moon_choice"].astype(object).map(_CHOICE_CODES).fillna(0)
        codes = codes.to_numpy(np.int64)
        codes = codes.reshape(n, seats)
        score = d["score"].to_numpy(np.int64).reshape(n, seats)
        before = np.zeros_like(score)
        same = game[1:] == game[:-1]
        before[1:][same] = score[:-1][same]
        threshold = deck_points(played.to_array())  # 26 with the usual values (A1.8)
        asked = (codes > 0) & ((before >= threshold) | played.new_moon_any_score)
        choice = np.where(asked, codes, 0).max(axis=1)
    return DealFacts(
        game,
        d["deal"].to_numpy(np.int64)[::seats],
        d["points"].to_numpy(np.int64).reshape(n, seats),
        d["tricks"].to_numpy(np.int64).reshape(n, seats),
        jack,
        choice,
    )


@dataclasses.dataclass
class Rescoring:
    """Recorded deals scored under ``rules`` (see :func:`rescore_frames`).

    deals: one row per seat per recorded deal, sorted by game, deal, seat: game int64,
    deal int16, seat int8, deal_score int64 (after moon and bonuses, before the clamp),
    score int64 (game score after the deal), counted bool (False for deals recorded after
    the game ended under ``rules``; their scores are 0), then the recorded board,
    rotation, player, strategy, pass_direction, points where the input has them; moon
    bool (the seat shot the moon under ``rules``, docs/rules.md A2.2: with omnibus and
    moon_requires_jack only with the JD; False in deals not counted) and, where the input
    has ``moon``, moon_played bool (the recorded flag, under the played rules).
    games: one row per seat per game, sorted by game, seat: game int64, board int64,
    rotation int8, seat int8, player int8, strategy (as in the deals), score int64 (final,
    or so far when censored), place Int8 and winner boolean (``<NA>`` when censored),
    deals int16 (deals counted), ended_by string (``end_score``, ``max_deals`` or
    ``censored``), censored bool, moon_choice_assumed bool (a New Moon choice this scoring
    asks for was not recorded and the game's result depends on it).
    """

    rules: Rules
    deals: pd.DataFrame
    games: pd.DataFrame

    @property
    def censored(self) -> int:
        """Games whose recorded deals ran out before the game ended under these rules."""
        return int(self.games["censored"].sum()) // self.rules.players


def rescore_frames(deals: pd.DataFrame, rules: Rules, played: Rules | None = None) -> Rescoring:
    """Score a deals frame under ``rules`` with the engine's kernels (see :class:`Rescoring`).

    deals: a run's ``deals`` (needs game, deal, seat, points, tricks, jack_diamonds; board,
    rotation, player, strategy are carried over when present; moon_choice and score when
    ``played`` uses New Moon). played: the rules the deals were played under (for the
    New Moon choices, see :func:`deal_facts`). Only the scoring options of ``rules``
    (docs/rules.md A2-A3) can apply to recorded deals: pass the played play options, or see
    :func:`rescore_run`, which checks that.

    :raises RulesError: ``rules`` or ``played`` are Kierki rules.
    """

    if rules.is_kierki or (played is not None and played.is_kierki):
        raise RulesError(_KIERKI_RESCORE)

    d = _sorted_deals(deals, rules.players)
    facts = deal_facts(d, played, rules.omnibus_card, rules.players)
    result = rescore(rules, facts.game, facts.points, facts.tricks, facts.jack, facts.choice)
    n, g = len(facts.game), len(result.games)
    seats = facts.points.shape[1]
    deal_frame = pd.DataFrame(
        {
            "game": np.repeat(facts.game, seats),
            "deal": np.repeat(facts.deal, seats).astype(np.int16),
            "seat": np.tile(np.arange(seats, dtype=np.int8), n),
            "deal_score": result.deal_score.ravel(),
            "score": result.score.ravel(),
            "counted": np.repeat(result.counted, seats),
        }
    )
    for col in _CARRIED:
        if col in d.columns:
            deal_frame[col] = d[col].to_numpy()
    # The moons of this scoring (A2.2), not the recorded ones: with omnibus and
    # moon_requires_jack a 26-point deal without the JD is no moon.
    seat = deal_frame["seat"].to_numpy(np.int64)
    deal_frame["moon"] = np.repeat(result.shooter, seats) == seat
    if "moon" in d.columns:
        deal_frame["moon_played"] = d["moon"].to_numpy(bool)
    final = result.final
    censored = result.ended_by < 0
    low = final.min(axis=1, keepdims=True)
    place = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)
    winner = pd.array((final == low).ravel(), dtype="boolean")
    winner[np.repeat(censored, seats)] = pd.NA
    place_arr = pd.array(place.ravel().astype(np.int8), dtype="Int8")
    place_arr[np.repeat(censored, seats)] = pd.NA
    first = d[d["deal"].to_numpy() == d.groupby("game")["deal"].transform("min").to_numpy()]
    meta = {}
    for col in ("board", "rotation", "player", "strategy"):
        if col in first.columns and len(first) == g * seats:
            meta[col] = first[col].to_numpy()
    game_frame = pd.DataFrame(
        {
            "game": np.repeat(result.games, seats),
            **{k: v for k, v in meta.items() if k in ("board", "rotation")},
            "seat": np.tile(np.arange(seats, dtype=np.int8), g),
            **{k: v for k, v in meta.items() if k in ("player", "strategy")},
            "score": final.ravel(),
            "place": place_arr,
            "winner": winner,
            "deals": np.repeat(result.deals, seats).astype(np.int16),
            "ended_by": pd.array(_ENDED_NAMES[np.repeat(result.ended_by, seats)]),
            "censored": np.repeat(censored, seats),
            "moon_choice_assumed": np.repeat(_choice_matters(rules, facts, result), seats),
        }
    )
    if "strategy" in d.columns:
        game_frame["strategy"] = game_frame["strategy"].astype(d["strategy"].dtype)
    return Rescoring(rules, deal_frame, game_frame)


def _choice_matters(rules: Rules, facts: DealFacts, result) -> np.ndarray:
    """Per game: whether its result depends on a New Moon choice that was not recorded
    (scored with every such choice ``add``, then every one ``subtract``: do they differ?).
    """

    g = len(result.games)
    if rules.moon != "new_moon" or not g:
        return np.zeros(g, bool)
    outcomes = []
    for code in (1, 2):
        choice = np.where(facts.choice > 0, facts.choice, code)
        r = rescore(rules, facts.game, facts.points, facts.tricks, facts.jack, choice)
        outcomes.append((r.final, r.deals, r.ended_by))
    (fa, da, ea), (fs, ds, es) = outcomes
    return (fa != fs).any(axis=1) | (da != ds) | (ea != es)


def check_rescoring(played: Rules, rules: Rules) -> None:
    """Check that deals played under ``played`` can be re-scored under ``rules``.

    :raises RulesError: ``rules`` changes an option that changes play (docs/rules.md A1):
        recorded deals cannot show how they would have been played; or either is Kierki.
    """
    if played.is_kierki or rules.is_kierki:
        raise RulesError(_KIERKI_RESCORE)
    changed = play_differences(played, rules)
    if changed:
        verb = "changes" if len(changed) == 1 else "change"
        raise RulesError(
            f"{', '.join(changed)} {verb} play (docs/rules.md A1), not only scoring, so the "
            "recorded deals cannot be re-scored under it; compare it with "
            "`hsim compare-rules --variant ...` instead"
        )


def rescore_run(run: Run, rules: Rules | str) -> Rescoring:
    """Re-score ``run``'s recorded deals under ``rules`` (a :class:`Rules`, a rules string,
    or ``name=value`` assignments applied on top of the run's rules).

    :raises RulesError: ``rules`` changes an option that changes play (docs/rules.md A1):
        recorded deals cannot show how they would have been played; or the run is Kierki.
    """
    if isinstance(rules, str):
        rules = as_rules(rules, run.rules)
    check_rescoring(run.rules, rules)
    return rescore_frames(run.deals, rules, run.rules)


# ------------------------------------------------------------------------- winner changes


def compare_games(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Join two games frames of the same games (the same seeds) seat by seat.

    a, b: games frames (a run's ``games``, or :attr:`Rescoring.games`); a frame without
    ``censored`` counts as uncensored. Returns one row per seat per game present in both,
    sorted by game, seat: game int64, seat int8, strategy, then score, winner (boolean),
    place (Int8), deals int16, censored bool, each as ``<col>_a`` and ``<col>_b``.

    :raises RunFolderError: the frames seat different strategies in a game.
    """
    cols = ["game", "seat", "score", "winner", "place", "deals", "censored"]
    left = _with_censored(a)
    right = _with_censored(b)
    keep = ["game", "seat", "strategy"] if "strategy" in left.columns else ["game", "seat"]
    merged = left[keep + cols[2:]].merge(
        right[[c for c in keep if c in right.columns] + cols[2:]].rename(
            columns={"strategy": "strategy_b"}
        ),
        on=["game", "seat"],
        suffixes=("_a", "_b"),
        validate="one_to_one",
    )
    if "strategy_b" in merged.columns:
        if "strategy" in merged.columns and not _same_labels(
            merged["strategy"], merged["strategy_b"]
        ):
            raise RunFolderError("the two games frames seat different strategies")
        merged = merged.drop(columns="strategy_b")
    for side in ("a", "b"):
        merged[f"winner_{side}"] = merged[f"winner_{side}"].astype("boolean")
        merged[f"place_{side}"] = merged[f"place_{side}"].astype("Int8")
    return merged.sort_values(["game", "seat"]).reset_index(drop=True)


def _same_labels(a: pd.Series, b: pd.Series) -> bool:
    """Return whether two columns hold the same text row by row (categoricals compared by
    their categories' names, without a string per row)."""
    if isinstance(a.dtype, pd.CategoricalDtype) and isinstance(b.dtype, pd.CategoricalDtype):
        names = {str(c): i for i, c in enumerate(a.cat.categories)}
        # b's codes in a's numbering; -2 for a name a lacks, nulls (-1) kept
        recode = np.array([names.get(str(c), -2) for c in b.cat.categories] + [-1], np.int64)
        return bool(np.array_equal(a.cat.codes.to_numpy(np.int64), recode[b.cat.codes.to_numpy()]))
    return bool((a.astype(str) == b.astype(str)).all())


def _with_censored(frame: pd.DataFrame) -> pd.DataFrame:
    need = {"game", "seat", "score", "winner", "place", "deals"}
    if not need <= set(frame.columns):
        raise RunFolderError(f"a games frame needs columns {sorted(need)}")
    if "censored" in frame.columns:
        return frame
    return frame.assign(censored=False)


def winner_changes(compared: pd.DataFrame) -> pd.DataFrame:
    """Return one row per game of a :func:`compare_games` frame, sorted by game.

    Columns: game int64; winners_a, winners_b Int8 (bit s set when seat s is a winner;
    ``<NA>`` when censored); deals_a, deals_b int16; censored_a, censored_b bool;
    changed boolean (the winner sets differ; ``<NA>`` when censored in either).
    The games have 4 seats (3 in 3-player Kierki): the largest seat number tells.

    :raises RunFolderError: a game without exactly one row per seat.
    """
    c = compared.sort_values(["game", "seat"])
    seats = int(c["seat"].max()) + 1 if len(c) else N_SEATS
    n = len(c) // seats
    if len(c) % seats or not np.array_equal(
        c["seat"].to_numpy(np.int64), np.tile(np.arange(seats), n)
    ):
        raise RunFolderError(f"every game needs exactly one row per seat 0..{seats - 1}")
    bits = (1 << np.arange(seats)).astype(np.int64)
    out = {"game": c["game"].to_numpy(np.int64)[::seats]}
    for side in ("a", "b"):
        cens = c[f"censored_{side}"].to_numpy(bool).reshape(n, seats).any(axis=1)
        win = c[f"winner_{side}"].fillna(False).to_numpy(bool).reshape(n, seats)
        mask = pd.array((win * bits).sum(axis=1).astype(np.int8), dtype="Int8")
        mask[cens] = pd.NA
        out[f"winners_{side}"] = mask
        out[f"deals_{side}"] = c[f"deals_{side}"].to_numpy().reshape(n, seats)[:, 0]
        out[f"censored_{side}"] = cens
    either = out["censored_a"] | out["censored_b"]
    changed = pd.array(
        out["winners_a"].to_numpy(np.int64, na_value=-1)
        != out["winners_b"].to_numpy(np.int64, na_value=-1),
        dtype="boolean",
    )
    changed[either] = pd.NA
    out["changed"] = changed
    return pd.DataFrame(out)


@dataclasses.dataclass
class WinnerChange:
    """How often the winner set changes between two scorings of the same games.

    games: games in both; compared: those censored in neither; changed: compared games
    whose winner sets differ; share: changed / compared with its Wilson interval (None
    when nothing could be compared); censored_a, censored_b: games censored in a, in b;
    censored: games censored in either (left out).
    """

    games: int
    compared: int
    changed: int
    share: Interval | None
    censored_a: int
    censored_b: int
    censored: int

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (``share`` as estimate, low, high)."""
        out = dataclasses.asdict(self)
        out["share"] = interval_dict(self.share)
        return out


def winner_change(changes: pd.DataFrame, confidence: float = 0.95) -> WinnerChange:
    """Return the :class:`WinnerChange` of a :func:`winner_changes` frame (or a
    :func:`compare_games` frame, converted first)."""
    tally = WinnerTally()
    tally.add_changes(changes)
    return tally.winner_change(confidence)


def winner_change_by_strategy(compared: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Break a :func:`compare_games` frame down by strategy (games censored in either left
    out).

    One row per strategy, sorted by name: strategy; seat_games int64 (its seats × games);
    win_rate_a, win_rate_a_low, win_rate_a_high, win_rate_b, … float64 (Wilson; a seat
    wins when the games frame says so: ``winner``, among the tied lowest in Hearts, the
    tied highest in Kierki); flipped int64 (seat-games whose win status differs),
    flipped_share, flipped_low, flipped_high float64; gained, lost int64 (won only under
    b, only under a). Seats of one game are counted separately, so with several copies
    of a strategy the intervals treat correlated seats as independent.
    """
    tally = WinnerTally()
    tally.add_seats(compared)
    return tally.by_strategy(confidence)


DEFAULT_LENGTH_BINS = (0, 6, 8, 10, 12, 15, 20, np.inf)


def winner_change_by_length(
    changes: pd.DataFrame, bins=DEFAULT_LENGTH_BINS, side: str = "a", confidence: float = 0.95
) -> pd.DataFrame:
    """Break winner changes down by game length (deals of the game under scoring ``side``).

    changes: a :func:`winner_changes` frame (or a :func:`compare_games` frame). bins: bin
    edges, a game of d deals falls in ``(edge_i, edge_i+1]``. One row per non-empty bin:
    length (string, e.g. ``9-10``), games int64 (compared), changed int64, share, low,
    high float64 (Wilson). Games censored in either are left out.
    """
    tally = WinnerTally()
    tally.add_changes(changes)
    return tally.by_length(bins, side, confidence)


class WinnerTally:
    """Winner changes counted over batches of games, in bounded memory.

    Feed :meth:`add` :func:`compare_games` frames of whole games (each game once), then
    read :meth:`winner_change`, :meth:`by_strategy` and :meth:`by_length`: the results
    of :func:`winner_change`, :func:`winner_change_by_strategy` and
    :func:`winner_change_by_length` over all of them.
    """

    def __init__(self):
        self.games = self.compared = self.changed = 0
        self.censored_a = self.censored_b = 0
        self.key = "strategy"
        # per strategy (or seat): seat-games, won under a, under b, flipped, gained, lost
        self.seats: dict[Any, np.ndarray] = {}
        # per side, per game length: [compared games, changed]
        self.lengths: dict[str, Counter] = {"a": Counter(), "b": Counter()}
        self.changed_lengths: dict[str, Counter] = {"a": Counter(), "b": Counter()}

    def add(self, compared: pd.DataFrame) -> None:
        """Add a :func:`compare_games` frame of whole games."""
        self.add_changes(winner_changes(compared))
        self.add_seats(compared)

    def add_changes(self, changes: pd.DataFrame) -> None:
        """Add game-level rows (a :func:`winner_changes` frame, or a :func:`compare_games`
        frame, converted first); :meth:`add` calls it."""
        if "changed" not in changes.columns:
            changes = winner_changes(changes)
        ok = changes["changed"].notna().to_numpy()
        changed = changes["changed"].fillna(False).to_numpy(bool)
        self.games += len(changes)
        self.compared += int(ok.sum())
        self.changed += int(changed[ok].sum())
        self.censored_a += int(changes["censored_a"].sum())
        self.censored_b += int(changes["censored_b"].sum())
        for side in ("a", "b"):
            column = f"deals_{side}"
            if column not in changes.columns:
                continue
            deals = changes[column].to_numpy()[ok]
            self.lengths[side].update(pd.Series(deals).value_counts().to_dict())
            hit = pd.Series(deals[changed[ok]]).value_counts().to_dict()
            self.changed_lengths[side].update(hit)

    def add_seats(self, compared: pd.DataFrame) -> None:
        """Add seat-level rows (a :func:`compare_games` frame); :meth:`add` calls it."""
        c = compared[~(compared["censored_a"] | compared["censored_b"])]
        self.key = "strategy" if "strategy" in c.columns else "seat"
        if not len(c):
            return
        wa = c["winner_a"].astype(bool).to_numpy()
        wb = c["winner_b"].astype(bool).to_numpy()
        counts = (
            pd.DataFrame(
                {
                    "n": np.ones(len(c), np.int64),
                    "wa": wa,
                    "wb": wb,
                    "flipped": wa != wb,
                    "gained": wb & ~wa,
                    "lost": wa & ~wb,
                }
            )
            .groupby(c[self.key].to_numpy() if self.key == "seat" else c[self.key], observed=True)
            .sum()
        )
        for name, row in zip(counts.index, counts.to_numpy(np.int64), strict=True):
            name = str(name) if self.key == "strategy" else name
            name = name.item() if hasattr(name, "item") else name
            self.seats[name] = self.seats.get(name, 0) + row

    def add_columns(self, a, b) -> bool:
        """Add the games of two batches of games rows of the same games, given as
        :class:`hsim.analysis.cells.GameColumns` (scoring a and b): what :meth:`add` adds
        for :func:`compare_games` of them, on numpy columns. Returns False, adding
        nothing, when a batch has more than 64 seats or a (game, seat) twice, or the
        games in both lack a seat in either (then use :meth:`add` on frames).

        :raises RunFolderError: the batches seat different strategies in a game.
        """
        keys = []
        for side in (a, b):
            if len(side) and (side.seat.max() >= 64 or side.game.max() >= 1 << 56):
                return False
            key = (side.game << 6) | side.seat
            if np.any(key[1:] <= key[:-1]):
                return False  # not one row per (game, seat) in order
            keys.append(key)
        at = np.searchsorted(keys[1], keys[0])
        at = np.minimum(at, max(len(keys[1]) - 1, 0))
        hit = keys[1][at] == keys[0] if len(keys[1]) else np.zeros(len(keys[0]), bool)
        ia, ib = np.flatnonzero(hit), at[hit]
        names = {str(c): i for i, c in enumerate(a.strategy[1])}
        recode = np.array([names.get(str(c), -2) for c in b.strategy[1]], np.int64)
        if not np.array_equal(a.strategy[0][ia], recode[b.strategy[0][ib]]):
            raise RunFolderError("the two games frames seat different strategies")
        game, seat = a.game[ia], a.seat[ia]
        seats = int(seat.max()) + 1 if len(seat) else N_SEATS
        n = len(game) // seats
        if len(game) % seats or not np.array_equal(seat, np.tile(np.arange(seats), n)):
            return False  # winner_changes refuses these: the frames say why
        bits = (1 << np.arange(seats)).astype(np.int64)
        cens, winners, deals = {}, {}, {}
        for side, rows, name in ((a, ia, "a"), (b, ib, "b")):
            cens[name] = side.censored[rows].reshape(n, seats).any(axis=1)
            winners[name] = (side.winner[rows].reshape(n, seats) * bits).sum(axis=1)
            deals[name] = side.deals[rows].reshape(n, seats)[:, 0]
        ok = ~(cens["a"] | cens["b"])
        changed = ok & (winners["a"] != winners["b"])
        self.games += n
        self.compared += int(ok.sum())
        self.changed += int(changed.sum())
        self.censored_a += int(cens["a"].sum())
        self.censored_b += int(cens["b"].sum())
        for name in ("a", "b"):
            for counter, values in (
                (self.lengths[name], deals[name][ok]),
                (self.changed_lengths[name], deals[name][changed]),
            ):
                if not len(values):
                    continue
                low = int(values.min())
                counts = np.bincount(values - low)
                for v in np.flatnonzero(counts):
                    counter[int(v) + low] += int(counts[v])
        self.key = "strategy"
        kept = np.repeat(ok, seats)
        wa, wb = a.winner[ia][kept], b.winner[ib][kept]
        if not len(wa):
            return True
        codes = a.strategy[0][ia][kept]
        width = len(a.strategy[1])
        per = np.stack(
            [
                np.bincount(codes, weights=w, minlength=width)
                for w in (np.ones(len(wa)), wa, wb, wa != wb, wb & ~wa, wa & ~wb)
            ],
            axis=1,
        ).astype(np.int64)
        for code in np.flatnonzero(per[:, 0]):
            name = str(a.strategy[1][code])
            self.seats[name] = self.seats.get(name, 0) + per[code]
        return True

    def winner_change(self, confidence: float = 0.95) -> WinnerChange:
        """Return the :class:`WinnerChange` of every game added."""
        share = wilson_interval(self.changed, self.compared, confidence) if self.compared else None
        return WinnerChange(
            self.games,
            self.compared,
            self.changed,
            share,
            self.censored_a,
            self.censored_b,
            self.games - self.compared,
        )

    def by_strategy(self, confidence: float = 0.95) -> pd.DataFrame:
        """Return :func:`winner_change_by_strategy` of every game added."""
        rows = []
        for name in sorted(self.seats):
            n, wa, wb, flipped, gained, lost = (int(v) for v in self.seats[name])
            row: dict[str, Any] = {self.key: name, "seat_games": n}
            for side, wins in (("a", wa), ("b", wb)):
                iv = wilson_interval(wins, n, confidence)
                row.update(
                    {
                        f"win_rate_{side}": iv.estimate,
                        f"win_rate_{side}_low": iv.low,
                        f"win_rate_{side}_high": iv.high,
                    }
                )
            iv = wilson_interval(flipped, n, confidence)
            row.update(
                {
                    "flipped": flipped,
                    "flipped_share": iv.estimate,
                    "flipped_low": iv.low,
                    "flipped_high": iv.high,
                    "gained": gained,
                    "lost": lost,
                }
            )
            rows.append(row)
        return pd.DataFrame(rows)

    def by_length(
        self, bins=DEFAULT_LENGTH_BINS, side: str = "a", confidence: float = 0.95
    ) -> pd.DataFrame:
        """Return :func:`winner_change_by_length` of every game added."""
        columns = ["length", "games", "changed", "share", "low", "high"]
        lengths = sorted(self.lengths[side])
        if not lengths:
            return pd.DataFrame([], columns=columns)
        labels = [_bin_label(lo, hi) for lo, hi in zip(bins[:-1], bins[1:], strict=True)]
        cut = pd.cut(pd.Series(lengths), bins=list(bins), labels=labels, right=True)
        games: Counter = Counter()
        changed: Counter = Counter()
        for length, label in zip(lengths, cut, strict=True):
            if pd.isna(label):
                continue
            games[label] += self.lengths[side][length]
            changed[label] += self.changed_lengths[side].get(length, 0)
        rows = []
        for label in labels:
            n = games.get(label, 0)
            if not n:
                continue
            k = int(changed[label])
            iv = wilson_interval(k, n, confidence)
            rows.append(
                {
                    "length": label,
                    "games": int(n),
                    "changed": k,
                    "share": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                }
            )
        return pd.DataFrame(rows, columns=columns)


def _bin_label(lo, hi) -> str:
    a = int(lo) + 1
    if np.isinf(hi):
        return f"{a}+"
    return str(a) if a == int(hi) else f"{a}-{int(hi)}"


# -------------------------------------------------------------------------- summaries


def jsonable(obj):
    """Return ``obj`` with NaN and infinities (not JSON) as None and numpy scalars as
    Python ones, recursively through dicts, lists and tuples."""
    if hasattr(obj, "item") and not isinstance(obj, (list, dict)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def interval_dict(iv: Interval | None) -> dict[str, float] | None:
    """Return an interval as ``{"estimate", "low", "high", "n"}`` (None stays None)."""
    if iv is None:
        return None
    return {"estimate": iv.estimate, "low": iv.low, "high": iv.high, "n": iv.n}


def safe_mean_interval(values, confidence: float = 0.95) -> Interval | None:
    """:func:`mean_interval`, or a point estimate with NaN bounds for one value, None for
    none."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return None
    if len(x) < 2:
        return Interval(float(x[0]), float("nan"), float("nan"), 1, confidence)
    return mean_interval(x, confidence)


def safe_ratio_interval(numerators, denominators, confidence: float = 0.95) -> Interval | None:
    """:func:`ratio_interval`, or NaN bounds for one cluster, None for no denominator."""
    y = np.asarray(numerators, dtype=float)
    x = np.asarray(denominators, dtype=float)
    if len(x) == 0 or x.sum() == 0:
        return None
    if len(x) < 2:
        return Interval(float(y.sum() / x.sum()), float("nan"), float("nan"), 1, confidence)
    return ratio_interval(y, x, confidence)


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def games_summary(
    games: pd.DataFrame,
    deals: pd.DataFrame | None = None,
    quantiles=QUANTILES,
    rules: Rules | None = None,
) -> dict[str, Any]:
    """Summarise a games frame (censored games left out) as a JSON-ready dict.

    games: games frame (one row per seat per game). deals: its deals frame (columns game,
    moon; rows after a re-scored game's end may be passed with ``counted``) for the moon
    rate; ``moon`` as the frame gives it (a run's: under the rules the deals were played
    by; :attr:`Rescoring.deals`: under the re-scoring's). rules: the rules the games were
    scored under (None: Hearts), for which score wins and whether there are moons.
    Keys: games, censored (int); ended_by (count per value, most frequent first);
    game_length (deals per game, t interval); final_score (mean seat score, t interval
    over per-game means); winning_score (the best score of each game: the lowest in
    Hearts, the highest in Kierki; t interval); score_quantiles (of the seats' final
    scores, by quantile); moon_rate (moons per deal, an interval clustered by game, when
    ``deals`` is given and the game is Hearts: Kierki has no moon).
    :class:`SummaryTally` computes the same over batches of games.
    """
    tally = SummaryTally(rules, moons=deals is not None)
    tally.add(games, deals)
    return tally.result(quantiles)


class SummaryTally:
    """:func:`games_summary` over batches of games, in bounded memory.

    rules: as in :func:`games_summary`; moons: whether deals will be given (for the moon
    rate). Feed :meth:`add` batches holding whole games (a game's rows all in one batch,
    its deals with it), then read :meth:`result`.
    """

    def __init__(self, rules: Rules | None = None, moons: bool = True):

        self.kierki = rules is not None and rules.is_kierki
        self.moons = moons and not self.kierki
        self.games = 0
        self.censored = 0
        self.ended_by: Counter = Counter()
        self.length = Moments()
        self.final = Moments()
        self.winning = Moments()
        self.scores: Counter = Counter()
        self.moon = RatioSums()

    def add(self, games: pd.DataFrame, deals: pd.DataFrame | None = None) -> None:
        """Add a batch: its games rows and (when ``moons``) the deals of those games."""
        if not len(games):
            return
        g = _with_censored(games)
        cens = g["censored"].to_numpy(bool)
        done = g[~cens]
        self.censored += int(g.loc[cens, "game"].nunique())
        if len(done):
            per = done.groupby("game", sort=True)
            first = per[["deals", "ended_by"]].first() if "ended_by" in done else None
            self.games += len(per)
            lengths = per["deals"].first() if first is None else first["deals"]
            self.length.add(lengths.to_numpy())
            if first is not None:
                for value, count in first["ended_by"].value_counts(sort=False).items():
                    if count:
                        self.ended_by[str(value)] += int(count)
            totals = per["score"].agg(["sum", "size", "min", "max"])
            for size, part in totals.groupby("size"):
                self.final.add(part["sum"].to_numpy(), scale=int(size))
            self.winning.add(totals["max" if self.kierki else "min"].to_numpy())
            self.scores.update(done["score"].value_counts().to_dict())
        if self.moons and deals is not None and len(deals):
            d = deals
            if "counted" in d.columns:
                d = d[d["counted"].to_numpy(bool)]
            d = d[d["game"].isin(done["game"].unique())]
            seats = int(d["seat"].max()) + 1 if "seat" in d.columns and len(d) else N_SEATS
            self._add_moons(d, seats)

    def add_games(self, games: pd.DataFrame) -> None:
        """Add the games rows of a batch (no deals): what :meth:`add` adds from them,
        per game with ``bincount`` and ``reduceat`` over the rows instead of pandas'
        groupby. Rows of a game must be together (a batch sorted by game is)."""
        if not len(games):
            return
        cens = games["censored"].to_numpy(bool) if "censored" in games else None
        if cens is not None and cens.any():
            self.censored += len(np.unique(games["game"].to_numpy()[cens]))
            games = games[~cens]
            if not len(games):
                return
        game = games["game"].to_numpy()
        order = np.argsort(game, kind="stable")
        if np.any(order != np.arange(len(order))):
            games, game = games.iloc[order], game[order]
        starts = np.concatenate([[0], np.flatnonzero(game[1:] != game[:-1]) + 1])
        self.games += len(starts)
        self.length.add(games["deals"].to_numpy()[starts])
        if "ended_by" in games:
            first = games["ended_by"].to_numpy()[starts]
            values, index, counts = np.unique(
                first.astype(str), return_index=True, return_counts=True
            )
            for i in np.argsort(index, kind="stable"):
                self.ended_by[str(values[i])] += int(counts[i])
        score = games["score"].to_numpy().astype(np.int64)
        self._add_final_scores(score, starts)
        values, counts = np.unique(score, return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist(), strict=True):
            self.scores[v] += c

    def _add_final_scores(self, score: np.ndarray, starts: np.ndarray) -> None:
        """Add each game's final scores: ``score`` int64[rows], one per seat, each game's
        rows from its index in ``starts`` to the next (the sum per seat count, the best)."""
        size = np.diff(np.append(starts, len(score)))
        total = np.add.reduceat(score, starts)
        for n in np.unique(size):
            self.final.add(total[size == n], scale=int(n))
        best = np.maximum if self.kierki else np.minimum
        self.winning.add(best.reduceat(score, starts))

    def add_columns(self, games) -> None:
        """Add the games rows of a batch (no deals) given as
        :class:`hsim.analysis.cells.GameColumns`: what :meth:`add_games` adds, on numpy
        columns and codes."""
        if not len(games):
            return
        if games.censored.any():
            self.censored += len(np.unique(games.game[games.censored]))
            games = games.take(~games.censored)
            if not len(games):
                return
        starts = games.starts()
        self.games += len(starts)
        self.length.add(games.deals[starts])
        codes, names = games.ended_by
        first = codes[starts]
        counts = np.bincount(first, minlength=len(names))
        seen = np.flatnonzero(counts)
        if len(seen) > 1:  # in the order first seen, as add_games
            seen = seen[np.argsort([np.argmax(first == c) for c in seen], kind="stable")]
        for c in seen:
            self.ended_by[str(names[c])] += int(counts[c])
        score = games.score
        self._add_final_scores(score, starts)
        low = int(score.min())
        counts = np.bincount(score - low)
        for v in np.flatnonzero(counts):
            self.scores[int(v) + low] += int(counts[v])

    def _add_moons(self, d: pd.DataFrame, seats: int) -> None:
        if not len(d):
            return
        per = d.groupby("game", sort=False)["moon"].agg(["sum", "size"])
        self.add_moons(per["sum"].to_numpy(np.int64), per["size"].to_numpy(np.int64), seats)

    def add_moons(self, moons: np.ndarray, rows: np.ndarray, seats: int) -> None:
        """Add the moons of games already counted by :meth:`add` (given no deals): per
        game, in game order, its moon flags summed (int) and its deal rows (int);
        seats: rows per deal."""
        if not len(rows):
            return
        x = rows // seats if not np.any(rows % seats) else rows / seats
        self.moon.add(moons, x)

    def result(self, quantiles=QUANTILES) -> dict[str, Any]:
        """Return the summary (the keys of :func:`games_summary`)."""

        # Most frequent first; ties in the order first seen (as pandas' value_counts).
        ended = sorted(self.ended_by.items(), key=lambda kv: -kv[1])
        values = nearest_quantiles(self.scores, quantiles)
        out: dict[str, Any] = {
            "games": self.games,
            "censored": self.censored,
            "ended_by": {k: int(v) for k, v in ended},
            "game_length": interval_dict(self.length.interval()),
            "final_score": interval_dict(self.final.interval()),
            "winning_score": interval_dict(self.winning.interval()),
            "score_quantiles": {
                f"{q:g}": float(v) for q, v in zip(quantiles, values, strict=False)
            },
        }
        if self.moons:
            out["moon_rate"] = interval_dict(self.moon.interval())
        return out


def moon_rate(deals: pd.DataFrame, games=None, confidence: float = 0.95) -> Interval | None:
    """Return moons per deal (the frame's ``moon`` flags) with an interval clustered by
    game (:func:`hsim.analysis.stats.ratio_interval`).

    deals: columns game, moon (one row per seat per deal; 4 seats unless a ``seat``
    column shows otherwise), and ``counted`` if present (rows with False are skipped).
    games: only these game ids (default all).
    """
    seats = int(deals["seat"].max()) + 1 if "seat" in deals.columns and len(deals) else N_SEATS
    d = deals
    if "counted" in d.columns:
        d = d[d["counted"].to_numpy(bool)]
    if games is not None:
        d = d[d["game"].isin(games)]
    per = d.groupby("game", sort=True)["moon"].agg(["sum", "size"])
    return safe_ratio_interval(per["sum"], per["size"] / seats, confidence)
