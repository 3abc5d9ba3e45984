"""Scenario tests of the play rules of one Hearts deal (docs/rules.md A1.1-A1.8).

Every deal is written out card by card, seat 0 first, and played through
:class:`hsim.play.position.Position`, which runs the same engine kernels as a tournament.
Each option test checks the behaviour with the option on *and* the different behaviour
with it off, so a test fails if the engine ignored the option.

Hands are mostly built from "suit blocks" (one seat holds nearly a whole suit) so the
winner of every trick is obvious; comments say what each seat holds and why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hsim.engine.hearts import pass_direction
from hsim.engine.layout import (
    D_DEAL,
    D_HAND,
    D_PASS_DIR,
    D_PASSED,
    D_RECEIVED,
    D_SEAT,
    P_HEARTS_BROKEN,
)
from hsim.model.cards import format_mask, parse_mask
from hsim.model.rules import HEARTS_OPTIONS, KIERKI_OPTIONS, Rules
from hsim.play.games import play_range
from hsim.play.position import IllegalPlayError, Position
from hsim.strategy.loader import load_players

# The plain suit-block deal: seat 0 all clubs, 1 all diamonds, 2 all spades, 3 all hearts.
BLOCKS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def deal(hands: list[str], pass_direction: str = "hold", **options) -> Position:
    """Return deal 0 of a game with ``hands`` and the classic rules changed by ``options``."""
    return Position.from_hands(hands, pass_direction=pass_direction, rules=Rules(**options))


def legal(p: Position) -> set[str]:
    """The cards the seat to act may play, as a set of card codes."""
    return set(format_mask(p.legal()).split())


def cards(text: str) -> set[str]:
    """A set of card codes from a space-separated list."""
    return set(text.split())


def holds(p: Position, seat: int, text: str) -> bool:
    """Whether ``seat`` holds every card of ``text``."""
    m = parse_mask(text)
    return p.hand(seat) & m == m


# ---------------------------------------------------------------------------------------
# A1.1 and A1.2: dealing and passing
# ---------------------------------------------------------------------------------------


def test_deal_gives_thirteen_distinct_cards_to_each_seat():
    """A1.1: every deal of a game deals the 52 cards, 13 to each seat."""
    deals, _ = play_range(Rules(), load_players(["lowcard"] * 4), seed=7, first=0, stop=1)
    for d in sorted(set(deals[:, D_DEAL])):
        hands = [int(h) for h in deals[deals[:, D_DEAL] == d][:, D_HAND]]
        assert [bin(h).count("1") for h in hands] == [13] * 4
        assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1


def test_position_rejects_a_hand_that_is_not_thirteen_cards():
    """A1.1: a deal is 13 cards to each seat; a 12-card hand is refused."""
    short = [BLOCKS[0].rsplit(" ", 1)[0], *BLOCKS[1:]]
    with pytest.raises(ValueError):
        Position.from_hands(short)


def test_passing_cycle_follows_left_right_across_hold():
    """A1.2, option ``passing``: ``cycle`` passes left, right, across, hold (deal k mod 4);
    ``none`` makes every deal a hold deal. Checked on whole games with the lowcard bot."""
    players = load_players(["lowcard"] * 4)
    deals, _ = play_range(Rules(), players, seed=3, first=0, stop=1)
    assert len(set(deals[:, D_DEAL])) >= 5  # the cycle wraps around at least once
    assert (deals[:, D_PASS_DIR] == deals[:, D_DEAL] % 4).all()
    passed = [bin(int(m)).count("1") for m in deals[:, D_PASSED]]
    assert passed == [0 if d % 4 == 3 else 3 for d in deals[:, D_DEAL]]

    deals, _ = play_range(Rules(passing="none"), players, seed=3, first=0, stop=1)
    assert len(set(deals[:, D_DEAL])) >= 2
    assert (deals[:, D_PASS_DIR] == 3).all()
    assert (deals[:, D_PASSED] == 0).all() and (deals[:, D_RECEIVED] == 0).all()


def test_pass_direction_kernel_by_option():
    """A1.2, option ``passing``: the direction of deal k is k mod 4 (left, right, across,
    hold) with ``cycle`` and always hold (3) with ``none``."""
    cycle = Rules().to_array()
    none = Rules(passing="none").to_array()
    assert [pass_direction(cycle, k) for k in range(9)] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [pass_direction(none, k) for k in range(9)] == [3] * 9


@pytest.mark.parametrize(("passing", "direction"), [("left", 0), ("right", 1)])
def test_passing_left_and_right_pass_that_way_every_deal(passing, direction):
    """A1.2, option ``passing``: ``left`` and ``right`` pass that way in every deal (no
    across, no hold), each seat's three cards reaching the seat on that side; ``cycle``
    would hold in deal 4. Checked on whole games with the lowcard bot."""
    players = load_players(["lowcard"] * 4)
    deals, _ = play_range(Rules(passing=passing), players, seed=3, first=0, stop=1)
    assert len(set(deals[:, D_DEAL])) >= 5  # past deal 4, a hold deal under cycle
    assert (deals[:, D_PASS_DIR] == direction).all()
    to = 1 if passing == "left" else 3
    for i in range(0, len(deals), 4):
        rows = deals[i : i + 4]
        for s in range(4):
            assert bin(int(rows[s, D_PASSED])).count("1") == 3
            assert rows[(s + to) % 4, D_RECEIVED] == rows[s, D_PASSED]
    rules = Rules(passing=passing).to_array()
    assert [pass_direction(rules, k) for k in range(9)] == [direction] * 9


@pytest.mark.parametrize(("direction", "offset"), [("left", 1), ("right", -1), ("across", 2)])
def test_pass_moves_cards_in_its_direction_and_new_two_clubs_holder_leads(direction, offset):
    """A1.2, A1.3: left gives to seat+1, right to seat-1, across to seat+2; after the
    pass the new holder of 2C leads it."""
    p = deal(BLOCKS, pass_direction=direction)
    assert p.phase == "pass"
    passes = ["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"]
    p.pass_cards(passes)
    assert p.phase == "play"
    for seat, passed in enumerate(passes):
        to = (seat + offset) % 4
        assert holds(p, to, passed), f"{direction}: seat {to} should hold {passed}"
        assert p.hand(seat) & parse_mask(passed) == 0
        assert bin(p.hand(seat)).count("1") == 13
    new_holder = offset % 4  # seat 0 held 2C and passed it
    assert p.to_act == new_holder
    assert legal(p) == {"2C"}
    p.play_out()
    rows = p.rows
    for seat, passed in enumerate(passes):
        assert rows[seat, D_SEAT] == seat
        assert rows[seat, D_HAND] == parse_mask(BLOCKS[seat])  # as dealt, before the pass
        assert rows[seat, D_PASSED] == parse_mask(passed)
        assert rows[(seat + offset) % 4, D_RECEIVED] == parse_mask(passed)


def test_passes_happen_all_at_once():
    """A1.2: all passes happen together, so a seat cannot pass a card it is about to
    receive (seat 1 may not pass on the clubs seat 0 passes it)."""
    p = deal(BLOCKS, pass_direction="left")
    with pytest.raises(IllegalPlayError):
        p.pass_cards(["2C 3C 4C", "2C 3C 4C", "2S 3S 4S", "2H 3H 4H"])


@pytest.mark.parametrize(
    "bad_pass",
    ["2C 3C 2D", "2C 3C", "2C 3C 4C 5C"],
    ids=["card-not-held", "two-cards", "four-cards"],
)
def test_a_pass_must_be_three_cards_of_the_hand(bad_pass):
    """A1.2: a pass is exactly 3 cards of the passer's hand; anything else is refused."""
    p = deal(BLOCKS, pass_direction="left")
    with pytest.raises(IllegalPlayError):
        p.pass_cards([bad_pass, "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"])


