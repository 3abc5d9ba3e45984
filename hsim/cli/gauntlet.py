"""``hsim gauntlet``: candidates against a panel of opponents on duplicate boards."""

from __future__ import annotations

import json

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


@click.command(
    context_settings=HELP, short_help="Measure bots against a panel of outside opponents."
)
@click.option("--candidates", required=True, metavar="SPECS", help="The bots to measure.")
@click.option(
    "--panel",
    default=None,
    metavar="SPECS",
    help="The opponents; each candidate plays three copies of each.  [default: shooter,"
    "openspiel:ismcts(simulations=200),heuristic,random (ISMCTS under --rules openspiel, "
    "with the openspiel extra); Kierki: kierki,random]",
)
@click.option(
    "--boards",
    type=click.IntRange(min=2),
    default=200,
    show_default=True,
    help="Duplicate boards per pairing (each played in one rotation per seat).",
)
@seed_option("the boards' deals, the same for every pairing")
@rules_option
@rule_option
@workers_option
@cluster_option
@out_option("results/gauntlet-<time>-<random>, holding a run folder per pairing")
@resume_option("pairings")
@overwrite_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--no-timing", is_flag=True, help="Do not time the candidates' decisions (ms/dec).")
@progress_option
def gauntlet(
    candidates, panel, boards, seed, preset, rule_items, workers, cluster_address, out,
    resume, overwrite, as_json, no_timing, progress,
):  # fmt: skip
    """Measure each candidate against three copies of each opponent of a panel, on
    duplicate boards, with 95% intervals.

    \b
    For each pairing: the candidate's mean score per deal and the opponents' (after
    moon and bonuses), its advantage (positive: it did better; the opponents' mean minus
    its own in Hearts) with the 95% interval over boards, the share of deals in which it
    shot the moon and in which an opponent did (conceded), and its CPU milliseconds per
    decision. Then, per candidate, its advantage over the whole panel; with two or more
    candidates, each one's advantage and moons conceded minus the first candidate's,
    paired board by board. The boards are the same for every pairing. The default
    panel's OpenSpiel ISMCTS plays only OpenSpiel's rules (--rules openspiel) and
    needs the openspiel extra (pip install
    'hsim-hearts[openspiel]'); elsewhere it is left out, with a note. A gauntlet
    stopped by Ctrl-C (or killed) continues with the same command, its --out and
    --resume.
    \b
    Example:
      hsim gauntlet --candidates heuristic,pimc --boards 100 --seed 1
      hsim gauntlet --candidates heuristic,pimc --boards 100 --seed 1 --out g --resume
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.experiments.gauntlet import (
        check_gauntlet,
        default_panel,
        difference_label,
        format_difference,
        format_difference_header,
        format_header,
        format_pairing,
        label_width,
        paired_differences,
        panel_summary,
        run_gauntlet,
    )

    # deferred: as above (the runner's modules load numba and pyarrow)
    from hsim.experiments.ladder import LadderStopped
    from hsim.model.rules import canonical
    from hsim.runner.config import default_workers
    from hsim.runner.run import RunError
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.specs import split_players

    rules, _ = build_rules(preset, rule_items)
    mode = folder_mode(out, resume, overwrite)
    try:
        cands = split_players(candidates)
        opponents = split_players(panel) if panel is not None else None
    except StrategyError as exc:
        raise user_error(exc) from None
    announce_compile(cands + (opponents or []))
    if opponents is None:
        opponents, notes = default_panel(rules)
        opponents = list(opponents)
        for note in notes:
            click.echo(note, err=True)
    workers_given, workers = workers, workers or default_workers(rules.players * boards)
    try:
        check_gauntlet(cands, opponents, boards, seed, workers, rules)
    except StrategyError as exc:
        if panel is None:
            raise click.UsageError(
                f"the default panel ({','.join(opponents)}) cannot be played here: {exc}; "
                "install what it needs or give --panel"
            ) from None
        raise user_error(exc) from None
    if out is None:
        out = default_out("gauntlet")
    width = label_width(cands, opponents, rules)
    echo = (lambda line: click.echo(line, err=True)) if progress else None
    pairings = []
    try:
        with (
            sigterm_as_stop(),
            cluster_from_options(cluster_address, workers_given, workers) as cluster,
        ):
            for p in run_gauntlet(
                cands, opponents, boards, seed, workers, out, rules, progress, echo, cluster,
                timed=not no_timing, mode=mode,
            ):  # fmt: skip
                if not as_json:
                    if not pairings:  # after the folders are checked: no header before an error
                        click.echo(format_header(width))
                    click.echo(format_pairing(p, width, rules))
                pairings.append(p)
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    except LadderStopped as stop:
        exit_stopped(stop, "pairing", rules.players, overwrite)
    except (StopRequested, KeyboardInterrupt) as exc:  # before a pairing wrote, or between two
        exit_between(exc, "pairing", out, overwrite)
    summaries = {c: panel_summary([p for p in pairings if p.candidate == c], rules)
                 for c in cands}  # fmt: skip
    differences = paired_differences(pairings, rules)
    if as_json:
        click.echo(json.dumps({
            "rules": canonical(rules), "seed": seed, "boards": boards,
            "pairings": [p.to_json() for p in pairings],
            "panel": {c: {"advantage": s.estimate, "advantage_low": s.low,
                          "advantage_high": s.high} for c, s in summaries.items()},
            "paired": [d.to_json() for d in differences],
        }, indent=2))  # fmt: skip
        return
    for c, s in summaries.items():
        click.echo(
            f"{c} over the whole panel: {s.estimate:+.3f} [{s.low:+.3f}, {s.high:+.3f}] "
            "points per deal"
        )
    if differences:
        wide = max(len(difference_label(d, rules)) for d in differences) + 2
        click.echo(format_difference_header(differences[0].reference, wide))
        for d in differences:
            click.echo(format_difference(d, wide, rules))
    what = (
        "score per deal: the deal's Kierki points, higher is better"
        if rules.is_kierki
        else "score per deal after moon and bonuses, lower is better; advantage: the "
        "opponents' minus the candidate's"
    )
    click.echo(f"({what}; run folders under {out}; seed {seed})")
