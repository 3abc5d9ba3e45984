import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PY_BOTS = TESTS / "bots" / "python_bots.py"


def pytest_sessionstart(session):
    """Compile what the cache lacks before collecting, saying so part by part: the test
    modules import hsim's compiled code, and a cold cache would otherwise hold the run
    silent for minutes while collecting."""
    from hsim.experiments.warm import still_cold, warm

    if not still_cold():
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line)

    say("hsim: compiling what numba's cache lacks (once per change of hsim's code)")
    started = time.monotonic()
    for step, run in warm():
        if step.cold():
            say(f"hsim:   compiling {step.what}...")
            result = run()
            say(f"hsim:   {step.what} compiled in {result.seconds:.0f} s")
    say(f"hsim: compiled in {time.monotonic() - started:.0f} s; collecting the tests")


@pytest.fixture
def py_bot():
    """Return the spec of a plain-Python test strategy by class name."""
    return lambda name, args="": f"{PY_BOTS}:{name}" + (f"({args})" if args else "")
