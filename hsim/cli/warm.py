"""``hsim warm``: compile the engine, the built-in bots and every part once."""

from __future__ import annotations

import sys

import click

from hsim.cli.common import HELP, check_environment, progress_option


@click.command(context_settings=HELP, short_help="Compile everything once, after install.")
@progress_option
def warm(progress):
    """Compile the engine, the game loops, every built-in bot and the parts replay,
    perft and report --scoring use, so that no later command waits for a compile.

    \b
    The compiled code is cached per hsim version (in ~/.cache/hsim, or $HSIM_CACHE_DIR):
    run this once after installing or upgrading. Parts already in the cache load in a
    moment. Each part's compile time is kept, and later compile notices use it. A bot of
    your own compiles on its first use (a few seconds).
    \b
    Example:
      hsim warm
    """
    check_environment()
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.experiments.warm import still_cold
    from hsim.experiments.warm import warm as warm_parts
    from hsim.strategy.notice import cache_home

    ticker = progress and sys.stderr.isatty()
    total = 0.0
    for step, run in warm_parts(ticker=ticker):
        if not ticker and step.cold():
            click.echo(f"compiling {step.what}...", err=True)
        result = run()
        total += result.seconds
        how = "compiled" if result.cold else "in the cache"
        click.echo(f"{step.what}: {how} ({result.seconds:.1f} s)")
    left = still_cold()
    if left:
        raise click.ClickException(
            f"still not in the cache after compiling: {', '.join(left)}; is {cache_home()} "
            "writable?"
        )
    click.echo(f"ready: everything is compiled and cached in {cache_home()} ({total:.0f} s)")