def test_hold_deal_has_no_pass_and_two_clubs_holder_leads():
    """A1.2, A1.3: in a hold deal nothing is passed; the seat dealt 2C leads it."""
    # Seat 2 holds 2C (blocks shifted by two seats).
    p = deal(BLOCKS[2:] + BLOCKS[:2])
    assert p.phase == "play"
    with pytest.raises(IllegalPlayError):
        p.pass_cards(["2S 3S 4S", "2H 3H 4H", "2C 3C 4C", "2D 3D 4D"])
    assert p.to_act == 2
    assert legal(p) == {"2C"}


# ---------------------------------------------------------------------------------------
# A1.3: the lead of trick 1
# ---------------------------------------------------------------------------------------


def test_two_clubs_must_open_trick_one():
    """A1.3: the 2C holder leads 2C; another club is refused (default rules)."""
    p = deal(BLOCKS)
    assert p.to_act == 0
    assert legal(p) == {"2C"}
    with pytest.raises(IllegalPlayError):
        p.play("5C")
    p.play("2C")
    assert p.to_act == 1


def test_lead_any_club_lets_two_clubs_holder_lead_any_club():
    """A1.3, option ``lead_any_club``: the 2C holder may lead any club (and only a club)."""
    # Seat 0: 2C 7C KC and ten diamonds; so its legal lead is its clubs only.
    hands = [
        "2C 7C KC 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
        "3C 4C 5C 6C 8C 9C TC JC QC AC QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    assert legal(deal(hands)) == {"2C"}
    p = deal(hands, lead_any_club=True)
    assert legal(p) == cards("2C 7C KC")
    p.play("KC 3C 2S 2H")  # seat 0 wins with KC and leads again
    assert p.to_act == 0


# ---------------------------------------------------------------------------------------
# A1.4: following suit, the winner of a trick
# ---------------------------------------------------------------------------------------

FOLLOW = [
    "2C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D 8D 9D",  # seat 0: 2C, low clubs, low diamonds
    "8C 9C TC KC 2S 3S 4S 5S 6S 7S 8S 9S TS",  # seat 1: middle clubs, low spades
    "TD JD QD KD AD JS QS KS AS 2H 3H 4H 5H",  # seat 2: no clubs
    "3C JC QC AC 6H 7H 8H 9H TH JH QH KH AH",  # seat 3: high clubs and hearts
]


def test_must_follow_suit_and_highest_card_of_led_suit_wins():
    """A1.4: a seat that can follow must; the highest card of the led suit wins (an
    off-suit ace does not) and the winner leads the next trick."""
    p = deal(FOLLOW)
    p.play("2C")
    assert legal(p) == cards("8C 9C TC KC")  # seat 1 must follow clubs
    with pytest.raises(IllegalPlayError):
        p.play("2S")
    p.play("KC")
    p.play("AD")  # seat 2 is void in clubs: its ace of diamonds does not count
    assert legal(p) == cards("3C JC QC AC")  # seat 3 must follow clubs
    p.play("3C")
    assert p.to_act == 1  # KC won trick 1; seat 1 leads trick 2

    p.play("2S")
    assert legal(p) == cards("JS QS KS AS")  # seat 2 must follow spades
    p.play("JS")
    assert "AH" in legal(p)  # seat 3 is void in spades: any card
    p.play("AH 2D")  # an ace of hearts (off-suit) and seat 0's discard
    assert p.to_act == 2  # JS, the highest spade, won


# ---------------------------------------------------------------------------------------
# A1.5: first trick, no points
# ---------------------------------------------------------------------------------------

# Seat 2: no clubs, spades 2S..QS and AH KH; seat 3: KS AS and hearts 2H..QH.
FIRST_TRICK_MIXED = [
    BLOCKS[0],
    BLOCKS[1],
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KH AH",
    "KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
]

# Seat 2: no clubs, twelve spades (no QS) and AH; seat 3: only QS and hearts 2H..KH.
FIRST_TRICK_ONLY_POINTS = [
    BLOCKS[0],
    BLOCKS[1],
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
    "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
]


def test_first_trick_void_seat_may_not_discard_hearts_or_queen():
    """A1.5 (``first_trick_points=forbidden``, default): on trick 1 a seat void in clubs
    that holds other cards may not play a heart or QS."""
    p = deal(FIRST_TRICK_MIXED)
    p.play("2C 2D")
    assert legal(p) == cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS")
    for card in ("QS", "AH"):
        with pytest.raises(IllegalPlayError):
            p.play(card)
    p.play("2S")
    assert legal(p) == cards("KS AS")


def test_first_trick_points_allowed_drops_the_rule():
    """A1.5, option ``first_trick_points=allowed``: a void seat may discard hearts or QS
    on trick 1."""
    p = deal(FIRST_TRICK_MIXED, first_trick_points="allowed")
    p.play("2C 2D")
    assert legal(p) == cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KH AH")
    p.play("QS")
    assert {"2H", "KS"} <= legal(p)


def test_first_trick_rule_applies_to_trick_one_only():
    """A1.5: the ban ends with trick 1; on trick 2 a void seat may discard a heart."""
    p = deal(FIRST_TRICK_MIXED)
    p.play("2C 2D 2S KS")  # seat 0 wins trick 1 (the only club)
    p.play("3C 3D")
    assert {"AH", "KH", "QS"} <= legal(p)


def test_first_trick_hand_of_only_hearts_and_queen_must_play_queen():
    """A1.5, option ``first_trick_only_points=queen`` (default): a void seat holding only
    hearts and QS must play QS on trick 1."""
    p = deal(FIRST_TRICK_ONLY_POINTS)
    p.play("2C 2D")
    assert legal(p) == cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")  # not AH
    p.play("2S")
    assert legal(p) == {"QS"}
    with pytest.raises(IllegalPlayError):
        p.play("2H")


def test_first_trick_only_points_any_frees_every_card():
    """A1.5, option ``first_trick_only_points=any``: that seat may play any of its
    hearts or QS (while a seat with other cards is still held to them)."""
    p = deal(FIRST_TRICK_ONLY_POINTS, first_trick_only_points="any")
    p.play("2C 2D")
    assert "AH" not in legal(p)
    p.play("2S")
    assert legal(p) == cards("QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    p.play("2H")


def test_first_trick_hand_of_only_hearts_may_play_any_heart():
    """A1.5: a seat holding only hearts may play any heart on trick 1."""
    p = deal(BLOCKS)
    p.play("2C 2D 2S")
    assert legal(p) == cards(BLOCKS[3])
    p.play("AH")


# ---------------------------------------------------------------------------------------
# A1.6: hearts broken
# ---------------------------------------------------------------------------------------

# Trick 1 is 2C AC 2S JS: seat 1 wins it with AC and leads trick 2 with hearts unbroken.
# Seat 1 then holds 3H 4H 5H and diamonds 5D..KD; seat 2 holds 2D 3D 4D AD and spades;
# seat 3 is void in diamonds (QS, KS, AS and hearts), seat 0 too (clubs and 2H).
BROKEN = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H",
    "AC 3H 4H 5H 5D 6D 7D 8D 9D TD JD QD KD",
    "2D 3D 4D AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
    "JS QS KS AS 6H 7H 8H 9H TH JH QH KH AH",
]
TRICK_1 = "2C AC 2S JS"
SEAT_1_HAND = "3H 4H 5H 5D 6D 7D 8D 9D TD JD QD KD"


def test_heart_may_not_be_led_until_hearts_are_broken():
    """A1.6, option ``hearts_must_be_broken`` (default on): no heart lead while hearts
    are unbroken, if the leader holds anything else; off, hearts may be led."""
    p = deal(BROKEN)
    p.play(TRICK_1)
    assert p.to_act == 1
    assert legal(p) == cards("5D 6D 7D 8D 9D TD JD QD KD")
    with pytest.raises(IllegalPlayError):
        p.play("3H")

    p = deal(BROKEN, hearts_must_be_broken=False)
    p.play(TRICK_1)
    assert legal(p) == cards(SEAT_1_HAND)
    p.play("3H")


@pytest.mark.parametrize(("discard", "broken"), [("6H", True), ("AS", False)])
def test_heart_discard_breaks_hearts_for_the_next_lead(discard, broken):
    """A1.6: a heart discarded in trick 2 breaks hearts, so the winner of trick 2 may
    lead a heart in trick 3; a spade discard does not."""
    p = deal(BROKEN)
    p.play(TRICK_1)
    p.play(f"KD 2D {discard} 3C")  # seat 1 wins with KD
    assert p.to_act == 1
    expected = "3H 4H 5H 5D 6D 7D 8D 9D TD JD QD" if broken else "5D 6D 7D 8D 9D TD JD QD"
    assert legal(p) == cards(expected)


@pytest.mark.parametrize("queen_breaks", [False, True])
def test_queen_breaks_hearts_only_with_option(queen_breaks):
    """A1.6, option ``queen_breaks_hearts``: playing QS breaks hearts only when on
    (seat 3 discards QS in trick 2; can the winner lead a heart in trick 3?)."""
    p = deal(BROKEN, queen_breaks_hearts=queen_breaks)
    p.play(TRICK_1)
    p.play("KD 2D QS 3C")
    assert p.to_act == 1
    assert ("3H" in legal(p)) is queen_breaks
    assert {"5D", "QD"} <= legal(p)


@pytest.mark.parametrize("first_breaks", [True, False])
def test_first_trick_breaks_hearts_decides_whether_a_trick_1_heart_breaks(first_breaks):
    """A1.6, option ``first_trick_breaks_hearts``: seat 3 discards 6H to trick 1 (allowed
    by ``first_trick_points=allowed``). On (default), hearts are broken and the winner of
    trick 1 may lead a heart; off, they are not: seat 1 must lead a diamond. A heart
    played in trick 2 then breaks them either way."""
    p = deal(BROKEN, first_trick_points="allowed", first_trick_breaks_hearts=first_breaks)
    p.play("2C AC 2S 6H")
    assert p.to_act == 1
    assert int(p.state.public[P_HEARTS_BROKEN]) == first_breaks
    diamonds = cards("5D 6D 7D 8D 9D TD JD QD KD")
    assert legal(p) == (cards(SEAT_1_HAND) if first_breaks else diamonds)
    if not first_breaks:
        with pytest.raises(IllegalPlayError):
            p.play("3H")
    p.play("KD 2D 7H 3C")  # seat 3 discards 7H in trick 2: broken now, on or off
    assert p.to_act == 1
    assert legal(p) == cards("3H 4H 5H 5D 6D 7D 8D 9D TD JD QD")


# Trick 1 is 2C AC QS AD: seat 2 holds only QS and hearts, so it must play QS (A1.5);
# seat 1 wins with AC and then holds clubs and 2H.
QUEEN_ON_TRICK_1 = [
    "2C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2H",
    "QS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
]


@pytest.mark.parametrize("first_breaks", [True, False])
def test_first_trick_breaks_hearts_also_covers_the_queen(first_breaks):
    """A1.6, options ``first_trick_breaks_hearts`` and ``queen_breaks_hearts``: the QS
    forced onto trick 1 breaks hearts only when trick 1 may break them."""
    p = deal(QUEEN_ON_TRICK_1, queen_breaks_hearts=True, first_trick_breaks_hearts=first_breaks)
    p.play("2C AC QS AD")
    assert p.to_act == 1
    clubs = cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
    assert legal(p) == (clubs | {"2H"} if first_breaks else clubs)


# Trick 1 is 2C AC 2S 2H: seat 3 holds only hearts, so it may discard one on trick 1
# even under first_trick_points=forbidden (A1.5); seat 1 wins and leads diamonds, and
# seat 2 (only spades) is void in them.
ONLY_HEARTS_ON_TRICK_1 = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD",
    "AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    BLOCKS[2],
    BLOCKS[3],
]


