"""A bridge to OpenSpiel's ``hearts``: the card, seat and rules mapping, hsim strategies as
OpenSpiel bots, and OpenSpiel bots as hsim strategies (the optional extra ``hsim[openspiel]``).

This is the only module of hsim that imports ``pyspiel``; docs/openspiel.md documents the
mapping and the engines' differences.

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
- Only what the seat may see: an hsim strategy asked through :class:`HsimBot` sees an
  observation rebuilt from its own dealt, passed and received cards and the public plays
  (the other hands are filled with placeholder cards it cannot read). An OpenSpiel bot
  asked through :class:`OpenSpielStrategy` gets an OpenSpiel state whose hidden cards are
  one world sampled consistently with the seat's observation (the cards played and by
  whom, shown voids, the cards it passed), so a bot that reads the state (``mcts``) plays
  a determinized world, not the true deal.
- OpenSpiel 2.0.2's ISMCTS is not reproducible from its seed across processes (passes
  always, plays with its default final policy), see :class:`ISMCTS`.
- OpenSpiel 2.0.2's ISMCTS crashes (segfault) when a player other than 0 is to pass, so
  the state given to an OpenSpiel bot always puts the deciding seat at player 0 (seats
  rotated; directions are relative, so nothing else changes) and the bot's pass is asked
  one card at a time while player 0 is the passer.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "hsim.openspiel needs OpenSpiel: pip install 'hsim[openspiel]' (or open_spiel)"
    ) from exc

from hsim.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    format_card,
    format_mask,
    mask_of,
    parse_card,
)
from hsim.rules import Rules, RulesError, canonical
from hsim.strategy import StrategyError

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

    :raises RulesError: rules OpenSpiel cannot play (Kierki, New Moon, the QS waiting for
        hearts, first-trick or no-trick variants it lacks...); the message names the
        differing options and the preset that works (``--rules openspiel``).
    """
    if rules.is_kierki:
        raise RulesError("OpenSpiel plays Hearts, not Kierki: use --rules openspiel")
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


# -- hsim strategies as OpenSpiel bots -----------------------------------------------------


def _placeholder_position(view: SeatView, rules: Rules):
    """Return an hsim Position whose seat ``view.seat`` sees exactly ``view``.

    The other seats hold the cards they played plus placeholders; their passes are made
    up to match (the seat cannot see them). Plays are applied without legality checks
    (their legality was OpenSpiel's, on the true hands).
    """
    from hsim.engine.hearts import play_card
    from hsim.position import Position

    me = view.seat
    mine = mask_of(view.dealt)
    exchanged = view.direction != "hold" and view.passed != 0
    shift = PASS_SHIFT[view.direction] if exchanged else 0
    after = [0, 0, 0, 0]  # the hands right after the exchange (or as dealt)
    after[me] = (mine & ~view.passed) | view.received
    for seat, c in view.plays:
        if seat != me:
            after[seat] |= 1 << c
    if exchanged:
        after[(me + shift) % 4] |= view.passed
    used = after[0] | after[1] | after[2] | after[3] | mine
    free = [c for c in range(52) if not used >> c & 1]
    for s in range(4):
        while s != me and bin(after[s]).count("1") < 13:
            after[s] |= 1 << free.pop()
    passes = [0, 0, 0, 0]
    if exchanged:
        giver = (me - shift) % 4
        passes[me], passes[giver] = view.passed, view.received
        for s in range(4):
            if s not in (me, giver):  # any 3 cards of the receiver's hand after the pass
                passes[s] = mask_of(_cards(after[(s + shift) % 4])[:3])
    dealt = [
        view.dealt if s == me else _cards((after[s] & ~passes[(s - shift) % 4]) | passes[s])
        for s in range(4)
    ]
    p = Position.from_hands(dealt, view.direction, rules)
    if exchanged:
        p.pass_cards(passes)
    st = p.state
    for seat, c in view.plays:
        play_card(st.public, st.private, seat, c)
    return p


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


