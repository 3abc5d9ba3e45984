"""Penalty card values (docs/rules.md A1.8): ``heart_points``, ``pink_lady``,
``queen_points``, ``black_maria`` and their presets.

Scenario deals are scripts of 13 tricks played card by card through the engine
(tests/test_scoring.py's helpers); the expected points are counted by hand from the
script. The kernels are checked against a value table written here from the docs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hsim.engine.hearts import (
    card_value,
    deck_points,
    least_costly,
    moon_choice_asked,
    most_costly,
    penalty_points,
    planes_points,
    value_planes,
)
from hsim.engine.layout import D_DEAL_SCORE, D_MOON, D_POINTS, D_TAKEN
from hsim.model.cards import format_card, parse_card, parse_cards
from hsim.model.rules import PRESETS, Rules, parse_rules
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.strategy.loader import load_players
from tests.test_bots_duck_heuristic import card, position
from tests.test_scoring import BLOCKS, NO_JACK, SPREAD, column, play_script

#: Every combination of the four value options.
VALUE_OPTIONS = [
    dict(heart_points=h, pink_lady=p, queen_points=q, black_maria=b)
    for h, p, q, b in itertools.product(("one", "rank"), (False, True), (13, 0), (False, True))
]


def doc_value(rules: Rules, c: int) -> int:
    """A card's points as docs/rules.md A1.8 states them, written independently."""
    name = format_card(c)
    rank, suit = name[0], name[1]
    ranks = "23456789TJQKA"
    if suit == "H":
        if name == "QH" and rules.pink_lady:
            return 13
        return ranks.index(rank) + 2 if rules.heart_points == "rank" else 1
    if name == "QS":
        return rules.queen_points
    if rules.black_maria and name in ("KS", "AS"):
        return {"KS": 10, "AS": 7}[name]
    return 0


@pytest.mark.parametrize("options", VALUE_OPTIONS, ids=lambda o: ",".join(map(str, o.values())))
def test_kernels_count_the_documented_values(options):
    """card_value, penalty_points, the bit planes and deck_points agree with the table of
    A1.8 on every card and on 2,000 random masks, under every combination."""
    rules = Rules(**options)
    v = rules.to_array()
    values = [doc_value(rules, c) for c in range(52)]
    assert [card_value(v, c) for c in range(52)] == values
    planes = np.zeros(4, np.int64)
    value_planes(v, planes)
    rng = np.random.default_rng(7)
    for _ in range(2_000):
        mask = int(rng.integers(0, 1 << 52, dtype=np.int64))
        want = sum(values[c] for c in range(52) if mask >> c & 1)
        assert penalty_points(v, mask) == want
        assert planes_points(*[int(p) for p in planes], mask) == want
    assert deck_points(v) == sum(values)


def test_deck_points_of_the_presets():
    """A1.8, A4: the deck's points under each named variant, as the docs give them."""
    want = {"classic": 26, "black_maria": 43, "pink_lady": 38, "spot_hearts": 117}
    want["pure_hearts"] = 13
    for name, total in want.items():
        assert deck_points(PRESETS[name].to_array()) == total, name
    assert deck_points(Rules(heart_points="rank", pink_lady=True).to_array()) == 118
    assert PRESETS["black_maria"].passing == "right"


def test_most_and_least_costly():
    """The bots' helpers: the card with the most (fewest) points, ties by rank."""
    bm = Rules(black_maria=True).to_array()
    cards = sum(1 << parse_card(c) for c in ("AS", "KS", "2S", "AH"))
    assert format_card(most_costly(bm, 0, cards)) == "KS"
    assert format_card(least_costly(bm, 0, cards)) == "2S"
    plain = Rules().to_array()
    assert format_card(most_costly(plain, 0, cards)) == "AH"  # AH 1, the spades 0
    hearts = sum(1 << parse_card(c) for c in ("3H", "9H", "KH"))
    spot = Rules(heart_points="rank").to_array()
    assert format_card(least_costly(spot, 0, hearts)) == "3H"
    assert format_card(most_costly(spot, 0, hearts)) == "KH"


# -- scenarios: the SPREAD deal of tests/test_scoring.py -------------------------------------
# Seat 0 takes AS and QS (trick 2), KS and 2H (trick 3), 3H, 4H; seat 1 the other ten
# hearts (QH in trick 9); seats 2 and 3 no point card.


