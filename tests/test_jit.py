"""Compiled-code set-up: the cache folder, and telling a cold cache from a warm one."""

import importlib.util
import os
import re
import sys
from pathlib import Path

import numba
import pytest

from hsim.engine import _numba
from hsim.strategy import notice
from hsim.strategy.loader import file_module_name

SOURCE = """
from numba import njit


@njit(cache=True)
def add_one(x):
    return x + 1
"""


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _use_cache(monkeypatch, folder):
    # numba re-reads its settings from the environment when it compiles: set both.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
    # the compile times measured on this machine are not the built-in estimates tested
    monkeypatch.setattr(notice, "measured_seconds", lambda: {})


def test_cold_until_compiled_then_cold_again_when_the_source_changes(tmp_path, monkeypatch):
    _use_cache(monkeypatch, tmp_path / "cache")
    source = tmp_path / "tiny_kernels.py"
    source.write_text(SOURCE)
    assert notice.cold_sources([source]) == [source]  # nothing cached yet
    name = file_module_name(source)  # as hsim imports a strategy file
    module = _import(source, name)
    assert module.add_one(1) == 2  # compiled and written to the cache
    assert notice.cold_sources([source]) == []
    source.write_text(SOURCE + "# edited\n")  # numba would not use that cache any more
    assert notice.cold_sources([source]) == [source]
    del sys.modules[name]


def test_the_engine_is_warm_once_loaded_and_cold_in_an_empty_cache(tmp_path, monkeypatch):
    import hsim.play.hearts_game  # noqa: F401  (compiled, or loaded from the cache)
    import hsim.play.kierki_game  # noqa: F401
    import hsim.runner.narrow  # noqa: F401
    import hsim.strategies.random_bot  # noqa: F401  (and hsim.strategy.contract)

    assert notice.cold_sources(notice.ENGINE_SOURCES) == []
    assert notice.compile_plan(["random"]) == []
    assert notice.compile_notice(["random"]) is None
    _use_cache(monkeypatch, tmp_path / "empty")
    cold = notice.cold_sources(notice.ENGINE_SOURCES)
    assert cold == [p.resolve() for p in notice.ENGINE_SOURCES]
    assert [what for what, _ in notice.compile_plan(["heuristic", "heuristic(x=1)"])] == [
        "engine",
        "heuristic",
        "heuristic's game loop",
    ]
    line = notice.compile_notice(["heuristic", "lowcard"])
    assert line.startswith(
        "compiling the engine, heuristic and heuristic's game loop (first run after install"
    )
    assert "about 90 s estimated, then cached in " in line and line.endswith("...")
    assert "`hsim warm`" in line
    monkeypatch.setattr(_numba, "JIT_DISABLED", True)  # NUMBA_DISABLE_JIT: nothing compiles
    assert notice.compile_notice(["heuristic"]) is None


def test_a_cold_strategy_alone_is_named(tmp_path, monkeypatch):
    import hsim.play.hearts_game  # noqa: F401

    monkeypatch.setattr(
        notice, "cold_sources", lambda sources: [s for s in sources if "pimc" in str(s)]
    )
    monkeypatch.setattr(notice, "measured_seconds", lambda: {})
    assert notice.compile_notice(["pimc"]) == (
        f"compiling pimc (first use since install or upgrade; about 30 s estimated, then "
        f"cached in {notice.cache_home()}; `hsim warm` compiles everything at once)..."
    )


