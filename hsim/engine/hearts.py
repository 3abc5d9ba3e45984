"""Hearts rule kernels (docs/rules.md part A): deal, pass, legal plays, play a card, scoring.

Design notes
- Cards are ints ``suit * 13 + rank`` (suits C, D, S, H; ranks 2..A), hands 52-bit
  masks in int64 (see :mod:`hsim.model.cards`). State lives in the arrays of
  :mod:`hsim.engine.layout`; every kernel reads the rules vector, never Python objects.
- "points" means penalty points taken in a deal: by default 1 per heart and 13 for QS,
  26 in the deck; ``heart_points``, ``pink_lady``, ``queen_points`` and ``black_maria``
  change the values (A1.8, :func:`penalty_points`).
- Pass directions are 0 left (to seat + 1), 1 right (seat - 1), 2 across (seat + 2),
  3 hold (A1.2).
- Seats: 4, or 3, 5 or 6 with ``players`` (A1.1): cards leave the deck so that each
  seat gets as many (3: ``removed_card``, the 2D by default, 17 each; 5:
  ``removed_pair``, the 2D and 2C by default, 10 each; 6: the 2D, 3D, 3C and 4C, 8
  each), and ``passing=cycle`` goes left, right, hold with 3 or 5 seats and left,
  right, across (``n // 2`` seats on), hold with 4 or 6. Kernels read the count from
  ``public[P_N_SEATS]`` (:func:`seats_of`) or the rules vector (:func:`rules_seats`).
- Hearts are broken from the moment a heart is played, the current trick included, and
  this is tracked whatever ``hearts_must_be_broken`` says (A1.6); with
  ``first_trick_breaks_hearts=false`` nothing played to trick 1 breaks them.
"""

from __future__ import annotations

from hsim.engine._numba import kernel
from hsim.engine.bits import lowest_card, popcount
from hsim.engine.common import (
    add_to_trick,
    close_trick,
    give_hand,
    record_play,
    reset_deal,
    shuffle_deck,
    trick_taker,
)
from hsim.engine.layout import (
    END_WHEN_EXCEEDED,
    FIRST_TRICK_ONLY_POINTS_QUEEN,
    FIRST_TRICK_POINTS_FORBIDDEN,
    H_DECK,
    H_PENDING_PASS,
    HEART_POINTS_RANK,
    MOON_ADD,
    MOON_DEFAULT,
    MOON_NEW_MOON,
    MOON_OFF,
    MOON_SHOOTER_GAINS,
    MOON_SMART,
    MOON_SUBTRACT,
    NO_TRICK_BONUS_NO_POINTS,
    NO_TRICK_BONUS_NO_TRICKS,
    OMNIBUS_CARD_TD,
    P_HEARTS_BROKEN,
    P_LED_SUIT,
    P_N_SEATS,
    P_PASS_DIR,
    P_RULES,
    P_TAKEN,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEADER,
    P_TRICK_LEN,
    PASS_HOLD,
    PASS_LEFT,
    PASS_RIGHT,
    PASSING_LEFT,
    PASSING_NONE,
    PASSING_RIGHT,
    R_BLACK_MARIA,
    R_CLAMP_AT_ZERO,
    R_END_SCORE,
    R_END_WHEN,
    R_FIRST_TRICK_BREAKS_HEARTS,
    R_FIRST_TRICK_ONLY_POINTS,
    R_FIRST_TRICK_POINTS,
    R_HEART_POINTS,
    R_HEARTS_MUST_BE_BROKEN,
    R_JACK_IN_MOON_DEAL,
    R_LEAD_ANY_CLUB,
    R_LEAD_HEARTS_INSTEAD_OF_QUEEN,
    R_MAX_DEALS,
    R_MOON,
    R_MOON_REQUIRES_JACK,
    R_NEW_MOON_ANY_SCORE,
    R_NO_DRAW,
    R_NO_TRICK_BONUS,
    R_OMNIBUS,
    R_OMNIBUS_CARD,
    R_OMNIBUS_VALUE,
    R_PASSING,
    R_PERFECT_100,
    R_PINK_LADY,
    R_PLAYERS,
    R_QUEEN_BREAKS_HEARTS,
    R_QUEEN_POINTS,
    R_QUEEN_WAITS,
    R_REMOVED_CARD,
    R_REMOVED_PAIR,
    REMOVED_CARD_2C,
    REMOVED_CARD_2S,
    REMOVED_PAIR_2D_2S,
    RULES_LEN,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
)

