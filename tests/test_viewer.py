"""hsim view: the data a page embeds is the run's Parquet rows and the replay's records;
the command's errors; a file is never overwritten by surprise. (The page in a browser:
test_viewer_browser.py.)"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hsim.analysis.replay import replay_game, replay_run
from hsim.analysis.viewer import game_data, render_page
from hsim.cli import main
from hsim.model.cards import format_card
from hsim.model.rules import canonical, parse_rules
from hsim.strategy.loader import load_players
from tests.viewer_games import (
    BROKEN_RULES,
    GAMES,
    cards,
    engine_broken,
    make_run,
    page_data,
    recorded,
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("viewer")
    return {name: make_run(name, base / name) for name in GAMES}


def view(*args):
    return CliRunner().invoke(main, ["view", *map(str, args)])


@pytest.mark.parametrize("name", list(GAMES))
def test_the_page_holds_the_recorded_game(runs, tmp_path, name):
    """Hands, passes, every card of every trick, the lottery, points, moons and scores of
    the embedded data equal the run's deal and play rows."""
    out = tmp_path / "page.html"
    result = view(runs[name], "--game", GAMES[name]["game"], "--out", out)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(out)
    data = page_data(out.read_text())
    deals, plays = recorded(runs[name])
    kierki = parse_rules(GAMES[name]["rules"]).is_kierki
    assert data["players"] == list(GAMES[name]["players"])
    assert data["rules"] == canonical(parse_rules(GAMES[name]["rules"]))
    assert data["version"] == 2 and data["analysis"] is None and data["analyser"] is None
    assert [d["deal"] for d in data["deals"]] == sorted(deals.deal.unique())
    for d in data["deals"]:
        rows = deals[deals.deal == d["deal"]].sort_values("seat")
        moves = plays[plays.deal == d["deal"]]
        assert [sorted(h) for h in d["hands"]] == [cards(m) for m in rows.hand]
        for p in d["passes"]:
            assert sorted(p["cards"]) == cards(rows.passed.iloc[p["seat"]])
            assert sorted(p["cards"]) == cards(rows.received.iloc[p["to"]])
        tricks = moves[moves.trick.notna()]
        assert len(d["tricks"]) == tricks.trick.nunique()
        for t, trick in enumerate(d["tricks"]):
            want = tricks[tricks.trick == t]
            assert trick["plays"] == [
                [int(s), format_card(c)] for s, c in zip(want.seat, want.card, strict=True)
            ]
            assert trick["leader"] == want.leader.iloc[0]
            assert trick["winner"] == want.winner.iloc[0]
        lottery = moves[moves.trick.isna()]
        assert d["lottery"] == [
            [int(s), format_card(c)] for s, c in zip(lottery.seat, lottery.card, strict=True)
        ]
        for key in ("points", "deal_score", "score"):
            assert d[key] == rows[key].tolist(), key
        assert d["moon"] == [bool(x) for x in rows.moon]
        if kierki:
            assert d["kind"] == rows.kind.iloc[0]
            chooser = rows.trump_chooser.iloc[0]
            assert d["trump_chooser"] == (-1 if chooser != chooser else int(chooser))
            assert d["trump"] == (rows.trump.iloc[0] if d["trump_chooser"] >= 0 else None)
    # the game was picked for these: the tests below would check little without them
    if name == "hearts":
        assert any(any(d["moon"]) for d in data["deals"])
        assert data["deals"][0]["pass_direction"] == "left" and data["deals"][0]["passes"]
    elif not kierki:  # a heart in trick 1 breaks nothing; QS before any heart breaks them
        assert any(
            any(c[1] == "H" for _, c in d["tricks"][0]["plays"])
            and d["tricks"][0]["broken"] == [False] * 4
            for d in data["deals"]
        )
        assert any(
            t["broken"][k] and not any(c[1] == "H" for x in d["tricks"][:i] for _, c in
                                       x["plays"]) and c == "QS"
            for d in data["deals"]
            for i, t in enumerate(d["tricks"])
            for k, (_, c) in enumerate(t["plays"])
        )  # fmt: skip
    else:
        assert (
            [len(h) for h in data["deals"][0]["hands"]] == [13] * 4
            if name == "kierki4"
            else [17] * 3
        )
        kinds = {d["kind"] for d in data["deals"]}
        assert {"trump", "lottery"} <= kinds and len(data["deals"][-1]["lottery"]) > 0


def test_the_page_data_is_the_replay(runs):
    manifest, rules, records, _, _ = replay_run(runs["kierki4"], 0)
    data = game_data(records, rules="kierki4", players=["a", "b", "c", "d"], title="t")
    assert len(data["deals"]) == len(records)
    for d, r in zip(data["deals"], records, strict=True):
        assert d["hands"] == [[format_card(c) for c in h] for h in r.hands]
        assert [[[s, c] for s, c in t["plays"]] for t in d["tricks"]] == [
            [[s, format_card(c)] for s, c in t.plays] for t in r.tricks
        ]
        assert [t["points"] for t in d["tricks"]] == [t.points for t in r.tricks]
        assert d["trump_seen"] == [format_card(c) for c in r.trump_seen]


