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

from hsim.rules import make_rules
from hsim.runner import columns
from hsim.runner.columns import COLUMNS, SCHEMAS, markdown_table, readme_blocks, with_tables
from hsim.runner.run import RunConfig, run_tournament

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
