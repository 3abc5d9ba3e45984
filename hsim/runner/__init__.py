"""The batch runner: schedule games in chunks over worker processes, write Parquet."""

from hsim.runner.run import RunConfig, RunError, RunResult, run_tournament

__all__ = ["RunConfig", "RunError", "RunResult", "run_tournament"]
