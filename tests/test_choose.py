"""hsim choose: one strategy's card at a position."""

from click.testing import CliRunner

from hsim.choose import choose
from hsim.cli import main
from hsim.loader import load
from hsim.notation import PositionSpec

BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")


def test_choose_asks_the_seat_to_act():
    position = PositionSpec.parse(BLOCKS, plays="2C 2D").position()
    assert choose(load("lowcard"), position) == 26 + 0  # 2S: seat 2's lowest legal spade
    assert position.to_act == 2  # nothing was played


def test_choose_uses_the_seat_stream_of_the_seed():
    position = PositionSpec.parse(BLOCKS, plays="2C 2D").position()
    picks = {choose(load("random"), position, seed) for seed in range(20)}
    assert len(picks) > 3 and 36 not in picks  # never the QS on trick 1
    assert choose(load("random"), position, 5) == choose(load("random"), position, 5)


def test_cli_choose():
    r = CliRunner().invoke(
        main, ["choose", "--strategy", "lowcard", "--deal", BLOCKS, "--plays", "2C 2D"]
    )
    assert r.exit_code == 0 and r.output.strip() == "2S"
    r = CliRunner().invoke(main, ["choose", "--strategy", "nobot", "--deal", BLOCKS])
    assert r.exit_code != 0 and "unknown strategy" in r.output
