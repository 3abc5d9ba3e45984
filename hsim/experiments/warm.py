"""``hsim warm``: compile everything a user can run, once, and time each part.

numba caches compiled code per hsim version (:mod:`hsim.engine._numba`); a cold cache
makes the first command that needs a part wait for it (a minute or more). Warming does
that wait up front, part by part, says what it is doing, and keeps each part's time
(:func:`hsim.strategy.notice.record_seconds`) so that later compile notices give this
machine's times.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hsim.engine import _numba
from hsim.model.rules import parse_rules
from hsim.strategy import notice
from hsim.strategy.loader import BUILTIN_PACKAGE, load_players


@dataclass
class WarmStep:
    """One part to compile. what: its name in compile notices (``engine``, a bot's name,
    ``heuristic's game loop``, a part of :func:`hsim.strategy.notice.part_sources`);
    cold: whether the cache lacked it before; run: compiles (or loads) it."""

    what: str
    cold: Callable[[], bool]
    run: Callable[[], None]


def _engine() -> None:
    # deferred: importing the game modules is what compiles the engine
    import hsim.play.games as games

    games.kierki_game()


def _bot_modules() -> list[str]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__))


def _bot_step(module: str) -> WarmStep:
    source = Path(importlib.util.find_spec(f"{BUILTIN_PACKAGE}.{module}").origin)
    name = "random" if module == "random_bot" else module
    return WarmStep(
        name,
        lambda: bool(notice.cold_sources([source])),
        lambda: importlib.import_module(f"{BUILTIN_PACKAGE}.{module}"),
    )


def _loop_step(bot: str) -> WarmStep:
    def run() -> None:
        # deferred: importing a game module compiles the engine, timed by its own step
        from hsim.play.games import hearts_loop

        hearts_loop([p.compiled for p in load_players([bot] * 4)])

    return WarmStep(
        f"{bot}'s game loop",
        lambda: notice.cold_function(notice.ENGINE_SOURCES[0], notice.loop_name(bot)),
        run,
    )


def _part_cold(part: str) -> Callable[[], bool]:
    return lambda: any(notice.cold_function(p.resolve(), f) for p, f in notice.part_sources(part))


def _step_by_step() -> None:
    # deferred: importing a game module compiles the engine, which a step of its own times
    from hsim.analysis.replay import replay_game

    replay_game(parse_rules("classic"), load_players(["random"] * 4), 1, 0)


def _analysis() -> None:
    # deferred: as in _step_by_step
    from hsim.analysis.analyse import analyse_position
    from hsim.play.position import Position

    analyse_position(Position.from_game("classic", ["random"] * 4, until="play"))


def _perft() -> None:
    # deferred: as in _step_by_step
    from hsim.play.position import Position

    Position.from_game("classic", ["random"] * 4, until="play").perft(1)


def _rescore() -> None:
    # deferred: as in _step_by_step
    from hsim.analysis.frames import load_run, rescore_run
    from hsim.runner.config import RunConfig
    from hsim.runner.run import run_tournament

    with tempfile.TemporaryDirectory(prefix="hsim-warm-") as tmp:
        config = RunConfig(rules=parse_rules("classic"), players=("random",) * 4, games=1, seed=1)
        run_tournament(config, Path(tmp) / "run", workers=1, progress=False)
        rescore_run(load_run(Path(tmp) / "run"), "omnibus=true")


def warm_steps() -> list[WarmStep]:
    """Return every part to compile, in the order :func:`warm` compiles them."""
    steps = [WarmStep("engine", lambda: bool(notice.cold_sources(notice.ENGINE_SOURCES)), _engine)]
    steps += [_bot_step(m) for m in _bot_modules()]
    steps += [_loop_step(bot) for bot in sorted(notice.IN_LOOP)]
    steps += [
        WarmStep("the step-by-step game", _part_cold("the step-by-step game"), _step_by_step),
        WarmStep("the analysis", _part_cold("the analysis"), _analysis),
        WarmStep("perft", _part_cold("perft"), _perft),
        WarmStep("rescore", _part_cold("rescore"), _rescore),
        WarmStep(
            "the learning environments",
            _part_cold("the learning environments"),
            lambda: importlib.import_module("hsim.bridges.rl.tables"),
        ),
    ]
    return steps


@dataclass
class WarmResult:
    """What one step did: what, cold (compiled rather than loaded), seconds."""

    what: str
    cold: bool
    seconds: float


def warm(ticker: bool = False) -> Iterator[tuple[WarmStep, Callable[[], WarmResult]]]:
    """Yield each step with a function that runs it and returns its :class:`WarmResult`
    (so that a caller can say what is next before it waits). A cold step's time is
    kept for later estimates. ticker: show the elapsed time of each cold step on stderr.

    With ``NUMBA_DISABLE_JIT`` nothing compiles: no step is yielded.
    """
    if _numba.JIT_DISABLED:
        return
    estimates = notice.measured_seconds()
    for step in warm_steps():

        def run(step: WarmStep = step) -> WarmResult:
            cold = step.cold()
            if cold and ticker:
                default = notice.COMPILE_SECONDS.get(step.what, notice.OTHER_COMPILE_SECONDS)
                notice.start_ticker([(step.what, estimates.get(step.what, default))])
            t0 = time.monotonic()
            try:
                step.run()
            except BaseException:
                notice.stop_ticker(done=False)
                raise
            seconds = time.monotonic() - t0
            if cold:
                notice.stop_ticker(done=False)
                if seconds >= 1:
                    notice.record_seconds(step.what, seconds)
            return WarmResult(step.what, cold, seconds)

        yield step, run


def still_cold() -> list[str]:
    """Return the steps whose code the cache still lacks (empty after a full warm)."""
    return [s.what for s in warm_steps() if s.cold()]
