"""Game-level tests of Kierki (docs/rules.md part B) through the drivers of :mod:`hsim.play.games`.

The rule kernels have their own scenario tests (``test_kierki_kernels.py``); here whole
games are played by the compiled loop and by the plain-Python driver, and checked from
outside: the deal and game rows (conservation of each deal's full value, the deal
sequence, dealers, places), what a recording plain-Python strategy is shown and allowed
(legal masks, the trump chooser's view, the lottery), and the history left in the state
arrays at the end of each deal (``PythonDriver.play_game(on_deal_end=...)``). Expected
values are computed here from docs/rules.md, never read back from the engine.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba import njit

from hsim.engine.choices import default_trump_choice
from hsim.engine.hearts import ALL_CARDS, HEARTS_MASK, SUIT_MASK
from hsim.engine.layout import (
    D_DEAL,
    D_DEAL_SCORE,
    D_DEALER,
    D_GAME,
    D_HAND,
    D_HEARTS,
    D_KIND,
    D_LOTTERY_PLACE,
    D_POINTS,
    D_SCORE,
    D_SEAT,
    D_TRICKS,
    D_TRUMP,
    D_TRUMP_CHOOSER,
    ENDED_ALL_DEALS,
    G_DEALS,
    G_ENDED_BY,
    G_GAME,
    G_PLACE,
    G_SCORE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
    H_DEAL_ROWS,
    H_DECK,
    KIND_NAMES,
    P_KIND,
    TRUMP_NONE,
    V_DEALT,
    V_HAND,
)
from hsim.engine.signatures import TRUMP_SIG
from hsim.model.cards import cards_of, parse_mask
from hsim.model.rules import Rules, make_rules
from hsim.play.games import PythonDriver, play_range
from hsim.play.kierki_game import next_kierki_decision
from hsim.strategies import lowcard, random_bot
from hsim.strategy.contract import CompiledStrategy, Observation, StrategyError
from hsim.strategy.loader import LoadedStrategy, load_players

TRICKS, HEARTS, QUEENS, MEN, KING_OF_HEARTS, SEVENTH_AND_LAST, REBEL, TRUMP, LOTTERY = range(9)
assert KIND_NAMES[LOTTERY] == "lottery" and KIND_NAMES[REBEL] == "rebel"
NO_HEART_LEAD = ("hearts", "king_of_hearts", "rebel")  # B2: deals 2, 5 and 7
STOPPING_KINDS = (HEARTS, QUEENS, MEN, KING_OF_HEARTS)  # B2: deals 2-5 may end early
TWO_CLUBS = parse_mask("2C")
KING_HEARTS = parse_mask("KH")
ACE_HEARTS = parse_mask("AH").bit_length() - 1  # the card, not its mask
QUEENS_MASK = parse_mask("QC QD QS QH")
MEN_MASK = parse_mask("JC JD JS JH KC KD KS KH")
PENALTY_CARDS = {
    HEARTS: HEARTS_MASK,
    QUEENS: QUEENS_MASK,
    MEN: MEN_MASK,
    KING_OF_HEARTS: KING_HEARTS,
}
TWOS = parse_mask("2C 2D 2S 2H")


def mask(cards) -> int:
    """Return the mask of an iterable of cards."""
    return sum(1 << c for c in cards)


def suit_mask(suit: int) -> int:
    return SUIT_MASK << (13 * suit)


def popcount(cards: int) -> int:
    return bin(cards).count("1")


def hand_size(n: int) -> int:
    return 13 if n == 4 else 17  # B1: 52 cards, or 51 (no 2C) for 3 players


def deck(n: int) -> int:
    return ALL_CARDS if n == 4 else ALL_CARDS & ~TWO_CLUBS


def kinds_in_order(n: int, rebel: bool) -> list[int]:
    """B1: the six penalty deals, the rebel if played, one trump deal per player, lottery."""
    return list(range(6)) + [REBEL] * rebel + [TRUMP] * n + [LOTTERY]


# B2 table, points per item: (4 players, 3 players).
PER_TRICK = (-20, -15)
PER_HEART = (-20, -20)
PER_QUEEN = (-60, -60)
PER_MAN = (-30, -30)
PER_KING_OF_HEARTS = (-150, -140)
PER_SEVENTH_OR_LAST = (-75, -70)
LOTTERY_PLACES = ((800, 500), (790, 485))  # B4: first and second out


def full_value(kind: int, rules: Rules) -> int:
    """Return the sum of every seat's points in a deal of ``kind`` (B2-B4)."""
    i = 0 if rules.players == 4 else 1
    penalty = {
        TRICKS: hand_size(rules.players) * PER_TRICK[i],  # every trick is taken
        HEARTS: 13 * PER_HEART[i],  # the 3-player deck still has all 13 hearts
        QUEENS: 4 * PER_QUEEN[i],
        MEN: 8 * PER_MAN[i],  # four kings and four jacks
        KING_OF_HEARTS: PER_KING_OF_HEARTS[i],
        SEVENTH_AND_LAST: 2 * PER_SEVENTH_OR_LAST[i],
    }
    if kind in penalty:
        return penalty[kind]
    if kind == REBEL:
        return sum(penalty.values())
    if kind == TRUMP:
        return hand_size(rules.players) * rules.trump_points
    return sum(LOTTERY_PLACES[i])


def test_full_deal_values():
    """The values derived from the B2-B4 tables, written out once as plain numbers."""
    k4, k3 = make_rules("kierki4"), make_rules("kierki3")
    assert [full_value(k, k4) for k in range(9)] == [
        -260, -260, -240, -240, -150, -150, -1300, 195, 1300
    ]  # fmt: skip
    assert [full_value(k, k3) for k in range(9)] == [
        -255, -260, -240, -240, -140, -140, -1275, 340, 1275
    ]  # fmt: skip


# --- plain-Python seats ----------------------------------------------------------------


def py_seat(spec: str, factory) -> LoadedStrategy:
    """Return a plain-Python Kierki seat made by ``factory`` (so it can share a log)."""
    return LoadedStrategy(spec, spec, "python", python_factory=factory, games=("kierki",))


