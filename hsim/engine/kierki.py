"""Kierki rule kernels (docs/rules.md part B): deals, legal plays, trick winners, points.

Design notes
- Cards are ints ``suit * 13 + rank`` (suits C, D, S, H; ranks 2..A = 0..12), sets of
  cards 52-bit masks in int64 (see :mod:`hsim.model.cards`), as in :mod:`hsim.engine.hearts`.
- Deals are numbered from 0 (``k``); seats 0..n-1 with n = 3 or 4 players; "left" is
  seat + 1 (clockwise).
- These are pure kernels without state arrays: each takes plain ints (and, for a trick
  in order, an int64 array). Options are passed as ints (0 off, 1 on, or the option's
  code given below); :mod:`hsim.play.kierki_game` reads them from the rules vector and
  drives a game over the shared state arrays.
- Points are signed as scored: penalties negative, trump tricks and lottery places
  positive (B2-B4).
"""

from __future__ import annotations

from hsim.engine._numba import kernel
from hsim.engine.bits import highest_card, lowest_card, popcount
from hsim.engine.common import trick_winner  # noqa: F401  (re-exported: B2, B3)
from hsim.engine.layout import (  # noqa: F401  (re-exported with the codes)
    HEART_LEAD_BAN_EVERY_HEART,
    HEART_LEAD_BAN_KING_OF_HEARTS,
    HEART_LEAD_BAN_NONE,
    KIND_NAMES,
    LOTTERY_LEADER_DEALER,
    LOTTERY_LEADER_DEALER_LEFT,
    POINT_TABLE_HSIM,
    PRICED_TRICK_SEVENTH,
    TRUMP_CHOOSER_DEALER,
    TRUMP_CHOOSER_DEALER_LEFT,
)
from hsim.model.cards import (  # noqa: F401  (re-exported, as the strategies use them)
    AH_BIT,
    FULL_DECK,
    HEARTS_MASK,
    JACK_RANK,
    KH_BIT,
    KING_HEARTS,
    KING_RANK,
    QUEEN_RANK,
    SUIT_MASK,
    TWO_CLUBS,
    TWOS,
)
from hsim.model.rules import POINT_TABLES, RULE_FIELDS

PRICED_TRICKS = RULE_FIELDS["priced_trick"].metadata["choices"]

# Deal kinds (B1). The first six are the penalty deals B2.1-B2.6 in order.
KIND_TRICKS = 0
KIND_HEARTS = 1
KIND_QUEENS = 2
KIND_MEN = 3
KIND_KING_OF_HEARTS = 4
KIND_SEVENTH_AND_LAST = 5
KIND_REBEL = 6
KIND_TRUMP = 7
KIND_LOTTERY = 8
N_PENALTY_KINDS = 6  # B2.1-B2.6, always played

NO_TRUMP = -1  # trump suit of a deal without trumps (penalty deals, allow_no_trump)
# The B2-B4 option codes (LOTTERY_LEADER_*, TRUMP_CHOOSER_*, HEART_LEAD_BAN_*) come from
# hsim.engine.layout, derived from the rules' allowed values.
HEART_LEAD_BAN_KING = HEART_LEAD_BAN_KING_OF_HEARTS  # only the KH may not be led

QUEENS_MASK = TWOS << QUEEN_RANK
MEN_MASK = (TWOS << JACK_RANK) | (TWOS << KING_RANK)


def _table(item: str, sign: int) -> tuple[int, ...]:
    """Return the points of ``item`` in every point table (hsim.model.rules.POINT_TABLES),
    flat: index ``point_table_code * 2 + n_players - 3``, times ``sign``."""
    return tuple(sign * POINT_TABLES[t][item][p] for t in POINT_TABLES for p in (0, 1))


# B2 points per item (signed, <= 0), B3 default trump_trick_value and B4 place scores
# (first out, second out), indexed by table(point_table, n_players) (docs/rules.md B1).
PTS_TRICK = _table("trick", -1)
PTS_HEART = _table("heart", -1)
PTS_QUEEN = _table("queen", -1)
PTS_MAN = _table("man", -1)
PTS_KING_OF_HEARTS = _table("king_of_hearts", -1)
PTS_SEVENTH_OR_LAST = _table("seventh_or_last", -1)
TRUMP_TRICK_VALUE = _table("trump_trick", 1)
LOTTERY_FIRST = _table("lottery_first", 1)
LOTTERY_SECOND = _table("lottery_second", 1)
#: The 0-based index of the trick deal 6 prices besides the last, by ``priced_trick`` code.
PRICED_TRICK_INDEX = tuple(6 if v == "seventh" else 5 for v in PRICED_TRICKS)


