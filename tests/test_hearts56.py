"""Hearts for 5 and 6 players (docs/rules.md A1.1, ``players=5``/``6``, presets ``hearts5``
and ``hearts6``): the cards left out (``removed_pair`` with 5; 2D, 3D, 3C, 4C with 6), 10
or 8 cards and tricks, the lowest club's lead, the pass cycles and their targets, the moon
over 5 and 6 seats, perft against a brute force written here, conservation of points
over random games, every built-in bot's legality, and reproducibility whatever the
workers."""

from __future__ import annotations

import random

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.engine.layout import (
    D_DEAL,
    D_DEAL_SCORE,
    D_GAME,
    D_HAND,
    D_MOON,
    D_PASS_DIR,
    D_PASSED,
    D_POINTS,
    D_RECEIVED,
    D_SEAT,
    D_TAKEN,
    D_TRICKS,
    G_SCORE,
)
from hsim.engine.perft import perft
from hsim.errors import RulesError
from hsim.model.cards import FULL_DECK, format_mask, mask_of, parse_card
from hsim.model.notation import parse_deal
from hsim.model.rules import PRESETS, Rules, ineffective_options, make_rules, parse_rules
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from hsim.strategy.loader import load_players
from tests import brute_force

H5 = Rules(players=5)
H6 = Rules(players=6)
HEARTS = 0x1FFF << 39
QS = 1 << parse_card("QS")


def out_mask(*codes: str) -> int:
    return mask_of([parse_card(c) for c in codes])


DECK5 = FULL_DECK & ~out_mask("2D", "2C")
DECK6 = FULL_DECK & ~out_mask("2D", "3D", "3C", "4C")


