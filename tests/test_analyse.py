"""hsim.analysis.analyse and ``hsim analyse``: each legal card scored from the seat's view."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hsim.analysis.analyse import (
    AnalysisError,
    Watcher,
    analyse_position,
    load_analyser,
    summary,
)
from hsim.analysis.replay import replay_game
from hsim.cli import main
from hsim.engine.layout import V_DEALT, V_HAND, V_PASSED, V_RECEIVED
from hsim.model.cards import parse_card
from hsim.model.rules import parse_rules
from hsim.play.position import Position
from hsim.strategy.loader import load_players

#: A small analyser: the tests need its numbers, not their precision.
SMALL = "pimc(worlds=24)"

# Trick 1: 2C 3C AC 5C, seat 2 takes it and leads 5S; seat 3 plays QS, seat 0 9S. Seat 1
# holds KS and 2S and no other spade: KS surely takes the QS (13 points), 2S surely not.
QUEEN_HANDS = [
    "2C 9S 3S 4S 6S 2D 3D 4D 5D 6D 7D 8D 9D",
    "3C KS 2S TD JD QD KD AD 2H 3H 4H 5H 6H",
    "AC 5S 7S 8S 7H 8H 9H TH JH QH KH AH KC",
    "5C QS TS JS AS 4C 6C 7C 8C 9C TC JC QC",
]
QUEEN_PLAYS = "2C 3C AC 5C 5S QS 9S"


def queen_position() -> Position:
    p = Position.from_hands(QUEEN_HANDS)
    p.play(QUEEN_PLAYS)
    assert p.to_act == 1
    return p


@pytest.fixture(scope="module")
def small():
    return load_analyser(SMALL)


@pytest.fixture(scope="module")
def game(small):
    """Game 3 of run seed 7 (passes, four kinds of bot), every play analysed."""
    rules = parse_rules("classic")
    watcher = Watcher()
    records, _ = replay_game(
        rules, load_players(["heuristic", "random", "pimc", "duck"], rules), 7, 3, watcher
    )
    return records, watcher.analyse(records, small)


def test_the_card_that_takes_the_queen_costs_about_13_points(small):
    p = queen_position()
    ks, two = parse_card("KS"), parse_card("2S")
    assert int(p.legal()) == (1 << ks) | (1 << two)
    a = analyse_position(p, ks, small)
    assert a.best == two and a.played == ks
    assert a.loss == a.values[ks] - a.values[two]
    assert abs(a.loss - 13) <= 2, a.values  # the queen, give or take the tricks after
    assert a.values[ks] >= 13  # the queen alone costs 13
    assert a.trick == 1 and a.seat == 1 and a.worlds == 24


def test_a_play_with_one_legal_card_loses_nothing(small, game):
    p = Position.from_hands(QUEEN_HANDS)  # seat 0 must lead 2C
    a = analyse_position(p, parse_card("2C"), small)
    assert a.forced and a.loss == 0 and list(a.values) == [parse_card("2C")]
    _, analyses = game
    forced = [x for x in analyses if x.forced]
    assert len(forced) >= 20
    assert all(x.loss == 0 and x.best == x.played for x in forced)
    # and every other play has a best card no worse than the card played
    assert all(x.values[x.best] <= x.values[x.played] for x in analyses)
    assert any(x.loss > 0 for x in analyses)


def _swapped(p: Position, a: int, b: int, x: str, y: str) -> Position:
    """Return a copy of ``p`` in which seats ``a`` and ``b`` have swapped cards ``x``
    (held by a) and ``y`` (held by b)."""
    q = Position.from_text(p.to_text(), p.rules)
    cx, cy = 1 << parse_card(x), 1 << parse_card(y)
    priv = q.state.private
    assert priv[a, V_HAND] & cx and priv[b, V_HAND] & cy
    for row in (V_HAND, V_DEALT):
        priv[a, row] = priv[a, row] & ~cx | cy
        priv[b, row] = priv[b, row] & ~cy | cx
    return q


def test_no_hidden_card_reaches_the_analyser(small):
    p = queen_position()
    ks = parse_card("KS")
    before = analyse_position(p, ks, small)
    # seat 0's 2D and seat 2's KH change hands: seat 1 cannot see it
    after = analyse_position(_swapped(p, 0, 2, "2D", "KH"), ks, small)
    assert after == before
    # ... while a swap into seat 1's own hand is seen
    seen = analyse_position(_swapped(p, 1, 2, "TD", "KH"), ks, small)
    assert seen.values != before.values


def test_hidden_cards_of_a_played_game_do_not_change_the_numbers(small):
    rules = parse_rules("classic")
    p = Position.from_game(rules, ["heuristic", "random", "pimc", "duck"], 7, 3, decisions=30)
    assert p.phase == "play"
    me = p.to_act
    st = p.state
    known = st.private[me, V_PASSED] | st.private[me, V_RECEIVED]
    others = [s for s in range(4) if s != me]
    a, b = others[0], others[1]
    x = next(c for c in range(52) if st.private[a, V_HAND] >> c & 1 and not known >> c & 1)
    y = next(c for c in range(52) if st.private[b, V_HAND] >> c & 1 and not known >> c & 1)
    q = Position.from_game(rules, ["heuristic", "random", "pimc", "duck"], 7, 3, decisions=30)
    cx, cy = 1 << x, 1 << y
    priv = q.state.private
    priv[a, V_HAND] = priv[a, V_HAND] & ~cx | cy
    priv[b, V_HAND] = priv[b, V_HAND] & ~cy | cx
    card = int(p.legal()).bit_length() - 1
    assert analyse_position(p, card, small, seed=7, game=3) == analyse_position(
        q, card, small, seed=7, game=3
    )


def test_the_numbers_are_the_same_for_one_seat_or_all_and_run_to_run(small, game):
    records, analyses = game
    rules = parse_rules("classic")
    watcher = Watcher([2])
    again, _ = replay_game(
        rules, load_players(["heuristic", "random", "pimc", "duck"], rules), 7, 3, watcher
    )
    only = watcher.analyse(again, small)
    assert only == [a for a in analyses if a.seat == 2]
    assert len(only) == sum(len(r.tricks) for r in records)  # one play per trick


def test_the_card_played_is_the_one_recorded(game):
    records, analyses = game
    by_deal = {r.deal: r for r in records}
    for a in analyses:
        trick = by_deal[a.deal].tricks[a.trick]
        assert (a.seat, a.played) in trick.plays


@pytest.mark.parametrize("rules_text", ["hearts3", "black_maria"])
def test_three_seats_and_other_card_values_are_analysed(small, rules_text):
    """A 3-player game (17 tricks of 3 cards) and a Black Maria game: every play of
    seat 0 is analysed, in its own trick, with the card the record shows."""
    rules = parse_rules(rules_text)
    seats = rules.players
    watcher = Watcher(seats=(0,))
    bots = ["heuristic", "duck", "random", "duck"][:seats]
    records, _ = replay_game(rules, load_players(bots, rules), 7, 1, watcher)
    analyses = watcher.analyse(records, small)
    assert len(analyses) == sum(len(r.tricks) for r in records)
    by_deal = {r.deal: r for r in records}
    for a in analyses:
        trick = by_deal[a.deal].tricks[a.trick]
        assert len(trick.plays) == seats
        assert (0, a.played) in trick.plays
        assert a.played in a.values and a.loss >= 0


def test_summary_counts_blunders_by_threshold(game):
    _, analyses = game
    rows = summary(analyses, range(4), 1.0)
    assert [r["plays"] for r in rows] == [sum(a.seat == s for a in analyses) for s in range(4)]
    for r in rows:
        mine = [a for a in analyses if a.seat == r["seat"]]
        assert r["blunders"] == sum(a.loss >= 1.0 for a in mine)
        assert r["total_loss"] == pytest.approx(sum(a.loss for a in mine))
    assert sum(r["blunders"] for r in summary(analyses, range(4), 0.0)) == len(analyses)


def test_only_pimc_analyses():
    with pytest.raises(AnalysisError, match="setting of pimc"):
        load_analyser("heuristic")


def test_a_position_must_ask_for_a_play(small):
    p = Position.from_hands(QUEEN_HANDS, "left")
    with pytest.raises(AnalysisError, match="pass, not a play"):
        analyse_position(p, None, small)
    with pytest.raises(AnalysisError, match="not a legal card"):
        analyse_position(queen_position(), parse_card("AD"), small)


def _cli(*args):
    return CliRunner().invoke(main, ["analyse", *args], catch_exceptions=False)


def test_cli_json_lists_plays_with_a_choice_and_blunders():
    args = ["--seed", "7", "--game", "3", "--players", "heuristic,random,pimc,duck"]
    r = _cli(*args, "--seat", "1", "--with", SMALL, "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["analyser"] == SMALL and data["threshold"] == 1.0
    assert [s["seat"] for s in data["seats"]] == [1]
    plays = data["plays"]
    assert plays and all(p["seat"] == 1 and len(p["values"]) > 1 for p in plays)
    for p in plays:
        values = list(p["values"].values())
        assert values == sorted(values) and p["best"] == next(iter(p["values"]))
        assert p["loss"] == pytest.approx(p["values"][p["played"]] - values[0])
        assert p["blunder"] == (p["loss"] >= 1.0)
    assert data["seats"][0]["blunders"] == sum(p["blunder"] for p in plays)
    assert data["seats"][0]["blunders"] > 0  # a random seat blunders
    again = _cli(*args, "--seat", "1", "--with", SMALL, "--json", "--no-progress")
    assert again.stdout == r.stdout


def test_cli_table_marks_blunders():
    r = _cli(
        "--deal", "/".join(h.replace(" ", "") for h in QUEEN_HANDS), "--players",
        "random,random,random,random", "--seat", "1", "--with", SMALL, "--threshold", "0.5",
        "--no-progress",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "analyser pimc(worlds=24), blunder >= 0.5 points" in lines[0]
    body = [x for x in lines[1:] if x.startswith("deal")]
    assert body and all(" seat 1 " in x for x in body)
    assert all(("??" in x) == (float(x.split("loss")[1].split()[0]) >= 0.5) for x in body)
    assert lines[-1].startswith("seat 1 (random):")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--with", "heuristic"], "setting of pimc"),
        (["--with", "pimc(worlds=0)"], "worlds"),
        (["--with", "pimc(("], "--with"),
        (["--seat", "4"], "--seat"),
        (["--threshold", "-1"], "--threshold"),
    ],
)
def test_cli_bad_input_exits_2_with_a_message(args, message):
    r = _cli("--seed", "7", "--game", "0", "--players", "random,random,random,random", *args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_cli_refuses_kierki():
    r = _cli("--rules", "kierki4", "--seed", "3", "--game", "0", "--players",
             "random,random,random,random", "--no-progress")  # fmt: skip
    assert r.exit_code == 2 and "Kierki has no analyser" in r.output


def test_cli_html_writes_the_game_page_with_the_analysis(tmp_path):
    from tests.viewer_games import page_data

    page = tmp_path / "game.html"
    args = ["--seed", "7", "--game", "3", "--players", "heuristic,random,pimc,duck", "--seat",
            "1", "--with", SMALL, "--no-progress"]  # fmt: skip
    r = _cli(*args, "--json", "--forced", "--html", str(page))
    assert r.exit_code == 0, r.output
    plays = json.loads(r.stdout)["plays"]
    data = page_data(page.read_text())
    assert data["analyser"] == SMALL
    assert data["analysis"] == plays  # the same decisions, in play order, values best first
    again = _cli(*args, "--html", str(page))
    assert again.exit_code == 2 and "--force" in again.output
    assert page_data(page.read_text()) == data


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from hsim.model.rules import parse_rules as rules_of
    from hsim.runner.config import RunConfig
    from hsim.runner.run import run_tournament

    out = tmp_path_factory.mktemp("analyse-run") / "run"
    config = RunConfig(
        rules=rules_of("classic"), players=("random",) * 4, games=6, seed=4, chunk_size=3
    )
    run_tournament(config, out, workers=1, progress=False)
    return out


@pytest.mark.parametrize(
    "target, message",
    [
        ("run.json", "inside the run folder"),
        ("games/part-000000000000.parquet", "inside the run folder"),
        ("page.html", "inside the run folder"),
        ("", "--html needs a file name"),
        ("/no/such/folder/x.html", "--html /no/such/folder/x.html: the folder"),
    ],
)
def test_cli_html_never_writes_into_a_run_folder(small_run, target, message):
    before = {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()}
    html = target if target.startswith("/") or not target else str(small_run / target)
    r = _cli(str(small_run), "--game", "0", "--seat", "0", "--with", SMALL, "--html", html,
             "--force", "--no-progress")  # fmt: skip
    assert r.exit_code == 2 and message in r.output, r.output
    after = {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()}
    assert after == before


def test_cli_an_existing_page_names_the_html_option(small_run, tmp_path):
    page = tmp_path / "g.html"
    page.write_text("mine")
    r = _cli(str(small_run), "--game", "0", "--with", SMALL, "--html", str(page))
    assert r.exit_code == 2 and "another --html" in r.output and page.read_text() == "mine"


def test_cli_threshold_nan_is_refused():
    r = _cli("--seed", "7", "--game", "0", "--players", "random,random,random,random",
             "--threshold", "nan")  # fmt: skip
    assert r.exit_code == 2 and "--threshold" in r.output and "nan" in r.output


def test_cli_a_game_a_stopped_run_never_played_is_refused(small_run, tmp_path):
    import shutil

    partial = tmp_path / "partial"
    shutil.copytree(small_run, partial)
    manifest = json.loads((partial / "run.json").read_text())
    gone = manifest["parts"].pop()  # games 3..5, as a run stopped after its first chunk
    manifest["status"] = "interrupted"
    (partial / "run.json").write_text(json.dumps(manifest))
    for dataset in ("deals", "games"):
        (partial / gone[dataset]["file"]).unlink()
    r = _cli(str(partial), "--game", "4", "--allow-partial", "--with", SMALL, "--no-progress")
    assert r.exit_code == 2, r.output
    assert "game 4 was not played before the run stopped (games played: 0..2)" in r.output
    ok = _cli(str(partial), "--game", "2", "--seat", "0", "--allow-partial", "--with", SMALL,
              "--no-progress")  # fmt: skip
    assert ok.exit_code == 0, ok.output
