"""Hearts for 3 players (docs/rules.md A1.1, ``players=3``, preset ``hearts3``): the deal
without the 2D (or the ``removed_card``), 17 cards and tricks, the 2C's (3C's) lead, the
pass cycle left, right, hold, the moon over 3 seats, perft against a brute force written
here, conservation of points over random games, every built-in bot's legality, and
reproducibility whatever the workers."""

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

H3 = Rules(players=3)
TWO_D = parse_card("2D")
DECK3 = FULL_DECK & ~(1 << TWO_D)
HEARTS = 0x1FFF << 39
QS = 1 << parse_card("QS")


def deals_of(rows: np.ndarray) -> np.ndarray:
    """Return deal rows grouped per deal: int64[deals, 3, cols] (3 rows per deal, seat order)."""
    assert len(rows) % 3 == 0
    d = rows.reshape(len(rows) // 3, 3, rows.shape[1])
    assert (d[:, :, D_SEAT] == [0, 1, 2]).all()
    return d


def play(rules: Rules, specs: list[str], games: int, seed: int = 1):
    return play_range(rules, load_players(specs, rules), seed, 0, games)


# -- the rules ----------------------------------------------------------------------------


def test_the_preset_and_the_option():
    assert PRESETS["hearts3"] == H3 == make_rules("hearts3") == parse_rules("classic(players=3)")
    assert parse_rules("hearts3(passing=left)").passing == "left"
    with pytest.raises(RulesError, match="players must be 3 or 4 or 5 or 6"):
        Rules(players=7)


def test_openspiel_refuses_three_players():
    from hsim.bridges.openspiel import openspiel_params  # deferred: the bridge's own import

    with pytest.raises(RulesError, match="4-player game"):
        openspiel_params(H3)


# -- the deal, from card names ------------------------------------------------------------


def test_dealt_games_leave_out_the_2d_and_give_17_cards():
    deals, _ = play(H3, ["random"] * 3, 20)
    d = deals_of(deals)
    hands = d[:, :, D_HAND]
    assert all(bin(int(h)).count("1") == 17 for h in hands.ravel())
    for deal in hands:
        a, b, c = (int(x) for x in deal)
        assert a & b == 0 and a & c == 0 and b & c == 0
        assert a | b | c == DECK3
    assert (d[:, :, D_TRICKS].sum(axis=1) == 17).all()


@pytest.mark.parametrize("removed", ["2D", "2C", "2S"])
def test_removed_card_leaves_that_card_out(removed):
    """docs/rules.md A1.1, option ``removed_card``: that card is never dealt."""
    out = parse_card(removed)
    deals, _ = play(Rules(players=3, removed_card=removed), ["random"] * 3, 20, seed=4)
    hands = deals_of(deals)[:, :, D_HAND]
    assert all(bin(int(h)).count("1") == 17 for h in hands.ravel())
    for deal in hands:
        assert int(deal[0]) | int(deal[1]) | int(deal[2]) == FULL_DECK & ~(1 << out)
    assert ineffective_options(Rules(players=3, removed_card=removed)) == []
    if removed != "2D":
        assert ineffective_options(Rules(removed_card=removed)) == [
            "removed_card has effect only with players=3"
        ]


# Seat 1 holds the 2C; seat 0 holds every heart, the QS, AS, KS and the AC: it wins
# every trick whatever the others play (spades and clubs above all of theirs, hearts
# never followed) and takes all 26 points.
MOON_HANDS = [
    "AC QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2C 3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 8D 9D 2S 3S 4S 5S",
    "8C 9C TC JC QC KC TD JD QD KD AD 6S 7S 8S 9S TS JS",
]


def test_the_2c_leads_and_a_hand_must_be_17_cards_without_the_2d():
    p = Position.from_hands(MOON_HANDS, "hold", H3)
    assert p.to_act == 1 and p.phase == "play"
    assert int(p.legal()) == mask_of([parse_card("2C")])
    with pytest.raises(ValueError, match="across"):
        Position.from_hands(MOON_HANDS, "across", H3)
    with_2d = [MOON_HANDS[0], MOON_HANDS[1].replace("3D", "2D"), MOON_HANDS[2]]
    with pytest.raises(ValueError, match="2D"):
        Position.from_hands(with_2d, "hold", H3)
    with pytest.raises(ValueError, match="17"):
        Position.from_hands([h[3:] for h in MOON_HANDS], "hold", H3)


def test_without_the_2c_the_3c_leads():
    """docs/rules.md A1.1 and A1.3, ``removed_card=2C``: the 2C is out and the 3C holder
    leads the 3C (any club with ``lead_any_club``); a hand holding the 2C is refused."""
    no_2c = [MOON_HANDS[0], MOON_HANDS[1].replace("2C", "2D"), MOON_HANDS[2]]
    rules = Rules(players=3, removed_card="2C")
    p = Position.from_hands(no_2c, "hold", rules)
    assert p.to_act == 1 and int(p.legal()) == mask_of([parse_card("3C")])
    p.play("3C")
    assert p.to_act == 2 and int(p.legal()) == mask_of(
        [parse_card(c) for c in ("8C", "9C", "TC", "JC", "QC", "KC")]
    )
    free = Position.from_hands(
        no_2c, "hold", Rules(players=3, removed_card="2C", lead_any_club=True)
    )
    assert format_mask(int(free.legal())) == "3C 4C 5C 6C 7C"
    with pytest.raises(ValueError, match="removed_card=2C leaves the 2C out"):
        Position.from_hands(MOON_HANDS, "hold", rules)
    with pytest.raises(ValueError, match="removed_card=2D leaves the 2D out"):
        Position.from_hands(no_2c, "hold", H3)
    assert len(parse_deal("/".join(h.replace(" ", "") for h in no_2c))) == 3
    no_5h = [MOON_HANDS[0].replace("5H", "2D"), MOON_HANDS[1], MOON_HANDS[2]]
    with pytest.raises(ValueError, match="leaves out the 2D, 2C or 2S"):
        parse_deal("/".join(h.replace(" ", "") for h in no_5h))


@pytest.mark.parametrize(
    ("moon", "scores"), [("classic", [0, 26, 26]), ("shooter_gains", [-26, 0, 0])]
)
def test_a_moon_of_26_over_three_seats(moon, scores):
    p = Position.from_hands(MOON_HANDS, "hold", Rules(players=3, moon=moon))
    p.play_out()
    rows = p.rows
    assert len(rows) == 3
    assert list(rows[:, D_POINTS]) == [26, 0, 0]
    assert list(rows[:, D_TRICKS]) == [17, 0, 0]
    assert list(rows[:, D_MOON]) == [1, 0, 0]
    assert list(rows[:, D_DEAL_SCORE]) == scores
    assert int(rows[0, D_TAKEN]) & (HEARTS | QS) == HEARTS | QS


def test_first_trick_discards_no_points_with_three_seats():
    # Seat 1 leads the 2C; seat 2 (void in clubs here) may not discard points on trick 1.
    hands = [
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C QS 2H 3H 4H 5H 6H",
        "2C 3C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S",
        "5S 6S 7S 8S 9S TS JS KS AS 7H 8H 9H TH JH QH KH AH",
    ]
    p = Position.from_hands(hands, "hold", H3)
    p.play("2C")
    assert p.to_act == 2
    assert format_mask(int(p.legal())) == "5S 6S 7S 8S 9S TS JS KS AS"


# -- passing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passing", "directions"),
    [
        ("cycle", [0, 1, 3, 0, 1, 3]),  # left, right, hold: never across
        ("left", [0] * 6),
        ("right", [1] * 6),
        ("none", [3] * 6),
    ],
)
def test_pass_directions_by_deal(passing, directions):
    rules = Rules(players=3, passing=passing, max_deals=6, end_score=10_000)
    deals, _ = play(rules, ["random"] * 3, 2, seed=5)
    d = deals_of(deals)
    for game in (0, 1):
        mine = d[d[:, 0, D_GAME] == game]
        assert list(mine[:, 0, D_DEAL]) == list(range(6))
        assert list(mine[:, 0, D_PASS_DIR]) == directions
        for deal in mine:
            direction = int(deal[0, D_PASS_DIR])
            if direction == 3:
                assert (deal[:, D_PASSED] == 0).all() and (deal[:, D_RECEIVED] == 0).all()
                continue
            shift = 1 if direction == 0 else 2  # left: seat + 1; right: seat - 1 = seat + 2
            for s in range(3):
                assert deal[(s + shift) % 3, D_RECEIVED] == deal[s, D_PASSED]
                assert bin(int(deal[s, D_PASSED])).count("1") == 3


