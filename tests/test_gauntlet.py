"""hsim gauntlet: candidates against a panel on duplicate boards."""

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.experiments.gauntlet import DEFAULT_PANEL, default_panel, measure_pairing
from hsim.model.rules import Rules, parse_rules
from tests.conftest import folder_held


def gauntlet(tmp_path, *args, name="g"):
    result = CliRunner().invoke(main, [
        "gauntlet", "--json", "--no-progress", "--out", str(tmp_path / name), *args])  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gauntlet")
    args = ["--candidates", "heuristic,random", "--panel", "duck,lowcard", "--boards", "8",
            "--seed", "3"]  # fmt: skip
    return tmp, gauntlet(tmp, *args, "--workers", "1"), gauntlet(tmp, *args, "--workers", "2",
                                                                  name="g2")  # fmt: skip


def test_a_stronger_candidate_gains_and_a_weaker_loses(small):
    _, result, _ = small
    by = {(p["candidate"], p["opponent"]): p for p in result["pairings"]}
    assert set(by) == {(c, o) for c in ("heuristic", "random") for o in ("duck", "lowcard")}
    for o in ("duck", "lowcard"):
        assert by["heuristic", o]["advantage_low"] > 0
        assert by["random", o]["advantage_high"] < 0
        assert by["heuristic", o]["boards"] == 8
        assert by["heuristic", o]["cpu_ms_per_decision"] > 0
    assert result["panel"]["heuristic"]["advantage_low"] > 0
    assert result["panel"]["random"]["advantage_high"] < 0


def test_every_pairing_plays_the_same_deals(small):
    _, result, _ = small
    first = None
    for p in result["pairings"]:
        d = pd.read_parquet(p["run_dir"] + "/deals", columns=["game", "deal", "seat", "hand"])
        dealt = d[d["deal"] == 0].sort_values(["game", "seat"])["hand"].to_numpy()
        if first is None:
            first = dealt
        assert (dealt == first).all()


def test_the_result_does_not_depend_on_the_workers(small):
    _, one, two = small

    def without_paths(result):
        for p in result["pairings"]:
            del p["run_dir"], p["cpu_ms_per_decision"]
        return result

    assert without_paths(one) == without_paths(two)


def test_moons_are_counted_from_the_rows():
    rules = Rules()
    deals = pd.DataFrame({
        "game": [0] * 8 + [1] * 8, "board": [0] * 8 + [1] * 8,
        "deal": [0, 0, 0, 0, 1, 1, 1, 1] * 2, "player": [0, 1, 2, 3] * 4,
        "moon": [True, False, False, False, False, False, True, False,
                 False, False, False, False, False, True, False, False],
        "deal_score": [0, 26, 26, 26, 26, 26, 0, 26, 5, 8, 13, 0, 26, 0, 26, 26],
    })  # fmt: skip
    f = measure_pairing(deals, rules)
    assert f["deals"] == 4
    assert f["moons_shot"] == 1 / 4
    assert f["moons_conceded"] == 2 / 4
    assert f["score"] == (0 + 26 + 5 + 26) / 4


def test_an_unknown_panel_member_is_named(tmp_path):
    result = CliRunner().invoke(main, [
        "gauntlet", "--candidates", "heuristic", "--panel", "duck,no_such_bot",
        "--boards", "4", "--out", str(tmp_path / "g"), "--no-progress"])  # fmt: skip
    assert result.exit_code == 2
    assert "no_such_bot" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--candidates", ""], "empty seat"), (["--candidates", "heuristic", "--boards", "1"],
     "1 is not in the range"), (["--candidates", "kierki", "--panel", "duck"], "does not play")],
)  # fmt: skip
def test_bad_input_is_a_clean_error(tmp_path, args, words):
    result = CliRunner().invoke(main, [
        "gauntlet", "--panel", "duck", *args, "--out", str(tmp_path / "g"),
        "--no-progress"])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert words in result.output and "Traceback" not in result.output


def test_openspiel_ismcts_sits_in_a_panel(tmp_path):
    result = gauntlet(tmp_path, "--candidates", "heuristic", "--panel",
                      "openspiel:ismcts(simulations=20)", "--boards", "2", "--seed", "1",
                      "--workers", "1", "--rules", "openspiel")  # fmt: skip
    (p,) = result["pairings"]
    assert p["opponent"] == "openspiel:ismcts(simulations=20)" and p["deals"] > 0


