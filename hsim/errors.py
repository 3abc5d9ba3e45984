"""hsim's error types, their exit codes, and how a strategy's failure is told from a stop.

Every error a user can cause derives from :class:`HsimError` and carries the exit code the
command line ends with: :data:`EXIT_USAGE` (2) when the command's own input is wrong
(an option value out of range, an unknown rule option or strategy, a bad card), and
:data:`EXIT_RUN` (1) when the input was fine but the run or its data failed (a strategy
raised in a game, a damaged run folder, a disk that cannot be written). The command
line's entry point (:mod:`hsim.cli`) is the one place that turns them into a message and
an exit code; anything else unexpected is written to a traceback file and named in one
line.

Strategies run inside hsim's process, so an exception a strategy raises must not be
mistaken for hsim stopping. :func:`strategy_failure` says which exceptions count as the
strategy's fault: any ``Exception``, ``SystemExit`` (``sys.exit()`` in strategy code) and
a ``KeyboardInterrupt`` that no real Ctrl-C caused. A real Ctrl-C cannot be told from a
strategy's ``raise KeyboardInterrupt`` by the exception alone, so the command line
installs :func:`on_sigint`, which notes the signal before raising: while it is the SIGINT
handler, a ``KeyboardInterrupt`` without a noted signal is the strategy's own. Under any
other handler (Python's default, in a library or notebook) a ``KeyboardInterrupt`` is
taken as a real Ctrl-C and stops the caller, as Python users expect; in worker processes,
which ignore SIGINT, it is always the strategy's. A runner that handles SIGTERM (or
SIGINT) itself calls :func:`note_signal` before raising its stop, so that a stop raised
inside a strategy call is not reported as that strategy's error.
"""

from __future__ import annotations

import signal

EXIT_RUN = 1
EXIT_USAGE = 2


class HsimError(Exception):
    """Base of the errors a user can cause; the message says what was wrong and what to do.

    exit_code: :data:`EXIT_USAGE` (2) or :data:`EXIT_RUN` (1, the default).
    """

    exit_code = EXIT_RUN

    def __init__(self, *args, exit_code: int | None = None) -> None:
        super().__init__(*args)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(HsimError, ValueError):
    """A setting of a run or command is out of its range or of the wrong type (exit 2)."""

    exit_code = EXIT_USAGE


class ManifestError(HsimError, ValueError):
    """A run folder's ``run.json`` is missing, unreadable or has a bad field (exit 1)."""


_noted_signal: int | None = None


def on_sigint(signum, frame) -> None:
    """SIGINT handler: note that a real Ctrl-C arrived, then raise ``KeyboardInterrupt``.

    :raises KeyboardInterrupt: always.
    """
    global _noted_signal
    _noted_signal = signum
    raise KeyboardInterrupt


def note_signal(signum: int) -> None:
    """Record that signal ``signum`` arrived (for a runner's own SIGINT/SIGTERM handler)."""
    global _noted_signal
    _noted_signal = signum


def clear_signal() -> None:
    """Forget a noted signal (at the start of a command)."""
    global _noted_signal
    _noted_signal = None


def noted_signal() -> int | None:
    """Return the signal noted by :func:`on_sigint` or :func:`note_signal`, or None."""
    return _noted_signal


def strategy_failure(exc: BaseException) -> bool:
    """Return whether ``exc``, raised by strategy code, is the strategy's failure (to be
    reported as a :class:`~hsim.strategy.StrategyError`) rather than a stop of hsim.

    Once a signal has been noted (:func:`on_sigint`, or a runner's SIGTERM handler calling
    :func:`note_signal` before it raises its stop), nothing is: whatever strategy code
    raises then is part of the stop. Otherwise ``Exception`` and ``SystemExit``: yes;
    ``KeyboardInterrupt``: yes while SIGINT's handler is :func:`on_sigint` or ignored
    (worker processes), else no (it may be a real Ctrl-C); anything else
    (``GeneratorExit``, a runner's own ``BaseException`` stop): no.
    """
    if _noted_signal is not None:
        return False
    if isinstance(exc, (Exception, SystemExit)):
        return True
    if isinstance(exc, KeyboardInterrupt):
        try:
            handler = signal.getsignal(signal.SIGINT)
        except (ValueError, OSError):  # pragma: no cover - no signals here
            return False
        # on_sigint and a runner's own handler (marked ``notes_signals``) note a real
        # Ctrl-C before anything is raised, so an unnoted KeyboardInterrupt is the strategy's.
        return handler is on_sigint or handler == signal.SIG_IGN or _notes(handler)
    return False


def _notes(handler) -> bool:
    return bool(getattr(handler, "notes_signals", False))


def describe(exc: BaseException) -> str:
    """Return ``exc`` as ``Type: message`` for a strategy error (``SystemExit: 3``)."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"
    text = str(exc)
    return f"raised {type(exc).__name__}: {text}" if text else f"raised {type(exc).__name__}"
