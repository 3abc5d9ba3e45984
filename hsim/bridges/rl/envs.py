"""Gymnasium and PettingZoo environments over hsim's compiled engine (the ``rl`` extra).

- :class:`HsimAECEnv` (PettingZoo AEC): every seat is an agent.
- :class:`HsimEnv` (Gymnasium): one learner seat, the other seats played by hsim
  strategies between its steps (compiled ones inside the compiled step).
- :class:`HsimVectorEnv` (Gymnasium vector): ``num_envs`` tables stepped by one compiled
  call, opponents compiled in the same call.

All three share the observation (:mod:`hsim.bridges.rl.tensor`), the actions, the
episodes, the rewards and the seeding of :mod:`hsim.bridges.rl.tables`; docs/rl.md says
them for users.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hsim.errors import install_hint

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "hsim's environments need gymnasium and pettingzoo: " + install_hint("rl")
    ) from exc

from hsim.bridges.rl.tables import (
    R_STEP,
    T_DEAL,
    T_ENDED,
    T_GAME,
    T_LEARNER,
    T_OVER,
    T_SEAT,
    T_STATUS,
    IllegalActionError,
    Tables,
    observe_entry,
)
from hsim.bridges.rl.tensor import (
    FIELD,
    MOON_ACTION,
    N_ACTIONS,
    OBS_LEN,
    TRUMP_ACTION,
)
from hsim.engine.layout import (
    MAX_SEATS,
    P_DEAL,
    P_LEADER,
    P_N_SEATS,
    P_PASS_DIR,
    P_POINTS,
    P_SCORES,
    P_TRICK_CARDS,
    PASS_DIRECTIONS,
    ST_GAME_OVER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_TRUMP,
    V_HAND,
)
from hsim.engine.rng import check_seed
from hsim.errors import RulesError, StrategyError
from hsim.model.cards import format_mask
from hsim.model.rules import Rules, canonical, parse_rules
from hsim.play.games import GameState, PythonDriver
from hsim.strategy.loader import load, load_players

MODES = ("deal", "game")
REWARDS = ("deal", "trick")
ILLEGAL = ("penalty", "raise")
#: The observation space's bound on the scaled points and scores: a Kierki deal with the
#: largest trump_trick_value (1,000) pays at most 17,000, a game of such deals 400,000.
SCORE_BOUND = 1e6
ORACLE_SEATS = 4  # the seats an environment plays and its oracle shows (3 or 4 play)
_RANDOM_SEED_BITS = 63


def as_rules(rules: Rules | str) -> Rules:
    """Return ``rules`` as :class:`Rules`: one already, or its string (``"kierki3"``,
    ``"classic(omnibus=true)"``, docs/rules.md).

    :raises hsim.errors.RulesError: a string that names no valid rule set, or rules for 5
        or 6 players (the observation has 4 relative seats).
    """
    rules = rules if isinstance(rules, Rules) else parse_rules(str(rules))
    if rules.players > ORACLE_SEATS:
        raise RulesError(
            f"the environments seat 3 or 4 players, not {rules.players} (the observation "
            "has 4 relative seats, docs/rl.md); play Hearts for 5 or 6 with hsim tournament"
        )
    return rules


def observation_space() -> spaces.Dict:
    """Return one seat's observation space: ``{"observation": Box(OBS_LEN,) float32,
    "action_mask": Box(0, 1, (N_ACTIONS,), int8)}``. Points and scores lie within
    +-SCORE_BOUND (Kierki's are signed); the other features in 0..1 (the counts of tricks
    up to 17/13, the rules' counts up to 100)."""
    low = np.zeros(OBS_LEN, np.float32)
    high = np.ones(OBS_LEN, np.float32)
    for name in ("points", "scores"):  # signed in Kierki; bounds far beyond any game
        low[FIELD[name].slice] = -SCORE_BOUND
        high[FIELD[name].slice] = SCORE_BOUND
    high[FIELD["tricks"].slice] = 17 / 13
    high[FIELD["trick_number"].slice] = 17 / 13
    high[FIELD["rules"].slice] = 100.0
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, (OBS_LEN,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        }
    )