@pytest.mark.parametrize("first_breaks", [True, False])
def test_first_trick_breaks_hearts_is_seen_by_the_queen_waits_rule(first_breaks):
    """A1.6, A1.7: with ``queen_waits_for_broken_hearts``, the QS may be discarded in
    trick 2 after a heart went to trick 1 only if that heart broke hearts."""
    p = deal(
        ONLY_HEARTS_ON_TRICK_1,
        queen_waits_for_broken_hearts=True,
        first_trick_breaks_hearts=first_breaks,
    )
    p.play("2C AC 2S 2H 2D")
    spades = cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    assert legal(p) == (spades if first_breaks else spades - {"QS"})


# Trick 1 is 2C AC 2D 2S: seat 1 wins it with AC and then holds only QS and hearts.
ONLY_HEARTS_AND_QUEEN = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AH",
    "AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
    BLOCKS[1],
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS KH",
]


def test_leader_with_only_hearts_and_queen_must_lead_queen():
    """A1.6: a leader holding only hearts and QS, hearts unbroken, must lead QS."""
    p = deal(ONLY_HEARTS_AND_QUEEN)
    p.play("2C AC 2D 2S")
    assert p.to_act == 1
    assert legal(p) == {"QS"}
    with pytest.raises(IllegalPlayError):
        p.play("2H")


