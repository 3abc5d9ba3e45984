"""Read run folders in bounded memory: only the columns asked for, whole games at a time.

A run's datasets (``deals/``, ``games/``) are sets of Parquet part files, each holding
whole games, rows sorted by game (``results/README.md``). :func:`game_batches` reads
them as pyarrow tables of about ``rows`` rows that never split a game, in game order, so
anything that needs a game's rows together (clustered intervals, re-scoring, joining two
runs seat by seat) can work one batch at a time whatever the size of the run;
:func:`aligned` pairs the batches of two datasets (a run's deals and games, or the games
of two runs of the same seeds) game by game.

:func:`open_run` is the one entry point that opens a run folder for analysis: the
report, compare-rules and the pandas :func:`hsim.analysis.load_run` all start there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hsim.errors import ManifestError, RunFolderError
from hsim.model.rules import Rules
from hsim.runner.config import load_manifest
from hsim.runner.lock import unsafe_entries
from hsim.runner.verify import without_deals

#: Rows per batch: a quarter of a million rows of a dozen narrow columns are a few MB.
BATCH_ROWS = 1 << 18
DATASETS = ("deals", "games")


@dataclasses.dataclass
class RunFolder:
    """A run folder opened for analysis (nothing read but ``run.json`` and file footers).

    path: the folder. manifest: ``run.json``. rules: the rules it was played under.
    files: per dataset (``deals``, ``games``), its part files in game order.
    schemas: per dataset, the pyarrow schema of its parts (None when it has no part).
    rows: per dataset, its number of rows (from the parts' footers).
    """

    path: Path
    manifest: dict[str, Any]
    rules: Rules
    files: dict[str, list[Path]]
    schemas: dict[str, pa.Schema | None]
    rows: dict[str, int] = dataclasses.field(default_factory=dict)
    #: The footer of each part file, read when the folder was opened (so that reading
    #: a part does not parse it again).
    footers: dict[Path, pq.FileMetaData] = dataclasses.field(default_factory=dict)

    def columns(self, dataset: str) -> list[str]:
        """Return the column names of ``dataset`` (empty when it has no part)."""
        schema = self.schemas[dataset]
        return [] if schema is None else list(schema.names)

    def batches(
        self, dataset: str, columns: Iterable[str] | None = None, rows: int = BATCH_ROWS
    ) -> Iterator[pa.Table]:
        """Yield ``dataset``'s rows as tables of whole games, in game order (see
        :func:`game_batches`); ``columns`` not in the dataset are skipped."""
        have = self.columns(dataset)
        cols = None if columns is None else [c for c in dict.fromkeys(columns) if c in have]
        return game_batches(self.files[dataset], cols, rows, self.footers)


def open_run(run_dir) -> RunFolder:
    """Open run folder ``run_dir`` for analysis: read ``run.json`` and list its parts.

    Every analysis of a run folder (``hsim report``, ``hsim compare-rules``,
    :func:`hsim.analysis.load_run`) opens it here, so checks of a run's state belong here.

    :raises RunFolderError: no ``run.json`` (not a run folder), a ``run.json`` that is
        not JSON or has a bad field (:func:`hsim.runner.config.load_manifest`), no
        ``deals`` or ``games`` dataset (a run recorded with ``--record games`` is refused,
        saying so), or a part file that is not readable Parquet.
    """

    path = Path(run_dir)
    try:
        manifest, rules = load_manifest(path)
    except ManifestError as exc:
        raise RunFolderError(str(exc)) from None
    files: dict[str, list[Path]] = {}
    schemas: dict[str, pa.Schema | None] = {}
    rows: dict[str, int] = {}
    footers: dict[Path, pq.FileMetaData] = {}

    reason = without_deals(path, manifest)
    if reason:
        raise RunFolderError(reason)
    unsafe = [u for u in unsafe_entries(path) if " is a link" in u or "not a folder" in u]
    if unsafe:  # a link would have hsim read outside the folder it was given
        raise RunFolderError(
            f"{path}: {'; '.join(unsafe[:3])}; hsim reads only the run folder's own files "
            "(replace the links by what they point to)"
        )
    for name in DATASETS:
        folder = path / name
        if not folder.is_dir():
            raise RunFolderError(f"{path}: no {name} dataset ({folder} is missing)")
        files[name], schemas[name], rows[name] = _parts(folder, footers)
    return RunFolder(path, manifest, rules, files, schemas, rows, footers)


def _parts(folder: Path, footers: dict | None = None) -> tuple[list[Path], pa.Schema | None, int]:
    """Return the part files of a dataset folder in game order, their schema and rows;
    each part's footer is put in ``footers`` (when given)."""
    found = sorted(p for p in folder.iterdir() if p.suffix == ".parquet" and p.name[0] != ".")
    keyed = []
    schema = None
    rows = 0
    for p in found:
        try:
            meta = pq.read_metadata(p)
        except (OSError, pa.ArrowException) as exc:
            raise RunFolderError(f"{p} is not a readable Parquet file ({exc})") from None
        if schema is None:
            schema = meta.schema.to_arrow_schema()
        rows += meta.num_rows
        if footers is not None:
            footers[p] = meta
        keyed.append((_first_game(meta), p.name, p))
    keyed.sort(key=lambda k: (k[0] is None, k[0] if k[0] is not None else 0, k[1]))
    return [p for _, _, p in keyed], schema, rows