def test_a_seat_view_holds_only_what_the_seat_sees(runs):
    _, _, records, _, _ = replay_run(runs["hearts"], GAMES["hearts"]["game"])
    data = game_data(records, rules="classic", players=list("abcd"), title="t", seat=2)
    for d in data["deals"]:
        assert [h is None for h in d["hands"]] == [True, True, False, True]
        assert d["hand_sizes"] == [13] * 4
        for p in d["passes"]:
            assert p is None or 2 in (p["seat"], p["to"])
        assert sum(p is not None for p in d["passes"]) in (0, 2)
    with pytest.raises(ValueError, match="0..3"):
        game_data(records, rules="classic", players=list("abcd"), title="t", seat=4)


def test_names_cannot_end_the_data_script(runs):
    _, _, records, _, _ = replay_run(runs["hearts"], GAMES["hearts"]["game"])
    players = ["</script><script>alert(1)</script>", "<!--", "a&b", "\u2028"]
    page = render_page(records, rules="classic", players=players, title="</title>")
    assert page.count("</script>") == 2  # the data's and the code's
    assert page_data(page)["players"] == players
    assert "<title>hsim: &lt;/title&gt;</title>" in page


def test_a_seed_gives_the_page_of_the_run(runs, tmp_path, monkeypatch):
    g = GAMES["hearts"]
    monkeypatch.chdir(tmp_path)
    from_run = view(runs["hearts"], "--game", g["game"])
    assert from_run.exit_code == 0, from_run.output
    assert from_run.output.strip() == f"game-{g['game']}.html"  # in the current folder
    seed = view(
        "--seed", g["seed"], "--game", g["game"], "--players", ",".join(g["players"]),
        "--out", "seed.html",
    )  # fmt: skip
    assert seed.exit_code == 0, seed.output
    a = page_data((tmp_path / f"game-{g['game']}.html").read_text())
    b = page_data((tmp_path / "seed.html").read_text())
    assert a["deals"] == b["deals"] and a["title"] == b["title"] == "game 21 of run seed 11"


def test_an_existing_file_is_not_overwritten(runs, tmp_path):
    out = tmp_path / "mine.html"
    out.write_text("keep me")
    result = view(runs["hearts"], "--game", GAMES["hearts"]["game"], "--out", out)
    assert result.exit_code == 2 and "exists" in result.output and "--force" in result.output
    assert out.read_text() == "keep me"
    forced = view(runs["hearts"], "--game", GAMES["hearts"]["game"], "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert page_data(out.read_text())["seat"] is None
    assert [p.name for p in tmp_path.iterdir()] == ["mine.html"]  # no temporary file left


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{run}", "--game", "0"], "not in this run"),
        (["{run}"], "give --game"),
        (["{run}", "--game", "21", "--seed", "4"], "drop"),
        (["{tmp}", "--game", "0"], "not an hsim run folder"),
        (["--game", "0"], "give a run folder"),
        (["{run}", "--game", "21", "--out", "{tmp}/no/such.html"], "does not exist"),
        (["{run}", "--game", "21", "--out", "{tmp}"], "is a directory"),
        (["--game", "0", "--players", "random,random,random", "--rules", "kierki3",
          "--seat", "3"], "--seat must be a seat of this game, 0..2"),
        (["--game", "0", "--players", "nosuchbot,random,random,random"], "nosuchbot"),
    ],
)  # fmt: skip
def test_bad_input_is_a_message_and_no_page(runs, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    args = [a.format(run=runs["hearts"], tmp=tmp_path) for a in args]
    result = view(*args)
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, KeyError)
    assert not list(tmp_path.glob("*.html"))


def test_a_given_deal_is_a_page_of_one_deal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")
    passes = "AC KC QC / AD KD QD / AS KS QS / AH KH QH"
    result = view("--deal", blocks, "--pass-direction", "left", "--passes", passes)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "deal.html"
    (deal,) = page_data((tmp_path / "deal.html").read_text())["deals"]
    assert [(p["seat"], p["to"], p["cards"]) for p in deal["passes"]] == [
        (0, 1, ["QC", "KC", "AC"]), (1, 2, ["QD", "KD", "AD"]),
        (2, 3, ["QS", "KS", "AS"]), (3, 0, ["QH", "KH", "AH"]),
    ]  # fmt: skip
    assert deal["held"][1] == ["QC", "KC", "AC"] + [f"{r}D" for r in "23456789TJ"]
    assert len(deal["tricks"]) == 13 and sum(deal["points"]) in (26, 78)


