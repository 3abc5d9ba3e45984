"""``random``: a uniformly random legal play, pass and trump (Hearts and Kierki)."""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import nth_card, popcount
from hsim.engine.layout import P_RULES, R_ALLOW_NO_TRUMP, V_HAND
from hsim.engine.rng import below
from hsim.engine.signatures import PASS_SIG, PLAY_SIG, TRUMP_SIG
from hsim.strategy.contract import CompiledStrategy


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


@njit(TRUMP_SIG, cache=True)
def trump_choice(public, private, rng, params):
    """Name a suit (or no trump, where the rules allow it) uniformly at random (B3)."""
    return below(rng, 5 if public[P_RULES + R_ALLOW_NO_TRUMP] else 4)


STRATEGY = CompiledStrategy(
    name="random",
    pass_cards=pass_cards,
    play=play,
    trump_choice=trump_choice,
    games=("hearts", "kierki"),
    description="uniformly random legal play, pass and trump (Hearts and Kierki)",
)