# -- perft against a brute force ------------------------------------------------------------


@pytest.mark.parametrize(("seed", "removed"), [(0, "2D"), (1, "2D"), (2, "2D"), (3, "2C"),
                                               (4, "2C"), (5, "2S")])  # fmt: skip
def test_perft_equals_a_brute_force_on_random_three_seat_positions(seed, removed):
    rng = random.Random(seed)
    deck = [c for c in range(52) if c != parse_card(removed)]
    rng.shuffle(deck)
    hands = [deck[17 * s : 17 * s + 17] for s in range(3)]
    p = Position.from_hands(hands, "hold", Rules(players=3, removed_card=removed))
    opening = parse_card("3C" if removed == "2C" else "2C")
    state = brute_force.start(hands, next(s for s in range(3) if opening in hands[s]))
    for _ in range(rng.randrange(0, 40)):  # walk into the deal, both models in step
        legal = brute_force.legal(state, opening)
        assert set(p.legal()) == legal
        card = rng.choice(sorted(legal))
        p.play(card)
        state = brute_force.play(state, card, 3)
    assert p.to_act == state["to_act"]
    for depth in (1, 2, 3, 4):
        assert int(perft(p.state.public, p.state.private, p.rules_array, depth)) == (
            brute_force.count(state, depth, opening, 3, 17)
        )


