"""``random``: a uniformly random legal play and a uniformly random pass."""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import nth_card, popcount
from hsim.engine.layout import V_HAND
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.rng import below
from hsim.strategy import CompiledStrategy


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):
    """Pass 3 cards drawn uniformly from the hand."""
    hand = private[V_HAND]
    out = 0
    for _ in range(3):
        c = nth_card(hand, below(rng, popcount(hand)))
        out |= 1 << c
        hand &= ~(1 << c)
    return out


@njit(PLAY_SIG, cache=True)
def play(public, private, legal, rng, params):
    """Play a legal card drawn uniformly."""
    return nth_card(legal, below(rng, popcount(legal)))


STRATEGY = CompiledStrategy(
    name="random",
    pass_cards=pass_cards,
    play=play,
    description="uniformly random legal play and pass",
)
