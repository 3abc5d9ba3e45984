"""The engine protocol's messages (docs/protocol.md): what hsim asks an outside program
and what it answers, as JSON objects one per line.

Requests are built from a seat's observation (the ``public`` and ``private`` arrays of
:mod:`hsim.engine.layout`) and hold nothing else: no other seat's hand, no run seed. A
request read back (:func:`arrays_from_request`) gives the same two arrays, so a strategy
served by ``hsim serve`` decides exactly as it does in process.

Cards are named as in docs/rules.md (``2C`` … ``AH``, ``T`` for ten); sets of cards are
lists sorted by card number (clubs, diamonds, spades, hearts; 2 to A within a suit).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from hsim.engine.layout import (
    KIND_NAMES,
    MAX_SEATS,
    MAX_TRICKS,
    MOON_CHOICES,
    P_DEAL,
    P_DEALER,
    P_HEARTS_BROKEN,
    P_KIND,
    P_LEADER,
    P_LED_SUIT,
    P_MOON_SHOOTER,
    P_N_PLAYS,
    P_N_SEATS,
    P_OUT,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_START_RANK,
    P_TAKEN,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEADER,
    P_TRICK_LEN,
    P_TRICK_WINNER,
    P_TRICKS_WON,
    P_TRUMP,
    P_TRUMP_CHOOSER,
    P_VOIDS,
    PASS_DIRECTIONS,
    PRIVATE_LEN,
    PUBLIC_LEN,
    TRUMP_NONE,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
    V_SEAT,
)
from hsim.model.cards import RANKS, SUITS, cards_of, format_card

#: The protocol's version: the hello says it, and an engine must answer it.
PROTOCOL = 1

#: The request types, one per decision kind.
PASS, PLAY, MOON, TRUMP = "pass", "play", "moon", "trump"

CARD_NAMES = tuple(format_card(c) for c in range(52))
CARD_NUMBERS = {name: c for c, name in enumerate(CARD_NAMES)}
#: An answer line longer than this (bytes) is refused without parsing it.
MAX_LINE = 1 << 16


class ProtocolError(ValueError):
    """An engine's line is not an answer of the protocol (not JSON, a field missing or of
    the wrong kind, an unknown card name); the message says what was expected."""


def names(mask: int) -> list[str]:
    """Return the cards of the 52-bit ``mask`` as names, lowest card number first."""
    return [CARD_NAMES[c] for c in cards_of(mask)]


def mask(cards: list[str], what: str) -> int:
    """Return the mask of a list of card names.

    :raises ProtocolError: not a list of card names, or a card named twice.
    """
    if not isinstance(cards, list):
        raise ProtocolError(f'{what} must be a list of card names like ["QS", "2C"]')
    out = 0
    for name in cards:
        bit = 1 << card(name, what)
        if out & bit:
            raise ProtocolError(f"{what} names {name} twice")
        out |= bit
    return out


def card(name: Any, what: str) -> int:
    """Return the card number 0..51 of a card name (``QS``; ``10S`` is read as ``TS``).

    :raises ProtocolError: not a card name.
    """
    if isinstance(name, str):
        c = CARD_NUMBERS.get(name.upper().replace("10", "T", 1))
        if c is not None:
            return c
    raise ProtocolError(f"{what}: {name!r} is not a card name (2C … AH, T for ten)")


def hello(rules_text: str, game: str, players: int, version: str) -> dict[str, Any]:
    """Return the first message hsim sends an engine: the protocol version, hsim's
    version, the rules (a ``--rules`` string), the game and its number of seats."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "hsim": version,
        "rules": rules_text,
        "game": game,
        "players": players,
    }


def _suit_texts(suit: int) -> tuple[str, ...]:
    """Return, for each 13-bit value, the JSON text of that suit's cards (``"2C","9C"``)."""
    base = [f'"{CARD_NAMES[13 * suit + r]}"' for r in range(13)]
    return tuple(",".join(base[r] for r in range(13) if v >> r & 1) for v in range(1 << 13))


