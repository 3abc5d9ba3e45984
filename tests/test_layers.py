"""The layer contract (pyproject.toml [tool.importlinter], scripts/check_layers.py): the
package as installed keeps it, and an upward import or a cycle breaks it."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import check_layers  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None
    and shutil.which("lint-imports") is None,
    reason="import-linter is not installed (pip install -e '.[test]')",
)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "hsim", root / "hsim", ignore=skip)
    shutil.copytree(ROOT / "strategies", root / "strategies", ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _add_line(path: Path, line: str) -> None:
    text = path.read_text()
    head, sep, rest = text.partition("from __future__ import annotations\n")
    path.write_text(head + sep + line + "\n" + rest if sep else line + "\n" + text)


def test_the_package_keeps_its_layers_and_has_no_cycle():
    done = check_layers.check(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hsim's layers KEPT" in done.stdout
    assert "no import cycles between modules or packages KEPT" in done.stdout


def test_an_upward_import_breaks_the_layers(tmp_path):
    root = _copy(tmp_path)
    _add_line(root / "hsim" / "engine" / "bits.py", "import hsim.runner.sink  # noqa")
    done = check_layers.check(root)
    assert done.returncode != 0
    assert "hsim's layers BROKEN" in done.stdout
    assert "hsim.engine.bits -> hsim.runner.sink" in done.stdout


def test_the_engine_importing_a_bot_breaks_the_layers(tmp_path):
    # The built-in bots are a layer of their own above the engine (hsim.strategies).
    root = _copy(tmp_path)
    _add_line(root / "hsim" / "engine" / "hearts.py", "import hsim.strategies.duck  # noqa")
    done = check_layers.check(root)
    assert done.returncode != 0
    assert "hsim.engine.hearts -> hsim.strategies.duck" in done.stdout


def test_a_cycle_inside_a_layer_is_found(tmp_path):
    root = _copy(tmp_path)
    _add_line(root / "hsim" / "runner" / "columns.py", "import hsim.runner.sink  # noqa")
    done = check_layers.check(root)
    assert done.returncode != 0
    assert "no import cycles between modules or packages BROKEN" in done.stdout


def test_the_built_in_bots_import_as_hsim_strategies():
    module = importlib.import_module("hsim.strategies.heuristic")
    assert module.STRATEGY.name == "heuristic"
    assert Path(module.__file__).resolve().parent == (ROOT / "strategies").resolve()
