"""Scenario tests of the ``duck`` and ``heuristic`` bots: one position per behaviour.

Deals are written seat 0 first, one hand per string; a position is the deal, the pass
direction and the plays so far, and the bot answers as the seat to act
(``hsim choose``). Pass decisions are asked of seat 0 directly through the compiled
``pass_cards``.
"""

from __future__ import annotations

import numpy as np
import pytest

from hsim.engine.layout import (
    D_GAME,
    D_MOON,
    D_MOON_CHOICE,
    D_SCORE,
    D_SEAT,
    MOON_ADD,
    MOON_SUBTRACT,
)
from hsim.model.cards import format_card, format_mask, parse_cards
from hsim.model.notation import PositionSpec
from hsim.model.rules import Rules
from hsim.play.choose import choose
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.strategy.loader import load, load_players

OMNIBUS = Rules(omnibus=True)
NEW_MOON = Rules(moon="new_moon")


def position(hands, plays="", direction="hold", passes=None, rules=None, scores=(0, 0, 0, 0)):
    """Return the position of ``hands`` (4 strings, seat 0 first) after ``plays``."""
    deal = "/".join(h.replace(" ", "") for h in hands)
    return Position.from_spec(PositionSpec.parse(deal, direction, passes, plays), rules, scores)


def card(spec: str, pos) -> str:
    """Return the card ``spec`` plays as the seat to act at ``pos``."""
    return format_card(choose(load(spec), pos))


def passed(spec: str, hand: str, direction: str = "left", rules=None) -> set[str]:
    """Return the 3 cards ``spec`` passes from ``hand`` as seat 0 (others get the rest)."""
    mine = parse_cards(hand)
    assert len(set(mine)) == 13
    rest = [c for c in range(52) if c not in mine]
    p = Position.from_hands([mine, rest[:13], rest[13:26], rest[26:]], direction, rules)
    bot = load(spec)
    st = p.state
    mask = int(bot.compiled.pass_cards(st.public, st.private[0], st.rngs[1], bot.params))
    cards = set(format_mask(mask).split())
    assert len(cards) == 3 and cards <= set(hand.split())
    return cards


# -- deals ------------------------------------------------------------------------------

