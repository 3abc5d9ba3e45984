"""heuristic's lead and discard, written for speed (branch-free costs, the groups of
candidates unrolled), against their plain definitions, on random positions.

The definitions below are the sums and the loops as the module docstring reads them, with
an ``if`` for every condition: the fast forms must pick the same card and, for a lead,
compute the same cost to the last bit (the choice compares costs exactly).
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from hsim.engine.bits import below, lowest_card, popcount, suit_bits
from hsim.engine.layout import P_RULES, P_VOIDS, PUBLIC_LEN, R_OMNIBUS, R_OMNIBUS_VALUE
from hsim.strategies import heuristic as h

CASES = 40_000


@njit
def _plain_lead_cost(omnibus, hand, out, c, s, voids, dump):
    """The lead's expected cost with an ``if`` for every condition (heuristic's rules)."""
    o = out & suit_bits(s)
    n_out = popcount(o)
    n_below = popcount(o & below(c))
    if n_out < 3 and 3 - n_out > voids:
        voids = 3 - n_out
    followers = 3 - voids
    p_win = h.LEAD_WIN[n_out, n_below, followers]
    qs_out = out & h.QS_BIT != 0
    pts = 0.0
    if s == 3:
        pts = 1.0 + min(followers, n_out)
    if c == h.QUEEN_SPADES:
        pts += 13.0
    if s == 2 and qs_out and c > h.QUEEN_SPADES:
        pts += 13.0 * 0.8
    if voids > 0:
        pts += voids * dump
    cost = p_win * pts
    if s == 2:
        if hand & h.QS_BIT:
            cost += 2.5
        elif qs_out and c < h.QUEEN_SPADES:
            if hand & h.HIGH_SPADES:
                cost += 0.5
            else:
                cost -= 1.5
    if omnibus and c == h.JACK_DIAMONDS:
        cost -= 10.0 * p_win
    n_mine = popcount(hand & suit_bits(s))
    if n_mine == 1:
        cost -= 0.4
    elif n_mine == 2:
        cost -= 0.2
    return cost + 0.01 * (c - 13 * s)


@njit
def _plain_lead(public, me, hand, legal, out):
    """The lead by a loop over the suits held, the first of equal costs."""
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    if (
        omnibus
        and legal & h.JD_BIT
        and out & h.above(h.JACK_DIAMONDS) == 0
        and popcount(out & h.DIAMONDS_MASK) >= 2
        and h.known_voids(public, me, 1) == 0
    ):
        return h.JACK_DIAMONDS
    dump = 0.0
    if out & h.QS_BIT:
        dump += 13.0 / 3.0
    if out & h.HEARTS_MASK:
        dump += 1.5
    best = -1
    best_cost = 1e9
    for s in range(4):
        mine = legal & suit_bits(s)
        if mine == 0:
            continue
        c = lowest_card(mine)
        cost = _plain_lead_cost(omnibus, hand, out, c, s, h.known_voids(public, me, s), dump)
        if cost < best_cost:
            best_cost = cost
            best = c
    return best


@njit
def _plain_discard(public, hand, out, cards):
    """The most dangerous card of ``cards`` by asking every card, the lowest of equals."""
    best = -1
    best_d = 0
    for c in range(52):
        if (cards >> c) & 1:
            d = h.discard_danger(public, hand, out, c, c // 13)
            if best < 0 or d > best_d:
                best, best_d = c, d
    return best


@njit
def _subset(mask, p):
    """A random subset of ``mask``, each card kept with probability ``p``."""
    out = 0
    for c in range(52):
        if (mask >> c) & 1 and np.random.random() < p:
            out |= 1 << c
    return out


@njit
def _position(public, omnibus):
    """Fill ``public`` with a random position; return (me, hand, out, legal)."""
    public[P_RULES + R_OMNIBUS] = omnibus
    public[P_RULES + R_OMNIBUS_VALUE] = 10  # the bonus card's value by default (A2.3)
    me = np.random.randint(4)
    for seat in range(4):
        public[P_VOIDS + seat] = _subset(0xF, 0.2) if seat != me else 0
    hand = 0
    while hand == 0:
        hand = _subset(h.ALL_CARDS, np.random.random() * 0.4)
    out = _subset(h.ALL_CARDS & ~hand, np.random.random())
    legal = 0
    while legal == 0:
        legal = _subset(hand, 0.7)
    return me, hand, out, legal


@njit
def _lead_mismatches(seed, cases, omnibus):
    """Return the positions where the fast lead differs from the plain one, as rows
    (hand, out, legal, me, what: 0 the card, 1..4 the cost of suit what - 1)."""
    np.random.seed(seed)
    public = np.zeros(PUBLIC_LEN, np.int64)
    found = []
    for _ in range(cases):
        me, hand, out, legal = _position(public, omnibus)
        fast_card = h.lead_normal(public, me, hand, legal, out, -1)
        if fast_card != _plain_lead(public, me, hand, legal, out):
            found.append((hand, out, legal, me, 0))
        voids = h.void_counts(public, me)
        dump = np.random.choice(np.array([0.0, 1.5, 13.0 / 3.0, 13.0 / 3.0 + 1.5]))
        for s in range(4):
            mine = hand & suit_bits(s)
            if mine == 0:
                continue
            c = lowest_card(_subset(mine, 0.5) | (mine & -mine))  # any card of s held
            fast = h.lead_cost(hand, out, c, s, (voids >> (8 * s)) & 0xFF, dump, omnibus != 0)
            voids_s = h.known_voids(public, me, s)
            plain = _plain_lead_cost(omnibus != 0, hand, out, c, s, voids_s, dump)
            if fast != plain:
                found.append((hand, out, legal, me, 1 + s))
    return found


@njit
def _discard_mismatches(seed, cases, omnibus):
    """Return the positions where discard_choice, most_dangerous (the loop over the
    candidates) and the plain choice over every card disagree, as (hand, out, cards)."""
    np.random.seed(seed)
    public = np.zeros(PUBLIC_LEN, np.int64)
    found = []
    for _ in range(cases):
        _, hand, out, cards = _position(public, omnibus)
        plain = _plain_discard(public, hand, out, cards)
        if (
            h.discard_choice(public, hand, out, cards) != plain
            or h.most_dangerous(public, hand, out, cards) != plain
        ):
            found.append((hand, out, cards))
    return found


@pytest.mark.parametrize("omnibus", [0, 1])
def test_the_fast_lead_equals_the_plain_one(omnibus):
    bad = _lead_mismatches(11 + omnibus, CASES, omnibus)
    assert not bad, [tuple(hex(x) for x in row[:3]) + row[3:] for row in bad[:5]]


@pytest.mark.parametrize("omnibus", [0, 1])
def test_the_fast_discard_equals_the_plain_one(omnibus):
    bad = _discard_mismatches(21 + omnibus, CASES, omnibus)
    assert not bad, [tuple(hex(x) for x in row) for row in bad[:5]]


def test_a_lead_of_an_empty_suit_costs_infinity():
    cost, card = h.suit_lead(1 << 3, 1 << 3, 0, 2, 0, 0.0, False)
    assert cost == np.inf and card // 13 == 2
    cost, card = h.suit_lead(1 << 3, 1 << 3, 0, 0, 0, 0.0, False)
    assert np.isfinite(cost) and card == 3
