"""Re-score recorded deals under other scoring options, with the engine's own kernels.

The deals of a run carry the raw facts of each deal (points, tricks, who took the JD, the
moon outcome chosen). Scoring options do not change play, so the games those deals make
under another scoring follow from :func:`hsim.engine.hearts.score_deal` and
:func:`hsim.engine.hearts.game_end` alone, without playing again.
"""

from __future__ import annotations

from numba import njit

from hsim.engine.hearts import game_end, moon_shooter, rules_seats, score_deal


@njit(cache=True)
def rescore_deals(
    rules,
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
):
    """Score every deal of every game under ``rules`` (A2, A3); return the number of games.

    Inputs, one row per deal, sorted by game then deal: game int64[n]; points, tricks
    int64[n, seats] (4 seats, or 3 with ``players=3``); jack int64[n] (seat that took JD,
    -1 if none); choice int64[n] (the New Moon outcome recorded: 0 none, 1 add, 2
    subtract; used only when the rules ask the shooter, else the default rule decides).
    Outputs: deal_score, score int64[n, seats] (as the deal rows' columns); counted int64[n]
    (1 when the deal belongs to the game under these rules, 0 for deals after its end);
    shooter int64[n] (the seat that shot the moon under these rules, A2.2: with
    ``omnibus`` and ``moon_requires_jack`` only with the JD; -1 for none or not counted);
    per game, in order: final int64[g, seats] scores, deals int64[g] counted, ended_by
    int64[g] (0 end score, 1 max deals, -1 censored: the recorded deals ran out first).
    """
    n = game.shape[0]
    seats = rules_seats(rules)
    i = 0
    g = 0
    while i < n:
        current = game[i]
        k = 0
        over = False
        for s in range(seats):
            final[g, s] = 0
        ended_by[g] = -1
        while i < n and game[i] == current:
            shooter[i] = -1
            if over:
                counted[i] = 0
            else:
                shooter[i] = moon_shooter(rules, points[i], jack[i])
                score_deal(
                    rules,
                    points[i],
                    tricks[i],
                    jack[i],
                    final[g],
                    choice[i],
                    deal_score[i],
                    score[i],
                )
                for s in range(seats):
                    final[g, s] = score[i, s]
                counted[i] = 1
                k += 1
                e = game_end(rules, score[i], k)
                if e >= 0:
                    over = True
                    ended_by[g] = e
            i += 1
        deals[g] = k
        g += 1
    return g
