"""Write ``tests/data/perft.json``: perft counts of fixed Hearts positions, counted by OpenSpiel.

Usage::

    python scripts/make_perft_data.py [--out tests/data/perft.json] [--budget N]

Perft (as in chess) is the number of legal play sequences of a given length from a
position; a sequence that would run past the deal's last card counts nothing. The file
holds two kinds of positions, each with its hsim rules string and its one-line position
(``PositionSpec.to_text()``):

- ``openspiel``: built here from fixed seeds (random deals, seeded random walks into the
  deal, deals built around a rare rule branch) and counted by **OpenSpiel only**: a depth-
  first search over ``pyspiel`` states (``clone`` / ``apply_action``), with the count under
  each legal first card (``divide``) at every depth. The mapping between OpenSpiel's
  parameters and hsim's rules is ``scripts/openspiel_oracle.py`` (``docs/openspiel.md``).
  Depths run 1, 2, ... while the count of the last depth is at most ``--budget`` (the next
  depth costs about that many OpenSpiel states), up to 12, and past the end of the deal
  by 2 when the deal is that close to its end.
- ``hand``: options OpenSpiel lacks (``queen_waits_for_broken_hearts``,
  ``first_trick_only_points=queen``) on suit-block deals whose counts are worked out by
  hand below (``HAND_CASES``, with the derivation). The count with the option off is
  worked out too, and checked against OpenSpiel where the rules with the option off are
  an OpenSpiel parameter set.

The script then counts every position with hsim's kernel (``hsim.engine.perft``) and
reports each difference with both engines' divide breakdowns; the file keeps OpenSpiel's
(and the hand-worked) numbers whatever hsim says. Exit status 1 when hsim differs
anywhere. Needs OpenSpiel (``pip install -e '.[openspiel]'``); the test that reads the file,
``tests/test_perft_data.py``, does not.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import itertools
import json
import random
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

try:
    import openspiel_oracle as oracle  # beside this script
    import pyspiel
except ModuleNotFoundError as e:  # OpenSpiel is a test-only tool, not an hsim dependency
    if e.name != "pyspiel":
        raise
    sys.exit("make_perft_data needs OpenSpiel: pip install -e '.[openspiel]' in hsim's checkout")

import numpy as np  # noqa: E402

from hsim.engine import perft as hsim_perft  # noqa: E402
from hsim.model.cards import (  # noqa: E402
    CLUBS,
    HEARTS,
    QUEEN_SPADES,
    RANKS,
    SUIT_MASKS,
    SUITS,
    card,
    cards_of,
    format_card,
    mask_of,
)
from hsim.model.notation import PositionSpec  # noqa: E402
from hsim.model.rules import Rules, canonical, parse_rules  # noqa: E402
from hsim.play.position import Position  # noqa: E402

DEFAULT_OUT = ROOT / "tests" / "data" / "perft.json"
DEFAULT_BUDGET = 1_000_000
MAX_DEPTH = 12
CLUBS_MASK = SUIT_MASKS[CLUBS]
HEARTS_MASK = SUIT_MASKS[HEARTS]
QS_BIT = 1 << QUEEN_SPADES
POINTS_MASK = HEARTS_MASK | QS_BIT

# -- OpenSpiel: states and counts ---------------------------------------------------------


def os_params(changed: dict[str, bool]) -> dict[str, bool]:
    """Return OpenSpiel's five play parameters: its defaults with ``changed`` on top."""
    return {k: changed.get(k, oracle.OS_DEFAULTS[k]) for k in oracle.PLAY_PARAMS}


