"""Analysis commands: ``hsim compare-rules`` and ``hsim report``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from hsim.cli.common import (
    HELP,
    UserError,
    allow_partial_option,
    announce_compile,
    build_rules,
    check_run,
    cluster_from_options,
    cluster_option,
    compile_done,
    default_out,
    html_option,
    out_option,
    overwrite_option,
    player_option,
    player_specs,
    players_option,
    progress_option,
    rule_option,
    rules_option,
    seed_option,
    user_error,
    workers_option,
)
from hsim.errors import EXIT_USAGE, install_hint
from hsim.model.rules import RulesError


@click.command(
    "compare-rules",
    context_settings=HELP,
    short_help="Play the same games under other rules and compare.",
)
@rules_option
@rule_option
@click.option(
    "--variant",
    "variant_items",
    multiple=True,
    required=True,
    metavar="NAME=VALUE[,...]",
    help="A rule set to compare with the base: options on top of the base rules (one "
    "variant per flag; repeatable), or a full rules string. May change play options too.",
)
@click.option("--games", type=click.IntRange(min=2), required=True, help="Games per rule set.")
@players_option
@player_option
@seed_option("the deals, the same for every rule set")
@workers_option
@cluster_option
@out_option(
    "results/compare-<time>-seed<seed>-<random>, holding a run folder per rule set and compare.json"
)
@overwrite_option
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@html_option("every rule set's figures with their intervals as tables and charts side by side")
@progress_option
def compare_rules(
    preset,
    rule_items,
    variant_items,
    games,
    players,
    player_list,
    seed,
    workers,
    cluster_address,
    out,
    overwrite,
    as_json,
    html_file,
    progress,
):
    """Play the same seeded games under base rules and variants; compare winners and scores.

    \b
    Each rule set plays --games games with the same --seed and players, so every game is
    dealt the same hands under each. For each variant: the share of games whose winner
    changed (the set of seats with the best final score differs from the base game's:
    the lowest in Hearts, the highest in Kierki), with a 95% Wilson interval; for every
    rule set: deals per game, moons per deal (Hearts), mean final and winning score with
    t intervals, score quantiles, and win rates. Every rule set is played, never
    re-scored, so a variant may change any option (Kierki options all change play).
    \b
    Example:
      hsim compare-rules --players random,lowcard,random,lowcard --games 20000 \\
          --variant omnibus=true --variant no_trick_bonus=no_points
      hsim compare-rules --players random,lowcard,random,lowcard --games 2000 \\
          --variant omnibus=true --html compare.html
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import pages
    from hsim.experiments.compare_rules import compare_rules as run_compare
    from hsim.experiments.compare_rules import format_comparison, parse_variant
    from hsim.runner.config import default_workers
    from hsim.runner.run import RunError
    from hsim.runner.verify import RunCheckError
    from hsim.strategy.contract import StrategyError

    base, preset_name = build_rules(preset, rule_items)
    try:
        variants = [parse_variant(text, base, preset_name) for text in variant_items]
    except RulesError as exc:
        raise user_error(exc) from None
    seen = {}
    for v in variants:
        if v.rules in seen:
            raise UserError(
                f"--variant {v.text!r} is the same rule set as --variant {seen[v.rules]!r}",
                EXIT_USAGE,
            )
        seen[v.rules] = v.text
    specs = player_specs(players, player_list)
    announce_compile(specs)
    if out is None:
        out = default_out("compare", seed)
    if html_file is not None:
        try:
            pages.require_html()
            pages.check_target(html_file, out)
        except pages.ERRORS as exc:
            raise user_error(exc) from None
    argv = ["hsim", *sys.argv[1:]]
    echo = None if as_json else (lambda line: click.echo(line, err=True))
    try:
        with cluster_from_options(cluster_address, workers, default_workers(games)) as cluster:
            report = run_compare(
                base,
                variants,
                specs,
                games,
                seed,
                out,
                workers or default_workers(games),
                preset_name,
                overwrite,
                progress,
                argv=argv,
                echo=echo,
                cluster=cluster,
            )
    except (RunError, StrategyError, RunCheckError) as exc:
        raise user_error(exc) from None
    if as_json:
        # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
        from hsim.analysis.frames import jsonable

        click.echo(json.dumps(jsonable(report), indent=2))
    else:
        click.echo("\n".join(format_comparison(report)))
    if html_file is not None:
        try:
            pages.html_page(pages.compare_page(report, pages.command_line(argv)), html_file)
        except OSError as exc:
            raise click.ClickException(f"cannot write the page {html_file}: {exc}") from None
        click.echo(f"page: {html_file}", err=True)