@pytest.mark.parametrize(
    "rules",
    [
        "classic",
        "classic(queen_breaks_hearts=true)",
        "classic(first_trick_points=allowed,first_trick_breaks_hearts=false)",
        BROKEN_RULES,
    ],
)
def test_hearts_broken_is_the_engines_after_every_card(rules):
    """After every card of four random games, the page's hearts-broken flag is the
    engine's (P_HEARTS_BROKEN); under each option it differs somewhere from "a heart was
    played", so a viewer ignoring the option fails."""
    parsed = parse_rules(rules)
    players = load_players(["random"] * 4, parsed)
    differs = False
    for game in range(5, 9):  # two of them with a heart in trick 1
        records, _ = replay_game(parsed, players, 5, game)
        data = game_data(records, rules=parsed, players=list("abcd"), title="t")
        for d, r in zip(data["deals"], records, strict=True):
            flags = [b for t in d["tricks"] for b in t["broken"]]
            plays = [c for t in r.tricks for _, c in t.plays]
            assert flags == engine_broken(rules, r.hands, r.pass_direction, r.passes, plays)
            naive = [any(format_card(c)[1] == "H" for c in plays[: i + 1]) for i in range(52)]
            differs |= flags != naive
    assert differs == (rules != "classic")


def test_kierki_has_no_hearts_broken(runs):
    _, _, records, _, _ = replay_run(runs["kierki4"], 0)
    data = game_data(records, rules="kierki4", players=list("abcd"), title="t")
    assert all(t["broken"] is None for d in data["deals"] for t in d["tricks"])


def decision(record, trick: int, at: int, values: dict, **more) -> dict:
    """An analysed decision on the ``at``-th card of ``trick`` of deal ``record``."""
    seat, c = record.tricks[trick].plays[at]
    played = format_card(c)
    best = min(values, key=values.get)
    out = {"deal": record.deal, "trick": trick, "seat": seat, "played": played,
           "values": values, "best": best, "loss": values[played] - values[best],
           "blunder": values[played] - values[best] > 1, "worlds": 50}  # fmt: skip
    return {**out, **more}


def test_an_analysis_is_embedded_in_play_order_best_first(runs):
    _, _, records, _, _ = replay_run(runs["hearts"], GAMES["hearts"]["game"])
    r = records[1]
    _, c = r.tricks[2].plays[1]
    late = decision(r, 2, 1, {format_card(c): 4.5, "AH": 0.5, "2H": 0.5})
    early = decision(records[0], 0, 0, {format_card(records[0].tricks[0].plays[0][1]): 0.0})
    data = game_data(
        records, rules="classic", players=list("abcd"), title="t",
        analysis=[late, early], analyser="pimc(worlds=50)",
    )  # fmt: skip
    assert data["analyser"] == "pimc(worlds=50)"
    assert [(x["deal"], x["trick"]) for x in data["analysis"]] == [(0, 0), (1, 2)]
    assert list(data["analysis"][1]["values"]) == ["AH", "2H", format_card(c)]  # best, tie
    assert data["analysis"][1]["loss"] == 4.0 and data["analysis"][1]["blunder"] is True
    seat = late["seat"]
    mine = game_data(records, rules="classic", players=list("abcd"), title="t", seat=seat,
                     analysis=[late, early])  # fmt: skip
    assert [x["seat"] for x in mine["analysis"]] == [seat] * (1 + (early["seat"] == seat))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deal": 99}, "no such trick"),
        ({"trick": 13}, "no such trick"),
        ({"played": "2C"}, "not 2C"),
        ({"values": {"2C": 1.0}}, "values must be"),
        ({"values": None}, "values must be"),
        ({"loss": float("nan")}, "values must be"),
        ({"worlds": None, "deal": "0"}, "no such trick"),
    ],
)
def test_a_bad_analysis_is_a_clear_error(runs, change, message):
    _, _, records, _, _ = replay_run(runs["hearts"], GAMES["hearts"]["game"])
    r = records[0]
    good = decision(r, 3, 2, {format_card(r.tricks[3].plays[2][1]): 1.0})
    assert good["played"] != "2C"  # 2C is led to trick 1
    with pytest.raises(ValueError, match=message):
        game_data(records, rules="classic", players=list("abcd"), title="t",
                  analysis=[{**good, **change}])  # fmt: skip
    with pytest.raises(ValueError, match="missing keys"):
        game_data(records, rules="classic", players=list("abcd"), title="t",
                  analysis=[{"deal": 0}])  # fmt: skip
    with pytest.raises(ValueError, match="analysed twice"):
        game_data(records, rules="classic", players=list("abcd"), title="t",
                  analysis=[good, good])  # fmt: skip
