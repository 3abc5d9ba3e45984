"""Kernels Hearts and Kierki share: shuffling, playing to a trick and closing it, writing
the deal and game rows.

Each game keeps only what its rules make different: Hearts deals 13 cards in a block to
each seat (docs/rules.md A1.1), Kierki one at a time from the dealer's left (B1); a
Hearts trick has no trump and scores penalty points (A1.4, A1.8), a Kierki trick
scores by the deal kind (B2, B3); who breaks hearts (A1.6), and how a game is won
(lowest score in Hearts, A3; highest in Kierki, B5). State arrays as in
:mod:`hsim.engine.layout`.
"""

from __future__ import annotations

import numpy as np

from hsim.engine._numba import kernel
from hsim.engine.bits import highest_card, lowest_card, popcount, suit_bits
from hsim.engine.layout import (
    D_AFTER_END,
    D_DEAL,
    D_DEAL_SCORE,
    D_GAME,
    D_HAND,
    D_HEARTS,
    D_JACK_DIAMONDS,
    D_MOON,
    D_MOON_CHOICE,
    D_PASS_DIR,
    D_PASSED,
    D_POINTS,
    D_QUEEN_SPADES,
    D_RECEIVED,
    D_SCORE,
    D_SEAT,
    D_TAKEN,
    D_TRICKS,
    G_DEALS,
    G_ENDED_BY,
    G_GAME,
    G_PLACE,
    G_SCORE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
    H_DECK,
    H_DRAWS,
    H_GAME,
    H_GAME_ROWS,
    MAX_TRICKS,
    P_DEAL,
    P_HEARTS_BROKEN,
    P_LEADER,
    P_LED_SUIT,
    P_N_PLAYS,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_TAKEN,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEADER,
    P_TRICK_LEN,
    P_TRICK_WINNER,
    P_TRICKS_WON,
    P_VOIDS,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
)
from hsim.engine.rng import GOLDEN, mix64, scaled
from hsim.model.cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES

# --- dealing -------------------------------------------------------------------------


@kernel
def shuffle_deck(hidden, cards: int, deal_rng) -> int:
    """Shuffle the cards of mask ``cards`` into ``hidden[H_DECK:]``; return how many.

    The cards go in in increasing order, then a Fisher-Yates shuffle from the last
    position down draws from stream ``deal_rng`` (uint64[1]) (docs/rules.md A1.1, B1):
    position i swaps with a position drawn below i + 1 (:func:`hsim.engine.rng.below`). The
    draws are worked out first, into ``hidden[H_DRAWS:]``, and leave the stream where
    drawing them one by one would.
    """
    deck = hidden[H_DECK : H_DECK + 52]
    size = 0
    while cards:
        deck[size] = lowest_card(cards)
        cards &= cards - 1
        size += 1
    # The draws do not depend on the deck: all of them first (a loop the compiler runs
    # several draws at a time), then the swaps. Draw k is the stream's (k + 1)-th number
    # below size - k, as drawing them one by one between the swaps would give.
    draws = hidden[H_DRAWS : H_DRAWS + 52]
    z = deal_rng[0]
    for k in range(size - 1):
        draws[k] = scaled(mix64(z + np.uint64(k + 1) * GOLDEN), size - k)
    if size > 1:
        deal_rng[0] = z + np.uint64(size - 1) * GOLDEN
    for k in range(size - 1):
        i = size - 1 - k
        j = draws[k]
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return size


@kernel
def give_hand(private, seat: int, hand: int) -> None:
    """Give ``seat`` the dealt ``hand`` (mask): held and as dealt; nothing passed yet."""
    private[seat, V_HAND] = hand
    private[seat, V_DEALT] = hand
    private[seat, V_PASSED] = 0
    private[seat, V_RECEIVED] = 0


@kernel
def reset_deal(public, n: int, leader: int) -> None:
    """Reset the per-deal public facts of ``n`` seats (points, tricks, voids, taken cards,
    the trick state, the play history) and give the first lead to ``leader``.
    """
    for s in range(n):
        public[P_POINTS + s] = 0
        public[P_TRICKS_WON + s] = 0
        public[P_VOIDS + s] = 0
        public[P_TAKEN + s] = 0
    public[P_TRICK] = 0
    public[P_LEADER] = leader
    public[P_TO_ACT] = leader
    public[P_TRICK_LEN] = 0
    public[P_HEARTS_BROKEN] = 0
    public[P_PLAYED] = 0
    public[P_TRICK_CARDS] = 0
    public[P_LED_SUIT] = -1
    public[P_N_PLAYS] = 0
    for t in range(MAX_TRICKS):
        public[P_TRICK_LEADER + t] = -1
        public[P_TRICK_WINNER + t] = -1
    public[P_TRICK_LEADER] = leader


# --- play ----------------------------------------------------------------------------


@kernel
def record_play(public, private, seat: int, c: int, breaks: bool) -> None:
    """Take card ``c`` from ``seat``'s hand and add it to the deal's play history and the
    cards played; hearts are broken from now on when ``breaks`` (the game's rule, A1.6).
    """
    bit = 1 << c
    private[seat, V_HAND] &= ~bit
    n = public[P_N_PLAYS]
    public[P_PLAY_CARD + n] = c
    public[P_PLAY_SEAT + n] = seat
    public[P_N_PLAYS] = n + 1
    public[P_PLAYED] |= bit
    if breaks:
        public[P_HEARTS_BROKEN] = 1