#: JSON texts of every set of cards of one suit, per suit: a mask's list in four lookups.
_SUIT_TEXTS = tuple(_suit_texts(s) for s in range(4))
#: ``[seat,"card"]`` texts of a play, by seat and card.
_PLAY_TEXTS = tuple(tuple(f'[{s},"{CARD_NAMES[c]}"]' for c in range(52)) for s in range(MAX_SEATS))
_SUIT_LETTERS = tuple(
    '"' + "".join(SUITS[s] for s in range(4) if v >> s & 1) + '"' for v in range(16)
)
_KINDS = {k: f'"{k}"' for k in (PASS, PLAY, MOON, TRUMP)}


#: JSON texts of card sets already made, by mask: a seat's dealt, passed and taken cards
#: are asked again at every decision of a deal. Emptied when it grows past _TEXTS_KEPT.
_TEXTS: dict[int, str] = {}
_TEXTS_KEPT = 1 << 16


def cards_text(mask: int) -> str:
    """Return the JSON list of the cards of the 52-bit ``mask`` (``["2C","QS"]``)."""
    text = _TEXTS.get(mask)
    if text is None:
        parts = [
            _SUIT_TEXTS[s][(mask >> (13 * s)) & 8191] for s in range(4) if (mask >> (13 * s)) & 8191
        ]
        text = "[" + ",".join(parts) + "]"
        if len(_TEXTS) >= _TEXTS_KEPT:
            _TEXTS.clear()
        _TEXTS[mask] = text
    return text


def _plays(p: list[int], first: int = 0) -> str:
    """Return the JSON list of the deal's plays from play ``first`` on (``[[1,"KS"],...]``)."""
    n = p[P_N_PLAYS]
    seats = p[P_PLAY_SEAT + first : P_PLAY_SEAT + n]
    cards = p[P_PLAY_CARD + first : P_PLAY_CARD + n]
    return "[" + ",".join([_PLAY_TEXTS[s][c] for s, c in zip(seats, cards, strict=True)]) + "]"


def _per_trick(p: list[int], at: int) -> str:
    values = p[at : at + MAX_TRICKS]
    return _ints(values[: _filled(values)])


def _per_seat(p: list[int], at: int) -> str:
    return _ints(p[at : at + p[P_N_SEATS]])


def _pass_direction(p: list[int]) -> str:
    direction = p[P_PASS_DIR]
    return f'"{PASS_DIRECTIONS[direction]}"' if direction >= 0 else "null"


def _trump(p: list[int]) -> str:
    trump = p[P_TRUMP]
    return f'"{SUITS[trump]}"' if 0 <= trump < 4 else "null"


def _start_rank(p: list[int]) -> str:
    rank = p[P_START_RANK]
    return f'"{RANKS[rank]}"' if rank >= 0 else "null"