# Card constants are defined once, in hsim.model.cards; the kernels of this module and the
# modules that import them from here use them.
from hsim.model.cards import (  # noqa: F401  (re-exported)
    ACE_SPADES,
    CLUBS_MASK,
    DIAMONDS_MASK,
    FULL_DECK,
    HEARTS_MASK,
    JACK_DIAMONDS,
    JD_BIT,
    KING_SPADES,
    QS_BIT,
    QUEEN_HEARTS,
    QUEEN_SPADES,
    SPADES_MASK,
    SUIT_MASK,
    TEN_DIAMONDS,
    TWO_CLUBS,
)

N_SEATS = 4  # the classic game's seats; kernels read a game's own (seats_of, rules_seats)
N_TRICKS = 13  # the classic game's tricks; hand_size gives a game's own
ALL_CARDS = FULL_DECK
TWO_DIAMONDS = 13  # the card 3-player Hearts leaves out by default (A1.1, removed_card)
TWO_SPADES = 26
# Hearts for 6 leaves out the 2D, 3D, 3C and 4C (A1.1).
SIX_SEATS_OUT = (1 << TWO_DIAMONDS) | (1 << (TWO_DIAMONDS + 1)) | (1 << (TWO_CLUBS + 1)) | (
    1 << (TWO_CLUBS + 2)
)
HIGH_SPADES = (1 << KING_SPADES) | (1 << ACE_SPADES)  # KS and AS, the cards over QS
POINTS_MASK = HEARTS_MASK | QS_BIT  # A1.8: the cards that carry points


@kernel
def seats_of(public) -> int:
    """Return the number of seats of the game in ``public``: ``public[P_N_SEATS]`` when it
    is 3 to 6, else 4 (an array built by hand with the field left 0 is a 4-seat one)
    (A1.1)."""
    n = public[P_N_SEATS]
    return n if 3 <= n <= 6 else 4


@kernel
def rules_seats(rules) -> int:
    """Return the number of seats of the rules vector ``rules``: its ``players``, 3 to 6
    (A1.1)."""
    n = rules[R_PLAYERS]
    return n if 3 <= n <= 6 else 4


@kernel
def hand_size(n: int) -> int:
    """Return the cards dealt to each of ``n`` seats (3 to 6), which is also the tricks of
    a deal: 17, 13, 10 or 8 (A1.1; 52 // n, the rest of the deck left out)."""
    return 52 // n


@kernel
def removed_card_at(a, at: int) -> int:
    """Return the card Hearts for 3 leaves out under the rules vector at ``a[at:]`` (an
    array or a raw pointer): the 2D, 2C or 2S (``removed_card``, A1.1)."""
    code = a[at + R_REMOVED_CARD]
    if code == REMOVED_CARD_2C:
        return TWO_CLUBS
    if code == REMOVED_CARD_2S:
        return TWO_SPADES
    return TWO_DIAMONDS


@kernel
def deck_at(a, at: int) -> int:
    """Return the mask of the cards dealt under the rules vector at ``a[at:]`` (A1.1): all
    52 with 4 seats; with 3 all but the ``removed_card``; with 5 all but the 2D and the
    ``removed_pair``'s 2C or 2S; with 6 all but the 2D, 3D, 3C and 4C."""
    n = a[at + R_PLAYERS]
    if n == 3:
        return ALL_CARDS & ~(1 << removed_card_at(a, at))
    if n == 5:
        black_two = TWO_SPADES if a[at + R_REMOVED_PAIR] == REMOVED_PAIR_2D_2S else TWO_CLUBS
        return ALL_CARDS & ~((1 << TWO_DIAMONDS) | (1 << black_two))
    if n == 6:
        return ALL_CARDS & ~SIX_SEATS_OUT
    return ALL_CARDS


