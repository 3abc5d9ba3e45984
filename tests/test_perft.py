"""Perft: the kernel against hand counts and against a plain recursive count."""

import copy
import random

import numpy as np
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.engine.perft import divide, perft
from hsim.model.notation import PositionSpec, format_deal
from hsim.model.rules import Rules
from hsim.play.position import Position

BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")


def count(spec, rules, depth):
    p = Position.from_spec(spec, rules)
    return int(perft(p.state.public, p.state.private, p.rules_array, depth))


def test_suit_blocks_by_hand():
    spec = PositionSpec.parse(BLOCKS)
    # 2C is forced; diamonds (13, no point cards), spades without QS (12, A1.5), hearts (13).
    assert [count(spec, Rules(), d) for d in range(5)] == [1, 1, 13, 13 * 12, 13 * 12 * 13]
    # With points allowed on trick 1 the QS may be discarded.
    assert count(spec, Rules(first_trick_points="allowed"), 4) == 13 * 13 * 13


# Trick 1 so far 2C AC 2S: seat 3 (JS QS KS AS and 6H..AH) is void in clubs; seat 1
# wins with AC and then holds 3H 4H 5H and the diamonds 5D..KD.
BROKEN = "/".join(
    [
        "2C3C4C5C6C7C8C9CTCJCQCKC2H",
        "AC3H4H5H5D6D7D8D9DTDJDQDKD",
        "2D3D4DAD2S3S4S5S6S7S8S9STS",
        "JSQSKSAS6H7H8H9HTHJHQHKHAH",
    ]
)


@pytest.mark.parametrize(("first_breaks", "depth_2"), [(True, 4 * 9 + 9 * 12), (False, 13 * 9)])
def test_first_trick_breaks_hearts_changes_the_count(first_breaks, depth_2):
    """A1.6, ``first_trick_breaks_hearts`` (with ``first_trick_points=allowed``): seat 3
    may play any of its 13 cards to trick 1. After a spade, seat 1 must lead one of its 9
    diamonds; after one of the 9 hearts, hearts are broken only when trick 1 breaks them,
    and seat 1 may then lead any of its 12 cards."""
    spec = PositionSpec.parse(BROKEN, plays="2C AC 2S")
    rules = Rules(first_trick_points="allowed", first_trick_breaks_hearts=first_breaks)
    assert count(spec, rules, 1) == 13
    assert count(spec, rules, 2) == depth_2
    assert count(spec, rules, 3) == recursive(Position.from_spec(spec, rules), 3)


def test_perft_leaves_the_position_unchanged():
    p = Position.from_spec(PositionSpec.parse(BLOCKS))
    before = p.state.public.copy(), p.state.private.copy()
    perft(p.state.public, p.state.private, p.rules_array, 5)
    assert np.array_equal(before[0], p.state.public)
    assert np.array_equal(before[1], p.state.private)


def recursive(position, depth):
    """An independent count: plain recursion over Position.legal() and Position.play()."""
    if depth == 0:
        return 1
    if position.phase != "play":
        return 0
    total = 0
    legal = position.legal()
    for card in range(52):
        if legal >> card & 1:
            child = copy.deepcopy(position)
            child.play(card)
            total += recursive(child, depth - 1)
    return total


@pytest.mark.parametrize("seed", range(6))
def test_kernel_equals_recursion_on_random_positions(seed):
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[13 * s : 13 * s + 13] for s in range(4)]
    rules = Rules(
        queen_breaks_hearts=bool(seed & 1),
        queen_waits_for_broken_hearts=bool(seed & 2),
        first_trick_only_points=("queen", "any")[seed % 2],
        first_trick_breaks_hearts=seed < 3,
    )
    spec = PositionSpec.parse(format_deal(hands))
    p = Position.from_spec(spec, rules)
    for _ in range(rng.randrange(0, 40)):  # walk into the deal at random
        legal = [c for c in range(52) if p.legal() >> c & 1]
        p.play(rng.choice(legal))
    for depth in (1, 2, 3):
        got = int(perft(p.state.public, p.state.private, p.rules_array, depth))
        assert got == recursive(p, depth)


def test_divide_sums_to_total():
    p = Position.from_spec(PositionSpec.parse(BLOCKS, plays="2C 5D"))
    out = np.zeros(52, np.int64)
    total = divide(p.state.public, p.state.private, p.rules_array, 3, out)
    assert total == out.sum() == perft(p.state.public, p.state.private, p.rules_array, 3)
    assert np.count_nonzero(out) == 12  # seat 2 may play any spade but the QS


def test_end_of_deal_stops_sequences():
    p = Position.from_spec(PositionSpec.parse(BLOCKS))
    p.play_out()  # no deal left to play
    assert perft(p.state.public, p.state.private, p.rules_array, 1) == 0


def test_cli_perft_and_divide():
    r = CliRunner().invoke(
        main, ["perft", "--deal", BLOCKS, "--plays", "2C", "--depth", "2", "--divide"]
    )
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "2D: 12" in lines and "AD: 12" in lines and "total: 156" in lines
    r = CliRunner().invoke(
        main, ["perft", "--deal", BLOCKS, "--pass-direction", "left", "--depth", "2"]
    )
    assert r.exit_code != 0 and "--passes" in r.output
