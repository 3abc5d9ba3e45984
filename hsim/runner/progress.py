"""The progress bar of a command that plays many games (tqdm on stderr), or a silent
stand-in when the bar is off, so that tqdm is not even imported (~5 ms of a start)."""

from __future__ import annotations

import sys


class _NoProgress:
    """The progress bar of a run without one (``--no-progress``): the calls the run makes
    of a tqdm bar, doing nothing, so that tqdm is not imported (~5 ms of a start)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, enabled: bool, initial: int = 0, unit: str = "game"):
    r"""Return a progress bar of ``total`` ``unit``\ s already at ``initial`` (tqdm on
    stderr), or a bar that shows nothing when not ``enabled``."""
    if not enabled:
        return _NoProgress()
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
