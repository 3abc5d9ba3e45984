"""Replay a game trick by trick: from a run folder, from a seed, or from a given deal.

A game is a pure function of (rules, strategies, run seed, game index), so replaying
plays it again through the same kernels (the Python driver) and records every deal:
the deal string, the passes, each trick (leader, cards, winner, points) and the scores.
Kierki games (docs/rules.md part B) show each deal's kind and dealer, the trump choice (with
the cards the chooser saw) and the lottery's plays in order.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.dataset as ds

from hsim.engine.hearts import deal_penalty_points
from hsim.engine.hearts import hand_size as hearts_hand_size
from hsim.engine.kierki import hand_size, trick_points, trump_preview_size
from hsim.engine.layout import (
    D_DEAL,
    D_DEAL_SCORE,
    D_LOTTERY_PLACE,
    D_MOON,
    D_MOON_CHOICE,
    D_POINTS,
    D_SCORE,
    D_TRUMP,
    DEAL_COLS,
    H_DEAL_ROWS,
    H_DECK,
    KIND_NAMES,
    MOON_CHOICES,
    P_DEALER,
    P_KIND,
    P_N_PLAYS,
    P_N_SEATS,
    P_PASS_DIR,
    P_PLAY_CARD,
    P_PLAY_SEAT,
    P_TRICK_LEADER,
    P_TRICK_WINNER,
    P_TRUMP_CHOOSER,
    PASS_DIRECTIONS,
    TRUMP_CHOICES,
    V_PASSED,
)
from hsim.engine.rng import SEED_SCHEME
from hsim.errors import EXIT_USAGE, ReplayError
from hsim.model.cards import format_card, format_mask
from hsim.model.notation import PositionSpec, format_deal
from hsim.model.rules import Rules, canonical, option_code
from hsim.model.seating import board_and_rotation, rotate
from hsim.play.games import PythonDriver
from hsim.play.kierki_game import seat_card
from hsim.play.position import Position
from hsim.runner.config import MAX_GAME_STOP, check_int, load_manifest
from hsim.strategy.loader import LoadedStrategy, load_players, untrusted_code
from hsim.strategy.specs import spec_from_run


@dataclasses.dataclass
class Trick:
    """One trick: its leader, the (seat, card) plays in order, the winner, the points."""

    leader: int
    plays: list[tuple[int, int]]
    winner: int
    points: int


@dataclasses.dataclass
class DealRecord:
    """One played deal: deal index, pass direction (None in Kierki), hands in dealing
    order, passes (masks, seat 0 first), tricks, and one deal row per seat (D_* columns).

    Kierki only: kind (``tricks`` .. ``lottery``), dealer, trump chooser (-1 if none),
    the cards the chooser saw, and the lottery's plays as (seat, card) in order.
    """

    deal: int
    pass_direction: str | None
    hands: list[list[int]]
    passes: list[int]
    tricks: list[Trick]
    rows: np.ndarray
    kind: str | None = None
    dealer: int = -1
    trump_chooser: int = -1
    trump_seen: list[int] = dataclasses.field(default_factory=list)
    lottery: list[tuple[int, int]] = dataclasses.field(default_factory=list)


def _record(driver: PythonDriver) -> DealRecord:
    st = driver.state
    pub, hidden = st.public, st.hidden
    seats = int(pub[P_N_SEATS])
    kierki = driver.rules.is_kierki
    n = int(pub[P_N_PLAYS])
    plays = [(int(pub[P_PLAY_SEAT + i]), int(pub[P_PLAY_CARD + i])) for i in range(n)]
    end = int(hidden[H_DEAL_ROWS])
    rows = driver.deal_out[end - seats : end].copy()
    record = DealRecord(
        deal=int(rows[0, D_DEAL]),
        pass_direction=None if kierki else PASS_DIRECTIONS[int(pub[P_PASS_DIR])],
        hands=[],
        passes=[int(st.private[s, V_PASSED]) for s in range(seats)],
        tricks=[],
        rows=rows,
    )
    if not kierki:
        size = hearts_hand_size(seats)  # 13; 17, 10 or 8 in Hearts for 3, 5 or 6 (A1.1)
        record.hands = [
            [int(c) for c in hidden[H_DECK + size * s : H_DECK + size * s + size]]
            for s in range(seats)
        ]
    else:
        dealer, chooser = int(pub[P_DEALER]), int(pub[P_TRUMP_CHOOSER])
        size = hand_size(seats)
        record.hands = [
            [int(seat_card(hidden, seats, dealer, s, j)) for j in range(size)] for s in range(seats)
        ]
        record.kind = KIND_NAMES[int(pub[P_KIND])]
        record.dealer, record.trump_chooser = dealer, chooser
        if chooser >= 0:
            record.trump_seen = record.hands[chooser][: trump_preview_size(seats)]
        if record.kind == "lottery":
            record.lottery = plays
            return record
    for t in range(n // seats):
        cards = plays[seats * t : seats * t + seats]
        mask = sum(1 << c for _, c in cards)
        if kierki:
            r = driver.rules
            points = trick_points(
                int(pub[P_KIND]),
                seats,
                mask,
                t,
                r.trump_points,
                option_code("point_table", r.point_table),
                option_code("priced_trick", r.priced_trick),
            )
        else:
            points = deal_penalty_points(pub, mask)  # the rules in pub (A1.8)
        record.tricks.append(
            Trick(int(pub[P_TRICK_LEADER + t]), cards, int(pub[P_TRICK_WINNER + t]), int(points))
        )
    return record


class _WatchedDriver(PythonDriver):
    """The Python driver, calling ``watch(driver, status)`` before each decision (the
    state then shows the decision's position; ``state.hidden[H_DECIDER]`` is the seat)."""

    def __init__(self, *args, watch=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.watch = watch

    def decide(self, status: int) -> int:
        if self.watch is not None:
            self.watch(self, status)
        return super().decide(status)


def replay_game(rules: Rules, players: list[LoadedStrategy], seed: int, game: int, watch=None):
    """Play game ``game`` of run ``seed`` again; return (deal records, game rows).

    watch: None, or called as ``watch(driver, status)`` before every decision
    (:class:`~hsim.play.games.PythonDriver`, ``ST_NEED_*``), e.g. to look at positions.

    :raises StrategyError: a strategy fails, as in the run. :raises ConfigError: a game
        index outside 0..2**63-2 or a seed outside 0..2**64-1.
    """
    check_int("--game", game, 0, MAX_GAME_STOP - 1)
    driver = _WatchedDriver(rules, players, seed, watch=watch)
    records: list[DealRecord] = []
    _, games = driver.play_game(game, on_deal_end=lambda d: records.append(_record(d)))
    return records, games


def replay_deal(
    spec: PositionSpec | Position,
    rules: Rules,
    players: list[LoadedStrategy],
    seed: int = 0,
    watch=None,
):
    """Play the given deal (from its position onwards) to its end; return its record.

    spec: a Hearts position, or a :class:`Position` of either game (a Kierki deal from
    :meth:`Position.from_kierki_hands`, docs/rules.md B6), which is played on. The
    strategies draw from the streams of game 0 of run ``seed``; ``watch`` as in
    :func:`replay_game`.
    """
    position = spec if isinstance(spec, Position) else Position.from_spec(spec, rules)
    driver = _WatchedDriver(rules, players, seed, state=position.state, watch=watch)
    driver.start_game(0, deal=False)
    driver.play_deal()
    return _record(driver)


def replay_run(run_dir: Path, game: int, trust: bool = False, watch=None):
    """Replay game ``game`` of a run folder with its manifest's rules, players and seed
    (``watch`` as in :func:`replay_game`).

    In a duplicate run, game ``g`` is board ``g // n`` with the players in rotation
    ``g % n`` (n seats: 4, or 3 in 3-player Kierki). A strategy file recorded with a
    relative path is found relative to the run folder (runs written before paths were
    recorded that way: relative to the ``cwd`` they recorded).

    trust: load strategies that are not built-in (files, modules, entry points), which
    runs their code. Without it such a run is refused, naming what would be imported:
    a run folder is data, and data from elsewhere must not run code by surprise.

    Returns (manifest, rules, deal records, game rows, recorded deal rows or None).
    :raises ReplayError: another seed scheme, a game outside the run (exit 2), or
        strategies that need ``trust`` (exit 2).
    :raises ManifestError: no manifest, or a damaged one (the message names the field).
    """
    manifest, rules = load_manifest(run_dir)
    if manifest["seed_scheme"] != SEED_SCHEME:
        raise ReplayError(
            f"{run_dir} was written with seed scheme {manifest['seed_scheme']}; this hsim "
            f"uses {SEED_SCHEME} and cannot replay it"
        )
    per = rules.players if manifest.get("duplicate") else 1
    first, games = manifest["first_game"] * per, manifest["games"] * per
    if not first <= game < first + games:
        raise ReplayError(
            f"game {game} is not in this run (games {first}..{first + games - 1})",
            exit_code=EXIT_USAGE,
        )
    parts = manifest.get("parts")
    if manifest.get("status") != "complete" and isinstance(parts, list):
        board = game // per
        played = sorted((e["start"], e["stop"]) for e in parts if isinstance(e, dict))
        if not any(a <= board < b for a, b in played):
            done = ", ".join(f"{a * per}..{b * per - 1}" for a, b in played) or "none"
            raise ReplayError(
                f"game {game} was not played before the run stopped (games played: {done}); "
                "`hsim resume` the run first, or give --seed, --game and --players to play "
                "it without the run folder",
                exit_code=EXIT_USAGE,
            )
    specs = [_from_run_folder(p["spec"], manifest, run_dir) for p in manifest["players"]]
    if not trust:
        code = untrusted_code(specs)
        if code:
            raise ReplayError(
                f"{run_dir} names strategies that are not built-in; replaying it would "
                f"import and run: {'; '.join(code)}. Replay it with --trust if you trust "
                "that code (a run folder from elsewhere can name any file or module)",
                exit_code=EXIT_USAGE,
            )
    players = load_players(specs, rules)
    board, rotation = board_and_rotation(game, per)
    records, game_rows = replay_game(
        rules, rotate(players, rotation), manifest["seed"], board, watch
    )
    return manifest, rules, records, game_rows, _recorded_rows(run_dir, game)


def _from_run_folder(spec: str, manifest: dict, run_dir: Path) -> str:
    """Return a recorded ``spec`` ready to load: a relative ``file.py:attr`` path is taken
    relative to the run folder, or for a run that recorded ``cwd`` (written before paths
    were recorded relative to the run), relative to that."""
    cwd = manifest.get("cwd")
    return spec_from_run(spec, Path(cwd) if isinstance(cwd, str) else Path(run_dir))


def _recorded_rows(run_dir: Path, game: int) -> np.ndarray | None:

    folder = Path(run_dir) / "deals"
    if not any(folder.glob("*.parquet")):  # no part written (e.g. a run that failed early)
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


def _kierki_lines(r: DealRecord, names: list[str]) -> list[str]:
    lines = [f"deal {r.deal}  {r.kind}  dealer seat {r.dealer}"]
    lines.append(f"  deal string: {format_deal(r.hands)}")  # as in Hearts: seat 0 first
    for s, hand in enumerate(r.hands):
        lines.append(f"  seat {s} ({names[s]}): {format_mask(sum(1 << c for c in hand))}")
    if r.trump_chooser >= 0:
        trump = TRUMP_CHOICES[int(r.rows[0, D_TRUMP])]
        seen = " ".join(format_card(c) for c in r.trump_seen)
        lines.append(f"  trump {trump}: named by seat {r.trump_chooser}, who saw {seen}")
    if r.kind == "lottery" and r.lottery:
        rank = format_card(r.lottery[0][1])[0]
        lines.append(
            f"  lottery, starting rank {rank}: plays as seat:card, in order (a seat without "
            "a legal card passes, unshown)"
        )
        for k in range(0, len(r.lottery), 8):
            chunk = r.lottery[k : k + 8]
            lines.append("  plays: " + "  ".join(f"{s}:{format_card(c)}" for s, c in chunk))
        for s in range(len(r.rows)):
            place = int(r.rows[s, D_LOTTERY_PLACE])
            if place:
                lines.append(f"  seat {s} went out {('first', 'second')[place - 1]}")
    return lines


def format_record(r: DealRecord, names: list[str]) -> list[str]:
    """Return the printed lines of one deal."""
    if r.kind is not None:
        lines = _kierki_lines(r, names)
    else:
        lines = [
            f"deal {r.deal}  pass {r.pass_direction}",
            f"  deal string: {format_deal(r.hands)}",
        ]
        for s, hand in enumerate(r.hands):
            lines.append(f"  seat {s} ({names[s]}): {format_mask(sum(1 << c for c in hand))}")
        if r.pass_direction != "hold":
            lines.append("  passes: " + " / ".join(format_mask(m) for m in r.passes))
    for t, trick in enumerate(r.tricks):
        cards = " ".join(format_card(c) for _, c in trick.plays)
        lines.append(
            f"  trick {t + 1:>2}: seat {trick.leader} leads  {cards:<12} won by seat "
            f"{trick.winner}  {trick.points:>2} points"
        )
    rows = r.rows
    w = 4 if r.kind is None else 5

    def line(label: str, col: int) -> str:
        return f"  {label:<11} " + "  ".join(f"{int(x):>{w}}" for x in rows[:, col])

    lines.append(line("points:", D_POINTS))
    for s in range(len(rows)):
        if rows[s, D_MOON]:
            lines.append(f"  seat {s} shot the moon ({MOON_CHOICES[int(rows[s, D_MOON_CHOICE])]})")
    lines.append(line("deal score:", D_DEAL_SCORE))
    lines.append(line("game score:", D_SCORE))
    return lines


def run_game_seating(manifest: dict, rules: Rules, game: int) -> tuple[list[str], str]:
    """Return (the player spec in each seat, a label) for game ``game`` of a run.

    The label is ``game G of run seed S``, with ``(board B, rotation R)`` in duplicate
    runs, whose seats rotate (:mod:`hsim.model.seating`).
    """
    specs = [p["spec"] for p in manifest["players"]]
    label = f"game {game}"
    if manifest.get("duplicate"):
        board, rotation = board_and_rotation(game, rules.players)
        specs = rotate(specs, rotation)
        label += f" (board {board}, rotation {rotation})"
    return specs, f"{label} of run seed {manifest['seed']}"


def format_header(rules: Rules, preset: str, specs: list[str], what: str) -> str:
    """Return the first line: what is replayed, the rules string and the players."""
    return f"{what}  rules {canonical(rules, preset)}  players {', '.join(specs)}"