# Seat 1 wins trick 1 with the AC and leads the KD; seat 2 (no diamonds) may discard the
# QS; seat 0 plays last holding 5D TD AD.
DIAMONDS_AND_QUEEN = [
    "2C 5D TD AD 2H 3H 4H 5H 6H 7H 8H 9H TH",
    "AC KD JH QH KH AH 2S 3S 4S 5S 6S 7S 8S",
    "3C 6C 7C 8C 9C TC JC QC KC QS 9S TS JS",
    "4C 5C 2D 3D 4D 6D 7D 8D 9D JD QD KS AS",
]
# Seat 1 wins trick 1 and leads the 2S; seat 2 plays the AS; seat 3 holds KS and QS.
ACE_THEN_KING_QUEEN = [
    "2C 4S 5S 6S 2D 3D 4D 5D 6D 7D 8D 9D TD",
    "AC 2S 3S JD QD KD AD 2H 3H 4H 5H 6H 7H",
    "3C AS 7S 8S 9S TS JS 8H 9H TH JH QH KH",
    "KS QS 4C 5C 6C 7C 8C 9C TC JC QC KC AH",
]
# Seat 1 wins trick 1 and leads; the QS is out (seat 2), seat 1 holds 3S 5S and no
# higher spade.
FLUSH = [
    "2C 3C 4C 5C 6C 7C 8C 2S 4S 3D 5D 7D 9D",
    "AC 3S 5S 2D 4D 6D 8D TD 2H 3H 4H 5H 6H",
    "9C TC JC QS 6S 7S 8S JD QD KD AD 7H 8H",
    "QC KC AS KS 9S TS JS 9H TH JH QH KH AH",
]
# Seat 1 wins trick 1 (seat 3 shows void in clubs) and leads, holding a singleton 4D,
# two high clubs and 2S 3S QS.
SHORT_SUIT = [
    "2C 3C 4C 5C 6C 7C 8C 9C 2D 3D 5D 6D 7D",
    "AC TC JC 4D QS 2S 3S 2H 3H 4H 5H 6H 7H",
    "QC KC 8D 9D TD JD QD KD AD 4S 5S 6S 7S",
    "8S 9S TS JS KS AS 8H 9H TH JH QH KH AH",
]
# Seat 1 wins trick 1 and leads the AD; seat 2 (no diamonds, no QS) holds the AS and KH.
VOID_WITH_ACE = [
    "2C 3C 4C 5C 2D 3D 4D 5D 6D 7D 8D 9D TD",
    "AC JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S",
    "6C 7C 8C 9C AS 2H 3H 4H 5H 6H 7H 8H KH",
    "TC JC QC KC QS KS TS JS 9H TH JH QH AH",
]
# Seat 2 takes tricks 1 and 2 with the QS and a heart (14 points), then leads the 5H;
# seat 1 plays last holding 2H 6H 9H.
MOON_THREAT = [
    "2C 3C 4C 2S 3S 4S 5S 6S 7S 8S 9S 4H 7H",
    "5C 6C 2D 3D 4D 5D 6D 7D 8D TS 2H 6H 9H",
    "AC KC QC JC AD KD QD JD TD 9D 5H 8H TH",
    "7C 8C 9C TC JS QS KS AS 3H JH QH KH AH",
]
# Seat 1 wins trick 1 and leads the 9D; seat 2 must play the JD, seat 3 (no diamonds)
# discards the 2H; seat 0 plays last holding 3D KD.
JACK_TRICK = [
    "2C 3C 4C 5C 3D KD 2S 3S 4S 5S 6S 7S 8S",
    "AC 9D 2D 4D 5D 6D 7D 8D TD QD AD 9S TS",
    "6C 7C 8C 9C TC JC JD JS QS KS AS 3H 4H",
    "QC KC 2H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
# Seat 1 leads the 2D, seat 2 plays the TD, seat 3 discards the KC; seat 0 plays last
# holding JD AD.
JACK_IN_HAND = [
    "2C 3C 4C 5C JD AD 2S 3S 4S 5S 6S 7S 8S",
    "AC 2D 3D 4D 5D 6D 7D 8D 9D QD KD 9S TS",
    "6C 7C 8C 9C TC JC TD JS QS KS AS 3H 4H",
    "QC KC 2H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
# Seat 0 leads the 2C, seat 1 plays the 8C; seat 2 holds 3C and TC..AC, seat 3 only hearts.
TRICK_ONE = [
    "2C 9C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
    "8C 4C 5C 6C 7C KD AD 2S 3S 4S 5S 6S 7S",
    "3C TC JC QC KC AC 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
# Seat 0 holds a hand to shoot with (AH KH QH JH TH 9H, AS KS QS, AC, AD); seat 2 wins
# trick 1 and leads the 5D, seat 3 plays the 6D, seat 0 holds 2D AD.
SHOOTER = [
    "2C AC 2D AD AS KS QS AH KH QH JH TH 9H",
    "3C 5C 6C 7C 3D 4D 2S 3S 4S 5S 2H 3H 4H",
    "QC 8C 9C 5D 7D 8D 9D 6S 7S 8S 9S 5H 6H",
    "4C TC JC KC 6D TD JD QD KD TS JS 7H 8H",
]


def test_deals_are_complete():
    for deal in (
        DIAMONDS_AND_QUEEN,
        ACE_THEN_KING_QUEEN,
        FLUSH,
        SHORT_SUIT,
        VOID_WITH_ACE,
        MOON_THREAT,
        JACK_TRICK,
        JACK_IN_HAND,
        SHOOTER,
        TRICK_ONE,
    ):
        position(deal)  # raises on a hand that is not 13 cards or a card dealt twice


# -- following ---------------------------------------------------------------------------


@pytest.mark.parametrize("bot", ["duck", "heuristic"])
def test_ducks_last_on_a_diamond_trick_holding_the_queen(bot):
    pos = position(DIAMONDS_AND_QUEEN, "2C AC 3C 4C KD QS 9D")
    assert pos.to_act == 0
    assert card(bot, pos) == "TD"  # the highest diamond under the KD, not the AD


@pytest.mark.parametrize("bot", ["duck", "heuristic"])
def test_wins_a_pointless_trick_when_last_with_the_highest_card(bot):
    pos = position(DIAMONDS_AND_QUEEN, "2C AC 3C 4C KD 9S 9D")
    assert card(bot, pos) == "AD"


def test_heuristic_drops_the_queen_under_the_ace():
    pos = position(ACE_THEN_KING_QUEEN, "2C AC 3C 4C 2S AS")
    assert pos.to_act == 3
    assert card("heuristic", pos) == "QS"


def test_duck_drops_the_queen_under_the_ace():
    # it used to keep the QS and drop the KS (tests/test_blind_spots.py: the kind)
    pos = position(ACE_THEN_KING_QUEEN, "2C AC 3C 4C 2S AS")
    assert card("duck", pos) == "QS"


def test_heuristic_sheds_the_highest_club_on_trick_one():
    pos = position(TRICK_ONE, "2C 8C")
    assert pos.to_act == 2
    assert card("heuristic", pos) == "AC"  # trick 1 carries no points
    assert card("duck", pos) == "3C"


# -- discarding ----------------------------------------------------------------------------


@pytest.mark.parametrize("bot", ["duck", "heuristic"])
def test_discards_the_queen_first(bot):
    pos = position(DIAMONDS_AND_QUEEN, "2C AC 3C 4C KD")
    assert pos.to_act == 2
    assert card(bot, pos) == "QS"


def test_heuristic_unloads_the_ace_of_spades_while_the_queen_is_out():
    pos = position(VOID_WITH_ACE, "2C AC 6C TC AD")
    assert pos.to_act == 2
    assert card("heuristic", pos) == "AS"


def test_duck_discards_its_highest_heart():
    pos = position(VOID_WITH_ACE, "2C AC 6C TC AD")
    assert card("duck", pos) == "KH"


def test_duck_discards_its_highest_card_without_points():
    pos = position(SHORT_SUIT, "2C AC QC")  # trick 1: seat 3 may not discard points
    assert pos.to_act == 3
    assert card("duck", pos) == "AS"


# -- leading -------------------------------------------------------------------------------


def test_heuristic_flushes_the_queen_with_a_low_spade():
    pos = position(FLUSH, "2C AC 9C QC")
    assert pos.to_act == 1
    assert card("heuristic", pos) == "3S"
    assert card("duck", pos) == "2D"  # duck leads its lowest card


def test_heuristic_leads_low_from_a_safe_short_suit():
    # not the clubs (seat 3 is void there), not the spades that guard the QS
    pos = position(SHORT_SUIT, "2C AC QC 8S")
    assert pos.to_act == 1
    assert card("heuristic", pos) == "4D"
    assert card("duck", pos) == "2S"


# -- passing -------------------------------------------------------------------------------


def test_heuristic_passes_an_unguarded_queen():
    assert "QS" in passed("heuristic", "QS 3S 2C 3C 4C 5C 6C 7D 8D 9D 2H 3H 4H")


def test_heuristic_keeps_a_guarded_queen():
    assert "QS" not in passed("heuristic", "QS 2S 3S 4S 2C 3C 4C 5C 6C 7D 8D 2H 3H")
    assert "QS" in passed("heuristic(qs_guard=4)", "QS 2S 3S 4S 2C 3C 4C 5C 6C 7D 8D 2H 3H")


def test_heuristic_passes_high_spades_when_spades_are_short():
    assert {"AS", "KS"} <= passed("heuristic", "AS KS 2S 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D")


def test_heuristic_passes_high_hearts():
    assert passed("heuristic", "AH KH QH 2C 3C 4C 5C 6C 2D 3D 4D 5D 2S") == {"AH", "KH", "QH"}


def test_heuristic_voids_a_short_diamond_suit():
    assert {"2D", "9D"} <= passed("heuristic", "2D 9D 2C 3C 4C 5C 6C 7C 8C 2S 3S 2H 3H")


def test_heuristic_keeps_the_jack_of_diamonds_under_omnibus():
    hand = "JD AD KD 2C 3C 4C 5C 6C 2S 3S 4S 2H 3H"
    assert "JD" in passed("heuristic", hand)  # a short suit to void
    assert "JD" not in passed("heuristic", hand, rules=OMNIBUS)


def test_heuristic_passes_to_shoot_with_a_strong_hand():
    cards = passed("heuristic", " ".join(SHOOTER[0].split()))
    assert {"2C", "2D"} <= cards
    assert not cards & {"QS", "AH", "KH", "QH", "JH", "TH", "9H"}
    # no moon attempts: it passes its most dangerous cards instead
    assert "QS" in passed("heuristic(moon_losers=-1)", SHOOTER[0])


def test_duck_passes_the_dangerous_spades_then_the_highest_cards():
    assert passed("duck", "QS AS KS AH 2C 3C 4C 5C 2D 3D 4D 2H 3H") == {"QS", "AS", "KS"}
    assert passed("duck", "AC AH KD 2C 3C 4C 5C 2D 3D 4D 2S 3S 4S") == {"AH", "AC", "KD"}


# -- moon ----------------------------------------------------------------------------------


def test_heuristic_shoots_with_a_strong_hand():
    pos = position(SHOOTER, "2C 3C QC 4C 5D 6D")
    assert pos.to_act == 0
    assert card("heuristic", pos) == "AD"  # shooting: win the trick
    assert card("heuristic(moon_losers=-1)", pos) == "2D"  # not shooting: duck


def test_heuristic_stops_a_seat_that_holds_every_point():
    pos = position(MOON_THREAT, "2C 5C AC 7C AD QS 7H 2D 5H 3H 4H")
    assert pos.to_act == 1
    assert list(pos.state.public[16:20]) == [0, 0, 14, 0]  # P_POINTS: seat 2 has all
    assert card("heuristic", pos) == "9H"  # takes the hearts from the shooter
    assert card("heuristic(defend_at=27)", pos) == "2H"  # no defence: duck


def test_heuristic_does_not_feed_a_seat_that_holds_every_point():
    pos = position(MOON_THREAT, "2C 5C AC 7C AD QS 7H 2D KD")
    assert pos.to_act == 3  # void in diamonds, the KD of seat 2 wins
    assert card("heuristic", pos) == "AS"  # its most dangerous card that is not a point
    assert card("heuristic(defend_at=27)", pos) == "AH"  # no defence: the top heart


# -- Omnibus -------------------------------------------------------------------------------


def test_heuristic_takes_a_cheap_jack_trick_under_omnibus():
    plays = "2C AC 6C QC 9D JD 2H"
    assert card("heuristic", position(JACK_TRICK, plays, rules=OMNIBUS)) == "KD"  # 1 - 10
    assert card("heuristic", position(JACK_TRICK, plays)) == "3D"  # classic: duck the heart


def test_heuristic_wins_with_the_jack_of_diamonds_under_omnibus():
    plays = "2C AC 6C QC 2D TD KC"
    assert card("heuristic", position(JACK_IN_HAND, plays, rules=OMNIBUS)) == "JD"
    assert card("heuristic", position(JACK_IN_HAND, plays)) == "AD"  # classic: shed the ace


# -- New Moon ------------------------------------------------------------------------------


def moon_choice(scores, rules=NEW_MOON) -> int:
    """Return heuristic's New Moon choice as seat 0 with game ``scores`` before the deal."""
    p = position(SHOOTER, rules=rules, scores=scores)
    bot = load("heuristic")
    st = p.state
    return int(bot.compiled.moon_choice(st.public, st.private[0], st.rngs[1], bot.params))


@pytest.mark.parametrize(
    ("scores", "choice"),
    [
        ((30, 60, 60, 60), MOON_ADD),  # adding leaves us strictly lowest
        ((80, 40, 60, 60), MOON_SUBTRACT),  # adding leaves seat 1 below us
        ((40, 14, 60, 60), MOON_SUBTRACT),  # adding ties us with seat 1
        ((70, 50, 76, 30), MOON_SUBTRACT),  # adding ends the game with seat 3 winning
        ((40, 80, 75, 90), MOON_ADD),  # adding ends the game with us winning
    ],
)
def test_heuristic_new_moon_choice(scores, choice):
    assert moon_choice(scores) == choice


def test_heuristic_new_moon_choice_ends_the_game_with_a_win_by_subtracting():
    # no_draw: seats 0 and 1 tie lowest with seat 2 over 100, so the game goes on. Adding
    # puts seat 3 on exactly 100, which Perfect 100 makes 50: it would win. Subtracting
    # leaves us alone lowest: we win now.
    rules = Rules(moon="new_moon", no_draw=True, perfect_100=True)
    assert moon_choice((60, 60, 110, 74), rules) == MOON_SUBTRACT


@pytest.mark.parametrize(
    ("end_when", "choice"), [("reached", MOON_ADD), ("exceeded", MOON_SUBTRACT)]
)
def test_heuristic_new_moon_choice_reads_end_when(end_when, choice):
    # Adding puts seat 2 on exactly 100 and ties us lowest with seat 1: with end_when
    # reached that ends the game with us a co-winner; with exceeded the game goes on and
    # neither outcome leaves us alone lowest, so heuristic subtracts.
    rules = Rules(moon="new_moon", end_when=end_when)
    assert moon_choice((40, 14, 74, 60), rules) == choice


def test_heuristic_moon_choices_in_games():
    """The engine asks heuristic for its New Moon choice in real games and accepts it."""
    rules = Rules(moon="new_moon")
    deals, _ = play_range(rules, load_players(["heuristic"] * 4), 7, 0, 300)
    before = np.zeros((300, 4), np.int64)  # game scores before each deal
    asked = 0
    for row in deals:
        game, seat = row[D_GAME], row[D_SEAT]
        if row[D_MOON] and before[game, seat] >= 26:
            asked += 1
            assert row[D_MOON_CHOICE] in (MOON_ADD, MOON_SUBTRACT)
        before[game, seat] = row[D_SCORE]
    assert asked > 0


# -- moon defence -----------------------------------------------------------------------

# Seat 1 wins trick 1 with the AC and trick 2 with the AD, onto which seat 3 (no
# diamonds) discards the JH: seat 1 holds the one point taken. Seat 2 holds the AH over
# the KH seat 1 holds, and low hearts.
MOON_DEFENCE = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 3D",
    "AC KH QH AD KD QD 2D 4D 5D 2S 3S 4S 5S",
    "AH 2H 3H 4H 6D 7D 8D 9D TD JD 6S 7S 8S",
    "QS KS AS 9S TS JS 5H 6H 7H 8H 9H TH JH",
]
ALL_POINTS = "2C AC 9D 9S AD TD JH 3D"
# and then trick 3: seat 2 wins the 2D with the JD and the TH; trick 4: seat 1 wins the
# 6D with the QD and the 9H: seat 1 holds 2 points, seat 2 holds 1
SPLIT_POINTS = ALL_POINTS + " 2D JD TH 4C 6D 9H 5C QD"


def test_heuristic_takes_a_high_heart_lead_from_a_seat_holding_every_point():
    # seat 1 holds every point taken and leads the KH: a possible moon, stopped with the AH
    assert card("heuristic", position(MOON_DEFENCE, ALL_POINTS + " KH")) == "AH"


def test_heuristic_ducks_the_same_heart_lead_when_the_points_are_split():
    assert card("heuristic", position(MOON_DEFENCE, SPLIT_POINTS + " KH")) == "4H"


def test_heuristic_defends_only_from_suspect_at_points():
    # with suspect_at above the points taken, only defend_at (14) counts: it ducks
    pos = position(MOON_DEFENCE, ALL_POINTS + " KH")
    assert card("heuristic(suspect_at=2)", pos) == "4H"


# Seat 1 wins tricks 1 to 3 (the AC; the AD and the JH; the KD and the TH) and leads the
# AS; seat 3 holds the QS, KS and low spades.
QUEEN_UNDER_SHOOTER = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 3D",
    "AC KH QH AD KD QD 2D 4D 5D AS 3S 4S 5S",
    "AH 2H 3H 4H 6D 7D 8D 9D TD JD 6S 7S 8S",
    "QS KS 2S 9S TS JS 5H 6H 7H 8H 9H TH JH",
]


def test_heuristic_keeps_the_queen_from_a_seat_that_wins_every_point_trick():
    # seat 1 holds every point and has won 3 of 3 tricks: a possible moon; seat 3 plays
    # its lowest spade under the AS, not the QS (nor the KS, which may win a spade later)
    pos = position(QUEEN_UNDER_SHOOTER, "2C AC 9D 9S AD TD JH 3D KD JD TH 4C AS 8S")
    assert card("heuristic", pos) == "2S"
    assert card("heuristic(suspect_at=27)", pos) == "QS"  # no suspicion: drop the queen