def deals_of(rows: np.ndarray, n: int) -> np.ndarray:
    """Return deal rows grouped per deal: int64[deals, n, cols] (n rows a deal, seat order)."""
    assert len(rows) % n == 0
    d = rows.reshape(len(rows) // n, n, rows.shape[1])
    assert (d[:, :, D_SEAT] == list(range(n))).all()
    return d


def play(rules: Rules, specs: list[str], games: int, seed: int = 1):
    return play_range(rules, load_players(specs, rules), seed, 0, games)


# -- the rules ----------------------------------------------------------------------------


def test_the_presets_and_the_options():
    assert PRESETS["hearts5"] == H5 == make_rules("hearts5") == parse_rules("classic(players=5)")
    assert PRESETS["hearts6"] == H6 == parse_rules("classic(players=6)")
    assert parse_rules("hearts5(removed_pair=2D+2S)").removed_pair == "2D+2S"
    with pytest.raises(RulesError, match="players must be 3 or 4 or 5 or 6"):
        Rules(players=7)
    with pytest.raises(RulesError, match="Kierki is played by 3 or 4 players, not 5"):
        Rules(game="kierki", players=5)
    with pytest.raises(RulesError, match="removed_pair"):
        parse_rules("hearts5(removed_pair=2C+2S)")
    assert ineffective_options(Rules(removed_pair="2D+2S")) == [
        "removed_pair has effect only with players=5"
    ]
    assert ineffective_options(Rules(players=5, removed_pair="2D+2S")) == []


def test_the_bridges_refuse_five_and_six_players():
    from hsim.bridges.openspiel import openspiel_params  # deferred: the bridges' own imports
    from hsim.bridges.rl.envs import as_rules

    with pytest.raises(RulesError, match="4-player game"):
        openspiel_params(H5)
    with pytest.raises(RulesError, match="3 or 4 players, not 6"):
        as_rules("hearts6")


# -- the deal ----------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "size", "deck"), [(H5, 10, DECK5), (H6, 8, DECK6)])
def test_dealt_games_leave_out_the_rules_cards(rules, size, deck):
    n = rules.players
    deals, _ = play(rules, ["random"] * n, 20)
    d = deals_of(deals, n)
    hands = d[:, :, D_HAND]
    assert all(bin(int(h)).count("1") == size for h in hands.ravel())
    for deal in hands:
        union = 0
        for h in deal:
            assert union & int(h) == 0
            union |= int(h)
        assert union == deck
    assert (d[:, :, D_TRICKS].sum(axis=1) == size).all()


def test_removed_pair_leaves_those_cards_out():
    """docs/rules.md A1.1, option ``removed_pair``: the 2D and the 2S never dealt."""
    deals, _ = play(Rules(players=5, removed_pair="2D+2S"), ["random"] * 5, 20, seed=4)
    for deal in deals_of(deals, 5)[:, :, D_HAND]:
        assert int(np.bitwise_or.reduce(deal)) == FULL_DECK & ~out_mask("2D", "2S")


# Five seats, 10 cards each, the 2D and 2C out. Seat 1 holds the 3C and leads it; seat 0
# holds the AC as its only club and the nine top spades: it wins trick 1 with the AC and
# every later trick with the highest spade left, so it takes all 50 cards and shoots.
FIVE = [
    "AC AS KS QS JS TS 9S 8S 7S 6S",
    "3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "KC 3D 4D 5D 6D 7D 8D 9D TD JD",
    "QD KD AD 2S 3S 4S 5S 2H 3H 4H",
    "5H 6H 7H 8H 9H TH JH QH KH AH",
]
# The same for six seats, 8 cards each without the 2D, 3D, 3C and 4C: seat 1 leads the 2C.
SIX = [
    "AC AS KS QS JS TS 9S 8S",
    "2C 5C 6C 7C 8C 9C TC JC",
    "QC KC 4D 5D 6D 7D 8D 9D",
    "TD JD QD KD AD 2S 3S 4S",
    "5S 6S 7S 2H 3H 4H 5H 6H",
    "7H 8H 9H TH JH QH KH AH",
]


def test_five_seats_without_the_2c_the_3c_leads():
    p = Position.from_hands(FIVE, "hold", H5)
    assert p.to_act == 1 and p.phase == "play"
    assert int(p.legal()) == out_mask("3C")
    p.play("3C")
    assert p.to_act == 2 and format_mask(int(p.legal())) == "KC"
    # with the 2S out instead, the 2C is dealt and leads
    with_2c = [FIVE[0], FIVE[1].replace("3C", "2C"), FIVE[2], FIVE[3].replace("2S", "3C"), FIVE[4]]
    q = Position.from_hands(with_2c, "hold", Rules(players=5, removed_pair="2D+2S"))
    assert q.to_act == 1 and int(q.legal()) == out_mask("2C")
    with pytest.raises(ValueError, match="removed_pair=2D\\+2C leaves the 2C out"):
        Position.from_hands(with_2c, "hold", H5)
    with pytest.raises(ValueError, match="across"):
        Position.from_hands(FIVE, "across", H5)
    with pytest.raises(ValueError, match="10"):
        Position.from_hands([h[3:] for h in FIVE], "hold", H5)
    assert len(parse_deal("/".join(h.replace(" ", "") for h in FIVE))) == 5
    assert len(parse_deal("/".join(h.replace(" ", "") for h in SIX))) == 6
    with pytest.raises(ValueError, match="leaves out the 2D and the 2C or 2S"):
        parse_deal("/".join(h.replace(" ", "") for h in with_2c).replace("AH", "2D"))
    with pytest.raises(ValueError, match="leaves out the 2D, 3D, 3C and 4C"):
        parse_deal("/".join(h.replace(" ", "") for h in SIX).replace("AH", "3D"))


@pytest.mark.parametrize(
    ("moon", "scores"), [("classic", [0] + [26] * 5), ("shooter_gains", [-26] + [0] * 5)]
)
@pytest.mark.parametrize("hands", [FIVE, SIX], ids=["five", "six"])
def test_a_moon_of_26_over_five_and_six_seats(hands, moon, scores):
    n = len(hands)
    p = Position.from_hands(hands, "hold", Rules(players=n, moon=moon))
    p.play_out()
    rows = p.rows
    assert len(rows) == n
    assert list(rows[:, D_POINTS]) == [26] + [0] * (n - 1)
    assert list(rows[:, D_TRICKS]) == [52 // n] + [0] * (n - 1)
    assert list(rows[:, D_MOON]) == [1] + [0] * (n - 1)
    assert list(rows[:, D_DEAL_SCORE]) == scores[:n]
    assert int(rows[0, D_TAKEN]) & (HEARTS | QS) == HEARTS | QS


def test_a_shot_moon_pays_26_to_each_of_four_or_five_others():
    """A moon found in random games: the shooter 0 and every other seat 26 (classic)."""
    for rules in (H5, H6):
        n = rules.players
        deals, _ = play(rules, ["random"] * n, 400, seed=21)
        d = deals_of(deals, n)
        moon = d[:, :, D_MOON].any(axis=1)
        assert moon.sum() > 0
        shot = d[moon]
        assert (shot[:, :, D_DEAL_SCORE].sum(axis=1) == 26 * (n - 1)).all()
        shooter = shot[:, :, D_MOON].argmax(axis=1)
        assert (shot[np.arange(len(shot)), shooter, D_POINTS] == 26).all()
        assert (shot[np.arange(len(shot)), shooter, D_DEAL_SCORE] == 0).all()


# -- passing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "directions", "shifts"),
    [
        (5, [0, 1, 3, 0, 1, 3, 0, 1], {0: 1, 1: 4}),  # left, right, hold: never across
        (6, [0, 1, 2, 3, 0, 1, 2, 3], {0: 1, 1: 5, 2: 3}),  # across: three seats on
    ],
)
def test_pass_cycle_and_targets(players, directions, shifts):
    rules = Rules(players=players, max_deals=8, end_score=10_000)
    deals, _ = play(rules, ["random"] * players, 2, seed=5)
    d = deals_of(deals, players)
    for game in (0, 1):
        mine = d[d[:, 0, D_GAME] == game]
        assert list(mine[:, 0, D_DEAL]) == list(range(8))
        assert list(mine[:, 0, D_PASS_DIR]) == directions
        for deal in mine:
            direction = int(deal[0, D_PASS_DIR])
            if direction == 3:
                assert (deal[:, D_PASSED] == 0).all() and (deal[:, D_RECEIVED] == 0).all()
                continue
            for s in range(players):
                assert deal[(s + shifts[direction]) % players, D_RECEIVED] == deal[s, D_PASSED]
                assert bin(int(deal[s, D_PASSED])).count("1") == 3


# -- perft against a brute force ------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "rules"),
    [(0, H5), (1, H5), (2, Rules(players=5, removed_pair="2D+2S")), (3, H6), (4, H6), (5, H6)],
)
def test_perft_equals_a_brute_force_on_random_positions(seed, rules):
    n = rules.players
    size = 52 // n
    deck_mask = DECK6 if n == 6 else FULL_DECK & ~out_mask(*rules.removed_pair.split("+"))
    rng = random.Random(seed)
    deck = [c for c in range(52) if deck_mask >> c & 1]
    rng.shuffle(deck)
    hands = [deck[size * s : size * s + size] for s in range(n)]
    p = Position.from_hands(hands, "hold", rules)
    opening = min(c for c in deck if c < 13)
    state = brute_force.start(hands, next(s for s in range(n) if opening in hands[s]))
    for _ in range(rng.randrange(0, 3 * size)):  # walk into the deal, both models in step
        legal = brute_force.legal(state, opening)
        assert set(p.legal()) == legal
        card = rng.choice(sorted(legal))
        p.play(card)
        state = brute_force.play(state, card, n)
    assert p.to_act == state["to_act"]
    for depth in (1, 2, 3, 4):
        got = int(perft(p.state.public, p.state.private, p.rules_array, depth))
        assert got == brute_force.count(state, depth, opening, n, size)