def test_lead_hearts_instead_of_queen_frees_every_card():
    """A1.6, option ``lead_hearts_instead_of_queen``: that leader may lead any card."""
    p = deal(ONLY_HEARTS_AND_QUEEN, lead_hearts_instead_of_queen=True)
    p.play("2C AC 2D 2S")
    assert legal(p) == cards("QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH")
    p.play("2H")


def test_leader_with_only_hearts_may_lead_a_heart():
    """A1.6: a leader holding only hearts may lead one while hearts are unbroken."""
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AH",
        "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        BLOCKS[1],
        BLOCKS[2],
    ]
    p = deal(hands)
    p.play("2C AC 2D 2S")  # no heart was played: hearts are unbroken
    assert p.to_act == 1
    assert legal(p) == cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    p.play("KH")


# ---------------------------------------------------------------------------------------
# A1.7: the queen waits for broken hearts
# ---------------------------------------------------------------------------------------

# Trick 1 is 2C AC 2S 9S: seat 1 wins and leads diamonds; seats 2 and 3 are void in
# diamonds. Seat 2 holds low spades and 2H..7H; seat 3 holds QS, other spades and hearts.
QUEEN_WAITS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 2H 3H 4H 5H 6H 7H",
    "9S TS JS QS KS AS 8H 9H TH JH QH KH AH",
]
QW_TRICK_1 = "2C AC 2S 9S"
SEAT_3_AFTER_TRICK_1 = "TS JS QS KS AS 8H 9H TH JH QH KH AH"


