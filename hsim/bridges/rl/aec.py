"""The PettingZoo AEC environment: every seat of hsim's table is an agent (the ``rl`` extra).

Agents are ``seat_0`` .. ``seat_3`` (``seat_2`` last in three-player Kierki); each acts
when the engine asks its seat. Observations, actions, episodes, rewards and seeding are
those of :mod:`hsim.bridges.rl.tables` (docs/rl.md).
"""

from __future__ import annotations

import numpy as np

from hsim.bridges.rl.envs import (  # first: it says when gymnasium is missing
    _action,
    _hands,
    as_rules,
    check_settings,
    observation_space,
    render_table,
)
from hsim.errors import install_hint

try:
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("the AEC environment needs pettingzoo: " + install_hint("rl")) from exc
from gymnasium import spaces

from hsim.bridges.rl.tables import (
    T_DEAL,
    T_GAME,
    T_OVER,
    T_PICKED,
    T_SEAT,
    T_STATUS,
    IllegalActionError,
    Tables,
    observe_entry,
)
from hsim.bridges.rl.tensor import N_ACTIONS, OBS_LEN
from hsim.engine.layout import MAX_SEATS, ST_GAME_OVER
from hsim.engine.rng import check_seed
from hsim.model.rules import Rules
from hsim.strategy.loader import load

_RANDOM_SEED_BITS = 63


def env(**kwargs) -> HsimAECEnv:
    """Return an :class:`HsimAECEnv` (PettingZoo's ``env()`` convention)."""
    return HsimAECEnv(**kwargs)


class HsimAECEnv(AECEnv):
    """PettingZoo AEC environment of hsim's Hearts and Kierki, every seat an agent.

    rules: :class:`Rules` or its string (default ``"classic"``). mode: ``"deal"`` (an
    episode is a deal) or ``"game"`` (to the end score); reward: ``"deal"`` or
    ``"trick"`` (docs/rl.md). oracle: every seat's hand in ``infos[agent]["hidden"]``
    (int8[4, 52]); off by default. illegal, illegal_reward: as :class:`HsimEnv`.
    ``reset(seed=S)`` starts run seed S at game 0;
    ``reset()`` goes on with the next deal (mode "deal") or game; game G of seed S is
    ``hsim replay --seed S --game G``.

    :raises ValueError: an unknown mode or reward.
    :raises hsim.errors.RulesError: a rules string that names no valid rule set.
    """

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "hsim_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        rules: Rules | str = "classic",
        mode: str = "deal",
        reward: str = "deal",
        oracle: bool = False,
        render_mode: str | None = None,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        self.illegal_reward = check_settings(
            mode, reward, illegal, oracle, illegal_reward, render_mode
        )
        self.illegal = illegal
        self.rules = as_rules(rules)
        n = self.rules.players
        self.possible_agents = [f"seat_{s}" for s in range(n)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        placeholder = load("random")
        self.tables = Tables(
            self.rules, [placeholder] * n, learner=None, outside=(1 << n) - 1, mode=mode,
            reward=reward,
        )  # fmt: skip
        self.oracle = bool(oracle)
        self.render_mode = render_mode
        self._started = False
        self._rng = np.random.default_rng()
        self._obs = np.zeros(OBS_LEN, np.float32)
        self._mask = np.zeros(N_ACTIONS, np.int8)
        self.agents: list[str] = []
        self.agent_selection = self.possible_agents[0]  # until reset(): observing says so
        self._where: tuple | None = None
        self._public = self.tables.public[0]
        self._kierki = int(self.rules.is_kierki)
        self._observation_spaces = {a: observation_space() for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Dict:
        """Return ``agent``'s observation space (one object per agent, as PettingZoo asks)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """Return ``agent``'s action space: ``Discrete(N_ACTIONS)``."""
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode (see the class docstring)."""
        if seed is not None:
            seed = check_seed(seed, "seed")
        if seed is not None or not self._started:
            if seed is None:
                seed = int(self._rng.integers(0, 2**_RANDOM_SEED_BITS))
            self.tables.start(seed)
            self._started = True
        self.tables.set_outside(-1, (1 << self.rules.players) - 1)
        self.tables.reward[:] = 0.0
        self.tables.next_episode()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._where = None
        self._update()

    def observe(self, agent: str) -> dict:
        """Return ``agent``'s observation: its own view only, with its action mask (all
        zeros when it is not asked to act)."""
        if not self._started:
            raise IllegalActionError("call reset() before observing")
        t = self.tables
        s = self.agent_name_mapping[agent]
        state = t.table[0].tolist()
        asked = not state[T_OVER] and state[T_SEAT] == s
        status = state[T_STATUS] if asked else ST_GAME_OVER
        picked = state[T_PICKED] if asked else 0
        obs = np.empty(OBS_LEN, np.float32)  # observe() writes every entry
        mask = np.empty(N_ACTIONS, np.int8)
        observe_entry(
            self._public, t.private[0, s], t.rules_array, status, picked, self._kierki,
            t.scale, obs, mask,
        )  # fmt: skip
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        """Play ``action`` for ``agent_selection``.

        A refused action leaves the agent at its decision: ``illegal="penalty"`` pays it
        ``illegal_reward`` (``infos[agent]["illegal"]``), ``illegal="raise"`` raises.

        :raises IllegalActionError: an action that is not an integer, or a refused action
            with ``illegal="raise"``.
        """
        if not self.agents and not self._started:
            raise IllegalActionError("call reset() before the first step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if not self.tables.step(np.array([_action(action)], np.int64)):
            self.tables.refused()
            if self.illegal == "raise":
                raise IllegalActionError(self.tables.refusal(0))
            self._update()
            self.rewards[agent] += self.illegal_reward
            self.infos[agent]["illegal"] = True
            self._where = None  # the next step rebuilds the infos, without the flag
            self._accumulate_rewards()
            return
        self._update()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _update(self) -> None:
        """Read rewards, episode end and the next agent from the table."""
        t = self.tables
        reward = t.reward[0]
        self.rewards = dict(zip(self.possible_agents, reward.tolist(), strict=False))
        reward[:MAX_SEATS] = 0.0
        state = t.table[0].tolist()
        over = bool(state[T_OVER])
        where = (state[T_GAME], state[T_DEAL] - int(over))
        # Each agent's info and termination change only with the deal (or the oracle's
        # hands, with every step): rebuilt then, not on every step.
        if self.oracle or where != self._where or over:
            self._where = where
            hidden = _hands(t) if self.oracle else None
            for agent in self.agents:
                self.terminations[agent] = over
                info = {"game": where[0], "deal": where[1]}
                if hidden is not None:
                    info["hidden"] = hidden
                self.infos[agent] = info
        if not over:
            self.agent_selection = self.possible_agents[state[T_SEAT]]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """Return the table as text (``render_mode="ansi"``) or print it (``"human"``)."""
        if not self.agents and not self._started:
            return None
        text = render_table(self.tables)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the tables are numpy arrays."""