@pytest.mark.parametrize(
    ("options", "points"),
    [({}, [16, 10, 0, 0]), ({"heart_points": "rank"}, [13 + 2 + 3 + 4, 95, 0, 0])],
)
def test_spot_hearts_counts_ranks(options, points):
    """A1.8 ``heart_points=rank``: seat 1's 5H..AH are 5 + 6 + ... + 14 = 95 points; seat 0
    has the QS and 2H 3H 4H (off: one a heart)."""
    p = play_script(SPREAD, **options)
    assert column(p, D_POINTS) == points
    assert sum(column(p, D_DEAL_SCORE)) == sum(points)


@pytest.mark.parametrize(("pink", "points"), [(False, [16, 10, 0, 0]), (True, [16, 22, 0, 0])])
def test_pink_lady_queen_of_hearts_is_13(pink, points):
    """A1.8 ``pink_lady``: seat 1's QH counts 13, its nine other hearts 1 each."""
    p = play_script(SPREAD, pink_lady=pink)
    assert column(p, D_POINTS) == points


@pytest.mark.parametrize(("queen", "points"), [(13, [16, 10, 0, 0]), (0, [3, 10, 0, 0])])
def test_no_queen_penalty(queen, points):
    """A1.8 ``queen_points=0``: seat 0's QS is worth nothing, its three hearts 3."""
    p = play_script(SPREAD, queen_points=queen)
    assert column(p, D_POINTS) == points


@pytest.mark.parametrize(("maria", "points"), [(False, [16, 10, 0, 0]), (True, [33, 10, 0, 0])])
def test_black_maria_spades(maria, points):
    """A1.8 ``black_maria``: seat 0's AS (7) and KS (10) count besides its QS and hearts."""
    p = play_script(SPREAD, black_maria=maria)
    assert column(p, D_POINTS) == points
    taken = column(p, D_TAKEN)
    assert taken[0] >> parse_card("KS") & 1 and taken[0] >> parse_card("AS") & 1


# NOT_ALL_SPADES: seat 0 takes every heart and the QS, seat 1 the KS in trick 1 (the
# NO_JACK deal of tests/test_scoring.py with KS and 2S swapped).
NOT_ALL_SPADES = [t.replace("KS", "--").replace("2S", "KS").replace("--", "2S") for t in NO_JACK]


@pytest.mark.parametrize(
    ("maria", "moon", "scores"), [(False, 1, [0, 26, 26, 26]), (True, 0, [33, 10, 0, 0])]
)
def test_a_moon_takes_every_card_worth_points(maria, moon, scores):
    """A2.2 under A1.8: every heart and the QS are a moon with the usual values; under
    Black Maria seat 1's KS (10) is missing, so seat 0 scores its 33 and seat 1 its 10."""
    p = play_script(NOT_ALL_SPADES, black_maria=maria)
    assert column(p, D_MOON)[0] == moon
    assert column(p, D_DEAL_SCORE) == scores


@pytest.mark.parametrize(
    ("options", "total"),
    [
        ({}, 26),
        ({"black_maria": True}, 43),
        ({"heart_points": "rank"}, 117),
        ({"queen_points": 0}, 13),
    ],
)
def test_the_moon_scores_the_decks_points(options, total):
    """A2.2: seat 0 takes every card of BLOCKS; each other seat scores the deck's points,
    or with shooter_gains the shooter scores minus them."""
    p = Position.from_hands(BLOCKS, rules=Rules(**options))
    p.play_out()
    assert column(p, D_MOON) == [1, 0, 0, 0]
    assert column(p, D_DEAL_SCORE) == [0, total, total, total]
    p = Position.from_hands(BLOCKS, rules=Rules(moon="shooter_gains", **options), scores=(200,) * 4)
    p.play_out()
    assert column(p, D_DEAL_SCORE) == [-total, 0, 0, 0]


def test_new_moon_threshold_is_the_decks_points():
    """A2.2 New Moon: the shooter chooses from the deck's points up (26 usually, 43 with
    Black Maria); below, the moon adds."""
    classic = Rules(moon="new_moon").to_array()
    maria = Rules(moon="new_moon", black_maria=True).to_array()
    before = np.array([30, 0, 0, 0], np.int64)
    assert moon_choice_asked(classic, before, 0)
    assert not moon_choice_asked(maria, before, 0)
    before[0] = 43
    assert moon_choice_asked(maria, before, 0)
    p = Position.from_hands(
        BLOCKS, rules=Rules(moon="new_moon", black_maria=True), scores=(30, 0, 0, 0)
    )
    p.play_out()
    assert p.phase != "moon"  # not asked below 43: the moon adds
    assert column(p, D_DEAL_SCORE) == [0, 43, 43, 43]