@kernel
def deal_deck(public) -> int:
    """Return the mask of the cards dealt in the game of ``public`` (A1.1)."""
    return deck_at(public, P_RULES)


@kernel
def rules_deck(rules) -> int:
    """Return the mask of the cards dealt under the rules vector ``rules`` (A1.1)."""
    return deck_at(rules, 0)


@kernel
def opening_card(deck: int) -> int:
    """Return the card that leads trick 1 in a deal of the cards ``deck``: its lowest
    club, the 2C, or the 3C when the 2C is left out (A1.3)."""
    return lowest_card(deck & CLUBS_MASK)


@kernel
def card_points(cards: int) -> int:
    """Return the penalty points in mask ``cards``: 1 per heart, 13 for QS (A1.8)."""
    return popcount(cards & HEARTS_MASK) + 13 * ((cards >> QUEEN_SPADES) & 1)


@kernel
def card_value_at(v, base: int, c: int) -> int:
    """Return the penalty points card ``c`` carries under the rules vector at
    ``v[base:]`` (A1.8): a heart 1, or its rank 2..14 with ``heart_points=rank``, the QH 13
    with ``pink_lady``; the QS ``queen_points`` (13 or 0); with ``black_maria`` the KS 10
    and the AS 7; else 0. ``v``: the rules vector (base 0) or ``public`` (base
    ``P_RULES``), an array or a raw pointer."""
    if c // 13 == 3:
        if c == QUEEN_HEARTS and v[base + R_PINK_LADY]:
            return 13
        if v[base + R_HEART_POINTS] == HEART_POINTS_RANK:
            return c - 39 + 2
        return 1
    if c == QUEEN_SPADES:
        return v[base + R_QUEEN_POINTS]
    if v[base + R_BLACK_MARIA]:
        if c == KING_SPADES:
            return 10
        if c == ACE_SPADES:
            return 7
    return 0


@kernel
def plain_values_at(v, base: int) -> bool:
    """Return whether the rules at ``v[base:]`` keep every heart at 1 point and no card
    but the QS beside them (then a mask's points are two terms, :func:`penalty_points_at`)."""
    return (
        v[base + R_HEART_POINTS] != HEART_POINTS_RANK
        and not v[base + R_PINK_LADY]
        and not v[base + R_BLACK_MARIA]
    )


@kernel
def penalty_mask_at(v, base: int) -> int:
    """Return the mask of the cards that carry points under the rules at ``v[base:]``."""
    m = HEARTS_MASK
    if v[base + R_QUEEN_POINTS]:
        m |= QS_BIT
    if v[base + R_BLACK_MARIA]:
        m |= HIGH_SPADES
    return m


@kernel
def penalty_points_at(v, base: int, cards: int) -> int:
    """Return the penalty points in mask ``cards`` under the rules at ``v[base:]``
    (:func:`card_value_at` summed over the cards)."""
    if plain_values_at(v, base):
        return popcount(cards & HEARTS_MASK) + v[base + R_QUEEN_POINTS] * (
            (cards >> QUEEN_SPADES) & 1
        )
    m = cards & penalty_mask_at(v, base)
    total = 0
    while m:
        total += card_value_at(v, base, lowest_card(m))
        m &= m - 1
    return total


@kernel
def costly_mask_at(v, base: int) -> int:
    """Return the mask of the cards worth 7 points or more under the rules at ``v[base:]``:
    the QS by default; Black Maria's KS and AS, Pink Lady's QH, Spot Hearts' 7H and up.
    The bots drop such a card on a trick they lose and keep it off tricks they may win."""
    if plain_values_at(v, base):  # hearts at 1: the QS at most (the bots' every trick)
        return QS_BIT if v[base + R_QUEEN_POINTS] >= 7 else 0
    m = 0
    pm = penalty_mask_at(v, base)
    while pm:
        c = lowest_card(pm)
        if card_value_at(v, base, c) >= 7:
            m |= 1 << c
        pm &= pm - 1
    return m


