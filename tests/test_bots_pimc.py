"""pimc: the world sampler, the exact ending search, legality, determinism and strength."""

import numpy as np
import pytest

from hsim.engine.layout import (
    D_POINTS,
    D_SEAT,
    MOON_ADD,
    MOON_SUBTRACT,
    P_HEARTS_BROKEN,
    P_LEADER,
    P_LED_SUIT,
    P_MOON_SHOOTER,
    P_N_PLAYS,
    P_N_SEATS,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_RULES,
    P_SCORES,
    P_TAKEN,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    P_VOIDS,
    PASS_HOLD,
    PRIVATE_LEN,
    PUBLIC_LEN,
    RULES_LEN,
    V_HAND,
    V_PASSED,
    V_SEAT,
)
from hsim.model.cards import format_card, mask_of, parse_card, parse_cards
from hsim.model.rules import Rules
from hsim.play.choose import choose
from hsim.play.games import play_range
from hsim.play.position import Position
from hsim.strategies import heuristic, pimc
from hsim.strategy.loader import load, load_players

ALL = (1 << 52) - 1
SUIT = (1 << 13) - 1
# worlds, playouts, exact_cards, noise, tie, infer, rollout, pass_infer, passing, play_infer,
# defend, max_worlds, close, model_trust, model_noise, shooters, shooter_infer, pass_worlds,
# moon_plan, no_feed: every parameter, in the order of the STRATEGY's params
SMALL = np.array(
    [4.0, 2.0, 16.0, 0.1, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 4.0,
     1.0, 0.0]
)  # fmt: skip


def test_small_holds_every_parameter():
    assert len(SMALL) == len(pimc.STRATEGY.params)


def test_more_worlds_go_to_close_decisions_only():
    """A close decision scores more worlds, up to max_worlds; one with a clear best card
    or with cards that score alike in every world scores ``worlds``."""
    gen = np.random.default_rng(3)
    grew = stayed = 0
    for _ in range(40):
        p = random_position(gen, n_plays=int(gen.integers(4, 30)))
        st = p.state
        me = p.to_act
        legal = int(p.legal())
        if legal & (legal - 1) == 0:
            continue
        total = np.zeros(52, np.int64)
        done = values_as_the_bot(st.public, st.private[me], legal, total, 32, 2)
        assert done in (8, 12, 16, 20, 24, 28, 32)
        per_world = np.sort([total[c] for c in range(52) if legal >> c & 1])
        gap = per_world[1] - per_world[0]
        if done == 8:
            stayed += 1
            assert gap == 0 or gap >= 2 * 8
        else:
            grew += 1
        plain = np.zeros(52, np.int64)
        assert values_as_the_bot(st.public, st.private[me], legal, plain, 0, 0) == 8
    assert grew > 0 and stayed > 0


def values_as_the_bot(public, private, legal, total, max_worlds, close):
    """pimc.pimc_values of 8 worlds, playouts by heuristic, no inference, with every
    argument of the types the bot's play passes (read-only observation, 21 arguments):
    the compiled code the bot's own compile cached, so the test compiles nothing."""
    public, private = public.copy(), private.copy()
    public.flags.writeable = private.flags.writeable = False
    scale = pimc.NOISE_SCALE
    return pimc.pimc_values(
        public, private, legal, np.array([7], np.uint64), 8, 1, 0, 0, 1, scale, total,
        1, scale, scale, max_worlds, close * scale, scale, 0, 0, 0, 0, True,
    )  # fmt: skip


def random_position(gen, rules=None, direction="hold", n_plays=0):
    """Deal at random, pass at random, then play ``n_plays`` random legal cards."""
    deck = [int(c) for c in gen.permutation(52)]
    hands = [deck[13 * s : 13 * s + 13] for s in range(4)]
    p = Position.from_hands(hands, direction, rules)
    if direction != "hold":
        p.pass_cards([[int(c) for c in gen.choice(h, 3, replace=False)] for h in hands])
    for _ in range(n_plays):
        legal = p.legal()
        p.play(int(gen.choice([c for c in range(52) if legal >> c & 1])))
    return p


def receiver(seat, direction):
    return (seat + (1, 3, 2)[direction]) % 4


def check_world(public, private, hands, true_hands):
    """Assert that ``hands`` is a deal the seat could be in (the module doc's rules)."""
    me = int(private[V_SEAT])
    played = int(public[P_PLAYED])
    assert hands[me] == private[V_HAND]
    union = 0
    for s in range(4):
        assert union & int(hands[s]) == 0
        union |= int(hands[s])
        assert int(hands[s]).bit_count() == int(true_hands[s]).bit_count()
        for u in range(4):
            if s != me and public[P_VOIDS + s] >> u & 1:
                assert int(hands[s]) >> (13 * u) & SUIT == 0
    assert union == ALL & ~played
    direction = int(public[P_PASS_DIR])
    if direction != PASS_HOLD:
        kept = int(private[V_PASSED]) & ~played
        assert kept & ~int(hands[receiver(me, direction)]) == 0


# -- the sampler ------------------------------------------------------------------------------
def test_sampled_worlds_respect_what_the_seat_saw():
    gen = np.random.default_rng(1)
    rng = np.array([12345], np.uint64)
    hands = np.zeros(4, np.int64)
    voids_seen = 0
    for i in range(240):
        direction = ("left", "right", "across", "hold")[i % 4]
        p = random_position(gen, direction=direction, n_plays=int(gen.integers(0, 52)))
        st = p.state
        me = p.to_act
        true_hands = [p.hand(s) for s in range(4)]
        check_world(st.public, st.private[me], true_hands, true_hands)  # the truth fits
        voids_seen += sum(int(st.public[P_VOIDS + s]).bit_count() for s in range(4))
        for _ in range(10):
            assert pimc.sample_hands(st.public, st.private[me], rng, hands)
            check_world(st.public, st.private[me], hands, true_hands)
    assert voids_seen > 200  # the voids were exercised


def test_sampler_is_uniform_without_constraints():
    gen = np.random.default_rng(2)
    p = random_position(gen)
    st = p.state
    me = p.to_act
    rng = np.array([7], np.uint64)
    hands = np.zeros(4, np.int64)
    counts = np.zeros((4, 52))
    n = 3000
    for _ in range(n):
        pimc.sample_hands(st.public, st.private[me], rng, hands)
        for s in range(4):
            counts[s] += [int(hands[s]) >> c & 1 for c in range(52)]
    unseen = [c for c in range(52) if not p.hand(me) >> c & 1]
    for s in range(4):
        if s != me:
            assert np.all(np.abs(counts[s, unseen] / n - 1 / 3) < 0.05)


