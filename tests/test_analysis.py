"""The pandas layer of rule-variant analysis: loading, re-scoring, winner changes."""

import math

import numpy as np
import pandas as pd
import pytest

from hsim.analysis import (
    RunFolderError,
    compare_games,
    games_summary,
    load_run,
    rescore_frames,
    rescore_run,
    winner_change,
    winner_change_by_length,
    winner_change_by_strategy,
    winner_changes,
)
from hsim.analysis.stats import mean_interval, ratio_interval, wilson_interval
from hsim.model.rules import Rules, RulesError
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from tests.test_rescore import SCORING as KERNEL_SCORING

PLAYERS = ("random", "lowcard", "random", "lowcard")

# Every scoring option (docs/rules.md A2-A3) away from its default at least once.
SCORING = [*KERNEL_SCORING, Rules(moon="new_moon", omnibus=True, end_score=150)]


def _play(path, rules, games=60, seed=17, score_also=(), players=PLAYERS, duplicate=False):
    config = RunConfig(
        rules=rules,
        players=players,
        games=games,
        seed=seed,
        score_also=tuple(score_also),
        duplicate=duplicate,
    )
    run_tournament(config, path, workers=1, progress=False)
    return path


def _assert_reproduces(result, games, deals=None):
    for col in ("score", "place", "winner", "deals", "ended_by"):
        got = result.games[col].to_numpy()
        want = games[col].to_numpy()
        assert np.array_equal(got.astype(want.dtype), want), col
    assert result.censored == 0 and not result.games.censored.any()
    if deals is not None:
        played = ~deals["after_end"].to_numpy() if "after_end" in deals else slice(None)
        assert result.deals.counted.to_numpy()[played].all()
        for col in ("score", "deal_score"):
            assert np.array_equal(
                result.deals[col].to_numpy()[played], deals[col].to_numpy()[played]
            ), col


@pytest.mark.parametrize("rules", SCORING, ids=lambda r: str(r.to_array()[8:]))
def test_rescoring_a_run_under_its_own_rules_reproduces_it(tmp_path, rules):
    run = load_run(_play(tmp_path / "r", rules))
    assert run.scoring == "base" and run.scoring_rules == rules
    _assert_reproduces(rescore_run(run, rules), run.games, run.deals)


def test_rescoring_reproduces_every_recorded_scoring(tmp_path):
    also = [Rules(omnibus=True, no_trick_bonus="no_points"), Rules(end_score=150, no_draw=True)]
    run = load_run(_play(tmp_path / "r", Rules(moon="new_moon"), games=80, score_also=also))
    assert run.scorings[0] == "base" and len(run.scorings) == 3
    assert len(run.games) == 80 * 4 and len(run.games_all) == 3 * 80 * 4
    _assert_reproduces(rescore_run(run, run.rules), run.games, run.deals)
    for label, rules in zip(run.scorings[1:], also, strict=True):
        recorded = run.games_for(label)
        assert recorded.equals(run.games_for(rules))
        # The deals went on until every scoring's game had ended: nothing is censored.
        _assert_reproduces(rescore_run(run, label), recorded)
        other = load_run(run.path, scoring=label)
        assert other.scoring == label and other.games.equals(recorded)


def test_omnibus_rescore_of_a_classic_run_agrees_with_an_omnibus_run(tmp_path):
    # random and lowcard ignore the score, so the same seed plays the same cards.
    classic = load_run(_play(tmp_path / "c", Rules(), games=1000, seed=4))
    played = load_run(_play(tmp_path / "o", Rules(omnibus=True), games=1000, seed=4))
    rescored = rescore_run(classic, "omnibus=true")
    # Omnibus games last longer: where the classic deals run out (most games here), the
    # game is censored, and gets no winner.
    assert rescored.censored > 500
    cens = rescored.games.censored.to_numpy()
    assert rescored.games.winner[cens].isna().all() and rescored.games.place[cens].isna().all()
    assert (rescored.games.ended_by[cens] == "censored").all()
    compared = compare_games(rescored.games, played.games)
    result = winner_change(compared)
    assert result.censored == result.censored_a == rescored.censored and result.censored_b == 0
    assert result.compared == 1000 - rescored.censored > 20
    assert result.changed == 0 and result.share.estimate == 0
    ok = ~compared.censored_a.to_numpy()
    assert np.array_equal(compared.score_a[ok], compared.score_b[ok])
    assert np.array_equal(compared.deals_a[ok], compared.deals_b[ok])
    # The other way round, the omnibus run's deals re-scored as classic: classic games
    # are shorter, so almost none is censored, and the winners agree with the classic run.
    back = rescore_run(played, "omnibus=false")
    result = winner_change(compare_games(back.games, classic.games))
    assert result.compared == 1000 - back.censored > 900
    assert result.changed == 0 and result.censored == back.censored
    # Omnibus does change winners, against the classic games.
    against = winner_change(compare_games(classic.games, played.games))
    assert against.compared == 1000 and 0 < against.changed < 1000


def test_new_moon_choices_that_were_never_made_are_flagged(tmp_path):
    run = load_run(_play(tmp_path / "r", Rules(), games=300, seed=9))
    result = rescore_run(run, "moon=new_moon,end_score=150,perfect_100=true")
    flagged = result.games.moon_choice_assumed.to_numpy()
    assert flagged.any() and not rescore_run(run, "omnibus=true").games.moon_choice_assumed.any()
    # A flagged game holds a moon shot by a seat at 26 or more (under this scoring).
    game = result.games.game[flagged].iloc[0]
    d = result.deals[result.deals.game == game]
    before = d.score.to_numpy().reshape(-1, 4)[:-1]
    shooters = (d.points.to_numpy().reshape(-1, 4) == 26)[1:]
    assert (before[shooters] >= 26).any()