def _check_choice(name: str, value: Any, choices: tuple) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")


def check_settings(
    mode: Any, reward: Any, illegal: Any, oracle: Any, illegal_reward: Any, render_mode: Any = None
) -> float:
    """Refuse settings every environment takes outside their values (docs/rl.md
    "Settings"); return ``illegal_reward`` as a float.

    :raises ValueError: naming the setting and its allowed values.
    """
    _check_choice("mode", mode, MODES)
    _check_choice("reward", reward, REWARDS)
    _check_choice("illegal", illegal, ILLEGAL)
    _check_choice("render_mode", render_mode, (None, "ansi", "human"))
    if not isinstance(oracle, (bool, np.bool_)):
        raise ValueError(f"oracle must be True or False, not {oracle!r}")
    if isinstance(illegal_reward, bool) or not isinstance(
        illegal_reward, (int, float, np.integer, np.floating)
    ) or not np.isfinite(illegal_reward):  # fmt: skip
        raise ValueError(f"illegal_reward must be a finite number, not {illegal_reward!r}")
    return float(illegal_reward)


_CARD_BITS = np.arange(52, dtype=np.int64)


def hands_of(tables: Tables, rows=slice(None)) -> np.ndarray:
    """The oracle's view: int8[tables, 4, 52], 1 for each card each seat holds now at each
    table of ``rows`` (a seat that does not play holds nothing)."""
    held = tables.private[rows, :ORACLE_SEATS, V_HAND][..., None]
    out = ((held >> _CARD_BITS) & 1).astype(np.int8)
    out[:, tables.n_seats :] = 0
    return out


def _hands(tables: Tables) -> np.ndarray:
    """:func:`hands_of` table 0: int8[4, 52]."""
    return hands_of(tables, slice(0, 1))[0]


def render_table(tables: Tables, i: int = 0) -> str:
    """Return table ``i`` as text: rules, game, deal, pass, scores, points, every hand
    and the current trick (all hands open: a picture for a person, not an observation)."""
    public = tables.public[i]
    n = int(public[P_N_SEATS])
    t = tables.table[i]
    lines = [
        f"{canonical(tables.rules)}  game {int(t[T_GAME])}  deal {int(public[P_DEAL])}",
    ]
    if public[P_PASS_DIR] >= 0:
        lines[0] += f"  pass {PASS_DIRECTIONS[int(public[P_PASS_DIR])]}"
    for s in range(n):
        mark = ">" if not t[T_OVER] and int(t[T_SEAT]) == s else " "
        lines.append(
            f"{mark} seat {s}: score {int(public[P_SCORES + s]):4d}  points "
            f"{int(public[P_POINTS + s]):3d}  hand {format_mask(int(tables.private[i, s, V_HAND]))}"
        )
    trick = int(public[P_TRICK_CARDS])
    if trick:
        lines.append(f"  trick led by seat {int(public[P_LEADER])}: {format_mask(trick)}")
    return "\n".join(lines)


