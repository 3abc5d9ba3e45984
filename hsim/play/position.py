"""A Hearts deal you can set up from card names and play by hand, through the engine.

For scenario tests, bug reports and tools that play one given deal. Every move goes
through the same kernels as a tournament (``submit_pass``, ``submit_play``,
``submit_moon``), so a position behaves exactly as a game would. A position prints as
the command-line flags that give it back (``str``: ``--deal ... --plays ...``, for
``hsim choose`` or ``hsim perft``; ``--rules`` when not classic, ``--scores`` when not
all 0) and ``repr()`` pastes back into Python
(``Position.from_text('deal=...;direction=left;plays=2C 5C')``). Any position of a seeded
game, Kierki included (a trump choice), comes from :meth:`Position.from_game`.

>>> p = Position.from_hands(["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
...                         "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
...                         "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
...                         "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"])
>>> p.legal()
CardSet('2C')
>>> p.play("2C 2D")
>>> str(p).endswith("--pass-direction hold --plays '2C 2D'")
True
>>> Position.from_text(p.to_text()).legal() == p.legal()
True
"""

from __future__ import annotations

import copy
import shlex
from collections.abc import Sequence

import numpy as np

from hsim.engine import perft as pf
from hsim.engine.common import reset_deal
from hsim.engine.hearts import hand_size as hearts_hand_size
from hsim.engine.hearts import legal_plays, rules_deck, start_play
from hsim.engine.kierki import deal_kind, deck_mask, hand_size, n_deals
from hsim.engine.layout import (
    DEAL_COLS,
    GAME_COLS,
    H_DEAL_ROWS,
    H_DECK,
    H_PASS_SEAT,
    H_PENDING_PASS,
    H_PHASE,
    H_TRUMP_CHOICE,
    MAX_SEATS,
    P_DEAL,
    P_DEALER,
    P_KIND,
    P_N_PLAYS,
    P_OUT,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_SCORES,
    P_START_RANK,
    P_TO_ACT,
    P_TRICK_LEADER,
    P_TRUMP,
    P_TRUMP_CHOOSER,
    PASS_DIRECTIONS,
    PASS_HOLD,
    PH_DEAL_START,
    PH_GAME_OVER,
    PH_MOON,
    PH_PASS,
    PH_PLAY,
    PH_TRUMP,
    ST_GAME_OVER,
    ST_NEED_MOON,
    ST_NEED_PASS,
    ST_NEED_PLAY,
    ST_NEED_TRUMP,
    ST_OK,
    TRUMP_CHOICES,
    TRUMP_NONE,
    V_DEALT,
    V_HAND,
    V_PASSED,
)
from hsim.engine.rng import seed_to_u64
from hsim.errors import IllegalPlayError
from hsim.model.cards import (
    CardMask,
    CardParseError,
    CardSet,
    cards_of,
    format_card,
    format_mask,
    mask_of,
    parse_cards,
)
from hsim.model.notation import (
    DEAL_FILE_KINDS,
    KierkiDeal,
    PositionSpec,
    format_deal_file,
    parse_deal_file,
)
from hsim.model.rules import KIERKI_KINDS, Rules, canonical, parse_rules
from hsim.play.games import GameState, PythonDriver
from hsim.play.hearts_game import new_game, submit_moon, submit_pass, submit_play
from hsim.play.kierki_game import kierki_legal, new_kierki_game, submit_kierki_play
from hsim.strategy.loader import LoadedStrategy, load_players

#: The decision kind of each engine status (``Position.from_game(until=...)``).
DECISION_OF_STATUS = {
    ST_NEED_PASS: "pass",
    ST_NEED_PLAY: "play",
    ST_NEED_MOON: "moon",
    ST_NEED_TRUMP: "trump",
}


def _rules(rules: Rules | str | None) -> Rules:
    """Return ``rules`` as Rules (a rules string is parsed; None: classic)."""
    if rules is None:
        return Rules()
    return parse_rules(rules) if isinstance(rules, str) else rules


def _cards(hand: str | CardMask | Sequence[int]) -> list[int]:
    """Return the cards of ``hand`` in the order given (a mask gives increasing order)."""
    if isinstance(hand, str):
        return parse_cards(hand)
    if isinstance(hand, int):
        return list(cards_of(hand))
    return [int(c) for c in hand]


