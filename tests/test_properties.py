"""Property tests (hypothesis): invariants of the engine over random deals and rules."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hsim.engine.layout import D_DEAL_SCORE, D_MOON, D_POINTS, P_PLAYED, V_HAND
from hsim.model.notation import PositionSpec, format_deal
from hsim.model.rules import RULE_FIELDS, Rules
from hsim.play.position import Position

PLAY_OPTIONS = [
    "lead_any_club",
    "hearts_must_be_broken",
    "queen_breaks_hearts",
    "first_trick_breaks_hearts",
    "lead_hearts_instead_of_queen",
    "queen_waits_for_broken_hearts",
]

rules_st = st.builds(
    Rules,
    **{name: st.booleans() for name in PLAY_OPTIONS},
    first_trick_points=st.sampled_from(RULE_FIELDS["first_trick_points"].metadata["choices"]),
    first_trick_only_points=st.sampled_from(("queen", "any")),
    omnibus=st.booleans(),
    moon_requires_jack=st.booleans(),
    jack_in_moon_deal=st.booleans(),
    no_trick_bonus=st.sampled_from(("off", "no_points", "no_tricks")),
    end_when=st.sampled_from(("reached", "exceeded")),
)


def _random_deal(seed):
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    return rng, format_deal([deck[13 * s : 13 * s + 13] for s in range(4)])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), rules_st, st.sampled_from(["left", "right", "across", "hold"]))
def test_a_deal_played_at_random_keeps_every_invariant(seed, rules, direction):
    rng, deal = _random_deal(seed)
    spec = PositionSpec.parse(deal, direction)
    p = Position.from_spec(spec, rules)
    if direction != "hold":
        passes = []
        for seat in range(4):
            hand = [c for c in range(52) if p.hand(seat) >> c & 1]
            passes.append(sum(1 << c for c in rng.sample(hand, 3)))
        p.pass_cards(passes)
    plays = []
    while p.phase == "play":
        # Cards are conserved: hands and played cards partition the deck.
        held = [p.hand(s) for s in range(4)]
        played = int(p.state.public[P_PLAYED])
        assert sum(bin(h).count("1") for h in held) + bin(played).count("1") == 52
        assert (held[0] | held[1] | held[2] | held[3] | played) == (1 << 52) - 1
        # A legal play exists until the deal ends, and it is a held card.
        legal = p.legal()
        assert legal and legal & ~int(p.state.private[p.to_act, V_HAND]) == 0
        card = rng.choice([c for c in range(52) if legal >> c & 1])
        plays.append(card)
        p.play(card)
    rows = p.rows
    assert len(plays) == 52 and sum(rows[:, D_POINTS]) == 26
    if rows[:, D_MOON].any():  # the moon totals: 0 + 3 x 26 (bonus exceptions aside)
        base = sorted(int(x) for x in rows[:, D_DEAL_SCORE])
        if not (rules.omnibus and rules.jack_in_moon_deal):
            assert base == [0, 26, 26, 26]
    # The position string of the played deal round-trips.
    spec2 = PositionSpec(
        spec.hands,
        direction,
        tuple(int(m) for m in p.state.private[:4, 3]) if direction != "hold" else None,
        tuple(plays[:17]),
    )
    assert PositionSpec.from_text(spec2.to_text()) == spec2