@kernel
def table(point_table: int, n_players: int) -> int:
    """Return the index into the point tuples of ``point_table`` (its option code) for
    ``n_players`` (3 or 4) (B1)."""
    return 2 * point_table + n_players - 3


# --- B1: the deck and the deal sequence ---------------------------------------------


@kernel
def deck_mask(n_players: int) -> int:
    """Return the mask of the deck for ``n_players`` (3 or 4): 52 cards, 3 players no 2C (B1)."""
    if n_players == 3:
        return FULL_DECK & ~(1 << TWO_CLUBS)
    return FULL_DECK


@kernel
def hand_size(n_players: int) -> int:
    """Return the cards per hand, which is also the tricks per deal: 13 (4p) or 17 (3p) (B1)."""
    return 17 if n_players == 3 else 13


@kernel
def n_deals(n_players: int, rebel: int) -> int:
    """Return the number of deals of a game: 6 penalty + rebel (0/1) + n trump + 1 lottery (B1).

    11 for 4 players (12 with ``rebel``), 10 for 3 players (11 with ``rebel``).
    """
    return N_PENALTY_KINDS + (1 if rebel else 0) + n_players + 1


@kernel
def deal_kind(k: int, n_players: int, rebel: int) -> int:
    """Return the kind code (``KIND_*``) of deal ``k`` (0-based) of a game (B1).

    Order: B2.1-B2.6, the rebel B2.7 if ``rebel`` (0/1), ``n_players`` trump deals (B3),
    the lottery (B4). ``k`` must be below :func:`n_deals`; -1 is returned otherwise.
    """
    if k < 0:
        return -1
    if k < N_PENALTY_KINDS:
        return k
    j = k - N_PENALTY_KINDS
    if rebel:
        if j == 0:
            return KIND_REBEL
        j -= 1
    if j < n_players:
        return KIND_TRUMP
    if j == n_players:
        return KIND_LOTTERY
    return -1


@kernel
def is_penalty_kind(kind: int) -> bool:
    """Return whether ``kind`` is a penalty deal, B2.1-B2.7 (the rebel included)."""
    return 0 <= kind <= KIND_REBEL


@kernel
def dealer_of(k: int, n_players: int) -> int:
    """Return the dealer of deal ``k`` (0-based): seat 0 first, passing left (B1)."""
    return k % n_players


@kernel
def leader_of(k: int, n_players: int, kind: int, lottery_leader: int) -> int:
    """Return the seat that leads (trick 1 or the lottery's first card) of deal ``k``.

    Penalty and trump deals: the seat left of the dealer (B1, B3). The lottery: the dealer
    (``lottery_leader`` = ``LOTTERY_LEADER_DEALER``) or the seat left of them (B4).
    """
    dealer = dealer_of(k, n_players)
    if kind == KIND_LOTTERY and lottery_leader == LOTTERY_LEADER_DEALER:
        return dealer
    return (dealer + 1) % n_players


@kernel
def trump_chooser_of(k: int, n_players: int, trump_chooser: int) -> int:
    """Return the seat that names trump in trump deal ``k`` (B3).

    ``trump_chooser`` = ``TRUMP_CHOOSER_DEALER_LEFT`` (default) or ``TRUMP_CHOOSER_DEALER``.
    Over the ``n_players`` consecutive trump deals every seat chooses once.
    """
    dealer = dealer_of(k, n_players)
    if trump_chooser == TRUMP_CHOOSER_DEALER:
        return dealer
    return (dealer + 1) % n_players


@kernel
def trump_preview_size(n_players: int) -> int:
    """Return how many cards the trump chooser sees before naming trump: 5 (4p), 6 (3p) (B3)."""
    return 6 if n_players == 3 else 5


# --- B2/B3: tricks -------------------------------------------------------------------


