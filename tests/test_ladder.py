"""The strength ladder on duplicate deals."""

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.experiments.ladder import board_advantages


def test_board_advantages_by_hand():
    deals = pd.DataFrame(
        {
            "board": [0] * 8 + [1] * 4,
            "player": [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3],
            "deal_score": [2, 6, 6, 6, 0, 10, 4, 4, 26, 0, 0, 0],
        }
    )
    # board 0: upper 1 point a deal, the others (6+6+6+10+4+4)/6 = 6 -> +5; board 1: -26.
    assert board_advantages(deals).tolist() == [5.0, -26.0]
    # A moon: 26 raw points for the shooter, but it scores 0 and the others 26.
    moon = deals.assign(points=deals.deal_score, deal_score=[0, 26, 26, 26] * 3)
    assert board_advantages(moon, column="points").tolist() == [5.0, -26.0]
    assert board_advantages(moon).tolist() == [26.0, 26.0]


def test_ladder_holds_and_fails_as_it_should(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(
        main,
        [
            "ladder",
            "--bots",
            "random,lowcard",
            "--boards",
            "200",
            "--out",
            str(tmp_path / "a"),
            "--workers",
            "1",
            "--check",
            "--no-progress",
        ],
    )
    assert ok.exit_code == 0, ok.output
    line = next(x for x in ok.output.splitlines() if x.startswith("lowcard over 3 x random"))
    assert line.endswith("yes")
    advantage = float(line.split()[7])
    assert advantage > 1  # lowcard takes far fewer points than random
    bad = runner.invoke(
        main,
        [
            "ladder",
            "--bots",
            "lowcard,random",
            "--boards",
            "200",
            "--out",
            str(tmp_path / "b"),
            "--workers",
            "1",
            "--check",
            "--no-progress",
        ],
    )
    assert bad.exit_code == 1 and "does not hold" in bad.output
    assert "NO" in bad.output


@pytest.mark.parametrize("bots", ["random", "random,(x"])
def test_bad_ladders(tmp_path, bots):
    r = CliRunner().invoke(main, ["ladder", "--bots", bots, "--out", str(tmp_path)])
    assert r.exit_code != 0 and "Traceback" not in r.output


def test_default_ladder_stops_at_heuristic():
    from hsim.experiments.ladder import default_bots
    from hsim.model.rules import parse_rules

    assert default_bots(parse_rules("classic")) == ("random", "lowcard", "duck", "heuristic")
    assert default_bots(parse_rules("kierki4")) == ("random", "kierki")


def test_columns_align_with_long_specs():
    from hsim.analysis.stats import Interval
    from hsim.experiments.ladder import Rung, format_header, format_rung, ladder_labels
    from hsim.model.rules import parse_rules

    rules = parse_rules("classic")
    bots = ["random", "path/to/a/rather/long/strategy_file.py:Bot(depth=3,width=12)", "lowcard"]
    labels = ladder_labels(bots, rules)
    assert labels[0] == f"{bots[1]} over 3 x random" and len(labels[0]) > 40
    rungs = [
        Rung(bots[1], "random", Interval(2.5, 2.4, 2.6, 1000), 87_735, None),
        Rung("lowcard", bots[1], Interval(-12.25, -13.5, -11.0, 7), 300, None),
    ]
    header, *rows = [format_header(labels)] + [format_rung(r, labels, rules) for r in rungs]
    for row, rung in zip(rows, rungs, strict=True):
        assert row.startswith(rung_label := f"{rung.upper} over 3 x {rung.lower}")
        assert row[len(rung_label)] == " "
        for column, value in (("boards", f"{rung.advantage.n}"), ("deals", f"{rung.deals:,}")):
            end = header.index(column) + len(column)  # numbers end under their heading
            assert row[:end].endswith(" " + value) and row[end] == " "
        ci = header.index("advantage, 95% CI")
        assert row[ci:].startswith(f"{rung.advantage.estimate:+.3f} [")
        assert row[header.index("holds") :] == ("yes" if rung.holds else "NO")


def test_each_rung_is_named_before_its_progress_bar(tmp_path):
    args = ["ladder", "--bots", "random,lowcard", "--boards", "64", "--workers", "1"]
    shown = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a")])
    assert shown.exit_code == 0, shown.output
    assert shown.stderr.startswith("rung 1 of 1: lowcard over 3 x random, 256 games\n")
    assert "<00:0" in shown.stderr and "game/s" in shown.stderr  # the bar, with time left
    quiet = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"), "--no-progress"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout.splitlines()[1:] == shown.stdout.splitlines()[1:2] + [
        quiet.stdout.splitlines()[2]
    ]


@pytest.mark.parametrize("command", ["ladder", "gauntlet"])
def test_boards_past_the_largest_game_index_name_boards(command):
    bots = ["--bots", "random,lowcard"] if command == "ladder" else [
        "--candidates", "lowcard", "--panel", "random"]  # fmt: skip
    result = CliRunner().invoke(main, [command, *bots, "--boards", str(2**61)])
    assert result.exit_code == 2, result.output
    assert "--boards 2305843009213693952 is out of range" in result.output
    assert "chunk" not in result.output and "first-game" not in result.output


def test_many_boards_are_played_in_chunks_of_at_most_the_largest_size():
    from hsim.experiments.ladder import rung_config
    from hsim.model.rules import parse_rules
    from hsim.runner.config import MAX_CHUNK_SIZE, validate

    for rules_text in ("classic", "hearts6"):
        rules = parse_rules(rules_text)
        config = rung_config("lowcard", "random", 5_000_001, 1, rules)
        assert config.chunk_size * rules.players <= MAX_CHUNK_SIZE
        validate(config, 2)  # raises ConfigError on a setting out of range