class _Seating:
    """The seats of one environment: the learner's (or none), the opponents' strategies,
    and a Python driver for the opponents that are not compiled."""

    def __init__(self, rules: Rules, opponents, learner) -> None:
        n = rules.players
        if isinstance(opponents, str):
            opponents = [opponents] * (n - 1)
        if not isinstance(opponents, (list, tuple)) or not all(
            isinstance(o, str) for o in opponents
        ):
            raise ValueError(
                f"opponents: give one strategy spec (a string such as 'heuristic') or a list "
                f"of {n - 1}, not {opponents!r}"
            )
        opponents = list(opponents)
        if len(opponents) != n - 1:
            raise ValueError(
                f"opponents: give {n - 1} strategy specs (the other seats of "
                f"{canonical(rules)}), or one spec for all of them; got {len(opponents)}"
            )
        if learner != "rotate" and (
            isinstance(learner, bool) or not isinstance(learner, (int, np.integer))
            or learner not in range(n)
        ):  # fmt: skip
            raise ValueError(f"seat must be 0..{n - 1} or 'rotate', not {learner!r}")
        self.rules = rules
        self.n = n
        self.specs = opponents
        self.loaded = [load(spec) for spec in opponents]
        load_players([p.spec for p in self.loaded] + [self.loaded[0].spec], rules)
        self.placeholder = load("random")
        self.rotate = learner == "rotate"
        self.learner = 0 if self.rotate else int(learner)

    def by_seat(self, learner: int) -> list:
        """The loaded strategies per seat with the learner at ``learner``: opponents sit
        clockwise from the learner's left (opponents[0] at learner + 1)."""
        seats = [None] * self.n
        for k, p in enumerate(self.loaded):
            seats[(learner + 1 + k) % self.n] = p
        seats[learner] = self.placeholder
        return seats

    def python_bits(self, learner: int) -> int:
        bits = 0
        for s, p in enumerate(self.by_seat(learner)):
            if s != learner and p.kind != "compiled":
                bits |= 1 << s
        return bits

    def compiled_by_seat(self, learner: int) -> list:
        return [p if p.kind == "compiled" else self.placeholder for p in self.by_seat(learner)]