#: Every request field but ``type``, ``legal`` and ``seed``, in the order sent, with the
#: function that writes its JSON value from the seat's ``public`` and ``private`` lists.
_FIELDS: dict[str, Any] = {
    "seat": lambda p, v: str(v[V_SEAT]),
    "players": lambda p, v: str(p[P_N_SEATS]),
    "deal": lambda p, v: str(p[P_DEAL]),
    "hand": lambda p, v: cards_text(v[V_HAND]),
    "dealt": lambda p, v: cards_text(v[V_DEALT]),
    "passed": lambda p, v: cards_text(v[V_PASSED]),
    "received": lambda p, v: cards_text(v[V_RECEIVED]),
    "pass_direction": lambda p, v: _pass_direction(p),
    "trick": lambda p, v: str(p[P_TRICK]),
    "leader": lambda p, v: str(p[P_LEADER]),
    "current_trick": lambda p, v: _plays(p, p[P_N_PLAYS] - p[P_TRICK_LEN]),
    "plays": lambda p, v: _plays(p),
    "trick_leaders": lambda p, v: _per_trick(p, P_TRICK_LEADER),
    "trick_winners": lambda p, v: _per_trick(p, P_TRICK_WINNER),
    "points": lambda p, v: _per_seat(p, P_POINTS),
    "tricks_won": lambda p, v: _per_seat(p, P_TRICKS_WON),
    "taken": lambda p, v: (
        "[" + ",".join(cards_text(m) for m in p[P_TAKEN : P_TAKEN + p[P_N_SEATS]]) + "]"
    ),
    "voids": lambda p, v: (
        "[" + ",".join(_SUIT_LETTERS[m & 15] for m in p[P_VOIDS : P_VOIDS + p[P_N_SEATS]]) + "]"
    ),
    "scores": lambda p, v: _per_seat(p, P_SCORES),
    "hearts_broken": lambda p, v: "true" if p[P_HEARTS_BROKEN] else "false",
    "moon_shooter": lambda p, v: str(p[P_MOON_SHOOTER]),
}
#: Kierki's fields (sent only in a Kierki game), after ``legal``.
_KIERKI_FIELDS: dict[str, Any] = {
    "kind": lambda p, v: f'"{KIND_NAMES[p[P_KIND]]}"',
    "dealer": lambda p, v: str(p[P_DEALER]),
    "trump": lambda p, v: _trump(p),
    "trump_chooser": lambda p, v: str(p[P_TRUMP_CHOOSER]),
    "lottery_start_rank": lambda p, v: _start_rank(p),
    "lottery_out": lambda p, v: _per_seat(p, P_OUT),
    "table": lambda p, v: cards_text(p[P_PLAYED]),  # the lottery's layout; every card played
}
#: The name of every request field.
FIELDS = ("type", *_FIELDS, "seed", "legal", *_KIERKI_FIELDS)


class Fields:
    """The request fields an engine reads (docs/protocol.md, ``"fields"`` in the hello
    answer): ``type`` always, the rest as chosen. ``names``: the chosen field names, or
    None for all of them.

    :raises ProtocolError: ``names`` is not a list of strings, or names a field that
        requests do not have.
    """

    def __init__(self, names: Any = None) -> None:
        if names is None:
            names = FIELDS
        if not isinstance(names, list | tuple) or not all(isinstance(x, str) for x in names):
            raise ProtocolError(
                '"fields" must be a list of request field names, e.g. ["hand", "legal"]'
            )
        unknown = sorted(set(names) - set(FIELDS))
        if unknown:
            raise ProtocolError(
                f'"fields" names {", ".join(map(repr, unknown))}, which requests do not '
                f"have (they have: {', '.join(FIELDS)})"
            )
        chosen = set(names)
        self.common = tuple((f',"{k}":', f) for k, f in _FIELDS.items() if k in chosen)
        self.kierki = tuple((f',"{k}":', f) for k, f in _KIERKI_FIELDS.items() if k in chosen)
        self.seed = "seed" in chosen
        self.legal = "legal" in chosen


#: Every field: what an engine gets unless its hello answer names ``"fields"``.
ALL_FIELDS = Fields()


def request(
    kind: str,
    public: np.ndarray,
    private: np.ndarray,
    legal: int,
    seed: int,
    fields: Fields = ALL_FIELDS,
) -> bytes:
    """Return the request line (JSON, ``\n``-terminated) for decision ``kind`` (PASS,
    PLAY, MOON, TRUMP) of the seat whose observation is ``public`` (int64, PUBLIC_LEN)
    and ``private`` (int64, PRIVATE_LEN); docs/protocol.md lists its fields. ``fields``:
    the fields to send (``type`` always; docs/protocol.md, "fields").

    legal: the legal cards' mask (PLAY only). seed: 0..2**63-1, for an engine that draws
    random numbers (drawn from the seat's own stream: reproducible, and no key to the deal).
    The text is assembled from precomputed pieces (a decision's request costs a few
    microseconds, not a JSON encoder's tens).
    """
    p = public.tolist()
    v = private.tolist()
    parts = [key + write(p, v) for key, write in fields.common]
    if fields.seed:
        parts.append(f',"seed":{seed}')
    if kind == PLAY and fields.legal:
        parts.append(',"legal":' + cards_text(legal))
    if p[P_KIND] >= 0:  # Kierki
        parts += [key + write(p, v) for key, write in fields.kierki]
    return ('{"type":' + _KINDS[kind] + "".join(parts) + "}\n").encode()


