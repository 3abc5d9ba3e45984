"""The --players spec grammar and strategy lookup."""

import importlib.metadata

import pytest

from hsim.strategy.contract import StrategyError
from hsim.strategy.loader import builtin_names, describe_available, load
from hsim.strategy.specs import parse_spec, split_players


def test_commas_inside_parentheses_do_not_split_seats():
    assert split_players("random, pimc(worlds=20,playouts=10),lowcard,x.py:B(a=1)") == [
        "random",
        "pimc(worlds=20,playouts=10)",
        "lowcard",
        "x.py:B(a=1)",
    ]


@pytest.mark.parametrize("text", ["random,,lowcard", "pimc(a=1", "pimc)a=1("])
def test_malformed_player_lists(text):
    with pytest.raises(StrategyError):
        split_players(text)


def test_parse_spec():
    assert parse_spec("lowcard") == ("lowcard", {})
    assert parse_spec("a/b.py:C(x=1, y = two)") == ("a/b.py:C", {"x": "1", "y": "two"})
    with pytest.raises(StrategyError, match="key=value"):
        parse_spec("random(3)")


def test_builtins_are_listed():
    names = builtin_names()
    assert "random" in names and "lowcard" in names
    rows = {r["name"]: r for r in describe_available()}
    assert rows["lowcard"]["description"]


def test_unknown_name_lists_builtins():
    with pytest.raises(StrategyError) as err:
        load("randon")
    assert "random" in str(err.value) and "lowcard" in str(err.value)


def test_compiled_parameters_checked():
    s = load("tests.bots.compiled_bots:NOT_HELD(trick=3)")
    assert s.kind == "compiled" and s.params[0] == 3.0
    with pytest.raises(StrategyError, match="trick"):
        load("tests.bots.compiled_bots:NOT_HELD(depth=3)")
    with pytest.raises(StrategyError, match="not a number"):
        load("tests.bots.compiled_bots:NOT_HELD(trick=many)")
    with pytest.raises(StrategyError, match="no parameter"):
        load("random(x=1)")


def test_python_class_from_file_and_module(py_bot):
    s = load(py_bot("PyRandom", "delay=0.5"))
    assert s.kind == "python" and s.python_factory().delay == 0.5
    assert load("tests.bots.python_bots:PyLowcard").kind == "python"
    with pytest.raises(StrategyError, match="parameters"):
        load(py_bot("PyRandom", "speed=2"))


def test_missing_file_module_and_attribute(tmp_path):
    with pytest.raises(StrategyError, match="does not exist"):
        load(f"{tmp_path}/nope.py:X")
    with pytest.raises(StrategyError, match="cannot import"):
        load("no_such_module_xyz:X")
    with pytest.raises(StrategyError, match="no attribute"):
        load("tests.bots.python_bots:Nope")
    with pytest.raises(StrategyError, match="neither"):
        load("tests.bots.python_bots:time")


def test_entry_points_are_found(monkeypatch):
    ep = importlib.metadata.EntryPoint(
        "plugged", "tests.bots.python_bots:PyLowcard", "hsim.strategies"
    )

    def fake(group=None):
        return [ep] if group == "hsim.strategies" else []

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    assert load("plugged").kind == "python"


# A compiled strategy file as docs/strategies.md writes one (``cache=True``), calling a
# compiled helper of its own file: numba's cache of ``play`` then names the file's module.
# ``HIGH`` is the line two copies of the file edit differently.
COMPILED_FILE = """
from numba import njit
from hsim.engine.bits import nth_card, popcount
from hsim.engine.layout import V_HAND
from hsim.engine.signatures import PASS_SIG, PLAY_SIG
from hsim.strategy.contract import CompiledStrategy

HIGH = {high}


@njit(cache=True)
def pick(mask):
    # The lowest card of one suit (following suit), else the highest (a discard); HIGH:
    # always the highest.
    low, high = nth_card(mask, 0), nth_card(mask, popcount(mask) - 1)
    return high if HIGH or low // 13 != high // 13 else low


@njit(PASS_SIG, cache=True)
def pass_cards(public, private, rng, params):  # the 3 highest cards, in both versions
    hand, out = private[V_HAND], 0
    for _ in range(3):
        rest = hand & ~out
        out |= 1 << nth_card(rest, popcount(rest) - 1)
    return out


@njit(PLAY_SIG, cache=True)
def play(public, private, legal, rng, params):
    return pick(legal)


STRATEGY = CompiledStrategy(name="mybot", pass_cards=pass_cards, play=play)
"""

# Loads both copies at one table and asks each for a card from the same legal mask.
TABLE_SCRIPT = """
import json, sys
import numpy as np
from hsim.engine.layout import PRIVATE_LEN, PUBLIC_LEN
from hsim.strategy.loader import load_players
specs = sys.argv[1:3]
players = load_players([*specs, "random", "random"])
public = np.zeros(PUBLIC_LEN, np.int64)
private = np.zeros(PRIVATE_LEN, np.int64)
rng = np.zeros(1, np.uint64)
legal = (1 << 1) | (1 << 5) | (1 << 9)  # three clubs
print(json.dumps({
    "cards": [int(p.compiled.play(public, private, legal, rng, p.params)) for p in players[:2]],
    "cache_hits": [sum(p.compiled.play.stats.cache_hits.values()) for p in players[:2]],
    "modules": [p.compiled.play.py_func.__module__ for p in players[:2]],
}))
"""


