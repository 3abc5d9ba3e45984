"""The stop of a run by SIGINT or SIGTERM, as an exception every layer lets through."""

from __future__ import annotations

import signal


class StopRequested(BaseException):
    """SIGINT or SIGTERM asked the run to stop.

    A BaseException, so that the strategy wrappers (which turn a strategy's exceptions
    into :class:`hsim.strategy.StrategyError`) let it through: a stop is never a
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
