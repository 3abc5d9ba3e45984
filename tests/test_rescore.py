"""Re-scoring recorded deals reproduces the run's own scores, and follows other rules."""

import numpy as np
import pandas as pd
import pytest

from hsim.analysis.rescoring import rescore
from hsim.model.rules import Rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

PLAYERS = ("random", "lowcard", "random", "lowcard")


def facts(deals: pd.DataFrame):
    """Per-deal arrays from a deals dataset (sorted by game, deal, seat)."""
    d = deals.sort_values(["game", "deal", "seat"])
    n = len(d) // 4
    jack_rows = d.jack_diamonds.to_numpy().reshape(n, 4)
    jack = np.where(jack_rows.any(axis=1), jack_rows.argmax(axis=1), -1)
    # astype(object): moon_choice is a categorical (schema 5), whose map cannot be filled.
    codes = d.moon_choice.astype(object).map({"add": 1, "subtract": 2}).fillna(0)
    codes = codes.to_numpy(np.int64)
    return (
        d.game.to_numpy()[::4],
        d.points.to_numpy().reshape(n, 4),
        d.tricks.to_numpy().reshape(n, 4),
        jack,
        codes.reshape(n, 4).max(axis=1),
    )


SCORING = [
    Rules(),
    Rules(omnibus=True),
    Rules(omnibus=True, moon_requires_jack=False, jack_in_moon_deal=True),
    Rules(no_trick_bonus="no_points"),
    Rules(no_trick_bonus="no_tricks", clamp_at_zero=False),
    Rules(perfect_100=True, end_score=150),
    Rules(no_draw=True, end_score=50),
    Rules(moon="new_moon"),
    Rules(moon="new_moon", new_moon_any_score=True, clamp_at_zero=False),
    Rules(end_when="exceeded", end_score=50),
    Rules(max_deals=5),
]


@pytest.mark.parametrize("rules", SCORING, ids=lambda r: str(r.to_array()[8:]))
def test_rescoring_a_run_under_its_own_rules_reproduces_it(tmp_path, rules):
    config = RunConfig(rules=rules, players=PLAYERS, games=60, seed=17)
    run_tournament(config, tmp_path / "r", workers=1, progress=False)
    deals = pd.read_parquet(tmp_path / "r" / "deals")
    games = pd.read_parquet(tmp_path / "r" / "games")
    result = rescore(rules, *facts(deals))
    assert result.counted.all()
    assert np.array_equal(result.score.ravel(), deals.score.to_numpy())
    assert np.array_equal(result.deal_score.ravel(), deals.deal_score.to_numpy())
    assert np.array_equal(result.final.ravel(), games.score.to_numpy())
    ended = games.ended_by.map({"end_score": 0, "max_deals": 1}).to_numpy()[::4]
    assert np.array_equal(result.ended_by, ended)


def test_rescoring_under_other_rules_ends_or_censors(tmp_path):
    config = RunConfig(rules=Rules(end_score=100), players=PLAYERS, games=40, seed=2)
    run_tournament(config, tmp_path / "r", workers=1, progress=False)
    deals = pd.read_parquet(tmp_path / "r" / "deals")
    short = rescore(Rules(end_score=50), *facts(deals))
    assert (short.ended_by == 0).all()  # every game reaches 50 before it reached 100
    assert not short.counted.all() and (short.final.max(axis=1) >= 50).all()
    longer = rescore(Rules(end_score=150), *facts(deals))
    assert (longer.ended_by == -1).all()  # the recorded deals run out: censored


def test_rescore_checks_its_input():
    with pytest.raises(ValueError, match="sorted"):
        rescore(Rules(), [1, 0], np.zeros((2, 4)), np.zeros((2, 4)), [0, 0])
