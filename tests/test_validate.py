"""hsim.runner.config, declared strategy parameters, bounded rule counts and seeds, the
manifest's recorded paths, replay's --trust, and how a strategy's exit or interrupt is
told from a real one."""

from __future__ import annotations

import dataclasses
import json
import signal
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from hsim import errors
from hsim.analysis.replay import ReplayError, replay_run
from hsim.cli import main
from hsim.engine.rng import MAX_SEED, seed_to_u64
from hsim.errors import EXIT_RUN, EXIT_USAGE, ConfigError, ManifestError
from hsim.model.rules import RulesError, describe_options, make_rules
from hsim.play.games import play_range
from hsim.runner.config import MAX_GAME_STOP, RunConfig, check_manifest, load_manifest, validate
from hsim.runner.run import run_tournament
from hsim.strategy.contract import Param, StrategyError, StrategySpecError, check_params
from hsim.strategy.loader import load, load_players
from hsim.strategy.specs import recorded_spec, spec_from_run

R4 = ("random",) * 4
HEARTS = make_rules("classic")


def _config(**changes) -> RunConfig:
    return dataclasses.replace(RunConfig(HEARTS, R4, games=10, seed=1), **changes)


# -- validate() -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"seed": 2**64}, "0..2**64-1"),
        ({"seed": -1}, "negative"),
        ({"seed": True}, "integer"),
        ({"seed": 1.0}, "integer"),
        ({"games": 0}, "--games"),
        ({"games": "10"}, "--games"),
        ({"first_game": -1}, "--first-game"),
        ({"first_game": MAX_GAME_STOP - 5}, "int64"),
        ({"first_game": MAX_GAME_STOP // 4, "duplicate": True}, "rotations"),
        ({"chunk_size": 0}, "--chunk-size"),
        ({"chunk_size": 50_001}, "1..50000"),
        ({"duplicate": "yes"}, "duplicate"),
        ({"score_also": (make_rules("classic", {"omnibus": True}),) * 2}, "already"),
        (
            {"score_also": tuple(make_rules("classic", {"end_score": 50 + k}) for k in range(9))},
            "at most 8",
        ),  # fmt: skip
        ({"score_also": (HEARTS,)}, "base rules"),
        ({"score_also": ("omnibus=true",)}, "rule sets"),
        ({"players": "random,random,random,random"}, "one spec string per seat"),
    ],
)
def test_validate_refuses_each_setting_out_of_range(changes, words):
    with pytest.raises(ConfigError) as err:
        validate(_config(**changes))
    assert words in str(err.value) and err.value.exit_code == EXIT_USAGE


def test_validate_checks_workers_rules_and_players():
    with pytest.raises(ConfigError, match="--workers"):
        validate(_config(), workers=0)
    with pytest.raises(ConfigError, match="1..1024"):
        validate(_config(), workers=5000)
    with pytest.raises(ConfigError, match="Kierki"):
        validate(RunConfig(make_rules("kierki4"), R4, 3, 1, score_also=(make_rules("kierki4"),)))
    with pytest.raises(StrategySpecError, match="worlds takes an integer 1..10000") as err:
        validate(_config(players=("pimc(worlds=-3)", "random", "random", "random")))
    assert err.value.exit_code == EXIT_USAGE
    with pytest.raises(StrategySpecError, match="3 players given"):
        validate(_config(players=R4[:3]))


def test_validate_accepts_the_edges_and_returns_the_players():
    players = validate(_config(seed=MAX_SEED, first_game=MAX_GAME_STOP - 10, games=10))
    assert [p.name for p in players] == ["random"] * 4
    validate(_config(seed=0, chunk_size=50_000, duplicate=True, first_game=0))


