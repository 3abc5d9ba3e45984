"""The progress bar of a command that plays many games (tqdm on stderr), or a silent
stand-in when the bar is off, so that tqdm is not even imported (~5 ms of a start)."""

from __future__ import annotations

import sys

from hsim.strategy import notice


class _NoProgress:
    """The progress bar of a run without one (``--no-progress``): the calls the run makes
    of a tqdm bar, doing nothing, so that tqdm is not imported (~5 ms of a start)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


class _AfterCompile:
    """A progress bar that appears at its first update: until then the compile ticker
    (:class:`hsim.strategy.notice.CompileTicker`) holds the line, and that first update
    (a chunk played, so everything it needed is compiled) ends it."""

    def __init__(self, make) -> None:
        self._make = make
        self._bar = None
        self._postfix = None

    def _shown(self):
        if self._bar is None:
            notice.stop_ticker()
            self._bar = self._make()
            if self._postfix is not None:
                self._bar.set_postfix_str(self._postfix)
        return self._bar

    def update(self, n: int = 1) -> None:
        self._shown().update(n)

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        if self._bar is None:
            self._postfix = s
        else:
            self._bar.set_postfix_str(s, refresh)

    def close(self) -> None:
        if self._bar is None:
            notice.stop_ticker(done=False)  # no chunk finished: the run stopped
        else:
            self._bar.close()


def progress_bar(total: int, enabled: bool, initial: int = 0, unit: str = "game"):
    r"""Return a progress bar of ``total`` ``unit``\ s already at ``initial`` (tqdm on
    stderr), or a bar that shows nothing when not ``enabled``. While a compile ticker
    runs, the bar appears at its first update."""
    if not enabled:
        return _NoProgress()
    if notice.ticking():
        return _AfterCompile(lambda: progress_bar(total, enabled, initial, unit))
    from tqdm import tqdm  # deferred: only with a bar (~5 ms of a start)

    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        unit_scale=True,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.05,
    )