def _dealt(hands: Sequence, n: int, size: int) -> list[list[int]]:
    """Return the cards of ``n`` hands of ``size`` different cards each, none in two hands.

    :raises CardParseError: another count of hands or cards, or a card dealt twice.
    """
    if len(hands) != n:
        raise CardParseError(str(hands), f"need {n} hands, one per seat")
    dealt = [_cards(h) for h in hands]
    seen = 0
    for seat, cards in enumerate(dealt):
        m = mask_of(cards)
        if len(cards) != size or bin(m).count("1") != size:
            raise CardParseError(format_mask(m), f"seat {seat} must hold {size} different cards")
        if m & seen:
            raise CardParseError(format_mask(m & seen), "card dealt to two seats")
        seen |= m
    return dealt


def _mask(hand: str | CardMask | Sequence[int]) -> CardMask:
    return mask_of(_cards(hand))


class Position:
    """One Hearts deal in progress: hands, pass, plays, scores, all held by the engine.

    Build with :meth:`from_hands`, :meth:`from_text` or :meth:`from_game` (any game,
    Kierki included). ``state`` holds the engine arrays; :attr:`rows` the deal rows
    written when the deal ends (int64, D_* columns of hsim.engine.layout). ``str()`` is
    the command-line flags of the position (``--deal ... --pass-direction ... --passes
    ... --plays ...``), ``repr()`` the Python call that builds it again.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.rules_array = rules.to_array()
        self.state = GameState()
        self._deals = np.zeros((MAX_SEATS, DEAL_COLS), np.int64)
        self._games = np.zeros((MAX_SEATS, GAME_COLS), np.int64)
        self._origin: str | None = None  # from_game's call, for repr()
        self._kierki: tuple | None = None  # from_kierki_hands' kind, leader, trump

    @classmethod
    def from_text(
        cls,
        text: str,
        rules: Rules | str | None = None,
        scores: Sequence[int] | None = None,
    ) -> Position:
        """Build the position of a one-line position string (``deal=...;direction=...;
        passes=...;plays=...``, :class:`hsim.model.notation.PositionSpec`). rules: a Rules or a
        rules string (``'classic(omnibus=true)'``).

        :raises CardParseError: a malformed part. :raises IllegalPlayError: a pass or
            play the rules do not allow. :raises RulesError: a bad rules string.
        """
        return cls.from_spec(PositionSpec.from_text(text), _rules(rules), scores)

    @classmethod
    def from_spec(
        cls,
        spec: PositionSpec,
        rules: Rules | str | None = None,
        scores: Sequence[int] | None = None,
    ) -> Position:
        """Set a :class:`hsim.model.notation.PositionSpec` up in the engine: deal, make
        the passes, play the plays. rules: a Rules or a rules string (default classic).

        :raises IllegalPlayError: a pass of a card not held or an illegal play (the
            message names it).
        """
        p = cls.from_hands(spec.hands, spec.pass_direction, rules, scores)
        if spec.passes:
            p.pass_cards(spec.passes)
        if spec.plays:
            p.play(list(spec.plays))
        return p

    @classmethod
    def from_game(
        cls,
        rules: Rules | str,
        players: Sequence,
        seed: int = 0,
        game: int = 0,
        decisions: int = 0,
        until: str | None = None,
    ) -> Position:
        """Return the position of game ``game`` of run ``seed`` played by ``players``.

        It stops after ``decisions`` decisions (passes, plays, moon and trump choices, in
        the order the engine asks them), then, with ``until`` (``pass``, ``play``,
        ``moon`` or ``trump``), at the next decision of that kind. Kierki positions
        (docs/rules.md part B; a trump choice: ``until="trump"``) come only from here.
        rules: Rules or a rules string; players: one spec (or LoadedStrategy) per seat.

        :raises ValueError: the game ends before that decision, or ``until`` is unknown.
        :raises StrategyError: a player failed (as in a tournament).
        """

        rules = _rules(rules)
        if until is not None and until not in DECISION_OF_STATUS.values():
            raise ValueError(f"until={until!r}: use pass, play, moon or trump")
        if decisions < 0:
            raise ValueError(f"decisions={decisions}: give a count >= 0")
        specs = [p.spec if isinstance(p, LoadedStrategy) else str(p) for p in players]
        loaded = [p if isinstance(p, LoadedStrategy) else None for p in players]
        if None in loaded:
            loaded = load_players(specs, rules)
        p = cls(rules)
        driver = PythonDriver(rules, list(loaded), seed, state=p.state)
        p._deals, p._games = driver.deal_out, driver.game_out
        driver.start_game(game)
        done = 0
        while True:
            status = driver.next_status()
            if status == ST_GAME_OVER:
                raise ValueError(
                    f"game {game} of run seed {seed} ends after {done} decisions, before the "
                    + (f"next {until} decision" if until else f"decision {decisions}")
                )
            if done >= decisions and (until is None or DECISION_OF_STATUS[status] == until):
                break
            driver.submit(status, driver.decide(status))
            done += 1
        p._origin = (
            f"Position.from_game({canonical(rules)!r}, {specs!r}, seed={seed}, game={game}, "
            f"decisions={done})"
        )
        return p

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[str | CardMask | Sequence[int]],
        pass_direction: str = "hold",
        rules: Rules | str | None = None,
        scores: Sequence[int] | None = None,
        *,
        kind: str | None = None,
        leader: int | None = None,
        trump: str | None = None,
    ) -> Position:
        """Deal ``hands`` (seat 0 first; card codes or card lists in dealing order, or masks).

        pass_direction: left, right, across or hold. scores: game scores before the deal,
        one per seat (default all 0). rules: a Rules or a rules string (default classic).
        Under Kierki rules
        (docs/rules.md part B) the deal is one of ``kind`` (a name of
        :data:`hsim.model.rules.KIERKI_KINDS`, default ``tricks``) with ``leader`` (a
        seat) leading; ``trump`` (``C``, ``D``, ``S``, ``H``, or ``none`` with
        ``allow_no_trump``) names a trump deal's trump: see :meth:`from_kierki_hands`.

        Hearts for 3, 5 or 6 (``players``, docs/rules.md A1.1) takes that many hands of 17,
        10 or 8 cards, none holding a card the rules leave out (``removed_card``,
        ``removed_pair``, or with 6 the 2D, 3D, 3C and 4C); 3 and 5 seats never pass
        ``across``.

        :raises CardParseError: a hand is not 13 (17, 10, 8) distinct cards, or cards repeat
            across hands, or a hand holds a card the rules leave out.
        :raises ValueError: ``kind``, ``leader`` or ``trump`` with Hearts rules; ``across``
            with 3 or 5 seats; ``scores`` not one per seat.
        """
        rules = _rules(rules)
        if scores is None:
            scores = (0,) * rules.players
        if rules.is_kierki:
            p = cls.from_kierki_hands(hands, rules, kind or "tricks", leader, trump, scores=scores)
            if pass_direction != "hold":
                raise ValueError("Kierki has no passing (docs/rules.md B1): leave pass_direction")
            return p
        if kind is not None or leader is not None or trump is not None:
            raise ValueError("kind, leader and trump set up Kierki deals; give Kierki rules")
        p = cls(rules)
        n = rules.players
        size = int(hearts_hand_size(n))
        dealt = _dealt(hands, n, size)
        left_out = mask_of([c for cards in dealt for c in cards]) & ~int(
            rules_deck(p.rules_array)
        )
        if left_out:
            how = {3: f"removed_card={rules.removed_card}", 5: f"removed_pair={rules.removed_pair}"}
            raise CardParseError(
                format_mask(left_out),
                f"Hearts for {n} with {how.get(n, 'players=6')} leaves the "
                f"{format_mask(left_out)} out of the deal (A1.1)",
            )
        if len(scores) < n:
            raise ValueError(f"scores: give one per seat ({n}), not {len(scores)}")
        if pass_direction not in PASS_DIRECTIONS:
            raise ValueError(f"pass direction {pass_direction!r}; use one of {PASS_DIRECTIONS}")
        if n % 2 and pass_direction == "across":
            raise ValueError(f"Hearts for {n} never passes across: use left, right or hold")
        st = p.state
        new_game(st.public, st.private, st.hidden, st.rngs, p.rules_array, seed_to_u64(0), 0)
        for seat, cards in enumerate(dealt):  # H_DECK keeps the dealing order
            st.private[seat, V_HAND] = st.private[seat, V_DEALT] = mask_of(cards)
            for k, c in enumerate(cards):
                st.hidden[H_DECK + size * seat + k] = c
        for seat in range(n):
            st.public[P_SCORES + seat] = scores[seat]
        direction = PASS_DIRECTIONS.index(pass_direction)
        st.public[P_PASS_DIR] = direction
        start_play(st.public, st.private)
        if direction == PASS_HOLD:
            st.hidden[H_PHASE] = PH_PLAY
        else:
            st.hidden[H_PHASE] = PH_PASS
            st.hidden[H_PASS_SEAT] = 0
        return p

    @classmethod
    def from_kierki_hands(
        cls,
        hands: Sequence[str | CardMask | Sequence[int]],
        rules: Rules | str,
        kind: str = "tricks",
        leader: int | None = None,
        trump: str | None = None,
        scores: Sequence[int] = (0, 0, 0, 0),
        plays: str | Sequence[int] = "",
    ) -> Position:
        """Set up a Kierki deal (docs/rules.md part B) from given hands, ready for its first
        card.

        hands: one per seat, seat 0 first (3 or 4 as ``rules.players``), each 13 cards
        (3 players: 17; all of B1's deck, no card twice), card codes or lists in dealing
        order, or masks. kind: the deal kind (``tricks`` ... ``lottery``,
        :data:`hsim.model.rules.KIERKI_KINDS`). The deal sits where that kind first comes
        in a game (B1's table), so the deals after it follow as in a game. leader: the seat
        that leads trick 1 (the lottery: plays the first card); default the seat B1 gives.
        The dealer is the seat right of the leader (in the lottery with
        ``lottery_leader=dealer``, the leader). trump: a trump deal's trump suit ``C``,
        ``D``, ``S``, ``H``, or ``none`` (with ``allow_no_trump``), named by the seat
        ``trump_chooser`` gives; required for a trump deal, refused for the others.
        scores: the game scores before the deal. plays: cards to play from there
        (:meth:`play`).

        :raises CardParseError: hands that are not the deck dealt evenly.
        :raises ValueError: rules not Kierki, an unknown kind or trump, a bad leader.
        :raises IllegalPlayError: one of ``plays`` is not legal.
        """
        rules = _rules(rules)
        if not rules.is_kierki:
            raise ValueError("from_kierki_hands sets up Kierki deals; give Kierki rules")
        n = rules.players
        if kind not in KIERKI_KINDS:
            raise ValueError(f"kind={kind!r}: use one of {', '.join(KIERKI_KINDS)}")
        dealt = _dealt(hands, n, int(hand_size(n)))
        seen = mask_of([c for cards in dealt for c in cards])
        if seen != int(deck_mask(n)):
            raise CardParseError(format_mask(seen), f"not the {n}-player deck (docs/rules.md B1)")
        kinds = [KIERKI_KINDS[int(deal_kind(k, n, 1))] for k in range(int(n_deals(n, 1)))]
        k = kinds.index(kind) - (1 if kind in ("trump", "lottery") and not rules.rebel else 0)
        by_dealer = kind == "lottery" and rules.lottery_leader == "dealer"
        if leader is None:
            dealer = k % n
            leader = dealer if by_dealer else (dealer + 1) % n
        if isinstance(leader, bool) or leader not in range(n):
            raise ValueError(f"leader={leader!r}: give a seat 0..{n - 1}")
        dealer = leader if by_dealer else (leader - 1) % n
        choices = TRUMP_CHOICES if rules.allow_no_trump else TRUMP_CHOICES[:-1]
        if kind == "trump":
            if trump not in choices:
                raise ValueError(f"trump={trump!r}: a trump deal needs one of {', '.join(choices)}")
        elif trump is not None:
            raise ValueError(f"trump={trump!r}: only a trump deal has a trump")
        p = cls(rules)
        st = p.state
        new_kierki_game(st.public, st.private, st.hidden, st.rngs, p.rules_array, seed_to_u64(0), 0)
        pub = st.public
        pub[P_DEAL] = k
        for seat, cards in enumerate(dealt):  # H_DECK keeps the dealing order (B1)
            st.private[seat, V_HAND] = st.private[seat, V_DEALT] = mask_of(cards)
            for j, c in enumerate(cards):
                st.hidden[H_DECK + j * n + (seat - dealer - 1) % n] = c
            pub[P_OUT + seat] = 0
            pub[P_SCORES + seat] = scores[seat]
        reset_deal(pub, n, leader)
        pub[P_KIND] = KIERKI_KINDS.index(kind)
        pub[P_DEALER] = dealer
        pub[P_PASS_DIR] = pub[P_TRUMP] = pub[P_TRUMP_CHOOSER] = pub[P_START_RANK] = -1
        st.hidden[H_TRUMP_CHOICE] = -1
        if kind == "lottery":
            pub[P_TRICK_LEADER] = -1  # the lottery has no tricks
        if kind == "trump":
            choice = TRUMP_CHOICES.index(trump)
            st.hidden[H_TRUMP_CHOICE] = choice
            pub[P_TRUMP] = choice if choice < TRUMP_NONE else -1
            pub[P_TRUMP_CHOOSER] = dealer if rules.trump_chooser == "dealer" else (dealer + 1) % n
        st.hidden[H_PHASE] = PH_PLAY
        p._kierki = (kind, leader, trump)
        if plays:
            p.play(plays)
        return p

    @classmethod
    def from_deal_file(cls, text: str, rules: Rules | str = "kierki4", index: int = 0) -> Position:
        """Set up deal ``index`` (0-based) of a Kierki deal file (the open Kierki servers'
        format, :func:`hsim.model.notation.parse_deal_file`; docs/rules.md B6) under
        ``rules`` (Kierki for 4 players).

        :raises CardParseError: a malformed file. :raises ValueError: rules not Kierki
            for 4, or no deal ``index``.
        """
        rules = _rules(rules)
        if not rules.is_kierki or rules.players != 4:
            raise ValueError("a Kierki deal file holds 4-player Kierki deals: give rules kierki4")
        deals = parse_deal_file(text)
        if not 0 <= index < len(deals):
            raise ValueError(f"the deal file holds {len(deals)} deal(s); no deal {index + 1}")
        d = deals[index]
        return cls.from_kierki_hands(list(d.hands), rules, d.kind, d.leader)

    def deal_file(self) -> str:
        """Return this Kierki deal as a Kierki deal file (the hands as dealt; the plays are
        not part of the format), which :meth:`from_deal_file` reads back.

        :raises ValueError: not a 4-player Kierki deal of kinds 1-7 (B2).
        """
        kind = KIERKI_KINDS[int(self.state.public[P_KIND])] if self.rules.is_kierki else None
        if self.rules.players != 4 or kind not in DEAL_FILE_KINDS:
            raise ValueError("only 4-player Kierki penalty deals (B2) have a deal file")
        leader = int(self.state.public[P_TRICK_LEADER])
        return format_deal_file([KierkiDeal(kind, leader, self.dealt_hands())])

    def dealt_hands(self) -> tuple[tuple[int, ...], ...]:
        """Return each seat's hand as dealt, in dealing order (seat 0 first)."""
        st, n = self.state, self.rules.players
        size = int(hand_size(n) if self.rules.is_kierki else hearts_hand_size(n))
        if not self.rules.is_kierki:
            return tuple(
                tuple(int(c) for c in st.hidden[H_DECK + size * s : H_DECK + size * s + size])
                for s in range(n)
            )
        dealer = int(st.public[P_DEALER])
        return tuple(
            tuple(int(st.hidden[H_DECK + j * n + (s - dealer - 1) % n]) for j in range(size))
            for s in range(n)
        )

    # -- reading --------------------------------------------------------------------------
    @property
    def to_act(self) -> int:
        """The seat whose card (or pass, or moon choice) is due."""
        return int(self.state.public[P_TO_ACT])

    def hand(self, seat: int) -> CardSet:
        """Cards ``seat`` holds now (a :class:`~hsim.model.cards.CardSet`, a mask)."""
        return CardSet(int(self.state.private[seat, V_HAND]))

    def legal(self) -> CardSet:
        """The cards the seat to act may play now (a :class:`~hsim.model.cards.CardSet`;
        docs/rules.md A1.3-A1.7, Kierki B2)."""
        st = self.state
        legal = kierki_legal if self.rules.is_kierki else legal_plays
        return CardSet(int(legal(st.public, self.rules_array, st.private[self.to_act, V_HAND])))

    @property
    def phase(self) -> str:
        """``pass``, ``play``, ``moon`` (a New Moon choice is due), ``trump`` (Kierki: the
        chooser names trump), ``deal_over`` (the deal is scored and the game goes on) or
        ``game_over`` (the deal ended the game).
        """
        return {
            PH_PASS: "pass",
            PH_PLAY: "play",
            PH_MOON: "moon",
            PH_TRUMP: "trump",
            PH_GAME_OVER: "game_over",
            PH_DEAL_START: "deal_over",
        }[int(self.state.hidden[H_PHASE])]

    @property
    def scores(self) -> tuple[int, ...]:
        """Game scores per seat before this deal."""
        return tuple(int(x) for x in self.state.public[P_SCORES : P_SCORES + self.rules.players])

    # -- printing -------------------------------------------------------------------------
    def spec(self):
        """Return the :class:`hsim.model.notation.PositionSpec` of this deal: the hands as dealt,
        the pass direction, the passes made (None before the exchange) and the plays.

        :raises ValueError: a Kierki position (no deal notation; see :meth:`from_game`).
        """
        if self.rules.is_kierki:
            raise ValueError("Kierki positions have no deal notation; use repr() instead")
        st = self.state
        n = self.rules.players
        hands = self.dealt_hands()
        direction = PASS_DIRECTIONS[int(st.public[P_PASS_DIR])]
        passes = tuple(int(st.private[s, V_PASSED]) for s in range(n))
        if not any(passes) and self.phase == "pass":  # passes made, the exchange not yet
            pending = tuple(int(st.hidden[H_PENDING_PASS + s]) for s in range(n))
            passes = pending if all(pending) else passes
        played = int(st.public[P_N_PLAYS])
        plays = tuple(int(c) for c in st.public[P_PLAY_CARD : P_PLAY_CARD + played])
        return PositionSpec(hands, direction, passes if any(passes) else None, plays)

    def to_text(self) -> str:
        """Return the one-line position string; :meth:`from_text` reads it back."""
        return self.spec().to_text()

    def _kierki_call(self) -> str:
        """Return the Python call that builds this Kierki position again."""
        if self._kierki is None:
            return self._origin or f"<Kierki position, rules {canonical(self.rules)}>"
        kind, leader, trump = self._kierki
        hands = [" ".join(format_card(c) for c in h) for h in self.dealt_hands()]
        extra = f", trump={trump!r}" if trump else ""
        n = int(self.state.public[P_N_PLAYS])
        plays = " ".join(
            format_card(int(c)) for c in self.state.public[P_PLAY_CARD : P_PLAY_CARD + n]
        )
        extra += f", plays={plays!r}" if plays else ""
        if any(self.scores):
            extra += f", scores={self.scores!r}"
        return (
            f"Position.from_kierki_hands({hands!r}, {canonical(self.rules)!r}, kind={kind!r}, "
            f"leader={leader}{extra})"
        )

    def __str__(self) -> str:
        if self.rules.is_kierki:
            return self._kierki_call()
        flags = self.spec().flags()
        if self.rules != Rules():
            flags = ["--rules", canonical(self.rules), *flags]
        if any(self.scores):  # only `hsim choose` takes them
            flags += ["--scores", ",".join(str(x) for x in self.scores)]
        return " ".join(shlex.quote(f) for f in flags)

    def __repr__(self) -> str:
        if self.rules.is_kierki:
            return self._kierki_call()
        extra = "" if self.rules == Rules() else f", rules={canonical(self.rules)!r}"
        if any(self.scores):
            extra += f", scores={self.scores!r}"
        return f"Position.from_text({self.to_text()!r}{extra})"

    @property
    def rows(self) -> np.ndarray:
        """Deal rows written so far (one per seat per finished deal)."""
        return self._deals[: self.state.hidden[H_DEAL_ROWS]]

    # -- moving ---------------------------------------------------------------------------
    def pass_cards(self, passes: Sequence[str | CardMask | Sequence[int]]) -> None:
        """Make every seat's pass (seat 0 first), then the exchange happens at once.

        :raises IllegalPlayError: a pass is not 3 cards of that seat's hand.
        """
        if self.phase != "pass":
            raise IllegalPlayError("no pass is due in this deal")
        if len(passes) != self.rules.players:
            n = self.rules.players
            raise IllegalPlayError(f"give {n} passes, one per seat, not {len(passes)}")
        st = self.state
        for seat, cards in enumerate(passes):
            m = _mask(cards)
            if submit_pass(st.public, st.private, st.hidden, m) != ST_OK:
                raise IllegalPlayError(
                    f"seat {seat} cannot pass [{format_mask(m)}]: a pass is 3 cards of its hand"
                    f" [{format_mask(self.hand(seat))}]"
                )

    def play(self, cards: str | int | Sequence[int]) -> None:
        """Play cards in order (``"2C 5C QC"``, one card int, or a list).

        :raises IllegalPlayError: a card is not held or not allowed; the message says which.
        """
        sequence = (
            [cards]
            if isinstance(cards, int)
            else (parse_cards(cards) if isinstance(cards, str) else list(cards))
        )
        st = self.state
        submit = submit_kierki_play if self.rules.is_kierki else submit_play
        for c in sequence:
            if self.phase != "play":
                raise IllegalPlayError(f"cannot play {format_card(c)}: the deal is not in play")
            seat = self.to_act
            legal = self.legal()
            if (
                submit(
                    st.public, st.private, st.hidden, self.rules_array, c, self._deals, self._games
                )
                != ST_OK
            ):
                why = (
                    "does not hold it"
                    if not self.hand(seat) >> c & 1
                    else (f"the rules allow only [{format_mask(legal)}]")
                )
                raise IllegalPlayError(f"seat {seat} cannot play {format_card(c)}: {why}")

    def choose_moon(self, choice: str) -> None:
        """Give the shooter's New Moon choice: ``add``, ``subtract`` or ``default``."""
        code = {"default": 0, "add": 1, "subtract": 2}[choice]
        st = self.state
        submit_moon(
            st.public, st.private, st.hidden, self.rules_array, code, self._deals, self._games
        )

    def play_out(self) -> None:
        """Play the rest of the deal, each seat playing its lowest legal card."""
        while self.phase == "play":
            legal = self.legal()
            self.play((legal & -legal).bit_length() - 1)

    def perft(self, depth: int, divide: bool = False) -> tuple[int, dict[int, int]]:
        """Count the legal play sequences of length ``depth`` from here (depth 0..52).

        Returns (total, per first card): with ``divide`` the count under each legal next
        card (``{card: count}``), else an empty dict. Compiles (or loads) the counter
        first. :raises IllegalPlayError: the position is not in its play phase.
        """

        if self.phase != "play":
            raise IllegalPlayError(
                f"the position is in its {self.phase} phase; perft counts plays "
                "(give --passes for a deal with a pass)"
            )
        if self.rules.is_kierki:
            return self._kierki_perft(depth, divide)
        st = self.state
        pf.perft(st.public, st.private, self.rules_array, 0)  # compile (or load) first
        if not (divide and depth > 0):
            return int(pf.perft(st.public, st.private, self.rules_array, depth)), {}
        out = np.zeros(52, np.int64)
        total = int(pf.divide(st.public, st.private, self.rules_array, depth, out))
        legal = self.legal()
        return total, {c: int(out[c]) for c in range(52) if legal >> c & 1}

    def _kierki_perft(self, depth: int, divide: bool) -> tuple[int, dict[int, int]]:
        """:meth:`perft` of a Kierki deal, through the same kernels as play (B2-B4), in
        Python: a copy of the position per node, so keep ``depth`` small (about 5)."""
        per_card = {}
        if depth > 0 and self.phase == "play":
            for c in cards_of(int(self.legal())):
                child = copy.deepcopy(self)
                child.play(c)
                per_card[c] = child._kierki_perft(depth - 1, False)[0]
        total = sum(per_card.values()) if depth > 0 else 1
        return total, per_card if divide else {}
