"""The engine protocol (docs/protocol.md): outside programs at hsim's table
(``engine:CMD``) and hsim's strategies served to other tables (``hsim serve``)."""

import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from hsim.bridges.engine import protocol
from hsim.bridges.engine.process import stop_all
from hsim.cli import main
from hsim.engine.layout import KIND_NAMES, P_N_PLAYS, P_PLAY_CARD, P_PLAY_SEAT, V_DEALT
from hsim.model.rules import parse_rules
from hsim.play import games as games_module
from hsim.play.games import PythonDriver, play_range
from hsim.runner.config import without_home
from hsim.strategy.contract import LoadedStrategy, StrategyError
from hsim.strategy.loader import load_players

ROOT = Path(__file__).resolve().parents[1]
ENGINES = Path(__file__).resolve().parent / "engines"
CLIENT = ROOT / "examples" / "engine_client.py"
PY = shlex.quote(sys.executable)


def engine(script: Path, *args: str, params: str = "") -> str:
    """Return the ``engine:`` spec running the Python ``script`` with ``args``."""
    words = " ".join(shlex.quote(str(a)) for a in args)
    return f"engine:{PY} {shlex.quote(str(script))} {words}".rstrip() + params


def games(specs, rules_text="classic", n=6, seed=3):
    rules = parse_rules(rules_text)
    return play_range(rules, load_players(specs, rules), seed, 0, n)


def engine_processes(mark: str) -> list[int]:
    """Return the pids of live processes whose command line holds ``mark``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


def forking_engine(tmp_path: Path, mark: str, detached: bool = False) -> Path:
    """Write an engine that starts a child holding ``mark`` (which ignores stdin; with
    ``detached``, in a session of its own, out of the engine's process group), then plays
    as faulty.py's ``fine``; return its path."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys, runpy\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {mark!r}],\n"
        f"                 stdin=subprocess.DEVNULL, start_new_session={detached})\n"
        "sys.argv = [sys.argv[0], 'fine']\n"
        f"runpy.run_path({str(ENGINES / 'faulty.py')!r}, run_name='__main__')\n"
    )
    return script


class _Recorder:
    """A plain-Python seat that checks each of its observations survives the protocol."""

    games = ("hearts", "kierki")
    differences: list = []

    def _check(self, kind, obs, legal):
        public, private = obs.arrays()
        line = protocol.request(kind, public, private, legal, 7)
        message = json.loads(line)
        back_public, back_private = protocol.arrays_from_request(message, obs.rules.to_array())
        n = int(public[P_N_PLAYS])
        expected = public.copy()  # play slots past the cards played hold an earlier deal's
        expected[P_PLAY_CARD + n : P_PLAY_CARD + 52] = 0
        expected[P_PLAY_SEAT + n : P_PLAY_SEAT + 52] = 0
        if not (np.array_equal(back_public, expected) and np.array_equal(back_private, private)):
            self.differences.append((kind, np.nonzero(back_public != expected)[0].tolist()))
        assert protocol.arrays_from_request(message, obs.rules.to_array())[0][0] == obs.n_seats

    def pass_cards(self, obs, rng):
        self._check(protocol.PASS, obs, 0)
        return protocol.mask(protocol.names(obs.hand)[:3], "hand")

    def play(self, obs, legal, rng):
        self._check(protocol.PLAY, obs, legal)
        cards = protocol.names(legal)
        return protocol.card(cards[int(rng.integers(len(cards)))], "legal")

    def moon_choice(self, obs, rng):
        self._check(protocol.MOON, obs, 0)
        return int(rng.integers(3))

    def trump_choice(self, obs, rng):
        self._check(protocol.TRUMP, obs, 0)
        return int(rng.integers(4))


@pytest.mark.parametrize(
    "rules_text",
    ["classic", "classic(moon=new_moon,omnibus=true)", "classic(passing=none)", "kierki4",
     "kierki3", "kierki4(rebel=true,allow_no_trump=true)"],
)  # fmt: skip
def test_a_request_reads_back_into_the_seats_observation(rules_text):
    rules = parse_rules(rules_text)
    _Recorder.differences = []
    seat = LoadedStrategy(
        "rec", "rec", "python", python_factory=_Recorder, games=("hearts", "kierki")
    )
    driver = PythonDriver(rules, [seat] * rules.players, 5)
    for game in range(8):
        driver.play_game(game)
    assert _Recorder.differences == []


def test_a_mask_lists_its_cards_in_card_order():
    assert json.loads(protocol.cards_text(0)) == []
    every = (1 << 52) - 1
    assert json.loads(protocol.cards_text(every)) == list(protocol.CARD_NAMES)
    assert protocol.mask(json.loads(protocol.cards_text(0b1011 << 20)), "x") == 0b1011 << 20


