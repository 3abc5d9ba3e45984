"""Play a range of games: the compiled loop, or the plain-Python driver when a seat needs it.

Both paths run the same engine kernels (:mod:`hsim.play.hearts_game`) and give identical
records for the same (rules, strategies, run seed, game index); the Python driver also
runs compiled seats, calling their functions from Python.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time
from typing import NoReturn

import numpy as np

from hsim.engine import _numba
from hsim.engine.choices import longest_suit
from hsim.engine.hearts import legal_plays
from hsim.engine.kierki import n_deals
from hsim.engine.layout import (
    DEAL_COLS,
    EXTRA_STRIDE,
    GAME_COLS,
    H_DEAL_ROWS,
    H_DECIDER,
    H_ERROR_CODE,
    H_ERROR_VALUE,
    H_EXTRA,
    H_EXTRA_N,
    H_GAME,
    H_GAME_ROWS,
    H_PHASE,
    HIDDEN_LEN,
    MAX_EXTRA,
    MAX_SEATS,
    PH_DEAL_START,
    PH_GAME_OVER,
    PLAY_SLOTS,
    PRIVATE_LEN,
    PUBLIC_LEN,
    ST_ERR_MOON,
    ST_ERR_PASS,
    ST_ERR_TRUMP,
    ST_GAME_OVER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_TRUMP,
    ST_OK,
    V_HAND,
)
from hsim.engine.rng import PURPOSE_SEAT, seed_to_u64, stream_state
from hsim.errors import DecisionTimeoutError, EngineError, describe, strategy_failure
from hsim.model.cards import format_card, format_mask
from hsim.model.rules import Rules
from hsim.play.hearts_game import (
    ERROR_NAMES,
    can_play_in_loop,
    new_game,
    next_decision,
    play_games,
    play_games_with,
    submit_moon,
    submit_pass,
    submit_play,
)
from hsim.play.seats import seat_codes
from hsim.strategy import notice
from hsim.strategy.contract import Observation, StrategyError
from hsim.strategy.loader import LoadedStrategy

N_SEATS = MAX_SEATS  # the state arrays' seat rows; a game plays its rules' players
RESPONSIVE_CALL_S = 0.2


def kierki_game():
    """Return :mod:`hsim.play.kierki_game`, imported on first use: loading its compiled
    entry points takes ~15 ms, which a Hearts run need not pay. When its compiled code
    is not in the cache it is imported with this module instead, so that a cold cache
    compiles it with the rest of the engine, as the compile notice says
    (:data:`hsim.strategy.notice.ENGINE_SOURCES`).
    """
    # deferred: see the docstring
    from hsim.play import kierki_game as module

    return module


if notice.cold_sources([notice.KIERKI_GAME_SOURCE]):
    kierki_game()


class DecisionTimeout(BaseException):
    """A plain-Python strategy's decision took longer than the decision timeout.

    A BaseException, so that a strategy's own ``except Exception`` cannot swallow it; the
    driver turns it into a :class:`StrategyError` naming the strategy, seat, game, seed.
    """


class _DecisionTimer:
    """Times each plain-Python decision (``--decision-timeout``) and interrupts one that
    runs over by raising :class:`DecisionTimeout` in it.

    seconds: the limit, or None for none. In the main thread SIGALRM does it (its handler
    also interrupts a blocking call such as ``time.sleep``). In any other thread (a Dask
    worker's, say), where Python runs no signal handlers, a watch thread does it: it
    raises the exception in the deciding thread asynchronously
    (``PyThreadState_SetAsyncExc``), which takes effect at the decision's next Python
    step, so a decision stuck inside one blocking C call is interrupted only when that
    call returns. The watch looks every :data:`WATCH_STEP_S` seconds at most (a tenth of
    the limit when smaller), so a timeout fires up to that late.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds if seconds and seconds > 0 else None
        self.main = threading.current_thread() is threading.main_thread()
        self.active = False
        self.fired = False
        self._old = None
        self._lock = threading.Lock()
        self._deadline: float | None = None
        self._thread = 0  # the deciding thread's ident (watch mode)
        self._watch: threading.Thread | None = None
        self._stop_watch = threading.Event()  # the running watch thread's

    def install(self) -> None:
        if self.seconds and self.main:
            self._old = signal.signal(signal.SIGALRM, self._expired)

    def uninstall(self) -> None:
        if self.seconds and self.main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old or signal.SIG_DFL)
        self._stop_watch.set()  # the watch thread, if any, ends now

    def _expired(self, signum, frame) -> None:
        if self.active:
            self.fired = True
            raise DecisionTimeout()

    def _watching(self, stop: threading.Event) -> None:
        step = min(WATCH_STEP_S, self.seconds / 10)
        while not stop.wait(step):
            with self._lock:
                deadline = self._deadline
                if deadline is not None and time.monotonic() >= deadline:
                    self._deadline = None  # one timeout per decision
                    self.fired = True
                    _raise_in_thread(self._thread, DecisionTimeout)

    def __enter__(self) -> _DecisionTimer:
        if self.seconds:
            self.fired = False
            self.active = True
            if self.main:
                signal.setitimer(signal.ITIMER_REAL, self.seconds)
            else:
                self._thread = threading.get_ident()
                if self._watch is None or self._stop_watch.is_set() or not self._watch.is_alive():
                    self._stop_watch = threading.Event()  # a new watch, after an uninstall
                    self._watch = threading.Thread(
                        target=self._watching,
                        args=(self._stop_watch,),
                        name="hsim-decision-timeout",
                        daemon=True,
                    )
                    self._watch.start()
                self._deadline = time.monotonic() + self.seconds
        return self

    def __exit__(self, *exc) -> None:
        if self.seconds:
            self.active = False
            if self.main:
                signal.setitimer(signal.ITIMER_REAL, 0)
            else:
                with self._lock:
                    self._deadline = None
                    if self.fired:  # raised, or still pending: the driver raises it now
                        _raise_in_thread(self._thread, None)


