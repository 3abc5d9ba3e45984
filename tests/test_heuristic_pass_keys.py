"""heuristic's pass in closed form (``suit_pass_key``) against its definition (``pass_key``:
the loop over the candidates and ``pass_danger``), on every holding of every suit."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from hsim.model.cards import SUIT_MASK
from hsim.strategies import heuristic as h

#: qs_guard values: every whole number the parameter allows and fractions between them
#: (its comparison is against a count of low spades)
GUARDS = np.array([0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.5, 7.0, 9.0, 10.0, 11.0, 13.0])


@njit
def _mismatches(suit: int, omnibus: bool, guards) -> np.ndarray:
    """Return the holdings (ranks, 0..8191) of ``suit`` where the keys differ, as
    (holding, guard index) rows; the holding also stands alone in a hand of other cards."""
    found = []
    others = h.ALL_CARDS & ~(SUIT_MASK << (13 * suit))
    for m in range(SUIT_MASK + 1):
        for k in range(guards.shape[0]):
            for extra in (0, others & 0x5555555555555, others):
                keep = (m << (13 * suit)) | extra
                fast = h.suit_pass_key(keep, suit, omnibus, guards[k])
                if fast != h.pass_key(keep, suit, omnibus, guards[k]):
                    found.append((m, k))
    out = np.empty((len(found), 2), np.int64)
    for i in range(len(found)):
        out[i, 0], out[i, 1] = found[i]
    return out


@pytest.mark.parametrize("omnibus", [False, True])
@pytest.mark.parametrize("suit", [0, 1, 2, 3])
def test_closed_form_keys_equal_the_definition(suit, omnibus):
    bad = _mismatches(suit, omnibus, GUARDS)
    assert bad.shape[0] == 0, [(hex(m), GUARDS[k]) for m, k in bad[:5]]


def test_an_empty_suit_has_no_key():
    for suit in range(4):
        assert h.suit_pass_key(0, suit, True, 2.0) == h.NO_KEY


def test_keys_rank_the_unguarded_queen_first():
    # QS with one low spade (qs_guard 2): the most dangerous card of the spades
    spades = (1 << h.QUEEN) | 1
    key = h.suit_pass_key(spades << 26, 2, False, 2.0)
    assert 63 - (key & 63) == h.QUEEN_SPADES
    assert key >> 6 == 100
