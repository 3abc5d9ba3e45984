"""The per-scoring part of a run's printed summary: win rates and places under each
``--score-also`` scoring, read back from the run's ``games`` dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd


def scoring_summaries(run_dir: Path, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Return, for each scoring in ``names`` (canonical rules strings of the run's
    ``score_also``), one row per player: ``seat`` (the player's index: its seat, or in
    duplicate play the player), ``strategy``, ``games``, ``win_rate`` (share of games
    with the best final score under that scoring, co-winners counted; docs/rules.md A3) and
    ``mean_place`` (1 = best). Rows come from the ``games`` dataset's rows of that scoring,
    so an interrupted run's summary covers the games written.

    :raises FileNotFoundError: ``run_dir`` has no ``games`` dataset.
    """
    if not names:
        return {}
    games = pd.read_parquet(
        Path(run_dir) / "games",
        columns=["scoring", "player", "strategy", "winner", "place"],
        filters=[("scoring", "in", list(names))],
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        rows = games[games["scoring"].astype(str) == name]
        per = rows.groupby("player", sort=True).agg(
            strategy=("strategy", "first"),
            games=("place", "size"),
            win_rate=("winner", "mean"),
            mean_place=("place", "mean"),
        )
        out[name] = [
            {
                "seat": int(player),
                "strategy": str(r.strategy),
                "games": int(r.games),
                "win_rate": float(r.win_rate),
                "mean_place": float(r.mean_place),
            }
            for player, r in per.iterrows()
        ]
    return out
