"""The strategy contract: observation only, engine-handed randomness, clear errors."""

import re
import threading
import time

import numpy as np
import pytest

from hsim.engine.layout import D_GAME, P_HEARTS_BROKEN, V_HAND
from hsim.engine.rng import stream_state
from hsim.model.cards import parse_cards, parse_mask
from hsim.model.rules import Rules, make_rules
from hsim.play.games import DecisionTimeoutError, PythonDriver, play_range
from hsim.play.position import Position
from hsim.strategy.contract import Observation, StrategyError
from hsim.strategy.loader import load_players
from tests.bots import python_bots

HANDS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H",
    "AS 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def _swapped():
    """The same deal, but seats 1 and 2 have swapped KD and KS (hidden from seat 0)."""
    hands = list(HANDS)
    hands[1] = hands[1].replace("KD", "KS")
    hands[2] = hands[2].replace("KS", "KD")
    return hands


def test_observation_does_not_reveal_other_hands():
    # Seat 0's view must be identical in two deals that differ only in cards held by
    # other seats and not yet played.
    views = []
    for hands in (HANDS, _swapped()):
        p = Position.from_hands(hands)
        p.play("2C 2D 2S AS")  # trick 1, won by seat 0's 2C (the only club)
        public, private = p.state.public.copy(), p.state.private[0].copy()
        views.append((public, private))
        obs = Observation(p.state.public, p.state.private[0], Rules())
        assert obs.hand == parse_mask(HANDS[0]) & ~parse_mask("2C")
    assert np.array_equal(views[0][0], views[1][0])
    assert np.array_equal(views[0][1], views[1][1])
    # ...while the engine's full state does differ (the test can fail).
    assert parse_mask(HANDS[2]) != parse_mask(_swapped()[2])


def test_python_strategies_get_read_only_arrays():
    from hsim.play.games import GameState

    public, rows = GameState().read_only()
    with pytest.raises(ValueError):
        public[P_HEARTS_BROKEN] = 1
    with pytest.raises(ValueError):
        rows[1][V_HAND] = 0


def test_python_tier_matches_compiled_tier(py_bot):
    rules = Rules()
    compiled = load_players(["random", "lowcard", "random", "lowcard"])
    python = load_players(["random", py_bot("PyLowcard"), "random", py_bot("PyLowcard")])
    assert [p.kind for p in python] == ["compiled", "python", "compiled", "python"]
    d1, g1 = play_range(rules, compiled, 11, 0, 6)
    d2, g2 = play_range(rules, python, 11, 0, 6)
    assert len(d1) > 0
    assert np.array_equal(d1, d2) and np.array_equal(g1, g2)


NEW_HEARTS_OPTIONS = Rules(
    first_trick_points="allowed",
    first_trick_breaks_hearts=False,
    moon="new_moon",
    new_moon_any_score=True,
    end_when="exceeded",
    end_score=60,
)


@pytest.mark.parametrize("rules", [Rules(), NEW_HEARTS_OPTIONS], ids=["classic", "new"])
def test_python_driver_equals_compiled_loop(rules):
    """The plain-Python driver and the compiled loop play the same games, also under the
    options of docs/rules.md A1.6, A2.2 and A3 (heuristic reads end_when and New Moon)."""
    players = load_players(["heuristic", "random", "duck", "random"])
    deals, games = play_range(rules, players, 13, 0, 8)
    driver = PythonDriver(rules, players, 13)
    rows = [driver.play_game(g) for g in range(8)]
    assert np.array_equal(deals, np.concatenate([d for d, _ in rows]))
    assert np.array_equal(games, np.concatenate([g for _, g in rows]))


def test_results_do_not_depend_on_chunking(py_bot):
    players = load_players([py_bot("PyRandom"), "random", py_bot("PyRandom"), "lowcard"])
    whole, _ = play_range(Rules(), players, 5, 0, 8)
    tail, _ = play_range(Rules(), players, 5, 5, 8)
    assert np.array_equal(whole[whole[:, D_GAME] >= 5], tail)


def test_python_strategies_are_reset_every_game(py_bot):
    python_bots.Counter.seen_at_reset.clear()
    players = load_players(["tests.bots.python_bots:Counter"] + ["lowcard"] * 3)
    play_range(Rules(), players, 3, 0, 4)
    seen = python_bots.Counter.seen_at_reset
    assert seen[0] == 0 and len(seen) == 4 and all(n > 0 for n in seen[1:])


def test_card_not_held_is_a_clear_error_python(py_bot):
    players = load_players([py_bot("NotHeld")] + ["lowcard"] * 3)
    with pytest.raises(StrategyError) as err:
        play_range(Rules(), players, 42, 3, 5)
    msg = str(err.value)
    assert "NotHeld" in msg and "seat 0" in msg and "game 3" in msg and "seed 42" in msg
    assert "does not hold" in msg


