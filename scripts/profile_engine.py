"""Where the compiled time goes: a ``perf`` profile of games, numba's functions named.

Usage::

    python scripts/profile_engine.py [--players heuristic] [--rules classic] [--seconds 5]
                                     [--frequency 2000] [--top 15] [--lines]
    python scripts/profile_engine.py --map-only [--players heuristic]

``perf`` (Linux perf_events) sees numba's machine code as anonymous memory, so a plain
``perf record`` of hsim names nothing inside the game loop. This script plays games with
``--players`` (one spec for every seat, or one per seat as ``hsim tournament --players``)
through ``hsim.play.games.play_range`` in a child process. After loading the engine and the bots
from numba's cache, the child writes ``/tmp/perf-<pid>.map``, the file in which perf looks
up JIT code: one line per compiled function (address, size, name), found in the machine
code numba loaded from its cache. The parent records the child (``perf record -p``) while
it plays and prints each function's share of the samples, then the child's deals/s.

With ``--lines`` the code is compiled with line information (``NUMBA_DEBUGINFO=1``) into
a cache folder of its own (``--lines-cache``; the first such run compiles everything, a
few minutes), and the samples inside hsim's functions are also added up per source
function and per source line. Kernels are inlined, so their lines are those of the
kernel's source; the line given to one machine instruction is LLVM's choice, and the
bit operations (:mod:`hsim.engine.bits`) are often given the line of one of their
callers, so read the per-function sums rather than single lines. Line information also
changes the code a little: numba's own overloads (``max`` and ``min`` of two integers)
stay out-of-line calls, which the plain build inlines, and in a loop compiled with a bot
in it (``play_games_with_heuristic``) every line is named after the loop's file. Take
the shares of the functions from a run without ``--lines``.

Only functions loaded from the cache are named: one compiled in this process (a cold
cache) is reported, and a second run names it. ``--map-only`` writes no profile: it
prints the map the child would write, as JSON, which the tests check.

Needs ``perf`` on ``PATH`` and permission to record another process
(``/proc/sys/kernel/perf_event_paranoid`` <= 2 for your own processes); ``objdump`` and
``nm`` (binutils) to read the machine code. Numbers are shares of one run on one machine:
compare two versions in the same session, as the other benchmarks do.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

READY = "profile-engine-ready"


def demangle(symbol: str) -> str:
    """Return the dotted Python name in numba's mangled symbol ``symbol``.

    >>> demangle("_ZN4hsim6engine4game10play_gamesB3v84B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMVC_E")
    'hsim.play.hearts_game.play_games'
    >>> demangle("cfunc._ZN4hsim4rng12stream_stateB2v1E")
    'cfunc hsim.engine.rng.stream_state'

    Wrappers keep their kind (``cpython``, ``cfunc``); a symbol that is not numba's
    ``_ZN<len><name>...`` form is returned as it is.
    """
    prefix = ""
    if symbol.startswith("cfunc."):
        prefix, symbol = "cfunc ", symbol[len("cfunc.") :]
    if not symbol.startswith("_ZN"):
        return prefix + symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j : j + n])
        i = j + n
    if parts and parts[0] == "cpython":
        prefix, parts = prefix + "cpython ", parts[1:]
    name = ".".join(parts).replace("_3clocals_3e", "<locals>")
    return prefix + name if parts else prefix + symbol


# -- the child: play, with the map written ------------------------------------------------


def _keep_cached_objects() -> list:
    """Make numba keep the machine code of every library it loads from its cache; return
    the list it fills with (library, object code) pairs. Call before hsim is imported.

    numba rebuilds a cached function from an ELF object (``CPUCodeLibrary._unserialize``,
    kind "object") and then drops the bytes; these are exactly the bytes in memory."""
    from numba.core import codegen

    kept: list = []
    unserialize = codegen.CPUCodeLibrary._unserialize.__func__

    def keeping(cls, codegen_, state):
        library = unserialize(cls, codegen_, state)
        if state[1] == "object":
            kept.append((library, state[2][0]))
        return library

    codegen.CPUCodeLibrary._unserialize = classmethod(keeping)
    return kept


def _text_symbols(object_path: Path) -> list[tuple[int, int, str, bool]]:
    """Return (offset, size, name, global) of each function in an object file (``nm``)."""
    out = subprocess.run(
        ["nm", "-S", "--defined-only", str(object_path)], capture_output=True, text=True, check=True
    ).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in ("t", "T"):
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3], fields[2] == "T"))
    return symbols


def function_map(kept: list, object_dir: Path) -> list[dict]:
    """Return one entry per compiled function loaded from the cache: ``start`` (address in
    this process), ``size`` (bytes), ``symbol``, ``name`` (:func:`demangle`), ``object``
    (its library's object code, saved in ``object_dir``), ``offset`` in it, ``global``
    (whether numba can look the symbol up) and ``library`` (its index in ``kept``), sorted
    by start. A library's functions share
    one text section, so its base address is found from one global function's address
    (``get_pointer_to_function``)."""
    entries = []
    for k, (library, code) in enumerate(kept):
        path = object_dir / f"{k:04d}.o"
        path.write_bytes(code)
        symbols = _text_symbols(path)
        base = None
        for offset, _, symbol, is_global in symbols:
            address = library.get_pointer_to_function(symbol) if is_global else 0
            if address:
                base = address - offset
                break
        if base is None:
            continue
        for offset, size, symbol, is_global in symbols:
            entries.append(
                {
                    "start": base + offset,
                    "size": size,
                    "symbol": symbol,
                    "name": demangle(symbol),
                    "object": str(path),
                    "offset": offset,
                    "global": is_global,
                    "library": k,
                }
            )
    return sorted(entries, key=lambda e: e["start"])


def _child(args) -> None:
    # numba warns for each overload whose source it cannot show (the bit operations'
    # lambdas); their lines are their callers', as the module docstring says.
    warnings.filterwarnings("ignore", message="Could not find source")
    kept = _keep_cached_objects()
    from hsim.model.rules import parse_rules
    from hsim.play.games import play_range
    from hsim.strategy.loader import load_players
    from hsim.strategy.specs import split_players

    rules = parse_rules(args.rules)
    specs = split_players(args.players)
    if len(specs) == 1:
        specs *= rules.players
    players = load_players(specs, rules)
    play_range(rules, players, 1, 0, 2)  # load (or compile) everything first
    entries = function_map(kept, Path(args.objects))
    if args.map_only:  # with numba's own address of each global symbol, to check the map
        for e in entries:
            library = kept[e["library"]][0]
            e["numba_address"] = library.get_pointer_to_function(e["symbol"]) if e["global"] else 0
        print(json.dumps(entries))
        return
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for e in entries:
            f.write(f"{e['start']:x} {e['size']:x} {e['name']}\n")
    Path(args.objects, "map.json").write_text(json.dumps(entries))
    print(READY, os.getpid(), flush=True)
    deals, game, t0 = 0, 10, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        rows, _ = play_range(rules, players, 1, game, game + 200)
        deals += len(rows) // rules.players
        game += 200
    print(f"{deals / (time.perf_counter() - t0):,.0f} deals/s", flush=True)


# -- the parent: record, then add up -----------------------------------------------------


def _samples(data: Path) -> list[int]:
    out = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True
    ).stdout
    return [int(line, 16) for line in out.split() if line]


def _source_lines(entry: dict) -> list[tuple[int, str]]:
    """Return (offset, "file:line") of each instruction of ``entry`` (``objdump -dl``)."""
    out = subprocess.run(
        ["objdump", "-dl", "--no-show-raw-insn", entry["object"]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    where, rows = "?", []
    for line in out.splitlines():
        m = re.match(r"^(/\S+\.py):(\d+)", line)
        if m:
            where = f"{m.group(1)}:{m.group(2)}"
            continue
        m = re.match(r"^\s+([0-9a-f]+):", line)
        if m:
            rows.append((int(m.group(1), 16), where))
    lo, hi = entry["offset"], entry["offset"] + entry["size"]
    return [(off - lo, w) for off, w in rows if lo <= off < hi]


def _enclosing_function(path: str, line: int, cache: dict) -> str:
    if path not in cache:
        try:
            tree = ast.parse(Path(path).read_text())
        except (OSError, SyntaxError):
            tree = None
        spans = []
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    spans.append((node.lineno, node.end_lineno or node.lineno, node.name))
        cache[path] = sorted(spans, key=lambda s: s[1] - s[0])  # innermost first
    for first, last, name in cache[path]:
        if first <= line <= last:
            return f"{Path(path).stem}.{name}"
    return f"{Path(path).stem}:?"


def report(entries: list[dict], ips: list[int], top: int, lines: bool) -> None:
    """Print each function's share of the samples ``ips``; with ``lines``, the samples in
    the ``top`` busiest hsim functions per source function and source line."""
    starts = [e["start"] for e in entries]
    per_entry: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    unnamed = 0
    for ip in ips:
        k = bisect.bisect_right(starts, ip) - 1
        if k >= 0 and ip < entries[k]["start"] + entries[k]["size"]:
            per_entry[k][ip - entries[k]["start"]] += 1
        else:
            unnamed += 1
    total = max(len(ips), 1)
    ranked = sorted(per_entry, key=lambda k: -sum(per_entry[k].values()))
    print(f"{len(ips)} samples")
    for k in ranked[:top]:
        n = sum(per_entry[k].values())
        print(f"  {100 * n / total:5.1f}%  {entries[k]['name']}")
    print(f"  {100 * unnamed / total:5.1f}%  everything else (Python, numpy, pyarrow, kernel)")
    if not lines:
        return
    cache: dict = {}
    for k in ranked[:top]:
        counts = per_entry[k]
        n = sum(counts.values())
        if n < total / 100 or not entries[k]["name"].startswith("hsim"):
            continue
        by_line: collections.Counter = collections.Counter()
        for offset, where in _source_lines(entries[k]):
            by_line[where] += counts.get(offset, 0)
        by_function: collections.Counter = collections.Counter()
        for where, c in by_line.items():
            path, _, line = where.rpartition(":")
            by_function[_enclosing_function(path, int(line), cache) if path else "?"] += c
        print(f"\n{entries[k]['name']}: {n} samples, by source function")
        for name, c in by_function.most_common(top):
            print(f"  {100 * c / n:5.1f}%  {name}")
        print("  by source line")
        for where, c in by_line.most_common(top):
            path, _, line = where.rpartition(":")
            text = ""
            if path and Path(path).is_file():
                source = Path(path).read_text().splitlines()
                text = source[int(line) - 1].strip() if 0 < int(line) <= len(source) else ""
            print(f"  {100 * c / n:5.1f}%  {Path(path).name}:{line}  {text}")


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        sys.exit(f"error: {tool!r} is not on PATH; this script needs it (see --help)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", default="heuristic", help="one spec for all seats, or a list")
    parser.add_argument("--rules", default="classic", help="rules, as hsim tournament --rules")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds recorded")
    parser.add_argument("--frequency", type=int, default=2000, help="samples per second")
    parser.add_argument("--top", type=int, default=15, help="rows per table")
    parser.add_argument("--lines", action="store_true", help="also per source function/line")
    parser.add_argument(
        "--lines-cache",
        default=str(Path(tempfile.gettempdir()) / "hsim-profile-cache"),
        help="numba cache folder for --lines (compiled with line information)",
    )
    parser.add_argument("--map-only", action="store_true", help="print the map as JSON, no perf")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--objects", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.frequency <= 0 or args.top <= 0:
        parser.error("--seconds, --frequency and --top must be positive")
    _need("nm")
    if args.child:
        _child(args)
        return
    env = dict(os.environ)
    if args.lines:
        _need("objdump")
        env["NUMBA_DEBUGINFO"] = "1"
        env["NUMBA_CACHE_DIR"] = args.lines_cache
    with tempfile.TemporaryDirectory(prefix="hsim-profile-") as tmp:
        command = [sys.executable, __file__, "--child", "--objects", tmp]
        command += ["--players", args.players, "--rules", args.rules]
        command += ["--seconds", str(args.seconds + 1.0)]
        if args.map_only:
            done = subprocess.run(
                command + ["--map-only"], env=env, stdout=subprocess.PIPE, text=True
            )
            sys.stdout.write(done.stdout)
            sys.exit(done.returncode)
        _need("perf")
        if args.lines:  # fill the line-information cache first: only loaded code is named
            print(f"loading (or compiling, a few minutes) the code with line information "
                  f"in {args.lines_cache} ...", flush=True)  # fmt: skip
            subprocess.run(command + ["--map-only"], env=env, stdout=subprocess.DEVNULL)
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        line = child.stdout.readline()
        if not line.startswith(READY):
            child.wait()
            sys.exit(f"error: the game process ended before it was ready (exit {child.returncode})")
        pid = int(line.split()[1])
        data = Path(tmp) / "perf.data"
        record = subprocess.run(
            ["perf", "record", "-q", "-F", str(args.frequency), "-p", str(pid), "-o", str(data),
             "--", "sleep", str(args.seconds)],
            capture_output=True, text=True,
        )  # fmt: skip
        rate = child.stdout.read().strip()
        child.wait()
        Path(f"/tmp/perf-{pid}.map").unlink(missing_ok=True)
        if record.returncode != 0 or not data.exists():
            sys.exit(f"error: perf record failed: {record.stderr.strip()}")
        entries = json.loads((Path(tmp) / "map.json").read_text())
        if not entries:
            print("note: nothing was loaded from numba's cache (a cold cache?); run again")
        report(entries, _samples(data), args.top, args.lines)
        print(f"\n{args.players}: {rate}")


if __name__ == "__main__":
    main()
