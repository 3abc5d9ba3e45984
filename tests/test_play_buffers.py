"""The rows play_range hands out: views of its buffers or copies, never rows a later call
overwrites, and the same records either way (hsim.play.games)."""

from __future__ import annotations

import numpy as np
import pytest

from hsim.model.rules import make_rules
from hsim.play.games import _as_views, play_range
from hsim.strategy.loader import load_players


@pytest.mark.parametrize(("preset", "n"), [("classic", 4), ("kierki4", 4), ("kierki3", 3)])
def test_a_later_call_leaves_the_rows_handed_out_as_they_were(preset, n):
    rules = make_rules(preset)
    players = load_players(["random"] * n, rules)
    # 40 Hearts games fill more than half of their buffer: handed out as views of it.
    first = play_range(rules, players, 5, 0, 40)
    kept = [rows.copy() for rows in first]
    second = play_range(rules, players, 5, 40, 80)
    for rows, copy, later in zip(first, kept, second, strict=True):
        assert not np.shares_memory(rows, later)
        assert np.array_equal(rows, copy)
    # The same games in one call: the same records, whichever way they were handed out.
    whole = play_range(rules, players, 5, 0, 80)
    for part_a, part_b, rows in zip(first, second, whole, strict=True):
        assert np.array_equal(np.concatenate([part_a, part_b]), rows)


def test_kept_buffers_give_the_same_records_as_a_buffer_of_its_own():
    rules = make_rules("classic")
    players = load_players(["random"] * 4, rules)
    own = play_range(rules, players, 9, 3, 30)
    kept = play_range(rules, players, 9, 3, 30, reuse=True)
    for a, b in zip(own, kept, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize(
    ("reuse", "last", "earlier", "used", "size", "views"),
    [
        (False, False, False, 90, 100, False),  # more games go into the buffer: copy
        (False, True, False, 50, 100, True),  # half of its own buffer: handed out
        (False, True, True, 90, 100, True),  # joined to earlier parts anyway (a copy)
        (False, True, False, 49, 100, False),  # less than half: copied, the rest freed
        (True, True, False, 10, 100, True),  # kept buffers: valid until the next call
        (True, True, True, 90, 100, False),  # kept buffers with earlier parts: copied
        (True, False, False, 90, 100, False),
    ],
)
def test_rows_are_views_only_of_a_buffer_nothing_writes_again(
    reuse, last, earlier, used, size, views
):
    assert _as_views(reuse, last, earlier, used, size) is views
