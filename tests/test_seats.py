"""How the compiled loops call a seat: light built-in bots directly, heavy ones at their
native entries, others through their function values (hsim.play.seats), with the same
records every way."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

import hsim.play.games
from hsim.engine.bits import highest_card
from hsim.engine.layout import MAX_SEATS
from hsim.engine.native import PLAY_AT_SIG, native_address
from hsim.engine.signatures import PLAY_SIG
from hsim.model.rules import make_rules
from hsim.play import seats
from hsim.play.games import play_range
from hsim.play.hearts_game import play_games, play_games_with
from hsim.play.seats import (
    A_PASS,
    A_PLAY,
    BY_PROGRAM,
    C_MOON,
    C_PASS,
    C_PLAY,
    C_TRUMP,
    INLINED,
    NATIVE,
    seat_codes,
)
from hsim.strategies import duck, heuristic, kierki, lowcard, random_bot
from hsim.strategy.contract import CompiledStrategy
from hsim.strategy.loader import LoadedStrategy, load, load_players
from tests.bots.compiled_bots import MIRROR_RANDOM


def test_light_builtins_are_called_directly():
    codes = seat_codes([load(name).compiled for name in ("random", "lowcard", "duck")])
    assert codes.shape == (MAX_SEATS, seats.N_CODES) and codes.dtype == np.int64
    assert (codes[3:] == 0).all()  # the seats past the bundles' are left 0
    # Each code names the very function the seat's bundle holds.
    for s, bot in enumerate((random_bot, lowcard, duck)):
        assert seats.PASS_BUILTINS[codes[s, C_PASS] - 1] is bot.pass_cards
        assert seats.PLAY_BUILTINS[codes[s, C_PLAY] - 1] is bot.play
        assert seats.MOON_BUILTINS[codes[s, C_MOON] - 1] is bot.STRATEGY.moon_choice
    assert seats.TRUMP_BUILTINS[codes[0, C_TRUMP] - 1] is random_bot.trump_choice
    assert codes[:, A_PASS:].tolist() == [[0, 0]] * MAX_SEATS  # no native entries
    assert codes[3].tolist() == [BY_PROGRAM] * seats.N_CODES  # no fourth bundle


def test_heuristic_is_called_at_its_native_entries():
    codes = seat_codes([load("heuristic").compiled])
    assert codes[0, C_PASS] == codes[0, C_PLAY] == NATIVE
    assert codes[0, A_PASS] == native_address(heuristic.pass_at, heuristic.PASS_AT_SIG)
    assert codes[0, A_PLAY] == native_address(heuristic.play_at, PLAY_AT_SIG)
    assert codes[0, A_PLAY] not in (0, codes[0, A_PASS])
    assert codes[0, C_MOON] == BY_PROGRAM  # its moon choice has no native entry


def test_the_kierki_bot_plays_at_its_native_entry():
    codes = seat_codes([load("kierki").compiled])
    assert codes[0, C_PLAY] == NATIVE
    assert codes[0, A_PLAY] == native_address(kierki.play_at, PLAY_AT_SIG)
    assert codes[0, C_TRUMP] == BY_PROGRAM and codes[0, A_PASS] == 0


def test_other_functions_go_through_their_function_values():
    bundle = load("heuristic").compiled
    mixed = CompiledStrategy("mixed", bundle.pass_cards, random_bot.play)  # no native entries
    codes = seat_codes([mixed, MIRROR_RANDOM])
    assert codes[0, C_PASS] == BY_PROGRAM and codes[0, C_PLAY] != BY_PROGRAM
    assert codes[1, C_PLAY] == BY_PROGRAM  # a user's play
    assert codes[1, C_PASS] != BY_PROGRAM  # ... with random's pass, called directly


def test_a_native_entry_must_have_its_signature():
    # A call at an address cannot check its arguments: anything else is refused.
    with pytest.raises(TypeError, match="signature"):
        native_address(heuristic.play, PLAY_AT_SIG)  # the array signature
    with pytest.raises(TypeError, match="compiled with"):
        native_address(lambda *a: 0, PLAY_AT_SIG)
    wrong = CompiledStrategy(
        "wrong", random_bot.pass_cards, random_bot.play, native_play=heuristic.play
    )
    with pytest.raises(TypeError):
        seat_codes([wrong])


def _all_by_function_value(bundles, inlined=None):
    return np.zeros((4, seats.N_CODES), np.int64)


@pytest.mark.parametrize(
    ("preset", "options", "specs"),
    [
        ("classic", [], ["random", "lowcard", "duck", "random"]),
        (
            "classic",
            ["moon=new_moon", "new_moon_any_score=true"],  # moon choices asked
            ["lowcard", "duck", "random", "duck"],
        ),
        ("kierki4", [], ["random", "lowcard", "random", "lowcard"]),
        ("kierki3", ["allow_no_trump=true"], ["lowcard", "random", "random"]),
        ("classic", [], ["heuristic", "random", "heuristic", "duck"]),
        ("kierki4", [], ["kierki", "random", "kierki", "lowcard"]),
        ("kierki3", ["allow_no_trump=true"], ["kierki", "kierki", "random"]),
        (
            "classic",
            ["omnibus=true", "moon=new_moon", "first_trick_points=allowed"],
            ["heuristic", "heuristic", "lowcard", "heuristic"],
        ),
    ],
)
def test_direct_calls_and_function_values_give_the_same_records(
    preset, options, specs, monkeypatch
):
    rules = make_rules(preset, options)
    players = load_players(specs, rules)
    assert seat_codes([p.compiled for p in players])[: len(players), C_PLAY].all()  # direct
    direct = play_range(rules, players, 7, 0, 40)
    monkeypatch.setattr(hsim.play.games, "seat_codes", _all_by_function_value)
    by_value = play_range(rules, players, 7, 0, 40)
    for a, b in zip(direct, by_value, strict=True):
        assert a.shape[0] > 0
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bot", ["random", "heuristic"])  # heuristic: its own loop
def test_the_loop_follows_the_codes(bot, monkeypatch):
    # What the comparisons rely on: the codes, not the bundles, pick what is called.
    rules = make_rules("classic")
    players = load_players([bot] * 4)
    direct = play_range(rules, players, 7, 0, 5)

    def lowcard_plays(bundles, inlined=None):
        codes = seat_codes(bundles, inlined)
        codes[:, C_PLAY] = 1 + seats.PLAY_BUILTINS.index(lowcard.play)
        return codes

    monkeypatch.setattr(hsim.play.games, "seat_codes", lowcard_plays)
    assert not np.array_equal(play_range(rules, players, 7, 0, 5)[0], direct[0])


@njit(PLAY_AT_SIG, cache=True, _nrt=False)
def _highest_or_nothing(public, private, legal, rng, params):
    """Play the highest legal card; with one legal card answer -1 (never legal)."""
    return -1 if legal & (legal - 1) == 0 else highest_card(legal)


@njit(PLAY_SIG, cache=True, _nrt=False)
def _highest(public, private, legal, rng, params):
    return highest_card(legal)


def _loaded(bundle):
    """Four seats of ``bundle`` (no parameters), as the loader gives them."""
    return [LoadedStrategy(bundle.name, bundle.name, "compiled", bundle, np.zeros(1))] * 4


def test_the_loop_calls_the_native_entry_and_plays_a_lone_card_itself():
    # A bundle whose native play differs from its play shows which one the loop calls;
    # its -1 for a lone legal card would end the run had the loop asked it.
    rules = make_rules("classic")
    native = CompiledStrategy(
        "n", random_bot.pass_cards, random_bot.play, native_play=_highest_or_nothing
    )
    by_native = play_range(rules, _loaded(native), 3, 0, 10)
    highest = play_range(
        rules, _loaded(CompiledStrategy("h", random_bot.pass_cards, _highest)), 3, 0, 10
    )
    for a, b in zip(by_native, highest, strict=True):
        np.testing.assert_array_equal(a, b)
    codes = seat_codes([native] * 4)[:4]
    assert (codes[:, C_PLAY] == NATIVE).all() and (codes[:, A_PASS] == 0).all()


NO_JIT_GAME = """
import hashlib, sys
from hsim.strategy.loader import load_players
from hsim.play.games import play_range
from hsim.model.rules import make_rules
rules = make_rules("classic", ["omnibus=true"])
deals, games = play_range(rules, load_players(["heuristic", "random"] * 2), 5, 0, 2)
print(hashlib.sha256(deals.tobytes() + games.tobytes()).hexdigest())
"""


def test_native_entries_without_jit_give_the_same_records():
    # Under NUMBA_DISABLE_JIT nothing is compiled: every seat goes through its function,
    # and heuristic's play and pass run their entries' plain-Python code over the arrays.
    digests = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        done = subprocess.run(
            [sys.executable, "-c", NO_JIT_GAME],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        digests.append(done.stdout.strip())
    assert len(digests[0]) == 64 and digests[0] == digests[1]


def test_heuristic_gets_a_loop_of_its_own_and_only_its_seats_are_inlined():
    bundles = [load(name).compiled for name in ("heuristic", "random", "heuristic", "duck")]
    loop, inlined = hsim.play.games.hearts_loop(bundles)
    assert inlined is bundles[0] and loop is play_games_with(inlined)  # compiled once
    assert loop.py_func.__qualname__ == "play_games_with_heuristic"
    codes = seat_codes(bundles, inlined)
    assert codes[[0, 2], C_PASS].tolist() == codes[[0, 2], C_PLAY].tolist() == [INLINED] * 2
    assert codes[[1, 3], C_PLAY].tolist() == seat_codes(bundles)[[1, 3], C_PLAY].tolist()
    assert hsim.play.games.hearts_loop(bundles[1::2]) == (play_games, None)  # no heuristic


@pytest.mark.parametrize(
    ("options", "specs"),
    [
        ([], ["heuristic"] * 4),
        (["omnibus=true", "moon=new_moon"], ["heuristic", "random", "duck", "heuristic"]),
        (["first_trick_points=allowed", "passing=none"], ["lowcard", "heuristic"] * 2),
    ],
)
def test_heuristic_in_its_loop_and_at_its_native_entries_gives_the_same_records(
    options, specs, monkeypatch
):
    rules = make_rules("classic", options)
    players = load_players(specs, rules)
    assert hsim.play.games.hearts_loop([p.compiled for p in players])[1] is not None
    inlined = play_range(rules, players, 11, 0, 60)
    monkeypatch.setattr(hsim.play.games, "hearts_loop", lambda bundles: (play_games, None))
    native = play_range(rules, players, 11, 0, 60)
    for a, b in zip(inlined, native, strict=True):
        assert a.shape[0] > 0
        np.testing.assert_array_equal(a, b)


def test_only_a_built_in_bot_goes_into_a_loop():
    native = CompiledStrategy(
        "n", random_bot.pass_cards, random_bot.play, native_play=_highest_or_nothing,
        native_pass=random_bot.pass_cards, in_loop=True,
    )  # fmt: skip
    with pytest.raises(ValueError, match="only a built-in bot"):
        play_games_with(native)


def test_asking_whether_a_run_compiled_builds_no_loop(monkeypatch):
    # A run whose heuristic seats never played in a compiled loop (a Python seat at the
    # table, a failed load) must not compile heuristic's loop just to report on it.
    from hsim.play import hearts_game as game
    from hsim.runner.chunk import compiled_here

    monkeypatch.setattr(game, "_LOOPS_WITH", {})
    assert compiled_here(load_players(["heuristic"] * 4)) in (True, False)
    assert game.loops_with_bots() == ()


def test_a_native_address_is_found_once_and_again_after_a_recompile():
    entry = njit(PLAY_AT_SIG)(lambda public, private, legal, rng, params: legal & 1)
    first = native_address(entry, PLAY_AT_SIG)
    looked_up = []
    cres = next(iter(entry.overloads.values()))
    real = cres.library.get_pointer_to_function
    cres.library.get_pointer_to_function = lambda name: looked_up.append(name) or real(name)
    assert native_address(entry, PLAY_AT_SIG) == first
    assert looked_up == []  # remembered: no look-up, no type checks
    entry.recompile()  # a new compile result, with code of its own: looked up again
    again = next(iter(entry.overloads.values()))
    assert again is not cres
    assert native_address(entry, PLAY_AT_SIG) == again.library.get_pointer_to_function(
        again.fndesc.llvm_func_name
    )
    with pytest.raises(TypeError, match="signature"):  # a refusal is never remembered
        native_address(heuristic.play, PLAY_AT_SIG)
    with pytest.raises(TypeError, match="signature"):
        native_address(heuristic.play, PLAY_AT_SIG)


FILE_NAMED_HEURISTIC = """
from numba import njit

