"""CLI help snapshots: the interface does not drift by accident.

After an intended change, rewrite the snapshots with
``HSIM_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_help_snapshots.py`` and review the diff.
"""

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hsim.cli import main

SNAPSHOTS = Path(__file__).parent / "data" / "help"
COMMANDS = [[], *[[name] for name in sorted(main.commands)]]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0] if a else "hsim")
def test_help_matches_snapshot(args):
    result = CliRunner().invoke(main, [*args, "--help"], prog_name="hsim", terminal_width=100)
    assert result.exit_code == 0
    path = SNAPSHOTS / f"{args[0] if args else 'hsim'}.txt"
    if os.environ.get("HSIM_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(result.output)
    assert path.exists(), f"no snapshot {path}; run with HSIM_UPDATE_SNAPSHOTS=1"
    assert result.output == path.read_text()
