"""Ask one strategy for any decision at a position: a pass, a play, a moon or trump choice.

The strategy sees exactly what it would see in a game: the observation of the deciding
seat (:class:`hsim.strategy.contract.Observation` or the compiled tier's arrays), nothing of the
other hands. Its random stream is the one seat ``s`` gets at the start of game ``game``
of run ``seed``: ``stream(seed, game, PURPOSE_SEAT + s)`` (:mod:`hsim.engine.rng`), a compiled
strategy's ``rng`` state and a plain-Python strategy's ``numpy.random.Generator`` both
made from it, fresh for each question. So an answer is a pure function of (strategy,
position, seed, game): the same seed and game give the same answer, and another game
index gives a random strategy another stream. (In a tournament the stream has advanced
through the seat's earlier decisions of the game, so a game's own decision can differ
from the answer asked at its position.)

>>> from hsim.play.position import Position
>>> p = Position.from_text("deal=" + "/".join(
...     "".join(r + s for r in "23456789TJQKA") for s in "CDSH") + ";direction=left")
>>> decide("lowcard", p)
Decision(kind='pass', seat=0, value=CardSet('QC KC AC'))
>>> p.pass_cards(["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"])
>>> decide("lowcard", p, seed=7, game=3)
Decision(kind='play', seat=1, value=0)
"""

from __future__ import annotations

import dataclasses

from hsim.engine.layout import (
    H_DECIDER,
    H_GAME,
    H_PASS_SEAT,
    P_MOON_SHOOTER,
    P_TO_ACT,
    P_TRUMP_CHOOSER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
    V_HAND,
)
from hsim.engine.rng import check_seed
from hsim.errors import ConfigError
from hsim.model.cards import SUIT_NAMES, CardSet, format_card, format_mask
from hsim.play.games import GameState, PythonDriver
from hsim.play.position import Position
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import LoadedStrategy, check_game, load

#: The decision kinds, in the order a deal asks them.
KINDS = ("pass", "play", "moon", "trump")
#: Moon choices by value (docs/rules.md A2.2) and trump choices by value (B3), in words.
MOON_CHOICES = ("default", "add", "subtract")
TRUMP_CHOICES = (*SUIT_NAMES, "no trump")
_STATUS = {"pass": ST_NEED_PASS, "play": ST_NEED_PLAY, "moon": ST_NEED_MOON, "trump": ST_NEED_TRUMP}


@dataclasses.dataclass(frozen=True)
class Decision:
    """One answer of a strategy (docs/strategies.md has the contract of each kind).

    kind: ``pass``, ``play``, ``moon`` or ``trump``. seat: the deciding seat. value: for
    a pass the 3 cards (a :class:`~hsim.model.cards.CardSet`), for a play the card (0..51), for
    a moon choice 0 default, 1 add, 2 subtract (docs/rules.md A2.2, New Moon), for a trump
    choice the suit 0..3 (C, D, S, H) or 4, no trump (Kierki B3). ``str()`` gives it in
    words: ``AS KS QS``, ``QS``, ``add``, ``spades``.
    """

    kind: str
    seat: int
    value: int

    def __str__(self) -> str:
        if self.kind == "pass":
            return format_mask(int(self.value))
        if self.kind == "play":
            return format_card(self.value)
        if self.kind == "moon":
            return MOON_CHOICES[self.value]
        return TRUMP_CHOICES[self.value]


def due(position: Position) -> str | None:
    """Return the kind of decision due at ``position`` (see :data:`KINDS`), or None when
    the deal (or the game) is over."""
    return {"pass": "pass", "play": "play", "moon": "moon", "trump": "trump"}.get(position.phase)


def _copy(state: GameState) -> GameState:
    out = GameState()
    for name in ("public", "private", "hidden", "rngs"):
        getattr(out, name)[...] = getattr(state, name)
    return out


