"""Turn engine records into Parquet parts, written atomically.

A run folder holds two datasets, ``deals/`` and ``games/``, each a set of part files
``part-<first game, 12 digits (more when the run's indices need them)>.parquet``. A part
is written under a dot-prefixed temporary name (which dataset readers skip) and renamed
when complete, so a reader never sees half a file; its row count and sha256 go into the
run's manifest. Column meanings: ``results/README.md``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hsim.engine.layout import (
    D_AFTER_END,
    D_DEAL,
    D_DEAL_SCORE,
    D_DEALER,
    D_GAME,
    D_HAND,
    D_HEARTS,
    D_JACK_DIAMONDS,
    D_KIND,
    D_LOTTERY_PLACE,
    D_MOON,
    D_MOON_CHOICE,
    D_PASS_DIR,
    D_PASSED,
    D_POINTS,
    D_QUEEN_SPADES,
    D_RECEIVED,
    D_SCORE,
    D_SEAT,
    D_TRICKS,
    D_TRUMP,
    D_TRUMP_CHOOSER,
    ENDED_BY,
    G_DEALS,
    G_ENDED_BY,
    G_GAME,
    G_PLACE,
    G_SCORE,
    G_SCORING,
    G_SEAT,
    G_WINNER,
    KIND_NAMES,
    MOON_CHOICES,
    PASS_DIRECTIONS,
    TRUMP_CHOICES,
)
from hsim.seating import game_number, player_of

SCHEMA_VERSION = 4
TMP_PREFIX = ".tmp-"
LOW_CARDINALITY = {
    "strategy",
    "pass_direction",
    "moon_choice",
    "ended_by",
    "seat",
    "deal",
    "scoring",
    "kind",
    "trump",
}

DEALS_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("board", pa.int64()),
        ("rotation", pa.int8()),
        ("deal", pa.int16()),
        ("seat", pa.int8()),
        ("player", pa.int8()),
        ("strategy", pa.string()),
        ("pass_direction", pa.string()),
        ("hand", pa.int64()),
        ("passed", pa.int64()),
        ("received", pa.int64()),
        ("hearts", pa.int8()),
        ("queen_spades", pa.bool_()),
        ("jack_diamonds", pa.bool_()),
        ("tricks", pa.int8()),
        ("points", pa.int16()),
        ("moon", pa.bool_()),
        ("moon_choice", pa.string()),
        ("deal_score", pa.int16()),
        ("score", pa.int32()),
        ("after_end", pa.bool_()),
        ("kind", pa.string()),
        ("dealer", pa.int8()),
        ("trump", pa.string()),
        ("trump_chooser", pa.int8()),
        ("lottery_place", pa.int8()),
    ]
)

GAMES_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("board", pa.int64()),
        ("rotation", pa.int8()),
        ("seat", pa.int8()),
        ("player", pa.int8()),
        ("strategy", pa.string()),
        ("scoring", pa.string()),
        ("score", pa.int32()),
        ("place", pa.int8()),
        ("winner", pa.bool_()),
        ("deals", pa.int16()),
        ("ended_by", pa.string()),
    ]
)


def _labels(codes: np.ndarray, names: tuple | list) -> pa.Array:
    """Return a string array with ``names[code]`` per row (None names and negative codes
    become nulls).
    """
    dictionary = pa.array(list(names), pa.string())
    indices = pa.array(codes, pa.int32(), mask=np.asarray(codes) < 0)
    return pa.DictionaryArray.from_arrays(indices, dictionary).cast(pa.string())


def _small_ints(codes: np.ndarray, null_below: int) -> pa.Array:
    """Return an int8 array of ``codes`` with nulls where a code is below ``null_below``."""
    return pa.array(codes.astype(np.int8), pa.int8(), mask=codes < null_below)


def seating(board: np.ndarray, seat: np.ndarray, rotation: int, duplicate: bool, n: int = 4):
    """Return (game, rotation, player) columns for rows played as ``board`` (engine game).

    n: seats (4; 3-player Kierki 3). Duplicate play (every board once per rotation r)
    numbers game ``n * board + r`` and seats player ``(seat + r) % n``; otherwise game =
    board, rotation 0, player = seat.
    """
    rot = np.full(len(board), rotation, np.int8)
    game = game_number(board, rotation, n if duplicate else 1)
    return game, rot, player_of(seat, rotation, n).astype(np.int8)


def deals_table(
    rows: np.ndarray, strategies: list[str], rotation: int = 0, duplicate: bool = False
) -> pa.Table:
    """Return the ``deals`` table of int64 deal records (D_* columns), one row per seat.

    strategies: the player specs, indexed by player (one per seat). rotation, duplicate:
    see :func:`seating`.
    """
    seat = rows[:, D_SEAT]
    game, rot, player = seating(rows[:, D_GAME], seat, rotation, duplicate, len(strategies))
    cols = {
        "game": game,
        "board": rows[:, D_GAME],
        "rotation": rot,
        "deal": rows[:, D_DEAL].astype(np.int16),
        "seat": seat.astype(np.int8),
        "player": player,
        "strategy": _labels(player, strategies),
        "pass_direction": _labels(rows[:, D_PASS_DIR], PASS_DIRECTIONS),
        "hand": rows[:, D_HAND],
        "passed": rows[:, D_PASSED],
        "received": rows[:, D_RECEIVED],
        "hearts": rows[:, D_HEARTS].astype(np.int8),
        "queen_spades": rows[:, D_QUEEN_SPADES].astype(bool),
        "jack_diamonds": rows[:, D_JACK_DIAMONDS].astype(bool),
        "tricks": rows[:, D_TRICKS].astype(np.int8),
        "points": rows[:, D_POINTS].astype(np.int16),
        "moon": rows[:, D_MOON].astype(bool),
        "moon_choice": _labels(rows[:, D_MOON_CHOICE], MOON_CHOICES),
        "deal_score": rows[:, D_DEAL_SCORE].astype(np.int16),
        "score": rows[:, D_SCORE].astype(np.int32),
        "after_end": rows[:, D_AFTER_END].astype(bool),
        "kind": _labels(rows[:, D_KIND], KIND_NAMES),
        "dealer": _small_ints(rows[:, D_DEALER], 0),
        "trump": _labels(rows[:, D_TRUMP], TRUMP_CHOICES),
        "trump_chooser": _small_ints(rows[:, D_TRUMP_CHOOSER], 0),
        "lottery_place": _small_ints(rows[:, D_LOTTERY_PLACE], 1),
    }
    return pa.table(cols, schema=DEALS_SCHEMA)


def games_table(
    rows: np.ndarray,
    strategies: list[str],
    rotation: int = 0,
    duplicate: bool = False,
    scorings: list[str] = ("base",),
) -> pa.Table:
    """Return the ``games`` table of int64 game records (G_* columns), one row per seat
    per scoring, sorted by game, scoring, seat.

    scorings: the scoring names by index: ``base`` then each ``--score-also`` rules string.
    """
    rows = rows[np.lexsort((rows[:, G_SEAT], rows[:, G_SCORING], rows[:, G_GAME]))]
    seat = rows[:, G_SEAT]
    game, rot, player = seating(rows[:, G_GAME], seat, rotation, duplicate, len(strategies))
    cols = {
        "game": game,
        "board": rows[:, G_GAME],
        "rotation": rot,
        "seat": seat.astype(np.int8),
        "player": player,
        "strategy": _labels(player, strategies),
        "scoring": _labels(rows[:, G_SCORING], scorings),
        "score": rows[:, G_SCORE].astype(np.int32),
        "place": rows[:, G_PLACE].astype(np.int8),
        "winner": rows[:, G_WINNER].astype(bool),
        "deals": rows[:, G_DEALS].astype(np.int16),
        "ended_by": _labels(rows[:, G_ENDED_BY], ENDED_BY),
    }
    return pa.table(cols, schema=GAMES_SCHEMA)


PART_DIGITS = 12
DATASETS = ("deals", "games")


def part_digits(last_game: int) -> int:
    """Return the digits of part names for a run whose last game index is ``last_game``:
    12, or as many as that index needs, so that names sort in game order.
    """
    return max(PART_DIGITS, len(str(max(last_game, 0))))


def part_name(first_game: int, digits: int = PART_DIGITS) -> str:
    """Return the file name of the part whose first game is ``first_game``."""
    return f"part-{first_game:0{digits}d}.parquet"


def file_sha256(path: Path) -> str:
    """Return the hex sha256 of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def write_parts(
    run_dir: Path,
    first_game: int,
    tables: dict[str, pa.Table],
    digits: int = PART_DIGITS,
) -> dict[str, dict]:
    """Write one part per dataset (``{"deals": t, "games": t}``) atomically.

    Each file is written under a temporary dot-name, then every file is renamed.
    Returns, per dataset, ``{"file": "deals/part-….parquet", "rows": int, "bytes": int,
    "sha256": hex}`` (the file path relative to ``run_dir``).

    :raises OSError: the disk is full or read-only (no temporary file is left).
    """
    from hsim.runner import hooks

    staged = []
    info: dict[str, dict] = {}
    name = part_name(first_game, digits)
    try:
        for dataset, table in tables.items():
            folder = run_dir / dataset
            tmp = folder / f"{TMP_PREFIX}{os.getpid()}-{name}"
            pq.write_table(
                table,
                tmp,
                compression="zstd",
                # Dictionary-encode and keep statistics only where they pay: the random
                # 52-bit masks cost most of the encoding time and gain nothing from them.
                use_dictionary=[f.name for f in table.schema if f.name in LOW_CARDINALITY],
                write_statistics=["game", "deal", "seat"],
            )
            staged.append((tmp, folder / name))
            info[dataset] = {
                "file": f"{dataset}/{name}",
                "rows": table.num_rows,
                "bytes": tmp.stat().st_size,
                "sha256": file_sha256(tmp),
            }
        for k, (tmp, final) in enumerate(staged):
            if k:
                hooks.pause("rename", first_game)
            os.replace(tmp, final)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
    return info


def remove_temporary(run_dir: Path) -> int:
    """Delete leftover temporary part files of an interrupted run; return how many."""
    n = 0
    for dataset in DATASETS:
        folder = run_dir / dataset
        if not folder.is_dir():
            continue
        for path in folder.glob(TMP_PREFIX + "*"):
            path.unlink(missing_ok=True)
            n += 1
    return n


def remove_unlisted(run_dir: Path, listed: set[str]) -> list[str]:
    """Delete every file of ``deals/`` and ``games/`` whose relative path
    (``deals/part-….parquet``) is not in ``listed``; return what was deleted.

    Used on a run's own folder, under its lock: parts renamed into place but never
    recorded (the run was killed in between) are played again rather than trusted.
    """
    gone = []
    for dataset in DATASETS:
        folder = run_dir / dataset
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            rel = f"{dataset}/{path.name}"
            if rel not in listed and path.is_file():
                path.unlink(missing_ok=True)
                gone.append(rel)
    return gone
