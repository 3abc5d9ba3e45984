"""Turn engine records into Parquet parts, written atomically.

A run folder holds the datasets its ``--record`` mode asks for (``games/``; by default
also ``deals/``; with ``plays`` also ``plays/``), each a set of part files
``part-<first game, 12 digits (more when the run's indices need them)>.parquet``. A part
is written under a dot-prefixed temporary name (which dataset readers skip) and renamed
when complete, so a reader never sees half a file; its row count and sha256 go into the
run's manifest. Columns: :mod:`hsim.runner.columns` (and ``results/README.md``).
"""

from __future__ import annotations

import hashlib
import os
import socket
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
    DEAL_COLS,
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
    PLAY_SLOTS,
    TRUMP_CHOICES,
)
from hsim.engine.plays import decode_plays
from hsim.runner.columns import (
    ALL_DATASETS,
    COLUMNS,
    DEFAULT_RECORD,
    RECORD_DATASETS,
    SCHEMA_VERSION,
    SCHEMAS,
    plain_strings,
)
from hsim.seating import game_number, player_of

TMP_PREFIX = ".tmp-"
#: This machine, in temporary part names (letters, digits, '-' and '.' only).
_WRITER = "".join(c if c.isalnum() or c in "-." else "_" for c in socket.gethostname())
#: Columns Parquet dictionary-encodes, per dataset: those it makes smaller (measured on
#: random x4 parts of 2,000 games: deals -13%, games -23% against encoding only strings,
#: seat and deal; and faster to write). The random 52-bit hands gain nothing from it.
ENCODED = {
    "deals": {
        "game", "board", "rotation", "deal", "strategy", "pass_direction", "moon_choice",
        "kind", "trump", "passed", "received", "hearts", "tricks", "points", "deal_score",
        "score",
    },
    "games": {"place", "score"},
    "plays": {
        "game", "board", "rotation", "deal", "trick", "seat", "player", "strategy", "card",
        "leader", "winner",
    },
}  # fmt: skip
STATISTICS = ["game", "deal", "seat"]

DEALS_SCHEMA = SCHEMAS["deals"]
GAMES_SCHEMA = SCHEMAS["games"]
PLAYS_SCHEMA = SCHEMAS["plays"]
_KIERKI_ONLY = [c.name for c in COLUMNS["deals"] if c.game == "Kierki"]
_HEARTS_ONLY = [c.name for c in COLUMNS["deals"] if c.game == "Hearts"]


def _labels(codes: np.ndarray, names: tuple | list) -> pa.DictionaryArray:
    """Return a dictionary array (type :data:`hsim.runner.columns.STRING`) with
    ``names[code]`` per row; None names and negative codes become nulls.

    The dictionary is every distinct name of ``names`` (not only those used), in order,
    so every part of a run has the same dictionary and pandas the same categories.
    """
    values = [n for n in dict.fromkeys(names) if n is not None]
    at = {v: i for i, v in enumerate(values)}
    # The trailing -1 is what a code of -1 (none) looks up.
    lookup = np.array([at[n] if n is not None else -1 for n in names] + [-1], np.int8)
    index = lookup[codes]
    nulls = index < 0
    indices = pa.array(index, pa.int8(), mask=nulls if nulls.any() else None)
    return pa.DictionaryArray.from_arrays(indices, pa.array(values, pa.string()))


def _no_values(column: str, schema: pa.Schema, n: int) -> pa.Array:
    """Return ``n`` typed nulls for a column that does not apply to the game (a string
    column: an empty dictionary, pandas categories none)."""
    return pa.nulls(n, schema.field(column).type)


