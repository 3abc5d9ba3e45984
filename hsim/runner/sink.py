"""Turn engine records into Parquet parts, written atomically.

A run folder holds the datasets its ``--record`` mode asks for (``games/``; by default
also ``deals/``; with ``plays`` also ``plays/``), each a set of part files
``part-<first game, 12 digits (more when the run's indices need them)>.parquet``. A part
is written under a dot-prefixed temporary name (which dataset readers skip) and renamed
when complete, so a reader never sees half a file; its row count and sha256 go into the
run's manifest. Columns: :mod:`hsim.runner.columns` (and ``results/README.md``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hsim.engine.layout import (
    D_DEAL,
    D_GAME,
    D_KIND,
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
from hsim.model.seating import game_number, player_of
from hsim.runner import hooks
from hsim.runner.columns import (
    ALL_DATASETS,
    COLUMNS,
    DEFAULT_RECORD,
    RECORD_DATASETS,
    SCHEMA_VERSION,
    SCHEMAS,
    written_schema,
)
from hsim.runner.files import open_new
from hsim.runner.narrow import deal_columns

TMP_PREFIX = ".tmp-"
#: This machine, in temporary part names (letters, digits, '-' and '.' only).
_WRITER = "".join(c if c.isalnum() or c in "-." else "_" for c in socket.gethostname())
#: Columns Parquet dictionary-encodes, per dataset: those it makes smaller (measured on
#: random x4 parts of 2,000 games: deals -13%, games -23% against encoding only strings,
#: seat and deal; and faster to write). The random 52-bit hands gain nothing from it.
ENCODED = {
    "deals": {
        "rotation", "deal", "strategy", "pass_direction", "moon_choice",
        "kind", "trump", "passed", "received", "hearts", "tricks", "points", "deal_score",
        "score",
    },
    # strategy and ended_by too: a string column not dictionary-encoded in Parquet reads
    # back with the values of its part only, in their order (categories differ by part).
    "games": {"place", "score", "strategy", "ended_by"},
    "plays": {
        "rotation", "deal", "trick", "seat", "player", "strategy", "card",
        "leader", "winner",
    },
}  # fmt: skip
#: Columns written as deltas (DELTA_BINARY_PACKED): the game numbers, which rise by 0 or 1
#: row to row. Against dictionary encoding, measured on random x4 parts of 2,000 games:
#: deals 7% faster to write and 1% smaller, games 37% smaller.
DELTA = ("game", "board")
STATISTICS = ["game", "deal", "seat"]

#: The string columns of ``deals`` after ``strategy``, and the names their codes index.
_LABELLED = (PASS_DIRECTIONS, MOON_CHOICES, KIND_NAMES, TRUMP_CHOICES)
_DICTIONARY_COLUMNS = ("strategy", "pass_direction", "moon_choice", "kind", "trump")

DEALS_SCHEMA = SCHEMAS["deals"]
GAMES_SCHEMA = SCHEMAS["games"]
PLAYS_SCHEMA = SCHEMAS["plays"]
_KIERKI_ONLY = [c.name for c in COLUMNS["deals"] if c.game == "Kierki"]
_HEARTS_ONLY = [c.name for c in COLUMNS["deals"] if c.game == "Hearts"]


def _dictionary_of(names: tuple | list) -> tuple[list[str], np.ndarray]:
    """Return (the dictionary, int8 lookup from code to dictionary index) of ``names``.

    The dictionary is every distinct name of ``names`` (not only those used), in order,
    so every part of a run has the same dictionary and pandas the same categories. The
    lookup's last entry (-1: null) is what a code of -1 (none) finds; None names map
    to -1 too.
    """
    values = [n for n in dict.fromkeys(names) if n is not None]
    at = {v: i for i, v in enumerate(values)}
    lookup = np.array([at[n] if n is not None else -1 for n in names] + [-1], np.int8)
    return values, lookup


#: numpy dtypes of the Arrow types the datasets store.
_NUMPY_OF = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.bool_(): np.bool_,
}


def _bits(flags: np.ndarray) -> pa.Buffer:
    return pa.py_buffer(np.packbits(flags, bitorder="little"))


def arrow_array(values: np.ndarray, arrow_type: pa.DataType, nulls=None) -> pa.Array:
    """Return ``values`` (a numpy array of ints or bools) as an Arrow array of
    ``arrow_type`` (int8..int64 or bool), null where ``nulls`` (bool array) is True.

    Built from the buffers, not with ``pa.array``: that imports pandas on first use (about
    0.2 s in every worker process, measured), which a tournament never needs. The
    values are not copied when they already are contiguous and of that type, so they must
    not be a view of a buffer that is written again (pass fresh arrays).
    """
    n = len(values)
    validity = None
    null_count = 0
    if nulls is not None and nulls.any():
        validity = _bits(~nulls)
        null_count = int(nulls.sum())
    if arrow_type == pa.bool_():
        data = _bits(np.asarray(values, np.bool_))
    else:
        data = pa.py_buffer(np.ascontiguousarray(values, _NUMPY_OF[arrow_type]))
    return pa.Array.from_buffers(arrow_type, n, [validity, data], null_count=null_count)


@functools.lru_cache(maxsize=64)
def _strings(values: tuple[str, ...]) -> pa.Array:
    """Return ``values`` as an Arrow string array (a dictionary's values)."""
    return _string_column(np.arange(len(values)), values)


def _string_column(codes: np.ndarray, names: tuple | list) -> pa.Array:
    """Return a plain string array with ``names[code]`` per row, built from buffers (see
    :func:`arrow_array`; a cast of a dictionary array costs ~70 ms of Arrow start-up in
    each process). The rows' bytes are gathered from the names' bytes by numpy, not
    joined one Python object per row."""
    encoded = [n.encode() for n in names]
    name_lengths = np.array([len(b) for b in encoded], np.int64)
    name_starts = np.zeros(len(encoded), np.int64)
    np.cumsum(name_lengths[:-1], out=name_starts[1:])
    lengths = name_lengths[codes]
    offsets = np.zeros(len(codes) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # byte i of the column, in row r: byte i - offsets[r] of the name of code[r]
    source = np.repeat(name_starts[codes] - offsets[:-1], lengths) + np.arange(offsets[-1])
    data = np.frombuffer(b"".join(encoded), np.uint8)[source]
    return pa.Array.from_buffers(
        pa.string(),
        len(codes),
        [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)],
    )


def _dictionary_array(index: np.ndarray, values: list[str]) -> pa.DictionaryArray:
    """Return the dictionary array (type :data:`hsim.runner.columns.STRING`) of int8
    dictionary indices ``index`` (negative: null)."""
    indices = arrow_array(index, pa.int8(), index < 0)
    return pa.DictionaryArray.from_arrays(indices, _strings(tuple(values)))


def _arrow_table(cols: dict, schema: pa.Schema) -> pa.Table:
    """Return the table of ``schema`` from ``cols`` (name -> Arrow array, or a numpy
    array of that field's type: see :func:`arrow_array`)."""
    arrays = [
        cols[f.name] if isinstance(cols[f.name], pa.Array) else arrow_array(cols[f.name], f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(arrays, schema=schema)


def _labels(codes: np.ndarray, names: tuple | list) -> pa.DictionaryArray:
    """Return a dictionary array (type :data:`hsim.runner.columns.STRING`) with
    ``names[code]`` per row; None names and negative codes become nulls
    (:func:`_dictionary_of`).
    """
    values, lookup = _dictionary_of(names)
    return _dictionary_array(lookup[codes], values)


#: Typed null arrays by type, sliced by :func:`_no_values` (grown when too short).
_NULLS: dict[pa.DataType, pa.Array] = {}


def _no_values(column: str, schema: pa.Schema, n: int) -> pa.Array:
    """Return ``n`` typed nulls for a column that does not apply to the game (a string
    column: an empty dictionary, pandas categories none): a slice of an array kept per
    type, not a new one per chunk."""
    arrow_type = schema.field(column).type
    nulls = _NULLS.get(arrow_type)
    if nulls is None or len(nulls) < n:
        nulls = _NULLS[arrow_type] = pa.nulls(max(n, 2 * len(nulls or ())), arrow_type)
    return nulls.slice(0, n)


def _small_ints(codes: np.ndarray, null_below: int) -> pa.Array:
    """Return an int8 array of ``codes`` with nulls where a code is below ``null_below``."""
    return arrow_array(codes.astype(np.int8), pa.int8(), codes < null_below)


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
    dictionaries = [_dictionary_of(names) for names in (strategies, *_LABELLED)]
    players = len(strategies)
    cols = deal_columns(
        rows, rotation, players, players if duplicate else 1, *(d[1] for d in dictionaries)
    )
    cols["rotation"] = np.full(n, rotation, np.int8)
    for name, (values, _) in zip(_DICTIONARY_COLUMNS, dictionaries, strict=True):
        cols[name] = _dictionary_array(cols[name], values)
    if kierki:
        for name, null_below in (("dealer", 0), ("trump_chooser", 0), ("lottery_place", 1)):
            cols[name] = _small_ints(cols[name], null_below)
    for name in _HEARTS_ONLY if kierki else _KIERKI_ONLY:
        cols[name] = _no_values(name, DEALS_SCHEMA, n)
    return _arrow_table(cols, DEALS_SCHEMA)


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
    cols = {  # each a copy: the rows may be a buffer the next chunk reuses
        "game": game.astype(np.int64),
        "board": rows[:, G_GAME].astype(np.int64),
        "rotation": rot,
        "seat": seat.astype(np.int8),
        "player": player,
        "strategy": _labels(player, strategies),
        "scoring": _string_column(rows[:, G_SCORING], scorings),
        "score": rows[:, G_SCORE].astype(np.int32),
        "place": rows[:, G_PLACE].astype(np.int8),
        "winner": rows[:, G_WINNER].astype(bool),
        "deals": rows[:, G_DEALS].astype(np.int16),
        "ended_by": _labels(rows[:, G_ENDED_BY], ENDED_BY),
    }
    return _arrow_table(cols, GAMES_SCHEMA)


def plays_table(
    rows: np.ndarray, strategies: list[str], rotation: int = 0, duplicate: bool = False
) -> pa.Table:
    """Return the ``plays`` table (``--record plays``): one row per card played, from deal
    records with the plays columns (int64[rows, DEAL_COLS + PLAY_SLOTS], written by the
    engine when it is given such rows; :func:`hsim.play.hearts_game.write_plays`), sorted by
    game, deal, play.

    A deal's n rows (one per seat) hold its plays in order: row r the plays
    ``r * PLAY_SLOTS ..`` (:func:`hsim.play.hearts_game.decode_plays` says the encoding). In a
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
    return _arrow_table(
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
    if not isinstance(record, str) or record not in RECORD_DATASETS:
        raise ValueError(f"record is {record!r}, not one of {', '.join(RECORD_DATASETS)}")
    return RECORD_DATASETS[record]


def part_digits(last_game: int) -> int:
    """Return the digits of part names for a run whose last game index is ``last_game``:
    12, or as many as that index needs, so that names sort in game order.
    """
    return max(PART_DIGITS, len(str(max(last_game, 0))))


#: A part's path as run.json and the journal name it: in its dataset's folder, nowhere else.
PART_PATH = re.compile(r"(deals|games|plays)/part-[0-9]+\.parquet")


def is_part_path(rel: object, dataset: str | None = None) -> bool:
    """Return whether ``rel`` (a part entry's ``file``) names a part inside its dataset's
    folder (``deals/part-….parquet``; of ``dataset`` when given): a path that leaves the
    run folder (``../x.parquet``, ``/tmp/x``) is never read."""
    return (
        isinstance(rel, str)
        and PART_PATH.fullmatch(rel) is not None
        and (dataset is None or rel.startswith(f"{dataset}/"))
    )


def part_name(first_game: int, digits: int = PART_DIGITS) -> str:
    """Return the file name of the part whose first game is ``first_game``."""
    return f"part-{first_game:0{digits}d}.parquet"


def file_sha256(path: Path) -> str:
    """Return the hex sha256 of the file at ``path``."""
    digest = hashlib.sha256()
    block = bytearray(1 << 20)  # one buffer read into, not a new bytes object per read
    view = memoryview(block)
    with open(path, "rb", buffering=0) as f:
        while n := f.readinto(block):
            digest.update(view[:n])
    return digest.hexdigest()


def encode_part(dataset: str, table: pa.Table, schema_version: int = SCHEMA_VERSION) -> pa.Buffer:
    """Return ``table`` (rows of ``dataset``) encoded as one Parquet part file, in memory:
    zstd, dictionary encoding and statistics only on the columns that pay for them.
    schema_version: see :func:`write_parts`.
    """
    if schema_version < SCHEMA_VERSION:
        schema = written_schema(table.schema, schema_version)
        table = table.select(schema.names).cast(schema)
    stream = pa.BufferOutputStream()
    pq.write_table(
        table,
        stream,
        compression="zstd",
        # Dictionary-encode and keep statistics only where they pay: the random
        # 52-bit masks cost most of the encoding time and gain nothing from them.
        use_dictionary=[c for c in table.schema.names if c in ENCODED.get(dataset, ())],
        column_encoding={c: "DELTA_BINARY_PACKED" for c in DELTA if c in table.schema.names},
        write_statistics=[c for c in STATISTICS if c in table.schema.names],
    )
    return stream.getvalue()


def write_parts(
    run_dir: Path,
    first_game: int,
    tables: dict[str, pa.Table],
    digits: int = PART_DIGITS,
    schema_version: int = SCHEMA_VERSION,
) -> dict[str, dict]:
    """Write one part per dataset (``{"deals": t, "games": t}``) atomically.

    Each file is written under a temporary dot-name, then every file is renamed.
    schema_version: the run's (``run.json``); a run started by an older hsim gets its
    parts in that schema, as its other parts (schema 5: every column nullable; 4: also
    strings plain; :func:`hsim.runner.columns.written_schema`).
    Returns, per dataset, ``{"file": "deals/part-….parquet", "rows": int, "bytes": int,
    "sha256": hex}`` (the file path relative to ``run_dir``).

    :raises OSError: the disk is full or read-only (no temporary file is left).
    """

    staged = []
    info: dict[str, dict] = {}
    name = part_name(first_game, digits)
    try:
        for dataset, table in tables.items():
            folder = run_dir / dataset
            # Unique across machines: a chunk Dask plays again elsewhere while the first
            # try still runs (a worker thought lost) must not share its temporary file.
            tmp = folder / f"{TMP_PREFIX}{_WRITER}-{os.getpid()}-{name}"
            # Written to memory first: its checksum is taken there, not by reading the
            # file back, and the file gets one write.
            data = encode_part(dataset, table, schema_version)
            staged.append((tmp, folder / name))
            with open_new(tmp, "wb") as f:
                f.write(data)
            info[dataset] = {
                "file": f"{dataset}/{name}",
                "rows": table.num_rows,
                "bytes": data.size,
                "sha256": hashlib.sha256(data).hexdigest(),
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


def foreign_datasets(run_dir: Path, datasets: tuple[str, ...]) -> list[str]:
    """Return the dataset folders of ``run_dir`` (``deals``, ``games``, ``plays``) that
    hold anything (a file or a folder) though the run records no such dataset
    (``datasets``): parts of another run, of this run before its ``record`` was edited, or
    the user's own files. ``hsim verify`` reports them as damage; ``hsim resume`` refuses
    the folder rather than delete them. An empty folder is not listed.
    """
    return [
        d
        for d in ALL_DATASETS
        if d not in datasets and (run_dir / d).is_dir() and any((run_dir / d).iterdir())
    ]


def remove_unlisted(
    run_dir: Path, listed: set[str], datasets: tuple[str, ...] = ALL_DATASETS
) -> list[str]:
    """Delete every file of the ``datasets`` folders (``deals/``, ``games/``, ``plays/``)
    whose relative path (``deals/part-….parquet``) is not in ``listed``; return what was
    deleted. Files in other folders are never touched.

    Used on a run's own folder, under its lock: parts renamed into place but never
    recorded (the run was killed in between) are played again rather than trusted.
    """
    gone = []
    for dataset in datasets:
        folder = run_dir / dataset
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            rel = f"{dataset}/{path.name}"
            if rel not in listed and path.is_file():
                path.unlink(missing_ok=True)
                gone.append(rel)
    return gone
