"""The strength ladder: each bot against three copies of the one below, on duplicate deals.

For each rung (``upper`` over ``lower``) a duplicate tournament plays ``boards`` boards
with the players ``upper, lower, lower, lower`` in all four rotations. A board is the
unit of independence (its four games share the deals), so the interval is taken over
per-board values: the lower copies' mean score per deal minus the upper bot's, where a
deal's score is ``deal_score`` (after the moon and bonuses: a successful moon counts 0 for
the shooter and 26 for the others, not 26 raw points). A rung *holds* when that
advantage's 95% interval lies above zero.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from hsim.analysis.stats import Interval, mean_interval
from hsim.rules import Rules
from hsim.runner.run import RunConfig, run_tournament

DEFAULT_BOTS = ("random", "lowcard", "duck", "heuristic", "pimc")


@dataclasses.dataclass
class Rung:
    """One comparison: ``upper`` against three copies of ``lower``.

    advantage: lower's mean score per deal minus upper's, per board (positive: upper is
    stronger), with its interval. deals: deals played in all.
    """

    upper: str
    lower: str
    advantage: Interval
    deals: int
    run_dir: Path

    @property
    def holds(self) -> bool:
        """True when the upper bot is better with the interval excluding zero."""
        return self.advantage.low > 0


def board_advantages(
    deals: pd.DataFrame, upper_player: int = 0, column: str = "deal_score"
) -> np.ndarray:
    """Return, per board, the other players' mean ``column`` per deal minus ``upper_player``'s.

    deals: a duplicate run's ``deals`` dataset (columns board, player and ``column``).
    """
    is_upper = deals["player"] == upper_player
    per = deals.groupby(["board", is_upper])[column].mean().unstack()
    return (per[False] - per[True]).to_numpy()


def run_rung(
    upper: str,
    lower: str,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
) -> Rung:
    """Play one rung into run folder ``out`` (replaced if it holds a run) and measure it."""
    config = RunConfig(
        rules=rules, players=(upper, lower, lower, lower), games=boards, seed=seed, duplicate=True
    )
    run_tournament(config, out, workers=workers, overwrite=True, progress=progress)
    deals = pd.read_parquet(out / "deals", columns=["board", "player", "deal_score"])
    return Rung(upper, lower, mean_interval(board_advantages(deals)), len(deals) // 4, out)


def run_ladder(
    bots, boards: int, seed: int, workers: int, out: Path, rules: Rules, progress: bool = False
):
    """Yield a :class:`Rung` for each consecutive pair of ``bots`` (weakest first)."""
    for lower, upper in zip(bots, bots[1:], strict=False):
        name = f"{_slug(upper)}-over-{_slug(lower)}"
        yield run_rung(upper, lower, boards, seed, workers, out / name, rules, progress)


def _slug(spec: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in spec).strip("_")
