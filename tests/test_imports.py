"""Imports: one inside a function only where it is deferred on purpose, and says why; the
command line starts without loading the compiled engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = [ROOT / "hsim", ROOT / "strategies"]
MARK = "# deferred:"


def undeclared_inner_imports(source: str) -> list[int]:
    """Return the line numbers of imports inside a function that no ``# deferred:`` comment
    explains (on the line before the block of imports they belong to, or on the line)."""
    lines = source.splitlines()
    found = set()
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                i = node.lineno - 2
                while i >= 0 and lines[i].strip().startswith(("from ", "import ")):
                    i -= 1
                above = lines[i].strip() if i >= 0 else ""
                if not (above.startswith(MARK) or MARK in lines[node.lineno - 1]):
                    found.add(node.lineno)
    return sorted(found)


def test_every_import_inside_a_function_says_why_it_is_deferred():
    missing = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        for line in undeclared_inner_imports(path.read_text())
    ]
    assert missing == [], "move these imports to the top, or say why they wait: " + str(missing)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    import json\n    return json\n", [2]),
        ("def f():\n    # deferred: start-up\n    import json\n    import os\n", []),
        ("def f():\n    x = 1\n    # a comment of another kind\n    import json\n", [4]),
        ("import json\n\n\ndef f():\n    return json\n", []),
    ],
)
def test_the_check_finds_an_undeclared_inner_import(source, expected):
    assert undeclared_inner_imports(source) == expected


def test_the_command_line_starts_without_the_compiled_engine():
    code = (
        "import sys, hsim.cli; "
        "print(sorted(m for m in ('numba', 'scipy', 'pandas', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_compile_notice_looks_up_no_strategy_file():
    """The parts found in a strategy's file (``the analysis``: pimc) are looked up when a
    plan asks for them, not when :mod:`hsim.strategy.notice` is imported."""
    code = (
        "import hsim.strategy.specs as specs\n"
        "read = []\n"
        "real = specs.read_strategy_file\n"
        "def spy(path):\n"
        "    read.append(path.name)\n"
        "    return real(path)\n"
        "specs.read_strategy_file = spy\n"
        "from hsim.strategy import notice\n"
        "print(read)\n"
        "notice.compile_plan(parts=['the analysis'], engine=False)\n"
        "print(read)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    at_import, at_plan = out.stdout.splitlines()
    assert at_import == "[]"
    assert "pimc.py" in at_plan
