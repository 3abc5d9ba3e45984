"""Tables for learning agents: N games stepped by one compiled call, over the engine's kernels.

A *table* is one game in progress (its engine state arrays, :mod:`hsim.engine.layout`).
Some seats of a table are *outside* (a learner, or any player the caller answers for):
the compiled :func:`drive` plays every other seat with its compiled strategy, exactly as
``hsim tournament`` does, and stops at the next decision of an outside seat. Rewards,
episode ends and the next observation come back in numpy arrays. The Gymnasium and
PettingZoo environments (:mod:`hsim.bridges.rl.envs`) are thin Python over this.

Episodes: ``mode="deal"`` ends an episode with each deal, ``mode="game"`` with the game
(the end score; Kierki: its last deal). Either way a table plays the games of its run in
order, ``hsim tournament``'s games: table ``i`` of ``n`` plays games ``i``, ``i + n``,
``i + 2n`` ... of run seed ``seed``, so any game is ``hsim replay --seed SEED --game G``.

Rewards are higher-is-better for every game: in Hearts minus the deal score (points, with
the moon and the bonuses applied, docs/rules.md A2), in Kierki the deal's signed points
(B2-B5). ``reward="deal"`` pays a seat its deal's reward when the deal ends;
``reward="trick"`` pays the points of each trick as it is taken (minus in Hearts) and, at
the deal's end, the difference between the deal's reward and what the tricks paid (the
moon, the bonuses), so a deal pays the same total either way.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from hsim.bridges.rl.tensor import (
    MOON_ACTION,
    N_ACTIONS,
    N_CARDS,
    OBS_LEN,
    TRUMP_ACTION,
    action_name,
    allowed,
    encode,
    rules_scale,
    write_mask,
)
from hsim.engine.bits import popcount
from hsim.engine.hearts import legal_plays as hearts_legal
from hsim.engine.layout import (
    D_DEAL_SCORE,
    DEAL_COLS,
    GAME_COLS,
    H_DEAL_ROWS,
    H_DECIDER,
    H_GAME_ROWS,
    H_PHASE,
    HIDDEN_LEN,
    MAX_SEATS,
    P_N_SEATS,
    P_POINTS,
    PH_DEAL_START,
    PH_GAME_OVER,
    PRIVATE_LEN,
    PUBLIC_LEN,
    ST_GAME_OVER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
    ST_OK,
    V_HAND,
)
from hsim.engine.native import call_choice_fn, call_play_fn, native_address, native_enabled
from hsim.engine.rng import seed_to_u64
from hsim.engine.signatures import MOON_SIG, PASS_SIG, PLAY_SIG, TRUMP_SIG
from hsim.errors import StrategyError
from hsim.play.hearts_game import new_game, next_decision, submit_moon, submit_pass, submit_play
from hsim.play.kierki_game import (
    kierki_legal,
    new_kierki_game,
    next_kierki_decision,
    submit_kierki_play,
    submit_trump,
)
from hsim.play.seats import (
    BY_PROGRAM,
    C_MOON,
    C_PASS,
    C_PLAY,
    C_TRUMP,
    builtin_moon,
    builtin_pass,
    builtin_play,
    builtin_trump,
    seat_codes,
)

# cfg: one int64 vector of settings shared by every table.
C_KIERKI = 0  # 1 under Kierki rules
C_GAME_MODE = 1  # 1: an episode is a game; 0: a deal
C_TRICK_REWARD = 2  # 1: reward="trick"
C_AUTORESET = 3  # 1: a table whose episode ended starts the next one in the same call
C_STRIDE = 4  # game index step between a table's games (the number of tables)
C_ROTATE = 5  # 1: the learner's seat moves one seat on with each episode
CFG_LEN = 8

# table: one int64 row of bookkeeping per table.
T_GAME = 0  # the game being played
T_NEXT_GAME = 1  # the game a new one starts at
T_STATUS = 2  # ST_NEED_* of the outside seat asked now; ST_GAME_OVER once the episode ended
T_SEAT = 3  # that seat
T_PICKED = 4  # the cards it chose so far for its pass
T_OUTSIDE = 5  # bit per seat: the seats whose decisions drive() returns to the caller
T_OVER = 6  # 1 once the episode ended (and was not yet restarted)
T_EPISODES = 7  # episodes started
T_LEARNER = 8  # the learner's seat this episode (vector tables), -1 none
T_ERROR = 9  # what went wrong: 0 none, 1 an action not allowed, 2 an opponent's answer
T_ERROR_VALUE = 10  # the action or answer refused
T_DEAL = 11  # the deal being played, 0-based within the game
T_SNAP = 12  # + s: seat s's points when last paid (reward="trick"), MAX_SEATS slots
T_ENDED = T_SNAP + MAX_SEATS  # C_AUTORESET: 1 when this step ended an episode (and the next began)
TABLE_LEN = 20

ERR_ACTION = 1
ERR_OPPONENT = 2

# addresses: int64[MAX_SEATS, N_DECISIONS], per seat the address of each decision that is
# not built in (hsim.engine.native.native_address), 0 for a built-in one.
F_PASS, F_PLAY, F_MOON, F_TRUMP = range(4)
N_DECISIONS = 4

# how drive() is asked to work
DRIVE_STEP = 0  # act for the outside seat asked now, then play on
DRIVE_RESET = 1  # start a new episode at every table

# rewards: float64[N, REWARD_LEN]: per seat what it was paid since it was last cleared,
# then (at R_GIVEN + s) what this deal's tricks paid it so far, then (R_STEP, with
# C_AUTORESET) what the learner was paid by this step, its episode's end included.
R_GIVEN = MAX_SEATS
R_STEP = 2 * MAX_SEATS
REWARD_LEN = 2 * MAX_SEATS + 1


@njit(cache=True, inline="always")
def _sign(cfg) -> float:
    return 1.0 if cfg[C_KIERKI] else -1.0


@njit(cache=True, inline="always")
def _pay_points(cfg, public, table, reward) -> None:
    """Pay each seat the points it took since it was last paid (reward="trick")."""
    for s in range(public[P_N_SEATS]):
        delta = public[P_POINTS + s] - table[T_SNAP + s]
        if delta != 0:
            paid = _sign(cfg) * delta
            reward[s] += paid
            reward[R_GIVEN + s] += paid
            table[T_SNAP + s] = public[P_POINTS + s]


@njit(cache=True, inline="always")
def _after_answer(cfg, public, hidden, table, reward, deal_out) -> bool:
    """Pay what an answer just accepted earned; return True when it ended the episode."""
    if cfg[C_TRICK_REWARD]:
        _pay_points(cfg, public, table, reward)
    phase = hidden[H_PHASE]
    if phase != PH_DEAL_START and phase != PH_GAME_OVER:
        return False
    # The deal is over: its rows are deal_out[0 : n] (the counters are reset after each).
    for s in range(public[P_N_SEATS]):
        total = _sign(cfg) * deal_out[s, D_DEAL_SCORE]
        reward[s] += total - reward[R_GIVEN + s]
        reward[R_GIVEN + s] = 0.0
        table[T_SNAP + s] = 0
    hidden[H_DEAL_ROWS] = 0
    hidden[H_GAME_ROWS] = 0
    table[T_DEAL] += 1
    return phase == PH_GAME_OVER or not cfg[C_GAME_MODE]


@njit(cache=True, inline="always")
def _answer(cfg, rules, public, private, hidden, deal_out, game_out, status, answer):
    """Give the engine an answer to decision ``status``; return its ST_* result."""
    if status == ST_NEED_PLAY:
        if cfg[C_KIERKI]:
            return submit_kierki_play(public, private, hidden, rules, answer, deal_out, game_out)
        return submit_play(public, private, hidden, rules, answer, deal_out, game_out)
    if status == ST_NEED_PASS:
        return submit_pass(public, private, hidden, answer)
    if status == ST_NEED_MOON:
        return submit_moon(public, private, hidden, rules, answer, deal_out, game_out)
    return submit_trump(public, private, hidden, rules, answer, deal_out, game_out)


@njit(cache=True)
def _start_episode(run_seed, cfg, rules, public, private, hidden, rngs, table, reward) -> None:
    """Start a table's next episode: the next deal of its game, or its next game."""
    fresh = table[T_EPISODES] == 0 or cfg[C_GAME_MODE] or hidden[H_PHASE] == PH_GAME_OVER
    if fresh:
        game = table[T_NEXT_GAME]
        if cfg[C_KIERKI]:
            new_kierki_game(public, private, hidden, rngs, rules, run_seed, game)
        else:
            new_game(public, private, hidden, rngs, rules, run_seed, game)
        hidden[H_DEAL_ROWS] = 0
        hidden[H_GAME_ROWS] = 0
        table[T_GAME] = game
        table[T_NEXT_GAME] = game + cfg[C_STRIDE]
        table[T_DEAL] = 0
    n = public[P_N_SEATS]
    if table[T_LEARNER] >= 0 and cfg[C_ROTATE] and table[T_EPISODES] > 0:
        old = table[T_LEARNER]
        table[T_LEARNER] = (old + 1) % n
        table[T_OUTSIDE] = (table[T_OUTSIDE] & ~(1 << old)) | (1 << table[T_LEARNER])
    for s in range(MAX_SEATS):
        reward[R_GIVEN + s] = 0.0
        table[T_SNAP + s] = 0
    table[T_EPISODES] += 1
    table[T_OVER] = 0
    table[T_PICKED] = 0


