"""hsim.bridges.openspiel, the bridge both ways: hsim strategies as OpenSpiel bots on OpenSpiel's
``hearts`` (every action legal, hsim's deal score = 26 - OpenSpiel's return), and
OpenSpiel bots (ISMCTS) as hsim strategies inside a tournament under ``--rules openspiel``.
Skipped only where OpenSpiel cannot be imported.
"""

from __future__ import annotations

import json
import random

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install 'hsim[openspiel]')"
)

from click.testing import CliRunner  # noqa: E402

from hsim.bridges import openspiel as hos  # noqa: E402
from hsim.bridges.openspiel.bot import HsimBot, _placeholder_position  # noqa: E402
from hsim.bridges.openspiel.strategies import ISMCTS  # noqa: E402
from hsim.cli import main  # noqa: E402
from hsim.engine.layout import D_DEAL_SCORE  # noqa: E402
from hsim.model.notation import PositionSpec  # noqa: E402
from hsim.model.rules import PRESETS, Rules, RulesError  # noqa: E402
from hsim.play.games import play_range  # noqa: E402
from hsim.play.position import Position  # noqa: E402
from hsim.strategy.contract import StrategyError  # noqa: E402
from hsim.strategy.loader import load_players  # noqa: E402

# pimc at its cheapest useful setting: 300 deals with the default (80 worlds of
# heuristic playouts) take minutes; the bridge is the same whatever the setting.
BOTS = ("heuristic", "pimc(worlds=4,playouts=1)", "random")
DEALS = 300


def hsim_deal_scores(state, params) -> list[int]:
    """Replay a finished OpenSpiel deal in hsim; return hsim's deal score per seat."""
    history = state.history()
    direction = {v: k for k, v in hos.OS_PASS_ACTION.items()}[history[0]]
    dealt = [
        [hos.OS_TO_CARD[a] for k, a in enumerate(history[1:53]) if k % 4 == s] for s in range(4)
    ]
    rest = history[53:]
    passes = None
    if direction != "hold":
        passes = tuple(hos.os_mask(rest[3 * s : 3 * s + 3]) for s in range(4))
        rest = rest[12:]
    spec = PositionSpec(
        tuple(map(tuple, dealt)), direction, passes, tuple(hos.OS_TO_CARD[a] for a in rest)
    )
    position = Position.from_spec(spec, hos.hsim_rules(params))  # every play checked legal by hsim
    assert position.phase in ("deal_over", "game_over")
    return [int(x) for x in position.rows[:, D_DEAL_SCORE]]


def play_os_deal(game, bots, rng: random.Random, direction: str):
    state = game.new_initial_state()
    state.apply_action(hos.OS_PASS_ACTION[direction])
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        player = state.current_player()
        action = bots[player].step(state)
        assert action in state.legal_actions(), (player, action)
        state.apply_action(action)
    return state


def test_hsim_strategies_as_openspiel_bots():
    rng = random.Random(20261201)
    params = {}
    game = hos.os_game(params)
    seatings = [[BOTS[(d + s) % 3] for s in range(4)] for d in range(3)]
    bots = {
        k: [HsimBot(spec, p, game, seed=5) for p, spec in enumerate(seating)]
        for k, seating in enumerate(seatings)
    }
    seen = set()
    for d in range(DEALS):
        direction = hos.DIRECTIONS[d % 4]
        state = play_os_deal(game, bots[d % 3], rng, direction)
        returns = state.returns()
        scores = hsim_deal_scores(state, params)
        assert scores == [26 - r for r in returns], (d, direction)
        seen.update((s, seatings[d % 3][s]) for s in range(4))
    assert seen == {(s, b) for s in range(4) for b in BOTS}  # every bot in every seat


def test_hsim_bot_under_other_parameters():
    params = {"jd_bonus": True, "avoid_all_tricks_bonus": True, "can_lead_any_club": True}
    game = hos.os_game(params)
    bots = [HsimBot("heuristic", p, game) for p in range(4)]
    rng = random.Random(3)
    for d in range(20):
        state = play_os_deal(game, bots, rng, hos.DIRECTIONS[d % 4])
        assert hsim_deal_scores(state, params) == [26 - r for r in state.returns()]