class _FieldsChecker(_Recorder):
    """A seat that checks, at each observation, that a request holding only some fields
    is the full request cut down to those fields and ``type``."""

    choices = (["hand", "legal"], ["seed"], [], ["plays", "kind", "table", "voids", "scores"],
               list(protocol.FIELDS))  # fmt: skip

    def _check(self, kind, obs, legal):
        public, private = obs.arrays()
        full = json.loads(protocol.request(kind, public, private, legal, 7))
        assert set(full) <= set(protocol.FIELDS)
        for names in self.choices:
            line = protocol.request(kind, public, private, legal, 7, protocol.Fields(names))
            wanted = {k: v for k, v in full.items() if k == "type" or k in names}
            if json.loads(line) != wanted:
                self.differences.append((kind, names))


@pytest.mark.parametrize("rules_text", ["classic(moon=new_moon)", "kierki4", "kierki3"])
def test_a_request_holds_the_fields_the_engine_asked_for(rules_text):
    rules = parse_rules(rules_text)
    _FieldsChecker.differences = []
    seat = LoadedStrategy(
        "fields", "fields", "python", python_factory=_FieldsChecker, games=("hearts", "kierki")
    )
    PythonDriver(rules, [seat] * rules.players, 5).play_game(0)
    assert _FieldsChecker.differences == []


@pytest.mark.parametrize(
    ("fields", "words"),
    [('["hand", "colour"]', "names 'colour', which requests do not have"),
     ('"hand"', '"fields" must be a list of request field names')],
)  # fmt: skip
def test_a_hello_asking_for_unknown_fields_is_a_clean_error(tmp_path, fields, words):
    script = tmp_path / "fields.py"
    script.write_text(
        "import sys\n"
        "sys.stdin.readline()\n"
        f'sys.stdout.write(\'{{"protocol": 1, "name": "f", "fields": {fields}}}\\n\')\n'
        "sys.stdout.flush()\n"
        "sys.stdin.read()\n"
    )
    result = CliRunner().invoke(main, [
        "tournament", "--players", f"{engine(script)},lowcard,lowcard,lowcard", "--games", "2",
        "--out", str(tmp_path / "run"), "--no-progress"])  # fmt: skip
    stop_all()
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert words in message and "(seat 0)" in message and "Traceback" not in result.output


@pytest.mark.parametrize("args", [(), ("--all-fields",)])
@pytest.mark.parametrize("rules_text", ["classic", "classic(moon=new_moon)", "kierki4", "kierki3"])
def test_four_python_clients_play_exactly_as_lowcard_in_process(rules_text, args):
    rules = parse_rules(rules_text)
    outside = games([engine(CLIENT, *args)] * rules.players, rules_text)
    inside = games(["lowcard"] * rules.players, rules_text)
    assert len(outside[0]) > 0
    np.testing.assert_array_equal(outside[0], inside[0])
    np.testing.assert_array_equal(outside[1], inside[1])