@pytest.mark.parametrize("waits", [False, True])
def test_queen_waits_void_seat_may_not_discard_queen_while_unbroken(waits):
    """A1.7, option ``queen_waits_for_broken_hearts``: on, a void seat may not discard
    QS while hearts are unbroken (it has other legal cards); off, it may."""
    p = deal(QUEEN_WAITS, queen_waits_for_broken_hearts=waits)
    p.play(QW_TRICK_1)
    p.play("3D 3S")  # seat 2 discards a spade: hearts still unbroken
    expected = cards(SEAT_3_AFTER_TRICK_1)
    if waits:
        expected.discard("QS")
    assert legal(p) == expected


@pytest.mark.parametrize("must_break", [True, False])
def test_queen_waits_ends_with_a_heart_in_the_current_trick(must_break):
    """A1.6, A1.7: a heart discarded earlier in the same trick breaks hearts at once, so
    QS may follow in that trick. Hearts broken is tracked whatever
    ``hearts_must_be_broken`` says."""
    p = deal(QUEEN_WAITS, queen_waits_for_broken_hearts=True, hearts_must_be_broken=must_break)
    p.play(QW_TRICK_1)
    p.play("3D 2H")  # seat 2 discards a heart: hearts are broken now
    assert legal(p) == cards(SEAT_3_AFTER_TRICK_1)
    p.play("QS")


