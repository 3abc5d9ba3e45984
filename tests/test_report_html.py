"""hsim report --html: one self-contained page whose tables hold the --json figures."""

import builtins
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from hsim.cli.analysis import report

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

PLAYERS = "random,lowcard,random,lowcard"


def _tournament(path, *extra, players=PLAYERS):
    cmd = [
        sys.executable,
        "-m",
        "hsim.cli",
        "tournament",
        "--players",
        players,
        "--games",
        "200",
        "--seed",
        "11",
        "--workers",
        "1",
        "--out",
        str(path),
        *extra,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two 200-game runs: a plain one and one scored alongside under omnibus=true."""
    root = tmp_path_factory.mktemp("html")
    return {
        "plain": _tournament(root / "plain"),
        "score_also": _tournament(root / "also", "--score-also", "omnibus=true"),
        "kierki": _tournament(
            root / "kierki", "--rules", "kierki4", players="kierki,random,random,random"
        ),
    }


def _report(*args):
    r = CliRunner().invoke(report, [*map(str, args)])
    return r


@pytest.fixture(scope="module")
def pages(runs, tmp_path_factory):
    """name -> (page path, the report of `hsim report RUN --json`, made separately)."""
    out = {}
    root = tmp_path_factory.mktemp("pages")
    for name, run in runs.items():
        page = root / f"{name}.html"
        r = _report(run, "--html", page)
        assert r.exit_code == 0, r.output
        assert f"page: {page}" in r.stderr
        j = _report(run, "--json")
        assert j.exit_code == 0, j.output
        out[name] = (page, json.loads(j.stdout))
    return out


class Cells(HTMLParser):
    """Collect tables[name][row][key] = {attribute: value}, rows[name] (the number of
    rows), the facts and the chart names of a page."""

    def __init__(self):
        super().__init__()
        self.tables, self.facts, self.charts, self.rows = {}, {}, [], {}
        self._table = self._row = self._fact = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._name = a["data-table"]
            self._table = self.tables.setdefault(self._name, {})
        elif tag == "tr" and "data-row" in a and self._table is not None:
            self.rows[self._name] = self.rows.get(self._name, 0) + 1
            self._row = self._table.setdefault(a["data-row"], {})
        elif tag == "td" and self._row is not None:
            self._row[a["data-key"]] = {k[5:]: v for k, v in a.items() if k != "data-key"}
        elif tag == "dd":
            self._fact = a.get("data-fact")
        elif tag == "div" and "data-chart" in a:
            self.charts.append(a["data-chart"])

    def handle_data(self, data):
        if self._fact:
            self.facts[self._fact] = self.facts.get(self._fact, "") + data

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "tr":
            self._row = None
        elif tag == "dd":
            self._fact = None


def _parse(path):
    parser = Cells()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _get(row, key):
    for part in key.split("."):
        row = row[part]
    return row


def _check_table(cells, rows, key):
    """Every cell of a page table equals the JSON rows' figure, and every row is there."""
    assert set(cells) == {str(_get(r, key)) for r in rows}
    checked = 0
    for r in rows:
        for field, attrs in cells[str(_get(r, key))].items():
            want = _get(r, field)
            if want is None:
                assert attrs == {}, field
            elif isinstance(want, dict):
                for part in ("estimate", "low", "high", "n"):
                    assert float(attrs[part]) == want[part], (field, part)
                checked += 1
            elif isinstance(want, list):
                continue
            elif isinstance(want, (int, float)) and not isinstance(want, bool):
                assert float(attrs["value"]) == want, field
                checked += 1
            else:
                assert attrs["value"] == str(want), field
    return checked


@pytest.mark.parametrize("name", ["plain", "score_also", "kierki"])
def test_the_tables_hold_the_json_reports_figures(pages, runs, name):
    page, rep = pages[name]
    p = _parse(page)
    kierki = name == "kierki"
    cells = 9 if kierki else 11  # figures per row
    assert _check_table(p.tables["strategies"], rep["strategies"], "strategy") >= 2 * cells
    assert _check_table(p.tables["by_seat"], rep["by_seat"], "seat") >= 4 * cells
    split = "kind" if kierki else "pass_direction"
    keyed = [{**r, "key": f"{r['strategy']}/{r[split]}"} for r in rep[f"by_{split}"]]
    assert _check_table(p.tables[f"by_{split}"], keyed, "key") >= 2 * 4 * (1 if kierki else 3)
    assert p.rows[f"by_{split}"] == len(keyed)  # one row each, no key repeated
    _check_table(p.tables["summary"], [{"what": "all games", **rep["summary"]}], "what")
    first = rep["strategies"][0]
    shown = p.tables["strategies"][first["strategy"]]
    metric = "score_per_deal" if kierki else "points_per_deal"
    assert float(shown[metric]["estimate"]) == first[metric]["estimate"]
    assert float(shown["places.1"]["estimate"]) == first["places"]["1"]["estimate"]
    assert ("moon_rate" in p.charts) is not kierki
    manifest = json.loads((runs[name] / "run.json").read_text())
    assert p.facts["command"] == manifest["command"]
    assert p.facts["rules"] == rep["rules"] and p.facts["seed"] == str(rep["seed"])
    assert p.facts["players"] == ", ".join(rep["players"])
    if name == "score_also":
        assert rep["score_also"][0]["winner_change"]["compared"] == 200
        _check_table(p.tables["score_also"], rep["score_also"], "scoring")
        assert "winner_change" in p.charts
    else:
        assert "score_also" not in p.tables and "winner_change" not in p.charts


def test_the_check_of_the_tables_can_fail(pages):
    page, rep = pages["plain"]
    p = _parse(page)
    wrong = json.loads(json.dumps(rep["strategies"]))
    wrong[0]["win_rate"]["high"] += 1e-12
    with pytest.raises(AssertionError):
        _check_table(p.tables["strategies"], wrong, "strategy")


def test_the_page_needs_no_network_and_stays_small(pages):
    for page, _ in pages.values():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
        assert not re.search(r"<link\b|@import", text, re.I)
        assert "<script src" not in text.lower()
        assert text.count("vegaEmbed(") >= 1
        # the inlined scripts are ~0.9 MB; the report itself a few tens of kB
        assert len(text.encode()) < 1_500_000


def test_without_the_html_extra_it_says_how_to_install_it(runs, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_altair(name, *args, **kwargs):
        if name.split(".")[0] in ("altair", "vl_convert"):
            raise ImportError(f"No module named '{name}'", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_altair)
    page = tmp_path / "p.html"
    r = _report(runs["plain"], "--html", page)
    assert r.exit_code == 2, r.output
    assert "pip install -e '.[html]'" in r.output and "Traceback" not in r.output
    assert not page.exists()


def test_bad_targets_are_refused(runs, tmp_path):
    run = runs["plain"]
    manifest = (run / "run.json").read_bytes()
    for target, message in [
        (tmp_path, "is a folder"),
        (tmp_path / "missing" / "p.html", "does not exist"),
        (run / "run.json", "inside the run folder"),
        (run / "report.html", "inside the run folder"),
    ]:
        r = _report(run, "--html", target)
        assert r.exit_code == 2, r.output
        assert message in r.output and "Traceback" not in r.output
    assert (run / "run.json").read_bytes() == manifest
    assert not (run / "report.html").exists()
    assert not list(tmp_path.iterdir())  # no page, no temporary file left


def test_the_page_renders_offline_in_a_browser(pages, browser, tmp_path):
    page, rep = pages["score_also"]
    expected = [
        "points_per_deal",
        "win_rate",
        "mean_place",
        "places",
        "moon_rate",
        "points_per_deal_by_seat",
        "win_rate_by_seat",
        "mean_place_by_seat",
        "places_by_seat",
        "moon_rate_by_seat",
        "points_per_deal_by_pass_direction",
        "moon_rate_by_pass_direction",
        "game_length",
        "final_score",
        "winner_change",
    ]
    browser.get_log("browser")  # drop earlier messages
    browser.get(page.as_uri())
    script = (
        "return Array.from(document.querySelectorAll('[data-chart]')).map(e => "
        "[e.dataset.chart, e.querySelectorAll('svg, canvas').length, e.dataset.error || ''])"
    )
    for _ in range(300):  # the charts render within a few seconds; not a timing test
        charts = browser.execute_script(script)
        if charts and all(n or err for _, n, err in charts):
            break
        time.sleep(0.1)
    assert [c[0] for c in charts] == expected
    assert all(n >= 1 and not err for _, n, err in charts), charts
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll("
        "'#table-strategies tr[data-row] td[data-key=\"win_rate\"]')).map(td => "
        "[td.parentElement.dataset.row, td.dataset.estimate, td.textContent])"
    )
    want = {r["strategy"]: r["win_rate"] for r in rep["strategies"]}
    assert {row for row, _, _ in cells} == set(want)
    for row, estimate, text in cells:
        assert float(estimate) == want[row]["estimate"]
        assert text.startswith(f"{want[row]['estimate']:.3f} [")
    share = rep["score_also"][0]["winner_change"]["share"]["estimate"]
    shown = browser.execute_script(
        "return document.querySelector('#table-score_also td[data-key=\"winner_change.share\"]')"
        ".textContent"
    )
    assert shown.startswith(f"{share:.3f}")
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []
    folder = os.environ.get("HSIM_SCREENSHOTS") or str(tmp_path)
    os.makedirs(folder, exist_ok=True)
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(int(height) + 100, 8000))
    assert browser.save_screenshot(os.path.join(folder, "report_html.png"))
    browser.set_window_size(1400, 1000)
