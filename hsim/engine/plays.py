"""The deal's order of play in its records, for ``--record plays``.

When the deal-row buffer the engine is given has the plays columns (``DEAL_COLS +
PLAY_SLOTS`` columns instead of ``DEAL_COLS``), :func:`write_plays` copies the finished
deal's history from ``public`` (``P_PLAY_CARD``, ``P_PLAY_SEAT``, ``P_TRICK_LEADER``,
``P_TRICK_WINNER``) into them: the deal's n rows (one per seat) hold its plays in order,
row r the plays ``r * PLAY_SLOTS .. r * PLAY_SLOTS + PLAY_SLOTS - 1`` (17 slots a row:
four rows hold 52 plays, three rows 51, five 50, six 48), one int64 code per play, -1
in unused slots.
Without those columns nothing is written, so the default records cost nothing more.

Code of a play (:func:`decode_plays` reverses it): bits 0-5 the card, 6-7 the seat's
low two bits and bit 19 its third (seats 4 and 5 of Hearts for 5 or 6), 8-10 the
trick's leader + 1, 11-13 its winner + 1, 14-18 the trick + 1 (each 0 in a Kierki
lottery deal, which has no tricks: docs/rules.md B4).
"""

from __future__ import annotations

import numpy as np

from hsim.engine._numba import kernel
from hsim.engine.kierki import KIND_LOTTERY
from hsim.engine.layout import (
    DEAL_COLS,
    P_KIND,
    P_N_PLAYS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_TRICK_LEADER,
    P_TRICK_WINNER,
    PLAY_SLOTS,
)


@kernel
def write_plays(public, deal_out, row, n) -> None:
    """Write the finished deal's plays into the plays columns of its ``n`` rows
    ``deal_out[row : row + n]``, when ``deal_out`` has them (else do nothing).
    """
    if deal_out.shape[1] < DEAL_COLS + PLAY_SLOTS:
        return
    plays = public[P_N_PLAYS]
    lottery = public[P_KIND] == KIND_LOTTERY
    for r in range(n):
        out = deal_out[row + r]
        for j in range(PLAY_SLOTS):
            i = r * PLAY_SLOTS + j
            if i >= plays:
                out[DEAL_COLS + j] = -1
                continue
            seat = public[P_PLAY_SEAT + i]
            code = public[P_PLAY_CARD + i] | ((seat & 3) << 6) | ((seat >> 2) << 19)
            if not lottery:
                t = i // n
                code |= (public[P_TRICK_LEADER + t] + 1) << 8
                code |= (public[P_TRICK_WINNER + t] + 1) << 11
                code |= (t + 1) << 14
            out[DEAL_COLS + j] = code


def decode_plays(code: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return (card, seat, trick, leader, winner) of play codes (int64 arrays of the
    codes :func:`write_plays` writes), as int8 arrays; trick, leader and winner are -1 in
    a lottery deal.
    """
    code = np.asarray(code, np.int64)
    return (
        (code & 63).astype(np.int8),
        (((code >> 6) & 3) | (((code >> 19) & 1) << 2)).astype(np.int8),
        (((code >> 14) & 31) - 1).astype(np.int8),
        (((code >> 8) & 7) - 1).astype(np.int8),
        (((code >> 11) & 7) - 1).astype(np.int8),
    )