class HsimBot(pyspiel.Bot):
    """Any hsim strategy as a ``pyspiel.Bot`` for one player of OpenSpiel's ``hearts``.

    strategy: a spec (``'pimc(worlds=20)'``) or a loaded strategy. player: the OpenSpiel
    player 0..3 it plays (= hsim seat). game: the ``hearts`` game (its parameters give
    the rules, :func:`hsim_rules`). seed, first_game: the strategy's random stream is
    that seat's stream in game ``first_game`` of run ``seed`` for the first deal it sees,
    ``first_game + 1`` for the next, and so on (advancing through the deal's decisions,
    as in a tournament). A pass is decided once, as 3 cards, and answered one card at a
    time. The strategy sees only what its seat may see (:func:`seat_view`).

    :raises StrategyError: (from ``step``) the strategy raised or answered what the
        rules do not allow.
    """

    def __init__(self, strategy, player: int, game, seed: int = 0, first_game: int = 0):
        pyspiel.Bot.__init__(self)
        from hsim.loader import check_game, load
        from hsim.play import GameState, PythonDriver

        self.strategy = load(strategy) if isinstance(strategy, str) else strategy
        check_game(self.strategy, "hearts")
        self.player = player
        self.rules = hsim_rules(
            {k: v for k, v in game.get_parameters().items() if k in OS_DEFAULTS}
        )
        self.seed = seed
        self.game_index = first_game - 1
        self._deal: tuple | None = None
        self._pass: list[int] = []
        self._state = GameState()
        self._driver = PythonDriver(self.rules, [self.strategy] * 4, seed, state=self._state)

    def restart_at(self, state) -> None:  # noqa: D102 - pyspiel.Bot's interface
        pass

    def inform_action(self, state, player_id, action) -> None:  # noqa: D102
        pass

    def provides_policy(self) -> bool:  # noqa: D102
        return False

    def _ask(self, view: SeatView, kind: str) -> int:
        from hsim.engine.layout import H_DECIDER, H_PASS_SEAT, P_TO_ACT, ST_NEED_PASS, ST_NEED_PLAY

        deal = (view.direction, tuple(view.dealt))
        if deal != self._deal:  # a new deal: the next game's streams
            self._deal = deal
            self.game_index += 1
            self._driver.start_game(self.game_index, deal=False)
            self._pass = []
        position = _placeholder_position(view, self.rules)
        st = self._state
        st.public[...] = position.state.public
        st.private[...] = position.state.private
        st.hidden[...] = position.state.hidden
        st.hidden[H_DECIDER] = self.player
        st.public[P_TO_ACT] = self.player
        if kind == "pass":
            st.hidden[H_PASS_SEAT] = self.player
            answer = self._driver.decide(ST_NEED_PASS)
            hand = int(st.private[self.player, 1])
            if not (0 <= answer < 1 << 52 and answer & ~hand == 0 and bin(answer).count("1") == 3):
                raise StrategyError(
                    f"strategy {self.strategy.spec!r} passed {answer}, not 3 cards of its "
                    f"hand [{format_mask(hand)}]"
                )
            return answer
        legal = int(position.legal())
        answer = self._driver.decide(ST_NEED_PLAY)
        if not (0 <= answer < 52 and legal >> answer & 1):
            raise StrategyError(
                f"strategy {self.strategy.spec!r} played {answer}, not one of "
                f"[{format_mask(legal)}]"
            )
        return answer

    def step(self, state) -> int:
        """Return the OpenSpiel action of this player's decision at ``state``.

        :raises StrategyError: the strategy failed or answered illegally.
        """
        legal = set(state.legal_actions())
        if state.current_player() != self.player:
            raise StrategyError(f"HsimBot for player {self.player} asked at another's turn")
        history = state.history()
        if len(history) < 1 + _N_DEAL:
            raise StrategyError("HsimBot is asked only after the deal (chance nodes)")
        passing = history[0] != 0 and len(history) < 1 + _N_DEAL + _N_PASS
        view = seat_view(state, self.player)
        if passing:
            if len(history) == 1 + _N_DEAL + 3 * self.player:  # its first pass action
                self._pass = _cards(self._ask(view, "pass"))
            if not self._pass or CARD_TO_OS[self._pass[0]] not in legal:
                raise StrategyError("HsimBot: the pass went out of step with the state")
            return CARD_TO_OS[self._pass.pop(0)]
        return CARD_TO_OS[self._ask(view, "play")]


# -- OpenSpiel bots as hsim strategies -----------------------------------------------------


def _world(obs, rng: np.random.Generator) -> list[int]:
    """Return every seat's hand now in one world consistent with ``obs`` (masks)."""
    from hsim.strategies.pimc import sample_hands

    public, private = obs.arrays()
    hands = np.zeros(4, np.int64)
    state = np.array([rng.integers(1 << 63)], np.uint64)
    sample_hands(public, private, state, hands)
    return [int(h) for h in hands]


