"""Public re-scoring API: recorded deal facts in, deal and game scores under any rules out.

Wraps :func:`hsim.engine.rescore.rescore_deals` (the engine's own scoring kernels) for
numpy arrays; :mod:`hsim.analysis` builds its pandas functions on it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hsim.engine.rescore import rescore_deals
from hsim.model.rules import Rules

N_SEATS = 4  # the classic game's; rules.players gives a rule set's (3 to 6)


@dataclasses.dataclass
class Rescored:
    """Scores of recorded deals under one rule set.

    Per deal (n rows, sorted by game then deal): deal_score, score int64[n, seats] (seats:
    the rules' ``players``, 3 to 6); counted
    bool[n] (False for deals recorded after the game ended under these rules); shooter
    int64[n] (the seat that shot the moon under these rules, -1 for none or not counted).
    Per game (g rows, in game order): games int64[g] (the game ids), final int64[g, seats],
    deals int64[g], ended_by int64[g] (0 end_score, 1 max_deals, -1 censored: the recorded
    deals ran out before this scoring's game ended; never give such a game a winner).
    """

    deal_score: np.ndarray
    score: np.ndarray
    counted: np.ndarray
    shooter: np.ndarray
    games: np.ndarray
    final: np.ndarray
    deals: np.ndarray
    ended_by: np.ndarray


def rescore(rules: Rules, game, points, tricks, jack, choice=None) -> Rescored:
    """Re-score recorded deals under ``rules`` (see :class:`Rescored` for the results).

    game: int[n] game id per deal, sorted (deals of a game together, in deal order);
    points, tricks: int[n, seats] (seats: ``rules.players``, docs/rules.md A1.1); jack:
    int[n] seat that took JD (-1 if none); choice: int[n]
    recorded New Moon outcome (0 none, 1 add, 2 subtract), default all 0.

    :raises ValueError: arrays of different lengths, or games not grouped together.
    """
    game = np.ascontiguousarray(game, np.int64)
    n = len(game)
    seats = rules.players
    points = np.ascontiguousarray(points, np.int64).reshape(n, seats)
    tricks = np.ascontiguousarray(tricks, np.int64).reshape(n, seats)
    jack = np.ascontiguousarray(jack, np.int64).reshape(n)
    choice = np.zeros(n, np.int64) if choice is None else np.ascontiguousarray(choice, np.int64)
    if n and np.any(np.diff(game) < 0):
        raise ValueError("deals must be sorted by game (then by deal)")
    ids = game[np.concatenate([[True], game[1:] != game[:-1]])] if n else game  # sorted
    deal_score = np.zeros((n, seats), np.int64)
    score = np.zeros((n, seats), np.int64)
    counted = np.zeros(n, np.int64)
    shooter = np.full(n, -1, np.int64)
    final = np.zeros((len(ids), seats), np.int64)
    deals = np.zeros(len(ids), np.int64)
    ended_by = np.zeros(len(ids), np.int64)
    rescore_deals(
        rules.to_array(),
        game,
        points,
        tricks,
        jack,
        choice,
        deal_score,
        score,
        counted,
        shooter,
        final,
        deals,
        ended_by,
    )
    return Rescored(deal_score, score, counted.astype(bool), shooter, ids, final, deals, ended_by)
