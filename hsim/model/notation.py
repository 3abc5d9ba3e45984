"""Deal and position notation: the text form of a Hearts deal and of a position in it.

A **deal string** is the hands as dealt, seat 0 first, each hand its card codes run
together in dealing order, hands separated by ``/``::

    2C7C9D.../3CKH.../.../...        (4 x 13 cards, all 52 distinct)

A **position** is a deal plus the pass direction, the passes (3 cards per seat, seat 0
first, separated by ``/``) and the plays so far (card codes in play order). Its one-line
text form is ``key=value`` pairs joined by ``;``::

    deal=2C7C.../.../.../...;direction=left;passes=ASKSQS/.../.../...;plays=2C 5C KC AC

On the command line the same parts are the flags ``--deal``, ``--pass-direction``,
``--passes`` and ``--plays``. Parsing and printing round-trip.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hsim.model.cards import (
    N_CARDS,
    Card,
    CardMask,
    CardParseError,
    format_card,
    format_mask,
    mask_of,
    parse_card,
    split_cards,
)
from hsim.model.rules import PASS_DIRECTIONS

N_SEATS = 4
HAND_SIZE = 13


def _codes(text: str) -> list[Card]:
    return [parse_card(code) for code in split_cards(text)]


def parse_deal(text: str) -> list[list[Card]]:
    """Read a deal string into 4 hands of 13 cards each, in dealing order.

    :raises CardParseError: an unknown code, a wrong number of hands or cards, a card
        dealt twice, or a missing card; the message names it.
    """
    parts = text.strip().split("/")
    if len(parts) != N_SEATS:
        raise CardParseError(text, f"a deal has {N_SEATS} hands separated by '/', not {len(parts)}")
    hands = [_codes(p) for p in parts]
    seen: dict[Card, int] = {}
    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise CardParseError(parts[seat], f"seat {seat} has {len(hand)} cards, not {HAND_SIZE}")
        for c in hand:
            if c in seen:
                where = (
                    f"seat {seat} holds it twice"
                    if seen[c] == seat
                    else f"seats {seen[c]} and {seat}"
                )
                raise CardParseError(format_card(c), f"dealt twice ({where})")
            seen[c] = seat
    missing = [c for c in range(N_CARDS) if c not in seen]
    if missing:  # cannot happen with 52 distinct cards, kept for clarity of the error
        raise CardParseError(text, "missing " + " ".join(format_card(c) for c in missing))
    return hands


def format_deal(hands: Sequence[Sequence[Card]]) -> str:
    """Return the deal string of 4 hands (card lists in dealing order)."""
    return "/".join("".join(format_card(c) for c in hand) for hand in hands)


def parse_passes(text: str) -> list[CardMask]:
    """Read the passes: 3 cards per seat, seat 0 first, separated by ``/``.

    :raises CardParseError: not 4 groups of 3 distinct cards.
    """
    parts = text.strip().split("/")
    if len(parts) != N_SEATS:
        raise CardParseError(text, f"passes are {N_SEATS} groups of 3 cards separated by '/'")
    out = []
    for seat, part in enumerate(parts):
        cards = _codes(part)
        if len(cards) != 3 or len(set(cards)) != 3:
            raise CardParseError(part.strip(), f"seat {seat} must pass 3 different cards")
        out.append(mask_of(cards))
    return out


def format_passes(passes: Sequence[CardMask]) -> str:
    """Return the passes as ``AS KS QS / ... / ... / ...``."""
    return " / ".join(format_mask(m) for m in passes)


def parse_plays(text: str) -> list[Card]:
    """Read plays in order: ``2C 5C KC`` or ``2C5CKC``. :raises CardParseError:"""
    return _codes(text)


@dataclasses.dataclass(frozen=True)
class PositionSpec:
    """A deal, its pass direction, the passes (None before them) and the plays so far.

    hands: 4 tuples of 13 cards in dealing order. passes: 4 masks or None. plays: cards.
    """

    hands: tuple[tuple[Card, ...], ...]
    pass_direction: str = "hold"
    passes: tuple[CardMask, ...] | None = None
    plays: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        if self.pass_direction not in PASS_DIRECTIONS:
            raise CardParseError(
                self.pass_direction, f"pass direction must be one of {', '.join(PASS_DIRECTIONS)}"
            )
        if self.pass_direction == "hold" and self.passes:
            raise CardParseError(format_passes(self.passes), "a hold deal has no passes")
        if self.pass_direction != "hold" and self.plays and not self.passes:
            raise CardParseError(
                " ".join(format_card(c) for c in self.plays),
                f"plays in a {self.pass_direction} deal need the passes first (--passes)",
            )

    @classmethod
    def parse(
        cls, deal: str, pass_direction: str = "hold", passes: str | None = None, plays: str = ""
    ) -> PositionSpec:
        """Build from the text of the four parts (the command-line flags).

        :raises CardParseError: any part is malformed.
        """
        return cls(
            tuple(tuple(h) for h in parse_deal(deal)),
            pass_direction.strip().lower(),
            tuple(parse_passes(passes)) if passes and passes.strip() else None,
            tuple(parse_plays(plays or "")),
        )

    @classmethod
    def from_text(cls, text: str) -> PositionSpec:
        """Read the one-line form ``deal=...;direction=...;passes=...;plays=...``.

        :raises CardParseError: unknown key or malformed part.
        """
        fields: dict[str, str] = {}
        for piece in text.strip().split(";"):
            if not piece.strip():
                continue
            key, eq, value = piece.partition("=")
            key = key.strip()
            if not eq or key not in ("deal", "direction", "passes", "plays"):
                raise CardParseError(piece, "expected deal=, direction=, passes= or plays=")
            fields[key] = value.strip()
        if "deal" not in fields:
            raise CardParseError(text, "a position needs deal=...")
        return cls.parse(
            fields["deal"],
            fields.get("direction", "hold"),
            fields.get("passes"),
            fields.get("plays", ""),
        )

    def to_text(self) -> str:
        """Return the one-line form; :meth:`from_text` reads it back."""
        parts = [f"deal={format_deal(self.hands)}", f"direction={self.pass_direction}"]
        if self.passes:
            parts.append(f"passes={format_passes(self.passes)}")
        if self.plays:
            parts.append("plays=" + " ".join(format_card(c) for c in self.plays))
        return ";".join(parts)

    def flags(self) -> list[str]:
        """Return the command-line flags that give this position."""
        out = ["--deal", format_deal(self.hands), "--pass-direction", self.pass_direction]
        if self.passes:
            out += ["--passes", format_passes(self.passes)]
        if self.plays:
            out += ["--plays", " ".join(format_card(c) for c in self.plays)]
        return out
