"""Perft reference data: hsim's kernel against the counts in ``tests/data/perft.json``.

The file (written by ``scripts/make_perft_data.py``) holds positions counted by OpenSpiel's
``hearts`` game (source ``openspiel``, with OpenSpiel's count under each first card) and
positions for options OpenSpiel lacks whose counts were worked out by hand (source
``hand``, with the derivation and the counts with the option off). Every count at every
depth must be hsim's; a mismatch shows hsim's divide breakdown next to the expected one
and the ``hsim perft`` command that reproduces it. OpenSpiel is not needed here.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest

from hsim.engine.perft import divide, perft
from hsim.model.cards import cards_of, format_card
from hsim.model.notation import PositionSpec
from hsim.model.rules import canonical, parse_rules
from hsim.play.position import Position

DATA = Path(__file__).resolve().parent / "data" / "perft.json"
FILE = json.loads(DATA.read_text())
POSITIONS = FILE["positions"]
OPENSPIEL = [e for e in POSITIONS if e["source"] == "openspiel"]
HAND = [e for e in POSITIONS if e["source"] == "hand"]
#: OpenSpiel's defaults of its play parameters (as in scripts/openspiel_oracle.py, which needs
#: pyspiel to import).
OS_DEFAULTS = {
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "can_lead_hearts_instead_of_qs": False,
    "qs_breaks_hearts": True,
    "must_break_hearts": True,
}


def _cases():
    for e in POSITIONS:
        for depth in e["counts"]:
            yield pytest.param(e, "rules", "counts", int(depth), id=f"{e['name']}-d{depth}")
        for depth in e.get("counts_option_off", {}):
            yield pytest.param(
                e,
                "rules_option_off",
                "counts_option_off",
                int(depth),
                id=f"{e['name']}-off-d{depth}",
            )


def _mismatch(entry: dict, rules_text: str, depth: int, got: int, want: int) -> str:
    """Return the failure message: hsim's divide against the expected one, and the command."""
    spec = PositionSpec.from_text(entry["position"])
    p = Position.from_spec(spec, parse_rules(rules_text))
    out = np.zeros(52, np.int64)
    divide(p.state.public, p.state.private, p.rules_array, depth, out)
    expected = {}
    if rules_text == entry["rules"] and str(depth) in entry.get("divide", {}):
        for item in entry["divide"][str(depth)].split():
            code, _, n = item.partition(":")
            expected[code] = int(n)
    cards = {format_card(c): int(out[c]) for c in cards_of(p.legal())}
    lines = [
        f"{entry['name']} ({entry['source']}), rules {rules_text}, depth {depth}: "
        f"expected {want}, hsim {got}",
        f"position: {entry['position']}",
        "hsim --divide" + (" (expected in brackets where it differs):" if expected else ":"),
    ]
    for code in [*cards, *(c for c in expected if c not in cards)]:
        have = cards.get(code, "not legal")
        note = (
            f"  [{expected.get(code, 'not legal')}]"
            if expected and expected.get(code, "not legal") != have
            else ""
        )
        lines.append(f"  {code}: {have}{note}")
    cmd = ["hsim", "perft", "--rules", rules_text, *spec.flags(), "--depth", str(depth)]
    lines.append("reproduce: " + shlex.join([*cmd, "--divide"]))
    return "\n".join(lines)


@pytest.mark.parametrize(("entry", "rules_key", "counts_key", "depth"), list(_cases()))
def test_perft_count(entry, rules_key, counts_key, depth):
    rules_text = entry[rules_key]
    want = entry[counts_key][str(depth)]
    p = Position.from_spec(PositionSpec.from_text(entry["position"]), parse_rules(rules_text))
    got = int(perft(p.state.public, p.state.private, p.rules_array, depth))
    assert got == want, _mismatch(entry, rules_text, depth, got, want)


def test_source_names_openspiel():
    source = FILE["source"]
    assert "OpenSpiel" in source["oracle"]
    assert source["open_spiel_version"]
    assert source["generator"] == "scripts/make_perft_data.py"
    assert (Path(__file__).resolve().parents[1] / source["generator"]).is_file()


def test_enough_openspiel_positions_of_every_kind():
    assert len(OPENSPIEL) >= 20
    assert {e["category"] for e in OPENSPIEL} >= {
        "opening",
        "mid-deal",
        "trick 1",
        "hearts unbroken",
    }
    directions = {PositionSpec.from_text(e["position"]).pass_direction for e in OPENSPIEL}
    assert directions == {"left", "right", "across", "hold"}
    for e in OPENSPIEL:
        assert len(e["counts"]) >= 4, e["name"]
        assert set(e["divide"]) == set(e["counts"]), e["name"]
    # Every OpenSpiel play parameter is exercised away from its default.
    flipped = {
        k for e in OPENSPIEL for k, v in e["openspiel_params"].items() if v != OS_DEFAULTS[k]
    }
    assert flipped == set(OS_DEFAULTS)


def test_hand_worked_positions():
    waits = [e for e in HAND if e["option"] == "queen_waits_for_broken_hearts=true"]
    queen = [e for e in HAND if e["option"] == "first_trick_only_points=queen"]
    assert len(waits) >= 3 and len(queen) >= 2
    for e in HAND:
        rules = parse_rules(e["rules"])
        name, _, value = e["option"].partition("=")
        assert str(getattr(rules, name)).lower() == value, e["name"]
        assert getattr(parse_rules(e["rules_option_off"]), name) != getattr(rules, name)
        assert e["derivation"], e["name"]
        # The option changes the count: the position does test it.
        assert e["counts"] != e["counts_option_off"], e["name"]
        assert set(e["counts"]) == set(e["counts_option_off"]), e["name"]
    for e in queen:
        assert e["rules"].partition("(")[0] == "classic", e["name"]


def test_positions_and_rules_round_trip():
    for e in POSITIONS:
        assert PositionSpec.from_text(e["position"]).to_text() == e["position"]
        for key in ("rules", "rules_option_off"):
            if key in e:
                preset = e[key].partition("(")[0]
                assert canonical(parse_rules(e[key]), preset) == e[key]
    assert len({e["name"] for e in POSITIONS}) == len(POSITIONS)
