"""A full disk: the run fails with one clear line, keeps what it wrote, and resumes once
there is room, to the same datasets as an uninterrupted run.

The disk is a small tmpfs mounted for the test; where mounting is not allowed (not root,
no CAP_SYS_ADMIN) the tests are skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pandas as pd
import pytest

PLAYERS = "random,lowcard,random,lowcard"


def _mount(folder: Path, size: str, remount: bool = False) -> bool:
    options = f"remount,size={size}" if remount else f"size={size}"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True
    )
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    folder = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    if not _mount(folder, "1536k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _hsim(*args):
    return subprocess.run(
        [sys.executable, "-m", "hsim.cli", *args], capture_output=True, text=True, timeout=300
    )


def _tournament(out: Path, games: int):
    return _hsim(
        "tournament", "--games", str(games), "--players", PLAYERS, "--seed", "5",
        "--workers", "1", "--no-progress", "--out", str(out),
    )  # fmt: skip


def test_a_run_that_fills_the_disk_fails_clearly_and_resumes_when_there_is_room(
    small_disk, tmp_path
):
    out = small_disk / "run"
    failed = _tournament(out, 8000)
    assert failed.returncode == 1, failed.stderr
    assert "Traceback" not in failed.stderr and "No space left on device" in failed.stderr
    assert f"hsim resume {out}" in failed.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "failed" and manifest["error_kind"] == "disk"
    verified = _hsim("verify", str(out))
    assert verified.returncode == 1 and "missing" in verified.stdout + verified.stderr

    assert _mount(small_disk, "256m", remount=True)
    resumed = _hsim("resume", str(out), "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    assert _hsim("verify", str(out)).returncode == 0

    reference = _tournament(tmp_path / "reference", 8000)
    assert reference.returncode == 0, reference.stderr
    for dataset in ("deals", "games"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / dataset), pd.read_parquet(tmp_path / "reference" / dataset)
        )


def test_a_disk_full_before_anything_is_written_is_one_line(small_disk):
    filler = small_disk / "filler"
    with open(filler, "wb") as f:  # fill it to the last byte
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    out = small_disk / "run"
    failed = _tournament(out, 2000)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "No space left on device" in failed.stderr and "free space" in failed.stderr
    assert not (out / "run.json").exists() or json.loads((out / "run.json").read_text())
    filler.unlink()
    # The folder left behind does not block a new run (1,000 games: 2,000 no longer fit
    # the 1.5 MB disk since the deals hold the taken mask, schema 7).
    again = _tournament(out, 1000)
    assert again.returncode == 0, again.stderr


def test_an_os_error_that_stops_a_run_names_its_folder_and_the_resume(tmp_path):
    # When even run.json could not be written any more, the error named no folder and
    # said "nothing was written if the run had not started", though parts were kept.
    import errno

    from hsim.cli.common import _os_message

    full = OSError(errno.ENOSPC, "No space left on device")
    run = tmp_path / "run"
    run.mkdir()
    assert "nothing was written" in _os_message(full, run)  # no run.json yet
    (run / "run.json").write_text("{}")
    text = _os_message(full, run)
    assert "No space left on device" in text and f"hsim resume {run}" in text
    assert "nothing was written" not in text
    assert "nothing was written" in _os_message(full)  # a command writing no run