@kernel
def _cost_key(v, base: int, cards: int, sign: int) -> int:
    """Return the card of ``cards`` (not empty) with the largest ``sign * (value * 64 +
    card)`` under the rules at ``v[base:]`` (values are below 16, cards below 64)."""
    best = -1
    best_key = -(1 << 40)
    m = cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        key = sign * (card_value_at(v, base, c) * 64 + c)
        if key > best_key:
            best, best_key = c, key
    return best


@kernel
def most_costly(v, base: int, cards: int) -> int:
    """Return the card of ``cards`` (not empty) with the most points under the rules at
    ``v[base:]``, the highest card of equals."""
    return _cost_key(v, base, cards, 1)


@kernel
def least_costly(v, base: int, cards: int) -> int:
    """Return the card of ``cards`` (not empty) with the fewest points under the rules at
    ``v[base:]``, the lowest card of equals."""
    return _cost_key(v, base, cards, -1)


@kernel
def card_value(rules, c: int) -> int:
    """Return the penalty points of card ``c`` under ``rules`` (int64 rules vector, A1.8;
    :func:`card_value_at`)."""
    return card_value_at(rules, 0, c)


@kernel
def penalty_mask(rules) -> int:
    """Return the mask of the cards that carry points under ``rules`` (A1.8)."""
    return penalty_mask_at(rules, 0)


@kernel
def penalty_points(rules, cards: int) -> int:
    """Return the penalty points in mask ``cards`` under ``rules`` (A1.8): 1 per heart and
    13 for QS by default, 0 up to :func:`deck_points`."""
    return penalty_points_at(rules, 0, cards)


@kernel
def deal_penalty_points(public, cards: int) -> int:
    """Return the penalty points in mask ``cards`` under the rules in ``public`` (an array
    or a raw pointer, A1.8)."""
    return penalty_points_at(public, P_RULES, cards)


@kernel
def deck_points(rules) -> int:
    """Return the penalty points of the whole deck under ``rules`` (A1.8): 26 by default,
    13 with ``queen_points=0``, 38 with ``pink_lady``, 43 with ``black_maria``, 117 with
    ``heart_points=rank``. A moon is taking them all (A2.2)."""
    return penalty_points_at(rules, 0, FULL_DECK)


@kernel
def value_planes(rules, planes) -> None:
    """Write the values of :func:`card_value` as four bit planes: ``planes`` int64[4],
    plane k the mask of the cards whose value has bit k (every value is below 16), so
    that :func:`planes_points` counts a mask's points with four popcounts."""
    for k in range(4):
        planes[k] = 0
    m = penalty_mask(rules)  # every other card is worth 0
    while m:
        c = lowest_card(m)
        m &= m - 1
        value = card_value(rules, c)
        for k in range(4):
            if (value >> k) & 1:
                planes[k] |= 1 << c


@kernel
def planes_points(p0: int, p1: int, p2: int, p3: int, cards: int) -> int:
    """Return the penalty points in mask ``cards`` from :func:`value_planes`' planes."""
    return (
        popcount(cards & p0)
        + 2 * popcount(cards & p1)
        + 4 * popcount(cards & p2)
        + 8 * popcount(cards & p3)
    )


@kernel
def pass_direction(rules, deal: int) -> int:
    """Return the pass direction of deal ``deal`` (0-based): 0..3 = left/right/across/hold.

    docs/rules.md A1.2: ``passing=cycle`` follows left, right, across, hold (3 or 5
    seats: left, right, hold); ``none`` holds; ``left`` and ``right`` pass that way every
    deal.
    """
    passing = rules[R_PASSING]
    if passing == PASSING_NONE:
        return PASS_HOLD
    if passing == PASSING_LEFT:
        return PASS_LEFT
    if passing == PASSING_RIGHT:
        return PASS_RIGHT
    if rules_seats(rules) % 2:
        return (PASS_LEFT, PASS_RIGHT, PASS_HOLD)[deal % 3]
    return deal % 4


