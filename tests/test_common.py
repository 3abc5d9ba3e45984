"""The kernels Hearts and Kierki share (hsim.engine.common): the shuffle and the game rows.

Playing to a trick and writing the deal rows are covered whole by the games' own tests
and the record digests (tests/test_record_digest.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hsim.engine.common import shuffle_deck, trick_taker, trick_winner, write_game_rows
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
    P_LED_SUIT,
    P_N_PLAYS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_TRICK_CARDS,
    PUBLIC_LEN,
)
from hsim.engine.rng import below
from hsim.model.cards import FULL_DECK, TWO_CLUBS


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


def _shuffled_one_by_one(cards: int, state: int) -> tuple[list[int], int]:
    """The Fisher-Yates shuffle drawn one number at a time between the swaps."""
    deck = [c for c in range(52) if cards >> c & 1]
    rng = np.array([state], np.uint64)
    for i in range(len(deck) - 1, 0, -1):
        j = below(rng, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck, int(rng[0])


@settings(max_examples=60, deadline=None)
@given(
    cards=st.one_of(st.just(FULL_DECK), st.integers(0, FULL_DECK)),
    state=st.integers(0, 2**64 - 1),
)
def test_the_shuffle_draws_as_one_draw_between_each_swap_would(cards, state):
    # shuffle_deck works all its draws out before swapping: the same deck, and the
    # stream left where drawing them one by one leaves it (0 and 1 cards draw nothing).
    hidden = np.zeros(HIDDEN_LEN, np.int64)
    rng = np.array([state], np.uint64)
    size = shuffle_deck(hidden, cards, rng)
    deck, after = _shuffled_one_by_one(cards, state)
    assert hidden[H_DECK : H_DECK + size].tolist() == deck
    assert int(rng[0]) == after


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


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.integers(0, 51), min_size=3, max_size=4, unique=True),
    trump=st.integers(-1, 4),
    first_seat=st.integers(0, 3),
    earlier=st.integers(0, 48),
)
def test_the_trick_taker_read_from_the_mask_is_the_trick_winner(cards, trump, first_seat, earlier):
    """trick_taker (mask, lzcnt) and trick_winner (card by card) agree on every trick:
    trump or not (-1 none, 4 Kierki's no trump), 3 or 4 cards, after any earlier plays."""
    n = len(cards)
    public = np.zeros(PUBLIC_LEN, np.int64)
    public[P_N_PLAYS] = earlier + n
    for i, c in enumerate(cards):
        public[P_PLAY_CARD + earlier + i] = c
        public[P_PLAY_SEAT + earlier + i] = (first_seat + i) % n
        public[P_TRICK_CARDS] |= 1 << c
    public[P_LED_SUIT] = cards[0] // 13
    best = trick_winner(np.array(cards, np.int64), n, trump if trump < 4 else -1)
    assert trick_taker(public, n, trump) == (first_seat + best) % n