def test_hsim_bot_sees_only_its_seat():
    """Two deals that agree on seat 0's cards and the public plays but differ in the other
    hands give the seat the same observation, hence the same answers."""
    game = hos.os_game({})
    rng = random.Random(1)
    state = game.new_initial_state()
    state.apply_action(1)
    for _ in range(52):
        state.apply_action(rng.choice(state.legal_actions()))
    view = hos.seat_view(state, 0)
    assert view.passed == view.received == 0 and len(view.dealt) == 13
    position = _placeholder_position(view, hos.hsim_rules({}))
    assert position.hand(0) == hos.os_hands(state)[0]
    bot = HsimBot("random", 0, game, seed=2)
    first = bot.step(state)
    assert first in state.legal_actions()


def test_rules_mapping_round_trip():
    for params in [{}, {"jd_bonus": True}, {"no_pts_on_first_trick": False}]:
        rules = hos.hsim_rules(params)
        assert hos.openspiel_params(rules) == {**hos.OS_DEFAULTS, **params}
    assert hos.openspiel_params(PRESETS["openspiel"]) == hos.OS_DEFAULTS
    with pytest.raises(RulesError, match="first_trick_only_points=queen"):
        hos.openspiel_params(Rules())
    with pytest.raises(RulesError, match="Kierki"):
        hos.openspiel_params(PRESETS["kierki4"])


def test_ismcts_seat_in_a_tournament(tmp_path):
    out = tmp_path / "run"
    r = CliRunner().invoke(
        main,
        [
            "tournament",
            "--rules",
            "openspiel",
            "--players",
            "openspiel:ismcts(simulations=20),heuristic,random,random",
            "--games",
            "1",
            "--seed",
            "4",
            "--workers",
            "1",
            "--rule",
            "end_score=40",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["players"][0]["spec"] == "openspiel:ismcts(simulations=20)"
    import pandas as pd

    deals = pd.read_parquet(out / "deals")
    assert len(deals) >= 4 and set(deals.seat) == {0, 1, 2, 3}
    assert deals.groupby("deal").points.sum().isin([26, 78]).all()


def test_ismcts_passes_from_every_seat():
    """The seats are rotated so the passer is OpenSpiel's player 0 (ISMCTS 2.0.2 crashes
    otherwise): an ISMCTS seat passes legally from each seat, in every direction."""
    rules = PRESETS["openspiel"]
    for seat in range(4):
        specs = ["random"] * 4
        specs[seat] = "openspiel:ismcts(simulations=10)"
        players = load_players(specs, rules)
        deals, games = play_range(rules, players, 9, 0, 1)
        assert len(games) == 4 and (deals[:, D_DEAL_SCORE].reshape(-1, 4).sum(1) >= 26).all()


def test_openspiel_strategies_refuse_rules_they_cannot_play():
    with pytest.raises(StrategyError, match="use --rules openspiel"):
        load_players(["openspiel:ismcts", "random", "random", "random"], Rules())
    r = CliRunner().invoke(
        main,
        ["tournament", "--players", "openspiel:mcts,random,random,random", "--games", "1"],
    )
    assert r.exit_code != 0 and "use --rules openspiel" in r.output and "Traceback" not in r.output
    with pytest.raises(StrategyError, match="unknown OpenSpiel bot"):
        load_players(["openspiel:nope", "random", "random", "random"], PRESETS["openspiel"])
    with pytest.raises(StrategyError, match="simulations"):
        ISMCTS(simulations=0)


def uniform_bot(game, seed, **params):
    """A bot factory for ``openspiel:module:attr``: OpenSpiel's uniform random bot."""
    return pyspiel.make_uniform_random_bot(0, seed)


def test_any_bot_factory_as_a_strategy():
    rules = PRESETS["openspiel"]
    spec = "openspiel:tests.test_openspiel_bridge:uniform_bot"
    players = load_players([spec, "openspiel:mcts(simulations=20)", "heuristic", "random"], rules)
    deals, games = play_range(rules, players, 2, 0, 1)
    assert len(games) == 4
    again = play_range(
        rules,
        load_players([spec, "openspiel:mcts(simulations=20)", "heuristic", "random"], rules),
        2,
        0,
        1,
    )
    assert (again[0] == deals).all()  # seeded: the same game again
