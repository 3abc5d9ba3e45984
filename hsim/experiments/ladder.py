"""The strength ladder: each bot against copies of the one below, on duplicate deals.

For each rung (``upper`` over ``lower``) a duplicate tournament plays ``boards`` boards
with the players ``upper, lower, lower, ...`` (one seat each: 4 seats, 3 in 3-player
Kierki) in every rotation. A board is the unit of independence (its games share the
deals), so the interval is taken over per-board values: the upper bot's edge per deal
over the lower copies, in ``deal_score``. In Hearts lower is better, so the edge is the
lower copies' mean minus the upper bot's, where a deal's score is after the moon and
bonuses (a successful moon counts 0 for the shooter and 26 for the others, not 26 raw
points); in Kierki higher is better (docs/rules.md B5), so it is the upper bot's mean minus
the lower copies'. A rung *holds* when that advantage's 95% interval lies above zero.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hsim.analysis.scan import BATCH_ROWS, open_run
from hsim.analysis.stats import Interval, mean_interval
from hsim.errors import ConfigError, RunError
from hsim.model.rules import Rules, canonical
from hsim.runner.config import (
    MAX_CHUNK_SIZE,
    MAX_GAME_STOP,
    RunConfig,
    check_int,
    code_changed,
    validate,
)
from hsim.runner.lock import (
    FolderError,
    claim,
    claim_new,
    is_fresh,
    is_locked,
    owner_text,
    read_owner,
    replace_problem,
    run_folder_above,
)
from hsim.runner.manifest import MANIFEST, ManifestError, read_manifest
from hsim.runner.resume import config_from_manifest, done_chunks, resume_run
from hsim.runner.run import run_tournament

if TYPE_CHECKING:  # pragma: no cover
    from hsim.runner.config import RunConfig

#: The default ladder in Hearts. ``pimc`` (the next rung up) is opt-in, with ``--bots
#: heuristic,pimc``: it plays ~500x slower than ``heuristic``, minutes per rung.
DEFAULT_BOTS = ("random", "lowcard", "duck", "heuristic")
#: The default ladder under Kierki rules (the Hearts bots above do not all play Kierki).
KIERKI_DEFAULT_BOTS = ("random", "kierki")
#: A rung is played in at least this many chunks, so that its progress bar moves (and
#: shows the time left) from early on, even for a slow bot.
RUNG_CHUNKS = 64


def default_bots(rules: Rules) -> tuple[str, ...]:
    """Return the default ladder, weakest first, for the game of ``rules``."""
    return KIERKI_DEFAULT_BOTS if rules.is_kierki else DEFAULT_BOTS


@dataclasses.dataclass
class Rung:
    """One comparison: ``upper`` against copies of ``lower`` (one per other seat).

    advantage: upper's edge in mean score per deal over lower, per board (positive:
    upper is stronger; see the module docstring for its sign in each game), with its
    interval. deals: deals played in all (each counted once, not once per seat).
    """

    upper: str
    lower: str
    advantage: Interval
    deals: int
    run_dir: Path

    @property
    def holds(self) -> bool:
        """True when the upper bot is better with the interval excluding zero."""
        return self.advantage.low > 0


def board_advantages(
    deals: pd.DataFrame,
    upper_player: int = 0,
    column: str = "deal_score",
    higher_is_better: bool = False,
) -> np.ndarray:
    """Return, per board, ``upper_player``'s edge in mean ``column`` per deal over the
    other players: their mean minus its mean when lower is better (Hearts), its mean
    minus theirs when ``higher_is_better`` (Kierki). Positive: ``upper_player`` did better.

    deals: a duplicate run's ``deals`` dataset (columns board, player and ``column``).
    """
    is_upper = deals["player"] == upper_player
    per = deals.groupby(["board", is_upper])[column].mean().unstack()
    edge = per[True] - per[False] if higher_is_better else per[False] - per[True]
    return edge.to_numpy()


#: The deals columns a duplicate run's figures are tallied from (:func:`board_sums`).
TALLY_COLUMNS = ["board", "game", "deal", "player", "moon", "deal_score"]


def board_sums(deals: pd.DataFrame) -> pd.DataFrame:
    """Return per board (the index, sorted) the sums a duplicate run's figures come from.

    deals: rows of whole games of a duplicate run's ``deals`` dataset (the columns of
    :data:`TALLY_COLUMNS`), the upper bot or candidate being player 0. Columns:
    ``upper_deals``, ``upper_score``, ``upper_moons`` (its rows: one per deal, their deal
    scores, the moons it shot), ``other_rows``, ``other_score`` (the other seats' rows and
    deal scores) and ``conceded`` (deals in which another seat shot the moon). Sums add
    up: the sums of two sets of games are the sums of their union.
    """
    upper = deals["player"].to_numpy() == 0
    score = deals["deal_score"].to_numpy().astype(np.int64)
    moon = deals["moon"].to_numpy().astype(bool)
    theirs = pd.Series(moon & ~upper, index=deals.index)
    conceded = theirs.groupby([deals["board"], deals["game"], deals["deal"]]).any()
    sums = pd.DataFrame({
        "upper_deals": upper.astype(np.int64),
        "upper_score": np.where(upper, score, 0),
        "upper_moons": (moon & upper).astype(np.int64),
        "other_rows": (~upper).astype(np.int64),
        "other_score": np.where(upper, 0, score),
    }).groupby(deals["board"].to_numpy()).sum()  # fmt: skip
    sums["conceded"] = conceded.groupby(level=0).sum().astype(np.int64)
    return sums


def run_board_sums(run_dir: Path, rows: int | None = None) -> pd.DataFrame:
    """Return :func:`board_sums` of run folder ``run_dir``'s deals, read ``rows`` rows of
    whole games at a time (default :data:`hsim.analysis.scan.BATCH_ROWS`): the memory
    grows with the boards, not with the deals.

    :raises RunFolderError: the folder or its deals cannot be read.
    """
    batches = open_run(run_dir).batches("deals", TALLY_COLUMNS, rows or BATCH_ROWS)
    parts = [board_sums(table.to_pandas()) for table in batches]
    return pd.concat(parts).groupby(level=0).sum() if parts else board_sums(_no_deals())


def _no_deals() -> pd.DataFrame:
    return pd.DataFrame({c: np.zeros(0, np.int64) for c in TALLY_COLUMNS})


def advantages_from_sums(sums: pd.DataFrame, higher_is_better: bool = False) -> np.ndarray:
    """Return per board (``sums``' order) the upper player's edge in mean deal score over
    the other seats, as :func:`board_advantages`: points per deal, positive when it did
    better. sums: :func:`board_sums`."""
    mine = sums["upper_score"] / sums["upper_deals"]
    theirs = sums["other_score"] / sums["other_rows"]
    return (mine - theirs if higher_is_better else theirs - mine).to_numpy()


def rung_players(upper: str, lower: str, rules: Rules) -> tuple[str, ...]:
    """Return the seating of a rung: ``upper`` then ``lower`` at every other seat."""
    return (upper,) + (lower,) * (rules.players - 1)


def rung_label(upper: str, lower: str, rules: Rules) -> str:
    """Return a rung's name as the ladder prints it: ``heuristic over 3 x duck``."""
    return f"{upper} over {rules.players - 1} x {lower}"


def ladder_labels(bots, rules: Rules) -> list[str]:
    """Return the label of every rung of ``bots`` (weakest first), in playing order."""
    return [rung_label(u, lo, rules) for lo, u in zip(bots, bots[1:], strict=False)]


def format_header(labels: list[str]) -> str:
    """Return the ladder's header line for rungs named ``labels`` (the widest sets the
    first column's width, so long specs keep the columns aligned)."""
    w = _label_width(labels)
    return f"{'rung':<{w}} {'boards':>6} {'deals':>9}  {'advantage, 95% CI':<27} holds"


def format_rung(rung: Rung, labels: list[str], rules: Rules) -> str:
    """Return the printed line of ``rung``, aligned with :func:`format_header`."""
    ci = rung.advantage
    estimate = f"{ci.estimate:+.3f} [{ci.low:+.3f}, {ci.high:+.3f}]"
    return (
        f"{rung_label(rung.upper, rung.lower, rules):<{_label_width(labels)}} {ci.n:>6} "
        f"{rung.deals:>9,}  {estimate:<27} {'yes' if rung.holds else 'NO'}"
    )


def rung_dict(rung: Rung, rules: Rules) -> dict:
    """Return ``rung`` as a dict of the figures its printed line shows (full precision):
    rung (its label), upper, lower, boards, deals, advantage (estimate, low, high, n),
    holds, run_dir."""
    ci = rung.advantage
    return {
        "rung": rung_label(rung.upper, rung.lower, rules),
        "upper": rung.upper,
        "lower": rung.lower,
        "boards": ci.n,
        "deals": rung.deals,
        "advantage": {"estimate": ci.estimate, "low": ci.low, "high": ci.high, "n": ci.n},
        "holds": "yes" if rung.holds else "NO",
        "run_dir": str(rung.run_dir),
    }


def _label_width(labels: list[str]) -> int:
    return max([len("rung"), *map(len, labels)]) + 2


def run_rung(
    upper: str,
    lower: str,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
    cluster=None,
    action: str = "replace",
) -> Rung:
    """Play one rung into run folder ``out`` and measure it. action: see
    :func:`play_pair` (default: replace a run there).

    cluster: a :class:`hsim.runner.cluster.DaskCluster` to play on instead of ``workers``
    local processes.
    """
    play_pair(upper, lower, boards, seed, workers, out, rules, progress, cluster, None, action)
    sums = run_board_sums(out)
    advantage = mean_interval(advantages_from_sums(sums, higher_is_better=rules.is_kierki))
    rows = int(sums["upper_deals"].sum() + sums["other_rows"].sum())
    return Rung(upper, lower, advantage, rows // rules.players, out)


def play_pair(
    upper: str,
    lower: str,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
    cluster=None,
    label: str | None = None,
    action: str = "replace",
) -> None:
    """Play ``boards`` duplicate boards of ``upper`` against copies of ``lower``
    (:func:`rung_config`) into run folder ``out``: a ladder's rung or a gauntlet's
    pairing. cluster: see :func:`run_rung`. action: what :func:`plan_folder` decided
    (``play`` a new run, ``replace`` the run there, ``resume`` it, or ``keep`` it).

    :raises LadderStopped: a signal stopped the run (named ``label``, default the rung's).
    """
    if action == "keep":
        return
    if action == "resume":
        result = resume_run(out, workers=workers, progress=progress, cluster=cluster)
    else:
        config = rung_config(upper, lower, boards, seed, rules)
        result = run_tournament(
            config, out, workers=workers, overwrite=action == "replace", progress=progress,
            cluster=cluster,
        )  # fmt: skip
    if result.status == "interrupted":
        raise LadderStopped(label or rung_label(upper, lower, rules), result, boards)


#: What ``--resume`` and ``--overwrite`` ask of the run folders already in a ladder's or
#: gauntlet's ``--out``.
RESUME, OVERWRITE = "resume", "overwrite"


def plan_folder(folder: Path, config: RunConfig, mode: str | None, unit: str) -> str:
    """Return what to do with ``folder``, the run folder of one rung or pairing (``unit``,
    its name) that plays ``config``, before any rung or pairing is played:

    - ``play``: there is no run in it yet;
    - ``replace``: ``mode`` is :data:`OVERWRITE`, or :data:`RESUME` and its run (of these
      settings but for a strategy file changed since) failed because of a strategy:
      continuing it would fail the same way (:func:`plan_folders` empties it);
    - ``keep`` (:data:`RESUME`): its run is complete, with these settings and every part
      intact: it is read, not played again;
    - ``resume`` (:data:`RESUME`): its run of these settings stopped (interrupted,
      killed, or failed by a lost worker, the disk or a timeout): ``hsim resume`` plays
      the rest.

    :raises RunError: it is a link or a file; another hsim process plays in it; it holds a
        run and ``mode`` is None; it is to be replaced and holds what hsim does not write;
        or :data:`RESUME` and its run cannot be continued as this one: other settings
        (named), a strategy file or the compiled bots changed since, another hsim
        version, or a ``run.json`` that cannot be read.
    """
    if folder.is_symlink():
        raise RunError(
            f"{folder}, the folder of {unit}, is a link: hsim does not write through links "
            "(it could replace another folder's run); remove the link, or choose another --out"
        )
    if folder.exists() and not folder.is_dir():
        raise RunError(
            f"{folder}, the folder of {unit}, is a file; move it, or choose another --out"
        )
    if folder.is_dir() and is_locked(folder):  # an hsim run plays there now (lock.claim)
        raise RunError(
            f"{folder}, the folder of {unit}, is in use by {owner_text(read_owner(folder))}; "
            "wait for it to finish or stop it, or choose another --out"
        )
    if not folder.exists() or is_fresh(folder):
        return "play"
    if mode is None and not (folder / MANIFEST).exists():
        raise RunError(
            f"{folder}, the folder of {unit}, holds files that are not an hsim run; move "
            "them, or choose another --out"
        )
    if mode is None:
        raise RunError(
            f"{folder} already holds the run of {unit}; give --resume to continue (what "
            "was played with the same settings is kept), --overwrite to play everything "
            "again, or another --out"
        )
    if mode == RESUME:
        try:
            manifest = read_manifest(folder)
            recorded = config_from_manifest(manifest, folder)
        except (ManifestError, OSError, RunError) as exc:
            reason = f"it has no {MANIFEST}" if isinstance(exc, FileNotFoundError) else exc
            raise RunError(
                f"cannot continue {unit} in {folder}: {reason}. Move that folder away and "
                "give --resume again to play it anew, or --overwrite to play everything again"
            ) from None
        failed = manifest.get("status") == "failed" and manifest.get("error_kind") in (
            "strategy",
            None,
        )
        differs = _settings_differ(manifest, recorded, config, files=not failed)
        if differs:
            raise RunError(
                f"cannot continue {unit}: {folder} holds a run with {differs}. Give the "
                "settings it was played with; or move that folder away and give --resume "
                "again to play it anew, or --overwrite to play everything again"
            )
        if not failed:
            if manifest.get("status") == "complete":
                done = done_chunks(folder, manifest, recorded)
                if sum(e["stop"] - e["start"] for e in done.values()) == recorded.games:
                    return "keep"
            return "resume"
    problem = replace_problem(folder)
    if problem:
        raise RunError(
            f"cannot replace the run of {unit}: {folder} is not an hsim run folder "
            f"({problem}), and hsim deletes nothing else; move what is yours out of it, or "
            "choose another --out"
        )
    return "replace"


def plan_folders(runs, mode: str | None) -> list[str]:
    """Plan the folder of every rung or pairing (:func:`plan_folder`; runs: (folder,
    config, unit) each), then empty the folder of every ``replace`` before the first is
    played (so that a run stopped after this holds only its own runs, and ``--resume``
    continues it); return the actions, ``replace`` turned into ``play``.

    :raises RunError: as :func:`plan_folder` (nothing is emptied then); or a folder is in
        use by another hsim process, or changed since it was planned
        (:func:`hsim.runner.lock.claim_new`'s checks).
    """
    actions = [plan_folder(folder, config, mode, unit) for folder, config, unit in runs]
    for (folder, _, _), action in zip(runs, actions, strict=True):
        if action == "replace":
            try:
                claim_new(folder, overwrite=True).release()
            except FolderError as exc:
                raise RunError(str(exc)) from None
    return ["play" if action == "replace" else action for action in actions]


def _settings_differ(
    manifest: dict, recorded: RunConfig, config: RunConfig, files: bool = True
) -> str | None:
    """Name how the run ``manifest`` records (``recorded``: its settings) differs from
    ``config`` (``"seed 2, not 1"``), or None when it is the same run. files: also compare
    each strategy file named by ``config`` with the one the run played."""
    pairs = [
        ("players", ", ".join(recorded.names), ", ".join(config.names)),
        ("rules", recorded.rules, config.rules),
        ("boards", recorded.games, config.games),
        ("seed", recorded.seed, config.seed),
        ("first game", recorded.first_game, config.first_game),
        ("duplicate", recorded.duplicate, config.duplicate),
        ("record", recorded.record, config.record),
    ]
    for what, then, now in pairs:
        if then != now:
            if what == "rules":
                then, now = canonical(then), canonical(now)
            elif isinstance(then, int) and not isinstance(then, bool):
                then, now = f"{then:,}", f"{now:,}"
            return f"{what} {then}, not {now}"
    return code_changed(manifest, config.players, files)


class LadderStopped(Exception):
    """A signal (Ctrl-C, SIGTERM) stopped a rung: the ladder stops there, and what the rung
    played is not a result. rung: its label; result: its run's
    :class:`hsim.runner.run.RunResult` (``exit_code`` 130 or 143); boards: the rung's."""

    def __init__(self, rung: str, result, boards: int) -> None:
        super().__init__(f"interrupted during the rung {rung}")
        self.rung, self.result, self.boards = rung, result, boards


def rung_config(upper: str, lower: str, boards: int, seed: int, rules: Rules) -> RunConfig:
    """Return the duplicate run of one rung: ``boards`` boards of ``upper`` over ``lower``,
    in at least :data:`RUNG_CHUNKS` chunks of at most ``MAX_CHUNK_SIZE`` games (the
    results do not depend on it), so that the rung's progress bar shows the time left
    early on."""

    return RunConfig(
        rules=rules,
        players=rung_players(upper, lower, rules),
        games=boards,
        seed=seed,
        duplicate=True,
        # at most MAX_CHUNK_SIZE games a chunk however many boards (a board is a game per seat)
        chunk_size=max(1, min(-(-boards // RUNG_CHUNKS), MAX_CHUNK_SIZE // rules.players)),
    )


@contextlib.contextmanager
def holding(out: Path):
    """Hold ``out``, the folder of a ladder's rungs or a gauntlet's pairings (created if
    missing), for this process while the block runs: a second ladder or gauntlet given
    the same ``--out`` is refused, instead of replacing the folders of the first. The
    folders this created are removed again if nothing was written into them.

    :raises RunError: another hsim process holds it, it is (or lies inside) a run
        folder, or it cannot be created.
    """
    out = Path(out)
    run = out if (out / MANIFEST).is_file() else run_folder_above(out)
    if run is not None:
        raise RunError(
            f"--out {out} is {'' if run == out else 'inside '}the run folder {run}: a ladder "
            "or gauntlet writes a folder of run folders there, which would break reading "
            "that run; choose another --out"
        )
    created = [p for p in (out, *out.parents) if not p.exists()]  # the deepest first
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = claim(out)
    except FolderError as exc:
        _remove_empty(created)
        raise RunError(str(exc)) from None
    except OSError as exc:
        _remove_empty(created)
        raise RunError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    try:
        yield
    finally:
        lock.release()
        _remove_empty(created)


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (the deepest first) while they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def check_ladder(bots, boards: int, seed: int, workers: int, rules: Rules) -> None:
    """Check every rung's settings (:func:`hsim.runner.config.validate`) before any is
    played.

    :raises ConfigError: fewer than two bots, a rung twice, fewer than 2 boards, or a
        rung's setting out of range.
    :raises StrategyError: a bot that cannot be loaded or does not play the rules' game.
    """
    if isinstance(bots, str) or len(bots) < 2:
        raise ConfigError(f"a ladder needs at least two bots, not {list(bots)!r}")
    seen = set()
    for lower, upper in zip(bots, bots[1:], strict=False):
        name = f"{slug(upper)}-over-{slug(lower)}"  # its run folder
        if name in seen:
            raise ConfigError(
                f"--bots holds the rung {upper} over {lower} twice; a ladder plays each rung "
                "once: drop the repeat"
            )
        seen.add(name)
    check_pairs(list(zip(bots[1:], bots, strict=False)), boards, seed, workers, rules)


def check_pairs(pairs, boards: int, seed: int, workers: int, rules: Rules) -> None:
    """Check the run of every (upper, lower) pair (:func:`rung_config`) before any is
    played.

    :raises ConfigError: fewer than 2 boards, or a run's setting out of range.
        :raises StrategyError: a bot that cannot be loaded or does not play the rules' game.
    """
    check_int("--boards", boards, 2, MAX_GAME_STOP // rules.players)  # a game per seat
    for upper, lower in pairs:
        validate(rung_config(upper, lower, boards, seed, rules), workers)


def run_ladder(
    bots,
    boards: int,
    seed: int,
    workers: int,
    out: Path,
    rules: Rules,
    progress: bool = False,
    echo=None,
    cluster=None,
    mode: str | None = None,
):
    """Yield a :class:`Rung` for each consecutive pair of ``bots`` (weakest first); every
    rung is checked (:func:`check_ladder`), and its folder planned (:func:`plan_folders`,
    ``mode``: :data:`RESUME`, :data:`OVERWRITE` or None), before the first is played.
    cluster: see :func:`run_rung`.

    echo: called before each rung with a line naming it (``rung 2 of 3: duck over 3 x
    lowcard, 4,000 games``), to head its progress bar.

    :raises RunError: ``out`` is in use or cannot be created, or a rung's folder cannot
        be used as ``mode`` asks (nothing is played).
    """
    check_ladder(bots, boards, seed, workers, rules)
    pairs = list(zip(bots, bots[1:], strict=False))
    with holding(out):
        folders = [out / f"{slug(upper)}-over-{slug(lower)}" for lower, upper in pairs]
        runs = [
            (folder, rung_config(upper, lower, boards, seed, rules),
             f"the rung {rung_label(upper, lower, rules)}")
            for folder, (lower, upper) in zip(folders, pairs, strict=True)
        ]  # fmt: skip
        actions = plan_folders(runs, mode)
        for k, ((lower, upper), folder, action) in enumerate(
            zip(pairs, folders, actions, strict=True), 1
        ):
            if echo is not None:
                games = boards * rules.players
                label = rung_label(upper, lower, rules)
                echo(f"rung {k} of {len(pairs)}: {label}, {games:,} games{ACTION_NOTE[action]}")
            yield run_rung(
                upper, lower, boards, seed, workers, folder, rules, progress, cluster, action
            )


#: What the line heading a rung or pairing adds for each :func:`plan_folder` action.
ACTION_NOTE = {
    "play": "",
    "replace": "",
    "keep": " (played before: read from its folder)",
    "resume": " (stopped before: playing the rest)",
}


def slug(spec: str) -> str:
    """Return ``spec`` as a folder name: letters and digits kept, the rest ``_``."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec).strip("_")
