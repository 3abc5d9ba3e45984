"""Scenario tests of scoring a deal and ending a game (docs/rules.md A1.8, A2, A3).

Deals are written as scripts of 13 tricks (cards in play order, from the trick's leader);
:func:`scripted_hands` derives the hands from the script, and the engine then plays the
script card by card through :class:`hsim.play.position.Position`, refusing any card the rules
forbid, so a script that breaks a rule fails loudly. Game-end rules that need many deals
(clamp, Perfect 100, ``no_draw``, ``max_deals``, places) are also checked on the scoring
kernels directly.

Each option test checks the outcome with the option on *and* off.
"""

from __future__ import annotations

import numpy as np
import pytest

from hsim.engine.hearts import (
    default_moon_choice,
    game_end,
    moon_choice_asked,
    moon_shooter,
    place_of,
    score_deal,
)
from hsim.engine.layout import (
    D_DEAL_SCORE,
    D_HEARTS,
    D_JACK_DIAMONDS,
    D_MOON,
    D_MOON_CHOICE,
    D_POINTS,
    D_QUEEN_SPADES,
    D_SCORE,
    D_TAKEN,
    D_TRICKS,
    G_DEALS,
    G_ENDED_BY,
    G_PLACE,
    G_SCORE,
    G_WINNER,
    MOON_ADD,
    MOON_DEFAULT,
    MOON_SUBTRACT,
)
from hsim.model.cards import mask_of, parse_card, parse_cards
from hsim.model.rules import Rules
from hsim.play.position import Position

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def scripted_hands(tricks: list[str], leader: int = 0) -> list[int]:
    """Return the four hands (masks) that can play ``tricks`` in that order.

    Each trick lists its four cards in play order, starting with its leader; the first
    trick is led by ``leader``, each later one by the winner of the one before (the
    highest card of the led suit).
    """
    assert len(tricks) == 13
    hands: list[list[int]] = [[], [], [], []]
    for trick in tricks:
        played = parse_cards(trick)
        assert len(played) == 4, trick
        for k, c in enumerate(played):
            hands[(leader + k) % 4].append(c)
        led = played[0] // 13
        best = max((k for k in range(4) if played[k] // 13 == led), key=lambda k: played[k])
        leader = (leader + best) % 4
    return [mask_of(h) for h in hands]


def play_script(tricks: list[str], scores=(0, 0, 0, 0), **options) -> Position:
    """Deal the hands of ``tricks`` (a hold deal) and play the whole script."""
    p = Position.from_hands(scripted_hands(tricks), rules=Rules(**options), scores=scores)
    for trick in tricks:
        p.play(trick)
    return p


def column(p: Position, col: int) -> list[int]:
    """One column of the finished deal's rows, seat 0 first."""
    return [int(v) for v in p.rows[:4, col]]


def game_over(p: Position) -> bool:
    assert p.phase in ("deal_over", "game_over")
    return p.phase == "game_over"


def games(p: Position, col: int) -> list[int]:
    """One column of the game rows (written when the game ended), seat 0 first."""
    return [int(v) for v in p._games[:4, col]]


def arr(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def kernel_score(rules: Rules, points, tricks, jack_taker, before, choice=MOON_DEFAULT):
    """Run the score_deal kernel; return (moon outcome, deal scores, new scores)."""
    deal_score = np.zeros(4, np.int64)
    scores = np.zeros(4, np.int64)
    outcome = score_deal(
        rules.to_array(),
        arr(points),
        arr(tricks),
        jack_taker,
        arr(before),
        choice,
        deal_score,
        scores,
    )
    return int(outcome), deal_score.tolist(), scores.tolist()


# ---------------------------------------------------------------------------------------
# The deals
# ---------------------------------------------------------------------------------------

# SPREAD: no moon. Seat 0 takes QS and 2H 3H 4H (16 points, 4 tricks); seat 1 takes the
# other ten hearts (10 points, 4 tricks); seat 2 takes five tricks and JD but no points;
# seat 3 wins no trick.
SPREAD = [
    "2C 3C AC 4C",  # seat 0 leads; seat 2's AC wins
    "2S 3S AS QS",  # seat 2 leads; seat 0's AS wins, seat 1 follows with its only spade
    "KS 2H 6S 7S",  # seat 0 leads; seat 1 (void in spades) discards hearts from here
    "JS 3H 8S 9S",
    "TS 4H 4S 5S",
    "2D AD 3D 4D",  # seat 0 leads; seat 1's AD wins
    "AH 5H 6H 7H",  # seat 1 leads hearts (broken)
    "KH 8H 9H TH",
    "QH 5D JH 6D",  # seats 2 and 0 are void in hearts
    "7D KD 8D 9D",  # seat 1 leads; seat 2's KD wins
    "KC 6C 7C 8C",  # seat 2 leads
    "QC 9C TC JC",
    "QD TD JD 5C",  # seat 2's QD wins the JD from seat 0
]

# BLOCKS: seat 0 holds all the clubs and wins every trick: it shoots the moon with JD.
BLOCKS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]

# NO_JACK: seat 0 takes all 26 points but seat 1 takes JD (trick 1, with no points).
NO_JACK = [
    "2C AC JD 2S",  # seat 1's AC wins; seat 2 discards JD
    "2D QS 3H AD",  # seat 0's AD wins QS and a heart
    # seat 0 then runs its clubs; every other seat is void in clubs and discards
    "3C 3D 3S 4H",
    "4C 4D 4S 5H",
    "5C 5D 5S 6H",
    "6C 6D 6S 7H",
    "7C 7D 7S 8H",
    "8C 8D 8S 9H",
    "9C 9D 9S TH",
    "TC TD TS JH",
    "JC QD JS QH",
    "QC KD KS KH",
    "KC 2H AS AH",
]


def blocks_moon(scores=(0, 0, 0, 0), **options) -> Position:
    """Seat 0 shoots the moon (with JD) in the BLOCKS deal; stops at a moon choice."""
    p = Position.from_hands(BLOCKS, rules=Rules(**options), scores=scores)
    p.play_out()
    return p


# ---------------------------------------------------------------------------------------
# A1.8 and A2.1: raw points
# ---------------------------------------------------------------------------------------


def test_points_are_one_per_heart_and_thirteen_for_the_queen():
    """A1.8, A2.1: each heart taken scores 1, QS 13, 26 in all."""
    p = play_script(SPREAD)
    assert column(p, D_HEARTS) == [3, 10, 0, 0]
    assert column(p, D_QUEEN_SPADES) == [1, 0, 0, 0]
    assert column(p, D_POINTS) == [16, 10, 0, 0]
    assert column(p, D_TRICKS) == [4, 4, 5, 0]
    assert column(p, D_JACK_DIAMONDS) == [0, 0, 1, 0]
    assert column(p, D_DEAL_SCORE) == [16, 10, 0, 0]
    assert column(p, D_SCORE) == [16, 10, 0, 0]


def test_three_hearts_and_queen_is_not_a_moon_with_all_options_off():
    """A2.2: with the classic rules (all options off) a seat with three hearts and QS
    (16 points) has not shot the moon: it scores 16 and nobody gets +26."""
    p = play_script(SPREAD, scores=(10, 10, 10, 10))
    assert column(p, D_MOON) == [0, 0, 0, 0]
    assert column(p, D_MOON_CHOICE) == [0, 0, 0, 0]
    assert column(p, D_SCORE) == [26, 20, 10, 10]


# ---------------------------------------------------------------------------------------
# A2.2: shooting the moon
# ---------------------------------------------------------------------------------------


def test_classic_moon_gives_every_other_seat_26():
    """A2.2, option ``moon=classic``: the shooter scores 0, every other seat +26."""
    p = blocks_moon(scores=(30, 5, 6, 7), moon="classic")
    assert p.phase != "moon"  # no choice is asked, even at a score of 26 or more
    assert column(p, D_POINTS) == [26, 0, 0, 0]
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_MOON_CHOICE) == [MOON_ADD, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [0, 26, 26, 26]
    assert column(p, D_SCORE) == [30, 31, 32, 33]


def test_omnibus_all_points_without_jack_is_no_moon():
    """A2.2, options ``omnibus`` and ``moon_requires_jack`` (default on): 26 points
    without JD is no moon; the 26 are scored and the JD taker gets -10."""
    p = play_script(NO_JACK, scores=(20, 20, 20, 20), omnibus=True)
    assert column(p, D_POINTS) == [26, 0, 0, 0]
    assert column(p, D_JACK_DIAMONDS) == [0, 1, 0, 0]
    assert column(p, D_MOON) == [0, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [26, -10, 0, 0]
    assert column(p, D_SCORE) == [46, 10, 20, 20]


def test_without_omnibus_all_points_without_jack_is_a_moon():
    """A2.2: without ``omnibus`` the JD does not matter (``moon_requires_jack`` has no
    effect): taking all 26 points is a moon."""
    for requires in (True, False):
        p = play_script(NO_JACK, scores=(20, 20, 20, 20), moon_requires_jack=requires)
        assert column(p, D_MOON) == [1, 0, 0, 0]
        assert column(p, D_SCORE) == [20, 46, 46, 46]


@pytest.mark.parametrize(("jack_in_moon", "jack_taker_score"), [(False, 46), (True, 36)])
def test_moon_requires_jack_off_lets_a_moon_without_jack(jack_in_moon, jack_taker_score):
    """A2.2, option ``moon_requires_jack=false`` with ``omnibus``: 26 points without JD
    is a moon; the JD taker's -10 stays only with ``jack_in_moon_deal``."""
    p = play_script(
        NO_JACK,
        scores=(20, 20, 20, 20),
        omnibus=True,
        moon_requires_jack=False,
        jack_in_moon_deal=jack_in_moon,
    )
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_SCORE) == [20, jack_taker_score, 46, 46]


def test_new_moon_shooter_at_26_or_more_may_subtract():
    """A2.2, option ``moon=new_moon``: a shooter with a game score of 26 or more is asked;
    "subtract" takes 26 off its own score and leaves the others alone."""
    p = blocks_moon(scores=(30, 40, 50, 60), moon="new_moon")
    assert p.phase == "moon"
    assert p.to_act == 0
    p.choose_moon("subtract")
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_MOON_CHOICE) == [MOON_SUBTRACT, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [-26, 0, 0, 0]
    assert column(p, D_SCORE) == [4, 40, 50, 60]


def test_new_moon_shooter_may_choose_add():
    """A2.2, ``moon=new_moon``: "add" gives every other seat +26, as classic."""
    p = blocks_moon(scores=(26, 40, 50, 60), moon="new_moon")
    assert p.phase == "moon"  # exactly 26 is "at least 26"
    p.choose_moon("add")
    assert column(p, D_MOON_CHOICE) == [MOON_ADD, 0, 0, 0]
    assert column(p, D_SCORE) == [26, 66, 76, 86]


@pytest.mark.parametrize(
    ("before", "after", "outcome"),
    [
        # 20 + 26 = 46 is still strictly below the shooter's 60: subtract
        ((60, 20, 50, 50), (34, 20, 50, 50), MOON_SUBTRACT),
        # 34 + 26 = 60 ties the shooter, not strictly below: add
        ((60, 34, 50, 50), (60, 60, 76, 76), MOON_ADD),
        ((61, 34, 50, 50), (35, 34, 50, 50), MOON_SUBTRACT),
        # nobody is far enough below the shooter: add
        ((30, 10, 40, 40), (30, 36, 66, 66), MOON_ADD),
    ],
)
def test_new_moon_default_choice(before, after, outcome):
    """A2.2, ``moon=new_moon``: a strategy that does not choose gets the default rule:
    subtract when some opponent would still be strictly below the shooter after +26,
    else add."""
    p = blocks_moon(scores=before, moon="new_moon")
    assert p.phase == "moon"
    p.choose_moon("default")
    assert column(p, D_MOON_CHOICE) == [outcome, 0, 0, 0]
    assert column(p, D_SCORE) == list(after)


def test_new_moon_shooter_under_26_gets_classic():
    """A2.2, ``moon=new_moon``: a shooter whose game score is under 26 is not asked; the
    classic outcome (+26 to every other seat) applies."""
    p = blocks_moon(scores=(25, 0, 0, 0), moon="new_moon")
    assert p.phase != "moon"
    assert column(p, D_MOON_CHOICE) == [MOON_ADD, 0, 0, 0]
    assert column(p, D_SCORE) == [25, 26, 26, 26]


@pytest.mark.parametrize("any_score", [False, True])
def test_new_moon_any_score_asks_a_shooter_under_26(any_score):
    """A2.2, option ``new_moon_any_score``: with ``moon=new_moon`` a shooter at 10 is asked
    only with the option (off: the classic outcome); subtracting is then clamped at zero
    (A2.4) like any score."""
    p = blocks_moon(scores=(10, 40, 50, 60), moon="new_moon", new_moon_any_score=any_score)
    assert (p.phase == "moon") is any_score
    if any_score:
        assert p.to_act == 0
        p.choose_moon("subtract")
        assert column(p, D_MOON_CHOICE) == [MOON_SUBTRACT, 0, 0, 0]
        assert column(p, D_DEAL_SCORE) == [-26, 0, 0, 0]
        assert column(p, D_SCORE) == [0, 40, 50, 60]
    else:
        assert column(p, D_MOON_CHOICE) == [MOON_ADD, 0, 0, 0]
        assert column(p, D_SCORE) == [10, 66, 76, 86]


def test_new_moon_any_score_without_the_clamp_and_the_default_choice():
    """A2.2, A2.4: ``new_moon_any_score`` with ``clamp_at_zero=false``: 10 - 26 = -16. A
    shooter under 26 that does not choose gets the unchanged default rule, which always
    adds there (no opponent can be strictly below it after +26)."""
    rules = {"moon": "new_moon", "new_moon_any_score": True}
    p = blocks_moon(scores=(10, 0, 0, 0), clamp_at_zero=False, **rules)
    p.choose_moon("subtract")
    assert column(p, D_SCORE) == [-16, 0, 0, 0]
    p = blocks_moon(scores=(25, 0, 0, 0), **rules)
    assert p.phase == "moon"
    p.choose_moon("default")
    assert column(p, D_MOON_CHOICE) == [MOON_ADD, 0, 0, 0]
    assert column(p, D_SCORE) == [25, 26, 26, 26]
    # without moon=new_moon the option changes nothing: classic, never asked
    p = blocks_moon(scores=(30, 0, 0, 0), new_moon_any_score=True)
    assert p.phase != "moon" and column(p, D_SCORE) == [30, 26, 26, 26]


@pytest.mark.parametrize("any_score", [False, True])
def test_new_moon_any_score_on_the_kernels(any_score):
    """A2.2 on the kernels: the choice is asked (and a recorded subtract applied when
    re-scoring) at a score under 26 only with ``new_moon_any_score``."""
    rules = Rules(moon="new_moon", new_moon_any_score=any_score)
    before = [10, 40, 50, 60]
    assert moon_choice_asked(rules.to_array(), arr(before), 0) is any_score
    assert moon_choice_asked(rules.to_array(), arr([26, 0, 0, 0]), 0)
    assert not moon_choice_asked(rules.to_array(), arr(before), -1)  # no moon
    outcome, deal, new = kernel_score(rules, [26, 0, 0, 0], [13, 0, 0, 0], 0, before, MOON_SUBTRACT)
    if any_score:
        assert (outcome, deal, new) == (MOON_SUBTRACT, [-26, 0, 0, 0], [0, 40, 50, 60])
    else:
        assert (outcome, deal, new) == (MOON_ADD, [0, 26, 26, 26], [10, 66, 76, 86])


def test_moon_kernels():
    """A2.2 on the kernels: moon_shooter (with/without omnibus + moon_requires_jack) and
    default_moon_choice."""
    classic = Rules().to_array()
    omnibus = Rules(omnibus=True).to_array()
    loose = Rules(omnibus=True, moon_requires_jack=False).to_array()
    assert moon_shooter(classic, arr([16, 10, 0, 0]), 2) == -1
    assert moon_shooter(classic, arr([0, 0, 26, 0]), 1) == 2
    assert moon_shooter(omnibus, arr([0, 0, 26, 0]), 1) == -1
    assert moon_shooter(omnibus, arr([0, 0, 26, 0]), 2) == 2
    assert moon_shooter(loose, arr([0, 0, 26, 0]), 1) == 2
    assert default_moon_choice(Rules().to_array(), arr([60, 20, 50, 50]), 0) == MOON_SUBTRACT
    assert default_moon_choice(Rules().to_array(), arr([60, 34, 50, 50]), 0) == MOON_ADD
    assert default_moon_choice(Rules().to_array(), arr([50, 50, 10, 37]), 3) == MOON_SUBTRACT


# ---------------------------------------------------------------------------------------
# A2.3: bonuses
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("omnibus", [False, True])
def test_omnibus_jack_taker_gets_minus_ten(omnibus):
    """A2.3, option ``omnibus``: the seat that took JD gets -10 (seat 2 here)."""
    p = play_script(SPREAD, scores=(20, 20, 20, 20), omnibus=omnibus)
    assert column(p, D_MOON) == [0, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [16, 10, -10 if omnibus else 0, 0]
    assert column(p, D_SCORE) == [36, 30, 10 if omnibus else 20, 20]


@pytest.mark.parametrize(
    ("bonus", "deal_score"),
    [
        ("off", [16, 10, 0, 0]),
        ("no_points", [16, 10, -5, -5]),  # seats 2 and 3 took no points
        ("no_tricks", [16, 10, 0, -5]),  # seat 3 won no trick; seat 2 won five
    ],
)
def test_no_trick_bonus(bonus, deal_score):
    """A2.3, option ``no_trick_bonus``: ``no_points`` gives -5 to every seat with 0
    points, ``no_tricks`` to every seat that won no trick, ``off`` to nobody."""
    p = play_script(SPREAD, scores=(20, 20, 20, 20), no_trick_bonus=bonus)
    assert column(p, D_DEAL_SCORE) == deal_score
    assert column(p, D_SCORE) == [20 + d for d in deal_score]


def test_bonuses_add_up():
    """A2.3: omnibus and no_trick_bonus both apply to the same seat."""
    p = play_script(SPREAD, scores=(20, 20, 20, 20), omnibus=True, no_trick_bonus="no_points")
    assert column(p, D_DEAL_SCORE) == [16, 10, -15, -5]


@pytest.mark.parametrize("bonus", ["no_points", "no_tricks"])
def test_no_bonus_in_a_moon_deal(bonus):
    """A2.3: bonuses never apply in a moon deal: the other seats (0 points, no tricks)
    get +26, not 21, and the shooter, who took JD, gets no omnibus -10."""
    p = blocks_moon(scores=(50, 50, 50, 50), omnibus=True, no_trick_bonus=bonus)
    assert column(p, D_DEAL_SCORE) == [0, 26, 26, 26]
    assert column(p, D_SCORE) == [50, 76, 76, 76]


@pytest.mark.parametrize(("omnibus", "shooter_deal_score"), [(True, -10), (False, 0)])
def test_jack_in_moon_deal_keeps_minus_ten_in_a_moon_deal(omnibus, shooter_deal_score):
    """A2.3, option ``jack_in_moon_deal``: with omnibus, the JD taker keeps its -10 in a
    moon deal (here the shooter took JD); without omnibus the option does nothing."""
    p = blocks_moon(scores=(50, 50, 50, 50), omnibus=omnibus, jack_in_moon_deal=True)
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [shooter_deal_score, 26, 26, 26]
    assert column(p, D_SCORE) == [50 + shooter_deal_score, 76, 76, 76]

    p = blocks_moon(scores=(50, 50, 50, 50), omnibus=omnibus, jack_in_moon_deal=False)
    assert column(p, D_DEAL_SCORE) == [0, 26, 26, 26]


# ---------------------------------------------------------------------------------------
# A2.2 and A2.3: the moon outcomes off, shooter_gains, smart; the bonus card and its value
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moon", "deal_score"), [("off", [26, 0, 0, 0]), ("classic", [0, 26, 26, 26])]
)
def test_moon_off_scores_26_like_any_points(moon, deal_score):
    """A2.2, option ``moon=off``: a seat that takes all 26 points has shot nothing; it
    scores its 26 (``classic``: 0, the others 26)."""
    p = blocks_moon(scores=(30, 5, 6, 7), moon=moon)
    assert p.phase != "moon"
    assert column(p, D_MOON) == [int(moon != "off"), 0, 0, 0]
    assert column(p, D_MOON_CHOICE) == [0 if moon == "off" else MOON_ADD, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == deal_score
    assert column(p, D_SCORE) == [b + d for b, d in zip((30, 5, 6, 7), deal_score, strict=True)]


@pytest.mark.parametrize(
    ("moon", "shooter"), [("off", [16, -5, -5, -5]), ("classic", [0, 26, 26, 26])]
)
def test_moon_off_keeps_the_bonuses_of_an_ordinary_deal(moon, shooter):
    """A2.2, A2.3: under ``moon=off`` the 26-point deal is an ordinary one, so omnibus and
    ``no_trick_bonus`` apply: the taker of all points and of JD scores 26 - 10, the others
    -5 for no points (``classic``: a moon, no bonus)."""
    p = blocks_moon(scores=(50, 50, 50, 50), moon=moon, omnibus=True, no_trick_bonus="no_points")
    assert column(p, D_DEAL_SCORE) == shooter


@pytest.mark.parametrize(("clamp", "score"), [(True, 0), (False, -16)])
def test_moon_shooter_gains_scores_minus_26(clamp, score):
    """A2.2, option ``moon=shooter_gains``: the shooter scores -26, the others 0, at any
    game score and without asking; the clamp (A2.4) still applies."""
    p = blocks_moon(scores=(10, 5, 6, 7), moon="shooter_gains", clamp_at_zero=clamp)
    assert p.phase != "moon"
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_MOON_CHOICE) == [MOON_SUBTRACT, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [-26, 0, 0, 0]
    assert column(p, D_SCORE) == [score, 5, 6, 7]
    p = blocks_moon(scores=(10, 5, 6, 7), moon="classic", clamp_at_zero=clamp)
    assert column(p, D_DEAL_SCORE) == [0, 26, 26, 26]


@pytest.mark.parametrize(
    ("options", "before", "outcome", "after"),
    [
        # +26 ends the game (111) with seat 0 lowest, a loss: subtract.
        ({}, [85, 40, 50, 80], MOON_SUBTRACT, [59, 40, 50, 80]),
        # +26 ends the game with the shooter alone lowest: add (subtracting goes on).
        ({}, [60, 80, 90, 70], MOON_ADD, [60, 106, 116, 96]),
        # The clamp wastes the subtraction (20 - 26 -> 0, a lead of 0 against 6): add.
        ({}, [20, 0, 10, 30], MOON_ADD, [20, 26, 36, 56]),
        # Without the clamp the lead is 6 either way: a tie adds.
        ({"clamp_at_zero": False}, [20, 0, 10, 30], MOON_ADD, [20, 26, 36, 56]),
        # Perfect 100 turns seat 1's 74 + 26 into 50: a lead of 20 against 70: subtract.
        ({"perfect_100": True, "end_score": 200}, [30, 74, 80, 85], MOON_SUBTRACT, [4, 74, 80, 85]),
        ({"end_score": 200}, [30, 74, 80, 85], MOON_ADD, [30, 100, 106, 111]),
    ],
)
def test_moon_smart_picks_the_outcome_better_for_the_shooter(options, before, outcome, after):
    """A2.2, option ``moon=smart``: the shooter (seat 0) gets the outcome that wins the
    game now, else the one that does not lose it now, else the larger lead over the best
    other seat after clamp and Perfect 100; a tie adds. ``moon=classic`` always adds."""
    rules = Rules(moon="smart", **options)
    got, _, scores = kernel_score(rules, [26, 0, 0, 0], [13, 0, 0, 0], -1, before)
    assert (got, scores) == (outcome, after)
    classic = Rules(**options)
    got, _, _ = kernel_score(classic, [26, 0, 0, 0], [13, 0, 0, 0], -1, before)
    assert got == MOON_ADD


def test_moon_smart_played_out_asks_no_strategy():
    """A2.2, ``moon=smart`` on a played deal: no moon choice is asked and the row records
    the outcome applied (seat 0 on 85 subtracts: +26 would end the game with it last)."""
    p = blocks_moon(scores=(85, 40, 50, 80), moon="smart")
    assert p.phase != "moon"
    assert column(p, D_MOON_CHOICE) == [MOON_SUBTRACT, 0, 0, 0]
    assert column(p, D_SCORE) == [59, 40, 50, 80]


@pytest.mark.parametrize(
    ("card", "moon", "deal_score"),
    [
        ("JD", 0, [26, -10, 0, 0]),  # seat 0 has 26 points without JD: no moon
        ("TD", 1, [-10, 26, 26, 26]),  # seat 0 took TD: a moon, and TD's -10 stays
    ],
)
def test_omnibus_card_ten_of_diamonds_is_the_bonus_card(card, moon, deal_score):
    """A2.3, option ``omnibus_card``: with ``TD`` the ten of diamonds is the bonus card
    for omnibus, ``moon_requires_jack`` and ``jack_in_moon_deal``; JD is an ordinary card.
    In NO_JACK seat 1 takes JD in trick 1 and seat 0 takes TD in trick 10."""
    p = play_script(
        NO_JACK, scores=(20, 20, 20, 20), omnibus=True, omnibus_card=card, jack_in_moon_deal=True
    )
    assert column(p, D_TAKEN)[0] >> parse_card("TD") & 1
    assert column(p, D_JACK_DIAMONDS) == [0, 1, 0, 0]  # the column names JD whatever the rule
    assert column(p, D_MOON) == [moon, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == deal_score


@pytest.mark.parametrize(("value", "deal_score"), [(10, [16, 10, -10, 0]), (5, [16, 10, -5, 0])])
def test_omnibus_value_five(value, deal_score):
    """A2.3, option ``omnibus_value``: the bonus card takes 10 (default) or 5 off its
    taker's deal score (seat 2 takes JD in SPREAD)."""
    p = play_script(SPREAD, scores=(20, 20, 20, 20), omnibus=True, omnibus_value=value)
    assert column(p, D_DEAL_SCORE) == deal_score
    p = blocks_moon(omnibus=True, omnibus_value=value, jack_in_moon_deal=True)
    assert column(p, D_DEAL_SCORE) == [-value, 26, 26, 26]


def test_taken_column_holds_the_cards_each_seat_won():
    """The deal rows' D_TAKEN: the cards each seat won in tricks, the 52 cards in all."""
    p = play_script(SPREAD)
    taken = column(p, D_TAKEN)
    assert sum(taken) == (1 << 52) - 1 and all(a & b == 0 for a in taken for b in taken if a != b)
    assert taken[2] >> parse_card("JD") & 1 and taken[0] >> parse_card("QS") & 1


# ---------------------------------------------------------------------------------------
# A2.4 and A2.5: clamp and Perfect 100
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("clamp", "score"), [(True, 0), (False, -7)])
def test_clamp_at_zero(clamp, score):
    """A2.4, option ``clamp_at_zero``: a score never goes below zero with the clamp
    (seat 2 at 3 takes JD with omnibus: 3 - 10 = -7); the deal score is unclamped."""
    p = play_script(SPREAD, scores=(3, 3, 3, 3), omnibus=True, clamp_at_zero=clamp)
    assert column(p, D_DEAL_SCORE) == [16, 10, -10, 0]
    assert column(p, D_SCORE) == [19, 13, score, 3]


def test_new_moon_subtract_is_clamped():
    """A2.2, A2.4: a New Moon subtract cannot take the shooter below zero."""
    p = blocks_moon(scores=(26, 0, 0, 0), moon="new_moon")
    p.choose_moon("subtract")
    assert column(p, D_DEAL_SCORE) == [-26, 0, 0, 0]
    assert column(p, D_SCORE) == [0, 0, 0, 0]
    # 30 - 26 - 10 (omnibus kept in the moon deal) = -6: clamped to 0 only with the clamp
    for clamp, score in ((True, 0), (False, -6)):
        p = blocks_moon(
            scores=(30, 0, 0, 0),
            moon="new_moon",
            omnibus=True,
            jack_in_moon_deal=True,
            clamp_at_zero=clamp,
        )
        p.choose_moon("subtract")
        assert column(p, D_DEAL_SCORE) == [-36, 0, 0, 0]
        assert column(p, D_SCORE) == [score, 0, 0, 0]


@pytest.mark.parametrize("perfect", [False, True])
def test_perfect_100_turns_exactly_100_into_50(perfect):
    """A2.5, option ``perfect_100``: a game score of exactly 100 becomes 50, and the game
    goes on (A3) because no score is 100 any more; without it the game ends."""
    p = play_script(SPREAD, scores=(84, 10, 10, 10), perfect_100=perfect)
    assert column(p, D_DEAL_SCORE) == [16, 10, 0, 0]
    assert column(p, D_SCORE) == [50 if perfect else 100, 20, 10, 10]
    assert game_over(p) is not perfect


def test_perfect_100_only_exactly_100():
    """A2.5: 101 stays 101."""
    p = play_script(SPREAD, scores=(85, 10, 10, 10), perfect_100=True)
    assert column(p, D_SCORE) == [101, 20, 10, 10]
    assert game_over(p)


def test_perfect_100_applies_after_bonuses_and_whatever_end_score_is():
    """A2.5: Perfect 100 is applied to the score after bonuses (105 - 5 = 100 -> 50), and
    also when end_score is not 100."""
    rules = Rules(perfect_100=True, no_trick_bonus="no_points", end_score=150)
    outcome, deal, new = kernel_score(rules, [16, 10, 0, 0], [4, 4, 5, 0], 2, [84, 90, 105, 105])
    assert outcome == MOON_DEFAULT
    assert deal == [16, 10, -5, -5]
    assert new == [50, 50, 50, 50]
    # the same without Perfect 100
    _, _, new = kernel_score(
        Rules(no_trick_bonus="no_points", end_score=150),
        [16, 10, 0, 0],
        [4, 4, 5, 0],
        2,
        [84, 90, 105, 105],
    )
    assert new == [100, 100, 100, 100]


def test_clamp_kernel():
    """A2.4 on the kernel: old + deal points + bonuses, clamped at zero when on."""
    rules = Rules(omnibus=True, no_trick_bonus="no_tricks")
    _, deal, new = kernel_score(rules, [16, 10, 0, 0], [4, 4, 5, 0], 3, [0, 0, 2, 20])
    assert deal == [16, 10, 0, -15]
    assert new == [16, 10, 2, 5]
    _, _, new = kernel_score(rules, [16, 10, 0, 0], [4, 4, 5, 0], 3, [0, 0, 2, 5])
    assert new == [16, 10, 2, 0]
    rules = Rules(omnibus=True, no_trick_bonus="no_tricks", clamp_at_zero=False)
    _, _, new = kernel_score(rules, [16, 10, 0, 0], [4, 4, 5, 0], 3, [0, 0, 2, 5])
    assert new == [16, 10, 2, -10]


# ---------------------------------------------------------------------------------------
# A3: the end of a game, winners, places
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("end_score", "over"), [(40, True), (41, False)])
def test_game_ends_when_a_score_reaches_end_score(end_score, over):
    """A3, option ``end_score``: the game ends when some score is >= end_score (seat 0
    goes from 24 to 40)."""
    p = play_script(SPREAD, scores=(24, 0, 0, 0), end_score=end_score)
    assert column(p, D_SCORE) == [40, 10, 0, 0]
    assert game_over(p) is over
    if over:
        assert games(p, G_ENDED_BY) == [0] * 4
        assert games(p, G_DEALS) == [1] * 4
        assert games(p, G_SCORE) == [40, 10, 0, 0]


@pytest.mark.parametrize(("end_when", "over"), [("reached", True), ("exceeded", False)])
def test_end_when_exceeded_needs_a_score_above_end_score(end_when, over):
    """A3, option ``end_when``: seat 0 goes from 84 to exactly 100. ``reached`` (default)
    ends the game there; ``exceeded`` plays on. 101 ends it either way."""
    p = play_script(SPREAD, scores=(84, 0, 0, 0), end_when=end_when)
    assert column(p, D_SCORE) == [100, 10, 0, 0]
    assert game_over(p) is over
    p = play_script(SPREAD, scores=(85, 0, 0, 0), end_when=end_when)
    assert column(p, D_SCORE) == [101, 10, 0, 0]
    assert game_over(p)
    assert games(p, G_ENDED_BY) == [0] * 4 and games(p, G_WINNER) == [0, 0, 1, 1]


@pytest.mark.parametrize(("end_when", "over"), [("reached", True), ("exceeded", False)])
def test_end_when_exceeded_with_no_draw_and_perfect_100(end_when, over):
    """A3: ``no_draw`` and Perfect 100 work as before on top of ``end_when``. Seat 0 at
    40 with end_score 40 and one seat alone lowest: reached ends, exceeded goes on; a
    score of 100 made 50 by Perfect 100 ends neither."""
    p = play_script(SPREAD, scores=(24, 5, 0, 3), end_score=40, no_draw=True, end_when=end_when)
    assert column(p, D_SCORE) == [40, 15, 0, 3]
    assert game_over(p) is over
    p = play_script(SPREAD, scores=(84, 0, 0, 0), perfect_100=True, end_when=end_when)
    assert column(p, D_SCORE) == [50, 10, 0, 0]
    assert not game_over(p)


def test_default_end_score_is_100():
    """A3: by default the game ends at 100 (99 goes on)."""
    p = play_script(SPREAD, scores=(83, 0, 0, 0))
    assert column(p, D_SCORE) == [99, 10, 0, 0]
    assert not game_over(p)
    p = play_script(SPREAD, scores=(84, 0, 0, 0))
    assert game_over(p)


def test_lowest_score_wins_and_places():
    """A3: the lowest score wins; place = 1 + the number of strictly lower scores."""
    p = play_script(SPREAD, scores=(84, 70, 85, 95))
    assert column(p, D_SCORE) == [100, 80, 85, 95]
    assert game_over(p)
    assert games(p, G_WINNER) == [0, 1, 0, 0]
    assert games(p, G_PLACE) == [4, 1, 2, 3]


def test_tied_lowest_scores_are_co_winners():
    """A3: without ``no_draw`` a game ends with tied lowest scores; they are co-winners
    and share place 1."""
    p = play_script(SPREAD, scores=(84, 80, 90, 90))
    assert column(p, D_SCORE) == [100, 90, 90, 90]
    assert game_over(p)
    assert games(p, G_WINNER) == [0, 1, 1, 1]
    assert games(p, G_PLACE) == [4, 1, 1, 1]


def test_no_draw_keeps_the_game_going_while_lowest_is_tied():
    """A3, option ``no_draw``: the game does not end while two seats share the lowest
    score; it ends once exactly one seat is lowest."""
    p = play_script(SPREAD, scores=(84, 80, 90, 90), no_draw=True)
    assert column(p, D_SCORE) == [100, 90, 90, 90]
    assert not game_over(p)
    p = play_script(SPREAD, scores=(84, 80, 90, 91), no_draw=True)
    assert column(p, D_SCORE) == [100, 90, 90, 91]
    assert not game_over(p)  # 90 and 90 tie for lowest
    p = play_script(SPREAD, scores=(84, 80, 89, 91), no_draw=True)
    assert game_over(p)
    assert games(p, G_WINNER) == [0, 0, 1, 0]


@pytest.mark.parametrize(("max_deals", "over"), [(1, True), (2, False)])
def test_max_deals_ends_the_game_recorded_as_such(max_deals, over):
    """A3, option ``max_deals``: the game ends after that many deals, recorded as ended
    by max_deals (1), even with every score far below end_score."""
    p = play_script(SPREAD, max_deals=max_deals)
    assert game_over(p) is over
    if over:
        assert games(p, G_ENDED_BY) == [1] * 4
        assert games(p, G_DEALS) == [1] * 4
        assert games(p, G_WINNER) == [0, 0, 1, 1]
        assert games(p, G_PLACE) == [4, 3, 1, 1]


@pytest.mark.parametrize(
    ("options", "scores", "deals", "expected"),
    [
        ({}, [99, 0, 0, 0], 5, -1),
        ({}, [100, 0, 0, 0], 5, 0),
        ({}, [130, 20, 20, 0], 5, 0),
        ({"end_score": 50}, [49, 0, 0, 0], 5, -1),
        ({"end_score": 50}, [50, 0, 0, 0], 5, 0),
        ({"end_score": 150}, [149, 0, 0, 0], 5, -1),
        ({"end_score": 150}, [150, 0, 0, 0], 5, 0),
        # no_draw: a tie for the lowest score keeps the game going
        ({}, [100, 10, 10, 20], 5, 0),
        ({"no_draw": True}, [100, 10, 10, 20], 5, -1),
        ({"no_draw": True}, [100, 10, 11, 20], 5, 0),
        ({"no_draw": True}, [100, 100, 100, 100], 5, -1),
        ({"no_draw": True}, [99, 10, 11, 20], 5, -1),
        # max_deals
        ({}, [0, 0, 0, 0], 199, -1),
        ({}, [0, 0, 0, 0], 200, 1),
        ({"max_deals": 5}, [0, 0, 0, 0], 4, -1),
        ({"max_deals": 5}, [0, 0, 0, 0], 5, 1),
        ({"max_deals": 5, "no_draw": True}, [100, 10, 10, 20], 5, 1),
        ({"max_deals": 5}, [100, 10, 10, 20], 5, 0),  # end_score is checked first
        # end_when=exceeded: strictly above end_score
        ({"end_when": "exceeded"}, [100, 0, 0, 0], 5, -1),
        ({"end_when": "exceeded"}, [101, 0, 0, 0], 5, 0),
        ({"end_when": "exceeded", "end_score": 50}, [50, 0, 0, 0], 5, -1),
        ({"end_when": "exceeded", "end_score": 50}, [51, 0, 0, 0], 5, 0),
        ({"end_when": "exceeded", "no_draw": True}, [101, 10, 10, 20], 5, -1),
        ({"end_when": "exceeded", "no_draw": True}, [101, 10, 11, 20], 5, 0),
        ({"end_when": "exceeded", "max_deals": 5}, [100, 0, 0, 0], 5, 1),
        ({"end_when": "exceeded", "max_deals": 5}, [100, 0, 0, 0], 4, -1),
    ],
)
def test_game_end_kernel(options, scores, deals, expected):
    """A3 on the kernel: -1 goes on, 0 ended by end_score, 1 ended by max_deals."""
    assert game_end(Rules(**options).to_array(), arr(scores), deals) == expected


@pytest.mark.parametrize(
    ("scores", "places"),
    [
        ([10, 20, 20, 30], [1, 2, 2, 4]),
        ([50, 50, 50, 50], [1, 1, 1, 1]),
        ([40, 30, 20, 10], [4, 3, 2, 1]),
        ([0, 0, 7, 7], [1, 1, 3, 3]),
    ],
)
def test_places_kernel(scores, places):
    """A3: place = 1 + the number of seats with a strictly lower score."""
    assert [place_of(arr(scores), s) for s in range(4)] == places
