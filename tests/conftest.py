import contextlib
import subprocess
import sys
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


@contextlib.contextmanager
def folder_held(folder):
    """Hold the lock of ``folder`` in another process while the block runs (as a ladder
    holds its --out, or a run its folder); yields that process, killed at the end (its
    lock file stays behind, stale)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from hsim.runner.lock import claim; "
         "claim(sys.argv[1]); print('held', flush=True); time.sleep(60)", str(folder)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture
def py_bot():
    """Return the spec of a plain-Python test strategy by class name."""
    return lambda name, args="": f"{PY_BOTS}:{name}" + (f"({args})" if args else "")


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium driven by Selenium, with the network off (every host name
    fails to resolve), for the tests of hsim's HTML pages.

    ``browser.get(path.as_uri())`` opens a page; ``browser.get_log("browser")`` gives the
    console's messages since the last call. Skipped when Chromium, chromedriver or
    selenium is missing, except in CI (``CI`` set), where .ci/run installs them and a
    missing one fails.
    """
    import os
    import shutil

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium and chromium-driver (apt-get install them)")
        pytest.skip("chromium or chromedriver is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # no network: a page must be whole
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