@kernel
def no_heart_lead(kind: int) -> bool:
    """Return whether ``kind`` bans heart leads (deals 2, 5 and 7; B2, ``heart_lead_ban``)."""
    return kind in (KIND_HEARTS, KIND_KING_OF_HEARTS, KIND_REBEL)


@kernel
def legal_plays(
    kind: int,
    hand: int,
    led_suit: int,
    trick_cards: int,
    trump: int,
    must_trump: int,
    kh_first_chance: int,
    heart_lead_ban: int,
) -> int:
    """Return the mask of the cards of ``hand`` that may be played to a trick (B2, B3).

    ``led_suit`` is -1 when leading, else 0..3; ``trick_cards`` is the mask of the cards
    already in the trick; ``trump`` the trump suit (-1 none; only a trump deal has one);
    ``must_trump`` the B3 option (0/1); ``kh_first_chance`` the B2 option
    ``king_of_hearts_first_chance`` (0/1); ``heart_lead_ban`` the B2 option's code
    (``HEART_LEAD_BAN_EVERY_HEART``, ``HEART_LEAD_BAN_KING`` or ``HEART_LEAD_BAN_NONE``,
    which lifts the ban). Empty only when
    ``hand`` is.
    """
    if led_suit < 0:
        if heart_lead_ban != HEART_LEAD_BAN_NONE and no_heart_lead(kind):
            banned = KH_BIT if heart_lead_ban == HEART_LEAD_BAN_KING else HEARTS_MASK
            others = hand & ~banned
            if others:
                return others  # B2: no heart (or only no KH) lead while holding another card
        return hand
    follow = hand & (SUIT_MASK << (13 * led_suit))
    if (
        kh_first_chance
        and hand & KH_BIT
        and kind in (KIND_KING_OF_HEARTS, KIND_REBEL)
        and (follow == 0 or (led_suit == 3 and trick_cards & AH_BIT))
    ):
        return KH_BIT  # B2 king_of_hearts_first_chance: void, or hearts with the AH in
    if follow:
        return follow
    if kind == KIND_TRUMP and must_trump and trump >= 0:
        trumps = hand & (SUIT_MASK << (13 * trump))
        if trumps:
            in_trick = trick_cards & (SUIT_MASK << (13 * trump))
            if in_trick:
                top = highest_card(in_trick)
                over = trumps & ~((1 << (top + 1)) - 1)
                if over:
                    return over  # B3 must_trump: overtrump if able
            return trumps
    return hand


@kernel
def priced_trick_penalty(
    kind: int, n_players: int, trick_cards: int, trick_index: int, point_table: int, sixth: int
) -> int:
    """Return the penalty points (<= 0) of a finished trick for the seat that took it (B2).

    ``trick_cards``: the mask of the trick's cards; ``trick_index``: 0-based (the last is
    :func:`hand_size` - 1). ``point_table``: the B1 option's code (``POINT_TABLE_HSIM``
    ...); ``sixth``: the ``priced_trick`` code (``PRICED_TRICK_SEVENTH``: deal 6 prices
    the 7th trick, index 6; ``PRICED_TRICK_SIXTH``: the 6th, index 5). The rebel sums every
    category of B2.1-B2.6 that the trick fits, so a seat taking both priced tricks of
    deal 6 loses twice the item. 0 for trump and lottery kinds.
    """
    p = table(point_table, n_players)
    rebel = kind == KIND_REBEL
    total = 0
    if kind == KIND_TRICKS or rebel:
        total += PTS_TRICK[p]
    if kind == KIND_HEARTS or rebel:
        total += PTS_HEART[p] * popcount(trick_cards & HEARTS_MASK)
    if kind == KIND_QUEENS or rebel:
        total += PTS_QUEEN[p] * popcount(trick_cards & QUEENS_MASK)
    if kind == KIND_MEN or rebel:
        total += PTS_MAN[p] * popcount(trick_cards & MEN_MASK)
    if (kind == KIND_KING_OF_HEARTS or rebel) and trick_cards & KH_BIT:
        total += PTS_KING_OF_HEARTS[p]
    if kind == KIND_SEVENTH_AND_LAST or rebel:
        if trick_index == PRICED_TRICK_INDEX[sixth]:
            total += PTS_SEVENTH_OR_LAST[p]
        if trick_index == hand_size(n_players) - 1:
            total += PTS_SEVENTH_OR_LAST[p]
    return total