def _write_copies(tmp_path):
    for folder, high in (("a", False), ("b", True)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mybot.py").write_text(COMPILED_FILE.format(high=high))
    return [f"{tmp_path / f}/mybot.py:STRATEGY" for f in ("a", "b")]


def test_compiled_file_strategies_load_again_in_a_fresh_process(tmp_path):
    # A cache=True file strategy once loaded only on its first run: its module name came
    # from hash(), which changes per process, and numba's cache named the old module.
    # Two copies of the file in two folders, edited differently, sit at one table.
    import json
    import os
    import subprocess
    import sys

    specs = _write_copies(tmp_path)
    env = {**os.environ, "HSIM_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", TABLE_SCRIPT, *specs],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.splitlines()[-1]))
    first, second = runs
    # a plays its lowest legal card, b its highest: each copy loaded as itself.
    assert first["cards"] == second["cards"] == [1, 9]
    assert first["modules"] == second["modules"]
    assert first["modules"][0] != first["modules"][1]
    assert first["cache_hits"] == [0, 0]  # compiled and cached by the first run
    assert all(hits >= 1 for hits in second["cache_hits"])  # read back by the second


def test_file_module_names_are_stable_and_per_folder(tmp_path):
    from hsim.strategy.loader import file_module_name

    a, b = tmp_path / "a" / "mybot.py", tmp_path / "b" / "mybot.py"
    assert file_module_name(a) == file_module_name(tmp_path / "a" / ".." / "a" / "mybot.py")
    assert file_module_name(a) != file_module_name(b)
    assert file_module_name(a).isidentifier()
    assert file_module_name(tmp_path / "my-bot.v2.py").isidentifier()


def test_manifest_description_holds_every_python_parameter(py_bot):
    """A plain-Python bot's defaults are recorded as values, not as ``{}``."""
    assert load(py_bot("PyRandom")).describe()["params"] == {"delay": 0.0}
    assert load(py_bot("PyRandom", "delay=0.5")).describe()["params"] == {"delay": 0.5}
    assert load(py_bot("Crashes")).describe()["params"] == {"holding": "AS KS"}
    assert load(py_bot("PyLowcard")).describe()["params"] == {}


def test_manifest_description_hashes_a_strategy_file(tmp_path):
    import hashlib

    bot = tmp_path / "mybot.py"
    bot.write_text("class Bot:\n    def play(self, obs, legal, rng):\n        return 0\n")
    described = load(f"{bot}:Bot").describe()
    assert described["sha256"] == hashlib.sha256(bot.read_bytes()).hexdigest()
    bot.write_text(bot.read_text() + "# edited\n")
    assert load(f"{bot}:Bot").describe()["sha256"] != described["sha256"]
    assert "sha256" not in load("heuristic").describe()  # hsim's own commit covers it


@pytest.mark.parametrize("module_name", ["duck", "heuristic", "kierki", "pimc", "shooter"])
def test_builtin_declarations_read_from_source_match_the_loaded_bot(module_name):
    import importlib

    from hsim.strategy.contract import declared
    from hsim.strategy.loader import builtin_declarations

    loaded = importlib.import_module(f"hsim.strategies.{module_name}").STRATEGY.params
    read = builtin_declarations(module_name)
    assert read is not None
    assert list(read.items()) == [(k, declared(v)) for k, v in loaded.items()]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pimc(worldz=3)", "has no parameter 'worldz'"),
        ("pimc(worlds=0)", "out of range"),
        ("shooter(moon_losers=1.5e9)", "out of range"),
        ("heuristic(qs_guard=many)", "not a number"),
    ],
)
def test_a_builtin_parameter_is_refused_before_the_bot_is_imported(spec, message):
    # A compiled bot compiles when imported (a minute on a cold cache): a typo in its
    # parameters is refused from its source first.
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from hsim.strategy.loader import precheck\n"
        "from hsim.strategy.contract import StrategySpecError\n"
        "try:\n"
        f"    precheck({spec!r})\n"
        "except StrategySpecError as exc:\n"
        "    print(exc)\n"
        "print(sorted(m for m in sys.modules if m.startswith('hsim.strategies.')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    error, imported = proc.stdout.splitlines()
    assert message in error
    assert imported == "[]"


def test_precheck_accepts_good_builtin_parameters():
    from hsim.strategy.loader import precheck

    precheck("pimc(worlds=20,shooter_infer=1)")
    precheck("shooter(moon_losers=-1)")


def test_the_strategies_folder_is_not_importable_under_a_second_name():
    # numba caches compiled code by file: a bot compiled as ``strategies.pimc`` broke
    # every later run that loaded it as ``hsim.strategies.pimc``.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, "-c", "import strategies.pimc"], capture_output=True, text=True, cwd=root
    )
    assert proc.returncode != 0
    assert "import hsim.strategies.pimc" in proc.stderr