# -- conservation over random games ---------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        H5,
        H6,
        Rules(players=5, removed_pair="2D+2S"),
        Rules(players=5, omnibus=True, no_trick_bonus="no_points", moon="new_moon"),
        Rules(players=6, black_maria=True, passing="right"),
        Rules(players=6, heart_points="rank", moon="smart"),
    ],
    ids=["h5", "h6", "no_2s", "h5_options", "h6_black_maria", "h6_spot"],
)
def test_points_are_conserved_over_thousands_of_random_games(rules):
    n = rules.players
    deals, games = play(rules, ["random"] * n, 1500, seed=11)
    d = deals_of(deals, n)
    assert len(d) > 3_000  # Spot Hearts' games end after a few deals
    points = d[:, :, D_POINTS]
    deck = {"one": 26, "rank": 117}[rules.heart_points] + (17 if rules.black_maria else 0)
    assert (points.sum(axis=1) == deck).all()
    moon = d[:, :, D_MOON].any(axis=1)
    assert (points[moon] == deck).any(axis=1).all()
    assert len(games) == n * 1500
    if rules in (H5, H6):
        plain = d[~moon]
        assert (plain[:, :, D_DEAL_SCORE] == plain[:, :, D_POINTS]).all()
        for g in (0, 1, 1499):
            mine = deals[deals[:, D_GAME] == g]
            total = mine[:, D_DEAL_SCORE].reshape(-1, n).sum(axis=0)
            assert list(games[n * g : n * g + n, G_SCORE]) == list(total)


