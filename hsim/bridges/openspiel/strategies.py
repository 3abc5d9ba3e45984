"""OpenSpiel's bots as hsim strategies: ``openspiel:ismcts``, ``openspiel:mcts`` and
``openspiel:package.module:factory`` in ``--players`` (:func:`strategy_class`, which the
loader calls by name). Each decision is asked at an OpenSpiel state rebuilt from the
seat's observation, its hidden cards one world consistent with it (docs/openspiel.md)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pyspiel

from hsim.bridges.openspiel import (
    CARD_TO_OS,
    OS_PASS_ACTION,
    OS_TO_CARD,
    PASS_SHIFT,
    cards_of_mask,
    openspiel_params,
    os_game,
)
from hsim.model.cards import (
    format_card,
    mask_of,
)
from hsim.model.rules import Rules, RulesError
from hsim.strategies.pimc import sample_hands
from hsim.strategy.contract import StrategyError


def _world(obs, rng: np.random.Generator) -> list[int]:
    """Return every seat's hand now in one world consistent with ``obs`` (masks)."""

    public, private = obs.arrays()
    hands = np.zeros(4, np.int64)
    state = np.array([rng.integers(1 << 63)], np.uint64)
    sample_hands(public, private, state, hands)
    return [int(h) for h in hands]


def os_state(obs, rng: np.random.Generator, game):
    """Return ``(state, me)``: an OpenSpiel ``hearts`` state of ``game`` at the decision of
    ``obs``'s seat, with that seat as OpenSpiel player 0 (``me``: its hsim seat; player k
    is hsim seat ``(k + me) % 4``) and the hidden cards one world consistent with what the
    seat has seen (:func:`_world`). At a pass the state is at player 0's first pass action.
    """
    me = obs.seat
    direction = obs.pass_direction or "hold"
    shift = PASS_SHIFT.get(direction, 0)
    now = _world(obs, rng)
    after = list(now)
    for seat, c in obs.plays:
        after[seat] |= 1 << c
    passing = direction != "hold" and obs.passed == 0 and not obs.plays
    passes = [0, 0, 0, 0]
    if passing:
        dealt = after
    elif shift:
        passes[me] = obs.passed
        passes[(me - shift) % 4] = obs.received
        for s in range(4):
            if s not in (me, (me - shift) % 4):
                target = (s + shift) % 4
                pool = after[target] & ~(obs.received if target == me else 0)
                passes[s] = mask_of(cards_of_mask(pool)[:3])
        dealt = [(after[s] & ~passes[(s - shift) % 4]) | passes[s] for s in range(4)]
    else:
        dealt = after
    dealt[me] = obs.dealt if not passing else obs.hand
    cards = [cards_of_mask(dealt[(k + me) % 4]) for k in range(4)]
    state = game.new_initial_state()
    state.apply_action(OS_PASS_ACTION[direction])
    for i in range(13):
        for k in range(4):
            state.apply_action(CARD_TO_OS[cards[k][i]])
    if passing:
        return state, me
    if shift:
        for k in range(4):
            for c in cards_of_mask(passes[(k + me) % 4]):
                state.apply_action(CARD_TO_OS[c])
    for seat, c in obs.plays:
        if state.current_player() != (seat - me) % 4:
            raise StrategyError(
                f"OpenSpiel bridge: seat {seat} played {format_card(c)} out of turn "
                "(inconsistent observation)"
            )
        state.apply_action(CARD_TO_OS[c])
    return state, me


class OpenSpielStrategy:
    """An OpenSpiel bot as a plain-Python hsim strategy (Hearts, rules OpenSpiel can play).

    A new bot is made for each decision by ``make_bot(game, seed)`` with a seed drawn from
    the seat's stream, and asked at an OpenSpiel state rebuilt from the seat's observation
    (:func:`os_state`: the seat is player 0, the hidden cards one consistent world). The
    pass is the bot's 3 pass actions in a row. Subclasses set ``make_bot``.

    :raises StrategyError: (``new_game``) rules OpenSpiel cannot play; (``play``) the bot
        answered a card that is not legal in hsim.
    """

    games = ("hearts",)
    spec = "openspiel"

    def make_bot(self, game, seed: int):  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def check_rules(cls, rules: Rules) -> None:
        """Refuse rules OpenSpiel cannot play. :raises StrategyError: naming them."""
        try:
            openspiel_params(rules)
        except RulesError as exc:
            raise StrategyError(f"{cls.spec}: {exc}") from None

    def new_game(self, seat: int, rules: Rules) -> None:
        """Load OpenSpiel's game for ``rules``. :raises StrategyError: rules it cannot play."""
        self.check_rules(rules)
        self.game = os_game(openspiel_params(rules))

    def _game(self, obs):
        if getattr(self, "game", None) is None:
            self.new_game(obs.seat, obs.rules)
        return self.game

    def pass_cards(self, obs, rng) -> int:
        """Return the bot's 3 pass actions as a mask (asked one card at a time)."""
        game = self._game(obs)
        state, _ = os_state(obs, rng, game)
        out = 0
        for _ in range(3):
            bot = self.make_bot(game, int(rng.integers(1 << 31)))
            a = bot.step(state)
            out |= 1 << OS_TO_CARD[a]
            state.apply_action(a)
        return out

    def play(self, obs, legal: int, rng) -> int:
        """Return the bot's card at the seat's decision."""
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        game = self._game(obs)
        state, _ = os_state(obs, rng, game)
        bot = self.make_bot(game, int(rng.integers(1 << 31)))
        return OS_TO_CARD[bot.step(state)]