from hsim.engine.bits import lowest_card
from hsim.engine.layout import V_HAND
from hsim.engine.native import PASS_AT_SIG, PLAY_AT_SIG
from hsim.strategies import lowcard
from hsim.strategy.contract import CompiledStrategy


@njit(PLAY_AT_SIG)
def play_at(public, private, legal, rng, params):
    return lowest_card(legal)


@njit(PASS_AT_SIG)
def pass_at(public, private, rng, params):
    hand = private[V_HAND]
    out = 0
    for _ in range(3):
        out |= 1 << lowest_card(hand & ~out)
    return out


STRATEGY = CompiledStrategy(
    "heuristic", lowcard.STRATEGY.pass_cards, lowcard.STRATEGY.play,
    native_pass=pass_at, native_play=play_at, in_loop=True,
)
"""


def test_a_strategy_file_of_a_builtins_name_never_plays_in_its_loop(tmp_path):
    # The built-in's loop is kept by the bot's name; a strategy file that takes the same
    # name and asks for a loop must still play its own decisions, at its native entries.
    from hsim.play import hearts_game as game

    builtin = load_players(["heuristic"] * 4)
    play_range(make_rules("classic"), builtin, 1, 0, 1)  # the built-in's loop is made
    path = tmp_path / "named_heuristic.py"
    path.write_text(FILE_NAMED_HEURISTIC)
    mine = load_players([f"{path}:STRATEGY"] * 4)
    bundles = [p.compiled for p in mine]
    assert hsim.play.games.hearts_loop(bundles) == (play_games, None)
    assert not game.can_play_in_loop(bundles[0]) and game.can_play_in_loop(builtin[0].compiled)
    with pytest.raises(ValueError, match="built-in"):
        play_games_with(bundles[0])
    codes = seat_codes(bundles)[:4]
    assert (codes[:, C_PLAY] == NATIVE).all() and (codes[:, C_PASS] == NATIVE).all()
    rows, _ = play_range(make_rules("classic"), mine, 1, 0, 5)
    again, _ = play_range(make_rules("classic"), builtin, 1, 0, 5)
    assert not np.array_equal(rows, again)  # its own decisions, not heuristic's
