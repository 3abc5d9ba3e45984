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