def _first_game(meta: pq.FileMetaData) -> int | None:
    """Return the smallest ``game`` in a part from its statistics (None if unknown)."""
    names = meta.schema.to_arrow_schema().names
    if "game" not in names or meta.num_row_groups == 0:
        return None
    i = names.index("game")
    lows = []
    for r in range(meta.num_row_groups):
        stats = meta.row_group(r).column(i).statistics
        if stats is None or not stats.has_min_max:
            return None
        lows.append(stats.min)
    return int(min(lows))


def game_batches(
    files: list[Path],
    columns: list[str] | None = None,
    rows: int = BATCH_ROWS,
    footers: dict[Path, pq.FileMetaData] | None = None,
) -> Iterator[pa.Table]:
    """Yield the rows of part ``files`` as tables of about ``rows`` rows each, every game
    whole in one table, tables in game order (rows within a game as stored).

    files: part files in game order (as :class:`RunFolder` lists them); their rows sorted
    by game (hsim writes them so; a part that is not is sorted in memory, which is bounded
    by the size of that part). columns: the columns to read (``game`` is always read).
    footers: the parts' footers already read (:attr:`RunFolder.footers`), if any.
    Memory: about two batches and one Parquet row group at a time.

    :raises RunFolderError: two parts hold rows of the same games out of order (parts
        that overlap: a damaged run).
    """
    cols = None if columns is None else list(dict.fromkeys(["game", *columns]))
    pending: list[pa.Table] = []
    held = 0
    last = None  # the largest game read so far
    for path in files:
        for table in _sorted_part(path, cols, rows, (footers or {}).get(path)):
            if not len(table):
                continue
            game = table.column("game")
            low = game[0].as_py()
            if last is not None and low < last:
                raise RunFolderError(
                    f"{path} holds game {low}, which comes before games already read from "
                    "other parts: its parts overlap; the run folder is damaged"
                )
            last = game[len(game) - 1].as_py()
            pending.append(table)
            held += len(table)
            if held >= rows:
                whole = _concat(pending)
                g = whole.column("game").to_numpy()
                cut = int(np.searchsorted(g, g[-1], side="left"))
                if cut:
                    yield whole.slice(0, cut)
                    rest = whole.slice(cut)
                    pending, held = [rest], len(rest)
                else:  # one game larger than a batch: keep reading
                    pending, held = [whole], len(whole)
    if held:
        yield _concat(pending)


def _concat(tables: list[pa.Table]) -> pa.Table:
    """Concatenate tables read from parts: as read when their schemas agree (the parts
    of one hsim version), else each in :func:`_common_form` first."""
    first = tables[0].schema
    if all(t.schema.equals(first) for t in tables[1:]):
        return tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    return pa.concat_tables([_common_form(t) for t in tables])