class Recorder:
    """Plays a uniformly random legal card and logs what it was shown at each decision.

    choose: ``f(obs) -> int`` for the trump choice (default: the compiled default, the
    longest suit seen). Every log entry is a dict of plain values.
    """

    games = ("kierki",)

    def __init__(self, log: list, choose=None):
        self.log = log
        self.choose = choose
        self.game = -1

    def new_game(self, seat, rules):
        self.game += 1  # games are played in order from 0 in these tests

    def play(self, obs, legal, rng):
        self.log.append(
            {
                "what": "play",
                "game": self.game,
                "deal": obs.deal,
                "seat": obs.seat,
                "kind": obs.kind,
                "dealer": obs.dealer,
                "hand": obs.hand,
                "legal": legal,
                "trick": [c for _, c in obs.trick],
                "trick_number": obs.trick_number,
                "trick_leaders": obs.trick_leaders,
                "trump": obs.trump,
                "played": obs.played,
                "start_rank": obs.lottery_start_rank,
                "out": obs.lottery_out,
                "n_seats": obs.n_seats,
            }
        )
        cards = list(cards_of(legal))
        return cards[int(rng.integers(len(cards)))]

    def trump_choice(self, obs, rng):
        choice = self.choose(obs) if self.choose else int(default_trump_choice(*_args(obs)))
        self.log.append(
            {
                "what": "trump",
                "game": self.game,
                "deal": obs.deal,
                "seat": obs.seat,
                "kind": obs.kind,
                "dealer": obs.dealer,
                "chooser": obs.trump_chooser,
                "hand": obs.hand,
                "dealt": obs.dealt,
                "choice": choice,
            }
        )
        return choice


def _args(obs):
    """Return writable copies of the arrays a compiled decision takes, and a dummy rng."""
    public, private = obs.arrays()
    return np.array(public), np.array(private), np.zeros(1, np.uint64), np.zeros(1)


class DelegateLowcard:
    """Plain-Python seat that plays as the compiled ``lowcard`` (which draws no random
    numbers) and, like it, leaves the trump choice to the default (the longest suit seen),
    so its games must equal those of the compiled ``lowcard`` seat.
    """

    games = ("kierki",)

    def play(self, obs, legal, rng):
        public, private, stream, params = _args(obs)
        return int(lowcard.play(public, private, legal, stream, params))


class FixedTrump:
    """Plays the lowest legal card and answers every trump choice with ``answer``."""

    games = ("kierki",)

    def __init__(self, answer: int):
        self.answer = answer

    def play(self, obs, legal, rng):
        return min(cards_of(legal))

    def trump_choice(self, obs, rng):
        return self.answer


class HeartsOnly:
    """A plain-Python strategy without a ``games`` attribute: it plays Hearts only."""

    def play(self, obs, legal, rng):
        return min(cards_of(legal))


# --- drivers ----------------------------------------------------------------------------


def deal_end_snapshot(driver: PythonDriver) -> dict:
    """Return the history of the deal just scored, read from the driver's state."""
    st = driver.state
    public, rows = st.read_only()
    obs = Observation(public, rows[0], driver.rules)  # the table now (a seat's is a copy)
    n = obs.n_seats
    end = int(st.hidden[H_DEAL_ROWS])
    row = driver.deal_out[end - n]  # P_DEAL already names the next deal, as in Hearts
    return {
        "game": int(row[D_GAME]),
        "deal": int(row[D_DEAL]),
        "kind": int(st.public[P_KIND]),
        "dealer": obs.dealer,
        "trump": obs.trump,
        "chooser": obs.trump_chooser,
        "plays": obs.plays,
        "trick_winners": obs.trick_winners,
        "trick_leaders": obs.trick_leaders,
        "dealt": [int(st.private[s, V_DEALT]) for s in range(n)],
        "hand": [int(st.private[s, V_HAND]) for s in range(n)],
        "out": obs.lottery_out,
        "deck": [int(c) for c in st.hidden[H_DECK : H_DECK + popcount(deck(n))]],
    }


def drive(rules: Rules, players, seed: int, n_games: int, ends: list | None = None):
    """Play games 0..n_games-1 with the Python driver; return (deal rows, game rows).

    ends: when given, gets :func:`deal_end_snapshot` of every deal.
    """
    driver = PythonDriver(rules, players, seed)
    hook = None if ends is None else (lambda d: ends.append(deal_end_snapshot(d)))
    deals, games = [], []
    for g in range(n_games):
        d, gr = driver.play_game(g, hook)
        deals.append(d)
        games.append(gr)
    return np.concatenate(deals), np.concatenate(games)


def rows_of(deals: np.ndarray, game: int, deal: int) -> np.ndarray:
    return deals[(deals[:, D_GAME] == game) & (deals[:, D_DEAL] == deal)]


# --- 1. conservation, the deal sequence, the game rows (B1-B5) -------------------------

CONFIGS = [
    ("kierki4", {}),
    ("kierki4", {"rebel": True}),
    ("kierki3", {}),
    ("kierki3", {"rebel": True}),
    ("kierki4", {"rebel": True, "stop_when_no_penalties": True}),
    ("kierki3", {"rebel": True, "stop_when_no_penalties": True}),
    (
        "kierki4",
        {
            "must_trump": True,
            "allow_no_trump": True,
            "trump_chooser": "dealer",
            "lottery_leader": "dealer_left",
        },
    ),
    (
        "kierki3",
        {
            "rebel": True,
            "stop_when_no_penalties": True,
            "must_trump": True,
            "allow_no_trump": True,
            "trump_chooser": "dealer",
            "lottery_leader": "dealer_left",
        },
    ),
    ("kierki4", {"trump_trick_value": 7}),
    ("kierki4", {"rebel": True, "king_of_hearts_first_chance": True}),
    (
        "kierki3",
        {
            "rebel": True,
            "king_of_hearts_first_chance": True,
            "heart_lead_ban": "king_of_hearts",
            "stop_when_no_penalties": True,
        },
    ),
    ("kierki4", {"rebel": True, "heart_lead_ban": "king_of_hearts"}),
]


