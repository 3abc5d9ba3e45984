"""Bad inputs across every command: a one-paragraph message, the right exit code, no
traceback, nothing written and nothing already there changed.

Each row of ``CASES`` is (id, argv, exit code, words the message must hold). The argv may
name ``{RUN}`` (a complete run folder), ``{GAMESRUN}`` (one recorded with ``--record
games``), ``{PYRUN}`` (a run of a plain-Python strategy
file), ``{BOTS}`` (a file of misbehaving strategies), ``{EXITS}`` (a file that calls
``sys.exit()`` when imported), ``{DAMAGED:kind}`` (a copy of ``{RUN}`` damaged as
``DAMAGES[kind]`` says) and ``{FILE}`` (a plain file in the way of a folder). Every case
runs in a folder whose whole content is hashed before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import make_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

BLOCKS = "/".join("".join(r + s for r in "23456789TJQKA") for s in "CDSH")
R4 = "random,random,random,random"
BIG = str(2**64)
T = ["tournament", "--games", "3", "--no-progress", "--out", "new-run"]
C = ["choose", "--deal", BLOCKS, "--plays", "2C", "--strategy"]

BOTS = """
import sys


class _Legal:
    def pass_cards(self, obs, rng):
        return sum(1 << c for c in sorted(obs.hand_cards())[:3])

    def play(self, obs, legal, rng):
        return (legal & -legal).bit_length() - 1


class Fine(_Legal):
    pass


class CallsExit(_Legal):
    def play(self, obs, legal, rng):
        sys.exit()


class RaisesSystemExit(_Legal):
    def play(self, obs, legal, rng):
        raise SystemExit(3)


class RaisesInterrupt(_Legal):
    def play(self, obs, legal, rng):
        raise KeyboardInterrupt


class HugeCard(_Legal):
    def play(self, obs, legal, rng):
        return 2**70


class TextCard(_Legal):
    def play(self, obs, legal, rng):
        return "QS"


class ExitsOnPass(_Legal):
    def pass_cards(self, obs, rng):
        sys.exit(1)


class Declared(_Legal):
    params = {"depth": 3}

    def __init__(self, depth=3):
        self.depth = depth


class Plain(_Legal):
    def __init__(self, x=1):
        self.x = x


class ExitsWhenMade(_Legal):
    def __init__(self):
        sys.exit(2)
