import pytest

from hsim.model.cards import (
    FULL_DECK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    SUIT_MASKS,
    TWO_CLUBS,
    CardParseError,
    cards_of,
    format_card,
    format_mask,
    mask_of,
    parse_card,
    parse_cards,
    parse_mask,
)


def test_every_card_round_trips():
    for c in range(52):
        assert parse_card(format_card(c)) == c
        assert parse_card(format_card(c).lower()) == c


def test_named_cards():
    assert format_card(TWO_CLUBS) == "2C"
    assert format_card(QUEEN_SPADES) == "QS"
    assert format_card(JACK_DIAMONDS) == "JD"
    assert TWO_CLUBS == 0 and QUEEN_SPADES == 36


def test_ten_written_as_10_or_t():
    assert parse_card("10D") == parse_card("TD") == parse_card("td") == parse_card("10d")


@pytest.mark.parametrize("text", ["", "Q", "QX", "1C", "11D", "ZS", "QSS"])
def test_bad_card_names_the_text(text):
    with pytest.raises(CardParseError) as err:
        parse_card(text)
    assert repr(text) in str(err.value)
    assert err.value.text == text


def test_card_lists_spaced_comma_or_run_together():
    assert parse_cards("2C 10D,QS") == parse_cards("2C10DQS") == [0, 21, 36]


def test_masks():
    m = parse_mask("QS 2C AH")
    assert list(cards_of(m)) == [0, 36, 51]
    assert format_mask(m) == "2C QS AH"
    assert mask_of(cards_of(FULL_DECK)) == FULL_DECK
    assert sum(SUIT_MASKS) == FULL_DECK
    with pytest.raises(CardParseError, match="twice"):
        parse_mask("QS qs")
