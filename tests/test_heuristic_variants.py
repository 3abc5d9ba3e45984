"""heuristic under rule variants, scenarios from card names: Omnibus with the TD as the
bonus card (``omnibus_card=TD``, docs/rules.md A2.3) and Spot Hearts (``heart_points=rank``,
A1.8). Each scenario is also played under the rules it differs from, so a test fails if
the bot ignores the variant.
"""

from __future__ import annotations

from hsim.model.rules import Rules
from tests.test_bots_duck_heuristic import JACK_TRICK, SHOOTER, card, passed, position

OMNIBUS = Rules(omnibus=True)
OMNIBUS_TD = Rules(omnibus=True, omnibus_card="TD")
SPOT = Rules(heart_points="rank")


def _swap(hands: list[str], a: str, b: str) -> list[str]:
    """Return ``hands`` with cards ``a`` and ``b`` exchanged."""
    out = []
    for hand in hands:
        cards = [b if c == a else a if c == b else c for c in hand.split()]
        out.append(" ".join(cards))
    return out


# -- Omnibus with the TD ---------------------------------------------------------------------


def test_keeps_the_ten_of_diamonds_when_it_is_the_bonus_card():
    hand = "TD AD KD 2C 3C 4C 5C 6C 2S 3S 4S 2H 3H"
    assert "TD" in passed("heuristic", hand, rules=OMNIBUS)  # a short suit to void
    assert "TD" not in passed("heuristic", hand, rules=OMNIBUS_TD)


def test_passes_the_jack_of_diamonds_when_the_ten_is_the_bonus_card():
    hand = "JD AD KD 2C 3C 4C 5C 6C 2S 3S 4S 2H 3H"
    assert "JD" not in passed("heuristic", hand, rules=OMNIBUS)
    assert "JD" in passed("heuristic", hand, rules=OMNIBUS_TD)


# Seat 0 wins trick 1 with the AC and leads, holding TD JD QD KD AD: the top diamonds.
TOP_DIAMONDS = [
    "AC TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S",
    "2C 3C 4C 5C 2D 3D 4D 5D 6D 9S TS JS QS",
    "6C 7C 8C 9C TC 7D 8D 9D KS AS 2H 3H 4H",
    "JC QC KC 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def test_leads_the_ten_of_diamonds_when_it_is_the_top_diamond():
    plays = "2C 6C JC AC"
    assert card("heuristic", position(TOP_DIAMONDS, plays, rules=OMNIBUS_TD)) == "TD"
    assert card("heuristic", position(TOP_DIAMONDS, plays, rules=OMNIBUS)) == "JD"


def test_takes_a_cheap_ten_trick_when_the_ten_is_the_bonus_card():
    # JACK_TRICK with the TD played to the trick instead of the JD: seat 1 leads the 9D,
    # seat 2 plays the TD, seat 3 discards the 2H; seat 0 plays last holding 3D KD
    hands = _swap(JACK_TRICK, "JD", "TD")
    plays = "2C AC 6C QC 9D TD 2H"
    assert card("heuristic", position(hands, plays, rules=OMNIBUS_TD)) == "KD"  # 1 - 10
    assert card("heuristic", position(hands, plays, rules=OMNIBUS)) == "3D"  # duck the heart


# Seat 1 leads the 2D, seat 2 plays the 9D, seat 3 discards the KC; seat 0 plays last
# holding TD AD.
TEN_IN_HAND = [
    "2C 3C 4C 5C TD AD 2S 3S 4S 5S 6S 7S 8S",
    "AC 2D 3D 4D 5D 6D 7D 8D JD QD KD 9S TS",
    "6C 7C 8C 9C TC JC 9D JS QS KS AS 3H 4H",
    "QC KC 2H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def test_wins_with_the_ten_of_diamonds_when_it_is_the_bonus_card():
    plays = "2C AC 6C QC 2D 9D KC"
    assert card("heuristic", position(TEN_IN_HAND, plays, rules=OMNIBUS_TD)) == "TD"
    assert card("heuristic", position(TEN_IN_HAND, plays, rules=OMNIBUS)) == "AD"  # shed


# Seat 3 wins trick 1 with the AC and leads the JC; seat 0 (void in clubs) discards,
# holding 2D 3D 4D 5D JD and low spades; the TD is out (seat 2).
JACK_TO_DISCARD = [
    "2D 3D 4D 5D JD 2S 3S 4S 5S 6S 7S 8S 9S",
    "2C 3C 4C TS JS QS KS AS 6D 7D 8D 2H 3H",
    "5C 6C 7C 8C 9C TC 9D TD QD KD AD 4H 5H",
    "JC QC KC AC 6H 7H 8H 9H TH JH QH KH AH",
]


def test_discards_the_jack_of_diamonds_when_the_ten_is_the_bonus_card():
    plays = "2C 5C AC 2S JC"
    assert card("heuristic", position(JACK_TO_DISCARD, plays)) == "JD"
    assert card("heuristic", position(JACK_TO_DISCARD, plays, rules=OMNIBUS)) != "JD"
    assert card("heuristic", position(JACK_TO_DISCARD, plays, rules=OMNIBUS_TD)) == "JD"


# -- Spot Hearts -----------------------------------------------------------------------------


def test_does_not_attempt_a_moon_from_a_two_loser_hand_under_spot_hearts():
    # SHOOTER's seat 0 keeps two losers (the clubs and the diamonds) without a pass
    plays = "2C 3C QC 4C 5D 6D"
    assert card("heuristic", position(SHOOTER, plays)) == "AD"  # shooting: win the trick
    assert card("heuristic", position(SHOOTER, plays, rules=SPOT)) == "2D"  # duck
