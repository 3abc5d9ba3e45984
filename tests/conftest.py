from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PY_BOTS = TESTS / "bots" / "python_bots.py"


@pytest.fixture
def py_bot():
    """Return the spec of a plain-Python test strategy by class name."""
    return lambda name, args="": f"{PY_BOTS}:{name}" + (f"({args})" if args else "")
