"""Runs on a real Dask cluster (``--cluster``): same datasets as the local pool, a worker
lost mid-run, the start checks (shared folder, strategy files), Dask only when asked.

The local runs here play in-process (``workers=1``): test_runner shows that the local
pool writes the same datasets for any number of workers, and starting a pool here would
double these tests' time. The clusters are started here, on 127.0.0.1 only, and stopped
by the fixtures: a scheduler with two worker processes (a LocalCluster with processes,
each worker under a nanny that restarts it), and a scheduler with one ``dask worker``
process that runs in its own mount namespace, where one folder of this machine is hidden
from it, as a folder that is not shared would be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from hsim.model.rules import Rules, make_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import RunError, run_tournament

distributed = pytest.importorskip("distributed")

from hsim.runner.cluster import (  # noqa: E402
    EXTRA_HINT,
    ClusterError,
    DaskCluster,
    check_address,
)

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
PLAYERS = ("random", "lowcard", "random", "lowcard")


def _config(**kw) -> RunConfig:
    kw.setdefault("rules", Rules())
    kw.setdefault("players", PLAYERS)
    kw.setdefault("games", 60)
    kw.setdefault("seed", 11)
    kw.setdefault("chunk_size", 5)
    return RunConfig(**kw)


def _assert_same_datasets(a: Path, b: Path, datasets=("deals", "games")) -> None:
    for dataset in datasets:
        left, right = pd.read_parquet(a / dataset), pd.read_parquet(b / dataset)
        assert len(left) > 0
        pd.testing.assert_frame_equal(left, right)


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes on 127.0.0.1."""
    with DaskCluster("local", workers=2) as c:
        yield c


