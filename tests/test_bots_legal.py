"""Every built-in bot answers every decision legally, in many random positions.

A position is a random walk through the engine: a random deal, a random pass direction
and random game scores, then (when the deal has a pass) either the pass decision itself
or random passes, then random legal plays to a random depth; the bot under test also
makes some of the walk's plays itself, so its own lines of play are covered. At every
decision the bot is asked, its answer is checked: a pass is 3 distinct held cards, a card
is in the legal mask. The walk runs in one compiled kernel, calling the bots' compiled
functions as the game loop does.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numba import njit, types

from hsim.engine.bits import nth_card, popcount
from hsim.engine.hearts import legal_plays
from hsim.engine.layout import (
    DEAL_COLS,
    GAME_COLS,
    H_DEAL_ROWS,
    H_GAME_ROWS,
    H_PASS_SEAT,
    H_PHASE,
    HIDDEN_LEN,
    P_DEAL,
    P_SCORES,
    P_TO_ACT,
    PH_PASS,
    PRIVATE_LEN,
    PUBLIC_LEN,
    ST_OK,
    V_HAND,
)
from hsim.engine.rng import below, seed_to_u64, stream_state
from hsim.engine.signatures import PASS_FN, PLAY_FN
from hsim.model.cards import format_card, format_mask
from hsim.model.notation import PositionSpec
from hsim.model.rules import PRESETS, Rules
from hsim.play.choose import choose
from hsim.play.hearts_game import begin_deal, new_game, submit_pass, submit_play
from hsim.play.position import Position
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import load

BOTS = ["random", "lowcard", "duck", "heuristic", "shooter"]
PIMC = "pimc(worlds=2,playouts=1,pass_worlds=4)"  # few pass worlds: the searched pass runs, fast

# Every switch on and every choice away from its default (passing stays "cycle" so that
# pass decisions are asked); a second set keeps the trick-1 and queen restrictions on.
ALL_ON = Rules(
    lead_any_club=True,
    first_trick_points="allowed",
    first_trick_only_points="any",
    hearts_must_be_broken=True,
    queen_breaks_hearts=True,
    first_trick_breaks_hearts=False,
    lead_hearts_instead_of_queen=True,
    queen_waits_for_broken_hearts=True,
    moon="new_moon",
    new_moon_any_score=True,
    moon_requires_jack=True,
    omnibus=True,
    jack_in_moon_deal=True,
    no_trick_bonus="no_points",
    clamp_at_zero=True,
    perfect_100=True,
    end_score=50,
    end_when="exceeded",
    no_draw=True,
)
ALL_ON_STRICT = dataclasses.replace(
    ALL_ON,
    first_trick_points="forbidden",
    first_trick_only_points="queen",
    no_trick_bonus="no_tricks",
)
# The named Hearts variants (docs/rules.md A1.2, A2.2, A2.3): every pass direction rule,
# every moon outcome, the other bonus card and value.
VARIANTS = {
    "passing_left_moon_off": Rules(passing="left", moon="off", omnibus=True),
    "passing_right_moon_smart": Rules(
        passing="right",
        moon="smart",
        omnibus=True,
        omnibus_card="TD",
        omnibus_value=5,
        moon_requires_jack=False,
        jack_in_moon_deal=True,
        perfect_100=True,
    ),
    "shooter_gains_ten": Rules(moon="shooter_gains", omnibus=True, omnibus_card="TD"),
}
RULE_SETS = {
    "classic": PRESETS["classic"],
    "openspiel": PRESETS["openspiel"],
    "all_on": ALL_ON,
    "all_on_strict": ALL_ON_STRICT,
    **VARIANTS,
}

# info[] slots written by the walk
I_CHECKED, I_PASSES, I_WALK, I_KIND, I_SEAT, I_ANSWER, I_ALLOWED = range(7)
KIND_PASS, KIND_PLAY = 1, 2

WALK_SIG = types.int64(
    types.int64[::1],  # rules
    PASS_FN,
    PLAY_FN,
    types.float64[::1],  # params
    types.uint64,  # seed
    types.int64,  # number of walks
    types.int64[::1],  # info (out)
)


@njit(WALK_SIG, cache=True)
def walk_and_check(rules, pass_fn, play_fn, params, seed, n_walks, info):
    """Ask the bot in ``n_walks`` random walks; return -1, or the walk that failed.

    info[I_CHECKED]: decisions checked; info[I_PASSES]: pass decisions among them; on a
    failure, info[I_KIND..I_ALLOWED] say which decision, seat, answer and allowed mask.
    """
    public = np.zeros(PUBLIC_LEN, np.int64)
    private = np.zeros((4, PRIVATE_LEN), np.int64)
    hidden = np.zeros(HIDDEN_LEN, np.int64)
    rngs = np.zeros((5, 1), np.uint64)
    deal_out = np.zeros((16, DEAL_COLS), np.int64)
    game_out = np.zeros((16, GAME_COLS), np.int64)
    walk = np.zeros(1, np.uint64)
    for w in range(n_walks):
        walk[0] = stream_state(seed, w, 99)
        new_game(public, private, hidden, rngs, rules, seed, w)
        hidden[H_DEAL_ROWS] = 0
        hidden[H_GAME_ROWS] = 0
        public[P_DEAL] = below(walk, 4)  # the pass direction, through the cycle
        for s in range(4):
            public[P_SCORES + s] = below(walk, 60)
        begin_deal(public, private, hidden, rngs, rules)
        if hidden[H_PHASE] == PH_PASS:
            ask_pass = below(walk, 6) == 0
            for s in range(4):
                hand = private[s, V_HAND]
                if ask_pass:
                    cards = pass_fn(public, private[s], rngs[1 + s], params)
                    info[I_CHECKED] += 1
                    info[I_PASSES] += 1
                    if cards & ~hand or popcount(cards) != 3:
                        info[I_KIND] = KIND_PASS
                        info[I_SEAT] = s
                        info[I_ANSWER] = cards
                        info[I_ALLOWED] = hand
                        return w
            if ask_pass:
                continue
            for _ in range(4):
                hand = private[hidden[H_PASS_SEAT], V_HAND]
                cards = 0
                for _ in range(3):
                    c = nth_card(hand & ~cards, below(walk, popcount(hand & ~cards)))
                    cards |= 1 << c
                submit_pass(public, private, hidden, cards)
        depth = below(walk, 52)  # plays before the checked one: 0..51
        by_bot = below(walk, 3)  # the bot plays one walk step in by_bot (0: none)
        for k in range(depth + 1):
            s = public[P_TO_ACT]
            legal = legal_plays(public, rules, private[s, V_HAND])
            if k == depth or (by_bot and below(walk, 4) < by_bot):
                card = play_fn(public, private[s], legal, rngs[1 + s], params)
                info[I_CHECKED] += 1
                if card < 0 or card > 51 or not (legal >> card) & 1:
                    info[I_KIND] = KIND_PLAY
                    info[I_SEAT] = s
                    info[I_ANSWER] = card
                    info[I_ALLOWED] = legal
                    return w
            else:
                card = nth_card(legal, below(walk, popcount(legal)))
            if (
                k < depth
                and submit_play(public, private, hidden, rules, card, deal_out, game_out) != ST_OK
            ):
                return w  # cannot happen: the card was checked above
    return -1


def _card(c: int) -> str:
    return format_card(c) if 0 <= c < 52 else f"card number {c}"


def run_walks(spec: str, rules: Rules, n_walks: int, seed: int = 1) -> np.ndarray:
    bot = load(spec)
    assert bot.kind == "compiled"
    info = np.zeros(8, np.int64)
    failed = walk_and_check(
        rules.to_array(),
        bot.compiled.pass_cards,
        bot.compiled.play,
        bot.params,
        seed_to_u64(seed),
        n_walks,
        info,
    )
    if failed >= 0:
        allowed = format_mask(int(info[I_ALLOWED]))
        what = (
            f"passed [{format_mask(int(info[I_ANSWER]))}] from [{allowed}]"
            if info[I_KIND] == KIND_PASS
            else f"played {_card(int(info[I_ANSWER]))} with legal [{allowed}]"
        )
        pytest.fail(f"{spec} seat {info[I_SEAT]} {what} in walk {failed} (seed {seed})")
    return info


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
@pytest.mark.parametrize("bot", BOTS)
def test_bot_answers_legally_in_random_positions(bot, rules_name):
    info = run_walks(bot, RULE_SETS[rules_name], 10_000)
    assert info[I_CHECKED] >= 10_000
    assert info[I_PASSES] >= 1_000  # pass decisions are among them


def _pimc():
    try:
        return load(PIMC)
    except StrategyError:
        pytest.skip("pimc is not available")


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
def test_pimc_answers_legally_in_random_positions(rules_name):
    if _pimc().kind != "compiled":
        pytest.skip("pimc is not a compiled strategy")
    info = run_walks(PIMC, RULE_SETS[rules_name], 2_000)
    assert info[I_CHECKED] >= 2_000


# A deal played to its last trick: seat 3 leads it holding only the QS.
LAST_QS_DEAL = (
    "7HKS2SKH5D6D3H5CKC3C8S9C4C/6C9STD5SQC9H2DQD6S4HAHAD8D/"
    "QH4SACJH4D7D7S3DJS3S8HTH6H/JCTS2HQS9D8CKD2C5HJD7CASTC"
)
LAST_QS_PLAYS = (
    "2C 4C QC AC 4D JD 6D 8D 9D 5D AD 7D 5S 3S TS 2S TC 9C 6C 6H 2H KH 4H QH KC QD TH JC "
    "3H 9H 8H 5H 6S JS AS 8S KD 5C 2D 3D 8C 3C 9S 7S 7C KS AH JH"
)


@pytest.mark.parametrize("bot", [*BOTS, "pimc"])
def test_every_bot_leads_the_queen_as_its_last_card(bot):
    spec = PIMC if bot == "pimc" else bot
    if bot == "pimc":
        _pimc()
    position = Position.from_spec(PositionSpec.parse(LAST_QS_DEAL, plays=LAST_QS_PLAYS))
    assert position.to_act == 3 and position.hand(3) == 1 << 36
    assert format_card(choose(load(spec), position, seed=3)) == "QS"