@kernel
def pass_target(seat: int, direction: int, n: int = 4) -> int:
    """Return the seat that receives ``seat``'s pass in ``direction`` (0..2) among ``n``
    seats: the next seat, the one before, or across, ``n // 2`` seats on (4 or 6 seats;
    with 3 or 5 across never comes) (A1.2)."""
    return (seat + (1, n - 1, n // 2)[direction]) % n


@kernel
def shuffle_deal(private, hidden, deal_rng, n: int = 4, deck: int = ALL_CARDS) -> None:
    """Shuffle and deal the cards ``deck`` (:func:`deal_deck`) to each of ``n`` seats
    (A1.1) from stream ``deal_rng``: :func:`hand_size` cards each (13 each of 52 with 4
    seats).

    The deck order goes to ``hidden[H_DECK:]`` (seat s gets positions ks..ks+k-1, k the
    hand size, in its dealing order); hands to ``private[s, V_HAND]`` and ``V_DEALT``.
    """
    shuffle_deck(hidden, deck, deal_rng)
    size = hand_size(n)
    for s in range(n):
        hand = 0
        for k in range(size):
            hand |= 1 << hidden[H_DECK + size * s + k]
        give_hand(private, s, hand)


@kernel
def valid_pass(hand: int, cards: int) -> bool:
    """Return whether ``cards`` is exactly three cards of ``hand`` (A1.2)."""
    return cards & ~hand == 0 and popcount(cards) == 3


@kernel
def apply_passes(public, private, hidden) -> None:
    """Move every seat's pending pass to its receiver at once (A1.2).

    Reads the passes from ``hidden[H_PENDING_PASS + s]``; sets V_PASSED / V_RECEIVED.
    """
    direction = public[P_PASS_DIR]
    n = seats_of(public)
    for s in range(n):
        private[s, V_HAND] &= ~hidden[H_PENDING_PASS + s]
        private[s, V_PASSED] = hidden[H_PENDING_PASS + s]
    for s in range(n):
        to = pass_target(s, direction, n)
        private[to, V_HAND] |= hidden[H_PENDING_PASS + s]
        private[to, V_RECEIVED] = hidden[H_PENDING_PASS + s]


@kernel
def start_play(public, private) -> None:
    """Reset the per-deal public facts and give the lead of trick 1 to the holder of the
    2C (of the 3C when the 2C is left out, :func:`opening_card`) (A1.3)."""
    leader = 0
    n = seats_of(public)
    opening = opening_card(deal_deck(public))
    for s in range(n):
        if (private[s, V_HAND] >> opening) & 1:
            leader = s
    reset_deal(public, n, leader)


@kernel
def legal_plays(public, rules, hand: int) -> int:
    """Return the mask of cards of ``hand`` that may be played now (A1.3-A1.7).

    ``hand`` must be the hand of the seat to act (``public[P_TO_ACT]``). Empty only when
    the hand is empty.
    """
    first_trick = public[P_TRICK] == 0
    unbroken = public[P_HEARTS_BROKEN] == 0
    if public[P_TRICK_LEN] == 0:
        if first_trick:
            # A1.3: the 2C holder leads it (the 3C's without the 2C), or any club with
            # lead_any_club.
            if rules[R_LEAD_ANY_CLUB] and hand & CLUBS_MASK:
                legal = hand & CLUBS_MASK
            else:
                legal = hand & (1 << opening_card(rules_deck(rules)))
        else:
            legal = hand
            if rules[R_HEARTS_MUST_BE_BROKEN] and unbroken:
                # A1.6: no heart lead while unbroken, unless only hearts are held; a
                # hand of only hearts and QS must lead QS unless the option frees it.
                others = hand & ~HEARTS_MASK
                if others == QS_BIT:
                    if not rules[R_LEAD_HEARTS_INSTEAD_OF_QUEEN]:
                        legal = QS_BIT
                elif others:
                    legal = others
    else:
        follow = hand & (SUIT_MASK << (13 * public[P_LED_SUIT]))
        if follow:
            legal = follow  # A1.4
        else:
            legal = hand
            if first_trick and rules[R_FIRST_TRICK_POINTS] == FIRST_TRICK_POINTS_FORBIDDEN:
                # A1.5: no points on trick 1 while holding a card that is not a point.
                safe = hand & ~POINTS_MASK
                if safe:
                    legal = safe
                elif (
                    hand & QS_BIT
                    and rules[R_FIRST_TRICK_ONLY_POINTS] == FIRST_TRICK_ONLY_POINTS_QUEEN
                ):
                    legal = QS_BIT
    if rules[R_QUEEN_WAITS] and unbroken and legal & QS_BIT and legal != QS_BIT:
        legal &= ~QS_BIT  # A1.7: QS waits while it is not the only legal card
    return legal


@kernel
def breaks_hearts(rules, c: int, trick: int) -> bool:
    """Return whether card ``c`` played to trick ``trick`` (0-based) breaks hearts (A1.6).

    A heart does, and QS with ``queen_breaks_hearts``; with
    ``first_trick_breaks_hearts=false`` nothing played to trick 1 (``trick`` 0) does.
    """
    if trick == 0 and rules[R_FIRST_TRICK_BREAKS_HEARTS] == 0:
        return False
    return c // 13 == 3 or (c == QUEEN_SPADES and rules[R_QUEEN_BREAKS_HEARTS] != 0)


@kernel
def play_card(public, private, seat: int, c: int) -> bool:
    """Play card ``c`` from ``seat``'s hand; close the trick when it is complete.

    Updates the hand, the play history, hearts broken (A1.6), shown voids and, at a
    complete trick, the winner (A1.4: the highest card of the led suit), points (A1.8),
    tricks won, taken cards and the next leader. The caller checks legality first.
    Returns True when the trick closed.
    """
    breaks = breaks_hearts(public[P_RULES : P_RULES + RULES_LEN], c, public[P_TRICK])
    record_play(public, private, seat, c, breaks)
    n = seats_of(public)
    if not add_to_trick(public, n, seat, c):
        return False
    winner = trick_taker(public, n, -1)  # no trump in Hearts
    t = close_trick(public, winner, deal_penalty_points(public, public[P_TRICK_CARDS]))
    if t + 1 < hand_size(n):
        public[P_TRICK_LEADER + t + 1] = winner
    return True


@kernel
def bonus_card(rules) -> int:
    """Return omnibus's bonus card (A2.3): JD, or TD with ``omnibus_card=TD``."""
    return TEN_DIAMONDS if rules[R_OMNIBUS_CARD] == OMNIBUS_CARD_TD else JACK_DIAMONDS


@kernel
def moon_shooter(rules, points, jack_taker: int) -> int:
    """Return the seat that shot the moon this deal, or -1 (A2.2).

    points: int64[n], penalty points taken this deal (n seats). jack_taker: seat that took
    the bonus card (:func:`bonus_card`). The shooter took every point of the deck
    (:func:`deck_points`, 26 by default). With ``omnibus`` and ``moon_requires_jack`` the
    shooter must also have taken the bonus card; with ``moon=off`` no one shoots.
    """
    if rules[R_MOON] == MOON_OFF:
        return -1
    total = deck_points(rules)
    for s in range(rules_seats(rules)):
        if points[s] == total:
            if rules[R_OMNIBUS] and rules[R_MOON_REQUIRES_JACK] and jack_taker != s:
                return -1
            return s
    return -1


@kernel
def default_moon_choice(rules, scores_before, shooter: int) -> int:
    """Return New Moon's default: subtract when some opponent would still be strictly
    below the shooter after +26 (:func:`deck_points`), else add (A2.2).
    scores_before: int64[n], one per seat.
    """
    total = deck_points(rules)
    for s in range(len(scores_before)):
        if s != shooter and scores_before[s] + total < scores_before[shooter]:
            return MOON_SUBTRACT
    return MOON_ADD


@kernel
def moon_choice_asked(rules, scores_before, shooter: int) -> bool:
    """Return whether the shooter's strategy chooses the moon outcome (New Moon, A2.2).

    Asked under ``moon=new_moon`` when the shooter's score before the deal is 26
    (:func:`deck_points`) or more, or at any score with ``new_moon_any_score``.
    """
    if shooter < 0 or rules[R_MOON] != MOON_NEW_MOON:
        return False
    return rules[R_NEW_MOON_ANY_SCORE] != 0 or scores_before[shooter] >= deck_points(rules)


@kernel
def moon_seat_score(rules, shooter: int, outcome: int, jack_taker: int, s: int) -> int:
    """Return seat ``s``'s deal score in a moon deal (A2.2): ``outcome`` MOON_ADD +26 to
    each other seat, MOON_SUBTRACT -26 to the shooter (26: :func:`deck_points`); the bonus
    card's -omnibus_value too with ``omnibus`` and ``jack_in_moon_deal`` (A2.3).
    """
    total = deck_points(rules)
    if outcome == MOON_ADD:
        score = 0 if s == shooter else total
    else:
        score = -total if s == shooter else 0
    if rules[R_OMNIBUS] and rules[R_JACK_IN_MOON_DEAL] and jack_taker == s:
        score -= rules[R_OMNIBUS_VALUE]
    return score


@kernel
def game_score(rules, before: int, deal_score: int) -> int:
    """Return a game score after a deal (A2.4, A2.5): ``before + deal_score``, clamped at
    zero with ``clamp_at_zero``, 100 made 50 with ``perfect_100``.
    """
    new = before + deal_score
    if rules[R_CLAMP_AT_ZERO] and new < 0:
        new = 0
    if rules[R_PERFECT_100] and new == 100:
        new = 50
    return new


@kernel
def moon_standing(rules, scores_before, shooter: int, outcome: int, jack_taker: int):
    """Return how the shooter stands after a moon with ``outcome`` (moon=smart, A2.2), as
    (game, margin): game 2 when the deal's scores end the game (A3 ``end_score``) with
    the shooter alone lowest, 0 when they end it with another seat lower, else 1 (the
    game goes on, or the shooter ties for lowest); margin the lowest other game score
    minus the shooter's, both after the clamp and Perfect 100. Higher is better in both,
    game first.
    """
    mine = game_score(
        rules, scores_before[shooter], moon_seat_score(rules, shooter, outcome, jack_taker, shooter)
    )
    high = mine
    best_other = 1 << 40
    n_at_mine = 0
    for s in range(rules_seats(rules)):
        if s != shooter:
            new = game_score(
                rules, scores_before[s], moon_seat_score(rules, shooter, outcome, jack_taker, s)
            )
            high = max(high, new)
            best_other = min(best_other, new)
            n_at_mine += new <= mine
    game = 1
    if score_ends_game(rules, high):
        if best_other < mine:
            game = 0
        elif n_at_mine == 0:
            game = 2
        # tied lowest: a shared win (or, with no_draw, play on): 1, the margin decides
    return game, best_other - mine


@kernel
def smart_moon_choice(rules, scores_before, shooter: int, jack_taker: int) -> int:
    """Return moon=smart's outcome (A2.2): MOON_SUBTRACT when -26 to the shooter leaves it
    strictly better placed than +26 to the others (:func:`moon_standing`: winning the game
    first, then the margin to the best other seat), else MOON_ADD (ties add).
    """
    add_game, add_margin = moon_standing(rules, scores_before, shooter, MOON_ADD, jack_taker)
    sub_game, sub_margin = moon_standing(rules, scores_before, shooter, MOON_SUBTRACT, jack_taker)
    if sub_game > add_game or (sub_game == add_game and sub_margin > add_margin):
        return MOON_SUBTRACT
    return MOON_ADD


@kernel
def score_deal(rules, points, tricks, jack_taker, scores_before, choice, deal_score, scores):
    """Score one deal (A2.1-A2.5) and return the moon outcome applied.

    points, tricks: int64[n] (n seats), penalty points taken (0..:func:`deck_points`) and
    tricks won this deal.
    jack_taker: seat that took the bonus card (:func:`bonus_card`), -1 none.
    scores_before: int64[n], game scores before the deal. choice: the shooter's New Moon
    choice (MOON_DEFAULT, MOON_ADD, MOON_SUBTRACT), read only when
    :func:`moon_choice_asked`. Writes ``deal_score`` (after moon and bonuses, before the
    clamp) and ``scores`` (new game scores after clamp and Perfect 100). Returns MOON_ADD
    or MOON_SUBTRACT when a moon was shot (moon=classic always adds, shooter_gains always
    subtracts, smart picks by :func:`smart_moon_choice`), else MOON_DEFAULT (0).
    """
    n = rules_seats(rules)
    shooter = moon_shooter(rules, points, jack_taker)
    outcome = MOON_DEFAULT
    if shooter >= 0:
        outcome = MOON_ADD
        moon = rules[R_MOON]
        if moon == MOON_SHOOTER_GAINS:
            outcome = MOON_SUBTRACT
        elif moon == MOON_SMART:
            outcome = smart_moon_choice(rules, scores_before, shooter, jack_taker)
        elif moon_choice_asked(rules, scores_before, shooter):
            outcome = choice
            if outcome == MOON_DEFAULT:
                outcome = default_moon_choice(rules, scores_before, shooter)
        for s in range(n):
            deal_score[s] = moon_seat_score(rules, shooter, outcome, jack_taker, s)
    else:
        bonus = rules[R_NO_TRICK_BONUS]
        for s in range(n):
            deal_score[s] = points[s]
            if (bonus == NO_TRICK_BONUS_NO_POINTS and points[s] == 0) or (
                bonus == NO_TRICK_BONUS_NO_TRICKS and tricks[s] == 0
            ):
                deal_score[s] -= 5
        if rules[R_OMNIBUS] and jack_taker >= 0:
            deal_score[jack_taker] -= rules[R_OMNIBUS_VALUE]
    for s in range(n):
        scores[s] = game_score(rules, scores_before[s], deal_score[s])
    return outcome


@kernel
def score_ends_game(rules, high: int) -> bool:
    """Return whether the highest game score ``high`` is past the end (A3): at least
    ``end_score`` (``end_when=reached``) or above it (``end_when=exceeded``).
    ``no_draw`` and ``max_deals`` are :func:`game_end`'s.
    """
    if rules[R_END_WHEN] == END_WHEN_EXCEEDED:
        return high > rules[R_END_SCORE]
    return high >= rules[R_END_SCORE]


@kernel
def game_end(rules, scores, deals_played: int) -> int:
    """Return how the game ended after ``deals_played`` deals, or -1 if it goes on (A3).

    0: a score reached (or, with ``end_when=exceeded``, went over) ``end_score`` (with
    ``no_draw``, and exactly one seat is lowest); 1: ``max_deals`` deals were played.
    """
    n = rules_seats(rules)
    high = scores[0]
    low = scores[0]
    for s in range(1, n):
        high = max(high, scores[s])
        low = min(low, scores[s])
    if score_ends_game(rules, high):
        n_low = 0
        for s in range(n):
            n_low += scores[s] == low
        if not rules[R_NO_DRAW] or n_low == 1:
            return 0
    if deals_played >= rules[R_MAX_DEALS]:
        return 1
    return -1


@kernel
def place_of(scores, seat: int) -> int:
    """Return ``seat``'s place: 1 + the number of seats with a strictly lower score (A3).
    scores: int64[n], one per seat."""
    p = 1
    for s in range(len(scores)):
        p += scores[s] < scores[seat]
    return p


@kernel
def taker_of(public, card: int) -> int:
    """Return the seat that took ``card`` in a trick this deal, or -1 if no one has yet."""
    for s in range(seats_of(public)):
        if public[P_TAKEN + s] >> card & 1:
            return s
    return -1


@kernel
def deal_bonus_card(public) -> int:
    """Return the bonus card of the rules in ``public`` (an array or a raw pointer, A2.3)."""
    return TEN_DIAMONDS if public[P_RULES + R_OMNIBUS_CARD] == OMNIBUS_CARD_TD else JACK_DIAMONDS


@kernel
def jack_taker_of(public) -> int:
    """Return the seat that took the bonus card of the deal's rules this deal (JD, or TD
    with ``omnibus_card=TD``, A2.3), or -1 if it is not taken yet.
    """
    return taker_of(public, deal_bonus_card(public))