def os_state(obs, rng: np.random.Generator, game):
    """Return ``(state, me)``: an OpenSpiel ``hearts`` state of ``game`` at the decision of
    ``obs``'s seat, with that seat as OpenSpiel player 0 (``me``: its hsim seat; player k
    is hsim seat ``(k + me) % 4``) and the hidden cards one world consistent with what the
    seat has seen (:func:`_world`). At a pass the state is at player 0's first pass action.
    """
    me = obs.seat
    direction = obs.pass_direction or "hold"
    shift = PASS_SHIFT.get(direction, 0)
    now = _world(obs, rng)
    after = list(now)
    for seat, c in obs.plays:
        after[seat] |= 1 << c
    passing = direction != "hold" and obs.passed == 0 and not obs.plays
    passes = [0, 0, 0, 0]
    if passing:
        dealt = after
    elif shift:
        passes[me] = obs.passed
        passes[(me - shift) % 4] = obs.received
        for s in range(4):
            if s not in (me, (me - shift) % 4):
                target = (s + shift) % 4
                pool = after[target] & ~(obs.received if target == me else 0)
                passes[s] = mask_of(_cards(pool)[:3])
        dealt = [(after[s] & ~passes[(s - shift) % 4]) | passes[s] for s in range(4)]
    else:
        dealt = after
    dealt[me] = obs.dealt if not passing else obs.hand
    cards = [_cards(dealt[(k + me) % 4]) for k in range(4)]
    state = game.new_initial_state()
    state.apply_action(OS_PASS_ACTION[direction])
    for i in range(13):
        for k in range(4):
            state.apply_action(CARD_TO_OS[cards[k][i]])
    if passing:
        return state, me
    if shift:
        for k in range(4):
            for c in _cards(passes[(k + me) % 4]):
                state.apply_action(CARD_TO_OS[c])
    for seat, c in obs.plays:
        if state.current_player() != (seat - me) % 4:
            raise StrategyError(
                f"OpenSpiel bridge: seat {seat} played {format_card(c)} out of turn "
                "(inconsistent observation)"
            )
        state.apply_action(CARD_TO_OS[c])
    return state, me


class OpenSpielStrategy:
    """An OpenSpiel bot as a plain-Python hsim strategy (Hearts, rules OpenSpiel can play).

    A new bot is made for each decision by ``make_bot(game, seed)`` with a seed drawn from
    the seat's stream, and asked at an OpenSpiel state rebuilt from the seat's observation
    (:func:`os_state`: the seat is player 0, the hidden cards one consistent world). The
    pass is the bot's 3 pass actions in a row. Subclasses set ``make_bot``.

    :raises StrategyError: (``new_game``) rules OpenSpiel cannot play; (``play``) the bot
        answered a card that is not legal in hsim.
    """

    games = ("hearts",)
    spec = "openspiel"

    def make_bot(self, game, seed: int):  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def check_rules(cls, rules: Rules) -> None:
        """Refuse rules OpenSpiel cannot play. :raises StrategyError: naming them."""
        try:
            openspiel_params(rules)
        except RulesError as exc:
            raise StrategyError(f"{cls.spec}: {exc}") from None

    def new_game(self, seat: int, rules: Rules) -> None:
        """Load OpenSpiel's game for ``rules``. :raises StrategyError: rules it cannot play."""
        self.check_rules(rules)
        self.game = os_game(openspiel_params(rules))

    def _game(self, obs):
        if getattr(self, "game", None) is None:
            self.new_game(obs.seat, obs.rules)
        return self.game

    def pass_cards(self, obs, rng) -> int:
        """Return the bot's 3 pass actions as a mask (asked one card at a time)."""
        game = self._game(obs)
        state, _ = os_state(obs, rng, game)
        out = 0
        for _ in range(3):
            bot = self.make_bot(game, int(rng.integers(1 << 31)))
            a = bot.step(state)
            out |= 1 << OS_TO_CARD[a]
            state.apply_action(a)
        return out

    def play(self, obs, legal: int, rng) -> int:
        """Return the bot's card at the seat's decision."""
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        game = self._game(obs)
        state, _ = os_state(obs, rng, game)
        bot = self.make_bot(game, int(rng.integers(1 << 31)))
        return OS_TO_CARD[bot.step(state)]


def _positive(name: str, value: Any, kind=int) -> Any:
    try:
        v = kind(value)
    except (TypeError, ValueError):
        raise StrategyError(f"{name}={value!r} is not a number") from None
    if not v > 0 or v != v:
        raise StrategyError(f"{name}={value!r} must be > 0")
    return v


_FINAL_POLICY = {
    "visits": "NORMALIZED_VISIT_COUNT",
    "max_visits": "MAX_VISIT_COUNT",
    "max_value": "MAX_VALUE",
}