@njit(cache=True, inline="always")
def _inside(codes, addresses, st, legal, public, private, rng, params) -> int:
    """Return an inside seat's answer to decision ``st``: a built-in's (codes, as in the
    tournament loops), else its compiled decision's at its address in ``addresses``."""
    if st == ST_NEED_PLAY:
        if codes[C_PLAY] != BY_PROGRAM:
            return builtin_play(codes, public, private, legal, rng, params)
        return call_play_fn(addresses[F_PLAY], public, private, legal, rng, params)
    if st == ST_NEED_PASS:
        if codes[C_PASS] != BY_PROGRAM:
            return builtin_pass(codes, public, private, rng, params)
        return call_choice_fn(addresses[F_PASS], public, private, rng, params)
    if st == ST_NEED_MOON:
        if codes[C_MOON] != BY_PROGRAM:
            return builtin_moon(codes, public, private, rng, params)
        return call_choice_fn(addresses[F_MOON], public, private, rng, params)
    if codes[C_TRUMP] != BY_PROGRAM:
        return builtin_trump(codes, public, private, rng, params)
    return call_choice_fn(addresses[F_TRUMP], public, private, rng, params)


@njit(cache=True)
def _play_on(
    cfg, rules, codes, addresses, params,
    public, private, hidden, rngs, deal_out, game_out, table, reward,
) -> None:  # fmt: skip
    """Play the inside seats until an outside seat must decide or the episode ends.

    Sets table[T_STATUS] and table[T_SEAT] to the decision asked (ST_GAME_OVER and
    table[T_OVER] at the episode's end), or table[T_ERROR] to ERR_OPPONENT when an inside
    seat answered what the engine refused.
    """
    while True:
        if cfg[C_KIERKI]:
            st = next_kierki_decision(public, private, hidden, rngs, rules)
        else:
            st = next_decision(public, private, hidden, rngs, rules)
        if st == ST_GAME_OVER:  # only reached when the last deal's end was not seen
            table[T_OVER] = 1
            table[T_STATUS] = ST_GAME_OVER
            return
        s = hidden[H_DECIDER]
        if (table[T_OUTSIDE] >> s) & 1:
            table[T_STATUS] = st
            table[T_SEAT] = s
            return
        legal = 0
        if st == ST_NEED_PLAY:
            if cfg[C_KIERKI]:
                legal = kierki_legal(public, rules, private[s, V_HAND])
            else:
                legal = hearts_legal(public, rules, private[s, V_HAND])
        answer = _inside(
            codes[s], addresses[s], st, legal, public, private[s], rngs[1 + s], params[s]
        )
        if _answer(cfg, rules, public, private, hidden, deal_out, game_out, st, answer) != ST_OK:
            table[T_ERROR] = ERR_OPPONENT
            table[T_ERROR_VALUE] = answer
            table[T_SEAT] = s
            return
        if _after_answer(cfg, public, hidden, table, reward, deal_out):
            table[T_OVER] = 1
            table[T_STATUS] = ST_GAME_OVER
            return


