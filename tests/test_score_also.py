"""--score-also: the same deals scored several ways, each game followed to its own end."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.analysis.rescoring import rescore
from hsim.cli import main
from hsim.model.rules import Rules, RulesError, scoring_variant
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from tests.test_rescore import facts

PLAYERS = ("random", "lowcard", "random", "lowcard")


def _run(path, rules, score_also=(), games=80, seed=5):
    config = RunConfig(
        rules=rules, players=PLAYERS, games=games, seed=seed, score_also=score_also, chunk_size=30
    )
    run_tournament(config, path, workers=1, progress=False)
    return pd.read_parquet(path / "deals"), pd.read_parquet(path / "games")


def test_three_routes_to_the_omnibus_winners_agree(tmp_path):
    omnibus = Rules(omnibus=True)
    deals, games = _run(tmp_path / "a", Rules(), (omnibus,))
    played_deals, played_games = _run(tmp_path / "b", omnibus)
    recorded = games[games.scoring == "classic(omnibus=true)"].reset_index(drop=True)
    # 1 and 3: the --score-also record equals a run played under omnibus=true.
    want = played_games.drop(columns="scoring").reset_index(drop=True)
    pd.testing.assert_frame_equal(recorded.drop(columns="scoring"), want)
    # 2: re-scoring the classic run's deals (all of them, after_end included) agrees.
    result = rescore(omnibus, *facts(deals))
    assert (result.ended_by >= 0).all()  # never censored: the deals went on long enough
    assert np.array_equal(result.final.ravel(), played_games.score.to_numpy())
    # The extra deals are flagged, and the base game is untouched by them.
    base_deals, base_games = _run(tmp_path / "c", Rules())
    before = deals[~deals.after_end].drop(columns="after_end").reset_index(drop=True)
    pd.testing.assert_frame_equal(before, base_deals.drop(columns="after_end"))
    pd.testing.assert_frame_equal(games[games.scoring == "base"].reset_index(drop=True), base_games)
    assert deals.after_end.any() and not base_deals.after_end.any()


def test_strategies_keep_seeing_the_base_scores(tmp_path):
    deals, games = _run(tmp_path / "a", Rules(), (Rules(end_score=200),), games=20)
    after = deals[deals.after_end]
    final = games[games.scoring == "base"].set_index(["game", "seat"]).score
    assert len(after) > 0
    assert (
        after.set_index(["game", "seat"]).score
        == final.reindex(after.set_index(["game", "seat"]).index)
    ).all()
    longer = games[games.scoring == "classic(end_score=200)"]
    assert (longer.groupby("game").score.max() >= 200).all()


def test_play_options_are_refused():
    with pytest.raises(RulesError, match="compare-rules"):
        scoring_variant(Rules(), "queen_breaks_hearts=true")
    assert scoring_variant(Rules(), "omnibus=true,end_score=50").end_score == 50
    r = CliRunner().invoke(
        main,
        [
            "tournament",
            "--players",
            ",".join(PLAYERS),
            "--games",
            "2",
            "--score-also",
            "passing=none",
        ],
    )
    assert r.exit_code != 0 and "compare-rules" in r.output and "Traceback" not in r.output


def test_replay_of_a_score_also_run_matches_its_base_game(tmp_path):
    from hsim.analysis.replay import replay_run, rows_match

    deals, _ = _run(tmp_path / "a", Rules(), (Rules(omnibus=True),), games=6)
    game = int(deals[deals.after_end].game.iloc[0])  # a game that went on after its end
    _, _, records, _, recorded = replay_run(tmp_path / "a", game)
    assert rows_match(records, recorded)
    assert not rows_match(records[:-1], recorded)