# -- every built-in bot plays legally --------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "games"),
    [
        (["random", "lowcard", "duck", "heuristic", "shooter"], 200),
        (["heuristic"] * 6, 200),
        (["shooter", "heuristic", "duck", "random", "lowcard", "shooter"], 200),
        (["pimc(worlds=6)", "heuristic", "duck", "random", "lowcard"], 3),
        (["duck", "pimc(worlds=6)", "random", "heuristic", "shooter", "lowcard"], 3),
    ],
)
def test_every_builtin_bot_plays_legally(specs, games):
    # The engine validates every pass and play and raises StrategyError on a bad one.
    n = len(specs)
    for rules in (Rules(players=n, omnibus=True), Rules(players=n, heart_points="rank")):
        deals, _ = play(rules, specs, games, seed=3)
        d = deals_of(deals, n)
        assert (d[:, :, D_TRICKS].sum(axis=1) == 52 // n).all()


@pytest.mark.parametrize("n", [5, 6])
def test_heuristic_beats_random_with_five_and_six_seats(n):
    # Not only legal: heuristic's seat arithmetic works for 5 and 6 (it takes fewer points).
    deals, _ = play(Rules(players=n), ["heuristic"] + ["random"] * (n - 1), 300, seed=7)
    mean = deals_of(deals, n)[:, :, D_POINTS].mean(axis=0)
    assert all(mean[0] < mean[s] - 1 for s in range(1, n))


# -- reproducibility and the command line ----------------------------------------------------


def test_the_same_datasets_with_one_worker_or_two(tmp_path):
    config = RunConfig(H6, ("random", "heuristic", "duck", "shooter", "lowcard", "random"),
                       90, 4, chunk_size=15, duplicate=True)  # fmt: skip
    out = {}
    for workers in (1, 2):
        result = run_tournament(config, tmp_path / str(workers), workers=workers, progress=False)
        assert result.status == "complete"
        out[workers] = {
            d: pq.read_table(tmp_path / str(workers) / d).sort_by([("game", "ascending")])
            for d in ("deals", "games")
        }
    for dataset in ("deals", "games"):
        assert out[1][dataset].equals(out[2][dataset])
    assert set(out[1]["deals"].column("seat").to_pylist()) == set(range(6))
    assert len(set(out[1]["games"].column("game").to_pylist())) == 6 * 90  # 6 rotations


def test_the_command_line_runs_reports_and_replays_a_five_seat_tournament(tmp_path):
    runner = CliRunner()
    run = tmp_path / "h5"
    players = "random,heuristic,duck,shooter,lowcard"
    args = ["tournament", "--rules", "hearts5", "--players", players, "--record", "plays"]
    result = runner.invoke(main, [*args, "--games", "20", "--seed", "1", "--out", str(run)])
    assert result.exit_code == 0, result.output
    report = runner.invoke(main, ["report", str(run)])
    assert report.exit_code == 0, report.output
    assert "shooter" in report.output and "Traceback" not in report.output
    replay = runner.invoke(main, ["replay", str(run), "--game", "0"])
    assert replay.exit_code == 0, replay.output
    assert " 2D" not in replay.output and " 2C" not in replay.output
    view = runner.invoke(main, ["view", str(run), "--game", "0", "--out", str(tmp_path / "v.html")])
    assert view.exit_code == 0, view.output
    seat4 = runner.invoke(
        main, ["view", str(run), "--game", "0", "--seat", "4", "--out", str(tmp_path / "s.html")]
    )
    assert seat4.exit_code == 0, seat4.output
    seat5 = runner.invoke(
        main, ["view", str(run), "--game", "0", "--seat", "5", "--out", str(tmp_path / "t.html")]
    )
    assert seat5.exit_code == 2 and "0..4, not 5" in seat5.output
    # the plays columns carry seats 4 (a third seat bit): every seat's plays are read back
    deals = pq.read_table(run / "deals").to_pandas()
    assert set(deals["seat"]) == set(range(5))
    bad = runner.invoke(
        main, [*args[:3], "--players", "random,random,random,random", "--games", "2",
               "--out", str(tmp_path / "bad")],
    )  # fmt: skip
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_positions_from_text_perft_and_choose_with_five_seats():
    deal = "/".join(h.replace(" ", "") for h in FIVE)
    runner = CliRunner()
    result = runner.invoke(main, ["perft", "--rules", "hearts5", "--deal", deal, "--depth", "3"])
    assert result.exit_code == 0, result.output
    p = Position.from_hands(FIVE, "hold", H5)
    assert str(int(perft(p.state.public, p.state.private, p.rules_array, 3))) in result.output
    left = Position.from_hands(FIVE, "left", H5)
    left.pass_cards(["QS KS AS", "8C 9C TC", "3D 4D 5D", "2H 3H 4H", "5H 6H 7H"])
    assert format_mask(int(left.hand(1))) == "3C 4C 5C 6C 7C JC QC QS KS AS"
    text = left.to_text()
    assert Position.from_text(text, H5).to_text() == text
    wrong = runner.invoke(main, ["perft", "--rules", "hearts6", "--deal", deal, "--depth", "1"])
    assert wrong.exit_code != 0 and "Traceback" not in wrong.output
    scores = runner.invoke(
        main,
        ["choose", "--rules", "hearts5", "--deal", deal, "--strategy", "heuristic",
         "--scores", "10,20,30,40,50"],
    )  # fmt: skip
    assert scores.exit_code == 0, scores.output
    few = runner.invoke(
        main,
        ["choose", "--rules", "hearts5", "--deal", deal, "--strategy", "heuristic",
         "--scores", "10,20,30"],
    )  # fmt: skip
    assert few.exit_code != 0 and "one per seat" in few.output
