"""hsim report in bounded memory: a run larger than a memory limit is reported right.

The report runs in a child process under ``RLIMIT_AS`` (address space), set a fixed
margin above what the child already uses after a warm-up report on a small run. With
pyarrow's default allocator (mimalloc) an address-space limit proves nothing: mimalloc
reserves large arenas up front and serves the data from them, so the child uses the
system allocator (``ARROW_DEFAULT_MEMORY_POOL=system``; ``MALLOC_ARENA_MAX=2`` keeps
glibc from reserving an arena per thread), where every large allocation is a mapping of
its own and counts against the limit. The same child then loads the deals the way the
in-memory path did (``load_run``) and must fail: the dataset does not fit the limit.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hsim.analysis import load_run, rescore_run
from hsim.analysis.stats import mean_interval, ratio_interval, wilson_interval
from tests.synthetic_run import write_run

GAMES = 60_000  # 2,400,000 deal rows: their in-memory load needs ~340 MB more
MARGIN = 200 * 2**20  # address space the report may add after its warm-up (it adds 30-130 MB)

CHILD = r"""
import json, resource, sys
from hsim.analysis.frames import ANALYSIS_DEAL_COLUMNS, load_run
from hsim.analysis.report import build_report

def vm_peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmPeak"):
            return int(line.split()[1]) * 1024

small, big, margin, scoring = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] or None
build_report(small, scoring)  # imports, thread pools, allocator arenas, compiled kernels
resource.setrlimit(resource.RLIMIT_AS, (vm_peak() + margin, resource.RLIM_INFINITY))
out = {"report": build_report(big, scoring)}
try:
    run = load_run(big, deal_columns=list(ANALYSIS_DEAL_COLUMNS))
    out["in_memory"] = f"loaded {len(run.deals)} rows"
except MemoryError:
    out["in_memory"] = "MemoryError"
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    write_run(root / "small", 2000, seed=2)
    facts = write_run(root / "big", GAMES, seed=1)
    return root / "small", root / "big", facts


def _child(small: Path, big: Path, scoring: str = "") -> dict:
    env = dict(os.environ, ARROW_DEFAULT_MEMORY_POOL="system", MALLOC_ARENA_MAX="2")
    args = [sys.executable, "-c", CHILD, str(small), str(big), str(MARGIN), scoring]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _same(got: dict, want) -> None:
    assert got["n"] == want.n
    for key in ("estimate", "low", "high"):
        assert got[key] == pytest.approx(getattr(want, key), rel=1e-9, abs=1e-12), key


def test_report_of_a_run_larger_than_the_memory_limit(runs):
    small, big, f = runs
    out = _child(small, big)
    assert out["in_memory"] == "MemoryError"  # the deals do not fit in the limit
    rep = out["report"]
    s = rep["summary"]
    assert s["games"] == GAMES and s["censored"] == 0 and rep["warnings"] == []
    points, moon, final, winner = f["points"], f["moon"], f["final"], f["winner"]
    deals = points.shape[1]
    _same(s["final_score"], mean_interval(final.mean(axis=1)))
    _same(s["winning_score"], mean_interval(final.min(axis=1)))
    _same(s["moon_rate"], ratio_interval(moon.sum(axis=(1, 2)), np.full(GAMES, deals)))
    qs = [0.05, 0.25, 0.5, 0.75, 0.95]
    assert list(s["score_quantiles"].values()) == np.quantile(final, qs, method="nearest").tolist()
    rows = {r["strategy"]: r for r in rep["strategies"]}
    for name, seats in (("random", [0, 2]), ("lowcard", [1, 3])):
        r = rows[name]
        assert r["seat_deals"] == GAMES * deals * 2 and r["seat_games"] == GAMES * 2
        per_game = points[:, :, seats].sum(axis=(1, 2))
        _same(r["points_per_deal"], ratio_interval(per_game, np.full(GAMES, 2 * deals)))
        _same(r["win_rate"], wilson_interval(int(winner[:, seats].sum()), 2 * GAMES))
    for r in rep["by_seat"]:
        s_ = r["seat"]
        _same(r["points_per_deal"], ratio_interval(points[:, :, s_].sum(1), np.full(GAMES, deals)))
    left = [r for r in rep["by_pass_direction"] if r["pass_direction"] == "left"]
    assert [r["strategy"] for r in left] == ["lowcard", "random"]
    lefts = np.arange(deals) % 4 == 0
    per_game = points[:, lefts][:, :, [0, 2]].sum(axis=(1, 2))
    _same(left[1]["points_per_deal"], ratio_interval(per_game, np.full(GAMES, 2 * lefts.sum())))


def test_re_scoring_a_run_larger_than_the_memory_limit(runs):
    small, big, _ = runs
    scoring = "end_score=70"  # most synthetic games (10 deals) end by then, not all
    out = _child(small, big, scoring)
    assert out["in_memory"] == "MemoryError"
    rep = out["report"]
    # The same figures from the in-memory path, in this (unlimited) process.
    result = rescore_run(load_run(big), scoring)
    games = result.games
    censored = int(games["censored"].sum()) // 4
    assert 0 < censored < GAMES // 2
    assert rep["summary"]["censored"] == censored
    assert rep["summary"]["games"] == GAMES - censored
    deals = result.deals[result.deals["counted"]]
    rows = {r["strategy"]: r for r in rep["strategies"]}
    for name in ("random", "lowcard"):
        d = deals[deals["strategy"] == name]
        per = d.groupby("game")["deal_score"].agg(["sum", "size"])
        _same(rows[name]["score_per_deal"], ratio_interval(per["sum"], per["size"]))
        done = games[(games["strategy"] == name) & ~games["censored"]]
        _same(rows[name]["win_rate"], wilson_interval(int(done["winner"].sum()), len(done)))
