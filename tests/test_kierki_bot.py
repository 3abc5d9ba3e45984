"""Tests of the ``kierki`` bot: one scenario per deal kind, its margin over ``random``,
legality and determinism.

A scenario is written from seat 0's view: its hand, the cards already in the trick (played
by the seats before it, in order) and the cards played in earlier tricks; the bot's
compiled ``play`` (or ``trump_choice``) is called on ``public`` / ``private`` arrays built
by hand, with the legal mask from the engine's own kernel.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hsim.engine.kierki import (
    KIND_HEARTS,
    KIND_KING_OF_HEARTS,
    KIND_LOTTERY,
    KIND_MEN,
    KIND_QUEENS,
    KIND_REBEL,
    KIND_SEVENTH_AND_LAST,
    KIND_TRICKS,
    KIND_TRUMP,
)
from hsim.engine.layout import (
    D_DEAL_SCORE,
    D_GAME,
    D_KIND,
    KIND_NAMES,
    P_KIND,
    P_LED_SUIT,
    P_N_SEATS,
    P_PLAYED,
    P_RULES,
    P_START_RANK,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    P_TRUMP,
    P_VOIDS,
    PRIVATE_LEN,
    PUBLIC_LEN,
    TRUMP_NONE,
    V_HAND,
    V_SEAT,
)
from hsim.model.cards import format_card, parse_mask
from hsim.model.rules import PRESETS, make_rules
from hsim.play.games import play_range
from hsim.play.kierki_game import kierki_legal
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import load, load_players

BOT = load("kierki")
KIERKI4 = PRESETS["kierki4"]
KIERKI3 = PRESETS["kierki3"]
SUITS = "CDSH"


def arrays(kind, hand, trick="", played="", *, rules=KIERKI4, trump=-1, voids=None, t=None):
    """Return (public, private) for seat 0 holding ``hand`` in a deal of ``kind``.

    ``trick``: the cards the seats before seat 0 played to the current trick, in order;
    ``played``: the cards of the finished tricks (the lottery: the table). ``t``: the trick
    index (default: from the cards played). ``voids``: {seat: "suits"} shown void.
    """
    n = rules.players
    public = np.zeros(PUBLIC_LEN, np.int64)
    vector = rules.to_array()
    public[P_RULES : P_RULES + len(vector)] = vector
    public[P_N_SEATS] = n
    public[P_KIND] = kind
    public[P_TRUMP] = trump
    in_trick = trick.split()
    trick_mask = parse_mask(trick)
    public[P_TRICK_CARDS] = trick_mask
    public[P_TRICK_LEN] = len(in_trick)
    public[P_LED_SUIT] = SUITS.index(in_trick[0][-1]) if in_trick else -1
    public[P_PLAYED] = parse_mask(played) | trick_mask
    public[P_TRICK] = len(played.split()) // n if t is None else t
    public[P_START_RANK] = -1
    for seat, suits in (voids or {}).items():
        public[P_VOIDS + seat] = sum(1 << SUITS.index(s) for s in suits)
    private = np.zeros(PRIVATE_LEN, np.int64)
    private[V_SEAT] = 0
    private[V_HAND] = parse_mask(hand)
    return public, private


def bot_plays(kind, hand, trick="", played="", *, rules=KIERKI4, **kw) -> str:
    """Return the card the bot plays as seat 0 (a legal one, checked)."""
    public, private = arrays(kind, hand, trick, played, rules=rules, **kw)
    legal = int(kierki_legal(public, rules.to_array(), private[V_HAND]))
    assert legal, "no legal card in this scenario"
    c = int(BOT.compiled.play(public, private, legal, np.zeros(1, np.uint64), BOT.params))
    assert (legal >> c) & 1, f"illegal {format_card(c)}"
    return format_card(c)


def trump_named(seen: str, rules=KIERKI4) -> int:
    """Return the bot's trump choice from the first cards ``seen``."""
    public, private = arrays(KIND_TRUMP, seen, rules=rules)
    return int(BOT.compiled.trump_choice(public, private, np.zeros(1, np.uint64), BOT.params))


# -- one scenario per deal kind ----------------------------------------------------------


def test_tricks_ducks_with_the_highest_card_under_the_winner():
    # TS led: 2S and 9S stay under it, AS would take the trick (B2.1)
    assert bot_plays(KIND_TRICKS, "2S 9S AS 4D", "TS") == "9S"


def test_tricks_leads_a_card_every_outstanding_card_of_its_suit_beats():
    # the 2D cannot win; the AC and KC would take the trick
    assert bot_plays(KIND_TRICKS, "AC KC 2D") == "2D"


def test_hearts_discards_its_highest_heart_when_void():
    assert bot_plays(KIND_HEARTS, "2H 7H QH 3C 4C", "5D") == "QH"