def _small_ints(codes: np.ndarray, null_below: int) -> pa.Array:
    """Return an int8 array of ``codes`` with nulls where a code is below ``null_below``."""
    nulls = codes < null_below
    return pa.array(codes.astype(np.int8), pa.int8(), mask=nulls if nulls.any() else None)


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
    rows: np.ndarray,
    strategies: list[str],
    rotation: int = 0,
    duplicate: bool = False,
    kierki: bool | None = None,
) -> pa.Table:
    """Return the ``deals`` table of int64 deal records (D_* columns), one row per seat.

    rows: int64[rows, >= DEAL_COLS] (columns past DEAL_COLS, the plays of
    ``--record plays``, are not read). strategies: the player specs, indexed by player (one
    per seat). rotation, duplicate: see :func:`seating`. kierki: the rows are Kierki's
    (default: read from the rows' deal kind); the other game's columns are typed nulls
    (``results/README.md``).
    """
    n = len(rows)
    if kierki is None:
        kierki = bool(n) and rows[0, D_KIND] >= 0
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
        "hand": rows[:, D_HAND],
        "passed": rows[:, D_PASSED],
        "received": rows[:, D_RECEIVED],
        "hearts": rows[:, D_HEARTS].astype(np.int8),
        "queen_spades": rows[:, D_QUEEN_SPADES].astype(bool),
        "jack_diamonds": rows[:, D_JACK_DIAMONDS].astype(bool),
        "tricks": rows[:, D_TRICKS].astype(np.int8),
        "points": rows[:, D_POINTS].astype(np.int16),
        "moon": rows[:, D_MOON].astype(bool),
        "deal_score": rows[:, D_DEAL_SCORE].astype(np.int16),
        "score": rows[:, D_SCORE].astype(np.int32),
        "after_end": rows[:, D_AFTER_END].astype(bool),
    }
    if kierki:
        cols["kind"] = _labels(rows[:, D_KIND], KIND_NAMES)
        cols["dealer"] = _small_ints(rows[:, D_DEALER], 0)
        cols["trump"] = _labels(rows[:, D_TRUMP], TRUMP_CHOICES)
        cols["trump_chooser"] = _small_ints(rows[:, D_TRUMP_CHOOSER], 0)
        cols["lottery_place"] = _small_ints(rows[:, D_LOTTERY_PLACE], 1)
    else:
        cols["pass_direction"] = _labels(rows[:, D_PASS_DIR], PASS_DIRECTIONS)
        cols["moon_choice"] = _labels(rows[:, D_MOON_CHOICE], MOON_CHOICES)
    for name in _HEARTS_ONLY if kierki else _KIERKI_ONLY:
        cols[name] = _no_values(name, DEALS_SCHEMA, n)
    return pa.table({f.name: cols[f.name] for f in DEALS_SCHEMA}, schema=DEALS_SCHEMA)


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
    if len(scorings) > 1:  # the engine writes a scoring's rows when its game ends
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
        "scoring": _labels(rows[:, G_SCORING], scorings).cast(pa.string()),
        "score": rows[:, G_SCORE].astype(np.int32),
        "place": rows[:, G_PLACE].astype(np.int8),
        "winner": rows[:, G_WINNER].astype(bool),
        "deals": rows[:, G_DEALS].astype(np.int16),
        "ended_by": _labels(rows[:, G_ENDED_BY], ENDED_BY),
    }
    return pa.table(cols, schema=GAMES_SCHEMA)


