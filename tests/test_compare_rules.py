"""hsim compare-rules: the same seeds under a base and variants, winner changes."""

import json
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from hsim.analysis import compare_games, load_run, rescore_run, winner_change
from hsim.cli import main
from hsim.cli.analysis import compare_rules

PLAYERS = "random,lowcard,random,lowcard"


def _invoke(*args):
    return CliRunner().invoke(compare_rules, ["--no-progress", "--workers", "1", *args])


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "c"
    r = _invoke(
        "--players", PLAYERS, "--games", "80", "--seed", "3", "--out", str(out), "--json",
        "--variant", "omnibus=true", "--variant", "passing=none,no_trick_bonus=no_points",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


def test_json_report(compared):
    out, rep = compared
    assert rep["games"] == 80 and rep["players"] == PLAYERS.split(",")
    assert rep["base"]["rules"] == "classic"
    assert json.loads((out / "compare.json").read_text()) == rep
    omnibus, nopass = rep["variants"]
    assert omnibus["rules"] == "classic(omnibus=true)" and omnibus["changes_play"] == []
    assert nopass["changes_play"] == ["passing"]
    assert nopass["differs"] == {"passing": "none", "no_trick_bonus": "no_points"}
    # random and lowcard read neither the rules nor the scores: the same deals are played
    # the same way under a scoring option; without passing they are played otherwise.
    assert omnibus["play_changed"]["deals"] == 0 and omnibus["play_changed"]["compared"] > 80
    assert nopass["play_changed"]["deals"] > 0
    for v in (omnibus, nopass):
        wc = v["winner_change"]
        assert wc["games"] == wc["compared"] == 80 and wc["censored"] == 0
        share = wc["share"]
        assert share["low"] <= share["estimate"] == wc["changed"] / 80 <= share["high"]
        assert {r["strategy"] for r in v["by_strategy"]} == {"random", "lowcard"}
        assert sum(r["games"] for r in v["by_length"]) == 80
    for s in [rep["base"]] + rep["variants"]:
        summary = s["summary"]
        assert summary["games"] == 80
        assert summary["game_length"]["low"] < summary["game_length"]["estimate"]
        assert 0 <= summary["moon_rate"]["estimate"] < 0.1
        assert list(summary["score_quantiles"]) == ["0.05", "0.25", "0.5", "0.75", "0.95"]
    # The omnibus variant's games end later on average (JD -10 slows scores down).
    base_len = rep["base"]["summary"]["game_length"]["estimate"]
    assert omnibus["summary"]["game_length"]["estimate"] > base_len


def test_winner_changes_agree_with_the_run_folders(compared):
    out, rep = compared
    base = load_run(out / "base")
    omnibus = load_run(out / "variant-1")
    wc = winner_change(compare_games(base.games, omnibus.games))
    assert wc.changed == rep["variants"][0]["winner_change"]["changed"]
    # random and lowcard ignore the score: re-scoring the base deals as omnibus gives the
    # played omnibus winners wherever the base deals last long enough.
    again = winner_change(compare_games(rescore_run(base, "omnibus=true").games, omnibus.games))
    assert again.changed == 0 and again.compared + again.censored == 80


def test_compare_runs_reads_the_same_figures_from_arrow_as_from_frames(compared, tmp_path):
    from hsim.analysis.scan import open_run
    from hsim.experiments.compare_rules import compare_runs
    from hsim.model.rules import parse_rules
    from hsim.runner.config import RunConfig
    from hsim.runner.run import run_tournament

    out, _ = compared
    dirs = [out / "base", out / "variant-1", out / "variant-2"]
    # and runs with rows after a game's end (--score-also) and Kierki runs with nulls
    for name, rules, also in (
        ("also-a", "classic", ("omnibus=true",)),
        ("also-b", "classic(passing=none)", ("omnibus=true",)),
        ("kierki-a", "kierki4", ()),
        ("kierki-b", "kierki4(rebel=true)", ()),
    ):
        players = PLAYERS.split(",") if "classic" in rules else ["kierki", "random"] * 2
        config = RunConfig(
            rules=parse_rules(rules), players=tuple(players), games=30, seed=5,
            score_also=tuple(parse_rules(f"classic({a})") for a in also),
        )  # fmt: skip
        run_tournament(config, tmp_path / name, progress=False)
    for group in (dirs, [tmp_path / "also-a", tmp_path / "also-b"],
                  [tmp_path / "kierki-a", tmp_path / "kierki-b"]):  # fmt: skip
        rules = [open_run(d).rules for d in group]
        for rows in (64, 1 << 18):  # batches of a game or two, and all at once
            fast = compare_runs(group[0], group[1:], rules[0], rules[1:], rows=rows)
            slow = compare_runs(group[0], group[1:], rules[0], rules[1:], rows, tables=False)
            assert fast == slow
        assert fast[1][0]["play_changed"]["compared"] > 0


@pytest.mark.parametrize("rows", [64, 1 << 18])
def test_compare_and_report_gives_each_runs_report_in_the_same_pass(compared, rows):
    import numpy as np
    import pandas as pd

    from hsim.analysis.report import build_report
    from hsim.analysis.scan import open_run
    from hsim.experiments.compare_rules import compare_and_report, compare_runs

    out, _ = compared
    dirs = [out / "base", out / "variant-1", out / "variant-2"]
    rules = [open_run(d).rules for d in dirs]
    summary, figures, reports, spreads = compare_and_report(
        dirs[0], dirs[1:], rules[0], rules[1:], rows=rows
    )
    assert (summary, figures) == compare_runs(dirs[0], dirs[1:], rules[0], rules[1:])
    for d, report, gaps in zip(dirs, reports, spreads, strict=True):
        assert report == build_report(d)
        score = pd.read_parquet(d / "games").groupby("game").score
        assert np.array_equal(gaps, (score.max() - score.min()).to_numpy(float))


def test_text_output_and_refusals(compared, tmp_path):
    out, _ = compared
    r = _invoke(
        "--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "t"),
        "--variant", "omnibus=true",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "winner changed vs base" in r.stdout
    assert "scoring options only: the same rules of play, but bots that read" in r.stdout
    assert "play differed in 0 of " in r.stdout  # random and lowcard read neither
    # An existing folder is not replaced without --overwrite.
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(out), "--variant", "omnibus=1")
    assert r.exit_code != 0 and "--overwrite" in r.output


@pytest.mark.parametrize(
    "variant, message",
    [
        ("omnibuss=true", "unknown rule option 'omnibuss'"),
        ("omnibus=maybe", "omnibus takes true|false"),
        ("omnibus", "must be written name=value"),
        ("omnibus=false", "same rule set as the base"),
        ("classic(omnibus=true", "missing closing parenthesis"),
        ("", "empty --variant"),
    ],
)
def test_bad_variants_are_clear_errors(tmp_path, variant, message):
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "x"),
                "--variant", variant)  # fmt: skip
    assert r.exit_code != 0 and message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()


