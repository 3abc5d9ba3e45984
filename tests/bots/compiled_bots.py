"""Compiled strategies used by the tests."""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import nth_card, popcount
from hsim.engine.layout import P_TRICK, V_HAND
from hsim.engine.rng import below
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.strategies import lowcard, random_bot
from hsim.strategy.contract import CompiledStrategy


@njit(PLAY_SIG, cache=True)
def play_not_held(public, private, legal, rng, params):
    """Plays the lowest card it does not hold once trick ``params[0]`` is reached."""
    if public[P_TRICK] >= params[0]:
        hand = private[V_HAND]
        for c in range(52):
            if not (hand >> c) & 1:
                return c
    return lowcard.play(public, private, legal, rng, params)


@njit(PASS_SIG, cache=True)
def pass_two(public, private, rng, params):
    """Passes only two cards: an invalid pass."""
    hand = private[V_HAND]
    low = hand & -hand
    rest = hand & ~low
    return low | (rest & -rest)


NOT_HELD = CompiledStrategy("not_held", lowcard.pass_cards, play_not_held, params={"trick": 5.0})
BAD_PASS = CompiledStrategy("bad_pass", pass_two, lowcard.play)


@njit(PLAY_SIG, cache=True)
def play_mirror_random(public, private, legal, rng, params):
    """Plays a uniformly random legal card, counted from the top: as strong as ``random``
    (the same distribution of plays) but a different card from the same random draw."""
    return nth_card(legal, popcount(legal) - 1 - below(rng, popcount(legal)))


#: As strong as ``random``, playing differently: a null hypothesis with card-play noise.
MIRROR_RANDOM = CompiledStrategy("mirror_random", random_bot.pass_cards, play_mirror_random)