def test_hearts_last_to_play_wins_a_trick_without_hearts_with_its_highest_card():
    assert bot_plays(KIND_HEARTS, "4C KC AC 2D", "9C 3C 5C") == "AC"


def test_queens_drops_its_queen_under_the_king():
    assert bot_plays(KIND_QUEENS, "3S QS 4D", "KS") == "QS"


def test_queens_discards_a_queen_when_void():
    assert bot_plays(KIND_QUEENS, "QD AC KC 2H", "4S 9S") == "QD"


def test_men_drops_the_king_under_the_ace():
    assert bot_plays(KIND_MEN, "5D JD KD 2C", "AD") == "KD"


def test_king_of_hearts_discards_the_king_when_void():
    assert bot_plays(KIND_KING_OF_HEARTS, "KH 2H AC 3C", "4D") == "KH"


def test_king_of_hearts_drops_the_king_under_the_ace():
    assert bot_plays(KIND_KING_OF_HEARTS, "5H KH 3C", "AH") == "KH"


def test_seventh_trick_ducks_and_a_free_trick_sheds_a_high_card():
    hand = "4C KC AC 2H 3H 4H 5H"
    # six tricks gone: all the diamonds and 11 spades
    played = " ".join(f"{r}D" for r in "23456789TJQKA") + " 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS"
    # trick 7 (index 6) costs: stay under the 9C (B2.6)
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", played) == "4C"
    # trick 3 costs nothing: last to play, it wins it with its highest card
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", t=2) == "AC"


@pytest.mark.parametrize("table", ["hsim", "servers", "program"])
def test_the_priced_trick_follows_the_rules(table):
    hand = "4C KC AC 2H 3H 4H 5H 6H"
    # five tricks gone: trick 6 (index 5) costs only with priced_trick=sixth (B2.6)
    seventh = make_rules("kierki4", {"point_table": table})
    sixth = make_rules("kierki4", {"point_table": table, "priced_trick": "sixth"})
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", t=5, rules=seventh) == "AC"
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", t=5, rules=sixth) == "4C"
    # and trick 7 (index 6) only with seventh
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", t=6, rules=seventh) == "4C"
    assert bot_plays(KIND_SEVENTH_AND_LAST, hand, "9C 3C 5C", t=6, rules=sixth) == "AC"


@pytest.mark.parametrize(
    ("table", "heart", "kh", "qs", "priced"),
    # docs/rules.md B1: in the rebel deal the KH is a heart, a man and the KH, the QS a
    # queen; a priced trick of deal 6 costs its item
    [
        ("hsim", 20, 20 + 30 + 150, 60, 75),
        ("servers", 1, 1 + 2 + 18, 5, 10),
        ("program", 2, 2 + 3 + 16, 5, 9),
    ],
)
def test_the_bot_prices_cards_and_tricks_by_the_rules_point_table(table, heart, kh, qs, priced):
    from hsim.strategies import kierki as bot

    rules = make_rules("kierki4", {"point_table": table, "rebel": True})
    public, _ = arrays(KIND_REBEL, "2C", rules=rules)
    p = bot.prices_of(public)
    assert bot.cards_cost(KIND_REBEL, p, parse_mask("KH")) == kh
    assert bot.cards_cost(KIND_REBEL, p, parse_mask("QS")) == qs
    assert bot.cards_cost(KIND_HEARTS, p, parse_mask("KH QS")) == heart  # hearts only
    assert bot.trick_base(KIND_SEVENTH_AND_LAST, p, 6) == priced
    assert bot.trick_base(KIND_SEVENTH_AND_LAST, p, 5) == 0
    assert bot.trick_base(KIND_SEVENTH_AND_LAST, p, 12) == priced


def test_rebel_discards_the_king_of_hearts_first():
    # KH costs heart, king and KH at once (B2.7); the QS only a queen
    assert bot_plays(KIND_REBEL, "QS KH 2C AC", "5D") == "KH"


def test_trump_overruffs_with_its_lowest_winning_trump():
    # spades are trump; hearts led, ruffed with the 8S; void in hearts it overruffs
    assert bot_plays(KIND_TRUMP, "3S TS KS 2C", "5H KH 8S", trump=2) == "TS"


def test_trump_ruffs_cheaply_and_wins_cheaply():
    assert bot_plays(KIND_TRUMP, "4S JS 2C", "AD", trump=2) == "4S"
    # last to play on a trick it can win in the led suit: the lowest winning card
    assert bot_plays(KIND_TRUMP, "4D QD AD 2S", "3D JD 5D", trump=2) == "QD"


def test_trump_lead_draws_trumps_with_the_top_trump():
    played = "AS KS QS JS"
    assert bot_plays(KIND_TRUMP, "TS 3S 2D 7C", played=played, trump=2) == "TS"