def test_the_default_panel_holds_outside_opponents():
    assert "shooter" in DEFAULT_PANEL
    assert any(spec.startswith("openspiel:ismcts") for spec in DEFAULT_PANEL)
    panel, notes = default_panel(parse_rules("openspiel"))
    assert panel == DEFAULT_PANEL and notes == []
    panel, notes = default_panel(Rules())  # OpenSpiel cannot play the classic rules
    assert "shooter" in panel and not any("ismcts" in s for s in panel)
    assert len(notes) == 1 and "ismcts" in notes[0] and "--rules openspiel" in notes[0]


@pytest.mark.parametrize("unit, code", [("pairing", 130), ("rung", 143)])
def test_an_interrupted_pairing_or_rung_says_what_it_left(capsys, tmp_path, unit, code):
    import types

    from hsim.cli.common import exit_stopped
    from hsim.experiments.ladder import LadderStopped

    result = types.SimpleNamespace(games_done=4 * 7 + 3, run_dir=tmp_path / "r", exit_code=code)
    with pytest.raises(SystemExit) as stop:
        exit_stopped(LadderStopped("pimc vs 3 x shooter", result, 50), unit, 4)
    assert stop.value.code == code
    err = capsys.readouterr().err
    assert f"the {unit} pimc vs 3 x shooter stopped after 7 of 50 boards" in err
    assert f"--out {tmp_path} and --resume continues" in err and f"the {unit}s after it" in err


def test_candidates_are_paired_with_the_first_board_by_board(small):
    _, result, _ = small
    by = {(p["candidate"], p["opponent"]): p for p in result["pairings"]}
    paired = {d["opponent"]: d for d in result["paired"]}
    assert set(paired) == {"duck", "lowcard", None}
    for o in ("duck", "lowcard"):
        d = paired[o]
        assert (d["candidate"], d["reference"], d["boards"]) == ("random", "heuristic", 8)
        gap = by["random", o]["advantage"] - by["heuristic", o]["advantage"]
        assert d["advantage"] == pytest.approx(gap)
        assert d["advantage_high"] < 0  # random plays worse than heuristic on the same deals
        assert d["moons_conceded_low"] <= d["moons_conceded"] <= d["moons_conceded_high"]
    whole = paired[None]
    assert whole["advantage"] == pytest.approx(
        (paired["duck"]["advantage"] + paired["lowcard"]["advantage"]) / 2
    )


def _pairing(tmp_path, name, candidate, moons):
    """A pairing whose run holds 2 boards of 2 deals each, the candidate player 0; moons:
    per (board, deal) the player who shot, or -1."""
    from hsim.experiments.gauntlet import Pairing

    rows = []
    for (board, deal), shooter in moons.items():
        for player in range(4):
            shot = player == shooter
            score = (0 if shot else 26) if shooter >= 0 else [5, 8, 13, 0][player]
            rows.append({"board": board, "game": board, "deal": deal, "player": player,
                         "moon": shot, "deal_score": score})  # fmt: skip
    figures = measure_pairing(pd.DataFrame(rows), Rules())
    return Pairing(candidate, "shooter", cpu_ms=None, run_dir=tmp_path / name, **figures)


def test_paired_moons_conceded_are_counted_per_board(tmp_path):
    from hsim.experiments.gauntlet import paired_differences

    rules = Rules()
    ref = _pairing(tmp_path, "a", "heuristic", {(0, 0): 1, (0, 1): 2, (1, 0): 3, (1, 1): -1})
    new = _pairing(tmp_path, "b", "pimc", {(0, 0): -1, (0, 1): 2, (1, 0): -1, (1, 1): -1})
    (d,) = paired_differences([ref, new], rules)  # one opponent: no whole-panel line
    # conceded per board: heuristic 2/2 and 1/2, pimc 1/2 and 0/2
    assert d.moons_conceded.estimate == pytest.approx(-0.5)
    assert d.moons_conceded.low == pytest.approx(-0.5)  # the same on both boards
    # advantage per board (their mean minus the candidate's): heuristic -26/3 and -10/3,
    # pimc -10/3 and +2; pimc better by 16/3 on both
    assert d.advantage.estimate == pytest.approx(16 / 3)
    assert d.candidate == "pimc" and d.reference == "heuristic"
    assert paired_differences([ref], rules) == []


