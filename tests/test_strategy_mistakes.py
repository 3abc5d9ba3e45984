"""User mistakes around strategies and replays: one clear error, never a traceback."""

import textwrap

import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import make_rules
from hsim.play.games import play_range
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import load_players

BOTS = """
class Broken:
    games = ("hearts", "kierki")
    def __init__(self, log="x"):
        self.log = int(log)
    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1

class BadNewGame:
    games = "Kierki"  # a single name, any case
    def new_game(self, seat, rules):
        raise KeyError("no table")
    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1

class FloatPlay:
    games = "kierki"
    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1 + 0.5

class LetterTrump:
    games = ("kierki",)
    def trump_choice(self, obs, rng):
        return "S"
    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1
"""


@pytest.fixture
def bots(tmp_path):
    path = tmp_path / "bots.py"
    path.write_text(textwrap.dedent(BOTS))
    return path


def _cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def test_a_strategy_that_cannot_be_made_is_a_clear_error(bots, tmp_path):
    r = _cli("tournament", "--rules", "kierki4", "--games", "3", "--out", tmp_path / "run",
             "--players", f"random,{bots}:Broken(log=x),random,random")  # fmt: skip
    assert r.exit_code != 0
    assert "Broken(log=x)" in r.output and "seat 1" in r.output and "could not be made" in r.output


def test_new_game_that_raises_names_strategy_seat_and_game(bots):
    rules = make_rules("kierki3")
    players = load_players(["random", "random", f"{bots}:BadNewGame"], rules)
    assert players[2].games == ("kierki",)
    with pytest.raises(StrategyError, match=r"\(seat 2\) raised KeyError: 'no table' in game 4"):
        play_range(rules, players, 1, 4, 6)


@pytest.mark.parametrize(
    ("name", "shown"),
    [("FloatPlay", r"answered \d+\.5 \(float\)"), ("LetterTrump", r"answered .S. \(str\)")],
)
def test_answers_that_are_not_ints_are_refused(bots, name, shown):
    rules = make_rules("kierki4")
    players = load_players([f"{bots}:{name}", "random", "random", "random"], rules)
    with pytest.raises(StrategyError, match=rf"\(seat 0\) raised TypeError: {shown}, not an int"):
        play_range(rules, players, 1, 0, 1)


def test_choose_refuses_a_strategy_of_the_other_game():
    deal = "/".join("".join(f"{r}{s}" for r in "23456789TJQKA") for s in "CDSH")
    r = _cli("choose", "--strategy", "kierki", "--deal", deal)
    assert r.exit_code != 0 and "does not play hearts" in r.output


def test_replay_of_a_run_folder_refuses_other_rules_and_players(tmp_path):
    out = tmp_path / "run"
    r = _cli("tournament", "--rules", "kierki3", "--players", "random,lowcard,random",
             "--games", "2", "--seed", "3", "--out", out, "--no-progress")  # fmt: skip
    assert r.exit_code == 0
    r = _cli("replay", out, "--game", "1", "--rules", "kierki4")
    assert r.exit_code != 0 and "drop --rules" in r.output
    r = _cli("replay", out, "--game", "1")
    assert r.exit_code == 0 and "lottery" in r.output and "warning" not in r.output


def test_replay_of_a_run_that_wrote_no_part(tmp_path):
    out = tmp_path / "run"
    r = _cli("tournament", "--rules", "kierki4", "--players", "random,lowcard,random,lowcard",
             "--games", "1", "--seed", "3", "--out", out, "--no-progress")  # fmt: skip
    assert r.exit_code == 0
    for part in [*(out / "deals").glob("*.parquet"), *(out / "games").glob("*.parquet")]:
        part.unlink()  # as a run that failed before its first part was written
    r = _cli("replay", out, "--game", "0")
    assert r.exit_code == 1 and "--allow-partial" in r.output  # games are missing
    r = _cli("replay", out, "--game", "0", "--allow-partial")
    assert r.exit_code == 0 and "deal 10  lottery" in r.output


def test_score_also_is_refused_for_kierki(tmp_path):
    r = _cli("tournament", "--rules", "kierki4", "--players", "random,random,random,random",
             "--games", "2", "--out", tmp_path / "run", "--score-also", "omnibus=true")  # fmt: skip
    assert r.exit_code != 0 and "Kierki has no scoring options to vary" in r.output
    assert not (tmp_path / "run").exists()


NATIVE = """
from numba import njit
from hsim.engine.native import PLAY_AT_SIG
from hsim.strategies import random_bot
from hsim.strategy.contract import CompiledStrategy

@njit
def lazy(public, private, legal, rng, params):
    return 0

ARRAY_ENTRY = CompiledStrategy(
    "a", random_bot.pass_cards, random_bot.play, native_play=random_bot.play
)
LAZY_ENTRY = CompiledStrategy("l", random_bot.pass_cards, random_bot.play, native_play=lazy)
PASS_AS_PLAY = CompiledStrategy("p", random_bot.pass_cards, random_bot.play,
                                native_pass=njit(PLAY_AT_SIG)(lambda p, v, l, r, k: 0))
"""


@pytest.mark.parametrize(
    ("attr", "field"),
    [
        ("ARRAY_ENTRY", "native_play"),
        ("LAZY_ENTRY", "native_play"),
        ("PASS_AS_PLAY", "native_pass"),
    ],
)
def test_a_native_entry_without_its_exact_signature_is_refused_at_load(tmp_path, attr, field):
    # The loops would call it at an address that cannot check its arguments.
    path = tmp_path / "native.py"
    path.write_text(textwrap.dedent(NATIVE))
    r = _cli("tournament", "--games", "3", "--out", tmp_path / "run",
             "--players", f"{path}:{attr},random,random,random")  # fmt: skip
    assert r.exit_code != 0
    assert f"its {field} is not usable" in r.output and "leave " + field + " unset" in r.output
    assert not (tmp_path / "run").exists()
