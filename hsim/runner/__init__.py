"""The batch runner: schedule games in chunks over worker processes, write Parquet.

The names below load :mod:`hsim.runner.run` (and the compiled engine) on first use, so
the light modules (:mod:`hsim.runner.lock`, :mod:`hsim.runner.manifest`) import fast.
"""

__all__ = ["RunConfig", "RunError", "RunResult", "run_tournament"]


def __getattr__(name: str):
    if name in __all__:
        from hsim.runner import run

        return getattr(run, name)
    raise AttributeError(f"module 'hsim.runner' has no attribute {name!r}")