def decide(
    strategy: LoadedStrategy | str,
    position: Position,
    seed: int = 0,
    game: int = 0,
    seat: int | None = None,
) -> Decision:
    """Ask ``strategy`` the decision due at ``position``; check it and return it.

    strategy: a spec (``'pimc(worlds=20)'``) or a loaded strategy. seed, game: the run
    seed (0..2**64-1) and game index (0..2**63-1) whose seat stream the
    strategy draws from (module docstring). seat: only for a pass, the seat to ask
    (passes are made blind, docs/rules.md A1.2, so any seat's is due until the exchange;
    default: the next seat to pass); any other decision belongs to the seat to act, the
    shooter (moon) or the trump chooser. The position is not changed.

    :raises ConfigError: (a ValueError, exit 2) no decision is due (the deal is over), a
        ``seat`` given for a decision that is not a pass, a seed outside 0..2**64-1 or a
        game index outside 0..2**63-1.
    :raises StrategyError: the strategy does not play this game, raised, or answered
        what the rules do not allow here (the message says what and what is allowed).
    """
    kind = due(position)
    if kind is None:
        raise ConfigError(
            f"no decision is due: the position is in its {position.phase} phase "
            "(give a position before the deal's last card)"
        )
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < 2**63:
        raise ConfigError(f"game index {game!r}: give a game index 0..2**63-1")
    check_seed(seed)
    if isinstance(strategy, str):
        strategy = load(strategy)
    check_game(strategy, position.rules.game)
    state = _copy(position.state)
    pub = state.public
    if kind == "pass":
        passer = int(state.hidden[H_PASS_SEAT]) if seat is None else seat
        if not 0 <= passer < 4:
            raise ConfigError(f"seat {seat}: a Hearts seat is 0..3")
        state.hidden[H_PASS_SEAT] = passer
        who = passer
    elif seat is not None:
        raise ConfigError(f"a {kind} decision belongs to one seat: drop seat={seat}")
    elif kind == "moon":
        who = int(pub[P_MOON_SHOOTER])
    elif kind == "trump":
        who = int(pub[P_TRUMP_CHOOSER])
    else:
        who = position.to_act
    players = [strategy] * position.rules.players
    driver = PythonDriver(position.rules, players, seed, state=state)
    driver.start_game(game, deal=False)
    state.hidden[H_DECIDER] = who  # the seat and game a strategy error names
    state.hidden[H_GAME] = game
    pub[P_TO_ACT] = who  # the seat asked, as next_decision sets it
    answer = driver.decide(_STATUS[kind])
    return Decision(kind, who, _checked(strategy, kind, answer, position, who))


def _checked(strategy: LoadedStrategy, kind: str, answer: int, position: Position, seat: int):
    """Return ``answer`` if the rules allow it (a pass as a CardSet); else raise."""
    where = f"strategy {strategy.spec!r} (seat {seat})"
    if kind == "pass":
        hand = int(position.state.private[seat, V_HAND])
        if 0 <= answer < 1 << 52 and answer & ~hand == 0 and len(CardSet(answer)) == 3:
            return CardSet(answer)
        shown = format_mask(answer) if 0 <= answer < 1 << 52 else str(answer)
        raise StrategyError(
            f"{where} passed [{shown}], not 3 cards of its hand [{format_mask(hand)}]"
        )
    if kind == "play":
        legal = position.legal() if seat == position.to_act else 0
        if 0 <= answer < 52 and legal >> answer & 1:
            return answer
        shown = format_card(answer) if 0 <= answer < 52 else f"card number {answer}"
        raise StrategyError(f"{where} chose {shown}, which is not legal here (legal: {legal})")
    if kind == "moon":
        if 0 <= answer < len(MOON_CHOICES):
            return answer
        raise StrategyError(f"{where} answered moon choice {answer}; use 0, 1 or 2")
    allowed = len(TRUMP_CHOICES) if position.rules.allow_no_trump else len(TRUMP_CHOICES) - 1
    if 0 <= answer < allowed:
        return answer
    raise StrategyError(
        f"{where} answered trump choice {answer}; use a suit 0..3"
        + (" or 4 (no trump)" if position.rules.allow_no_trump else "")
    )


def choose(
    strategy: LoadedStrategy | str,
    position: Position,
    seed: int = 0,
    game: int = 0,
    seat: int | None = None,
) -> int:
    """Return the value of :func:`decide`: the card of a play, the 3-card mask of a pass,
    the moon (0..2) or trump (0..4) choice.

    :raises ConfigError: as :func:`decide`. :raises StrategyError: as :func:`decide`.
    """
    return decide(strategy, position, seed, game, seat).value