def _common_form(table: pa.Table) -> pa.Table:
    """Return ``table`` in the one form parts of different schemas are joined in: each
    dictionary column's indices int32 (what the plain strings of a schema-4 part read as,
    ``read_dictionary``; schema 5 stores int8 indices) and every column nullable (schema 6
    stores the never-null columns as required), so that the parts of a run holding
    several schemas concatenate.
    """
    fields = list(table.schema)
    common = [
        pa.field(
            f.name,
            pa.dictionary(pa.int32(), f.type.value_type)
            if pa.types.is_dictionary(f.type)
            else f.type,
            True,
        )
        for f in fields
    ]
    if common == fields:
        return table
    schema = pa.schema(common, metadata=table.schema.metadata)
    if any(a.type != b.type for a, b in zip(common, fields, strict=True)):
        return table.cast(schema)
    return pa.Table.from_arrays(table.columns, schema=schema)


def _sorted_part(
    path: Path, cols: list[str] | None, rows: int, footer: pq.FileMetaData | None = None
) -> Iterator[pa.Table]:
    """Yield a part's rows in batches of about ``rows`` rows. A part read in one batch
    (hsim's parts are) whose rows are not sorted by game is sorted in memory (stable, so
    rows within a game keep their order); a larger one must be sorted already.

    :raises RunFolderError: the part is not readable, or larger than a batch and not
        sorted by game.
    """
    try:
        # Strings as dictionaries: pandas gets categoricals (codes, no string per row).
        if footer is None:
            footer = pq.read_metadata(path)
        strings = [
            f.name
            for f in footer.schema.to_arrow_schema()
            if pa.types.is_string(f.type) and (cols is None or f.name in cols)
        ]
        part = pq.ParquetFile(path, metadata=footer, read_dictionary=strings)
        if part.metadata.num_rows <= rows:
            # One thread: the parts are small (one row group), so threads buy little
            # time and cost CPU (a quarter of the report's).
            table = part.read(columns=cols, use_threads=False)
            g = table.column("game").to_numpy()
            if np.any(np.diff(g) < 0):
                table = table.take(np.argsort(g, kind="stable"))
            yield table
            return
        last = None
        for batch in part.iter_batches(batch_size=rows, columns=cols, use_threads=False):
            g = batch.column("game").to_numpy()
            if len(g) and ((last is not None and g[0] < last) or np.any(np.diff(g) < 0)):
                raise RunFolderError(
                    f"{path}: its rows are not sorted by game (hsim writes them sorted by "
                    "game, deal, seat); rewrite the part sorted"
                )
            if len(g):
                last = g[-1]
            yield pa.Table.from_batches([batch])
    except (OSError, pa.ArrowException) as exc:
        raise RunFolderError(
            f"{path} could not be read ({exc}); the run folder is damaged"
        ) from None


def aligned(*streams: Iterator[pa.Table]) -> Iterator[tuple[pa.Table | None, ...]]:
    """Pair batches of several :func:`game_batches` streams game by game.

    Yields tuples with one table per stream, each holding the rows of the same range of
    games (a stream that has none of them gives an empty slice or None), in game order.
    A game present in only some streams is yielded with the others' tables empty.
    """
    its = [iter(s) for s in streams]
    bufs: list[pa.Table | None] = [None] * len(its)
    done = [False] * len(its)
    while True:
        for i, it in enumerate(its):
            while not done[i] and (bufs[i] is None or not len(bufs[i])):
                nxt = next(it, None)
                if nxt is None:
                    done[i] = True
                else:
                    bufs[i] = nxt
        live = [b for b in bufs if b is not None and len(b)]
        if not live:
            return
        # Every game up to the smallest last game of the streams still reading is whole
        # in the buffers: a stream's next batch starts after its buffer's last game.
        highs = [
            b.column("game")[len(b) - 1].as_py()
            for b, d in zip(bufs, done, strict=True)
            if b is not None and len(b) and not d
        ]
        high = min(highs) if highs else None
        out = []
        for i, b in enumerate(bufs):
            if b is None or not len(b):
                out.append(b)
                continue
            if high is None:
                out.append(b)
                bufs[i] = None
                continue
            g = b.column("game").to_numpy()
            cut = int(np.searchsorted(g, high, side="right"))
            out.append(b.slice(0, cut))
            bufs[i] = b.slice(cut)
        yield tuple(out)