@njit(cache=True)
def _act(cfg, rules, public, private, hidden, deal_out, game_out, table, reward, action) -> bool:
    """Apply the outside seat's ``action``; return False (table[T_ERROR] set) if refused.

    A card of a pass is kept until the third; then the pass is made.
    """
    st = table[T_STATUS]
    s = table[T_SEAT]
    picked = table[T_PICKED]
    if not allowed(public, private[s], rules, st, picked, cfg[C_KIERKI], action):
        table[T_ERROR] = ERR_ACTION
        table[T_ERROR_VALUE] = action
        return False
    if st == ST_NEED_PASS:
        picked |= np.int64(1) << action
        if popcount(picked) < 3:
            table[T_PICKED] = picked
            return True
        table[T_PICKED] = 0
        answer = picked
    elif st == ST_NEED_MOON:
        answer = action - MOON_ACTION
    elif st == ST_NEED_TRUMP:
        answer = action - TRUMP_ACTION
    else:
        answer = action
    _answer(cfg, rules, public, private, hidden, deal_out, game_out, st, answer)
    if _after_answer(cfg, public, hidden, table, reward, deal_out):
        table[T_OVER] = 1
        table[T_STATUS] = ST_GAME_OVER
    return True


DRIVE_SIG = types.int64(
    types.uint64,  # run_seed
    types.int64,  # how: DRIVE_STEP or DRIVE_RESET
    types.int64[::1],  # actions, one per table (DRIVE_STEP)
    types.int64[::1],  # cfg
    types.int64[::1],  # rules
    types.float32[::1],  # rules_scale
    types.int64[:, ::1],  # codes
    types.int64[:, ::1],  # addresses
    types.float64[:, ::1],  # params
    types.int64[:, ::1],  # public, per table
    types.int64[:, :, ::1],  # private
    types.int64[:, ::1],  # hidden
    types.uint64[:, :, ::1],  # rngs
    types.int64[:, :, ::1],  # deal_out
    types.int64[:, :, ::1],  # game_out
    types.int64[:, ::1],  # table
    types.float64[:, ::1],  # reward
    types.float32[:, ::1],  # obs: the observation of the seat asked next
    types.int8[:, ::1],  # mask
    types.float32[:, ::1],  # final_obs: a table's last observation before an autoreset
)


