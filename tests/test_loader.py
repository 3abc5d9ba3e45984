"""The --players spec grammar and strategy lookup."""

import importlib.metadata

import pytest

from hsim.loader import builtin_names, describe_available, load, parse_spec, split_players
from hsim.strategy import StrategyError


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
