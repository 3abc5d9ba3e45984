"""Kierki's point tables, the priced trick and the lifted heart-lead ban (docs/rules.md B1,
B2, B2.6), on deals set up from card names and played with fixed cards.

Every expected score is written out as arithmetic from the tables of docs/rules.md B1
(the numbers are typed here, not read from the code), for a deal whose tricks are worked
out by hand below.
"""

from __future__ import annotations

import numpy as np
import pytest

from hsim.engine.layout import (
    D_KIND,
    D_LOTTERY_PLACE,
    D_POINTS,
    D_TRICKS,
    KIND_NAMES,
    P_DEALER,
    P_TRICK_WINNER,
)
from hsim.errors import IllegalPlayError
from hsim.model.cards import CardParseError, parse_mask
from hsim.model.rules import PRESETS, make_rules, parse_rules
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.strategy.loader import load_players

# The deal every table is checked on (4 players, seat 0 leads trick 1). Worked out by hand:
# tricks 1-6 seat 0 leads its clubs from the ace down and wins each (seat 2 follows low,
# seats 1 and 3 discard a spade and a heart); trick 7 seat 0 leads 2D and seat 1 wins it
# with AD; tricks 8-12 seat 1 wins with KD..9D; trick 13 seat 1 leads 8S and seat 2 wins
# with AS.
HANDS = [
    "AC KC QC JC TC 9C 2D 3D 4D 5D 6D 7D 8D",
    "AD KD QD JD TD 9D 2S 3S 4S 5S 6S 7S 8S",
    "2C 3C 4C 5C 6C 7C 8C 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
TRICKS = [  # each in play order, the leader first
    "AC 2S 2C 2H",
    "KC 3S 3C 3H",
    "QC 4S 4C 4H",
    "JC 5S 5C 5H",
    "TC 6S 6C 6H",
    "9C 7S 7C 7H",  # the 6th trick: seat 0
    "2D AD 8C 8H",  # the 7th trick: seat 1
    "KD 9S 9H 3D",
    "QD TS TH 4D",
    "JD JS JH 5D",
    "TD QS QH 6D",
    "9D KS KH 7D",  # KH to seat 1
    "8S AS AH 8D",  # the last trick: seat 2
]
# What each seat takes: seat 0 tricks 1-6 (hearts 2H-7H, QC, KC JC); seat 1 tricks 7-12
# (hearts 8H-KH, QD QS QH, KD JD JS JH KS KH, the KH); seat 2 trick 13 (AH).
TAKEN_TRICKS = (6, 6, 1, 0)
TAKEN_HEARTS = (6, 6, 1, 0)
TAKEN_QUEENS = (1, 3, 0, 0)
TAKEN_MEN = (2, 6, 0, 0)

# docs/rules.md B1, 4 players: trick, heart, queen, man, KH, priced or last trick.
VALUES = {
    "hsim": (20, 20, 60, 30, 150, 75),
    "servers": (1, 1, 5, 2, 18, 10),
    "program": (2, 2, 5, 3, 16, 9),
}


def played(kind: str, options: str = "", hands=HANDS, tricks=TRICKS, **kw) -> Position:
    """Set the deal up as ``kind`` under kierki4 with ``options`` and play ``tricks``."""
    rules = parse_rules(f"kierki4({options})" if options else "kierki4")
    p = Position.from_kierki_hands(hands, rules, kind=kind, leader=0, **kw)
    for trick in tricks:
        p.play(trick)
    return p


def points(p: Position) -> list[int]:
    return p.rows[:, D_POINTS].tolist()


@pytest.mark.parametrize("table", ["hsim", "servers", "program"])
def test_each_penalty_deal_of_each_table(table):
    tr, he, qu, ma, kh, la = VALUES[table]
    t = f"point_table={table}"
    assert points(played("tricks", t)) == [-tr * 6, -tr * 6, -tr * 1, 0]
    assert points(played("hearts", t)) == [-he * 6, -he * 6, -he * 1, 0]
    assert points(played("queens", t)) == [-qu * 1, -qu * 3, 0, 0]
    assert points(played("men", t)) == [-ma * 2, -ma * 6, 0, 0]
    assert points(played("king_of_hearts", t)) == [0, -kh, 0, 0]
    # the 7th trick to seat 1, the last to seat 2; with priced_trick=sixth the 6th to seat 0
    assert points(played("seventh_and_last", t)) == [0, -la, -la, 0]
    assert points(played("seventh_and_last", t + ",priced_trick=sixth")) == [-la, 0, -la, 0]


@pytest.mark.parametrize("table", ["hsim", "servers", "program"])
@pytest.mark.parametrize("priced", ["seventh", "sixth"])
def test_the_rebel_adds_every_item_of_the_table(table, priced):
    tr, he, qu, ma, kh, la = VALUES[table]
    sixth = priced == "sixth"
    expected = [
        -(tr * 6 + he * 6 + qu * 1 + ma * 2 + (la if sixth else 0)),
        -(tr * 6 + he * 6 + qu * 3 + ma * 6 + kh + (0 if sixth else la)),
        -(tr * 1 + he * 1 + la),
        0,
    ]
    p = played("rebel", f"rebel=true,point_table={table},priced_trick={priced}")
    assert points(p) == expected
    assert sum(expected) == -(tr * 13 + he * 13 + qu * 4 + ma * 8 + kh + la * 2)


def test_hand_computed_numbers_of_the_default_table():
    """The default (hsim) table, with the numbers written out once."""
    assert points(played("men")) == [-60, -180, 0, 0]
    assert points(played("seventh_and_last")) == [0, -75, -75, 0]
    assert points(played("rebel", "rebel=true")) == [
        -(20 * 6 + 20 * 6 + 60 + 30 * 2),
        -(20 * 6 + 20 * 6 + 60 * 3 + 30 * 6 + 150 + 75),
        -(20 + 20 + 75),
        0,
    ]


SUITS = [  # each seat one whole suit: seat 0, leading, takes every trick
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


@pytest.mark.parametrize("priced", ["seventh", "sixth"])
def test_program_one_seat_taking_both_priced_tricks_loses_18(priced):
    p = Position.from_kierki_hands(
        SUITS, f"kierki4(point_table=program,priced_trick={priced})", "seventh_and_last", 0
    )
    p.play_out()
    assert points(p) == [-(9 + 9), 0, 0, 0]
    assert points(p) == [-18, 0, 0, 0]


@pytest.mark.parametrize(("table", "value"), [("hsim", 15), ("servers", 1), ("program", 5)])
def test_trump_deal_values(table, value):
    # Diamonds trump: seat 0 takes tricks 1-6 (no diamond in them) and trick 13 (8D trumps
    # 8S), seat 1 tricks 7-12.
    p = played("trump", f"point_table={table}", trump="D")
    assert points(p) == [value * 7, value * 6, 0, 0]
    p = played("trump", f"point_table={table},trump_trick_value=10", trump="D")
    assert points(p) == [10 * 7, 10 * 6, 0, 0]


@pytest.mark.parametrize(
    ("table", "first", "second"), [("hsim", 800, 500), ("servers", 62, 38), ("program", 10, 5)]
)
def test_lottery_places_of_each_table(table, first, second):
    p = Position.from_kierki_hands(SUITS, f"kierki4(point_table={table})", "lottery", leader=0)
    p.play_out()
    rows = p.rows
    by_place = {1: first, 2: second, 0: 0}
    assert rows[:, D_POINTS].tolist() == [by_place[x] for x in rows[:, D_LOTTERY_PLACE]]
    assert sorted(rows[:, D_LOTTERY_PLACE].tolist()) == [0, 0, 1, 2]


# --- heart_lead_ban=none ----------------------------------------------------------------

MIXED = [  # seat 0 holds KH and 2H among other suits (AC and KC went to seat 3)
    "2H KH QC JC TC 9C 2D 3D 4D 5D 6D 7D 8D",
    HANDS[1],
    HANDS[2],
    "AC KC 3H 4H 5H 6H 7H 8H 9H TH JH QH AH",
]


@pytest.mark.parametrize("kind", ["hearts", "king_of_hearts", "rebel"])
def test_heart_lead_ban_values(kind):
    hand = parse_mask(MIXED[0])
    hearts = parse_mask("2H KH")
    legal = {}
    for ban in ("every_heart", "king_of_hearts", "none"):
        rules = f"kierki4(rebel=true,heart_lead_ban={ban})"
        legal[ban] = int(Position.from_kierki_hands(MIXED, rules, kind, 0).legal())
    assert legal["every_heart"] == hand & ~hearts
    assert legal["king_of_hearts"] == hand & ~parse_mask("KH")
    assert legal["none"] == hand
    # no ban in the other deals, whatever the value
    assert int(Position.from_kierki_hands(MIXED, "kierki4", "men", 0).legal()) == hand


def test_a_heart_lead_under_none_plays_on():
    p = Position.from_kierki_hands(MIXED, "kierki4(heart_lead_ban=none)", "hearts", 0)
    p.play("KH")
    with pytest.raises(IllegalPlayError):
        Position.from_kierki_hands(MIXED, "kierki4", "hearts", 0).play("KH")


def test_servers_preset_has_no_ban():
    rules = PRESETS["kierki4_servers"]
    assert rules.point_table == "servers" and rules.heart_lead_ban == "none"
    p = Position.from_kierki_hands(MIXED, rules, "hearts", 0)
    assert int(p.legal()) == parse_mask(MIXED[0])
    assert PRESETS["kierki4_program"].priced_trick == "sixth"


# --- whole games: conservation and the bots ---------------------------------------------

PENALTY_ITEMS = {  # kind: (index into VALUES, count of items in a 4-player deal)
    "tricks": (0, 13),
    "hearts": (1, 13),
    "queens": (2, 4),
    "men": (3, 8),
    "king_of_hearts": (4, 1),
    "seventh_and_last": (5, 2),
}
TRUMP = {"hsim": 15, "servers": 1, "program": 5}
LOTTERY = {"hsim": 800 + 500, "servers": 62 + 38, "program": 10 + 5}


def deal_total(kind: str, table: str) -> int:
    """Return every seat's points of a 4-player deal of ``kind`` together (B1 tables)."""
    v = VALUES[table]
    if kind in PENALTY_ITEMS:
        i, count = PENALTY_ITEMS[kind]
        return -v[i] * count
    if kind == "rebel":
        return sum(deal_total(k, table) for k in PENALTY_ITEMS)
    if kind == "trump":
        return TRUMP[table] * 13
    return LOTTERY[table]


@pytest.mark.parametrize("table", ["hsim", "servers", "program"])
@pytest.mark.parametrize("priced", ["seventh", "sixth"])
def test_the_total_of_every_deal_is_conserved(table, priced):
    rules = make_rules(
        "kierki4",
        {"point_table": table, "priced_trick": priced, "rebel": True, "heart_lead_ban": "none"},
    )
    n_games = 2000
    players = load_players(["random", "lowcard", "random", "kierki"], rules)
    deals, _ = play_range(rules, players, 11, 0, n_games)
    assert deals.shape[0] == n_games * 12 * 4
    sums = deals[:, D_POINTS].reshape(-1, 4).sum(axis=1)
    kinds = deals[::4, D_KIND]
    for code in np.unique(kinds):
        kind = KIND_NAMES[code]
        assert (sums[kinds == code] == deal_total(kind, table)).all(), kind
    trump = deals[deals[:, D_KIND] == KIND_NAMES.index("trump")]
    assert (trump[:, D_POINTS] == trump[:, D_TRICKS] * TRUMP[table]).all()


def test_three_players_use_the_same_values():
    rules = make_rules("kierki3", {"point_table": "servers"})
    deals, _ = play_range(rules, load_players(["random"] * 3, rules), 3, 0, 200)
    sums = deals[:, D_POINTS].reshape(-1, 3).sum(axis=1)
    kinds = [KIND_NAMES[k] for k in deals[::3, D_KIND]]
    expected = {"tricks": -1 * 17, "hearts": -1 * 13, "trump": 1 * 17, "lottery": 62 + 38}
    for kind, total in expected.items():
        assert all(s == total for s, k in zip(sums, kinds, strict=True) if k == kind), kind


#: The built-in bots that play Kierki (heuristic and pimc play Hearts only).
KIERKI_BOTS = ["random", "lowcard", "kierki"]


@pytest.mark.parametrize(
    "rules",
    [
        "kierki4_servers(rebel=true)",
        "kierki4_program(rebel=true,heart_lead_ban=king_of_hearts)",
        "kierki3(point_table=program,priced_trick=sixth,heart_lead_ban=none)",
    ],
)
def test_the_built_in_bots_play_legally_under_each_table(rules):
    r = parse_rules(rules)
    for i in range(len(KIERKI_BOTS)):
        seats = [KIERKI_BOTS[(i + k) % len(KIERKI_BOTS)] for k in range(r.players)]
        # an illegal card stops play_range with a StrategyError
        _, games = play_range(r, load_players(seats, r), 5, 0, 50)
        assert games.shape[0] == 50 * r.players


# --- Position.from_kierki_hands --------------------------------------------------------


def test_the_dealer_sits_right_of_the_leader_and_repr_pastes_back():
    p = Position.from_hands(HANDS, rules="kierki4", kind="queens", leader=2)
    assert p.to_act == 2 and p.phase == "play"
    assert int(p.state.public[P_DEALER]) == 1
    p.play("2C AH")  # seat 2 leads 2C; seat 3, void in clubs, discards AH
    back = eval(repr(p), {"Position": Position})
    assert repr(back) == repr(p) and back.legal() == p.legal()
    assert back.dealt_hands() == p.dealt_hands()


def test_default_leader_is_the_one_of_the_game_sequence():
    # B1: deal 3 (queens) is dealt by seat 2, seat 3 leads; the lottery (deal 11) by seat
    # 2, who opens it; with 3 players deal 3 is dealt by seat 2, seat 0 leads.
    assert Position.from_kierki_hands(HANDS, "kierki4", "queens").to_act == 3
    assert Position.from_kierki_hands(HANDS, "kierki4", "lottery").to_act == 2
    three = ["2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 3C 4C 5C 6C"]
    three += ["2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 7C 8C 9C TC"]
    three += ["2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH JC QC KC AC"]
    assert Position.from_kierki_hands(three, "kierki3", "queens").to_act == 0


@pytest.mark.parametrize(
    ("hands", "kwargs", "error", "says"),
    [
        (HANDS[:3], {}, CardParseError, "need 4 hands"),
        ([HANDS[0], HANDS[0], HANDS[2], HANDS[3]], {}, CardParseError, "two seats"),
        ([h.replace("2H ", "") for h in HANDS], {}, CardParseError, "13 different"),
        (HANDS, {"kind": "jokers"}, ValueError, "kind="),
        (HANDS, {"kind": "trump"}, ValueError, "needs one of"),
        (HANDS, {"kind": "trump", "trump": "none"}, ValueError, "needs one of"),
        (HANDS, {"kind": "men", "trump": "H"}, ValueError, "only a trump deal"),
        (HANDS, {"leader": 4}, ValueError, "seat 0..3"),
    ],
)
def test_bad_kierki_setups_say_what_is_wrong(hands, kwargs, error, says):
    with pytest.raises(error, match=says):
        Position.from_kierki_hands(hands, "kierki4", **kwargs)


def test_kierki_setup_needs_kierki_rules_and_no_passing():
    with pytest.raises(ValueError, match="Kierki rules"):
        Position.from_hands(HANDS, kind="men")
    with pytest.raises(ValueError, match="no passing"):
        Position.from_hands(HANDS, "left", rules="kierki4")


def test_no_trump_with_allow_no_trump():
    p = Position.from_kierki_hands(HANDS, "kierki4(allow_no_trump=true)", "trump", 0, "none")
    for trick in TRICKS[:7]:
        p.play(trick)
    assert int(p.state.public[P_TRICK_WINNER + 6]) == 1  # AD wins, no trump to beat it


def test_kierki_perft_counts_by_hand():
    p = Position.from_kierki_hands(SUITS, "kierki4", "tricks", 0)
    # seat 0 leads any of 13 clubs; the other three, void, may discard any of 13 cards
    assert p.perft(1) == (13, {})
    assert p.perft(2)[0] == 13 * 13
    total, per_card = p.perft(3, divide=True)
    assert total == 13 * 13 * 13 and set(per_card.values()) == {13 * 13}
    p = Position.from_kierki_hands(HANDS, "kierki4", "hearts", 0)
    # seat 0 may lead any of its 13 cards (none is a heart); after one of its 6 clubs seat
    # 1, void, may play any of 13; after one of its 7 diamonds it follows with one of 6
    assert p.perft(2)[0] == 6 * 13 + 7 * 6
    done = Position.from_kierki_hands(SUITS, "kierki4", "tricks", 0)
    done.play_out()
    with pytest.raises(IllegalPlayError, match="deal_over phase"):
        done.perft(3)
