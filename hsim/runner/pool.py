"""Chunk jobs on an executor: a bounded window, lost workers replayed, stops that kill.

:func:`run_chunks` is the one place that drives a :class:`concurrent.futures.Executor`
(a local process pool from :func:`process_pool`, or any other executor, e.g. Dask's
``Client.get_executor()``): it keeps a bounded number of chunks in flight, pulling game
ranges lazily (so a run of 2**63 games starts at once), plays a chunk again when the
worker playing it was lost, rebuilds a broken pool, and on any stop (SIGINT, SIGTERM,
an error) kills the workers before it returns.

Workers of :func:`process_pool` die with their parent whatever kills it (SIGKILL
included): ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, and a thread that watches the
parent pid everywhere, so no worker (and so no resource tracker, which ends when the
last worker closes its pipe) outlives a killed run by more than about a second.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from multiprocessing import get_all_start_methods, get_context
from typing import Any

from hsim.runner.signals import deferred

DEFAULT_RETRIES = 2
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1
WATCH_PARENT_S = 0.5


class WorkerLost(RuntimeError):
    """A chunk's worker died more often than ``retries`` allows (a chunk that always
    runs out of memory, say); the message names the games.
    """


def die_with_parent(parent_pid: int) -> None:
    """Make this process exit when ``parent_pid`` is no longer its parent.

    On Linux the kernel sends SIGKILL at the parent's death (PR_SET_PDEATHSIG); a daemon
    thread checking ``os.getppid()`` every half second covers other systems and the
    moment before prctl took effect.
    """
    if sys.platform.startswith("linux"):
        try:
            # this process's own symbols, libc's among them: find_library("c") would run
            # `ldconfig -p` (~10 ms in every worker's start)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCH_PARENT_S)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="hsim-parent-watch", daemon=True).start()


def _init_worker(parent_pid: int, warm: tuple | None = None) -> None:
    # The parent handles SIGINT and SIGTERM (it stops the run and kills the workers).
    # The signals were blocked while this process was started, so a Ctrl-C during its
    # start-up waits here and is then dropped, instead of a traceback per worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(ValueError, OSError):
        # A forked worker inherits the parent's wakeup pipe (hsim.runner.signals): a
        # signal to this worker must not look like one to the parent.
        signal.set_wakeup_fd(-1)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    die_with_parent(parent_pid)
    if warm is not None:
        fn, args = warm
        # A failure is left for the first chunk to raise again, with its message.
        with contextlib.suppress(Exception):
            fn(*args)


@contextlib.contextmanager
def signals_blocked():
    """Block SIGINT and SIGTERM in this thread for the block (they wait, not lost):
    processes spawned meanwhile start with them blocked, and a stop is raised only at the
    block's end.
    """

    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        with deferred():  # a stop taken by another thread waits too (see deferred)
            yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def fork_is_safe() -> bool:
    """Return whether this process may fork its workers (instead of spawning them).

    A forked worker starts in milliseconds with everything this process has imported
    and compiled; a spawned one imports numba and pyarrow and loads the compiled code
    again, about 1 s of a core each (measured). Forking is only safe with no other
    threads that could hold a lock at the fork: so only on Linux, from the main thread,
    with every other thread one of hsim's own (the stop watcher, blocked in ``select``).
    The caller must also know that no player brought threads of its own (a plain-Python
    strategy may run a thread pool of a machine-learning library): fork only when every
    player is compiled. ``HSIM_START_METHOD`` set in the environment to anything but
    ``fork`` (``spawn``; also ``forkserver`` or a misspelling, on the safe side) never forks.
    """
    if os.environ.get("HSIM_START_METHOD", "").strip().lower() not in ("", "fork"):
        return False
    if not sys.platform.startswith("linux") or "fork" not in get_all_start_methods():
        return False
    here = threading.current_thread()
    if here is not threading.main_thread():
        return False
    return all(t is here or t.name.startswith("hsim-") for t in threading.enumerate())


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (if it does not run yet) with its stderr on
    /dev/null.

    Workers killed when a run is stopped leave the pool's semaphores to the tracker, which
    cleans them up at exit and warns about each on stderr: four lines of
    ``resource_tracker: ... leaked semaphore`` under hsim's own "interrupted" message,
    which read as a failure. The cleanup itself still runs. POSIX only (elsewhere there is
    no tracker); stderr is pointed away only while the tracker starts.
    """
    try:
        from multiprocessing import resource_tracker  # deferred: POSIX only
    except ImportError:
        return
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is None or getattr(tracker, "_fd", None) is not None:
        return  # none on this platform, or it runs already
    saved = os.dup(2)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
            resource_tracker.ensure_running()
        finally:
            os.dup2(saved, 2)
            os.close(devnull)
    finally:
        os.close(saved)