def test_sampler_keeps_the_passed_cards_with_the_receiver():
    gen = np.random.default_rng(3)
    rng = np.array([99], np.uint64)
    hands = np.zeros(4, np.int64)
    for direction in ("left", "right", "across"):
        p = random_position(gen, direction=direction, n_plays=5)
        st = p.state
        me = p.to_act
        to = receiver(me, ("left", "right", "across").index(direction))
        kept = int(st.private[me, V_PASSED]) & ~int(st.public[P_PLAYED])
        for _ in range(50):
            pimc.sample_hands(st.public, st.private[me], rng, hands)
            assert int(hands[to]) & kept == kept


def heuristic_position(gen, direction, n_plays):
    """Deal at random, pass and play ``n_plays`` cards as ``heuristic`` does in every seat."""
    deck = [int(c) for c in gen.permutation(52)]
    p = Position.from_hands([deck[13 * s : 13 * s + 13] for s in range(4)], direction)
    rng = np.array([1], np.uint64)
    params = pimc.HEURISTIC_PARAMS.copy()
    if direction != "hold":
        st = p.state
        passes = [
            int(heuristic.pass_cards(st.public, st.private[s], rng, params)) for s in range(4)
        ]
        p.pass_cards([[c for c in range(52) if m >> c & 1] for m in passes])
    for _ in range(n_plays):
        st = p.state
        p.play(int(heuristic.play(st.public, st.private[p.to_act], p.legal(), rng, params)))
    return p


def test_pass_surprises_are_rare_in_the_true_deal_and_common_in_random_ones():
    # Against seats that pass as heuristic does, the true deal is almost never surprising
    # (across: the passer's kept cards are known exactly), a uniform world often is.
    gen = np.random.default_rng(8)
    rng = np.array([5], np.uint64)
    hands = np.zeros(4, np.int64)
    true_n, sampled_n = [], []
    for i in range(150):
        p = heuristic_position(gen, ("left", "right", "across")[i % 3], 0)
        st = p.state
        truth = np.array([p.hand(s) for s in range(4)], np.int64)
        for me in range(4):
            true_n.append(pimc.pass_surprises(st.public, st.private[me], truth))
            pimc.sample_hands(st.public, st.private[me], rng, hands)
            sampled_n.append(pimc.pass_surprises(st.public, st.private[me], hands))
    true_n, sampled_n = np.array(true_n), np.array(sampled_n)
    assert (true_n > 0).mean() < 0.12
    assert (sampled_n > 0).mean() > (true_n > 0).mean() + 0.1
    # No pass (hold): nothing to infer.
    p = heuristic_position(gen, "hold", 0)
    truth = np.array([p.hand(s) for s in range(4)], np.int64)
    assert pimc.pass_surprises(p.state.public, p.state.private[0], truth) == 0