def _unshare_prefix() -> list[str] | None:
    if shutil.which("unshare") is None:
        return None
    cmd = ["unshare", "--mount"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    probe = subprocess.run([*cmd, "true"], capture_output=True)
    return cmd if probe.returncode == 0 else None


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    """(cluster, hidden): a scheduler and one worker process that sees an empty private
    folder at ``hidden`` instead of this machine's.
    """
    prefix = _unshare_prefix()
    if prefix is None:
        pytest.skip("needs `unshare --mount` to give a worker its own view of a folder")
    hidden = tmp_path_factory.mktemp("hidden")
    local = distributed.LocalCluster(
        n_workers=0, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    )
    script = (
        f"mount -t tmpfs tmpfs {hidden} && exec {sys.executable} -m distributed.cli.dask_worker "
        f"{local.scheduler_address} --nthreads 1 --no-nanny --host 127.0.0.1 "
        f"--no-dashboard --death-timeout 60"
    )
    worker = subprocess.Popen([*prefix, "sh", "-c", script], cwd=REPO, stderr=subprocess.DEVNULL)
    try:
        with DaskCluster(local.scheduler_address) as c:
            yield c, hidden
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        local.close()


def test_tournament_on_the_cluster_equals_the_local_pool(cluster, tmp_path):
    config = _config(players=("random", f"{TESTS}/bots/python_bots.py:PyLowcard", "random", "duck"))
    local = run_tournament(config, tmp_path / "pool", workers=1, progress=False)
    remote = run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    assert remote.status == "complete" and remote.games_done == 60
    _assert_same_datasets(tmp_path / "pool", tmp_path / "dask")
    assert remote.summary == local.summary
    manifest = pd.read_json(tmp_path / "dask" / "run.json", typ="series")
    info = manifest["cluster"]
    assert info["address"] == "local" and len(info["workers"]) == 2
    # Every worker loaded the compiled code from its cache: nothing compiled per task.
    assert [w["compiled"] for w in info["checked"]] == [False, False]
    # The players were loaded once per worker process and kept for all its chunks.
    key_counts = cluster.client.run(_players_loaded, config.rules, config.players)
    assert sorted(key_counts.values()) == [1, 1]
    assert not list(tmp_path.glob("**/.probe-*")) and not list(tmp_path.glob("**/.tmp-*"))


def test_a_decision_timeout_stops_a_hung_python_strategy_on_the_cluster(cluster, tmp_path):
    # Dask workers play in threads, where no signal handler runs (see hsim.play.games).
    spinner = f"{TESTS}/bots/python_bots.py:Spinner"
    config = _config(players=("random", spinner, "random", "random"), seed=1, decision_timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(RunError, match=r"\(seat 1\) took longer than 0.5 s to decide"):
        run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    assert time.monotonic() - t0 < 60
    manifest = pd.read_json(tmp_path / "dask" / "run.json", typ="series")
    assert manifest["status"] == "failed" and manifest["error_kind"] == "decision_timeout"


def _players_loaded(rules, specs):
    from hsim.runner import chunk

    return sum(1 for key in chunk._WORKER_PLAYERS if key == (rules, specs))


def test_duplicate_on_the_cluster_equals_the_local_pool(cluster, tmp_path):
    config = _config(games=12, chunk_size=2, duplicate=True, players=("lowcard", *PLAYERS[1:]))
    run_tournament(config, tmp_path / "pool", workers=1, progress=False)
    run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    _assert_same_datasets(tmp_path / "pool", tmp_path / "dask")
    assert pd.read_parquet(tmp_path / "dask" / "games")["rotation"].nunique() == 4


def test_kierki_on_the_cluster_equals_the_local_pool(cluster, tmp_path):
    players = ("kierki", "random", "kierki")
    config = _config(rules=make_rules("kierki3"), players=players, games=20, chunk_size=3)
    run_tournament(config, tmp_path / "pool", workers=1, progress=False)
    run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    _assert_same_datasets(tmp_path / "pool", tmp_path / "dask")


@pytest.mark.parametrize("record", ["games", "plays"])
def test_each_record_mode_on_the_cluster_equals_the_local_pool(cluster, tmp_path, record):
    config = _config(games=6, chunk_size=2, duplicate=True, record=record)
    run_tournament(config, tmp_path / "pool", workers=1, progress=False)
    run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    datasets = config.datasets
    _assert_same_datasets(tmp_path / "pool", tmp_path / "dask", datasets)
    written = sorted(p.name for p in (tmp_path / "dask").iterdir() if p.is_dir())
    assert written == sorted(datasets)
    assert pd.read_json(tmp_path / "dask" / "run.json", typ="series")["record"] == record


def test_a_worker_killed_mid_run_changes_nothing(cluster, tmp_path):
    marker = tmp_path / "killed"
    killer = f"{TESTS}/bots/cluster_bots.py:KillsItsWorker(marker={marker},after=400)"
    config = _config(players=("random", killer, "random", "lowcard"), games=40, chunk_size=4)
    before = set(cluster.client.run(os.getpid).values())
    remote = run_tournament(config, tmp_path / "dask", progress=False, cluster=cluster)
    assert remote.status == "complete"
    killed = int(marker.read_text())  # the process that died mid-chunk
    assert killed in before
    run_tournament(config, tmp_path / "pool", workers=1, progress=False)
    _assert_same_datasets(tmp_path / "pool", tmp_path / "dask")
    deadline = time.monotonic() + 30  # the nanny restarts the worker; later tests want two
    while len(cluster.worker_addresses()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)


def test_run_folder_not_shared_is_refused_before_any_game(isolated, tmp_path):
    c, hidden = isolated
    with pytest.raises(RunError, match="not on a filesystem shared with that worker"):
        run_tournament(_config(), hidden / "run", progress=False, cluster=c)
    assert list(hidden.iterdir()) == []  # no run folder, no probe left
    with pytest.raises(RunError, match=r"cannot write into .*sub.*No such file"):
        run_tournament(_config(), hidden / "sub" / "run", progress=False, cluster=c)
    assert not (hidden / "sub" / "run").exists()


def test_strategy_file_missing_on_a_worker_is_refused_before_any_game(isolated, tmp_path):
    c, hidden = isolated
    bots = hidden / "my_bots.py"
    shutil.copy(TESTS / "bots" / "python_bots.py", bots)
    config = _config(players=("random", f"{bots}:PyLowcard", "random", "lowcard"))
    with pytest.raises(RunError) as err:
        run_tournament(config, tmp_path / "run", progress=False, cluster=c)
    message = str(err.value)
    assert f"has no strategy file {bots}" in message and "Nothing was played" in message
    assert not (tmp_path / "run").exists()


def test_single_file_module_is_shipped_to_workers(isolated, tmp_path, monkeypatch):
    c, hidden = isolated
    (hidden / "hsim_test_shipped_bot.py").write_text(
        textwrap.dedent(
            """
            from hsim.model.cards import cards_of

            class Low:
                def pass_cards(self, obs, rng):
                    return sum(1 << c for c in sorted(cards_of(obs.hand))[-3:])

                def play(self, obs, legal, rng):
                    return min(cards_of(legal), key=lambda c: (c % 13, c // 13))
            """
        )
    )
    monkeypatch.syspath_prepend(str(hidden))
    players = ("random", "hsim_test_shipped_bot:Low", "random", "lowcard")
    config = _config(players=players, games=6, chunk_size=2)
    remote = run_tournament(config, tmp_path / "dask", progress=False, cluster=c)
    assert remote.status == "complete"
    run_tournament(config, tmp_path / "here", workers=1, progress=False)
    _assert_same_datasets(tmp_path / "here", tmp_path / "dask")


def test_addresses_are_checked():
    assert check_address(" tcp://10.0.0.5:8786 ") == "tcp://10.0.0.5:8786"
    assert check_address("127.0.0.1:8786") == "127.0.0.1:8786"
    assert check_address("local") == "local"
    for bad in ("", "10.0.0.5", "tcp://host:", "tcp://host:99999", ":8786"):
        with pytest.raises(ClusterError, match="not a scheduler address"):
            check_address(bad)


def test_no_scheduler_at_the_address_is_a_clear_error():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at .*:{port}"):
        DaskCluster(f"tcp://127.0.0.1:{port}", timeout=1)


def test_missing_distributed_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(ClusterError, match=r"pip install -e '\.\[cluster\]'"):
        DaskCluster("local")
    assert EXTRA_HINT == "pip install -e '.[cluster]' in hsim's checkout"


def test_a_plain_run_does_not_import_dask(tmp_path):
    code = textwrap.dedent(
        f"""
        import sys
        from hsim.cli import main
        try:
            main(["tournament", "--players", "random,random,random,random", "--games", "3",
                  "--workers", "1", "--no-progress", "--out", {str(tmp_path / "r")!r}])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))
        assert not loaded, loaded
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, capture_output=True)


def _hsim(*args):
    from click.testing import CliRunner

    from hsim.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], prog_name="hsim")


def test_cli_tournament_ladder_and_compare_rules_on_a_cluster(cluster, tmp_path):
    address = cluster.scheduler_address
    base = ["tournament", "--players", ",".join(PLAYERS), "--games", 30, "--seed", 3]
    result = _hsim(*base, "--no-progress", "--cluster", address, "--out", tmp_path / "t")
    assert result.exit_code == 0, result.output
    _hsim(*base, "--no-progress", "--workers", 1, "--out", tmp_path / "here")
    _assert_same_datasets(tmp_path / "here", tmp_path / "t")
    manifest = pd.read_json(tmp_path / "t" / "run.json", typ="series")
    assert manifest["cluster"]["address"] == address

    ladder = ["ladder", "--bots", "random,lowcard", "--boards", 6, "--no-progress"]
    on_cluster = _hsim(*ladder, "--cluster", address, "--out", tmp_path / "l1")
    here = _hsim(*ladder, "--workers", 1, "--out", tmp_path / "l2")
    assert on_cluster.exit_code == 0, on_cluster.output
    assert on_cluster.output.splitlines()[:2] == here.output.splitlines()[:2]

    compare = ["compare-rules", "--players", ",".join(PLAYERS), "--games", 12]
    compare += ["--variant", "omnibus=true", "--no-progress", "--json"]
    on_cluster = _hsim(*compare, "--cluster", address, "--out", tmp_path / "c1")
    here = _hsim(*compare, "--workers", 1, "--out", tmp_path / "c2")
    assert on_cluster.exit_code == 0, on_cluster.output
    strip = [line for line in on_cluster.output.splitlines() if "run_dir" not in line]
    assert [line for line in here.output.splitlines() if "run_dir" not in line] != []
    assert strip == [
        line.replace(str(tmp_path / "c2"), str(tmp_path / "c1"))
        for line in here.output.splitlines()
        if "run_dir" not in line
    ]


def test_cli_cluster_usage_errors(cluster, tmp_path, monkeypatch):
    base = ["tournament", "--players", ",".join(PLAYERS), "--games", 5, "--out", tmp_path / "r"]
    bad = _hsim(*base, "--cluster", "10.0.0.5")
    assert bad.exit_code == 2 and "is not a scheduler address" in bad.output
    both = _hsim(*base, "--cluster", cluster.scheduler_address, "--workers", 2)
    assert both.exit_code == 2 and "drop --workers" in both.output
    monkeypatch.setitem(sys.modules, "distributed", None)
    missing = _hsim(*base, "--cluster", "local")
    assert missing.exit_code == 1 and "pip install -e '.[cluster]'" in missing.output
    assert "Traceback" not in missing.output and not (tmp_path / "r").exists()


def test_a_worker_with_another_file_or_another_hsim_is_named(tmp_path):
    probe = tmp_path / ".probe-x"
    probe.write_text("token")
    sources = [("file", "/shared/bots.py", "a" * 64)]
    report = {
        "who": {"host": "node7", "pid": 1, "cache_dir": "/c"},
        "hsim": "0.0.1",
        "source_hash": "0123456789abcdef",
        "folder_error": None,
        "sources": ["b" * 64],
    }
    bare = DaskCluster.__new__(DaskCluster)  # no connection needed to judge a report
    problems = bare._worker_problems(
        "tcp://10.0.0.7:1234", report, tmp_path, probe.name, "token", sources, ("0.1.0", "f" * 16)
    )
    assert len(problems) == 2 and not probe.exists()
    assert "worker tcp://10.0.0.7:1234 (host node7) runs hsim 0.0.1" in problems[0]
    assert "has a different strategy file /shared/bots.py" in problems[1]


def test_a_task_on_a_worker_that_was_not_checked_refuses_to_play(tmp_path):
    from hsim.runner.cluster import _VERIFIED, Guarded, _identity, strategy_sources

    bots = tmp_path / "bots.py"
    shutil.copy(TESTS / "bots" / "python_bots.py", bots)
    from hsim.strategy.loader import load_players

    players = load_players(["random", f"{bots}:PyLowcard", "random", "random"])
    sources = strategy_sources(players)
    assert sources == [("file", str(bots), sources[0][2])]
    assert Guarded(abs, _identity(), sources)(-3) == 3  # all there: plays
    with pytest.raises(ClusterError, match="runs hsim .* not 0.0.1"):
        Guarded(abs, ("0.0.1", "x"), sources)(-3)
    bots.write_text(bots.read_text() + "\n# edited\n")
    assert Guarded(abs, _identity(), sources)(-3) == 3  # checked once per process only
    _VERIFIED.clear()  # as in a worker process that joined after the edit
    with pytest.raises(ClusterError, match=f"has a different strategy file {bots}"):
        Guarded(abs, _identity(), sources)(-3)
    bots.unlink()
    _VERIFIED.clear()
    with pytest.raises(ClusterError, match=f"has no strategy file {bots}"):
        Guarded(abs, _identity(), sources)(-3)


def test_a_cluster_run_killed_is_resumed_on_the_cluster(cluster, tmp_path):
    import signal as signals

    from hsim.runner.manifest import JOURNAL
    from hsim.runner.resume import resume_run

    # Slow enough (~0.2 s a game) that the kill lands while most chunks are still to play,
    # even on a loaded machine.
    slow = f"{TESTS}/bots/python_bots.py:PyRandom(delay=0.0015)"
    players = ("random", slow, "random", "lowcard")
    out = tmp_path / "dask"
    cmd = [sys.executable, "-m", "hsim.cli", "tournament", "--players", ",".join(players)]
    cmd += ["--games", "24", "--chunk-size", "2", "--seed", "5", "--no-progress"]
    cmd += ["--cluster", cluster.scheduler_address, "--out", str(out)]
    parent = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60

    def journaled() -> int:  # chunks the client recorded (a part on disk may not be yet)
        try:
            return (out / JOURNAL).read_bytes().count(b"\n")
        except FileNotFoundError:
            return 0

    while journaled() < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    parent.send_signal(signals.SIGKILL)  # the client dies mid-run, the cluster stays
    parent.wait()
    assert pd.read_json(out / "run.json", typ="series")["status"] == "running"
    result = resume_run(out, progress=False, cluster=cluster)
    assert result.status == "complete" and 0 < result.games_played < 24
    manifest = pd.read_json(out / "run.json", typ="series")
    assert manifest["resumes"][0]["cluster"]["scheduler"] == cluster.scheduler_address
    config = _config(players=players, games=24, chunk_size=2, seed=5)
    run_tournament(config, tmp_path / "here", workers=1, progress=False)
    _assert_same_datasets(tmp_path / "here", out)


def test_sprt_on_the_cluster_gives_the_same_verdict_and_boards(cluster, tmp_path):
    from hsim.experiments.sprt import SprtConfig, run_sprt

    results = {}
    for name, kw in (("here", {"workers": 1}), ("dask", {"cluster": cluster})):
        config = SprtConfig(
            "heuristic", "duck", 0.0, 0.5, Rules(), max_boards=200, opponents=("random",) * 3
        )
        results[name] = run_sprt(config, tmp_path / name, **kw)
    here, dask = results["here"], results["dask"]
    assert here.verdict == dask.verdict == "H1" and here.boards == dask.boards > 8
    assert here.trace == dask.trace and here.deals == dask.deals
    for table in ("candidate", "baseline"):
        _assert_same_datasets(tmp_path / "here" / table, tmp_path / "dask" / table)
