"""The default answers of the decisions a strategy may leave out: the moon choice
(``MOON_DEFAULT``: the rule's default, docs/rules.md A4) and the Kierki trump choice (the
longest suit among the cards seen, docs/rules.md B3). Compiled; the game loops call them
for every strategy that does not bring its own."""

from __future__ import annotations

from numba import njit

from hsim.engine import _numba  # noqa: F401  (the cache folder, before anything compiles)
from hsim.engine.layout import MOON_DEFAULT, V_HAND
from hsim.engine.signatures import MOON_SIG, TRUMP_SIG


@njit(MOON_SIG, cache=True)
def default_moon_choice(public, private, rng, params):
    """Compiled moon choice that always answers "use the default rule" (0)."""
    return MOON_DEFAULT


@njit(cache=True)
def longest_suit(cards):
    """Return the suit 0..3 with the most cards in mask ``cards``; ties go to the suit whose
    cards rank higher in total, then to the higher suit number.
    """
    best, best_key = 0, -1
    for suit in range(4):
        count, ranks = 0, 0
        for r in range(13):
            if (cards >> (13 * suit + r)) & 1:
                count += 1
                ranks += r
        key = count * 1000 + ranks * 4 + suit
        if key > best_key:
            best, best_key = suit, key
    return best


@njit(TRUMP_SIG, cache=True)
def default_trump_choice(public, private, rng, params):
    """Compiled trump choice (docs/rules.md B3): the longest suit among the cards seen."""
    return longest_suit(private[V_HAND])
