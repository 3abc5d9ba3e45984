"""A bridge to OpenSpiel's ``hearts`` (the optional extra ``openspiel``): here the
card, seat and rules mapping and what a seat may see of an OpenSpiel deal; each direction
of play in a module of its own:

- :mod:`hsim.bridges.openspiel.strategies` — OpenSpiel's bots as hsim strategies
  (``--players openspiel:ismcts``);
- :mod:`hsim.bridges.openspiel.bot` — an hsim strategy as an OpenSpiel bot
  (:class:`~hsim.bridges.openspiel.bot.HsimBot`).

This package is the only part of hsim that imports ``pyspiel``; docs/openspiel.md
documents the mapping and the engines' differences.

Design notes
- Cards: OpenSpiel's action for a card is ``rank * 4 + suit`` with suits C, D, H, S;
  hsim's card is ``suit * 13 + rank`` with suits C, D, S, H (ranks 2..A = 0..12 in both):
  :data:`OS_TO_CARD`, :data:`CARD_TO_OS`.
- Seats and directions: OpenSpiel's players 0..3 play in increasing order like hsim's
  seats; player p passes to ``(p + direction) % 4`` with the direction actions 1 Left,
  2 Across, 3 Right (0 No Pass), the same seats as hsim's left (+1), across (+2) and
  right (-1): :data:`OS_PASS_ACTION`, :data:`PASS_SHIFT`.
- Rules: OpenSpiel's eight parameters map to hsim rule options (:func:`hsim_rules`); the
  rule sets OpenSpiel can play are those whose deal rules one of the 256 parameter sets
  gives (:func:`openspiel_params`; the game-level options - end score, clamp at zero,
  Perfect 100, No Draw - are hsim's own: OpenSpiel plays one deal). The pass direction is
  no rule here: both sides always get it explicitly.
- Only what the seat may see: an hsim strategy asked through
  :class:`~hsim.bridges.openspiel.bot.HsimBot` sees an observation rebuilt from its own
  dealt, passed and received cards and the public plays (the other hands are filled with
  placeholder cards it cannot read). An OpenSpiel bot asked through
  :class:`~hsim.bridges.openspiel.strategies.OpenSpielStrategy` gets an OpenSpiel state
  whose hidden cards are one world sampled consistently with the seat's observation (the
  cards played and by whom, shown voids, the cards it passed), so a bot that reads the
  state (``mcts``) plays a determinized world, not the true deal.
- OpenSpiel 2.0.2's ISMCTS is not reproducible from its seed across processes (passes
  always, plays with its default final policy), see
  :class:`~hsim.bridges.openspiel.strategies.ISMCTS`.
- OpenSpiel 2.0.2's ISMCTS crashes (segfault) when a player other than 0 is to pass, so
  the state given to an OpenSpiel bot always puts the deciding seat at player 0 (seats
  rotated; directions are relative, so nothing else changes) and the bot's pass is asked
  one card at a time while player 0 is the passer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from hsim.errors import install_hint

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"hsim.bridges.openspiel needs OpenSpiel: {install_hint('openspiel')}"
    ) from exc

from hsim.model.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    mask_of,
    parse_card,
)
from hsim.model.rules import Rules, RulesError, canonical

# -- OpenSpiel's parameters and encodings --------------------------------------------------

#: OpenSpiel ``hearts`` parameters and their defaults.
OS_DEFAULTS: dict[str, bool] = {
    "pass_cards": True,
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "jd_bonus": False,
    "avoid_all_tricks_bonus": False,
    "must_break_hearts": True,
    "qs_breaks_hearts": True,
    "can_lead_hearts_instead_of_qs": False,
}
#: The parameters that change which cards are legal (32 combinations).
PLAY_PARAMS = (
    "no_pts_on_first_trick",
    "can_lead_any_club",
    "can_lead_hearts_instead_of_qs",
    "qs_breaks_hearts",
    "must_break_hearts",
)
#: The parameters that change only the scores (4 combinations).
SCORE_PARAMS = ("jd_bonus", "avoid_all_tricks_bonus")
DIRECTIONS = ("left", "right", "across", "hold")
#: OpenSpiel's pass-direction chance outcomes: 0 No Pass, 1 Left, 2 Across, 3 Right.
OS_PASS_ACTION = {"hold": 0, "left": 1, "across": 2, "right": 3}
#: Seats a pass moves by (hsim and OpenSpiel agree).
PASS_SHIFT = {"left": 1, "across": 2, "right": 3}

_SUIT_OS_TO_HSIM = (CLUBS, DIAMONDS, HEARTS, SPADES)  # OpenSpiel's suit order C, D, H, S
#: hsim card of each OpenSpiel card action 0..51.
OS_TO_CARD: tuple[int, ...] = tuple(_SUIT_OS_TO_HSIM[a % 4] * 13 + a // 4 for a in range(52))
#: OpenSpiel card action of each hsim card 0..51.
CARD_TO_OS: tuple[int, ...] = tuple(OS_TO_CARD.index(c) for c in range(52))
_OS_BIT = tuple(1 << c for c in OS_TO_CARD)
_N_DEAL = 52  # deal actions after the direction
_N_PASS = 12  # pass actions (3 per player, player 0 first)


def hsim_rules(params: Mapping[str, bool]) -> Rules:
    """Return the hsim rule set equivalent to OpenSpiel ``hearts`` with ``params``.

    params: any of OpenSpiel's eight parameters (missing ones take OpenSpiel's defaults).
    The pass direction itself is not a rule: both engines get it explicitly.

    :raises KeyError: a name that is not an OpenSpiel ``hearts`` parameter.
    """
    unknown = set(params) - set(OS_DEFAULTS)
    if unknown:
        raise KeyError(f"not OpenSpiel hearts parameters: {sorted(unknown)}")
    p = {**OS_DEFAULTS, **params}
    no_pts, jd = p["no_pts_on_first_trick"], p["jd_bonus"]
    return Rules(
        passing="cycle" if p["pass_cards"] else "none",
        lead_any_club=p["can_lead_any_club"],
        first_trick_points="forbidden" if no_pts else "allowed",
        # OpenSpiel lets a trick-1 hand of only hearts and QS play any of them.
        first_trick_only_points="any" if no_pts else "queen",
        hearts_must_be_broken=p["must_break_hearts"],
        queen_breaks_hearts=p["qs_breaks_hearts"],
        lead_hearts_instead_of_queen=p["can_lead_hearts_instead_of_qs"],
        # jd_bonus: -10 for the JD taker, moon or not; a moon does not need the JD.
        omnibus=jd,
        moon_requires_jack=not jd,
        jack_in_moon_deal=jd,
        no_trick_bonus="no_tricks" if p["avoid_all_tricks_bonus"] else "off",
    )


#: Options that are hsim's own (the game around OpenSpiel's single deal, and the pass
#: schedule, given to OpenSpiel explicitly deal by deal).
_GAME_LEVEL = ("passing", "clamp_at_zero", "perfect_100", "end_score", "no_draw", "max_deals")


def openspiel_params(rules: Rules) -> dict[str, bool]:
    """Return OpenSpiel's ``hearts`` parameters that play the deals of ``rules``.

    :raises RulesError: rules OpenSpiel cannot play (Kierki, 3 players, New Moon, the QS
        waiting for hearts, first-trick or no-trick variants it lacks...); the message names the
        differing options and the preset that works (``--rules openspiel``).
    """
    if rules.is_kierki:
        raise RulesError("OpenSpiel plays Hearts, not Kierki: use --rules openspiel")
    if rules.players != 4:
        raise RulesError(
            f"OpenSpiel's hearts is a 4-player game; it cannot play Hearts for {rules.players} "
            f"(players={rules.players}): use --rules openspiel"
        )
    p = {
        "pass_cards": True,
        "no_pts_on_first_trick": rules.first_trick_points == "forbidden",
        "can_lead_any_club": rules.lead_any_club,
        "jd_bonus": rules.omnibus,
        "avoid_all_tricks_bonus": rules.no_trick_bonus != "off",
        "must_break_hearts": rules.hearts_must_be_broken,
        "qs_breaks_hearts": rules.queen_breaks_hearts,
        "can_lead_hearts_instead_of_qs": rules.lead_hearts_instead_of_queen,
    }
    want = dataclasses.replace(
        hsim_rules(p), **{name: getattr(rules, name) for name in _GAME_LEVEL}
    )
    if want != rules:
        differ = [
            f"{f.name}={getattr(rules, f.name)} (OpenSpiel: {getattr(want, f.name)})"
            for f in dataclasses.fields(Rules)
            if getattr(rules, f.name) != getattr(want, f.name)
        ]
        raise RulesError(
            f"OpenSpiel's hearts cannot play the rules {canonical(rules)}: "
            + ", ".join(differ)
            + "; use --rules openspiel (OpenSpiel's defaults), with any of its options "
            "(see docs/openspiel.md)"
        )
    return p


_GAMES: dict[tuple, Any] = {}


def os_game(params: Mapping[str, bool]):
    """Return OpenSpiel's ``hearts`` loaded with ``params`` (cached per process)."""
    key = tuple(sorted({**OS_DEFAULTS, **params}.items()))
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game("hearts", dict(key))
    return _GAMES[key]