def test_perft_stops_at_the_end_of_17_tricks():
    p = Position.from_hands(MOON_HANDS, "hold", H3)
    for _ in range(50):
        p.play(min(p.legal()))
    assert p.phase == "play" and len(p.hand(p.to_act)) == 1
    assert int(perft(p.state.public, p.state.private, p.rules_array, 2)) == 0
    assert int(perft(p.state.public, p.state.private, p.rules_array, 1)) == 1


# -- conservation over random games ---------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        H3,
        Rules(players=3, omnibus=True, no_trick_bonus="no_points", moon="new_moon"),
        Rules(players=3, removed_card="2C"),
        Rules(players=3, removed_card="2S"),
    ],
    ids=["classic", "options", "no_2c", "no_2s"],
)
def test_points_are_conserved_over_thousands_of_random_games(rules):
    deals, games = play(rules, ["random"] * 3, 2000, seed=11)
    d = deals_of(deals)
    assert len(d) > 10_000
    points = d[:, :, D_POINTS]
    assert (points.sum(axis=1) == 26).all()
    moon = d[:, :, D_MOON].any(axis=1)
    shot = (points == 26).any(axis=1)
    assert (shot[moon]).all()  # a moon needs all 26 points (and the JD with omnibus)
    assert 0 < moon.sum() < len(d)  # some moons among random players, not every deal
    assert len(games) == 3 * 2000
    if rules == H3:
        assert (moon == shot).all()
        plain = d[~moon]
        assert (plain[:, :, D_DEAL_SCORE] == plain[:, :, D_POINTS]).all()
        assert (d[moon][:, :, D_DEAL_SCORE].sum(axis=1) == 52).all()
        # game rows: 3 per game, the final scores the sums of the deal scores
        for g in (0, 1, 1999):
            mine = deals[deals[:, D_GAME] == g]
            total = mine[:, D_DEAL_SCORE].reshape(-1, 3).sum(axis=0)
            assert list(games[3 * g : 3 * g + 3, G_SCORE]) == list(total)


# -- every built-in bot plays legally --------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "games"),
    [
        (["random", "lowcard", "duck"], 300),
        (["heuristic", "heuristic", "heuristic"], 300),
        (["shooter", "heuristic", "duck"], 300),
        (["heuristic", "shooter", "random"], 300),
        (["pimc(worlds=6)", "heuristic", "duck"], 3),
        (["duck", "pimc(worlds=6,rollout=0,exact_cards=10)", "random"], 3),
    ],
)
def test_every_builtin_bot_plays_legally(specs, games):
    # The engine validates every pass and play and raises StrategyError on a bad one.
    for removed in ("2D", "2C"):
        rules = Rules(players=3, omnibus=True, removed_card=removed)
        deals, _ = play(rules, specs, games, seed=3)
        d = deals_of(deals)
        assert (d[:, :, D_POINTS].sum(axis=1) == 26).all()


def test_heuristic_beats_random_with_three_seats():
    # Not only legal: heuristic's seat arithmetic works for 3 (it takes fewer points).
    deals, _ = play(H3, ["heuristic", "random", "random"], 300, seed=7)
    d = deals_of(deals)
    mean = d[:, :, D_POINTS].mean(axis=0)
    assert mean[0] < mean[1] - 2 and mean[0] < mean[2] - 2


