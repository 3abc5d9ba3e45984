"""hsim replay: the same game again, trick by trick, from a run, a seed or a deal."""

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.analysis.replay import replay_deal, replay_game, replay_run, rows_match
from hsim.cli import main
from hsim.engine.layout import D_DEAL_SCORE, D_POINTS, D_SCORE
from hsim.model.rules import Rules, canonical, make_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament
from hsim.strategy.loader import load_players

PLAYERS = ("random", "lowcard", "random", "lowcard")
BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")


def test_replay_reproduces_the_recorded_game(tmp_path):
    rules = Rules(omnibus=True)
    config = RunConfig(rules=rules, players=PLAYERS, games=12, seed=21, chunk_size=5)
    run_tournament(config, tmp_path / "run", workers=1, progress=False)
    deals = pd.read_parquet(tmp_path / "run" / "deals")
    for game in (0, 7, 11):
        _, _, records, game_rows, _ = replay_run(tmp_path / "run", game)
        want = deals[deals.game == game]
        got_scores = [int(x) for r in records for x in r.rows[:, D_SCORE]]
        assert got_scores == want.score.tolist()
        assert [
            int(x) for r in records for x in r.rows[:, D_DEAL_SCORE]
        ] == want.deal_score.tolist()
        for r in records:
            assert len(r.tricks) == 13
            assert sum(t.points for t in r.tricks) == 26
            assert [len(h) for h in r.hands] == [13] * 4


def test_trick_records_match_the_points():
    players = load_players(list(PLAYERS))
    records, _ = replay_game(Rules(), players, 5, 2)
    for r in records:
        for seat in range(4):
            taken = sum(t.points for t in r.tricks if t.winner == seat)
            assert taken == r.rows[seat, D_POINTS]
        for a, b in zip(r.tricks, r.tricks[1:], strict=False):
            assert b.leader == a.winner


def test_replay_deal_plays_a_given_deal():
    from hsim.model.notation import PositionSpec

    record = replay_deal(PositionSpec.parse(BLOCKS), Rules(), load_players(["lowcard"] * 4))
    assert record.tricks[0].plays == [(0, 0), (1, 13), (2, 26), (3, 39)]
    assert record.rows[0, D_SCORE] == 0 and list(record.rows[1:, D_SCORE]) == [26, 26, 26]


def test_cli_replay_three_ways(tmp_path):
    runner = CliRunner()
    config = RunConfig(rules=Rules(), players=PLAYERS, games=4, seed=3)
    run_tournament(config, tmp_path / "run", workers=1, progress=False)
    from_run = runner.invoke(main, ["replay", str(tmp_path / "run"), "--game", "2"])
    from_seed = runner.invoke(
        main, ["replay", "--seed", "3", "--game", "2", "--players", ",".join(PLAYERS)]
    )
    assert from_run.exit_code == 0 and from_seed.exit_code == 0, from_run.output
    body = lambda out: out.split("\n", 1)[1]  # noqa: E731 - the header names the source
    assert body(from_run.output) == body(from_seed.output)
    assert "trick 13:" in from_run.output and "deal string:" in from_run.output
    given = runner.invoke(
        main, ["replay", "--deal", BLOCKS, "--players", "lowcard,lowcard,lowcard,lowcard"]
    )
    assert given.exit_code == 0 and "seat 0 shot the moon (add)" in given.output
    bad = runner.invoke(main, ["replay", str(tmp_path / "run"), "--game", "9"])
    assert bad.exit_code != 0 and "not in this run" in bad.output
    missing = runner.invoke(main, ["replay", str(tmp_path), "--game", "0"])
    assert missing.exit_code != 0 and "not an hsim run folder" in missing.output


def test_kierki_replay_prints_each_deal_string():
    """Kierki deals print their deal string as Hearts does: hands as dealt, seat 0 first."""
    from hsim.analysis.replay import format_record
    from hsim.model.cards import format_card
    from hsim.model.rules import parse_rules

    for preset, seats, size in (("kierki4", 4, 13), ("kierki3", 3, 17)):
        rules = parse_rules(preset)
        players = load_players(["random"] * seats, rules)
        records, _ = replay_game(rules, players, 4, 1)
        for r in records:
            lines = format_record(r, ["random"] * seats)
            (line,) = [x for x in lines if x.startswith("  deal string: ")]
            hands = line.removeprefix("  deal string: ").split("/")
            assert len(hands) == seats
            assert hands == ["".join(format_card(c) for c in hand) for hand in r.hands]
            assert all(len(h) == 2 * size for h in hands)
            dealt = {h[i : i + 2] for h in hands for i in range(0, len(h), 2)}
            assert len(dealt) == seats * size  # every card once


NEW_OPTIONS = [
    Rules(
        first_trick_points="allowed",
        first_trick_breaks_hearts=False,
        moon="new_moon",
        new_moon_any_score=True,
        end_when="exceeded",
        end_score=50,
    ),
    make_rules(
        "kierki4",
        {"rebel": True, "king_of_hearts_first_chance": True, "heart_lead_ban": "king_of_hearts"},
    ),
]


@pytest.mark.parametrize("rules", NEW_OPTIONS, ids=["hearts", "kierki"])
def test_replay_plays_under_the_new_options(tmp_path, rules):
    """A run under the options of docs/rules.md A1.6, A2.2, A3 (Hearts) or B2 (Kierki)
    replays with them: the same scores as recorded, the options in the header, and games
    that differ from the same seed replayed under the defaults."""
    specs = list(PLAYERS[: rules.players])
    config = RunConfig(rules=rules, players=tuple(specs), games=6, seed=5)
    run_tournament(config, tmp_path / "run", workers=1, progress=False)
    differs = 0
    base = make_rules("kierki4", {"rebel": True}) if rules.is_kierki else Rules()
    for game in range(6):
        _, replayed_rules, records, _, recorded = replay_run(tmp_path / "run", game)
        assert replayed_rules == rules
        assert recorded is not None and rows_match(records, recorded)
        plain, _ = replay_game(base, load_players(specs, base), 5, game)
        differs += [r.tricks for r in records] != [r.tricks for r in plain]
    assert differs > 0
    out = CliRunner().invoke(main, ["replay", str(tmp_path / "run"), "--game", "1"])
    assert out.exit_code == 0, out.output
    assert canonical(rules) in out.output.splitlines()[0]
