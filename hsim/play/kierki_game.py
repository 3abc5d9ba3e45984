"""The Kierki game loop (docs/rules.md part B): one state machine for compiled and Python seats.

The same shape as the Hearts loop in :mod:`hsim.play.hearts_game`, over the same state arrays
(:mod:`hsim.engine.layout`) and with the same calling conventions, so the drivers swap
one set of kernels for the other:

- :func:`next_kierki_decision` deals when a deal starts and names the next decision:
  ST_NEED_TRUMP (the chooser of a trump deal, who sees only the first 5, with 3 players
  6, of its cards in dealing order) or ST_NEED_PLAY; a lottery seat without a legal card
  passes and is never asked;
- :func:`submit_trump` and :func:`submit_kierki_play` validate an answer and move on,
  scoring a finished deal and writing its rows;
- :func:`kierki_legal` gives the legal cards of the seat to act;
- :func:`play_kierki_games` drives that loop in compiled code.

What the two games share and what they do not: the state arrays and their layout, the
deal, trick and row kernels (:mod:`hsim.engine.common`), the calls into seats
(:mod:`hsim.play.seats`) and the loop's signature
(:func:`hsim.engine.signatures.loop_signature`) are one code. The driver loop
(:func:`play_kierki_games`, ~40 lines) and :func:`next_kierki_decision` stay written
twice: numba compiles one machine-code loop per game whatever the source (the Hearts loop
is typed with pass, play and moon function tuples, this one with play and trump tuples,
and a first-class function type fixes its tuple's type at compile time), so one source
would still be compiled twice, through :func:`hsim.engine._numba.with_globals` as
:func:`hsim.play.hearts_game.play_games_with` does, for about 25 shared lines, and would
put a Hearts-only pass and moon branch into every Kierki loop.

Dealing: the deck (52 cards; 3 players: no 2C) is shuffled from the deal stream and dealt
one card at a time clockwise, starting left of the dealer; a seat's dealing order is the
order it received its cards.
"""

from __future__ import annotations

from numba import njit, types

from hsim.engine._numba import kernel
from hsim.engine.common import (
    add_to_trick,
    close_trick,
    give_hand,
    record_play,
    reset_deal,
    shuffle_deck,
    trick_taker,
    write_game_rows,
    write_seat_row,
)
from hsim.engine.kierki import (
    KIND_LOTTERY,
    KIND_TRUMP,
    deal_kind,
    dealer_of,
    deck_mask,
    hand_size,
    leader_of,
    legal_plays,
    lottery_legal,
    lottery_place_score,
    n_deals,
    penalties_exhausted,
    trick_points,
    trump_chooser_of,
    trump_preview_size,
)
from hsim.engine.layout import (
    D_DEALER,
    D_KIND,
    D_LOTTERY_PLACE,
    D_TRUMP,
    D_TRUMP_CHOOSER,
    ENDED_ALL_DEALS,
    H_DEAL_ROWS,
    H_DECIDER,
    H_DECK,
    H_GAME_ROWS,
    H_PHASE,
    H_TRUMP_CHOICE,
    MAX_SEATS,
    P_DEAL,
    P_DEALER,
    P_KIND,
    P_LEADER,
    P_LED_SUIT,
    P_N_SEATS,
    P_OUT,
    P_PASS_DIR,
    P_PLAYED,
    P_POINTS,
    P_SCORES,
    P_START_RANK,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEADER,
    P_TRUMP,
    P_TRUMP_CHOOSER,
    PH_DEAL_START,
    PH_GAME_OVER,
    PH_PLAY,
    PH_TRUMP,
    R_ALLOW_NO_TRUMP,
    R_HEART_LEAD_BAN,
    R_KING_OF_HEARTS_FIRST_CHANCE,
    R_LOTTERY_LEADER,
    R_MUST_TRUMP,
    R_PLAYERS,
    R_POINT_TABLE,
    R_PRICED_TRICK,
    R_REBEL,
    R_STOP_WHEN_NO_PENALTIES,
    R_TRUMP_CHOOSER,
    R_TRUMP_TRICK_VALUE,
    ST_ERR_ILLEGAL,
    ST_ERR_NOT_HELD,
    ST_ERR_TRUMP,
    ST_GAME_OVER,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
    ST_OK,
    TRUMP_NONE,
    V_DEALT,
    V_HAND,
)
from hsim.engine.plays import write_plays
from hsim.engine.signatures import PLAY_FN, TRUMP_FN, loop_signature
from hsim.play.hearts_game import _fail, new_game
from hsim.play.seats import call_play, call_trump


