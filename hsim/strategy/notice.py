"""What a command is about to compile, said before it compiles: the compiled sources of
the engine, the game loops and the built-in bots, which of them the cache lacks
(:func:`cold_sources`, read from numba's cache index without importing anything), and
the line to print (:func:`compile_notice`)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import pickle
import sys
import threading
import time
import types
from collections.abc import Iterable
from pathlib import Path

import numba

from hsim.engine import _numba
from hsim.engine._numba import PACKAGE_DIR
from hsim.errors import StrategySpecError
from hsim.strategy.specs import is_file_target, read_strategy_file

#: The Kierki game loop's module, which a Hearts run loads only when cold (hsim.play.games).
KIERKI_GAME_SOURCE = PACKAGE_DIR / "play" / "kierki_game.py"

# What compiles, and roughly how long a cold compile takes (seconds, with an empty cache
# on a 2-core machine: the engine took 35 s, 64 s before the inliner's copies were
# shared, :func:`_share_copies_when_inlining`; the bots 9-11 s each, pimc 30 s, each
# with the engine cached). The engine's entry
# points are compiled when ``hsim.play.hearts_game`` is imported (explicit signatures),
# together with the light built-in bots their loops call directly (``random``,
# ``lowcard``, ``duck``: hsim.play.seats, about 3 s of the engine's time); the other
# bots' decisions when their module is imported.
ENGINE_SOURCES = (
    PACKAGE_DIR / "play" / "hearts_game.py",
    KIERKI_GAME_SOURCE,
    PACKAGE_DIR / "engine" / "choices.py",
    PACKAGE_DIR / "runner" / "narrow.py",
)
_POSITION_KERNELS = (
    (PACKAGE_DIR / "play" / "hearts_game.py", "new_game"),
    (PACKAGE_DIR / "play" / "hearts_game.py", "submit_pass"),
    (PACKAGE_DIR / "play" / "hearts_game.py", "submit_play"),
    (PACKAGE_DIR / "engine" / "hearts.py", "legal_plays"),
)
#: Compiled on first call, by the commands that need them: ``perft``, ``report
#: --scoring``, and ``choose`` and ``replay``, which play a deal one decision at a time
#: through kernels the game loops never call (``replay`` with the next decision's too):
#: each part's (source, function name or ``*``), every one of which must be cached.
PART_SOURCES = {
    "perft": ((PACKAGE_DIR / "engine" / "perft.py", "*"),),
    "rescore": ((PACKAGE_DIR / "engine" / "rescore.py", "*"),),
    "the position kernels": _POSITION_KERNELS,
    "the step-by-step game": (
        *_POSITION_KERNELS,
        (PACKAGE_DIR / "play" / "hearts_game.py", "next_decision"),
    ),
    # hsim.bridges.rl.tables: the learning environments' compiled step (docs/rl.md)
    "the learning environments": ((PACKAGE_DIR / "bridges" / "rl" / "tables.py", "*"),),
}
#: Parts compiled in a built-in strategy's module: each part's (strategy name, function
#: name), found by :func:`part_sources` when a plan asks (finding one reads its file).
PART_STRATEGIES = {
    # hsim analyse: pimc's scores of every legal card
    "the analysis": (("pimc", "card_means"),),
}
COMPILE_SECONDS = {
    "engine": 35,
    "perft": 8,
    "rescore": 8,
    "the position kernels": 6,
    "the step-by-step game": 7,
    "the learning environments": 80,
    "the analysis": 15,
    "heuristic": 12,
    "kierki": 12,
    "pimc": 30,
    "shooter": 15,
    "game loop": 45,
}
#: The built-in bots compiled into a Hearts loop of their own (``CompiledStrategy.in_loop``;
#: :func:`hsim.play.hearts_game.play_games_with`), known here without importing them: each
#: loop is compiled the first time a run plays its bot, ``COMPILE_SECONDS["game loop"]``.
IN_LOOP = frozenset({"heuristic"})


def loop_name(bot: str) -> str:
    """Return the name of the Hearts loop compiled with built-in bot ``bot`` in it (its
    name in ``play/hearts_game.py``'s cache)."""
    return "play_games_with_" + bot.replace("-", "_")


#: A cold strategy not in :data:`COMPILE_SECONDS` (``lowcard``, ``duck``: ~1 s).
OTHER_COMPILE_SECONDS = 2
#: The estimate of a strategy file not compiled here before: unknown (a file may compile in
#: a second or, as a copy of ``pimc``, in minutes). Its first compile is timed.
UNKNOWN_SECONDS = 0.0


def _file_spec(what: str) -> bool:
    """Return whether ``what``, a name of :func:`compile_plan`, is a strategy file."""
    return is_file_target(what.rpartition(":")[0])


def _index_tag() -> str:
    return f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}.nbi"