@njit(DRIVE_SIG, cache=True, _nrt=False)
def drive(
    run_seed, how, actions, cfg, rules, scale, codes, addresses, params, public, private,
    hidden, rngs, deal_out, game_out, table, reward, obs, mask, final_obs,
):  # fmt: skip
    """Step (or reset) every table; return the first table whose inside seat answered
    what the engine refused (the call stops there), -2 when some tables refused their
    action (table[i, T_ERROR] = ERR_ACTION; each stays at its decision, the others were
    stepped), else -1.

    DRIVE_STEP: table ``i`` applies ``actions[i]`` for its outside seat asked now (a
    table whose episode is over and not autoreset is skipped), then plays its inside
    seats until an outside seat must decide or the episode ends. With C_AUTORESET a table
    whose episode ended writes that seat's observation to ``final_obs[i]`` and starts its
    next episode. DRIVE_RESET: every table starts a new episode and plays on.
    ``obs[i]`` and ``mask[i]`` then hold the observation and action mask of the outside
    seat asked (``table[i, T_SEAT]``); rewards add up in ``reward[i, s]`` (the caller
    clears them).
    """
    n_tables = table.shape[0]
    refused = False
    for i in range(n_tables):
        t = table[i]
        t[T_ENDED] = 0
        if how == DRIVE_RESET:
            _start_episode(
                run_seed, cfg, rules, public[i], private[i], hidden[i], rngs[i], t, reward[i]
            )
        elif t[T_OVER]:
            continue
        elif not _act(
            cfg, rules, public[i], private[i], hidden[i], deal_out[i], game_out[i], t,
            reward[i], actions[i],
        ):  # fmt: skip
            refused = True  # this table stays at its decision; the others go on
            reward[i, R_STEP] = 0.0
            continue
        if not t[T_OVER]:
            _play_on(
                cfg, rules, codes, addresses, params, public[i],
                private[i], hidden[i], rngs[i], deal_out[i], game_out[i], t, reward[i],
            )  # fmt: skip
            if t[T_ERROR]:
                return i
        if cfg[C_AUTORESET] and how == DRIVE_STEP and t[T_LEARNER] >= 0:
            reward[i, R_STEP] = reward[i, t[T_LEARNER]]
            for s in range(MAX_SEATS):
                reward[i, s] = 0.0
        if t[T_OVER] and cfg[C_AUTORESET]:
            s = t[T_LEARNER] if t[T_LEARNER] >= 0 else t[T_SEAT]
            encode(public[i], private[i, s], ST_GAME_OVER, 0, scale, final_obs[i])
            t[T_ENDED] = 1
            _start_episode(
                run_seed, cfg, rules, public[i], private[i], hidden[i], rngs[i], t, reward[i]
            )
            _play_on(
                cfg, rules, codes, addresses, params, public[i],
                private[i], hidden[i], rngs[i], deal_out[i], game_out[i], t, reward[i],
            )  # fmt: skip
            if t[T_ERROR]:
                return i
        if not t[T_OVER]:
            s = t[T_SEAT]
            encode(public[i], private[i, s], t[T_STATUS], t[T_PICKED], scale, obs[i])
            write_mask(
                public[i], private[i, s], rules, t[T_STATUS], t[T_PICKED], cfg[C_KIERKI], mask[i]
            )
        else:
            for k in range(mask.shape[1]):
                mask[i, k] = 0
    return -2 if refused else -1  # fmt: skip


