"""Local worker pools: forked when that is safe, spawned otherwise, same datasets either way."""

from __future__ import annotations

import sys
import threading

import pyarrow.parquet as pq
import pytest

from hsim.loader import load_players
from hsim.rules import Rules
from hsim.runner import pool as pool_module
from hsim.runner.pool import fork_is_safe, process_pool, stop_executor
from hsim.runner.run import RunConfig, forks_workers, run_tournament
from tests.conftest import PY_BOTS

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux only")

#: Set by the test in this process: a forked worker sees it, a spawned one imports anew.
MARKER = {"set": False}


def _marker() -> bool:
    return MARKER["set"]


def _threads(monkeypatch, *others: threading.Thread) -> None:
    """Make this process look as if its only threads were the main one and ``others``
    (earlier tests leave threads behind: progress bars' monitors, pools' managers)."""
    main = threading.main_thread()
    monkeypatch.setattr(pool_module.threading, "enumerate", lambda: [main, *others])


@linux_only
def test_fork_is_safe_with_only_hsims_own_threads(monkeypatch):
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch)
    assert fork_is_safe()
    _threads(monkeypatch, threading.Thread(target=print, name="hsim-stop-watch"))
    assert fork_is_safe()


@linux_only
def test_fork_is_not_safe_with_another_thread_or_when_told(monkeypatch):
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch, threading.Thread(target=print))  # a progress bar's monitor, say
    assert not fork_is_safe()
    _threads(monkeypatch)
    monkeypatch.setenv("HSIM_START_METHOD", "spawn")
    assert not fork_is_safe()


def test_fork_is_not_safe_off_linux(monkeypatch):
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    monkeypatch.setattr(pool_module.sys, "platform", "darwin")
    assert not fork_is_safe()


@linux_only
@pytest.mark.parametrize("fork", [True, False])
def test_a_pool_forks_only_when_asked_and_safe(monkeypatch, fork):
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch)
    monkeypatch.setitem(MARKER, "set", True)
    executor = process_pool(1, fork=fork)
    try:
        assert executor.submit(_marker).result(timeout=60) is fork
    finally:
        stop_executor(executor)


def test_python_players_are_never_forked(monkeypatch):
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch)
    compiled = load_players(["random"] * 4)
    assert forks_workers(compiled) is sys.platform.startswith("linux")
    python = load_players(["random", "random", "random", f"{PY_BOTS}:PyRandom"])
    assert not forks_workers(python)


def _datasets(folder):
    return {d: pq.read_table(folder / d).sort_by("game") for d in ("deals", "games")}


@linux_only
def test_forked_and_spawned_workers_write_the_same_datasets(monkeypatch, tmp_path):
    config = RunConfig(Rules(), ("random", "lowcard", "duck", "heuristic"), 600, 3, chunk_size=50)
    _threads(monkeypatch)
    used = []
    context = pool_module.get_context
    monkeypatch.setattr(pool_module, "get_context", lambda m: used.append(m) or context(m))
    out = {}
    for method in ("fork", "spawn"):
        monkeypatch.setenv("HSIM_START_METHOD", method)
        result = run_tournament(config, tmp_path / method, workers=2, progress=False)
        assert result.status == "complete"
        assert used.pop() == method and not used
        out[method] = _datasets(tmp_path / method)
    for dataset in ("deals", "games"):
        assert out["fork"][dataset].equals(out["spawn"][dataset])