def check_game_records(rules: Rules, deals: np.ndarray, games: np.ndarray, n_games: int):
    """Check every deal and game row of ``n_games`` games against B1-B5."""
    n = rules.players
    i = 0 if n == 4 else 1
    kinds = kinds_in_order(n, rules.rebel)
    assert deals.shape[0] == n_games * len(kinds) * n
    assert games.shape[0] == n_games * n
    trumps_seen = set()
    for g in range(n_games):
        totals = np.zeros(n, np.int64)
        choosers = []
        for k, kind in enumerate(kinds):
            rows = rows_of(deals, g, k)
            assert rows[:, D_SEAT].tolist() == list(range(n))
            assert (rows[:, D_KIND] == kind).all()
            assert (rows[:, D_DEALER] == k % n).all()  # seat 0 deals first, passing left
            # the hands are a partition of the deck
            hands = rows[:, D_HAND].tolist()
            assert all(popcount(h) == hand_size(n) for h in hands)
            assert sum(hands) == deck(n) and np.bitwise_or.reduce(hands) == deck(n)
            points = rows[:, D_POINTS]
            assert points.sum() == full_value(kind, rules), (g, k, KIND_NAMES[kind])
            assert (rows[:, D_DEAL_SCORE] == points).all()
            totals += points
            assert (rows[:, D_SCORE] == totals).all()
            tricks = rows[:, D_TRICKS]
            if kind == LOTTERY:
                assert tricks.sum() == 0
                assert sorted(rows[:, D_LOTTERY_PLACE].tolist()) == [0] * (n - 2) + [1, 2]
                by_place = {1: LOTTERY_PLACES[i][0], 2: LOTTERY_PLACES[i][1], 0: 0}
                assert points.tolist() == [by_place[p] for p in rows[:, D_LOTTERY_PLACE]]
            else:
                assert (rows[:, D_LOTTERY_PLACE] == 0).all()
                if rules.stop_when_no_penalties and kind in STOPPING_KINDS:
                    assert 1 <= tricks.sum() <= hand_size(n)
                else:
                    assert tricks.sum() == hand_size(n)
            if kind == TRUMP:
                trump = rows[0, D_TRUMP]
                assert (rows[:, D_TRUMP] == trump).all()
                assert 0 <= trump <= (TRUMP_NONE if rules.allow_no_trump else 3)
                trumps_seen.add(int(trump))
                assert (points == tricks * rules.trump_points).all()
                chooser = (k if rules.trump_chooser == "dealer" else k + 1) % n
                assert (rows[:, D_TRUMP_CHOOSER] == chooser).all()
                choosers.append(chooser)
            else:
                assert (rows[:, D_TRUMP] == -1).all() and (rows[:, D_TRUMP_CHOOSER] == -1).all()
            if kind == TRICKS:
                assert (points == tricks * PER_TRICK[i]).all()
            if kind == HEARTS:
                assert (points == rows[:, D_HEARTS] * PER_HEART[i]).all()
            if kind == KING_OF_HEARTS:
                assert sorted(points.tolist()) == [PER_KING_OF_HEARTS[i]] + [0] * (n - 1)
            if kind == SEVENTH_AND_LAST:
                item = PER_SEVENTH_OR_LAST[i]
                assert set(points.tolist()) <= {0, item, 2 * item}
        assert sorted(choosers) == list(range(n))  # every seat names trump once (B3)
        grows = games[games[:, G_GAME] == g]
        assert grows[:, G_SEAT].tolist() == list(range(n))
        assert grows[:, G_SCORE].tolist() == totals.tolist()
        for s in range(n):
            assert grows[s, G_PLACE] == 1 + int((totals > totals[s]).sum())
            assert grows[s, G_WINNER] == int(totals[s] == totals.max())  # highest wins (B5)
        assert (grows[:, G_DEALS] == len(kinds)).all()
        assert (grows[:, G_ENDED_BY] == ENDED_ALL_DEALS).all()
        assert (grows[:, G_SCORING] == 0).all()
    return trumps_seen


@pytest.mark.parametrize(("preset", "options"), CONFIGS)
def test_conservation_and_records(preset, options):
    rules = make_rules(preset, options)
    n_games = 60
    specs = ["random", "lowcard", "random", "random"][: rules.players]
    deals, games = play_range(rules, load_players(specs, rules), 7, 0, n_games)
    trumps_seen = check_game_records(rules, deals, games, n_games)
    # the random seat names every suit (and no trump, only where allowed) somewhere
    assert {0, 1, 2, 3} <= trumps_seen
    assert (TRUMP_NONE in trumps_seen) == rules.allow_no_trump


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_places_and_co_winners(preset):
    """B5: the highest total wins, tied highest are co-winners; a place is 1 + the number
    of strictly higher totals (ties share a place). Many games, so that ties occur.
    """
    rules = make_rules(preset)
    n, n_games = rules.players, 2000
    deals, games = play_range(rules, load_players(["random"] * n, rules), 3, 0, n_games)
    scores = games[:, G_SCORE].reshape(n_games, n)
    totals = deals[:, D_POINTS].reshape(n_games, -1, n).sum(axis=1)
    assert (scores == totals).all()
    higher = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    assert (games[:, G_PLACE].reshape(n_games, n) == 1 + higher).all()
    winners = scores == scores.max(axis=1, keepdims=True)
    assert (games[:, G_WINNER].reshape(n_games, n) == winners).all()
    assert (winners.sum(axis=1) > 1).any(), "no tied winners: pick another seed"
    assert (games[:, G_PLACE] == 2).any() and (higher == 1).any()


