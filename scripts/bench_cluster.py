"""``--cluster`` against the local pool on this machine, and Dask's per-task overhead.

Usage::

    python scripts/bench_cluster.py [--games 1000000] [--workers 2] [--keep]
        [--cluster-chunk-size N]

With the ``hsim`` console script of the active virtual environment (and ``dask`` from the
cluster extra), it

1. starts a Dask scheduler and ``--workers`` single-threaded worker processes on
   127.0.0.1 (``dask scheduler --scheduler-file``, ``dask worker --nworkers W
   --nthreads 1``) and waits for them;
2. plays a 2,000-game warm-up on the cluster (each worker imports hsim and loads the
   compiled code once, as any long-lived worker would have);
3. times, one after the other, ``hsim tournament --players random,random,random,random
   --games N --seed 1 --no-progress`` with ``--workers W`` (the local pool, processes
   started by the command) and with ``--cluster SCHEDULER_FILE``, from launch to exit;
4. checks that both runs wrote byte-identical Parquet parts;
5. measures the per-task overhead: 2,000 empty tasks through the same executor the
   runner uses (one at a time: the round trip; all at once: the throughput), and a
   4,000-game run with ``--chunk-size 10`` against ``--chunk-size 2000``, on the cluster
   and on the local pool (the extra wall time per extra chunk, times the worker count:
   the cost of one chunk; the cluster's minus the pool's: Dask's own cost per task).

It prints the figures, the machine's load average and the CPU seconds other processes
used meanwhile (the figures are the machine's only when that is near zero), then stops
the scheduler and workers and deletes the run folders unless ``--keep``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_engine import machine_busy_s  # noqa: E402

PLAYERS = "random,random,random,random"
CHUNK_TEST_GAMES = 4000


def _tree_cpu(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            for p in [proc, *proc.children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _own_cpu(pids: list[int]) -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime + _tree_cpu(pids)


def _tournament(hsim: str, out: Path, games: int, *extra: str) -> float:
    cmd = [hsim, "tournament", "--players", PLAYERS, "--games", str(games), "--seed", "1"]
    cmd += ["--no-progress", "--overwrite", "--out", str(out), *extra]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _digests(run: Path) -> dict[str, str]:
    return {
        str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run.glob("*/part-*.parquet"))
    }


def _task_overhead(scheduler_file: Path, n: int) -> tuple[float, float]:
    from distributed import Client

    from hsim.runner.cluster import DaskExecutor

    with Client(scheduler_file=str(scheduler_file)) as client:
        executor = DaskExecutor(client)
        t0 = time.perf_counter()
        for i in range(n // 10):
            executor.submit(abs, -i).result()
        one = (time.perf_counter() - t0) / (n // 10)
        t0 = time.perf_counter()
        futures = [executor.submit(abs, -i) for i in range(n)]
        for f in futures:
            f.result()
        many = (time.perf_counter() - t0) / n
    return one, many


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--hsim", default=shutil.which("hsim") or "hsim")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument(
        "--cluster-chunk-size", type=int, default=None, help="--chunk-size of the cluster run"
    )
    args = ap.parse_args()
    bin_dir = Path(args.hsim).resolve().parent
    dask = str(bin_dir / "dask")
    tmp = Path(tempfile.mkdtemp(prefix="hsim-bench-cluster-"))
    sched_file = tmp / "scheduler.json"
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(sched_file)],
            stderr=subprocess.DEVNULL,
        ),
    ]  # fmt: skip
    try:
        while not sched_file.exists():
            time.sleep(0.1)
        procs.append(
            subprocess.Popen(
                [dask, "worker", "--scheduler-file", str(sched_file), "--nworkers",
                 str(args.workers), "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"],
                stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
        from distributed import Client

        with Client(scheduler_file=str(sched_file)) as c:
            c.wait_for_workers(args.workers, timeout=120)
        pids = [p.pid for p in procs]
        cluster = ("--cluster", str(sched_file))
        _tournament(args.hsim, tmp / "warm", 2000, *cluster)

        load0, busy0, own0 = os.getloadavg(), machine_busy_s(), _own_cpu(pids)
        t_pool = _tournament(args.hsim, tmp / "pool", args.games, "--workers", str(args.workers))
        sized = ("--chunk-size", str(args.cluster_chunk_size)) if args.cluster_chunk_size else ()
        t_dask = _tournament(args.hsim, tmp / "dask", args.games, *cluster, *sized)
        same = _digests(tmp / "pool") == _digests(tmp / "dask") if not sized else None
        n, w = CHUNK_TEST_GAMES, ("--workers", str(args.workers))
        small = _tournament(args.hsim, tmp / "small", n, *cluster, "--chunk-size", "10")
        large = _tournament(args.hsim, tmp / "large", n, *cluster, "--chunk-size", "2000")
        pool_small = _tournament(args.hsim, tmp / "psmall", n, *w, "--chunk-size", "10")
        pool_large = _tournament(args.hsim, tmp / "plarge", n, *w, "--chunk-size", "2000")
        one, many = _task_overhead(sched_file, 2000)
        busy1, own1, load1 = machine_busy_s(), _own_cpu(pids), os.getloadavg()
        extra_tasks = n // 10 - n // 2000
        per_chunk = (small - large) / extra_tasks
        per_pool_chunk = (pool_small - pool_large) / extra_tasks

        print(f"games: {args.games:,}, workers: {args.workers}")
        print(f"local pool  --workers {args.workers}: {t_pool:8.2f} s wall")
        print(f"--cluster (scheduler + {args.workers} workers): {t_dask:8.2f} s wall")
        print(f"pool/cluster wall ratio: {t_pool / t_dask:.3f} (>= 1: the cluster is faster)")
        if same is None:  # other chunks, other parts: compare the rows
            import pandas as pd

            same = all(
                pd.read_parquet(tmp / "pool" / d, columns=["game", "hand", "points"]).equals(
                    pd.read_parquet(tmp / "dask" / d, columns=["game", "hand", "points"])
                )
                for d in ("deals",)
            )
            print(f"deals identical (game, hand, points columns): {same}")
        else:
            print(f"parts byte-identical: {same}")
        for label, a, b, per in (
            ("cluster", small, large, per_chunk),
            ("local pool", pool_small, pool_large, per_pool_chunk),
        ):
            print(
                f"{n:,} games, {label}: chunk-size 10 ({n // 10:,} chunks) {a:.2f} s, "
                f"chunk-size 2000 ({n // 2000} chunks) {b:.2f} s: {per * 1000:.2f} ms wall per "
                f"extra chunk ({per * args.workers * 1000:.2f} ms of worker time)"
            )
        print(
            f"Dask's own cost per task (cluster minus pool): "
            f"{(per_chunk - per_pool_chunk) * args.workers * 1000:.2f} ms of worker time"
        )
        print(
            f"empty task through the executor: {one * 1000:.2f} ms one at a time (round "
            f"trip), {many * 1000:.3f} ms each when 2,000 are in flight"
        )
        print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f} (1 min)")
        if busy0 is not None and busy1 is not None:
            other = max(0.0, (busy1 - busy0) - (own1 - own0))
            print(f"CPU seconds used by other processes meanwhile: {other:.1f}")
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"run folders kept in {tmp}")


if __name__ == "__main__":
    main()