def process_pool(workers: int, warm: tuple | None = None, fork: bool = False):
    """Return a process pool (a ProcessPoolExecutor) of ``workers`` processes that ignore
    SIGINT and die with this process (see :func:`die_with_parent`).

    warm: ``(fn, args)`` each worker calls as it starts (loading the players and their
    compiled code, say; an exception is left for the first task to raise again); with it
    every worker is started now, so that they start in parallel with the caller's own
    work (a spawn pool otherwise starts a worker per task submitted). fork: fork the
    workers from this process when :func:`fork_is_safe` (else they are spawned).
    """
    method = "fork" if fork and fork_is_safe() else "spawn"
    quiet_resource_tracker()
    with signals_blocked():
        pool = ProcessPoolExecutor(
            workers,
            mp_context=get_context(method),
            initializer=_init_worker,
            initargs=(os.getpid(), warm),
        )
        if warm is not None or method == "fork":
            # Each submit to a pool without an idle worker spawns one; a fork pool forks
            # every worker at its first submit. Forked here, while this thread has the
            # signals blocked and only hsim's threads run (fork_is_safe): Python 3.12+
            # warns at any fork of a process with threads, here only the stop watcher.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", ".*multi-threaded.*fork", DeprecationWarning)
                for _ in range(workers):
                    pool.submit(os.getpid)
    return pool


def stop_executor(executor: Executor, kill: bool = False) -> None:
    """Shut ``executor`` down; with ``kill``, SIGKILL a process pool's workers first (a
    blocked strategy never returns) and wait up to 5 s for them to be gone.
    """
    processes = list((getattr(executor, "_processes", None) or {}).values())
    if kill:
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
    with contextlib.suppress(Exception):
        executor.shutdown(wait=not kill, cancel_futures=True)
    deadline = time.monotonic() + 5
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))


