import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hsim.rules import (
    PRESETS,
    RULE_FIELDS,
    RULE_NAMES,
    Rules,
    RulesError,
    canonical,
    describe_options,
    ineffective_options,
    make_rules,
    parse_rules,
)


def test_defaults_are_the_classic_preset():
    assert PRESETS["classic"] == Rules()
    assert Rules().end_score == 100 and Rules().max_deals == 200


def test_openspiel_preset():
    r = PRESETS["openspiel"]
    assert r.queen_breaks_hearts and r.first_trick_only_points == "any"
    assert canonical(r) == "openspiel"


def test_canonical_names_only_differences():
    r = make_rules("classic", ["omnibus=true", "end_score=50"])
    assert canonical(r, "classic") == "classic(omnibus=true,end_score=50)"
    assert parse_rules(canonical(r)) == r


def _values(name):
    choices = RULE_FIELDS[name].metadata["choices"]
    return st.sampled_from(choices) if choices else st.integers(1, 500)


rules_strategy = (
    st.fixed_dictionaries({n: _values(n) for n in RULE_NAMES})
    .filter(lambda d: d["game"] == "kierki" or d["players"] == 4)  # Hearts has 4 seats
    .map(lambda d: Rules(**d))
)


@given(rules_strategy, st.sampled_from(sorted(PRESETS)))
def test_rules_strings_round_trip(rules, preset):
    assert parse_rules(canonical(rules, preset)) == rules
    assert parse_rules(canonical(rules)) == rules


def test_to_array_follows_field_order():
    arr = Rules(no_trick_bonus="no_tricks", end_score=77).to_array()
    assert arr[RULE_NAMES.index("no_trick_bonus")] == 2
    assert arr[RULE_NAMES.index("end_score")] == 77


def test_unknown_option_lists_valid_ones():
    with pytest.raises(RulesError) as err:
        make_rules("classic", ["omnibuss=true"])
    assert "omnibuss" in str(err.value) and "omnibus" in str(err.value)
    assert "no_trick_bonus" in str(err.value)


@pytest.mark.parametrize(
    "item, hint",
    [
        ("omnibus=maybe", "true|false"),
        ("end_score=0", "positive"),
        ("no_trick_bonus=some", "off|no_points|no_tricks"),
        ("omnibus", "name=value"),
    ],
)
def test_bad_values_say_what_is_allowed(item, hint):
    with pytest.raises(RulesError, match=hint):
        make_rules("classic", [item])


def test_unknown_preset_and_malformed_strings():
    with pytest.raises(RulesError, match="classic, openspiel"):
        parse_rules("modern")
    with pytest.raises(RulesError, match="parenthesis"):
        parse_rules("classic(omnibus=true")


def test_dataclass_validates_direct_construction():
    with pytest.raises(RulesError):
        Rules(omnibus="yes")
    with pytest.raises(RulesError):
        Rules(max_deals=0)


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"jack_in_moon_deal": True}, "jack_in_moon_deal"),
        ({"moon_requires_jack": False}, "moon_requires_jack"),
        (
            {"first_trick_points": "allowed", "first_trick_only_points": "any"},
            "first_trick_only_points",
        ),
        (
            {"hearts_must_be_broken": False, "lead_hearts_instead_of_queen": True},
            "lead_hearts_instead_of_queen",
        ),
        ({"perfect_100": True, "end_score": 50}, "perfect_100"),
    ],
)
def test_options_without_effect_are_warned(options, fragment):
    notes = ineffective_options(Rules(**options))
    assert any(fragment in n for n in notes)


def test_effective_options_are_not_warned():
    assert ineffective_options(Rules(omnibus=True, jack_in_moon_deal=True)) == []
    assert ineffective_options(PRESETS["openspiel"]) == []
    assert ineffective_options(Rules(perfect_100=True)) == []


def test_describe_lists_every_option():
    rows = describe_options()
    assert [r["name"] for r in rows] == list(RULE_NAMES)
    assert all(r["meaning"] and r["allowed"] for r in rows)
    assert len(RULE_NAMES) == len(dataclasses.fields(Rules))


def test_trump_trick_value_follows_the_player_count():
    """RULES.md B3: +15 per trump trick for 4 players, +20 for 3, however the 3 players
    are reached; an explicit value wins."""
    for text in ("kierki3", "kierki4(players=3)", "classic(game=kierki,players=3)"):
        r = parse_rules(text)
        assert r.trump_points == 20 and canonical(r) == "kierki3"
        assert r.to_array()[RULE_NAMES.index("trump_trick_value")] == 20
    assert parse_rules("kierki3(players=4)").trump_points == 15
    assert parse_rules("kierki3(trump_trick_value=7)").trump_points == 7
    with pytest.raises(RulesError, match="0 .the default for the player count. or a positive"):
        parse_rules("kierki4(trump_trick_value=-2)")