def test_card_not_held_is_a_clear_error_compiled():
    players = load_players(["tests.bots.compiled_bots:NOT_HELD(trick=2)"] + ["random"] * 3)
    with pytest.raises(StrategyError) as err:
        play_range(Rules(), players, 9, 7, 9)
    msg = str(err.value)
    assert "NOT_HELD" in msg and "seat 0" in msg and "game 7" in msg and "seed 9" in msg
    assert "does not hold" in msg


def test_invalid_pass_is_a_clear_error():
    players = load_players(["random", "tests.bots.compiled_bots:BAD_PASS", "random", "random"])
    with pytest.raises(StrategyError, match=r"seat 1\).*three cards"):
        play_range(Rules(), players, 1, 0, 1)


def test_strategy_that_raises_names_itself(py_bot):
    players = load_players(["random", "random", py_bot("Crashes", "holding=AS KS"), "random"])
    with pytest.raises(StrategyError) as err:
        play_range(Rules(), players, 4, 0, 30)
    msg = str(err.value)
    assert "Crashes" in msg and "seat 2" in msg and "seed 4" in msg and "boom" in msg
    game = int(re.search(r"in game (\d+)", msg).group(1))
    play_range(Rules(), players, 4, 0, game)  # the games before it are fine


def test_illegal_but_held_card_is_refused():
    p = Position.from_hands(HANDS)
    with pytest.raises(Exception, match="rules allow only"):
        p.play(parse_cards("3C"))


@pytest.mark.parametrize("preset", ["classic", "kierki4", "kierki3"])
def test_trick_history_of_a_finished_deal(preset):
    """After a deal's last trick the observation lists every trick once: its leader (the
    previous trick's winner, A1.4 / B2) and its winner; the lottery has no tricks."""
    rules = make_rules(preset)
    n = rules.players
    driver = PythonDriver(rules, load_players(["random"] * n, rules), seed=3)
    seen = []

    def check(d):
        obs = Observation(d.state.public, d.state.private[0], rules)
        leaders, winners = obs.trick_leaders, obs.trick_winners
        seen.append((obs.kind, len(leaders)))
        if obs.kind == "lottery":
            assert leaders == []
            return
        assert len(leaders) == len(winners) == obs.trick_number
        assert leaders[1:] == winners[:-1]
        assert len(obs.points) == len(obs.scores) == n

    driver.play_game(0, on_deal_end=check)
    tricks = 52 // n  # 13, or 17 with 3 players (B1)
    if rules.is_kierki:
        assert ("tricks", tricks) in seen and ("lottery", 0) in seen
    else:
        assert seen and all(count == tricks for _, count in seen)


def _in_a_thread(fn):
    """Return what ``fn()`` returns or raises, run in a thread other than the main one."""
    out = []

    def run():
        try:
            out.append(fn())
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the decision was not interrupted"
    return out[0]


def test_a_decision_timeout_interrupts_a_python_strategy_outside_the_main_thread(py_bot):
    # A Dask worker runs chunks in a thread, where no signal handler runs: a watch
    # thread raises the timeout in the deciding thread instead.
    players = load_players(["random", py_bot("Spinner"), "random", "random"])
    t0 = time.monotonic()
    got = _in_a_thread(lambda: play_range(Rules(), players, 1, 0, 60, decision_timeout=0.3))
    assert isinstance(got, DecisionTimeoutError), got
    assert "(seat 1) took longer than 0.3 s to decide" in str(got) and "Spinner" in str(got)
    assert time.monotonic() - t0 < 20
    deadline = time.monotonic() + 5
    while any(t.name == "hsim-decision-timeout" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the watch thread outlived its games"
        time.sleep(0.05)


def test_a_timed_python_strategy_outside_the_main_thread_plays_as_in_it(py_bot):
    players = load_players(["random", py_bot("PyRandom"), "lowcard", py_bot("PyLowcard")])
    deals, games = play_range(Rules(), players, 5, 0, 3, decision_timeout=30.0)
    got = _in_a_thread(lambda: play_range(Rules(), players, 5, 0, 3, decision_timeout=30.0))
    assert np.array_equal(got[0], deals) and np.array_equal(got[1], games)


def test_a_new_game_hook_is_timed_and_hsims_own_start_of_a_game_is_not(py_bot, monkeypatch):
    with pytest.raises(DecisionTimeoutError, match=r"\(seat 2\) took longer than 0.3 s"):
        play_range(Rules(), load_players(["random"] * 2 + [py_bot("SlowStart"), "random"]),
                   1, 0, 1, decision_timeout=0.3)  # fmt: skip
    import hsim.play.games

    def slow_stream_state(*args):  # as a process's first game, loading compiled code
        time.sleep(0.4)
        return stream_state(*args)

    players = load_players(["random", py_bot("PyRandom"), "random", "random"])
    deals, games = play_range(Rules(), players, 1, 0, 1)
    monkeypatch.setattr(hsim.play.games, "stream_state", slow_stream_state)
    timed = play_range(Rules(), players, 1, 0, 1, decision_timeout=0.3)
    assert np.array_equal(timed[0], deals) and np.array_equal(timed[1], games)