def _positive(name: str, value: Any, kind=int) -> Any:
    try:
        v = kind(value)
    except (TypeError, ValueError):
        raise StrategyError(f"{name}={value!r} is not a number") from None
    if not v > 0 or v != v:
        raise StrategyError(f"{name}={value!r} must be > 0")
    return v


_FINAL_POLICY = {
    "visits": "NORMALIZED_VISIT_COUNT",
    "max_visits": "MAX_VISIT_COUNT",
    "max_value": "MAX_VALUE",
}


class ISMCTS(OpenSpielStrategy):
    """``openspiel:ismcts``: OpenSpiel's C++ information-set MCTS (``pyspiel.ISMCTSBot``).

    simulations: per decision (default 1000). uct_c: exploration constant (2). rollouts:
    random rollouts per leaf (1). max_world_samples: worlds kept per search, -1 a new
    world each simulation (the default). final_policy: ``max_visits`` (the default: the
    most visited action), ``visits`` (OpenSpiel's own default: an action sampled from the
    normalized visit counts) or ``max_value``.

    Not reproducible from its seed (OpenSpiel 2.0.2): the C++ search gives different
    actions for the same state and seed in different processes at a pass, and with
    ``visits`` at plays too (``max_visits`` plays repeat), so games with an ISMCTS seat
    differ from run to run within their statistical noise. ``openspiel:mcts`` and
    factories that seed their bot repeat exactly.
    """

    spec = "openspiel:ismcts"

    def __init__(
        self,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        max_world_samples: int = -1,
        final_policy: str = "max_visits",
    ) -> None:
        self.simulations = _positive("simulations", simulations)
        self.uct_c = _positive("uct_c", uct_c, float)
        self.rollouts = _positive("rollouts", rollouts)
        self.max_world_samples = int(max_world_samples)
        if final_policy not in _FINAL_POLICY:
            raise StrategyError(f"final_policy={final_policy!r}: use {', '.join(_FINAL_POLICY)}")
        self.final_policy = getattr(pyspiel.ISMCTSFinalPolicyType, _FINAL_POLICY[final_policy])
        self.game = None

    def make_bot(self, game, seed: int):
        """Return a fresh ISMCTS bot seeded with ``seed``."""
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, seed)
        return pyspiel.ISMCTSBot(
            seed,
            evaluator,
            self.uct_c,
            self.simulations,
            self.max_world_samples,
            self.final_policy,
        )


class MCTS(OpenSpielStrategy):
    """``openspiel:mcts``: OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) on one world sampled
    from the seat's observation per decision (determinized; it never sees the true deal).

    simulations (1000), uct_c (2), rollouts (1), solve (false): as OpenSpiel's.
    """

    spec = "openspiel:mcts"

    def __init__(
        self, simulations: int = 1000, uct_c: float = 2.0, rollouts: int = 1, solve: bool = False
    ) -> None:
        self.simulations = _positive("simulations", simulations)
        self.uct_c = _positive("uct_c", uct_c, float)
        self.rollouts = _positive("rollouts", rollouts)
        self.solve = bool(solve)
        self.game = None

    def make_bot(self, game, seed: int):
        """Return a fresh MCTS bot seeded with ``seed``."""
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, seed)
        return pyspiel.MCTSBot(
            game, evaluator, self.uct_c, self.simulations, 1000, self.solve, seed, False
        )


class FactoryStrategy(OpenSpielStrategy):
    """``openspiel:package.module:attr``: any bot factory ``attr(game, seed, **params)``
    returning a ``pyspiel.Bot`` (or any object with ``step(state) -> action``)."""

    factory: Any = None

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.game = None

    def make_bot(self, game, seed: int):
        """Return the factory's bot for ``game`` seeded with ``seed``."""
        return type(self).factory(game, seed, **self.params)


def strategy_class(name: str) -> type:
    """Return the hsim strategy class of ``openspiel:NAME``: ``ismcts``, ``mcts`` or a
    factory ``package.module:attr`` (called as ``attr(game, seed, **params)``).

    :raises StrategyError: an unknown name, or a factory that cannot be imported.
    """
    if name == "ismcts":
        return ISMCTS
    if name == "mcts":
        return MCTS
    target, colon, attr = name.rpartition(":")
    if not (colon and target and attr):
        raise StrategyError(
            f"unknown OpenSpiel bot {name!r}: use openspiel:ismcts(...), openspiel:mcts(...) "
            "or openspiel:package.module:factory (called as factory(game, seed, **params))"
        )
    try:
        factory = getattr(importlib.import_module(target), attr)
    except (ImportError, AttributeError) as exc:
        raise StrategyError(f"cannot load OpenSpiel bot factory {name!r}: {exc}") from None
    if not callable(factory):
        raise StrategyError(f"OpenSpiel bot factory {name!r} is not callable")
    return type(
        f"OpenSpielFactory_{attr}",
        (FactoryStrategy,),
        {"factory": staticmethod(factory), "spec": f"openspiel:{name}"},
    )
