"""The named Hearts variants over many games (docs/rules.md A1.2, A2.2, A2.3): points
conserved as each rule says, every built-in bot legal, re-scoring equal to playing.

The card-by-card scenarios of each option live in tests/test_scoring.py and
tests/test_rules_scenarios.py; the pimc bonus-card test in tests/test_bots_pimc.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hsim.analysis.frames import deal_facts, rescore_frames
from hsim.analysis.scan import RunFolderError
from hsim.engine.layout import (
    D_DEAL,
    D_DEAL_SCORE,
    D_GAME,
    D_HAND,
    D_MOON,
    D_MOON_CHOICE,
    D_PASS_DIR,
    D_POINTS,
    D_SCORE,
    D_TAKEN,
    D_TRICKS,
    MOON_ADD,
    MOON_SUBTRACT,
)
from hsim.model.cards import parse_card
from hsim.model.rules import (
    Rules,
    canonical,
    differences,
    format_value,
    ineffective_options,
    parse_rules,
    rules_from_array,
    scoring_variant,
)
from hsim.play.games import play_range
from hsim.runner.sink import deals_table
from hsim.strategy.loader import load_players

#: Scoring-only variants (A2): re-scoring recorded deals must give what playing gives.
SCORING_VARIANTS = {
    "moon_off": Rules(moon="off", omnibus=True, no_trick_bonus="no_points"),
    "shooter_gains": Rules(
        moon="shooter_gains", omnibus=True, omnibus_card="TD", jack_in_moon_deal=True
    ),
    "smart": Rules(
        moon="smart",
        omnibus=True,
        omnibus_value=5,
        moon_requires_jack=False,
        jack_in_moon_deal=True,
        perfect_100=True,
    ),
    "smart_plain": Rules(moon="smart", clamp_at_zero=False),
    "ten_five": Rules(
        omnibus=True,
        omnibus_card="TD",
        omnibus_value=5,
        no_trick_bonus="no_tricks",
        clamp_at_zero=False,
    ),
}
#: Every variant, the pass rules (A1.2) too.
VARIANTS = {
    **SCORING_VARIANTS,
    "passing_left": Rules(passing="left", moon="off"),
    "passing_right": Rules(passing="right", moon="smart", omnibus=True, omnibus_card="TD"),
}
HEARTS_BOTS = ["random", "lowcard", "duck", "heuristic", "shooter", "pimc(worlds=2,playouts=1)"]


def bonus_taker(rows: np.ndarray, rules: Rules) -> int:
    """Return the seat of a deal's 4 rows that took the bonus card (A2.3)."""
    bit = 1 << parse_card(rules.omnibus_card)
    return next(s for s in range(4) if int(rows[s, D_TAKEN]) & bit)


def expected_total(rows: np.ndarray, rules: Rules) -> int:
    """Return what a deal's scores add up to under ``rules`` (A2.2, A2.3), from its rows."""
    value = rules.omnibus_value if rules.omnibus else 0
    shooters = [s for s in range(4) if rows[s, D_MOON]]
    if shooters:
        outcome = rows[shooters[0], D_MOON_CHOICE]
        total = 78 if outcome == MOON_ADD else -26
        return total - (value if rules.jack_in_moon_deal else 0)
    if rules.no_trick_bonus == "no_points":
        total = 26 - 5 * int((rows[:, D_POINTS] == 0).sum())
    elif rules.no_trick_bonus == "no_tricks":
        total = 26 - 5 * int((rows[:, D_TRICKS] == 0).sum())
    else:
        total = 26
    return total - value


@pytest.mark.parametrize("name", list(VARIANTS))
def test_points_are_conserved_as_each_variant_says(name):
    """Over 2,000 games (a moon shooter at seat 0): every deal's scores add up to what
    the rule says (A2.2, A2.3), a moon is exactly a 26-point deal that the rule counts
    as one, its outcome is the rule's, each game score is the clamped sum, and the pass
    direction is the rule's (A1.2)."""
    rules = VARIANTS[name]
    players = load_players(["shooter", "random", "random", "random"])
    deals, _ = play_range(rules, players, seed=11, first=0, stop=2_000)
    moons = 0
    for i in range(0, len(deals), 4):
        rows = deals[i : i + 4]
        taker = bonus_taker(rows, rules)
        assert int(rows[:, D_POINTS].sum()) == 26
        assert int(rows[:, D_DEAL_SCORE].sum()) == expected_total(rows, rules)
        full = [s for s in range(4) if rows[s, D_POINTS] == 26]
        is_moon = bool(full) and rules.moon != "off"
        if is_moon and rules.omnibus and rules.moon_requires_jack:
            is_moon = taker == full[0]
        assert rows[:, D_MOON].any() == is_moon
        if is_moon:
            moons += 1
            outcome = rows[full[0], D_MOON_CHOICE]
            want = {"classic": MOON_ADD, "shooter_gains": MOON_SUBTRACT}.get(rules.moon, outcome)
            assert outcome == want
        deal = int(rows[0, D_DEAL])
        before = deals[i - 4 : i, D_SCORE] if deal else np.zeros(4, np.int64)
        for s in range(4):
            new = int(before[s]) + int(rows[s, D_DEAL_SCORE])
            if rules.clamp_at_zero:
                new = max(new, 0)
            if rules.perfect_100 and new == 100:
                new = 50
            assert rows[s, D_SCORE] == new
        want_dir = {"left": 0, "right": 1, "none": 3}.get(rules.passing, deal % 4)
        assert (rows[:, D_PASS_DIR] == want_dir).all()
    if rules.moon != "off":
        assert moons >= 5, "too few moons to check the moon rule"


