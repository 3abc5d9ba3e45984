r"""A plain-Python Hearts bot to copy and change: ``AvoidPoints``.

Play it against the built-in bots (from the checkout's folder):

    hsim tournament --players examples/plain_bot.py:AvoidPoints,duck,duck,duck \
        --games 200 --out results/mybot
    hsim report results/mybot

It passes its three most dangerous cards, follows with the highest card that does not
win the trick, and when void dumps the queen of spades, then its highest heart, then its
highest card. docs/strategies.md lists every field of the observation.
"""

from __future__ import annotations

from hsim.model.cards import (
    HEARTS,
    QUEEN_SPADES,
    SPADES,
    cards_of,
    mask_of,
    rank_of,
    suit_of,
)
from hsim.strategy import Param


def danger(card: int) -> int:
    """How much this bot wants to get rid of ``card`` (higher: sooner)."""
    if card == QUEEN_SPADES:
        return 100
    if suit_of(card) == SPADES and rank_of(card) > rank_of(QUEEN_SPADES):
        return 90  # the AS and KS can be made to take the queen
    if suit_of(card) == HEARTS:
        return 40 + rank_of(card)
    return rank_of(card)


class AvoidPoints:
    """Takes as few penalty points as it can, one trick at a time (Hearts only).

    margin: how many ranks under the winning card a follow must stay (0: any lower card).
    """

    games = ("hearts",)
    params = {"margin": Param(0, int, 0, 12)}

    def __init__(self, margin: int = 0) -> None:
        self.margin = margin

    def new_game(self, seat: int, rules) -> None:
        """Called at the start of every game; this bot keeps nothing between games."""

    def pass_cards(self, obs, rng) -> int:
        """Return a mask of the 3 held cards with the highest :func:`danger`."""
        worst = sorted(cards_of(obs.hand), key=danger, reverse=True)[:3]
        return mask_of(worst)

    def play(self, obs, legal: int, rng) -> int:
        """Return one card of the mask ``legal``."""
        cards = list(cards_of(legal))
        trick = obs.trick  # [(seat, card), ...] so far this trick, in play order
        if not trick:  # leading: its lowest card
            return min(cards, key=lambda c: (rank_of(c), suit_of(c)))
        led = suit_of(trick[0][1])
        winning = max(rank_of(c) for _, c in trick if suit_of(c) == led)
        following = [c for c in cards if suit_of(c) == led]
        if following:
            under = [c for c in following if rank_of(c) < winning - self.margin]
            if under:
                return max(under, key=rank_of)  # the highest card that still ducks
            if len(trick) == obs.n_seats - 1 and not any(
                suit_of(c) == HEARTS or c == QUEEN_SPADES for _, c in trick
            ):
                return max(following, key=rank_of)  # last to play a clean trick: win high
            return min(following, key=rank_of)
        return max(cards, key=danger)  # void in the suit led: dump the worst card
