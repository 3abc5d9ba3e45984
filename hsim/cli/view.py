"""``hsim view``: write a game as one self-contained HTML page to step through."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from hsim.cli.common import (
    HELP,
    UserError,
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
    type=click.IntRange(min=0, max=3),
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
    if out is None and (game is not None or deal_text):
        out = Path("deal.html" if deal_text and run_dir is None else f"game-{game}.html")
    if out is not None:  # checked before the replay, which may compile for minutes
        _check_out(out, force)
    records, specs, rules, preset, what = replayed_game(
        run_dir,
        game,
        seed,
        players,
        trust,
        preset,
        rule_items,
        (deal_text, pass_direction, passes, plays),
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


def _check_out(out: Path, force: bool) -> None:
    if out.exists() and not force:
        raise click.UsageError(f"{out} exists; give --force to replace it, or another --out")
    if not out.parent.is_dir():
        raise click.UsageError(f"--out {out}: the folder {out.parent} does not exist")


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
