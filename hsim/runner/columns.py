"""Every column of a run's datasets, in one table: the Arrow schemas and the README's
column tables are both generated from it.

:data:`COLUMNS` lists, per dataset (``deals``, ``games``, ``plays``), each column's name,
Arrow type, unit, meaning and the game whose rows it describes (``both``, ``Hearts`` or
``Kierki``; in the other game's rows the column is null). :data:`SCHEMAS` holds the
pyarrow schemas the sink writes; :func:`markdown_table` the README table of a dataset.
``python -m hsim.runner.columns`` prints the tables, ``python -m hsim.runner.columns
--write results/README.md`` rewrites the README's generated blocks (between
``<!-- columns: NAME -->`` and ``<!-- /columns -->``); tests/test_columns.py fails when
the README, the written schema and this table differ.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pyarrow as pa

#: Strings are stored as dictionaries (a small index per row into the column's values):
#: pandas reads them as categoricals.
STRING = pa.dictionary(pa.int8(), pa.string())
#: The schema version of the tables below (``run.json`` ``schema_version``).
SCHEMA_VERSION = 7
#: Columns added after schema 1, with the schema version that added them: a run of an older
#: schema has none, and a resumed one's new parts leave them out (:func:`written_schema`).
ADDED_IN = {"taken": 7}
#: What ``--record`` may ask for, and the datasets each writes.
RECORD_MODES = ("games", "deals", "plays")
DEFAULT_RECORD = "deals"
RECORD_DATASETS = {
    "games": ("games",),
    "deals": ("deals", "games"),
    "plays": ("deals", "games", "plays"),
}
#: Every dataset a run folder may hold.
ALL_DATASETS = ("deals", "games", "plays")
GAMES = ("both", "Hearts", "Kierki")


@dataclasses.dataclass(frozen=True)
class Column:
    """One column of a dataset.

    name: the column name. type: its Arrow type. unit: what a value counts (``index``,
    ``52-bit mask``, ``points``…; empty when none). meaning: one Markdown paragraph.
    game: ``both``, or the only game whose rows hold values (``Hearts``, ``Kierki``):
    the other game's rows hold nulls (typed nulls: Parquet stores them in a few bytes).
    nulls: rows of its own game may hold nulls too (the meaning says when).
    A column that is never null (:attr:`nullable` false) is written as a required
    Parquet column (schema 6), which stores no null flags.
    """

    name: str
    type: pa.DataType
    unit: str
    meaning: str
    game: str = "both"
    nulls: bool = False

    @property
    def nullable(self) -> bool:
        """Whether rows may hold nulls here: the other game's rows, or :attr:`nulls`."""
        return self.game != "both" or self.nulls

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"column {self.name}: game {self.game!r} is not one of {GAMES}")


_SEATS = "0..n-1"
_SEATING = (
    Column(
        "game",
        pa.int64(),
        "index",
        "game index within the run; with `--duplicate`, `n * board + rotation` (n seats: "
        "4, or 3 in 3-player Kierki)",
    ),
    Column(
        "board",
        pa.int64(),
        "index",
        "the deal set the game was played on: its seed streams are `stream(seed, board, …)`;"
        " equals `game` without `--duplicate`",
    ),
    Column(
        "rotation",
        pa.int8(),
        _SEATS,
        "with `--duplicate`, the rotation of the players over the seats; 0 otherwise",
    ),
)
_PLAYER = (
    Column(
        "player", pa.int8(), _SEATS, "which `--players` entry sits here: `(seat + rotation) % n`"
    ),  # fmt: skip
    Column("strategy", STRING, "", "that player's spec (its label, as given)"),
)

