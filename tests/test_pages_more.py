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


LADDER = ("ladder", "--bots", "random,lowcard,duck", "--boards", "10", "--seed", "1")
RUNG = re.compile(
    r"^(?P<rung>\w+ over 3 x \w+)\s+(?P<boards>\d+)\s+(?P<deals>[\d,]+)\s+"
    r"(?P<estimate>[-+]\d+\.\d{3}) \[(?P<low>[-+]\d+\.\d{3}), (?P<high>[-+]\d+\.\d{3})\]"
    r"\s+(?P<holds>yes|NO)$"
)


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
    args = [*LADDER, "--out", root / "ladder", "--html", root / "ladder.html"]
    done = _hsim(*args)
    assert done.returncode == 0, done.stderr
    assert f"page: {root / 'ladder.html'}" in done.stderr
    out["ladder"] = (root / "ladder.html", "hsim " + " ".join(map(str, args)), done.stdout)
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


def _printed_rungs(stdout):
    return [m.groupdict() for line in stdout.splitlines() if (m := RUNG.match(line))]


def _rung_cells_match(cells, printed):
    """The page's rung rows are the printed lines: the same rungs, boards, deals and
    holds, and the advantage and its interval printed to 3 decimals from the page's."""
    assert set(cells) == {r["rung"] for r in printed}
    for r in printed:
        row = cells[r["rung"]]
        assert row["boards"]["value"] == r["boards"]
        assert int(row["deals"]["value"]) == int(r["deals"].replace(",", ""))
        assert row["holds"]["value"] == r["holds"]
        adv = row["advantage"]
        assert adv["n"] == r["boards"]
        for part in ("estimate", "low", "high"):
            assert f"{float(adv[part]):+.3f}" == r[part], part


def test_the_ladder_page_holds_the_printed_figures(made):
    page, command, stdout = made["ladder"]
    p = _parse(page)
    _facts_common(p, command, "classic", "random, lowcard, duck", 1)
    printed = _printed_rungs(stdout)
    assert [r["rung"] for r in printed] == ["lowcard over 3 x random", "duck over 3 x lowcard"]
    _rung_cells_match(p.tables["rungs"], printed)
    assert p.rows["rungs"] == 2
    assert p.charts == ["advantage"]
    wrong = [{**printed[0], "low": f"{float(printed[0]['low']) + 0.001:+.3f}"}, printed[1]]
    with pytest.raises(AssertionError):  # the check can fail
        _rung_cells_match(p.tables["rungs"], wrong)


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
    "ladder": ["advantage"],
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
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1400, min(int(height) + 100, 8000))
        assert browser.save_screenshot(os.path.join(folder, f"{name}_html.png"))
        browser.set_window_size(1400, 1000)
