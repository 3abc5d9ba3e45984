"""``shooter``: shoot the moon whenever the hand makes it plausible (compiled, deterministic).

A test opponent for moon defence: it goes for the moon far more often than ``heuristic``
(whose threshold, ``moon_losers=3`` with the AH and 4 hearts, lets few deals through),
and otherwise plays as ``heuristic``. It never draws a random number. Parameters
(defaults: ``shooter(moon_losers=6,defend_at=14,qs_guard=2,suspect_at=1)``; the order of
``heuristic``'s, whose functions read them):

- ``moon_losers``: attempt a moon when the hand it keeps has at most this many losers
  (:func:`hsim.strategies.heuristic.hand_losers`: the missing A, K, Q among the top
  cards of each suit) and holds the hearts and spades for it (:func:`moon_hand`);
  negative: never attempt from the deal;
- ``defend_at``, ``qs_guard``, ``suspect_at``: as ``heuristic``'s, when it is not shooting.

Passing
    With a hand that may shoot (:func:`wants_shot`) it passes its losers, low cards, never
    a heart or the QS (``heuristic``'s :func:`~hsim.strategies.heuristic.moon_pass`):
    it keeps its high hearts and high cards. Otherwise it passes as ``heuristic``.

Playing
    While shooting (every point taken so far is its own, :func:`shooting`) it plays
    ``heuristic``'s moon cards: it leads its sure winners (else gives a trick away while
    it carries no points, in a suit the others follow), wins every trick it can, and
    discards low cards, keeping its winners. Once another seat takes a point it gives the
    shot up and plays as ``heuristic``, which dumps its points.
"""

from __future__ import annotations

from numba import njit

from hsim.engine._numba import kernel
from hsim.engine.bits import lowest_card, popcount, suit_bits
from hsim.engine.hearts import HEARTS_MASK, HIGH_SPADES, QS_BIT, deal_deck, seats_of
from hsim.engine.layout import (
    P_LED_SUIT,
    P_PLAYED,
    P_TRICK_LEN,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_SEAT,
)
from hsim.engine.native import PASS_AT_SIG, PLAY_AT_SIG, data_ptr
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.strategies import heuristic
from hsim.strategies.heuristic import (
    K_MOON_LOSERS,
    discard_moon,
    follow_moon,
    hand_losers,
    lead_moon,
    may_still_shoot,
    moon_pass,
    moon_shape,
    suit_losers,
    winning_card,
)
from hsim.strategy.contract import CompiledStrategy, Param


@kernel
def moon_hand(hand: int, params) -> bool:
    """Return whether ``hand`` has the shape of a moon: attempts are on (``moon_losers``
    >= 0), the QS, AS or KS to take the QS with, and at least 3 hearts with at most one
    of the AH, KH, QH missing from its top (:func:`~hsim.strategies.heuristic.suit_losers`),
    or 6 hearts. Every hand of ``heuristic``'s
    :func:`~hsim.strategies.heuristic.moon_shape` is one too, so that ``heuristic``'s
    play, which :func:`play_at` calls when not shooting, never thinks it is shooting."""
    hearts = popcount(hand & HEARTS_MASK)
    return moon_shape(hand, params) or (
        params[K_MOON_LOSERS] >= 0
        and hand & (QS_BIT | HIGH_SPADES) != 0
        and ((hearts >= 3 and suit_losers(hand, 3) <= 1) or hearts >= 6)
    )


@kernel
def wants_shot(hand: int, passing: bool, params) -> bool:
    """Return whether the dealt ``hand`` goes for the moon: :func:`moon_hand` and the hand
    kept (after :func:`~hsim.strategies.heuristic.moon_pass` when ``passing``) has at
    most ``moon_losers`` losers."""
    if not moon_hand(hand, params):
        return False
    kept = hand & ~moon_pass(hand) if passing else hand
    return hand_losers(kept) <= params[K_MOON_LOSERS]