def _fresh_index(index: Path, source: Path) -> bool:
    """Return whether numba would use cache index ``index`` of ``source``: written by this
    numba version for the source as it is now (numba's own source stamp)."""
    # deferred: numba's cache internals, loaded only to look up a cache entry
    from numba.core.caching import UserProvidedCacheLocator

    try:
        with open(index, "rb") as f:
            if pickle.load(f) != numba.__version__:
                return False
            stamp, _ = pickle.loads(f.read())
        code = types.SimpleNamespace(co_firstlineno=0)  # the locator reads only this
        locator = UserProvidedCacheLocator(types.SimpleNamespace(__code__=code), str(source))
        return stamp == locator.get_source_stamp()
    except Exception:  # noqa: BLE001 - unreadable or another layout: numba recompiles too
        return False


def cold_sources(sources: Iterable[Path]) -> list[Path]:
    """Return those of ``sources`` (Python files with ``cache=True`` compiled functions)
    whose compiled code is not in the cache: no index file in :data:`_numba.CACHE_DIR`, or one
    written by another numba version or for another version of the file. Looks at the
    files only (nothing is imported or compiled); with ``NUMBA_DISABLE_JIT`` nothing is
    compiled, so nothing is cold.
    """
    if _numba.JIT_DISABLED:
        return []
    return [Path(s).resolve() for s in sources if cold_function(Path(s).resolve(), "*")]


def cold_function(source: Path, function: str) -> bool:
    """Return whether the compiled code of ``function`` (a qualified name or a glob of
    them: ``*``) of ``source`` is missing from the cache or stale (:func:`cold_sources`)."""
    # deferred: numba's cache internals, loaded only to look up a cache entry
    from numba.core.caching import UserProvidedCacheLocator

    if _hsim_source(source):
        folder = Path(numba.config.CACHE_DIR) / UserProvidedCacheLocator.get_suitable_cache_subpath(
            str(source)
        )
    else:  # a strategy file, imported by hsim as hsim_user_...
        folder = _numba.strategy_file_cache_folder(source)
    indexes = list(folder.glob(f"{source.stem}.{function}-*{_index_tag()}"))
    return not indexes or not all(_fresh_index(i, source) for i in indexes)


def _hsim_source(source: Path) -> bool:
    """Return whether ``source`` is a module of hsim or a built-in strategy (imported as
    ``hsim.*``), not a strategy file."""
    folders = [PACKAGE_DIR, *_numba.strategies_folders()]
    return any(source.is_relative_to(folder) for folder in folders)


def strategy_source(spec: str) -> Path | None:
    """Return the source file of a built-in strategy or a ``path/to/file.py:attr`` spec,
    found without importing it (importing compiles it), or None (another kind of spec, or
    a file that does not cache its compiled code).
    """
    name = spec.partition("(")[0].strip()
    target, colon, _ = name.rpartition(":")
    if colon and is_file_target(target):
        return _caching_file(Path(target).expanduser())
    if not name.isidentifier():
        return None
    package = importlib.util.find_spec("hsim.strategies")
    for folder in (package.submodule_search_locations or []) if package else []:
        for stem in (name, f"{name}_bot"):  # as the loader looks built-ins up
            found = _caching_file(Path(folder) / f"{stem}.py")
            if found is not None:
                return found
    return None


def _caching_file(path: Path) -> Path | None:
    """Return ``path`` resolved if it is a file that caches compiled code, else None."""
    try:
        return path.resolve() if b"cache=True" in read_strategy_file(path) else None
    except (OSError, StrategySpecError):  # the loader then says what is wrong with it
        return None


def part_sources(part: str) -> tuple[tuple[Path, str], ...]:
    """Return the (source, function name or ``*``) pairs of ``part``, a name of
    :data:`PART_SOURCES` or :data:`PART_STRATEGIES` (a strategy not found is left out).

    :raises KeyError: no such part.
    """
    if part in PART_SOURCES:
        return PART_SOURCES[part]
    found = ((strategy_source(name), f) for name, f in PART_STRATEGIES[part])
    return tuple((source, f) for source, f in found if source is not None)