def test_other_mistakes_are_clear_errors(tmp_path):
    r = _invoke("--players", PLAYERS, "--games", "10", "--out", str(tmp_path / "x"),
                "--variant", "omnibus=true", "--variant", "classic(omnibus=true)")  # fmt: skip
    assert r.exit_code != 0 and "same rule set as --variant" in r.output
    r = _invoke("--games", "10", "--variant", "omnibus=true")
    assert r.exit_code != 0 and "no players" in r.output
    r = _invoke("--players", "random,random,random", "--games", "10",
                "--out", str(tmp_path / "y"), "--variant", "omnibus=true")  # fmt: skip
    assert r.exit_code != 0 and "has 4 seats" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "y").exists()


def test_a_scoring_option_changes_the_play_of_a_bot_that_reads_the_rules(tmp_path):
    """heuristic takes the JD under Omnibus: a scoring option is not play-neutral."""
    from hsim.experiments.compare_rules import compare_rules as compare
    from hsim.experiments.compare_rules import parse_variant, play_label
    from hsim.model.rules import parse_rules

    base = parse_rules("classic")
    variant = parse_variant("omnibus=true", base)
    assert variant.changes_play == ()
    rep = compare(base, [variant], ("heuristic",) * 4, 6, 1, tmp_path / "c")
    (v,) = rep["variants"]
    assert 0 < v["play_changed"]["deals"] <= v["play_changed"]["compared"]
    label = play_label(v)
    assert label.startswith("scoring options only") and "play differed in" in label
    assert play_label({**v, "changes_play": ["passing"]}).startswith(
        "changes the rules of play: passing"
    )