@kernel
def shot_from_deal(private, params) -> bool:
    """Return whether this deal is a moon attempt from the start: :func:`wants_shot` of
    the dealt hand, read back from the pass made (a shooter passes ``moon_pass``)."""
    dealt = private[V_DEALT]
    kept = dealt & ~private[V_PASSED]
    return moon_hand(dealt, params) and hand_losers(kept) <= params[K_MOON_LOSERS]


@kernel
def shooting(public, private, hand: int, out: int, params) -> bool:
    """Return whether this seat is (still) shooting the moon: when ``heuristic`` would
    be (:func:`~hsim.strategies.heuristic.shooting`: from a deal of its moon shape, or
    holding at least 6 points and only winners), or when it holds every point taken so
    far and went for the moon from the deal (:func:`shot_from_deal`)."""
    if heuristic.shooting(public, private, hand, out, params):
        return True
    return may_still_shoot(public, private[V_SEAT]) and shot_from_deal(private, params)


@kernel
def moon_card(public, private, legal: int, out: int) -> int:
    """Return the card of a seat going for the moon, from the mask ``legal`` (at least one
    card; ``out``: the cards still held by the other seats): ``heuristic``'s moon cards,
    a sure winner led, the trick won when it can be, a low card discarded."""
    n = public[P_TRICK_LEN]
    if n == 0:
        return lead_moon(public, private[V_SEAT], legal, out)
    follow = legal & suit_bits(public[P_LED_SUIT])
    if follow:
        return follow_moon(follow, out, winning_card(public), n == seats_of(public) - 1)
    return discard_moon(public, private[V_HAND], legal, out)


@njit(PLAY_AT_SIG, cache=True, _nrt=False)
def play_at(public, private, legal, rng, params):
    """Play a card (see the module docstring); the native entry the loops call."""
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    hand = private[V_HAND]
    out = deal_deck(public) & ~public[P_PLAYED] & ~hand  # 3 seats: removed_card out (A1.1)
    if not shooting(public, private, hand, out, params):
        # heuristic's own moon test is stricter than ours (a subset): it does not shoot
        return heuristic.play_at(public, private, legal, rng, params)
    return moon_card(public, private, legal, out)


@njit(PLAY_SIG, cache=True, _nrt=False)
def play(public, private, legal, rng, params):
    """Play a card: :func:`play_at` over the arrays' data."""
    return play_at(data_ptr(public), data_ptr(private), legal, data_ptr(rng), data_ptr(params))


@njit(PASS_AT_SIG, cache=True, _nrt=False)
def pass_at(public, private, rng, params):
    """Pass three cards: a shooter's pass (``moon_pass``) with a hand that may shoot
    (:func:`wants_shot`), else ``heuristic``'s."""
    hand = private[V_HAND]
    if wants_shot(hand, True, params):
        return moon_pass(hand)
    return heuristic.pass_at(public, private, rng, params)


@njit(PASS_SIG, cache=True, _nrt=False)
def pass_cards(public, private, rng, params):
    """Pass three cards: :func:`pass_at` over the arrays' data."""
    return pass_at(data_ptr(public), data_ptr(private), data_ptr(rng), data_ptr(params))


STRATEGY = CompiledStrategy(
    name="shooter",
    pass_cards=pass_cards,
    play=play,
    moon_choice=heuristic.moon_choice,
    native_pass=pass_at,
    native_play=play_at,
    # heuristic's parameters in heuristic's order (its functions read them by index),
    # with a looser moon_losers
    params={**heuristic.STRATEGY.params, "moon_losers": Param(6, float, -1, 13)},
    param_help={
        **{
            k: f"as heuristic's, when not shooting: {v}"
            for k, v in heuristic.STRATEGY.param_help.items()
        },
        "moon_losers": "attempt a moon from a deal whose kept hand has at most this many "
        "losers (and the hearts and a high spade); -1: never",
    },
    description="shoots the moon whenever its hand makes it plausible, else heuristic",
)