def test_an_estimate_measured_here_replaces_the_built_in_one(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(
        notice, "cold_sources", lambda sources: [s for s in sources if "pimc" in str(s)]
    )
    assert notice.measured_seconds() == {}
    notice.record_seconds("pimc", 71.26)
    assert notice.measured_seconds() == {"pimc": 71.3}
    assert notice.compile_plan(["pimc"]) == [("pimc", 71.3)]
    assert "about 70 s as measured here" in notice.compile_notice(["pimc"])
    (tmp_path / "cache" / notice.MEASURED_FILE).write_text("{damaged")
    assert notice.measured_seconds() == {}  # a damaged file: the built-in estimates
    assert notice.compile_plan(["pimc"]) == [("pimc", notice.COMPILE_SECONDS["pimc"])]


def test_a_strategy_file_compiled_here_the_first_time_has_no_estimate(tmp_path, monkeypatch):
    import io

    monkeypatch.setattr(_numba, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(notice, "cold_sources", lambda sources: list(sources))
    bot = tmp_path / "mybot.py"
    bot.write_text("from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x\n")
    spec = f"{bot}:STRATEGY"
    assert notice.compile_plan([spec + "(depth=3)"], engine=False) == [
        (spec, notice.UNKNOWN_SECONDS)
    ]
    line = notice.compile_notice([spec], engine=False)
    assert line.startswith(
        f"compiling {spec} (first use of this file since it changed or hsim was upgraded; "
        "time not known yet, then cached in"
    ), line
    # with a bot whose time is known, that time is given and the file's said to be unknown
    line = notice.compile_notice(["pimc", spec], engine=False)
    assert f"(first use since install or upgrade; about 30 s estimated, plus {spec}: not" in line
    out = io.StringIO()
    notice.CompileTicker(notice.compile_plan([spec], engine=False), stream=out).stop()
    assert "compiling: " in out.getvalue() and "about" not in out.getvalue()
    notice.record_seconds(spec, 210.4)  # what a ticker on a terminal keeps after it
    assert "; about 4 min as measured here, then" in notice.compile_notice([spec], engine=False)


def test_a_run_off_a_terminal_keeps_its_compile_time_for_the_next_notice(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from hsim.cli import common, main

    tournament_cli = importlib.import_module("hsim.cli.tournament")  # not the command

    monkeypatch.setattr(_numba, "CACHE_DIR", str(tmp_path / "cache"))
    spec = "mybot.py:STRATEGY"
    common.keep_compile_seconds([(spec, notice.UNKNOWN_SECONDS)], True, 210.4)
    assert notice.measured_seconds() == {spec: 210.4}
    assert "; about 4 min as measured here, then" in notice.compile_notice(
        plan=[(spec, notice.measured_seconds()[spec])]
    )
    # one time is not split among several things; nothing cold or under 1 s: nothing kept
    common.keep_compile_seconds([("engine", 60.0), (spec, 0.0)], True, 300.0)
    common.keep_compile_seconds([("kierki", 12.0)], False, 5.0)
    common.keep_compile_seconds([("kierki", 12.0)], True, 0.4)
    assert notice.measured_seconds() == {spec: 210.4}
    # a tournament hands over the plan it announced and its run's own compile time
    kept = []
    monkeypatch.setattr(tournament_cli, "announce_compile", lambda specs: [(specs[0], 0.0)])
    monkeypatch.setattr(tournament_cli, "keep_compile_seconds", lambda *a: kept.append(a))
    out = tmp_path / "run"
    argv = ["tournament", "--players", "random,lowcard,random,random", "--games", "1"]
    result = CliRunner().invoke(main, [*argv, "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    run_json = json.loads((out / "run.json").read_text())
    [(plan, compiled, seconds)] = kept
    assert plan == [("random", 0.0)] and isinstance(compiled, bool)  # True on a cold cache
    assert seconds == pytest.approx(run_json["compile_s"], abs=1e-3)


def test_the_ticker_shows_the_elapsed_time_and_records_it(tmp_path, monkeypatch):
    import io

    monkeypatch.setattr(_numba, "CACHE_DIR", str(tmp_path / "cache"))
    out = io.StringIO()
    ticker = notice.CompileTicker([("kierki", 12)], stream=out)
    elapsed = ticker.stop()
    assert "compiling" in out.getvalue() and "(about 12 s)" in out.getvalue()
    assert "done in" in out.getvalue()
    # a compile that took under a second (here none at all) is not kept as an estimate
    assert elapsed < 1 and notice.measured_seconds() == {}


def test_a_compile_that_overruns_its_estimate_still_shows_the_estimate(tmp_path, monkeypatch):
    import io
    import time

    monkeypatch.setattr(_numba, "CACHE_DIR", str(tmp_path / "cache"))
    out = io.StringIO()
    ticker = notice.CompileTicker([("kierki", 1)], stream=out)
    time.sleep(2.2)  # past the estimate: the ticker must not lose it
    ticker.stop(done=False)
    shown = out.getvalue()
    assert "00:02 (about 1 s)" in shown and "None" not in shown


@pytest.mark.parametrize(
    ("spec", "found"),
    [
        ("heuristic", "heuristic.py"),
        ("pimc(worlds=5)", "pimc.py"),
        ("random", "random_bot.py"),
        ("tests.bots.python_bots:PyLowcard", None),
        ("no_such_bot", None),
    ],
)
def test_strategy_sources_are_found_without_importing(spec, found):
    path = notice.strategy_source(spec)
    assert (path.name if path else None) == found


def test_strategy_files_count_only_when_they_cache(tmp_path):
    cached = tmp_path / "fast.py"
    cached.write_text(SOURCE)
    plain = tmp_path / "plain.py"
    plain.write_text("class Bot:\n    pass\n")
    assert notice.strategy_source(f"{cached}:add_one") == cached.resolve()
    assert notice.strategy_source(f"{plain}:Bot") is None
    assert notice.strategy_source(f"{tmp_path}/missing.py:Bot") is None


def test_the_cache_key_covers_what_compiled_code_reads_and_nothing_else():
    covered = set(_numba.hashed_modules())
    # Compiled modules, and the modules whose constants they compile in.
    assert {"play/hearts_game.py", "engine/bits.py", "strategies/heuristic.py"} <= covered
    assert {"model/rules.py", "model/cards.py", "engine/rng.py", "engine/_numba.py"} <= covered
    # Modules that only mention numba (the runner, the manifest) or never reach it.
    assert not covered & {
        "runner/run.py", "runner/manifest.py", "cli/tournament.py", "analysis/scan.py",
    }  # fmt: skip


def test_a_module_imported_by_compiled_code_is_followed_to_the_end():
    sources = {
        "engine/hearts.py": b"from hsim.model.rules import Rules\n",
        "model/rules.py": b"from hsim.model import cards\nfrom hsim import errors\n"
        b"import hsim.model.notation\n",
        "model/cards.py": b"",
        "errors.py": b"",
        "model/notation.py": b"",
        "runner/run.py": b"# numba caches ...\nfrom hsim.play import hearts_game\n",
        "analysis/scan.py": b"from hsim.model.rules import Rules\n",
        "strategies/mine.py": b"@njit(cache=True)\ndef f(x):\n    return x\n",
    }
    hashed = _numba._hashed(sources)
    assert hashed == [
        "engine/hearts.py", "errors.py", "model/cards.py", "model/notation.py", "model/rules.py",
        "strategies/mine.py",
    ]  # fmt: skip


#: A fresh process's first compiled work: one game of four random seats.
PLAY_A_GAME = (
    "import sys\n"
    "from hsim.strategy.loader import load_players\n"
    "from hsim.play.games import play_range\n"
    "from hsim.model.rules import Rules\n"
    "play_range(Rules(), load_players(['random'] * 4), 1, 0, 1)\n"
)


def test_loading_compiled_code_does_not_import_scipy_linalg_and_blas_stays_on():
    # numba's arraymath probes BLAS by importing scipy.linalg (~0.25 s a process);
    # hsim refuses that probe and sets the flag to what it would have found.
    import subprocess

    script = (
        PLAY_A_GAME + "import numba.np.arraymath as a\n"
        "print('scipy.linalg' in sys.modules, a._HAVE_BLAS)\n"
        "import numpy as np, numba\n"
        "f = numba.njit(lambda x, y: np.correlate(x, y))\n"
        "x, y = np.arange(9.0) * 0.7, np.arange(4.0) - 1.5\n"
        "print(bool(np.allclose(f(x, y), np.correlate(x, y))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    blas = importlib.util.find_spec("scipy") is not None
    assert out == ["False", str(blas), "True"]


def test_loading_compiled_code_skips_numbas_registry_refresh_and_later_compiles_see_them():
    # numba refreshes its typing and lowering registries before every cache load
    # (~0.25 s a process); hsim loads without it, and a compile still refreshes first.
    import subprocess

    count_refreshes = (
        "from numba.core.base import BaseContext\n"
        "refreshes = []\n"
        "_refresh = BaseContext.refresh\n"
        "def refresh(self):\n"
        "    refreshes.append(1)\n"
        "    _refresh(self)\n"
        "BaseContext.refresh = refresh\n"
    )
    script = (
        count_refreshes
        + PLAY_A_GAME
        + "print(len(refreshes), 'numba.np.arraymath' in sys.modules)\n"
        "import numba, numpy as np\n"
        "@numba.njit\n"
        "def uses_registries(x):\n"  # array methods, a dict, strings, a hash: all lowered
        "    d = {}\n"
        "    for i in range(x.size):\n"
        "        d[str(i)] = np.median(x[: i + 1])\n"
        "    same = hash('ab' * x.size) == hash('ab' * x.size)\n"
        "    return np.sort(x)[-1] + d[str(x.size - 1)] + same\n"
        "x = np.array([3.0, 1.0, 2.0])\n"
        "print(uses_registries(x), len(refreshes) > 0, 'numba.np.arraymath' in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", PLAY_A_GAME], check=True)  # a warm cache
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["0", "False", "6.0", "True", "True"]


def test_the_blas_probe_is_refused_only_while_numba_loads(monkeypatch):
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    finder = _numba._NoScipyLinalg()
    with pytest.raises(ModuleNotFoundError, match="scipy.linalg"):
        finder.find_spec("scipy.linalg")
    assert finder.find_spec("scipy.stats") is None
    assert not any(isinstance(f, _numba._NoScipyLinalg) for f in sys.meta_path)


def test_the_blas_probe_is_refused_only_to_the_thread_loading_numba():
    import threading

    finder = _numba._NoScipyLinalg()
    seen = []
    other = threading.Thread(target=lambda: seen.append(finder.find_spec("scipy.linalg")))
    other.start()
    other.join()
    assert seen == [None]  # another thread's import goes on to the next finders
    with pytest.raises(ModuleNotFoundError):
        finder.find_spec("scipy.linalg")


def test_only_hsims_own_functions_load_without_the_refresh():
    import hsim.play.hearts_game as game

    assert _numba.own_code(game.play_games.py_func)
    assert _numba.own_code(sys.modules["hsim.strategies.random_bot"].play.py_func)
    user = numba.njit(lambda x: x)
    user.py_func.__module__ = "hsim_user_mybot_0123456789abcdef"  # a strategy file's
    assert not _numba.own_code(user.py_func)
    assert not _numba.own_code(None)


def test_a_cached_vectorize_of_someone_elses_loads_after_hsim(tmp_path):
    # A cached @vectorize builds its ufunc loop by lowering code around the loaded
    # function, which needs numba's registries: code not hsim's loads as numba loads it.
    import subprocess

    (tmp_path / "vmod.py").write_text(
        "from numba import vectorize\n"
        "@vectorize(['float64(float64, float64)'], cache=True)\n"
        "def v_add(x, y):\n"
        "    return x * 2 + y\n"
    )
    script = (
        "import hsim.engine._numba, numpy as np, vmod\n"
        "print(vmod.v_add(np.arange(3.0), 1.0).sum())\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
        for _ in range(2)  # the first compiles and caches, the second loads
    ]
    assert [(r.returncode, r.stdout.strip()) for r in runs] == [(0, "9.0"), (0, "9.0")], runs[1]
    assert list((tmp_path / "cache").rglob("*.nbi"))  # it was cached


def test_hsims_cached_code_needs_no_string_hash_secret():
    # _load_cached_code_without_refresh does not import numba.cpython.hashing, whose
    # import adds the symbols of the string-hash secret: no hsim code may use them.
    import hsim.play.games  # noqa: F401
    import hsim.runner.narrow  # noqa: F401
    import hsim.strategies.heuristic  # noqa: F401
    import hsim.strategies.kierki  # noqa: F401
    import hsim.strategies.pimc  # noqa: F401

    compiled = list(Path(_numba.CACHE_DIR).rglob("*.nbc"))
    assert len(compiled) > 20
    users = [p.name for p in compiled if b"_numba_hashsecret_" in p.read_bytes()]
    assert users == [], "hash strings in compiled code only after importing numba.cpython.hashing"


def test_a_game_does_not_import_numpy_ma_and_masked_arrays_are_still_refused():
    # numba's array typing imports numpy.ma for its MaskedArray check (~50 ms a process);
    # hsim types arrays without it until numpy.ma is imported.
    import subprocess

    script = (
        PLAY_A_GAME + "print('numpy.ma' in sys.modules)\n"
        "import numba, numpy as np\n"
        "f = numba.njit(lambda x: x.sum())\n"
        "try:\n"
        "    f(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))\n"
        "except numba.core.errors.TypingError as exc:\n"
        "    print('MaskedArray' in str(exc))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]


@pytest.mark.parametrize(
    "make",
    [
        lambda np: np.zeros(3, np.int64),
        lambda np: np.zeros((2, 3), np.uint64),
        lambda np: np.zeros((2, 3), np.float32, order="F"),
        lambda np: np.zeros((4, 6), np.int8)[:, ::2],  # neither C nor F: layout A
        lambda np: np.zeros(0, np.bool_),
        lambda np: np.array(5.0),
        lambda np: np.zeros(3, np.int16)[::-1],
        lambda np: np.frombuffer(b"abcdefgh", np.uint8),  # read-only
        lambda np: np.zeros(2, [("a", np.int32), ("b", np.float64)]),  # a record dtype
    ],
)
def test_arrays_are_typed_as_numba_types_them(make, monkeypatch):
    import numpy as np
    from numba.core.typing.typeof import Purpose, typeof

    arr = make(np)
    monkeypatch.delitem(sys.modules, "numpy.ma", raising=False)  # hsim's function answers
    ours = typeof(arr, Purpose.argument)
    monkeypatch.setitem(sys.modules, "numpy.ma", np.ma)  # numba's own function answers
    assert ours == typeof(arr, Purpose.argument)
    assert ours.mutable == arr.flags.writeable


def test_an_unsupported_dtype_gets_numbas_error_either_way(monkeypatch):
    import numpy as np
    from numba.core import errors
    from numba.core.typing.typeof import Purpose, typeof

    arr = np.zeros(2, np.clongdouble)  # no numba type
    monkeypatch.delitem(sys.modules, "numpy.ma", raising=False)
    with pytest.raises(errors.NumbaValueError, match="Unsupported array dtype"):
        typeof(arr, Purpose.argument)
    monkeypatch.setitem(sys.modules, "numpy.ma", np.ma)
    with pytest.raises(errors.NumbaValueError, match="Unsupported array dtype"):
        typeof(arr, Purpose.argument)


INLINED = """
from numba import njit


@njit(inline="always")
def leaf(x, k):
    t = 0
    for i in range(k):
        if (x >> i) & 1:
            t += i * i
        else:
            t -= 1
    return t


@njit(inline="always")
def middle(x):
    a = leaf(x, 5)
    b = leaf(x ^ 0x55, 7)
    if a > b:
        return a - b
    return leaf(a + b, 3)


@njit
def outer(x):
    s = 0
    for j in range(x):
        s += middle(j) + middle(s & 1023)
    return s
"""


def _compile_inlined(monkeypatch, share: bool) -> tuple[str, int]:
    """Compile INLINED's ``outer`` afresh, its blocks' copies shared or not; return its
    assembly (numba's per-compile name tags removed) and how many variables were copied
    in all."""
    import types

    from numba.core import ir

    module = types.ModuleType("inline_probe")
    exec(compile(INLINED, "inline_probe.py", "exec"), module.__dict__)
    copies = []
    var_deepcopy = ir.Var.__deepcopy__

    def counted(self, memo):
        copies.append(1)
        return var_deepcopy(self, memo)

    with monkeypatch.context() as patch:
        patch.setattr(_numba._INLINE_COPIES, "share", share)
        patch.setattr(ir.Var, "__deepcopy__", counted)
        assert module.outer(50) == module.outer.py_func(50)
    asm = "\n".join(module.outer.inspect_asm().values())
    # the name tag's length shows in the size of an error text that names the function
    asm = "\n".join(line for line in asm.splitlines() if "missing Environment" not in line)
    return re.sub(r"B\d+v\d+", "", asm), len(copies)


def test_inlining_copies_each_ir_once_and_compiles_the_same_code(monkeypatch):
    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    if getattr(inline_closurecall, "copy", None) is not None:  # numba's shape: patched
        assert isinstance(inline_closurecall.copy, _numba._CopyForInlining)
        assert hasattr(worker.inline_ir, "numba_inline_ir")
    plain_asm, plain_copies = _compile_inlined(monkeypatch, share=False)
    shared_asm, shared_copies = _compile_inlined(monkeypatch, share=True)
    assert shared_asm == plain_asm
    assert "inline_probe5outer" in shared_asm
    assert shared_copies * 4 < plain_copies  # measured: 1,658 against 14,766
    assert _numba._INLINE_COPIES.calls == []  # every inline call's memos are let go


def test_a_module_already_imported_is_patched_at_once():
    ran = []

    def run(exec_module, module):
        exec_module(module)
        ran.append(module)

    _numba._import_through("json", run)  # imported long since
    assert ran == [sys.modules["json"]]
    assert not any(getattr(f, "name", None) == "json" for f in sys.meta_path)


def _one():
    return 1


def _one_more():
    return _one() + 1


def test_with_globals_copies_a_function_with_other_globals():
    copied = _numba.with_globals(_one_more, "forty_two", _one=lambda: 41)
    assert copied() == 42 and _one_more() == 2  # the original still sees its module's
    assert copied.__qualname__ == "forty_two" and copied.__module__ == __name__
    with pytest.raises(KeyError, match="defines no no_such_name"):
        _numba.with_globals(_one_more, "x", no_such_name=1)


def test_a_cold_heuristic_loop_is_in_the_compile_plan(tmp_path, monkeypatch):
    _use_cache(monkeypatch, tmp_path / "empty")
    plan = dict(notice.compile_plan(["heuristic", "random"]))
    assert plan["heuristic's game loop"] == notice.COMPILE_SECONDS["game loop"]
    assert "random's game loop" not in plan
    line = notice.compile_notice(["heuristic"], engine=False)
    assert "heuristic's game loop" in line
    # a command that plays no games (hsim choose) compiles the bot, not its loop
    plan = dict(notice.compile_plan(["heuristic"], loops=False))
    assert "heuristic" in plan and "heuristic's game loop" not in plan
    assert "game loop" not in (notice.compile_notice(["heuristic"], loops=False) or "")


def test_the_bots_compiled_into_loops_are_the_ones_the_plan_knows():
    from hsim.strategy.loader import builtin_names, load

    bundles = [load(name).compiled for name in builtin_names()]
    in_loop = {b.name for b in bundles if b is not None and b.in_loop}
    assert in_loop == notice.IN_LOOP


def test_function_addresses_are_looked_up_once_per_compile_result():
    from numba.core.dispatcher import Dispatcher
    from numba.core.typing import signature
    from numba.experimental import function_type

    assert isinstance(function_type._get_wrapper_address, _numba._FunctionAddresses)
    assert isinstance(function_type._get_jit_address, _numba._FunctionAddresses)
    numba_look_up = function_type._get_jit_address.look_up
    asked = []

    def look_up(func, sig):
        asked.append(func)
        return numba_look_up(func, sig) if isinstance(func, Dispatcher) else 77

    addresses = _numba._FunctionAddresses(look_up, Dispatcher)
    f = numba.njit("int64(int64)")(lambda x: x + 1)
    sig = signature(numba.int64, numba.int64)
    first = addresses(f, sig)
    assert first == numba_look_up(f, sig) > 0 and asked == [f]
    assert addresses(f, sig) == first and asked == [f]  # remembered
    assert addresses(f, signature(numba.int64, numba.int64)) == first  # another object
    assert asked == [f, f]  # ... of the same signature: looked up (keys are identities)
    f.recompile()  # new machine code: the address kept is numba's no longer
    assert addresses(f, sig) == numba_look_up(f, sig) and asked == [f, f, f]
    other = object()  # not a dispatcher (a cfunc, a __wrapper_address__ object): never kept
    assert addresses(other, sig) == addresses(other, sig) == 77
    assert asked == [f, f, f, other, other]


def test_a_second_loop_call_looks_no_function_address_up(monkeypatch):
    from numba.experimental import function_type

    from hsim.model.rules import Rules
    from hsim.play.games import play_range
    from hsim.strategy.loader import load_players

    players = load_players(["random", "heuristic", "lowcard", "random"])
    before, _ = play_range(Rules(), players, 1, 0, 3)
    asked = []
    for name in ("_get_wrapper_address", "_get_jit_address"):
        kept = getattr(function_type, name)
        look_up = kept.look_up
        monkeypatch.setattr(kept, "look_up", lambda f, s, u=look_up: asked.append(f) or u(f, s))
    again, _ = play_range(Rules(), players, 1, 0, 3)
    assert asked == []
    assert (again == before).all() and len(again) > 0


def test_a_strategy_file_also_imported_under_its_own_name_loads_in_hsim(tmp_path):
    # numba's cache entry imports, when loaded, the module its code was compiled in, by
    # name: a file imported as `mybot` and by hsim (as hsim_user_...) must not share one.
    import subprocess

    bots = tmp_path / "bots"
    bots.mkdir()
    bot = bots / "mybot.py"
    bot.write_text(
        "from numba import njit\n"
        "@njit('int64(int64)', cache=True)\n"  # compiled (or loaded) while it is imported
        "def twice(x):\n"
        "    return 2 * x\n"
    )
    by_name = "import hsim.engine._numba, mybot\nprint(mybot.twice(21))\n"
    by_hsim = f"from hsim.strategy.loader import find\nprint(find({str(bot)!r} + ':twice')(21))\n"
    cold = (
        "from pathlib import Path\nfrom hsim.strategy import notice\n"
        f"print(len(notice.cold_sources([Path({str(bot)!r})])))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(script, cwd):
        out = subprocess.run(
            [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, env=env
        )
        return out.returncode, out.stdout.strip() or out.stderr.strip()[-300:]

    assert run(by_name, bots) == (0, "42")  # compiled and cached as module mybot
    assert run(cold, tmp_path) == (0, "1")  # hsim's import of the file is still cold
    assert run(by_hsim, tmp_path) == (0, "42")  # mybot is not importable from here
    assert run(cold, tmp_path) == (0, "0")
    assert run(by_name, bots) == (0, "42")  # and each loads its own entry again
    assert run(by_hsim, tmp_path) == (0, "42")
    assert len(list((tmp_path / "cache").rglob("mybot.twice-*.nbi"))) == 2
