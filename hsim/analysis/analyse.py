"""Card-by-card analysis of a played Hearts game (``hsim analyse``).

At every play of the chosen seats, an analyser (a setting of ``pimc``) scores each legal
card: the seat's mean deal score after playing it (docs/rules.md A2: penalty points, the
moon and every scoring option included; lower is better) over worlds sampled from what
that seat could see when it played — its own hand, passes given and received, every card
played and by whom, the scores — never the other hands
(:func:`hsim.strategies.pimc.card_means`). The card played is then compared with the
best card: its *loss* is the difference of their values, and a loss of at least the
threshold (1 point by default) is a *blunder*.

Every decision draws from its own random stream, ``stream(seed, game, ANALYSIS_PURPOSE +
64 * deal + play)``, so the numbers are a pure function of the game, the analyser and the
position in the game: the same command gives the same numbers, and analysing one seat or
all four gives each decision the same values.

Passes, the New Moon choice and Kierki games are not analysed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from hsim.engine.hearts import legal_plays
from hsim.engine.layout import (
    H_DECIDER,
    H_GAME,
    P_DEAL,
    P_N_PLAYS,
    P_N_SEATS,
    ST_NEED_PLAY,
    V_HAND,
)
from hsim.engine.rng import seed_to_u64, stream_state
from hsim.errors import EXIT_USAGE, HsimError
from hsim.model.cards import format_card
from hsim.play.position import Position
from hsim.strategies import pimc
from hsim.strategy.contract import LoadedStrategy
from hsim.strategy.loader import load

#: The analyser by default: pimc with more worlds than it plays with (80), so that a
#: card's value moves little from one sample of worlds to another.
DEFAULT_ANALYSER = "pimc(worlds=200)"
#: A loss of at least this many points is a blunder, by default.
DEFAULT_THRESHOLD = 1.0
#: The first purpose of the analysis's random streams (far from the deal's and seats').
ANALYSIS_PURPOSE = 1 << 20


class AnalysisError(HsimError, ValueError):
    """The game or the analyser cannot be analysed (exit 2): a Kierki game, an analyser
    that is not a setting of ``pimc``, a seat that is not at the table."""

    exit_code = EXIT_USAGE


@dataclasses.dataclass(frozen=True)
class CardAnalysis:
    """One analysed play.

    deal: deal index in the game; trick: 0..12 in the deal; seat: 0..3; played: the card
    (0..51); values: for each legal card, the seat's mean deal score after it (points,
    lower is better); best: the legal card of lowest value (ties: the lowest card);
    loss: ``values[played] - values[best]``, >= 0; worlds: worlds sampled.
    """

    deal: int
    trick: int
    seat: int
    played: int
    values: dict[int, float]
    best: int
    loss: float
    worlds: int

    @property
    def forced(self) -> bool:
        """Whether the seat had only one legal card."""
        return len(self.values) == 1

    def as_dict(self, threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
        """Return this play as JSON data, cards by name, values best first; ``blunder``
        when the loss is at least ``threshold`` points."""
        return {
            "deal": self.deal,
            "trick": self.trick,
            "seat": self.seat,
            "played": format_card(self.played),
            "best": format_card(self.best),
            "loss": self.loss,
            "blunder": self.loss >= threshold,
            "worlds": self.worlds,
            "values": {format_card(c): v for c, v in _best_first(self.values)},
        }


def _best_first(values: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(values.items(), key=lambda cv: (cv[1], cv[0]))


def load_analyser(spec: str = DEFAULT_ANALYSER) -> LoadedStrategy:
    """Return the analyser of ``spec``, a setting of ``pimc`` such as ``pimc(worlds=400)``.

    :raises AnalysisError: another strategy. :raises StrategySpecError: a bad spec.
    """
    loaded = load(spec)
    if loaded.compiled is not pimc.STRATEGY:
        raise AnalysisError(
            f"--with {spec}: the analyser must be a setting of pimc, such as "
            f"{DEFAULT_ANALYSER} or pimc(worlds=400,exact_cards=12)"
        )
    return loaded


@dataclasses.dataclass(frozen=True)
class _Snapshot:
    """A play decision as its seat saw it: copies of ``public`` and the seat's ``private``
    row, the legal cards, and where it falls in the game."""

    deal: int
    play: int
    seat: int
    public: np.ndarray
    private: np.ndarray
    legal: int
    run_seed: int
    game: int


class Watcher:
    """Collects the play decisions of ``seats`` as a replay makes them (pass it as the
    replay's ``watch``); :meth:`analyse` then scores them.

    :raises AnalysisError: (when called) a Kierki game.
    """

    def __init__(self, seats: Iterable[int] | None = None) -> None:
        self.seats = None if seats is None else frozenset(seats)
        self.snapshots: list[_Snapshot] = []

    def __call__(self, driver, status: int) -> None:
        if driver.rules.is_kierki:
            raise AnalysisError("hsim analyse covers Hearts games; Kierki has no analyser yet")
        _check_players(driver.rules.players)
        st = driver.state
        seat = int(st.hidden[H_DECIDER])
        if status != ST_NEED_PLAY or (self.seats is not None and seat not in self.seats):
            return
        self.snapshots.append(
            _Snapshot(
                deal=int(st.public[P_DEAL]),
                play=int(st.public[P_N_PLAYS]),
                seat=seat,
                public=st.public.copy(),
                private=st.private[seat].copy(),
                legal=int(legal_plays(st.public, driver.rules_array, st.private[seat, V_HAND])),
                run_seed=int(driver.run_seed),
                game=int(st.hidden[H_GAME]),
            )
        )

    def analyse(
        self,
        records,
        analyser: LoadedStrategy,
        progress: Callable[[int], None] | None = None,
    ) -> list[CardAnalysis]:
        """Score every collected decision; ``records``: the replay's deal records (they
        give the card each decision played). progress: called with 1 after each decision.
        """
        played = {
            (r.deal, i): card
            for r in records
            for i, (_, card) in enumerate(p for trick in r.tricks for p in trick.plays)
        }
        out = []
        for snap in self.snapshots:
            out.append(_analysed(snap, played[snap.deal, snap.play], analyser))
            if progress is not None:
                progress(1)
        return out


def _analysed(snap: _Snapshot, card: int, analyser: LoadedStrategy) -> CardAnalysis:
    purpose = ANALYSIS_PURPOSE + 64 * snap.deal + snap.play
    rng = np.array([stream_state(np.uint64(snap.run_seed), snap.game, purpose)], np.uint64)
    means = np.empty(52, np.float64)
    worlds = pimc.card_means(
        snap.public.copy(), snap.private.copy(), snap.legal, rng, analyser.params.copy(), means
    )
    values = {c: float(means[c]) for c in range(52) if snap.legal >> c & 1}
    best = min(values, key=lambda c: (values[c], c))
    return CardAnalysis(
        deal=snap.deal,
        trick=snap.play // int(snap.public[P_N_SEATS]),
        seat=snap.seat,
        played=card,
        values=values,
        best=best,
        loss=max(0.0, values[card] - values[best]),
        worlds=int(worlds),
    )


def analyse_position(
    position: Position,
    card: int | None = None,
    analyser: LoadedStrategy | None = None,
    seed: int = 0,
    game: int = 0,
) -> CardAnalysis:
    """Analyse the play due in ``position`` (a Hearts position whose next decision is a
    play), as if ``card`` (default: the best card) were played; the random stream is the
    one of play ``n`` of deal ``d`` of game ``game`` of run ``seed``.

    :raises AnalysisError: the position's next decision is not a play, or ``card`` is
        not legal there.
    """
    if position.rules.is_kierki or position.phase != "play":
        raise AnalysisError(f"the position's next decision is a {position.phase}, not a play")
    _check_players(position.rules.players)
    st = position.state
    seat = position.to_act
    legal = int(position.legal())
    if card is not None and not legal >> card & 1:
        raise AnalysisError(f"{format_card(card)} is not a legal card in this position")
    snap = _Snapshot(
        deal=int(st.public[P_DEAL]),
        play=int(st.public[P_N_PLAYS]),
        seat=seat,
        public=st.public.copy(),
        private=st.private[seat].copy(),
        legal=legal,
        run_seed=int(seed_to_u64(seed)),
        game=game,
    )
    a = _analysed(
        snap,
        card if card is not None else (legal & -legal).bit_length() - 1,
        analyser or load_analyser(),
    )
    if card is None:
        a = dataclasses.replace(a, played=a.best, loss=0.0)
    return a


def _check_players(players: int) -> None:
    """:raises AnalysisError: 5 or 6 seats, where pimc's search (the analyser) does not run."""
    if players > 4:
        raise AnalysisError(
            f"hsim analyse covers Hearts for 3 or 4 players; pimc's search (the analyser) "
            f"does not run with {players} seats"
        )