@pytest.fixture(scope="module")
def c_client(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler, "the C client needs a C compiler (cc or gcc): .ci/run installs gcc"
    out = tmp_path_factory.mktemp("c") / "lowcard_client"
    subprocess.run([compiler, "-O2", "-o", out, ENGINES / "lowcard_client.c"], check=True)
    return out


@pytest.mark.parametrize("rules_text", ["classic", "kierki4"])
def test_a_c_client_plays_a_full_tournament_as_lowcard_does(c_client, tmp_path, rules_text):
    rules = parse_rules(rules_text)
    spec = f"engine:{shlex.quote(str(c_client))}"
    for players, out in (([spec] * rules.players, "c"), (["lowcard"] * rules.players, "in")):
        result = CliRunner().invoke(main, [
            "tournament", "--rules", rules_text, "--players", ",".join(players),
            "--games", "20", "--workers", "2", "--seed", "9", "--out", str(tmp_path / out),
            "--no-progress"])  # fmt: skip
        assert result.exit_code == 0, result.output
    import pandas as pd

    for dataset in ("deals", "games"):
        c = pd.read_parquet(tmp_path / "c" / dataset).drop(columns="strategy")
        inside = pd.read_parquet(tmp_path / "in" / dataset).drop(columns="strategy")
        pd.testing.assert_frame_equal(c, inside)


@pytest.mark.parametrize(
    ("bot", "rules_text"), [("heuristic", "classic"), ("kierki", "kierki4"), ("kierki", "kierki3")]
)
def test_hsim_bots_served_play_exactly_as_in_process(bot, rules_text):
    rules = parse_rules(rules_text)
    served = f"engine:{PY} -m hsim.cli serve {bot}(start_timeout=600)"
    outside = games([served] + [bot] * (rules.players - 1), rules_text, n=4)
    inside = games([bot] * rules.players, rules_text, n=4)
    np.testing.assert_array_equal(outside[0], inside[0])
    np.testing.assert_array_equal(outside[1], inside[1])


def test_no_request_names_a_card_its_seat_could_not_see(tmp_path):
    spy = engine(ENGINES / "spy.py", ROOT / "examples")
    for rules_text in ("classic(moon=new_moon)", "kierki4", "kierki3"):
        rules = parse_rules(rules_text)
        deals, _ = games([spy] * rules.players, rules_text, n=5)  # the spy exits on a leak
        assert len(deals) > 0


FAILURES = {
    "crash_at_start": "exited with code 3",
    "no_hello": "answered the hello",
    "crash_mid": "exited with code 139",
    "hang": "did not answer within 1 s",
    "garbage": "'I play the queen of spades' is not a JSON object",
    "close_stdout": "closed its output",
    "illegal": "a card the rules do not allow now",
    "unheld": "returned",
    "error": "reported an error: out of memory",
    "huge_line": "bytes (at most 65,536)",
    "twice": "wrote more lines than it was sent requests",
}


@pytest.mark.parametrize("mode", sorted(FAILURES))
def test_a_failing_engine_is_a_strategy_error_and_leaves_no_process(mode, tmp_path):
    mark = f"hsim-test-{mode}-{os.getpid()}"
    spec = engine(ENGINES / "faulty.py", mode, mark, params="(timeout=1,start_timeout=5)")
    result = CliRunner().invoke(main, [
        "tournament", "--players", f"heuristic,{spec},heuristic,heuristic", "--games", "5",
        "--out", str(tmp_path / "run"), "--no-progress"])  # fmt: skip
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert FAILURES[mode] in message
    assert "(seat 1)" in message and "in game 0 of run seed 1" in message
    assert "Traceback" not in result.output
    stop_all()  # what the command's exit does (CliRunner runs it in this process)
    deadline = time.monotonic() + 10
    while engine_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_processes(mark) == []


def test_blank_lines_from_an_engine_are_skipped():
    # faulty.py plays as lowcard but passes otherwise: games without passes
    blank = engine(ENGINES / "faulty.py", "blank_lines")
    outside = games([blank, "lowcard", blank, "lowcard"], "classic(passing=none)", n=4)
    inside = games(["lowcard"] * 4, "classic(passing=none)", n=4)
    np.testing.assert_array_equal(outside[0], inside[0])
    np.testing.assert_array_equal(outside[1], inside[1])
    stop_all()


def test_an_unheld_card_is_named(tmp_path):
    spec = engine(ENGINES / "faulty.py", "unheld")
    with pytest.raises(StrategyError, match=r"seat 0\).*not held|seat 0\).*card"):
        games([spec, "lowcard", "lowcard", "lowcard"], n=2)


def test_a_run_stopped_by_an_engine_resumes_to_the_same_records(tmp_path):
    flag = tmp_path / "healthy"
    script = tmp_path / "flaky.py"  # crashes mid-run until the flag file exists
    script.write_text(
        "import os, runpy, sys\n"
        "os.environ['FAULTY_AFTER'] = '2000'\n"
        f"if not os.path.exists({str(flag)!r}):\n"
        "    sys.argv = [sys.argv[0], 'crash_mid']\n"
        "else:\n"
        "    sys.argv = [sys.argv[0], 'fine']\n"
        f"runpy.run_path({str(ENGINES / 'faulty.py')!r}, run_name='__main__')\n"
    )
    players = f"lowcard,{engine(script)},lowcard,lowcard"
    args = ["--games", "40", "--seed", "4", "--chunk-size", "5", "--workers", "2", "--no-progress"]
    first = CliRunner().invoke(main, ["tournament", "--players", players, *args,
                                      "--out", str(tmp_path / "run")])  # fmt: skip
    assert first.exit_code == 1 and "exited with code 139" in first.output
    stop_all()  # what the command's exit does (CliRunner runs it in this process)
    flag.write_text("")
    resumed = CliRunner().invoke(main, ["resume", str(tmp_path / "run"), "--trust",
                                        "--no-progress"])  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    whole = CliRunner().invoke(main, ["tournament", "--players", players, *args,
                                      "--out", str(tmp_path / "whole")])  # fmt: skip
    assert whole.exit_code == 0, whole.output
    import pandas as pd

    a = pd.read_parquet(tmp_path / "run" / "deals").sort_values(["game", "deal", "seat"])
    b = pd.read_parquet(tmp_path / "whole" / "deals").sort_values(["game", "deal", "seat"])
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_resume_names_the_engine_command_it_would_run(tmp_path):
    players = f"lowcard,{engine(CLIENT)},lowcard,lowcard"
    made = CliRunner().invoke(main, ["tournament", "--players", players, "--games", "4",
                                     "--out", str(tmp_path / "run"), "--no-progress"])  # fmt: skip
    assert made.exit_code == 0, made.output
    refused = CliRunner().invoke(main, ["resume", str(tmp_path / "run"), "--no-progress"])
    assert refused.exit_code != 0
    assert "engine command" in refused.output and "--trust" in refused.output


def test_killing_hsim_leaves_no_engine_behind(tmp_path):
    mark = f"hsim-test-kill-{os.getpid()}"
    spec = engine(ENGINES / "faulty.py", "fine", mark)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "tournament", "--players",
         f"{spec},{spec},lowcard,lowcard", "--games", "100000", "--workers", "2",
         "--out", str(tmp_path / "run"), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(engine_processes(mark)) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)  # two workers, two engine seats each
        assert len(engine_processes(mark)) >= 2
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while engine_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert engine_processes(mark) == []
    finally:
        proc.kill()
        for pid in engine_processes(mark):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    ("spec", "words"),
    [("engine:", "give the command after the colon"),
     ("engine:'unclosed", "No closing quotation"),
     ("engine:/no/such/program", "is not an executable file"),
     ("engine:no-such-program-x --fast", "is not on PATH")],
)  # fmt: skip
def test_a_bad_engine_spec_is_a_clean_error(tmp_path, spec, words):
    result = CliRunner().invoke(main, [
        "tournament", "--players", f"{spec},lowcard,lowcard,lowcard", "--games", "2",
        "--out", str(tmp_path / "run"), "--no-progress"])  # fmt: skip
    assert result.exit_code in (1, 2), result.output
    assert words in result.output and "Traceback" not in result.output