DEALS = (
    *_SEATING,
    Column("deal", pa.int16(), "index", "deal within the game, 0-based"),
    Column("seat", pa.int8(), _SEATS, "seat, clockwise play order"),
    *_PLAYER,
    Column(
        "pass_direction",
        STRING,
        "",
        "`left`, `right`, `across` or `hold` ([docs/rules.md A1.2](../docs/rules.md#a1-2))",
        "Hearts",
    ),
    Column(
        "hand",
        pa.int64(),
        "52-bit mask",
        "the cards dealt to the seat (13; 3-player Kierki 17), before the pass (bit "
        "`suit*13+rank`, suits C D S H)",
    ),
    Column(
        "passed",
        pa.int64(),
        "52-bit mask",
        "the 3 cards the seat passed (0 in a hold deal, and in Kierki)",
    ),  # fmt: skip
    Column(
        "received",
        pa.int64(),
        "52-bit mask",
        "the 3 cards it received (0 in a hold deal, and in Kierki)",
    ),  # fmt: skip
    Column("hearts", pa.int8(), "cards", "hearts the seat took in tricks, 0..13"),
    Column("queen_spades", pa.bool_(), "", "the seat took QS"),
    Column("jack_diamonds", pa.bool_(), "", "the seat took JD"),
    Column(
        "taken",
        pa.int64(),
        "52-bit mask",
        "the cards the seat won in tricks this deal (bit `suit*13+rank`); who took "
        "`omnibus_card` for re-scoring (A2.3). Schema 7 on; older runs lack it",
    ),
    Column(
        "tricks", pa.int8(), "tricks", "tricks the seat won, 0..13 (3-player Kierki 0..17)"
    ),  # fmt: skip
    Column(
        "points",
        pa.int16(),
        "points",
        "Hearts: raw penalty points taken, 0..26 (up to the deck's points under other card "
        "values, A1.8); Kierki: the signed points of the deal (B2–B4)",
    ),
    Column(
        "moon",
        pa.bool_(),
        "",
        "this seat shot the moon (with `omnibus` and `moon_requires_jack`, only with the JD;"
        " A2.2); false in Kierki",
    ),
    Column(
        "moon_choice",
        STRING,
        "",
        "on the shooter's row, the moon outcome applied: `add` (+26, the deck's points, to the "
        "others) or `subtract` (−26 to itself, New Moon); null otherwise",
        "Hearts",
    ),
    Column(
        "deal_score",
        pa.int16(),
        "points",
        "the seat's score for the deal after moon and bonuses, before the clamp (A2.2–A2.3)",
    ),
    Column(
        "score",
        pa.int32(),
        "points",
        "the seat's game score after the deal: after clamp and Perfect 100 (A2.4–A2.5); in a"
        " deal after the base game's end, the base game's final score",
    ),
    Column(
        "after_end",
        pa.bool_(),
        "",
        "the deal was played after the base game ended, only because a `--score-also` "
        "scoring's game had not ended yet",
    ),
    Column(
        "kind",
        STRING,
        "",
        "Kierki deal kind (B1): `tricks`, `hearts`, `queens`, `men`, `king_of_hearts`, "
        "`seventh_and_last`, `rebel`, `trump`, `lottery`",
        "Kierki",
    ),
    Column(
        "dealer", pa.int8(), "seat", "the dealer (deal `k` is dealt by seat `k % n`)", "Kierki"
    ),  # fmt: skip
    Column(
        "trump",
        STRING,
        "",
        "trump deals: the suit named, `C`, `D`, `S`, `H`, or `none` (`allow_no_trump`); null "
        "in other deals",
        "Kierki",
    ),
    Column(
        "trump_chooser",
        pa.int8(),
        "seat",
        "trump deals: the seat that named trump (B3); null in other deals",
        "Kierki",
    ),  # fmt: skip
    Column(
        "lottery_place",
        pa.int8(),
        "1, 2",
        "lottery: 1 or 2 when the seat went out first or second (B4); null otherwise",
        "Kierki",
    ),
)

GAMES_COLUMNS = (
    Column("game", pa.int64(), "index", "game index within the run (as in `deals`)"),
    Column("board", pa.int64(), "index", "the deal set (as in `deals`)"),
    Column("rotation", pa.int8(), _SEATS, "the rotation of the players (as in `deals`)"),
    Column("seat", pa.int8(), _SEATS, "seat"),
    Column("player", pa.int8(), _SEATS, "which `--players` entry sits here"),
    Column("strategy", STRING, "", "that player's spec (its label, as given)"),
    Column(
        "scoring",
        # A plain string: rows are sorted on (game, scoring, seat), and pyarrow cannot sort
        # a table on a dictionary column (the games dataset is a tenth of the deals).
        pa.string(),
        "",
        "`base` (the run's rules) or the canonical rules string of a `--score-also` "
        "scoring; one set of rows per scoring",
    ),
    Column("score", pa.int32(), "points", "final game score"),
    Column(
        "place",
        pa.int8(),
        "1..n",
        "1 + the number of seats with a strictly better score: lower in Hearts (A3), higher "
        "in Kierki (B5)",
    ),
    Column(
        "winner",
        pa.bool_(),
        "",
        "Hearts: the seat has the lowest score (tied lowest are co-winners without "
        "`no_draw`); Kierki: the highest (tied highest are co-winners)",
    ),
    Column("deals", pa.int16(), "deals", "deals played in the game"),
    Column(
        "ended_by",
        STRING,
        "",
        "`end_score` (a score reached `end_score`, and with `no_draw` one seat is lowest), "
        "`max_deals`, or `all_deals` (Kierki: every deal of B1 was played)",
    ),
)

