"""An hsim strategy as an OpenSpiel bot: :class:`HsimBot` plays OpenSpiel's ``hearts`` with
any ``--players`` spec, seeing only what its seat may see (docs/openspiel.md)."""

from __future__ import annotations

import pyspiel

from hsim.bridges.openspiel import (
    _N_DEAL,
    _N_PASS,
    CARD_TO_OS,
    OS_DEFAULTS,
    PASS_SHIFT,
    SeatView,
    cards_of_mask,
    hsim_rules,
    seat_view,
)
from hsim.engine.hearts import play_card
from hsim.engine.layout import H_DECIDER, H_PASS_SEAT, P_TO_ACT, ST_NEED_PASS, ST_NEED_PLAY
from hsim.model.cards import (
    format_mask,
    mask_of,
)
from hsim.model.rules import Rules
from hsim.play.games import GameState, PythonDriver
from hsim.play.position import Position
from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import check_game, load


def _placeholder_position(view: SeatView, rules: Rules):
    """Return an hsim Position whose seat ``view.seat`` sees exactly ``view``.

    The other seats hold the cards they played plus placeholders; their passes are made
    up to match (the seat cannot see them). Plays are applied without legality checks
    (their legality was OpenSpiel's, on the true hands).
    """

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
                passes[s] = mask_of(cards_of_mask(after[(s + shift) % 4])[:3])
    dealt = [
        view.dealt if s == me else cards_of_mask((after[s] & ~passes[(s - shift) % 4]) | passes[s])
        for s in range(4)
    ]
    p = Position.from_hands(dealt, view.direction, rules)
    if exchanged:
        p.pass_cards(passes)
    st = p.state
    for seat, c in view.plays:
        play_card(st.public, st.private, seat, c)
    return p


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
                self._pass = cards_of_mask(self._ask(view, "pass"))
            if not self._pass or CARD_TO_OS[self._pass[0]] not in legal:
                raise StrategyError("HsimBot: the pass went out of step with the state")
            return CARD_TO_OS[self._pass.pop(0)]
        return CARD_TO_OS[self._ask(view, "play")]
