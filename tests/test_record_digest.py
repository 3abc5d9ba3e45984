"""Records stay the same through speed work: a fixed-seed digest of whole runs.

Each case plays a small seeded run through the runner (compiled and plain-Python seats,
duplicate seating, other scorings, Kierki with 3 and 4 players) and hashes the logical
content of its ``deals`` and ``games`` datasets: every value of a fixed list of columns,
rows in (game, deal, seat) order. The hash ignores how the values are stored (plain or
dictionary strings, int widths, a column left out where it does not apply reads as all
nulls), so an output-format change keeps it and a change of any card, point or score
breaks it.

The expected digests were taken from the engine before the speed work of issue 13. If a
change is *meant* to alter records (a rule fix, a new seed scheme), say so in its commit
and regenerate them with ``python tests/test_record_digest.py``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from hsim.model.rules import make_rules
from hsim.runner.config import RunConfig
from hsim.runner.run import run_tournament

DEAL_COLUMNS = (
    "game", "board", "rotation", "deal", "seat", "player", "strategy", "pass_direction",
    "hand", "passed", "received", "hearts", "queen_spades", "jack_diamonds", "tricks",
    "points", "moon", "moon_choice", "deal_score", "score", "after_end", "kind", "dealer",
    "trump", "trump_chooser", "lottery_place",
)  # fmt: skip
GAME_COLUMNS = (
    "game", "board", "rotation", "seat", "player", "strategy", "scoring", "score", "place",
    "winner", "deals", "ended_by",
)  # fmt: skip

EVERY_OPTION = (
    "lead_any_club=true",
    "first_trick_points=allowed",
    "first_trick_only_points=any",
    "queen_breaks_hearts=true",
    "first_trick_breaks_hearts=false",
    "lead_hearts_instead_of_queen=true",
    "moon=new_moon",
    "new_moon_any_score=true",
    "moon_requires_jack=false",
    "omnibus=true",
    "jack_in_moon_deal=true",
    "no_trick_bonus=no_points",
    "clamp_at_zero=false",
    "perfect_100=true",
    "end_score=60",
    "end_when=exceeded",
    "no_draw=true",
    "max_deals=40",
)

CASES = {
    "classic": dict(preset="classic", players=("random", "lowcard", "duck", "heuristic")),
    "every_option": dict(
        preset="classic", options=EVERY_OPTION, players=("heuristic", "random", "duck", "lowcard")
    ),
    "queen_waits": dict(
        preset="classic",
        options=(
            "queen_waits_for_broken_hearts=true",
            "passing=none",
            "hearts_must_be_broken=false",
        ),
        players=("heuristic", "duck", "heuristic", "random"),
    ),
    "duplicate": dict(
        preset="classic",
        players=("heuristic", "duck", "random", "lowcard"),
        duplicate=True,
        score_also=(("omnibus=true",), ("moon=new_moon", "end_score=50")),
        games=8,
    ),
    "python_seat": dict(
        preset="classic",
        players=("tests.bots.python_bots:PyRandom", "heuristic", "lowcard", "duck"),
        games=6,
    ),
    "kierki4": dict(preset="kierki4", players=("kierki", "random", "kierki", "lowcard"), games=6),
    "kierki4_rebel_duplicate": dict(
        preset="kierki4",
        options=("rebel=true", "allow_no_trump=true", "king_of_hearts_first_chance=true"),
        players=("kierki", "random", "lowcard", "kierki"),
        duplicate=True,
        games=2,
    ),
    "kierki3": dict(preset="kierki3", players=("kierki", "random", "kierki"), games=6),
}

EXPECTED = {
    "classic": "2ff5ff69b7c9802319ceeabd",
    "every_option": "efaf4ea3d5f8d2b50f6be8a1",
    "queen_waits": "95bfb1178cc1c398ea1eaf46",
    "duplicate": "a9e761eff523f25f32cc1b25",
    "python_seat": "b7e9633c78e5b8fe6a9e8be4",
    "kierki4": "c99a98814eed49245dded296",
    "kierki4_rebel_duplicate": "8db89db9576e40904167c464",
    "kierki3": "09df54be34a23240f1497991",
}


def _canonical(table: pa.Table, columns: tuple[str, ...], keys: tuple[str, ...]) -> list[list]:
    """Return each of ``columns`` as a Python list, rows sorted by ``keys``; a column the
    table lacks reads as all nulls, dictionary columns as their strings.
    """
    table = table.sort_by([(k, "ascending") for k in keys])
    out = []
    for name in columns:
        if name not in table.column_names:
            out.append([None] * table.num_rows)
            continue
        col = table.column(name)
        if pa.types.is_dictionary(col.type):
            col = col.cast(pa.string())
        out.append([None if v is None else (v if isinstance(v, str) else int(v))
                    for v in col.to_pylist()])  # fmt: skip
    return out


def run_digest(run_dir: Path) -> str:
    """Return the digest of the deals and games datasets of the run in ``run_dir``."""
    h = hashlib.sha256()
    for name, columns, keys in (
        ("deals", DEAL_COLUMNS, ("game", "deal", "seat")),
        ("games", GAME_COLUMNS, ("game", "scoring", "seat")),
    ):
        table = ds.dataset(run_dir / name, format="parquet").to_table()
        h.update(name.encode())
        h.update(repr(_canonical(table, columns, keys)).encode())
    return h.hexdigest()[:24]


def play_case(name: str, run_dir: Path) -> str:
    """Play case ``name`` into ``run_dir`` (2 chunks) and return its digest."""
    case = CASES[name]
    games = case.get("games", 12)
    config = RunConfig(
        rules=make_rules(case["preset"], case.get("options", ())),
        players=case["players"],
        games=games,
        seed=20261201,
        chunk_size=max(1, games // 2),
        duplicate=case.get("duplicate", False),
        score_also=tuple(make_rules(case["preset"], o) for o in case.get("score_also", ())),
    )
    run_tournament(config, run_dir, workers=1, progress=False)
    return run_digest(run_dir)


@pytest.mark.parametrize("name", sorted(CASES))
def test_records_match_the_digest_taken_before_the_speed_work(name, tmp_path):
    assert play_case(name, tmp_path / name) == EXPECTED[name], (
        f"case {name!r}: the records of this seeded run changed"
    )


def test_the_digest_sees_a_changed_value(tmp_path):
    """A single changed point breaks the digest; a storage change does not."""
    play_case("classic", tmp_path / "a")
    before = run_digest(tmp_path / "a")
    part = sorted((tmp_path / "a" / "deals").glob("*.parquet"))[0]
    table = ds.dataset(part, format="parquet").to_table()

    stored = table.set_column(
        table.column_names.index("strategy"),
        "strategy",
        table.column("strategy").dictionary_encode(),
    )
    pq.write_table(stored, part)
    assert run_digest(tmp_path / "a") == before
    points = table.column("points").to_pylist()
    points[0] += 1
    changed = table.set_column(
        table.column_names.index("points"), "points", pa.array(points, pa.int16())
    )
    pq.write_table(changed, part)
    assert run_digest(tmp_path / "a") != before


if __name__ == "__main__":  # print the digests of today's engine, to paste into EXPECTED
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.bots
    with tempfile.TemporaryDirectory() as tmp:
        for case_name in sorted(CASES):
            print(f'    "{case_name}": "{play_case(case_name, Path(tmp) / case_name)}",')
    sys.exit(0)