@click.command(
    "report",
    context_settings=HELP,
    short_help="Points, win rates and moons of a run, with intervals.",
)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--scoring",
    default=None,
    metavar="RULES",
    help="Report the games under another scoring: options (omnibus=true,...) on top of the "
    "run's rules, or a rules string; re-scored from the recorded deals (scoring options "
    "only). Default: the run's own.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--plot",
    "plot_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write PNG charts (final scores, game length, points per deal; Kierki: "
    "score per deal kind) to this folder (needs matplotlib).",
)
@html_option("tables of every figure, charts with intervals and distributions")
@allow_partial_option
@progress_option
def report(run_dir, scoring, as_json, plot_dir, html_file, allow_partial, progress):
    """Per strategy: points per deal, win rate, places and moons with 95% intervals,
    by seat and by pass direction (Kierki: by deal kind, no moons).

    \b
    Points, scores and moons per deal and the mean place have intervals clustered by
    game (deals of a game are correlated); win rates and place shares Wilson intervals.
    Kierki runs cannot be re-scored (--scoring): Kierki has no scoring options.
    \b
    Examples:
      hsim report results/RUN
      hsim report results/RUN --scoring omnibus=true --json
      hsim report results/RUN --plot charts/
      hsim report results/RUN --html report.html
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import pages
    from hsim.analysis.frames import RunFolderError, jsonable
    from hsim.analysis.report import PlotUnavailable, format_report, report_run

    if plot_dir is not None and plot_dir.exists() and not plot_dir.is_dir():
        raise click.UsageError(f"--plot {plot_dir} is not a folder; give a folder for the charts")
    if plot_dir is not None:
        try:
            # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.ClickException(
                f"--plot needs matplotlib, which is not installed: {install_hint('plot')}"
            ) from None
    if html_file is not None:
        try:
            pages.require_html()
            pages.check_target(html_file, run_dir)
        except pages.ERRORS as exc:
            raise user_error(exc) from None
    check_run(run_dir, allow_partial, checksums=True)  # it reads every part
    if scoring:  # re-scoring runs the engine's scoring kernels
        announce_compile(parts=["rescore"], engine=False)
    try:
        # a bar on a terminal only: report's output is often piped or parsed
        bar = progress and sys.stderr.isatty()
        if html_file is None:
            rep, charts = report_run(run_dir, scoring, plot_dir, progress=bar)
        else:
            rep, _ = pages.html_report(run_dir, html_file, scoring, progress=bar)
            charts = [] if plot_dir is None else report_run(run_dir, scoring, plot_dir)[1]
        compile_done()
    except (RunFolderError, RulesError, PlotUnavailable, *pages.ERRORS) as exc:
        raise user_error(exc) from None
    except OSError as exc:
        raise click.ClickException(str(exc)) from None
    for line in rep["warnings"]:
        click.echo(f"warning: {line}", err=True)
    if as_json:
        click.echo(json.dumps(jsonable(rep), indent=2))
    else:
        click.echo("\n".join(format_report(rep)))
    if charts:
        click.echo(f"charts: {', '.join(str(p) for p in charts)}", err=True)
    if html_file is not None:
        click.echo(f"page: {html_file}", err=True)
