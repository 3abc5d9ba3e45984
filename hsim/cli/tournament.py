"""``hsim tournament``: play seeded games into a run folder and print the summary."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from hsim.cli.common import (
    HELP,
    RUN_DIR_KEY,
    announce_compile,
    build_rules,
    check_environment,
    cluster_from_options,
    cluster_option,
    default_out,
    keep_compile_seconds,
    out_option,
    overwrite_option,
    player_option,
    player_specs,
    players_option,
    progress_option,
    retries_option,
    rule_option,
    rules_option,
    seed_option,
    user_error,
    workers_option,
)
from hsim.errors import ConfigError, StopRequested
from hsim.model.rules import RulesError, scoring_variant


class DecisionSeconds(click.ParamType):
    """``--decision-timeout``: seconds, 0..MAX_DECISION_TIMEOUT (0: no limit); NaN and
    infinity are refused as usage errors, where they failed the run in its first game."""

    name = "seconds"

    def convert(self, value, param, ctx):
        # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
        from hsim.runner.config import check_decision_timeout

        try:
            seconds = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        try:
            check_decision_timeout(seconds, "")
        except ConfigError as exc:
            self.fail(str(exc).strip(), param, ctx)
        return seconds


decision_timeout_option = click.option(
    "--decision-timeout",
    type=DecisionSeconds(),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds a plain-Python strategy may take per decision before the run stops "
    "with a strategy error (0: no limit, at most 1e6; compiled strategies are not timed).",
)


@click.command(context_settings=HELP, short_help="Play seeded games into a run folder.")
@players_option
@player_option
@click.option("--games", type=click.IntRange(min=1), required=True, help="Number of games.")
@seed_option()
@rules_option
@rule_option
@workers_option
@cluster_option
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=None,
    help="Games per chunk (a Parquet part each); results do not depend on it.",
)
@click.option(
    "--first-game",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Index of the first game (to split one seeded run across machines).",
)
@out_option("results/run-<time>-seed<seed>-<random>")
@overwrite_option
@click.option(
    "--score-also",
    "score_also",
    multiple=True,
    metavar="NAME=VALUE[,...]",
    help="Also score every game under these scoring options (one scoring per flag; "
    "repeatable); deals go on until every scoring's game has ended.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every game once per rotation of the players over the seats, with "
    "the same deals, so card luck cancels (--games counts boards).",
)
@click.option(
    "--record",
    type=click.Choice(["games", "deals", "plays"]),
    default="deals",
    show_default=True,
    help="What to write: games (the games dataset only), deals (also one row per seat "
    "per deal) or plays (also one row per card played).",
)
@retries_option
@decision_timeout_option
@progress_option
def tournament(
    players,
    player_list,
    games,
    seed,
    preset,
    rule_items,
    workers,
    cluster_address,
    chunk_size,
    first_game,
    out,
    overwrite,
    score_also,
    duplicate,
    record,
    retries,
    decision_timeout,
    progress,
):
    """Play seeded games and write per-deal and per-game Parquet datasets.

    \b
    The run owns its --out folder while it plays (a second run into it is refused).
    Ctrl-C or SIGTERM stop it (status interrupted, exit 130 or 143); a stopped or
    killed run is continued with `hsim resume RUN_DIR`.
    \b
    Examples:
      hsim tournament --players random,lowcard,random,lowcard --games 100000 --seed 7
      hsim tournament ... --cluster tcp://10.0.0.5:8786 --out /shared/runs/r1
    """
    started = time.perf_counter()
    rules, preset = build_rules(preset, rule_items)
    try:
        scorings = tuple(scoring_variant(rules, text) for text in score_also)
    except RulesError as exc:
        raise user_error(exc) from None
    specs = player_specs(players, player_list)
    if out is None:
        out = default_out("run", seed)

    plan = announce_compile(specs)
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.config import RunConfig, default_workers
    from hsim.runner.run import RunError, run_tournament

    click.get_current_context().meta[RUN_DIR_KEY] = out
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError

    config = RunConfig(
        rules=rules,
        players=specs,
        games=games,
        seed=seed,
        first_game=first_game,
        rules_preset=preset,
        chunk_size=chunk_size,
        duplicate=duplicate,
        score_also=scorings,
        decision_timeout=decision_timeout,
        record=record,
    )
    workers_default = default_workers(games * config.rotations)
    try:
        with cluster_from_options(cluster_address, workers, workers_default) as cluster:
            result = run_tournament(
                config,
                out,
                workers or workers_default,
                overwrite,
                progress,
                argv=["hsim", *sys.argv[1:]],
                started=started,
                retries=retries,
                cluster=cluster,
            )
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    except StopRequested as exc:
        _stopped_before_start(exc)
    keep_compile_seconds(plan, result.compiled, result.compile_s)
    _finish(result, duplicate, rules.is_kierki, config.scoring_names()[1:])


@click.command(context_settings=HELP, short_help="Continue a stopped run folder.")
@click.argument("run_dir", type=click.Path(path_type=Path))
@workers_option
@cluster_option
@retries_option
@click.option(
    "--decision-timeout",
    type=DecisionSeconds(),
    default=None,
    metavar="SECONDS",
    help="Seconds a plain-Python strategy may take per decision (0: no limit, at most "
    "1e6).  "
    "[default: the run's own]",
)
@progress_option
@click.option(
    "--trust",
    is_flag=True,
    help="Let the run folder's strategies that are not built-in (files, modules, entry "
    "points) be imported: that runs their code.",
)
def resume(run_dir, workers, cluster_address, retries, decision_timeout, progress, trust):
    """Continue a stopped run folder: play exactly the games it is missing.

    \b
    RUN_DIR may be interrupted, failed (not by a strategy error) or running with a
    dead owner (its process was killed); its run.json gives the rules, players, seed
    and chunks. Parts left half-recorded or damaged are played again. The datasets
    then equal those of a run that was never stopped. A run whose missing games would
    be played by other code (another hsim, edited built-in bots, a strategy file or an
    engine: program changed since) is refused, naming it.
    \b
    A run started with --cluster may be resumed locally or on a cluster (give --cluster
    again), and the other way round: the datasets are the same.
    \b
    A run folder's strategies that are not built-in are loaded only with --trust: its
    run.json may name any strategy file or module, and loading one runs its code.
    
    Example:
      hsim resume results/run-20261129-203000-seed7
    """
    started = time.perf_counter()
    check_environment()
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.resume import RESUME_UNSTARTED, resume_run
    from hsim.runner.run import RunError
    from hsim.strategy.contract import StrategyError

    click.get_current_context().meta[RUN_DIR_KEY] = Path(run_dir)
    try:
        with cluster_from_options(cluster_address, workers) as cluster:
            result = resume_run(
                run_dir,
                workers,
                progress,
                retries,
                -1.0 if decision_timeout is None else decision_timeout,
                argv=["hsim", *sys.argv[1:]],
                started=started,
                cluster=cluster,
                trust=trust,
            )
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    except StopRequested as exc:
        _stopped_before_start(exc, RESUME_UNSTARTED)
    if result.status == "complete" and result.games_played == 0:
        if result.removed:
            shown = ", ".join(result.removed[:5])
            more = f" and {len(result.removed) - 5} more" if len(result.removed) > 5 else ""
            click.echo(
                f"{run_dir} is complete: deleted {len(result.removed)} files that are not "
                f"parts of the run ({shown}{more})"
            )
        else:
            click.echo(f"{run_dir} is already complete: nothing to resume")
        return
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.manifest import read_manifest

    manifest = read_manifest(run_dir)
    kierki = bool(manifest["rules"]["options"].get("game") == "kierki")
    if result.status == "complete":
        click.echo(
            f"resumed: played the {result.games_played:,} missing games; the run is complete"
        )
    _finish(result, bool(manifest.get("duplicate")), kierki, manifest.get("score_also") or ())


def _finish(result, duplicate: bool, kierki: bool, score_also=()) -> None:
    """Print the summary (and each --score-also scoring's); after a stop, one line and
    exit 130 (SIGINT) or 143 (SIGTERM).
    """
    if result.status == "interrupted":
        click.echo(
            f"interrupted: {result.games_done:,} games are written; `hsim resume "
            f"{result.run_dir}` plays the rest (run.json says interrupted)",
            err=True,
        )
        sys.exit(result.exit_code)
    _print_result(result, duplicate, kierki)
    if score_also and result.games_done:
        # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
        from hsim.runner.summary import scoring_summaries  # pandas: ~0.2 s to import

        for name, rows in scoring_summaries(result.run_dir, list(score_also)).items():
            _print_scoring(name, rows, duplicate)
    if result.games_done:
        also = ", how often each scoring changes the winner" if score_also else ""
        click.echo(
            f"next: hsim report {shlex.quote(str(result.run_dir))}  (every figure with its "
            f"interval, by seat and by pass direction{also})"
        )


def _stopped_before_start(exc, said: str | None = None) -> None:
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.run import EXIT_CODES
    from hsim.runner.signals import UNSTARTED

    click.echo(said or UNSTARTED, err=True)
    sys.exit(EXIT_CODES.get(exc.signum, 130))


def _print_result(result, duplicate: bool, kierki: bool = False) -> None:
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.engine import _numba

    if _numba.JIT_DISABLED:
        how = "ran without compiling (NUMBA_DISABLE_JIT=1: plain Python); started in"
    elif result.compiled:
        how = "compiled (cold: not in the cache) in"
    else:
        how = "loaded compiled code in"
    played = result.games_played
    rate = played / result.elapsed_s if result.elapsed_s > 0 else float("nan")
    click.echo(
        f"{how} {result.compile_s:.1f} s; played {played:,} games in "
        f"{result.elapsed_s:.1f} s ({rate:,.0f} games/s)"
    )
    click.echo(f"run folder: {result.run_dir}  (seed {result.seed})")
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis.stats import wilson_interval

    who = "player" if duplicate else "seat"  # in duplicate play a player sits everywhere
    w = max([8] + [len(row["strategy"]) for row in result.summary])
    moons = "" if kierki else f" {'moons':>7}"  # Kierki: points are signed, no moon
    points = "score/deal" if kierki else "points/deal"
    click.echo(
        f"{who:>6}  {'strategy':<{w}}  {points:>11} {'win rate [95% interval]':>24} "
        f"{'mean place':>10}{moons}"
    )
    for row in result.summary:
        moons = "" if kierki else f" {row['moons']:>7,}"
        win = f"{row['win_rate']:.3f}"
        if row["games"]:
            iv = wilson_interval(row["wins"], row["games"])
            win += f" [{iv.low:.3f}, {iv.high:.3f}]"
        click.echo(
            f"{row['seat']:>6}  {row['strategy']:<{w}}  {row['mean_points_per_deal']:>11.3f} "
            f"{win:>24} {row['mean_place']:>10.3f}{moons}"
        )
    if kierki:
        legend = "score/deal: Kierki points per deal (higher is better)"
    else:
        legend = (
            "points/deal: penalty points taken per deal, lower is better; moons: deals the "
            "seat shot the moon"
        )
    click.echo(f"({legend}; win rate: share of games won, co-winners of a tie count; place 1 best)")


def _print_scoring(name: str, rows: list[dict], duplicate: bool) -> None:
    """Print the win rates and mean places of the same games under a --score-also scoring."""
    who = "player" if duplicate else "seat"
    w = max([8] + [len(row["strategy"]) for row in rows])
    click.echo(f"scored as {name} (--score-also; same deals):")
    click.echo(f"{who:>6}  {'strategy':<{w}}  {'win rate':>8} {'mean place':>10}")
    for row in rows:
        click.echo(
            f"{row['seat']:>6}  {row['strategy']:<{w}}  {row['win_rate']:>8.3f} "
            f"{row['mean_place']:>10.3f}"
        )