@kernel
def add_to_trick(public, n: int, seat: int, c: int) -> bool:
    """Put ``c`` (just recorded) into the current trick of ``n`` seats; True once it holds
    ``n`` cards, else the turn passes clockwise.

    The first card sets the led suit; a card of another suit shows ``seat`` void in it.
    """
    public[P_TRICK_CARDS] |= 1 << c
    suit = c // 13
    if public[P_TRICK_LEN] == 0:
        public[P_LED_SUIT] = suit
    elif suit != public[P_LED_SUIT]:
        public[P_VOIDS + seat] |= 1 << public[P_LED_SUIT]
    public[P_TRICK_LEN] += 1
    if public[P_TRICK_LEN] < n:
        nxt = seat + 1  # (seat + 1) % n without a division: n is known only at run time
        public[P_TO_ACT] = nxt if nxt < n else 0
        return False
    return True


@kernel
def trick_winner(cards, n_cards: int, trump: int) -> int:
    """Return the position (0 = the leader's card) of the winning card of a trick.

    ``cards``: int64 array of the cards in play order, first ``n_cards`` used. The highest
    trump wins if ``trump`` >= 0 and one was played, else the highest card of the led
    suit (A1.4, B2, B3).
    """
    best = 0
    best_suit = cards[0] // 13
    best_rank = cards[0] % 13
    for i in range(1, n_cards):
        s = cards[i] // 13
        r = cards[i] % 13
        if s == best_suit:
            if r > best_rank:
                best = i
                best_rank = r
        elif s == trump:
            best = i
            best_suit = s
            best_rank = r
    return best


@kernel
def trick_taker(public, n: int, trump: int) -> int:
    """Return the seat that wins the complete trick of ``n`` cards just played: the one
    that played its highest trump (``trump`` 0..3, if any was played), else its highest
    card of the led suit (A1.4, B2, B3). The same answer as :func:`trick_winner`, read
    from the trick's mask (one ``lzcnt``, no division per card).
    """
    cards = public[P_TRICK_CARDS]
    wanted = cards & suit_bits(trump) if 0 <= trump < 4 else 0
    if wanted == 0:
        wanted = cards & suit_bits(public[P_LED_SUIT])
    best = highest_card(wanted)
    first = public[P_N_PLAYS] - n
    for i in range(n):
        if public[P_PLAY_CARD + first + i] == best:
            return public[P_PLAY_SEAT + first + i]
    return -1  # unreachable: the best card is one of the trick's


@kernel
def close_trick(public, winner: int, points: int) -> int:
    """Give the complete current trick to ``winner`` with ``points``; return its index.

    Records the winner, adds the points, the trick and its cards to the winner's, and
    starts the next trick with the winner to lead. The caller sets the next trick's
    leader in ``P_TRICK_LEADER`` when the deal goes on.
    """
    cards = public[P_TRICK_CARDS]
    t = public[P_TRICK]
    public[P_TRICK_WINNER + t] = winner
    public[P_POINTS + winner] += points
    public[P_TRICKS_WON + winner] += 1
    public[P_TAKEN + winner] |= cards
    public[P_TRICK] = t + 1
    public[P_TRICK_LEN] = 0
    public[P_TRICK_CARDS] = 0
    public[P_LED_SUIT] = -1
    public[P_LEADER] = winner
    public[P_TO_ACT] = winner
    return t


# --- records -------------------------------------------------------------------------


@kernel
def write_seat_row(r, public, private, hidden, s, deal_score, score, moon, after_end) -> None:
    """Write the columns both games fill of seat ``s``'s deal row ``r`` (D_GAME ..
    D_TAKEN): the deal, the hand as dealt, the passes, what it took, its points, the
    deal score and game score given. moon: the moon outcome (1 add, 2 subtract) when
    ``s`` shot the moon, else 0. after_end: 1 for a deal played after the base game ended.
    """
    taken = public[P_TAKEN + s]
    r[D_GAME] = hidden[H_GAME]
    r[D_DEAL] = public[P_DEAL]
    r[D_SEAT] = s
    r[D_PASS_DIR] = public[P_PASS_DIR]
    r[D_HAND] = private[s, V_DEALT]
    r[D_PASSED] = private[s, V_PASSED]
    r[D_RECEIVED] = private[s, V_RECEIVED]
    r[D_HEARTS] = popcount(taken & HEARTS_MASK)
    r[D_QUEEN_SPADES] = (taken >> QUEEN_SPADES) & 1
    r[D_JACK_DIAMONDS] = (taken >> JACK_DIAMONDS) & 1
    r[D_TRICKS] = public[P_TRICKS_WON + s]
    r[D_POINTS] = public[P_POINTS + s]
    r[D_MOON] = 1 if moon else 0
    r[D_MOON_CHOICE] = moon
    r[D_DEAL_SCORE] = deal_score
    r[D_SCORE] = score
    r[D_AFTER_END] = after_end
    r[D_TAKEN] = taken


@kernel
def write_game_rows(hidden, game_out, scores, n, deals, ended_by, scoring, high_wins) -> None:
    """Append one game row per seat to ``game_out`` (columns G_* of the layout).

    scores: int64[n], the final game scores. The lowest score wins (Hearts, A3), or the
    highest with ``high_wins`` (Kierki, B5); ties are co-winners, and a seat's place is
    1 + the number of seats that did strictly better.
    """
    row = hidden[H_GAME_ROWS]
    best = scores[0]
    for s in range(1, n):
        best = max(best, scores[s]) if high_wins else min(best, scores[s])
    for s in range(n):
        place = 1
        for o in range(n):
            place += scores[o] > scores[s] if high_wins else scores[o] < scores[s]
        g = game_out[row + s]
        g[G_GAME] = hidden[H_GAME]
        g[G_SEAT] = s
        g[G_SCORE] = scores[s]
        g[G_PLACE] = place
        g[G_WINNER] = 1 if scores[s] == best else 0
        g[G_DEALS] = deals
        g[G_ENDED_BY] = ended_by
        g[G_SCORING] = scoring
    hidden[H_GAME_ROWS] = row + n
