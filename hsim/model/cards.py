"""Cards as small ints and sets of cards as 52-bit masks.

A card is an int 0..51: ``suit * 13 + rank``, suits in the order clubs, diamonds,
spades, hearts (C, D, S, H) and ranks 2..A as 0..12. A set of cards is a 52-bit int
(``CardMask``) with bit ``card`` set when the card is in the set, so each suit is one
13-bit field and "the cards of the led suit" is one AND with ``SUIT_MASKS[suit]``.

Text form: rank then suit, ``2C``, ``TD``, ``JD``, ``QS``, ``AH``; parsing also accepts
``10D`` and lower case.

>>> format_card(QUEEN_SPADES)
'QS'
>>> parse_card("10d") == parse_card("TD")
True
>>> format_mask(parse_mask("QS 2C AH"))
'2C QS AH'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hsim.errors import CardParseError

Card = int
CardMask = int

SUITS = "CDSH"
RANKS = "23456789TJQKA"
SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")
CLUBS, DIAMONDS, SPADES, HEARTS = 0, 1, 2, 3
N_CARDS = 52

# The card constants, defined here only: the engine and the strategies import them (as
# plain ints they are compiled into the kernels; hsim.engine._numba counts this file in the hash
# that keys the compiled-code cache).
SUIT_MASK: CardMask = (1 << 13) - 1  # the 13 cards of one suit at clubs' place: << 13 * s
SUIT_MASKS: tuple[CardMask, ...] = tuple(SUIT_MASK << (13 * s) for s in range(4))
CLUBS_MASK, DIAMONDS_MASK, SPADES_MASK, HEARTS_MASK = SUIT_MASKS
FULL_DECK: CardMask = (1 << N_CARDS) - 1
TWOS: CardMask = sum(1 << (13 * s) for s in range(4))  # the four twos; << r gives rank r
JACK_RANK, QUEEN_RANK, KING_RANK, ACE_RANK = (RANKS.index(r) for r in "JQKA")

TWO_CLUBS: Card = CLUBS * 13
JACK_DIAMONDS: Card = DIAMONDS * 13 + JACK_RANK
TEN_DIAMONDS: Card = JACK_DIAMONDS - 1  # omnibus_card=TD's bonus card (docs/rules.md A2.3)
QUEEN_SPADES: Card = SPADES * 13 + QUEEN_RANK
KING_SPADES: Card = SPADES * 13 + KING_RANK
ACE_SPADES: Card = SPADES * 13 + ACE_RANK
QUEEN_HEARTS: Card = HEARTS * 13 + QUEEN_RANK
KING_HEARTS: Card = HEARTS * 13 + KING_RANK
ACE_HEARTS: Card = HEARTS * 13 + ACE_RANK
QS_BIT: CardMask = 1 << QUEEN_SPADES
JD_BIT: CardMask = 1 << JACK_DIAMONDS
KH_BIT: CardMask = 1 << KING_HEARTS
AH_BIT: CardMask = 1 << ACE_HEARTS


def card(rank: int, suit: int) -> Card:
    """Return the card of ``rank`` (0 = two .. 12 = ace) and ``suit`` (0..3, CDSH)."""
    return suit * 13 + rank


def suit_of(c: Card) -> int:
    """Return the suit of card ``c``: 0 clubs, 1 diamonds, 2 spades, 3 hearts."""
    return c // 13


def rank_of(c: Card) -> int:
    """Return the rank of card ``c``: 0 for a two up to 12 for an ace."""
    return c % 13


def parse_card(text: str) -> Card:
    """Read one card such as ``QS``, ``td``, ``10D``.

    :raises CardParseError: the text is not a card.
    """
    t = text.strip().upper()
    if len(t) == 3 and t.startswith("10"):
        t = "T" + t[2]
    if len(t) != 2:
        raise CardParseError(text, "a card is two characters", code_hint=True)
    r, s = t
    if r not in RANKS:
        raise CardParseError(text, f"unknown rank {r!r}", code_hint=True)
    if s not in SUITS:
        raise CardParseError(text, f"unknown suit {s!r}", code_hint=True)
    return card(RANKS.index(r), SUITS.index(s))


def format_card(c: Card) -> str:
    """Return the two-character code of card ``c`` (0..51), e.g. ``QS``.

    :raises ValueError: ``c`` is not in 0..51.
    """
    if not 0 <= c < N_CARDS:
        raise ValueError(f"card number {c} is outside 0..51")
    return RANKS[c % 13] + SUITS[c // 13]


def split_cards(text: str) -> list[str]:
    """Split a card list written with spaces or commas, or run together (``2C7CQS``)."""
    parts = text.replace(",", " ").split()
    out: list[str] = []
    for part in parts:
        i = 0
        while i < len(part):
            n = 3 if part[i : i + 2] == "10" else 2
            out.append(part[i : i + n])
            i += n
    return out


def parse_cards(text: str) -> list[Card]:
    """Read a list of cards, in order, e.g. ``"QS TD 2c"`` or ``"QSTD2C"``.

    :raises CardParseError: a piece is not a card.
    """
    return [parse_card(p) for p in split_cards(text)]


def parse_mask(text: str) -> CardMask:
    """Read a set of cards as a mask.

    :raises CardParseError: a piece is not a card, or a card is repeated.
    """
    m = 0
    for c in parse_cards(text):
        if m >> c & 1:
            raise CardParseError(format_card(c), "card listed twice")
        m |= 1 << c
    return m


def mask_of(cards: Iterable[Card]) -> CardMask:
    """Return the mask holding ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: CardMask) -> Iterator[Card]:
    """Yield the cards of ``mask`` in increasing order (clubs first, two first)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def format_mask(mask: CardMask, sep: str = " ") -> str:
    """Return the cards of ``mask`` as codes in increasing order, joined by ``sep``."""
    return sep.join(format_card(c) for c in cards_of(mask))


class CardSet(int):
    """A set of cards that prints as card names: a :data:`CardMask` with set methods.

    It *is* the 52-bit int (bit ``card`` set when held), so it goes wherever a mask goes
    and ``&``, ``|``, ``^`` keep it a CardSet; ``-`` and ``~`` stay integer arithmetic
    (``mask & (mask - 1)`` keeps its meaning), use :meth:`difference` to remove cards.
    Build from a mask, card codes (``"QS AH"``) or card ints; ``repr()`` pastes back.

    >>> CardSet("AH 2C QS")
    CardSet('2C QS AH')
    >>> str(CardSet(1 << QUEEN_SPADES)), len(CardSet("2C 3C")), "QS" in CardSet("QS")
    ('QS', 2, True)

    :raises CardParseError: a code that is not a card, or a card listed twice.
    :raises ValueError: a mask outside 0 .. 2**52 - 1.
    """

    def __new__(cls, cards: CardMask | str | Iterable[Card] = 0) -> CardSet:
        if isinstance(cards, str):
            mask = parse_mask(cards)
        elif isinstance(cards, int):
            mask = int(cards)
        else:
            mask = mask_of(int(c) for c in cards)
        if not 0 <= mask <= FULL_DECK:
            raise ValueError(f"a card mask is 0 .. 2**52 - 1 (52 bits), not {mask}")
        return super().__new__(cls, mask)

    def __iter__(self) -> Iterator[Card]:
        return cards_of(int(self))

    def __len__(self) -> int:
        return bin(int(self)).count("1")

    def __contains__(self, c: object) -> bool:
        if isinstance(c, str):
            c = parse_card(c)
        return isinstance(c, int) and 0 <= c < N_CARDS and bool(int(self) >> c & 1)

    def __and__(self, other: int) -> CardSet:
        return CardSet(int(self) & int(other))

    def __or__(self, other: int) -> CardSet:
        return CardSet(int(self) | int(other))

    def __xor__(self, other: int) -> CardSet:
        return CardSet(int(self) ^ int(other))

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def difference(self, other: int) -> CardSet:
        """Return the cards of this set that are not in ``other`` (a mask or CardSet)."""
        return CardSet(int(self) & ~int(other))

    def suit(self, s: int) -> CardSet:
        """Return the cards of suit ``s`` (0..3, C D S H)."""
        return CardSet(int(self) & SUIT_MASKS[s])

    def __str__(self) -> str:
        return format_mask(int(self))

    def __repr__(self) -> str:
        return f"CardSet({format_mask(int(self))!r})"