# --- 2. stop_when_no_penalties (B2) -------------------------------------------------


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_early_stop_at_the_last_penalty_trick(preset):
    rules = make_rules(preset, {"rebel": True, "stop_when_no_penalties": True})
    n = rules.players
    ends: list[dict] = []
    deals, _ = drive(rules, load_players(["random"] * n, rules), 11, 6, ends)
    stopped = {kind: 0 for kind in STOPPING_KINDS}
    for end in ends:
        plays = end["plays"]
        kind = end["kind"]
        if kind == LOTTERY:
            continue
        assert len(plays) % n == 0  # a deal ends after a complete trick
        n_tricks = len(plays) // n
        assert len(end["trick_winners"]) == n_tricks
        rows = rows_of(deals, end["game"], end["deal"])
        assert rows[:, D_TRICKS].sum() == n_tricks
        if kind not in STOPPING_KINDS:  # deals 1, 6, 7 and trump deals run to the end
            assert n_tricks == hand_size(n)
            continue
        pen = PENALTY_CARDS[kind]
        played = mask(c for _, c in plays)
        before_last = mask(c for _, c in plays[: len(plays) - n])
        assert played & pen == pen  # every penalty card was taken ...
        assert before_last & pen != pen  # ... the last of them in the final trick
        assert rows[:, D_POINTS].sum() == full_value(kind, rules)
        stopped[kind] += n_tricks < hand_size(n)
    # Deals 3-5 end early in most games. The hearts deal practically never does with
    # random seats: a heart is led only from a hand of nothing but hearts, whose last
    # card is then a heart, so the 13 hearts must all go as discards before trick 13;
    # test_early_stop_scripted covers it.
    assert stopped[QUEENS] and stopped[MEN] and stopped[KING_OF_HEARTS], stopped


class Dumper:
    """Scripted seat: leads its highest card; when void, discards KH, then hearts high
    first, then queens, then kings and jacks, then its lowest card; else its lowest.
    """

    games = ("kierki",)
    ORDER = [parse_mask("KH")] + [1 << (39 + r) for r in range(12, -1, -1)]
    ORDER += [parse_mask("QC QD QS"), parse_mask("KC KD KS"), parse_mask("JC JD JS")]

    def play(self, obs, legal, rng):
        if not obs.trick:
            return max(cards_of(legal))
        if not obs.hand & suit_mask(obs.trick[0][1] // 13):
            for group in self.ORDER:
                if legal & group:
                    return min(cards_of(legal & group))
        return min(cards_of(legal), key=lambda c: (c % 13, c))


# The leader holds every club and wins every trick; the others, void in clubs, discard.
RIGGED = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # the leader
    "2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 8D 9D",  # its left: 5 hearts
    "7H 8H 9H TH TD JD QD KD AD 2S 3S 4S 5S",  # across: 4 hearts, QD, KD, JD
    "JH QH KH AH 6S 7S 8S 9S TS JS QS KS AS",  # its right: 4 hearts incl. KH, QS, KS, JS
]
# Tricks played before each deal's penalty cards are all taken (leads AC KC QC JC ...):
# KH goes at trick 1; the left seat's 5th heart at trick 5; queens: QC led at 3, QH,
# QD, QS discarded at 3, 5, 5; men: KC, JC led at 2, 4, KH, JH at 1, 4, KD, KS at 6,
# JD, JS at 7.
RIGGED_STOP = {HEARTS: 5, QUEENS: 5, MEN: 7, KING_OF_HEARTS: 1}


def play_rigged(rules: Rules) -> dict[int, dict]:
    """Play deals 1-7 of game 0 (4 players, rebel on), each with the hands of RIGGED
    given out from its leader on; return each deal's end snapshot and rows, by kind.
    """
    players = [py_seat(f"Dumper{s}", Dumper) for s in range(4)]
    driver = PythonDriver(rules, players, 0)
    driver.start_game(0)
    st = driver.state
    out = {}
    for k in range(7):
        next_kierki_decision(st.public, st.private, st.hidden, st.rngs, driver.rules_array)
        leader = (k % 4 + 1) % 4
        for j, text in enumerate(RIGGED):
            st.private[(leader + j) % 4, V_HAND] = parse_mask(text)
            st.private[(leader + j) % 4, V_DEALT] = parse_mask(text)
        driver.play_deal()
        end = deal_end_snapshot(driver)
        assert end["deal"] == k
        end["rows"] = rows_of(driver.deal_out[: st.hidden[H_DEAL_ROWS]], 0, k)
        out[end["kind"]] = end
    return out


def test_early_stop_scripted():
    on = play_rigged(make_rules("kierki4", {"rebel": True, "stop_when_no_penalties": True}))
    off = play_rigged(make_rules("kierki4", {"rebel": True}))
    for kind in range(7):
        n_tricks = len(on[kind]["plays"]) // 4
        assert n_tricks == RIGGED_STOP.get(kind, 13), KIND_NAMES[kind]
        assert len(off[kind]["plays"]) == 52
        # the same play up to the stop, and the same points
        assert on[kind]["plays"] == off[kind]["plays"][: 4 * n_tricks]
        assert on[kind]["rows"][:, D_POINTS].tolist() == off[kind]["rows"][:, D_POINTS].tolist()
        leader = (kind % 4 + 1) % 4
        expected = [0] * 4
        expected[leader] = full_value(kind, make_rules("kierki4"))
        assert on[kind]["rows"][:, D_POINTS].tolist() == expected
        assert on[kind]["rows"][leader, D_TRICKS] == n_tricks


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_early_stop_changes_no_score(preset):
    """The tricks after the last penalty card carry no points, so stopping there changes
    no deal's points: exactly so for a deterministic seat. Random seats draw from one
    stream per game, so theirs match up to the first deal that stopped early; the deals
    themselves (the deal stream) match throughout.
    """
    on = make_rules(preset, {"stop_when_no_penalties": True})
    off = make_rules(preset)
    n = on.players
    n_games = 30
    cols = [D_GAME, D_DEAL, D_SEAT, D_HAND, D_KIND, D_POINTS, D_DEAL_SCORE, D_SCORE, D_TRUMP]
    lc_on, g_on = play_range(on, load_players(["lowcard"] * n, on), 5, 0, n_games)
    lc_off, g_off = play_range(off, load_players(["lowcard"] * n, off), 5, 0, n_games)
    assert (lc_on[:, cols] == lc_off[:, cols]).all()
    assert (g_on == g_off).all()
    assert (lc_on[:, D_TRICKS] != lc_off[:, D_TRICKS]).any()  # some deal did stop early

    r_on, _ = play_range(on, load_players(["random"] * n, on), 5, 0, n_games)
    r_off, _ = play_range(off, load_players(["random"] * n, off), 5, 0, n_games)
    assert (r_on[:, D_HAND] == r_off[:, D_HAND]).all()
    compared = 0
    for g in range(n_games):
        for k in range(len(kinds_in_order(n, False))):
            a, b = rows_of(r_on, g, k), rows_of(r_off, g, k)
            assert (a[:, D_POINTS] == b[:, D_POINTS]).all(), (g, k)
            compared += a[0, D_KIND] in STOPPING_KINDS
            if a[:, D_TRICKS].sum() < hand_size(n):
                break  # the seats' streams part here
    assert compared >= n_games


