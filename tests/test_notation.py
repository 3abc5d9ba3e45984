"""Deal and position notation: round trips and clear errors."""

import random

import pytest

from hsim.model.cards import CardParseError, format_card
from hsim.model.notation import (
    DEAL_FILE_KINDS,
    KierkiDeal,
    PositionSpec,
    format_deal,
    format_deal_file,
    format_passes,
    parse_deal,
    parse_deal_file,
    parse_passes,
)
from hsim.play.position import IllegalPlayError, Position

BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")


def random_deal(rng: random.Random) -> list[list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [deck[13 * s : 13 * s + 13] for s in range(4)]


def test_deal_string_round_trips_in_dealing_order():
    rng = random.Random(1)
    for _ in range(50):
        hands = random_deal(rng)
        text = format_deal(hands)
        assert parse_deal(text) == hands
        assert text.count("/") == 3 and len(text) == 52 * 2 + 3


def test_deal_accepts_ten_and_lower_case():
    assert parse_deal(BLOCKS.lower().replace("tc", "10c")) == parse_deal(BLOCKS)


@pytest.mark.parametrize(
    "text, fragment",
    [
        (BLOCKS.replace("AC", ""), "seat 0 has 12 cards"),
        (BLOCKS.replace("AC", "AD"), "AD"),
        (BLOCKS.replace("AC", "XC"), "unknown rank 'X'"),
        (BLOCKS.rsplit("/", 1)[0], "4 hands"),
        (BLOCKS.replace("AC", "ACKC"), "seat 0 has 14 cards"),
    ],
)
def test_bad_deals_name_the_problem(text, fragment):
    with pytest.raises(CardParseError, match=fragment):
        parse_deal(text)


def test_duplicate_card_names_the_seats():
    text = BLOCKS.replace("AC", "AD")  # seat 0 holds AD, as does seat 1
    with pytest.raises(CardParseError, match=r"dealt twice \(seats 0 and 1\)"):
        parse_deal(text)


def test_passes_round_trip_and_errors():
    passes = parse_passes("AC KC QC / AD KD QD / AS KS QS / AH KH QH")
    assert parse_passes(format_passes(passes)) == passes
    with pytest.raises(CardParseError, match="seat 2 must pass 3"):
        parse_passes("AC KC QC / AD KD QD / AS KS / AH KH QH")


def test_position_text_round_trips():
    spec = PositionSpec.parse(
        BLOCKS, "left", "AC KC QC / AD KD QD / AS KS QS / AH KH QH", "2C 2H 2D 2S"
    )
    assert PositionSpec.from_text(spec.to_text()) == spec
    assert spec.flags()[:2] == ["--deal", BLOCKS]


def test_pass_of_a_card_not_held_is_named():
    spec = PositionSpec.parse(BLOCKS, "left", "AD KC QC / AD KD QD / AS KS QS / AH KH QH")
    with pytest.raises(IllegalPlayError, match=r"seat 0 cannot pass \[QC KC AD\]"):
        Position.from_spec(spec)


def test_illegal_play_is_named():
    spec = PositionSpec.parse(BLOCKS, "hold", None, "2C 3D QS")
    with pytest.raises(IllegalPlayError, match="seat 2 cannot play QS: the rules allow only"):
        Position.from_spec(spec)
    spec = PositionSpec.parse(BLOCKS, "hold", None, "3C")
    with pytest.raises(IllegalPlayError, match="seat 0 cannot play 3C"):
        Position.from_spec(spec)
    spec = PositionSpec.parse(BLOCKS, "hold", None, "2C 2S")
    with pytest.raises(IllegalPlayError, match="seat 1 cannot play 2S: does not hold it"):
        Position.from_spec(spec)


def test_passing_deal_needs_passes_before_plays():
    with pytest.raises(CardParseError, match="need the passes"):
        PositionSpec.parse(BLOCKS, "left", None, "2C")
    with pytest.raises(CardParseError, match="hold deal has no passes"):
        PositionSpec.parse(BLOCKS, "hold", "AC KC QC / AD KD QD / AS KS QS / AH KH QH")


def test_position_applies_passes_and_plays():
    spec = PositionSpec.parse(BLOCKS, "across", "2C KC QC / AD KD QD / AS KS QS / AH KH QH", "2C")
    p = Position.from_spec(spec)
    assert p.to_act == 3  # seat 2 received 2C from seat 0 and led it; seat 3 is next
    assert format_card(spec.plays[0]) == "2C"


# --- Kierki deal files (docs/rules.md B6) ---------------------------------------------

SERVER_DEAL = """1W
2H7C7H3S10D4D5CJCJD6SQSKSAS
2D2S4C5D5S6H8S9S10CQCQDQHAH
3C4S4H5H6C6D7D7S10SJSJHKCKD
2C3D3H8C8D8H9C9D9H10HKHACAD
"""


def test_a_server_deal_file_reads_type_leader_and_hands():
    (deal,) = parse_deal_file(SERVER_DEAL)
    assert deal.kind == "tricks" and deal.leader == 3  # 1: no tricks; W: seat 3
    assert [format_card(c) for c in deal.hands[0][:5]] == ["2H", "7C", "7H", "3S", "TD"]
    assert format_deal_file([deal]) == SERVER_DEAL  # tens back as 10, the order kept


def test_deal_files_round_trip():
    rng = random.Random(2)
    deals = [
        KierkiDeal(DEAL_FILE_KINDS[i % 7], i % 4, tuple(tuple(h) for h in random_deal(rng)))
        for i in range(30)
    ]
    text = format_deal_file(deals)
    assert text.count("\n") == 5 * 30
    assert parse_deal_file(text) == deals
    # CRLF line ends, blank lines between deals and lower case are read too
    loose = text.replace("\n", "\r\n\r\n").lower()
    assert parse_deal_file(loose) == deals


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "at least one deal"),
        ("1W\n" + "2C3C\n" * 3, "5 lines a deal"),
        (SERVER_DEAL.replace("1W", "8W"), "deal type 1..7"),
        (SERVER_DEAL.replace("1W", "1X"), "deal type 1..7"),
        (SERVER_DEAL.replace("1W", "1"), "deal type 1..7"),
        (SERVER_DEAL.replace("2H7C", "2H2H"), "dealt twice"),
        (SERVER_DEAL.replace("2H7C", "2H1C"), "1C"),
        (SERVER_DEAL.replace("AS\n", "\n", 1), "12 cards"),
        (SERVER_DEAL + SERVER_DEAL.replace("1W", "2Q"), "deal 2"),
    ],
)
def test_bad_deal_files_say_what_is_wrong(text, says):
    with pytest.raises(CardParseError, match=says):
        parse_deal_file(text)


def test_a_kierki_deal_file_needs_a_penalty_kind_and_a_seat():
    hands = tuple(tuple(h) for h in random_deal(random.Random(3)))
    with pytest.raises(CardParseError, match="kind"):
        KierkiDeal("trump", 0, hands)
    with pytest.raises(CardParseError, match="seat 0..3"):
        KierkiDeal("tricks", 4, hands)


def test_a_deal_file_sets_up_the_position_and_writes_it_back():
    p = Position.from_deal_file(SERVER_DEAL, "kierki4")
    assert p.to_act == 3 and p.rules.is_kierki
    assert p.deal_file() == SERVER_DEAL
    assert int(p.hand(3)) == sum(1 << c for c in parse_deal_file(SERVER_DEAL)[0].hands[3])
    assert p.phase == "play"
    with pytest.raises(ValueError, match="kierki4"):
        Position.from_deal_file(SERVER_DEAL, "kierki3")
    with pytest.raises(ValueError, match="no deal 2"):
        Position.from_deal_file(SERVER_DEAL, "kierki4", index=1)