def test_trump_choice_names_the_strong_long_suit():
    assert trump_named("AS KS 7S 2D 3C") == SUITS.index("S")
    assert trump_named("2C 5C 9C QH 4D 8S", rules=KIERKI3) == SUITS.index("C")
    assert trump_named("KH AH 2H 3D 4S") == SUITS.index("H")


def test_trump_choice_no_trump_only_where_allowed():
    spread = "AS KH AD KC 7D"
    assert trump_named(spread) != TRUMP_NONE
    allowed = dataclasses.replace(KIERKI4, allow_no_trump=True)
    assert trump_named(spread, rules=allowed) == TRUMP_NONE
    assert trump_named("AS KS 7S 2D 3C", rules=allowed) == SUITS.index("S")


def test_lottery_unblocks_its_own_run():
    # 7H opened the lottery: 8H brings on its own 9H TH; 6H and 7C only help others
    public, private = arrays(KIND_LOTTERY, "6H 8H 9H TH 7C 2D", played="7H")
    public[P_START_RANK] = 5
    legal = int(kierki_legal(public, KIERKI4.to_array(), private[V_HAND]))
    assert legal == parse_mask("6H 8H 7C")
    c = int(BOT.compiled.play(public, private, legal, np.zeros(1, np.uint64), BOT.params))
    assert format_card(c) == "8H"


def test_lottery_opens_with_the_rank_it_holds_most_of():
    # opening with a 9 makes its other two nines playable at once
    public, private = arrays(KIND_LOTTERY, "9C 9D 9S 2H 5H AC AD", played="")
    legal = int(kierki_legal(public, KIERKI4.to_array(), private[V_HAND]))
    c = int(BOT.compiled.play(public, private, legal, np.zeros(1, np.uint64), BOT.params))
    assert format_card(c)[0] == "9"


# -- whole games ---------------------------------------------------------------------------


def margins(rules, boards: int, seed: int = 11) -> dict[str, float]:
    """Return, per deal kind, kierki's mean deal score minus random's over duplicate
    boards: every board (game index) is played once per seat kierki sits in."""
    n = rules.players
    mine: dict[int, list[float]] = {}
    theirs: dict[int, list[float]] = {}
    for seat in range(n):
        specs = ["random"] * n
        specs[seat] = "kierki"
        deals, _ = play_range(rules, load_players(specs, rules), seed, 0, boards)
        scores = deals[:, D_DEAL_SCORE].reshape(-1, n)  # rows: game, deal, seat
        kinds = deals[:, D_KIND].reshape(-1, n)[:, 0]
        for k in np.unique(kinds):
            rows = scores[kinds == k]
            mine.setdefault(int(k), []).append(rows[:, seat].mean())
            others = np.delete(rows, seat, axis=1)
            theirs.setdefault(int(k), []).append(others.mean())
    return {KIND_NAMES[k]: float(np.mean(mine[k]) - np.mean(theirs[k])) for k in mine}


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_kierki_beats_random_in_every_deal_kind(preset):
    rules = dataclasses.replace(PRESETS[preset], rebel=True)
    result = margins(rules, boards=200)
    assert set(result) == set(KIND_NAMES)
    low = {k: round(v, 1) for k, v in result.items() if v <= 10}
    assert not low, f"kierki is not clearly ahead of random in {low}"


VARIANTS = [
    {},
    {
        "rebel": True,
        "must_trump": True,
        "allow_no_trump": True,
        "stop_when_no_penalties": True,
        "lottery_leader": "dealer_left",
        "trump_chooser": "dealer",
        "king_of_hearts_first_chance": True,
        "heart_lead_ban": "king_of_hearts",
    },
]


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
@pytest.mark.parametrize("options", VARIANTS, ids=["defaults", "every_option"])
def test_plays_legally_and_deterministically(preset, options):
    rules = dataclasses.replace(PRESETS[preset], **options)
    n = rules.players
    for specs in (["kierki"] * n, ["random", "kierki", "random", "kierki"][:n]):
        players = load_players(specs, rules)
        # an illegal card or trump choice raises StrategyError
        first, games = play_range(rules, players, 5, 0, 300)
        again, games_again = play_range(rules, players, 5, 0, 300)
        assert np.array_equal(first, again) and np.array_equal(games, games_again)
        assert len(np.unique(first[:, D_GAME])) == 300


def test_never_draws_from_its_random_stream():
    public, private = arrays(KIND_QUEENS, "3S QS 4D 8D", "KS")
    legal = int(kierki_legal(public, KIERKI4.to_array(), private[V_HAND]))
    answers = set()
    for state in (0, 1, 2**63 + 12345):
        rng = np.array([state], np.uint64)
        answers.add(int(BOT.compiled.play(public, private, legal, rng, BOT.params)))
        assert rng[0] == state
    assert len(answers) == 1


def test_plays_kierki_only():
    assert BOT.compiled.games == ("kierki",)
    with pytest.raises(StrategyError):
        load_players(["kierki"] * 4, PRESETS["classic"])
