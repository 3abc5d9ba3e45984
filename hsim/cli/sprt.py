"""``hsim sprt``: the strength gate, a sequential test of a candidate bot against a baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from hsim.cli.common import (
    HELP,
    announce_compile,
    build_rules,
    cluster_from_options,
    cluster_option,
    default_out,
    html_option,
    out_option,
    overwrite_option,
    progress_option,
    retries_option,
    rule_option,
    rules_option,
    seed_option,
)
from hsim.errors import install_hint

EXIT_INTERRUPTED = 130


def _bounds(ctx, param, value: str) -> tuple[float, float]:
    # deferred: hsim.analysis loads scipy, which `hsim --help` should not wait for
    from hsim.analysis.sequential import check_bounds

    d0_text, comma, d1_text = value.partition(",")
    try:
        if not comma:
            raise ValueError
        d0, d1 = float(d0_text), float(d1_text)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not D0,D1: give two numbers (points per deal), e.g. --bounds 0,0.3 "
            "for a gain or --bounds -0.3,0 for no regression"
        ) from None
    try:
        check_bounds(d0, d1)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return d0, d1


def _rate(ctx, param, value: float) -> float:
    # deferred: as in _bounds
    from hsim.analysis.sequential import llr_bounds

    rates = {"alpha": value, "beta": 0.05} if param.name == "alpha" else {"beta": value}
    try:
        llr_bounds(rates.get("alpha", 0.05), rates["beta"])
    except ValueError as exc:
        raise click.BadParameter(f"{exc}; e.g. 0.05") from None
    return value


@click.command(context_settings=HELP, short_help="Test whether a candidate bot is stronger (SPRT).")
@click.option("--candidate", required=True, metavar="SPEC", help="The bot under test.")
@click.option("--baseline", required=True, metavar="SPEC", help="The bot it is measured against.")
@click.option(
    "--bounds",
    required=True,
    metavar="D0,D1",
    callback=_bounds,
    help="The candidate's advantage over the baseline in points per deal under H0 and H1 "
    "(D0 < D1): 0,0.3 shows a gain, -0.3,0 shows no regression.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, callback=_rate,
              help="Error rate: accepting H1 when H0 holds.")  # fmt: skip
@click.option("--beta", type=float, default=0.05, show_default=True, callback=_rate,
              help="Error rate: accepting H0 when H1 holds.")  # fmt: skip
@click.option(
    "--max-boards",
    type=click.IntRange(min=2),
    default=10_000,
    show_default=True,
    help="Stop without a verdict (exit 3) after this many boards.",
)
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Boards per chunk, and between two looks at the LLR.",
)
@click.option(
    "--opponents",
    default=None,
    metavar="SPEC[,...]",
    help="Paired design: candidate and baseline each play every board against these "
    "(one spec for every other seat, or one per other seat).",
)
@click.option(
    "--panel",
    default=None,
    metavar="SPECS|default",
    help="Paired design over a panel: candidate and baseline each play every board against "
    "each of these opponents in turn (each fills every other seat); a board's value is the "
    "mean over the panel. 'default': hsim gauntlet's default panel.",
)
@rules_option
@rule_option
@seed_option("the deals of every board (board b's deals depend only on it and b)")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes; the verdict does not depend on it. Most tests end within a "
    "few dozen boards, where starting workers costs more than it saves; use 2+ for slow "
    "bots such as pimc.",
)
@cluster_option
@retries_option
@out_option("results/sprt-<time>-seed<seed>-<random>")
@overwrite_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (with the trace).")
@click.option(
    "--plot",
    "plot_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Draw the LLR trace with its bounds into DIR/sprt_llr.png (needs matplotlib).",
)
@html_option(
    "the LLR trace with its bounds, the verdict, the advantage with its interval, the settings"
)
@progress_option
def sprt(
    candidate,
    baseline,
    bounds,
    alpha,
    beta,
    max_boards,
    batch,
    opponents,
    panel,
    preset,
    rule_items,
    seed,
    workers,
    cluster_address,
    retries,
    out,
    overwrite,
    as_json,
    plot_dir,
    html_file,
    progress,
):
    """Test whether a candidate bot is stronger than a baseline, stopping early.

    \b
    A sequential probability ratio test (SPRT) on duplicate boards, every rotation of the
    players over the seats with the same deals. Each board gives the candidate's advantage
    in points per deal (after moon and bonuses; positive: the candidate did better; in
    Kierki higher scores are better and the sign follows). By default the candidate plays
    copies of the baseline (three; two in 3-player Kierki); with --opponents, candidate
    and baseline each play the board against those opponents and the advantage is their
    paired difference; with --panel, the same against each panel opponent in turn (three
    copies of it), the board's advantage being the mean over the panel, and the table
    also shows the advantage against each opponent. After every --batch boards the LLR of
    H1 (advantage D1) over H0 (advantage D0) is computed from the first boards in board
    order, so the verdict and its board count are the same for any --workers.
    \b
    Recipes:
      gain:            --bounds 0,0.3
      non-regression:  --bounds -0.3,0
    \b
    Exit status: 0 PASS (H1 accepted), 1 FAIL (H0 accepted), 3 --max-boards reached
    without a verdict, 2 usage error, 4 the games failed (a strategy error, a full
    disk), 130 interrupted.
    \b
    Example:
      hsim sprt --candidate heuristic --baseline duck --bounds 0,0.5
      hsim sprt --candidate pimc --baseline heuristic --bounds 0,1 --panel shooter,random
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import pages
    from hsim.experiments.sprt import (
        EXIT_FAILED,
        SprtConfig,
        SprtError,
        SprtFailed,
        config_dict,
        plot_trace,
        run_sprt,
    )

    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.specs import split_players

    try:
        rules, _ = build_rules(preset, rule_items)
    except click.UsageError:
        raise
    except click.ClickException as exc:  # exit 1 means "H0 accepted" here
        raise click.UsageError(exc.message) from None
    d0, d1 = bounds
    opponent_specs = None
    if opponents is not None:
        try:
            opponent_specs = tuple(split_players(opponents))
        except StrategyError as exc:
            raise click.BadParameter(str(exc), param_hint="--opponents") from None
        if len(opponent_specs) == 1:
            opponent_specs = opponent_specs * (rules.players - 1)
    panel_specs = None
    if panel is not None:
        if opponents is not None:
            raise click.UsageError("give --opponents or --panel, not both")
        if panel.strip() == "default":
            # deferred: as above
            from hsim.experiments.gauntlet import default_panel

            panel_specs, notes = default_panel(rules)
            for note in notes:
                click.echo(note, err=True)
        else:
            try:
                panel_specs = tuple(split_players(panel))
            except StrategyError as exc:
                raise click.BadParameter(str(exc), param_hint="--panel") from None
    if batch > max_boards:
        raise click.BadParameter(
            f"{batch} is more than --max-boards {max_boards}", param_hint="--batch"
        )
    if out is None:
        out = default_out("sprt", seed)
    config = SprtConfig(
        candidate.strip(),
        baseline.strip(),
        d0,
        d1,
        rules,
        alpha,
        beta,
        max_boards,
        batch,
        opponent_specs,
        seed,
        panel_specs,
    )
    try:
        config.validate()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if plot_dir is not None:
        try:
            # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError(f"--plot needs matplotlib: {install_hint('plot')}") from None
    if html_file is not None:
        try:
            pages.require_html()
            pages.check_target(html_file, out)
        except pages.ERRORS as exc:  # exit 1 would read as "H0 accepted"
            raise click.UsageError(str(exc)) from None
    announce_compile(list(dict.fromkeys(s for t in config.tables().values() for s in t)))
    source = click.get_current_context().get_parameter_source("workers")
    given = None if source == ParameterSource.DEFAULT else workers
    argv = ["hsim", *sys.argv[1:]]
    try:
        with cluster_from_options(cluster_address, given, workers) as cluster:
            result = run_sprt(
                config,
                out,
                workers,
                overwrite,
                progress,
                argv=argv,
                cluster=cluster,
                retries=retries,
            )
    except click.UsageError:
        raise
    except click.ClickException as exc:  # the cluster: exit 1 would read as "H0 accepted"
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(EXIT_FAILED)
    except StrategyError as exc:
        raise click.UsageError(str(exc)) from None
    except SprtFailed as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    except OSError as exc:  # exit 1 would read as "H0 accepted"
        where = f" {exc.filename}" if exc.filename else ""
        click.echo(
            f"Error: cannot write{where}: {exc.strerror or exc}; check that the folder is "
            "writable and has free space",
            err=True,
        )
        sys.exit(EXIT_FAILED)
    except SprtError as exc:
        raise click.UsageError(str(exc)) from None

    doc = {"candidate": config.candidate, "baseline": config.baseline, **result.to_dict()}
    doc.update(bounds=[d0, d1], alpha=alpha, beta=beta, seed=seed)
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        _print_table(config, result)
    if plot_dir is not None:
        path = plot_trace(result, plot_dir)
        if not as_json:
            click.echo(f"plot: {path}")
    if html_file is not None:
        page = pages.sprt_page(
            {**config_dict(config), **doc},
            _verdict_text(config, result),
            "; ".join(f"{t + ': ' if t else ''}{', '.join(p)}" for t, p in config.tables().items()),
            pages.command_line(argv),
        )
        try:
            pages.html_page(page, html_file)
        except OSError as exc:  # exit 1 would read as "H0 accepted"
            click.echo(f"Error: cannot write the page {html_file}: {exc}", err=True)
            sys.exit(EXIT_FAILED)
        click.echo(f"page: {html_file}", err=True)
    if result.status == "interrupted":
        click.echo(
            f"interrupted after {result.boards} boards without a verdict; the boards used are "
            f"in {result.run_dir}",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(result.exit_code)


def _print_table(config, result) -> None:
    others = config.rules.players - 1
    if config.panel is not None:
        against = f"{config.baseline}, each against {others} x each of {', '.join(config.panel)}"
    elif config.paired:
        against = f"{config.baseline}, each against {', '.join(config.opponents)}"
    else:
        against = f"{others} x {config.baseline}"
    ci = result.advantage
    advantage = (
        "n/a (fewer than 2 boards)"
        if ci is None
        else f"{ci.estimate:+.3f} [{ci.low:+.3f}, {ci.high:+.3f}] points per deal (95% CI)"
    )
    d0, d1 = _signed(config.d0), _signed(config.d1)
    verdict = _verdict_text(config, result)
    rates = f"alpha {config.alpha:g}, beta {config.beta:g}"
    rows = [
        ("candidate", config.candidate),
        ("baseline", against),
        ("bounds", f"H0 {d0}, H1 {d1} ({rates})"),
        ("boards", f"{result.boards:,}"),
        ("deals", f"{result.deals:,}"),
        ("advantage", advantage),
        ("LLR", f"{result.llr:+.3f} in [{result.lower:+.3f}, {result.upper:+.3f}]"),
        ("verdict", verdict),
        ("time", f"{result.elapsed_s:.1f} s"),
        ("run folder", f"{result.run_dir}  (seed {config.seed})"),
    ]
    for i, ci in enumerate(result.by_opponent or []):
        rows.insert(
            6 + i,
            (
                f"  vs {config.panel[i]}",
                "n/a" if ci is None else f"{ci.estimate:+.3f} [{ci.low:+.3f}, {ci.high:+.3f}]",
            ),
        )
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        click.echo(f"{name:<{width}}  {value}")


def _verdict_text(config, result) -> str:
    """Return the verdict line of the table: in words, or why there is none."""
    if result.verdict in ("H1", "H0"):
        return verdict_words(result.verdict, config.d0, config.d1)
    return f"none ({result.boards} boards, --max-boards {config.max_boards})"


def verdict_words(verdict: str, d0: float, d1: float) -> str:
    """Return an SPRT verdict (``H1`` or ``H0``, bounds ``d0 < d1`` in points per deal) in
    plain words: PASS (H1, exit 0) or FAIL (H0, exit 1), what it says of the candidate,
    then the hypothesis accepted."""
    a, b = _signed(d0), _signed(d1)
    if verdict == "H1":
        if d0 >= 0:
            what = "the candidate is stronger than the baseline"
        elif d1 <= 0:
            what = "the candidate is not weaker than the baseline"
        else:
            what = "the candidate's advantage is on the H1 side"
        return f"PASS: {what} (H1 accepted: an advantage of {b} fits better than {a})"
    if d1 <= 0:
        what = "the candidate is weaker than the baseline"
    elif d0 >= 0:
        what = "the candidate is not shown stronger than the baseline"
    else:
        what = "the candidate's advantage is on the H0 side"
    return f"FAIL: {what} (H0 accepted: an advantage of {a} fits better than {b})"


def _signed(value: float) -> str:
    """Return ``+0.3``, ``-0.3`` or ``0`` (points per deal, for the table)."""
    return f"{value:+g}" if value else "0"