class ISMCTS(OpenSpielStrategy):
    """``openspiel:ismcts``: OpenSpiel's C++ information-set MCTS (``pyspiel.ISMCTSBot``).

    simulations: per decision (default 1000). uct_c: exploration constant (2). rollouts:
    random rollouts per leaf (1). max_world_samples: worlds kept per search, -1 a new
    world each simulation (the default). final_policy: ``max_visits`` (the default: the
    most visited action), ``visits`` (OpenSpiel's own default: an action sampled from the
    normalized visit counts) or ``max_value``.

    Not reproducible from its seed (OpenSpiel 2.0.2): the C++ search gives different
    actions for the same state and seed in different processes at a pass, and with
    ``visits`` at plays too (``max_visits`` plays repeat), so games with an ISMCTS seat
    differ from run to run within their statistical noise. ``openspiel:mcts`` and
    factories that seed their bot repeat exactly.
    """

    spec = "openspiel:ismcts"

    def __init__(
        self,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        max_world_samples: int = -1,
        final_policy: str = "max_visits",
    ) -> None:
        self.simulations = _positive("simulations", simulations)
        self.uct_c = _positive("uct_c", uct_c, float)
        self.rollouts = _positive("rollouts", rollouts)
        self.max_world_samples = int(max_world_samples)
        if final_policy not in _FINAL_POLICY:
            raise StrategyError(f"final_policy={final_policy!r}: use {', '.join(_FINAL_POLICY)}")
        self.final_policy = getattr(pyspiel.ISMCTSFinalPolicyType, _FINAL_POLICY[final_policy])
        self.game = None

    def make_bot(self, game, seed: int):
        """Return a fresh ISMCTS bot seeded with ``seed``."""
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, seed)
        return pyspiel.ISMCTSBot(
            seed,
            evaluator,
            self.uct_c,
            self.simulations,
            self.max_world_samples,
            self.final_policy,
        )


class MCTS(OpenSpielStrategy):
    """``openspiel:mcts``: OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) on one world sampled
    from the seat's observation per decision (determinized; it never sees the true deal).

    simulations (1000), uct_c (2), rollouts (1), solve (false): as OpenSpiel's.
    """

    spec = "openspiel:mcts"

    def __init__(
        self, simulations: int = 1000, uct_c: float = 2.0, rollouts: int = 1, solve: bool = False
    ) -> None:
        self.simulations = _positive("simulations", simulations)
        self.uct_c = _positive("uct_c", uct_c, float)
        self.rollouts = _positive("rollouts", rollouts)
        self.solve = bool(solve)
        self.game = None

    def make_bot(self, game, seed: int):
        """Return a fresh MCTS bot seeded with ``seed``."""
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, seed)
        return pyspiel.MCTSBot(
            game, evaluator, self.uct_c, self.simulations, 1000, self.solve, seed, False
        )


class FactoryStrategy(OpenSpielStrategy):
    """``openspiel:package.module:attr``: any bot factory ``attr(game, seed, **params)``
    returning a ``pyspiel.Bot`` (or any object with ``step(state) -> action``)."""

    factory: Any = None

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.game = None

    def make_bot(self, game, seed: int):
        """Return the factory's bot for ``game`` seeded with ``seed``."""
        return type(self).factory(game, seed, **self.params)


def strategy_class(name: str) -> type:
    """Return the hsim strategy class of ``openspiel:NAME``: ``ismcts``, ``mcts`` or a
    factory ``package.module:attr`` (called as ``attr(game, seed, **params)``).

    :raises StrategyError: an unknown name, or a factory that cannot be imported.
    """
    if name == "ismcts":
        return ISMCTS
    if name == "mcts":
        return MCTS
    target, colon, attr = name.rpartition(":")
    if not (colon and target and attr):
        raise StrategyError(
            f"unknown OpenSpiel bot {name!r}: use openspiel:ismcts(...), openspiel:mcts(...) "
            "or openspiel:package.module:factory (called as factory(game, seed, **params))"
        )
    try:
        factory = getattr(importlib.import_module(target), attr)
    except (ImportError, AttributeError) as exc:
        raise StrategyError(f"cannot load OpenSpiel bot factory {name!r}: {exc}") from None
    if not callable(factory):
        raise StrategyError(f"OpenSpiel bot factory {name!r} is not callable")
    return type(
        f"OpenSpielFactory_{attr}",
        (FactoryStrategy,),
        {"factory": staticmethod(factory), "spec": f"openspiel:{name}"},
    )
