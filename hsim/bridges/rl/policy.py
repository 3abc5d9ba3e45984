"""A trained policy back at hsim's table: any callable from (observation, mask) to an
action, as a plain-Python strategy that plays ``tournament``, ``ladder``, ``sprt``.

The strategy builds the same observation and mask as the environments (compiled
:func:`hsim.bridges.rl.tables.observe` over the seat's own view, called at its compiled
entry: the arrays are this strategy's own, of the entry's types), asks the policy, and
turns its action into hsim's answer: a pass is asked as three card actions in a row.
Needs numpy and numba only, not gymnasium.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hsim.bridges.rl.tables import observe_entry
from hsim.bridges.rl.tensor import MOON_ACTION, N_ACTIONS, OBS_LEN, TRUMP_ACTION, rules_scale
from hsim.engine.layout import (
    PRIVATE_LEN,
    PUBLIC_LEN,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
)
from hsim.errors import StrategyError

#: A policy: (observation float32[OBS_LEN], mask int8[N_ACTIONS], numpy Generator) -> action.
Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]


class PolicyStrategy:
    """Play a seat by asking ``policy(observation, mask, rng)`` for each action.

    Subclass it and define ``policy`` (or pass ``policy=`` to the constructor); load it
    like any strategy file: ``--players path/to/file.py:MyPolicy,heuristic,...``. The
    observation and mask are exactly those of :class:`hsim.bridges.rl.HsimEnv`
    (docs/rl.md); ``rng`` is the seat's seeded generator (sample from it, not from an
    unseeded one, so that runs replay). ``games`` says which games it plays.

    :raises hsim.errors.StrategyError: (while playing) the policy answered an action the
        mask does not allow, or not an integer.
    """

    games: tuple[str, ...] = ("hearts", "kierki")

    def __init__(self, policy: Policy | None = None) -> None:
        if policy is not None:
            self.policy = policy
        self._scale = rules_scale()
        self._obs = np.zeros(OBS_LEN, np.float32)
        self._mask = np.zeros(N_ACTIONS, np.int8)
        self._public = np.zeros(PUBLIC_LEN, np.int64)
        self._private = np.zeros(PRIVATE_LEN, np.int64)
        self._rules_of = None
        self._rules = np.zeros(0, np.int64)

    def policy(self, observation: np.ndarray, mask: np.ndarray, rng) -> int:
        """Return an action allowed by ``mask``; a subclass defines it."""
        raise NotImplementedError("define policy(observation, mask, rng) in a subclass")

    def _ask(self, obs, status: int, picked: int, rng) -> int:
        # The observation's arrays are read-only views; the compiled entry takes its own
        # copies (about 300 ints a decision).
        np.copyto(self._public, obs._public)
        np.copyto(self._private, obs._private)
        if self._rules_of is not obs.rules:
            self._rules_of, self._rules = obs.rules, obs.rules.to_array()
        observe_entry(
            self._public, self._private, self._rules, status, picked,
            int(obs.rules.is_kierki), self._scale, self._obs, self._mask,
        )  # fmt: skip
        action = self.policy(self._obs, self._mask, rng)
        if isinstance(action, (np.ndarray,)) and action.shape == ():
            action = action.item()
        if (
            isinstance(action, bool)
            or not isinstance(action, (int, np.integer))
            or not 0 <= int(action) < N_ACTIONS
            or not self._mask[int(action)]
        ):
            allowed = np.flatnonzero(self._mask).tolist()
            what = "not an int" if not isinstance(action, (int, np.integer)) else "not allowed"
            raise StrategyError(
                f"the policy answered {action!r} ({what}); an action is an int the mask "
                f"allows: {allowed}"
            )
        return int(action)

    def pass_cards(self, obs, rng) -> int:
        """Ask three card actions; return them as a pass mask."""
        picked = 0
        for _ in range(3):
            picked |= 1 << self._ask(obs, ST_NEED_PASS, picked, rng)
        return picked

    def play(self, obs, legal: int, rng) -> int:
        """Ask one card action."""
        return self._ask(obs, ST_NEED_PLAY, 0, rng)

    def moon_choice(self, obs, rng) -> int:
        """Ask a moon action (52..54); return the choice 0..2."""
        return self._ask(obs, ST_NEED_MOON, 0, rng) - MOON_ACTION

    def trump_choice(self, obs, rng) -> int:
        """Ask a trump action (55..59); return the suit 0..3 or 4 (no trump)."""
        return self._ask(obs, ST_NEED_TRUMP, 0, rng) - TRUMP_ACTION