def os_mask(actions: Iterable[int]) -> int:
    """Return the hsim card mask of a list of OpenSpiel card actions."""
    m = 0
    for a in actions:
        m |= _OS_BIT[a]
    return m


def os_hands(state) -> list[int]:
    """Return the hands OpenSpiel holds now (hsim masks, player 0 first)."""
    return [mask_of(parse_card(c) for c in hand) for hand in state.to_struct().hands]


@dataclasses.dataclass
class SeatView:
    """What one seat may see of an OpenSpiel deal, in hsim's terms.

    seat: the seat (= OpenSpiel player). direction: left, right, across or hold. dealt:
    its 13 cards as dealt (in dealing order). passed, received: masks (0 before the
    exchange; ``passed`` is also 0 while it is still passing). plays: (seat, card) in order.
    """

    seat: int
    direction: str
    dealt: list[int]
    passed: int
    received: int
    plays: list[tuple[int, int]]


def seat_view(state, player: int) -> SeatView:
    """Return what ``player`` may see at OpenSpiel ``state`` (its own cards, public plays).

    Reads the action history (the direction, the deal actions of its own cards, its own
    and its giver's passes once the exchange is done) and who played each card (the
    player to act before each play, public information).
    """
    history = state.history()
    direction = {v: k for k, v in OS_PASS_ACTION.items()}[history[0]]
    deal = history[1 : 1 + _N_DEAL]
    dealt = [OS_TO_CARD[a] for k, a in enumerate(deal) if k % 4 == player]
    start = 1 + _N_DEAL
    passed = received = 0
    if direction != "hold":
        passes = history[start : start + _N_PASS]
        if len(passes) == _N_PASS:  # the exchange is done
            giver = (player - PASS_SHIFT[direction]) % 4
            passed = os_mask(passes[3 * player : 3 * player + 3])
            received = os_mask(passes[3 * giver : 3 * giver + 3])
        start += _N_PASS
    plays = []
    if len(history) > start:
        replay = state.get_game().new_initial_state()
        for a in history[:start]:
            replay.apply_action(a)
        for a in history[start:]:
            plays.append((replay.current_player(), OS_TO_CARD[a]))
            replay.apply_action(a)
    return SeatView(player, direction, dealt, passed, received, plays)


def cards_of_mask(mask: int) -> list[int]:
    """Return the cards of 52-bit ``mask`` in increasing order."""
    return [c for c in range(52) if mask >> c & 1]