# -- reproducibility -------------------------------------------------------------------------


def test_the_same_datasets_with_one_worker_or_two(tmp_path):
    config = RunConfig(H3, ("random", "heuristic", "duck"), 120, 4, chunk_size=20)
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
    seats = out[1]["deals"].column("seat").to_pylist()
    assert set(seats) == {0, 1, 2}


def test_the_command_line_runs_reports_and_replays_a_three_seat_tournament(tmp_path):
    runner = CliRunner()
    run = tmp_path / "h3"
    args = ["tournament", "--rules", "hearts3", "--players", "random,heuristic,duck"]
    result = runner.invoke(main, [*args, "--games", "30", "--seed", "1", "--out", str(run)])
    assert result.exit_code == 0, result.output
    report = runner.invoke(main, ["report", str(run)])
    assert report.exit_code == 0, report.output
    assert "heuristic" in report.output
    replay = runner.invoke(main, ["replay", str(run), "--game", "0"])
    assert replay.exit_code == 0, replay.output
    assert "2D" not in replay.output
    view = runner.invoke(main, ["view", str(run), "--game", "0", "--out", str(tmp_path / "v.html")])
    assert view.exit_code == 0, view.output
    assert (tmp_path / "v.html").stat().st_size > 1000
    bad = runner.invoke(
        main,
        [
            *args[:3],
            "--players",
            "random,random,random,random",
            "--games",
            "2",
            "--out",
            str(tmp_path / "bad"),
        ],
    )
    assert bad.exit_code == 2 and "Traceback" not in bad.output


# -- positions from text ---------------------------------------------------------------------


def test_a_three_seat_position_reads_and_writes_its_deal_string():
    p = Position.from_hands(MOON_HANDS, "left", H3)
    p.pass_cards(["QS KS AS", "5S 4S 3S", "JS TS 9S"])
    assert format_mask(int(p.hand(1))) == (
        "2C 3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 8D 9D 2S QS KS AS"
    )  # seat 1 got seat 0's pass (left)
    p.play("2C")
    text = p.to_text()
    assert text.count("/") == 2 + 2  # three hands, three passes
    q = Position.from_text(text, H3)
    assert q.to_text() == text and q.to_act == p.to_act
    with pytest.raises(ValueError, match="3 passes"):
        Position.from_hands(MOON_HANDS, "left", H3).pass_cards(["QS KS AS"] * 4)
    deal = "/".join(h.replace(" ", "") for h in MOON_HANDS)
    runner = CliRunner()
    args = ["perft", "--rules", "hearts3", "--deal", deal, "--depth", "3"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    spec = Position.from_hands(MOON_HANDS, "hold", H3)
    count = int(perft(spec.state.public, spec.state.private, spec.rules_array, 3))
    assert str(count) in result.output
    four = runner.invoke(
        main, ["perft", "--rules", "hearts3", "--deal", deal + "/2D", "--depth", "1"]
    )
    assert four.exit_code == 2 and "Traceback" not in four.output


def test_rescoring_three_seat_deals_equals_the_engines_other_scoring():
    """--score-also in the engine and the re-scoring of the recorded deals (hsim report
    --scoring) agree game by game over 3 seats."""
    from hsim.analysis.rescoring import rescore  # deferred: analysis above the engine tests
    from hsim.engine.layout import D_JACK_DIAMONDS, G_GAME, G_SCORING, G_SEAT

    other = Rules(players=3, omnibus=True, end_score=60)
    deals, games = play_range(
        H3, load_players(["random", "heuristic", "duck"], H3), 8, 0, 200, scorings=(other,)
    )
    d = deals_of(deals)
    jack_rows = d[:, :, D_JACK_DIAMONDS].astype(bool)
    jack = np.where(jack_rows.any(axis=1), jack_rows.argmax(axis=1), -1)
    result = rescore(other, d[:, 0, D_GAME], d[:, :, D_POINTS], d[:, :, D_TRICKS], jack)
    assert (result.ended_by >= 0).all()
    mine = games[games[:, G_SCORING] == 1]
    mine = mine[np.lexsort((mine[:, G_SEAT], mine[:, G_GAME]))]
    assert (mine[:, G_SCORE].reshape(-1, 3) == result.final).all()
    assert result.final.shape == (200, 3)
