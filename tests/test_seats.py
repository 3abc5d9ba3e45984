"""How the compiled loops call a seat: built-in bots directly, others through their
function values (hsim.engine.seats), with the same records either way."""

from __future__ import annotations

import numpy as np
import pytest

import hsim.play
from hsim.engine import seats
from hsim.engine.seats import BY_PROGRAM, C_MOON, C_PASS, C_PLAY, C_TRUMP, seat_codes
from hsim.loader import load, load_players
from hsim.play import play_range
from hsim.rules import make_rules
from hsim.strategies import duck, lowcard, random_bot
from hsim.strategy import CompiledStrategy
from tests.bots.compiled_bots import MIRROR_RANDOM


def test_light_builtins_are_called_directly():
    codes = seat_codes([load(name).compiled for name in ("random", "lowcard", "duck")])
    assert codes.shape == (4, seats.N_DECISIONS) and codes.dtype == np.int64
    # Each code names the very function the seat's bundle holds.
    for s, bot in enumerate((random_bot, lowcard, duck)):
        assert seats.PASS_BUILTINS[codes[s, C_PASS] - 1] is bot.pass_cards
        assert seats.PLAY_BUILTINS[codes[s, C_PLAY] - 1] is bot.play
        assert seats.MOON_BUILTINS[codes[s, C_MOON] - 1] is bot.STRATEGY.moon_choice
    assert seats.TRUMP_BUILTINS[codes[0, C_TRUMP] - 1] is random_bot.trump_choice
    assert codes[3].tolist() == [BY_PROGRAM] * seats.N_DECISIONS  # no fourth bundle


def test_other_functions_go_through_their_function_values():
    heuristic = load("heuristic").compiled
    mixed = CompiledStrategy("mixed", heuristic.pass_cards, random_bot.play)
    codes = seat_codes([heuristic, MIRROR_RANDOM, mixed])
    assert codes[0, C_PASS] == codes[0, C_PLAY] == codes[0, C_MOON] == BY_PROGRAM
    assert codes[1, C_PLAY] == BY_PROGRAM  # a user's play
    assert codes[1, C_PASS] != BY_PROGRAM  # ... with random's pass, called directly
    assert codes[2, C_PASS] == BY_PROGRAM and codes[2, C_PLAY] != BY_PROGRAM


def _all_by_function_value(bundles):
    return np.zeros((4, seats.N_DECISIONS), np.int64)


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
    ],
)
def test_direct_calls_and_function_values_give_the_same_records(
    preset, options, specs, monkeypatch
):
    rules = make_rules(preset, options)
    players = load_players(specs, rules)
    assert seat_codes([p.compiled for p in players])[: len(players), C_PLAY].all()  # direct
    direct = play_range(rules, players, 7, 0, 40)
    monkeypatch.setattr(hsim.play, "seat_codes", _all_by_function_value)
    by_value = play_range(rules, players, 7, 0, 40)
    for a, b in zip(direct, by_value, strict=True):
        assert a.shape[0] > 0
        np.testing.assert_array_equal(a, b)


def test_the_loop_follows_the_codes(monkeypatch):
    # What the comparison above relies on: the codes, not the bundles, pick what is called.
    rules = make_rules("classic")
    players = load_players(["random"] * 4)
    direct = play_range(rules, players, 7, 0, 5)

    def lowcard_plays(bundles):
        codes = seat_codes(bundles)
        codes[:, C_PLAY] = 1 + seats.PLAY_BUILTINS.index(lowcard.play)
        return codes

    monkeypatch.setattr(hsim.play, "seat_codes", lowcard_plays)
    assert not np.array_equal(play_range(rules, players, 7, 0, 5)[0], direct[0])
