"""Fault injection: SIGKILL a tournament at random moments, resume it, compare the result.

Plays one uninterrupted reference run, then the same run killed (SIGKILL of the parent,
the harshest stop: no clean-up at all) ``--kills`` times at random moments, each time
continued with ``hsim resume``, and compares every part with the reference. Prints the
kills survived, the rows lost (must be 0), processes that outlived a kill (must be 0)
and the resume overhead (wall time beyond the reference's).

    python scripts/fault_injection.py                       # 1,000,000 games, 5 kills
    python scripts/fault_injection.py --games 200000 --kills 3

Exits 1 if a row is lost or differs, a process survives, or a folder fails verification.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path


def hsim(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def tagged(tag: str) -> list[int]:
    """Pids of live processes whose environment carries ``tag``."""
    out = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"HSIM_FAULT_TAG={tag}".encode() in env.read_bytes():
                out.append(int(env.parent.name))
        except OSError:
            pass
    return out


def parts_of(run_dir: Path) -> dict[str, dict]:
    manifest = json.loads((run_dir / "run.json").read_text())
    return {e[d]["file"]: e[d] for e in manifest.get("parts", []) for d in ("deals", "games")}


def rows_lost(reference: Path, run_dir: Path) -> tuple[int, int]:
    """Return (rows of the reference missing or different in ``run_dir``, rows compared).

    Parts are compared by sha256 (the same games give the same bytes); a part whose
    checksum differs is compared row by row.
    """
    import pandas as pd

    ref, got = parts_of(reference), parts_of(run_dir)
    lost = total = 0
    for name, part in ref.items():
        total += part["rows"]
        other = got.get(name)
        if other is None:
            lost += part["rows"]
        elif other["sha256"] != part["sha256"]:
            a = pd.read_parquet(reference / name)
            b = pd.read_parquet(run_dir / name)
            if len(a) != len(b):
                lost += abs(len(a) - len(b))
            else:
                lost += int((a != b).any(axis=1).sum())
    return lost, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="run seed (and of the kill moments)")
    ap.add_argument("--players", default="random,lowcard,random,lowcard")
    ap.add_argument("--keep", action="store_true", help="keep the run folders")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="hsim-fault-"))
    common = ["--players", args.players, "--games", str(args.games), "--seed", str(args.seed)]
    common += ["--workers", str(args.workers), "--no-progress"]
    failures = []
    try:
        t0 = time.perf_counter()
        proc = hsim("tournament", *common, "--out", str(root / "reference"))
        _, err = proc.communicate()
        t_ref = time.perf_counter() - t0
        if proc.returncode:
            print(err, file=sys.stderr)
            return 1
        print(f"reference: {args.games:,} games in {t_ref:.1f} s")

        tag = uuid.uuid4().hex
        env = dict(os.environ, HSIM_FAULT_TAG=tag)
        out = root / "killed"
        survived = survivors = 0
        t_faulty = 0.0
        cmd = ["tournament", *common, "--out", str(out)]
        for k in range(args.kills + 1):
            t0 = time.perf_counter()
            proc = hsim(*cmd, env=env)
            if k < args.kills:
                # A random moment within the run's expected span, leaving room for the rest.
                delay = rng.uniform(0.3, max(0.6, 0.8 * t_ref * (1 - k / (args.kills + 1))))
                try:
                    proc.wait(timeout=delay)
                    print(f"kill {k + 1}: the run ended before the kill at {delay:.1f} s")
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    t_faulty += time.perf_counter() - t0  # the checks below are not counted
                    t0 = None
                    deadline = time.monotonic() + 5
                    while tagged(tag) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    left = tagged(tag)
                    survivors += len(left)
                    status = (
                        json.loads((out / "run.json").read_text())["status"]
                        if (out / "run.json").exists()
                        else "no run.json"
                    )
                    print(
                        f"kill {k + 1}: SIGKILL at {delay:.1f} s (status left: {status}); "
                        f"processes alive 5 s later: {len(left)}"
                    )
                    for pid in left:
                        os.kill(pid, 9)
                    survived += 1
            else:
                _, err = proc.communicate()
                if proc.returncode:
                    failures.append(f"the last resume exited {proc.returncode}: {err.strip()}")
            if t0 is not None:
                t_faulty += time.perf_counter() - t0
            if (out / "run.json").exists():
                cmd = ["resume", str(out), "--workers", str(args.workers), "--no-progress"]
            # else: killed before run.json existed: the same tournament starts again
        verify = subprocess.run(
            [sys.executable, "-m", "hsim.cli", "verify", str(out)], capture_output=True, text=True
        )
        if verify.returncode:
            failures.append(f"verify: {verify.stderr.strip()}")
        lost, total = rows_lost(root / "reference", out)
        resumes = json.loads((out / "run.json").read_text()).get("resumes", [])
        overhead = t_faulty - t_ref
        print(f"kills survived: {survived} of {args.kills} (resumes recorded: {len(resumes)})")
        print(f"rows lost or different: {lost} of {total:,}")
        print(f"processes that outlived a kill by 5 s: {survivors}")
        print(
            f"wall time: reference {t_ref:.1f} s, killed and resumed {t_faulty:.1f} s; "
            f"resume overhead {overhead:+.1f} s ({100 * overhead / t_ref:+.0f}%, "
            f"{overhead / max(survived, 1):+.1f} s per kill)"
        )
        if lost or survivors or survived != args.kills:
            failures.append("rows lost, processes survived or a kill missed")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"run folders kept in {root}")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
