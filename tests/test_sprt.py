"""``hsim sprt`` and hsim.experiments.sprt: the strength gate on real games (small, fast runs)."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.analysis import load_run
from hsim.cli import main
from hsim.experiments.sprt import SPRT_FILE, TRACE_FILE, SprtConfig, run_sprt
from hsim.model.rules import PRESETS
from tests.test_loader import COMPILED_FILE

CLASSIC = PRESETS["classic"]
MIRROR = "tests.bots.compiled_bots:MIRROR_RANDOM"


def sprt(*args):
    """Run ``hsim sprt ARGS --json --no-progress``; return (exit code, parsed JSON or None)."""
    result = CliRunner().invoke(main, ["sprt", *args, "--json", "--no-progress"])
    try:
        doc = json.loads(result.stdout)
    except ValueError:
        doc = None
    return result.exit_code, doc, result.output


def test_heuristic_is_shown_stronger_than_duck(tmp_path):
    code, doc, _ = sprt(
        "--candidate", "heuristic", "--baseline", "duck", "--bounds", "0,0.5",
        "--max-boards", "200", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert (code, doc["verdict"]) == (0, "H1")
    assert doc["llr"] >= doc["upper"] and doc["advantage_low"] > 0.5
    assert doc["boards"] % 8 == 0 and doc["trace"][-1] == [doc["boards"], doc["llr"]]


def test_duck_is_not_shown_stronger_than_heuristic(tmp_path):
    code, doc, _ = sprt(
        "--candidate", "duck", "--baseline", "heuristic", "--bounds", "0,0.5",
        "--max-boards", "200", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert (code, doc["verdict"]) == (1, "H0")
    assert doc["llr"] <= doc["lower"] and doc["advantage"] < 0


def test_heuristic_against_itself_never_accepts_h1_in_20_seeds(tmp_path):
    # The same deterministic bot in every seat of every rotation plays the same games, so
    # each board's value is exactly 0 (the test stops at its first look, which is cheap).
    for seed in range(20):
        config = SprtConfig("heuristic", "heuristic", 0.0, 0.5, CLASSIC, max_boards=64, seed=seed)
        result = run_sprt(config, tmp_path / "r", overwrite=True)
        assert result.verdict != "H1", seed
        assert result.advantage.estimate == 0.0


@pytest.mark.parametrize("opponents", [None, ("random",) * 3], ids=["baseline", "paired"])
def test_both_designs_give_mean_zero_when_candidate_is_baseline(tmp_path, opponents):
    same = SprtConfig(
        "heuristic", "heuristic", -0.1, 0.1, CLASSIC, max_boards=16, opponents=opponents
    )
    result = run_sprt(same, tmp_path / "same")
    assert result.advantage.estimate == 0.0 and result.advantage.high == 0.0
    # Two bots of equal strength that play differently (random, and random counted from
    # the top): per-board values vary, and their mean is ~0.
    config = SprtConfig(
        "random", MIRROR, -0.01, 0.01, CLASSIC, max_boards=96, opponents=opponents, seed=3
    )
    result = run_sprt(config, tmp_path / "equal")
    assert result.verdict is None and result.boards == 96
    ci = result.advantage
    assert ci.high - ci.low > 0.1  # real noise...
    assert ci.low < 0 < ci.high  # ...around 0
    assert abs(ci.estimate) < 1.0


def test_paired_design_sees_the_stronger_bot(tmp_path):
    config = SprtConfig(
        "heuristic", "duck", 0.0, 0.5, CLASSIC, max_boards=400, opponents=("random",) * 3
    )
    result = run_sprt(config, tmp_path / "r")
    assert result.verdict == "H1"
    for table in ("candidate", "baseline"):
        deals = pd.read_parquet(tmp_path / "r" / table / "deals")
        assert deals.board.max() == result.boards - 1
        assert set(deals.strategy) == {"heuristic" if table == "candidate" else "duck", "random"}
    # The statistic is the paired difference of the two tables' player 0, board by board.
    c = pd.read_parquet(tmp_path / "r" / "candidate" / "deals")
    b = pd.read_parquet(tmp_path / "r" / "baseline" / "deals")
    per = [d[d.player == 0].groupby("board").deal_score.mean() for d in (c, b)]
    assert result.advantage.estimate == pytest.approx(float((per[1] - per[0]).mean()))


def test_same_verdict_and_boards_for_any_workers(tmp_path):
    results = {}
    for workers in (1, 2):
        config = SprtConfig(
            "heuristic", "duck", 0.0, 0.5, CLASSIC, max_boards=400, opponents=("random",) * 3
        )
        out = tmp_path / f"w{workers}"
        results[workers] = run_sprt(config, out, workers=workers)
    one, two = results[1], results[2]
    assert one.verdict == two.verdict == "H1"
    assert one.boards == two.boards and one.boards > 8  # several looks
    assert one.trace == two.trace and one.deals == two.deals
    for table in ("candidate", "baseline"):
        a = pd.read_parquet(tmp_path / "w1" / table / "deals")
        b = pd.read_parquet(tmp_path / "w2" / table / "deals")
        pd.testing.assert_frame_equal(a, b)  # only the boards the test used are kept


def test_panel_design_averages_the_paired_differences_over_the_opponents(tmp_path):
    panel = ("shooter", "random", "lowcard")
    results = {}
    for workers in (1, 2):
        config = SprtConfig(
            "heuristic", "duck", 0.0, 0.5, CLASSIC, max_boards=200, batch=4, panel=panel
        )
        results[workers] = run_sprt(config, tmp_path / f"w{workers}", workers=workers)
    one, two = results[1], results[2]
    assert one.verdict is not None and one.boards > 4
    assert (one.verdict, one.boards, one.trace) == (two.verdict, two.boards, two.trace)
    per_opponent = []
    for i, opponent in enumerate(panel):
        mean = []
        for table, bot in (("candidate", "heuristic"), ("baseline", "duck")):
            folder = tmp_path / "w1" / f"{table}-{i}"
            deals = pd.read_parquet(folder / "deals")
            assert set(deals.strategy) == {bot, opponent}
            assert deals.board.max() == one.boards - 1
            pd.testing.assert_frame_equal(
                deals, pd.read_parquet(tmp_path / "w2" / f"{table}-{i}" / "deals")
            )
            mean.append(deals[deals.player == 0].groupby("board").deal_score.mean())
        per_opponent.append(mean[1] - mean[0])  # Hearts: lower is better
        name, ci = one.by_opponent[i]
        assert name == opponent
        assert ci.estimate == pytest.approx(float(per_opponent[-1].mean()))
    board = sum(per_opponent) / len(panel)
    assert one.advantage.estimate == pytest.approx(float(board.mean()))
    doc = json.loads((tmp_path / "w1" / SPRT_FILE).read_text())
    assert doc["config"]["panel"] == list(panel)
    assert doc["config"]["design"] == "paired over a panel"
    assert [(d["opponent"], d["advantage"]) for d in doc["by_opponent"]] == [
        (name, c.estimate) for name, c in one.by_opponent
    ]
    # a test of another design may --overwrite the panel's folder
    code, doc, output = sprt(
        "--candidate", "heuristic", "--baseline", "duck", "--bounds", "0,0.5", "--max-boards",
        "16", "--out", str(tmp_path / "w1"), "--overwrite",
    )  # fmt: skip
    assert code in (0, 1, 3), output
    assert not any((tmp_path / "w1").glob("candidate*")) and doc["by_opponent"] is None


def test_run_folder_holds_datasets_trace_and_a_readable_run(tmp_path):
    out = tmp_path / "r"
    code, doc, _ = sprt(
        "--candidate", "heuristic", "--baseline", "lowcard", "--bounds", "0,0.5",
        "--out", str(out), "--plot", str(tmp_path / "plots"), "--batch", "4",
    )  # fmt: skip
    assert code == 0
    saved = json.loads((out / SPRT_FILE).read_text())
    assert saved["status"] == "complete" and saved["verdict"] == "H1"
    assert saved["trace"] == doc["trace"] and saved["config"]["bounds"] == [0.0, 0.5]
    trace = pd.read_parquet(out / TRACE_FILE)
    assert trace.boards.tolist() == [n for n, _ in doc["trace"]]
    assert np.allclose(trace.llr, [v for _, v in doc["trace"]])
    run = load_run(out)  # the default design's folder is an ordinary duplicate run
    assert run.manifest["status"] == "complete" and run.manifest["duplicate"]
    assert run.deals.board.nunique() == doc["boards"]
    assert (tmp_path / "plots" / "sprt_llr.png").stat().st_size > 1000


def test_max_boards_without_verdict_exits_3(tmp_path):
    code, doc, _ = sprt(
        "--candidate", "random", "--baseline", MIRROR, "--bounds", "-0.01,0.01",
        "--max-boards", "20", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert code == 3 and doc["verdict"] is None and doc["boards"] == 20
    assert doc["trace"][-1][0] == 20  # a last look at the partial batch


def test_kierki_sign_follows_higher_is_better(tmp_path):
    code, doc, _ = sprt(
        "--candidate", "kierki", "--baseline", "random", "--bounds", "0,0.5",
        "--rules", "kierki3", "--max-boards", "200", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert (code, doc["verdict"]) == (0, "H1") and doc["advantage"] > 0
    code, doc, _ = sprt(
        "--candidate", "random", "--baseline", "kierki", "--bounds", "0,0.5",
        "--rules", "kierki3", "--max-boards", "200", "--out", str(tmp_path / "s"),
    )  # fmt: skip
    assert (code, doc["verdict"]) == (1, "H0") and doc["advantage"] < 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bounds", "0.5,0"], "D0 < D1"),
        (["--bounds", "0"], "is not D0,D1"),
        (["--bounds", "nan,1"], "finite"),
        (["--bounds", "0,0.5", "--alpha", "0.7"], "alpha must be a probability in (0, 0.5)"),
        (["--bounds", "0,0.5", "--batch", "50", "--max-boards", "10"], "max-boards"),
        (["--bounds", "0,0.5", "--opponents", "random,random"], "other seats"),
        (["--bounds", "0,0.5", "--rule", "no_such=1"], "no_such"),
        (["--bounds", "0,0.5", "--panel", "random", "--opponents", "duck"], "not both"),
        (
            ["--bounds", "0,0.5", "--panel", ",".join(f"random_{i}" for i in range(9))],
            "1 to 8 opponents",
        ),
        (["--bounds", "0,0.5", "--panel", "random,,duck"], "--panel"),
        (["--bounds", "0,0.5", "--panel", "random,duck,random"], "random more than once"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    code, doc, output = sprt(
        "--candidate", "heuristic", "--baseline", "duck", "--out", str(tmp_path / "r"), *args
    )
    assert code == 2 and message in output and "Traceback" not in output
    assert not (tmp_path / "r").exists()


def test_bad_strategy_out_folder_and_failing_bot(tmp_path):
    base = ["--baseline", "duck", "--bounds", "0,0.5", "--max-boards", "16"]
    code, _, output = sprt("--candidate", "heuristik", *base, "--out", str(tmp_path / "a"))
    assert code == 2 and "unknown strategy" in output and not (tmp_path / "a").exists()
    code, _, _ = sprt("--candidate", "heuristic", *base, "--out", str(tmp_path / "b"))
    assert code == 0
    code, _, output = sprt("--candidate", "heuristic", *base, "--out", str(tmp_path / "b"))
    assert code == 2 and "--overwrite" in output
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "precious.txt").write_text("keep")
    code, _, output = sprt(
        "--candidate", "heuristic", *base, "--out", str(tmp_path / "c"), "--overwrite"
    )
    assert code == 2 and (tmp_path / "c" / "precious.txt").read_text() == "keep"
    bad = "tests.bots.compiled_bots:BAD_PASS"
    code, _, output = sprt("--candidate", bad, *base, "--out", str(tmp_path / "d"))
    assert code == 4 and "bad_pass" in output.lower() and "Traceback" not in output


def test_two_copies_of_a_compiled_file_in_two_folders_at_one_table(tmp_path):
    # Version a follows suit with its lowest card, version b (the same file, edited) with
    # its highest: loaded as themselves, a is far stronger. Each run is a fresh process, so
    # the second loads both compiled files from numba's cache (which once failed every time
    # after the first run).
    for folder, high in (("a", False), ("b", True)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mybot.py").write_text(COMPILED_FILE.format(high=high))
    a, b = "a/mybot.py:STRATEGY", "b/mybot.py:STRATEGY"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    codes = []
    for candidate, baseline in ((a, b), (b, a)):
        proc = subprocess.run(
            [sys.executable, "-m", "hsim.cli", "sprt", "--candidate", candidate,
             "--baseline", baseline, "--bounds", "0,0.5", "--max-boards", "64",
             "--no-progress", "--json", "--out", "run", "--overwrite"],
            cwd=tmp_path, env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert proc.returncode in (0, 1), proc.stderr
        doc = json.loads(proc.stdout)
        assert (doc["candidate"], doc["baseline"]) == (candidate, baseline)
        codes.append((proc.returncode, doc["verdict"], doc["advantage"] > 0))
    assert codes == [(0, "H1", True), (1, "H0", False)]


def test_interrupt_keeps_a_readable_folder(tmp_path):
    import signal
    import time

    out = tmp_path / "r"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "sprt", "--candidate", "random",
         "--baseline", MIRROR, "--bounds", "-0.001,0.001", "--max-boards", "1000000",
         "--no-progress", "--json", "--out", str(out)],
        cwd=os.getcwd(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "deals").glob("part-*")):
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    doc = json.loads(stdout)
    saved = json.loads((out / SPRT_FILE).read_text())
    assert saved["status"] == doc["status"] == "interrupted" and doc["verdict"] is None
    assert doc["boards"] > 0 and "Traceback" not in stderr
    run = load_run(out)
    assert run.deals.board.nunique() == doc["boards"] and run.manifest["status"] == "interrupted"
    assert not list(out.rglob(".tmp-*"))


def test_overwrite_refuses_a_folder_holding_what_hsim_did_not_write(tmp_path):
    from hsim.experiments.sprt import SprtError

    out = tmp_path / "r"
    config = SprtConfig("heuristic", "duck", 0.0, 0.5, CLASSIC, max_boards=16)
    run_sprt(config, out)
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(SprtError, match="not an hsim sprt folder .*notes.txt"):
        run_sprt(config, out, overwrite=True)
    assert (out / "notes.txt").read_text() == "keep me"
    assert (out / SPRT_FILE).exists()
    (out / "notes.txt").unlink()
    (out / SPRT_FILE).write_text('{"name": "mine"}')
    with pytest.raises(SprtError, match="sprt.json is not one hsim wrote"):
        run_sprt(config, out, overwrite=True)
    (out / SPRT_FILE).unlink()
    assert run_sprt(config, out, overwrite=True).verdict == "H1"  # hsim's run folder alone
    mine = out / "candidate" / "bot.py"  # a paired test's table folder, or a user's folder
    mine.parent.mkdir()
    mine.write_text("keep me")
    with pytest.raises(SprtError, match="candidate/: it holds entries hsim does not write"):
        run_sprt(config, out, overwrite=True)
    assert mine.read_text() == "keep me"


def test_a_folder_in_use_by_another_test_is_refused(tmp_path):
    from hsim.experiments.sprt import SprtError
    from hsim.runner.lock import claim

    out = tmp_path / "r"
    config = SprtConfig("heuristic", "duck", 0.0, 0.5, CLASSIC, max_boards=16)
    run_sprt(config, out)
    held = claim(out)  # as a second copy started at once would hold it
    try:
        with pytest.raises(SprtError, match="in use"):
            run_sprt(config, out, overwrite=True)
        assert json.loads((out / SPRT_FILE).read_text())["status"] == "complete"
    finally:
        held.release()
    assert run_sprt(config, out, overwrite=True).verdict == "H1"
    assert not (out / ".hsim.lock").exists()


@pytest.mark.parametrize("retries", [0, 2])
def test_a_lost_worker_is_replayed_up_to_retries(tmp_path, retries):
    import signal
    import time
    import uuid

    out, pause = tmp_path / "r", tmp_path / "pause"
    env = dict(os.environ, HSIM_TEST_TAG=uuid.uuid4().hex, HSIM_TEST_PAUSE="chunk@16",
               HSIM_TEST_PAUSE_FILE=str(pause))  # fmt: skip
    args = ["sprt", "--candidate", "random", "--baseline", MIRROR, "--bounds", "-0.001,0.001",
            "--max-boards", "32", "--no-progress", "--json"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", *args, "--workers", "2", "--retries", str(retries),
         "--out", str(out)],
        cwd=os.getcwd(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (pause.exists() and pause.read_text().strip()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    os.kill(int(pause.read_text()), signal.SIGKILL)  # the worker playing boards 16..23
    stdout, stderr = proc.communicate(timeout=120)
    saved = json.loads((out / SPRT_FILE).read_text())
    assert "Traceback" not in stderr
    if retries == 0:
        assert proc.returncode == 4 and saved["status"] == "failed", stderr
        # a broken pool fails every chunk in flight: whichever it reports first
        assert re.search(r"games \d+\.\.\d+: the worker playing them was lost 1 times", stderr)
        return
    code, reference, _ = sprt(*args[1:-2], "--workers", "1", "--out", str(tmp_path / "w1"))
    doc = json.loads(stdout)
    assert proc.returncode == code == 3 and saved["status"] == "complete", stderr
    assert (doc["verdict"], doc["boards"]) == (None, 32)  # as undisturbed: 32 boards, no verdict
    assert doc["trace"] == reference["trace"] and doc["deals"] == reference["deals"]
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "deals"), pd.read_parquet(tmp_path / "w1" / "deals")
    )