def _ints(values: list[int]) -> str:
    return repr(values)  # a list of Python ints prints as JSON does ("[0, 13, 4, 0]")


def _filled(values: list[int]) -> int:
    """Return how many leading entries of a -1-padded list are set."""
    return values.index(-1) if -1 in values else len(values)


def encode(message: dict) -> bytes:
    """Return ``message`` as one protocol line (compact JSON, ASCII, ending in ``\\n``)."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes, what: str) -> dict:
    """Return the JSON object of one line.

    :raises ProtocolError: too long, not UTF-8 JSON, or not an object.
    """
    if len(line) > MAX_LINE:
        raise ProtocolError(f"{what}: a line of {len(line):,} bytes (at most {MAX_LINE:,})")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError(f"{what}: {_shown(line)} is not a JSON object") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"{what}: {_shown(line)} is not a JSON object")
    return message


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 80 else text[:77] + "...")


def answer_value(kind: str, message: dict) -> int:
    """Return the engine's answer to a ``kind`` request as hsim's int: a pass mask, a
    card number, a moon choice (0 default, 1 add, 2 subtract) or a trump suit (0..3, or
    4 for no trump). Legality is the engine's business, not this function's.

    :raises ProtocolError: the field for ``kind`` is missing or not of its form; an
        ``{"error": ...}`` answer.
    """
    if message.get("error") is not None:  # "error": null is no error
        raise ProtocolError(f"it reported an error: {str(message['error'])[:200]}")
    if kind == PLAY:
        if "card" not in message:
            raise ProtocolError('a play answer needs "card", e.g. {"card": "QS"}')
        return card(message["card"], "its card")
    if kind == PASS:
        if "cards" not in message:
            raise ProtocolError('a pass answer needs "cards", e.g. {"cards": ["QS", "AH", "2C"]}')
        return mask(message["cards"], "its passed cards")
    if kind == MOON:
        choice = message.get("moon")
        if choice not in ("default", "add", "subtract"):
            raise ProtocolError('a moon answer needs "moon": "add", "subtract" or "default"')
        return 0 if choice == "default" else MOON_CHOICES.index(choice)
    choice = message.get("trump")
    if isinstance(choice, str) and choice.upper() in SUITS and len(choice) == 1:
        return SUITS.index(choice.upper())
    if choice == "none":
        return TRUMP_NONE
    raise ProtocolError('a trump answer needs "trump": "C", "D", "S", "H" or "none"')


def answer(kind: str, value: int) -> dict:
    """Return hsim's int answer ``value`` to a ``kind`` request as the protocol's answer
    (the inverse of :func:`answer_value`)."""
    if kind == PLAY:
        return {"card": CARD_NAMES[value]}
    if kind == PASS:
        return {"cards": names(value)}
    if kind == MOON:
        return {"moon": MOON_CHOICES[value] or "default"}
    return {"trump": "none" if value == TRUMP_NONE else SUITS[value]}


def arrays_from_request(message: dict, rules_array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``(public, private)`` arrays of a request (int64, PUBLIC_LEN and
    PRIVATE_LEN): what the requesting seat sees, as a strategy in process sees it.
    rules_array: the hello's rules as :meth:`hsim.model.rules.Rules.to_array`.

    :raises ProtocolError: a field missing or of the wrong form.
    """
    try:
        return _arrays(message, rules_array)
    except ProtocolError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ProtocolError(f"a request field is missing or malformed ({exc!r})") from None


#: The values of ``trump`` and ``lottery_start_rank``, one name each (not substrings).
_SUIT_NAMES, _RANK_NAMES = tuple(SUITS), tuple(RANKS)


