"""Write a large run folder fast, straight with pyarrow (no games played), for tests of
analysis in bounded memory.

The datasets have hsim's schemas (``hsim.runner.sink``) and hsim's layout (parts of
whole games, rows sorted by game, deal, seat); the deals are random but well formed: 13
hearts and the QS taken per deal, a moon when one seat took all 26 points, 13 tricks,
one JD taker, running scores, pass directions in hsim's cycle. The games rows hold each
game's final scores, places and winners (the lowest score wins, ties share). Every
game has the same number of deals, so the figures of a report can be computed from the
arrays with numpy alone (:func:`expected`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hsim.model.rules import Rules, canonical
from hsim.runner.columns import written_schema
from hsim.runner.sink import DEALS_SCHEMA, GAMES_SCHEMA, _labels, part_name

PLAYERS = ("random", "lowcard", "random", "lowcard")
DIRECTIONS = ("left", "right", "across", "hold")


def deal_arrays(games: int, deals: int, seed: int) -> dict[str, np.ndarray]:
    """Return per-deal facts as arrays of shape (games, deals, 4)."""
    rng = np.random.default_rng(seed)
    shape = (games, deals)
    hearts = np.zeros((*shape, 4), np.int16)
    taker = rng.integers(0, 4, size=(*shape, 13))
    # One seat in 64 deals takes every heart and the QS: a moon.
    moon_seat = np.where(rng.random(shape) < 1 / 64, rng.integers(0, 4, shape), -1)
    taker = np.where(moon_seat[..., None] >= 0, moon_seat[..., None], taker)
    for s in range(4):
        hearts[..., s] = (taker == s).sum(axis=-1)
    queen = np.where(moon_seat >= 0, moon_seat, rng.integers(0, 4, shape))
    points = hearts + 13 * (queen[..., None] == np.arange(4))
    moon = points == 26
    deal_score = np.where(moon.any(axis=-1, keepdims=True), np.where(moon, 0, 26), points)
    tricks = rng.multinomial(13, [0.25] * 4, size=shape).astype(np.int8)
    jack = rng.integers(0, 4, shape)
    score = np.cumsum(deal_score, axis=1)
    return {
        "hearts": hearts.astype(np.int8),
        "queen": queen,
        "points": points.astype(np.int16),
        "moon": moon,
        "deal_score": deal_score.astype(np.int16),
        "tricks": tricks,
        "jack": jack,
        "score": score.astype(np.int32),
    }


def write_run(path: Path, games: int, deals: int = 10, games_per_part: int = 2000,
              seed: int = 1) -> dict[str, np.ndarray]:  # fmt: skip
    """Write run folder ``path`` of ``games`` games of ``deals`` deals each; return the
    arrays written (see :func:`deal_arrays`, plus ``final``, ``place``, ``winner``)."""
    path.mkdir(parents=True)
    (path / "deals").mkdir()
    (path / "games").mkdir()
    facts = {k: [] for k in ("points", "moon", "deal_score", "score", "jack", "final")}
    for first in range(0, games, games_per_part):
        n = min(games_per_part, games - first)
        a = deal_arrays(n, deals, seed * 1_000_003 + first)
        _write_part(path, first, n, deals, a)
        for k in ("points", "moon", "deal_score", "score", "jack"):
            facts[k].append(a[k])
        facts["final"].append(a["score"][:, -1, :])
    out = {k: np.concatenate(v) for k, v in facts.items()}
    final = out["final"]
    out["place"] = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)
    out["winner"] = final == final.min(axis=1, keepdims=True)
    (path / "run.json").write_text(json.dumps(manifest(games, seed)))
    return out


def manifest(games: int, seed: int = 1, rules: Rules | None = None) -> dict:
    """Return a ``run.json`` with the fields hsim checks when it opens a run."""
    rules = rules or Rules()
    return {
        "schema_version": 4,
        "seed_scheme": 1,
        "status": "complete",
        "rules": {"string": canonical(rules), "preset": "classic", "options": rules.to_dict()},
        "players": [{"spec": p} for p in PLAYERS[: rules.players]],
        "seed": seed,
        "first_game": 0,
        "games": games,
        "duplicate": False,
    }


def _write_part(path: Path, first: int, n: int, deals: int, a: dict) -> None:
    rows = n * deals * 4
    game = np.repeat(np.arange(first, first + n, dtype=np.int64), deals * 4)
    deal = np.tile(np.repeat(np.arange(deals, dtype=np.int16), 4), n)
    seat = np.tile(np.arange(4, dtype=np.int8), n * deals)
    zeros = np.zeros(rows, np.int64)
    flat_moon = a["moon"].reshape(-1)
    nulls8 = pa.nulls(rows, pa.int8())
    cols = {
        "game": game,
        "board": game,
        "rotation": np.zeros(rows, np.int8),
        "deal": deal,
        "seat": seat,
        "player": seat,
        "strategy": _labels(seat, PLAYERS),
        "pass_direction": _labels(deal % 4, DIRECTIONS),
        "hand": zeros,
        "passed": zeros,
        "received": zeros,
        "hearts": a["hearts"].reshape(-1),
        "queen_spades": (a["queen"][..., None] == np.arange(4)).reshape(-1),
        "jack_diamonds": (a["jack"][..., None] == np.arange(4)).reshape(-1),
        "tricks": a["tricks"].reshape(-1),
        "points": a["points"].reshape(-1),
        "moon": flat_moon,
        "moon_choice": _labels(np.where(flat_moon, 0, -1), ["add"]),
        "deal_score": a["deal_score"].reshape(-1),
        "score": a["score"].reshape(-1),
        "after_end": np.zeros(rows, bool),
        "kind": pa.nulls(rows, pa.string()),
        "dealer": nulls8,
        "trump": pa.nulls(rows, pa.string()),
        "trump_chooser": nulls8,
        "lottery_place": nulls8,
    }
    pq.write_table(_schema4(cols, DEALS_SCHEMA), path / "deals" / part_name(first))
    final = a["score"][:, -1, :]
    place = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)
    g = np.repeat(np.arange(first, first + n, dtype=np.int64), 4)
    gseat = np.tile(np.arange(4, dtype=np.int8), n)
    games = {
        "game": g,
        "board": g,
        "rotation": np.zeros(len(g), np.int8),
        "seat": gseat,
        "player": gseat,
        "strategy": _labels(gseat, PLAYERS),
        "scoring": _labels(np.zeros(len(g), np.int64), ["base"]),
        "score": final.reshape(-1).astype(np.int32),
        "place": place.reshape(-1).astype(np.int8),
        "winner": (final == final.min(axis=1, keepdims=True)).reshape(-1),
        "deals": np.full(len(g), deals, np.int16),
        "ended_by": _labels(np.zeros(len(g), np.int64), ["end_score"]),
    }
    pq.write_table(_schema4(games, GAMES_SCHEMA), path / "games" / part_name(first))


def _schema4(cols: dict, schema: pa.Schema) -> pa.Table:
    """Return ``cols`` as a table of schema version 4 (strings plain, not dictionaries):
    the synthetic run stands for a run written before schema 5, which hsim still reads."""
    plain = {k: v.cast(pa.string()) if isinstance(v, pa.DictionaryArray) else v
             for k, v in cols.items()}  # fmt: skip
    return pa.table(plain, schema=written_schema(schema, 4))
