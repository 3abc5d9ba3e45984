"""The games the viewer's tests show, and what a page should show, read from the Parquet
rows of their runs (not from the page's own data).

- Hearts, seed 11, game 21, shooter against three random: passes (deal 0 passes left)
  and a moon (seat 2, a random bot, shoots it in deal 3).
- Kierki 4, seed 3, game 0, four random: every deal kind, four trump deals, a lottery.
- Kierki 3, seed 3, game 0, three random: three hands of 17 cards.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from hsim.model.cards import format_card
from hsim.model.rules import parse_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

GAMES = {
    "hearts": {"rules": "classic", "players": ("shooter", "random", "random", "random"),
               "seed": 11, "game": 21},
    "kierki4": {"rules": "kierki4", "players": ("random",) * 4, "seed": 3, "game": 0},
    "kierki3": {"rules": "kierki3", "players": ("random",) * 3, "seed": 3, "game": 0},
}  # fmt: skip


def make_run(name: str, folder: Path) -> Path:
    """Play the one game ``name`` of :data:`GAMES` into a run folder with every card
    recorded; return the folder."""
    g = GAMES[name]
    config = RunConfig(
        rules=parse_rules(g["rules"]),
        players=g["players"],
        games=1,
        first_game=g["game"],
        seed=g["seed"],
        record="plays",
    )
    run_tournament(config, folder, workers=1, progress=False)
    return folder


def page_data(page: str) -> dict:
    """Return the JSON a viewer page embeds."""
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    assert m, "no embedded game data"
    return json.loads(m.group(1))


def cards(mask: int) -> list[str]:
    return sorted(format_card(c) for c in range(52) if int(mask) >> c & 1)


def recorded(run: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the run's deal rows (by deal, seat) and play rows (by deal, play order)."""
    deals = pd.read_parquet(run / "deals").sort_values(["deal", "seat"])
    plays = pd.read_parquet(run / "plays").sort_values(["deal", "play"])
    return deals, plays


def expected_steps(run: Path) -> list[dict]:
    """Return what the page shows at each step, from the run's Parquet rows: step kind,
    deal, each seat's cards (sorted), the trick's (seat, card) plays, its leader and
    winner, the moon's shooter, at a deal's end each seat's [points, deal score], and the
    (deal, game scores) rows of the scores table."""
    deals, plays = recorded(run)
    steps: list[dict] = []
    scores: list[list] = []
    for deal, rows in deals.groupby("deal", sort=True):
        rows = rows.sort_values("seat")
        n = len(rows)
        dealt = [cards(m) for m in rows.hand]
        moves = plays[plays.deal == deal]
        base = {"deal": int(deal), "trick": [], "leader": None, "winner": None, "moon": None}
        base["points"] = []

        def step(kind, hands, base=base, **more):
            steps.append({**base, "kind": kind, "hands": hands, "scores": list(scores), **more})

        step("deal", dealt)
        hands = dealt
        if rows.passed.fillna(0).astype(int).any():
            hands = [
                cards(int(h) & ~int(p) | int(r))
                for h, p, r in zip(rows.hand, rows.passed, rows.received, strict=True)
            ]
            step("pass", hands)
        tricks = moves[moves.trick.notna()]
        for t, trick in tricks.groupby("trick", sort=True):
            played = set(map(format_card, tricks[tricks.trick <= t].card))
            step(
                "trick",
                [sorted(set(h) - played) for h in hands],
                trick=[
                    [int(s), format_card(c)] for s, c in zip(trick.seat, trick.card, strict=True)
                ],
                leader=int(trick.leader.iloc[0]),
                winner=int(trick.winner.iloc[0]),
            )
        lottery = moves[moves.trick.isna()]
        if len(lottery):
            gone = set(map(format_card, lottery.card))
            step("lottery", [sorted(set(h) - gone) for h in hands])
        gone = set(map(format_card, moves.card))
        scores.append([int(deal), [int(x) for x in rows.score]])
        shooter = [s for s in range(n) if rows.moon.iloc[s]]
        step(
            "end",
            [sorted(set(h) - gone) for h in hands],
            moon=shooter[0] if shooter else None,
            points=[[int(p), int(x)] for p, x in zip(rows.points, rows.deal_score, strict=True)],
        )
    return steps
