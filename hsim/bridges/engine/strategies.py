"""Outside programs at hsim's table: ``engine:CMD ARGS`` in ``--players``
(:func:`strategy_class`, which the loader calls by name; docs/protocol.md).

``engine:./mybot --depth 3`` runs ``./mybot --depth 3`` (split as a POSIX shell splits
words, without a shell) once per seat in each hsim process that plays it, lazily, and
asks it every decision of that seat over stdin/stdout. Parameters after the command:
``engine:./mybot(timeout=2)``.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from hsim import __version__
from hsim.bridges.engine.process import START_TIMEOUT_S, EngineFailure, engine_for
from hsim.bridges.engine.protocol import (
    MOON,
    PASS,
    PLAY,
    PROTOCOL,
    TRUMP,
    Fields,
    ProtocolError,
    answer_value,
    hello,
    request,
)
from hsim.errors import EngineError, StrategySpecError
from hsim.model.rules import Rules, canonical
from hsim.strategy.contract import Param
from hsim.strategy.specs import ENGINE_PREFIX, engine_command, parse_spec

#: Suffixes of the files among an engine command's words that :func:`program_paths`
#: covers besides executables: code and model weights an engine reads, not the logs or
#: state files it may write (``--log bot.log``), which change while it plays.
_SUFFIXES = (
    ".py .pyc .pyz .js .mjs .cjs .ts .rb .pl .pm .php .lua .tcl .r .jl .sh .bash "
    ".jar .class .war .wasm .so .dll .dylib .exe .bin .onnx .pt .pth .pb .h5 .keras "
    ".npz .npy .safetensors .ckpt .tflite .pkl .joblib"
)
PROGRAM_SUFFIXES = frozenset(_SUFFIXES.split())


def program_paths(spec: str) -> list[Path]:
    """Return the files an ``engine:CMD ARGS`` spec runs, absolute: its program, found as
    the engine is started (on PATH, or a path; links followed), then each word of the
    command that names, from the current folder, a regular file that is executable or
    has a suffix of :data:`PROGRAM_SUFFIXES` (a script, a jar, weights). [] for a spec
    that is no engine command or names no such file.

    A run records their sha256 (``program_files`` in run.json's players,
    :func:`hsim.runner.config.recorded_program_files`) so that a resume notices an engine
    changed since (docs/protocol.md). An option that holds a file name
    (``--model=net.bin``) is not looked into.
    """
    try:
        argv = engine_command(parse_spec(spec)[0])
    except StrategySpecError:
        return []
    files = []
    program = shutil.which(argv[0]) if argv else None
    if program:
        files.append(Path(program).resolve())
    for word in (argv or [])[1:]:
        try:
            path = Path(word).expanduser()
            info = os.stat(path)
        except (OSError, ValueError, RuntimeError):  # no file (a flag, ~nosuchuser, a NUL)
            continue
        program_like = info.st_mode & 0o111 or path.suffix.lower() in PROGRAM_SUFFIXES
        if stat.S_ISREG(info.st_mode) and program_like:
            files.append(path.resolve())
    return files


def strategy_class(command: str) -> type:
    """Return the plain-Python strategy class that plays through the engine ``command``.

    :raises StrategySpecError: an empty command or one a shell could not split (an
        unclosed quote): :func:`hsim.strategy.specs.engine_command`.
    """
    argv = engine_command(ENGINE_PREFIX + command)

    class Engine(EngineStrategy):
        __doc__ = f"The outside engine ``{command}``."

    Engine.argv = argv
    Engine.command = command
    return Engine


class EngineStrategy:
    """A seat played by an outside program (docs/protocol.md).

    timeout: seconds the engine may take per decision; start_timeout: seconds it may take
    to start and answer the hello. Plays Hearts and Kierki (the hello says which).

    :raises EngineError: (from any decision) the engine could not start, crashed, hung,
        wrote something that is not an answer, or reported an error; the driver adds the
        game, seat and run seed. An illegal or unheld card is refused by hsim's rules like
        any strategy's (a StrategyError).
    """

    games = ("hearts", "kierki")
    params = {
        "timeout": Param(10.0, float, 0.001, 86400, "seconds the engine may take per decision"),
        "start_timeout": Param(
            START_TIMEOUT_S, float, 0.001, 86400, "seconds it may take to start and say hello"
        ),
    }
    argv: list[str] = []
    command = ""

    def __init__(self, timeout: float = 10.0, start_timeout: float = START_TIMEOUT_S) -> None:
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.engine = None
        self.hello: dict | None = None

    def new_game(self, seat: int, rules: Rules) -> None:
        """Pick this process's engine for ``seat`` under ``rules`` (it starts on the first
        decision)."""
        text = canonical(rules)
        self.hello = hello(text, rules.game, rules.players, __version__)
        self.engine = engine_for(self.argv, seat, text, self.command)

    def start_engine(self) -> None:
        """Start the engine if it is not running and check its hello answer.

        :raises EngineError: it could not start or answered the hello wrongly.
        """
        engine = self.engine
        try:
            if not engine.running:
                said = engine.start(self.hello, self.start_timeout)
                if said.get("error") is not None:  # it cannot play these rules
                    engine.stop()
                    raise EngineFailure(
                        f"refused the hello ({self.hello['rules']}): {str(said['error'])[:500]}"
                    )
                if said.get("protocol") != PROTOCOL:
                    engine.stop()
                    raise EngineFailure(
                        f"answered the hello with {said!r}; an engine must answer "
                        f'{{"protocol": {PROTOCOL}, "name": "..."}} (docs/protocol.md)'
                    )
                try:
                    engine.fields = Fields(said.get("fields"))
                except ProtocolError as exc:
                    engine.stop()
                    raise EngineFailure(f"answered the hello wrongly: {exc}") from None
        except EngineFailure as exc:
            raise EngineError(str(exc)) from None

    @property
    def pipelined(self) -> bool:
        """Whether this seat's engine is running and takes several requests at once."""
        return self.engine is not None and self.engine.pipelined

    def request(self, kind: str, obs, legal: int, rng) -> bytes:
        """Return the request line of decision ``kind`` at ``obs`` (the engine started
        first if it is not running); it draws the request's seed from ``rng``.

        :raises EngineError: the engine could not start.
        """
        if self.engine is None:  # a position set up by hand: no new_game was called
            self.new_game(obs.seat, obs.rules)
        self.start_engine()
        public, private = obs.arrays()
        return self.request_at(kind, public, private, legal, rng)

    def request_at(self, kind: str, public, private, legal: int, rng) -> bytes:
        """Return the request line of decision ``kind`` for the observation arrays
        ``public`` and ``private`` (the engine running); its seed is drawn from ``rng``."""
        # The stream's next word halved: what rng.integers(1 << 63) draws (Lemire's
        # bounded draw with a power-of-two range never rejects), at a fifth of its cost.
        seed = rng.bit_generator.random_raw() >> 1
        return request(kind, public, private, legal, seed, self.engine.fields)

    def send(self, lines: bytes) -> None:
        """Write request ``lines`` to the running engine without reading its answers
        (an engine that is :attr:`pipelined`: it answers them in order).

        :raises EngineError: it does not take them (see EngineProcess.send).
        """
        try:
            self.engine.send(lines, self.timeout)
        except EngineFailure as exc:
            raise EngineError(str(exc)) from None

    def receive(self) -> dict:
        """Return the engine's next answer (within ``timeout`` seconds).

        :raises EngineError: see EngineProcess.receive.
        """
        try:
            return self.engine.receive(self.timeout)
        except EngineFailure as exc:
            raise EngineError(str(exc)) from None

    def value(self, kind: str, said: dict) -> int:
        """Return hsim's value of the engine's answer ``said`` to a ``kind`` request.

        :raises EngineError: the answer lacks its field or is malformed (the engine is
            stopped).
        """
        try:
            return answer_value(kind, said)
        except ProtocolError as exc:
            self.engine.stop()
            raise EngineError(str(exc)) from None

    def _ask(self, kind: str, obs, legal: int, rng) -> int:
        self.send(self.request(kind, obs, legal, rng))
        return self.value(kind, self.receive())

    def pass_cards(self, obs, rng) -> int:
        """Return the engine's 3 passed cards (mask)."""
        return self._ask(PASS, obs, 0, rng)

    def play(self, obs, legal: int, rng) -> int:
        """Return the engine's card."""
        return self._ask(PLAY, obs, legal, rng)

    def moon_choice(self, obs, rng) -> int:
        """Return the engine's New Moon choice (0 default, 1 add, 2 subtract)."""
        return self._ask(MOON, obs, 0, rng)

    def trump_choice(self, obs, rng) -> int:
        """Return the engine's Kierki trump (0..3 C, D, S, H; 4 no trump)."""
        return self._ask(TRUMP, obs, 0, rng)