def _serve(spec: str, lines: bytes, timeout: float = 300):
    """Run ``hsim serve SPEC`` on ``lines``: the finished process and its answers."""
    done = subprocess.run(
        [sys.executable, "-m", "hsim.cli", "serve", spec], input=lines, capture_output=True,
        timeout=timeout,
    )  # fmt: skip
    return done, [json.loads(x) for x in done.stdout.splitlines()]


def test_serve_answers_a_session_and_reports_bad_requests():
    hello = protocol.encode(protocol.hello("classic", "hearts", 4, "test"))
    lines = hello + b"not json\n" + b'{"type": "bid"}\n' + b'{"type": "play"}\n'
    done, answers = _serve("lowcard", lines)
    assert done.returncode == 0, done.stderr
    assert answers[0]["protocol"] == protocol.PROTOCOL and answers[0]["name"] == "lowcard"
    assert "is not a JSON object" in answers[1]["error"]
    assert "unknown request type 'bid'" in answers[2]["error"]
    assert "missing or malformed" in answers[3]["error"]


def test_serve_refuses_an_unknown_strategy_before_reading():
    done = subprocess.run(
        [sys.executable, "-m", "hsim.cli", "serve", "no_such_bot"], input=b"",
        capture_output=True, text=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"unknown strategy 'no_such_bot'" in done.stderr and b"Traceback" not in done.stderr


def test_serve_answers_an_overlong_line_once_and_goes_on():
    hello = protocol.encode(protocol.hello("classic", "hearts", 4, "test"))
    lines = hello + b"x" * (3 * protocol.MAX_LINE) + b"\n" + b'{"type": "bid"}\n'
    _, answers = _serve("lowcard", lines)
    assert len(answers) == 3, answers
    assert "a line of" in answers[1]["error"] and "bid" in answers[2]["error"]


@pytest.mark.parametrize("detached", [False, True])
def test_an_engine_that_starts_children_is_stopped_with_them(tmp_path, detached):
    mark = f"hsim-test-child-{detached}-{os.getpid()}"
    script = forking_engine(tmp_path, mark, detached)
    deals, _ = games([engine(script), "lowcard", "lowcard", "lowcard"], n=1)
    assert len(deals) > 0 and engine_processes(mark)
    stop_all()
    deadline = time.monotonic() + 10
    while engine_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_processes(mark) == []


def test_an_engine_plays_in_sprt_ladder_choose_and_replay(tmp_path):
    """The Python client plays like lowcard: sprt measures no advantage at all, and
    choose and replay print what they print for lowcard."""
    client = engine(CLIENT)
    sprt = CliRunner().invoke(main, [
        "sprt", "--candidate", client, "--baseline", "lowcard", "--opponents", "random",
        "--bounds", "-0.5,0.5", "--max-boards", "8", "--batch", "4", "--json",
        "--out", str(tmp_path / "sprt"), "--no-progress"])  # fmt: skip
    assert sprt.exit_code in (0, 1, 3), sprt.output
    assert json.loads(sprt.output[sprt.output.index("{") :])["advantage"] == 0
    ladder = CliRunner().invoke(main, [
        "ladder", "--bots", f"random,{client}", "--boards", "4",
        "--out", str(tmp_path / "ladder"), "--no-progress"])  # fmt: skip
    assert ladder.exit_code == 0, ladder.output
    deal = "/".join("".join(protocol.CARD_NAMES[c] for c in range(s, 52, 4)) for s in range(4))
    for command in (["choose", "--deal", deal, "--plays", "2C", "--strategy"],
                    ["replay", "--seed", "3", "--game", "1", "--players"]):  # fmt: skip
        said = []
        for spec in (client, "lowcard"):
            seats = spec if command[0] == "choose" else ",".join([spec] * 4)
            result = CliRunner().invoke(main, [*command, seats])
            assert result.exit_code == 0, result.output
            said.append(result.output.replace(client, "lowcard"))
        assert said[0] == said[1]


def test_an_answer_with_a_null_error_is_an_answer():
    assert protocol.answer_value(protocol.PLAY, {"card": "QS", "error": None}) == 36
    with pytest.raises(protocol.ProtocolError, match="reported an error: no"):
        protocol.answer_value(protocol.PLAY, {"card": "QS", "error": "no"})


def test_a_slow_start_names_start_timeout(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time; time.sleep(30)\n")
    with pytest.raises(StrategyError, match=r"within 0\.5 s \(start_timeout=\)"):
        games([engine(slow, params="(start_timeout=0.5)"), "lowcard", "lowcard", "lowcard"], n=1)
    stop_all()


def test_a_crash_quotes_the_engines_stderr_from_a_worker(tmp_path):
    spec = engine(ENGINES / "faulty.py", "crash_mid")
    result = CliRunner().invoke(main, [
        "tournament", "--players", f"lowcard,{spec},lowcard,lowcard", "--games", "40",
        "--workers", "2", "--chunk-size", "10", "--out", str(tmp_path / "run"),
        "--no-progress"])  # fmt: skip
    assert result.exit_code == 1
    assert "segmentation fault (pretend)" in result.output


def test_serve_answers_nothing_after_a_refused_hello_and_checks_legal():
    good = protocol.encode(protocol.hello("classic", "hearts", 4, "test"))
    refused = protocol.encode(protocol.hello("kierki4", "kierki", 4, "test"))
    _, answers = _serve("heuristic", good + refused + b'{"type": "moon"}\n')
    assert answers[0]["protocol"] == 1 and "does not play kierki" in answers[1]["error"]
    assert "before the hello" in answers[2]["error"]


@pytest.mark.parametrize(
    ("signum", "detached"),
    [(signal.SIGKILL, False), (signal.SIGTERM, False), (signal.SIGKILL, True)],
)
def test_killing_hsim_also_ends_what_its_engines_started(tmp_path, signum, detached):
    mark = f"hsim-test-grandchild-{signum}-{detached}-{os.getpid()}"
    script = forking_engine(tmp_path, mark, detached)
    spec = engine(script)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hsim.cli", "tournament", "--players",
         f"{spec},lowcard,lowcard,lowcard", "--games", "100000", "--workers", "2",
         "--out", str(tmp_path / "run"), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(engine_processes(mark)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # one engine a worker, each with its child
        assert len(engine_processes(mark)) >= 1
        proc.send_signal(signum)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 30
        while engine_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert engine_processes(mark) == []
    finally:
        proc.kill()
        for pid in engine_processes(mark):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("detached", [False, True])
def test_an_engine_that_exits_by_itself_leaves_no_process_behind(tmp_path, detached):
    # hsim gone before the parent-death signal is set (a SIGKILL racing the engine's
    # start) leaves only the engine's own exit on its input's end: the reaper then ends
    # what the engine started.
    from hsim.bridges.engine.process import REAPER

    mark = f"hsim-test-exits-{detached}-{os.getpid()}"
    script = forking_engine(tmp_path, mark, detached)
    reaper = subprocess.Popen(
        [sys.executable, "-S", "-c", REAPER, str(os.getpid()), sys.executable, str(script)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not engine_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_processes(mark)  # the engine's child runs
    reaper.stdin.close()  # the engine exits at its input's end
    reaper.wait(timeout=30)
    deadline = time.monotonic() + 10
    while engine_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_processes(mark) == []


def test_a_reaper_whose_hsim_is_gone_does_not_start_the_engine(tmp_path):
    from hsim.bridges.engine.process import REAPER

    mark = f"hsim-test-orphan-{os.getpid()}"
    script = forking_engine(tmp_path, mark)
    done = subprocess.run(
        [sys.executable, "-S", "-c", REAPER, "1", sys.executable, str(script)],
        stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 128 + signal.SIGTERM
    assert engine_processes(mark) == []


def dealt_in(rules_text: str, seed: int, game: int, seat: int) -> str:
    """Return the cards ``seat`` is dealt in deal 0 of ``game`` of run ``seed``, as
    marked_game.py reads them (names, comma-separated)."""
    rules = parse_rules(rules_text)
    driver = PythonDriver(rules, load_players(["lowcard"] * rules.players, rules), seed)
    driver.start_game(game)
    driver.next_status()  # deals
    return ",".join(protocol.names(int(driver.state.private[seat, V_DEALT])))


def test_engines_that_pipeline_play_games_interleaved(monkeypatch):
    seen = []
    pipelined = games_module._play_pipelined

    def watched(drivers, first, stop):
        seen.append(len(drivers))
        return pipelined(drivers, first, stop)

    monkeypatch.setattr(games_module, "_play_pipelined", watched)
    c = games([engine(CLIENT), "lowcard", engine(CLIENT), "heuristic"], n=20, seed=8)
    assert seen == [min(games_module.IN_FLIGHT, 20)]
    monkeypatch.setattr(games_module, "IN_FLIGHT", 1)  # one request at a time
    one = games([engine(CLIENT), "lowcard", engine(CLIENT), "heuristic"], n=20, seed=8)
    inside = games(["lowcard", "lowcard", "lowcard", "heuristic"], n=20, seed=8)
    assert len(seen) == 1  # not pipelined the second time
    for got in (c, one):
        np.testing.assert_array_equal(got[0], inside[0])
        np.testing.assert_array_equal(got[1], inside[1])


def test_an_engine_that_does_not_pipeline_gets_one_request_at_a_time(monkeypatch):
    called = []
    monkeypatch.setattr(games_module, "_play_pipelined", lambda *a: called.append(a))
    deals, _ = games([engine(ENGINES / "faulty.py", "fine"), "lowcard", "lowcard", "lowcard"])
    assert len(deals) > 0 and called == []
    stop_all()


@pytest.mark.parametrize(
    ("mode", "said"),
    [("illegal", "a card the rules do not allow now"), ("hang", "did not answer within 1 s"),
     ("crash", "exited with code 139")],
)  # fmt: skip
def test_a_pipelined_engine_failing_names_its_game(mode, said):
    marked = dealt_in("classic", 5, 3, 1)
    spec = engine(ENGINES / "marked_game.py", ROOT / "examples", mode, marked, params="(timeout=1)")
    players = [engine(CLIENT), spec, engine(CLIENT), "lowcard"]
    with pytest.raises(StrategyError) as failure:
        games(players, n=8, seed=5)
    message = " ".join(str(failure.value).split())
    assert said in message
    assert "(seat 1)" in message and "in game 3 of run seed 5" in message
    # The other engines' answers still owed were not left for the next chunk to read.
    fine = engine(ENGINES / "marked_game.py", ROOT / "examples", "fine", marked)
    again = games([engine(CLIENT), fine, engine(CLIENT), "lowcard"], n=8, seed=5)
    inside = games(["lowcard"] * 4, n=8, seed=5)
    np.testing.assert_array_equal(again[0], inside[0])
    stop_all()


def test_a_requests_seed_is_what_integers_would_draw():
    # EngineStrategy.request_at draws random_raw() >> 1 for speed: the records of engines
    # that use the seed depend on it being rng.integers(2**63)'s value.
    for seed in range(3):
        a = np.random.Generator(np.random.PCG64(seed))
        b = np.random.Generator(np.random.PCG64(seed))
        drawn = [int(a.integers(1 << 63)) for _ in range(2000)]
        assert drawn == [b.bit_generator.random_raw() >> 1 for _ in range(2000)]


def _opening_request(**changes) -> dict:
    """A play request for seat 0's opening lead (it holds the 2C), with ``changes``."""
    request = {
        "type": "play", "seat": 0, "players": 4, "deal": 0, "pass_direction": "left",
        "dealt": ["2C", "8C", "KC", "2D", "6D", "8D", "9D", "JD", "QD", "KD", "4H", "5H", "TH"],
        "passed": ["KC", "QD", "KD"], "received": ["4D", "AS", "AH"],
        "hand": ["2C", "8C", "2D", "4D", "6D", "8D", "9D", "JD", "AS", "4H", "5H", "TH", "AH"],
        "trick": 0, "leader": 0, "current_trick": [], "plays": [], "trick_leaders": [0],
        "trick_winners": [], "points": [0, 0, 0, 0], "tricks_won": [0, 0, 0, 0],
        "taken": [[], [], [], []], "voids": ["", "", "", ""], "scores": [0, 0, 0, 0],
        "hearts_broken": False, "moon_shooter": -1, "seed": 1, "legal": ["2C"],
    }  # fmt: skip
    request.update(changes)
    return request


def test_serve_refuses_a_request_no_deal_can_give():
    """A search given an impossible position (here pimc's world sampling) may never end:
    serve answers an error instead, and the next request still gets its card."""
    hello = protocol.hello("classic", "hearts", 4, "test")
    six = ["6D", "8D", "9D", "JD", "TH", "AH"]
    requests = [
        {**hello, "protocol": 99},
        hello,
        _opening_request(hand=six, legal=["6D", "8D", "9D", "JD"]),
        _opening_request(trick=7),
        _opening_request(players=5),
        _opening_request(plays=[[1, "2C"]], current_trick=[[1, "2C"]], legal=["8C"]),
        _opening_request(plays=[[9, "3C"]], current_trick=[[9, "3C"]], legal=["8C"]),
        _opening_request(hearts_broken="no"),
        _opening_request(hand=six, legal=["6D"], kind="lottery"),
        _opening_request(trump="DS"),
        _opening_request(),
    ]
    lines = b"".join(protocol.encode(r) for r in requests)
    done, answers = _serve("pimc(worlds=8)", lines, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "speaks protocol 1, the hello says 99" in answers[0]["error"]
    assert answers[1]["protocol"] == 1
    assert "the hand holds 6 cards" in answers[2]["error"]
    assert "trick 7 with 0 cards in it comes after 28 plays" in answers[3]["error"]
    assert "players 5, but the hello's rules are for 4 seats" in answers[4]["error"]
    assert "the hand holds 2C, already played" in answers[5]["error"]
    assert "plays names a seat outside 0..3" in answers[6]["error"]
    assert "hearts_broken must be true or false" in answers[7]["error"]
    assert "the hand holds 6 cards" in answers[8]["error"]  # Hearts has no lottery
    assert "trump must be one of C, D, S, H, not 'DS'" in answers[9]["error"]
    assert answers[10] == {"card": "2C"}


def test_serve_refuses_a_kierki_request_no_deal_can_give(tmp_path):
    """Kierki's trick deals have Hearts' hand sizes (docs/rules.md B1); its lottery has
    no tricks, so there only seats and cards are checked."""
    log = tmp_path / "requests.jsonl"
    recorder = tmp_path / "recorder.py"  # plays as the reference client, asks every field
    recorder.write_text(
        f"import json, sys\nsys.path.insert(0, {str(ROOT / 'examples')!r})\n"
        "from engine_client import answer\n"
        f"log = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    log.write(line)\n    log.flush()\n    request = json.loads(line)\n"
        "    said = {'protocol': 1} if request['type'] == 'hello' else answer(request)\n"
        "    print(json.dumps(said), flush=True)\n"
    )
    games([engine(recorder)] + ["kierki"] * 3, "kierki4", n=1)
    stop_all()
    requests = [json.loads(x) for x in log.read_text().splitlines()]
    later = {}  # per deal kind, a play after some plays, from a hand of 3 cards or more
    for r in requests:
        if r["type"] == "play" and len(r["plays"]) > 4 and len(r["hand"]) > 2:
            later.setdefault(r["kind"], r)

    def shrunk(request):  # two cards left, one of them legal
        legal = request["legal"][0]
        other = next(c for c in request["hand"] if c != legal)
        return {**request, "hand": [legal, other], "legal": [legal]}

    tricks, lottery = later["tricks"], later["lottery"]
    sent = [requests[0], tricks, shrunk(tricks), {**tricks, "trick": 11}, lottery, shrunk(lottery)]
    done, answers = _serve("kierki", b"".join(protocol.encode(r) for r in sent))
    assert done.returncode == 0, done.stderr
    assert answers[0]["protocol"] == 1 and "card" in answers[1]
    assert "the hand holds 2 cards; a seat that has played" in answers[2]["error"]
    assert "trick 11 with" in answers[3]["error"]
    assert "card" in answers[4] and answers[5] == {"card": lottery["legal"][0]}


def test_an_engine_that_refuses_the_hello_is_named_with_its_reason(tmp_path):
    script = tmp_path / "refuses.py"
    script.write_text(
        "import sys\nsys.stdin.readline()\n"
        'print(\'{"error": "no Omnibus here"}\', flush=True)\nsys.stdin.read()\n'
    )
    with pytest.raises(StrategyError, match=r"refused the hello \(.*\): no Omnibus here"):
        games([engine(script), "lowcard", "lowcard", "lowcard"], n=1)
    stop_all()


def test_the_docs_name_every_kierki_deal_kind_a_request_sends():
    text = (ROOT / "docs" / "protocol.md").read_text()
    listed = text.split("the deal kind (", 1)[1].split(")", 1)[0]
    assert [name.strip(" `") for name in listed.split(",")] == list(KIND_NAMES)


def test_resume_refuses_an_engine_whose_script_changed_since(tmp_path):
    """run.json records a sha256 of the engine's program and of the code among its
    command's words (not of a log it writes); a resume after the script changed is
    refused, naming it, with nothing changed, and goes on once the script is back. A
    word holding a colon (``--addr=host:80``) leaves the spec an engine's."""
    script, log = tmp_path / "client.py", tmp_path / "bot.log"
    script.write_text(CLIENT.read_text())
    log.write_text("started\n")
    spec = engine(script, "--addr=host:80", str(log))
    players = f"lowcard,{spec},lowcard,lowcard"
    args = ["--players", players, "--games", "12", "--seed", "2", "--chunk-size", "3",
            "--no-progress"]  # fmt: skip
    for name in ("cut", "whole"):
        made = CliRunner().invoke(main, ["tournament", *args, "--out", str(tmp_path / name)])
        assert made.exit_code == 0, made.output
    stop_all()
    cut = tmp_path / "cut"
    manifest = json.loads((cut / "run.json").read_text())
    recorded = manifest["players"][1]
    assert recorded["spec"] == spec and "sha256" not in recorded
    python = Path(shutil.which(sys.executable)).resolve()
    assert set(recorded["program_files"]) == {  # the home folder written ~ (run-folders.md)
        without_home(str(python)),
        without_home(str(script.resolve())),
    }
    assert "program_files" not in manifest["players"][0]
    manifest["status"] = "interrupted"  # as a stopped run: its last part to play again
    last = manifest["parts"].pop()
    for dataset in ("deals", "games"):
        (cut / last[dataset]["file"]).unlink()
    (cut / "run.json").write_text(json.dumps(manifest))
    (cut / "parts.jsonl").write_text("".join(json.dumps(e) + "\n" for e in manifest["parts"]))
    log.write_text("started\nplayed\n")  # the engine's own output: not compared
    script.write_text(CLIENT.read_text() + "\n# edited\n")
    before = {p: p.read_bytes() for p in cut.rglob("*") if p.is_file()}
    refused = CliRunner().invoke(main, ["resume", str(cut), "--trust", "--no-progress"])
    assert refused.exit_code == 1
    assert f"another {script.resolve()} (it has changed since)" in refused.output
    assert {p: p.read_bytes() for p in cut.rglob("*") if p.is_file()} == before
    script.write_text(CLIENT.read_text())
    resumed = CliRunner().invoke(main, ["resume", str(cut), "--trust", "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    stop_all()
    import pandas as pd

    for dataset in ("deals", "games"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(cut / dataset), pd.read_parquet(tmp_path / "whole" / dataset)
        )


def test_program_files_are_the_program_and_the_code_among_the_words(tmp_path):
    """Words that name no file, a folder, a FIFO, an unknown user's home or a file that
    is neither executable nor code are left out; an executable and a script are in."""
    from hsim.bridges.engine.strategies import program_paths
    from hsim.runner.config import recorded_program_files

    script, weights, log, tool = (tmp_path / n for n in ("bot.py", "net.onnx", "out.log", "tool"))
    for path in (script, weights, log, tool):
        path.write_text("x")
    tool.chmod(0o755)
    os.mkfifo(tmp_path / "fifo")
    words = [str(p) for p in (script, weights, log, tool, tmp_path, tmp_path / "fifo")]
    spec = f"engine:{PY} {' '.join(words)} ~no-such-user-x --flag=a:b(timeout=5)"
    found = program_paths(spec)
    assert found == [Path(shutil.which(sys.executable)).resolve()] + [
        p.resolve() for p in (script, weights, tool)
    ]
    recorded = recorded_program_files(spec)
    assert list(recorded) == [without_home(str(p)) for p in found]
    assert recorded[without_home(str(script.resolve()))] == hashlib.sha256(b"x").hexdigest()
    assert program_paths("lowcard") == [] and program_paths("engine:'unclosed") == []
    assert recorded_program_files("lowcard") == {}


@pytest.mark.parametrize(
    ("now", "says"),
    [
        ({"/x/python": "1", "/x/bot.py": "2"}, None),
        ({"/home/b/python": "1", "/home/b/bot.py": "2"}, None),  # same files, another home
        ({"/x/python": "1", "/x/bot.py": "3"}, "another /x/bot.py (it has changed since)"),
        ({"/usr/python": "4", "/x/bot.py": "2"}, "/x/python, where the engine would now run /usr/"),
        ({"/x/python": "1"}, "/x/bot.py, which is not found from here"),
        ({"/x/python": "1", "/x/bot.py": "2", "/x/w.pt": "5"}, "would now also run /x/w.pt"),
    ],
)  # fmt: skip
def test_a_resume_names_how_an_engines_files_changed(now, says):
    from hsim.runner.config import _engine_changed

    then = {"/x/python": "1", "/x/bot.py": "2"}
    changed = _engine_changed(then, now)
    assert changed == says if says is None else says in changed
    assert "damaged" in _engine_changed(["not", "a", "table"], now)
