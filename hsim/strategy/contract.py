"""The strategy contract: compiled bundles, plain-Python classes, and observations.

A strategy answers a seat's decisions (docs/strategies.md has the full contract):

- *pass*: a mask of exactly 3 cards of its hand, knowing the pass direction;
- *play*: one card of the ``legal`` mask (never empty);
- *moon choice* (``moon=new_moon`` only): ``MOON_DEFAULT`` (0, use the rule's default),
  ``MOON_ADD`` (1) or ``MOON_SUBTRACT`` (2);
- *trump choice* (Kierki trump deals, docs/rules.md B3): a suit 0..3 (C, D, S, H) or
  ``TRUMP_NONE`` (4) with ``allow_no_trump``, seeing only the chooser's first cards.

A strategy says which games it plays (``games``: ``hearts``, ``kierki``); the loader
refuses a seat whose strategy does not play the rules' game.

Two tiers answer the same decisions over the same observation:

- compiled: a :class:`CompiledStrategy` bundling ``@njit`` functions with the signatures of
  :mod:`hsim.engine.signatures`; they read the ``public`` and ``private`` arrays;
- plain Python: any class with ``pass_cards(obs, rng)``, ``play(obs, legal, rng)`` and
  optionally ``moon_choice(obs, rng)``, ``trump_choice(obs, rng)``, ``new_game(seat,
  rules)`` and a ``games`` attribute (default ``("hearts",)``); they read an
  :class:`Observation`. ``rng`` is a :class:`numpy.random.Generator` made afresh for each
  game from the seat's stream, so results do not depend on workers or chunking.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from hsim.engine import _numba  # noqa: F401
from hsim.engine.choices import default_moon_choice, default_trump_choice, longest_suit  # noqa: F401
from hsim.engine.layout import (
    KIND_NAMES,
    MOON_ADD,
    MOON_DEFAULT,
    MOON_SUBTRACT,
    P_DEAL,
    P_DEALER,
    P_HEARTS_BROKEN,
    P_KIND,
    P_LEADER,
    P_MOON_SHOOTER,
    P_N_PLAYS,
    P_N_SEATS,
    P_OUT,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_SCORES,
    P_START_RANK,
    P_TAKEN,
    P_TRICK,
    P_TRICK_LEADER,
    P_TRICK_LEN,
    P_TRICK_WINNER,
    P_TRICKS_WON,
    P_TRUMP,
    P_TRUMP_CHOOSER,
    P_VOIDS,
    PASS_DIRECTIONS,
    TRUMP_NONE,
    V_DEALT,
    V_HAND,
    V_PASSED,
    V_RECEIVED,
    V_SEAT,
)
from hsim.errors import StrategyError, StrategySpecError
from hsim.model.cards import Card, CardMask, cards_of
from hsim.model.rules import Rules
from hsim.model.text import parse_number
from hsim.strategy.specs import read_strategy_file, spec_file

__all__ = [
    "MOON_ADD",
    "MOON_DEFAULT",
    "MOON_SUBTRACT",
    "CompiledStrategy",
    "Observation",
    "Param",
    "TRUMP_NONE",
    "StrategyError",
    "StrategySpecError",
    "check_params",
    "default_moon_choice",
    "default_trump_choice",
    "longest_suit",
]


#: The largest magnitude of a parameter without a declared range: a float64 holds every
#: integer up to it exactly, and an int64 cast of it cannot overflow.
MAX_PARAM = float(2**53)


@dataclasses.dataclass(frozen=True)
class Param:
    """The declaration of one strategy parameter: its default, kind and allowed range.

    default: the value used when the spec does not set it. kind: ``float`` or ``int``
    (an int parameter takes whole numbers only: ``20``, ``2e1``, not ``2.5``). low, high:
    the inclusive range; every value must also be finite (``nan``, ``inf`` are refused).
    help: one line for ``hsim strategies``.

    >>> Param(80, int, 1, 10_000).check("pimc", "worlds", "20")
    20
    """

    default: float
    kind: type = float
    low: float = -MAX_PARAM
    high: float = MAX_PARAM
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"Param kind must be int or float, not {self.kind!r}")

    def allowed(self) -> str:
        """Return the allowed values as text: ``an integer 1..10000``, ``a number 0..1``."""
        what = "an integer" if self.kind is int else "a number"
        return f"{what} {_num(self.low)}..{_num(self.high)}"

    def check(self, strategy: str, name: str, value: Any) -> int | float:
        """Return ``value`` (a number or its text) as this parameter's kind.

        :raises StrategySpecError: not a number, not finite, not whole for an int
            parameter, or outside ``low..high``; the message names the allowed range.
        """
        where = f"strategy {strategy!r}: parameter {name}={value!r}"
        if isinstance(value, str):
            number = parse_number(value)  # ASCII digits, no underscores; None otherwise
            if number is None and value.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
                number = math.nan
        else:
            try:
                number = float(value) if not isinstance(value, bool) else math.nan
            except (TypeError, ValueError, OverflowError):
                number = None
        if number is None or not math.isfinite(number):
            what = "not a number" if number is None else "not a finite number"
            raise StrategySpecError(f"{where} is {what}; {name} takes {self.allowed()}")
        if self.kind is int and not number.is_integer():
            raise StrategySpecError(f"{where} is not a whole number; {name} takes {self.allowed()}")
        if not self.low <= number <= self.high:
            raise StrategySpecError(f"{where} is out of range; {name} takes {self.allowed()}")
        return int(number) if self.kind is int else number


def _num(x: float) -> str:
    if x == MAX_PARAM:
        return "2**53"
    if x == -MAX_PARAM:
        return "-2**53"
    return f"{x:g}" if not float(x).is_integer() else str(int(x))


def declared(value: float | Param) -> Param:
    """Return a parameter's :class:`Param` (a bare default means a float in +-2**53)."""
    return value if isinstance(value, Param) else Param(float(value))