@kernel
def new_kierki_game(public, private, hidden, rngs, rules, run_seed, game) -> None:
    """Reset the state arrays for Kierki game ``game`` of run ``run_seed`` (uint64).

    As :func:`hsim.play.hearts_game.new_game` (same streams), with ``public[P_N_SEATS]`` the
    rules' player count (3 or 4).
    """
    new_game(public, private, hidden, rngs, rules, run_seed, game)
    public[P_N_SEATS] = rules[R_PLAYERS]


@kernel
def seat_card(hidden, n: int, dealer: int, seat: int, j: int) -> int:
    """Return the ``j``-th card (0-based, dealing order) dealt to ``seat`` (B1)."""
    return hidden[H_DECK + j * n + (seat - dealer - 1) % n]


@kernel
def dealt_hand(hidden, n: int, dealer: int, seat: int, count: int) -> int:
    """Return the mask of the first ``count`` cards dealt to ``seat``."""
    hand = 0
    for j in range(count):
        hand |= 1 << seat_card(hidden, n, dealer, seat, j)
    return hand


@kernel
def begin_kierki_deal(public, private, hidden, rngs, rules) -> None:
    """Shuffle and deal deal ``public[P_DEAL]`` (B1) and enter its trump choice or play.

    In a trump deal the chooser's hand holds only its first ``trump_preview_size`` cards
    until :func:`submit_trump` (B3).
    """
    n = public[P_N_SEATS]
    k = public[P_DEAL]
    kind = deal_kind(k, n, rules[R_REBEL])
    dealer = dealer_of(k, n)
    shuffle_deck(hidden, deck_mask(n), rngs[0])
    cards = hand_size(n)
    for s in range(n):
        give_hand(private, s, dealt_hand(hidden, n, dealer, s, cards))
        public[P_OUT + s] = 0
    leader = leader_of(k, n, kind, rules[R_LOTTERY_LEADER])
    reset_deal(public, n, leader)
    public[P_KIND] = kind
    public[P_DEALER] = dealer
    public[P_PASS_DIR] = -1
    public[P_TRUMP] = -1
    public[P_TRUMP_CHOOSER] = -1
    public[P_START_RANK] = -1
    if kind == KIND_LOTTERY:
        public[P_TRICK_LEADER] = -1  # the lottery has no tricks
    hidden[H_TRUMP_CHOICE] = -1
    if kind == KIND_TRUMP:
        chooser = trump_chooser_of(k, n, rules[R_TRUMP_CHOOSER])
        public[P_TRUMP_CHOOSER] = chooser
        preview = dealt_hand(hidden, n, dealer, chooser, trump_preview_size(n))
        private[chooser, V_HAND] = preview
        private[chooser, V_DEALT] = preview
        hidden[H_PHASE] = PH_TRUMP
    else:
        hidden[H_PHASE] = PH_PLAY


@kernel
def submit_trump(public, private, hidden, rules, choice, deal_out, game_out) -> int:
    """Apply the chooser's trump choice; ST_OK or ST_ERR_TRUMP (B3).

    choice: a suit 0..3 (clubs, diamonds, spades, hearts), or TRUMP_NONE (4) with
    ``allow_no_trump``. The rest of the chooser's hand is dealt and play starts.
    ``deal_out`` and ``game_out`` are unused (the signature matches ``submit_play``).
    """
    top = TRUMP_NONE if rules[R_ALLOW_NO_TRUMP] else TRUMP_NONE - 1
    if choice < 0 or choice > top:
        return _fail(hidden, ST_ERR_TRUMP, choice)
    hidden[H_TRUMP_CHOICE] = choice
    public[P_TRUMP] = choice if choice < TRUMP_NONE else -1
    n = public[P_N_SEATS]
    s = public[P_TRUMP_CHOOSER]
    hand = dealt_hand(hidden, n, public[P_DEALER], s, hand_size(n))
    private[s, V_HAND] = hand
    private[s, V_DEALT] = hand
    public[P_TO_ACT] = public[P_LEADER]
    hidden[H_PHASE] = PH_PLAY
    return ST_OK


@kernel
def kierki_legal(public, rules, hand: int) -> int:
    """Return the mask of the cards of ``hand`` the seat to act may play now (B2-B4).

    Empty only in the lottery, for a seat that must pass (or holds no cards).
    """
    kind = public[P_KIND]
    if kind == KIND_LOTTERY:
        return lottery_legal(hand, public[P_PLAYED], public[P_START_RANK], public[P_N_SEATS])
    return legal_plays(
        kind,
        hand,
        public[P_LED_SUIT],
        public[P_TRICK_CARDS],
        public[P_TRUMP],
        rules[R_MUST_TRUMP],
        rules[R_KING_OF_HEARTS_FIRST_CHANCE],
        rules[R_HEART_LEAD_BAN],
    )