def _named(value: Any, names: tuple, field: str) -> int:
    """Return the index of ``value`` among ``names``, the values request ``field`` takes.

    :raises ProtocolError: another value, naming the field and the values it takes.
    """
    if isinstance(value, str) and value in names:
        return names.index(value)
    shown = repr(value)[:40]
    raise ProtocolError(f"{field} must be one of {', '.join(map(str, names))}, not {shown}")


def _arrays(m: dict, rules_array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pub = np.full(PUBLIC_LEN, 0, np.int64)
    priv = np.zeros(PRIVATE_LEN, np.int64)
    n = int(m["players"])
    seat = int(m["seat"])
    if not 3 <= n <= MAX_SEATS or not 0 <= seat < n:
        raise ProtocolError(f"players {n} and seat {seat}: a game has 3 to 6 seats 0..players-1")
    pub[P_N_SEATS] = n
    pub[P_DEAL] = m["deal"]
    direction = m["pass_direction"]
    pub[P_PASS_DIR] = (
        -1 if direction is None else _named(direction, PASS_DIRECTIONS, "pass_direction")
    )
    pub[P_TRICK] = m["trick"]
    pub[P_LEADER] = m["leader"]
    current = m["current_trick"]
    pub[P_TRICK_LEN] = len(current)
    pub[P_TO_ACT] = seat
    if not isinstance(m["hearts_broken"], bool):
        raise ProtocolError(
            f"hearts_broken must be true or false, not {repr(m['hearts_broken'])[:40]}"
        )
    pub[P_HEARTS_BROKEN] = m["hearts_broken"]
    played = 0
    for i, (s, name) in enumerate(m["plays"]):
        c = card(name, "plays")
        pub[P_PLAY_SEAT + i] = s
        pub[P_PLAY_CARD + i] = c
        played |= 1 << c
    pub[P_N_PLAYS] = len(m["plays"])
    pub[P_PLAYED] = mask(m["table"], "table") if "table" in m else played
    pub[P_TRICK_CARDS] = mask([name for _, name in current], "current_trick")
    pub[P_LED_SUIT] = card(current[0][1], "current_trick") // 13 if current else -1
    pub[P_MOON_SHOOTER] = m["moon_shooter"]
    pub[P_TRICK_LEADER : P_TRICK_LEADER + MAX_TRICKS] = -1
    pub[P_TRICK_WINNER : P_TRICK_WINNER + MAX_TRICKS] = -1
    for t, s in enumerate(m["trick_leaders"]):
        pub[P_TRICK_LEADER + t] = s
    for t, s in enumerate(m["trick_winners"]):
        pub[P_TRICK_WINNER + t] = s
    for s in range(n):
        pub[P_POINTS + s] = m["points"][s]
        pub[P_TRICKS_WON + s] = m["tricks_won"][s]
        pub[P_SCORES + s] = m["scores"][s]
        pub[P_TAKEN + s] = mask(m["taken"][s], "taken")
        pub[P_VOIDS + s] = sum(1 << SUITS.index(x) for x in m["voids"][s])
    pub[P_RULES : P_RULES + len(rules_array)] = rules_array  # the rest of RULES_LEN: 0
    pub[P_KIND] = _named(m["kind"], KIND_NAMES, "kind") if "kind" in m else -1
    pub[P_DEALER] = m.get("dealer", -1)
    trump = m.get("trump")
    pub[P_TRUMP] = _named(trump, _SUIT_NAMES, "trump") if trump is not None else -1
    pub[P_TRUMP_CHOOSER] = m.get("trump_chooser", -1)
    rank = m.get("lottery_start_rank")
    pub[P_START_RANK] = _named(rank, _RANK_NAMES, "lottery_start_rank") if rank is not None else -1
    for s, out in enumerate(m.get("lottery_out", ())):
        pub[P_OUT + s] = out
    priv[V_SEAT] = seat
    priv[V_HAND] = mask(m["hand"], "hand")
    priv[V_DEALT] = mask(m["dealt"], "dealt")
    priv[V_PASSED] = mask(m["passed"], "passed")
    priv[V_RECEIVED] = mask(m["received"], "received")
    return pub, priv
