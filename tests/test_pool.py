"""Local worker pools: forked when that is safe, spawned otherwise, same datasets either way."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hsim.model.rules import Rules
from hsim.runner import pool as pool_module
from hsim.runner.config import RunConfig
from hsim.runner.lock import claim, is_locked
from hsim.runner.pool import fork_is_safe, process_pool, stop_executor
from hsim.runner.run import forks_workers, run_tournament
from hsim.runner.signals import StopSignals
from hsim.strategy.loader import load_players
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
    for method in ("spawn", "SPAWN ", "forkserver", "spwan"):  # a misspelling never forks
        monkeypatch.setenv("HSIM_START_METHOD", method)
        assert not fork_is_safe()
    monkeypatch.setenv("HSIM_START_METHOD", "fork")
    assert fork_is_safe()


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


def _open_locks() -> list[str]:
    """The run-folder locks this process has open (from /proc/self/fd)."""
    links = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the directory's own descriptor, closed by now
            links.append(os.readlink(fd))
    return [link for link in links if link.endswith(".hsim.lock")]


@linux_only
def test_a_forked_worker_does_not_hold_the_folders_lock(monkeypatch, tmp_path):
    # hsim resume claims the folder before it forks its workers: a worker that kept the
    # lock's descriptor would keep the folder locked after its owner was killed.
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch)
    monkeypatch.setitem(MARKER, "set", True)
    lock = claim(tmp_path)
    executor = process_pool(1, fork=True)
    try:
        assert executor.submit(_marker).result(timeout=60), "the worker was forked"
        assert _open_locks(), "the owner holds its lock"
        assert executor.submit(_open_locks).result(timeout=60) == []
        assert is_locked(tmp_path)
    finally:
        stop_executor(executor)
        lock.release()
    assert not is_locked(tmp_path)


def _wakeup_fd() -> int:
    old = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(old)
    return old


@linux_only
def test_a_forked_worker_does_not_wake_the_runs_stop_watcher(monkeypatch):
    # The run's stop watcher reads the wakeup pipe: a signal a forked worker takes must
    # not be written into it, or the run would stop as if it had been interrupted.
    monkeypatch.delenv("HSIM_START_METHOD", raising=False)
    _threads(monkeypatch)
    monkeypatch.setitem(MARKER, "set", True)
    signals = StopSignals().install()
    try:
        executor = process_pool(1, fork=True)
        try:
            assert executor.submit(_marker).result(timeout=60), "the worker was forked"
            assert _wakeup_fd() != -1, "the run's process has its watcher's pipe"
            assert executor.submit(_wakeup_fd).result(timeout=60) == -1
        finally:
            stop_executor(executor)
    finally:
        signals.restore()
    assert signals.signum is None


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


@linux_only
def test_a_worker_asks_the_kernel_to_kill_it_when_its_parent_dies():
    # die_with_parent sets PR_SET_PDEATHSIG to SIGKILL through libc's prctl; read it back
    # (PR_GET_PDEATHSIG) in a child process, whose parent is this test.
    import subprocess

    script = (
        "import ctypes, os\n"
        "from hsim.runner.pool import die_with_parent\n"
        "die_with_parent(os.getppid())\n"
        "sig = ctypes.c_int(0)\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)\n"
        "print(sig.value)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert int(out.stdout) == signal.SIGKILL


def test_the_resource_tracker_writes_its_warnings_nowhere():
    # Its leaked-semaphore warnings after a stop would read as hsim's failure.
    import subprocess
    import sys

    code = (
        "import os\n"
        "from multiprocessing import resource_tracker\n"
        "from hsim.runner.pool import process_pool, stop_executor\n"
        "pool = process_pool(1)\n"
        "pid = resource_tracker._resource_tracker._pid\n"
        "print(os.readlink(f'/proc/{pid}/fd/2'))\n"
        "stop_executor(pool)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "/dev/null"