def plays_table(
    rows: np.ndarray, strategies: list[str], rotation: int = 0, duplicate: bool = False
) -> pa.Table:
    """Return the ``plays`` table (``--record plays``): one row per card played, from deal
    records with the plays columns (int64[rows, DEAL_COLS + PLAY_SLOTS], written by the
    engine when it is given such rows; :func:`hsim.engine.game.write_plays`), sorted by
    game, deal, play.

    A deal's n rows (one per seat) hold its plays in order: row r the plays
    ``r * PLAY_SLOTS ..`` (:func:`hsim.engine.game.decode_plays` says the encoding). In a
    Kierki lottery deal (no tricks, B4) ``trick``, ``position``, ``leader`` and ``winner``
    are null.

    :raises ValueError: ``rows`` has no plays columns.
    """
    if rows.shape[1] < DEAL_COLS + PLAY_SLOTS:
        raise ValueError("these deal rows were played without --record plays: no plays")
    n = len(strategies)
    firsts = rows[::n]
    slots = rows[:, DEAL_COLS : DEAL_COLS + PLAY_SLOTS].reshape(len(firsts), n * PLAY_SLOTS)
    # About 52 rows a deal: narrow arrays early, and the wide ones freed once read.
    deal_at, play = np.nonzero(slots >= 0)
    code = slots[deal_at, play]
    del slots
    play = play.astype(np.int8)
    card, seat, trick, leader, winner = decode_plays(code)
    del code
    deal = firsts[deal_at, D_DEAL].astype(np.int16)
    board = firsts[deal_at, D_GAME]
    del deal_at
    game, rot, player = seating(board, seat, rotation, duplicate, n)
    position = np.where(trick < 0, -1, (seat - leader) % n).astype(np.int8)
    return pa.table(
        {
            "game": game,
            "board": board,
            "rotation": rot,
            "deal": deal,
            "play": play,
            "trick": _small_ints(trick, 0),
            "position": _small_ints(position, 0),
            "seat": seat,
            "player": player,
            "strategy": _labels(player, strategies),
            "card": card,
            "leader": _small_ints(leader, 0),
            "winner": _small_ints(winner, 0),
        },
        schema=PLAYS_SCHEMA,
    )


PART_DIGITS = 12
#: The datasets of a run recorded with the default ``--record deals``.
DATASETS = ("deals", "games")


def datasets_of(manifest: dict) -> tuple[str, ...]:
    """Return the datasets a run writes, from its ``run.json`` ``record`` (``games``:
    games only; ``deals``, the default and what a run.json without it means: deals and
    games; ``plays``: deals, games and plays).

    :raises ValueError: ``record`` is not one of ``games``, ``deals``, ``plays``.
    """
    record = manifest.get("record", DEFAULT_RECORD)
    if record not in RECORD_DATASETS:
        raise ValueError(f"record is {record!r}, not one of {', '.join(RECORD_DATASETS)}")
    return RECORD_DATASETS[record]


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
    schema_version: int = SCHEMA_VERSION,
) -> dict[str, dict]:
    """Write one part per dataset (``{"deals": t, "games": t}``) atomically.

    Each file is written under a temporary dot-name, then every file is renamed.
    schema_version: the run's (``run.json``); a run started by an hsim of schema 4 gets
    its strings plain, as its other parts (:func:`hsim.runner.columns.plain_strings`).
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
            # Unique across machines: a chunk Dask plays again elsewhere while the first
            # try still runs (a worker thought lost) must not share its temporary file.
            tmp = folder / f"{TMP_PREFIX}{_WRITER}-{os.getpid()}-{name}"
            encoded = [c for c in table.schema.names if c in ENCODED.get(dataset, ())]
            if schema_version < SCHEMA_VERSION:
                table = table.cast(plain_strings(table.schema))
            pq.write_table(
                table,
                tmp,
                compression="zstd",
                # Dictionary-encode and keep statistics only where they pay: the random
                # 52-bit masks cost most of the encoding time and gain nothing from them.
                use_dictionary=encoded,
                write_statistics=[c for c in STATISTICS if c in table.schema.names],
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
    for dataset in ALL_DATASETS:
        folder = run_dir / dataset
        if not folder.is_dir():
            continue
        for path in folder.glob(TMP_PREFIX + "*"):
            path.unlink(missing_ok=True)
            n += 1
    return n


def remove_unlisted(run_dir: Path, listed: set[str]) -> list[str]:
    """Delete every file of ``deals/``, ``games/`` and ``plays/`` whose relative path
    (``deals/part-….parquet``) is not in ``listed``; return what was deleted.

    Used on a run's own folder, under its lock: parts renamed into place but never
    recorded (the run was killed in between) are played again rather than trusted.
    """
    gone = []
    for dataset in ALL_DATASETS:
        folder = run_dir / dataset
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            rel = f"{dataset}/{path.name}"
            if rel not in listed and path.is_file():
                path.unlink(missing_ok=True)
                gone.append(rel)
    return gone
