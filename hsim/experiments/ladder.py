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
from hsim.model.rules import Rules
from hsim.runner.config import MAX_CHUNK_SIZE, MAX_GAME_STOP, RunConfig, check_int, validate
from hsim.runner.lock import FolderError, claim
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
) -> Rung:
    """Play one rung into run folder ``out`` (replaced if it holds a run) and measure it.

    cluster: a :class:`hsim.runner.cluster.DaskCluster` to play on instead of ``workers``
    local processes.
    """
    play_pair(upper, lower, boards, seed, workers, out, rules, progress, cluster)
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
) -> None:
    """Play ``boards`` duplicate boards of ``upper`` against copies of ``lower``
    (:func:`rung_config`) into run folder ``out``, replaced if it holds a run: a ladder's
    rung or a gauntlet's pairing. cluster: see :func:`run_rung`.

    :raises LadderStopped: a signal stopped the run (named ``label``, default the rung's).
    """
    config = rung_config(upper, lower, boards, seed, rules)
    result = run_tournament(
        config, out, workers=workers, overwrite=True, progress=progress, cluster=cluster
    )
    if result.status == "interrupted":
        raise LadderStopped(label or rung_label(upper, lower, rules), result, boards)


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

    :raises RunError: another hsim process holds it, or it cannot be created.
    """
    out = Path(out)
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

    :raises ConfigError: fewer than two bots, fewer than 2 boards, or a rung's setting
        out of range. :raises StrategyError: a bot that cannot be loaded or does not play
        the rules' game.
    """
    if isinstance(bots, str) or len(bots) < 2:
        raise ConfigError(f"a ladder needs at least two bots, not {list(bots)!r}")
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
):
    """Yield a :class:`Rung` for each consecutive pair of ``bots`` (weakest first); every
    rung is checked (:func:`check_ladder`) before the first is played. cluster: see
    :func:`run_rung`.

    echo: called before each rung with a line naming it (``rung 2 of 3: duck over 3 x
    lowcard, 4,000 games``), to head its progress bar.
    """
    check_ladder(bots, boards, seed, workers, rules)
    pairs = list(zip(bots, bots[1:], strict=False))
    with holding(out):
        for k, (lower, upper) in enumerate(pairs, 1):
            if echo is not None:
                games = boards * rules.players
                label = rung_label(upper, lower, rules)
                echo(f"rung {k} of {len(pairs)}: {label}, {games:,} games")
            name = f"{slug(upper)}-over-{slug(lower)}"
            yield run_rung(
                upper, lower, boards, seed, workers, out / name, rules, progress, cluster
            )


def slug(spec: str) -> str:
    """Return ``spec`` as a folder name: letters and digits kept, the rest ``_``."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec).strip("_")