@kernel
def play_trick_card(public, private, rules, seat: int, c: int) -> bool:
    """Play ``c`` to the current trick; at a complete trick score it; True when the deal ends.

    The trick goes to the highest trump, else the highest card of the led suit (B2, B3);
    its taker gets :func:`hsim.engine.kierki.trick_points`. The deal ends after the last
    trick, or early in deals 2-5 with ``stop_when_no_penalties`` once every penalty card
    has been taken (B2).
    """
    n = public[P_N_SEATS]
    record_play(public, private, seat, c, c // 13 == 3)  # any heart breaks hearts (B2)
    if not add_to_trick(public, n, seat, c):
        return False
    winner = trick_taker(public, n, public[P_TRUMP])
    kind = public[P_KIND]
    cards = public[P_TRICK_CARDS]
    points = trick_points(
        kind,
        n,
        cards,
        public[P_TRICK],
        rules[R_TRUMP_TRICK_VALUE],
        rules[R_POINT_TABLE],
        rules[R_PRICED_TRICK],
    )
    t = close_trick(public, winner, points)
    if t + 1 == hand_size(n):
        return True
    if rules[R_STOP_WHEN_NO_PENALTIES] and penalties_exhausted(kind, public[P_PLAYED]):
        return True
    public[P_TRICK_LEADER + t + 1] = winner
    return False


@kernel
def play_lottery_card(public, private, rules, seat: int, c: int) -> bool:
    """Put ``c`` on the lottery table; True when the second seat goes out (B4).

    A seat that plays its last card goes out and scores its place; the turn then passes
    clockwise to the next seat still in that has a legal card (the others pass).
    """
    n = public[P_N_SEATS]
    record_play(public, private, seat, c, c // 13 == 3)
    if public[P_START_RANK] < 0:
        public[P_START_RANK] = c % 13
    if private[seat, V_HAND] == 0:
        place = 0
        for s in range(n):
            place += public[P_OUT + s] > 0
        public[P_OUT + seat] = place + 1
        public[P_POINTS + seat] = lottery_place_score(place, n, rules[R_POINT_TABLE])
        if place == 1:
            return True
    for step in range(1, n + 1):
        s = (seat + step) % n
        if public[P_OUT + s] == 0 and kierki_legal(public, rules, private[s, V_HAND]):
            public[P_TO_ACT] = s
            return False
    return True  # unreachable while two seats hold cards: some card always fits (B4)


@kernel
def write_kierki_rows(public, private, hidden, deal_out) -> None:
    """Append one deal row per seat (columns D_*) with the deal's signed points and the
    updated game scores (B2-B5); also adds the points to ``public[P_SCORES]``.
    """
    n = public[P_N_SEATS]
    row = hidden[H_DEAL_ROWS]
    for s in range(n):
        r = deal_out[row + s]
        points = public[P_POINTS + s]
        public[P_SCORES + s] += points
        write_seat_row(r, public, private, hidden, s, points, public[P_SCORES + s], 0, 0)
        r[D_KIND] = public[P_KIND]
        r[D_DEALER] = public[P_DEALER]
        r[D_TRUMP] = hidden[H_TRUMP_CHOICE]
        r[D_TRUMP_CHOOSER] = public[P_TRUMP_CHOOSER]
        r[D_LOTTERY_PLACE] = public[P_OUT + s]
    write_plays(public, deal_out, row, n)  # with --record plays only
    hidden[H_DEAL_ROWS] = row + n


@kernel
def finish_kierki_deal(public, private, hidden, rules, deal_out, game_out) -> None:
    """Record the finished deal; end the game after its last deal (B1, B5)."""
    write_kierki_rows(public, private, hidden, deal_out)
    n = public[P_N_SEATS]
    deals = public[P_DEAL] + 1
    if deals == n_deals(n, rules[R_REBEL]):
        scores = public[P_SCORES : P_SCORES + n]
        write_game_rows(hidden, game_out, scores, n, deals, ENDED_ALL_DEALS, 0, True)
        hidden[H_PHASE] = PH_GAME_OVER
    else:
        public[P_DEAL] += 1
        hidden[H_PHASE] = PH_DEAL_START


@kernel
def submit_kierki_play(public, private, hidden, rules, card, deal_out, game_out) -> int:
    """Play ``card`` for the seat to act; ST_OK, ST_ERR_NOT_HELD or ST_ERR_ILLEGAL.

    A finished deal is scored and recorded (rows appended to ``deal_out`` and, after the
    last deal, ``game_out``).
    """
    legal = kierki_legal(public, rules, private[public[P_TO_ACT], V_HAND])
    return submit_kierki_legal_play(public, private, hidden, rules, card, legal, deal_out, game_out)


@kernel
def submit_kierki_legal_play(public, private, hidden, rules, card, legal, deal_out, game_out):
    """:func:`submit_kierki_play` given ``legal``, the mask :func:`kierki_legal` gives for
    the hand of the seat to act now (the compiled loop has it already), so that it is not
    worked out twice per card. Returns ST_OK, ST_ERR_NOT_HELD or ST_ERR_ILLEGAL.
    """
    s = public[P_TO_ACT]
    if card < 0 or card > 51 or not (private[s, V_HAND] >> card) & 1:
        return _fail(hidden, ST_ERR_NOT_HELD, card)
    if not (legal >> card) & 1:
        return _fail(hidden, ST_ERR_ILLEGAL, card)
    if public[P_KIND] == KIND_LOTTERY:
        over = play_lottery_card(public, private, rules, s, card)
    else:
        over = play_trick_card(public, private, rules, s, card)
    if over:
        finish_kierki_deal(public, private, hidden, rules, deal_out, game_out)
    return ST_OK


@kernel
def next_kierki_decision(public, private, hidden, rngs, rules) -> int:
    """Move the game on to its next decision and say whose and which it is.

    Deals when a deal starts. Returns ST_NEED_TRUMP or ST_NEED_PLAY with the deciding
    seat in ``hidden[H_DECIDER]`` (and ``public[P_TO_ACT]``), or ST_GAME_OVER.
    """
    if hidden[H_PHASE] == PH_DEAL_START:
        begin_kierki_deal(public, private, hidden, rngs, rules)
    phase = hidden[H_PHASE]
    if phase == PH_TRUMP:
        s = public[P_TRUMP_CHOOSER]
        public[P_TO_ACT] = s
        st = ST_NEED_TRUMP
    elif phase == PH_PLAY:
        s = public[P_TO_ACT]
        st = ST_NEED_PLAY
    else:
        return ST_GAME_OVER
    hidden[H_DECIDER] = s
    return st


PLAY_KIERKI_SIG = loop_signature(
    types.UniTuple(PLAY_FN, MAX_SEATS), types.UniTuple(TRUMP_FN, MAX_SEATS)
)


@njit(PLAY_KIERKI_SIG, cache=True, _nrt=False)
def play_kierki_games(
    run_seed,
    first_game,
    n_games,
    rules,
    codes,
    play_fns,
    trump_fns,
    params,
    public,
    private,
    hidden,
    rngs,
    deal_out,
    game_out,
):
    """Play Kierki games ``first_game ..`` with compiled seats; return how many completed.

    codes: int64[4, N_CODES], how each seat's decisions are called
    (:func:`hsim.play.seats.seat_codes`): a built-in directly, else its function in
    ``play_fns`` or ``trump_fns`` (one per seat; with 3 players the fourth is never
    called). Stops early, between games, when ``deal_out`` or ``game_out`` could not
    hold another game, or on an error (``hidden[H_ERROR_CODE]`` set, the failing game in
    ``hidden[H_GAME]`` and seat in ``hidden[H_DECIDER]``).
    """
    n = rules[R_PLAYERS]
    need = n * n_deals(n, rules[R_REBEL])
    done = 0
    while done < n_games:
        if deal_out.shape[0] - hidden[H_DEAL_ROWS] < need:
            break
        if game_out.shape[0] - hidden[H_GAME_ROWS] < n:
            break
        new_kierki_game(public, private, hidden, rngs, rules, run_seed, first_game + done)
        st = next_kierki_decision(public, private, hidden, rngs, rules)
        while st != ST_GAME_OVER:
            s = hidden[H_DECIDER]
            if st == ST_NEED_PLAY:
                legal = kierki_legal(public, rules, private[s, V_HAND])
                card = call_play(
                    codes[s], play_fns, s, public, private[s], legal, rngs[1 + s], params[s]
                )
                st = submit_kierki_legal_play(
                    public, private, hidden, rules, card, legal, deal_out, game_out
                )
            else:
                choice = call_trump(
                    codes[s], trump_fns, s, public, private[s], rngs[1 + s], params[s]
                )
                st = submit_trump(public, private, hidden, rules, choice, deal_out, game_out)
            if st != ST_OK:
                return done
            st = next_kierki_decision(public, private, hidden, rngs, rules)
        done += 1
    return done
