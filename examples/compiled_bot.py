r"""A compiled Hearts bot to copy and change: ``STRATEGY`` ("shedder").

Compiled with numba, it plays whole games inside hsim's compiled loop (hundreds of
thousands of deals a second). Try it (from the checkout's folder):

    hsim tournament --players examples/compiled_bot.py:STRATEGY,duck,duck,duck \
        --games 2000 --out results/shedder
    hsim sprt --candidate examples/compiled_bot.py:STRATEGY --baseline duck \
        --bounds -0.5,0.5 --max-boards 400 --out results/shedder-sprt

The first run compiles it (a few seconds); later runs load it from the cache.

- Pass: the QS, AS and KS if held, then the highest cards of its shortest suit (to void it).
- Lead: a low card; with ``risk`` above 0 it sometimes leads its highest safe card instead.
- Follow: the highest card under the trick's winning card, else its lowest card.
- Void in the suit led: the QS, else its highest heart, else its highest card.

docs/strategies.md gives the signatures, the ``public``/``private`` offsets and the
card helpers of ``hsim.engine.bits``.
"""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import highest_card, lowest_by_rank, popcount, suit_bits
from hsim.engine.layout import P_LED_SUIT, P_TRICK_CARDS, P_TRICK_LEN, V_HAND
from hsim.engine.rng import below
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.model.cards import HEARTS_MASK, QS_BIT, QUEEN_SPADES, SPADES
from hsim.strategy import CompiledStrategy, Param

#: The AS and KS: above the queen, so they can be made to take it.
HIGH_SPADES = suit_bits(SPADES) & ~((2 << QUEEN_SPADES) - 1)


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):
    """Return a mask of 3 held cards: QS, AS, KS first, then the shortest suit's highest."""
    hand = private[V_HAND]
    out = hand & (QS_BIT | HIGH_SPADES)
    while popcount(out) < 3:
        left = hand & ~out
        shortest = -1
        for s in range(4):  # the shortest suit still held
            n = popcount(left & suit_bits(s))
            if n > 0 and (shortest < 0 or n < popcount(left & suit_bits(shortest))):
                shortest = s
        out |= 1 << highest_card(left & suit_bits(shortest))
    return out


@njit(PLAY_SIG, cache=True)
def play(public, private, legal, rng, params):
    """Return one card of the mask ``legal`` (params[0]: risk, 0..1)."""
    if public[P_TRICK_LEN] == 0:  # leading
        safe = legal & ~(QS_BIT | HIGH_SPADES | HEARTS_MASK)
        if safe and below(rng, 1000) < params[0] * 1000:  # with probability risk
            return highest_card(safe)
        return lowest_by_rank(safe if safe else legal)
    suit = suit_bits(public[P_LED_SUIT])
    follow = legal & suit
    if follow:
        winning = highest_card(public[P_TRICK_CARDS] & suit)
        under = follow & ((1 << winning) - 1)
        if under:
            return highest_card(under)
        return lowest_by_rank(follow)
    if legal & QS_BIT:
        return QUEEN_SPADES
    if legal & HEARTS_MASK:
        return highest_card(legal & HEARTS_MASK)
    return highest_card(legal)


STRATEGY = CompiledStrategy(
    name="shedder",
    pass_cards=pass_cards,
    play=play,
    params={"risk": Param(0.0, float, 0, 1)},
    description="example: passes to void a suit, ducks under the winner, sheds the queen",
)