def test_nothing_is_written_when_validation_fails(tmp_path):
    with pytest.raises(ConfigError):
        run_tournament(_config(seed=2**64), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


# -- seeds, rule counts, parameters --------------------------------------------------------------
def test_a_seed_beyond_64_bits_is_refused_not_reduced():
    assert seed_to_u64(MAX_SEED) == np.uint64(MAX_SEED)
    with pytest.raises(ConfigError, match="too large"):
        seed_to_u64(2**64)
    with pytest.raises(ConfigError, match="negative"):
        seed_to_u64(-1)


def test_rule_counts_have_upper_bounds_named_in_hsim_rules():
    assert make_rules("classic", {"end_score": 10_000}).end_score == 10_000
    with pytest.raises(RulesError, match="up to 10000"):
        make_rules("classic", {"end_score": 10_001})
    with pytest.raises(RulesError, match="max_deals"):
        make_rules("classic", ["max_deals=" + "9" * 40])
    with pytest.raises(RulesError, match="up to 1000"):
        make_rules("kierki4", {"trump_trick_value": 1001})
    allowed = {r["name"]: r["allowed"] for r in describe_options()}
    assert "10000" in allowed["end_score"] and "10000" in allowed["max_deals"]
    assert "1000" in allowed["trump_trick_value"]
    out = CliRunner().invoke(main, ["rules"]).output
    assert "a positive integer up to 10000" in out


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("-3", "out of range"),
        ("0", "out of range"),
        ("10001", "out of range"),
        ("1e18", "out of range"),
        ("nan", "not a finite number"),
        ("-inf", "not a finite number"),
        ("2.5", "not a whole number"),
        ("many", "not a number"),
        (True, "not a finite number"),
    ],
)
def test_an_int_parameter_names_its_range(value, words):
    with pytest.raises(StrategySpecError, match="worlds takes an integer 1..10000") as err:
        Param(80, int, 1, 10_000).check("pimc", "worlds", value)
    assert words in str(err.value)


def test_parameters_are_checked_in_one_place_for_both_tiers(tmp_path):
    assert Param(80, int, 1, 10_000).check("pimc", "worlds", "2e1") == 20
    assert check_params("x", {"a": 1.5, "b": Param(2, int, 0, 3)}, {"b": "3"}) == {
        "a": 1.5,
        "b": 3,
    }
    with pytest.raises(StrategySpecError, match="no parameter 'c'"):
        check_params("x", {"a": 1.5}, {"c": "1"})
    assert load("pimc(worlds=20,noise=0)").param_values["worlds"] == 20.0
    bots = tmp_path / "bots.py"
    bots.write_text(
        textwrap.dedent(
            """
            from hsim.strategy.contract import Param

            class Deep:
                params = {"depth": Param(2, int, 1, 6)}
                def __init__(self, depth):
                    self.depth = depth
                def play(self, obs, legal, rng):
                    return (legal & -legal).bit_length() - 1
            """
        )
    )
    deep = load(f"{bots}:Deep(depth=4)")
    assert deep.param_values == {"depth": 4} and deep.python_factory().depth == 4
    assert load(f"{bots}:Deep").python_factory().depth == 2  # the declared default
    with pytest.raises(StrategySpecError, match="depth takes an integer 1..6"):
        load(f"{bots}:Deep(depth=7)")


def test_every_built_in_parameter_declares_a_range():
    from hsim.strategy.loader import describe_available

    for row in describe_available():
        for name, _, meaning in row["params"] or []:
            assert ".." in meaning, (row["name"], name)


# -- a strategy's exit or interrupt --------------------------------------------------------------
class _Interrupts:
    def pass_cards(self, obs, rng):
        return sum(1 << c for c in obs.hand_cards()[:3])

    def play(self, obs, legal, rng):
        raise KeyboardInterrupt


class _Exits(_Interrupts):
    def play(self, obs, legal, rng):
        raise SystemExit(4)


class _RunnerStop(Exception):
    pass


class _Stopped(_Interrupts):
    def play(self, obs, legal, rng):
        raise _RunnerStop


def _players(cls):
    from hsim.strategy.loader import LoadedStrategy

    mine = LoadedStrategy("mine", "mine", "python", python_factory=cls)
    return [mine, *load_players(["random"] * 4)[1:]]


