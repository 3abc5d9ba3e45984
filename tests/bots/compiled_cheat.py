"""A compiled strategy that zeros its points in ``public`` before playing: it must not
compile (``public`` is read-only), so it never sits at the table."""

from numba import njit

from hsim.engine.bits import lowest_by_rank
from hsim.engine.layout import P_POINTS
from hsim.engine.signatures import PLAY_SIG
from hsim.strategies.random_bot import pass_cards
from hsim.strategy import CompiledStrategy


@njit(PLAY_SIG)
def play(public, private, legal, rng, params):
    public[P_POINTS] = 0
    return lowest_by_rank(legal)


STRATEGY = CompiledStrategy(name="compiled_cheat", pass_cards=pass_cards, play=play)