def run_chunks(
    make_executor: Callable[[], Executor],
    task: Callable[[int, int], Any],
    ranges: Iterable[tuple[int, int]],
    on_done: Callable[[tuple[int, int], Any], None],
    *,
    window: int,
    retries: int = DEFAULT_RETRIES,
    lost: tuple[type[BaseException], ...] = (BrokenExecutor,),
    stop: Callable[[Executor, bool], None] = stop_executor,
) -> None:
    """Play every ``(start, stop)`` of ``ranges`` as ``task(start, stop)`` on executors
    from ``make_executor``; call ``on_done(range, result)`` in this thread as each ends.

    window: chunks in flight at most (``ranges`` is read lazily, never listed).
    retries: times a chunk is played again after its worker was lost (an exception of
    ``lost``; a :class:`BrokenExecutor`, such as a process pool whose worker died, also
    replaces the executor and resubmits every unfinished chunk). stop: shuts an
    executor down, ``stop(executor, kill)``; the default kills a process pool's workers.

    :raises WorkerLost: a chunk's worker was lost more than ``retries`` times.
    :raises BaseException: whatever ``task`` or ``on_done`` raised, or a stop
        (:class:`hsim.play.games.StopRequested`) that arrived meanwhile; the workers are
        killed first, and no chunk is submitted after it.
    """
    source: Iterator[tuple[int, int]] = iter(ranges)
    again: deque[tuple[int, int]] = deque()
    failures: dict[tuple[int, int], int] = {}
    pending: dict[Future, tuple[int, int]] = {}
    executor = make_executor()
    idle_rebuilds = 0  # pools replaced since a chunk last finished

    def lose(item: tuple[int, int], exc: BaseException) -> None:
        """Count a loss of ``item``'s worker; queue it again, or raise past ``retries``."""
        failures[item] = failures.get(item, 0) + 1
        if failures[item] > retries:
            raise WorkerLost(
                f"games {item[0]}..{item[1] - 1}: the worker playing them was "
                f"lost {failures[item]} times ({type(exc).__name__}: {exc}); out of memory, "
                "or a strategy that ends its process (os._exit, a crash in C code: it does so "
                "again on every replay)? (--retries sets how often a chunk is replayed)"
            ) from None
        again.append(item)

    def fill() -> bool:
        """Submit up to the window; return True when the executor is broken."""
        while len(pending) < window:
            item = again.popleft() if again else next(source, None)
            if item is None:
                return False
            try:
                with signals_blocked():  # a worker spawned here starts with them blocked
                    future = executor.submit(task, *item)
            except BrokenExecutor:  # it broke since the last wait
                again.appendleft(item)
                return True
            pending[future] = item
        return False

    try:
        broken = fill()
        while pending or broken:
            if broken:  # every other future of a broken pool fails too: play them again
                idle_rebuilds += 1
                if idle_rebuilds > retries + 3:
                    raise WorkerLost(
                        f"the workers keep dying before finishing any chunk ({idle_rebuilds} "
                        "pools in a row); out of memory, or a strategy that ends its "
                        "process?"
                    )
                # A pool found broken at a submit fails every chunk in flight, as a
                # wait would have shown: each counts as lost.
                for item in pending.values():
                    lose(item, BrokenExecutor("a worker of the pool died"))
                pending.clear()
                stop(executor, True)
                executor = make_executor()
                broken = fill()
                continue
            finished, _ = wait(list(pending), timeout=WATCH_PARENT_S, return_when=FIRST_COMPLETED)
            for future in finished:
                item = pending.pop(future)
                try:
                    result = future.result()
                except lost as exc:
                    lose(item, exc)
                    broken |= isinstance(exc, BrokenExecutor)
                    continue
                idle_rebuilds = 0
                on_done(item, result)
            if not broken:
                broken = fill()
    except BaseException:
        stop(executor, True)
        raise
    stop(executor, False)


def play_ranges(
    task: Callable[[int, int], Any],
    ranges: Iterable[tuple[int, int]],
    on_done: Callable[[tuple[int, int], Any], None],
    *,
    workers: int,
    retries: int = DEFAULT_RETRIES,
    cluster=None,
    make_pool: Callable[[], Executor] | None = None,
) -> None:
    """Play every ``(start, stop)`` of ``ranges`` as ``task(start, stop)`` and call
    ``on_done(range, result)`` in this thread as each ends: the one way hsim plays the
    chunks of a run (tournament, resume, ladder, compare-rules, sprt).

    Where: on ``cluster`` (a :class:`hsim.runner.cluster.DaskCluster`: its executor, its
    window, and its lost-worker errors counted against ``retries``); else in this process,
    in order, with one worker; else on a process pool of ``workers`` (``make_pool``, or a
    spawned :func:`process_pool`), ``2 * workers`` chunks in flight. ``ranges`` is read
    lazily, so a caller stops early by ending it (sprt's verdict).

    :raises WorkerLost: see :func:`run_chunks`. :raises BaseException: whatever ``task``
        or ``on_done`` raised, or a stop.
    """
    if cluster is not None:
        run_chunks(
            cluster.executor,
            task,
            ranges,
            on_done,
            window=cluster.window(),
            retries=retries,
            lost=cluster.lost_errors(),
        )
    elif workers <= 1:
        for a, b in ranges:
            on_done((a, b), task(a, b))
    else:
        run_chunks(
            make_pool or (lambda: process_pool(workers)),
            task,
            ranges,
            on_done,
            window=2 * workers,
            retries=retries,
        )
