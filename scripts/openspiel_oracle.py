"""Differential harness: hsim's Hearts engine against OpenSpiel's ``hearts`` (a rules oracle).

One deal at a time, both engines get the same cards, the same passes and the same plays;
at every decision the set of legal cards (and of passable cards) must be identical, the
hands must agree after the pass, and at the end each seat's hsim ``deal_score`` must equal
OpenSpiel's points (26 - ``returns()``). Each finished deal is then scored again under
every combination of OpenSpiel's scoring parameters (``jd_bonus`` x
``avoid_all_tricks_bonus``): hsim's ``score_deal`` kernel on the recorded facts (points,
tricks, JD taker), OpenSpiel by replaying the deal's action list in a game loaded with
those parameters. The card, seat and rules mapping is the package's own
(:mod:`hsim.bridges.openspiel`, the only hsim module that imports OpenSpiel); it is
documented in ``docs/openspiel.md``.

Design notes
- OpenSpiel's action for a card is ``rank * 4 + suit`` with suits C, D, H, S; hsim's card
  is ``suit * 13 + rank`` with suits C, D, S, H (ranks 2..A = 0..12 in both).
- Seats: OpenSpiel's players 0..3 (N, E, S, W) play in increasing order, like hsim's
  seats, and a pass goes from player p to ``(p + direction) % 4`` with OpenSpiel's
  direction actions 1 Left, 2 Across, 3 Right (0 No Pass): the same seats as hsim's
  left (+1), across (+2) and right (-1).
- OpenSpiel draws the pass direction at its first chance node and accepts any of the four
  outcomes even with ``pass_cards=false``, so the harness always applies the direction
  explicitly there.
- Deals are random or built to reach rare rule branches (a trick-1 hand of only hearts and
  QS, a lead from only hearts and QS with hearts unbroken, moons with and without the JD).
  A built deal fixes the hands *after* the pass and chooses the passes that produce them,
  so it works in every direction. Branch counters (:data:`BRANCHES`) are computed by the
  harness from its own bookkeeping, not from either engine.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from hsim.bridges.openspiel import (  # noqa: F401 - the mapping, used here and by the tests
    CARD_TO_OS,
    DIRECTIONS,
    OS_DEFAULTS,
    OS_PASS_ACTION,
    OS_TO_CARD,
    PASS_SHIFT,
    PLAY_PARAMS,
    SCORE_PARAMS,
    hsim_rules,
    os_game,
    os_hands,
    os_mask,
)
from hsim.engine.hearts import score_deal
from hsim.engine.layout import D_DEAL_SCORE, D_JACK_DIAMONDS, D_POINTS, D_TRICKS
from hsim.model.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    HEARTS_MASK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    SPADES,
    SUIT_MASKS,
    TWO_CLUBS,
    card,
    cards_of,
    format_card,
    format_mask,
    mask_of,
)
from hsim.model.rules import Rules, canonical, parse_rules
from hsim.play.position import IllegalPlayError, Position

# -- OpenSpiel's parameters and encodings: hsim.bridges.openspiel (the package's bridge) --------

SCORE_COMBOS: tuple[tuple[bool, bool], ...] = tuple(itertools.product((False, True), repeat=2))
POINTS_MASK = HEARTS_MASK | 1 << QUEEN_SPADES
QS_BIT = 1 << QUEEN_SPADES
CLUBS_MASK = SUIT_MASKS[CLUBS]


def _flip(name: str) -> Callable[[Rules], Rules]:
    return lambda r: dataclasses.replace(r, **{name: not getattr(r, name)})


#: Deliberately wrong mappings, to show the harness detects them (tests, ``--mutate``).
MUTATIONS: dict[str, Callable[[Rules], Rules]] = {
    "flip_queen_breaks_hearts": _flip("queen_breaks_hearts"),
    "flip_lead_hearts_instead_of_queen": _flip("lead_hearts_instead_of_queen"),
    "first_trick_only_points_queen": lambda r: dataclasses.replace(
        r, first_trick_only_points="queen"
    ),
    "moon_requires_jack": lambda r: dataclasses.replace(r, moon_requires_jack=True),
    "no_trick_bonus_no_points": lambda r: dataclasses.replace(
        r, no_trick_bonus="no_points" if r.no_trick_bonus == "no_tricks" else "off"
    ),
}
#: hsim directions swapped against OpenSpiel's (a wrong seat/direction mapping).
DIRECTION_MUTATIONS = {"swap_left_right": {"left": "right", "right": "left"}}


# -- branch counters --------------------------------------------------------------------

#: Rule branches the harness counts (:func:`branch_minimums`: how often a run must hit each).
BRANCHES: dict[str, str] = {
    "lead_2c_forced": "trick 1 lead, 2C holder holds other clubs, can_lead_any_club off",
    "lead_any_club_choice": "trick 1 lead, 2C holder holds other clubs, can_lead_any_club on",
    "lead_any_club_used": "a club other than 2C led to trick 1",
    "trick1_points_blocked": "trick 1, void in clubs, holds points and other cards, "
    "no_pts_on_first_trick on",
    "trick1_points_allowed": "trick 1, void in clubs, holds points and other cards, "
    "no_pts_on_first_trick off",
    "trick1_void_only_points": "trick 1, void in clubs, hand of only hearts and QS, "
    "no_pts_on_first_trick on",
    "trick1_void_only_hearts_and_qs": "as trick1_void_only_points, holding QS and a heart",
    "trick1_void_only_hearts": "as trick1_void_only_points, holding hearts only",
    "points_on_trick1": "a heart or QS played to trick 1",
    "heart_lead_blocked": "lead, hearts unbroken, holds hearts and other cards, "
    "must_break_hearts on",
    "qs_played_heart_lead_blocked": "heart_lead_blocked after QS was played, qs_breaks_hearts off",
    "qs_breaks_hearts_used": "lead, hearts broken only by QS, holds hearts and other cards",
    "lead_only_hearts_unbroken": "lead, hearts unbroken, hand of only hearts",
    "lead_only_hearts_and_qs_unbroken": "lead, hearts unbroken, hand of only hearts and QS, "
    "must_break_hearts on",
    "lead_only_hearts_and_qs_qs_forced": "as above, can_lead_hearts_instead_of_qs off",
    "lead_only_hearts_and_qs_hearts_freed": "as above, can_lead_hearts_instead_of_qs on",
    "heart_lead_unbroken_allowed": "lead, no heart played yet, holds hearts and other cards, "
    "must_break_hearts off",
    "heart_led_unbroken": "a heart led before any heart was played, must_break_hearts off",
    "moon_with_jd": "a seat took all 26 points and the JD",
    "moon_without_jd": "a seat took all 26 points, another seat the JD",
    "moon_all_tricks": "the shooter won all 13 tricks (no-trick bonus must not apply)",
    "no_trick_seat": "a seat won no trick in a deal without a moon",
}


# -- deals --------------------------------------------------------------------------------

#: The kinds of deals, in the order a job cycles through them (half are plain random).
KIND_CYCLE = (
    "random",
    "only_points",
    "random",
    "lead_points",
    "random",
    "moon_jd",
    "random",
    "moon_no_jd",
)


@dataclass
class DealSpec:
    """A deal to play: the dealt hands, the passes (None: random), the seats' play roles.

    hands: card lists (hsim ints), seat 0 first, in dealing order. passes: masks, seat 0
    first. roles: seat -> "shooter" or "feeder" (others play uniformly at random).
    """

    kind: str
    hands: list[list[int]]
    passes: list[int] | None = None
    roles: dict[int, str] = field(default_factory=dict)


def _top(suit: int, n: int) -> list[int]:
    return [card(12 - k, suit) for k in range(n)]


def _fill(after: list[list[int]], rng: random.Random) -> list[list[int]]:
    """Deal the cards no seat holds yet at random to complete 13-card hands."""
    used = {c for h in after for c in h}
    rest = [c for c in range(52) if c not in used]
    rng.shuffle(rest)
    out = []
    for h in after:
        k = 13 - len(h)
        out.append(h + rest[:k])
        rest = rest[k:]
    return out


def _build(kind: str, rng: random.Random) -> tuple[list[list[int]], dict[int, str]]:
    """Return hands *after the pass* for a deal of ``kind``, and the seats' roles."""
    seats = [0, 1, 2, 3]
    rng.shuffle(seats)
    x = seats[0]
    after: list[list[int]] = [[], [], [], []]
    roles: dict[int, str] = {}
    hearts = _top(HEARTS, 13)
    if kind == "only_points":
        # Seat x is void in clubs with only hearts and QS: it must discard points to trick 1.
        pool = hearts if rng.random() < 0.2 else [*rng.sample(hearts, 12), QUEEN_SPADES]
        after[x] = list(pool)
    elif kind == "lead_points":
        # Seat x wins trick 1 with AC, then leads from only hearts (and QS), hearts unbroken.
        rest = [QUEEN_SPADES] if rng.random() < 0.75 else []
        after[x] = [card(12, CLUBS), *rest, *rng.sample(hearts, 12 - len(rest))]
    elif kind == "moon_jd":
        # The shooter holds top cards of each suit (AC and QS among them): it wins every
        # trick whatever the others play, and so takes all 26 points and the JD.
        c_clubs = rng.randint(1, 5)
        c_spades = rng.randint(3, 13 - c_clubs)
        c_diamonds = rng.randint(0, 13 - c_clubs - c_spades)
        c_hearts = 13 - c_clubs - c_spades - c_diamonds
        after[x] = (
            _top(CLUBS, c_clubs)
            + _top(SPADES, c_spades)
            + _top(DIAMONDS, c_diamonds)
            + _top(HEARTS, c_hearts)
        )
        roles[x] = "shooter"
    elif kind == "moon_no_jd":
        # The shooter (x) holds top clubs and spades (QS among them) and 2D; it wins
        # tricks 1-12 and leads 2D last. Seat a holds the other clubs and spades but one;
        # feeders b (JD, 5 diamonds, 7 hearts) and c (6 diamonds, 6 hearts, 1 club or
        # spade) discard hearts first and keep JD to the end, so trick 13 (no points, the
        # JD) goes to b or c: a moon without the JD.
        a, b, c = seats[1:]
        c_clubs = rng.randint(1, 9)
        after[x] = _top(CLUBS, c_clubs) + _top(SPADES, 12 - c_clubs) + [card(0, DIAMONDS)]
        black = [cd for cd in range(52) if cd // 13 in (CLUBS, SPADES) and cd not in after[x]]
        rng.shuffle(black)
        diamonds = [cd for cd in _top(DIAMONDS, 13) if cd not in (JACK_DIAMONDS, after[x][-1])]
        rng.shuffle(diamonds)
        hs = list(hearts)
        rng.shuffle(hs)
        after[a] = black[:13]
        after[b] = [JACK_DIAMONDS] + diamonds[:5] + hs[:7]
        after[c] = diamonds[5:] + hs[7:] + black[13:]
        roles.update({x: "shooter", b: "feeder", c: "feeder"})
    elif kind != "random":
        raise ValueError(f"unknown deal kind {kind!r}; use one of {sorted(set(KIND_CYCLE))}")
    return _fill(after, rng), roles


def make_deal(kind: str, direction: str, rng: random.Random) -> DealSpec:
    """Return a deal of ``kind`` for ``direction``: random, or built for a rare branch.

    A built deal fixes the hands after the pass; its passes take 3 random cards of each
    receiver's final hand, so the dealt hands are ``final - received + passed``.
    """
    after, roles = _build(kind, rng)
    if kind == "random" or direction == "hold":
        return DealSpec(kind, after, None, roles)
    shift = PASS_SHIFT[direction]
    passes = [mask_of(rng.sample(after[(s + shift) % 4], 3)) for s in range(4)]
    hands = []
    for s in range(4):
        received = passes[(s - shift) % 4]
        hand = [c for c in after[s] if not received >> c & 1] + list(cards_of(passes[s]))
        rng.shuffle(hand)
        hands.append(hand)
    return DealSpec(kind, hands, passes, roles)


# -- play policies -----------------------------------------------------------------------


def _above(c: int) -> int:
    """Return the mask of the cards of ``c``'s suit ranked above ``c``."""
    return SUIT_MASKS[c // 13] & ~((2 << c) - 1)


def _choose(
    role: str | None, legal: int, led: int, played: int, hand: int, rng: random.Random
) -> int:
    """Return the card to play: uniform at random, or as a shooter or a feeder.

    A shooter leads a card that wins (the highest unplayed card of its suit), the 2D
    last, and follows with its highest card of the led suit; a feeder discards hearts and
    QS first and the JD last.
    """
    cards = list(cards_of(legal))
    if role == "shooter":
        if led < 0:
            known = hand | played
            winners = [  # the highest unplayed card of its suit; 2D is kept for last
                c for c in cards if c != card(0, DIAMONDS) and not _above(c) & ~known
            ]
            if winners:
                return rng.choice(winners)
        elif legal & SUIT_MASKS[led]:
            return cards[-1]
    elif role == "feeder" and led >= 0 and not legal & SUIT_MASKS[led]:
        points = [c for c in cards if POINTS_MASK >> c & 1]
        if points:
            return rng.choice(points)
        others = [c for c in cards if c != JACK_DIAMONDS]
        if others:
            return rng.choice(others)
    return rng.choice(cards)


# -- one deal ----------------------------------------------------------------------------


class Disagreement(Exception):
    """hsim and OpenSpiel differ; the message says where and how."""


@dataclass
class Repro:
    """A minimal reproduction of a disagreement: the deal, the passes, the plays so far.

    The plays stop at the first difference: replaying them puts both engines at the
    decision (or the score) where they disagree. ``os_actions`` is OpenSpiel's whole
    action list up to there (direction, 52 dealt cards in dealing order, passes, plays).
    """

    what: str
    params: dict[str, bool]
    rules: str
    direction: str
    hands: list[str]
    passes: list[str] | None
    plays: list[int]
    os_actions: list[int]

    def replay_hsim(self) -> Position:
        """Return hsim's position at the disagreement (the deal, the passes, the plays)."""
        p = Position.from_hands(self.hands, self.direction, parse_rules(self.rules))
        if self.passes:
            p.pass_cards(self.passes)
        p.play(self.plays)
        return p

    def replay_openspiel(self) -> pyspiel.State:
        """Return OpenSpiel's state at the disagreement (its action list replayed)."""
        state = os_game(self.params).new_initial_state()
        for a in self.os_actions:
            state.apply_action(a)
        return state

    def __str__(self) -> str:
        plays = " ".join(format_card(c) for c in self.plays)
        lines = [
            f"DISAGREEMENT: {self.what}",
            f"  openspiel params: {self.params}",
            f"  hsim rules: {self.rules}",
            f"  direction: {self.direction}",
            f"  hands: {self.hands}",
            f"  passes: {self.passes}",
            f"  plays ({len(self.plays)}): {plays}",
            "  reproduce in hsim:",
            "    from hsim.model.cards import format_mask",
            "    from hsim.play.position import Position",
            "    from hsim.model.rules import parse_rules",
            f"    p = Position.from_hands({self.hands}, pass_direction={self.direction!r},"
            f" rules=parse_rules({self.rules!r}))",
        ]
        if self.passes:
            lines.append(f"    p.pass_cards({self.passes})")
        lines += [
            f"    p.play({plays!r})",
            "    print(p.to_act, format_mask(p.legal()), p.rows)",
            "  reproduce in OpenSpiel:",
            f"    s = pyspiel.load_game('hearts', {self.params}).new_initial_state()",
            f"    for a in {self.os_actions}: s.apply_action(a)",
        ]
        return "\n".join(lines)


@dataclass
class DealResult:
    """What one deal did: the branches it hit and the score checks it made."""

    branches: Counter
    score_checks: int
    repro: Repro | None = None


def _branches_at(
    params: Mapping[str, bool],
    trick: int,
    led: int,
    hand: int,
    heart_played: bool,
    qs_played: bool,
    hit: Counter,
) -> None:
    """Count the rule branches of a decision (harness bookkeeping, neither engine's)."""
    if trick == 0 and led < 0:
        if hand & CLUBS_MASK & ~1:
            hit["lead_any_club_choice" if params["can_lead_any_club"] else "lead_2c_forced"] += 1
    elif trick == 0:
        if not hand & SUIT_MASKS[led]:
            points, safe = hand & POINTS_MASK, hand & ~POINTS_MASK
            if params["no_pts_on_first_trick"]:
                if not safe:
                    hit["trick1_void_only_points"] += 1
                    if hand & QS_BIT and hand & HEARTS_MASK:
                        hit["trick1_void_only_hearts_and_qs"] += 1
                    elif not hand & QS_BIT:
                        hit["trick1_void_only_hearts"] += 1
                elif points:
                    hit["trick1_points_blocked"] += 1
            elif points and safe:
                hit["trick1_points_allowed"] += 1
    elif led < 0:
        hearts, others = hand & HEARTS_MASK, hand & ~HEARTS_MASK
        broken = heart_played or (qs_played and params["qs_breaks_hearts"])
        if hearts and not broken and not others:
            hit["lead_only_hearts_unbroken"] += 1
        if params["must_break_hearts"] and hearts and not broken and others == QS_BIT:
            hit["lead_only_hearts_and_qs_unbroken"] += 1
            freed = params["can_lead_hearts_instead_of_qs"]
            hit[
                "lead_only_hearts_and_qs_hearts_freed"
                if freed
                else "lead_only_hearts_and_qs_qs_forced"
            ] += 1  # noqa: E501
        if hearts and others and others != QS_BIT and not heart_played:
            if not params["must_break_hearts"]:
                hit["heart_lead_unbroken_allowed"] += 1
            elif broken:
                hit["qs_breaks_hearts_used"] += 1
            else:
                hit["heart_lead_blocked"] += 1
                if qs_played:
                    hit["qs_played_heart_lead_blocked"] += 1


def _hsim_side(params: Mapping[str, bool], direction: str, mutation: str | None):
    """Return the hsim rules function and direction, with ``mutation`` applied."""
    if mutation is None:
        return hsim_rules, direction
    if mutation in MUTATIONS:
        return (lambda p: MUTATIONS[mutation](hsim_rules(p))), direction
    if mutation in DIRECTION_MUTATIONS:
        return hsim_rules, DIRECTION_MUTATIONS[mutation].get(direction, direction)
    raise ValueError(f"unknown mutation {mutation!r}")


def play_deal(
    params: Mapping[str, bool],
    direction: str,
    spec: DealSpec,
    rng: random.Random,
    mutation: str | None = None,
) -> DealResult:
    """Play ``spec`` in both engines and compare them at every step (see the module doc).

    params: OpenSpiel's parameters (missing: its defaults). direction: left, right,
    across or hold. mutation: a key of :data:`MUTATIONS` or :data:`DIRECTION_MUTATIONS`
    applied to the hsim side only. Returns the branches hit and, on a disagreement, a
    :class:`Repro` (the deal stops there).
    """
    params = {**OS_DEFAULTS, **params}
    rules_for, hsim_direction = _hsim_side(params, direction, mutation)
    rules = rules_for(params)
    hit: Counter = Counter()
    plays: list[int] = []
    passes: list[int] | None = None
    state = os_game(params).new_initial_state()
    try:
        p = Position.from_hands(spec.hands, pass_direction=hsim_direction, rules=rules)
        state.apply_action(OS_PASS_ACTION[direction])
        for k in range(52):  # OpenSpiel deals card k to player k % 4
            state.apply_action(CARD_TO_OS[spec.hands[k % 4][k // 4]])
        if direction != "hold":
            if p.phase != "pass":
                raise Disagreement(f"hsim phase {p.phase!r}, OpenSpiel asks for a pass")
            passes = spec.passes or [mask_of(rng.sample(h, 3)) for h in spec.hands]
            for s in range(4):
                held = p.hand(s)
                for c in cards_of(passes[s]):
                    if state.current_player() != s:
                        raise Disagreement(
                            f"OpenSpiel asks player {state.current_player()} to pass, not seat {s}"
                        )
                    # OpenSpiel passes one card at a time: any card still held.
                    allowed = os_mask(state.legal_actions())
                    if allowed != held:
                        raise Disagreement(
                            f"seat {s} pass: OpenSpiel allows "
                            f"[{format_mask(allowed)}], hsim [{format_mask(held)}]"
                        )
                    state.apply_action(CARD_TO_OS[c])
                    held &= ~(1 << c)
            p.pass_cards(passes)
        hands = os_hands(state)
        if p.phase != "play" or hands != [p.hand(s) for s in range(4)]:
            raise Disagreement(
                f"before trick 1: hsim phase {p.phase!r}, hands OpenSpiel "
                f"{[format_mask(h) for h in hands]}, hsim "
                f"{[format_mask(p.hand(s)) for s in range(4)]}"
            )
        _play(p, state, params, spec, rng, hands, plays, hit)
        checks = _check_scores(p, state, params, rules_for, hit)
    except (Disagreement, IllegalPlayError, pyspiel.SpielError) as e:
        repro = Repro(
            what=f"{type(e).__name__}: {e}",
            params=params,
            rules=canonical(rules),
            direction=hsim_direction,
            hands=[format_mask(mask_of(h)) for h in spec.hands],
            passes=None if passes is None else [format_mask(m) for m in passes],
            plays=plays,
            os_actions=[int(a) for a in state.history()],
        )
        return DealResult(hit, 0, repro)
    return DealResult(hit, checks)


def _play(
    p: Position,
    state: pyspiel.State,
    params: Mapping[str, bool],
    spec: DealSpec,
    rng: random.Random,
    hands: list[int],
    plays: list[int],
    hit: Counter,
) -> None:
    """Play the 52 cards in both engines, comparing the seat to act and the legal cards."""
    played = 0
    heart_played = qs_played = False
    led = -1
    for n in range(52):
        seat, trick = p.to_act, n // 4
        if p.phase != "play" or state.current_player() != seat:
            raise Disagreement(
                f"play {n}: hsim phase {p.phase!r}, seat {seat} to act; "
                f"OpenSpiel player {state.current_player()}"
            )
        legal = p.legal()
        os_legal = os_mask(state.legal_actions())
        if os_legal != legal:
            raise Disagreement(
                f"seat {seat} legal cards: OpenSpiel [{format_mask(os_legal)}], "
                f"hsim [{format_mask(legal)}]"
            )
        hand = hands[seat]
        _branches_at(params, trick, led, hand, heart_played, qs_played, hit)
        c = _choose(spec.roles.get(seat), legal, led, played, hand, rng)
        if n == 0 and c != TWO_CLUBS:
            hit["lead_any_club_used"] += 1
        if trick == 0 and POINTS_MASK >> c & 1:
            hit["points_on_trick1"] += 1
        unbroken_heart_lead = led < 0 and trick > 0 and c // 13 == HEARTS and not heart_played
        if unbroken_heart_lead and not params["must_break_hearts"] and hand & ~HEARTS_MASK:
            hit["heart_led_unbroken"] += 1
        plays.append(c)
        p.play(c)
        state.apply_action(CARD_TO_OS[c])
        hands[seat] &= ~(1 << c)
        played |= 1 << c
        heart_played |= c // 13 == HEARTS
        qs_played |= c == QUEEN_SPADES
        led = -1 if n % 4 == 3 else c // 13 if n % 4 == 0 else led


def _check_scores(
    p: Position,
    state: pyspiel.State,
    params: Mapping[str, bool],
    rules_for: Callable[[Mapping[str, bool]], Rules],
    hit: Counter,
) -> int:
    """Compare the deal scores, then rescore under every scoring combination.

    Returns the number of score comparisons made.
    """
    if not state.is_terminal() or p.phase != "deal_over":
        raise Disagreement(
            f"after 52 cards: hsim phase {p.phase!r}, OpenSpiel terminal {state.is_terminal()}"
        )
    rows = p.rows
    hsim_scores = [int(x) for x in rows[:, D_DEAL_SCORE]]
    os_scores = [26 - round(r) for r in state.returns()]
    if hsim_scores != os_scores:
        raise Disagreement(
            f"deal scores: OpenSpiel (26 - returns) {os_scores}, hsim deal_score {hsim_scores}"
        )
    points = rows[:, D_POINTS].astype(np.int64)
    tricks = rows[:, D_TRICKS].astype(np.int64)
    jack_taker = int(np.argmax(rows[:, D_JACK_DIAMONDS]))
    shooter = int(np.argmax(points)) if points.max() == 26 else -1
    if shooter >= 0:
        hit["moon_with_jd" if jack_taker == shooter else "moon_without_jd"] += 1
        if tricks[shooter] == 13:
            hit["moon_all_tricks"] += 1
    elif (tricks == 0).any():
        hit["no_trick_seat"] += 1
    # Every scoring combination: hsim's kernel on the facts, OpenSpiel on a replay.
    actions = state.history()
    zeros = np.zeros(4, np.int64)
    for jd, avoid in SCORE_COMBOS:
        variant = {**params, "jd_bonus": jd, "avoid_all_tricks_bonus": avoid}
        deal_score = np.zeros(4, np.int64)
        new_scores = np.zeros(4, np.int64)
        score_deal(
            rules_for(variant).to_array(),
            points,
            tricks,
            jack_taker,
            zeros,
            0,
            deal_score,
            new_scores,
        )
        replay = os_game(variant).new_initial_state()
        for a in actions:
            replay.apply_action(a)
        want = [26 - round(r) for r in replay.returns()]
        got = [int(x) for x in deal_score]
        if got != want:
            raise Disagreement(
                f"score_deal with jd_bonus={jd}, avoid_all_tricks_bonus={avoid}: OpenSpiel "
                f"{want}, hsim {got} (points {points.tolist()}, tricks {tricks.tolist()}, "
                f"JD taker {jack_taker})"
            )
    return len(SCORE_COMBOS)


# -- jobs and grids ----------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """``deals`` deals of one option combination and pass direction, seeded."""

    play: tuple[bool, ...]  # values of PLAY_PARAMS
    direction: str
    deals: int
    seed: int
    mutation: str | None = None
    kinds: tuple[str, ...] = KIND_CYCLE


@dataclass
class Summary:
    """The totals of a run: deals, combinations, score checks, branches, disagreements."""

    deals: int = 0
    combos: set = field(default_factory=set)
    score_checks: int = 0
    branches: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    repros: list[Repro] = field(default_factory=list)
    disagreements: int = 0
    seconds: float = 0.0

    def add(self, other: Summary) -> None:
        """Add ``other``'s totals (repros: the first few are kept)."""
        self.deals += other.deals
        self.combos |= other.combos
        self.score_checks += other.score_checks
        self.branches.update(other.branches)
        self.kinds.update(other.kinds)
        self.disagreements += other.disagreements
        self.repros += other.repros[: max(0, 20 - len(self.repros))]
        self.seconds += other.seconds


def run_job(job: Job) -> Summary:
    """Play one job's deals (cycling through ``job.kinds``) and return its totals.

    Deterministic: the deals and plays depend only on the job (seed, options, direction).
    """
    t0 = time.perf_counter()
    params = dict(zip(PLAY_PARAMS, job.play, strict=True))
    rng = random.Random(f"{job.seed}/{job.play}/{job.direction}")
    out = Summary()
    start = rng.randrange(len(job.kinds))  # so short jobs still play every kind in a grid
    for i in range(job.deals):
        kind = job.kinds[(i + start) % len(job.kinds)]
        jd, avoid = rng.choice(SCORE_COMBOS)
        deal_params = {**params, "jd_bonus": jd, "avoid_all_tricks_bonus": avoid}
        # A hold deal is OpenSpiel's "No Pass" outcome with pass_cards on or off.
        deal_params["pass_cards"] = job.direction != "hold" or i % 2 == 0
        spec = make_deal(kind, job.direction, rng)
        result = play_deal(deal_params, job.direction, spec, rng, job.mutation)
        out.deals += 1
        out.kinds[kind] += 1
        out.score_checks += result.score_checks
        out.branches.update(result.branches)
        if result.repro is not None:
            out.disagreements += 1
            if len(out.repros) < 5:
                out.repros.append(result.repro)
    out.combos = {(job.play, job.direction)}
    out.seconds = time.perf_counter() - t0
    return out


def grid(
    deals: int,
    seed: int,
    directions: Sequence[str] = DIRECTIONS,
    mutation: str | None = None,
) -> list[Job]:
    """Return one job per combination of :data:`PLAY_PARAMS` and pass direction."""
    return [
        Job(play, d, deals, seed, mutation)
        for play in itertools.product((False, True), repeat=len(PLAY_PARAMS))
        for d in directions
    ]


def run_jobs(
    jobs: Sequence[Job], workers: int = 1, progress: Callable[[Summary], None] | None = None
) -> Summary:
    """Run ``jobs`` on ``workers`` processes (1: in this process) and add up the totals."""
    total = Summary()
    if workers <= 1:
        results: Iterable[Summary] = map(run_job, jobs)
        for r in results:
            total.add(r)
            if progress:
                progress(r)
        return total
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for r in pool.map(run_job, jobs, chunksize=max(1, len(jobs) // (8 * workers))):
            total.add(r)
            if progress:
                progress(r)
    return total


def branch_minimums(deals: int) -> dict[str, int]:
    """Return the minimum hit count of each branch (:data:`BRANCHES`) for a full-grid run.

    deals: the total number of deals of the run (every combination, every direction).
    The rarest branch (a trick-1 hand of only hearts, with no_pts_on_first_trick on) is
    hit in about 1% of the deals of :data:`KIND_CYCLE`; the minimum is a quarter of that,
    so it shows the branch is exercised without ever being a flaky bound.
    """
    k = max(1, deals // 400)
    return {name: k for name in BRANCHES}