class HsimEnv(gymnasium.Env):
    """A Gymnasium environment: the learner at one seat of hsim's table, the others played
    by hsim strategies between its steps.

    rules: :class:`Rules` or its string (default ``"classic"``). opponents: one strategy
    spec per other seat, clockwise from the learner's left, or one spec for all
    (``"heuristic"``); compiled ones play inside the compiled step, others (OpenSpiel
    bots, ``engine:`` programs, plain-Python classes) from Python. seat: the learner's
    seat, or ``"rotate"`` (seat 0 first, one on with each episode). mode: ``"deal"`` or
    ``"game"``; reward: ``"deal"`` or ``"trick"`` (docs/rl.md). oracle: put every seat's
    hand in ``info["hidden"]`` (int8[4, 52]) for oracle-guided training; off by default.
    illegal: what a refused action does, ``"penalty"`` (paid ``illegal_reward``, asked
    again) or ``"raise"``.

    ``reset(seed=S)`` starts run seed S at game 0; ``reset()`` without a seed goes on
    with the next deal (mode "deal") or game. Game G of seed S is ``hsim replay --seed S
    --game G`` with the same players.

    :raises ValueError: an unknown mode, reward, seat or number of opponents.
    :raises hsim.errors.StrategyError: an opponent spec that does not load or does not
        play these rules.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        rules: Rules | str = "classic",
        opponents: list[str] | str = "random",
        seat: int | str = 0,
        mode: str = "deal",
        reward: str = "deal",
        oracle: bool = False,
        render_mode: str | None = None,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
    ) -> None:
        self.illegal_reward = check_settings(
            mode, reward, illegal, oracle, illegal_reward, render_mode
        )
        self.rules = as_rules(rules)
        self.seating = _Seating(self.rules, opponents, seat)
        self.oracle = bool(oracle)
        self.illegal = illegal
        self.render_mode = render_mode
        self.tables = Tables(
            self.rules,
            self.seating.compiled_by_seat(self.seating.learner),
            learner=self.seating.learner,
            mode=mode,
            reward=reward,
        )
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._driver: PythonDriver | None = None
        self._action = np.zeros(1, np.int64)
        self._python_seats = any(p.kind != "compiled" for p in self.seating.loaded)
        self._started = False
        self._last_game = -1
        self._episodes = 0

    # -- the Python opponents ---------------------------------------------------------
    def _python_driver(self) -> PythonDriver:
        """A Python driver over the table's arrays, for the opponents that are not
        compiled (its own random streams: only its plain-Python seats use them)."""
        state = GameState()
        state.public = self.tables.public[0]
        state.private = self.tables.private[0]
        state.hidden = self.tables.hidden[0]
        players = self.seating.by_seat(self.tables.table[0, T_LEARNER])
        return PythonDriver(self.rules, players, int(self.tables.run_seed), state=state)

    def _answer_python_seats(self) -> None:
        t = self.tables.table[0]
        while not t[T_OVER] and int(t[T_SEAT]) != int(t[T_LEARNER]):
            if self._driver is None:
                self._driver = self._python_driver()
            if int(t[T_GAME]) != self._last_game:
                self._last_game = int(t[T_GAME])
                self._driver.start_game(self._last_game, deal=False)
            status = int(t[T_STATUS])
            answer = self._driver.decide(status)
            for action in _actions_of(status, answer):
                if not self.tables.step(np.array([action], np.int64)):
                    self.tables.refused()
                    seat = int(t[T_SEAT])
                    spec = self.seating.by_seat(int(t[T_LEARNER]))[seat].spec
                    raise StrategyError(
                        f"strategy {spec!r} (seat {seat}) answered {answer}, which the rules "
                        f"do not allow now, in game {int(t[T_GAME])} of run seed "
                        f"{int(self.tables.run_seed)}"
                    )

    # -- gymnasium --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; return (observation, info). See the class docstring.

        :raises hsim.errors.ConfigError: a seed outside 0..2**64-1 (or not an integer).
        """
        if seed is not None:
            seed = check_seed(seed, "seed")
        super().reset(seed=seed)
        if seed is not None or not self._started:
            if seed is None:
                seed = int(self.np_random.integers(0, 2**_RANDOM_SEED_BITS))
            self.tables.start(seed)
            self._started = True
            self._episodes = 0
            self._last_game = -1
            self._driver = None  # its plain-Python seats draw from the new seed's streams
        learner = self.seating.learner
        if self.seating.rotate:
            learner = self._episodes % self.seating.n
        if self.seating.rotate or self._driver is None:
            self.tables.seat_players(self.seating.compiled_by_seat(learner))
            self._driver = None
            self._last_game = -1  # a new driver starts its plain-Python seats' game
        self.tables.set_outside(learner, self.seating.python_bits(learner))
        self._episodes += 1
        self.tables.reward[:] = 0.0
        self.tables.next_episode()
        self._answer_python_seats()
        return self._observation(), self._info()

    def step(self, action):
        """Play ``action`` for the learner; return (observation, reward, terminated,
        truncated, info). reward: what the learner was paid since its last step.

        An action the mask does not allow is refused: with ``illegal="penalty"`` the
        learner is paid ``illegal_reward``, ``info["illegal"]`` is True and the same
        decision is asked again; with ``illegal="raise"`` it raises.

        :raises IllegalActionError: a step after the episode ended (reset first), an
            action that is not an integer, or a refused action with ``illegal="raise"``.
        """
        state = self.tables.table[0].tolist()
        if not self._started or state[T_OVER] or state[T_SEAT] != state[T_LEARNER]:
            raise IllegalActionError(
                "the episode is over, not started, or was stopped by an opponent's error or "
                "an interrupt: call reset() first"
            )
        self._action[0] = _action(action)
        if not self.tables.step(self._action):
            self.tables.refused()
            if self.illegal == "raise":
                raise IllegalActionError(self.tables.refusal(0))
            info = self._info(self.tables.table[0].tolist())
            info["illegal"] = True
            return self._observation(), self.illegal_reward, False, False, info
        if self._python_seats:
            self._answer_python_seats()
        state = self.tables.table[0].tolist()
        reward = self.tables.reward[0]
        paid = float(reward[state[T_LEARNER]])
        reward[:MAX_SEATS] = 0.0  # paid: what accrues next is the next step's
        if self.render_mode == "human":
            self.render()
        return self._observation(), paid, bool(state[T_OVER]), False, self._info(state)

    def _observation(self) -> dict:
        t = self.tables
        if t.table[0, T_OVER]:  # the learner's view of the finished episode, nothing asked
            learner = int(t.table[0, T_LEARNER])
            obs = np.empty(OBS_LEN, np.float32)
            mask = np.empty(N_ACTIONS, np.int8)
            observe_entry(
                t.public[0], t.private[0, learner], t.rules_array, ST_GAME_OVER, 0,
                int(t.cfg[0]), t.scale, obs, mask,
            )  # fmt: skip
            return {"observation": obs, "action_mask": mask}
        return {"observation": t.obs[0].copy(), "action_mask": t.mask[0].copy()}

    def _info(self, state: list | None = None) -> dict:
        if state is None:
            state = self.tables.table[0].tolist()
        info = {
            "game": state[T_GAME],
            "deal": state[T_DEAL] - int(bool(state[T_OVER])),
            "seat": state[T_LEARNER],
        }
        if self.oracle:
            info["hidden"] = _hands(self.tables)
        return info

    def render(self) -> str | None:
        """Return the table as text (``render_mode="ansi"``) or print it (``"human"``)."""
        text = render_table(self.tables)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class HsimVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables stepped together by one compiled call (Gymnasium's vector API).

    Arguments as :class:`HsimEnv`, but every opponent must be a compiled strategy (they
    play inside the same compiled call), and ``seat="rotate"`` needs one opponent spec
    for all seats. Observations are ``{"observation": float32[num_envs, OBS_LEN],
    "action_mask": int8[num_envs, N_ACTIONS]}``; actions int64[num_envs]. Table ``i``
    plays games ``i, i + num_envs, ...`` of the run seed. Autoreset mode SAME_STEP: a
    table whose episode ended returns the next episode's first observation in the same
    step, the ended one's last in ``info["final_obs"]`` (rows where
    ``info["_final_obs"]``). The arrays returned are the environment's own, overwritten by
    the next step: copy what you keep.

    :raises ValueError: as :class:`HsimEnv`, or an opponent that is not compiled.
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1024,
        rules: Rules | str = "classic",
        opponents: list[str] | str = "random",
        seat: int | str = 0,
        mode: str = "deal",
        reward: str = "deal",
        oracle: bool = False,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
    ) -> None:
        self.illegal_reward = check_settings(mode, reward, illegal, oracle, illegal_reward)
        self.illegal = illegal
        self.rules = as_rules(rules)
        seating = _Seating(self.rules, opponents, seat)
        slow = [p.spec for p in seating.loaded if p.kind != "compiled"]
        if slow:
            raise ValueError(
                f"opponent {slow[0]!r} is not a compiled strategy: the vector environment "
                "plays its opponents inside one compiled call; use HsimEnv for it"
            )
        if seating.rotate and len(set(seating.specs)) > 1:
            raise ValueError(
                "seat='rotate' in the vector environment needs one opponent spec for all "
                "seats (every table seats them alike); give one spec, or a fixed seat"
            )
        self.tables = Tables(
            self.rules,
            # with rotate the one opponent sits everywhere: the learner's seat moves per table
            [seating.loaded[0]] * seating.n
            if seating.rotate
            else seating.compiled_by_seat(seating.learner),
            n_tables=num_envs,
            learner="rotate" if seating.rotate else seating.learner,
            mode=mode,
            reward=reward,
            autoreset=True,
        )
        self.num_envs = self.tables.n_tables
        self.oracle = bool(oracle)
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, N_ACTIONS))
        self._seeded = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start every table over at run seed ``seed`` (table ``i`` at game ``i``; None: a
        seed from the environment's generator); return (observations, info).

        :raises hsim.errors.ConfigError: a seed outside 0..2**64-1 (or not an integer).
        """
        if seed is not None:
            seed = check_seed(seed, "seed")
        if seed is None:
            if not self._seeded:
                self._np_random, _ = gymnasium.utils.seeding.np_random(None)
            seed = int(self.np_random.integers(0, 2**_RANDOM_SEED_BITS))
        else:
            self._np_random, _ = gymnasium.utils.seeding.np_random(int(seed) % 2**63)
        self._seeded = True
        self.tables.reset(seed)
        return self._observations(), self._infos(False)

    def step(self, actions):
        """Apply one action per table; return (observations, rewards float64[num_envs],
        terminations bool[num_envs], truncations (all False), info).

        A refused action (one the table's mask does not allow) leaves that table at its
        decision: ``illegal="penalty"`` pays it ``illegal_reward`` and sets
        ``info["illegal"][i]``; ``illegal="raise"`` raises after the step.

        :raises IllegalActionError: with ``illegal="raise"``, naming the table and its
            allowed actions.
        """
        if not self._seeded:
            raise IllegalActionError("call reset() before the first step")
        ok = self.tables.step(_actions(actions, self.num_envs))
        rewards = self.tables.reward[:, R_STEP].copy()
        ended = self.tables.table[:, T_ENDED].astype(bool)
        info = self._infos(True, ended)
        if not ok:
            bad = self.tables.refused()
            if self.illegal == "raise":
                raise IllegalActionError(self.tables.refusal(int(bad[0])))
            rewards[bad] = self.illegal_reward
            info["illegal"] = np.zeros(self.num_envs, bool)
            info["illegal"][bad] = True
        return self._observations(), rewards, ended, np.zeros(self.num_envs, bool), info

    def _observations(self) -> dict:
        return {"observation": self.tables.obs, "action_mask": self.tables.mask}

    def _infos(self, stepped: bool, ended=None) -> dict:
        t = self.tables.table
        info = {
            "game": t[:, T_GAME].copy(),
            "deal": t[:, T_DEAL].copy(),
            "seat": t[:, T_LEARNER].copy(),
        }
        if stepped and ended.any():
            # the ended episodes' last observations, shaped as observations (nothing asked)
            info["final_obs"] = {
                "observation": self.tables.final_obs,
                "action_mask": np.zeros_like(self.tables.mask),
            }
            info["_final_obs"] = ended
        if self.oracle:
            info["hidden"] = hands_of(self.tables)
        return info


def make_vector(num_envs: int = 1, **kwargs) -> HsimVectorEnv:
    """Return an :class:`HsimVectorEnv` of ``num_envs`` tables: the vector entry point of
    the Gymnasium ids (``gymnasium.make_vec("hsim/Hearts-v0", num_envs=N)``)."""
    kwargs.pop("render_mode", None)  # make_vec passes it; the vector env renders nothing
    return HsimVectorEnv(num_envs=num_envs, **kwargs)


def _action(action) -> int:
    """Return an action as an int; refuse what is not an integer (``IllegalActionError``)."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action) if -(2**63) <= int(action) < 2**63 else -1
    raise IllegalActionError(f"an action is an int 0..{N_ACTIONS - 1}, not {action!r}")


def _actions(actions, n: int) -> np.ndarray:
    """Return one action per table as int64[n]; an integer too large for int64 becomes -1
    (refused like any action outside the mask).

    :raises IllegalActionError: not ``n`` integers (floats, strings and bools are refused,
        never rounded or cast).
    """
    a = np.asarray(actions)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be {n} integers 0..{N_ACTIONS - 1} (one per table, shape ({n},)), "
            f"not an array of shape {a.shape} and dtype {a.dtype}"
        )
    if a.dtype.kind == "u":
        a = np.where(a > np.iinfo(np.int64).max, np.uint64(N_ACTIONS), a)
    return np.ascontiguousarray(a, dtype=np.int64)


def _actions_of(status: int, answer: int) -> list[int]:
    """Return an hsim strategy's answer to ``status`` as environment actions (a pass mask
    as its three cards)."""
    if status == ST_NEED_PASS:
        if not 0 <= answer < 1 << 52 or answer.bit_count() != 3:
            return [-1]  # refused as a whole: never three cards of it and a fourth
        return [c for c in range(52) if (answer >> c) & 1]
    if status == ST_NEED_MOON:
        return [MOON_ACTION + answer if 0 <= answer <= 2 else -1]
    if status == ST_NEED_TRUMP:
        return [TRUMP_ACTION + answer if 0 <= answer <= 4 else -1]
    return [answer]


__all__ = [
    "HsimEnv",
    "HsimVectorEnv",
    "IllegalActionError",
    "MODES",
    "REWARDS",
    "as_rules",
    "observation_space",
    "render_table",
    "ILLEGAL",
    "check_settings",
    "hands_of",
    "make_vector",
]