def os_state(params: dict[str, bool], spec: PositionSpec) -> pyspiel.State:
    """Return OpenSpiel's state at ``spec``: direction, the deal, the passes, the plays."""
    state = oracle.os_game(params).new_initial_state()
    state.apply_action(oracle.OS_PASS_ACTION[spec.pass_direction])
    for k in range(52):  # OpenSpiel deals card k to player k % 4
        state.apply_action(oracle.CARD_TO_OS[spec.hands[k % 4][k // 4]])
    for seat, passed in enumerate(spec.passes or ()):
        for c in cards_of(passed):
            assert state.current_player() == seat
            state.apply_action(oracle.CARD_TO_OS[c])
    for c in spec.plays:
        state.apply_action(oracle.CARD_TO_OS[c])
    return state


def os_perft(state: pyspiel.State, depth: int) -> int:
    """Return OpenSpiel's number of legal play sequences of ``depth`` cards from ``state``."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0  # the deal ended before the sequence reached its length
    assert not state.is_chance_node()
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for a in actions:
        child = state.clone()
        child.apply_action(a)
        total += os_perft(child, depth - 1)
    return total


def os_divide(state: pyspiel.State, depth: int) -> dict[int, int]:
    """Return OpenSpiel's count of ``depth - 1`` below each legal card (hsim card -> n)."""
    out = {}
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        out[oracle.OS_TO_CARD[a]] = os_perft(child, depth - 1)
    return dict(sorted(out.items()))


# -- hsim: counts -------------------------------------------------------------------------


def hsim_count(spec: PositionSpec, rules: Rules, depth: int) -> int:
    """Return hsim's perft count (the compiled kernel)."""
    p = Position.from_spec(spec, rules)
    return int(hsim_perft.perft(p.state.public, p.state.private, p.rules_array, depth))


def hsim_divide(spec: PositionSpec, rules: Rules, depth: int) -> dict[int, int]:
    """Return hsim's count below each legal first card (card -> n)."""
    p = Position.from_spec(spec, rules)
    out = np.zeros(52, np.int64)
    hsim_perft.divide(p.state.public, p.state.private, p.rules_array, depth, out)
    return {c: int(out[c]) for c in cards_of(p.legal())}


def format_divide(counts: dict[int, int]) -> str:
    """Return a divide breakdown as ``2C:1 3C:4 ...`` (hsim card order)."""
    return " ".join(f"{format_card(c)}:{n}" for c, n in sorted(counts.items()))


def reproduce(spec: PositionSpec, rules_text: str, depth: int) -> str:
    """Return the ``hsim perft`` command line that shows the divide at ``depth``."""
    args = ["hsim", "perft", "--rules", rules_text, *spec.flags(), "--depth", str(depth)]
    return shlex.join([*args, "--divide"])


# -- building positions -------------------------------------------------------------------


@dataclass
class Walk:
    """Where a seeded walk through a deal stands (bookkeeping of this script, hsim masks).

    hands: the four hands now. n: cards played. seat: the seat to act. led: the suit led
    to the current trick, -1 at a lead. heart_played / qs_played: so far in the deal.
    """

    hands: list[int]
    n: int = 0
    seat: int = 0
    led: int = -1
    heart_played: bool = False
    qs_played: bool = False
    marked: int = -1  # the seat a built deal is about (-1: none)

    @property
    def hand(self) -> int:
        return self.hands[self.seat]

    @property
    def trick1(self) -> bool:
        return self.n < 4


Predicate = Callable[[Walk], bool]
Builder = Callable[[random.Random], tuple[list[list[int]], int]]


@dataclass
class Scenario:
    """An OpenSpiel position: how its deal is made and where the walk into it stops.

    params: OpenSpiel play parameters that differ from its defaults. build: returns the
    hands *after the pass* (partial; the rest is dealt at random) and the marked seat;
    None: a random deal with random passes. stop: the walk stops at the first decision
    where it holds (else it tries another deal).
    """

    name: str
    category: str
    description: str
    direction: str
    stop: Predicate
    params: dict[str, bool] = field(default_factory=dict)
    build: Builder | None = None


def _random_suit(rng: random.Random, suit: int, n: int, exclude: tuple[int, ...] = ()) -> list:
    cards = [card(r, suit) for r in range(13) if card(r, suit) not in exclude]
    return rng.sample(cards, n)


def _deal(sc: Scenario, rng: random.Random) -> tuple[PositionSpec, int]:
    """Return a deal (before any play) for ``sc`` and its marked seat."""
    if sc.build is None:
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [deck[13 * s : 13 * s + 13] for s in range(4)]
        passes = None
        if sc.direction != "hold":
            passes = tuple(mask_of(rng.sample(h, 3)) for h in hands)
        return PositionSpec(tuple(map(tuple, hands)), sc.direction, passes), -1
    partial, marked = sc.build(rng)
    # Deal the cards no seat holds yet at random to complete 13-card hands.
    used = {c for h in partial for c in h}
    rest = [c for c in range(52) if c not in used]
    rng.shuffle(rest)
    after = []
    for h in partial:
        k = 13 - len(h)
        after.append(list(h) + rest[:k])
        rest = rest[k:]
    if sc.direction == "hold":
        return PositionSpec(tuple(map(tuple, after))), marked
    # The passes are 3 cards of each receiver's final hand, so the dealt hands are
    # final - received + passed (as in scripts/openspiel_oracle.py's built deals).
    shift = oracle.PASS_SHIFT[sc.direction]
    passes = [mask_of(rng.sample(after[(s + shift) % 4], 3)) for s in range(4)]
    hands = []
    for s in range(4):
        received = passes[(s - shift) % 4]
        hand = [c for c in after[s] if not received >> c & 1] + list(cards_of(passes[s]))
        rng.shuffle(hand)
        hands.append(tuple(hand))
    return PositionSpec(tuple(hands), sc.direction, tuple(passes)), marked


def build_position(sc: Scenario, tries: int = 20_000) -> PositionSpec:
    """Return the first position of ``sc``'s seeded walks where ``sc.stop`` holds.

    Deterministic: the random numbers come from a generator seeded with the name.
    OpenSpiel gives the legal cards along the walk.
    """
    rng = random.Random(f"perft/{sc.name}")
    params = os_params(sc.params)
    for _ in range(tries):
        spec, marked = _deal(sc, rng)
        state = os_state(params, spec)
        w = Walk(oracle.os_hands(state), marked=marked)
        plays: list[int] = []
        while not state.is_terminal():
            w.seat = state.current_player()
            if sc.stop(w):
                return dataclasses.replace(spec, plays=tuple(plays))
            legal = sorted(oracle.OS_TO_CARD[a] for a in state.legal_actions())
            c = rng.choice(legal)
            state.apply_action(oracle.CARD_TO_OS[c])
            plays.append(c)
            w.hands[w.seat] &= ~(1 << c)
            w.heart_played |= c // 13 == HEARTS
            w.qs_played |= c == QUEEN_SPADES
            w.led = -1 if w.n % 4 == 3 else c // 13 if w.n % 4 == 0 else w.led
            w.n += 1
    raise RuntimeError(f"{sc.name}: no position found in {tries} deals")


# Predicates.


def at(n: int, also: Predicate = lambda w: True) -> Predicate:
    return lambda w: w.n == n and also(w)


def clubs_of_2c_holder(w: Walk) -> int:
    holder = next(s for s in range(4) if w.hands[s] & 1)
    return (w.hands[holder] & CLUBS_MASK).bit_count()


def void_points_and_other(w: Walk) -> bool:
    """Some seat is void in clubs and holds both point cards and other cards."""
    return any(not h & CLUBS_MASK and h & POINTS_MASK and h & ~POINTS_MASK for h in w.hands)


def marked_on_trick1(w: Walk) -> bool:
    return w.trick1 and w.led == CLUBS and w.seat == w.marked


def marked_leads_trick2(w: Walk) -> bool:
    return w.n == 4 and w.seat == w.marked and not w.heart_played


def unbroken_lead_mixed(qs_played: bool) -> Predicate:
    """A lead after trick 2, no heart played yet, QS played or not, the leader holding
    hearts and cards other than hearts and QS."""
    return lambda w: (
        w.n >= 8
        and w.n % 4 == 0
        and not w.heart_played
        and w.qs_played == qs_played
        and bool(w.hand & HEARTS_MASK)
        and bool(w.hand & ~POINTS_MASK)
    )


# Builders: hands after the pass (partial) and the marked seat.


def void_with(cards: Callable[[random.Random], list[int]]) -> Builder:
    """A random seat gets ``cards`` (no club): the seat void in clubs that trick 1 is about."""

    def build(rng: random.Random) -> tuple[list[list[int]], int]:
        x = rng.randrange(4)
        hands: list[list[int]] = [[], [], [], []]
        hands[x] = cards(rng)
        return hands, x

    return build


def qs_and_hearts(rng: random.Random) -> list[int]:
    return [QUEEN_SPADES, *_random_suit(rng, HEARTS, 12)]


def all_hearts(rng: random.Random) -> list[int]:
    return _random_suit(rng, HEARTS, 13)


def points_and_others(rng: random.Random) -> list[int]:
    """QS, 3 hearts and 9 diamonds or spades (no club)."""
    others = [c for c in range(13, 39) if c != QUEEN_SPADES]
    return [QUEEN_SPADES, *_random_suit(rng, HEARTS, 3), *rng.sample(others, 9)]


def leader_with(extra: list[int], n_hearts: int) -> Builder:
    """A random seat holds AC, ``extra`` and ``n_hearts`` hearts: it wins trick 1 and leads."""

    def build(rng: random.Random) -> tuple[list[list[int]], int]:
        x = rng.randrange(4)
        hands: list[list[int]] = [[], [], [], []]
        hands[x] = [card(12, CLUBS), *extra, *_random_suit(rng, HEARTS, n_hearts)]
        return hands, x

    return build


def club_leader(n_clubs: int, void_only_points: bool = False) -> Builder:
    """The 2C holder holds ``n_clubs`` clubs; optionally another seat holds QS + 12 hearts."""

    def build(rng: random.Random) -> tuple[list[list[int]], int]:
        x = rng.randrange(4)
        hands: list[list[int]] = [[], [], [], []]
        hands[x] = [card(0, CLUBS), *_random_suit(rng, CLUBS, n_clubs - 1, (card(0, CLUBS),))]
        if void_only_points:
            hands[(x + rng.randrange(1, 4)) % 4] = qs_and_hearts(rng)
        return hands, x

    return build


ALL_FLIPPED = {k: not oracle.OS_DEFAULTS[k] for k in oracle.PLAY_PARAMS}

SCENARIOS: list[Scenario] = [
    # Openings: the first card of the deal, after the pass.
    Scenario("opening_hold", "opening", "random deal, hold, before trick 1", "hold", at(0)),
    Scenario("opening_left", "opening", "random deal and passes, left", "left", at(0)),
    Scenario("opening_right", "opening", "random deal and passes, right", "right", at(0)),
    Scenario("opening_across", "opening", "random deal and passes, across", "across", at(0)),
    Scenario(
        "opening_left_lead_any_club",
        "opening",
        "random deal, left; the 2C holder holds 4+ clubs and may lead any of them",
        "left",
        at(0, lambda w: clubs_of_2c_holder(w) >= 4),
        {"can_lead_any_club": True},
    ),
    Scenario(
        "opening_right_points_allowed",
        "opening",
        "random deal, right; a seat void in clubs holds points and other cards, "
        "points allowed on trick 1",
        "right",
        at(0, void_points_and_other),
        {"no_pts_on_first_trick": False},
    ),
    Scenario(
        "opening_across_all_flipped",
        "opening",
        "random deal, across; all five play parameters away from OpenSpiel's defaults; "
        "the 2C holder holds 3+ clubs",
        "across",
        at(0, lambda w: clubs_of_2c_holder(w) >= 3),
        ALL_FLIPPED,
    ),
    # Mid-deal: a seeded random walk of n plays.
    Scenario("mid_left_10", "mid-deal", "random walk of 10 plays, left", "left", at(10)),
    Scenario(
        "mid_right_13_qs_no_break",
        "mid-deal",
        "random walk of 13 plays (mid-trick), right; QS does not break hearts",
        "right",
        at(13),
        {"qs_breaks_hearts": False},
    ),
    Scenario(
        "mid_across_18_no_must_break",
        "mid-deal",
        "random walk of 18 plays, across; hearts need not be broken",
        "across",
        at(18),
        {"must_break_hearts": False},
    ),
    Scenario(
        "mid_hold_21_hearts_instead_of_qs",
        "mid-deal",
        "random walk of 21 plays, hold; a leader with only hearts and QS may lead a heart",
        "hold",
        at(21),
        {"can_lead_hearts_instead_of_qs": True},
    ),
    Scenario(
        "mid_left_26_points_allowed",
        "mid-deal",
        "random walk of 26 plays, left; points allowed on trick 1",
        "left",
        at(26),
        {"no_pts_on_first_trick": False},
    ),
    Scenario(
        "mid_right_30_all_flipped",
        "mid-deal",
        "random walk of 30 plays, right; all five play parameters flipped",
        "right",
        at(30),
        ALL_FLIPPED,
    ),
    Scenario(
        "late_across_46",
        "mid-deal",
        "random walk of 46 plays, across: 6 cards left, depths 7 and 8 count 0 "
        "(a sequence cannot run past the end of the deal)",
        "across",
        at(46),
    ),
    # Trick 1: the walk stops at the decision of the seat the deal is built around.
    Scenario(
        "t1_void_hearts_qs_any",
        "trick 1",
        "trick 1, the seat to act is void in clubs holding QS and 12 hearts: "
        "any of them (no_pts_on_first_trick)",
        "left",
        marked_on_trick1,
        build=void_with(qs_and_hearts),
    ),
    Scenario(
        "t1_void_hearts_qs_points_allowed",
        "trick 1",
        "trick 1, the seat to act is void in clubs holding QS and 12 hearts; "
        "points allowed on trick 1",
        "right",
        marked_on_trick1,
        {"no_pts_on_first_trick": False},
        void_with(qs_and_hearts),
    ),
    Scenario(
        "t1_void_only_hearts",
        "trick 1",
        "trick 1, the seat to act is void in clubs holding 13 hearts: any heart",
        "across",
        marked_on_trick1,
        build=void_with(all_hearts),
    ),
    Scenario(
        "t1_void_points_blocked",
        "trick 1",
        "trick 1, the seat to act is void in clubs holding QS, hearts and other cards: "
        "no point card (no_pts_on_first_trick)",
        "hold",
        marked_on_trick1,
        build=void_with(points_and_others),
    ),
    Scenario(
        "t1_void_points_allowed",
        "trick 1",
        "as t1_void_points_blocked with points allowed on trick 1",
        "left",
        marked_on_trick1,
        {"no_pts_on_first_trick": False},
        void_with(points_and_others),
    ),
    Scenario(
        "t1_lead_any_club",
        "trick 1",
        "before trick 1, hold; the 2C holder holds 6 clubs and may lead any of them",
        "hold",
        at(0),
        {"can_lead_any_club": True},
        club_leader(6),
    ),
    Scenario(
        "t1_lead_any_club_void_hearts_qs",
        "trick 1",
        "before trick 1, across; the 2C holder holds 5 clubs and may lead any, another "
        "seat is void in clubs holding QS and 12 hearts",
        "across",
        at(0),
        {"can_lead_any_club": True},
        club_leader(5, void_only_points=True),
    ),
    # Leads with hearts unbroken.
    Scenario(
        "lead_only_hearts",
        "hearts unbroken",
        "trick 2 lead, hearts unbroken, the leader (AC on trick 1) holds only hearts",
        "left",
        marked_leads_trick2,
        build=leader_with([], 12),
    ),
    Scenario(
        "lead_hearts_qs_forced",
        "hearts unbroken",
        "trick 2 lead, hearts unbroken, the leader holds only hearts and QS: QS forced",
        "right",
        marked_leads_trick2,
        build=leader_with([QUEEN_SPADES], 11),
    ),
    Scenario(
        "lead_hearts_qs_freed",
        "hearts unbroken",
        "as lead_hearts_qs_forced with can_lead_hearts_instead_of_qs: any card",
        "across",
        marked_leads_trick2,
        {"can_lead_hearts_instead_of_qs": True},
        leader_with([QUEEN_SPADES], 11),
    ),
    Scenario(
        "lead_hearts_qs_no_must_break",
        "hearts unbroken",
        "as lead_hearts_qs_forced with must_break_hearts off: any card",
        "hold",
        marked_leads_trick2,
        {"must_break_hearts": False},
        leader_with([QUEEN_SPADES], 11),
    ),
    Scenario(
        "lead_heart_blocked",
        "hearts unbroken",
        "a lead after trick 2, no heart or QS played, the leader holds hearts and other "
        "cards: no heart lead",
        "left",
        unbroken_lead_mixed(qs_played=False),
    ),
    Scenario(
        "lead_heart_unbroken_allowed",
        "hearts unbroken",
        "as lead_heart_blocked with must_break_hearts off: a heart may be led",
        "right",
        unbroken_lead_mixed(qs_played=False),
        {"must_break_hearts": False},
    ),
    Scenario(
        "lead_qs_breaks_hearts",
        "hearts unbroken",
        "a lead after trick 2, QS played but no heart, the leader holds hearts and other "
        "cards: QS broke hearts (qs_breaks_hearts)",
        "across",
        unbroken_lead_mixed(qs_played=True),
    ),
    Scenario(
        "lead_qs_does_not_break_hearts",
        "hearts unbroken",
        "as lead_qs_breaks_hearts with qs_breaks_hearts off: no heart lead",
        "hold",
        unbroken_lead_mixed(qs_played=True),
        {"qs_breaks_hearts": False},
    ),
]


# -- hand-worked positions ----------------------------------------------------------------


def suit(s: str, ranks: str = RANKS) -> str:
    """Return the cards of suit ``s`` (a letter of CDSH) of ``ranks``, as a hand string."""
    assert s in SUITS
    return "".join(r + s for r in ranks)


@dataclass
class HandCase:
    """A position whose counts under an option OpenSpiel lacks were worked out by hand.

    counts / counts_option_off: depth -> count with the option on / off. derivation: the
    reasoning, one line per depth or step.
    """

    name: str
    option: str
    description: str
    rules: str
    rules_option_off: str
    deal: list[str]
    counts: dict[int, int]
    counts_option_off: dict[int, int]
    derivation: list[str]
    plays: str = ""

    def spec(self) -> PositionSpec:
        return PositionSpec.parse("/".join(self.deal), "hold", None, self.plays)


ALL_C, ALL_D, ALL_S, ALL_H = (suit(s) for s in SUITS)
NO_QS = "23456789TJKA"  # the 12 spades other than QS

HAND_CASES: list[HandCase] = [
    HandCase(
        "hand_t1_queen_forced",
        "first_trick_only_points=queen",
        "trick 1: seat 1 is void in clubs holding only QS and 12 hearts",
        "classic",
        "classic(first_trick_only_points=any)",
        [ALL_C, "QS" + suit("H", "23456789TJQK"), ALL_D, "AH" + suit("S", NO_QS)],
        {1: 1, 2: 1, 3: 13, 4: 156, 5: 1872},
        {1: 1, 2: 13, 3: 169, 4: 2028, 5: 24336},
        [
            "seats: 0 all 13 clubs; 1 QS + 2H..KH; 2 all 13 diamonds; 3 AH + the 12 spades "
            "other than QS",
            "d1: seat 0 leads 2C (A1.3) = 1",
            "d2: seat 1 is void in clubs and holds nothing but hearts and QS: "
            "first_trick_only_points=queen makes QS its only card (A1.5) = 1 x 1 = 1",
            "d3: seat 2 is void in clubs and holds no point card: any diamond = 1 x 13 = 13",
            "d4: seat 3 is void in clubs and holds spades: AH barred on trick 1 (A1.5), "
            "12 spades = 13 x 12 = 156",
            "d5: 2C wins trick 1 (the only club); seat 0 leads one of its 12 clubs = "
            "156 x 12 = 1872",
            "option off (any): seat 1 may play any of its 13 cards: d2 13, d3 169, "
            "d4 2028, d5 24336",
        ],
    ),
    HandCase(
        "hand_t1_queen_forced_lead_any_club",
        "first_trick_only_points=queen",
        "trick 1 with lead_any_club: seat 3 is void in clubs holding only QS and 12 hearts",
        "classic(lead_any_club=true)",
        "classic(lead_any_club=true,first_trick_only_points=any)",
        [
            suit("C", "23456789TJQK") + "2H",
            "AC" + suit("D", "23456789TJQK"),
            "AD" + suit("S", NO_QS),
            "QS" + suit("H", "3456789TJQKA"),
        ],
        {1: 12, 2: 12, 3: 156, 4: 156, 5: 1872},
        {1: 12, 2: 12, 3: 156, 4: 2028, 5: 24336},
        [
            "seats: 0 2C..KC + 2H; 1 AC + 2D..KD; 2 AD + the 12 spades other than QS; "
            "3 QS + 3H..AH",
            "d1: seat 0 may lead any of its 12 clubs (lead_any_club, A1.3), not 2H = 12",
            "d2: seat 1 must follow with its only club, AC = 12 x 1 = 12",
            "d3: seat 2 is void in clubs and holds no point card: AD or any of 12 spades "
            "= 12 x 13 = 156",
            "d4: seat 3 is void in clubs with only hearts and QS: QS only (A1.5) = 156 x 1 = 156",
            "d5: AC wins trick 1; seat 1 leads one of its 12 diamonds = 156 x 12 = 1872",
            "option off (any): seat 3 may play any of its 13 cards: d4 156 x 13 = 2028, "
            "d5 2028 x 12 = 24336",
        ],
    ),
    HandCase(
        "hand_t1_queen_waits_points_allowed",
        "queen_waits_for_broken_hearts=true",
        "trick 1 with points allowed: seat 2 is void in clubs holding all 13 spades",
        "classic(first_trick_points=allowed,queen_waits_for_broken_hearts=true)",
        "classic(first_trick_points=allowed)",
        [ALL_C, ALL_D, ALL_S, ALL_H],
        {1: 1, 2: 13, 3: 156, 4: 2028, 5: 24336},
        {1: 1, 2: 13, 3: 169, 4: 2197, 5: 26364},
        [
            "seats: 0 all clubs; 1 all diamonds; 2 all spades; 3 all hearts",
            "d1: seat 0 leads 2C = 1",
            "d2: seat 1 is void in clubs: any diamond = 13",
            "d3: seat 2 is void in clubs, hearts are unbroken (seat 1 played a diamond) and "
            "it holds 12 other spades, so QS is not its only legal card: QS waits (A1.7), "
            "12 spades = 13 x 12 = 156",
            "d4: seat 3 is void in clubs with only hearts; points are allowed: any heart "
            "= 156 x 13 = 2028",
            "d5: 2C wins trick 1; seat 0 leads one of 12 clubs = 2028 x 12 = 24336",
            "option off: seat 2 may also play QS: d3 13 x 13 = 169, d4 2197, d5 26364",
        ],
    ),
    HandCase(
        "hand_t1_heart_frees_queen",
        "queen_waits_for_broken_hearts=true",
        "trick 1 with points allowed: a heart played earlier in the trick frees QS",
        "classic(first_trick_points=allowed,queen_waits_for_broken_hearts=true)",
        "classic(first_trick_points=allowed)",
        [
            ALL_C,
            suit("H", "234567") + suit("D", "2345678"),
            ALL_S,
            suit("H", "89TJQKA") + suit("D", "9TJQKA"),
        ],
        {1: 1, 2: 13, 3: 162, 4: 2106, 5: 25272},
        {1: 1, 2: 13, 3: 169, 4: 2197, 5: 26364},
        [
            "seats: 0 all clubs; 1 2H..7H + 2D..8D; 2 all spades; 3 8H..AH + 9D..AD",
            "d1: seat 0 leads 2C = 1",
            "d2: seat 1 is void in clubs; points are allowed: any of 13 = 13",
            "d3: seat 2 (all spades): after one of seat 1's 6 hearts hearts are broken "
            "(A1.6: the current trick counts) and QS may be played, 13; after one of its "
            "7 diamonds QS waits (A1.7), 12 = 6 x 13 + 7 x 12 = 162",
            "d4: seat 3 is void in clubs; points allowed: any of 13 = 162 x 13 = 2106",
            "d5: 2C wins trick 1; seat 0 leads one of 12 clubs = 2106 x 12 = 25272",
            "option off: seat 2 always has 13 cards: d3 169, d4 2197, d5 26364",
        ],
    ),
    HandCase(
        "hand_trick2_discard_queen_waits",
        "queen_waits_for_broken_hearts=true",
        "trick 2, diamonds led: seat 0 is void in diamonds holding 12 spades with QS",
        "classic(queen_waits_for_broken_hearts=true)",
        "classic",
        [
            "2C" + suit("S", "23456789TJQK"),
            "3C" + suit("H", "23456789TJQK"),
            suit("C", "456789TJQK") + "ADASAH",
            "AC" + suit("D", "23456789TJQK"),
        ],
        {1: 12, 2: 132, 3: 1584, 4: 1584, 5: 17424},
        {1: 12, 2: 144, 3: 1728, 4: 1728, 5: 19008},
        [
            "seats: 0 2C + 2S..KS (QS among them); 1 3C + 2H..KH; 2 4C..KC + AD AS AH; "
            "3 AC + 2D..KD; plays 2C 3C 4C AC (trick 1; seat 3 wins with AC)",
            "d1: seat 3 leads one of its 12 diamonds (it holds nothing else) = 12",
            "d2: seat 0 is void in diamonds with 12 spades, hearts unbroken: QS is not its "
            "only legal card, so it waits (A1.7), 11 = 12 x 11 = 132",
            "d3: seat 1 is void in diamonds with only hearts: any of 12 = 132 x 12 = 1584",
            "d4: seat 2 must follow with AD = 1584 x 1 = 1584",
            "d5: AD wins; seat 2 leads any of 9 clubs, AS or AH (hearts broken by seat 1) "
            "= 1584 x 11 = 17424",
            "option off: seat 0 may discard QS, 12: d2 144, d3 1728, d4 1728, d5 19008",
        ],
        plays="2C 3C 4C AC",
    ),
    HandCase(
        "hand_trick2_lead_queen_waits",
        "queen_waits_for_broken_hearts=true",
        "trick 2 lead, hearts unbroken: the leader holds QS, 10 other spades and AH",
        "classic(queen_waits_for_broken_hearts=true)",
        "classic",
        [
            "2C" + suit("D", "23456789TJQK"),
            "3C" + suit("H", "23456789TJQK"),
            suit("C", "456789TJQK") + "ADKSAS",
            "AC" + "QS" + suit("S", "23456789TJ") + "AH",
        ],
        {1: 10, 2: 120, 3: 1440, 4: 2880, 5: 31680},
        {1: 11, 2: 132, 3: 1584, 4: 3168, 5: 34848},
        [
            "seats: 0 2C + 2D..KD; 1 3C + 2H..KH; 2 4C..KC + AD KS AS; 3 AC QS 2S..JS AH; "
            "plays 2C 3C 4C AC (trick 1; seat 3 wins with AC)",
            "d1: seat 3 leads, hearts unbroken: AH barred (A1.6), QS waits (A1.7: 10 "
            "other spades are legal) = 10",
            "d2: seat 0 is void in spades: any of 12 diamonds = 10 x 12 = 120",
            "d3: seat 1 is void in spades: any of 12 hearts = 120 x 12 = 1440",
            "d4: seat 2 follows with KS or AS = 1440 x 2 = 2880",
            "d5: seat 2 wins (KS and AS beat 2S..QS); it leads any of 9 clubs, AD or its "
            "other high spade = 2880 x 11 = 31680",
            "option off: QS may be led too, 11: d2 132, d3 1584, d4 3168, d5 34848",
        ],
        plays="2C 3C 4C AC",
    ),
]


def os_params_matching(rules: Rules, past_trick1: bool) -> dict[str, bool] | None:
    """Return OpenSpiel play parameters whose hsim mapping is ``rules``, or None.

    past_trick1: the options that act on trick 1 only (``lead_any_club``,
    ``first_trick_points``, ``first_trick_only_points``) do not matter and are ignored.
    """

    def key(r: Rules) -> Rules:
        if not past_trick1:
            return r
        return dataclasses.replace(
            r,
            lead_any_club=False,
            first_trick_points="forbidden",
            first_trick_only_points="queen",
        )

    # OpenSpiel's defaults first, so the parameters named are the nearest to them.
    for flips in itertools.product((False, True), repeat=len(oracle.PLAY_PARAMS)):
        params = {
            k: oracle.OS_DEFAULTS[k] != flip
            for k, flip in zip(oracle.PLAY_PARAMS, flips, strict=True)
        }
        if key(oracle.hsim_rules(params)) == key(rules):
            return params
    return None


# -- counting and the file ----------------------------------------------------------------


@dataclass
class Report:
    """What the run found: hsim differences, sequences counted by each engine."""

    differences: list[str] = field(default_factory=list)
    os_sequences: int = 0
    hsim_sequences: int = 0


def depths_for(spec: PositionSpec) -> int:
    """Return the largest depth to try: MAX_DEPTH, or 2 past the deal's last card."""
    return min(MAX_DEPTH, 52 - len(spec.plays) + 2)


def count_openspiel(
    sc: Scenario, spec: PositionSpec, budget: int, report: Report
) -> tuple[dict[int, int], dict[int, str]]:
    """Return OpenSpiel's counts and divide breakdowns at depths 1, 2, ... (see the doc)."""
    state = os_state(os_params(sc.params), spec)
    counts: dict[int, int] = {}
    divides: dict[int, str] = {}
    for depth in range(1, depths_for(spec) + 1):
        split = os_divide(state, depth)
        counts[depth] = sum(split.values())
        divides[depth] = format_divide(split)
        report.os_sequences += counts[depth]
        if counts[depth] > budget:
            break
    return counts, divides


def check_hsim(
    name: str,
    spec: PositionSpec,
    rules_text: str,
    counts: dict[int, int],
    report: Report,
    os_divide_at: Callable[[int], dict[int, int]] | None,
    what: str,
) -> None:
    """Count with hsim; record a difference with both divide breakdowns."""
    rules = parse_rules(rules_text)
    for depth, want in counts.items():
        got = hsim_count(spec, rules, depth)
        report.hsim_sequences += got
        if got == want:
            continue
        lines = [
            f"DIFFERENCE {name} depth {depth}: {what} {want}, hsim {got}",
            f"  rules {rules_text}; position {spec.to_text()}",
            f"  hsim divide:      {format_divide(hsim_divide(spec, rules, depth))}",
        ]
        if os_divide_at is not None:
            lines.append(f"  OpenSpiel divide: {format_divide(os_divide_at(depth))}")
        lines.append(f"  reproduce: {reproduce(spec, rules_text, depth)}")
        report.differences.append("\n".join(lines))
        print(lines[0], file=sys.stderr)
        break  # the deeper depths differ too


def openspiel_entry(sc: Scenario, budget: int, report: Report) -> dict:
    """Build, count and check one OpenSpiel position; return its record."""
    params = os_params(sc.params)
    rules = oracle.hsim_rules(params)
    if rules.first_trick_points == "allowed":  # then first_trick_only_points has no effect
        rules = dataclasses.replace(rules, first_trick_only_points="any")
    rules_text = canonical(rules, "openspiel")
    spec = build_position(sc)
    counts, divides = count_openspiel(sc, spec, budget, report)
    state = os_state(params, spec)
    check_hsim(
        sc.name,
        spec,
        rules_text,
        counts,
        report,
        lambda d: os_divide(state, d),
        "OpenSpiel",
    )
    return {
        "name": sc.name,
        "source": "openspiel",
        "category": sc.category,
        "description": sc.description,
        "openspiel_params": params,
        "rules": rules_text,
        "position": spec.to_text(),
        "counts": {str(d): n for d, n in counts.items()},
        "divide": {str(d): s for d, s in divides.items()},
    }


def hand_entry(case: HandCase, report: Report) -> dict:
    """Check one hand-worked position (hsim; OpenSpiel for the option-off counts where it
    has the rules) and return its record; the counts written are the hand-worked ones."""
    spec = case.spec()
    assert canonical(parse_rules(case.rules), "classic") == case.rules, case.rules
    check_hsim(case.name, spec, case.rules, case.counts, report, None, "by hand")
    check_hsim(
        case.name + " (option off)",
        spec,
        case.rules_option_off,
        case.counts_option_off,
        report,
        None,
        "by hand",
    )
    off_params = os_params_matching(parse_rules(case.rules_option_off), len(spec.plays) >= 4)
    checked = None
    if off_params is not None:
        state = os_state(off_params, spec)
        for depth, want in case.counts_option_off.items():
            got = os_perft(state, depth)
            report.os_sequences += got
            if got != want:
                msg = (
                    f"DIFFERENCE {case.name} (option off) depth {depth}: by hand {want}, "
                    f"OpenSpiel {got}; OpenSpiel divide {format_divide(os_divide(state, depth))}"
                )
                report.differences.append(msg)
                print(msg, file=sys.stderr)
        checked = off_params
    return {
        "name": case.name,
        "source": "hand",
        "option": case.option,
        "description": case.description,
        "rules": case.rules,
        "position": spec.to_text(),
        "counts": {str(d): n for d, n in case.counts.items()},
        "derivation": case.derivation,
        "rules_option_off": case.rules_option_off,
        "counts_option_off": {str(d): n for d, n in case.counts_option_off.items()},
        "option_off_checked_by_openspiel": checked,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the data file to write")
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help="go one depth deeper while the last count is at most this",
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    report = Report()
    entries = []
    for sc in SCENARIOS:
        t = time.perf_counter()
        entry = openspiel_entry(sc, args.budget, report)
        entries.append(entry)
        counts = entry["counts"]
        print(
            f"{sc.name:36} depths 1-{len(counts):<2} max {max(counts.values()):>9,}"
            f"  {time.perf_counter() - t:5.1f} s"
        )
    for case in HAND_CASES:
        entries.append(hand_entry(case, report))
        print(f"{case.name:36} by hand, depths 1-{len(case.counts)}")
    version = importlib.metadata.version("open_spiel")
    data = {
        "about": [
            "Perft reference counts: the number of legal play sequences of each depth from "
            "each position (a sequence cannot run past the deal's last card).",
            "source 'openspiel': counted by OpenSpiel's hearts game only (depth-first over "
            "pyspiel states); 'divide' is OpenSpiel's count below each legal first card.",
            "source 'hand': options OpenSpiel lacks, counted by hand ('derivation'), with "
            "the counts when the option is off.",
            "position: hsim.model.notation.PositionSpec.to_text(); "
            "rules: hsim.model.rules.parse_rules. "
            "Regenerate with scripts/make_perft_data.py; checked by tests/test_perft_data.py.",
        ],
        "source": {
            "generator": "scripts/make_perft_data.py",
            "oracle": "OpenSpiel hearts (pyspiel)",
            "open_spiel_version": version,
            "parameter_mapping": "scripts/openspiel_oracle.py hsim_rules(), docs/openspiel.md",
            "budget": args.budget,
        },
        "positions": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    n_os = sum(e["source"] == "openspiel" for e in entries)
    n_depths = sum(len(e["counts"]) for e in entries)
    print(
        f"wrote {args.out}: {n_os} OpenSpiel positions, {len(HAND_CASES)} by hand, "
        f"{n_depths} (position, depth) counts; OpenSpiel {version}, "
        f"sequences counted: {report.os_sequences:,} by OpenSpiel, "
        f"{report.hsim_sequences:,} by hsim; "
        f"{time.perf_counter() - t0:.1f} s"
    )
    for d in report.differences:
        print(d)
    print(f"hsim differences: {len(report.differences)}")
    return 1 if report.differences else 0


if __name__ == "__main__":
    sys.exit(main())