@kernel
def trick_penalty(kind: int, n_players: int, trick_cards: int, trick_index: int) -> int:
    """Return :func:`priced_trick_penalty` in hsim's table with the 7th trick priced (B2,
    the defaults).
    """
    return priced_trick_penalty(
        kind, n_players, trick_cards, trick_index, POINT_TABLE_HSIM, PRICED_TRICK_SEVENTH
    )


@kernel
def default_trump_trick_value(n_players: int, point_table: int) -> int:
    """Return the default ``trump_trick_value`` of ``point_table`` (B1, B3): hsim +15 per
    trick (4p), +20 (3p); servers +1; program +5."""
    return TRUMP_TRICK_VALUE[table(point_table, n_players)]


@kernel
def trick_points(
    kind: int,
    n_players: int,
    trick_cards: int,
    trick_index: int,
    trump_trick_value: int,
    point_table: int,
    sixth: int,
) -> int:
    """Return the points of a finished trick for its taker: B2 penalty or B3 trump value.

    ``point_table`` and ``sixth``: the codes of the options ``point_table`` and
    ``priced_trick`` (:func:`priced_trick_penalty`).
    """
    if kind == KIND_TRUMP:
        return trump_trick_value
    return priced_trick_penalty(kind, n_players, trick_cards, trick_index, point_table, sixth)


@kernel
def deal_penalty_cards(kind: int) -> int:
    """Return the mask of the cards deals 2-5 penalise (0 for every other kind) (B2)."""
    if kind == KIND_HEARTS:
        return HEARTS_MASK
    if kind == KIND_QUEENS:
        return QUEENS_MASK
    if kind == KIND_MEN:
        return MEN_MASK
    if kind == KIND_KING_OF_HEARTS:
        return KH_BIT
    return 0


@kernel
def penalties_exhausted(kind: int, taken: int) -> bool:
    """Return whether deal kind ``kind`` may end early under ``stop_when_no_penalties`` (B2).

    ``taken``: the mask of every card in finished tricks. True only for deals 2-5
    (hearts, queens, men, KH) once all of their penalty cards are in ``taken``; deals 1,
    6, 7 (and trump, lottery) never end early.
    """
    pen = deal_penalty_cards(kind)
    return pen != 0 and (taken & pen) == pen


# --- B4: the lottery -------------------------------------------------------------------


@kernel
def lottery_suit_bounds(table: int, suit: int) -> tuple[int, int]:
    """Return (lowest rank, highest rank) on the table in ``suit``; (-1, -1) if none (B4).

    ``table``: mask of the cards on the table (always one run of ranks per suit).
    """
    s = (table >> (13 * suit)) & SUIT_MASK
    if s == 0:
        return -1, -1
    return lowest_card(s), highest_card(s)


@kernel
def lottery_legal(hand: int, table: int, start_rank: int, n_players: int) -> int:
    """Return the mask of the cards of ``hand`` that may be played in the lottery (B4).

    ``table``: mask of the cards already played; ``start_rank`` the rank of the first
    card (ignored while ``table`` is empty). Empty table: any card, but not a 2 with 3
    players. Else per suit: a suit not on the table opens only with the starting rank;
    a suit on it extends by one rank above its highest or below its lowest (no wrap).
    An empty result means the player passes.
    """
    if table == 0:
        if n_players == 3:
            return hand & ~TWOS
        return hand
    legal = 0
    for suit in range(4):
        lo, hi = lottery_suit_bounds(table, suit)
        base = 13 * suit
        if lo < 0:
            legal |= 1 << (base + start_rank)
        else:
            if hi < 12:
                legal |= 1 << (base + hi + 1)
            if lo > 0:
                legal |= 1 << (base + lo - 1)
    return hand & legal


@kernel
def lottery_place_score(place: int, n_players: int, point_table: int) -> int:
    """Return the lottery score of going out ``place``-th (0 = first) (B4) in
    ``point_table`` (the option's code, B1).

    hsim: first +800 (3 players +790), second +500 (+485); servers +62, +38; program +10,
    +5; any later place 0.
    """
    p = table(point_table, n_players)
    if place == 0:
        return LOTTERY_FIRST[p]
    if place == 1:
        return LOTTERY_SECOND[p]
    return 0
