"""The batch runner: schedule games in chunks over worker processes, write Parquet.

The names below are imported on first use: importing ``hsim.runner.run`` compiles the
engine (or loads it from the cache), which reading a manifest (``hsim.runner.manifest``)
or a run's summary must not wait for.
"""

from __future__ import annotations

__all__ = ["RunConfig", "RunError", "RunResult", "run_tournament"]


def __getattr__(name: str):
    if name in __all__:
        from hsim.runner import run

        return getattr(run, name)
    raise AttributeError(f"module 'hsim.runner' has no attribute {name!r}")
