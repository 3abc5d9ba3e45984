"""hsim's error types, their exit codes, and how a strategy's failure is told from a stop.

Every error a user can cause derives from :class:`HsimError` and carries the exit code the
command line ends with: :data:`EXIT_USAGE` (2) when the command's own input is wrong
(an option value out of range, an unknown rule option or strategy, a bad card), and
:data:`EXIT_RUN` (1) when the input was fine but the run or its data failed (a strategy
raised in a game, a damaged run folder, a disk that cannot be written). The command
line's entry point (:mod:`hsim.cli`) is the one place that turns them into a message and
an exit code; anything else unexpected is written to a traceback file and named in one
line.

Every such error is defined here, whichever layer raises it (the modules that raise one
import it from here, so ``hsim.model.cards.CardParseError`` still names it):
:class:`ConfigError`, :class:`ManifestError`, :class:`CardParseError`,
:class:`RulesError`, :class:`IllegalPlayError`, :class:`StrategyError` (and
:class:`StrategySpecError`, :class:`DecisionTimeoutError`), :class:`RunError`,
:class:`RunCheckError`, :class:`RunFolderError`, :class:`ReplayError`,
:class:`SprtError` (and :class:`SprtFailed`); and :class:`StopRequested`, the stop of a
command by SIGINT or SIGTERM. A few exceptions stay inside the runner, where they are
turned into one of these with a message (``FolderError``, ``WorkerLost``,
``ClusterError``).

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

import contextlib
import os
import signal

EXIT_RUN = 1
EXIT_USAGE = 2
#: ``hsim sprt`` without a verdict because a game or the disk failed (1 is "H0 accepted").
EXIT_SPRT_FAILED = 4


#: hsim's name on the package index (the import name and the command are ``hsim``).
DISTRIBUTION = "hsim-hearts"


def install_hint(extra: str) -> str:
    """Return the command that installs hsim's optional extra ``extra`` (``cluster``,
    ``openspiel``, ``plot``, ``html``) into a checkout's environment."""
    return f"pip install -e '.[{extra}]' in hsim's checkout"


#: The pipe to :mod:`hsim.console`'s supervisor, in a supervised command's process (else
#: None): :func:`tell_finished` writes to it.
finished_fd: int | None = None


def tell_finished() -> None:
    """Tell the supervisor that the command finished (its exit status is then its own);
    nothing without one. Called once, as the command exits."""
    global finished_fd
    fd, finished_fd = finished_fd, None
    if fd is not None:
        with contextlib.suppress(OSError):
            os.write(fd, b"1")
            os.close(fd)


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
    reported as a :class:`~hsim.strategy.contract.StrategyError`) rather than a stop of hsim.

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


class StopRequested(BaseException):
    """SIGINT or SIGTERM asked the run to stop.

    A BaseException, so that the strategy wrappers (which turn a strategy's exceptions
    into :class:`hsim.strategy.contract.StrategyError`) let it through: a stop is never a
    strategy's fault. signum: the signal that asked (``signal.SIGINT`` or
    ``signal.SIGTERM``).
    """

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum


def stop_in(exc: BaseException | None) -> StopRequested | None:
    """Return the :class:`StopRequested` in ``exc``'s chain (``exc`` itself, then its
    ``__cause__`` or ``__context__``, and so on), or None when it holds none.

    A signal handler raises its stop in whatever Python code runs at that moment. When
    that code was called from C, such as numba unpickling a constant while it boxes a
    compiled function's result, the stop comes out as that C code's ``SystemError`` ("...
    returned a result with an exception set"), with the stop as its cause: still a stop,
    never a failure. (That C code may also fail in another way, losing the stop; the
    runners therefore also check whether their own handler saw a signal.)
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, StopRequested):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


class StrategyError(HsimError, ValueError):
    """A strategy could not be loaded, was given bad parameters, or misbehaved in a game.

    Exit 1 (a run error) unless raised as :class:`StrategySpecError`.
    """


class StrategySpecError(StrategyError):
    """A strategy spec cannot be used as written: its syntax, an unknown name or parameter,
    a parameter value outside its declared range, or the wrong number of seats (exit 2).
    """

    exit_code = EXIT_USAGE


class CardParseError(HsimError, ValueError):
    """Cards could not be read; ``text`` holds the offending text, the message says why
    (exit 2)."""

    exit_code = EXIT_USAGE

    def __init__(self, text: str, reason: str = "", code_hint: bool = False) -> None:
        self.text = text
        detail = f": {reason}" if reason else ""
        hint = (
            " (write rank then suit: 2-9, T or 10, J, Q, K, A and C, D, S, H, e.g. QS or 10D)"
            if code_hint
            else ""
        )
        super().__init__(f"cannot read {text!r}{detail}{hint}")


class RulesError(HsimError, ValueError):
    """A rule set, option name or option value is not valid; the message says why (exit 2)."""

    exit_code = EXIT_USAGE


class IllegalPlayError(HsimError, ValueError):
    """A pass or play that the rules do not allow here; the message names the card (exit 2)."""

    exit_code = EXIT_USAGE


class DecisionTimeoutError(StrategyError):
    """The strategy error of a decision that ran past ``--decision-timeout``."""


class EngineError(StrategyError):
    """An outside engine's process failed (docs/protocol.md): it could not start, crashed,
    hung past its timeout, closed its output or wrote what is not the protocol. Unlike a
    bot's own mistake, this may not recur (a crash under load, a missing file since
    added), so a run it stopped can be resumed."""


class RunError(HsimError):
    """The run could not start or did not finish; the message says why and what to do."""


class RunCheckError(HsimError, ValueError):
    """A run folder is incomplete or damaged; the message names each problem and what
    to do (``hsim resume``, ``--allow-partial``).
    """


class RunFolderError(HsimError, ValueError):
    """A folder is not a readable hsim run, or a frame lacks what a function needs."""


class ReplayError(HsimError, ValueError):
    """A run folder cannot be replayed (no manifest, another seed scheme, no such game)."""


class SprtError(HsimError):
    """The test could not start: its output folder is in the way (exit 2, a usage error)."""

    exit_code = EXIT_USAGE


class SprtFailed(SprtError):
    """A strategy failed in a game, a worker died or the disk failed: no verdict (exit 4,
    which ``hsim sprt`` keeps apart from 1, "H0 accepted")."""

    exit_code = EXIT_SPRT_FAILED
