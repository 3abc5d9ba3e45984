"""Differential test of hsim against OpenSpiel's ``hearts`` game, the rules oracle.

Every combination of OpenSpiel's play options (32) in every pass direction (4) is played
in both engines with random and built deals (harness: ``scripts/openspiel_oracle.py``,
mapping: ``docs/openspiel.md``); legal cards must agree at every decision and scores at
the end of every deal, under every scoring option. Sanity tests show a deliberately
wrong mapping is caught. Skipped only where OpenSpiel cannot be imported.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="OpenSpiel is not installed (pip install open_spiel, or hsim's 'oracle' extra); "
    "it is the rules oracle of this differential test",
)

from hsim.model.cards import format_card, format_mask, mask_of  # noqa: E402
from hsim.model.rules import PRESETS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # the oracle
import openspiel_oracle as oracle  # noqa: E402

# The CI budget: 128 combinations x DEALS deals on two processes: about 25 s on an idle
# 2-core machine, 50 s when the cores are shared.
DEALS = 480
WORKERS = 2
SEED = 20261129


def test_openspiel_parameters_are_the_mapped_ones():
    game = pyspiel.load_game("hearts")
    assert dict(game.get_parameters()) == oracle.OS_DEFAULTS
    assert set(oracle.PLAY_PARAMS) | set(oracle.SCORE_PARAMS) | {"pass_cards"} == set(
        oracle.OS_DEFAULTS
    )


def test_openspiel_defaults_are_the_openspiel_preset():
    assert oracle.hsim_rules(oracle.OS_DEFAULTS) == PRESETS["openspiel"]


def test_card_encoding():
    state = pyspiel.load_game("hearts").new_initial_state()
    assert [state.action_to_string(a) for a in range(4)] == ["No Pass", "Left", "Across", "Right"]
    assert {state.action_to_string(a): a for a in range(4)} == {
        "No Pass": oracle.OS_PASS_ACTION["hold"],
        "Left": oracle.OS_PASS_ACTION["left"],
        "Across": oracle.OS_PASS_ACTION["across"],
        "Right": oracle.OS_PASS_ACTION["right"],
    }
    state.apply_action(0)
    for a in range(52):
        assert state.action_to_string(a) == format_card(oracle.OS_TO_CARD[a])
        assert oracle.CARD_TO_OS[oracle.OS_TO_CARD[a]] == a


@pytest.mark.parametrize("direction", ["left", "right", "across"])
def test_pass_direction_seats(direction):
    """OpenSpiel's player p passes to p + shift, hsim's seat too (left +1, right -1)."""
    state = pyspiel.load_game("hearts").new_initial_state()
    state.apply_action(oracle.OS_PASS_ACTION[direction])
    for k in range(52):  # player k % 4 gets every fourth card: seat s holds ranks of suit s
        state.apply_action(oracle.CARD_TO_OS[(k % 4) * 13 + k // 4])
    for s in range(4):
        for rank in range(3):
            state.apply_action(oracle.CARD_TO_OS[s * 13 + rank])
    received = state.to_struct().received_cards
    shift = oracle.PASS_SHIFT[direction]
    for s in range(4):
        giver = (s - shift) % 4
        assert sorted(received[s]) == sorted(format_card(giver * 13 + r) for r in range(3))


@pytest.mark.parametrize("kind", sorted(set(oracle.KIND_CYCLE)))
@pytest.mark.parametrize("direction", oracle.DIRECTIONS)
def test_built_deals_are_deals(kind, direction):
    rng = random.Random(f"{kind}{direction}")
    for _ in range(20):
        spec = oracle.make_deal(kind, direction, rng)
        masks = [mask_of(h) for h in spec.hands]
        assert [len(h) for h in spec.hands] == [13] * 4
        assert sum(bin(m).count("1") for m in masks) == 52
        assert masks[0] | masks[1] | masks[2] | masks[3] == (1 << 52) - 1
        if spec.passes is not None:
            assert all(
                p & m == p and bin(p).count("1") == 3
                for p, m in zip(spec.passes, masks, strict=True)
            )


def test_full_grid_agrees():
    """The CI budget: every option combination x direction, zero disagreements."""
    t0 = time.perf_counter()
    jobs = oracle.grid(DEALS, SEED)
    summary = oracle.run_jobs(jobs, workers=WORKERS)
    seconds = time.perf_counter() - t0
    repros = "\n\n".join(str(r) for r in summary.repros)
    assert summary.disagreements == 0, f"{summary.disagreements} disagreements:\n{repros}"
    assert len(summary.combos) == 2 ** len(oracle.PLAY_PARAMS) * 4 == 128
    assert summary.deals == 128 * DEALS
    assert summary.score_checks == 4 * summary.deals
    assert set(summary.kinds) == set(oracle.KIND_CYCLE)
    # The built moon deals are moons by construction, whatever the options and passes.
    assert summary.branches["moon_with_jd"] >= summary.kinds["moon_jd"]
    assert summary.branches["moon_without_jd"] >= summary.kinds["moon_no_jd"]
    short = {
        name: (summary.branches[name], k)
        for name, k in oracle.branch_minimums(summary.deals).items()
        if summary.branches[name] < k
    }
    assert not short, f"branches hit fewer times than required (hits, minimum): {short}"
    print(
        f"\n{summary.deals} deals, {len(summary.combos)} combinations, {seconds:.1f} s "
        f"({summary.deals / seconds:.0f} deals/s); branches: {dict(summary.branches)}"
    )


@pytest.mark.parametrize(
    "mutation", [*oracle.MUTATIONS, *oracle.DIRECTION_MUTATIONS], ids=lambda m: m
)
def test_wrong_mapping_is_detected(mutation):
    """A deliberately wrong mapping on the hsim side must show up as disagreements."""
    summary = oracle.run_jobs(oracle.grid(8, SEED, mutation=mutation), workers=1)
    assert summary.disagreements > 0, f"mutation {mutation} went unnoticed"


def test_repro_replays_to_the_disagreement():
    """A reproduction puts both engines at the decision where they differ."""
    summary = oracle.run_jobs(oracle.grid(8, SEED, mutation="flip_queen_breaks_hearts"))
    legal_diffs = [r for r in summary.repros if "legal cards" in r.what]
    assert legal_diffs
    for repro in legal_diffs:
        p = repro.replay_hsim()
        state = repro.replay_openspiel()
        assert p.to_act == state.current_player()
        assert p.legal() != oracle.os_mask(state.legal_actions())
        assert format_mask(p.legal()) in repro.what
        assert "Position.from_hands" in str(repro)
