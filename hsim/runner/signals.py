"""How SIGINT and SIGTERM stop a run: promptly, recorded, whatever the main thread does.

:class:`StopSignals` turns the signals into :class:`hsim.errors.StopRequested` in the main
thread, which the runner catches to record ``interrupted``. Python runs signal handlers
only between bytecodes of the main thread, so a main thread inside a long compiled call
(a chunk of ``pimc`` games played in this process) or a blocking C call would not see
the stop for minutes. A watcher thread therefore also learns of every signal (through
``signal.set_wakeup_fd``); if the run has not finished stopping within ``GRACE_S``, it
runs the registered hard stop (record ``interrupted`` from the journal, print one line)
and ends the process with 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from hsim.errors import StopRequested, clear_signal, note_signal, stop_in

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
GRACE_S = 2.5
#: The installed :class:`StopSignals` of this process, innermost last (see :func:`deferred`).
_INSTALLED: list[StopSignals] = []


#: What a run stopped before it wrote a game says.
UNSTARTED = "interrupted before any game was written"


class StopSignals:
    """SIGINT and SIGTERM handlers that stop a run: they raise :class:`StopRequested` in
    the main thread, except inside :meth:`critical` sections (recording a finished
    chunk), where the stop waits for the section's end. After :meth:`quiet` a signal is
    only noted, so that the clean-up after a stop always finishes.

    hard_stop: called by the watcher thread when the main thread has not stopped within
    ``GRACE_S`` of a signal (it must record the stop; the process then exits). Its
    clean-up and the main thread's share :attr:`cleanup_lock`: whoever takes it first
    cleans up, the other does not. unstarted: the line printed when a hard stop comes
    before ``hard_stop`` is set (nothing played yet).
    """

    def __init__(self, unstarted: str = UNSTARTED) -> None:
        self.unstarted = unstarted
        self.signum: int | None = None
        self.hard_stop: Callable[[int], None] | None = None
        self.cleanup_lock = threading.Lock()
        self._depth = 0
        self._quiet = False
        self._old: dict[int, Any] = {}
        self._old_wakeup = -1
        self._pipe: tuple[int, int] | None = None
        self._done = threading.Event()

    def install(self) -> StopSignals:
        """Install the handlers (main thread only; elsewhere: nothing is installed). The
        outermost installation (a new run) forgets a signal noted before it
        (:func:`hsim.errors.clear_signal`), so that one run's stop does not turn the next
        run's strategy failures into stops."""
        if threading.current_thread() is not threading.main_thread():
            return self
        if not _INSTALLED:  # a new run: a stop noted by an earlier one is not its stop
            clear_signal()
        _INSTALLED.append(self)
        for signum in EXIT_CODES:
            self._old[signum] = signal.signal(signum, self._handle)
        r, w = os.pipe()
        os.set_blocking(w, False)
        self._pipe = (r, w)
        try:
            self._old_wakeup = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except (ValueError, OSError):
            self._old_wakeup = -1
        threading.Thread(target=self._watch, name="hsim-stop-watch", daemon=True).start()
        return self

    def restore(self) -> None:
        """Put the previous handlers back and end the watcher."""
        self._done.set()
        if self in _INSTALLED:
            _INSTALLED.remove(self)
        for signum, old in self._old.items():
            signal.signal(signum, old if old is not None else signal.SIG_DFL)
        self._old.clear()
        if self._pipe is not None:
            with contextlib.suppress(ValueError, OSError):
                signal.set_wakeup_fd(self._old_wakeup)
            with contextlib.suppress(OSError):
                os.write(self._pipe[1], b"\0")  # wakes the watcher, which closes the pipe
            self._pipe = None

    def stopped(self, exc: BaseException) -> bool:
        """Return whether ``exc`` ended the run because of a stop: these handlers saw a
        signal, or ``exc``'s chain holds a :class:`StopRequested`
        (:func:`hsim.errors.stop_in`). A stop raised in Python code that C code called
        (numba's callbacks) comes out as that code's own error, a ``SystemError`` with
        the stop as its cause or another error with the stop lost: still a stop."""
        return self.signum is not None or stop_in(exc) is not None

    def quiet(self) -> None:
        """From now on a signal is only noted (the clean-up of a stop must finish)."""
        self._quiet = True

    def _handle(self, signum, frame) -> None:

        if self.signum is None:
            self.signum = signum
            note_signal(signum)  # whatever a strategy raises from now on is the stop's
        if self._depth == 0 and not self._quiet:
            raise StopRequested(self.signum)

    _handle.notes_signals = True  # see hsim.errors.strategy_failure

    def _watch(self) -> None:
        r, w = self._pipe
        try:
            while not self._done.is_set():
                select.select([r], [], [])
                data = os.read(r, 64)
                signums = [b for b in data if b in EXIT_CODES]
                if not signums or self._done.is_set():
                    continue
                if self._done.wait(GRACE_S):
                    return
                self._hard_stop(signums[0])
        finally:
            for fd in (r, w):
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _hard_stop(self, signum: int) -> None:
        if not self.cleanup_lock.acquire(blocking=False):
            return  # the main thread is cleaning up: it will exit itself
        try:
            if self.hard_stop is not None:
                self.hard_stop(self.signum or signum)
            else:
                sys.stderr.write(self.unstarted + "\n")
        finally:
            sys.stderr.flush()
            os._exit(EXIT_CODES.get(self.signum or signum, 130))

    def critical(self, raise_at_exit: bool = True) -> _Critical:
        """A section no stop interrupts; the stop is raised at its end (or, without
        ``raise_at_exit``, left in :attr:`signum` for the caller to act on).
        """
        return _Critical(self, raise_at_exit)

    def check(self) -> None:
        """Raise the stop that arrived meanwhile, if any."""
        if self.signum is not None and not self._quiet:
            raise StopRequested(self.signum)


@contextlib.contextmanager
def sigterm_as_stop():
    """While the block runs, SIGTERM raises :class:`StopRequested` in the main thread
    where no run has its handlers installed (between the runs of a ladder or gauntlet),
    as Ctrl-C raises ``KeyboardInterrupt``: the command then says how to continue and
    releases its folder, where SIGTERM's default would end the process silently. A run's
    :class:`StopSignals` replace it while they are installed. Main thread only;
    elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise StopRequested(signum)

    old = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def deferred() -> contextlib.AbstractContextManager:
    """Return a section in which the installed stop handlers raise nothing; a stop that
    arrives meanwhile is raised at its end (no handlers installed: a no-op).

    Blocking the signals in the main thread is not enough for this: another thread (the
    watcher, a progress bar's monitor) can take the signal, and Python then runs the
    handler in the main thread at once, for example halfway through writing a new
    worker's start-up data into its pipe (the worker then prints a traceback).
    """
    return _INSTALLED[-1].critical() if _INSTALLED else contextlib.nullcontext()


class _Critical:
    def __init__(self, signals: StopSignals, raise_at_exit: bool) -> None:
        self.signals = signals
        self.raise_at_exit = raise_at_exit

    def __enter__(self) -> None:
        self.signals._depth += 1

    def __exit__(self, exc_type, exc, tb) -> None:
        s = self.signals
        s._depth -= 1
        if s._depth == 0 and exc_type is None and self.raise_at_exit:
            s.check()
