"""``lowcard``: pass the three highest cards, play the lowest legal card.

"Highest" and "lowest" go by rank; among cards of one rank, clubs count lowest and
hearts highest (suit order C, D, S, H). Deterministic: it never draws a random number.
"""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import highest_by_rank, lowest_by_rank
from hsim.engine.layout import V_HAND
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.strategy.contract import CompiledStrategy


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):
    """Pass the three highest-ranked cards (ties: hearts, spades, diamonds, clubs)."""
    hand = private[V_HAND]
    out = 0
    for _ in range(3):
        c = highest_by_rank(hand & ~out)
        if c < 0:
            break
        out |= 1 << c
    return out


@njit(PLAY_SIG, cache=True, inline="always")  # inlined into the game loops
def play(public, private, legal, rng, params):
    """Play the lowest-ranked legal card (ties: clubs, diamonds, spades, hearts)."""
    return lowest_by_rank(legal)


STRATEGY = CompiledStrategy(
    name="lowcard",
    pass_cards=pass_cards,
    play=play,
    games=("hearts", "kierki"),
    description="pass the three highest cards, play the lowest legal card (Hearts, Kierki)",
)