def check_params(
    strategy: str, declarations: Mapping[str, float | Param], values: Mapping[str, Any]
) -> dict[str, int | float]:
    """Return every declared parameter's value: ``values`` checked over the defaults.

    The one check of strategy parameters, for compiled and plain-Python strategies alike.

    :raises StrategySpecError: an unknown name, or a value outside its declaration.
    """
    out = {name: declared(d).default for name, d in declarations.items()}
    for name, value in values.items():
        if name not in declarations:
            valid = ", ".join(declarations) or "none"
            raise StrategySpecError(
                f"strategy {strategy!r} has no parameter {name!r}; its parameters: {valid}"
            )
        out[name] = declared(declarations[name]).check(strategy, name, value)
    return out


@dataclasses.dataclass(frozen=True)
class CompiledStrategy:
    """A bundle of compiled decisions, one per decision kind.

    name: the built-in or display name. pass_cards, play, moon_choice, trump_choice:
    ``@njit`` functions compiled with PASS_SIG, PLAY_SIG, MOON_SIG, TRUMP_SIG. params:
    parameter names and their :class:`Param` declarations (or bare float defaults: any
    finite number within +-2**53), in the order of the ``params`` array the functions
    receive (float64). description: one line for ``hsim strategies``. games: the games
    it plays (``hearts``, ``kierki``). native_pass, native_play: built-in bots only, the
    same decisions as ``pass_cards`` and ``play`` compiled with
    :data:`hsim.engine.native.PASS_AT_SIG` / ``PLAY_AT_SIG``, which the game loops call
    directly (:mod:`hsim.engine.native`); None: through ``pass_cards`` / ``play``.
    in_loop: built-in bots with native entries only: runs with this bot play in a Hearts
    loop compiled with its decisions in it (:func:`hsim.play.hearts_game.play_games_with`;
    faster decisions for a longer first compile).
    """

    name: str
    pass_cards: Callable
    play: Callable
    moon_choice: Callable = default_moon_choice
    trump_choice: Callable = default_trump_choice
    games: tuple[str, ...] = ("hearts",)
    params: Mapping[str, float | Param] = dataclasses.field(default_factory=dict)
    param_help: Mapping[str, str] = dataclasses.field(default_factory=dict)
    description: str = ""
    native_pass: Callable | None = None
    native_play: Callable | None = None
    in_loop: bool = False

    def params_array(self, values: Mapping[str, Any]) -> np.ndarray:
        """Return the float64 parameter vector with ``values`` applied over the defaults.

        :raises StrategySpecError: an unknown parameter name, or a value outside its
            declared :class:`Param` (see :func:`check_params`).
        """
        out = check_params(self.name, self.params, values)
        return np.array([float(v) for v in out.values()] or [0.0], dtype=np.float64)


