"""hsim view's page in a real browser (headless Chromium, network off): what it shows at
every step (every card played), reached with the arrow keys, equals the run's Parquet
rows; the jumps by trick and by deal; an analysis's marks and panel; no console errors.

Screenshots go to the folder in ``HSIM_SCREENSHOTS`` when set (else the test's tmp_path).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hsim.analysis.replay import replay_run
from hsim.analysis.viewer import render_page
from hsim.cli import main
from hsim.model.cards import format_card
from tests.viewer_games import GAMES, expected_steps, make_run

#: One call reads what the page shows (a round trip per element would be slow).
READ = """
const q = (s) => Array.from(document.querySelectorAll(s));
const step = document.getElementById("step").dataset;
const info = document.getElementById("trick-info").dataset;
const moon = document.getElementById("moon").dataset.shooter;
const broken = document.getElementById("hearts-broken").dataset.broken;
const seats = q("#table .seat").length;
return {
  step: Number(step.step), kind: step.kind, deal: Number(step.deal),
  played: step.played === "" ? null : Number(step.played),
  hands: [...Array(seats).keys()].map(
    (s) => q("#hand-" + s + " .card").map((e) => e.dataset.card).sort()),
  trick: q("#trick-cards .card").map((e) => [Number(e.dataset.seat), e.dataset.card]),
  leader: info.leader === undefined ? null : Number(info.leader),
  winner: info.winner === undefined ? null : Number(info.winner),
  broken: broken === undefined ? null : broken === "true",
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

#: What each step must show as the run's rows say (see viewer_games.expected_steps).
COMPARED = ("kind", "deal", "played", "hands", "trick", "leader", "winner", "lottery",
            "broken", "moon", "points", "scores")  # fmt: skip


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
    args = ["view", str(run), "--game", str(GAMES["hearts"]["game"]), "--seat", "2",
            "--out", str(page)]  # fmt: skip
    assert CliRunner().invoke(main, args).exit_code == 0
    out["hearts-seat2"] = (run, page)
    return out


def steps_of(pages, name: str) -> list[dict]:
    run = pages[name][0]
    return expected_steps(run, GAMES[name.removesuffix("-seat2")]["rules"])


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


def slide(browser, i: int) -> None:
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        i,
    )


#: The screenshots each game's walk saves: the first step of each kind (a play: one that
#: completes a trick; an end: one with a moon).
SHOTS = {"hearts": ("pass", "play", "end"), "kierki4": ("play", "lottery"),
         "kierki3": ("deal",), "hearts-broken": ("play",)}  # fmt: skip


def moment(want: list[dict], i: int) -> str | None:
    """``queen-breaks`` when step ``i``'s card is a QS that breaks hearts, ``trick1-heart``
    when it is a heart played to a deal's first trick that leaves them unbroken."""
    card = want[i]["trick"][-1][1]
    first = want[i - want[i]["played"]]["kind"] in ("deal", "pass")
    if card == "QS" and want[i]["broken"] and not want[i - 1]["broken"]:
        return "queen-breaks"
    if first and card[1] == "H" and not want[i]["broken"]:
        return "trick1-heart"
    return None


@pytest.mark.parametrize("name", list(GAMES))
def test_every_card_shows_the_recorded_game(browser, pages, tmp_path, name):
    from selenium.webdriver.common.keys import Keys

    want = steps_of(pages, name)
    body = open_page(browser, pages[name][1])
    kierki = GAMES[name]["rules"].startswith("kierki")
    taken = set()
    for i, expected in enumerate(want):
        got = browser.execute_script(READ)
        assert got["step"] == i == got["slider"]
        for key in COMPARED:
            assert got[key] == expected[key], (i, key, expected["kind"])
        if expected["kind"] == "pass":
            assert {(s, t) for s, t, _ in got["passes"]} and all(
                len(c) == 3 for *_, c in got["passes"]
            )
        if kierki and expected["kind"] == "deal":
            kind = got["dealInfo"]["kind"]
            assert kind in got["text"].replace(" ", "_") or kind.replace("_", " ") in got["text"]
            if kind == "trump":
                assert got["dealInfo"]["trump"] in "CDSH" and int(got["dealInfo"]["chooser"]) >= 0
        assert ("hearts broken" in got["text"]) == bool(expected["broken"])
        if expected["kind"] == "end" and expected["moon"] is not None:
            assert "shot the moon" in got["text"]
        kind = expected["kind"]
        wanted = {"play": expected["winner"] is not None, "end": expected["moon"] is not None}
        if kind in SHOTS[name] and kind not in taken and wanted.get(kind, True):
            browser.save_screenshot(str(shots(tmp_path) / f"view-{name}-{kind}.png"))
            taken.add(kind)
        if name == "hearts-broken" and expected["kind"] == "play":
            label = moment(want, i)
            if label and label not in taken:
                browser.save_screenshot(str(shots(tmp_path) / f"view-{name}-{label}.png"))
                taken.add(label)
        body.send_keys(Keys.ARROW_RIGHT)
    if name == "hearts-broken":  # the game was picked for these
        assert {"queen-breaks", "trick1-heart"} <= taken
        taken -= {"queen-breaks", "trick1-heart"}
    assert taken == set(SHOTS[name])
    kinds = [s["kind"] for s in want]
    assert kinds.count("play") == sum(len(s["trick"]) == 1 for s in want) * (3 if kierki and
        len(want[0]["hands"]) == 3 else 4)  # fmt: skip
    assert browser.execute_script(READ)["step"] == len(want) - 1  # → stops at the end
    body.send_keys(Keys.ARROW_LEFT)
    assert browser.execute_script(READ)["step"] == len(want) - 2
    no_errors(browser)


