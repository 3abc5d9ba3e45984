"""The run manifest: versions, and the commit of hsim's source."""

import shutil
import subprocess

import pytest

from hsim.runner.manifest import source_commit, versions

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(folder, *args):
    cmd = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def test_source_commit_of_a_checkout_clean_and_dirty(tmp_path):
    package = tmp_path / "repo" / "hsim"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("__version__ = '0'\n")
    _git(tmp_path / "repo", "init", "-q")
    _git(tmp_path / "repo", "add", ".")
    _git(tmp_path / "repo", "commit", "-qm", "first")
    head = _git(tmp_path / "repo", "rev-parse", "HEAD")
    assert source_commit(package) == {"commit": head, "dirty": False}
    (package / "notes.txt").write_text("untracked files do not count\n")
    assert source_commit(package) == {"commit": head, "dirty": False}
    (package / "__init__.py").write_text("__version__ = '1'\n")
    assert source_commit(package) == {"commit": head, "dirty": True}


def test_no_commit_for_a_copy_that_git_does_not_track(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README").write_text("x\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    installed = repo / ".venv" / "site-packages" / "hsim"  # an install inside a checkout
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text("")
    assert source_commit(installed) is None
    assert source_commit(tmp_path / "nowhere") is None


def test_versions_hold_the_commit():
    found = versions()
    assert {"hsim", "python", "numba", "hsim_git"} <= set(found)
    assert found["hsim_git"] is None or len(found["hsim_git"]["commit"]) == 40


def test_reading_manifests_does_not_load_the_engine():
    """``hsim report`` and the compile notice read run.json before anything compiles."""
    import sys

    code = (
        "import sys, hsim.runner.manifest, hsim.runner.summary, hsim.cli; "
        "from hsim.runner import RunConfig; "
        "print('hsim.play.hearts_game' in sys.modules, RunConfig.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "hsim.runner.config"], done.stderr
    code = "import sys, hsim.runner.manifest; print('hsim.play.hearts_game' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
