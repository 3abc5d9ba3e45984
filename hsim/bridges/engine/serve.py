"""``hsim serve SPEC``: any hsim strategy as an engine of the protocol (docs/protocol.md),
so hsim's bots can play at other tables.

Each request is read back into the observation a seat has in process
(:func:`~hsim.bridges.engine.protocol.arrays_from_request`) and answered by the strategy's
own decision, so a deterministic bot served answers exactly as it plays in process. A
bot that draws random numbers draws them from the request's ``seed``.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

import numpy as np

from hsim.bridges.engine.protocol import (
    MAX_LINE,
    MOON,
    PASS,
    PLAY,
    PROTOCOL,
    TRUMP,
    ProtocolError,
    answer,
    arrays_from_request,
    decode,
    encode,
    mask,
    names,
)
from hsim.engine.choices import longest_suit
from hsim.engine.kierki import KIND_LOTTERY
from hsim.engine.layout import (
    P_KIND,
    P_N_PLAYS,
    P_N_SEATS,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_PLAYED,
    P_TRICK,
    P_TRICK_CARDS,
    P_TRICK_LEN,
    V_HAND,
    V_SEAT,
)
from hsim.errors import RulesError, describe, strategy_failure
from hsim.model.rules import Rules, parse_rules
from hsim.strategy.contract import LoadedStrategy, Observation, StrategyError
from hsim.strategy.loader import check_game, load


class Server:
    """Answers the protocol's requests with one loaded strategy (``hsim serve``).

    :raises StrategyError: (``load``) the spec does not name a strategy.
    """

    def __init__(self, spec: str) -> None:
        self.loaded: LoadedStrategy = load(spec)
        self.spec = spec
        self.rules: Rules | None = None
        self.rules_array: np.ndarray | None = None
        self.player = None
        self.last_deal: dict[int, int] = {}

    def hello(self, message: dict) -> dict:
        """Answer the hello: check the rules and game, say the protocol and the name."""
        self.rules = None  # until this hello is accepted: no request is answered
        if message.get("protocol", PROTOCOL) != PROTOCOL:
            return {
                "error": f"this engine speaks protocol {PROTOCOL}, the hello says "
                f"{str(message.get('protocol'))[:40]}"
            }
        try:
            rules = parse_rules(str(message.get("rules", "")))
        except RulesError as exc:
            return {"error": f"cannot play these rules: {exc}"}
        try:
            check_game(self.loaded, rules.game)
            if self.loaded.check_rules is not None:
                self.loaded.check_rules(rules)
        except StrategyError as exc:
            return {"error": str(exc)}
        self.rules = rules
        self.rules_array = self.rules.to_array()
        if self.loaded.kind == "python":
            self.player = self.loaded.python_factory()
        self.last_deal = {}
        said = {"protocol": PROTOCOL, "name": self.loaded.name, "hsim_spec": self.spec}
        if self.player is None:  # a compiled bot keeps nothing between requests
            said["pipeline"] = True
        return said

    def decide(self, message: dict) -> dict:
        """Answer one decision request (``pass``, ``play``, ``moon``, ``trump``)."""
        kind = message.get("type")
        if kind not in (PASS, PLAY, MOON, TRUMP):
            return {"error": f"unknown request type {kind!r}"}
        if self.rules is None:
            return {"error": "a request before the hello"}
        if "players" in message and message["players"] != self.rules.players:
            raise ProtocolError(
                f"players {str(message.get('players'))[:20]}, but the hello's rules are for "
                f"{self.rules.players} seats"
            )
        public, private = arrays_from_request(message, self.rules_array)
        try:
            legal = mask(message["legal"], "legal") if kind == PLAY else 0
            seed = int(message.get("seed", 0)) & ((1 << 63) - 1)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ProtocolError(f"a request field is missing or malformed ({exc!r})") from None
        if kind == PLAY and (legal == 0 or legal & ~int(private[V_HAND])):
            raise ProtocolError("legal must name cards of the hand, at least one")
        impossible_request(kind, public, private, self.rules)
        if self.player is None:
            value = self._compiled(kind, public, private, legal, seed)
        else:
            value = self._python(kind, public, private, legal, seed)
        return answer(kind, value)

    def _compiled(self, kind, public, private, legal, seed) -> int:
        bundle, params = self.loaded.compiled, self.loaded.params
        rng = np.array([seed], np.uint64)
        if kind == PLAY:
            return int(bundle.play(public, private, legal, rng, params))
        if kind == PASS:
            return int(bundle.pass_cards(public, private, rng, params))
        if kind == MOON:
            return int(bundle.moon_choice(public, private, rng, params))
        return int(bundle.trump_choice(public, private, rng, params))

    def _python(self, kind, public, private, legal, seed) -> int:
        public.flags.writeable = private.flags.writeable = False
        obs = Observation(public, private, self.rules)
        rng = np.random.Generator(np.random.PCG64(seed))
        seat = obs.seat
        if obs.deal < self.last_deal.get(seat, 1 << 62) or seat not in self.last_deal:
            hook = getattr(self.player, "new_game", None)  # a new game: its deals restart
            if hook is not None:
                hook(seat, self.rules)
        self.last_deal[seat] = obs.deal
        if kind == PLAY:
            return int(self.player.play(obs, legal, rng))
        if kind == PASS:
            return int(self.player.pass_cards(obs, rng))
        choose = getattr(self.player, "moon_choice" if kind == MOON else "trump_choice", None)
        if choose is not None:
            return int(choose(obs, rng))
        return 0 if kind == MOON else int(longest_suit(obs.hand))

    def answer_line(self, line: bytes) -> bytes:
        """Return the answer line to one request line; a request that cannot be answered
        gets ``{"error": ...}`` (the table then reports the seat's failure)."""
        try:
            message = decode(line, "request")
            if message.get("type") == "hello":
                return encode(self.hello(message))
            return encode(self.decide(message))
        except ProtocolError as exc:
            return encode({"error": str(exc)})
        except BaseException as exc:
            if not strategy_failure(exc):
                raise
            return encode({"error": f"strategy {self.spec!r} {describe(exc)}"})


def impossible_request(kind: str, public: np.ndarray, private: np.ndarray, rules: Rules) -> None:
    """Refuse a request no deal of ``rules`` can give (arrays of
    :func:`~hsim.bridges.engine.protocol.arrays_from_request`): a seat out of range, a
    card played twice or still in the hand, and a hand or a list of plays of the wrong
    size for the trick (docs/rules.md A1.1, B1; not in Kierki's lottery, which has no
    tricks, nor while naming trump, which shows part of the hand). A strategy assumes a
    position that can happen; a search may never end on one that cannot.

    :raises ProtocolError: what is impossible, in words.
    """
    n = int(public[P_N_SEATS])
    plays = int(public[P_N_PLAYS])
    seats = public[P_PLAY_SEAT : P_PLAY_SEAT + plays]
    if plays and (seats.min() < 0 or seats.max() >= n):
        raise ProtocolError(f"plays names a seat outside 0..{n - 1}")
    cards = public[P_PLAY_CARD : P_PLAY_CARD + plays]
    if len(set(cards.tolist())) != plays:
        raise ProtocolError("plays holds a card twice")
    hand = int(private[V_HAND])
    seen = int(public[P_PLAYED]) | int(public[P_TRICK_CARDS])
    if hand & seen:
        raise ProtocolError(f"the hand holds {' '.join(names(hand & seen))}, already played")
    if kind not in (PASS, PLAY) or (rules.game == "kierki" and public[P_KIND] == KIND_LOTTERY):
        return
    dealt = 52 // n  # cards per hand and tricks per deal (A1.1)
    size = bin(hand).count("1")
    if kind == PASS:
        if size != dealt or plays:
            raise ProtocolError(
                f"a pass comes before any play, from a hand of {dealt} cards (this one: {size})"
            )
        return
    trick, in_trick = int(public[P_TRICK]), int(public[P_TRICK_LEN])
    if not 0 <= trick < dealt or not 0 <= in_trick < n or plays != trick * n + in_trick:
        raise ProtocolError(
            f"trick {trick} with {in_trick} cards in it comes after {trick * n + in_trick} "
            f"plays with {n} seats (plays holds {plays})"
        )
    mine = int((seats == private[V_SEAT]).sum())
    if size != dealt - mine:
        raise ProtocolError(
            f"the hand holds {size} cards; a seat that has played {mine} of its {dealt} "
            f"holds {dealt - mine}"
        )


def serve(spec: str, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Answer requests from ``stdin`` on ``stdout`` until stdin closes (docs/protocol.md).

    :raises StrategyError: the spec does not name a strategy (before anything is read).
    """
    server = Server(spec)
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        rest = line
        while len(rest) > MAX_LINE and not rest.endswith(b"\n"):
            rest = stdin.readline(MAX_LINE + 1)  # skip the overlong line: one answer for it
        if line.strip():
            stdout.write(server.answer_line(line))
            stdout.flush()