def test_a_strategy_keyboard_interrupt_is_its_error_when_hsim_handles_sigint():
    old = signal.signal(signal.SIGINT, errors.on_sigint)
    errors.clear_signal()
    try:
        with pytest.raises(StrategyError, match=r"'mine' \(seat 0\) raised KeyboardInterrupt"):
            play_range(HEARTS, _players(_Interrupts), 1, 0, 1)
        errors.note_signal(signal.SIGINT)  # a real Ctrl-C arrived: it stops the run
        with pytest.raises(KeyboardInterrupt):
            play_range(HEARTS, _players(_Interrupts), 1, 0, 1)
        errors.note_signal(signal.SIGTERM)  # a runner's own stop, raised in a strategy call
        with pytest.raises(_RunnerStop):
            play_range(HEARTS, _players(_Stopped), 1, 0, 1)
    finally:
        errors.clear_signal()
        signal.signal(signal.SIGINT, old)


def test_under_python_default_handler_a_keyboard_interrupt_propagates():
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            play_range(HEARTS, _players(_Interrupts), 1, 0, 1)
    finally:
        signal.signal(signal.SIGINT, old)


def test_system_exit_is_always_a_strategy_error():
    with pytest.raises(StrategyError, match=r"\(seat 0\) called sys.exit\(4\) in game 0") as err:
        play_range(HEARTS, _players(_Exits), 1, 0, 1)
    assert err.value.exit_code == EXIT_RUN


# -- run.json: recorded paths, damaged fields, --trust --------------------------------------
BOT = """
class Low:
    def pass_cards(self, obs, rng):
        return sum(1 << c for c in sorted(obs.hand_cards())[-3:])
    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1
"""


@pytest.fixture
def py_run(tmp_path, monkeypatch):
    """A run of a strategy file given by a path relative to the current directory."""
    home = tmp_path / "home"
    (home / "bots").mkdir(parents=True)
    (home / "bots" / "low.py").write_text(BOT)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    run = home / "results" / "run"
    config = RunConfig(HEARTS, ("bots/low.py:Low",) + R4[1:], games=2, seed=4)
    run_tournament(config, run, progress=False, argv=["hsim", "tournament", str(home)])
    return run


def test_run_json_records_strategy_files_relative_to_the_run_and_no_home(py_run):
    text = (py_run / "run.json").read_text()
    manifest = json.loads(text)
    assert manifest["players"][0]["spec"] == "../../bots/low.py:Low"
    assert "cwd" not in manifest
    assert str(py_run.parent.parent) not in text  # the home directory is written ~
    assert manifest["argv"] == ["hsim", "tournament", "~"]


def test_recorded_specs_round_trip(tmp_path):
    spec = recorded_spec(f"{tmp_path}/a/b.py:C(x=1)", tmp_path / "runs" / "r")
    assert spec == "../../a/b.py:C(x=1)"
    assert spec_from_run(spec, tmp_path / "runs" / "r") == f"{tmp_path}/runs/r/{spec}"
    assert recorded_spec("pimc(worlds=3)", tmp_path) == "pimc(worlds=3)"


def test_replay_of_a_run_with_a_strategy_file_needs_trust(py_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # elsewhere: the recorded path is relative to the run
    with pytest.raises(ReplayError, match=r"--trust") as err:
        replay_run(py_run, 1)
    assert str(py_run.parent.parent / "bots" / "low.py") in str(err.value)
    assert err.value.exit_code == EXIT_USAGE
    _, _, records, _, recorded = replay_run(py_run, 1, trust=True)
    assert records and recorded is not None
    r = CliRunner().invoke(main, ["replay", str(py_run), "--game", "1", "--trust"])
    assert r.exit_code == 0 and "warning" not in r.output and "trick  1" in r.output


def test_check_manifest_reads_a_real_manifest_and_names_a_bad_field(py_run):
    manifest, rules = load_manifest(py_run)
    assert rules == HEARTS and check_manifest(manifest) == HEARTS
    for field, value, words in [
        ("seed", None, "'seed' is missing"),
        ("games", 2**63, "games"),
        ("duplicate", "no", "'duplicate' must be bool"),
        ("score_also", [1], "score_also"),
    ]:
        broken = dict(manifest)
        if value is None:
            del broken[field]
        else:
            broken[field] = value
        with pytest.raises(ManifestError) as err:
            check_manifest(broken, "run.json")
        assert words in str(err.value) and err.value.exit_code == EXIT_RUN
