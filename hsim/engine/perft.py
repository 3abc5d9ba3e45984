"""Perft: count the legal play sequences of a given length from a position.

The sharpest test of the move generator (as in chess): the counts below a position
depend on every rule of A1.3-A1.7. A sequence stops at the end of the deal, so a depth
that reaches past the last card counts nothing beyond it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hsim.engine.bits import lowest_card, popcount
from hsim.engine.hearts import hand_size, legal_plays, play_card, seats_of
from hsim.engine.layout import P_TO_ACT, P_TRICK, V_HAND


@njit(cache=True)
def perft(public, private, rules, depth):
    """Return the number of legal play sequences of ``depth`` cards from the position.

    public: int64[PUBLIC_LEN], private: int64[4, PRIVATE_LEN], 3 or 4 seats (A1.1) (a copy
    is made; the arguments are not changed). depth >= 0; depth 0 counts the empty sequence (1).
    """
    if depth == 0:
        return 1
    n_tricks = hand_size(seats_of(public))  # 13, or 17 with 3 seats (A1.1)
    pubs = np.empty((depth, public.shape[0]), np.int64)
    privs = np.empty((depth, private.shape[0], private.shape[1]), np.int64)
    remaining = np.zeros(depth, np.int64)
    pubs[0] = public
    privs[0] = private
    if pubs[0, P_TRICK] >= n_tricks:
        return 0
    seat = pubs[0, P_TO_ACT]
    remaining[0] = legal_plays(pubs[0], rules, privs[0, seat, V_HAND])
    count = 0
    level = 0
    while level >= 0:
        if level == depth - 1:
            count += popcount(remaining[level])  # bulk-count the last card
            level -= 1
            continue
        moves = remaining[level]
        if moves == 0:
            level -= 1
            continue
        card = lowest_card(moves)
        remaining[level] = moves & ~(1 << card)
        nxt = level + 1
        pubs[nxt] = pubs[level]
        privs[nxt] = privs[level]
        play_card(pubs[nxt], privs[nxt], pubs[nxt, P_TO_ACT], card)
        if pubs[nxt, P_TRICK] >= n_tricks:
            continue  # the deal ended before the sequence reached its length
        seat = pubs[nxt, P_TO_ACT]
        remaining[nxt] = legal_plays(pubs[nxt], rules, privs[nxt, seat, V_HAND])
        level = nxt
    return count


@njit(cache=True)
def divide(public, private, rules, depth, out):
    """Write into ``out[card]`` the perft count of ``depth - 1`` below each legal card.

    out: int64[52], zeroed by the caller; cards that are not legal stay 0. depth >= 1.
    Returns the total.
    """
    seat = public[P_TO_ACT]
    moves = legal_plays(public, rules, private[seat, V_HAND])
    total = 0
    while moves:
        card = lowest_card(moves)
        moves &= ~(1 << card)
        pub = public.copy()
        priv = private.copy()
        play_card(pub, priv, seat, card)
        if depth == 1:
            n = 1
        elif pub[P_TRICK] >= hand_size(seats_of(pub)):
            n = 0
        else:
            n = perft(pub, priv, rules, depth - 1)
        out[card] = n
        total += n
    return total