def compile_plan(
    specs: Iterable[str] = (), parts: Iterable[str] = (), engine: bool = True, loops: bool = True
) -> list[tuple[str, float]]:
    """Return what a command is about to compile, as (what, rough seconds; a strategy file
    never compiled here: :data:`UNKNOWN_SECONDS`), in order:
    ``engine`` (its entry points and the default decisions; unless ``engine`` is False),
    each of ``parts`` (names of :data:`PART_SOURCES` or :data:`PART_STRATEGIES`, found by
    :func:`part_sources`), then each strategy of ``specs`` (built-in names or strategy
    files) whose code is cold, and after a bot of :data:`IN_LOOP` its game loop when that
    is cold and ``loops`` (a command that plays games; ``hsim choose`` asks one decision
    and never plays in it). Empty when everything is in the cache (or JIT is disabled).
    """
    plan: list[tuple[str, float]] = []
    measured = measured_seconds()

    def seconds(what: str, default: float) -> float:
        return measured.get(what, default)

    if engine and cold_sources(ENGINE_SOURCES):
        plan.append(("engine", seconds("engine", COMPILE_SECONDS["engine"])))
    for part in parts:
        if not _numba.JIT_DISABLED and any(
            cold_function(p.resolve(), f) for p, f in part_sources(part)
        ):
            plan.append((part, seconds(part, COMPILE_SECONDS[part])))
    seen: set[Path] = set()
    for spec in specs:
        source = strategy_source(spec)
        if source is None or source in seen:
            continue
        seen.add(source)
        name = spec.partition("(")[0].strip()
        if cold_sources([source]):
            default = COMPILE_SECONDS.get(name, OTHER_COMPILE_SECONDS)
            plan.append((name, seconds(name, UNKNOWN_SECONDS if _file_spec(name) else default)))
        in_loop = loops and name in IN_LOOP and not _numba.JIT_DISABLED
        if in_loop and cold_function(ENGINE_SOURCES[0], loop_name(name)):
            loop = f"{name}'s game loop"
            plan.append((loop, seconds(loop, COMPILE_SECONDS["game loop"])))
    return plan


def cache_home() -> str:
    """Return where compiled code is cached, as a user would type it (``~/.cache/hsim``)."""
    shown = Path(_numba.CACHE_DIR)
    if shown.name == f"numba-{_numba.source_hash()}":  # ours: show the folder the user knows
        shown = shown.parent
    try:
        return "~/" + str(shown.relative_to(Path.home()))
    except ValueError:
        return str(shown)


def compile_notice(
    specs: Iterable[str] = (),
    parts: Iterable[str] = (),
    engine: bool = True,
    loops: bool = True,
    plan: list[tuple[str, float]] | None = None,
) -> str | None:
    """Return the line to print before compiling (what, about how long, where it is then
    cached), or None when :func:`compile_plan` (same arguments) finds nothing cold.
    plan: that plan, when the caller has it already.
    """
    if plan is None:
        plan = compile_plan(specs, parts, engine, loops)
    if not plan:
        return None
    # Name what takes a while; a bot compiled in a second or two only adds its seconds.
    unknown = [what for what, seconds in plan if seconds == UNKNOWN_SECONDS]
    names = [
        "the engine" if what == "engine" else what
        for what, seconds in plan
        if seconds > OTHER_COMPILE_SECONDS or what in unknown or len(plan) == 1
    ] or [plan[0][0]]
    what = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    seconds = sum(s for _, s in plan)
    if seconds < 20:
        about = f"{seconds:.0f} s"
    elif seconds < 120:
        about = f"{round(seconds, -1):.0f} s"
    else:
        about = f"{round(seconds / 60)} min"
    if plan[0][0] == "engine":
        when = "first run after install or upgrade"
    elif all(_file_spec(w) for w, _ in plan):  # new or changed, or hsim upgraded
        when = "first use of this file since it changed or hsim was upgraded"
        if len(plan) > 1:
            when = "first use of these files since they changed or hsim was upgraded"
    else:
        when = "first use since install or upgrade"
    measured = measured_seconds()
    how = "as measured here" if all(w in measured for w, _ in plan) else "estimated"
    time_said = f"about {about} {how}"
    if unknown and len(unknown) == len(plan):
        time_said = "time not known yet"
    elif unknown:
        time_said = f"about {about} {how}, plus {', '.join(unknown)}: not known yet"
    return (
        f"compiling {what} ({when}; {time_said}, then cached in {cache_home()}; "
        "`hsim warm` compiles everything at once)..."
    )