def test_play_changed_counts_deals_dealt_in_both():
    import pandas as pd

    from hsim.experiments.compare_rules import play_changed

    a = pd.DataFrame(
        {"game": [0, 0, 0, 0, 1, 1], "deal": [0, 0, 1, 1, 0, 0], "seat": [0, 1, 0, 1, 0, 1],
         "tricks": [3, 10, 5, 8, 6, 7], "trump": pd.array([None] * 6, dtype="Int64")}
    )  # fmt: skip
    b = a.copy()
    b.loc[2, "tricks"] = 4  # game 0, deal 1 played otherwise
    b = b[b.game == 0]  # game 1 not dealt in b (its game ended sooner): not compared
    assert play_changed(a, b) == {"deals": 1, "compared": 2}
    b.loc[0, "trump"] = 2  # a null against a value differs too
    assert play_changed(a, b) == {"deals": 2, "compared": 2}


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_comparison_exits_as_an_interrupted_run(tmp_path, sig, code):
    out = tmp_path / "c"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "compare-rules", "--no-progress", "--workers", "1",
         "--players", PLAYERS, "--games", str(2**40), "--variant", "omnibus=true",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not list((out / "base" / "games").glob("part-*")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err and "the base run was interrupted" in err


def test_play_changed_by_keys_equals_the_merge_of_the_frames():
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from hsim.experiments import compare_rules as cr

    rng = np.random.default_rng(3)
    n = 3000
    a = pd.DataFrame({
        "game": np.repeat(np.arange(n // 12), 12),
        "deal": np.tile(np.repeat(np.arange(3), 4), n // 12),
        "seat": np.tile(np.arange(4), n // 4), "passed": rng.integers(0, 1 << 52, n),
        "tricks": rng.integers(0, 3, n),
        "trump": pd.Categorical(rng.choice(["C", "D", None], n)),
        "lottery_place": np.where(rng.random(n) < 0.5, np.nan, rng.integers(0, 3, n)),
    })  # fmt: skip
    b = a.copy()
    b["trump"] = pd.Categorical(b["trump"].astype(object), categories=["D", "C", "H"])
    rows = rng.choice(n, 200, replace=False)  # some seats' play differs
    b.loc[rows[:80], "tricks"] += 1
    b.loc[rows[80:140], "passed"] ^= 1 << 51  # a high bit: exact as float64
    b.loc[rows[140:], "lottery_place"] = np.where(
        b.loc[rows[140:], "lottery_place"].isna(), 1, np.nan
    )
    b = b.sample(frac=0.9, random_state=1)  # some deals in one run only, rows shuffled
    fast = cr.play_changed(a, b)
    cols = [c for c in cr.PLAY_FACTS if c in a.columns]
    framed = [cr.DealColumns.of_frame(f) for f in (a, b)]
    assert cr._play_changed_by_keys(*framed, cols) == fast
    # Read from Arrow tables (as compare_runs reads a run), the same count.
    tables = [pa.Table.from_pandas(f, preserve_index=False) for f in (a, b)]
    assert cr.play_changed(*(cr.DealColumns.of(t) for t in tables)) == fast  # b shuffled
    tables[1] = tables[1].take(np.argsort(cr._deal_keys(framed[1]), kind="stable"))
    assert cr.play_changed(*(cr.DealColumns.of(t) for t in tables)) == fast  # both sorted
    keys = ["game", "deal", "seat"]
    both = a[keys + cols].merge(b[keys + cols], on=keys, suffixes=("_a", "_b"))
    differs = np.zeros(len(both), bool)
    for c in cols:
        x, y = both[f"{c}_a"].astype(object), both[f"{c}_b"].astype(object)
        differs |= ~((x == y).fillna(False).to_numpy(bool) | (x.isna() & y.isna()).to_numpy(bool))
    per_deal = pd.Series(differs).groupby([both["game"].to_numpy(), both["deal"].to_numpy()]).any()
    assert fast == {"deals": int(per_deal.sum()), "compared": len(per_deal)}
    assert 100 < fast["deals"] < fast["compared"]


@pytest.mark.parametrize(
    ("rules", "theirs", "others"),
    [("classic", "omnibus", "trump_chooser"), ("kierki4", "trump_chooser", "omnibus")],
)
def test_an_unknown_variant_option_lists_only_the_options_of_the_base_game(rules, theirs, others):
    r = CliRunner().invoke(
        main, ["atlas", "--rules", rules, "--variant", "no_such=1", "--games", "20"]
    )
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "no_such" in r.output and theirs in r.output and "hsim rules" in r.output
    assert others not in r.output


def test_winner_changes_from_game_columns_equal_those_of_the_merged_frames(compared):
    import dataclasses

    import numpy as np

    from hsim.analysis.frames import WinnerTally
    from hsim.analysis.report import played_games
    from hsim.analysis.scan import RunFolderError, aligned, open_run

    out, _ = compared
    folders = [open_run(out / name) for name in ("base", "variant-1")]
    fast, slow = WinnerTally(), WinnerTally()
    streams = [f.batches("games", None, rows=301) for f in folders]
    for a, b in aligned(*streams):
        a, b = (played_games(t, f.rules) for t, f in zip((a, b), folders, strict=True))
        assert fast.add_columns(a, b)
        slow.add(compare_games(a.frame(), b.frame()))
    assert fast.winner_change() == slow.winner_change() and fast.games == 80
    assert fast.by_strategy().equals(slow.by_strategy())
    assert fast.by_length().equals(slow.by_length())
    assert fast.lengths == slow.lengths and fast.changed_lengths == slow.changed_lengths
    # One winner more under b: the columns see the change as the frames do.
    c = WinnerTally()
    winner = b.winner.copy()
    winner[np.flatnonzero(~winner)[0]] = True
    c.add_columns(a, dataclasses.replace(b, winner=winner))
    d = WinnerTally()
    d.add_columns(a, b)
    assert not c.by_strategy().equals(d.by_strategy())  # one more win under b
    # Another strategy at a seat is refused, as compare_games refuses it.
    names = np.array(list(reversed(b.strategy[1])), dtype=object)
    with pytest.raises(RunFolderError, match="different strategies"):
        WinnerTally().add_columns(a, dataclasses.replace(b, strategy=(b.strategy[0], names)))
    # A (game, seat) twice: left to the frames (compare_games refuses it there).
    seat = b.seat.copy()
    seat[1] = seat[0]
    assert not WinnerTally().add_columns(a, dataclasses.replace(b, seat=seat))


def test_play_changed_of_runs_laid_out_by_deal_equals_the_keys_and_the_merge(monkeypatch):
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from hsim.experiments import compare_rules as cr

    rng = np.random.default_rng(4)

    def deals(lengths, games):
        game = np.repeat(games, np.asarray(lengths) * 4)
        deal = np.concatenate([np.repeat(np.arange(n), 4) for n in lengths])
        n = len(game)
        return pd.DataFrame({
            "game": game, "deal": deal, "seat": np.tile(np.arange(4), n // 4),
            "tricks": rng.integers(0, 2, n), "passed": rng.integers(0, 1 << 52, n),
            "trump": pd.Categorical(rng.choice(["C", "D"], n)),
        })  # fmt: skip

    a = deals(rng.integers(3, 9, 40), np.arange(40) * 2)
    b = deals(rng.integers(3, 9, 41), np.r_[np.arange(40) * 2, 99])  # game 99: b's only
    b[["tricks", "passed", "trump"]] = a[["tricks", "passed", "trump"]].reindex(b.index)
    b["trump"] = pd.Categorical(b["trump"].fillna("C"), categories=["D", "C"])
    b["tricks"] = b["tricks"].fillna(0).astype(np.int64)
    b["passed"] = b["passed"].fillna(0).astype(np.int64)
    b.loc[rng.choice(len(b), 60, replace=False), "tricks"] += 1  # some seats play otherwise
    tables = [pa.Table.from_pandas(f, preserve_index=False) for f in (a, b)]
    columns = [cr.DealColumns.of(t) for t in tables]
    assert cr._common_deals(*columns) is not None  # the layout a run writes
    by_deal = cr.play_changed(*columns)
    monkeypatch.setattr(cr, "_common_deals", lambda *args: None)
    assert cr.play_changed(*columns) == by_deal  # the same by sorted keys
    keys = ["game", "deal", "seat"]
    cols = ["tricks", "passed", "trump"]
    both = a[keys + cols].merge(b[keys + cols], on=keys, suffixes=("_a", "_b"))
    differs = np.zeros(len(both), bool)
    for c in cols:
        differs |= (both[f"{c}_a"].astype(object) != both[f"{c}_b"].astype(object)).to_numpy()
    per_deal = pd.Series(differs).groupby([both["game"].to_numpy(), both["deal"].to_numpy()])
    assert by_deal == {"deals": int(per_deal.any().sum()), "compared": per_deal.ngroups}
    assert 0 < by_deal["deals"] < by_deal["compared"]
