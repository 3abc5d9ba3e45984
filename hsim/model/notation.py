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

A **Kierki deal file** is the deal format of the open Kierki servers (4 players,
docs/rules.md B6): per deal, a first line ``<type><leader>``, the deal type ``1``..``7``
(no tricks, no hearts, no queens, no men, no king of hearts, no 7th and last trick, the
rebel) and the leader's seat ``N``, ``E``, ``S`` or ``W``; then one line of cards per
seat, ``N`` ``E`` ``S`` ``W`` in that order (hsim's seats 0..3), each 13 card codes run
together, tens written ``10``::

    1W
    2H7C7H3S10D4D5CJCJD6SQSKSAS
    ...three more hands...

A file may hold several deals, one after the other (a server plays them in turn).
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
from hsim.model.rules import (
    KIERKI_KINDS,
    PASS_DIRECTIONS,
    PLAYER_COUNTS,
    REMOVED_CARDS,
    REMOVED_PAIRS,
)

N_SEATS = 4
HAND_SIZE = 13
#: Hand size by number of hands (docs/rules.md A1.1): Hearts for 4 (52 cards), for 3 (17
#: each), for 5 (10 each), for 6 (8 each).
HAND_SIZES = {3: 17, 4: 13, 5: 10, 6: 8}
#: The cards a deal of 3 hands may leave out (option removed_card).
REMOVABLE = tuple(parse_card(c) for c in REMOVED_CARDS)
#: The sets of cards a deal of n hands may leave out (A1.1: removed_card with 3,
#: removed_pair with 5, the 2D, 3D, 3C and 4C with 6).
LEFT_OUT: dict[int, tuple[frozenset[Card], ...]] = {
    3: tuple(frozenset([c]) for c in REMOVABLE),
    4: (frozenset(),),
    5: tuple(frozenset(parse_card(c) for c in pair.split("+")) for pair in REMOVED_PAIRS),
    6: (frozenset(parse_card(c) for c in ("2D", "3D", "3C", "4C")),),
}
_LEFT_OUT_TEXT = {
    3: "the 2D, 2C or 2S (removed_card)",
    5: "the 2D and the 2C or 2S (removed_pair)",
    6: "the 2D, 3D, 3C and 4C",
}


def _codes(text: str) -> list[Card]:
    return [parse_card(code) for code in split_cards(text)]


def parse_deal(text: str, seats: int | None = None) -> list[list[Card]]:
    """Read a deal string into its hands, in dealing order (docs/rules.md A1.1): 4 hands
    of 13 cards; 3 of 17 without one of the 2D, 2C and 2S (removed_card); 5 of 10 without
    the 2D and the 2C or 2S (removed_pair); 6 of 8 without the 2D, 3D, 3C and 4C.
    seats: 3 to 6 to require that many hands; None takes any of them.

    :raises CardParseError: an unknown code, a wrong number of hands or cards, a card
        dealt twice, or a missing card; the message names it.
    """
    parts = text.strip().split("/")
    counts = (seats,) if seats else PLAYER_COUNTS
    if len(parts) not in counts:
        want = ", ".join(str(n) for n in counts[:-1]) + " or " if len(counts) > 1 else ""
        want += str(counts[-1])
        raise CardParseError(text, f"a deal has {want} hands separated by '/', not {len(parts)}")
    hands = [_codes(p) for p in parts]
    size = HAND_SIZES[len(parts)]
    seen: dict[Card, int] = {}
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            why = f"seat {seat} has {len(hand)} cards, not {size}"
            if size != HAND_SIZE:  # say what a deal of this many hands is
                why += (
                    f" (a deal of {len(parts)} hands deals {size} cards each, without "
                    f"{_LEFT_OUT_TEXT[len(parts)]}; a deal of 4 hands 13 each)"
                )
            raise CardParseError(parts[seat], why)
        for c in hand:
            if c in seen:
                where = (
                    f"seat {seat} holds it twice"
                    if seen[c] == seat
                    else f"seats {seen[c]} and {seat}"
                )
                raise CardParseError(format_card(c), f"dealt twice ({where})")
            seen[c] = seat
    out = frozenset(c for c in range(N_CARDS) if c not in seen)
    if out not in LEFT_OUT[len(parts)]:
        if len(parts) == 4:  # cannot happen with 52 distinct cards, kept for the error's sake
            raise CardParseError(text, "missing " + " ".join(format_card(c) for c in sorted(out)))
        raise CardParseError(
            text,
            f"a deal of {len(parts)} hands leaves out {_LEFT_OUT_TEXT[len(parts)]}, not "
            + " ".join(format_card(c) for c in sorted(out))
            + " (docs/rules.md A1.1)",
        )
    return hands


def format_deal(hands: Sequence[Sequence[Card]]) -> str:
    """Return the deal string of 3 to 6 hands (card lists in dealing order)."""
    return "/".join("".join(format_card(c) for c in hand) for hand in hands)


def parse_passes(text: str) -> list[CardMask]:
    """Read the passes: 3 cards per seat, seat 0 first, separated by ``/`` (one group a
    seat: 3 to 6).

    :raises CardParseError: not 3 to 6 groups of 3 distinct cards.
    """
    parts = text.strip().split("/")
    if len(parts) not in PLAYER_COUNTS:
        raise CardParseError(
            text, "passes are one group of 3 cards a seat (3 to 6 seats) separated by '/'"
        )
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


#: The deal types of a Kierki deal file, ``1``..``7``, as hsim's deal kinds (docs/rules.md B2).
DEAL_FILE_KINDS = KIERKI_KINDS[:7]
#: The seats of a Kierki deal file, hsim's seats 0..3 in clockwise order.
DEAL_FILE_SEATS = "NESW"


@dataclasses.dataclass(frozen=True)
class KierkiDeal:
    """One deal of a Kierki deal file: its kind (a penalty kind of docs/rules.md B2, the
    rebel included), the seat 0..3 that leads trick 1, and the 4 hands (13 cards each, in
    the file's order).

    :raises CardParseError: an unknown kind, a leader outside 0..3, or hands that are not
        52 different cards, 13 each.
    """

    kind: str
    leader: int
    hands: tuple[tuple[Card, ...], ...]

    def __post_init__(self) -> None:
        if self.kind not in DEAL_FILE_KINDS:
            raise CardParseError(
                self.kind, f"a deal file's kind is one of {', '.join(DEAL_FILE_KINDS)}"
            )
        if isinstance(self.leader, bool) or self.leader not in range(N_SEATS):
            raise CardParseError(str(self.leader), "the leader is a seat 0..3")
        parse_deal(format_deal(self.hands), N_SEATS)  # 4 x 13 different cards, or a clear error

    @property
    def type_code(self) -> str:
        """The deal file's first line: the type digit and the leader's letter (``1W``)."""
        return f"{DEAL_FILE_KINDS.index(self.kind) + 1}{DEAL_FILE_SEATS[self.leader]}"


def _server_card(c: Card) -> str:
    code = format_card(c)
    return "10" + code[1] if code[0] == "T" else code


def format_deal_file(deals: Sequence[KierkiDeal]) -> str:
    """Return the text of a Kierki deal file holding ``deals`` (5 lines each, ``\n``-ended).

    :func:`parse_deal_file` reads it back.
    """
    lines = []
    for d in deals:
        lines.append(d.type_code)
        lines += ["".join(_server_card(c) for c in hand) for hand in d.hands]
    return "".join(line + "\n" for line in lines)


def parse_deal_file(text: str) -> list[KierkiDeal]:
    """Read a Kierki deal file: one or more deals of 5 lines each (blank lines and a
    ``\r`` at line ends are ignored).

    :raises CardParseError: no deal, a line count that is not a multiple of 5, a first
        line that is not a type ``1``..``7`` and a seat ``N``/``E``/``S``/``W``, or hands
        that are not 52 different cards, 13 each; the message names the deal and line.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise CardParseError(text, "a deal file holds at least one deal (5 lines)")
    if len(lines) % 5:
        raise CardParseError(
            lines[-1],
            f"a deal file holds 5 lines a deal (the type and leader, then the hands of N, E, "
            f"S, W), not {len(lines)} lines",
        )
    deals = []
    for i in range(0, len(lines), 5):
        head, hands = lines[i], lines[i + 1 : i + 5]
        where = f"deal {i // 5 + 1}"
        if len(head) != 2 or head[0] not in "1234567" or head[1].upper() not in DEAL_FILE_SEATS:
            raise CardParseError(
                head,
                f"{where}: the first line is the deal type 1..7 and the leader's seat N, E, "
                "S or W, e.g. 1W",
            )
        try:
            cards = parse_deal("/".join(hands), N_SEATS)
        except CardParseError as exc:
            err = CardParseError(exc.text)
            err.args = (f"{where}: {exc}",)  # the reason as is, with the deal named
            raise err from None
        deals.append(
            KierkiDeal(
                DEAL_FILE_KINDS[int(head[0]) - 1],
                DEAL_FILE_SEATS.index(head[1].upper()),
                tuple(tuple(h) for h in cards),
            )
        )
    return deals
