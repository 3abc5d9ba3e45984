"""The games the viewer's tests show, and what a page should show, read from the Parquet
rows of their runs (not from the page's own data).

- Hearts, seed 11, game 21, shooter against three random: passes (deal 0 passes left)
  and a moon (seat 2, a random bot, shoots it in deal 3).
- Kierki 4, seed 3, game 0, four random: every deal kind, four trump deals, a lottery.
- Kierki 3, seed 3, game 0, three random: three hands of 17 cards.
- Hearts under ``queen_breaks_hearts=true`` and ``first_trick_breaks_hearts=false`` (with
  ``first_trick_points=allowed``), seed 5, game 7, four random: in deal 2 QH discarded to
  trick 1 breaks nothing and QS breaks hearts in trick 4; in deal 5 QS breaks them before
  any heart is played.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from hsim.engine.layout import P_HEARTS_BROKEN
from hsim.model.cards import format_card
from hsim.model.rules import parse_rules
from hsim.play.position import Position
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

#: Hearts rules under which the hearts-broken flag differs from "a heart was played".
BROKEN_RULES = (
    "classic(first_trick_points=allowed,queen_breaks_hearts=true,first_trick_breaks_hearts=false)"
)

GAMES = {
    "hearts": {"rules": "classic", "players": ("shooter", "random", "random", "random"),
               "seed": 11, "game": 21},
    "kierki4": {"rules": "kierki4", "players": ("random",) * 4, "seed": 3, "game": 0},
    "kierki3": {"rules": "kierki3", "players": ("random",) * 3, "seed": 3, "game": 0},
    "hearts-broken": {"rules": BROKEN_RULES, "players": ("random",) * 4, "seed": 5, "game": 7},
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


def engine_broken(rules: str, hands, pass_direction: str, passes, plays) -> list[bool]:
    """Return the engine's hearts-broken flag (P_HEARTS_BROKEN) after each card of a Hearts
    deal, replayed with :class:`~hsim.play.position.Position` from its hands (masks), its
    passes (masks) and its cards played in order."""
    position = Position.from_hands(list(hands), pass_direction, parse_rules(rules))
    if pass_direction != "hold":
        position.pass_cards(list(passes))
    out = []
    for c in plays:
        position.play(int(c))
        out.append(bool(position.state.public[P_HEARTS_BROKEN]))
    return out


def expected_steps(run: Path, rules: str) -> list[dict]:
    """Return what the page shows at each step (one per card played), from the run's
    Parquet rows: step kind, deal, ``played`` (cards of the trick or of the lottery shown),
    each seat's cards (sorted), the trick's (seat, card) plays so far, its leader, its
    winner (only once the trick is complete), the lottery's plays so far, hearts broken
    (Hearts: the engine's flag replayed under ``rules``, see :func:`engine_broken`; else
    None), the moon's shooter, at a deal's end each seat's [points, deal score], and the
    (deal, game scores) rows of the scores table."""
    deals, plays = recorded(run)
    kierki = parse_rules(rules).is_kierki
    steps: list[dict] = []
    scores: list[list] = []
    for deal, rows in deals.groupby("deal", sort=True):
        rows = rows.sort_values("seat")
        n = len(rows)
        dealt = [cards(m) for m in rows.hand]
        moves = plays[plays.deal == deal]
        base = {"deal": int(deal), "played": None, "trick": [], "leader": None, "winner": None}
        base.update(lottery=[], broken=None, moon=None, points=[])

        def step(kind, hands, base=base, **more):
            steps.append({**base, "kind": kind, "hands": hands, "scores": list(scores), **more})

        step("deal", dealt)
        hands = dealt
        passed = rows.passed.fillna(0).astype(int)
        if passed.any():
            hands = [
                cards(int(h) & ~int(p) | int(r))
                for h, p, r in zip(rows.hand, rows.passed, rows.received, strict=True)
            ]
            step("pass", hands)
        tricks = moves[moves.trick.notna()]
        broken = (
            [None] * len(tricks)
            if kierki
            else engine_broken(rules, rows.hand, rows.pass_direction.iloc[0], passed, tricks.card)
        )
        gone: set[str] = set()
        i = 0
        for _, trick in tricks.groupby("trick", sort=True):
            so_far = []
            for s, c in zip(trick.seat, trick.card, strict=True):
                so_far.append([int(s), format_card(c)])
                gone.add(format_card(c))
                step(
                    "play",
                    [sorted(set(h) - gone) for h in hands],
                    played=len(so_far),
                    trick=list(so_far),
                    leader=int(trick.leader.iloc[0]),
                    winner=int(trick.winner.iloc[0]) if len(so_far) == len(trick) else None,
                    broken=broken[i],
                )
                i += 1
        lottery = moves[moves.trick.isna()]
        so_far = []
        for s, c in zip(lottery.seat, lottery.card, strict=True):
            so_far.append([int(s), format_card(c)])
            gone.add(format_card(c))
            step("lottery", [sorted(set(h) - gone) for h in hands], played=len(so_far),
                 lottery=list(so_far))  # fmt: skip
        scores.append([int(deal), [int(x) for x in rows.score]])
        shooter = [s for s in range(n) if rows.moon.iloc[s]]
        step(
            "end",
            [sorted(set(h) - gone) for h in hands],
            lottery=[
                [int(s), format_card(c)] for s, c in zip(lottery.seat, lottery.card, strict=True)
            ],
            broken=broken[-1] if len(broken) else None,
            moon=shooter[0] if shooter else None,
            points=[[int(p), int(x)] for p, x in zip(rows.points, rows.deal_score, strict=True)],
        )
    return steps
