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
COMPARE = ("compare-rules", "--players", "random,lowcard,random,lowcard", "--games", "40",
           "--seed", "2", "--variant", "omnibus=true", "--variant", "end_score=50")  # fmt: skip
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
    args = [*COMPARE, "--out", root / "compare", "--json", "--html", root / "compare.html"]
    done = _hsim(*args)
    assert done.returncode == 0, done.stderr
    assert f"page: {root / 'compare.html'}" in done.stderr
    out["compare"] = (
        root / "compare.html",
        "hsim " + " ".join(map(str, args)),
        json.loads(done.stdout),
    )
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


def _interval(estimate, low, high, n):
    return {"estimate": estimate, "low": low, "high": high, "n": n}


def test_the_compare_rules_page_holds_the_json_figures(made):
    page, command, rep = made["compare"]
    p = _parse(page)
    _facts_common(p, command, "classic", "random, lowcard, random, lowcard", 2)
    assert rep["base"]["rules"] == "classic" and len(rep["variants"]) == 2
    sets = [("base", rep["base"])] + [(f"variant {i}", v) for i, v in enumerate(rep["variants"], 1)]
    rows, quantiles, wins, lengths = [], [], [], []
    nothing = {"share": None, "changed": None, "compared": None, "deals": None}
    for name, s in sets:
        summary = {**s["summary"], "ended_by": {"max_deals": None, **s["summary"]["ended_by"]}}
        row = {"set": name, "rules": s["rules"], "summary": summary}
        row["winner_change"] = s.get("winner_change", nothing)
        row["play_changed"] = s.get("play_changed", nothing)
        rows.append(row)
        q = s["summary"]["score_quantiles"]
        keys = {5: "0.05", 25: "0.25", 50: "0.5", 75: "0.75", 95: "0.95"}
        quantiles.append({"set": name, **{f"q{k}": q[v] for k, v in keys.items()}})
        side = "a" if name == "base" else "b"
        by = rep["variants"][0]["by_strategy"] if name == "base" else s["by_strategy"]
        for r in by:
            w = [r[f"win_rate_{side}{x}"] for x in ("", "_low", "_high")]
            flipped = None
            if name != "base":
                flipped = _interval(
                    r["flipped_share"], r["flipped_low"], r["flipped_high"], r["seat_games"]
                )
            wins.append(
                {"key": f"{name}/{r['strategy']}", "set": name, "strategy": r["strategy"],
                 "seat_games": r["seat_games"], "win_rate": _interval(*w, r["seat_games"]),
                 "flipped": flipped}
            )  # fmt: skip
        for r in s.get("by_length", []):
            lengths.append(
                {"key": f"{name}/{r['length']}", "set": name, "length": r["length"],
                 "games": r["games"], "changed": r["changed"],
                 "share": _interval(r["share"], r["low"], r["high"], r["games"])}
            )  # fmt: skip
    # per rule set: games, deals/game, moons, final and winning score; per variant also
    # the winner change and its counts and the deals played differently
    assert _check_table(p.tables["rule_sets"], rows, "set") == 3 * 5 + 2 * 5
    assert _check_table(p.tables["score_quantiles"], quantiles, "set") == 3 * 5
    assert _check_table(p.tables["win_rates"], wins, "key") == 2 * 2 + 2 * 2 * 3
    assert _check_table(p.tables["by_length"], lengths, "key") == 3 * len(lengths)
    assert p.rows["win_rates"] == len(wins) and p.rows["by_length"] == len(lengths)
    assert p.facts["variant1"].startswith("classic(omnibus=true)")
    assert p.charts == ["length_and_moons", "scores", "winners", "by_length"]
    wrong = [dict(r) for r in quantiles]
    wrong[1]["q50"] += 1
    with pytest.raises(AssertionError):  # the check can fail
        _check_table(p.tables["score_quantiles"], wrong, "set")


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
    "compare": ["length_and_moons", "scores", "winners", "by_length"],
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
