"""``heuristic``: a rule-based Hearts player that reads the table (compiled, deterministic).

It tracks what it may see: the cards still out (not played, not in its hand), the suits
each seat has shown void in, the points each seat has taken. It never draws a random
number. Parameters (defaults:
``heuristic(moon_losers=3,defend_at=14,qs_guard=2,suspect_at=1)``):

- ``moon_losers``: attempt a moon when the hand it keeps has at most this many losers
  (a losing-trick count: the missing A, K, Q among the top cards of each suit) and
  holds the AH, 4 hearts and a high spade (:func:`wants_moon`); under Spot Hearts
  (``heart_points=rank``), where a failed attempt takes costly hearts, at most 3 losers
  fewer (:func:`moon_fewer`); negative: never attempt from the deal;
- ``defend_at``: defend against a moon once another seat holds every point taken so far
  and at least this many;
- ``qs_guard``: keep the QS when holding at least this many lower spades;
- ``suspect_at``: defend earlier, from this many points, against a seat that holds every
  point taken and plays as a shooter does (:func:`looks_like_a_shot`: it leads a high
  heart, or has won at least 3 tricks and half of those played).

Passing
    Normally it passes the three most dangerous cards, chosen one at a time over the
    cards it keeps: the QS unless guarded by ``qs_guard`` lower spades; the AS and KS
    when it keeps few low spades and no QS; high hearts; the last cards of a short club
    or diamond suit (to void it); then high cards. Low spades are kept as guards; under
    Omnibus the bonus card (the JD, or the TD with ``omnibus_card=TD``:
    :func:`deal_bonus_card`) and the high diamonds that catch it are kept. Under other
    card values (Black Maria, Pink Lady, Spot Hearts, ``queen_points=0``) a card's danger
    grows by 8 for each point it is worth beyond its usual points (:func:`value_pass`).
    With a hand strong enough to shoot (:func:`wants_moon`) it passes its losers instead.

Leading
    Each suit's lowest card is scored by the points it expects to take: the chance the
    lead wins (from the outstanding cards above and below it, as if the others duck),
    times the points such a trick would bring (the hearts that follow a heart lead, the
    QS under a high spade, discards of the seats known to be void). It flushes the QS:
    with the QS out and no higher spade held, a low spade is a welcome lead. It prefers
    short suits (a void to come), avoids spades while holding the QS, and under Omnibus
    leads the bonus card when it is the top diamond.

Following
    On trick 1 while it carries no points (no points allowed) it sheds its highest club;
    a trick 1 that carries points (a hand of only points had to discard them, or
    ``first_trick_points=allowed``) is followed like any trick. It drops the QS whenever
    it is under the winning card (an AS or KS played), even last on a trick it could win
    for free, unless it is shooting the moon or defending against one (below), or, under
    Omnibus, the trick holds the bonus card.
    Otherwise it plays its highest card under the winning card; last to play on a trick
    without points it wins with its highest card (shedding a high card for free, never
    the QS); forced to win, it sheds its highest
    card when it is last, when every seat after it is void, or in an early round of a
    club or diamond trick without points, else plays its lowest winner (its highest
    under Spot Hearts, keeping low cards to duck costly heart tricks). Under Omnibus it
    takes a trick holding the bonus card that costs fewer points than the bonus is worth
    (``omnibus_value``: 10 or 5), and wins with the bonus card itself when nothing can
    overtake it.

Discarding
    The QS first; then the AS/KS while the QS is out; then the most dangerous of the
    hearts and the high cards (by rank, hearts first, the top cards of their suits and
    the last card of a suit count more, low spades that guard the QS less, and a card
    more for each point it is worth beyond its usual points); not the bonus card under
    Omnibus.

Moon
    Attempt: from a strong deal (see ``moon_losers``; 3 losers fewer under Spot Hearts), or
    in the middle of a deal once it holds every point taken and every card left in its hand
    is a winner. While shooting it leads its sure winners, wins every trick it can, discards
    its low cards, and gives up once another seat takes a point. Defence: while another seat
    holds every point taken (at least ``defend_at``, or at least ``suspect_at`` when it
    leads a high heart or wins most tricks: :func:`moon_threat`), it wins tricks that seat
    would take with points, leads a top heart to take a heart itself, does not feed that
    seat points, and under its winning card plays its lowest card, never the QS (its high
    cards may stop the moon later).
    Measured against three ``shooter`` seats (1,000 games in each of the four seats,
    seed 1): it concedes a moon in 7.6% of its deals instead of 10.4% without the
    ``suspect_at`` test and the stoppers kept, and scores 7.26 [7.18, 7.35] points per deal
    instead of 7.75 [7.65, 7.84]; over three seats without them (the ladder, 1,000
    boards), +0.043 [+0.014, +0.071] points per deal.

New Moon
    :func:`moon_choice` picks the outcome that ends the game with a win when one does;
    otherwise it avoids the one that ends the game with a loss; otherwise it adds when
    that leaves it strictly lowest, else subtracts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hsim.engine._numba import kernel
from hsim.engine.bits import above, below, highest_card, lowest_card, popcount, suit_bits
from hsim.engine.hearts import (
    ACE_SPADES,
    ALL_CARDS,
    DIAMONDS_MASK,
    HEARTS_MASK,
    HIGH_SPADES,
    JACK_DIAMONDS,
    JD_BIT,
    KING_SPADES,
    QS_BIT,
    QUEEN_HEARTS,
    QUEEN_SPADES,
    SPADES_MASK,
    card_value_at,
    costly_mask_at,
    deal_bonus_card,
    deal_deck,
    deal_penalty_points,
    game_score,
    jack_taker_of,
    least_costly,
    moon_seat_score,
    most_costly,
    penalty_mask_at,
    plain_values_at,
    score_ends_game,
    seats_of,
)
from hsim.engine.layout import (
    FIRST_TRICK_POINTS_FORBIDDEN,
    HEART_POINTS_RANK,
    MOON_ADD,
    MOON_SUBTRACT,
    P_LEADER,
    P_LED_SUIT,
    P_N_PLAYS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_TAKEN,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEADER,
    P_TRICK_LEN,
    P_TRICK_WINNER,
    P_TRICKS_WON,
    P_VOIDS,
    R_BLACK_MARIA,
    R_FIRST_TRICK_POINTS,
    R_HEART_POINTS,
    R_MOON_REQUIRES_JACK,
    R_NO_DRAW,
    R_OMNIBUS,
    R_OMNIBUS_VALUE,
    R_PINK_LADY,
    R_QUEEN_POINTS,
    RULES_LEN,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_SEAT,
)
from hsim.engine.native import PASS_AT_SIG, PLAY_AT_SIG, data_ptr
from hsim.engine.signatures import MOON_SIG, PASS_SIG, PLAY_SIG
from hsim.model.cards import ACE_HEARTS, CLUBS_MASK, SUIT_MASK
from hsim.strategy.contract import CompiledStrategy, Param

LOW_SPADES = SPADES_MASK & (QS_BIT - 1)  # 2S..JS
JACK_HEARTS = ACE_HEARTS - 3

#: Compile a function of its own, called, not inlined: for the rare paths (a moon being
#: shot, a possible shooter's hand counted), which then stay out of the decisions' hot
#: code (it shares the instruction cache with the game loop). Measured in whole games,
#: same records: about 1% alone, within the noise; a hot path moved out of line instead
#: costs 2-4% (a call per decision).
out_of_line = njit(cache=True, _nrt=False)

# params array order
K_MOON_LOSERS = 0
K_DEFEND_AT = 1
K_QS_GUARD = 2
K_SUSPECT_AT = 3


@kernel
def candidates(cards: int, omnibus: bool, bonus: int = JACK_DIAMONDS) -> int:
    """Return the cards of ``cards`` that can rank first by :func:`pass_danger` or
    :func:`discard_danger`: within each group below, both grow with the rank, so only the
    highest card of a group can be the most dangerous. The groups: each suit; the spades
    split into the low spades, the QS, the AS and KS; under Omnibus the diamonds split
    into those under the ``bonus`` card (:func:`deal_bonus_card`), the bonus card, those
    over it.
    """
    out = cards & (QS_BIT | JD_BIT | (1 << bonus))
    for s in range(4):
        m = cards & suit_bits(s)
        if m:
            out |= 1 << highest_card(m)
    m = cards & LOW_SPADES
    if m:
        out |= 1 << highest_card(m)
    if omnibus:
        m = cards & DIAMONDS_MASK & ((1 << bonus) - 1)
        if m:
            out |= 1 << highest_card(m)
    return out


#: below every :func:`card_key`
NO_KEY = -(1 << 40)


@kernel
def card_key(danger: int, c: int) -> int:
    """Return the key of card ``c`` of (whole-number) ``danger``: ``danger * 64 + 63 - c``;
    the largest key is the most dangerous card, the lowest card of equals, and its low 6
    bits give the card back (``63 - (key & 63)``)."""
    return danger * 64 + 63 - c


# -- hand evaluation --------------------------------------------------------------------


@kernel
def suit_losers(hand: int, s: int) -> int:
    """Return the losing-trick count of suit ``s``: missing A, K, Q among its top cards
    (its top ``k`` ranks, ``k`` = the suit's length up to 3)."""
    mine = (hand >> (13 * s)) & SUIT_MASK
    n = popcount(mine)
    k = 3 if n > 3 else n
    # bits 0, 1, 2: Q, K, A; the top k ranks are the k high bits of these three
    top = (mine >> 10) & (7 << (3 - k)) & 7
    return k - popcount(top)


@out_of_line
def hand_losers(hand: int) -> int:
    """Return the losing-trick count of a hand (sum over the suits); asked only of a hand
    that could shoot (:func:`moon_shape`)."""
    return suit_losers(hand, 0) + suit_losers(hand, 1) + suit_losers(hand, 2) + suit_losers(hand, 3)


@out_of_line
def moon_pass(hand: int) -> int:
    """Return the 3 cards to pass when shooting: losers first, low cards, never hearts/QS."""
    out = 0
    for _ in range(3):
        best = -1
        best_key = 1 << 30
        rest = hand & ~out
        cand = rest & ~HEARTS_MASK & ~QS_BIT
        if cand == 0:
            cand = rest
        losers = hand_losers(rest)
        while cand:
            c = lowest_card(cand)
            cand &= cand - 1
            s = c // 13
            # the losers of rest without c: only suit s changes
            kept = losers - suit_losers(rest, s) + suit_losers(rest & ~(1 << c), s)
            key = kept * 100 + (c - 13 * s) * 4 - popcount(rest & suit_bits(s))
            if key < best_key:
                best_key = key
                best = c
        out |= 1 << best
    return out


@kernel
def moon_shape(hand: int, params) -> bool:
    """Return whether ``hand`` may shoot at all: attempts are on (``moon_losers`` >= 0)
    and it holds the AH, at least 4 hearts and one of QS, AS, KS."""
    return (  # the test that fails most often first: the AH (3 hands in 4)
        (hand >> ACE_HEARTS) & 1 != 0
        and popcount(hand & HEARTS_MASK) >= 4
        and hand & (QS_BIT | HIGH_SPADES) != 0
        and params[K_MOON_LOSERS] >= 0
    )


@kernel
def moon_fewer(public) -> int:
    """Return how many fewer losers than ``moon_losers`` a deal's moon attempt allows
    under the rules in ``public``: 3 with hearts worth their rank (Spot Hearts, A1.8),
    where a failed attempt takes many costly hearts, else 0."""
    return 3 if public[P_RULES + R_HEART_POINTS] == HEART_POINTS_RANK else 0


@kernel
def wants_moon(hand: int, passing: bool, params, fewer: int = 0) -> bool:
    """Return whether the dealt ``hand`` is strong enough to shoot the moon.

    It must have :func:`moon_shape`, and the hand kept (after a shooter's pass,
    :func:`moon_pass`, when ``passing``) at most ``moon_losers - fewer`` losers
    (:func:`hand_losers`; ``fewer``: :func:`moon_fewer`).
    """
    if not moon_shape(hand, params):
        return False
    limit = params[K_MOON_LOSERS] - fewer
    if limit < 0:
        return False
    if not passing:
        return hand_losers(hand) <= limit
    if hand_losers(hand) > limit + 3:
        return False  # a pass of 3 cards removes at most 3 losers
    return hand_losers(hand & ~moon_pass(hand)) <= limit


@kernel
def moon_from_deal(private, params, fewer: int = 0) -> bool:
    """Return whether this deal is a moon attempt from the start: :func:`wants_moon` of
    the dealt hand (``fewer``: :func:`moon_fewer`), read back from the pass made (a
    shooter passes :func:`moon_pass`)."""
    dealt = private[V_DEALT]
    if not moon_shape(dealt, params):
        return False
    limit = params[K_MOON_LOSERS] - fewer
    return limit >= 0 and hand_losers(dealt & ~private[V_PASSED]) <= limit


@out_of_line
def all_winners(hand: int, out: int) -> bool:
    """Return whether every card of ``hand`` beats every outstanding card of its suit."""
    for s in range(4):
        mine = hand & suit_bits(s)
        if mine == 0:
            continue
        if out & suit_bits(s) & ~((2 << lowest_card(mine)) - 1):
            return False
    return True


# -- reading the table ------------------------------------------------------------------


@kernel
def winning_card(public) -> int:
    """Return the card winning the current trick so far (it must have a card): the
    highest card of the led suit among the trick's cards (no trumps in Hearts)."""
    return highest_card(public[P_TRICK_CARDS] & suit_bits(public[P_LED_SUIT]))


@kernel
def seat_of(public, c: int) -> int:
    """Return the seat that played card ``c`` to the current trick, -1 if none did."""
    n = public[P_N_PLAYS]
    for k in range(n - public[P_TRICK_LEN], n):
        if public[P_PLAY_CARD + k] == c:
            return public[P_PLAY_SEAT + k]
    return -1


@kernel
def known_voids(public, me: int, s: int) -> int:
    """Return how many other seats have shown void in suit ``s``."""
    k = 0
    for seat in range(seats_of(public)):
        if seat != me and (public[P_VOIDS + seat] >> s) & 1:
            k += 1
    return k


@kernel
def jack_blocks_moon(public, seat: int) -> bool:
    """Return whether ``seat`` can no longer shoot because another seat took the bonus
    card (JD, or TD with ``omnibus_card=TD``; A2.2).
    """
    if public[P_RULES + R_OMNIBUS] == 0 or public[P_RULES + R_MOON_REQUIRES_JACK] == 0:
        return False
    others = 0
    for s in range(seats_of(public)):
        if s != seat:
            others |= public[P_TAKEN + s]
    return (others >> deal_bonus_card(public)) & 1 != 0


@out_of_line
def looks_like_a_shot(public, seat: int) -> bool:
    """Return whether ``seat`` plays as if shooting the moon: it leads a heart of the JH
    or higher now, or led one this deal and won its trick (a player avoiding points
    leads its lowest heart, a shooter its winners), or it has won at least 3 tricks and
    at least half of those played."""
    n = public[P_N_PLAYS]
    k = seats_of(public)
    done = public[P_TRICK]  # completed tricks: k cards each, the lead first
    for t in range(done + 1):
        if k * t >= n:
            break
        if public[P_TRICK_LEADER + t] != seat:
            continue
        c = public[P_PLAY_CARD + k * t]
        if c >= JACK_HEARTS and (t == done or public[P_TRICK_WINNER + t] == seat):
            return True
    won = public[P_TRICKS_WON + seat]
    return won >= 3 and 2 * won >= done


@kernel
def moon_threat(public, me: int, params) -> int:
    """Return the other seat that holds every point taken, or -1 when none does or it
    need not be stopped: it holds at least ``defend_at`` points, or at least
    ``suspect_at`` and :func:`looks_like_a_shot`. Both are in points of the usual 26:
    under other card values (A1.8) the points taken count in that scale."""
    total = 0
    n = seats_of(public)
    for s in range(n):
        total += public[P_POINTS + s]
    deck = deal_penalty_points(public, ALL_CARDS)  # 26 with the usual values
    if total == 0 or total * 26 < params[K_SUSPECT_AT] * deck:
        return -1
    for s in range(n):
        if s != me and public[P_POINTS + s] == total:
            if jack_blocks_moon(public, s):
                return -1
            if total * 26 >= params[K_DEFEND_AT] * deck or looks_like_a_shot(public, s):
                return s
            return -1
    return -1


@kernel
def may_still_shoot(public, me: int) -> bool:
    """Return whether seat ``me`` holds every point taken so far (none, too) and the JD
    can still be its own: a moon is still open to it."""
    total = 0
    for s in range(seats_of(public)):
        total += public[P_POINTS + s]
    return public[P_POINTS + me] == total and not jack_blocks_moon(public, me)


@kernel
def shooting(public, private, hand: int, out: int, params) -> bool:
    """Return whether this seat is (still) shooting the moon."""
    me = private[V_SEAT]
    if not may_still_shoot(public, me):
        return False
    if moon_from_deal(private, params, moon_fewer(public)):
        return True
    # mid-deal: every point so far is ours and every card left is a winner
    return public[P_POINTS + me] >= 6 and all_winners(hand, out)


# -- leading ----------------------------------------------------------------------------


def lead_win_chance(n_out: int, n_below: int, followers: int) -> float:
    """Return the chance that a lead wins its trick, as if the other seats duck.

    ``n_out``: the outstanding cards of the led suit (0..13), ``n_below`` of them under
    the card led, ``followers``: the seats expected to follow suit (0..5). Each follower
    holds about ``m`` of the suit and must overtake when all of them are above the lead
    (probability ``q**m``, ``q`` the share of the outstanding cards above it), else it
    ducks. Plain Python: :data:`LEAD_WIN` holds every value, for compiled code.
    """
    n_above = n_out - n_below
    if n_above == 0:
        return 1.0
    if n_below == 0:
        return 0.0
    q = n_above / n_out
    m = (n_out + followers - 1) // max(followers, 1)
    qm = 1.0
    for _ in range(m):
        qm *= q
    p_win = 1.0
    for _ in range(followers):
        p_win *= 1.0 - qm
    return p_win


#: :func:`lead_win_chance` of every (n_out, n_below, followers), float64[14, 14, 6] (0 where
#: n_below > n_out): a table look-up instead of a division and two product loops in
#: every lead's cost (the same float operations in the same order: the same bits).
LEAD_WIN = np.array(
    [
        [[lead_win_chance(n, b, f) if b <= n else 0.0 for f in range(6)] for b in range(14)]
        for n in range(14)
    ],
    dtype=np.float64,
)


@kernel
def void_counts(public, me: int) -> int:
    """Return how many other seats have shown void in each suit, packed one byte a suit
    (suit ``s`` in bits ``8s .. 8s+7``).

    A seat's void mask (4 bits, one a suit) is spread to one bit a byte by a multiply:
    bit ``s`` of ``v * 0x204081`` lands on bits ``s + 7k`` (k = 0..3), which never
    collide, and only ``k = s`` is kept by the mask ``0x01010101``.
    """
    counts = 0
    for seat in range(seats_of(public)):
        if seat != me:
            counts += (public[P_VOIDS + seat] * 0x204081) & 0x01010101
    return counts


@kernel
def lead_cost(
    hand: int,
    out: int,
    c: int,
    s: int,
    voids: int,
    dump: float,
    omnibus: bool,
    others: int = 3,
    bonus: int = JACK_DIAMONDS,
    bonus_points: float = 10.0,
) -> float:
    """Return the points a lead of ``c`` (of suit ``s``) is expected to cost (negative: a
    gain). ``voids``: the other seats known void in ``s``; ``dump``: the points a seat void
    in the led suit is expected to discard onto the trick (:func:`lead_normal`);
    ``others``: the other seats, 2 to 5 (one fewer than the seats, docs/rules.md A1.1);
    ``bonus``, ``bonus_points``: the Omnibus card and its value (A2.3).

    Written without branches on the cards: each condition picks one of two constants to
    add (adding 0.0 changes no cost, none being -0.0), and the tests of ``s`` fold away in
    :func:`suit_lead`, where ``s`` is a constant. Measured over 35,000 leads recorded
    from games, same leads: 28-43% less time a lead (three runs) than the same sums
    under ``if``s in a loop over the suits held, whose branches on the cards the CPU
    mispredicts; tests/test_heuristic_choices.py compares the two.
    """
    o = out & suit_bits(s)
    n_out = popcount(o)
    n_below = popcount(o & ((1 << c) - 1))
    voids = max(voids, others - n_out)  # too few cards out for every seat to follow
    followers = others - voids
    p_win = LEAD_WIN[n_out, n_below, followers]
    qs_out = out & QS_BIT != 0
    if s == 3:
        pts = 1.0 + min(followers, n_out)  # the lead and a heart from each follower
    elif s == 2:
        pts = 13.0 if c == QUEEN_SPADES else (13.0 * 0.8 if qs_out and c > QUEEN_SPADES else 0.0)
    else:
        pts = 0.0
    pts += voids * dump
    cost = p_win * pts
    if s == 2:
        if hand & QS_BIT:
            cost += 2.5  # keep the spades that guard our QS
        else:  # a low spade: our AS/KS need their guards, else flush the QS out
            low = qs_out and c < QUEEN_SPADES
            cost += (0.5 if hand & HIGH_SPADES else -1.5) if low else 0.0
    if s == 1:
        cost += -bonus_points * p_win if omnibus and c == bonus else 0.0
    n_mine = popcount(hand & suit_bits(s))
    cost += -0.4 if n_mine == 1 else (-0.2 if n_mine == 2 else 0.0)  # a void to come
    return cost + 0.01 * (c - 13 * s)


@kernel
def suit_lead(
    hand: int,
    legal: int,
    out: int,
    s: int,
    voids: int,
    dump: float,
    omnibus: bool,
    others: int = 3,
    bonus: int = JACK_DIAMONDS,
    bonus_points: float = 10.0,
):
    """Return (cost, card) of leading the lowest legal card of suit ``s``
    (:func:`lead_cost`, whose arguments these are; ``voids``: :func:`void_counts`); the
    cost is infinite when ``legal`` has no card of ``s``."""
    mine = legal & suit_bits(s)
    c = lowest_card(mine | (1 << (13 * s + 12)))  # the top card of s stands in for none
    cost = lead_cost(
        hand,
        out,
        c,
        s,
        (voids >> (8 * s)) & 0xFF,
        dump,
        omnibus,
        others,
        bonus,
        bonus_points,
    )
    return (cost if mine else np.inf), c


@kernel
def lead_normal(public, me: int, hand: int, legal: int, out: int, threat: int) -> int:
    """Choose a lead when not shooting: the cheapest suit's lowest card by
    :func:`lead_cost` (the first suit of equals), each suit costed."""
    if threat >= 0 and legal & HEARTS_MASK:
        top = highest_card(legal & HEARTS_MASK)
        if out & above(top) == 0 and out & HEARTS_MASK:
            return top  # take a heart trick ourselves to stop the moon
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    bonus = deal_bonus_card(public)  # the JD, or the TD (A2.3)
    if (
        omnibus
        and legal & (1 << bonus)
        and out & above(bonus) == 0
        and popcount(out & DIAMONDS_MASK) >= 2
        and known_voids(public, me, 1) == 0
    ):
        return bonus  # the top diamond: take the bonus card's -10 (or -5)
    bonus_points = float(public[P_RULES + R_OMNIBUS_VALUE])
    voids = void_counts(public, me)
    # what a seat void in the led suit discards onto the trick
    dump = (13.0 / 3.0 if out & QS_BIT else 0.0) + (1.5 if out & HEARTS_MASK else 0.0)
    others = seats_of(public) - 1
    best_cost, best = suit_lead(
        hand, legal, out, 0, voids, dump, omnibus, others, bonus, bonus_points
    )
    cost, c = suit_lead(hand, legal, out, 1, voids, dump, omnibus, others, bonus, bonus_points)
    if cost < best_cost:
        best_cost, best = cost, c
    cost, c = suit_lead(hand, legal, out, 2, voids, dump, omnibus, others, bonus, bonus_points)
    if cost < best_cost:
        best_cost, best = cost, c
    cost, c = suit_lead(hand, legal, out, 3, voids, dump, omnibus, others, bonus, bonus_points)
    return c if cost < best_cost else best


@out_of_line
def lead_moon(public, me: int, legal: int, out: int) -> int:
    """Choose a lead while shooting: a sure winner, else give a trick away cheaply."""
    best = -1
    best_key = -1
    for s in range(4):
        mine = legal & suit_bits(s)
        if mine == 0:
            continue
        top = highest_card(mine)
        if out & above(top) == 0:
            key = popcount(out & suit_bits(s)) + (20 if s != 3 else 10)
            if key > best_key:
                best_key = key
                best = top
    if best >= 0:
        return best
    # no sure winner: lose a trick now while it is cheap, in a suit the others follow
    best_key = 1 << 30
    for s in range(4):
        mine = legal & suit_bits(s)
        if mine == 0:
            continue
        c = lowest_card(mine)
        key = 10 * known_voids(public, me, s) - popcount(out & suit_bits(s))
        if s == 3:
            key += 100
        if key < best_key:
            best_key = key
            best = c
    return best


# -- following and discarding -----------------------------------------------------------


@kernel
def value_change(public, c: int) -> int:
    """Return card ``c``'s points under the rules in ``public`` less its usual points (a
    heart 1, the QS 13, else 0; docs/rules.md A1.8): 0 under the usual values, so the
    dangers tuned for them stand, and what Black Maria, Pink Lady, Spot Hearts or
    ``queen_points=0`` add or take away otherwise."""
    usual = 1 if c // 13 == 3 else (13 if c == QUEEN_SPADES else 0)
    return card_value_at(public, P_RULES, c) - usual


@kernel
def discard_danger(public, hand: int, out: int, c: int, s: int) -> int:
    """Return how much we want to get rid of ``c`` (of suit ``s``, given: a constant in
    :func:`discard_choice`, which removes the tests of the suit) when void in the led
    suit, in half points (whole numbers: compared exactly)."""
    r = c - 13 * s
    o = out & suit_bits(s)
    qs_out = out & QS_BIT != 0
    higher = o & ~((2 << c) - 1)  # the outstanding cards of s above c
    d = 2 * r
    if o and higher == 0:
        d += 8  # a sure winner later: a liability
    if popcount(higher) == 1:
        d += 3
    if s == 3:
        d += 20
    if s == 2:
        if c == QUEEN_SPADES:
            d += 200
        elif c > QUEEN_SPADES and qs_out:
            d += 60
        elif c < QUEEN_SPADES and (qs_out or hand & QS_BIT):
            d -= 8  # a guard
    if s != 3 and popcount(hand & suit_bits(s)) == 1:
        d += 3  # a void to come
    if o == 0 and s != 3:
        d -= 6  # nobody can lead into it: no risk left
    if public[P_RULES + R_OMNIBUS]:
        bonus = deal_bonus_card(public)  # the JD, or the TD (A2.3)
        if c == bonus:
            d -= 100
        elif s == 1 and c > bonus and (out >> bonus) & 1:
            d -= 8
    return d + 15 * value_change(public, c)


@kernel
def most_dangerous(public, hand: int, out: int, cards: int) -> int:
    """Return the card of ``cards`` (not empty) with the highest :func:`discard_danger`,
    the lowest card of equals: the definition, a loop over :func:`candidates`, which
    :func:`discard_choice` computes without it (a test compares the two)."""
    best = lowest_card(cards)
    best_d = -(1 << 40)
    cand = candidates(cards, public[P_RULES + R_OMNIBUS] != 0, deal_bonus_card(public))
    while cand:
        c = lowest_card(cand)
        cand &= cand - 1
        d = discard_danger(public, hand, out, c, c // 13)
        if d > best_d:
            best_d = d
            best = c
    return best


@kernel
def group_key(public, hand: int, out: int, group: int, s: int) -> int:
    """Return :func:`card_key` of the highest card of ``group`` (cards of suit ``s``) by
    its :func:`discard_danger`, :data:`NO_KEY` when ``group`` is empty."""
    c = highest_card(group | (1 << (13 * s)))  # the lowest card of s stands in for none
    key = card_key(discard_danger(public, hand, out, c, s), c)
    return key if group else NO_KEY


@out_of_line
def discard_choice(public, hand: int, out: int, cards: int) -> int:
    """Return :func:`most_dangerous` of ``cards`` (not empty) from the highest card of
    each group of :func:`candidates`, every group asked, the suit a constant in each:
    no loop and few branches. Two groups never rank first and are left out: the low
    spades (the highest spade held is more dangerous: the QS by its 200; an AS or KS by
    4 or more for its rank, with no fewer bonuses, while a low spade only loses for
    guarding), and without Omnibus the JD (a higher diamond is at least 2 more for its
    rank, with no fewer bonuses).
    Measured in whole games of ``heuristic``, same records: 4-5% more deals/s than the
    loop over the candidates (three alternating A/B runs, median paired ratios 1.044-1.050).
    Compiled out of line: inlined into the game loop compiled with ``heuristic`` it made
    the first run's compile about 30 s longer (the engine, heuristic and its loop from
    an empty cache: 110 s, against 72 s out of line and 79 s before this function), and
    played no faster (paired ratios 0.97-1.00).
    """
    best = group_key(public, hand, out, cards & CLUBS_MASK, 0)
    best = max(best, group_key(public, hand, out, cards & DIAMONDS_MASK, 1))
    best = max(best, group_key(public, hand, out, cards & SPADES_MASK, 2))
    best = max(best, group_key(public, hand, out, cards & QS_BIT, 2))
    best = max(best, group_key(public, hand, out, cards & HEARTS_MASK, 3))
    if public[P_RULES + R_BLACK_MARIA]:  # the KS and AS are worth points themselves
        best = max(best, group_key(public, hand, out, cards & (1 << KING_SPADES), 2))
        best = max(best, group_key(public, hand, out, cards & (1 << ACE_SPADES), 2))
    if public[P_RULES + R_PINK_LADY]:  # the QH, not the highest heart, may be worth most
        best = max(best, group_key(public, hand, out, cards & (1 << QUEEN_HEARTS), 3))
    if public[P_RULES + R_OMNIBUS]:
        bonus = 1 << deal_bonus_card(public)  # the JD, or the TD (A2.3)
        best = max(best, group_key(public, hand, out, cards & bonus, 1))
        best = max(best, group_key(public, hand, out, cards & DIAMONDS_MASK & (bonus - 1), 1))
    return 63 - (best & 63)


@kernel
def discard_normal(public, me: int, hand: int, legal: int, out: int, threat: int, wseat: int):
    """Choose a discard (void in the led suit) when not shooting."""
    feed_threat = False
    if threat >= 0:
        if wseat == threat:
            feed_threat = True
        else:
            # the threat may still overtake: only if it has yet to play and is not void
            n = public[P_TRICK_LEN]
            leader = public[P_LEADER]
            pos_threat = (threat - leader) % seats_of(public)
            if pos_threat > n and (public[P_VOIDS + threat] >> public[P_LED_SUIT]) & 1 == 0:
                feed_threat = True
    cand = legal
    points = penalty_mask_at(public, P_RULES)  # hearts and the QS with the usual values
    if feed_threat:
        safe = legal & ~points
        if safe:
            cand = safe
    elif threat >= 0:
        pts = legal & points
        if pts:
            cand = pts  # points to a seat that is not shooting: stops the moon
    return discard_choice(public, hand, out, cand)


@kernel
def seats_after_void(public, me: int, n: int, s: int) -> bool:
    """Return whether every seat still to play this trick has shown void in suit ``s``."""
    seats = seats_of(public)
    for k in range(1, seats - n):
        seat = (me + k) % seats
        if (public[P_VOIDS + seat] >> s) & 1 == 0:
            return False
    return True


@kernel
def no_void_after(public, me: int, n: int, s: int) -> bool:
    """Return whether no seat still to play this trick has shown void in suit ``s``."""
    shown = 0
    seats = seats_of(public)
    for k in range(1, seats - n):
        shown |= public[P_VOIDS + (me + k) % seats]
    return (shown >> s) & 1 == 0


@kernel
def stopper_keeping(under: int, costly: int) -> int:
    """Return the card to play under a possible shooter's winning card: the lowest of
    ``under`` (not empty) other than the ``costly`` cards (:func:`costly_mask_at`, the QS
    with the usual values), keeping the high cards that may win a trick from it later (a
    heart over its last hearts, a spade over its spades)."""
    keep = under & ~costly
    return lowest_card(keep if keep else under)


@kernel
def follow_normal(public, me, hand, follow, out, threat, wcard, wseat, n):
    """Choose a card of the led suit when not shooting."""
    led = wcard // 13
    trick = public[P_TRICK_CARDS]
    pts = deal_penalty_points(public, trick)
    costly = costly_mask_at(public, P_RULES)  # the QS with the usual values (A1.8)
    under = follow & below(wcard)
    over = follow & ~under
    over_safe = over & ~costly
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    bonus = deal_bonus_card(public)  # the JD, or the TD (A2.3)
    bonus_bit = 1 << bonus
    bonus_points = public[P_RULES + R_OMNIBUS_VALUE]  # 10, or 5
    last = n == seats_of(public) - 1
    if (
        public[P_TRICK] == 0
        and public[P_RULES + R_FIRST_TRICK_POINTS] == FIRST_TRICK_POINTS_FORBIDDEN
        and pts == 0
    ):
        return highest_card(follow)  # trick 1 carries no points: shed the highest club
    if under & costly and threat < 0 and not (omnibus and trick & bonus_bit):
        return most_costly(public, P_RULES, under & costly)  # lose the trick with the queen
    if (
        omnibus
        and over & bonus_bit
        and pts < bonus_points
        and (last or (out & DIAMONDS_MASK & above(bonus) == 0 and no_void_after(public, me, n, 1)))
    ):
        return bonus  # the bonus card wins, and no one after can overtake or discard
    if last:
        if threat >= 0 and wseat == threat and pts > 0 and over_safe:
            return highest_card(over_safe)  # stop the moon
        if over_safe and (pts == 0 or (omnibus and trick & bonus_bit and pts < bonus_points)):
            return highest_card(over_safe)  # a free trick: shed a high card
        if under:
            if threat >= 0 and wseat == threat:
                return stopper_keeping(under, costly)
            if under & costly:
                return most_costly(public, P_RULES, under & costly)
            return highest_card(under)
        if over_safe:
            return highest_card(over_safe)
        return least_costly(public, P_RULES, follow)  # the QS alone with the usual values
    if under:
        if under & costly and not (threat >= 0 and wseat == threat):
            return most_costly(public, P_RULES, under & costly)  # the queen under the AS/KS
        if threat >= 0 and wseat == threat:
            if pts > 0 and over_safe:
                return highest_card(over_safe)  # try to take it from the shooter
            return stopper_keeping(under, costly)
        return highest_card(under)
    # every card we may play wins for now
    if over_safe == 0:
        return least_costly(public, P_RULES, follow)  # the QS alone with the usual values
    if public[P_RULES + R_HEART_POINTS] == HEART_POINTS_RANK:
        return highest_card(over_safe)  # Spot Hearts: keep the low cards to duck with later
    if seats_after_void(public, me, n, led):
        return highest_card(over_safe)  # nobody can overtake: shed the highest
    played_in_suit = popcount(public[P_PLAYED] & suit_bits(led)) - popcount(trick & suit_bits(led))
    if led != 3 and led != 2 and played_in_suit <= 4 and pts == 0:
        return highest_card(over_safe)  # an early round of a side suit: rarely points
    return lowest_card(over_safe)


@out_of_line
def follow_moon(follow, out, wcard, last):
    """Choose a card of the led suit while shooting; ``last``: we play the trick's last card."""
    over = follow & ~below(wcard)
    if over:
        if last:
            return lowest_card(over)
        return highest_card(over)
    return lowest_card(follow)


@out_of_line
def discard_moon(public, hand, legal, out):
    """Choose a discard while shooting: a low card that neither wins nor gives points."""
    safe = legal & ~penalty_mask_at(public, P_RULES)
    bonus_bit = 1 << deal_bonus_card(public)  # the JD, or the TD (A2.3)
    if public[P_RULES + R_OMNIBUS] and safe & ~bonus_bit:
        safe &= ~bonus_bit
    if safe:
        best = lowest_card(safe)
        best_key = 1 << 30
        while safe:
            c = lowest_card(safe)
            safe &= safe - 1
            # keep sure winners; throw the lowest loser
            key = c % 13
            if out & above(c) == 0:
                key += 20
            if key < best_key:
                best_key = key
                best = c
        return best
    return lowest_card(legal)


# -- the decisions ------------------------------------------------------------------------
# The three decisions are compiled without NRT (``_nrt=False``, as the engine's entry
# points): they allocate nothing, and numba's reference counting of their four argument
# arrays took about 40% of an average play decision (measured over recorded decisions).


@njit(PLAY_AT_SIG, cache=True, _nrt=False)
def play_at(public, private, legal, rng, params):
    """Play a card (see the module docstring); the native entry the loops call
    (:mod:`hsim.engine.native`): the arguments are the arrays' data pointers."""
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    me = private[V_SEAT]
    hand = private[V_HAND]
    out = deal_deck(public) & ~public[P_PLAYED] & ~hand  # 3 seats: removed_card out (A1.1)
    n = public[P_TRICK_LEN]
    shoot = shooting(public, private, hand, out, params)
    threat = -1 if shoot else moon_threat(public, me, params)
    if n == 0:
        if shoot:
            return lead_moon(public, me, legal, out)
        return lead_normal(public, me, hand, legal, out, threat)
    wcard = winning_card(public)
    # the seat winning the trick matters only against a moon: look it up only then
    wseat = seat_of(public, wcard) if threat >= 0 else -1
    follow = legal & suit_bits(public[P_LED_SUIT])
    if follow:
        if shoot:
            return follow_moon(follow, out, wcard, n == seats_of(public) - 1)
        return follow_normal(public, me, hand, follow, out, threat, wcard, wseat, n)
    if shoot:
        return discard_moon(public, hand, legal, out)
    return discard_normal(public, me, hand, legal, out, threat, wseat)


@njit(PLAY_SIG, cache=True, _nrt=False)
def play(public, private, legal, rng, params):
    """Play a card (see the module docstring): :func:`play_at` over the arrays' data."""
    return play_at(data_ptr(public), data_ptr(private), legal, data_ptr(rng), data_ptr(params))


@kernel
def pass_danger(
    hand: int, c: int, omnibus: bool, qs_guard: float, bonus: int = JACK_DIAMONDS
) -> float:
    """Return how much we want to pass ``c`` out of ``hand`` (the cards still kept);
    ``bonus``: the Omnibus card (:func:`deal_bonus_card`)."""
    s = c // 13
    r = c % 13
    n_s = popcount(hand & suit_bits(s))
    low_spades = popcount(hand & LOW_SPADES)
    if c == QUEEN_SPADES:
        return -5.0 if low_spades >= qs_guard else 100.0  # keep a guarded queen
    if s == 2:
        if c > QUEEN_SPADES:
            if hand & QS_BIT and low_spades >= qs_guard:
                return 6.0 + r
            if low_spades <= 2:
                return 60.0 + r
            return 14.0 + r
        return r - 10.0  # low spades guard
    if s == 3:
        d = 2.0 * r
        if r >= 8:
            d += 20.0
        return d
    d = float(r)
    if n_s == 1:
        d += 14.0
    elif n_s == 2:
        d += 9.0
    elif n_s == 3:
        d += 2.0
    if s == 0 and r == 0:
        d -= 5.0
    if omnibus and s == 1:
        if c == bonus:
            d -= 50.0
        elif c > bonus:
            d -= 6.0
    return d


@kernel
def suit_candidates(cards: int, s: int, omnibus: bool, bonus: int = JACK_DIAMONDS) -> int:
    """Return :func:`candidates` of ``cards``, all of suit ``s`` (non-empty or not)."""
    if cards == 0:
        return 0
    out = (1 << highest_card(cards)) | (cards & (QS_BIT | JD_BIT | (1 << bonus)))
    if s == 2:
        m = cards & LOW_SPADES
        if m:
            out |= 1 << highest_card(m)
    elif s == 1 and omnibus:
        m = cards & ((1 << bonus) - 1)
        if m:
            out |= 1 << highest_card(m)
    return out


@kernel
def pass_key(keep: int, s: int, omnibus: bool, qs_guard: float, bonus: int = JACK_DIAMONDS) -> int:
    """Return the key of the card of suit ``s`` that :func:`pass_cards` would pass first
    out of ``keep``, :data:`NO_KEY` when ``keep`` has no card of ``s``.

    The key is ``danger * 64 + 63 - card``: :func:`pass_danger` is a whole number, so the
    largest key is the most dangerous card, the lowest of equals (the first of them in
    card order). A card's danger depends only on the cards of its own suit in ``keep``.
    The definition: :func:`pass_at` computes the same keys in closed form
    (:func:`suit_pass_key`).
    """
    best = NO_KEY
    cand = suit_candidates(keep & suit_bits(s), s, omnibus, bonus)
    while cand:
        c = lowest_card(cand)
        cand &= cand - 1
        best = max(best, card_key(int(pass_danger(keep, c, omnibus, qs_guard, bonus)), c))
    return best


# The keys of pass_key in closed form, one suit at a time: what pass_at computes. Each
# takes the suit's cards kept as ranks (bits 0..12, ``m``) and returns the key of its
# most dangerous card; a test compares them with pass_key on every holding of every
# suit. About 40% less time a pass than pass_key's loop over the candidates (measured
# over 200,000 dealt hands: 70 -> 40 ns).

CLUBS, DIAMONDS, SPADES, HEARTS = 0, 13, 26, 39  # the card of rank 0 of each suit
JACK = JACK_DIAMONDS - DIAMONDS  # the rank of a jack, 9
QUEEN = QUEEN_SPADES - SPADES  # the rank of a queen, 10


@kernel
def length_bonus(n: int) -> int:
    """Return :func:`pass_danger`'s bonus for a club or diamond of a suit of ``n`` cards
    kept: 14, 9 and 2 for 1, 2 and 3 cards (a void to make), else 0."""
    if n == 1:
        return 14
    if n == 2:
        return 9
    if n == 3:
        return 2
    return 0


@kernel
def club_key(m: int) -> int:
    """Return :func:`pass_key` of the clubs ``m``: the highest club's."""
    if m == 0:
        return NO_KEY
    r = highest_card(m)
    d = r + length_bonus(popcount(m))
    if r == 0:
        d -= 5  # the 2C alone
    return card_key(d, CLUBS + r)


@kernel
def heart_key(m: int) -> int:
    """Return :func:`pass_key` of the hearts ``m``: the highest heart's."""
    if m == 0:
        return NO_KEY
    r = highest_card(m)
    d = 2 * r
    if r >= 8:
        d += 20
    return card_key(d, HEARTS + r)


@kernel
def diamond_key(m: int, omnibus: bool) -> int:
    """Return :func:`pass_key` of the diamonds ``m``: the highest diamond's; under Omnibus
    the best of the highest (-6 over the JD), the JD (-50) and the highest under it."""
    if m == 0:
        return NO_KEY
    r = highest_card(m)
    b = length_bonus(popcount(m))
    if not omnibus:
        return card_key(r + b, DIAMONDS + r)
    d = r + b
    if r > JACK:
        d -= 6
    elif r == JACK:
        d -= 50
    best = card_key(d, DIAMONDS + r)
    if (m >> JACK) & 1:
        best = max(best, card_key(JACK + b - 50, JACK_DIAMONDS))
    under = m & ((1 << JACK) - 1)
    if under:
        u = highest_card(under)
        best = max(best, card_key(u + b, DIAMONDS + u))
    return best


@kernel
def spade_key(m: int, qs_guard: float) -> int:
    """Return :func:`pass_key` of the spades ``m``: the best of the AS or KS on top, the
    QS, and the highest low spade (2S..JS)."""
    if m == 0:
        return NO_KEY
    low = m & ((1 << QUEEN) - 1)
    n_low = popcount(low)
    queen = (m >> QUEEN) & 1 != 0
    best = NO_KEY
    r = highest_card(m)
    if r > QUEEN:
        if queen and n_low >= qs_guard:
            d = 6 + r
        elif n_low <= 2:
            d = 60 + r
        else:
            d = 14 + r
        best = card_key(d, SPADES + r)
    if queen:
        d = -5 if n_low >= qs_guard else 100
        best = max(best, card_key(d, QUEEN_SPADES))
    if low:
        u = highest_card(low)
        best = max(best, card_key(u - 10, SPADES + u))
    return best


@kernel
def suit_pass_key(keep: int, s: int, omnibus: bool, qs_guard: float) -> int:
    """Return :func:`pass_key` (``keep``, ``s``, ``omnibus``, ``qs_guard``) from the
    closed forms: the same key for every ``keep``."""
    m = (keep >> (13 * s)) & SUIT_MASK
    if s == 0:
        return club_key(m)
    if s == 1:
        return diamond_key(m, omnibus)
    if s == 2:
        return spade_key(m, qs_guard)
    return heart_key(m)


@kernel
def value_pass(public, hand: int, omnibus: bool, qs_guard: float) -> int:
    """Return the three cards to pass under card values other than the usual (A1.8), or
    with the TD as the Omnibus card: one at a time, the card of the highest
    :func:`pass_danger` plus 8 per point it is worth beyond its usual points
    (:func:`value_change`), the lowest card of equals."""
    bonus = deal_bonus_card(public)
    keep = hand
    for _ in range(3):
        best = -1
        best_d = -np.inf
        m = keep
        while m:
            c = lowest_card(m)
            m &= m - 1
            d = pass_danger(keep, c, omnibus, qs_guard, bonus) + 8.0 * value_change(public, c)
            if d > best_d:
                best, best_d = c, d
        keep &= ~(1 << best)
    return hand & ~keep


@njit(PASS_AT_SIG, cache=True, _nrt=False)
def pass_at(public, private, rng, params):
    """Pass three cards (see the module docstring); the native entry the loops call, over
    the arrays' data pointers (as :func:`play_at`).

    The three cards are chosen one at a time, the most dangerous first (:func:`pass_danger`
    over the cards still kept); passing a card changes the dangers of its own suit only,
    so only that suit's best card (:func:`pass_key`, computed as :func:`suit_pass_key`)
    is found again.
    """
    hand = private[V_HAND]
    if wants_moon(hand, True, params, moon_fewer(public)):
        return moon_pass(hand)
    omnibus = public[P_RULES + R_OMNIBUS] != 0
    guard = params[K_QS_GUARD]
    if (
        not plain_values_at(public, P_RULES)
        or public[P_RULES + R_QUEEN_POINTS] != 13
        or (omnibus and deal_bonus_card(public) != JACK_DIAMONDS)
    ):  # the closed forms below hold for the usual values and the JD only
        return value_pass(public, hand, omnibus, guard)
    k0 = suit_pass_key(hand, 0, omnibus, guard)
    k1 = suit_pass_key(hand, 1, omnibus, guard)
    k2 = suit_pass_key(hand, 2, omnibus, guard)
    k3 = suit_pass_key(hand, 3, omnibus, guard)
    keep = hand
    for i in range(3):
        c = 63 - (max(max(k0, k1), max(k2, k3)) & 63)
        keep &= ~(1 << c)
        if i == 2:
            break
        s = c // 13
        k = suit_pass_key(keep, s, omnibus, guard)
        if s == 0:
            k0 = k
        elif s == 1:
            k1 = k
        elif s == 2:
            k2 = k
        else:
            k3 = k
    return hand & ~keep


@njit(PASS_SIG, cache=True, _nrt=False)
def pass_cards(public, private, rng, params):
    """Pass three cards (see the module docstring): :func:`pass_at` over the arrays' data."""
    return pass_at(data_ptr(public), data_ptr(private), data_ptr(rng), data_ptr(params))


@kernel
def score_after(public, me: int, s: int, choice: int, jack: int) -> int:
    """Return seat ``s``'s game score after this moon deal scored with ``choice`` (the
    engine's own moon and clamp rules, A2.2-A2.5; ``jack`` took the bonus card).
    """
    rules = public[P_RULES : P_RULES + RULES_LEN]
    return game_score(rules, public[P_SCORES + s], moon_seat_score(rules, me, choice, jack, s))


@kernel
def moon_outcome(public, me: int, choice: int, jack: int) -> int:
    """Return 2 when ``choice`` ends the game with us winning, 1 losing, 0 when it goes on;
    add 10 when it leaves us strictly lowest."""
    mine = score_after(public, me, me, choice, jack)
    high = mine
    low = mine
    n_low = 0
    strict = True
    seats = seats_of(public)
    for s in range(seats):
        v = score_after(public, me, s, choice, jack)
        high = max(high, v)
        low = min(low, v)
        if s != me and v <= mine:
            strict = False
    for s in range(seats):
        n_low += score_after(public, me, s, choice, jack) == low
    ends = score_ends_game(public[P_RULES : P_RULES + RULES_LEN], high) and (
        public[P_RULES + R_NO_DRAW] == 0 or n_low == 1
    )
    result = 0
    if ends:
        result = 2 if mine == low else 1
    if strict:
        result += 10
    return result


@njit(MOON_SIG, cache=True, _nrt=False)
def moon_choice(public, private, rng, params):
    """New Moon: win the game now if one outcome does; avoid ending it with a loss; else
    add when that leaves us strictly lowest, subtract otherwise."""
    me = private[V_SEAT]
    jack = jack_taker_of(public)
    add = moon_outcome(public, me, MOON_ADD, jack)
    sub = moon_outcome(public, me, MOON_SUBTRACT, jack)
    if add % 10 == 2:
        return MOON_ADD
    if sub % 10 == 2:
        return MOON_SUBTRACT
    if add % 10 == 1:
        return MOON_SUBTRACT
    if sub % 10 == 1:
        return MOON_ADD
    return MOON_ADD if add >= 10 else MOON_SUBTRACT


STRATEGY = CompiledStrategy(
    name="heuristic",
    pass_cards=pass_cards,
    play=play,
    moon_choice=moon_choice,
    native_pass=pass_at,
    native_play=play_at,
    in_loop=True,
    params={
        "moon_losers": Param(3, float, -1, 13),
        "defend_at": Param(14, float, 0, 27),
        "qs_guard": Param(2, float, 0, 13),
        "suspect_at": Param(1, float, 1, 27),
    },
    param_help={
        "moon_losers": "attempt a moon from a deal whose kept hand has at most this many "
        "losers (and the top hearts); -1: never",
        "defend_at": "defend against a moon once another seat holds all points taken, "
        "at least this many (27 with suspect_at=27: never)",
        "qs_guard": "keep the QS when holding at least this many lower spades",
        "suspect_at": "defend against a moon from this many points when the seat holding "
        "them all leads high hearts or wins most tricks (27: never)",
    },
    description="rule-based: passes and leads by danger, ducks, flushes the QS, moons",
)