def check_seats(seats: Sequence[int], players: int) -> None:
    """:raises AnalysisError: a seat outside 0..players-1."""
    for s in seats:
        if not 0 <= s < players:
            raise AnalysisError(f"--seat {s}: the seats of this game are 0..{players - 1}")


def summary(analyses: Sequence[CardAnalysis], seats: Iterable[int], threshold: float) -> list[dict]:
    """Return for each of ``seats``: plays analysed, forced plays, blunders (a loss of at
    least ``threshold`` points), total and mean loss (points per play; None without a
    play)."""
    out = []
    for s in seats:
        mine = [a for a in analyses if a.seat == s]
        total = sum(a.loss for a in mine)
        out.append(
            {
                "seat": s,
                "plays": len(mine),
                "forced": sum(a.forced for a in mine),
                "blunders": sum(a.loss >= threshold for a in mine),
                "total_loss": total,
                "mean_loss": total / len(mine) if mine else None,
            }
        )
    return out


def format_analysis(
    analyses: Sequence[CardAnalysis],
    players: Sequence[str],
    seats: Iterable[int],
    threshold: float,
    everything: bool = False,
) -> list[str]:
    """Return the analysis as text lines: one line per play with a choice (``everything``:
    forced plays too), blunders marked ``??``, the legal cards best first; then a line for
    each of ``seats`` with its blunders and loss (``players``: the spec in each seat)."""
    lines = []
    for a in analyses:
        if a.forced and not everything:
            continue
        mark = "??" if a.loss >= threshold else "  "
        others = "  ".join(f"{format_card(c)} {v:.2f}" for c, v in _best_first(a.values))
        lines.append(
            f"deal {a.deal:2d} trick {a.trick + 1:2d} seat {a.seat}  played "
            f"{format_card(a.played)} {a.values[a.played]:6.2f}  loss {a.loss:5.2f} {mark}  "
            f"{others}"
        )
    lines.append("")
    for row in summary(analyses, seats, threshold):
        mean = "-" if row["mean_loss"] is None else f"{row['mean_loss']:.3f}"
        lines.append(
            f"seat {row['seat']} ({players[row['seat']]}): {row['plays']} plays "
            f"({row['forced']} forced), {row['blunders']} blunders, loss {row['total_loss']:.2f} "
            f"points, {mean} per play"
        )
    return lines