"""

#: How a copy of the run folder is damaged: a function of the parsed run.json (the
#: returned object is written back as JSON), or a string: the new raw text of run.json.
DAMAGES = {
    "no-seed": lambda m: {k: v for k, v in m.items() if k != "seed"},
    "seed-text": lambda m: {**m, "seed": "seven"},
    "seed-huge": lambda m: {**m, "seed": 2**64 + 5},
    "games-negative": lambda m: {**m, "games": -4},
    "first-game-float": lambda m: {**m, "first_game": 1.5},
    "unknown-option": lambda m: {
        **m,
        "rules": {**m["rules"], "options": {**m["rules"]["options"], "jokers": True}},
    },
    "option-type": lambda m: {
        **m,
        "rules": {**m["rules"], "options": {**m["rules"]["options"], "end_score": "100"}},
    },
    "option-huge": lambda m: {
        **m,
        "rules": {**m["rules"], "options": {**m["rules"]["options"], "max_deals": 2**70}},
    },
    "no-rules": lambda m: {k: v for k, v in m.items() if k != "rules"},
    "players-short": lambda m: {**m, "players": m["players"][:2]},
    "players-text": lambda m: {**m, "players": "random"},
    "preset-unknown": lambda m: {**m, "rules": {**m["rules"], "preset": "poker"}},
    "a-list": lambda m: [m],
    "record-unknown": lambda m: {**m, "record": "cards"},
    "schema-newer": lambda m: {**m, "schema_version": 99},
    "truncated": "TRUNCATE",
    "not-json": "this is not JSON\n",
    "no-manifest": "DELETE",
}


def _case(id, argv, code, *words, marks=()):
    return pytest.param(argv, code, words, id=id, marks=marks)


# fmt: off
CASES = [
    # -- tournament: sizes, seeds ---------------------------------------------------------
    _case("t-games-0", ["tournament", "--games", "0", "--players", R4], 2, "--games", "x>=1"),
    _case("t-games-neg", ["tournament", "--games", "-5", "--players", R4], 2, "--games"),
    # inf (and 1e400, ~1e10) failed the run in its first game, blaming the strategy; nan was
    # taken for no limit and written into run.json as NaN, which strict JSON refuses
    *(
        _case(f"t-timeout-{v}", [*T, "--players", R4, "--decision-timeout", v], 2,
              "--decision-timeout", "out of range", "0: no limit")  # fmt: skip
        for v in ("inf", "nan", "1e400", "1e7", "-1")
    ),
    _case("t-rules-trailing-comma", [*T, "--players", R4, "--rules", "classic(omnibus=true,)"],
          2, "empty item"),
    _case("t-rules-repeated", [*T, "--players", R4, "--rules",
          "classic(omnibus=true,omnibus=false)"], 2, "'omnibus' is given twice"),
    _case("t-rule-repeated", [*T, "--players", R4, "--rule", "end_score=50", "--rule",
          "end_score=60"], 2, "'end_score' is given twice"),
    _case("t-score-also-trailing", [*T, "--players", R4, "--score-also", "omnibus=true,"], 2,
          "empty item"),
    _case("t-param-underscore", [*T, "--players", "pimc(worlds=1_0),random,random,random"], 2,
          "worlds='1_0' is not a number"),
    _case("t-param-arabic-digits",
          [*T, "--players", "pimc(worlds=\u0661\u0660),random,random,random"],
          2, "is not a number"),
    _case("t-param-trailing-comma", [*T, "--players", "pimc(worlds=5,),random,random,random"], 2,
          "empty item"),
    _case("t-out-empty", ["tournament", "--games", "3", "--players", R4, "--out", ""], 2,
          "is empty"),
    _case("rules-empty", ["rules", ""], 2, "rules string is empty"),
    _case("t-games-text", ["tournament", "--games", "ten", "--players", R4], 2, "--games"),
    _case("t-games-2**63", [*T[:1], "--games", str(2**63), "--players", R4], 2, "--games"),
    _case("t-first-game-max", [*T, "--players", R4, "--first-game", str(2**63 - 1)], 2,
          "--first-game", "2**63-2"),
    _case("t-first-game-neg", [*T, "--players", R4, "--first-game", "-1"], 2, "--first-game"),
    _case("t-dup-overflow", [*T, "--players", R4, "--duplicate", "--first-game",
          str(2**61 * 3)], 2, "rotations", "int64"),
    _case("t-seed-2**64", [*T, "--players", R4, "--seed", BIG], 2, "--seed", "0..2**64-1"),
    _case("t-seed-huge", [*T, "--players", R4, "--seed", "9" * 30], 2, "too large"),
    _case("t-seed-neg", [*T, "--players", R4, "--seed", "-1"], 2, "--seed"),
    _case("t-chunk-0", [*T, "--players", R4, "--chunk-size", "0"], 2, "--chunk-size"),
    _case("t-chunk-huge", [*T, "--players", R4, "--chunk-size", "10000000"], 2,
          "--chunk-size", "1..50000"),
    _case("t-record-unknown", [*T, "--players", R4, "--record", "cards"], 2, "--record",
          "games", "plays"),
    _case("t-record-plays-chunk", [*T, "--players", R4, "--record", "plays", "--chunk-size",
          "20000"], 2, "--chunk-size", "1..2500", "with --record plays"),
    _case("t-workers-0", [*T, "--players", R4, "--workers", "0"], 2, "--workers"),
    _case("t-workers-huge", [*T, "--players", R4, "--workers", "100000"], 2,
          "--workers", "1..1024"),
    # -- tournament: rules ----------------------------------------------------------------
    _case("t-end-score-huge", [*T, "--players", R4, "--rule", "end_score=" + "9" * 20], 2,
          "end_score", "10000"),
    _case("t-end-score-0", [*T, "--players", R4, "--rule", "end_score=0"], 2, "end_score"),
    _case("t-max-deals-int64", [*T, "--players", R4, "--rule", f"max_deals={2**63 - 1}"], 2,
          "max_deals", "10000"),
    _case("t-max-deals-neg", [*T, "--players", R4, "--rule", "max_deals=-1"], 2, "max_deals"),
    _case("t-digits-5000", [*T, "--players", R4, "--rule", "end_score=" + "7" * 5000], 2,
          "end_score"),
    _case("t-trump-value", [*T, "--players", R4, "--rules", "kierki4", "--rule",
          "trump_trick_value=5000"], 2, "trump_trick_value", "1000"),
    _case("t-bool-maybe", [*T, "--players", R4, "--rule", "omnibus=maybe"], 2, "omnibus"),
    _case("t-unknown-option", [*T, "--players", R4, "--rule", "jokers=1"], 2,
          "unknown rule option", "jokers"),
    _case("t-option-no-value", [*T, "--players", R4, "--rule", "omnibus"], 2, "name=value"),
    _case("t-unknown-preset", [*T, "--players", R4, "--rules", "poker"], 2, "poker"),
    _case("t-rules-paren", [*T, "--players", R4, "--rules", "classic(omnibus=true"], 2,
          "parenthesis"),
    _case("t-hearts-3", [*T, "--players", R4, "--rule", "players=3"], 2, "hearts", "3 seats"),
    _case("t-hearts-5", [*T, "--players", R4, "--rule", "players=5"], 2, "hearts", "5 seats"),
    _case("t-hearts-7", [*T, "--players", R4, "--rule", "players=7"], 2, "players", "3|4|5|6"),
    _case("t-kierki-5", [*T, "--players", R4, "--rules", "kierki4(players=5)"], 2, "Kierki",
          "3 or 4 players"),
    # -- tournament: --score-also ---------------------------------------------------------
    _case("t-score-also-9", [*T, "--players", R4, *sum(
        (["--score-also", f"end_score={50 + k}"] for k in range(9)), [])], 2,
        "--score-also", "at most 8"),
    _case("t-score-also-twice", [*T, "--players", R4, "--score-also", "omnibus=true",
          "--score-also", "omnibus=true"], 2, "omnibus=true", "already"),
    _case("t-score-also-base", [*T, "--players", R4, "--score-also", "end_score=100"], 2,
          "base rules"),
    _case("t-score-also-play", [*T, "--players", R4, "--score-also", "passing=none"], 2,
          "changes play"),
    _case("t-score-also-kierki", [*T, "--players", R4, "--rules", "kierki4",
          "--score-also", "omnibus=true"], 2, "Kierki"),
    _case("t-score-also-empty", [*T, "--players", R4, "--score-also", ","], 2, "empty item"),
    # -- tournament: players and their parameters -----------------------------------------
    _case("t-3-players", [*T, "--players", "random,random,random"], 2, "3 players", "4 seats"),
    _case("t-5-players", [*T, "--players", R4 + ",random"], 2, "5 players"),
    _case("t-no-players", T, 2, "no players"),
    _case("t-both-players", [*T, "--players", R4, "--player", "random"], 2, "not both"),
    _case("t-empty-seat", [*T, "--players", "random,,random,random"], 2, "empty seat"),
    _case("t-unknown-bot", [*T, "--players", "nobot,random,random,random"], 2,
          "unknown strategy", "nobot"),
    _case("t-pimc-worlds-neg", [*T, "--players", "pimc(worlds=-3),random,random,random"], 2,
          "worlds", "1..10000"),
    _case("t-pimc-worlds-nan", [*T, "--players", "pimc(worlds=nan),random,random,random"], 2,
          "worlds", "finite", "1..10000"),
    _case("t-pimc-worlds-1e18", [*T, "--players", "pimc(worlds=1e18),random,random,random"], 2,
          "worlds", "1..10000"),
    _case("t-pimc-worlds-half", [*T, "--players", "pimc(worlds=2.5),random,random,random"], 2,
          "whole number"),
    _case("t-pimc-noise-2", [*T, "--players", "pimc(noise=2),random,random,random"], 2,
          "noise", "0..1"),
    _case("t-pimc-exact-52", [*T, "--players", "pimc(exact_cards=52),random,random,random"], 2,
          "exact_cards", "0..16"),
    _case("t-pimc-unknown-param", [*T, "--players", "pimc(depth=3),random,random,random"], 2,
          "no parameter", "depth"),
    _case("t-heuristic-inf", [*T, "--players", "heuristic(qs_guard=inf),random,random,random"],
          2, "qs_guard", "finite"),
    _case("t-param-text", [*T, "--players", "heuristic(qs_guard=lots),random,random,random"],
          2, "qs_guard", "not a number"),
    _case("t-spec-paren", [*T, "--players", "pimc(worlds=3,random,random,random"], 2, "'('"),
    _case("t-spec-no-eq", [*T, "--players", "pimc(worlds),random,random,random"], 2,
          "key=value"),
    _case("t-spec-twice", [*T, "--players", "heuristic(moon_losers=1,moon_losers=2),random,"
          "random,random"], 2, "'moon_losers' is given twice"),
    _case("t-not-kierki", [*T, "--rules", "kierki4", "--players", "duck,random,random,random"],
          2, "does not play kierki"),
    _case("t-missing-file", [*T, "--players", "nofile.py:Bot,random,random,random"], 2,
          "nofile.py", "does not exist"),
    # a file or folder that is not a .py file was an "unexpected AttributeError"
    _case("t-not-py-file", [*T, "--players", "/etc/passwd:Bot,random,random,random"], 2,
          "/etc/passwd", "not a Python file"),
    _case("t-folder-file", [*T, "--players", "/:Bot,random,random,random"], 2,
          "is a folder"),
    _case("t-no-attr", [*T, "--players", "{BOTS}:Nobody,random,random,random"], 2,
          "no attribute", "Nobody"),
    _case("t-declared-range", [*T, "--players", "{BOTS}:Declared(depth=1e300),random,random,"
          "random"], 2, "depth", "2**53"),
    _case("t-python-nan", [*T, "--players", "{BOTS}:Plain(x=nan),random,random,random"], 2,
          "x='nan'", "finite"),
    _case("t-python-kwarg", [*T, "--players", "{BOTS}:Plain(y=1),random,random,random"], 2,
          "does not take parameters"),
    # -- tournament: strategies that misbehave (exit 1, strategy/seat/game/seed) ----------
    _case("t-import-exit", [*T, "--players", "{EXITS}:Bot,random,random,random"], 1,
          "failed to import", "sys.exit"),
    _case("t-sys-exit", [*T, "--seed", "5", "--players", "random,{BOTS}:CallsExit,random,random"],
          1, "CallsExit", "seat 1", "sys.exit()", "game 0", "seed 5"),
    _case("t-system-exit", [*T, "--players", "{BOTS}:RaisesSystemExit,random,random,random"], 1,
          "RaisesSystemExit", "seat 0", "sys.exit(3)"),
    _case("t-keyboard-interrupt", [*T, "--players", "{BOTS}:RaisesInterrupt,random,random,"
          "random"], 1, "RaisesInterrupt", "seat 0", "KeyboardInterrupt"),
    _case("t-int-2**70", [*T, "--players", "{BOTS}:HugeCard,random,random,random"], 1,
          "HugeCard", "outside int64"),
    _case("t-string-card", [*T, "--players", "{BOTS}:TextCard,random,random,random"], 1,
          "TextCard", "not an int"),
    _case("t-exit-on-pass", [*T, "--players", "{BOTS}:ExitsOnPass,random,random,random"], 1,
          "ExitsOnPass", "sys.exit(1)"),
    _case("t-exit-when-made", [*T, "--players", "{BOTS}:ExitsWhenMade,random,random,random"],
          1, "could not be made", "sys.exit(2)"),
    # -- tournament: the output folder ----------------------------------------------------
    _case("t-out-exists", ["tournament", "--games", "3", "--no-progress", "--out", "{RUN}",
          "--players", R4], 1, "already exists", "--overwrite"),
    _case("t-out-under-file", ["tournament", "--games", "3", "--no-progress", "--out",
          "{FILE}/run", "--players", R4], 1, "cannot write", "a-file"),
    _case("t-out-proc", ["tournament", "--games", "3", "--no-progress", "--out",
          "/proc/hsim-bad-input-test/run", "--players", R4], 1, "cannot write",
          "/proc/hsim-bad-input-test"),
    _case("t-out-long-name", ["tournament", "--games", "3", "--no-progress", "--out",
          "x" * 300, "--players", R4], 1, "cannot write", "too long"),
    _case("t-out-read-only", ["tournament", "--games", "3", "--no-progress", "--out",
          "{READONLY}/run", "--players", R4], 1, "cannot write", "ermission",
          marks=pytest.mark.skipif(
              hasattr(os, "geteuid") and os.geteuid() == 0,
              reason="root may write into a read-only folder")),
    # -- choose ---------------------------------------------------------------------------
    _case("c-sys-exit", [*C, "{BOTS}:CallsExit"], 1, "CallsExit", "seat 1", "sys.exit()",
          "game 0", "seed 1"),
    _case("c-system-exit", [*C, "{BOTS}:RaisesSystemExit"], 1, "sys.exit(3)", "seat 1"),
    _case("c-keyboard-interrupt", [*C, "{BOTS}:RaisesInterrupt"], 1, "KeyboardInterrupt",
          "seat 1"),
    _case("c-int-2**70", [*C, "{BOTS}:HugeCard"], 1, "outside int64", "seat 1"),
    _case("c-string-card", [*C, "{BOTS}:TextCard"], 1, "'QS'", "not an int"),
    _case("c-exit-when-made", [*C, "{BOTS}:ExitsWhenMade"], 1, "could not be made"),
    _case("c-import-exit", [*C, "{EXITS}:Bot"], 1, "failed to import", "sys.exit"),
    _case("c-pimc-neg", [*C, "pimc(worlds=-3)"], 2, "worlds", "1..10000"),
    _case("c-seed-2**64", [*C, "random", "--seed", BIG], 2, "0..2**64-1"),
    _case("c-unknown-bot", [*C, "nobot"], 2, "unknown strategy"),
    _case("c-bad-deal", ["choose", "--strategy", "random", "--deal", "2C3C/XX"], 2, "XX"),
    _case("c-illegal-play", ["choose", "--strategy", "random", "--deal", BLOCKS, "--plays",
          "QS"], 2, "QS"),
    _case("c-no-deal", ["choose", "--strategy", "random"], 2, "--deal"),
    _case("c-kierki", ["choose", "--strategy", "random", "--rules", "kierki4", "--deal",
          BLOCKS], 2, "Kierki"),
    _case("c-end-score", [*C, "random", "--rule", "end_score=" + "9" * 20], 2, "end_score"),
    # -- replay ---------------------------------------------------------------------------
    _case("r-seed-2**64", ["replay", "--seed", BIG, "--game", "0", "--players", R4], 2,
          "0..2**64-1"),
    _case("r-game-2**63", ["replay", "--seed", "1", "--game", str(2**63), "--players", R4], 2,
          "--game"),
    _case("r-sys-exit", ["replay", "--seed", "1", "--game", "0", "--players",
          "{BOTS}:CallsExit,random,random,random"], 1, "CallsExit", "seat 0", "sys.exit()",
          "seed 1"),
    _case("r-interrupt", ["replay", "--seed", "1", "--game", "0", "--players",
          "random,random,{BOTS}:RaisesInterrupt,random"], 1, "seat 2",
          "KeyboardInterrupt"),
    _case("r-untrusted", ["replay", "{PYRUN}", "--game", "0"], 2, "--trust", "bots.py"),
    _case("r-game-outside", ["replay", "{RUN}", "--game", "99"], 2, "not in this run"),
    _case("r-run-and-players", ["replay", "{RUN}", "--game", "0", "--players", R4], 2,
          "drop --rules"),
    _case("r-not-a-run", ["replay", ".", "--game", "0"], 1, "not an hsim run folder"),
    _case("r-games-only", ["replay", "{GAMESRUN}", "--game", "0"], 1, "--record games",
          "no deals dataset", "--record deals"),
    _case("rep-games-only", ["report", "{GAMESRUN}"], 1, "--record games", "no deals"),
    _case("r-record-unknown", ["replay", "{DAMAGED:record-unknown}", "--game", "0"], 1,
          "'record'", "cards"),
    _case("rep-schema-newer", ["report", "{DAMAGED:schema-newer}"], 1, "schema_version",
          "newer hsim"),
    *[
        _case(f"r-{kind}", ["replay", f"{{DAMAGED:{kind}}}", "--game", "0"], 1, *words)
        for kind, words in [
            ("no-seed", ("'seed'", "missing")),
            ("seed-text", ("'seed'", "int")),
            ("seed-huge", ("seed", "too large")),
            ("games-negative", ("games", "out of range")),
            ("first-game-float", ("'first_game'", "int")),
            ("unknown-option", ("rules.options", "jokers")),
            ("option-type", ("rules.options", "end_score")),
            ("option-huge", ("rules.options", "max_deals")),
            ("no-rules", ("'rules'", "missing")),
            ("players-short", ("'players'", "4")),
            ("players-text", ("'players'", "list")),
            ("preset-unknown", ("rules.preset", "poker")),
            ("a-list", ("JSON object",)),
            ("truncated", ("not valid JSON", "truncated")),
            ("not-json", ("not valid JSON",)),
            ("no-manifest", ("not an hsim run folder",)),
        ]
    ],
    # -- report ---------------------------------------------------------------------------
    *[
        _case(f"rep-{kind}", ["report", f"{{DAMAGED:{kind}}}"], 1, *words)
        for kind, words in [
            ("no-seed", ("'seed'",)),
            ("unknown-option", ("jokers",)),
            ("option-type", ("end_score",)),
            ("truncated", ("not valid JSON",)),
            ("no-manifest", ("not an hsim run folder",)),
            ("players-short", ("'players'",)),
        ]
    ],
    _case("rep-scoring", ["report", "{RUN}", "--scoring", "jokers=1"], 2, "jokers"),
    _case("rep-missing", ["report", "no-such-run"], 1, "not an hsim run folder"),
    _case("rep-plot-not-folder", ["report", "{RUN}", "--plot", "/dev/null"], 2, "--plot",
          "/dev/null", "not a folder"),
    # -- perft ----------------------------------------------------------------------------
    _case("p-depth-53", ["perft", "--deal", BLOCKS, "--depth", "53"], 2, "--depth"),
    _case("p-end-score", ["perft", "--deal", BLOCKS, "--depth", "1", "--rule",
          "end_score=" + "9" * 20], 2, "end_score"),
    _case("p-bad-deal", ["perft", "--deal", "2C2C/3C", "--depth", "1"], 2, "2C"),
    # -- ladder ---------------------------------------------------------------------------
    _case("l-one-bot", ["ladder", "--bots", "random", "--no-progress"], 2, "two bots"),
    _case("l-boards-1", ["ladder", "--boards", "1", "--no-progress"], 2, "--boards"),
    _case("l-seed-2**64", ["ladder", "--bots", "random,lowcard", "--seed", BIG,
          "--no-progress", "--out", "new-ladder"], 2, "0..2**64-1"),
    _case("l-pimc-neg", ["ladder", "--bots", "random,pimc(worlds=-3)", "--no-progress",
          "--out", "new-ladder"], 2, "worlds", "1..10000"),
    _case("l-not-kierki", ["ladder", "--rules", "kierki4", "--bots", "random,duck",
          "--no-progress", "--out", "new-ladder"], 2, "does not play kierki"),
    _case("l-sys-exit", ["ladder", "--bots", "random,{BOTS}:CallsExit", "--boards", "2",
          "--no-progress", "--out", "new-ladder"], 1, "CallsExit", "sys.exit()",
          "seed 1"),
    _case("l-interrupt", ["ladder", "--bots", "random,{BOTS}:RaisesInterrupt", "--boards",
          "2", "--no-progress", "--out", "new-ladder"], 1, "KeyboardInterrupt"),
    _case("l-workers-huge", ["ladder", "--bots", "random,lowcard", "--workers", "5000",
          "--no-progress", "--out", "new-ladder"], 2, "--workers"),
    _case("l-rung-twice", ["ladder", "--bots", "random,lowcard,random,lowcard",
          "--no-progress", "--out", "new-ladder"], 2, "twice", "drop the repeat"),
    _case("l-resume-no-out", ["ladder", "--resume", "--no-progress"], 2, "--resume needs --out"),
    _case("l-resume-overwrite", ["ladder", "--resume", "--overwrite", "--no-progress",
          "--out", "new-ladder"], 2, "--resume or --overwrite, not both"),
    # -- gauntlet -------------------------------------------------------------------------
    _case("g-resume-no-out", ["gauntlet", "--candidates", "lowcard", "--panel", "random",
          "--resume", "--no-progress"], 2, "--resume needs --out"),
    _case("g-resume-overwrite", ["gauntlet", "--candidates", "lowcard", "--panel", "random",
          "--resume", "--overwrite", "--no-progress", "--out", "new-g"], 2, "not both"),
    _case("g-out-in-run", ["gauntlet", "--candidates", "lowcard", "--panel", "random",
          "--boards", "2", "--no-progress", "--out", "{RUN}"], 1, "is the run folder"),
    # -- compare-rules --------------------------------------------------------------------
    _case("cr-variant-unknown", ["compare-rules", "--games", "2", "--players", R4,
          "--variant", "jokers=1", "--out", "new-cmp"], 2, "jokers"),
    _case("cr-variant-twice", ["compare-rules", "--games", "2", "--players", R4, "--variant",
          "omnibus=true", "--variant", "omnibus=true", "--out", "new-cmp"], 2,
          "same rule set"),
    _case("cr-seed-2**64", ["compare-rules", "--games", "2", "--players", R4, "--variant",
          "omnibus=true", "--seed", BIG, "--out", "new-cmp"], 2, "0..2**64-1"),
    _case("cr-pimc-neg", ["compare-rules", "--games", "2", "--players",
          "pimc(worlds=-3),random,random,random", "--variant", "omnibus=true", "--out",
          "new-cmp"], 2, "worlds"),
    _case("cr-variant-end-score", ["compare-rules", "--games", "2", "--players", R4,
          "--variant", "end_score=" + "9" * 20, "--out", "new-cmp"], 2, "end_score"),
    _case("cr-games-2**63", ["compare-rules", "--games", str(2**63), "--players", R4,
          "--variant", "omnibus=true", "--out", "new-cmp"], 2, "--games"),
    # -- rules ----------------------------------------------------------------------------
    _case("rules-huge", ["rules", "classic(end_score=" + "9" * 20 + ")"], 2, "end_score"),
    _case("rules-unknown-preset", ["rules", "poker"], 2, "poker"),
]
# fmt: on


def _hash_tree(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink() or not path.is_file():
            out[rel] = "dir" if path.is_dir() else "other"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A folder with a run, a run of a plain-Python strategy, bad strategy files, damaged
    runs, a file in the way and a read-only folder; returns the placeholder values."""
    root = tmp_path_factory.mktemp("bad-inputs")
    bots = root / "bots.py"
    bots.write_text(textwrap.dedent(BOTS))
    exits = root / "exits.py"
    exits.write_text("import sys\nsys.exit()\n")
    run = root / "run"
    rules = make_rules("classic")
    run_tournament(RunConfig(rules, ("random",) * 4, games=4, seed=3), run, progress=False)
    games_run = root / "games-run"
    config = RunConfig(rules, ("random",) * 4, games=4, seed=3, record="games")
    run_tournament(config, games_run, progress=False)
    pyrun = root / "pyrun"
    cwd = os.getcwd()
    os.chdir(root)  # the run records the strategy file relative to itself
    try:
        spec = "bots.py:Fine"
        run_tournament(RunConfig(rules, (spec,) + ("random",) * 3, 2, 3), pyrun, progress=False)
    finally:
        os.chdir(cwd)
    manifest = json.loads((run / "run.json").read_text())
    values = {"RUN": str(run), "PYRUN": str(pyrun), "BOTS": str(bots), "EXITS": str(exits)}
    values["GAMESRUN"] = str(games_run)
    for kind, damage in DAMAGES.items():
        folder = root / f"damaged-{kind}"
        shutil.copytree(run, folder)
        target = folder / "run.json"
        if damage == "DELETE":
            target.unlink()
        elif damage == "TRUNCATE":
            target.write_text(target.read_text()[:200])
        elif isinstance(damage, str):
            target.write_text(damage)
        else:
            target.write_text(json.dumps(damage(manifest)))
        values[f"DAMAGED:{kind}"] = str(folder)
    (root / "a-file").write_text("in the way\n")
    values["FILE"] = str(root / "a-file")
    (root / "read-only").mkdir()
    values["READONLY"] = str(root / "read-only")
    return root, values