def test_pairings_of_other_boards_are_refused(tmp_path):
    from hsim.experiments.gauntlet import paired_differences

    ref = _pairing(tmp_path, "a", "heuristic", {(0, 0): -1, (1, 0): -1})
    new = _pairing(tmp_path, "b", "pimc", {(0, 0): -1, (2, 0): -1})
    with pytest.raises(ValueError, match="same boards"):
        paired_differences([ref, new], Rules())


@pytest.mark.parametrize("command", ["gauntlet", "ladder"])
def test_a_second_run_into_a_folder_in_use_is_refused_and_changes_nothing(tmp_path, command):
    hsim = Path(sys.executable).parent / "hsim"
    out = tmp_path / "g"

    def bots(a, b):
        return (
            ["--candidates", a, "--panel", b] if command == "gauntlet" else ["--bots", f"{b},{a}"]
        )

    first = subprocess.Popen(
        [str(hsim), command, *bots("lowcard", "random"), "--boards", "400000", "--workers",
         "1", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("*/deals/part-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        before = sorted(p.name for p in out.iterdir())
        second = subprocess.run(
            [str(hsim), command, *bots("random", "lowcard"), "--boards", "2", "--no-progress",
             "--out", str(out)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert second.returncode == 1, second.stderr
        assert "in use by hsim process" in second.stderr and "Traceback" not in second.stderr
        assert sorted(p.name for p in out.iterdir()) == before
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)


@pytest.mark.parametrize(
    ("option", "specs"), [("--candidates", "random,lowcard,random"), ("--panel", "duck,duck")]
)
def test_a_spec_given_twice_is_refused_before_any_play(tmp_path, option, specs):
    args = {"--candidates": "lowcard", "--panel": "random", option: specs}
    result = CliRunner().invoke(main, [
        "gauntlet", *[x for kv in args.items() for x in kv], "--boards", "2", "--no-progress",
        "--out", str(tmp_path / "g")])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"is given more than once in {option}" in result.output
    assert not (tmp_path / "g").exists()


def test_the_figures_read_in_batches_are_the_figures_of_all_deals_at_once(small):
    """A pairing's deals are tallied a batch of whole games at a time (its memory grows
    with the boards, not the deals): any batch size gives the sums and figures of all the
    deals read at once."""
    from hsim.experiments.gauntlet import figures_from_sums
    from hsim.experiments.ladder import TALLY_COLUMNS, board_sums, run_board_sums

    tmp, _, _ = small
    folders = sorted((tmp / "g").glob("*-vs-*"))
    assert len(folders) == 4
    for folder in folders:
        whole = board_sums(pd.read_parquet(folder / "deals", columns=TALLY_COLUMNS))
        assert whole["upper_deals"].sum() > 0 and len(whole) == 8
        for rows in (1, 50, 10**9):
            batched = run_board_sums(folder, rows)
            pd.testing.assert_frame_equal(batched, whole, check_exact=True)
        figures = figures_from_sums(whole, Rules())
        assert figures["deals"] == whole["upper_deals"].sum()
        assert figures["boards"].index.tolist() == list(range(8))


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` but the lock: its bytes and its modification time."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".hsim.lock"
    }


def _resume_refused(args: list[str], out: Path, written: dict, *words: str) -> None:
    """``hsim`` with ``args`` and --resume exits 1 with a message holding every word, and
    changes nothing under ``out`` (``written``: its files before)."""
    result = CliRunner().invoke(main, [*args, "--resume"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output
    assert _files(out) == written


def _folder_args(command: str, out: Path, *bots: str) -> list[str]:
    who = (
        ["--candidates", bots[0], "--panel", ",".join(bots[1:])]
        if command == "gauntlet"
        else ["--bots", ",".join(bots[::-1])]
    )
    timing = ["--no-timing"] if command == "gauntlet" else []
    return [command, *who, "--boards", "6", "--seed", "5", "--workers", "1", "--no-progress",
            *timing, "--out", str(out)]  # fmt: skip


@pytest.mark.parametrize("command", ["gauntlet", "ladder"])
def test_a_used_out_is_refused_kept_with_resume_and_played_again_with_overwrite(tmp_path, command):
    out = tmp_path / "g"
    args = _folder_args(command, out, "lowcard", "random", "duck")
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    written = _files(out)
    assert any("/deals/part-" in name for name in written)

    again = CliRunner().invoke(main, args)
    assert again.exit_code == 1, again.output
    assert "already holds the run of" in again.output and "--resume" in again.output
    assert "advantage" not in again.output  # no table header before the refusal
    assert _files(out) == written  # nothing played, nothing changed

    kept = CliRunner().invoke(main, [*args, "--resume"])
    assert kept.exit_code == 0, kept.output
    assert kept.output == first.output
    assert _files(out) == written  # read, not played again

    replaced = CliRunner().invoke(main, [*args, "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert replaced.output == first.output  # the same seed: the same games
    now = _files(out)
    assert now.keys() == written.keys()
    parts = [name for name in now if "/part-" in name]
    assert all(now[name][1] != written[name][1] for name in parts)  # played again


@pytest.mark.parametrize("command", ["gauntlet", "ladder"])
def test_resume_refuses_a_folder_another_run_plays_in_and_that_run_is_refused_inside_it(
    tmp_path, command
):
    # A ladder resumed reads a finished rung's folder instead of playing it: another hsim
    # run writing there then would put its games under the ladder's seed.
    out = tmp_path / "g"
    args = _folder_args(command, out, "lowcard", "random")
    assert CliRunner().invoke(main, args).exit_code == 0
    written = _files(out)
    rung = next(p.parent for p in out.glob("*/run.json"))
    with folder_held(rung):
        _resume_refused(args, out, written, f"{rung}, the folder of", "in use by hsim process")
    # the ladder (here its stand-in) holds --out: no run may write into its folders
    with folder_held(out) as holder:
        result = CliRunner().invoke(main, [
            "tournament", "--players", "duck,lowcard,lowcard,lowcard", "--games", "4",
            "--overwrite", "--no-progress", "--out", str(rung)])  # fmt: skip
        assert result.exit_code == 1, result.output
        assert f"inside {out}, which is in use by hsim process {holder.pid}" in result.output
        assert "Traceback" not in result.output
        assert _files(out) == written


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (["--seed", "6"], "seed 5, not 6"),
        (["--boards", "7"], "boards 6, not 7"),
        (["--rule", "omnibus=true"], "rules "),
        (None, "another strategy file"),
    ],
)
def test_resume_refuses_a_pairing_played_with_other_settings(tmp_path, change, words):
    bot = tmp_path / "bot.py"
    bot.write_text(Path("tests/bots/python_bots.py").read_text())
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, f"{bot}:PyLowcard", "random")
    assert CliRunner().invoke(main, args).exit_code == 0
    written = _files(out)
    if change is None:
        bot.write_text(bot.read_text() + "\n# changed\n")
    refused = f"cannot continue the pairing {bot}:PyLowcard vs 3 x random"
    _resume_refused([*args, *(change or [])], out, written, refused, words, "--overwrite")


def test_resume_refuses_a_pairing_whose_run_json_is_damaged(tmp_path):
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, "lowcard", "random")
    assert CliRunner().invoke(main, args).exit_code == 0
    manifest = next(out.glob("*/run.json"))
    manifest.write_text(manifest.read_text()[:150])
    written = _files(out)
    refused = "cannot continue the pairing lowcard vs 3 x random"
    _resume_refused(args, out, written, refused, "damaged", "--overwrite")
    replaced = CliRunner().invoke(main, [*args, "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert json.loads(manifest.read_text())["status"] == "complete"


def test_a_gauntlet_stopped_by_ctrl_c_continues_with_resume_to_the_figures_of_one_run(
    tmp_path,
):
    """Ctrl-C in the second pairing, then the same command with --resume: the first
    pairing is read as it was, the second plays the rest, the third is played, and the
    figures are those of one uninterrupted gauntlet."""
    hsim = Path(sys.executable).parent / "hsim"
    args = [str(hsim), "gauntlet", "--candidates", "lowcard", "--panel", "random,duck,heuristic",
            "--boards", "30000", "--seed", "4", "--workers", "1", "--no-progress",
            "--no-timing", "--json"]  # fmt: skip
    out = tmp_path / "g"
    first = subprocess.Popen(
        [*args, "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("02-*/deals/part-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=120)
    assert first.returncode == 130, err
    assert f"--out {out} and --resume continues" in err and "Traceback" not in err
    stopped = json.loads((out / "02-lowcard-vs-duck" / "run.json").read_text())
    assert stopped["status"] == "interrupted"
    done = _files(out / "01-lowcard-vs-random")

    resumed = subprocess.run([*args, "--out", str(out), "--resume"], capture_output=True,
                             text=True, timeout=600)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    whole = subprocess.run([*args, "--out", str(tmp_path / "whole")], capture_output=True,
                           text=True, timeout=600)  # fmt: skip
    assert whole.returncode == 0, whole.stderr

    def figures(text):
        result = json.loads(text)
        for p in result["pairings"]:
            del p["run_dir"]
        return result

    assert figures(resumed.stdout) == figures(whole.stdout)
    assert len(figures(whole.stdout)["pairings"]) == 3
    assert _files(out / "01-lowcard-vs-random") == done  # read, not played again


@pytest.mark.parametrize("kind", ["link", "file", "files of yours"])
@pytest.mark.parametrize("mode", [[], ["--resume"], ["--overwrite"]])
def test_a_pairing_folder_hsim_did_not_write_is_refused_before_any_play(tmp_path, kind, mode):
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, "lowcard", "random", "duck")
    assert CliRunner().invoke(main, args).exit_code == 0
    second = out / "02-lowcard-vs-duck"
    shutil.rmtree(second)
    if kind == "link":
        second.symlink_to(out / "01-lowcard-vs-random")
    elif kind == "file":
        second.write_text("mine\n")
    else:
        second.mkdir()
        (second / "notes.txt").write_text("mine\n")
    written = _files(out)
    result = CliRunner().invoke(main, [*args, *mode])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert str(second) in result.output or not mode  # without a mode the first is named
    assert _files(out) == written  # the first pairing neither played again nor replaced


def test_overwrite_refuses_a_pairing_folder_holding_a_file_of_yours_before_any_play(tmp_path):
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, "lowcard", "random", "duck")
    assert CliRunner().invoke(main, args).exit_code == 0
    (out / "02-lowcard-vs-duck" / "notes.txt").write_text("mine\n")
    written = _files(out)
    result = CliRunner().invoke(main, [*args, "--overwrite"])
    assert result.exit_code == 1, result.output
    assert "notes.txt" in result.output and "deletes nothing else" in result.output
    assert _files(out) == written


def _bot_file(tmp_path: Path, crash: bool = False) -> Path:
    """tests/bots/python_bots.py copied to ``tmp_path``; crash: its PyLowcard raises."""
    bot = tmp_path / "bot.py"
    text = Path("tests/bots/python_bots.py").read_text()
    play = "        return min(cards_of(legal), key=self._order)\n"
    assert play in text
    bot.write_text(text.replace(play, "        raise RuntimeError('boom')\n") if crash else text)
    return bot


def _hsim(args: list[str]) -> subprocess.CompletedProcess:
    """Run the installed hsim: a new process loads a strategy file as it is now (one
    process keeps the module it loaded first)."""
    hsim = Path(sys.executable).parent / "hsim"
    return subprocess.run([str(hsim), *args], capture_output=True, text=True, timeout=300)


def test_after_overwrite_stops_resume_plays_every_pairing_anew(tmp_path):
    """--overwrite empties every pairing's folder before the first is played: when it
    stops (here a strategy fails in the first pairing), --resume finds no old run to keep."""
    bot = _bot_file(tmp_path)
    out = tmp_path / "g"
    args = [*_folder_args("gauntlet", out, f"{bot}:PyLowcard", "random", "duck"), "--json"]
    first = _hsim(args)
    assert first.returncode == 0, first.stderr
    _bot_file(tmp_path, crash=True)
    failed = _hsim([*args, "--overwrite"])
    assert failed.returncode == 1 and "boom" in failed.stderr, failed.stderr
    assert list(next(out.glob("02-*")).iterdir()) == []
    _bot_file(tmp_path)
    resumed = _hsim([*args, "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == json.loads(first.stdout)


def test_a_pairing_failed_by_its_strategy_is_played_again_by_resume_once_fixed(tmp_path):
    bot = _bot_file(tmp_path)  # its Crashes raises in a deal holding AS and KS
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, f"{bot}:Crashes", "random")
    failed = _hsim(args)
    assert failed.returncode == 1 and "boom" in failed.stderr, failed.stderr
    manifest = json.loads(next(out.glob("01-*/run.json")).read_text())
    assert (manifest["status"], manifest["error_kind"]) == ("failed", "strategy")
    bot.write_text(bot.read_text().replace('raise RuntimeError("boom")', "pass"))
    resumed = _hsim([*args, "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    manifest = json.loads(next(out.glob("01-*/run.json")).read_text())
    assert manifest["status"] == "complete"


def test_resume_compares_the_strategy_file_the_command_names_from_where_it_runs(
    tmp_path, monkeypatch
):
    """The same relative spec run from another folder names another file: refused,
    though the file the run recorded has not changed."""
    (tmp_path / "a" / "s").mkdir(parents=True)
    (tmp_path / "b" / "s").mkdir(parents=True)
    text = Path("tests/bots/python_bots.py").read_text()
    (tmp_path / "a" / "s" / "bot.py").write_text(text)
    (tmp_path / "b" / "s" / "bot.py").write_text(text.replace("min(cards_of(legal)",
                                                              "max(cards_of(legal)"))  # fmt: skip
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, "s/bot.py:PyLowcard", "random")
    monkeypatch.chdir(tmp_path / "a")
    assert CliRunner().invoke(main, args).exit_code == 0
    written = _files(out)
    monkeypatch.chdir(tmp_path / "b")
    _resume_refused(args, out, written, "another strategy file", str(tmp_path / "b"))


def test_resume_refuses_a_pairing_played_by_other_compiled_bots(tmp_path):
    out = tmp_path / "g"
    args = _folder_args("gauntlet", out, "lowcard", "random")
    assert CliRunner().invoke(main, args).exit_code == 0
    path = next(out.glob("*/run.json"))
    manifest = json.loads(path.read_text())
    manifest["numba_cache"] = "~/.cache/hsim/numba-0123456789abcdef"
    path.write_text(json.dumps(manifest))
    _resume_refused(args, out, _files(out), "compiled code of source 0123456789abcdef")


@pytest.mark.parametrize(("command", "stop", "code"), [
    ("gauntlet", "sigterm", 143), ("ladder", "ctrl-c", 130)])  # fmt: skip
def test_a_stop_before_a_pairing_wrote_or_between_two_is_a_message(
    tmp_path, monkeypatch, command, stop, code
):
    """A signal that lands while a pairing's run is being set up (StopRequested) or
    between two pairings (KeyboardInterrupt) says how to continue, with its exit code."""
    from hsim.errors import StopRequested
    from hsim.experiments import gauntlet as gauntlet_module
    from hsim.experiments import ladder as ladder_module

    def stopped(*args, **kwargs):
        raise StopRequested(signal.SIGTERM) if stop == "sigterm" else KeyboardInterrupt
        yield

    module = gauntlet_module if command == "gauntlet" else ladder_module
    monkeypatch.setattr(module, f"run_{command}", stopped)
    out = tmp_path / "g"
    result = CliRunner().invoke(main, _folder_args(command, out, "lowcard", "random"))
    assert result.exit_code == code, result.output
    assert f"--out {out} and --resume continues" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["gauntlet", "ladder"])
def test_sigterm_between_two_pairings_says_how_to_continue_and_frees_the_folder(tmp_path, command):
    """SIGTERM when no run has its handlers installed (here: as the second pairing or
    rung is about to start) ends as Ctrl-C does there: the message, exit 143, the
    folder's lock released and the first pairing kept for --resume."""
    out = tmp_path / "g"
    args = _folder_args(command, out, "lowcard", "random", "duck")
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import os, runpy, signal, sys\n"
        f"from hsim.experiments import {command} as module\n"
        "original, started = module.play_pair, []\n"
        "def play_pair(*args, **kwargs):\n"
        "    started.append(1)\n"
        "    if len(started) == 2:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return original(*args, **kwargs)\n"
        "module.play_pair = play_pair\n"
        f"sys.argv = ['hsim', *{args!r}]\n"
        "runpy.run_module('hsim.cli', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 143, done.stderr
    assert "interrupted before a" in done.stderr and "--resume continues" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (out / ".hsim.lock").exists()
    first = _files(out)
    assert first and all(name.startswith(sorted(first)[0].split("/")[0]) for name in first)
    resumed = CliRunner().invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    after = _files(out)
    assert {name: after[name] for name in first} == first  # read, not played again
    assert len(after) > len(first)
