"""A brute-force Hearts deal for perft tests, written from docs/rules.md A1.3-A1.6 with the
default options and no engine code: for any number of seats (3 to 6), a state is a dict
of the hands (sets of cards), the current trick's cards and seats, the seat to act,
whether hearts are broken, and the trick number."""

from __future__ import annotations

from hsim.model.cards import parse_card

QS = parse_card("QS")


def start(hands, leader: int) -> dict:
    """Return the state before trick 1: ``hands`` (card lists), ``leader`` to act."""
    return dict(hands=[set(h) for h in hands], cards=[], seats=[], to_act=leader,
                broken=False, trick_no=0)  # fmt: skip


def legal(state: dict, opening: int) -> set[int]:
    """The legal cards of the seat to act: ``opening`` (the lowest club dealt) leads trick
    1; follow suit; no points on trick 1 while holding another card, and QS when only
    points are held; no heart lead while unbroken unless only hearts are held (a hand of
    hearts and the QS leads the QS)."""
    hand = state["hands"][state["to_act"]]
    first_trick = state["trick_no"] == 0
    if not state["cards"]:
        if first_trick:
            return {c for c in hand if c == opening}
        if state["broken"]:
            return set(hand)
        others = {c for c in hand if c // 13 != 3}
        if others == {QS}:
            return others
        return others or set(hand)
    led = state["cards"][0] // 13
    follow = {c for c in hand if c // 13 == led}
    if follow:
        return follow
    if first_trick:
        safe = {c for c in hand if c // 13 != 3 and c != QS}
        if safe:
            return safe
        if QS in hand:
            return {QS}
    return set(hand)


def play(state: dict, card: int, n: int) -> dict:
    """Return the state after the seat to act plays ``card`` among ``n`` seats."""
    hands = [set(h) for h in state["hands"]]
    seat = state["to_act"]
    hands[seat].discard(card)
    cards = state["cards"] + [card]
    seats = state["seats"] + [seat]
    broken = state["broken"] or card // 13 == 3
    if len(cards) < n:
        return dict(hands=hands, cards=cards, seats=seats, to_act=(seat + 1) % n,
                    broken=broken, trick_no=state["trick_no"])  # fmt: skip
    led = cards[0] // 13
    winner = max((c, s) for c, s in zip(cards, seats, strict=True) if c // 13 == led)[1]
    return dict(hands=hands, cards=[], seats=[], to_act=winner, broken=broken,
                trick_no=state["trick_no"] + 1)  # fmt: skip


def count(state: dict, depth: int, opening: int, n: int, tricks: int) -> int:
    """Return the number of card sequences of ``depth`` plays from ``state`` (perft)."""
    if depth == 0:
        return 1
    if state["trick_no"] >= tricks:
        return 0
    return sum(
        count(play(state, c, n), depth - 1, opening, n, tricks) for c in legal(state, opening)
    )
