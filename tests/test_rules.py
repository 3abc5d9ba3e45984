import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hsim.model.rules import (
    HEARTS_OPTIONS,
    KIERKI_OPTIONS,
    PLAY_OPTIONS,
    PRESETS,
    RULE_FIELDS,
    RULE_INDEX,
    RULE_NAMES,
    Rules,
    RulesError,
    canonical,
    default_trump_points,
    describe_options,
    ineffective_options,
    make_rules,
    option_code,
    parse_rules,
    rules_from_array,
    scoring_variant,
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
    .filter(lambda d: d["players"] == 4 or (d["game"] == "kierki" and d["players"] == 3))
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
    """docs/rules.md B3: +15 per trump trick for 4 players, +20 for 3, however the 3 players
    are reached; an explicit value wins."""
    for text in ("kierki3", "kierki4(players=3)", "classic(game=kierki,players=3)"):
        r = parse_rules(text)
        assert r.trump_points == 20 and canonical(r) == "kierki3"
        assert r.to_array()[RULE_NAMES.index("trump_trick_value")] == 20
    assert parse_rules("kierki3(players=4)").trump_points == 15
    assert parse_rules("kierki3(trump_trick_value=7)").trump_points == 7
    with pytest.raises(RulesError, match="0 .the default for the player count. or a positive"):
        parse_rules("kierki4(trump_trick_value=-2)")


def test_rules_vector_indices_follow_the_field_order():
    """Every field has its ``R_*`` index in hsim.engine.layout, numbered in field order
    (the engine reads the vector by these numbers, so a field inserted without
    renumbering them would make kernels read the wrong option)."""
    from hsim.engine import layout

    aliases = {"R_QUEEN_WAITS": "queen_waits_for_broken_hearts"}
    index = {
        aliases.get(name, name[2:].lower()): value
        for name, value in vars(layout).items()
        if name.startswith("R_") and name != "R_NAMES" and isinstance(value, int)
    }
    assert index == {n: i for i, n in enumerate(RULE_NAMES)}
    assert len(RULE_NAMES) <= layout.RULES_LEN
    vector = Rules(end_when="exceeded", heart_lead_ban="king_of_hearts").to_array()
    assert vector[layout.R_END_WHEN] == 1 and vector[layout.R_HEART_LEAD_BAN] == 1
    assert vector[layout.R_END_SCORE] == 100 and vector[layout.R_MAX_DEALS] == 200


R_ALIASES = {"R_QUEEN_WAITS": "queen_waits_for_broken_hearts"}


def test_every_rules_vector_index_is_its_field_position():
    from hsim.engine import layout

    seen = set()
    for name, value in vars(layout).items():
        if name.startswith("R_"):
            field = R_ALIASES.get(name, name[2:].lower())
            assert value == RULE_NAMES.index(field) == RULE_INDEX[field], name
            seen.add(field)
    assert seen == set(RULE_NAMES)  # no option without its index


def _enumerations():
    for name in RULE_NAMES:
        choices = RULE_FIELDS[name].metadata["choices"]
        if choices and all(isinstance(c, str) for c in choices):
            yield name, choices


def test_every_option_code_is_its_index_in_the_allowed_values():
    """Each value of each enumerated option has its constant ``<OPTION>_<VALUE>`` in
    hsim.engine.layout (the kernels compare the rules vector with these), equal to its
    index in the option's allowed values: what ``Rules.to_array`` writes."""
    from hsim.engine import kierki, layout

    names = 0
    for name, choices in _enumerations():
        for i, value in enumerate(choices):
            constant = getattr(layout, f"{name}_{value}".upper().replace("+", "_"))
            assert constant == i == option_code(name, value)
            vector = Rules(**{name: value, "game": "kierki" if name != "game" else value})
            assert vector.to_array()[RULE_INDEX[name]] == constant
            names += 1
    # passing 4, first-trick 2 + 2, heart points 2, moon 5, omnibus card 2, bonus 3, end 2,
    # removed card 3, removed pair 2, game 2; B: trump chooser 2, lottery leader 2,
    # heart-lead ban 3, point table 3, priced trick 2
    assert names == 41
    # Kierki's kernels take their codes from the same derivation.
    assert kierki.LOTTERY_LEADER_DEALER is layout.LOTTERY_LEADER_DEALER
    assert kierki.HEART_LEAD_BAN_KING == layout.HEART_LEAD_BAN_KING_OF_HEARTS
    assert kierki.TRUMP_CHOOSER_DEALER == layout.TRUMP_CHOOSER_DEALER


def test_option_code_switches_counts_and_bad_values():
    assert option_code("omnibus", True) == 1 and option_code("omnibus", False) == 0
    assert option_code("end_score", 50) == 50 and option_code("players", 3) == 3
    with pytest.raises(RulesError, match="passing=sometimes is not valid; passing takes"):
        option_code("passing", "sometimes")
    with pytest.raises(RulesError, match="unknown rule option 'pasing'"):
        option_code("pasing", "none")
    with pytest.raises(RulesError, match="omnibus must be true or false"):
        option_code("omnibus", 1)


def _any_value(name):
    choices = RULE_FIELDS[name].metadata["choices"]
    if choices:
        return st.sampled_from(choices)
    low = 0 if name == "trump_trick_value" else 1
    return st.integers(low, 10_000 if name != "trump_trick_value" else 1_000)


any_rules = (
    st.fixed_dictionaries({n: _any_value(n) for n in RULE_NAMES})
    .filter(lambda d: d["players"] == 4 or (d["game"] == "kierki" and d["players"] == 3))
    .map(lambda d: Rules(**d))
)


@given(any_rules)
def test_to_array_round_trips_through_the_decoder(rules):
    vector = rules.to_array()
    back = rules_from_array(vector)
    assert np.array_equal(back.to_array(), vector)
    # The rules themselves, but a trump_trick_value naming the default comes back as 0.
    if rules.trump_trick_value == default_trump_points(rules.players, rules.point_table):
        rules = dataclasses.replace(rules, trump_trick_value=0)
    assert back == rules
    # The engine's slot may be longer than the options.
    from hsim.engine.layout import RULES_LEN

    padded = np.zeros(RULES_LEN + 3, np.int64)
    padded[: len(vector)] = vector
    assert rules_from_array(padded) == back


def test_the_decoder_refuses_a_vector_that_is_not_rules():
    vector = Rules().to_array()
    n = len(vector)
    with pytest.raises(RulesError, match=f"holds {n} options, this one only {n - 1}"):
        rules_from_array(vector[:-1])
    bad = vector.copy()
    bad[RULE_INDEX["no_trick_bonus"]] = 3
    with pytest.raises(RulesError, match="no_trick_bonus code 3 is not valid; its codes are 0..2"):
        rules_from_array(bad)
    bad = vector.copy()
    bad[RULE_INDEX["omnibus"]] = 2
    with pytest.raises(RulesError, match="omnibus code 2 is not valid"):
        rules_from_array(bad)
    bad = vector.copy()
    bad[RULE_INDEX["players"]] = 7  # Hearts for 3 to 6 only
    with pytest.raises(RulesError, match="not a valid rules vector: players must be 3 or 4 or"):
        rules_from_array(bad)


NEW_OPTION_STRINGS = [
    "classic(first_trick_breaks_hearts=false)",
    "classic(moon=new_moon,new_moon_any_score=true)",
    "classic(end_score=50,end_when=exceeded)",
    "classic(first_trick_points=allowed,first_trick_breaks_hearts=false,moon=new_moon,"
    "new_moon_any_score=true,clamp_at_zero=false,end_when=exceeded,no_draw=true)",
    "openspiel(first_trick_breaks_hearts=false)",
    "kierki4(king_of_hearts_first_chance=true)",
    "kierki4(heart_lead_ban=king_of_hearts)",
    "kierki3(rebel=true,king_of_hearts_first_chance=true,heart_lead_ban=king_of_hearts)",
]


@pytest.mark.parametrize("text", NEW_OPTION_STRINGS)
def test_new_options_round_trip_as_canonical_strings(text):
    rules = parse_rules(text)
    assert canonical(rules) == text
    assert parse_rules(canonical(rules)) == rules
    assert make_rules(text.partition("(")[0], [text.partition("(")[2][:-1]]) == rules


def test_new_options_defaults_and_values():
    d = Rules()
    assert d.first_trick_breaks_hearts is True and d.new_moon_any_score is False
    assert d.end_when == "reached" and d.heart_lead_ban == "every_heart"
    assert d.king_of_hearts_first_chance is False
    with pytest.raises(RulesError, match="reached|exceeded"):
        make_rules("classic", ["end_when=over"])
    with pytest.raises(RulesError, match="every_heart|king_of_hearts"):
        make_rules("kierki4", ["heart_lead_ban=queen"])
    with pytest.raises(RulesError, match="true|false"):
        make_rules("kierki4", ["king_of_hearts_first_chance=2"])
    names = [r["name"] for r in describe_options()]
    for n in ("first_trick_breaks_hearts", "new_moon_any_score", "end_when"):
        assert n in HEARTS_OPTIONS and n in names
    for n in ("king_of_hearts_first_chance", "heart_lead_ban"):
        assert n in KIERKI_OPTIONS and n in names


@pytest.mark.parametrize(
    "rules, fragment",
    [
        (Rules(new_moon_any_score=True), "new_moon_any_score has effect only with moon=new_moon"),
        (
            Rules(hearts_must_be_broken=False, first_trick_breaks_hearts=False),
            "first_trick_breaks_hearts has effect only",
        ),
        (Rules(king_of_hearts_first_chance=True), "king_of_hearts_first_chance is a Kierki"),
        (Rules(heart_lead_ban="king_of_hearts"), "heart_lead_ban is a Kierki"),
        (make_rules("kierki4", ["end_when=exceeded"]), "end_when is a Hearts option"),
        (make_rules("kierki3", ["new_moon_any_score=true"]), "new_moon_any_score is a Hearts"),
        (
            make_rules("kierki4", ["first_trick_breaks_hearts=false"]),
            "first_trick_breaks_hearts is a Hearts",
        ),
        (Rules(perfect_100=True, end_score=74), "perfect_100"),
        (Rules(perfect_100=True, end_score=73, end_when="exceeded"), "perfect_100"),
    ],
)
def test_new_options_without_effect_are_warned(rules, fragment):
    assert any(fragment in n for n in ineffective_options(rules)), ineffective_options(rules)


def test_new_options_with_effect_are_not_warned():
    for rules in (
        Rules(moon="new_moon", new_moon_any_score=True),
        Rules(first_trick_breaks_hearts=False),
        Rules(
            hearts_must_be_broken=False,
            first_trick_breaks_hearts=False,
            queen_waits_for_broken_hearts=True,
        ),
        Rules(end_when="exceeded"),
        # exceeded lets a score of exactly end_score play on: 74 + 26 can make 100
        Rules(perfect_100=True, end_score=74, end_when="exceeded"),
        make_rules(
            "kierki4", ["king_of_hearts_first_chance=true", "heart_lead_ban=king_of_hearts"]
        ),
    ):
        assert ineffective_options(rules) == [], rules


def test_new_options_play_or_scoring():
    """Which options change play (docs/rules.md A1 and all of part B) and which only score
    recorded deals (A2, A3): ``new_moon_any_score`` asks the shooter a question, as
    ``moon`` does, and like ``moon`` it is a scoring option."""
    assert {"first_trick_breaks_hearts", "king_of_hearts_first_chance", "heart_lead_ban"} <= (
        PLAY_OPTIONS
    )
    assert not {"end_when", "new_moon_any_score", "moon"} & PLAY_OPTIONS
    variant = scoring_variant(Rules(), "end_when=exceeded,moon=new_moon,new_moon_any_score=true")
    assert variant.end_when == "exceeded" and variant.new_moon_any_score
    with pytest.raises(RulesError, match="first_trick_breaks_hearts changes play"):
        scoring_variant(Rules(), "first_trick_breaks_hearts=false")
