"""--html of hsim sprt, ladder and compare-rules: self-contained pages whose tables hold the
figures the commands print or write as --json."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from tests.test_report_html import _check_table, _parse

pytest.importorskip("altair")
pytest.importorskip("vl_convert")


def _hsim(*args):
    """Run ``hsim ARGS`` in a process of its own (its command line is the page's)."""
    cmd = [sys.executable, "-m", "hsim.cli", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


SPRT = ("sprt", "--candidate", "lowcard", "--baseline", "random", "--bounds", "2.5,3.5",
        "--max-boards", "40", "--batch", "4", "--seed", "3")  # fmt: skip


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """name -> (page, the command's line, its --json doc or its printed lines)."""
    root = tmp_path_factory.mktemp("more")
    out = {}
    args = [*SPRT, "--out", root / "sprt", "--json", "--html", root / "sprt.html"]
    done = _hsim(*args)
    assert done.returncode == 1, done.stderr  # H0 accepted (FAIL) after 24 boards
    assert f"page: {root / 'sprt.html'}" in done.stderr
    out["sprt"] = (root / "sprt.html", "hsim " + " ".join(map(str, args)), json.loads(done.stdout))
    return out


def _facts_common(p, command, rules, players, seed):
    assert p.facts["command"] == command
    assert p.facts["rules"] == rules
    assert p.facts["players"] == players
    assert p.facts["seed"] == str(seed)
    assert re.fullmatch(r"\d+\.\d+.*", p.facts["hsim"])


def test_the_sprt_page_holds_the_json_figures(made):
    page, command, doc = made["sprt"]
    p = _parse(page)
    _facts_common(p, command, "classic", "lowcard, random, random, random", 3)
    assert doc["verdict"] == "H0" and len(doc["trace"]) >= 3
    assert p.facts["verdict"].startswith("FAIL: ")
    result = {**doc, "what": "result"}
    result["advantage"] = {
        "estimate": doc["advantage"],
        "low": doc["advantage_low"],
        "high": doc["advantage_high"],
        "n": doc["boards"],
    }
    assert _check_table(p.tables["result"], [result], "what") == 6  # the numbers
    trace = [{"boards": n, "llr": v} for n, v in doc["trace"]]
    assert _check_table(p.tables["trace"], trace, "boards") == 2 * len(trace)
    settings = {"what": "settings", "d0": doc["bounds"][0], "d1": doc["bounds"][1], **doc}
    settings.update(rules="classic", max_boards=40, batch=4)
    settings.update(opponents=None, design="against baseline")
    assert _check_table(p.tables["settings"], [settings], "what") == 7  # the numbers
    assert p.charts == ["advantage", "llr"]


def test_the_check_of_the_sprt_tables_can_fail(made):
    page, _, doc = made["sprt"]
    p = _parse(page)
    wrong = [{"boards": n, "llr": v + 1e-12} for n, v in doc["trace"]]
    with pytest.raises(AssertionError):
        _check_table(p.tables["trace"], wrong, "boards")


def test_the_pages_need_no_network(made):
    for page, _, _ in made.values():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
        assert not re.search(r"<link\b|@import", text, re.I)
        assert "<script src" not in text.lower()
        assert len(text.encode()) < 1_500_000


def test_a_bad_target_is_refused_before_anything_is_played(tmp_path):
    done = _hsim(*SPRT, "--out", tmp_path / "run", "--html", tmp_path)
    assert done.returncode == 2, done.stderr
    assert "is a folder" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


EXPECTED_CHARTS = {
    "sprt": ["advantage", "llr"],
}


def test_the_pages_render_offline_in_a_browser(made, browser, tmp_path):
    script = (
        "return Array.from(document.querySelectorAll('[data-chart]')).map(e => "
        "[e.dataset.chart, e.querySelectorAll('svg, canvas').length, e.dataset.error || ''])"
    )
    folder = os.environ.get("HSIM_SCREENSHOTS") or str(tmp_path)
    os.makedirs(folder, exist_ok=True)
    for name, (page, _, _) in made.items():
        browser.get_log("browser")  # drop earlier messages
        browser.get(page.as_uri())
        for _ in range(300):  # the charts render within a few seconds; not a timing test
            charts = browser.execute_script(script)
            if charts and all(n or err for _, n, err in charts):
                break
            time.sleep(0.1)
        assert [c[0] for c in charts] == EXPECTED_CHARTS[name]
        assert all(n >= 1 and not err for _, n, err in charts), (name, charts)
        severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == [], name
        height = browser.execute_script("return document.body.scrollHeight")
        browser.set_window_size(1400, min(int(height) + 100, 8000))
        assert browser.save_screenshot(os.path.join(folder, f"{name}_html.png"))
        browser.set_window_size(1400, 1000)
