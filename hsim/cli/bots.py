"""Commands about strategies: ``hsim strategies`` and ``hsim ladder``."""

from __future__ import annotations

import sys

import click

from hsim.cli.common import (
    HELP,
    announce_compile,
    build_rules,
    cluster_from_options,
    cluster_option,
    default_out,
    exit_between,
    exit_stopped,
    folder_mode,
    html_option,
    out_option,
    overwrite_option,
    progress_option,
    resume_option,
    rule_option,
    rules_option,
    seed_option,
    user_error,
    workers_option,
)
from hsim.errors import StopRequested
from hsim.runner.signals import sigterm_as_stop


@click.command(context_settings=HELP, short_help="Measure the bot ladder on duplicate deals.")
@click.option(
    "--bots",
    default=None,
    metavar="SPECS",
    help="The ladder, weakest first; each bot plays copies of the one before.  [default: "
    "random,lowcard,duck,heuristic; Kierki: random,kierki; add pimc, minutes a rung, with "
    "--bots heuristic,pimc]",
)
@click.option(
    "--boards",
    type=click.IntRange(min=2),
    default=1000,
    show_default=True,
    help="Duplicate boards per rung (each played in one rotation per seat).",
)
@seed_option("the boards' deals, the same for every rung")
@rules_option
@rule_option
@workers_option
@cluster_option
@out_option("results/ladder-<time>-<random>, holding a run folder per rung")
@resume_option("rungs")
@overwrite_option
@click.option("--check", is_flag=True, help="Exit with status 1 unless every rung holds (for CI).")
@html_option("each rung's advantage with its 95% interval, the table of rungs")
@progress_option
def ladder(
    bots, boards, seed, preset, rule_items, workers, cluster_address, out, resume, overwrite,
    check, html_file, progress,
):  # fmt: skip
    """Measure the bot ladder on duplicate deals, with 95% intervals.

    \b
    Each rung plays UPPER against copies of LOWER (three; two in 3-player Kierki) on
    --boards duplicate boards and prints UPPER's advantage in mean score per deal
    (deal_score) with its 95% interval over boards: LOWER's minus UPPER's in Hearts,
    where lower is better (after moon and bonuses), UPPER's minus LOWER's in Kierki,
    where higher is better. Positive: UPPER is stronger. A rung holds when the interval
    is above zero. A ladder stopped by Ctrl-C (or killed) continues with the same
    command, its --out and --resume.
    \b
    Example:
      hsim ladder --boards 2000 --seed 1
      hsim ladder --boards 2000 --seed 1 --html ladder.html
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import pages
    from hsim.experiments.ladder import (
        LadderStopped,
        check_ladder,
        default_bots,
        format_header,
        format_rung,
        ladder_labels,
        run_ladder,
        rung_dict,
    )

    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.model.rules import canonical, preset_of

    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.specs import split_players

    rules, _ = build_rules(preset, rule_items)
    mode = folder_mode(out, resume, overwrite)
    if bots is None:
        bots = ",".join(default_bots(rules))
    try:
        specs = split_players(bots)
    except StrategyError as exc:
        raise user_error(exc) from None
    if len(specs) < 2:
        raise click.UsageError("a ladder needs at least two bots")
    announce_compile(specs)
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.config import default_workers
    from hsim.runner.run import RunError

    workers_given, workers = workers, workers or default_workers(rules.players * boards)
    check_ladder(specs, boards, seed, workers, rules)  # every rung, before any is played
    if out is None:
        out = default_out("ladder")
    if html_file is not None:
        try:
            pages.require_html()
            pages.check_target(html_file, out)
        except pages.ERRORS as exc:
            raise user_error(exc) from None
    labels = ladder_labels(specs, rules)
    rows = []
    all_hold = True
    echo = (lambda line: click.echo(line, err=True)) if progress else None
    try:
        with (
            sigterm_as_stop(),
            cluster_from_options(cluster_address, workers_given, workers) as cluster,
        ):
            for rung in run_ladder(
                specs, boards, seed, workers, out, rules, progress, echo, cluster, mode
            ):
                all_hold &= rung.holds
                if not rows:  # after the folders are checked: no header before an error
                    click.echo(format_header(labels))
                rows.append(rung_dict(rung, rules))
                click.echo(format_rung(rung, labels, rules))
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    except LadderStopped as stop:
        exit_stopped(stop, "rung", rules.players, overwrite)
    except (StopRequested, KeyboardInterrupt) as exc:  # before a rung wrote, or between two
        exit_between(exc, "rung", out, overwrite)
    what = (
        "score per deal: the deal's Kierki points, higher is better"
        if rules.is_kierki
        else "score per deal, after moon and bonuses"
    )
    click.echo(f"({what}; run folders under {out}; seed {seed})")
    if html_file is not None:
        page = pages.ladder_page(
            rows,
            canonical(rules, preset_of(rules)),
            list(specs),
            boards,
            seed,
            out,
            what,
            pages.command_line(["hsim", *sys.argv[1:]]),
        )
        try:
            pages.html_page(page, html_file)
        except OSError as exc:
            raise click.ClickException(f"cannot write the page {html_file}: {exc}") from None
        click.echo(f"page: {html_file}", err=True)
    if check and not all_hold:
        raise click.ClickException("the ladder does not hold")


@click.command(context_settings=HELP, short_help="List the strategies --players accepts.")
def strategies():
    """List the strategies --players accepts, with their parameters."""
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.loader import describe_available

    rows = describe_available()
    w = max(len(r["name"]) for r in rows)
    for r in rows:
        games = f" [{', '.join(r['games'])}]" if r.get("games") else ""
        click.echo(f"{r['name']:<{w}}  {r['source']}{games}: {r['description']}")
        for name, default, meaning in r["params"] or []:
            click.echo(f"{'':<{w}}    {name}={default}  {meaning}")
    click.echo(
        "\nAlso accepted: an installed entry point of the group 'hsim.strategies', "
        "package.module:attr, or path/to/file.py:attr; parameters as NAME(key=value,...)."
    )
