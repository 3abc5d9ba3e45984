"""The bots' blind spots as kinds of positions, generated from seeded random deals.

Two kinds, each at least 2,000 positions from random deals, and the two positions of
the bug reports that found them:

- *queen drop*: the seat to act holds the QS and may play it on a trick it cannot win
  with it (a discard, or a spade under an AS or KS already played). Every bot from
  ``duck`` up plays the QS, unless its documented moon plan says otherwise (heuristic:
  shooting, or defending against a moon; pimc: the trick's winner so far holds every
  point taken).
- *points on trick 1*: trick 1 already carries points (a hand of only points had to
  discard them, or ``first_trick_points=allowed``) and the seat to act holds a card that
  does not beat the winning card, and one that does. Every bot plays a card that does
  not beat it (heuristic: unless shooting).

The bots are asked through their compiled ``play`` on the engine's arrays (what a
tournament does); pimc at a cheap setting, as the rules above are made before its search.
"""

from __future__ import annotations

import random

import pytest

from hsim.engine.hearts import card_points, legal_plays, play_card
from hsim.engine.layout import (
    P_LED_SUIT,
    P_N_PLAYS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_POINTS,
    P_TO_ACT,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    V_HAND,
)
from hsim.model.cards import QUEEN_SPADES, SUIT_MASKS, format_card
from hsim.model.rules import Rules
from hsim.play.choose import decide
from hsim.play.position import Position
from hsim.strategies import heuristic
from hsim.strategy.loader import load

QS_BIT = 1 << QUEEN_SPADES
ALL = (1 << 52) - 1
BOTS = ("duck", "heuristic", "pimc(worlds=2,playouts=1)")
N_POSITIONS = 2000


def winner(public) -> tuple[int, int]:
    """Return (winning card, its seat) of the current trick."""
    n = int(public[P_TRICK_LEN])
    led = int(public[P_LED_SUIT])
    best, seat = -1, -1
    total = int(public[P_N_PLAYS])
    for k in range(total - n, total):
        c = int(public[P_PLAY_CARD + k])
        if c // 13 == led and c > best:
            best, seat = c, int(public[P_PLAY_SEAT + k])
    return best, seat


def queen_drop(public, legal: int) -> bool:
    """Whether the seat to act may play the QS on a trick the QS cannot win."""
    if not legal & QS_BIT or public[P_TRICK_LEN] == 0:
        return False
    best, _ = winner(public)
    return int(public[P_LED_SUIT]) != 2 or best > QUEEN_SPADES


def trick1_points(public, legal: int) -> bool:
    """Whether trick 1 carries points and the seat holds cards under and over the winner."""
    if public[P_TRICK] != 0 or public[P_TRICK_LEN] == 0:
        return False
    if card_points(int(public[P_TRICK_CARDS])) == 0:
        return False
    best, _ = winner(public)
    suit = SUIT_MASKS[int(public[P_LED_SUIT])]
    over = legal & suit & ~((1 << best) - 1)
    return bool(over) and bool(legal & ~over)


def excused(spec: str, public, private, legal: int) -> bool:
    """Whether the bot's documented moon plan allows it to take the points here."""
    name = spec.partition("(")[0]
    if name == "heuristic":
        bot = load("heuristic")
        hand = int(private[V_HAND])
        out = ALL & ~int(public[P_PLAYED]) & ~hand
        if heuristic.shooting(public, private, hand, out, bot.params):
            return True
        return heuristic.moon_threat(public, int(private[0]), bot.params) >= 0
    if name == "pimc":
        _, seat = winner(public)
        points = [int(public[P_POINTS + s]) for s in range(4)]
        return sum(points) > 0 and points[seat] == sum(points)
    return False


def random_deal(rng: random.Random) -> list[list[int]]:
    cards = list(range(52))
    rng.shuffle(cards)
    return [cards[13 * s : 13 * s + 13] for s in range(4)]


def queen_drop_positions(n: int, seed: int, rules: Rules):
    """Yield (position, seat) for ``n`` queen-drop positions of random deals, random play
    in which the QS holder keeps the queen while it can (so several arise per deal)."""
    rng = random.Random(seed)
    rules_array = rules.to_array()
    found = 0
    while found < n:
        p = Position.from_hands(random_deal(rng), rules=rules)
        st = p.state
        for _ in range(51):
            seat = int(st.public[P_TO_ACT])
            hand = int(st.private[seat, V_HAND])
            legal = int(legal_plays(st.public, rules_array, hand))
            if queen_drop(st.public, legal):
                yield p, seat, legal
                found += 1
            choice = legal & ~QS_BIT or legal
            spades = choice & SUIT_MASKS[2]
            if st.public[P_TRICK_LEN] == 0 and spades and rng.random() < 0.5:
                choice = spades  # spade leads bring out the AS and KS
            cards = [c for c in range(52) if choice >> c & 1]
            play_card(st.public, st.private, seat, rng.choice(cards))


