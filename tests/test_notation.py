"""Deal and position notation: round trips and clear errors."""

import random

import pytest

from hsim.model.cards import CardParseError, format_card
from hsim.model.notation import PositionSpec, format_deal, format_passes, parse_deal, parse_passes
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