def whole_trick(want: list[dict], j: int) -> bool:
    """Whether step ``j`` is where ↑/↓ stop: not a card, a trick's last card, or the
    lottery's last card."""
    kind = want[j]["kind"]
    if kind == "play":
        return want[j]["winner"] is not None
    return kind != "lottery" or want[j + 1]["kind"] != "lottery"


@pytest.mark.parametrize("name", ["hearts", "kierki4"])
def test_the_keys_jump_whole_tricks_and_deals(browser, pages, name):
    from selenium.webdriver.common.keys import Keys

    want = steps_of(pages, name)
    body = open_page(browser, pages[name][1])
    stops = [j for j in range(len(want)) if whole_trick(want, j)]
    assert len(stops) < len(want) / 2  # most steps are single cards
    for j in stops[1:]:
        body.send_keys(Keys.ARROW_DOWN)
        got = browser.execute_script(READ)
        assert got["step"] == j and got["trick"] == want[j]["trick"]
        if want[j]["kind"] == "play":
            assert len(got["trick"]) == len(got["hands"]) and got["winner"] is not None
    for j in reversed(stops[:-1]):
        body.send_keys(Keys.ARROW_UP)
        assert browser.execute_script(READ)["step"] == j
    starts = [j for j, s in enumerate(want) if s["kind"] == "deal"]
    for j in starts[1:] + [len(want) - 1]:
        body.send_keys(Keys.PAGE_DOWN)
        assert browser.execute_script(READ)["step"] == j
    body.send_keys(Keys.PAGE_UP)
    assert browser.execute_script(READ)["step"] == starts[-1]
    slide(browser, starts[1] + 7)  # within deal 1: Page Up goes to its start
    body.send_keys(Keys.PAGE_UP)
    assert browser.execute_script(READ)["step"] == starts[1]
    body.send_keys(Keys.END)
    assert browser.execute_script(READ)["step"] == len(want) - 1
    body.send_keys(Keys.HOME)
    assert browser.execute_script(READ)["step"] == 0
    no_errors(browser)


def test_the_buttons_and_the_slider_move(browser, pages):
    from selenium.webdriver.common.by import By

    want = steps_of(pages, "hearts")
    open_page(browser, pages["hearts"][1])
    button = lambda name: browser.find_element(By.ID, name)  # noqa: E731
    for name in ("prev", "prev-trick", "prev-deal"):
        assert button(name).get_attribute("disabled")
    assert "up arrow" in button("prev-trick").get_attribute("title")
    assert "Page Down" in button("next-deal").get_attribute("title")
    button("next").click()
    button("next").click()
    button("prev").click()
    assert browser.execute_script(READ)["step"] == 1
    button("next-trick").click()  # from the pass to trick 1's last card
    got = browser.execute_script(READ)
    assert got["step"] == 5 and got["played"] == 4 and got["winner"] == want[5]["winner"]
    button("prev-trick").click()
    assert browser.execute_script(READ)["step"] == 1
    button("next-deal").click()
    assert browser.execute_script(READ)["deal"] == 1 == want[got["step"]]["deal"] + 1
    button("prev-deal").click()
    assert browser.execute_script(READ)["step"] == 0
    last = len(want) - 1
    slide(browser, last)
    got = browser.execute_script(READ)
    assert got["step"] == last and got["scores"] == want[-1]["scores"]
    for name in ("next", "next-trick", "next-deal"):
        assert button(name).get_attribute("disabled")
    assert browser.find_element(By.ID, "rules").text == "classic"
    assert browser.find_elements(By.ID, "analysis") == []  # no analysis, no panel
    assert browser.find_elements(By.ID, "analysis-summary") == []
    no_errors(browser)


def test_a_seat_view_hides_the_other_hands_until_played(browser, pages, tmp_path):
    from selenium.webdriver.common.keys import Keys

    want = steps_of(pages, "hearts-seat2")
    body = open_page(browser, pages["hearts-seat2"][1])
    for i, expected in enumerate(want[:10]):
        got = browser.execute_script(READ)
        assert got["hands"][2] == expected["hands"][2]
        for s in (0, 1, 3):
            assert got["hands"][s] == [""] * len(expected["hands"][s]), (i, s)
        for key in ("trick", "leader", "winner", "broken"):
            assert got[key] == expected[key], (i, key)
        if expected["kind"] == "pass":
            assert {(s, t) for s, t, _ in got["passes"]} == {(1, 2), (2, 3)}  # a left pass
            browser.save_screenshot(str(shots(tmp_path) / "view-hearts-seat2-pass.png"))
        body.send_keys(Keys.ARROW_RIGHT)
    no_errors(browser)