def test_rescore_refuses_play_options_and_bad_input(tmp_path):
    run = load_run(_play(tmp_path / "r", Rules(), games=10))
    with pytest.raises(RulesError, match="change.*play"):
        rescore_run(run, "passing=none")
    with pytest.raises(RulesError, match="unknown rule option"):
        rescore_run(run, "omnibuss=true")
    with pytest.raises(RunFolderError, match="one row per seat"):
        rescore_frames(run.deals.iloc[1:], Rules())
    with pytest.raises(RunFolderError, match="recorded no games"):
        run.games_for("omnibus=true")
    with pytest.raises(RunFolderError, match="recorded no games"):
        load_run(run.path, scoring="omnibus=true")
    with pytest.raises(RunFolderError, match="not an hsim run folder"):
        load_run(tmp_path)
    # Rows in any order give the same result.
    shuffled = run.deals.sample(frac=1, random_state=0)
    a = rescore_frames(shuffled, Rules(omnibus=True)).games
    b = rescore_frames(run.deals, Rules(omnibus=True)).games
    pd.testing.assert_frame_equal(a, b)


def test_load_run_reads_schema_1_runs(tmp_path):
    path = _play(tmp_path / "r", Rules(), games=5)
    for name in ("deals", "games"):
        frame = pd.read_parquet(path / name)
        drop = [c for c in ("board", "rotation", "player", "scoring", "after_end") if c in frame]
        for part in (path / name).iterdir():
            part.unlink()
        frame.drop(columns=drop).to_parquet(path / name / "part-000000000000.parquet")
    run = load_run(path)
    assert run.scorings == ["base"]
    assert (run.games.board == run.games.game).all() and (run.deals.player == run.deals.seat).all()
    _assert_reproduces(rescore_run(run, Rules()), run.games, run.deals)


def _games(winner_sets, censored=(), strategies=("x", "y", "x", "y"), deals=None):
    """A hand-made games frame: one winner set (of seats) per game."""
    rows = []
    for g, winners in enumerate(winner_sets):
        for s in range(4):
            rows.append(
                {
                    "game": g,
                    "seat": s,
                    "strategy": strategies[s],
                    "score": 10 if s in winners else 50,
                    "winner": s in winners,
                    "place": 1 if s in winners else 1 + len(winners),
                    "deals": deals[g] if deals else 10,
                    "censored": g in censored,
                }
            )
    return pd.DataFrame(rows)


def test_winner_change_share_on_a_hand_made_frame():
    a = _games([{0}, {1}, {2, 3}, {0}, {2}], deals=[5, 9, 9, 12, 30])
    b = _games([{0}, {2}, {3}, {0}, {1}], censored={4})
    compared = compare_games(a, b)
    changes = winner_changes(compared)
    assert changes.winners_a.tolist()[:4] == [1, 2, 12, 1]
    assert changes.changed.tolist()[:4] == [False, True, True, False]
    assert changes.changed.isna().tolist() == [False] * 4 + [True]
    result = winner_change(changes)
    assert (result.games, result.compared, result.changed) == (5, 4, 2)
    assert (result.censored, result.censored_a, result.censored_b) == (1, 0, 1)
    assert result.share == wilson_interval(2, 4)
    assert result.to_dict()["share"]["estimate"] == 0.5
    by = winner_change_by_strategy(compared).set_index("strategy")
    # x sits at seats 0 and 2, y at 1 and 3: 8 seat-games each over the 4 compared games.
    assert by.loc["x", "seat_games"] == 8 and by.loc["y", "seat_games"] == 8
    assert (by.loc["x", "gained"], by.loc["x", "lost"]) == (1, 1)  # seat 2 in game 1, 2
    assert (by.loc["y", "gained"], by.loc["y", "lost"]) == (0, 1)  # seat 1 in game 1
    assert by.loc["x", "win_rate_a"] == 3 / 8 and by.loc["y", "win_rate_b"] == 1 / 8
    lengths = winner_change_by_length(changes, bins=(0, 8, 10, np.inf))
    assert lengths.length.tolist() == ["1-8", "9-10", "11+"]
    assert lengths.games.tolist() == [1, 2, 1] and lengths.changed.tolist() == [0, 2, 0]
    summary = games_summary(b)
    assert summary["games"] == 4 and summary["censored"] == 1


def test_compare_games_refuses_different_players():
    with pytest.raises(RunFolderError, match="different strategies"):
        compare_games(_games([{0}]), _games([{0}], strategies=("y", "x", "y", "x")))


def test_ratio_interval():
    # Equal denominators: the t interval of y / x.
    y = np.array([3.0, 5, 4, 9, 1])
    ci = ratio_interval(y, np.full(5, 2.0))
    want = mean_interval(y / 2)
    assert ci.estimate == pytest.approx(want.estimate)
    assert ci.low == pytest.approx(want.low) and ci.high == pytest.approx(want.high)
    # By hand: R = 12 / 6 = 2; residuals 2-2, 4-6, 6-4 -> sum of squares 8;
    # se = sqrt(3/2 * 8) / 6 = 0.57735; t(0.975, 2) = 4.302653.
    ci = ratio_interval([2, 4, 6], [1, 3, 2])
    assert ci.estimate == 2 and ci.n == 3
    assert (ci.high - ci.low) / 2 == pytest.approx(4.302653 * math.sqrt(12) / 6, rel=1e-6)
    with pytest.raises(ValueError, match="2 clusters"):
        ratio_interval([1], [1])