@pytest.mark.parametrize("bot", HEARTS_BOTS)
def test_every_hearts_bot_plays_legally_under_every_variant(bot):
    """A short tournament of each built-in Hearts bot against random under each variant:
    the engine refuses any illegal card or pass, so finishing the games is the check."""
    players = load_players([bot, "random", bot, "random"])
    n = 2 if bot.startswith("pimc") else 20
    for name, rules in VARIANTS.items():
        deals, games = play_range(rules, players, seed=5, first=0, stop=n)
        assert len(games) == 4 * n, name
        assert len(deals) % 4 == 0 and len(deals) >= 4 * n, name


def deals_frame(rows: np.ndarray) -> pd.DataFrame:
    return deals_table(rows, ["p0", "p1", "p2", "p3"]).to_pandas()


@pytest.mark.parametrize("name", list(SCORING_VARIANTS))
def test_rescoring_a_base_run_equals_playing_under_the_variant(name):
    """A2: deals played under the classic rules and re-scored under a scoring-only variant
    give, row for row, the deal scores and game scores of the same games played under
    it, for every game whose deals were played alike (the bots may react to the scores)."""
    rules = SCORING_VARIANTS[name]
    base = Rules()
    scoring_variant(base, ",".join(f"{k}={v}" for k, v in _diff(base, rules).items()))
    # The shooter bot (many moons) reads omnibus and the bonus card, so it plays the same
    # deals alike only where the variant keeps them; else four random bots.
    omnibus_alike = all(getattr(rules, n) == getattr(base, n) for n in ("omnibus", "omnibus_card"))
    bots = ["shooter", "random", "random", "random"] if omnibus_alike else ["random"] * 4
    players = load_players(bots)
    played, _ = play_range(base, players, seed=21, first=0, stop=600)
    direct, _ = play_range(rules, players, seed=21, first=0, stop=600)
    result = rescore_frames(deals_frame(played), rules, base).deals
    re = result[result["counted"]].set_index(["game", "deal", "seat"])
    facts = (D_HAND, D_POINTS, D_TRICKS, D_TAKEN)
    key = ["game", "deal", "seat"]
    direct_frame = pd.DataFrame(
        {
            "game": direct[:, D_GAME],
            "deal": direct[:, D_DEAL],
            "seat": np.tile(np.arange(4), len(direct) // 4),
            "deal_score": direct[:, D_DEAL_SCORE],
            "score": direct[:, D_SCORE],
        }
    ).set_index(key)
    alike = _games_played_alike(played, direct, facts)
    assert len(alike) >= 500
    compared = moons = 0
    for g in alike:
        mine = re.loc[g]
        theirs = direct_frame.loc[g].loc[mine.index]
        assert (mine["deal_score"].to_numpy() == theirs["deal_score"].to_numpy()).all(), g
        assert (mine["score"].to_numpy() == theirs["score"].to_numpy()).all(), g
        compared += len(mine)
        moons += int(mine["moon"].sum())
    assert compared >= 4_000
    if omnibus_alike:
        assert moons >= 2


def _diff(base: Rules, rules: Rules) -> dict:
    return {k: format_value(v) for k, v in differences(base, rules).items()}


def _games_played_alike(a: np.ndarray, b: np.ndarray, facts) -> list[int]:
    """Return the games whose common deals hold the same facts in both row sets."""
    out = []
    for g in np.unique(a[:, D_GAME]):
        ra = a[a[:, D_GAME] == g]
        rb = b[b[:, D_GAME] == g]
        n = min(len(ra), len(rb))
        if all((ra[:n, c] == rb[:n, c]).all() for c in facts):
            out.append(int(g))
    return out


def test_rescoring_under_the_ten_of_diamonds_needs_the_taken_column():
    """A run recorded before schema 7 has no ``taken`` column: re-scoring it under
    ``omnibus_card=TD`` is refused with a message that says why; under JD it works."""
    players = load_players(["random"] * 4)
    rows, _ = play_range(Rules(), players, seed=3, first=0, stop=3)
    old = deals_frame(rows).drop(columns="taken")
    deal_facts(old, Rules(), "JD")
    with pytest.raises(RunFolderError, match="omnibus_card=TD needs the deals column taken"):
        rescore_frames(old, Rules(omnibus=True, omnibus_card="TD"), Rules())


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("classic(omnibus_card=TD)", "omnibus_card has effect only with omnibus=true"),
        ("classic(omnibus_value=5)", "omnibus_value has effect only with omnibus=true"),
        (
            "classic(omnibus=true,moon=off,jack_in_moon_deal=true)",
            "jack_in_moon_deal has no effect with moon=off",
        ),
        (
            "classic(omnibus=true,moon=off,moon_requires_jack=false)",
            "moon_requires_jack has no effect with moon=off",
        ),
        ("classic(moon=smart,new_moon_any_score=true)", "only with moon=new_moon"),
    ],
)
def test_ineffective_options_warn_where_a_variant_loses_its_effect(text, warning):
    """docs/rules.md A2.2, A2.3: an option set where it cannot matter is warned about."""
    notes = ineffective_options(parse_rules(text))
    assert any(warning in n for n in notes), notes


def test_variant_options_round_trip_and_are_scoring_only():
    """The new values read back from their string and vector forms; the moon outcomes and
    the bonus card and value are scoring options (re-scorable), the pass rules are not."""
    for rules in VARIANTS.values():
        assert parse_rules(canonical(rules)) == rules
        assert rules_from_array(rules.to_array()) == rules
    assert parse_rules("classic(omnibus_card=td)").omnibus_card == "TD"
    base = Rules()
    assert scoring_variant(base, "moon=smart,omnibus_card=TD,omnibus_value=5").moon == "smart"
    with pytest.raises(Exception, match="changes play"):
        scoring_variant(base, "passing=left")
