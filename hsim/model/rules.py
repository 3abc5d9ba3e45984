"""Rule options of Hearts and Kierki (docs/rules.md parts A, B) as a frozen dataclass, presets,
string form.

Every option has its docs/rules.md name, a default and a one-line meaning. A rule set's
canonical string names a preset and the options that differ from it, e.g.
``classic(omnibus=true,end_score=50)``; :func:`parse_rules` reads it back.

>>> r = parse_rules("classic(omnibus=true,end_score=50)")
>>> r.omnibus, r.end_score
(True, 50)
>>> canonical(r)
'classic(omnibus=true,end_score=50)'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hsim.errors import RulesError
from hsim.model.text import key_values, split_pieces


def _opt(default: Any, choices: tuple | None, meaning: str, section: str) -> Any:
    return field(
        default=default,
        metadata={"choices": choices, "meaning": meaning, "section": section},
    )


BOOL = (False, True)
#: The cards omnibus may make the bonus card (docs/rules.md A2.3), in the engine's code order.
BONUS_CARDS = ("JD", "TD")
#: The cards Hearts for 3 may leave out of the deck (option removed_card, A1.1).
REMOVED_CARDS = ("2D", "2C", "2S")
#: The pairs Hearts for 5 may leave out of the deck (option removed_pair, A1.1).
REMOVED_PAIRS = ("2D+2C", "2D+2S")
#: Kierki's deal kinds (docs/rules.md B1): the six penalty deals B2.1-B2.6, the rebel B2.7,
#: trump (B3), the lottery (B4); the deals dataset's ``kind`` column.
#: The pass directions in the order a Hearts game cycles them (docs/rules.md A3); the
#: engine codes them 0..3 in this order (hsim.engine.layout.PASS_LEFT ...).
PASS_DIRECTIONS = ("left", "right", "across", "hold")

KIERKI_KINDS = (
    "tricks",
    "hearts",
    "queens",
    "men",
    "king_of_hearts",
    "seventh_and_last",
    "rebel",
    "trump",
    "lottery",
)
GAMES = ("hearts", "kierki")
ZERO_MEANS_DEFAULT = ("trump_trick_value",)  # 0: the value docs/rules.md B3 gives for the seats
#: Upper bounds of the count options. The engine keeps scores and counts in int64, and a
#: game must end: 10,000 is far beyond any real game (a Hearts deal adds at most 26 points
#: to a score; a Kierki trump trick 20), and keeps every score and deal count small.
COUNT_MAX = {"end_score": 10_000, "max_deals": 10_000, "trump_trick_value": 1_000}
DEFAULT_COUNT_MAX = 10_000
PLAYER_COUNTS = (3, 4, 5, 6)
KIERKI_PLAYER_COUNTS = (3, 4)  # Kierki is a game for 3 or 4 (docs/rules.md B1)


#: Kierki's point tables (docs/rules.md B1, option ``point_table``): for each table and
#: item, the points as ``(3 players, 4 players)``. Penalty items (B2) are what the taker
#: loses, so the engine negates them; ``trump_trick`` (B3, when ``trump_trick_value=0``)
#: and the lottery places (B4) are gains. ``hsim``: hsim's own values; ``servers``: the
#: table the open Kierki servers share (they play B2 only; their trump and lottery values
#: are hsim's divided by 13, the ratio of the penalty totals, 1300 to 100, rounded);
#: ``program``: the values of an open Kierki program (trump 5 a trick; its lottery 10
#: and 5 for the first two seats out). The same values for 3 players in both.
POINT_TABLES: dict[str, dict[str, tuple[int, int]]] = {
    "hsim": {
        "trick": (15, 20),
        "heart": (20, 20),
        "queen": (60, 60),
        "man": (30, 30),
        "king_of_hearts": (140, 150),
        "seventh_or_last": (70, 75),
        "trump_trick": (20, 15),
        "lottery_first": (790, 800),
        "lottery_second": (485, 500),
    },
    "servers": {
        "trick": (1, 1),
        "heart": (1, 1),
        "queen": (5, 5),
        "man": (2, 2),
        "king_of_hearts": (18, 18),
        "seventh_or_last": (10, 10),
        "trump_trick": (1, 1),
        "lottery_first": (62, 62),
        "lottery_second": (38, 38),
    },
    "program": {
        "trick": (2, 2),
        "heart": (2, 2),
        "queen": (5, 5),
        "man": (3, 3),
        "king_of_hearts": (16, 16),
        "seventh_or_last": (9, 9),
        "trump_trick": (5, 5),
        "lottery_first": (10, 10),
        "lottery_second": (5, 5),
    },
}


def default_trump_points(players: int, point_table: str = "hsim") -> int:
    """Return the docs/rules.md B3 points per trump-deal trick of ``point_table`` (B1):
    hsim 20 for 3 players, else 15; servers 1; program 5.
    """
    return POINT_TABLES[point_table]["trump_trick"][min(players, 4) - 3]


def _count_ok(name: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    low = 0 if name in ZERO_MEANS_DEFAULT else 1
    return low <= value <= COUNT_MAX.get(name, DEFAULT_COUNT_MAX)


@dataclass(frozen=True)
class Rules:
    """The options of one rule set, named as in docs/rules.md parts A (Hearts) and B (Kierki).

    ``game`` says which game the rules are for; the options of the other game are kept at
    their defaults and have no effect (:func:`ineffective_options` warns). Enumerated
    options hold strings (``"cycle"``), switches hold bools, counts ints. Build one with
    :func:`make_rules` or :func:`parse_rules` to get validation.

    :raises RulesError: a value outside its choices, ``players`` other than 3 to 6, or
        Kierki with other than 3 or 4 players.
    """

    passing: str = _opt(
        "cycle",
        ("cycle", "none", "left", "right"),
        "cycle: pass left, right, across, hold in turn; none: never pass; left, right: "
        "every deal that way",
        "A1.2",
    )
    lead_any_club: bool = _opt(False, BOOL, "the 2C holder may lead any club to trick 1", "A1.3")
    first_trick_points: str = _opt(
        "forbidden",
        ("forbidden", "allowed"),
        "hearts and QS may not be discarded on trick 1",
        "A1.5",
    )
    first_trick_only_points: str = _opt(
        "queen",
        ("queen", "any"),
        "on trick 1, a hand of only hearts and QS must play QS (any: any of them)",
        "A1.5",
    )
    hearts_must_be_broken: bool = _opt(
        True, BOOL, "no heart lead until hearts are broken, unless only hearts held", "A1.6"
    )
    queen_breaks_hearts: bool = _opt(False, BOOL, "playing QS also breaks hearts", "A1.6")
    first_trick_breaks_hearts: bool = _opt(
        True,
        BOOL,
        "a heart (or QS with queen_breaks_hearts) played to trick 1 breaks hearts; false: "
        "nothing played to trick 1 does",
        "A1.6",
    )
    lead_hearts_instead_of_queen: bool = _opt(
        False, BOOL, "a leader with only hearts and QS may lead a heart", "A1.6"
    )
    queen_waits_for_broken_hearts: bool = _opt(
        False, BOOL, "QS only when it is the only legal card while hearts are unbroken", "A1.7"
    )
    heart_points: str = _opt(
        "one",
        ("one", "rank"),
        "one: each heart is 1 point; rank: each heart its rank, 2..10, J 11, Q 12, K 13, "
        "A 14 (Spot Hearts)",
        "A1.8",
    )
    pink_lady: bool = _opt(False, BOOL, "the QH is worth 13 points (Pink Lady)", "A1.8")
    queen_points: int = _opt(
        13, (13, 0), "the QS is worth 13 points, or 0 (no queen penalty)", "A1.8"
    )
    black_maria: bool = _opt(
        False, BOOL, "the KS is worth 10 points and the AS 7 as well (Black Maria)", "A1.8"
    )
    moon: str = _opt(
        "classic",
        ("classic", "new_moon", "off", "shooter_gains", "smart"),
        "moon outcome (26: the deck's penalty points, A1.8): classic +26 to the others; "
        "new_moon lets a shooter at 26+ take -26 instead; off: no moon; shooter_gains: -26 to "
        "the shooter; smart: the better of the two for the shooter",
        "A2.2",
    )
    new_moon_any_score: bool = _opt(
        False,
        BOOL,
        "with moon=new_moon, the shooter chooses at any game score, not only from 26 up",
        "A2.2",
    )
    moon_requires_jack: bool = _opt(
        True, BOOL, "with omnibus, a moon also needs the bonus card (omnibus_card)", "A2.2"
    )
    omnibus: bool = _opt(
        False, BOOL, "the taker of the bonus card (omnibus_card) gets -omnibus_value", "A2.3"
    )
    jack_in_moon_deal: bool = _opt(False, BOOL, "keep the omnibus bonus in a moon deal", "A2.3")
    omnibus_card: str = _opt(
        "JD", BONUS_CARDS, "with omnibus, the bonus card: JD or TD (ten of diamonds)", "A2.3"
    )
    omnibus_value: int = _opt(
        10, (10, 5), "with omnibus, the bonus card is worth -10 or -5", "A2.3"
    )
    no_trick_bonus: str = _opt(
        "off",
        ("off", "no_points", "no_tricks"),
        "-5 for a seat that took no points (no_points) or won no trick (no_tricks)",
        "A2.3",
    )
    clamp_at_zero: bool = _opt(True, BOOL, "a game score never goes below zero", "A2.4")
    perfect_100: bool = _opt(False, BOOL, "a game score of exactly 100 becomes 50", "A2.5")
    end_score: int = _opt(
        100, None, "the game ends when a score reaches this (see end_when; positive int)", "A3"
    )
    end_when: str = _opt(
        "reached",
        ("reached", "exceeded"),
        "reached: a score >= end_score ends the game; exceeded: only a score > end_score",
        "A3",
    )
    no_draw: bool = _opt(False, BOOL, "play on until exactly one seat has the lowest score", "A3")
    max_deals: int = _opt(200, None, "a game also ends after this many deals (positive int)", "A3")
    removed_card: str = _opt(
        "2D",
        REMOVED_CARDS,
        "with players=3, the card left out of the deck: 2D, 2C (the 3C then leads) or 2S",
        "A1.1",
    )
    removed_pair: str = _opt(
        "2D+2C",
        REMOVED_PAIRS,
        "with players=5, the two cards left out of the deck: 2D+2C (the 3C then leads) or "
        "2D+2S",
        "A1.1",
    )
    game: str = _opt("hearts", GAMES, "which game: hearts (part A) or kierki (part B)", "A, B")
    players: int = _opt(
        4,
        PLAYER_COUNTS,
        "number of seats, 3 to 6 (Kierki 3 or 4); Hearts deals 17 cards each to 3 "
        "(removed_card out), 10 to 5 (removed_pair out) and 8 to 6 (2D, 3D, 3C, 4C out)",
        "A1.1, B1",
    )
    rebel: bool = _opt(False, BOOL, "Kierki: play the rebel deal (all penalties at once)", "B1")
    trump_trick_value: int = _opt(
        0,
        None,
        "Kierki: points per trump-deal trick; 0: the usual 15 (4 players) or 20 (3)",
        "B3",
    )
    trump_chooser: str = _opt(
        "dealer_left",
        ("dealer_left", "dealer"),
        "Kierki: who names trump in a trump deal",
        "B3",
    )
    allow_no_trump: bool = _opt(False, BOOL, "Kierki: the chooser may name no trump", "B3")
    must_trump: bool = _opt(
        False, BOOL, "Kierki: a player void in the led suit must trump (overtrump if able)", "B3"
    )
    lottery_leader: str = _opt(
        "dealer", ("dealer", "dealer_left"), "Kierki: who plays the lottery's first card", "B4"
    )
    stop_when_no_penalties: bool = _opt(
        False, BOOL, "Kierki: deals 2-5 end once all their penalties are taken", "B2"
    )
    king_of_hearts_first_chance: bool = _opt(
        False,
        BOOL,
        "Kierki: in the KH and rebel deals the KH holder must play it when void in the led "
        "suit, or on a heart lead once the AH is in the trick",
        "B2",
    )
    heart_lead_ban: str = _opt(
        "every_heart",
        ("every_heart", "king_of_hearts", "none"),
        "Kierki: in deals 2, 5, 7 no heart may be led while holding another suit; "
        "king_of_hearts: only the KH may not; none: any lead",
        "B2",
    )
    point_table: str = _opt(
        "hsim",
        tuple(POINT_TABLES),
        "Kierki: the points of each item: hsim (20/20/60/30/150/75), servers "
        "(1/1/5/2/18/10), program (2/2/5/3/16/9)",
        "B1",
    )
    priced_trick: str = _opt(
        "seventh",
        ("seventh", "sixth"),
        "Kierki: deal 6 and the rebel price this trick and the last one",
        "B2.6",
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            choices = f.metadata["choices"]
            if choices is BOOL:
                if not isinstance(value, bool):
                    raise RulesError(f"{f.name} must be true or false, not {value!r}")
            elif _int_choices(choices):
                if isinstance(value, bool) or value not in choices:
                    allowed = " or ".join(str(c) for c in choices)
                    raise RulesError(f"{f.name} must be {allowed}, not {value!r}")
            elif choices is not None:
                if value not in choices:
                    raise RulesError(
                        f"{f.name}={value} is not valid; choose one of: {', '.join(choices)}"
                    )
            elif not _count_ok(f.name, value):
                raise RulesError(f"{f.name} must be {_allowed(f.name)}, not {value!r}")
        if self.game == "kierki" and self.players not in KIERKI_PLAYER_COUNTS:
            raise RulesError(
                f"Kierki is played by 3 or 4 players, not {self.players}; "
                "players=5 and players=6 are Hearts only"
            )

    def to_array(self) -> np.ndarray:
        """Return the options as the int64 vector the engine reads: shape
        ``(len(RULE_NAMES),)``, option ``name`` at ``RULE_INDEX[name]`` (the engine's
        ``R_*`` indices are the same numbers), each value's :func:`option_code`;
        ``trump_trick_value`` as :attr:`trump_points` (0 resolved for the player count).
        :func:`rules_from_array` reads it back.
        """
        out = np.zeros(len(RULE_NAMES), dtype=np.int64)
        for name in RULE_NAMES:
            value = self.trump_points if name == "trump_trick_value" else getattr(self, name)
            out[RULE_INDEX[name]] = option_code(name, value)
        return out

    @property
    def trump_points(self) -> int:
        """Points per trick in a Kierki trump deal: ``trump_trick_value``, or when it is 0
        the default of the ``point_table`` (docs/rules.md B1, B3): hsim +15 for 4 players and
        +20 for 3, servers +1, program +5.
        """
        return self.trump_trick_value or default_trump_points(self.players, self.point_table)

    @property
    def is_kierki(self) -> bool:
        """Whether these are Kierki rules (docs/rules.md part B)."""
        return self.game == "kierki"

    def to_dict(self) -> dict[str, Any]:
        """Return every option by name, values as in the dataclass (for the manifest)."""
        return dataclasses.asdict(self)


RULE_FIELDS = {f.name: f for f in dataclasses.fields(Rules)}
RULE_NAMES: tuple[str, ...] = tuple(RULE_FIELDS)
#: Where each option sits in the engine's rules vector (``Rules.to_array``): field order.
#: ``hsim.engine.layout`` derives its ``R_*`` indices from it, so reordering the fields
#: renumbers both alike.
RULE_INDEX: dict[str, int] = {name: i for i, name in enumerate(RULE_NAMES)}


def _int_choices(choices: tuple | None) -> bool:
    """Return whether ``choices`` are numbers (``players``, ``omnibus_value``): the engine
    reads such an option's value itself, not its position.
    """
    return choices is not None and choices is not BOOL and isinstance(choices[0], int)


def _enumerated(name: str) -> tuple | None:
    """Return the choices of option ``name`` when the engine codes it by position in them."""
    choices = RULE_FIELDS[name].metadata["choices"]
    if choices is None or choices is BOOL or _int_choices(choices):
        return None  # counts and numbers as is, switches 0/1
    return choices


def option_code(name: str, value: Any) -> int:
    """Return the int the engine reads for ``value`` of option ``name``.

    Enumerated options: the index of ``value`` in the option's allowed values (so
    ``option_code("passing", "none") == 1``); switches 0/1; counts and ``players`` the
    number itself. The engine's option-code constants (``hsim.engine.layout``) are made
    with this function, and :meth:`Rules.to_array` codes with it.

    :raises RulesError: an unknown option, or a value the option does not take.
    """
    if name not in RULE_FIELDS:
        parse_value(name, "")  # raises the unknown-name error
    choices = _enumerated(name)
    if choices is None:
        if RULE_FIELDS[name].metadata["choices"] is BOOL:
            if not isinstance(value, bool | np.bool_):
                raise RulesError(f"{name} must be true or false, not {value!r}")
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise RulesError(f"{name} must be {_allowed(name)}, not {value!r}")
        return int(value)
    if value not in choices:
        raise RulesError(f"{name}={value} is not valid; {name} takes {_allowed(name)}")
    return choices.index(value)


def rules_from_array(vector: Any) -> Rules:
    """Read a rules vector (:meth:`Rules.to_array`) back into :class:`Rules`.

    ``vector``: ints, length ``len(RULE_NAMES)`` (or longer, the engine's ``RULES_LEN``
    slot, the rest ignored). ``trump_trick_value`` comes back as 0 when it is the
    default for the player count and point table (the vector holds the resolved points,
    docs/rules.md B3), so ``rules_from_array(r.to_array()).to_array()`` equals ``r.to_array()``.

    :raises RulesError: too short a vector, or a code outside an option's values.
    """
    values = [int(v) for v in np.asarray(vector).reshape(-1)]
    if len(values) < len(RULE_NAMES):
        raise RulesError(
            f"a rules vector holds {len(RULE_NAMES)} options, this one only {len(values)}"
        )
    options: dict[str, Any] = {}
    for name in RULE_NAMES:
        code = values[RULE_INDEX[name]]
        choices = _enumerated(name)
        if choices is not None:
            if not 0 <= code < len(choices):
                top = len(choices) - 1
                raise RulesError(f"{name} code {code} is not valid; its codes are 0..{top}")
            options[name] = choices[code]
        elif RULE_FIELDS[name].metadata["choices"] is BOOL:
            if code not in (0, 1):
                raise RulesError(f"{name} code {code} is not valid; switches are 0 or 1")
            options[name] = bool(code)
        else:
            options[name] = code
    if options["players"] in PLAYER_COUNTS and options["trump_trick_value"] == default_trump_points(
        options["players"], options["point_table"]
    ):
        options["trump_trick_value"] = 0
    try:
        return Rules(**options)
    except RulesError as e:
        raise RulesError(f"not a valid rules vector: {e}") from None


HEARTS_OPTIONS: tuple[str, ...] = RULE_NAMES[: RULE_NAMES.index("game")]
KIERKI_OPTIONS: tuple[str, ...] = RULE_NAMES[RULE_NAMES.index("rebel") :]

PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "openspiel": Rules(queen_breaks_hearts=True, first_trick_only_points="any"),
    "black_maria": Rules(black_maria=True, passing="right"),
    "pink_lady": Rules(pink_lady=True),
    "spot_hearts": Rules(heart_points="rank"),
    "pure_hearts": Rules(queen_points=0),
    "hearts3": Rules(players=3),
    "hearts5": Rules(players=5),
    "hearts6": Rules(players=6),
    "kierki4": Rules(game="kierki"),
    "kierki3": Rules(game="kierki", players=3),
    "kierki4_servers": Rules(game="kierki", point_table="servers", heart_lead_ban="none"),
    "kierki4_program": Rules(game="kierki", point_table="program", priced_trick="sixth"),
}
PRESET_MEANINGS = {
    "classic": "Hearts with every default of docs/rules.md part A: the optional rules off",
    "openspiel": "OpenSpiel hearts with its default parameters (QS breaks hearts, any card of "
    "a points-only hand on trick 1)",
    "black_maria": "Black Maria: the KS worth 10 and the AS 7 besides the QS's 13 and the "
    "hearts, every pass to the right",
    "pink_lady": "Pink Lady: the QH a second 13-point card",
    "spot_hearts": "Spot Hearts: each heart worth its rank (2..14), the QS 13",
    "pure_hearts": "hearts without the queen penalty: only the 13 hearts score",
    "hearts3": "Hearts for 3 players: the 2D left out (removed_card), 17 cards each, "
    "passing left, right, hold in turn, every other default of part A",
    "hearts5": "Hearts for 5 players: the 2D and 2C left out (removed_pair), 10 cards "
    "each, the 3C leads, passing left, right, hold in turn",
    "hearts6": "Hearts for 6 players: the 2D, 3D, 3C and 4C left out, 8 cards each, "
    "passing left, right, across (three seats on), hold in turn",
    "kierki4": "Kierki for 4 players, every default of docs/rules.md part B (11 deals, 13 "
    "cards each)",
    "kierki3": "Kierki for 3 players: no 2C, 17 cards each, the 3-player values (10 deals)",
    "kierki4_servers": "Kierki for 4 as the open Kierki servers score it: the servers' point "
    "table, any lead allowed",
    "kierki4_program": "Kierki for 4 as an open Kierki program scores it: its point table, "
    "the 6th and the last trick priced in deal 6",
}


def _allowed(name: str) -> str:
    choices = RULE_FIELDS[name].metadata["choices"]
    if choices is BOOL:
        return "true|false"
    if choices is None:
        top = COUNT_MAX.get(name, DEFAULT_COUNT_MAX)
        if name in ZERO_MEANS_DEFAULT:
            return f"0 (the default for the player count) or a positive integer up to {top}"
        return f"a positive integer up to {top}"
    return "|".join(str(c) for c in choices)


def parse_value(name: str, text: str) -> Any:
    """Read the value of option ``name`` from text (``true``, ``no_points``, ``50``).

    :raises RulesError: unknown option name or a value it does not take; the message
        lists the valid names or values.
    """
    if name not in RULE_FIELDS:
        raise RulesError(
            f"unknown rule option {name!r}; valid options: {', '.join(RULE_NAMES)} "
            "(see `hsim rules`)"
        )
    choices = RULE_FIELDS[name].metadata["choices"]
    t = text.strip().lower()
    if choices is BOOL:
        if t in ("true", "on", "yes", "1"):
            return True
        if t in ("false", "off", "no", "0"):
            return False
    elif choices is None:
        if t.isascii() and t.isdigit() and len(t) < 19 and _count_ok(name, int(t)):
            return int(t)
    elif _int_choices(choices):
        if t in {str(c) for c in choices}:
            return int(t)
    else:
        for c in choices:
            if t == c.lower():  # card names are upper case (JD), the rest lower
                return c
    raise RulesError(f"{name}={text} is not valid; {name} takes {_allowed(name)}")


def format_value(value: Any) -> str:
    """Return the canonical text of an option value (``true``, ``50``, ``no_points``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_assignments(items: Iterable[str]) -> dict[str, Any]:
    """Read ``name=value`` strings (each may hold several, comma-separated).

    :raises RulesError: a piece has no ``=``, or a name or value is not valid.
    """
    out: dict[str, Any] = {}
    for item in items:
        pieces = split_pieces(item, "rule options", RulesError)
        for name, text in key_values(pieces, f"rule options {item!r}:", RulesError, out).items():
            out[name] = parse_value(name, text)
    return out


def make_rules(preset: str = "classic", options: Mapping[str, Any] | Iterable[str] = ()) -> Rules:
    """Return the rule set ``preset`` with ``options`` applied on top.

    ``options`` is a mapping of typed values or an iterable of ``name=value`` strings.

    :raises RulesError: unknown preset, option or value.
    """
    if preset not in PRESETS:
        raise RulesError(f"unknown rules preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    if not isinstance(options, Mapping):
        options = parse_assignments(options)
    for name in options:
        if name not in RULE_FIELDS:
            parse_value(name, "")  # raises the unknown-name error
    return dataclasses.replace(PRESETS[preset], **dict(options))


def parse_rules(text: str) -> Rules:
    """Read a rules string: a preset name, optionally with ``(name=value,...)``.

    :raises RulesError: the string is malformed or names an unknown preset/option/value.
    """
    t = text.strip()
    if not t:
        raise RulesError("the rules string is empty: give a preset such as classic (`hsim rules`)")
    preset, paren, rest = t.partition("(")
    if paren:
        if not rest.endswith(")"):
            raise RulesError(f"rules {text!r}: missing closing parenthesis")
        rest = rest[:-1]
    return make_rules(preset.strip(), [rest] if rest.strip() else [])


def preset_of(rules: Rules) -> str:
    """Return the preset that ``rules`` differs least from (ties: the first listed)."""
    return min(PRESETS, key=lambda p: len(differences(PRESETS[p], rules)))


def differences(base: Rules, rules: Rules) -> dict[str, Any]:
    """Return the options of ``rules`` whose values differ from ``base``, in field order."""
    return {n: getattr(rules, n) for n in RULE_NAMES if getattr(rules, n) != getattr(base, n)}


def canonical(rules: Rules, preset: str | None = None) -> str:
    """Return the canonical string: the preset and the options that differ from it.

    ``preset`` defaults to :func:`preset_of`. Round-trips through :func:`parse_rules`.
    """
    preset = preset or preset_of(rules)
    diff = differences(PRESETS[preset], rules)
    if not diff:
        return preset
    return preset + "(" + ",".join(f"{n}={format_value(v)}" for n, v in diff.items()) + ")"


def ineffective_options(rules: Rules) -> list[str]:
    """Return a warning for each option set away from its default that cannot matter here.

    For example ``jack_in_moon_deal=true`` without ``omnibus``. Empty when all options
    can affect play or scoring.
    """
    d = Rules()
    if rules.is_kierki:
        base = PRESETS["kierki3" if rules.players == 3 else "kierki4"]
        hearts_set = [n for n in HEARTS_OPTIONS if getattr(rules, n) != getattr(base, n)]
        return [f"{n} is a Hearts option and has no effect in Kierki" for n in hearts_set]
    notes = [
        f"{n} is a Kierki option and has no effect in Hearts"
        for n in KIERKI_OPTIONS
        if getattr(rules, n) != getattr(d, n)
    ]
    if rules.players != 3 and rules.removed_card != d.removed_card:
        notes.append("removed_card has effect only with players=3")
    if rules.players != 5 and rules.removed_pair != d.removed_pair:
        notes.append("removed_pair has effect only with players=5")
    if not rules.omnibus:
        for name in ("moon_requires_jack", "jack_in_moon_deal", "omnibus_card", "omnibus_value"):
            if getattr(rules, name) != getattr(d, name):
                notes.append(f"{name} has effect only with omnibus=true")
    elif rules.moon == "off":
        # A2.2: no deal is a moon deal, so nothing asks for the bonus card in one.
        for name in ("moon_requires_jack", "jack_in_moon_deal"):
            if getattr(rules, name) != getattr(d, name):
                notes.append(f"{name} has no effect with moon=off (no deal is a moon)")
    if (
        rules.first_trick_points == "allowed"
        and rules.first_trick_only_points != d.first_trick_only_points
    ):
        notes.append("first_trick_only_points has effect only with first_trick_points=forbidden")
    if not rules.hearts_must_be_broken:
        if rules.lead_hearts_instead_of_queen != d.lead_hearts_instead_of_queen:
            notes.append(
                "lead_hearts_instead_of_queen has effect only with hearts_must_be_broken=true"
            )
        if not rules.queen_waits_for_broken_hearts:
            # Nothing reads "hearts broken" then (A1.6, A1.7).
            for name in ("queen_breaks_hearts", "first_trick_breaks_hearts"):
                if getattr(rules, name) != getattr(d, name):
                    notes.append(
                        f"{name} has effect only with hearts_must_be_broken=true or "
                        "queen_waits_for_broken_hearts=true"
                    )
    if rules.new_moon_any_score != d.new_moon_any_score and rules.moon != "new_moon":
        notes.append("new_moon_any_score has effect only with moon=new_moon")
    # A score of exactly 100 needs a score of at least 74 before a deal that still runs:
    # below end_score (end_when=reached), or up to it (exceeded).
    last_going_on = rules.end_score - (1 if rules.end_when == "reached" else 0)
    if rules.perfect_100 and last_going_on < 74 and not rules.no_draw:
        notes.append(
            f"perfect_100 has no effect with end_score={rules.end_score} "
            f"(end_when={rules.end_when}): no score can reach exactly 100 before the game ends"
        )
    return notes


def describe_options() -> list[dict[str, str]]:
    """Return one row per option: name, default, allowed values, meaning, docs/rules.md section."""
    d = Rules()
    return [
        {
            "name": n,
            "default": format_value(getattr(d, n)),
            "allowed": _allowed(n),
            "meaning": RULE_FIELDS[n].metadata["meaning"],
            "section": RULE_FIELDS[n].metadata["section"],
        }
        for n in RULE_NAMES
    ]


#: The options that change play, so that recorded deals cannot be re-scored under them:
#: Hearts' A1 options and every Kierki option. Scoring and game-end options (A2, A3) are
#: not, even those that ask a strategy a question (``moon``, ``new_moon_any_score``: a
#: re-scoring applies the recorded choice, else New Moon's default rule).
PLAY_OPTIONS: frozenset[str] = frozenset(
    n for n in HEARTS_OPTIONS if RULE_FIELDS[n].metadata["section"].startswith("A1")
) | frozenset(RULE_NAMES[len(HEARTS_OPTIONS) :])  # the game, its players, Kierki's options


KIERKI_NO_SCORINGS = (
    "--score-also re-scores Hearts deals under other scoring options; Kierki has no "
    "scoring options to vary, so drop --score-also"
)


def scoring_variant(base: Rules, text: str) -> Rules:
    """Return ``base`` with the scoring options of ``text`` (``name=value,...``) applied.

    :raises RulesError: ``base`` is Kierki (it has no scoring options, docs/rules.md part B),
        an unknown option or value, no option at all, or an option that changes play
        (docs/rules.md A1): such a variant needs its own games (compare-rules).
    """
    if base.is_kierki:
        raise RulesError(KIERKI_NO_SCORINGS)
    options = parse_assignments([text])
    if not options:
        raise RulesError(f"scoring {text!r} sets no option; write name=value[,name=value]")
    play = sorted(set(options) & PLAY_OPTIONS)
    if play:
        raise RulesError(
            f"{', '.join(play)} changes play, not only scoring, so it cannot score the same "
            "deals; compare it with `hsim compare-rules --variant ...` instead"
        )
    return dataclasses.replace(base, **options)
