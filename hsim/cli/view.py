"""``hsim view``: write a game as one self-contained HTML page to step through;
``hsim analyse``: score every card of a game's plays (a table, JSON, or that page)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click

from hsim.cli.common import (
    HELP,
    UserError,
    progress_option,
)
from hsim.cli.positions import game_options, replayed_game
from hsim.errors import EXIT_RUN, EXIT_USAGE


@click.command(context_settings=HELP, short_help="Write a game as an HTML page to step through.")
@game_options("Game index to show.")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="The HTML file to write (default game-G.html, or deal.html for --deal, in the "
    "current folder).",
)
@click.option("--force", is_flag=True, help="Replace the --out file if it exists.")
@click.option(
    "--seat",
    type=click.IntRange(min=0, max=5),
    default=None,
    help="Show the game from this seat: the other hands face down until played (default: "
    "every hand open).",
)
def view(
    run_dir,
    game,
    seed,
    players,
    trust,
    preset,
    rule_items,
    deal_text,
    deal_file,
    pass_direction,
    passes,
    plays,
    allow_partial,
    out,
    force,
    seat,
):
    """Write one self-contained HTML page of a game and print its path: the hands, the
    passes, every card played, one step each (Prev/Next and the left/right arrow keys,
    up/down a whole trick, Page Up/Page Down a whole deal, a slider), whether hearts are
    broken, the scores after each deal; for Kierki the deal kinds, trump choices and
    lottery plays.

    The page needs no network: open it in any browser. The game is given as to hsim
    replay.

    \b
    From a run folder:  hsim view results/RUN --game 12  [--trust] [--seat 0]
    From a seed:        hsim view --seed 7 --game 12 --players random,lowcard,random,lowcard
    One given deal:     hsim view --deal 2C7C.../.../.../... [--pass-direction left]
    """
    if out is None and (game is not None or deal_text or deal_file):
        given = (deal_text or deal_file) and run_dir is None
        out = Path("deal.html" if given else f"game-{game}.html")
    if out is not None:  # checked before the replay, which may compile for minutes
        _check_out(out, force, "--out", run_dir)
    records, specs, rules, preset, what = replayed_game(
        run_dir,
        game,
        seed,
        players,
        trust,
        preset,
        rule_items,
        (deal_text, pass_direction, passes, plays, deal_file),
        allow_partial,
        "the step-by-step game",
    )
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis.viewer import render_page
    from hsim.model.rules import canonical

    try:
        page = render_page(
            records, rules=canonical(rules, preset), players=specs, title=what, seat=seat
        )
    except ValueError as exc:
        raise UserError(str(exc), EXIT_USAGE) from None
    _write_new(out, page, force)
    click.echo(str(out))


def _finite(value: float, option: str) -> float:
    """Return ``value``; :raises click.BadParameter: it is NaN (a range lets NaN through)."""
    if value != value:
        raise click.BadParameter("give a number, not nan", param_hint=option)
    return value


def _check_out(out: Path, force: bool, option: str = "--out", run_dir=None) -> None:
    """Refuse a page target before any work: an empty name, a folder, a missing or
    unwritable folder, a file that exists (without ``force``), or a place inside a run
    folder (``run_dir`` or any folder holding a ``run.json``: its files are the run's own).
    ``option``: the option that names it, for the messages."""
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.lock import run_folder_above

    if not str(out).strip() or out.name in ("", ".", ".."):
        raise click.UsageError(f"{option} needs a file name, such as game.html")
    if out.is_dir():
        raise click.UsageError(f"{option} {out} is a directory; give a file name such as game.html")
    parent = out.resolve().parent
    run = run_folder_above(out) or (
        Path(run_dir).resolve()
        if run_dir is not None and (Path(run_dir) / "run.json").is_file()
        else None
    )
    if run is not None and (run == parent or run in parent.parents):
        raise click.UsageError(
            f"{option} {out} is inside the run folder {run}, which holds the run's own "
            "files; write the page elsewhere"
        )
    if out.exists() and not force:
        raise click.UsageError(f"{out} exists; give --force to replace it, or another {option}")
    if not parent.is_dir():
        raise click.UsageError(f"{option} {out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {out}: the folder {parent} is not writable", EXIT_RUN)


def _write_new(path: Path, text: str, replace: bool) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so that a
    reader never sees half a page; refuse (exit 2) if ``path`` appeared meanwhile and
    ``replace`` is false."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)  # mkstemp makes the file private; a page is as any new file
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if path exists: never replaces a file by surprise
            except FileExistsError:
                raise click.UsageError(f"{path} exists; give --force to replace it") from None
            except OSError:  # a file system without hard links: claim the name, then fill it
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc}", EXIT_RUN) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@click.command(context_settings=HELP, short_help="Score every card of a game's plays.")
@game_options("Game index to analyse.")
@click.option(
    "--seat",
    "seats",
    type=click.IntRange(min=0, max=3),
    multiple=True,
    help="Analyse this seat's plays (repeat for several; default every seat).",
)
@click.option(
    "--with",
    "analyser",
    default=None,
    metavar="SPEC",
    help="The analyser, a setting of pimc (default: pimc(worlds=200)).",
)
@click.option(
    "--threshold",
    type=click.FloatRange(min=0, max=1000),
    default=1.0,
    show_default=True,
    callback=lambda ctx, param, value: _finite(value, "--threshold"),
    help="A play that loses at least this many points to the best card is a blunder.",
)
@click.option("--forced", is_flag=True, help="List the plays with one legal card too.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    metavar="FILE",
    help="Also write the game's page (as hsim view) with every analysed card marked.",
)
@click.option("--force", is_flag=True, help="Replace the --html file if it exists.")
@progress_option
def analyse(
    run_dir,
    game,
    seed,
    players,
    trust,
    preset,
    rule_items,
    deal_text,
    deal_file,
    pass_direction,
    passes,
    plays,
    allow_partial,
    seats,
    analyser,
    threshold,
    forced,
    as_json,
    html_file,
    force,
    progress,
):
    """Score every card of a Hearts game's plays: at each play of the chosen seats, the
    analyser's expected deal points for each legal card, from worlds consistent with what
    that seat could see (never the other hands); the card played, its loss against the
    best card, and the blunders (a loss of at least --threshold points, marked ??).

    The same command gives the same numbers. Passes, the New Moon choice and Kierki games
    are not analysed. The game is given as to hsim replay.

    \b
    From a run folder:  hsim analyse results/RUN --game 12 [--seat 0] [--trust]
    From a seed:        hsim analyse --seed 7 --game 12 --players heuristic,random,pimc,duck
    One given deal:     hsim analyse --deal 2C7C.../.../.../... [--pass-direction left]
    Stronger (slower):  hsim analyse ... --with 'pimc(worlds=400,exact_cards=12)'
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategySpecError
    from hsim.strategy.specs import parse_spec

    spec = analyser or "pimc(worlds=200)"
    try:
        if parse_spec(spec)[0] != "pimc":
            raise click.BadParameter(
                f"{spec}: the analyser must be a setting of pimc, such as pimc(worlds=400)",
                param_hint="--with",
            )
    except StrategySpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--with") from None
    if html_file is not None:  # checked before the replay, which may compile for minutes
        _check_out(html_file, force, "--html", run_dir)
    # deferred: as above
    from hsim.analysis import analyse as an
    from hsim.runner.progress import progress_bar

    watcher = an.Watcher(seats or None)
    records, specs, rules, preset, what = replayed_game(
        run_dir,
        game,
        seed,
        players,
        trust,
        preset,
        rule_items,
        (deal_text, pass_direction, passes, plays, deal_file),
        allow_partial,
        ["the step-by-step game", "the analysis"],
        watch=watcher,
        more_specs=[spec],
    )
    an.check_seats(seats, len(specs))  # errors: hsim's Group says them (exit 2)
    shown = sorted(set(seats)) if seats else range(len(specs))
    loaded = an.load_analyser(spec)
    bar = progress_bar(len(watcher.snapshots), progress, unit="play")
    try:
        analyses = watcher.analyse(records, loaded, bar.update)
    finally:
        bar.close()
    # deferred: as above
    from hsim.model.rules import canonical

    rules_text = canonical(rules, preset)
    if as_json:
        data = {
            "what": what,
            "rules": rules_text,
            "players": specs,
            "analyser": spec,
            "threshold": threshold,
            "plays": [a.as_dict(threshold) for a in analyses if forced or not a.forced],
            "seats": an.summary(analyses, shown, threshold),
        }
        click.echo(json.dumps(data, indent=1))
    else:
        click.echo(f"{what}, rules {rules_text}; analyser {spec}, blunder >= {threshold:g} points")
        click.echo("\n".join(an.format_analysis(analyses, specs, shown, threshold, forced)))
    if html_file is not None:  # after the results: a page that cannot be written loses none
        from hsim.analysis.viewer import render_page  # deferred: as above

        page = render_page(
            records,
            rules=rules_text,
            players=specs,
            title=what,
            analysis=[a.as_dict(threshold) for a in analyses],
            analyser=spec,
        )
        _write_new(html_file, page, force)
        click.echo(f"page: {html_file}", err=True)