#: Where the seconds each compile took on this machine are kept (``hsim warm`` and every
#: notice that ran to the end write them), next to the cache folders so that they
#: outlive an upgrade, which is when they are needed.
MEASURED_FILE = "compile-seconds.json"


def _measured_path() -> Path:
    shown = Path(_numba.CACHE_DIR)
    base = shown.parent if shown.name == f"numba-{_numba.source_hash()}" else shown
    return base / MEASURED_FILE


def measured_seconds() -> dict[str, float]:
    """Return the compile seconds measured on this machine, by what compiled (the names
    of :func:`compile_plan`); {} when none were measured or the file is unreadable."""
    try:
        data = json.loads(_measured_path().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): float(v)
        for k, v in data.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1e5
    }


def record_seconds(what: str, seconds: float) -> None:
    """Keep ``seconds``, the time compiling ``what`` took here, for later estimates.

    Written to a temporary file and renamed, so that two commands at once or a kill
    leave either the old file or the new one; a folder that cannot be written is
    skipped (the estimate then stays the built-in one).
    """
    path = _measured_path()
    data = measured_seconds()
    data[what] = round(float(seconds), 1)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


class CompileTicker:
    """The elapsed time of a compile on stderr, against its estimate, until :meth:`stop`.

    A tqdm bar of seconds (``compiling: 0:42 of about 0:40``) refreshed by a daemon
    thread every half second on a terminal, every 15 s elsewhere (a log gets a line at
    a time, not a flood). ``what``: the names of :func:`compile_plan`; when the compile
    ends with :meth:`stop` (``done=True``) and it was one thing, its time is recorded
    (:func:`record_seconds`) for the next estimate.
    """

    def __init__(self, plan: list[tuple[str, float]], stream=None) -> None:
        # deferred: tqdm only when something compiles (~5 ms of a start)
        from tqdm import tqdm

        self.plan = plan
        self.stream = stream if stream is not None else sys.stderr
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        total = max(1, round(sum(s for _, s in plan)))
        # the estimate written in, not tqdm's {total}: tqdm drops a total the count
        # passes, and an overrun compile showed "about None s"
        estimate = " (about " + str(total) + " s)"
        if any(s == UNKNOWN_SECONDS for _, s in plan):  # a strategy file's first compile
            estimate = ""
        self.bar = tqdm(
            total=total,
            file=self.stream,
            desc="  compiling",
            bar_format="{desc}: {elapsed}" + estimate + "{postfix}",
            mininterval=0.5 if tty else 15.0,
            dynamic_ncols=True,
            leave=True,
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="compile-ticker")
        self._thread.start()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            elapsed = time.monotonic() - self.started
            self.bar.n = int(elapsed)
            self.bar.refresh()

    def stop(self, done: bool = True) -> float:
        """End the ticker; return the seconds since it started. ``done``: the compile
        ended (rather than the command stopping): record the time of a one-item plan."""
        if self._stop.is_set():
            return time.monotonic() - self.started
        self._stop.set()
        self._thread.join(timeout=2)
        elapsed = time.monotonic() - self.started
        self.bar.n = int(elapsed)
        self.bar.set_postfix_str(f"done in {elapsed:.0f} s" if done else "stopped")
        self.bar.close()
        if done and len(self.plan) == 1 and elapsed >= 1:  # under 1 s: nothing to estimate
            record_seconds(self.plan[0][0], elapsed)
        return elapsed


_TICKER: CompileTicker | None = None


def start_ticker(plan: list[tuple[str, float]]) -> None:
    """Start the process's :class:`CompileTicker` for ``plan`` (one at a time)."""
    global _TICKER
    stop_ticker(done=False)
    _TICKER = CompileTicker(plan)


def ticking() -> bool:
    """Return whether a compile ticker runs in this process."""
    return _TICKER is not None


def stop_ticker(done: bool = True) -> None:
    """Stop the process's ticker, if one runs (the compile ended: a run's progress bar
    starts, or the command ends)."""
    global _TICKER
    ticker, _TICKER = _TICKER, None
    if ticker is not None:
        ticker.stop(done)