PLAYS = (
    *_SEATING,
    Column("deal", pa.int16(), "index", "deal within the game, 0-based (as in `deals`)"),
    Column(
        "play",
        pa.int8(),
        "index",
        "the card's place in the deal's order of play, 0-based (in a trick deal "
        "`trick * n + position`)",
    ),
    Column(
        "trick",
        pa.int8(),
        "index",
        "the trick, 0-based; null in a Kierki lottery deal, which has no tricks (B4)",
        nulls=True,
    ),
    Column(
        "position",
        pa.int8(),
        _SEATS,
        "the card's position in its trick, 0 = the lead; null in a lottery deal",
        nulls=True,
    ),
    Column("seat", pa.int8(), _SEATS, "the seat that played the card"),
    *_PLAYER,
    Column(
        "card",
        pa.int8(),
        "card",
        "the card played, `suit*13+rank` (suits C D S H, ranks 2..A), as the bits of `hand`",
    ),  # fmt: skip
    Column(
        "leader",
        pa.int8(),
        "seat",
        "the seat that led the trick; null in a lottery deal",
        nulls=True,
    ),
    Column(
        "winner",
        pa.int8(),
        "seat",
        "the seat that won the trick (A1.5, B2, B3); null in a lottery deal",
        nulls=True,
    ),
)

COLUMNS: dict[str, tuple[Column, ...]] = {
    "deals": DEALS,
    "games": GAMES_COLUMNS,
    "plays": PLAYS,
}


def schema_of(dataset: str) -> pa.Schema:
    """Return the Arrow schema of ``dataset`` (``deals``, ``games``, ``plays``).

    :raises KeyError: an unknown dataset.
    """
    return pa.schema([pa.field(c.name, c.type, nullable=c.nullable) for c in COLUMNS[dataset]])


SCHEMAS = {name: schema_of(name) for name in COLUMNS}


def plain_strings(schema: pa.Schema) -> pa.Schema:
    """Return ``schema`` with dictionary columns as plain strings: schema version 4's
    form, which :func:`hsim.runner.sink.write_parts` writes into a run started by an
    hsim of schema 4 (so a resumed run's parts all share one schema).
    """
    return pa.schema(
        [(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type) for f in schema]
    )


def written_schema(schema: pa.Schema, version: int) -> pa.Schema:
    """Return ``schema`` (of this hsim's tables) as the parts of a run of schema
    ``version`` hold it, so that a resumed run's parts all share one schema: schemas
    before 7 lack the columns of :data:`ADDED_IN`; schema 5 has every column nullable,
    schema 4 also its strings plain (:func:`plain_strings`); this version's is ``schema``
    itself.
    """
    if version >= SCHEMA_VERSION:
        return schema
    schema = pa.schema([f for f in schema if ADDED_IN.get(f.name, 0) <= version])
    if version <= 4:
        return plain_strings(schema)
    if version == 6:
        return schema
    return pa.schema([f.with_nullable(True) for f in schema])


def type_name(t: pa.DataType) -> str:
    """Return how the README names Arrow type ``t`` (``int8``, ``string (dictionary)``)."""
    if pa.types.is_dictionary(t):
        return f"{t.value_type} (dictionary)"
    return {"bool": "bool"}.get(str(t), str(t))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(dataset: str) -> str:
    """Return the Markdown table of ``dataset``'s columns (the README's generated block)."""
    lines = ["| column | type | unit | game | meaning |", "|---|---|---|---|---|"]
    for c in COLUMNS[dataset]:
        lines.append(
            f"| `{c.name}` | {type_name(c.type)} | {_cell(c.unit)} | {c.game} | "
            f"{_cell(c.meaning)} |"
        )
    return "\n".join(lines)


_BLOCK = re.compile(r"(<!-- columns: (\w+) -->\n)(.*?)(<!-- /columns -->)", re.S)


def readme_blocks(text: str) -> dict[str, str]:
    """Return the generated blocks of a README's ``text``, by dataset name."""
    return {m.group(2): m.group(3).strip() for m in _BLOCK.finditer(text)}


def with_tables(text: str) -> str:
    """Return README ``text`` with every generated block replaced by :func:`markdown_table`.

    :raises KeyError: a block names an unknown dataset.
    """
    return _BLOCK.sub(lambda m: f"{m.group(1)}{markdown_table(m.group(2))}\n{m.group(4)}", text)


def main(argv: list[str] | None = None) -> int:
    """Print every dataset's table, or with ``--write README`` rewrite its blocks."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--write"] and len(args) == 2:
        path = Path(args[1])
        path.write_text(with_tables(path.read_text()))
        return 0
    if args:
        print("usage: python -m hsim.runner.columns [--write results/README.md]", file=sys.stderr)
        return 2
    for name in COLUMNS:
        print(f"## {name}\n\n{markdown_table(name)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