OBSERVE_SIG = types.void(
    types.int64[::1],  # public
    types.int64[::1],  # private row of the seat
    types.int64[::1],  # rules
    types.int64,  # status asked of that seat (anything else: none)
    types.int64,  # picked
    types.int64,  # kierki
    types.float32[::1],  # scale
    types.float32[::1],  # obs out
    types.int8[::1],  # mask out
)


@njit(OBSERVE_SIG, cache=True, _nrt=False)
def observe(public, private, rules, status, picked, kierki, scale, obs, mask):
    """Write one seat's observation and action mask (``status``: what it is asked now;
    any value other than an ``ST_NEED_*`` for a seat asked nothing)."""
    encode(public, private, status, picked, scale, obs)
    write_mask(public, private, rules, status, picked, kierki, mask)


class Tables:
    """``n`` tables of one rule set: the arrays :func:`drive` works on, and its calls.

    rules: a :class:`hsim.model.rules.Rules`. seats: one compiled
    :class:`hsim.strategy.contract.LoadedStrategy` per seat, playing the seats inside
    (an outside seat's entry is never asked). learner: the seat the caller answers for
    at every table, ``"rotate"`` (seat 0 first, one seat on with each episode), or None
    for ``outside`` seats fixed by bits (every seat: ``(1 << n_seats) - 1``). mode:
    ``"deal"`` or ``"game"``; reward: ``"deal"`` or ``"trick"``; autoreset: a table whose
    episode ended starts the next in the same step.

    :raises ValueError: a mode, reward or learner outside those values, or a seat that
        is not compiled.
    """

    def __init__(
        self,
        rules,
        seats,
        n_tables: int = 1,
        learner: int | str | None = 0,
        outside: int = 0,
        mode: str = "deal",
        reward: str = "deal",
        autoreset: bool = False,
    ) -> None:
        if mode not in ("deal", "game"):
            raise ValueError(f"mode must be 'deal' or 'game', not {mode!r}")
        if reward not in ("deal", "trick"):
            raise ValueError(f"reward must be 'deal' or 'trick', not {reward!r}")
        n = rules.players
        if learner is not None and learner != "rotate" and learner not in range(n):
            raise ValueError(f"learner must be a seat 0..{n - 1} or 'rotate', not {learner!r}")
        if isinstance(n_tables, bool) or not isinstance(n_tables, (int, np.integer)):
            raise ValueError(f"the number of tables must be an integer, not {n_tables!r}")
        if not 1 <= n_tables <= 1 << 20:
            raise ValueError(f"the number of tables must be 1..{1 << 20}, not {n_tables}")
        not_compiled = [p.spec for p in seats if p.kind != "compiled"]
        if not_compiled:
            raise ValueError(
                f"{', '.join(map(repr, not_compiled))} is not a compiled strategy: the seats "
                "played inside the environment's compiled step must be compiled "
                "(hsim strategies lists them)"
            )
        self.rules = rules
        self.n_seats = n
        self.n_tables = int(n_tables)
        self.seat_players(seats)
        self.cfg = np.zeros(CFG_LEN, np.int64)
        self.cfg[C_KIERKI] = int(rules.is_kierki)
        self.cfg[C_GAME_MODE] = int(mode == "game")
        self.cfg[C_TRICK_REWARD] = int(reward == "trick")
        self.cfg[C_AUTORESET] = int(autoreset)
        self.cfg[C_STRIDE] = self.n_tables
        self.cfg[C_ROTATE] = int(learner == "rotate")
        self.rules_array = rules.to_array()
        self.scale = rules_scale()
        k = self.n_tables
        self.public = np.zeros((k, PUBLIC_LEN), np.int64)
        self.private = np.zeros((k, MAX_SEATS, PRIVATE_LEN), np.int64)
        self.hidden = np.zeros((k, HIDDEN_LEN), np.int64)
        self.rngs = np.zeros((k, MAX_SEATS + 1, 1), np.uint64)
        self.deal_out = np.zeros((k, MAX_SEATS, DEAL_COLS), np.int64)
        self.game_out = np.zeros((k, MAX_SEATS, GAME_COLS), np.int64)
        self.table = np.zeros((k, TABLE_LEN), np.int64)
        self.reward = np.zeros((k, REWARD_LEN), np.float64)
        self.obs = np.zeros((k, OBS_LEN), np.float32)
        self.mask = np.zeros((k, N_ACTIONS), np.int8)
        self.final_obs = np.zeros((k, OBS_LEN), np.float32)
        self._first_learner = -1 if learner is None else (0 if learner == "rotate" else learner)
        self._outside = int(outside)
        self._no_actions = np.zeros(k, np.int64)
        self.run_seed = np.uint64(0)
        self._entry = None

    def seat_players(self, seats) -> None:
        """Seat ``seats`` (one compiled :class:`LoadedStrategy` per seat) at every table,
        from the next call on (an outside seat's entry is never asked).

        :raises ValueError: under ``NUMBA_DISABLE_JIT``, a strategy other than
            ``random``, ``lowcard`` and ``duck`` (its decisions are called at their
            compiled addresses).
        """
        full = list(seats) + list(seats[:1]) * (MAX_SEATS - len(seats))
        self.seats = list(seats)
        width = max(len(p.params) for p in full)
        self.params = np.zeros((MAX_SEATS, width), np.float64)
        for s, p in enumerate(full):
            self.params[s, : len(p.params)] = p.params
        self.codes = seat_codes([p.compiled for p in full])
        # A decision not built in is called at its address: function values passed on
        # every call cost ~140 us a call in look-ups (32 of them), more than a step.
        self.addresses = np.zeros((MAX_SEATS, N_DECISIONS), np.int64)
        for s, p in enumerate(full):
            b = p.compiled
            for column, code_column, fn, sig in (
                (F_PASS, C_PASS, b.pass_cards, PASS_SIG),
                (F_PLAY, C_PLAY, b.play, PLAY_SIG),
                (F_MOON, C_MOON, b.moon_choice, MOON_SIG),
                (F_TRUMP, C_TRUMP, b.trump_choice, TRUMP_SIG),
            ):
                if self.codes[s, code_column] != BY_PROGRAM:
                    continue
                if not native_enabled():
                    raise ValueError(
                        f"{p.spec!r}: under NUMBA_DISABLE_JIT the environments play only "
                        "random, lowcard and duck inside (other bots are called at their "
                        "compiled addresses); unset NUMBA_DISABLE_JIT to play it"
                    )
                self.addresses[s, column] = native_address(fn, sig)

    def _call(self, how: int, actions: np.ndarray) -> int:
        args = (
            self.run_seed, how, actions, self.cfg, self.rules_array, self.scale, self.codes,
            self.addresses, self.params,
            self.public, self.private, self.hidden, self.rngs, self.deal_out, self.game_out,
            self.table, self.reward, self.obs, self.mask, self.final_obs,
        )  # fmt: skip
        if self._entry is not None:
            return self._entry(*args)
        bad = drive(*args)  # the dispatcher checks every argument's type once
        overloads = getattr(drive, "overloads", None)  # none under NUMBA_DISABLE_JIT
        if overloads and len(overloads) == 1:
            self._entry = next(iter(overloads.values())).entry_point
        return bad

    def reset(self, seed: int) -> None:
        """Start every table over at run seed ``seed`` (0..2**64-1), table ``i`` at game
        ``i``, and play to the first outside decision (:meth:`start`, :meth:`next_episode`).

        :raises hsim.errors.ConfigError: a seed outside 0..2**64-1.
        :raises hsim.errors.StrategyError: an inside seat answered what the rules refuse.
        """
        self.start(seed)
        self.next_episode()

    def next_episode(self) -> None:
        """Start every table's next episode (the next deal of its game, or its next game)
        and play to the first outside decision.

        :raises hsim.errors.StrategyError: an inside seat answered what the rules refuse.
        """
        self._check(self._call(DRIVE_RESET, self._no_actions))

    def set_outside(self, learner: int, others: int = 0) -> None:
        """Make ``learner`` (a seat, or -1) and the seats of bit mask ``others`` the outside
        seats of every table from the next episode on."""
        self.table[:, T_LEARNER] = learner
        self.table[:, T_OUTSIDE] = others | (1 << learner if learner >= 0 else 0)

    def start(self, seed: int) -> None:
        """Set run seed ``seed`` and put every table before its first game (game ``i``
        for table ``i``), with nothing played.

        :raises hsim.errors.ConfigError: a seed outside 0..2**64-1.
        """
        self.run_seed = seed_to_u64(seed)
        self.table[:] = 0
        self.table[:, T_NEXT_GAME] = np.arange(self.n_tables)
        self.table[:, T_LEARNER] = self._first_learner
        self.table[:, T_OUTSIDE] = self._outside
        if self._first_learner >= 0:
            self.table[:, T_OUTSIDE] |= 1 << self._first_learner
        self.hidden[:] = 0
        self.reward[:] = 0.0

    def step(self, actions: np.ndarray) -> bool:
        """Apply ``actions`` (int64[n_tables]) for each table's outside seat asked now and
        play on (see :func:`drive`); return False when a table refused its action (a
        card not held or not legal now, a choice not asked: :meth:`refused` names them).

        :raises hsim.errors.StrategyError: an inside seat answered what the rules refuse.
        """
        bad = self._call(DRIVE_STEP, actions)
        self._check(bad)
        return bad != -2

    def refused(self) -> np.ndarray:
        """Return the tables whose action the last :meth:`step` refused (int64 indices),
        and clear their error: each is still at the decision it was asked."""
        bad = np.flatnonzero(self.table[:, T_ERROR] == ERR_ACTION)
        self.table[bad, T_ERROR] = 0
        return bad

    def refusal(self, i: int) -> str:
        """Return why table ``i``'s last action was refused, naming the allowed ones."""
        legal = [action_name(a) for a in np.flatnonzero(self.mask[i])]
        action = int(self.table[i, T_ERROR_VALUE])
        return (
            f"table {i}: action {action} ({action_name(action)}) is not allowed now; "
            f"allowed: {', '.join(legal) or 'none (the episode is over: reset)'}"
        )

    def _check(self, bad: int) -> None:
        if bad < 0:
            return
        t = self.table[bad]
        seat = int(t[T_SEAT])
        raise StrategyError(
            f"strategy {self.seats[seat].spec!r} (seat {seat}) gave an answer the rules "
            f"refuse ({int(t[T_ERROR_VALUE])}) in game {int(t[T_GAME])}"
        )


class IllegalActionError(ValueError):
    """An action the action mask does not allow (a card not held or not legal now, a
    moon or trump choice when none is asked)."""


def entry_of(dispatcher):
    """Return the compiled entry point of ``dispatcher`` (compiled with one explicit
    signature), which skips the dispatcher's typing of every argument (about 0.2 us an
    argument) on calls whose argument types are known to be right; the dispatcher itself
    under ``NUMBA_DISABLE_JIT``."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads or len(overloads) != 1:
        return dispatcher
    return next(iter(overloads.values())).entry_point


#: :func:`observe` without the dispatcher's argument typing; callers pass exactly its
#: signature's types (int64 arrays and ints, float32 and int8 arrays, all C-contiguous).
observe_entry = entry_of(observe)


__all__ = [
    "N_ACTIONS",
    "N_CARDS",
    "OBS_LEN",
    "drive",
    "observe",
    "rules_scale",
    "DEAL_COLS",
    "GAME_COLS",
    "HIDDEN_LEN",
    "PRIVATE_LEN",
    "PUBLIC_LEN",
]
