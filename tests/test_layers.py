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


@pytest.mark.parametrize(
    ("module", "line", "expected"),
    [
        # an upward import: the engine reaching into the runner
        ("engine/bits.py", "import hsim.runner.sink", "hsim.engine.bits -> hsim.runner.sink"),
        # the built-in bots are a layer of their own above the engine (hsim.strategies)
        (
            "engine/hearts.py",
            "import hsim.strategies.duck",
            "hsim.engine.hearts -> hsim.strategies.duck",
        ),
        # a cycle inside one layer: sink imports columns
        ("runner/columns.py", "import hsim.runner.sink", "No cycles are allowed in hsim.runner"),
    ],
    ids=["upward", "engine-imports-a-bot", "cycle"],
)
def test_a_broken_rule_fails_the_check(tmp_path, module, line, expected):
    root = _copy(tmp_path)
    _add_line(root / "hsim" / module, f"{line}  # noqa")
    done = check_layers.check(root)
    assert done.returncode != 0
    assert "BROKEN" in done.stdout and expected in done.stdout, done.stdout


def test_the_built_in_bots_import_as_hsim_strategies():
    module = importlib.import_module("hsim.strategies.heuristic")
    assert module.STRATEGY.name == "heuristic"
    assert Path(module.__file__).resolve().parent == (ROOT / "strategies").resolve()