class Observation:
    """What one seat may see, for plain-Python strategies (read-only views, no copies).

    Built over the engine's ``public`` array and this seat's ``private`` row; another
    seat's hand is not reachable from it. Cards are ints 0..51, sets are 52-bit masks.
    """

    def __init__(self, public: np.ndarray, private: np.ndarray, rules: Rules) -> None:
        self._public = public
        self._private = private
        self.rules = rules

    @property
    def seat(self) -> int:
        """This seat, 0..n_seats-1."""
        return int(self._private[V_SEAT])

    @property
    def n_seats(self) -> int:
        """Number of seats: 4, or 3 in three-player Kierki."""
        return int(self._public[P_N_SEATS])

    @property
    def kind(self) -> str | None:
        """Kierki deal kind (``tricks`` ... ``lottery``, docs/rules.md B1); None in Hearts."""
        k = int(self._public[P_KIND])
        return KIND_NAMES[k] if k >= 0 else None

    @property
    def dealer(self) -> int:
        """Kierki: the dealer of this deal; -1 in Hearts."""
        return int(self._public[P_DEALER])

    @property
    def trump(self) -> int:
        """Kierki: the trump suit 0..3 (C, D, S, H) of a trump deal; -1 without trump."""
        return int(self._public[P_TRUMP])

    @property
    def trump_chooser(self) -> int:
        """Kierki: the seat that names (named) trump in this trump deal; -1 otherwise."""
        return int(self._public[P_TRUMP_CHOOSER])

    @property
    def lottery_start_rank(self) -> int:
        """Kierki lottery: rank 0..12 (2..A) of the first card; -1 before it."""
        return int(self._public[P_START_RANK])

    @property
    def lottery_out(self) -> list[int]:
        """Kierki lottery: per seat 1 or 2 if it went out first or second, else 0."""
        return [int(self._public[P_OUT + s]) for s in range(self.n_seats)]

    @property
    def hand(self) -> CardMask:
        """Cards held now (mask)."""
        return int(self._private[V_HAND])

    @property
    def dealt(self) -> CardMask:
        """The cards dealt to this seat, before the pass (mask); while naming trump in
        Kierki, only the cards the chooser may see.
        """
        return int(self._private[V_DEALT])

    @property
    def passed(self) -> CardMask:
        """Cards this seat passed this deal (mask, 0 before the pass or in a hold deal)."""
        return int(self._private[V_PASSED])

    @property
    def received(self) -> CardMask:
        """Cards this seat received this deal (mask)."""
        return int(self._private[V_RECEIVED])

    @property
    def pass_direction(self) -> str | None:
        """``left``, ``right``, ``across`` or ``hold``; None in Kierki (no passing)."""
        d = int(self._public[P_PASS_DIR])
        return PASS_DIRECTIONS[d] if d >= 0 else None

    @property
    def deal(self) -> int:
        """Deal index within the game, 0-based."""
        return int(self._public[P_DEAL])

    @property
    def trick_number(self) -> int:
        """Index of the current trick, 0-based."""
        return int(self._public[P_TRICK])

    @property
    def leader(self) -> int:
        """Seat that led (or leads) the current trick."""
        return int(self._public[P_LEADER])

    @property
    def trick(self) -> list[tuple[int, Card]]:
        """The current trick so far as (seat, card) pairs, in play order."""
        n = int(self._public[P_N_PLAYS])
        k = int(self._public[P_TRICK_LEN])
        return [
            (int(self._public[P_PLAY_SEAT + i]), int(self._public[P_PLAY_CARD + i]))
            for i in range(n - k, n)
        ]

    @property
    def plays(self) -> list[tuple[int, Card]]:
        """Every card played this deal as (seat, card), in play order."""
        n = int(self._public[P_N_PLAYS])
        return [
            (int(self._public[P_PLAY_SEAT + i]), int(self._public[P_PLAY_CARD + i]))
            for i in range(n)
        ]

    @property
    def trick_leaders(self) -> list[int]:
        """Seat that led each trick so far (current trick included; none in the lottery)."""
        tricks = min(self.trick_number + 1, 52 // self.n_seats)  # 13 tricks, 3-player Kierki 17
        return [
            int(self._public[P_TRICK_LEADER + t])
            for t in range(tricks)
            if self._public[P_TRICK_LEADER + t] >= 0
        ]

    @property
    def trick_winners(self) -> list[int]:
        """Seat that won each completed trick."""
        return [int(self._public[P_TRICK_WINNER + t]) for t in range(self.trick_number)]

    @property
    def played(self) -> CardMask:
        """Every card played this deal (mask)."""
        return int(self._public[P_PLAYED])

    @property
    def hearts_broken(self) -> bool:
        """Whether hearts are broken (docs/rules.md A1.6)."""
        return bool(self._public[P_HEARTS_BROKEN])

    @property
    def points(self) -> list[int]:
        """Points taken this deal, per seat: Hearts penalty points (0..26); Kierki signed
        points (penalties negative, trump tricks and lottery places positive).
        """
        return [int(x) for x in self._public[P_POINTS : P_POINTS + self.n_seats]]

    @property
    def tricks_won(self) -> list[int]:
        """Tricks won this deal, per seat."""
        return [int(x) for x in self._public[P_TRICKS_WON : P_TRICKS_WON + self.n_seats]]

    @property
    def taken(self) -> list[CardMask]:
        """Cards won in tricks this deal, per seat (masks)."""
        return [int(x) for x in self._public[P_TAKEN : P_TAKEN + self.n_seats]]

    @property
    def voids(self) -> list[int]:
        """Suits each seat has shown void in this deal (bit per suit, CDSH)."""
        return [int(x) for x in self._public[P_VOIDS : P_VOIDS + self.n_seats]]

    @property
    def scores(self) -> list[int]:
        """Game scores per seat before this deal."""
        return [int(x) for x in self._public[P_SCORES : P_SCORES + self.n_seats]]

    @property
    def moon_shooter(self) -> int:
        """Seat that shot the moon (while its New Moon choice is asked), else -1."""
        return int(self._public[P_MOON_SHOOTER])

    def hand_cards(self) -> list[Card]:
        """Cards held now, as a sorted list."""
        return list(cards_of(self.hand))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the read-only ``(public, private)`` arrays the compiled tier sees."""
        return self._public, self._private


@dataclasses.dataclass
class LoadedStrategy:
    """A seat's resolved strategy: the spec, a display name, and what plays.

    compiled: the bundle (compiled tier) or None. params: its float64 vector.
    python_factory: a zero-argument callable making a fresh plain-Python player, or None.
    """

    spec: str
    name: str
    kind: str  # "compiled" or "python"
    compiled: CompiledStrategy | None = None
    params: Any = None
    python_factory: Any = None
    param_values: dict[str, Any] = dataclasses.field(default_factory=dict)
    games: tuple[str, ...] = ("hearts",)
    #: a plain-Python class's ``check_rules(rules)`` (raises StrategyError), or None
    check_rules: Any = None

    def describe(self) -> dict[str, Any]:
        """Return a JSON-able description for the run manifest: spec, name, kind, params
        (every parameter's value, defaults included) and, for a ``path/to/file.py:attr``
        strategy, ``sha256``: the hex digest of the file's bytes (None if it cannot be read
        any more), so a later change to the file can be noticed.
        """
        out = {
            "spec": self.spec,
            "name": self.name,
            "kind": self.kind,
            "params": self.param_values,
        }
        path = spec_file(self.spec)
        if path is not None:
            try:
                out["sha256"] = hashlib.sha256(read_strategy_file(path)).hexdigest()
            except (OSError, StrategySpecError):
                out["sha256"] = None
        return out
