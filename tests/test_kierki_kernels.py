"""Scenario tests of the Kierki rule kernels (docs/rules.md part B, :mod:`hsim.engine.kierki`).

Each kernel is checked on hands written as card names; each option is checked on *and*
off, so a test fails if the kernel ignored it. The conservation tests play random legal
deals in Python with the kernels (random hands, random legal cards, trick winners by
:func:`trick_winner`) and check that a deal's points add up to its full value (B2-B4).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from hsim.engine import kierki as K
from hsim.model.cards import cards_of, parse_card, parse_mask

PENALTY_KINDS = (
    K.KIND_TRICKS,
    K.KIND_HEARTS,
    K.KIND_QUEENS,
    K.KIND_MEN,
    K.KIND_KING_OF_HEARTS,
    K.KIND_SEVENTH_AND_LAST,
    K.KIND_REBEL,
)


def trick(text: str) -> np.ndarray:
    """Return the cards of a trick, in play order, as the int64 array the kernel takes."""
    return np.array([parse_card(c) for c in text.split()], dtype=np.int64)


# --- B1 -------------------------------------------------------------------------------


def test_deck_and_hands():
    assert K.deck_mask(4) == (1 << 52) - 1
    assert K.deck_mask(3) == ((1 << 52) - 1) & ~parse_mask("2C")
    assert bin(K.deck_mask(3)).count("1") == 51
    assert K.hand_size(4) == 13 and K.hand_size(3) == 17
    assert K.hand_size(3) * 3 == 51 and K.hand_size(4) * 4 == 52
    assert K.trump_preview_size(4) == 5 and K.trump_preview_size(3) == 6


@pytest.mark.parametrize(
    ("n", "rebel", "expected"),
    [
        (4, 0, [0, 1, 2, 3, 4, 5, 7, 7, 7, 7, 8]),
        (4, 1, [0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 8]),
        (3, 0, [0, 1, 2, 3, 4, 5, 7, 7, 7, 8]),
        (3, 1, [0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 8]),
    ],
)
def test_deal_sequence(n, rebel, expected):
    assert K.n_deals(n, rebel) == len(expected)
    assert [K.deal_kind(k, n, rebel) for k in range(K.n_deals(n, rebel))] == expected
    assert K.deal_kind(K.n_deals(n, rebel), n, rebel) == -1
    names = [K.KIND_NAMES[c] for c in expected]
    assert names[:6] == ["tricks", "hearts", "queens", "men", "king_of_hearts", "seventh_and_last"]
    assert names[-1] == "lottery" and names.count("trump") == n


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("rebel", [0, 1])
def test_dealer_leader_chooser(n, rebel):
    trump_choosers_left, trump_choosers_dealer = [], []
    for k in range(K.n_deals(n, rebel)):
        kind = K.deal_kind(k, n, rebel)
        dealer = K.dealer_of(k, n)
        assert dealer == k % n  # seat 0 deals first, then passing left
        if kind == K.KIND_LOTTERY:
            assert K.leader_of(k, n, kind, K.LOTTERY_LEADER_DEALER) == dealer
            assert K.leader_of(k, n, kind, K.LOTTERY_LEADER_DEALER_LEFT) == (dealer + 1) % n
        else:
            for opt in (K.LOTTERY_LEADER_DEALER, K.LOTTERY_LEADER_DEALER_LEFT):
                assert K.leader_of(k, n, kind, opt) == (dealer + 1) % n
        if kind == K.KIND_TRUMP:
            trump_choosers_left.append(K.trump_chooser_of(k, n, K.TRUMP_CHOOSER_DEALER_LEFT))
            trump_choosers_dealer.append(K.trump_chooser_of(k, n, K.TRUMP_CHOOSER_DEALER))
    # every seat chooses trump exactly once, whichever option
    assert sorted(trump_choosers_left) == list(range(n))
    assert sorted(trump_choosers_dealer) == list(range(n))
    assert [
        (c - d) % n for c, d in zip(trump_choosers_left, trump_choosers_dealer, strict=True)
    ] == [1] * n


def test_dealer_examples_4p():
    # deal 1 (k=0): dealer 0, seat 1 leads; the first trump deal (k=6): dealer 2, chooser 3
    assert K.leader_of(0, 4, K.KIND_TRICKS, 0) == 1
    assert K.deal_kind(6, 4, 0) == K.KIND_TRUMP and K.dealer_of(6, 4) == 2
    assert K.trump_chooser_of(6, 4, K.TRUMP_CHOOSER_DEALER_LEFT) == 3
    assert K.trump_chooser_of(6, 4, K.TRUMP_CHOOSER_DEALER) == 2
    # the lottery (k=10) is dealt by seat 2, who leads it by default (docs/rules.md B4)
    assert K.leader_of(10, 4, K.KIND_LOTTERY, K.LOTTERY_LEADER_DEALER) == 2
    assert K.leader_of(10, 4, K.KIND_LOTTERY, K.LOTTERY_LEADER_DEALER_LEFT) == 3


# --- B2/B3 legal plays ----------------------------------------------------------------


@pytest.mark.parametrize("kind", PENALTY_KINDS + (K.KIND_TRUMP,))
def test_lead_hearts(kind):
    hand = parse_mask("2H AH 5C")
    legal = K.legal_plays(kind, hand, -1, 0, -1, 0, 0, 0)
    if kind in (K.KIND_HEARTS, K.KIND_KING_OF_HEARTS, K.KIND_REBEL):
        assert legal == parse_mask("5C")
        # only hearts left: a heart may be led
        assert K.legal_plays(kind, parse_mask("2H AH"), -1, 0, -1, 0, 0, 0) == parse_mask("2H AH")
    else:
        assert legal == hand


@pytest.mark.parametrize("kind", PENALTY_KINDS)
def test_follow_suit_and_discard(kind):
    hand = parse_mask("2H KH 5C 9C QS")
    led = parse_mask("TC")
    assert K.legal_plays(kind, hand, 0, led, -1, 0, 0, 0) == parse_mask("5C 9C")
    # void in diamonds: anything, hearts included (discarding hearts is allowed)
    assert K.legal_plays(kind, hand, 1, parse_mask("TD"), -1, 0, 0, 0) == hand


KH_DEALS = (K.KIND_KING_OF_HEARTS, K.KIND_REBEL)  # B2.5 and B2.7


@pytest.mark.parametrize("kind", PENALTY_KINDS + (K.KIND_TRUMP,))
def test_king_of_hearts_first_chance(kind):
    """B2, option ``king_of_hearts_first_chance``: in the KH and rebel deals the KH holder
    void in the led suit, or following hearts with the AH already in the trick, must play
    the KH; every other play is unchanged, and off (or in other deals) nothing changes."""
    hand = parse_mask("2H KH 5C 9C")
    kh, both_hearts = parse_mask("KH"), parse_mask("2H KH")
    applies = kind in KH_DEALS

    def legal(led, trick, first_chance, cards=hand):
        return K.legal_plays(kind, cards, led, parse_mask(trick), -1, 0, first_chance, 0)

    # void in diamonds: the KH alone (on), any card (off)
    assert legal(1, "TD", 1) == (kh if applies else hand)
    assert legal(1, "TD", 0) == hand
    # hearts led, the AH in the trick: the KH alone (on), either heart (off)
    assert legal(3, "3H AH", 1) == (kh if applies else both_hearts)
    assert legal(3, "3H AH", 0) == both_hearts
    # hearts led without the AH, clubs led: follow suit as usual
    assert legal(3, "3H QH", 1) == both_hearts
    assert legal(0, "TC", 1) == parse_mask("5C 9C")
    # the lead is unchanged; a hand without the KH is unchanged
    assert legal(-1, "", 1) == legal(-1, "", 0)
    assert legal(1, "TD", 1, parse_mask("2H 5C")) == parse_mask("2H 5C")


@pytest.mark.parametrize("kind", PENALTY_KINDS + (K.KIND_TRUMP,))
def test_heart_lead_ban(kind):
    """B2, option ``heart_lead_ban``: in deals 2, 5 and 7, ``every_heart`` (default) bans
    every heart lead while the leader holds another suit; ``king_of_hearts`` bans only the
    KH, while the leader holds any other card. Other deals and following are unchanged."""
    banned = kind in (K.KIND_HEARTS, K.KIND_KING_OF_HEARTS, K.KIND_REBEL)

    def lead(cards, ban):
        return K.legal_plays(kind, parse_mask(cards), -1, 0, -1, 0, 0, ban)

    every, king = K.HEART_LEAD_BAN_EVERY_HEART, K.HEART_LEAD_BAN_KING
    mixed = "2H KH AH 5C"
    assert lead(mixed, every) == (parse_mask("5C") if banned else parse_mask(mixed))
    assert lead(mixed, king) == (parse_mask("2H AH 5C") if banned else parse_mask(mixed))
    # only hearts: every heart may be led by default; the KH still waits under king
    assert lead("2H KH", every) == parse_mask("2H KH")
    assert lead("2H KH", king) == (parse_mask("2H") if banned else parse_mask("2H KH"))
    assert lead("KH", king) == parse_mask("KH")
    # following is not a lead
    follow = K.legal_plays(kind, parse_mask(mixed), 1, parse_mask("TD"), -1, 0, 0, king)
    assert follow == parse_mask(mixed)


def test_trump_without_must_trump():
    hand = parse_mask("2S 9S 4H")
    # void in clubs, trump spades: any card without must_trump
    assert K.legal_plays(K.KIND_TRUMP, hand, 0, parse_mask("AC"), 2, 0, 0, 0) == hand
    # following suit always wins over trumping
    assert K.legal_plays(K.KIND_TRUMP, hand, 3, parse_mask("KH"), 2, 1, 0, 0) == parse_mask("4H")


def test_must_trump():
    hand = parse_mask("2S 9S 4H")
    on = K.legal_plays(K.KIND_TRUMP, hand, 0, parse_mask("AC"), 2, 1, 0, 0)
    assert on == parse_mask("2S 9S")
    # must overtrump 5S if able: only 9S
    on = K.legal_plays(K.KIND_TRUMP, hand, 0, parse_mask("AC 5S"), 2, 1, 0, 0)
    assert on == parse_mask("9S")
    # cannot overtrump TS: any trump
    on = K.legal_plays(K.KIND_TRUMP, hand, 0, parse_mask("AC TS"), 2, 1, 0, 0)
    assert on == parse_mask("2S 9S")
    # no trump in hand: anything
    assert K.legal_plays(K.KIND_TRUMP, parse_mask("4H 5D"), 0, parse_mask("AC"), 2, 1, 0, 0) == (
        parse_mask("4H 5D")
    )
    # no trump suit (allow_no_trump): must_trump has nothing to force
    assert K.legal_plays(K.KIND_TRUMP, hand, 0, parse_mask("AC"), -1, 1, 0, 0) == hand
    # must_trump never applies to a penalty deal
    assert K.legal_plays(K.KIND_TRICKS, hand, 0, parse_mask("AC"), 2, 1, 0, 0) == hand


# --- B2/B3 trick winner ----------------------------------------------------------------


def test_trick_winner_no_trump():
    assert K.trick_winner(trick("TC AD 2C QC"), 4, -1) == 3  # AD is off-suit
    assert K.trick_winner(trick("TC AD 2C"), 3, -1) == 0
    assert K.trick_winner(trick("AH KH QH JH"), 4, -1) == 0


def test_trick_winner_trump():
    assert K.trick_winner(trick("TC 2S AC 3D"), 4, 2) == 1  # 2S trumps
    assert K.trick_winner(trick("TC 2S 5S AC"), 4, 2) == 2  # highest trump
    assert K.trick_winner(trick("TC 2S 5S AC"), 4, -1) == 3  # no trump: AC
    assert K.trick_winner(trick("3S AS KC"), 3, 2) == 1  # trump led: highest trump
    assert K.trick_winner(trick("TC AH KC"), 3, 2) == 2  # no trump played


# --- B2 penalty points -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "cards", "index", "p4", "p3"),
    [
        (K.KIND_TRICKS, "2C 3C 4C 5C", 0, -20, -15),
        (K.KIND_HEARTS, "2H AH 4C QS", 0, -40, -40),
        (K.KIND_HEARTS, "2C 3C 4C 5C", 0, 0, 0),
        (K.KIND_QUEENS, "QH QS QC 2D", 0, -180, -180),
        (K.KIND_MEN, "KC JD KS QH", 0, -90, -90),
        (K.KIND_KING_OF_HEARTS, "KH 2C 3C 4C", 0, -150, -140),
        (K.KIND_KING_OF_HEARTS, "QH AH 3C 4C", 0, 0, 0),
        (K.KIND_SEVENTH_AND_LAST, "2C 3C 4C 5C", 6, -75, -70),
        (K.KIND_SEVENTH_AND_LAST, "2C 3C 4C 5C", 5, 0, 0),
        (K.KIND_TRUMP, "QH KH 4C 5C", 6, 0, 0),
        (K.KIND_LOTTERY, "QH KH 4C 5C", 6, 0, 0),
    ],
)
def test_trick_penalty(kind, cards, index, p4, p3):
    m = parse_mask(cards)
    assert K.trick_penalty(kind, 4, m, index) == p4
    assert K.trick_penalty(kind, 3, m, index) == p3


def test_last_trick():
    m = parse_mask("2C 3C 4C")
    assert K.trick_penalty(K.KIND_SEVENTH_AND_LAST, 4, m, 12) == -75
    assert K.trick_penalty(K.KIND_SEVENTH_AND_LAST, 3, m, 12) == 0  # not last with 3
    assert K.trick_penalty(K.KIND_SEVENTH_AND_LAST, 3, m, 16) == -70


def test_rebel_sums_every_category():
    # B2's example: KH in trick 13 = -20 heart, -30 king, -150, -20 trick, -75 last
    m = parse_mask("KH 2C 3C 4C")
    assert K.trick_penalty(K.KIND_REBEL, 4, m, 12) == -20 - 30 - 150 - 20 - 75
    # 3 players, trick 7: QS JD QH, -15 trick -20 heart -120 queens -30 jack -70 7th
    m = parse_mask("QS JD QH")
    assert K.trick_penalty(K.KIND_REBEL, 3, m, 6) == -15 - 20 - 120 - 30 - 70
    assert K.trick_penalty(K.KIND_REBEL, 4, parse_mask("2C 3C 4C 5C"), 3) == -20


def test_trump_trick_value():
    assert K.default_trump_trick_value(4, 0) == 15
    assert K.default_trump_trick_value(3, 0) == 20
    m = parse_mask("QH KH 4C 5C")
    assert K.trick_points(K.KIND_TRUMP, 4, m, 0, 15, 0, 0) == 15
    assert K.trick_points(K.KIND_TRUMP, 3, m, 0, 25, 0, 0) == 25  # the option's value
    assert K.trick_points(K.KIND_HEARTS, 4, m, 0, 15, 0, 0) == -40


# --- B2 stop_when_no_penalties -----------------------------------------------------------


def test_penalties_exhausted():
    all_hearts = parse_mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    assert K.penalties_exhausted(K.KIND_HEARTS, all_hearts | parse_mask("2C"))
    assert not K.penalties_exhausted(K.KIND_HEARTS, all_hearts & ~parse_mask("2H"))
    queens = parse_mask("QC QD QS QH")
    assert K.penalties_exhausted(K.KIND_QUEENS, queens)
    assert not K.penalties_exhausted(K.KIND_QUEENS, parse_mask("QC QD QS"))
    men = parse_mask("JC JD JS JH KC KD KS KH")
    assert K.penalties_exhausted(K.KIND_MEN, men)
    assert not K.penalties_exhausted(K.KIND_MEN, men & ~parse_mask("JH"))
    assert K.penalties_exhausted(K.KIND_KING_OF_HEARTS, parse_mask("KH"))
    assert not K.penalties_exhausted(K.KIND_KING_OF_HEARTS, parse_mask("AH QH"))
    full = (1 << 52) - 1
    for kind in (K.KIND_TRICKS, K.KIND_SEVENTH_AND_LAST, K.KIND_REBEL, K.KIND_TRUMP, 8):
        assert not K.penalties_exhausted(kind, full)


# --- B4 the lottery -----------------------------------------------------------------------


def test_lottery_opening():
    hand = parse_mask("2D 7C AH")
    assert K.lottery_legal(hand, 0, -1, 4) == hand
    assert K.lottery_legal(hand, 0, -1, 3) == parse_mask("7C AH")  # 3 players: not a 2


def test_lottery_extend_and_open():
    table = parse_mask("7C 8C 9C 7D")  # starting rank 7 (rank 5)
    start = parse_card("7C") % 13
    hand = parse_mask("6C TC JC 6D 8D 7S 8S 7H 2H")
    # clubs: 6C below, TC above (not JC); diamonds: 6D, 8D; spades and hearts open on 7
    assert K.lottery_legal(hand, table, start, 4) == parse_mask("6C TC 6D 8D 7S 7H")
    assert K.lottery_suit_bounds(table, 0) == (5, 7)  # 7C..9C
    assert K.lottery_suit_bounds(table, 2) == (-1, -1)
    # no card fits: the player passes
    assert K.lottery_legal(parse_mask("QC 2H"), table, start, 4) == 0


def test_lottery_no_wrap():
    table = parse_mask("QS KS AS")
    start = parse_card("QS") % 13
    assert K.lottery_legal(parse_mask("2S JS"), table, start, 4) == parse_mask("JS")
    table = parse_mask("2D 3D")
    start = parse_card("3D") % 13
    assert K.lottery_legal(parse_mask("AD 4D"), table, start, 4) == parse_mask("4D")


def test_lottery_scores():
    assert [K.lottery_place_score(p, 4, 0) for p in range(4)] == [800, 500, 0, 0]
    assert [K.lottery_place_score(p, 3, 0) for p in range(3)] == [790, 485, 0]


# --- conservation: random legal deals ---------------------------------------------------

FULL_VALUE = {
    4: {
        K.KIND_TRICKS: -260,
        K.KIND_HEARTS: -260,
        K.KIND_QUEENS: -240,
        K.KIND_MEN: -240,
        K.KIND_KING_OF_HEARTS: -150,
        K.KIND_SEVENTH_AND_LAST: -150,
        K.KIND_REBEL: -1300,
        K.KIND_TRUMP: 195,
        K.KIND_LOTTERY: 1300,
    },
    3: {
        K.KIND_TRICKS: -255,
        K.KIND_HEARTS: -260,
        K.KIND_QUEENS: -240,
        K.KIND_MEN: -240,
        K.KIND_KING_OF_HEARTS: -140,
        K.KIND_SEVENTH_AND_LAST: -140,
        K.KIND_REBEL: -1275,
        K.KIND_TRUMP: 340,
        K.KIND_LOTTERY: 1275,
    },
}


def deal_hands(rng: random.Random, n: int) -> list[int]:
    deck = list(cards_of(K.deck_mask(n)))
    rng.shuffle(deck)
    size = K.hand_size(n)
    return [sum(1 << c for c in deck[i * size : (i + 1) * size]) for i in range(n)]


def pick(rng: random.Random, mask: int) -> int:
    assert mask, "no legal card"
    return rng.choice(list(cards_of(mask)))


def play_trick_deal(rng, n, kind, trump, must_trump, leader, stop_early=False, kh_options=(0, 0)):
    """Play one random legal penalty or trump deal; return (points per seat, tricks played).

    kh_options: (king_of_hearts_first_chance, heart_lead_ban) codes.
    """
    hands = deal_hands(rng, n)
    points = [0] * n
    taken = 0
    value = K.default_trump_trick_value(n, 0)
    for t in range(K.hand_size(n)):
        if stop_early and K.penalties_exhausted(kind, taken):
            return points, t
        cards = np.zeros(n, dtype=np.int64)
        in_trick = 0
        led = -1
        for i in range(n):
            seat = (leader + i) % n
            legal = K.legal_plays(kind, hands[seat], led, in_trick, trump, must_trump, *kh_options)
            assert legal and legal & ~hands[seat] == 0
            c = pick(rng, legal)
            if i == 0:
                led = c // 13
            hands[seat] &= ~(1 << c)
            in_trick |= 1 << c
            cards[i] = c
        winner = (leader + K.trick_winner(cards, n, trump)) % n
        points[winner] += K.trick_points(kind, n, in_trick, t, value, 0, 0)
        taken |= in_trick
        leader = winner
    assert not any(hands)
    return points, K.hand_size(n)


def play_lottery(rng, n, leader):
    """Play one random legal lottery; return the points per seat."""
    hands = deal_hands(rng, n)
    table = 0
    start = -1
    out: list[int] = []
    seat = leader
    while len(out) < 2:
        if hands[seat]:
            legal = K.lottery_legal(hands[seat], table, start, n)
            if legal:
                c = pick(rng, legal)
                if table == 0:
                    start = c % 13
                    if n == 3:
                        assert start != 0
                table |= 1 << c
                hands[seat] &= ~(1 << c)
                if not hands[seat]:
                    out.append(seat)
        seat = (seat + 1) % n
    points = [0] * n
    for place, s in enumerate(out):
        points[s] = K.lottery_place_score(place, n, 0)
    return points


def test_full_values_match_items():
    # the totals above follow from the per-item values of B2-B4
    for n in (3, 4):
        p = n - 3
        tricks = K.hand_size(n)
        v = FULL_VALUE[n]
        assert v[K.KIND_TRICKS] == tricks * K.PTS_TRICK[p]
        assert v[K.KIND_HEARTS] == 13 * K.PTS_HEART[p]
        assert v[K.KIND_QUEENS] == 4 * K.PTS_QUEEN[p]
        assert v[K.KIND_MEN] == 8 * K.PTS_MAN[p]
        assert v[K.KIND_KING_OF_HEARTS] == K.PTS_KING_OF_HEARTS[p]
        assert v[K.KIND_SEVENTH_AND_LAST] == 2 * K.PTS_SEVENTH_OR_LAST[p]
        assert v[K.KIND_REBEL] == sum(v[k] for k in range(6))
        assert v[K.KIND_TRUMP] == tricks * K.default_trump_trick_value(n, 0)
        assert v[K.KIND_LOTTERY] == K.lottery_place_score(0, n, 0) + K.lottery_place_score(1, n, 0)


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("kind", PENALTY_KINDS)
@pytest.mark.parametrize("kh_options", [(0, 0), (1, K.HEART_LEAD_BAN_KING)], ids=["", "kh"])
def test_conservation_penalty(n, kind, kh_options):
    """Random legal deals (with the KH options of B2 on, too) score their full value."""
    rng = random.Random(1000 * n + kind)
    for _ in range(30):
        points, _ = play_trick_deal(rng, n, kind, -1, 0, rng.randrange(n), kh_options=kh_options)
        assert sum(points) == FULL_VALUE[n][kind]


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("must_trump", [0, 1])
def test_conservation_trump(n, must_trump):
    rng = random.Random(10 * n + must_trump)
    for trump in (-1, 0, 1, 2, 3):
        for _ in range(8):
            points, _ = play_trick_deal(rng, n, K.KIND_TRUMP, trump, must_trump, rng.randrange(n))
            assert sum(points) == FULL_VALUE[n][K.KIND_TRUMP]
            assert all(p % K.default_trump_trick_value(n, 0) == 0 for p in points)


@pytest.mark.parametrize("n", [3, 4])
def test_conservation_lottery(n):
    rng = random.Random(77 + n)
    for _ in range(30):
        points = play_lottery(rng, n, rng.randrange(n))
        assert sum(points) == FULL_VALUE[n][K.KIND_LOTTERY]
        assert sorted(points, reverse=True)[:2] == [
            K.lottery_place_score(0, n, 0),
            K.lottery_place_score(1, n, 0),
        ]


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("kind", [K.KIND_HEARTS, K.KIND_QUEENS, K.KIND_MEN, K.KIND_KING_OF_HEARTS])
def test_stop_when_no_penalties_keeps_scores(n, kind):
    # B2: ending deals 2-5 early changes no score; the full value is still taken
    rng = random.Random(500 + 10 * n + kind)
    early = 0
    for _ in range(30):
        state = rng.getstate()
        full, _ = play_trick_deal(rng, n, kind, -1, 0, 0)
        rng.setstate(state)
        stopped, played = play_trick_deal(rng, n, kind, -1, 0, 0, stop_early=True)
        assert stopped == full
        early += played < K.hand_size(n)
    if kind != K.KIND_HEARTS:  # random play rarely takes all 13 hearts before the end
        assert early > 0  # the early stop did happen in some deal


def test_stop_when_no_penalties_hearts_example():
    # 4 players, all 13 hearts in tricks 1-12: trick 13 holds none, the deal can stop
    taken = K.deck_mask(4) & ~parse_mask("2C 3C 4C 5C")
    assert K.penalties_exhausted(K.KIND_HEARTS, taken)
    assert not K.penalties_exhausted(K.KIND_HEARTS, taken & ~parse_mask("AH"))


@pytest.mark.parametrize("n", [3, 4])
def test_full_game_total(n):
    # one random game: every deal of B1 in order, rebel on; total = sum of full values
    rng = random.Random(9 + n)
    total = 0
    for k in range(K.n_deals(n, 1)):
        kind = K.deal_kind(k, n, 1)
        leader = K.leader_of(k, n, kind, K.LOTTERY_LEADER_DEALER)
        if kind == K.KIND_LOTTERY:
            points = play_lottery(rng, n, leader)
        else:
            trump = rng.randrange(4) if kind == K.KIND_TRUMP else -1
            points, _ = play_trick_deal(rng, n, kind, trump, 0, leader)
        total += sum(points)
    v = FULL_VALUE[n]
    expected = sum(v[k] for k in range(7)) + n * v[K.KIND_TRUMP] + v[K.KIND_LOTTERY]
    assert total == expected


def test_kernels_inline_into_compiled_caller():
    # the kernels are meant to be inlined into the future compiled state machine
    from numba import njit

    @njit
    def one_trick(hand, table):
        lo, hi = K.lottery_suit_bounds(table, 0)
        legal = K.legal_plays(K.KIND_TRUMP, hand, 0, table, 2, 1, 0, 0)
        cards = np.zeros(3, dtype=np.int64)
        cards[0] = 12
        cards[1] = 26
        cards[2] = 11
        w = K.trick_winner(cards, 3, 2)
        pts = K.trick_points(K.KIND_REBEL, 3, table, 16, 20, 0, 0)
        return lo, hi, legal, w, pts, K.penalties_exhausted(K.KIND_QUEENS, table)

    lo, hi, legal, w, pts, stop = one_trick(parse_mask("2S 9S 4H"), parse_mask("AC 5S"))
    assert (lo, hi, legal, w, stop) == (12, 12, parse_mask("9S"), 1, False)
    assert pts == -15 - 70  # a trick, and the last one (17th) with 3 players
