"""``duck``: stay under the winning card, win only what is free, shed the dangerous cards.

A simple, deterministic baseline (it never draws a random number), a step above
``lowcard``. "Highest" and "lowest" go by rank; among cards of one rank the suit order
is C, D, S, H (so hearts count highest).

- **Pass**: the QS, AS and KS if held, then the highest-ranked cards (ties: hearts first,
  then spades, diamonds, clubs).
- **Lead**: the lowest-ranked legal card (ties: clubs, diamonds, spades, hearts), except
  that it does not lead the QS, or a spade above it, while it has another card to lead.
- **Follow**: the QS whenever it is under the winning card (an AS or KS played: the
  queen goes to another seat, even on a trick it could win for free); else the highest
  card that does not win the trick. When every card it may play wins: the highest of
  them other than the QS. Last to play on a trick without points, it wins it with its
  highest winning card other than the QS (shedding a high card for free); a trick that
  carries points (trick 1 included, where a hand of only points may discard them) it
  ducks whenever it holds a card under the winner.
- **Discard** (void in the led suit): the QS, else the highest heart, else the highest card.
"""

from __future__ import annotations

from numba import njit

from hsim.engine.bits import highest_by_rank, highest_card, lowest_by_rank, popcount
from hsim.engine.hearts import (
    HIGH_SPADES,
    QS_BIT,
    SUIT_MASK,
    costly_mask_at,
    deal_penalty_points,
    most_costly,
    penalty_mask_at,
    seats_of,
)
from hsim.engine.layout import P_LED_SUIT, P_RULES, P_TRICK_CARDS, P_TRICK_LEN, V_HAND
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.strategy.contract import CompiledStrategy


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):
    """Pass the QS, AS, KS if held, then the highest-ranked cards."""
    hand = private[V_HAND]
    out = hand & (QS_BIT | HIGH_SPADES)
    n = popcount(out)
    while n < 3:
        c = highest_by_rank(hand & ~out)
        out |= 1 << c
        n += 1
    return out


@njit(PLAY_SIG, cache=True, inline="always")  # inlined into the game loops
def play(public, private, legal, rng, params):
    """Lead low, follow with the highest card that does not win, discard the dangerous."""
    n = public[P_TRICK_LEN]
    if n == 0:
        safe = legal & ~(QS_BIT | HIGH_SPADES)
        return lowest_by_rank(safe if safe else legal)
    led = public[P_LED_SUIT]
    suit = SUIT_MASK << (13 * led)
    follow = legal & suit
    if follow:
        trick = public[P_TRICK_CARDS]
        win = highest_card(trick & suit)
        under = follow & ((1 << win) - 1)
        costly = costly_mask_at(public, P_RULES)  # the QS with the usual values (A1.8)
        if under & costly:
            # lose the trick with the queen (or another card worth 7 or more): it never
            # costs us its points later
            return most_costly(public, P_RULES, under & costly)
        over_safe = follow & ~under & ~costly
        if n == seats_of(public) - 1 and deal_penalty_points(public, trick) == 0 and over_safe:
            return highest_card(over_safe)  # a free trick: shed the high card
        if under:
            return highest_card(under)
        if over_safe:
            return highest_card(over_safe)
        return highest_card(follow)
    points = legal & penalty_mask_at(public, P_RULES)
    if points:  # the QS, then the highest heart with the usual values (A1.8)
        return most_costly(public, P_RULES, points)
    return highest_by_rank(legal)


STRATEGY = CompiledStrategy(
    name="duck",
    pass_cards=pass_cards,
    play=play,
    description="follow under the winning card, win free tricks last, discard QS and hearts",
)