def test_queen_waits_leader_may_not_lead_queen_while_unbroken():
    """A1.7: with the option, a leader may not lead QS while hearts are unbroken."""
    # Trick 1 is 2C AC 3D AD: seat 1 wins and then holds only spades, QS among them.
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
        "AC 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2S 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2H",
        "AD 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    spades = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    p = deal(hands)
    p.play("2C AC 3D AD")
    assert p.to_act == 1
    assert legal(p) == cards(spades)

    p = deal(hands, queen_waits_for_broken_hearts=True)
    p.play("2C AC 3D AD")
    assert legal(p) == cards(spades) - {"QS"}
    with pytest.raises(IllegalPlayError):
        p.play("QS")


def test_queen_waits_queen_as_only_spade_on_spade_lead_must_be_played():
    """A1.7: QS is still played when it is the only legal card (the only spade held when
    spades are led)."""
    # Trick 1 is 2C AC 3D AD: seat 1 wins and leads a spade; seat 2's only spade is QS.
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
        "AC 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
        "QS 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2H",
        "AD 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    p = deal(hands, queen_waits_for_broken_hearts=True)
    p.play("2C AC 3D AD 2S")
    assert legal(p) == {"QS"}
    p.play("QS")


def test_queen_waits_keeps_queen_when_rule_6_forces_it():
    """A1.6, A1.7: a leader with only hearts and QS must lead QS even while the queen
    waits: under rules 4-6 it is the only legal card."""
    p = deal(ONLY_HEARTS_AND_QUEEN, queen_waits_for_broken_hearts=True)
    p.play("2C AC 2D 2S")
    assert legal(p) == {"QS"}