# --- 3. the trump choice (B3) --------------------------------------------------------


def deal_order(end: dict, n: int) -> list[list[int]]:
    """Return each seat's cards in dealing order: one at a time clockwise from the
    dealer's left, from the deck order left in the state (B1)."""
    out: list[list[int]] = [[] for _ in range(n)]
    for i, c in enumerate(end["deck"]):
        out[(end["dealer"] + 1 + i) % n].append(c)
    return out


def check_trick_winners(end: dict, n: int, trump: int) -> None:
    """The highest trump wins, else the highest card of the led suit (B2, B3)."""
    plays = end["plays"]
    for t, winner in enumerate(end["trick_winners"]):
        trick = plays[t * n : (t + 1) * n]
        led = trick[0][1] // 13
        trumps = [(c, s) for s, c in trick if c // 13 == trump]
        best = max(trumps) if trumps else max((c, s) for s, c in trick if c // 13 == led)
        assert winner == best[1], (end["game"], end["deal"], t, trick)
        if t + 1 < len(end["trick_winners"]):
            assert plays[(t + 1) * n][0] == winner  # the winner leads next


@pytest.mark.parametrize(
    ("preset", "chooser"),
    [
        ("kierki4", "dealer_left"),
        ("kierki4", "dealer"),
        ("kierki3", "dealer_left"),
        ("kierki3", "dealer"),
    ],
)
def test_trump_choice(preset, chooser):
    rules = make_rules(preset, {"trump_chooser": chooser, "rebel": preset == "kierki3"})
    n = rules.players
    log: list[dict] = []

    def choose(obs):
        return (obs.seat + 3 * obs.deal) % 4  # some suit, not always one the seat holds

    players = [py_seat(f"Recorder{s}", lambda: Recorder(log, choose)) for s in range(n)]
    ends: list[dict] = []
    n_games = 4
    deals, games = drive(rules, players, 13, n_games, ends)
    check_game_records(rules, deals, games, n_games)
    choices = [e for e in log if e["what"] == "trump"]
    assert len(choices) == n * n_games
    preview = 5 if n == 4 else 6
    ends_by = {(e["game"], e["deal"]): e for e in ends}
    chosen = {}
    for c in choices:
        game, k = c["game"], c["deal"]
        assert c["kind"] == "trump"
        assert c["dealer"] == k % n
        expected = c["dealer"] if chooser == "dealer" else (c["dealer"] + 1) % n
        assert c["seat"] == c["chooser"] == expected
        assert popcount(c["hand"]) == preview and c["dealt"] == c["hand"]
        rows = rows_of(deals, game, k)
        assert c["hand"] & ~int(rows[c["seat"], D_HAND]) == 0  # a part of its hand ...
        end = ends_by[(game, k)]
        order = deal_order(end, n)
        assert mask(order[c["seat"]][:preview]) == c["hand"]  # ... its first cards dealt
        assert (rows[:, D_TRUMP] == c["choice"]).all()
        assert end["trump"] == c["choice"] and end["chooser"] == c["seat"]
        check_trick_winners(end, n, c["choice"])
        chosen[(game, k)] = c["choice"]
    for g in range(n_games):  # each seat chooses exactly once a game
        assert sorted(c["seat"] for c in choices if c["game"] == g) == list(range(n))
    leads = 0
    for p in log:
        if p["what"] != "play":
            continue
        # the seat left of the dealer leads trick 1, whoever chose trump
        if p["kind"] != "lottery" and p["trick_number"] == 0 and not p["trick"]:
            assert p["seat"] == (p["dealer"] + 1) % n
            assert p["trick_leaders"] == [p["seat"]]
            leads += 1
        assert p["trump"] == chosen.get((p["game"], p["deal"]), -1)
    assert leads == n_games * (len(kinds_in_order(n, rules.rebel)) - 1)
    # every hand of every deal was dealt one card at a time from the dealer's left (B1)
    for end in ends:
        rows = rows_of(deals, end["game"], end["deal"])
        assert [mask(cards) for cards in deal_order(end, n)] == rows[:, D_HAND].tolist()


def trump_seat(rules: Rules) -> int:
    """The chooser of the first trump deal under ``rules``."""
    k = kinds_in_order(rules.players, rules.rebel).index(TRUMP)
    return (k if rules.trump_chooser == "dealer" else k + 1) % rules.players


@pytest.mark.parametrize(
    ("options", "answer"),
    [({}, 4), ({}, -1), ({"allow_no_trump": True}, 7), ({"allow_no_trump": True}, 5)],
)
def test_invalid_trump_choice_names_strategy_and_seat(options, answer):
    rules = make_rules("kierki4", options)
    seat = trump_seat(rules)
    spec = f"FixedTrump(answer={answer})"
    players = load_players(["random"] * 4, rules)
    players[seat] = py_seat(spec, lambda: FixedTrump(answer))
    message = f"strategy '{spec}' (seat {seat}) returned a trump choice other than"
    with pytest.raises(
        StrategyError, match=re.escape(message) + f".*trump choice {answer} in game 0"
    ):
        play_range(rules, players, 1, 0, 1)


@njit(TRUMP_SIG)
def _trump_nine(public, private, rng, params):
    return 9


def test_invalid_trump_choice_from_compiled_seat():
    rules = make_rules("kierki3")
    seat = trump_seat(rules)
    bad = CompiledStrategy(
        "trump9",
        random_bot.pass_cards,
        random_bot.play,
        trump_choice=_trump_nine,
        games=("kierki",),
    )
    players = load_players(["random"] * 3, rules)
    players[seat] = LoadedStrategy("trump9", "trump9", "compiled", compiled=bad, params=np.zeros(1))
    with pytest.raises(StrategyError, match=rf"'trump9' \(seat {seat}\).*trump choice 9 in game 2"):
        play_range(rules, players, 1, 2, 4)


def test_no_trump_deal():
    """With allow_no_trump, answer 4: no trump, the led suit wins every trick."""
    rules = make_rules("kierki4", {"allow_no_trump": True, "must_trump": True})
    ends: list[dict] = []
    log: list[dict] = []
    players = [
        py_seat(f"NoTrump{s}", lambda: Recorder(log, lambda obs: TRUMP_NONE)) for s in range(4)
    ]
    deals, games = drive(rules, players, 17, 3, ends)
    check_game_records(rules, deals, games, 3)
    trump_ends = [e for e in ends if e["kind"] == TRUMP]
    assert len(trump_ends) == 12
    for end in trump_ends:
        assert end["trump"] == -1
        assert (rows_of(deals, end["game"], end["deal"])[:, D_TRUMP] == TRUMP_NONE).all()
        check_trick_winners(end, 4, -1)
    # no trump: must_trump has nothing to force, a void seat may play any card
    voids = [p for p in log if p["what"] == "play" and p["kind"] == "trump" and p["trick"]]
    voids = [p for p in voids if not p["hand"] & suit_mask(p["trick"][0] // 13)]
    assert voids and all(p["legal"] == p["hand"] for p in voids)


# --- 4. legal plays in tricks (B2, B3) -----------------------------------------------


def expected_legal(p: dict, must_trump: bool, first_chance=False, king_ban=False) -> int:
    """Return the legal cards of a logged decision, from B2/B3 (``first_chance``:
    ``king_of_hearts_first_chance``; ``king_ban``: ``heart_lead_ban=king_of_hearts``)."""
    hand, trick = p["hand"], p["trick"]
    if not trick:
        others = hand & ~(KING_HEARTS if king_ban else HEARTS_MASK)
        if p["kind"] in NO_HEART_LEAD and others:
            return others
        return hand
    follow = hand & suit_mask(trick[0] // 13)
    kh_deal = p["kind"] in ("king_of_hearts", "rebel")
    under_ace = trick[0] // 13 == 3 and ACE_HEARTS in trick
    if first_chance and kh_deal and hand & KING_HEARTS and (not follow or under_ace):
        return KING_HEARTS
    if follow:
        return follow
    if p["kind"] == "trump" and must_trump and p["trump"] >= 0:
        trumps = hand & suit_mask(p["trump"])
        if trumps:
            in_trick = [c for c in trick if c // 13 == p["trump"]]
            over = mask(c for c in cards_of(trumps) if c > max(in_trick, default=-1))
            return over or trumps
    return hand


@pytest.mark.parametrize(
    ("preset", "must_trump"), [("kierki4", True), ("kierki4", False), ("kierki3", True)]
)
def test_legal_plays(preset, must_trump):
    rules = make_rules(preset, {"rebel": True, "must_trump": must_trump})
    log: list[dict] = []
    players = [py_seat(f"Recorder{s}", lambda: Recorder(log)) for s in range(rules.players)]
    drive(rules, players, 21, 12)
    seen: dict[str, int] = {}

    def count(what):
        seen[what] = seen.get(what, 0) + 1

    for p in log:
        if p["what"] != "play" or p["kind"] == "lottery":
            continue
        assert p["legal"] == expected_legal(p, must_trump), p
        hand, legal, trick = p["hand"], p["legal"], p["trick"]
        if not trick:
            mixed = hand & HEARTS_MASK and hand & ~HEARTS_MASK
            if mixed and p["kind"] in NO_HEART_LEAD:
                assert not legal & HEARTS_MASK
                count(f"ban {p['kind']}")
            elif mixed:
                assert legal == hand
                count(f"no ban {p['kind']}")
            elif hand & HEARTS_MASK and p["kind"] in NO_HEART_LEAD:
                assert legal == hand  # only hearts left: a heart may be led
                count("only hearts")
            continue
        led = suit_mask(trick[0] // 13)
        if hand & led:
            assert legal == hand & led
            count("follow")
            continue
        if p["kind"] == "trump" and hand & suit_mask(p["trump"]):
            trumps = hand & suit_mask(p["trump"])
            top = max((c for c in trick if c // 13 == p["trump"]), default=-1)
            over = mask(c for c in cards_of(trumps) if c > top)
            if not must_trump:
                assert legal == hand
                count("void, free")
            elif top < 0:
                assert legal == trumps
                count("must trump")
            elif over:
                assert legal == over
                count("must overtrump" if over != trumps else "every trump overtrumps")
            else:
                assert legal == trumps
                count("cannot overtrump")
        else:
            assert legal == hand
            count("void, no trump held")
    wanted = [f"ban {k}" for k in NO_HEART_LEAD] + [
        f"no ban {k}" for k in ("tricks", "queens", "men", "seventh_and_last", "trump")
    ]
    wanted += ["only hearts", "follow", "void, no trump held"]
    wanted += ["must trump", "must overtrump", "cannot overtrump"] if must_trump else ["void, free"]
    assert all(w in seen for w in wanted), ([w for w in wanted if w not in seen], seen)


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_king_of_hearts_options_in_random_games(preset):
    """B2, options ``king_of_hearts_first_chance`` and ``heart_lead_ban=king_of_hearts``:
    every legal mask shown to random seats is the one B2 gives with both options on, and
    in many of those decisions it differs from the mask without them (so a driver that
    ignored the options fails here)."""
    options = {"king_of_hearts_first_chance": True, "heart_lead_ban": "king_of_hearts"}
    rules = make_rules(preset, {"rebel": True, **options})
    log: list[dict] = []
    players = [py_seat(f"Recorder{s}", lambda: Recorder(log)) for s in range(rules.players)]
    drive(rules, players, 23, 12)
    seen: dict[str, int] = {}
    for p in log:
        if p["what"] != "play" or p["kind"] == "lottery":
            continue
        legal = p["legal"]
        assert legal == expected_legal(p, False, first_chance=True, king_ban=True), p
        if legal == expected_legal(p, False):
            continue
        hand, trick = p["hand"], p["trick"]
        if not trick:
            assert hand & HEARTS_MASK & ~KING_HEARTS and legal & HEARTS_MASK
            assert not legal & KING_HEARTS or hand == KING_HEARTS
            what = "heart lead allowed" if hand & ~HEARTS_MASK else "KH lead banned"
        else:
            assert legal == KING_HEARTS
            what = "KH forced: void" if trick[0] // 13 != 3 else "KH forced: under the AH"
        seen[f"{what} {p['kind']}"] = seen.get(f"{what} {p['kind']}", 0) + 1
    wanted = [f"heart lead allowed {k}" for k in NO_HEART_LEAD]
    wanted += [f"KH forced: void {k}" for k in ("king_of_hearts", "rebel")]
    wanted += ["KH forced: under the AH king_of_hearts"]
    assert all(w in seen for w in wanted), ([w for w in wanted if w not in seen], seen)


class LeadHigh:
    """Scripted seat: leads its highest legal card, else plays its lowest legal card."""

    games = ("kierki",)

    def play(self, obs, legal, rng):
        return max(cards_of(legal)) if not obs.trick else min(cards_of(legal))


def play_rigged_deal(rules: Rules, hands: list[str], k: int) -> dict:
    """Play deals 0..k of game 0 (4 players) with LeadHigh seats, each deal with ``hands``
    given out from its leader on; return deal ``k``'s end snapshot and rows."""
    players = [py_seat(f"LeadHigh{s}", LeadHigh) for s in range(4)]
    driver = PythonDriver(rules, players, 0)
    driver.start_game(0)
    st = driver.state
    for d in range(k + 1):
        next_kierki_decision(st.public, st.private, st.hidden, st.rngs, driver.rules_array)
        leader = (d % 4 + 1) % 4
        for j, text in enumerate(hands):
            st.private[(leader + j) % 4, V_HAND] = parse_mask(text)
            st.private[(leader + j) % 4, V_DEALT] = parse_mask(text)
        driver.play_deal()
    end = deal_end_snapshot(driver)
    assert end["deal"] == k
    end["rows"] = rows_of(driver.deal_out[: st.hidden[H_DEAL_ROWS]], 0, k)
    return end


def trick_of(end: dict, card: str) -> int:
    """Return the trick (0-based) in which ``card`` was played."""
    c = parse_mask(card).bit_length() - 1
    return next(i for i, (_, played) in enumerate(end["plays"]) if played == c) // 4


@pytest.mark.parametrize(("k", "rebel"), [(KING_OF_HEARTS, False), (REBEL, True)])
def test_king_of_hearts_first_chance_when_void(k, rebel):
    """B2, ``king_of_hearts_first_chance``: in RIGGED the leader runs its clubs and its
    right-hand seat, void in clubs, holds the KH. On, it must drop the KH on trick 1;
    off, the lowest-card seat keeps it until its spades and JH, QH are gone (trick 12).
    The leader takes the KH either way."""
    leader = (k % 4 + 1) % 4
    for on, kh_trick in ((True, 0), (False, 11)):
        rules = make_rules("kierki4", {"rebel": rebel, "king_of_hearts_first_chance": on})
        end = play_rigged_deal(rules, RIGGED, k)
        assert trick_of(end, "KH") == kh_trick
        assert end["plays"][4 * kh_trick + 3] == ((leader + 3) % 4, KING_HEARTS.bit_length() - 1)
        assert end["rows"][leader, D_POINTS] == full_value(k, rules)


# The leader holds the AH and twelve clubs; its left, the KH, five low hearts and seven
# diamonds; across, the other hearts; its right, every spade.
AH_LEADS = [
    "AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
    "KH 2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 8D",
    "7H 8H 9H TH JH QH 9D TD JD QD KD AD AC",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
]


def test_heart_lead_ban_and_first_chance_under_the_ace():
    """B2, ``heart_lead_ban``: in the KH deal the LeadHigh leader may lead its AH only
    with ``king_of_hearts`` (``every_heart``: it must lead a club, the KC).
    ``king_of_hearts_first_chance``: on the AH, the next seat must play its KH (off: its
    lowest heart, 2H), so the leader takes the KH in trick 1."""
    leader = (KING_OF_HEARTS % 4 + 1) % 4
    left = (leader + 1) % 4
    first = {}
    for ban in ("every_heart", "king_of_hearts"):
        for on in (False, True):
            options = {"heart_lead_ban": ban, "king_of_hearts_first_chance": on}
            end = play_rigged_deal(make_rules("kierki4", options), AH_LEADS, KING_OF_HEARTS)
            first[ban, on] = [c for _, c in end["plays"][:2]]
            if ban == "king_of_hearts" and on:
                assert end["rows"][leader, D_POINTS] == PER_KING_OF_HEARTS[0]
                assert end["plays"][1][0] == left
    code = lambda text: parse_mask(text).bit_length() - 1  # noqa: E731
    assert first["every_heart", False][0] == first["every_heart", True][0] == code("KC")
    assert first["king_of_hearts", False] == [code("AH"), code("2H")]
    assert first["king_of_hearts", True] == [code("AH"), code("KH")]


# --- 5. the lottery (B4) -------------------------------------------------------------


def fits(card: int, table: int, start_rank: int) -> bool:
    """Whether ``card`` may go on the lottery table (B4), written out from the rule."""
    suit, rank = divmod(card, 13)
    ranks = [r for r in range(13) if table >> (13 * suit + r) & 1]
    if not ranks:
        return rank == start_rank
    return rank in (min(ranks) - 1, max(ranks) + 1)


@pytest.mark.parametrize(
    ("preset", "leader"),
    [
        ("kierki4", "dealer"),
        ("kierki4", "dealer_left"),
        ("kierki3", "dealer"),
        ("kierki3", "dealer_left"),
    ],
)
def test_lottery(preset, leader):
    rules = make_rules(preset, {"lottery_leader": leader})
    n = rules.players
    log: list[dict] = []
    ends: list[dict] = []
    players = [py_seat(f"Recorder{s}", lambda: Recorder(log)) for s in range(n)]
    n_games = 12
    deals, _ = drive(rules, players, 23, n_games, ends)
    asked = [p for p in log if p["what"] == "play" and p["kind"] == "lottery"]
    for p in asked:
        assert p["legal"], p  # a seat without a legal card passes, it is never asked
        assert p["out"][p["seat"]] == 0
        assert p["legal"] & ~p["hand"] == 0
        if p["played"] == 0:
            first = p["dealer"] if leader == "dealer" else (p["dealer"] + 1) % n
            assert p["seat"] == first and p["start_rank"] == -1
            if n == 3:
                assert not p["legal"] & TWOS  # B4: with 3 players not a 2
        else:
            every = [c for c in cards_of(p["hand"]) if fits(c, p["played"], p["start_rank"])]
            assert p["legal"] == mask(every)
    lotteries = [e for e in ends if e["kind"] == LOTTERY]
    assert len(lotteries) == n_games
    for end in lotteries:
        plays = end["plays"]
        first = end["dealer"] if leader == "dealer" else (end["dealer"] + 1) % n
        assert plays[0][0] == first
        if n == 3:
            assert plays[0][1] % 13 != 0
        start = plays[0][1] % 13
        hands = list(end["dealt"])
        table, order_out = 0, []
        for i, (seat, card) in enumerate(plays):
            assert hands[seat] >> card & 1
            if i:
                assert fits(card, table, start), (i, seat, card)
            hands[seat] &= ~(1 << card)
            table |= 1 << card
            if not hands[seat]:
                order_out.append(seat)
            if i + 1 < len(plays):
                # the turn goes clockwise to the next seat still in with a card that fits
                nxt = next(
                    s
                    for s in ((seat + j) % n for j in range(1, n + 1))
                    if any(fits(c, table, start) for c in cards_of(hands[s]))
                )
                assert plays[i + 1][0] == nxt, (i, plays[i + 1], nxt)
        assert len(order_out) == 2 and order_out[-1] == plays[-1][0]  # ends at the 2nd out
        assert hands == end["hand"]
        assert sum(1 for h in hands if h) == n - 2  # the others still hold cards
        rows = rows_of(deals, end["game"], end["deal"])
        places = [0] * n
        places[order_out[0]], places[order_out[1]] = 1, 2
        assert rows[:, D_LOTTERY_PLACE].tolist() == places == end["out"]


# --- 6. the two drivers, determinism ----------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("kierki4", {"rebel": True, "must_trump": True, "allow_no_trump": True}),
        ("kierki3", {"stop_when_no_penalties": True, "lottery_leader": "dealer_left"}),
        (
            "kierki4",
            {
                "rebel": True,
                "king_of_hearts_first_chance": True,
                "heart_lead_ban": "king_of_hearts",
            },
        ),
    ],
)
def test_python_driver_equals_compiled_loop(preset, options):
    rules = make_rules(preset, options)
    players = load_players(["random"] * rules.players, rules)
    deals, games = play_range(rules, players, 31, 3, 9)
    driver = PythonDriver(rules, players, 31)
    rows = [driver.play_game(g) for g in range(3, 9)]
    assert np.array_equal(deals, np.concatenate([d for d, _ in rows]))
    assert np.array_equal(games, np.concatenate([g for _, g in rows]))


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_python_seat_equals_compiled_seat(preset):
    """A plain-Python seat (loaded from this file) answering as the compiled ``lowcard``
    gives the games of the compiled ``lowcard``; the other seats' streams are untouched.
    """
    rules = make_rules(preset, {"rebel": True})
    n = rules.players
    compiled = load_players(["lowcard"] + ["random"] * (n - 1), rules)
    python = load_players([f"{__file__}:DelegateLowcard"] + ["random"] * (n - 1), rules)
    assert python[0].kind == "python" and python[0].games == ("kierki",)
    a = play_range(rules, compiled, 37, 0, 8)
    b = play_range(rules, python, 37, 0, 8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("preset", ["kierki4", "kierki3"])
def test_deterministic_and_chunk_free(preset):
    rules = make_rules(preset, {"rebel": True, "must_trump": True})
    players = load_players(["random"] * rules.players, rules)
    whole = play_range(rules, players, 41, 0, 10)
    again = play_range(rules, players, 41, 0, 10)
    head = play_range(rules, players, 41, 0, 5)
    tail = play_range(rules, players, 41, 5, 10)
    other = play_range(rules, players, 42, 0, 10)
    for i in (0, 1):
        assert np.array_equal(whole[i], again[i])
        assert np.array_equal(whole[i], np.concatenate([head[i], tail[i]]))
    assert not np.array_equal(whole[0], other[0])
    assert whole[0][:, D_GAME].tolist() == sorted(whole[0][:, D_GAME].tolist())


# --- 7. seats and games a strategy plays --------------------------------------------


def test_player_count_must_match_rules():
    with pytest.raises(StrategyError, match=r"4 players given, but kierki .* has 3 seats"):
        load_players(["random"] * 4, make_rules("kierki3"))
    with pytest.raises(StrategyError, match=r"3 players given, but kierki .* has 4 seats"):
        load_players(["random"] * 3, make_rules("kierki4"))
    assert len(load_players(["random"] * 3, make_rules("kierki3"))) == 3


def test_hearts_only_strategies_refused_for_kierki():
    rules = make_rules("kierki4")
    with pytest.raises(StrategyError, match=r"'duck' does not play kierki.*random"):
        load_players(["random", "duck", "random", "random"], rules)
    with pytest.raises(StrategyError, match=r"does not play kierki \(it plays: hearts\)"):
        load_players(["random", "random", f"{__file__}:HeartsOnly", "random"], rules)