def trick1_positions(n: int, seed: int, rules: Rules, only_points: bool):
    """Yield (position, seat, legal) for ``n`` positions of trick 1 carrying points.

    A random deal where one seat (not the 2C holder) is void in clubs: with
    ``only_points`` it holds only hearts and the QS; it plays a point card to trick 1.
    """
    rng = random.Random(seed)
    rules_array = rules.to_array()
    found = 0
    hearts_qs = [*range(39, 52), QUEEN_SPADES]
    while found < n:
        hands = random_deal(rng)
        opener = next(s for s in range(4) if 0 in hands[s])
        void = (opener + rng.randint(1, 2)) % 4
        if only_points:
            mine = set(rng.sample(hearts_qs, 13))
        else:
            keep = [c for c in hands[void] if c >= 13]
            others = [c for c in range(13, 52) if c not in keep]
            mine = set(keep + rng.sample(others, 13 - len(keep)))
        rest = [c for c in range(52) if c not in mine]
        rng.shuffle(rest)
        rest.remove(0)
        hands = []
        for s in range(4):
            if s == void:
                hands.append(sorted(mine))
            else:
                hands.append([0] if s == opener else [])
        for s in range(4):
            while s != void and len(hands[s]) < 13:
                hands[s].append(rest.pop())
        p = Position.from_hands(hands, rules=rules)
        st = p.state
        for _ in range(4):
            seat = int(st.public[P_TO_ACT])
            hand = int(st.private[seat, V_HAND])
            legal = int(legal_plays(st.public, rules_array, hand))
            if trick1_points(st.public, legal):
                yield p, seat, legal
                found += 1
            points = legal & (QS_BIT | SUIT_MASKS[3])
            choice = points if seat == void and points else legal
            cards = [c for c in range(52) if choice >> c & 1]
            play_card(st.public, st.private, seat, rng.choice(cards))


def ask(bot, p, seat: int, legal: int) -> int:
    st = p.state
    return int(bot.compiled.play(st.public, st.private[seat], legal, st.rngs[1 + seat], bot.params))


@pytest.mark.parametrize("spec", BOTS)
def test_queen_drop_positions(spec):
    bot = load(spec)
    checked = excused_n = 0
    for rules, seed in (
        (Rules(), 1),
        (Rules(queen_breaks_hearts=True, first_trick_only_points="any"), 2),
    ):
        for p, seat, legal in queen_drop_positions(N_POSITIONS // 2, seed, rules):
            if excused(spec, p.state.public, p.state.private[seat], legal):
                excused_n += 1
                continue
            card = ask(bot, p, seat, legal)
            assert card == QUEEN_SPADES, f"{spec} played {format_card(card)} at {p!r}"
            checked += 1
    assert checked >= N_POSITIONS * 0.9 > excused_n


@pytest.mark.parametrize("spec", BOTS)
def test_trick1_points_positions(spec):
    bot = load(spec)
    checked = 0
    cases = (
        (Rules(first_trick_points="allowed"), False, 3),
        (Rules(first_trick_only_points="any"), True, 4),
        (Rules(), True, 5),
    )
    for rules, only_points, seed in cases:
        for p, seat, legal in trick1_positions(700, seed, rules, only_points):
            if excused(spec, p.state.public, p.state.private[seat], legal):
                continue
            card = ask(bot, p, seat, legal)
            best, _ = winner(p.state.public)
            led = int(p.state.public[P_LED_SUIT])
            assert card // 13 != led or card < best, f"{spec} won with {format_card(card)} at {p!r}"
            checked += 1
    assert checked >= N_POSITIONS


ISSUE_QS = (
    "deal=2C5C6CKS3D4D5D6D7D2H3H4H5H/3C7C8C5S6S8D9DTDJD6H7H8H9H/"
    "4C9CTCASQS9SQDKDADTHJHQHKH/ACJCQCKC2S3S4S7S8STSJS2DAH;plays=2C 3C 4C AC 2S KS 5S"
)
ISSUE_TRICK1 = (
    "deal=2C6C7C2S3S4S5S2D3D4D5D6D7D/QS2H3H4H5H6H7H8H9HTHJHQHKH/"
    "5C8C9CTC6S7S8S8D9DTDJDQDAH/3C4CJCQCKCAC9STSJSKSASKDAD;plays=2C QS 5C"
)


@pytest.mark.parametrize("spec", ["duck", "heuristic", "pimc"])
def test_the_reported_positions(spec):
    assert str(decide(spec, Position.from_text(ISSUE_QS))) == "QS"
    # seat 1 had only the QS and hearts; last, seat 3 ducks under the 5C with 3C or 4C
    assert str(decide(spec, Position.from_text(ISSUE_TRICK1))) in ("3C", "4C")
