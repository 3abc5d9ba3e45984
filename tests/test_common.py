"""The kernels Hearts and Kierki share (hsim.engine.common): the shuffle and the game rows.

Playing to a trick and writing the deal rows are covered whole by the games' own tests
and the record digests (tests/test_record_digest.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from hsim.cards import FULL_DECK, TWO_CLUBS
from hsim.engine.common import shuffle_deck, write_game_rows
from hsim.engine.layout import (
    G_DEALS,
    G_ENDED_BY,
    G_PLACE,
    G_SCORE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
    GAME_COLS,
    H_DECK,
    H_GAME_ROWS,
    HIDDEN_LEN,
)


@pytest.mark.parametrize("cards", [FULL_DECK, FULL_DECK & ~(1 << TWO_CLUBS), 0b1011])
def test_the_shuffle_is_a_permutation_of_the_cards_drawn_from_the_stream(cards):
    decks = []
    for _ in range(2):
        hidden = np.full(HIDDEN_LEN, -7, np.int64)
        rng = np.array([12345], np.uint64)
        size = shuffle_deck(hidden, cards, rng)
        deck = hidden[H_DECK : H_DECK + size]
        assert size == bin(cards).count("1")
        assert sorted(deck.tolist()) == [c for c in range(52) if cards >> c & 1]
        assert (hidden[H_DECK + size : H_DECK + 52] == -7).all()  # nothing past the deck
        assert rng[0] != 12345 or size < 2  # drew from the stream
        decks.append(deck.tolist())
    assert decks[0] == decks[1]  # the same stream, the same deal
    if cards == FULL_DECK:
        assert decks[0] != list(range(52))


@pytest.mark.parametrize(
    ("high_wins", "places", "winners"),
    [(False, [3, 1, 4, 1], [0, 1, 0, 1]), (True, [2, 3, 1, 3], [0, 0, 1, 0])],
)
def test_game_rows_place_and_win_by_the_game(high_wins, places, winners):
    hidden = np.zeros(HIDDEN_LEN, np.int64)
    hidden[H_GAME_ROWS] = 1  # rows are appended after those already written
    game_out = np.zeros((6, GAME_COLS), np.int64)
    scores = np.array([50, 40, 90, 40], np.int64)
    write_game_rows(hidden, game_out, scores, 4, 7, 1, 2, high_wins)
    rows = game_out[1:5]
    assert hidden[H_GAME_ROWS] == 5
    assert rows[:, G_SEAT].tolist() == [0, 1, 2, 3]
    assert rows[:, G_SCORE].tolist() == scores.tolist()
    assert rows[:, G_PLACE].tolist() == places
    assert rows[:, G_WINNER].tolist() == winners
    assert (rows[:, G_DEALS] == 7).all() and (rows[:, G_ENDED_BY] == 1).all()
    assert (rows[:, G_SCORING] == 2).all()
    assert not game_out[0].any() and not game_out[5].any()