#: The watch thread's longest wait between looks at a decision's deadline (seconds).
WATCH_STEP_S = 0.25


def _raise_in_thread(ident: int, exc_type) -> None:
    """Raise ``exc_type`` in the thread ``ident`` at its next Python step (None: cancel
    one not yet raised)."""
    exc = None if exc_type is None else ctypes.py_object(exc_type)  # None passes NULL
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), exc)


_NO_TIMER = _DecisionTimer(None)


class GameState:
    """The engine's state arrays for one game at a time (layout in hsim.engine.layout)."""

    def __init__(self) -> None:
        self.public = np.zeros(PUBLIC_LEN, np.int64)
        self.private = np.zeros((N_SEATS, PRIVATE_LEN), np.int64)
        self.hidden = np.zeros(HIDDEN_LEN, np.int64)
        self.rngs = np.zeros((N_SEATS + 1, 1), np.uint64)

    def read_only(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """Return read-only views of ``public`` and of each seat's ``private`` row."""
        public = self.public.view()
        public.flags.writeable = False
        rows = []
        for s in range(N_SEATS):
            row = self.private[s].view()
            row.flags.writeable = False
            rows.append(row)
        return public, rows


def _error(players, state, seed, what: str) -> StrategyError:
    seat = int(state.hidden[H_DECIDER])
    game = int(state.hidden[H_GAME])
    return StrategyError(
        f"strategy {players[seat].spec!r} (seat {seat}) {what} in game {game} of run seed "
        f"{seed}; the game is replayable from that seed and game index"
    )


def _cause(exc: BaseException) -> BaseException | None:
    # A SystemExit or KeyboardInterrupt chained as the cause would look like a stop to
    # code that walks causes; an ordinary exception is kept for the traceback.
    return exc if isinstance(exc, Exception) else None


def _invalid_answer(players, state, seed) -> StrategyError:
    code = int(state.hidden[H_ERROR_CODE])
    value = int(state.hidden[H_ERROR_VALUE])
    if code == ST_ERR_PASS:
        shown = format_mask(value) if 0 <= value < (1 << 52) else str(value)
        hand = format_mask(int(state.private[int(state.hidden[H_DECIDER]), V_HAND]))
        detail = f"passed [{shown}] from hand [{hand}]"
    elif code == ST_ERR_MOON:
        detail = f"answered moon choice {value}"
    elif code == ST_ERR_TRUMP:
        detail = f"answered trump choice {value}"
    else:
        shown = format_card(value) if 0 <= value < 52 else f"card number {value}"
        detail = f"played {shown}"
    return _error(players, state, seed, f"returned {ERROR_NAMES[code]}: {detail}")


def _buffer_shapes(
    n_games: int, rules: Rules, scorings=(), plays: bool = False
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Return the shapes of the (deal rows, game rows) buffers for ``n_games`` games."""
    # about 16 deals a game is generous for end_score 100; the loop refills if not.
    cols = DEAL_COLS + (PLAY_SLOTS if plays else 0)
    games = min(n_games, 4096)
    if rules.is_kierki:  # a fixed number of deals (docs/rules.md B1)
        most = n_deals(rules.players, int(rules.rebel))
        return (rules.players * most * games, cols), (rules.players * games, GAME_COLS)
    most = max([rules.max_deals] + [r.max_deals for r in scorings])
    per_game = 16 if rules.players <= 4 else 24  # fewer points a seat a deal with 5 or 6
    deal_rows = rules.players * (games * per_game + most)
    return (deal_rows, cols), (rules.players * (1 + len(scorings)) * games, GAME_COLS)


def _buffers(
    n_games: int, rules: Rules, scorings=(), plays: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    # Not zeroed: the engine writes every column of every row it counts, and rows past
    # its counters are never returned.
    deal_shape, game_shape = _buffer_shapes(n_games, rules, scorings, plays)
    return np.empty(deal_shape, np.int64), np.empty(game_shape, np.int64)


#: Buffers kept between :func:`play_range` calls with ``reuse`` (one process plays one
#: chunk at a time): a chunk then allocates (and page-faults) nothing but its results.
_KEPT: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _kept_buffers(n_games: int, rules: Rules, scorings=(), plays: bool = False):
    shapes = _buffer_shapes(n_games, rules, scorings, plays)
    if shapes not in _KEPT:
        _KEPT.clear()  # one shape at a time: a process plays one run
        _KEPT[shapes] = tuple(np.zeros(shape, np.int64) for shape in shapes)
    return _KEPT[shapes]


def set_scorings(state: GameState, scorings=()) -> None:
    """Give the engine other scorings to follow (``--score-also``; docs/rules.md A2, A3).

    scorings: full rule sets, each the base rules with scoring options changed; at most
    MAX_EXTRA. Their game rows carry scoring index k + 1.
    """
    if len(scorings) > MAX_EXTRA:
        raise ValueError(f"at most {MAX_EXTRA} other scorings, not {len(scorings)}")
    state.hidden[H_EXTRA_N] = len(scorings)
    for k, rules in enumerate(scorings):
        base = H_EXTRA + k * EXTRA_STRIDE
        vector = rules.to_array()
        state.hidden[base : base + len(vector)] = vector


def hearts_loop(bundles) -> tuple[object, object]:
    """Return the compiled Hearts loop for seats playing ``bundles`` (one
    :class:`hsim.strategy.contract.CompiledStrategy` per seat) and the bundle compiled into it.

    That is :func:`hsim.play.hearts_game.play_games_with` of the first bundle that can have a
    loop of its own (:func:`hsim.play.hearts_game.can_play_in_loop`: ``heuristic``), else
    ``play_games`` and None. Under ``NUMBA_DISABLE_JIT`` always play_games.
    """
    if not _numba.JIT_DISABLED:
        for bundle in bundles:
            if can_play_in_loop(bundle):
                return play_games_with(bundle), bundle
    return play_games, None


def play_range(
    rules: Rules,
    players: list[LoadedStrategy],
    seed: int,
    first: int,
    stop: int,
    scorings: tuple[Rules, ...] = (),
    decision_timeout: float | None = None,
    responsive: bool = False,
    plays: bool = False,
    reuse: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Play games ``first .. stop-1`` of run ``seed``; return (deal rows, game rows).

    Rows are int64 arrays with the D_* / G_* columns of :mod:`hsim.engine.layout`; deal
    rows sorted by game, deal, seat, game rows by game, scoring, seat. scorings: other
    scorings each game is also followed under (see :func:`set_scorings`).
    decision_timeout: seconds a plain-Python strategy may take per decision (None: no
    limit; compiled strategies are not timed: they cannot block in Python). responsive:
    return to Python about every ``RESPONSIVE_CALL_S`` seconds (a run played in its main
    process, so that SIGINT and SIGTERM act at once); the records do not change.
    plays: the deal rows also get the plays columns (int64[rows, DEAL_COLS +
    PLAY_SLOTS]: each deal's order of play, :mod:`hsim.engine.plays`). reuse: play into
    buffers kept for the next call (the runner's chunks); the rows returned may then be
    views of them, valid until the next ``reuse`` call in this process (without it they
    may be views of a buffer of their own, which nothing writes again).

    :raises StrategyError: a strategy raised, took longer than ``decision_timeout``, or
        gave a pass, card or moon choice the rules do not allow; the message names the
        strategy, seat, game and run seed.
    :raises hsim.errors.StopRequested: SIGINT or SIGTERM arrived (passed through, never
        converted).
    """
    if any(p.kind == "python" for p in players):
        return _play_range_python(
            rules, players, seed, first, stop, scorings, decision_timeout, plays
        )
    rules_arr = rules.to_array()
    seats = players + players[:1] * (N_SEATS - len(players))  # seats past the game's idle
    pass_fns = tuple(p.compiled.pass_cards for p in seats)
    play_fns = tuple(p.compiled.play for p in seats)
    moon_fns = tuple(p.compiled.moon_choice for p in seats)
    trump_fns = tuple(p.compiled.trump_choice for p in seats)
    width = max(len(p.params) for p in seats)
    params = np.zeros((N_SEATS, width), np.float64)
    for s, p in enumerate(seats):
        params[s, : len(p.params)] = p.params
    bundles = [p.compiled for p in seats]
    if rules.is_kierki:
        loop, inlined = kierki_game().play_kierki_games, None
        loop_fns = (play_fns, trump_fns)
    else:
        loop, inlined = hearts_loop(bundles)
        loop_fns = (pass_fns, play_fns, moon_fns)
    codes = seat_codes(bundles, inlined)
    call = _checked_entry(loop, loop_fns)
    state = GameState()
    set_scorings(state, scorings)
    if reuse:
        deal_out, game_out = _kept_buffers(stop - first, rules, scorings, plays)
    else:
        deal_out, game_out = _buffers(stop - first, rules, scorings, plays)
    deals, games = [], []
    run_seed = seed_to_u64(seed)
    game = first
    # responsive: play in calls of about RESPONSIVE_CALL_S, so that this thread gets back
    # to Python (and its signal handlers) often even with slow compiled strategies. The
    # first call's size comes from the last range's speed with these players.
    speed_key = (loop, loop_fns, rules, scorings)
    at_once = _AT_ONCE.get(speed_key, 1) if responsive else stop - first
    # Rows are appended to the buffers across calls (the loop appends from the counters);
    # they are taken out only when the buffers are full or the range is done, so that a
    # responsive run's many short calls cost no copies.
    state.hidden[H_DEAL_ROWS] = 0
    state.hidden[H_GAME_ROWS] = 0
    while game < stop:
        t0 = time.perf_counter()
        want = min(stop - game, at_once)
        try:
            done = call(
                run_seed,
                game,
                want,
                rules_arr,
                codes,
                *loop_fns,
                params,
                state.public,
                state.private,
                state.hidden,
                state.rngs,
                deal_out,
                game_out,
            )
        except BaseException as exc:  # a StopRequested is no strategy failure: re-raised
            if not strategy_failure(exc):
                raise
            raise _error(players, state, seed, describe(exc)) from _cause(exc)
        if state.hidden[H_ERROR_CODE]:
            raise _invalid_answer(players, state, seed)
        game += done
        if done < want or game >= stop:  # the buffers are full, or the range is played
            deal_rows = deal_out[: state.hidden[H_DEAL_ROWS]]
            game_rows = game_out[: state.hidden[H_GAME_ROWS]]
            if not _as_views(reuse, game >= stop, bool(deals), len(deal_rows), len(deal_out)):
                deal_rows, game_rows = deal_rows.copy(), game_rows.copy()
            deals.append(deal_rows)
            games.append(game_rows)
            state.hidden[H_DEAL_ROWS] = 0
            state.hidden[H_GAME_ROWS] = 0
        if responsive:
            per_game = max(time.perf_counter() - t0, 1e-6) / max(done, 1)
            at_once = max(1, min(1 << 20, int(RESPONSIVE_CALL_S / per_game)))
            _AT_ONCE[speed_key] = at_once
    return _concat(deals, deal_out.shape[1]), _concat(games, GAME_COLS)


def _as_views(reuse: bool, last: bool, earlier: bool, used: int, size: int) -> bool:
    """Return whether :func:`play_range` may hand out the rows just played as views of its
    buffers instead of copies: only when nothing will be played into them any more in
    this call (``last``). Kept buffers (``reuse``) are played into by the next call, which
    the caller was told, but views of them are only handed out whole (no ``earlier``
    parts to join: joining copies). A buffer of this call's own is never written again,
    so its rows are handed out unless they fill less than half of it (the rest of it would
    be held as long as they are).
    """
    if not last:
        return False
    if reuse:
        return not earlier
    return 2 * used >= size


#: Games per responsive call that last took about RESPONSIVE_CALL_S, per (loop, seat
#: functions, rules, scorings): a chunk's first call need not be a one-game probe.
_AT_ONCE: dict[tuple, int] = {}
#: (loop, seat functions) whose argument types one ordinary call has checked.
_CHECKED: set[tuple] = set()


def _checked_entry(loop, loop_fns: tuple):
    """Return what to call for ``loop`` (play_games or play_kierki_games) with ``loop_fns``.

    The first call with these seat functions goes through the dispatcher, which checks
    every argument's type against the loop's one explicit signature. Later calls go
    straight to the compiled entry point: the dispatcher's typing of the function tuples
    costs ~1 ms a call (measured), which a run of responsive calls paid hundreds of
    times. The other arguments are arrays this module makes, of fixed dtypes.
    """
    key = (loop, loop_fns)
    overloads = getattr(loop, "overloads", None)  # none under NUMBA_DISABLE_JIT
    if key not in _CHECKED or not overloads or len(overloads) != 1:

        def first(*args):
            done = loop(*args)
            _CHECKED.add(key)
            return done

        return first
    return next(iter(overloads.values())).entry_point


def _concat(parts: list[np.ndarray], cols: int) -> np.ndarray:
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros((0, cols), np.int64)


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _answer(value) -> int:
    """Return a strategy's answer as an int; refuse what is not an integer (2.9, "S", None)
    or does not fit the engine's int64 (2**70).

    :raises TypeError: the answer is not an int or numpy integer.
    :raises ValueError: the answer is outside int64.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = int(value)
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"answered {value}, which is outside int64 (a card is 0..51)")
        return value
    raise TypeError(f"answered {value!r} ({type(value).__name__}), not an int")


@contextlib.contextmanager
def _signals_kept():
    """Put SIGINT's and SIGTERM's handlers back as they were after the block (in the main
    thread, where handlers live): strategy code run inside cannot leave hsim unstoppable
    but by SIGKILL."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            if handler is not None and signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)


class _Seat:
    """One seat in the Python driver: a compiled bundle or a plain-Python player."""

    def __init__(self, loaded: LoadedStrategy, seat: int, state: GameState, rules: Rules):
        self.loaded = loaded
        self.seat = seat
        self.state = state
        self.player = None
        if loaded.kind == "python":
            try:
                with _signals_kept():  # a strategy that ignores Ctrl-C cannot make hsim do so
                    self.player = loaded.python_factory()
            except BaseException as exc:
                if not strategy_failure(exc):
                    raise
                what = describe(exc).removeprefix("raised ")
                raise StrategyError(
                    f"strategy {loaded.spec!r} (seat {seat}) could not be made: {what}"
                ) from _cause(exc)
        # A plain-Python seat sees copies, refreshed before each of its decisions and
        # compared after it: its observation can be written (numpy lets a holder set
        # ``writeable`` back), but never the engine's state, and a write is caught. An
        # outside engine's seat (hsim's own code, which only turns the observation into a
        # request line) reads the table's arrays through read-only views instead.
        self.guarded = self.player is not None and not callable(
            getattr(self.player, "start_engine", None)
        )
        if self.guarded:
            self._public = np.empty_like(state.public)
            self._private = np.empty_like(state.private[seat])
            public, private = self._public.view(), self._private.view()
        else:
            public, private = state.public.view(), state.private[seat].view()
        public.flags.writeable = private.flags.writeable = False
        self.obs = Observation(public, private, rules)
        self.rng: np.random.Generator | None = None

    def observe(self) -> None:
        """Refresh a plain-Python seat's observation from the table (before a decision)."""
        if self.guarded:
            np.copyto(self._public, self.state.public)
            np.copyto(self._private, self.state.private[self.seat])

    def observation_intact(self) -> bool:
        """Return whether a plain-Python seat left its observation as it was given (after
        a decision); compiled seats and engine seats are not checked here."""
        return not self.guarded or (
            np.array_equal(self._public, self.state.public)
            and np.array_equal(self._private, self.state.private[self.seat])
        )

    def new_game(self, seed_u64, game: int, rules: Rules, timer: _DecisionTimer) -> None:
        """Start ``game`` for a plain-Python seat: its stream, then its ``new_game`` hook,
        the only part ``timer`` times (hsim's own work, such as loading the compiled
        ``stream_state`` in a process's first game, is not the strategy's time)."""
        if self.player is not None:
            seat_seed = int(stream_state(seed_u64, game, PURPOSE_SEAT + self.seat))
            self.rng = np.random.Generator(np.random.PCG64(seat_seed))
            hook = getattr(self.player, "new_game", None)
            if hook is not None:
                with timer:
                    hook(self.seat, rules)

    def _compiled_args(self):
        st = self.state
        p = self.loaded
        return st.public, st.private[self.seat], st.rngs[1 + self.seat], p.params

    def pass_cards(self) -> int:
        if self.player is None:
            pub, priv, rng, params = self._compiled_args()
            return int(self.loaded.compiled.pass_cards(pub, priv, rng, params))
        return _answer(self.player.pass_cards(self.obs, self.rng))

    def play(self, legal: int) -> int:
        if self.player is None:
            pub, priv, rng, params = self._compiled_args()
            return int(self.loaded.compiled.play(pub, priv, legal, rng, params))
        return _answer(self.player.play(self.obs, legal, self.rng))

    def moon_choice(self) -> int:
        if self.player is None:
            pub, priv, rng, params = self._compiled_args()
            return int(self.loaded.compiled.moon_choice(pub, priv, rng, params))
        choose = getattr(self.player, "moon_choice", None)
        return 0 if choose is None else _answer(choose(self.obs, self.rng))

    def trump_choice(self) -> int:
        if self.player is None:
            pub, priv, rng, params = self._compiled_args()
            return int(self.loaded.compiled.trump_choice(pub, priv, rng, params))
        choose = getattr(self.player, "trump_choice", None)
        if choose is None:  # the compiled default: the longest suit seen
            return int(longest_suit(self.obs.hand))
        return _answer(choose(self.obs, self.rng))


class PythonDriver:
    """Plays games decision by decision from Python, for plain-Python and compiled seats.

    Each decision goes through :func:`next_decision` and the ``submit_*`` kernels, as in
    the compiled loop, so the games are identical. ``state`` may be given to continue
    from a set-up position (:class:`hsim.play.position.Position`).
    """

    def __init__(
        self,
        rules: Rules,
        players: list[LoadedStrategy],
        seed: int,
        state: GameState | None = None,
        scorings: tuple[Rules, ...] = (),
        decision_timeout: float | None = None,
        plays: bool = False,
    ) -> None:
        self.rules = rules
        self.timer = _DecisionTimer(decision_timeout)
        self.rules_array = rules.to_array()
        self.players = players
        self.seed = seed
        self.run_seed = seed_to_u64(seed)
        self.state = state or GameState()
        if state is None:
            set_scorings(self.state, scorings)
        self.seats = [_Seat(p, s, self.state, rules) for s, p in enumerate(players)]
        self.deal_out, self.game_out = _buffers(1, rules, scorings, plays)
        if rules.is_kierki:
            kierki = kierki_game()
            self._new_game, self._next = kierki.new_kierki_game, kierki.next_kierki_decision
            self._legal, self._submit_play = kierki.kierki_legal, kierki.submit_kierki_play
        else:
            self._new_game, self._next = new_game, next_decision
            self._legal, self._submit_play = legal_plays, submit_play

    def _args(self):
        st = self.state
        return st.public, st.private, st.hidden, st.rngs, self.rules_array

    def start_game(self, game: int, deal: bool = True) -> None:
        """Reset the seats' streams and players for ``game``; with ``deal``, also the
        engine state (False keeps a position set up by hand).
        """
        self.state.hidden[H_DEAL_ROWS] = 0
        self.state.hidden[H_GAME_ROWS] = 0
        if deal:
            self._new_game(*self._args(), self.run_seed, game)
        else:  # a position set up by hand: only the compiled seats' streams restart
            for s in range(N_SEATS):
                self.state.rngs[1 + s, 0] = stream_state(self.run_seed, game, PURPOSE_SEAT + s)
        for seat in self.seats:
            try:
                seat.new_game(self.run_seed, game, self.rules, self._timer(seat.seat))
                self._check_timer()
            except DecisionTimeout:
                self.state.hidden[H_DECIDER] = seat.seat
                self.state.hidden[H_GAME] = game
                raise self._timed_out() from None
            except BaseException as exc:
                if not strategy_failure(exc):
                    raise
                self.state.hidden[H_DECIDER] = seat.seat
                self.state.hidden[H_GAME] = game
                raise _error(self.players, self.state, self.seed, describe(exc)) from _cause(exc)

    def decide(self, status: int) -> int:
        """Return the answer of the seat to act (``H_DECIDER``) to decision ``status``
        (``ST_NEED_PASS``, ``ST_NEED_MOON``, ``ST_NEED_TRUMP``, else a play).

        :raises StrategyError: the strategy raised (any exception, ``sys.exit()``, or a
            ``KeyboardInterrupt`` of its own: :func:`hsim.errors.strategy_failure`),
            answered with something that is not an int64, or took longer than the
            decision timeout (:class:`DecisionTimeoutError`).
        """
        st = self.state
        s = int(st.hidden[H_DECIDER])
        self.seats[s].observe()
        try:
            with self._timer(s):
                if status == ST_NEED_PASS:
                    answer = self.seats[s].pass_cards()
                elif status == ST_NEED_MOON:
                    answer = self.seats[s].moon_choice()
                elif status == ST_NEED_TRUMP:
                    answer = self.seats[s].trump_choice()
                else:
                    hand = st.private[s, V_HAND]
                    legal = int(self._legal(st.public, self.rules_array, hand))
                    answer = self.seats[s].play(legal)
            self._check_timer()
        except DecisionTimeout:
            raise self._timed_out() from None
        except BaseException as exc:
            if not strategy_failure(exc):
                raise
            self._raise_strategy_error(exc)
        if not self.seats[s].observation_intact():
            raise _error(
                self.players,
                st,
                self.seed,
                "wrote to its observation (a strategy reads the table and may not change it)",
            )
        return answer

    def _raise_strategy_error(self, exc: BaseException) -> NoReturn:
        """Raise the strategy failure ``exc`` of the seat ``H_DECIDER`` in game ``H_GAME``
        as the error naming the game, seat and run seed: an :class:`EngineError` keeps its
        own message (what the engine did), any other becomes a StrategyError."""
        st = self.state
        if isinstance(exc, EngineError):
            raise EngineError(str(_error(self.players, st, self.seed, str(exc)))) from None
        raise _error(self.players, st, self.seed, describe(exc)) from _cause(exc)

    def next_status(self) -> int:
        """Move the game on to its next decision; return its ST_NEED_* status (the seat in
        ``state.hidden[H_DECIDER]``) or ST_GAME_OVER."""
        return int(self._next(*self._args()))

    def submit(self, status: int, answer: int) -> None:
        """Apply ``answer`` to the decision ``status`` through the engine's kernels.

        :raises StrategyError: the rules do not allow the answer.
        """
        st = self.state
        if status == ST_NEED_PASS:
            code = submit_pass(st.public, st.private, st.hidden, answer)
        else:
            if status == ST_NEED_MOON:
                submit = submit_moon
            elif status == ST_NEED_TRUMP:
                submit = kierki_game().submit_trump
            else:
                submit = self._submit_play
            code = submit(
                st.public,
                st.private,
                st.hidden,
                self.rules_array,
                answer,
                self.deal_out,
                self.game_out,
            )
        if code != ST_OK:
            raise _invalid_answer(self.players, st, self.seed)

    def _timer(self, seat: int) -> _DecisionTimer:
        """The decision timer for a plain-Python seat, a no-op for a compiled one."""
        return self.timer if self.seats[seat].player is not None else _NO_TIMER

    def _check_timer(self) -> None:
        # A strategy that catches BaseException swallowed the timeout: still a timeout.
        if self.timer.fired:
            raise DecisionTimeout()

    def _timed_out(self) -> StrategyError:
        self.timer.fired = False
        error = _error(
            self.players,
            self.state,
            self.seed,
            f"took longer than {self.timer.seconds:g} s to decide (--decision-timeout)",
        )
        return DecisionTimeoutError(str(error))

    def play_deal(self) -> bool:
        """Play until the current deal is scored; return True when that ended the game.

        :raises StrategyError: as :func:`play_range`.
        """
        st = self.state
        status = self.next_status()
        while status != ST_GAME_OVER:
            self.submit(status, self.decide(status))
            if st.hidden[H_PHASE] in (PH_DEAL_START, PH_GAME_OVER):
                return bool(st.hidden[H_PHASE] == PH_GAME_OVER)
            status = self.next_status()
        return True

    def play_game(self, game: int, on_deal_end=None) -> tuple[np.ndarray, np.ndarray]:
        """Play game ``game``; return its (deal rows, game rows).

        on_deal_end: called with this driver after each deal is scored, while the state
        still holds that deal's history (plays, tricks, passes, dealing order).
        """
        self.start_game(game)
        over = False
        while not over:
            over = self.play_deal()
            if on_deal_end is not None:
                on_deal_end(self)
        return self.rows()

    def engine_seats(self) -> list[int]:
        """Return the seats played by outside engines (``engine:CMD``): plain-Python
        players that ask their decisions as request lines
        (:class:`hsim.bridges.engine.strategies.EngineStrategy`)."""
        return [
            seat.seat
            for seat in self.seats
            if seat.player is not None and callable(getattr(seat.player, "start_engine", None))
        ]

    def start_engines(self, game: int) -> None:
        """Start the engines of :meth:`engine_seats` that are not running (their hello),
        as their first decision in ``game`` would.

        :raises EngineError: an engine could not start; the message names the seat, the
            game and the run seed, as a failure at that decision does.
        """
        st = self.state
        for s in self.engine_seats():
            player = self.seats[s].player
            try:
                player.new_game(s, self.rules)
                player.start_engine()
            except EngineError as exc:
                st.hidden[H_DECIDER] = s
                st.hidden[H_GAME] = game
                self._raise_strategy_error(exc)

    def pipelined(self) -> bool:
        """Return whether every plain-Python seat is an engine that is running and takes
        several requests at once (``"pipeline": true`` in its hello answer), so that
        games may be played interleaved (:func:`_play_pipelined`)."""
        engines = self.engine_seats()
        python = [seat for seat in self.seats if seat.player is not None]
        return (
            bool(engines)
            and len(engines) == len(python)
            and all(self.seats[s].player.pipelined for s in engines)
        )

    def decide_steps(self, status: int):
        """A generator doing :meth:`decide` for a seat whose engine is
        :meth:`pipelined`: it yields ``(player, line)``, the engine's request, and is
        sent the engine's answer (a dict) or thrown its failure (an EngineError); it
        returns the answer's value. Any other seat decides at once (:meth:`decide`).

        :raises StrategyError: as :meth:`decide`.
        """
        st = self.state
        s = int(st.hidden[H_DECIDER])
        seat = self.seats[s]
        player = seat.player
        if player is None or not getattr(player, "pipelined", False):
            return self.decide(status)
        # The request is built from the table's own arrays (read, never written): an
        # engine sees only the line, so no copy to guard is needed.
        try:
            legal = 0
            if status == ST_NEED_PASS:
                kind = "pass"
            elif status == ST_NEED_MOON:
                kind = "moon"
            elif status == ST_NEED_TRUMP:
                kind = "trump"
            else:
                kind = "play"
                legal = int(self._legal(st.public, self.rules_array, st.private[s, V_HAND]))
            line = player.request_at(kind, st.public, st.private[s], legal, seat.rng)
            said = yield player, line
            return player.value(kind, said)
        except GeneratorExit:
            raise
        except BaseException as exc:
            if not strategy_failure(exc):
                raise
            self._raise_strategy_error(exc)

    def game_steps(self, game: int):
        """A generator playing game ``game`` as :meth:`play_game` does, yielding at each
        engine request as :meth:`decide_steps`; it returns the game's (deal rows, game
        rows).

        :raises StrategyError: as :func:`play_range`.
        """
        self.start_game(game)
        st = self.state
        while True:
            status = self.next_status()
            if status == ST_GAME_OVER:
                break
            answer = yield from self.decide_steps(status)
            self.submit(status, answer)
            if st.hidden[H_PHASE] == PH_GAME_OVER:
                break
        return self.rows()

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Return copies of the deal and game rows written since the game started."""
        h = self.state.hidden
        return self.deal_out[: h[H_DEAL_ROWS]].copy(), self.game_out[: h[H_GAME_ROWS]].copy()


#: Games a process plays interleaved when its engines take several requests at once.
IN_FLIGHT = 16


def _play_range_python(
    rules, players, seed, first, stop, scorings=(), decision_timeout=None, plays=False
):
    driver = PythonDriver(
        rules, players, seed, scorings=scorings, decision_timeout=decision_timeout, plays=plays
    )
    if decision_timeout is None and stop - first > 1 and driver.engine_seats():
        driver.start_engines(first)
        if IN_FLIGHT > 1 and driver.pipelined():
            drivers = [driver] + [
                PythonDriver(rules, players, seed, scorings=scorings, plays=plays)
                for _ in range(min(IN_FLIGHT, stop - first) - 1)
            ]
            return _play_pipelined(drivers, first, stop)
    deals, games = [], []
    driver.timer.install()
    try:
        for game in range(first, stop):
            d, g = driver.play_game(game)
            deals.append(d)
            games.append(g)
    finally:
        driver.timer.uninstall()
    return _concat(deals, driver.deal_out.shape[1]), _concat(games, GAME_COLS)


def _play_pipelined(drivers: list[PythonDriver], first: int, stop: int):
    """Play games ``first .. stop-1`` interleaved, one game in flight per driver
    (:meth:`PythonDriver.game_steps`); return their rows in game order, as
    :func:`_play_range_python` would.

    Each pass sends every engine, in one write, the requests of all the games that wait
    on it (in game order), then reads its answers in that order: an engine's process
    wakes once for several decisions. Every game is a pure function of its index (each
    driver has its own state, seat streams and players), so the records do not depend on
    the interleaving; an error names the game whose decision failed.
    """
    done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    waiting: list[tuple[int, object, PythonDriver, object, bytes]] = []
    idle = list(reversed(drivers))
    owing: dict[object, int] = {}  # engine -> answers sent for and not yet read

    def advance(game, steps, driver, said=None, failure=None) -> None:
        try:
            player, line = steps.throw(failure) if failure else steps.send(said)
        except StopIteration as end:
            done[game] = end.value
            idle.append(driver)
            return
        waiting.append((game, steps, driver, player, line))

    game = first
    try:
        while game < stop or waiting:
            while idle and game < stop:
                driver = idle.pop()
                advance(game, driver.game_steps(game), driver)
                game += 1
            batch = sorted(waiting, key=lambda item: item[0])
            waiting.clear()
            by_engine: dict[object, list] = {}
            for item in batch:
                by_engine.setdefault(item[3].engine, []).append(item)
            for engine, items in by_engine.items():
                owing[engine] = len(items)
                try:
                    items[0][3].send(b"".join(item[4] for item in items))
                except EngineError as exc:  # the engine is stopped
                    owing[engine] = 0
                    g, steps, driver, _, _ = items[0]
                    advance(g, steps, driver, failure=exc)
            for engine, items in by_engine.items():
                for g, steps, driver, player, _ in items:
                    try:
                        said = player.receive()
                    except EngineError as exc:  # the engine is stopped
                        owing[engine] = 0
                        advance(g, steps, driver, failure=exc)
                    owing[engine] -= 1
                    advance(g, steps, driver, said)
    except BaseException:
        # An engine with answers not read would give them to the next chunk's requests.
        for engine, n in owing.items():
            if n:
                engine.stop()
        raise
    deal_cols = drivers[0].deal_out.shape[1]
    deals = [done[g][0] for g in range(first, stop)]
    games = [done[g][1] for g in range(first, stop)]
    return _concat(deals, deal_cols), _concat(games, GAME_COLS)