# -- many games ------------------------------------------------------------------------------
VARIANTS = {
    name: PRESETS[name] for name in ("black_maria", "pink_lady", "spot_hearts", "pure_hearts")
}
VARIANTS["all_four"] = parse_rules(
    "classic(heart_points=rank,pink_lady=true,black_maria=true,moon=new_moon)"
)
VARIANTS["no_queen_no_moon"] = parse_rules("classic(queen_points=0,moon=off)")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_points_are_conserved_under_every_value_variant(name):
    """Over 1,000 games (the shooter at seat 0, three random seats): every deal's points
    add up to the deck's; each seat's points are its taken cards' values; a moon is a
    seat with all of them, scoring the deck's points to each other seat (or minus them to
    itself under New Moon)."""
    rules = VARIANTS[name]
    v = rules.to_array()
    total = deck_points(v)
    values = [doc_value(rules, c) for c in range(52)]
    deals, _ = play_range(
        rules, load_players(["shooter", "random", "random", "random"]), 13, 0, 1_000
    )
    moons = 0
    for i in range(0, len(deals), 4):
        rows = deals[i : i + 4]
        assert int(rows[:, D_POINTS].sum()) == total
        for s in range(4):
            taken = int(rows[s, D_TAKEN])
            assert rows[s, D_POINTS] == sum(values[c] for c in range(52) if taken >> c & 1)
        full = [s for s in range(4) if rows[s, D_POINTS] == total]
        assert bool(rows[:, D_MOON].any()) == (bool(full) and rules.moon != "off")
        if rows[:, D_MOON].any():
            moons += 1
            assert int(rows[:, D_DEAL_SCORE].sum()) in (3 * total, -total)
        else:
            assert int(rows[:, D_DEAL_SCORE].sum()) == total
    if rules.moon != "off":
        assert moons >= 3, "too few moons to check the moon rule"


HEARTS_BOTS = ["random", "lowcard", "duck", "heuristic", "shooter", "pimc(worlds=2,playouts=1)"]


@pytest.mark.parametrize("bot", HEARTS_BOTS)
def test_every_hearts_bot_plays_legally_under_every_value_variant(bot):
    """Each built-in Hearts bot against random under each variant: the engine refuses any
    illegal card or pass, so finishing the games is the check."""
    players = load_players([bot, "random", bot, "random"])
    n = 2 if bot.startswith("pimc") else 30
    for name, rules in VARIANTS.items():
        deals, games = play_range(rules, players, seed=5, first=0, stop=n)
        assert len(games) == 4 * n, name


# -- the bots read the values ------------------------------------------------------------------
# Seat 2 leads the 2C, seat 1 wins with the AC and leads the KC; seat 2, void, drops the QS
# (or, in PURE, the KS); seat 3 follows; seat 0, void in clubs, discards.
def discard_deal(mine: str, seat2: str) -> list[str]:
    return [
        f"5C {mine} 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
        "AC KC 3S 4S 5S 6S 7S 8S 9S TS 2H 3H 4H",
        f"2C {seat2} 5H 6H 7H 8H 9H TH JH KH QD KD",
        "3C 4C 6C 7C 8C 9C TC JC QC AD 2S AS JS",
    ]


DISCARDS = {
    # name: (seat 0's two cards, seat 2's two cards, seat 2's discard, rules, classic, variant)
    "black_maria": ("KS AH", "QS QH", "QS", {"black_maria": True}, "AH", "KS"),
    "pink_lady": ("QH AH", "QS KS", "QS", {"pink_lady": True}, "AH", "QH"),
    "pure_hearts": ("QS AH", "KS QH", "KS", {"queen_points": 0}, "QS", "AH"),
}


@pytest.mark.parametrize("bot", ["duck", "heuristic", "pimc(worlds=40)"])
@pytest.mark.parametrize("name", list(DISCARDS))
def test_bots_discard_by_the_values(bot, name):
    """Void in the led suit, with the QS gone (or held, in pure hearts), each bot throws
    the card the values make dangerous: the KS under Black Maria, the QH under Pink Lady,
    not the QS when it is worth nothing; under the usual values it throws otherwise."""
    mine, seat2, drop, options, classic, variant = DISCARDS[name]
    hands = discard_deal(mine, seat2)
    plays = f"2C 3C 5C AC KC {drop} 4C"
    if bot == "duck" and name == "pure_hearts":
        classic = "QS"
    got_plain = card(bot, position(hands, plays, rules=Rules()))
    got = card(bot, position(hands, plays, rules=Rules(**options)))
    assert got == variant, (bot, name, got)
    if not (bot.startswith("pimc") and name == "pink_lady"):
        assert got_plain == classic, (bot, name, got_plain)
    assert set(parse_cards(f"{got} {got_plain}")) <= set(parse_cards(hands[0]))