# ---------------------------------------------------------------------------------------
# Coverage guard
# ---------------------------------------------------------------------------------------


def test_every_rule_option_has_a_scenario_test():
    """Every Hearts option is set (``name=``) in this file, test_scoring.py,
    test_card_values.py, test_hearts3.py or test_hearts56.py; every
    Kierki option (``name=`` or ``"name":``) in test_kierki_game.py or
    test_kierki_tables.py, whose games run under both player counts (the presets kierki4
    and kierki3 set ``game`` and ``players``).
    """
    here = Path(__file__).parent
    text = (here / "test_rules_scenarios.py").read_text() + (here / "test_scoring.py").read_text()
    text += (here / "test_card_values.py").read_text()  # the card values (A1.8)
    text += (here / "test_hearts3.py").read_text()  # Hearts for 3's options (A1.1)
    text += (here / "test_hearts56.py").read_text()  # Hearts for 5 and 6 (A1.1)
    missing = [n for n in HEARTS_OPTIONS if not re.search(rf"\b{n}=", text)]
    kierki = (here / "test_kierki_game.py").read_text()
    kierki += (here / "test_kierki_tables.py").read_text()  # the point tables (B1, B2.6)
    missing += [n for n in KIERKI_OPTIONS if not re.search(rf"\b{n}(=|\"?: )", kierki)]
    missing += [p for p in ("kierki4", "kierki3") if p not in kierki]
    assert not missing, f"no scenario test sets: {missing}"
