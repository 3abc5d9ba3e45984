"""Replay a game trick by trick: from a run folder, from a seed, or from a given deal.

A game is a pure function of (rules, strategies, run seed, game index), so replaying
plays it again through the same kernels (the Python driver) and records every deal:
the deal string, the passes, each trick (leader, cards, winner, points) and the scores.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from hsim.cards import format_card, format_mask
from hsim.engine.hearts import card_points
from hsim.engine.layout import (
    D_DEAL,
    D_DEAL_SCORE,
    D_MOON,
    D_MOON_CHOICE,
    D_POINTS,
    D_SCORE,
    DEAL_COLS,
    H_DEAL_ROWS,
    H_DECK,
    MOON_CHOICES,
    P_N_PLAYS,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_TRICK_LEADER,
    P_TRICK_WINNER,
    PASS_DIRECTIONS,
    V_PASSED,
)
from hsim.loader import LoadedStrategy, load_players
from hsim.notation import PositionSpec, format_deal
from hsim.play import PythonDriver
from hsim.rng import SEED_SCHEME
from hsim.rules import Rules, canonical
from hsim.runner.manifest import read_manifest
from hsim.runner.run import rotate

N_SEATS = 4


class ReplayError(ValueError):
    """A run folder cannot be replayed (no manifest, another seed scheme, no such game)."""


@dataclasses.dataclass
class Trick:
    """One trick: its leader, the (seat, card) plays in order, the winner, the points."""

    leader: int
    plays: list[tuple[int, int]]
    winner: int
    points: int


@dataclasses.dataclass
class DealRecord:
    """One played deal: deal index, pass direction, hands in dealing order, passes
    (4 masks, seat 0 first), tricks, and the four deal rows (D_* columns).
    """

    deal: int
    pass_direction: str
    hands: list[list[int]]
    passes: list[int]
    tricks: list[Trick]
    rows: np.ndarray


def _record(driver: PythonDriver) -> DealRecord:
    st = driver.state
    pub, hidden = st.public, st.hidden
    hands = [[int(c) for c in hidden[H_DECK + 13 * s : H_DECK + 13 * s + 13]] for s in range(4)]
    n = int(pub[P_N_PLAYS])
    plays = [(int(pub[P_PLAY_SEAT + i]), int(pub[P_PLAY_CARD + i])) for i in range(n)]
    tricks = []
    for t in range(n // N_SEATS):
        cards = plays[N_SEATS * t : N_SEATS * t + N_SEATS]
        mask = sum(1 << c for _, c in cards)
        tricks.append(
            Trick(
                int(pub[P_TRICK_LEADER + t]),
                cards,
                int(pub[P_TRICK_WINNER + t]),
                int(card_points(mask)),
            )
        )
    end = int(hidden[H_DEAL_ROWS])
    rows = driver.deal_out[end - N_SEATS : end].copy()
    return DealRecord(
        deal=int(rows[0, D_DEAL]),
        pass_direction=PASS_DIRECTIONS[int(pub[P_PASS_DIR])],
        hands=hands,
        passes=[int(st.private[s, V_PASSED]) for s in range(N_SEATS)],
        tricks=tricks,
        rows=rows,
    )


def replay_game(rules: Rules, players: list[LoadedStrategy], seed: int, game: int):
    """Play game ``game`` of run ``seed`` again; return (deal records, game rows).

    :raises StrategyError: a strategy fails, as in the run.
    """
    driver = PythonDriver(rules, players, seed)
    records: list[DealRecord] = []
    _, games = driver.play_game(game, on_deal_end=lambda d: records.append(_record(d)))
    return records, games


def replay_deal(spec: PositionSpec, rules: Rules, players: list[LoadedStrategy], seed: int = 0):
    """Play the given deal (from its position onwards) to its end; return its record.

    The strategies draw from the streams of game 0 of run ``seed``.
    """
    position = spec.position(rules)
    driver = PythonDriver(rules, players, seed, state=position.state)
    driver.start_game(0, deal=False)
    driver.play_deal()
    return _record(driver)


def replay_run(run_dir: Path, game: int):
    """Replay game ``game`` of a run folder with its manifest's rules, players and seed.

    In a duplicate run, game ``g`` is board ``g // 4`` with the players in rotation ``g % 4``.

    Returns (manifest, rules, deal records, game rows, recorded deal rows or None).
    :raises ReplayError: no manifest, another seed scheme, or a game outside the run.
    """
    try:
        manifest = read_manifest(run_dir)
    except FileNotFoundError:
        raise ReplayError(f"{run_dir} has no run.json: it is not an hsim run folder") from None
    if manifest.get("seed_scheme") != SEED_SCHEME:
        raise ReplayError(
            f"{run_dir} was written with seed scheme {manifest.get('seed_scheme')}; this hsim "
            f"uses {SEED_SCHEME} and cannot replay it"
        )
    per = 4 if manifest.get("duplicate") else 1
    first, games = manifest["first_game"] * per, manifest["games"] * per
    if not first <= game < first + games:
        raise ReplayError(f"game {game} is not in this run (games {first}..{first + games - 1})")
    rules = Rules(**manifest["rules"]["options"])
    players = load_players([_from_run_folder(p["spec"], manifest) for p in manifest["players"]])
    board, rotation = divmod(game, per) if per > 1 else (game, 0)
    records, game_rows = replay_game(rules, rotate(players, rotation), manifest["seed"], board)
    return manifest, rules, records, game_rows, _recorded_rows(run_dir, game)


def _from_run_folder(spec: str, manifest: dict) -> str:
    """Return ``spec`` with a relative ``file.py:attr`` path made absolute against the
    folder the run was started from (``cwd`` in the manifest), when that file exists."""
    target, colon, rest = spec.partition(":")
    cwd = manifest.get("cwd")
    if colon and target.endswith(".py") and cwd and not Path(target).is_absolute():
        candidate = Path(cwd) / target
        if candidate.exists() and not Path(target).exists():
            return f"{candidate}:{rest}"
    return spec


def _recorded_rows(run_dir: Path, game: int) -> np.ndarray | None:
    import pyarrow.dataset as ds

    folder = Path(run_dir) / "deals"
    if not folder.exists():
        return None
    table = ds.dataset(folder, format="parquet").to_table(filter=ds.field("game") == game)
    if table.num_rows == 0:
        return None
    return table


def rows_match(records: list[DealRecord], recorded) -> bool:
    """Return whether the replayed deal scores and game scores equal the recorded ones.

    Deals recorded after the base game's end (``--score-also``) are not part of the replay.
    """
    if recorded is None:
        return True
    if "after_end" in recorded.column_names:
        recorded = recorded.filter(pc.invert(recorded.column("after_end")))
    got = np.concatenate([r.rows for r in records]) if records else np.zeros((0, DEAL_COLS))
    want_score = recorded.column("score").to_numpy()
    want_deal = recorded.column("deal_score").to_numpy()
    return (
        len(got) == len(want_score)
        and np.array_equal(got[:, D_SCORE], want_score)
        and np.array_equal(got[:, D_DEAL_SCORE], want_deal)
    )


def format_record(r: DealRecord, names: list[str]) -> list[str]:
    """Return the printed lines of one deal."""
    lines = [f"deal {r.deal}  pass {r.pass_direction}", f"  deal string: {format_deal(r.hands)}"]
    for s in range(N_SEATS):
        lines.append(f"  seat {s} ({names[s]}): {format_mask(sum(1 << c for c in r.hands[s]))}")
    if r.pass_direction != "hold":
        lines.append("  passes: " + " / ".join(format_mask(m) for m in r.passes))
    for t, trick in enumerate(r.tricks):
        cards = " ".join(format_card(c) for _, c in trick.plays)
        lines.append(
            f"  trick {t + 1:>2}: seat {trick.leader} leads  {cards:<12} won by seat "
            f"{trick.winner}  {trick.points:>2} points"
        )
    rows = r.rows
    lines.append("  points:     " + "  ".join(f"{int(x):>4}" for x in rows[:, D_POINTS]))
    for s in range(N_SEATS):
        if rows[s, D_MOON]:
            lines.append(f"  seat {s} shot the moon ({MOON_CHOICES[int(rows[s, D_MOON_CHOICE])]})")
    lines.append("  deal score: " + "  ".join(f"{int(x):>4}" for x in rows[:, D_DEAL_SCORE]))
    lines.append("  game score: " + "  ".join(f"{int(x):>4}" for x in rows[:, D_SCORE]))
    return lines


def format_header(rules: Rules, preset: str, specs: list[str], what: str) -> str:
    """Return the first line: what is replayed, the rules string and the players."""
    return f"{what}  rules {canonical(rules, preset)}  players {', '.join(specs)}"