def test_play_surprises_fit_the_true_deal_of_heuristic_players():
    gen = np.random.default_rng(9)
    rng = np.array([6], np.uint64)
    hands = np.zeros(4, np.int64)
    pub = np.zeros(PUBLIC_LEN, np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    params = pimc.HEURISTIC_PARAMS.copy()
    true_n, sampled_n = [], []
    for i in range(120):
        direction = ("left", "right", "across", "hold")[i % 4]
        p = heuristic_position(gen, direction, int(gen.integers(8, 44)))
        st = p.state
        me = p.to_act
        truth = np.array([p.hand(s) for s in range(4)], np.int64)
        true_n.append(
            pimc.play_surprises(st.public, st.private[me], truth, rng, params, 52, pub, priv)
        )
        pimc.sample_hands(st.public, st.private[me], rng, hands)
        sampled_n.append(
            pimc.play_surprises(st.public, st.private[me], hands, rng, params, 52, pub, priv)
        )
        # The limit stops the count.
        assert pimc.play_surprises(st.public, st.private[me], hands, rng, params, 1, pub, priv) <= 1
    true_n, sampled_n = np.array(true_n), np.array(sampled_n)
    assert (true_n > 0).mean() < 0.05, true_n
    assert (sampled_n > 0).mean() > 0.8, sampled_n


def test_pimc_with_every_inference_plays_and_passes_legally():
    gen = np.random.default_rng(10)
    rng = np.array([13], np.uint64)
    params = SMALL.copy()
    params[[0, 2, 7, 9]] = (3, 8, 0.3, 0.2)  # 3 worlds, playouts up to 8 cards, inferences on
    for i in range(120):
        rules = RULE_VARIANTS[i % len(RULE_VARIANTS)]
        direction = ("left", "right", "across", "hold")[i % 4]
        p = random_position(gen, rules, direction, int(gen.integers(0, 52)))
        st = p.state
        legal = p.legal()
        assert legal >> int(pimc.play(st.public, st.private[p.to_act], legal, rng, params)) & 1
        fresh = random_position(gen, rules, "left").state  # 13 cards each
        params[8] = i % 3  # pimc's own pass, heuristic's, the searched pass
        out = int(pimc.pass_cards(fresh.public, fresh.private[i % 4], rng, params))
        assert out.bit_count() == 3 and out & ~int(fresh.private[i % 4, V_HAND]) == 0


def test_queen_passes_counts_the_chances_to_shed_the_queen():
    plays = "2C 3C 4C 5C 6C 7C 2D 8C AS 4S 5S 6S"  # seats 0..3, then 3 0 1 2, then 2 3 0 1
    p = Position.from_hands(
        [
            "2C 7C 5S 9H TH JH QH KH AH 2S 3S 7S 8S",
            "3C 2D 6S 3D 4D 5D 6D 7D 8D 9D TD JD QD",
            "4C 8C AS 9C TC JC QC KC AC KD AD 9S TS",
            "5C 6C 4S 2H 3H 4H 5H 6H 7H 8H QS KS JS",
        ]
    )
    p.play(plays)
    flags = np.zeros(4, np.int64)
    pimc.queen_passes(p.state.public, Rules().to_array(), flags)
    # seat 1 discarded 2D on trick 2; seats 3, 0 and 1 played spades under the AS.
    assert list(flags) == [1, 2, 0, 1]


# -- hand-made endings ----------------------------------------------------------------------
def ending(hands, trick=(), to_act=0, points=(0, 0, 0, 0), taken=(0, 0, 0, 0), voids=(0,) * 4):
    """Return (public, private rows) of a deal near its end, built directly.

    hands: the 4 hands now (card codes). trick: (seat, card) pairs of the current trick.
    The earlier tricks' cards are the others, played round the table in card order.
    """
    masks = [mask_of(parse_cards(h)) for h in hands]
    trick = [(s, parse_card(c)) for s, c in trick]
    held = masks[0] | masks[1] | masks[2] | masks[3]
    tmask = mask_of([c for _, c in trick])
    earlier = [c for c in range(52) if not (held | tmask) >> c & 1]
    assert len(earlier) % 4 == 0
    public = np.zeros(PUBLIC_LEN, np.int64)
    public[P_N_SEATS] = 4
    public[P_MOON_SHOOTER] = -1
    rules = Rules().to_array()
    public[P_RULES : P_RULES + len(rules)] = rules
    plays = [(i % 4, c) for i, c in enumerate(earlier)] + trick
    for i, (s, c) in enumerate(plays):
        public[P_PLAY_CARD + i] = c
        public[P_PLAY_SEAT + i] = s
    public[P_N_PLAYS] = len(plays)
    public[P_PLAYED] = ALL & ~held
    public[P_TRICK_CARDS] = tmask
    public[P_TRICK] = len(earlier) // 4
    public[P_TRICK_LEN] = len(trick)
    leader = trick[0][0] if trick else to_act
    public[P_LEADER] = leader
    public[P_LED_SUIT] = trick[0][1] // 13 if trick else -1
    public[P_TO_ACT] = (leader + len(trick)) % 4
    public[P_HEARTS_BROKEN] = 1
    for s in range(4):
        public[P_POINTS + s] = points[s]
        public[P_TAKEN + s] = taken[s]
        public[P_VOIDS + s] = voids[s]
    private = np.zeros((4, PRIVATE_LEN), np.int64)
    for s in range(4):
        private[s, V_SEAT] = s
        private[s, V_HAND] = masks[s]
    return public, private


def exact(public, private):
    out = np.zeros(52, np.int64)
    legal = pimc.exact_values(public, private[:, V_HAND].copy(), out)
    return {c: int(out[c]) for c in range(52) if legal >> c & 1}


C = parse_card

# Seat 3 led 7H; seat 0 holds 6H and AH, the last heart is seat 3's 5H. Ducking with 6H
# costs 2 (seat 0 takes 5H with AH later); winning with AH takes 7H now and 5H next: 4.
DUCK = dict(hands=["6H AH", "2C 3C", "4C 5C", "5H"], trick=[(3, "7H")], voids=(0, 8, 8, 0))

# Seat 1 led 5D, seat 2 (void) threw 2C, seat 3 6D; seat 0 holds 4D and AD. Ducking
# leaves AD to win the last diamond trick, where seat 2 dumps QS: 13. Winning with AD now
# and leading 4D passes the QS to seats 1 or 3: 0.
WIN = dict(hands=["4D AD", "7D", "QS", "8D"], trick=[(1, "5D"), (2, "2C"), (3, "6D")])


def test_exact_search_ducks_when_ducking_saves_points():
    public, private = ending(**DUCK)
    assert exact(public, private) == {C("6H"): 2, C("AH"): 4}


def test_exact_search_wins_a_trick_when_winning_saves_points():
    public, private = ending(**WIN, voids=(0, 2, 2, 0))
    assert exact(public, private) == {C("4D"): 13, C("AD"): 0}


def test_exact_search_shoots_the_moon():
    # Seat 0 took QS and 12 hearts (25 points); leading AH it takes all 26 and scores 0;
    # leading 2C it loses AH to seat 3's diamond trick and keeps its 25.
    hearts = mask_of(parse_cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH QS"))
    public, private = ending(
        ["AH 2C", "3C 4D", "5C 5D", "6C 6D"],
        to_act=0,
        points=(25, 0, 0, 0),
        taken=(hearts, 0, 0, 0),
    )
    assert exact(public, private) == {C("AH"): 0, C("2C"): 25}


def test_exact_search_stops_a_moon():
    # Seat 1 took QS and 12 hearts and wins this diamond trick; seat 0 (void) throwing the
    # last heart AH gives seat 1 the moon (26 to seat 0); keeping it, seat 0 throws AH on
    # the last trick, which seat 3's 5C wins: 0.
    hearts = mask_of(parse_cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH QS"))
    public, private = ending(
        ["AH 2C", "3C", "4C", "5C"],
        trick=[(1, "AD"), (2, "2D"), (3, "3D")],
        points=(0, 25, 0, 0),
        taken=(0, hearts, 0, 0),
    )
    assert exact(public, private) == {C("AH"): 26, C("2C"): 0}


def test_pimc_decides_determined_endings_exactly():
    rng = np.array([5], np.uint64)
    for case, voids, answer in ((DUCK, (0, 8, 8, 0), "6H"), (WIN, (0, 2, 0, 0), "AD")):
        case = dict(case, voids=voids)
        public, private = ending(**case)
        legal = mask_of(parse_cards(case["hands"][0]))
        for _ in range(5):
            assert pimc.play(public, private[0], legal, rng, SMALL) == C(answer)


# Seat 1 led 5D, seat 2 played TD, seat 3 6D; seat 0 holds 4D and AD, the others one club
# each. AD takes the trick with TD in it; 4D leaves it to seat 2. No points remain.
TEN = dict(hands=["4D AD", "2C", "3C", "5C"], trick=[(1, "5D"), (2, "TD"), (3, "6D")])


@pytest.mark.parametrize(
    ("card", "values"), [("TD", {"4D": 0, "AD": -10}), ("JD", {"4D": 0, "AD": 0})]
)
def test_pimc_values_taking_the_bonus_card_of_omnibus_card(card, values):
    """docs/rules.md A2.3, ``omnibus_card``: pimc's own deal state follows the bonus card of
    the rules vector, so with ``omnibus_card=TD`` winning the trick holding TD is worth
    -10 to it (and it plays AD); with the JD as bonus card TD is worth nothing.
    """
    public, private = ending(**TEN, voids=(0, 2, 2, 2))
    rules = Rules(omnibus=True, omnibus_card=card).to_array()
    public[P_RULES : P_RULES + len(rules)] = rules
    assert exact(public, private) == {C(c): v for c, v in values.items()}
    if card == "TD":
        rng = np.array([5], np.uint64)
        legal = mask_of(parse_cards("4D AD"))
        assert pimc.play(public, private[0], legal, rng, SMALL) == C("AD")


# -- legality, determinism, strength ----------------------------------------------------------
RULE_VARIANTS = [
    Rules(),
    Rules(omnibus=True, no_trick_bonus="no_points"),
    Rules(queen_breaks_hearts=True, first_trick_only_points="any", lead_any_club=True),
    Rules(first_trick_points="allowed", queen_waits_for_broken_hearts=True),
    Rules(hearts_must_be_broken=False, moon="new_moon", lead_hearts_instead_of_queen=True),
    Rules(
        first_trick_points="allowed",
        first_trick_breaks_hearts=False,
        queen_breaks_hearts=True,
        moon="new_moon",
        new_moon_any_score=True,
        end_when="exceeded",
    ),
    Rules(passing="right", moon="smart", omnibus=True, omnibus_card="TD", omnibus_value=5),
    Rules(passing="left", moon="off", omnibus=True, omnibus_card="TD"),
    Rules(moon="shooter_gains", omnibus=True, jack_in_moon_deal=True),
]


@pytest.mark.parametrize("first_breaks", [True, False])
def test_pimc_breaks_hearts_as_the_engine_does(first_breaks):
    """pimc's own deal state (for its playouts and search) marks hearts broken exactly
    when the engine does, trick 1 included (A1.6, ``first_trick_breaks_hearts``)."""
    gen = np.random.default_rng(7)
    rules = Rules(
        first_trick_points="allowed",
        queen_breaks_hearts=True,
        first_trick_breaks_hearts=first_breaks,
    )
    trick_1_breaks = 0
    for _ in range(150):
        p = random_position(gen, rules)
        hands = np.array([p.hand(s) for s in range(4)], np.int64)
        state = np.zeros(pimc.S_LEN, np.int64)
        pimc.init_state(p.state.public, hands, state)
        flags = pimc.break_flags(p.rules_array)
        for _ in range(8):  # tricks 1 and 2
            legal = p.legal()
            card = int(gen.choice([c for c in range(52) if legal >> c & 1]))
            breaks = card // 13 == 3 or card == C("QS")
            trick_1_breaks += breaks and int(p.state.public[P_TRICK]) == 0
            p.play(card)
            pimc._step(state, card, flags)
            assert state[pimc.S_BROKEN] == p.state.public[P_HEARTS_BROKEN]
    assert trick_1_breaks > 0


def test_pimc_plays_a_legal_card_in_random_positions():
    gen = np.random.default_rng(4)
    rng = np.array([11], np.uint64)
    for i in range(300):
        rules = RULE_VARIANTS[i % len(RULE_VARIANTS)]
        direction = ("left", "right", "across", "hold")[i % 4]
        p = random_position(gen, rules, direction, int(gen.integers(0, 52)))
        st = p.state
        legal = p.legal()
        card = pimc.play(st.public, st.private[p.to_act], legal, rng, SMALL)
        assert legal >> int(card) & 1


def test_pimc_passes_three_held_cards():
    gen = np.random.default_rng(5)
    rng = np.array([1], np.uint64)
    for _ in range(200):
        p = random_position(gen, direction="left")
        st = p.state
        for s in range(4):
            out = int(pimc.pass_cards(st.public, st.private[s], rng, SMALL))
            assert out.bit_count() == 3 and out & ~p.hand(s) == 0
    # A poorly guarded QS goes, a well guarded one stays.
    hand = mask_of(parse_cards("QS 2S 2C 3C 4C 5C 6C 7C 8C 9C 2D 3D 4D"))
    private = np.array([0, hand, hand, 0, 0, 0, 0, 0], np.int64)
    assert pimc.pass_cards(st.public, private, rng, SMALL) >> C("QS") & 1
    hand = mask_of(parse_cards("QS 2S 3S 4S 5S 2C 3C 4C 5C 6C 2D 3D AD"))
    private = np.array([0, hand, hand, 0, 0, 0, 0, 0], np.int64)
    assert not pimc.pass_cards(st.public, private, rng, SMALL) >> C("QS") & 1


def pass_position(hand, direction="left", rules=None):
    """A deal before the pass: ``hand`` (card names) in seat 0, the rest dealt in order."""
    mine = parse_cards(hand)
    rest = [c for c in range(52) if c not in mine]
    return Position.from_hands([mine, rest[:13], rest[13:26], rest[26:]], direction, rules)


def test_a_searched_pass_scores_every_pass_on_the_same_worlds():
    # Unguarded QS, AS and KS cost points kept; three low clubs cost none passed.
    st = pass_position("QS AS KS 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D").state
    passes = np.array([mask_of(parse_cards(p)) for p in ("QS AS KS", "2C 3C 4C")], np.int64)
    total = np.zeros(2, np.int64)
    pimc.pass_values(st.public, st.private[0], np.array([5], np.uint64), 100, passes, total)
    assert 0 < total[0] < total[1] - 100 * 2  # at least 2 points a deal better
    again = np.zeros(2, np.int64)
    pimc.pass_values(st.public, st.private[0], np.array([5], np.uint64), 100, passes, again)
    assert list(again) == list(total)  # the worlds come from the seat's stream
    # The same pass twice meets the same worlds: the same sum.
    pimc.pass_values(
        st.public, st.private[0], np.array([5], np.uint64), 50, passes[:1].repeat(2), again
    )
    assert again[0] == again[1]


@pytest.mark.parametrize("seats", [3, 4])
def test_a_searched_pass_is_three_cards_of_its_pool(seats):
    gen = np.random.default_rng(8)
    params = SMALL.copy()
    params[8] = 2
    rules = Rules(players=3) if seats == 3 else Rules()
    hparams = pimc.HEURISTIC_PARAMS.copy()
    changed = 0
    for i in range(30):
        deck = [int(c) for c in gen.permutation(52)]
        if seats == 3:
            deck.remove(C("2D"))
        size = len(deck) // seats
        p = Position.from_hands(
            [deck[size * s : size * s + size] for s in range(seats)],
            ("left", "right")[i % 2],
            rules,
        )
        st = p.state
        private = st.private[i % seats]
        base = heuristic.pass_cards(st.public, private, np.zeros(1, np.uint64), hparams)
        pool = int(pimc.pass_pool(st.public, private, hparams, base))
        base = int(base)
        assert pool.bit_count() == pimc.PASS_POOL and base & ~pool == 0
        out = int(pimc.pass_cards(st.public, private, np.array([i], np.uint64), params))
        assert out.bit_count() == 3 and out & ~pool == 0
        assert out == int(pimc.pass_cards(st.public, private, np.array([i], np.uint64), params))
        changed += out != base
    assert 0 < changed < 30  # the search keeps heuristic's pass unless another scores better


def _five_seats(direction: str) -> Position:
    """A 5-seat deal of the deck without the 2D and 2C, 10 cards a seat in deck order."""
    deck = [c for c in range(52) if c not in (C("2D"), C("2C"))]
    hands = [deck[10 * s : 10 * s + 10] for s in range(5)]
    return Position.from_hands(hands, direction, Rules(players=5))


def test_a_searched_pass_with_five_seats_is_heuristics():
    st = _five_seats("left").state
    params = SMALL.copy()
    params[8] = 2
    hparams = pimc.HEURISTIC_PARAMS.copy()
    base = heuristic.pass_cards(st.public, st.private[1], np.zeros(1, np.uint64), hparams)
    assert pimc.pass_cards(st.public, st.private[1], np.array([3], np.uint64), params) == base


@pytest.mark.parametrize(
    ("scores", "answer"),
    [
        ((80, 90, 95, 40), MOON_ADD),  # +26 ends the game with the shooter lowest
        ((60, 20, 30, 90), MOON_SUBTRACT),  # +26 would end it with the shooter last
    ],
)
def test_moon_choice(scores, answer):
    public = np.zeros(PUBLIC_LEN, np.int64)
    rules = Rules(moon="new_moon").to_array()
    public[P_RULES : P_RULES + len(rules)] = rules
    public[P_MOON_SHOOTER] = 3 if answer == MOON_ADD else 0
    public[P_POINTS + public[P_MOON_SHOOTER]] = 26
    for s in range(4):
        public[P_SCORES + s] = scores[s]
    private = np.zeros(PRIVATE_LEN, np.int64)
    private[V_SEAT] = public[P_MOON_SHOOTER]
    assert pimc.moon_choice(public, private, np.array([1], np.uint64), SMALL) == answer


def test_choose_is_deterministic_for_a_seed():
    gen = np.random.default_rng(6)
    strategy = load("pimc(worlds=4,playouts=2)")
    for n_plays in (0, 9, 22, 37, 45):
        p = random_position(gen, direction="left", n_plays=n_plays)
        picks = [choose(strategy, p, seed) for seed in range(4)]
        assert picks == [choose(strategy, p, seed) for seed in range(4)]
        assert all(p.legal() >> c & 1 for c in picks)


def test_pimc_beats_lowcard():
    players = load_players(["pimc(worlds=8,playouts=4)", "lowcard", "lowcard", "lowcard"])
    deals, _ = play_range(Rules(), players, 3, 0, 20)
    mine = deals[deals[:, D_SEAT] == 0, D_POINTS].mean()
    theirs = deals[deals[:, D_SEAT] != 0, D_POINTS].mean()
    assert len(deals) >= 4 * 100
    assert mine < theirs - 2.5, (mine, theirs)


class _Recorder:
    """Plays its lowest legal card and keeps in ``seen`` the observations ``window``
    (cards into a deal, both ends included) of every deal; with ``driver`` set, every
    seat's true hand (int64[4]) beside each."""

    def __init__(self, window):
        self.seen = []
        self.window = window
        self.driver = None

    def pass_cards(self, obs, rng):
        return sum(1 << c for c in sorted(obs.hand_cards())[-3:])

    def play(self, obs, legal, rng):
        public, private = obs.arrays()
        if self.window[0] <= int(public[P_N_PLAYS]) <= self.window[1]:
            if self.driver is None:
                self.seen.append((public.copy(), private.copy()))
            else:
                hands = self.driver.state.private[:4, V_HAND].copy()
                self.seen.append((public.copy(), private.copy(), hands))
        return (legal & -legal).bit_length() - 1


def _positions_against(opponent, n=60, window=(20, 40), seed=3, hands=False):
    """Return ``n`` (public, private) observations of seat 0 (lowcard) ``window`` cards
    into deals (both ends included) against three ``opponent`` seats, run seed ``seed``;
    ``hands``: (public, private, true hands of every seat, int64[4])."""
    from hsim.play.games import PythonDriver
    from hsim.strategy.contract import LoadedStrategy

    recorder = _Recorder(window)
    me = LoadedStrategy("rec", "rec", "python", python_factory=lambda: recorder)
    driver = PythonDriver(Rules(), [me, *load_players([opponent] * 4)[1:]], seed)
    recorder.driver = driver if hands else None
    game = 0
    while len(recorder.seen) < n:
        driver.play_game(game)
        game += 1
    return recorder.seen[:n]


def _untrusted_seats(public, private, rng, params, trust, pub, priv, excused):
    """What pimc_values does with ``model_trust``: one count of surprises, then the seats
    it excuses."""
    best = np.zeros(4, np.int64)
    chances = np.zeros(4, np.int64)
    pimc.surprise_shares(public, private, rng, params, pub, priv, best, chances)
    pimc.excused_seats(private, best, chances, trust, excused)


def _model_noise(public, private, rng, params, noise, model_noise, pub, priv, seat_noise):
    """What pimc_values does with ``model_noise`` (0: every seat keeps ``noise``)."""
    seat_noise[:] = noise
    if model_noise > 0:
        best = np.zeros(4, np.int64)
        chances = np.zeros(4, np.int64)
        pimc.surprise_shares(public, private, rng, params, pub, priv, best, chances)
        pimc.seat_noises(private, best, chances, noise, model_noise, seat_noise)


@pytest.mark.parametrize(("opponent", "trusted"), [("heuristic", True), ("random", False)])
def test_play_inference_stops_judging_seats_that_do_not_play_like_heuristic(opponent, trusted):
    rng = np.array([5], np.uint64)
    pub = np.zeros(PUBLIC_LEN, np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    excused = np.zeros(8, np.int64)
    judged = []
    for public, private in _positions_against(opponent):
        trust = int(0.3 * pimc.NOISE_SCALE)
        params = pimc.HEURISTIC_PARAMS.copy()
        _untrusted_seats(public, private, rng, params, trust, pub, priv, excused)
        assert excused[0] == 0  # never the deciding seat itself
        judged += [excused[s] == 0 for s in (1, 2, 3)]
    share = np.mean(judged)
    assert share > 0.8 if trusted else share < 0.3
    # trust 1 judges every seat, as play_infer did before model_trust
    _untrusted_seats(public, private, rng, params, pimc.NOISE_SCALE, pub, priv, excused)
    assert not excused[:4].any()


def test_model_noise_makes_seats_that_play_unlike_heuristic_random_in_the_playouts():
    """``model_noise`` gives a ``random`` seat a playout noise near 1 and a ``heuristic``
    seat one near 0; the deciding seat keeps ``noise``; 0 leaves every seat at ``noise``."""
    rng = np.array([5], np.uint64)
    pub = np.zeros(PUBLIC_LEN, np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    seat_noise = np.zeros(4, np.int64)
    params = pimc.HEURISTIC_PARAMS.copy()
    scale = pimc.NOISE_SCALE
    base = scale // 50
    mean = {}
    for opponent in ("heuristic", "random"):
        seen = []
        for public, private in _positions_against(opponent):
            _model_noise(public, private, rng, params, base, 3 * scale // 2, pub, priv, seat_noise)
            assert seat_noise[0] == base and seat_noise.min() >= base
            assert seat_noise.max() <= scale
            seen += [seat_noise[s] / scale for s in (1, 2, 3)]
            _model_noise(public, private, rng, params, base, 0, pub, priv, seat_noise)
            assert (seat_noise == base).all()
        mean[opponent] = np.mean(seen)
    assert mean["heuristic"] < 0.15 and mean["random"] > 0.6, mean


def test_one_count_of_surprises_gives_the_excused_seats_and_the_playout_noise():
    """``excused_seats`` and ``seat_noises`` read the same shares (best / chances), as
    ``pimc_values`` uses them from one :func:`surprise_shares`; the deciding seat and seats
    with fewer than 3 plays with a choice are neither excused nor made noisy."""
    scale = pimc.NOISE_SCALE
    private = np.zeros(PRIVATE_LEN, np.int64)
    private[V_SEAT] = 1
    best = np.array([5, 0, 2, 6], np.int64)
    chances = np.array([10, 9, 2, 8], np.int64)
    excused = np.zeros(8, np.int64)
    pimc.excused_seats(private, best, chances, int(0.3 * scale), excused)
    assert excused[:4].tolist() == [52, 0, 0, 52]
    pimc.excused_seats(private, best, chances, int(0.8 * scale), excused)
    assert excused[:4].tolist() == [0, 0, 0, 0]  # shares 0.5 and 0.75 are trusted at 0.8
    seat_noise = np.zeros(4, np.int64)
    base = scale // 50
    pimc.seat_noises(private, best, chances, base, 3 * scale // 2, seat_noise)
    assert seat_noise.tolist() == [3 * scale // 4, base, base, scale]


def test_a_seat_with_playout_noise_one_plays_at_random():
    """heuristic_playout: a seat whose noise is NOISE_SCALE plays unlike heuristic in some
    playouts; with noise 0 every playout of the world is the same."""
    public, private = _positions_against("heuristic", 1)[0]
    rules = pimc._setup(public)[1]
    hands = np.zeros(4, np.int64)
    rng = np.array([9], np.uint64)
    pimc.sample_hands(public, private, rng, hands)
    priv0 = np.zeros((4, PRIVATE_LEN), np.int64)
    pimc.world_private(public, private, hands, priv0)
    params = pimc.HEURISTIC_PARAMS.copy()

    def endings(seat_noise):
        out = set()
        for _ in range(20):
            pub, priv = public.copy(), priv0.copy()
            pimc.heuristic_playout(
                pub, priv, rules, rng, seat_noise, params, np.zeros(4, np.int64), params
            )
            out.add(tuple(pub[P_PLAY_CARD : P_PLAY_CARD + 52]))
        return out

    assert len(endings(np.zeros(4, np.int64))) == 1
    noisy = np.zeros(4, np.int64)
    noisy[1] = pimc.NOISE_SCALE
    assert len(endings(noisy)) > 1


def test_playout_shooter_seats_go_for_the_moon_where_heuristic_seats_do_not():
    """heuristic_playout with ``shooter_seats``: over sampled worlds of early positions,
    the seats played as ``shooter`` take all 26 points in more playouts than the same
    seats played as ``heuristic``."""
    hands = np.zeros(4, np.int64)
    rng = np.array([4], np.uint64)
    priv0 = np.zeros((4, PRIVATE_LEN), np.int64)
    params, sparams = pimc.HEURISTIC_PARAMS.copy(), pimc.SHOOTER_PARAMS.copy()
    others = np.array([0, 1, 1, 1], np.int64)
    moons = {"heuristic": 0, "shooter": 0}
    for public, private in _early_positions(40):
        rules_array = pimc._setup(public)[1]
        for _ in range(10):
            pimc.sample_hands(public, private, rng, hands)
            pimc.world_private(public, private, hands, priv0)
            for model, seats in (("heuristic", np.zeros(4, np.int64)), ("shooter", others)):
                pub, priv = public.copy(), priv0.copy()
                pimc.heuristic_playout(
                    pub, priv, rules_array, rng, np.zeros(4, np.int64), params, seats, sparams
                )
                moons[model] += any(pub[P_POINTS + s] == 26 for s in (1, 2, 3))
    assert moons["shooter"] > 2 * moons["heuristic"] + 5, moons


def _early_positions(n):
    """Return ``n`` (public, private) observations of seat 0 (lowcard) in the first
    tricks of deals against three ``heuristic`` seats, before any point is taken."""
    return [
        (public, private)
        for public, private in _positions_against("heuristic", 4 * n, window=(0, 12))
        if public[P_POINTS : P_POINTS + 4].sum() == 0
    ][:n]


@pytest.mark.parametrize("opponent", ["shooter", "heuristic"])
def test_mixed_surprises_tell_a_shooter_from_heuristic_on_the_true_deal(opponent):
    """mixed_surprises on the true hands: against ``shooter`` seats, shooter explains
    plays heuristic does not (fewer surprises, the seat marked as a shooter) in some
    positions; against ``heuristic`` seats no seat is marked. The mixture never counts
    more than heuristic alone."""
    rng = np.array([8], np.uint64)
    pub = np.zeros(PUBLIC_LEN, np.int64)
    priv = np.zeros((4, PRIVATE_LEN), np.int64)
    hparams, sparams = pimc.HEURISTIC_PARAMS.copy(), pimc.SHOOTER_PARAMS.copy()
    marked = explained = 0
    for public, private, hands in _positions_against(opponent, 300, (0, 20), seed=5, hands=True):
        alone, mixed = np.zeros(8, np.int64), np.zeros(8, np.int64)
        as_shooter = np.zeros(4, np.int64)
        args = (public, private, hands, rng, hparams, sparams)
        k_alone = pimc.mixed_surprises(*args, False, 52, pub, priv, alone, as_shooter)
        assert not as_shooter.any()
        k_mixed = pimc.mixed_surprises(*args, True, 52, pub, priv, mixed, as_shooter)
        assert k_mixed <= k_alone and (mixed[:4] <= alone[:4]).all()
        assert (as_shooter.astype(bool) == (mixed[:4] < alone[:4])).all()
        assert as_shooter[0] == 0  # the deciding seat is never judged
        marked += as_shooter.any()
        explained += k_alone - k_mixed
    if opponent == "shooter":
        assert marked >= 10 and explained >= marked, (marked, explained)
    else:
        assert marked == 0, marked


def test_pimc_takes_a_high_heart_lead_from_a_seat_holding_every_point():
    """The seat holding every point leads the KH (tests/test_bots_duck_heuristic.py):
    pimc takes it with the AH before any search (``defend=1``), and with
    ``defend=0,shooter_infer=0`` leaves it to the search, whose heuristic playouts see no
    moon and duck."""
    from tests.test_bots_duck_heuristic import ALL_POINTS, MOON_DEFENCE, card, position

    pos = position(MOON_DEFENCE, ALL_POINTS + " KH")
    assert card("pimc(worlds=4,defend=1)", pos) == "AH"
    assert card("pimc(worlds=4,defend=0,shooter_infer=0)", pos) != "AH"
    # the default, defend=2: no play of that seat is shooter's rather than heuristic's
    # here, so the search decides, as with defend=0
    assert card("pimc(worlds=4)", pos) != "AH"


# Seat 1 won tricks 2 to 4 (the QS fell under its AS; on its KS seat 0 shed the KH): it
# holds every point taken (14) and leads the AH. Seat 0's QH is the last heart out above
# seat 1's TH. (Found by playing heuristic in seat 0 against three shooter seats.)
SHOOTER_LEADS_THE_AH = [
    "9C JC QC AC 7D 8D 9D TD 4S 2H 6H QH KH",
    "2C 5C JD AD 5S KS AS 3H 4H 5H 9H TH AH",
    "3C 4C 6C KC 4D 6D 2S 6S 8S 9S JS 7H 8H",
    "7C 8C TC 2D 3D 5D QD KD 3S 7S TS QS JH",
]
SHOOTER_LEADS_THE_AH_PLAYS = "2C KC TC AC 4S AS JS QS AD 6D KD TD KS 9S TS KH AH 7H JH"


def test_a_seat_marked_as_a_shooter_plays_the_playouts_as_shooter():
    """pimc_values with ``shooter_infer``: on the true deal ``shooter`` explains seat 1's
    plays better than ``heuristic`` (marked); with the mark seat 1 plays the playouts as
    ``shooter`` and pimc keeps the QH (plays the 6H). Without the mark, from
    ``shooter_infer=0`` or from ``play_infer=1`` (no seat is judged, so none is marked),
    the ``heuristic`` playouts see no moon and pimc sheds the QH. ``defend=0`` leaves the
    card to the search."""
    from tests.test_bots_duck_heuristic import position

    pos = position(SHOOTER_LEADS_THE_AH, SHOOTER_LEADS_THE_AH_PLAYS)
    assert pos.to_act == 0
    state = pos.state
    hands = state.private[:4, V_HAND].copy()
    counts, as_shooter = np.zeros(8, np.int64), np.zeros(4, np.int64)
    pimc.mixed_surprises(
        state.public, state.private[0], hands, np.array([8], np.uint64),
        pimc.HEURISTIC_PARAMS.copy(), pimc.SHOOTER_PARAMS.copy(), True, 52,
        np.zeros(PUBLIC_LEN, np.int64), np.zeros((4, PRIVATE_LEN), np.int64), counts,
        as_shooter,
    )  # fmt: skip
    assert as_shooter.tolist() == [0, 1, 0, 0]
    specs = {
        "pimc(worlds=20,defend=0,shooter_infer=1)": "6H",
        "pimc(worlds=20,defend=0,shooter_infer=0)": "QH",
        "pimc(worlds=20,defend=0,shooter_infer=1,play_infer=1)": "QH",
    }
    for spec, expected in specs.items():
        bot = load(spec)
        for seed in (1, 2, 3):
            assert format_card(choose(bot, pos, seed=seed)) == expected, (spec, seed)


def test_the_default_keeps_a_stopper_under_a_seat_playing_like_shooter():
    """Seat 1 holds every point taken and leads the AH, having played as ``shooter`` does
    (SHOOTER_LEADS_THE_AH): the default (``defend=2``) keeps the QH, the last heart out
    above seat 1's TH, as ``defend=1`` does, with ``shooter_infer`` 1 (the default) or 0;
    the search alone (``defend=0,shooter_infer=0``) sheds it."""
    from tests.test_bots_duck_heuristic import card, position

    pos = position(SHOOTER_LEADS_THE_AH, SHOOTER_LEADS_THE_AH_PLAYS)
    assert card("pimc(worlds=20,defend=0,shooter_infer=0)", pos) == "QH"
    assert card("pimc(worlds=20)", pos) != "QH"
    assert card("pimc(worlds=20,shooter_infer=0)", pos) != "QH"
    assert card("pimc(worlds=20,defend=1)", pos) != "QH"


# Seat 1 wins trick 1 with the AC and trick 2 with the AS, seat 2 dropping the QS under
# it: seat 1 holds every point taken (13). It leads the KS; seat 0, void in spades, holds
# low clubs and diamonds and the three top hearts.
FED_SHOOTER = [
    "2C 3C 4C 2D 3D 4D 5D 6D 2H 3H QH KH AH",
    "AC AS KS JS TS 9S 7D 8D 9D TD JD QD KD",
    "QS 2S 3S 5C 6C 7C 8C 7H 8H 9H TH JH AD",
    "9C TC JC QC KC 4S 5S 6S 7S 8S 4H 5H 6H",
]
FED_SHOOTER_PLAYS = "2C AC 5C 9C AS QS 4S 2D KS 2S 5S"


def test_no_feed_discards_no_point_card_to_a_seat_holding_13_points_or_more():
    """Void in the led suit under a trick won so far by the seat holding every point
    taken (13): ``no_feed=1`` (the default) discards a card without points; the search
    alone (``defend=0,no_feed=0``), whose ``heuristic`` playouts see no moon, mostly sheds
    the AH. With a point taken by another seat, or fewer than 13 taken, the rule leaves
    ``legal`` as it is."""
    from tests.test_bots_duck_heuristic import position

    pos = position(FED_SHOOTER, FED_SHOOTER_PLAYS)
    assert pos.to_act == 0
    hearts = set(parse_cards("2H 3H QH KH AH"))
    search = load("pimc(worlds=20,defend=0,no_feed=0)")
    rule = load("pimc(worlds=20,defend=0)")  # no_feed=1, the default
    seeds = range(1, 7)
    assert sum(choose(search, pos, seed=seed) in hearts for seed in seeds) >= 4
    for seed in seeds:
        shed = choose(rule, pos, seed=seed)
        assert shed not in hearts, (seed, format_card(shed))
    public = pos.state.public
    legal = mask_of(parse_cards("3C 4C 3D 4D 5D 6D 2H 3H QH KH AH"))
    assert pimc.no_feed(public, legal) == mask_of(parse_cards("3C 4C 3D 4D 5D 6D"))
    assert pimc.no_feed(public, mask_of(parse_cards("2H 3H"))) == mask_of(parse_cards("2H 3H"))
    for seat, points in ((2, 1), (1, -1)):  # a point elsewhere; 12 taken in all
        changed = public.copy()
        changed[P_POINTS + seat] += points
        assert pimc.no_feed(changed, legal) == legal, (seat, points)


def test_defend_2_names_a_seat_playing_like_shooter_more_often_than_others():
    """``defend=2`` keeps only the defences when the seat ``moon_threat`` names plays like
    ``shooter`` (:func:`shooter_like`): of the positions where a seat is named, most
    against three ``shooter`` seats, a small share against ``heuristic`` or ``random``."""
    shares = {}
    for opponent in ("shooter", "heuristic", "random"):
        rng = np.array([8], np.uint64)
        named = like = 0
        for public, private in _positions_against(opponent, 600, (8, 40), seed=5):
            if heuristic.moon_threat(public, private[V_SEAT], pimc.HEURISTIC_PARAMS) >= 0:
                named += 1
                like += pimc.shooter_like(public, private, rng)
            else:
                assert not pimc.shooter_like(public, private, rng)
        assert named >= 20, (opponent, named)
        shares[opponent] = like / named
    assert shares["shooter"] > 0.5, shares
    assert shares["shooter"] > 2 * max(shares["heuristic"], shares["random"]), shares


def test_defend_2_plays_a_defence_when_the_named_seat_plays_like_shooter():
    """``pimc.play`` with ``defend=2``: where :func:`shooter_like` holds (same random
    numbers), the card is one of ``moon_stops``' defences."""
    from hsim.engine.hearts import legal_plays

    params = SMALL.copy()
    params[10] = 2  # defend
    defended = 0
    for public, private in _positions_against("shooter", 600, (8, 40), seed=5):
        if heuristic.moon_threat(public, private[V_SEAT], pimc.HEURISTIC_PARAMS) < 0:
            continue
        legal = legal_plays(public, public[P_RULES : P_RULES + RULES_LEN], private[V_HAND])
        legal = pimc.sure_choices(public, legal)
        rng = np.array([8], np.uint64)
        if not pimc.shooter_like(public, private, rng.copy()):
            continue
        stops = pimc.moon_stops(public, private, legal)
        card = pimc.play(public, private, legal, rng, params)
        assert (stops >> card) & 1, (format_card(card), stops)
        defended += stops != legal
    assert defended >= 5, defended


def _means(spec: str, pos) -> np.ndarray:
    """``pimc.card_means`` of the seat to act at ``pos`` with ``spec``'s parameters."""
    st, me = pos.state, pos.to_act
    means = np.full(52, np.nan)
    rng = np.array([3], np.uint64)
    pimc.card_means(st.public, st.private[me], int(pos.legal()), rng, load(spec).params, means)
    return means


def test_the_moon_plan_keeps_each_cards_better_plan_in_the_same_worlds():
    """Seat 0 holds the top cards of every suit (3 hearts: ``heuristic``'s playouts do not
    shoot) and no point is taken: each card's mean with ``moon_plan`` is its mean playing
    on as ``heuristic`` or, lower, going for the moon, in the very same worlds; for some
    cards (the low ones, which lose the lead) the moon plan is the lower."""
    from tests.test_bots_duck_heuristic import position
    from tests.test_bots_shooter import TOP_CARDS, TRICK_1

    pos = position(TOP_CARDS, TRICK_1)
    on = _means("pimc(worlds=24,moon_plan=1)", pos)
    off = _means("pimc(worlds=24,moon_plan=0)", pos)
    legal = ~np.isnan(off)
    assert legal.sum() == 9 and np.array_equal(np.isnan(on), ~legal)
    assert (on[legal] <= off[legal]).all(), (on[legal], off[legal])
    assert (on[legal] < off[legal] - 1).any(), (on[legal], off[legal])


def test_the_moon_plan_is_not_searched_once_another_seat_holds_a_point():
    """Seat 2 took the TH: no moon is open to seat 0, so ``moon_plan`` changes nothing."""
    from tests.test_bots_duck_heuristic import position
    from tests.test_bots_shooter import TOP_CARDS, TRICK_1

    pos = position(TOP_CARDS, TRICK_1 + " 2D 3D JD TH 5S JS")
    on = _means("pimc(worlds=24,moon_plan=1)", pos)
    off = _means("pimc(worlds=24,moon_plan=0)", pos)
    assert np.array_equal(on, off, equal_nan=True) and (~np.isnan(on)).sum() > 1


@pytest.mark.parametrize(
    "spec", ["pimc(worlds=10)", "pimc(worlds=6,playouts=3,rollout=0,noise=0.1,play_infer=1)"]
)
def test_search_totals_are_the_card_means_before_the_division(spec):
    """``pimc.search_totals`` sums what ``card_means`` averages, from the same stream: the
    means are the totals over ``per`` (worlds x playouts), with the early stop and
    without; with 5 seats the search does not run, ``total`` is untouched and every
    mean is NaN."""
    from tests.test_bots_duck_heuristic import position
    from tests.test_bots_shooter import TOP_CARDS, TRICK_1

    pos = position(TOP_CARDS, TRICK_1)
    st, me, legal = pos.state, pos.to_act, int(pos.legal())
    params = load(spec).params
    means = _means(spec, pos)
    for stop_early in (True, False):
        total = np.zeros(52, np.int64)
        rng = np.array([3], np.uint64)
        worlds, per = pimc.search_totals(
            st.public, st.private[me], legal, rng, params, total, stop_early
        )
        assert worlds == params[0] and per == worlds * params[1]
        held = ~np.isnan(means)
        assert np.array_equal(total[held] / per, means[held]) and (total[~held] == 0).all()
    five = _five_seats("hold")
    seat = (five.state.public, five.state.private[five.to_act], int(five.legal()))
    total = np.zeros(52, np.int64)
    got = pimc.search_totals(*seat, np.array([3], np.uint64), params, total, True)
    assert got == (0, 0) and not total.any()
    means = np.zeros(52)
    assert pimc.card_means(*seat, np.array([3], np.uint64), params, means) == 0
    assert np.isnan(means).all()


@pytest.mark.parametrize("opponent", ["heuristic", "shooter", "random"])
def test_stopping_the_count_of_surprises_early_changes_no_value(opponent):
    """pimc_values stops counting a try's ``play_infer`` surprises once the try's weight
    settles both its draw and the likeliest try so far: every card's total and the number
    of worlds equal those of a full count, with ``shooter_infer`` and without, from the
    same random stream; and the stream is left where a full count leaves it."""
    scale = pimc.NOISE_SCALE
    compared = 0
    for public, private in _positions_against(opponent, n=8, window=(4, 40)):
        public, private = public.copy(), private.copy()
        public.flags.writeable = private.flags.writeable = False
        rules = public[P_RULES : P_RULES + RULES_LEN]
        legal = int(pimc.legal_plays(public, rules, int(private[V_HAND])))
        if legal & (legal - 1) == 0:
            continue
        for shooter_infer in (0, 1):
            runs = []
            for stop_early in (True, False):
                total = np.zeros(52, np.int64)
                rng = np.array([11], np.uint64)
                done = pimc.pimc_values(
                    public, private, legal, rng, 12, 1, 8, 0, 1, scale // 5, total, 1,
                    scale, scale // 5, 0, scale, scale, 0, 0, shooter_infer, 1, stop_early,
                )  # fmt: skip
                runs.append((done, total.tolist(), int(rng[0])))
            assert runs[0] == runs[1], (opponent, shooter_infer)
            compared += 1
    assert compared >= 8
