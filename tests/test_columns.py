"""The column table (hsim.runner.columns) is the one source of the schemas and the README.

A run's parts are written with exactly the table's schema (Hearts and Kierki, every
``--record`` mode), the README's generated blocks are exactly the table's Markdown, and
a change to the table shows up in both checks.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hsim.model.rules import make_rules
from hsim.runner import columns
from hsim.runner.columns import COLUMNS, SCHEMAS, markdown_table, readme_blocks, with_tables
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

README = Path(__file__).resolve().parents[1] / "results" / "README.md"


def test_the_readme_tables_are_the_column_table():
    blocks = readme_blocks(README.read_text())
    assert sorted(blocks) == sorted(COLUMNS)
    for name, block in blocks.items():
        assert block == markdown_table(name), (
            f"results/README.md's {name} table differs from hsim/runner/columns.py; run "
            "python -m hsim.runner.columns --write results/README.md"
        )
    assert with_tables(README.read_text()) == README.read_text()


def test_a_changed_column_breaks_the_readme_check(monkeypatch):
    deals = list(COLUMNS["deals"])
    deals[3] = dataclasses.replace(deals[3], unit="a new unit")
    monkeypatch.setitem(COLUMNS, "deals", tuple(deals))
    assert readme_blocks(README.read_text())["deals"] != markdown_table("deals")


def test_every_column_is_documented_once_with_a_known_game():
    for name, cols in COLUMNS.items():
        names = [c.name for c in cols]
        assert len(names) == len(set(names)), name
        assert all(c.meaning and c.game in columns.GAMES for c in cols)
        assert SCHEMAS[name].names == names
    with pytest.raises(ValueError, match="game"):
        columns.Column("x", pa.int8(), "", "meaning", "Bridge")


def test_a_column_is_nullable_exactly_when_its_text_says_it_may_be_null():
    # The README tells a reader which columns are never null (required in Parquet) by
    # naming no null in their meaning: the schema must agree with the text.
    for name, cols in COLUMNS.items():
        for c in cols:
            says_null = "null" in c.meaning or c.game != "both"
            assert c.nullable == says_null, (name, c.name)
            assert SCHEMAS[name].field(c.name).nullable == c.nullable
    assert not SCHEMAS["deals"].field("hand").nullable
    assert SCHEMAS["plays"].field("trick").nullable


@pytest.mark.parametrize("version", [4, 5, 6])
def test_an_older_schema_is_this_one_with_nullable_columns(version):
    """Schema 6 lacks the columns added since (``taken``, schema 7); 5 and 4 also have
    every column nullable, and 4 plain strings."""
    for name, schema in SCHEMAS.items():
        older = columns.written_schema(schema, version)
        assert older.names == [n for n in schema.names if n not in columns.ADDED_IN]
        if version == 6:
            assert older == pa.schema([f for f in schema if f.name not in columns.ADDED_IN])
        else:
            assert all(f.nullable for f in older)
        dictionaries = any(pa.types.is_dictionary(f.type) for f in older)
        assert dictionaries == (version >= 5), name
    assert columns.written_schema(SCHEMAS["deals"], columns.SCHEMA_VERSION) is SCHEMAS["deals"]


@pytest.mark.parametrize(
    ("preset", "players"),
    [("classic", ("random", "lowcard", "duck", "heuristic")), ("kierki3", ("kierki",) * 3)],
)
def test_written_parts_have_the_table_schema(tmp_path, preset, players):
    config = RunConfig(make_rules(preset), players, games=3, seed=2, record="plays", chunk_size=3)
    run_tournament(config, tmp_path / "run", progress=False)
    for dataset in ("deals", "games", "plays"):
        (part,) = sorted((tmp_path / "run" / dataset).glob("part-*.parquet"))
        written = pq.read_schema(part)
        assert written.remove_metadata() == SCHEMAS[dataset], dataset
        table = pq.read_table(part)
        assert table.schema.remove_metadata() == SCHEMAS[dataset]
        for col in COLUMNS[dataset]:  # the other game's columns are nulls
            other = {"Hearts": "kierki", "Kierki": "classic"}.get(col.game)
            if other and preset.startswith(other):
                assert table.column(col.name).null_count == table.num_rows, col.name


def test_a_changed_type_breaks_the_schema_check(monkeypatch, tmp_path):
    config = RunConfig(make_rules("classic"), ("random",) * 4, games=2, seed=2, chunk_size=2)
    run_tournament(config, tmp_path / "run", progress=False)
    (part,) = sorted((tmp_path / "run" / "games").glob("part-*.parquet"))
    changed = list(COLUMNS["games"])
    changed[-1] = dataclasses.replace(changed[-1], type=pa.string())
    monkeypatch.setitem(COLUMNS, "games", tuple(changed))
    assert pq.read_schema(part).remove_metadata() != columns.schema_of("games")


def test_the_script_prints_and_rewrites(tmp_path, capsys):
    assert columns.main([]) == 0
    assert markdown_table("plays") in capsys.readouterr().out
    copy = tmp_path / "README.md"
    text = README.read_text()
    stale = text.replace(markdown_table("games"), "| stale |")
    copy.write_text(stale)
    assert columns.main(["--write", str(copy)]) == 0
    assert copy.read_text() == text
    assert columns.main(["--bogus"]) == 2


@pytest.mark.parametrize("preset", ["classic", "kierki4"])
def test_every_part_reads_with_every_category_of_its_string_columns(tmp_path, preset):
    """results/README.md: a string column's categories are every value it can take in the
    run, the same in every part (pandas concatenates parts read one by one as categoricals).
    max_deals=9 ends some Hearts games by max_deals and others by end_score."""
    import pandas as pd

    from hsim.engine.layout import ENDED_BY

    options = {"max_deals": 9} if preset == "classic" else {}
    players = ("random", "lowcard") * 2 if preset == "classic" else ("kierki", "random") * 2
    config = RunConfig(make_rules(preset, options), players, games=8, seed=2, chunk_size=2,
                       record="plays")  # fmt: skip
    run_tournament(config, tmp_path / "run", progress=False)
    for dataset in ("deals", "games", "plays"):
        parts = sorted((tmp_path / "run" / dataset).glob("part-*.parquet"))
        frames = [pd.read_parquet(p) for p in parts]
        for col in COLUMNS[dataset]:
            if not pa.types.is_dictionary(col.type):
                continue
            seen = {tuple(f[col.name].cat.categories) for f in frames}
            assert len(seen) == 1, (dataset, col.name, seen)
            assert isinstance(pd.concat(frames)[col.name].dtype, pd.CategoricalDtype)
    games = pd.read_parquet(tmp_path / "run" / "games")
    assert games.ended_by.cat.categories.tolist() == list(ENDED_BY)
    assert games.strategy.cat.categories.tolist() == list(dict.fromkeys(players))
