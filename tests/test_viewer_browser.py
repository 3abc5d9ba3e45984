"""hsim view's page in a real browser (headless Chromium, network off): what it shows at
every step, reached with the arrow keys, equals the run's Parquet rows; no console errors.

Screenshots go to the folder in ``HSIM_SCREENSHOTS`` when set (else the test's tmp_path).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hsim.cli import main
from tests.viewer_games import GAMES, expected_steps, make_run

#: One call reads what the page shows (a round trip per element would be slow).
READ = """
const q = (s) => Array.from(document.querySelectorAll(s));
const step = document.getElementById("step").dataset;
const info = document.getElementById("trick-info").dataset;
const moon = document.getElementById("moon").dataset.shooter;
const seats = q("#table .seat").length;
return {
  step: Number(step.step), kind: step.kind, deal: Number(step.deal),
  hands: [...Array(seats).keys()].map(
    (s) => q("#hand-" + s + " .card").map((e) => e.dataset.card).sort()),
  trick: q("#trick-cards .card").map((e) => [Number(e.dataset.seat), e.dataset.card]),
  leader: info.leader === undefined ? null : Number(info.leader),
  winner: info.winner === undefined ? null : Number(info.winner),
  moon: moon === "" || moon === undefined ? null : Number(moon),
  scores: q("#scores tbody tr").map((r) => [Number(r.dataset.deal),
    Array.from(r.querySelectorAll("td")).map((td) => Number(td.textContent))]),
  slider: Number(document.getElementById("slider").value),
  dealInfo: document.getElementById("deal-info").dataset,
  passes: q("#passes .pass").map((e) => [Number(e.dataset.seat), Number(e.dataset.to),
    Array.from(e.querySelectorAll(".card")).map((c) => c.dataset.card)]),
  points: q("#deal-summary .deal-points").map((e) => [Number(e.dataset.points),
    Number(e.dataset.dealScore)]),
  lottery: q("#lottery .card").map((e) => [Number(e.dataset.seat), e.dataset.card]),
  text: document.body.innerText,
};
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each test game's run folder and its page (all hands open), and the Hearts game
    from seat 2."""
    base = tmp_path_factory.mktemp("viewer-pages")
    out = {}
    for name, g in GAMES.items():
        run = make_run(name, base / name)
        page = base / f"{name}.html"
        result = CliRunner().invoke(
            main, ["view", str(run), "--game", str(g["game"]), "--out", str(page)]
        )
        assert result.exit_code == 0, result.output
        out[name] = (run, page)
    run = out["hearts"][0]
    page = base / "hearts-seat2.html"
    args = [
        "view",
        str(run),
        "--game",
        str(GAMES["hearts"]["game"]),
        "--seat",
        "2",
        "--out",
        str(page),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    out["hearts-seat2"] = (run, page)
    return out


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("HSIM_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser, page: Path):
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    browser.get_log("browser")  # only this page's messages from here
    return browser.find_element(By.TAG_NAME, "body")


def no_errors(browser) -> None:
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


@pytest.mark.parametrize("name", list(GAMES))
def test_every_step_shows_the_recorded_game(browser, pages, tmp_path, name):
    from selenium.webdriver.common.keys import Keys

    run, page = pages[name]
    want = expected_steps(run)
    body = open_page(browser, page)
    shot = {"hearts": ("pass", "end"), "kierki4": ("trick", "lottery"), "kierki3": ("deal",)}[name]
    taken = set()
    for i, expected in enumerate(want):
        got = browser.execute_script(READ)
        assert got["step"] == i == got["slider"]
        for key in (
            "kind",
            "deal",
            "hands",
            "trick",
            "leader",
            "winner",
            "moon",
            "points",
            "scores",
        ):
            assert got[key] == expected[key], (i, key)
        if expected["kind"] == "pass":
            assert {(s, t) for s, t, _ in got["passes"]} and all(
                len(c) == 3 for *_, c in got["passes"]
            )
        if expected["kind"] == "lottery":
            assert got["lottery"] and {c for _, c in got["lottery"]} <= {
                c for h in want[i - 1]["hands"] for c in h
            }
        if name != "hearts" and expected["kind"] == "deal":
            kind = got["dealInfo"]["kind"]
            assert kind in got["text"].replace(" ", "_") or kind.replace("_", " ") in got["text"]
            if kind == "trump":
                assert got["dealInfo"]["trump"] in "CDSH" and int(got["dealInfo"]["chooser"]) >= 0
        if expected["kind"] == "end" and expected["moon"] is not None:
            assert "shot the moon" in got["text"]
        kind = expected["kind"]
        if kind in shot and kind not in taken and (kind != "end" or expected["moon"] is not None):
            browser.save_screenshot(str(shots(tmp_path) / f"view-{name}-{kind}.png"))
            taken.add(kind)
        body.send_keys(Keys.ARROW_RIGHT)
    assert taken == set(shot)
    assert browser.execute_script(READ)["step"] == len(want) - 1  # → stops at the end
    body.send_keys(Keys.ARROW_LEFT)
    assert browser.execute_script(READ)["step"] == len(want) - 2
    no_errors(browser)


def test_the_buttons_and_the_slider_move(browser, pages):
    from selenium.webdriver.common.by import By

    run, page = pages["hearts"]
    want = expected_steps(run)
    open_page(browser, page)
    assert browser.find_element(By.ID, "prev").get_attribute("disabled")
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "prev").click()
    assert browser.execute_script(READ)["step"] == 1
    last = len(want) - 1
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        last,
    )
    got = browser.execute_script(READ)
    assert got["step"] == last and got["scores"] == want[-1]["scores"]
    assert browser.find_element(By.ID, "next").get_attribute("disabled")
    assert browser.find_element(By.ID, "rules").text == "classic"
    no_errors(browser)


def test_a_seat_view_hides_the_other_hands_until_played(browser, pages, tmp_path):
    from selenium.webdriver.common.keys import Keys

    run, page = pages["hearts-seat2"]
    want = expected_steps(run)
    body = open_page(browser, page)
    for i, expected in enumerate(want[:6]):
        got = browser.execute_script(READ)
        assert got["hands"][2] == expected["hands"][2]
        for s in (0, 1, 3):
            assert got["hands"][s] == [""] * len(expected["hands"][s]), (i, s)
        assert got["trick"] == expected["trick"]
        if expected["kind"] == "pass":
            assert {(s, t) for s, t, _ in got["passes"]} == {(1, 2), (2, 3)}  # a left pass
            browser.save_screenshot(str(shots(tmp_path) / "view-hearts-seat2-pass.png"))
        body.send_keys(Keys.ARROW_RIGHT)
    no_errors(browser)