def _fill(argv: list[str], values: dict[str, str]) -> list[str]:
    out = []
    for arg in argv:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


def _check_message(output: str, words) -> None:
    """The output ends with one paragraph ``Error: ...`` holding every word."""
    assert "Traceback" not in output, output
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Error: ")]
    assert starts, output
    message = "\n".join(lines[starts[-1] :]).strip()
    assert message and "\n\n" not in message, output
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


@pytest.mark.parametrize(("argv", "code", "words"), CASES)
def test_bad_input(workspace, monkeypatch, tmp_path, argv, code, words):
    root, values = workspace
    monkeypatch.chdir(root)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where a traceback would go
    ro = Path(values["READONLY"])
    ro.chmod(0o500)
    before = _hash_tree(root)
    try:
        result = CliRunner().invoke(main, _fill(argv, values), prog_name="hsim")
    finally:
        ro.chmod(0o700)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception),
        result.output,
    )
    assert result.exit_code == code, result.output
    _check_message(result.output, words)
    assert _hash_tree(root) == before  # nothing written, nothing changed
    assert not list(root.glob("new-*"))
    assert not list(tmp_path.iterdir())  # no unexpected error's traceback file


def test_there_are_at_least_80_cases():
    assert len(CASES) >= 80
    commands = {p.values[0][0] for p in CASES}
    assert commands >= {
        "tournament",
        "choose",
        "replay",
        "report",
        "perft",
        "ladder",
        "compare-rules",
        "rules",
    }