#: What the analysis test reads: the trick's analysed cards, the panel, the summary.
READ_ANALYSIS = """
const q = (s) => Array.from(document.querySelectorAll(s));
const panel = document.getElementById("analysis");
return {
  marked: q("#trick-cards .card.analysed").map((e) => ({
    card: e.dataset.card, blunder: e.classList.contains("blunder"), loss: e.dataset.loss,
    badge: e.querySelector(".badge") ? e.querySelector(".badge").textContent : null,
    title: e.title })),
  shown: !panel.hidden && panel.offsetParent !== null,
  seat: panel.dataset.seat === undefined ? null : Number(panel.dataset.seat),
  values: q("#analysis li.value").map((e) => [e.dataset.card, Number(e.dataset.value)]),
  best: q("#analysis li.best").map((e) => e.dataset.card),
  played: q("#analysis li.played").map((e) => e.dataset.card),
  summary: document.getElementById("analysis-summary").innerText,
  blunders: q("#analysis-summary .blunders").map((e) => Number(e.dataset.count)),
};
"""


def text(card: str) -> str:
    """A card as the page writes it: ``10♥``."""
    return card[0].replace("T", "10") + {"C": "\u2663", "D": "\u2666", "S": "\u2660",
                                          "H": "\u2665"}[card[1]]  # fmt: skip


def test_an_analysis_marks_the_card_and_lists_the_values(browser, pages, tmp_path):
    run = pages["hearts"][0]
    want = steps_of(pages, "hearts")
    _, _, records, _, _ = replay_run(run, GAMES["hearts"]["game"])
    r = records[0]
    seat, c = r.tricks[3].plays[2]
    played = format_card(c)
    others = [x for x in ("AH", "2D", "KS", "3C") if x != played][:2]
    values = {others[0]: 2.5, played: 9.25, others[1]: 0.75}
    blunder = {"deal": r.deal, "trick": 3, "seat": seat, "played": played, "values": values,
               "best": others[1], "loss": 8.5, "blunder": True, "worlds": 200}  # fmt: skip
    seat2, c2 = r.tricks[5].plays[0]
    good = {"deal": r.deal, "trick": 5, "seat": seat2, "played": format_card(c2),
            "values": {format_card(c2): 1.0}, "best": format_card(c2), "loss": 0.0,
            "blunder": False, "worlds": 200}  # fmt: skip
    page = tmp_path / "analysed.html"
    page.write_text(render_page(
        records, rules="classic", players=list(GAMES["hearts"]["players"]), title="analysed",
        analysis=[good, blunder], analyser="pimc(worlds=200)",
    ))  # fmt: skip
    open_page(browser, page)
    # deal 0: the deal, the pass, then 4 cards a trick
    at = 2 + 4 * 3 + 2
    assert want[at]["trick"][-1] == [seat, played]
    slide(browser, at - 1)
    before = browser.execute_script(READ_ANALYSIS)
    assert before["marked"] == [] and not before["shown"]
    assert "pimc(worlds=200)" in before["summary"]
    assert before["blunders"] == [int(s == seat) for s in range(4)]
    slide(browser, at)
    got = browser.execute_script(READ_ANALYSIS)
    (mark,) = got["marked"]
    assert (mark["card"], mark["blunder"], mark["badge"], float(mark["loss"])) == (
        played, True, "?", 8.5,
    )  # fmt: skip
    assert got["shown"] and got["seat"] == seat
    assert got["values"] == [list(kv) for kv in sorted(values.items(), key=lambda kv: kv[1])]
    assert got["best"] == [others[1]] and got["played"] == [played]
    lines = mark["title"].splitlines()
    assert lines[2:] == [f"{text(c)} {v:.2f}" + " best" * (c == others[1]) + " played" * (
        c == played) for c, v in sorted(values.items(), key=lambda kv: kv[1])]  # fmt: skip
    browser.save_screenshot(str(shots(tmp_path) / "view-hearts-analysis.png"))
    slide(browser, at + 1)  # the trick's next card: the mark stays, the panel goes
    after = browser.execute_script(READ_ANALYSIS)
    assert [m["card"] for m in after["marked"]] == [played] and not after["shown"]
    slide(browser, 2 + 4 * 5)
    first = browser.execute_script(READ_ANALYSIS)
    assert [(m["card"], m["blunder"], m["badge"]) for m in first["marked"]] == [
        (format_card(c2), False, None)
    ]
    assert first["shown"] and first["best"] == first["played"] == [format_card(c2)]
    no_errors(browser)
