"""Check hsim's layers and import cycles with import-linter (the contracts in
pyproject.toml, ``[tool.importlinter]``).

The built-in bots live in ``strategies/`` and are installed as ``hsim.strategies``, which
an import graph of the source tree cannot see. So the package is laid out as installed in
a temporary folder (``hsim/`` with ``strategies/`` copied in as ``hsim/strategies``) and
import-linter reads that copy. Exit 0 when every contract is kept; 1 with
import-linter's report of each broken one; 2 when import-linter is not installed.

Usage: ``python scripts/check_layers.py [--root DIR]`` (DIR: a checkout; default this one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lay_out(root: Path, into: Path) -> Path:
    """Copy ``root``'s ``hsim/`` and ``strategies/`` into ``into`` as the installed package
    (``into/hsim``, ``into/hsim/strategies``); return ``into``."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(root / "hsim", into / "hsim", ignore=skip)
    shutil.copytree(root / "strategies", into / "hsim" / "strategies", ignore=skip)
    shutil.copy(root / "pyproject.toml", into / "pyproject.toml")
    return into


def check(root: Path) -> subprocess.CompletedProcess:
    """Run import-linter on ``root`` laid out as installed; return the finished process
    (returncode 0 when every contract holds, stdout its report)."""
    linter = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which(
        "lint-imports"
    )
    if linter is None:
        raise FileNotFoundError("lint-imports not found: pip install -e '.[test]'")
    with tempfile.TemporaryDirectory(prefix="hsim-layers-") as tmp:
        lay_out(root, Path(tmp))
        # The copy comes first on the path, ahead of an installed or editable hsim.
        env = {**os.environ, "PYTHONPATH": tmp, "PYTHONDONTWRITEBYTECODE": "1"}
        return subprocess.run(
            [linter, str(Path(tmp) / "pyproject.toml"), "--no-cache"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout (default: this one)")
    args = parser.parse_args()
    try:
        done = check(args.root.resolve())
    except FileNotFoundError as exc:
        print(f"check_layers: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