def test_the_installed_command_gives_the_same_message(workspace, tmp_path):
    """The console script (not only click's test runner): a bad seed and a strategy that
    calls sys.exit() are one message each, exit 2 and 1, no traceback."""
    root, values = workspace
    hsim = Path(sys.executable).with_name("hsim")
    command = [str(hsim)] if hsim.exists() else [sys.executable, "-m", "hsim.cli"]
    bad_seed = [*T, "--players", R4, "--seed", BIG]
    exits = [*C, f"{values['BOTS']}:CallsExit"]
    for argv, code, words in [(bad_seed, 2, ["0..2**64-1"]), (exits, 1, ["sys.exit()"])]:
        before = _hash_tree(root)
        done = subprocess.run(
            command + argv, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == code, done.stderr
        _check_message(done.stdout + done.stderr, words)
        assert _hash_tree(root) == before and not list(tmp_path.iterdir())


def _rules_with_a_bug(monkeypatch, tmp_path, message):
    """Return ``hsim rules``'s result with a rules function raising ZeroDivisionError
    (``message``), the traceback file written into ``tmp_path``."""
    import hsim.cli.rules as rules_cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError(message)

    monkeypatch.setattr(rules_cli, "describe_options", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    return result


def test_an_unexpected_error_names_its_traceback_file(monkeypatch, tmp_path):
    """A bug (here: a rules function that raises) is one line naming the file that holds
    the full traceback; the exit code is 1."""
    result = _rules_with_a_bug(monkeypatch, tmp_path, "a bug")
    line = result.output.strip().splitlines()[-1]
    assert "unexpected ZeroDivisionError: a bug" in line
    (written,) = tmp_path.glob("hsim-error-*.txt")
    assert str(written) in line
    assert "Traceback" in written.read_text() and "ZeroDivisionError" in written.read_text()


def test_an_unexpected_errors_odd_bytes_are_written_escaped(monkeypatch, tmp_path):
    """A traceback holding a lone surrogate (a file name in another encoding) is written
    with it escaped, not lost with an empty file left behind."""
    _rules_with_a_bug(monkeypatch, tmp_path, "a bug in /tmp/bot\udcff.py")
    (written,) = tmp_path.glob("hsim-error-*.txt")
    assert "a bug in /tmp/bot\\udcff.py" in written.read_text()


def test_a_player_name_that_is_not_utf8_is_refused_before_anything_is_written(tmp_path):
    """A strategy file whose name's bytes are not UTF-8 cannot be stored in the datasets'
    strategy column: refused as a setting (exit 2), no folder made."""
    bot = tmp_path / "bot\udcff.py"  # the bytes b"bot\xff.py" on a POSIX file system
    bot.write_text("from hsim.strategies.random_bot import STRATEGY as BOT\n")
    argv = ["tournament", "--games", "2", "--no-progress", "--out", str(tmp_path / "run")]
    argv += ["--players", f"random,{bot}:BOT,random,random"]
    done = subprocess.run(
        [sys.executable, "-m", "hsim.cli", *argv], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stderr
    assert "player 1's name" in done.stderr and "not valid UTF-8" in done.stderr
    assert "bot\\xff.py" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_ctrl_c_while_the_command_line_is_imported_exits_130_without_a_traceback():
    """The console script (pyproject's ``hsim``) imports numpy, numba and pyarrow for half a
    second; a Ctrl-C then (here the import raising it) ends as any other Ctrl-C."""
    import tomllib

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    entry = tomllib.loads(pyproject.read_text())["project"]["scripts"]["hsim"]
    module, function = entry.split(":")
    code = textwrap.dedent(
        f"""
        import builtins
        real = builtins.__import__
        def interrupted(name, *args, **kwargs):
            if name == "hsim.cli":
                raise KeyboardInterrupt
            return real(name, *args, **kwargs)
        builtins.__import__ = interrupted
        from {module} import {function}
        {function}()
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "interrupted"
