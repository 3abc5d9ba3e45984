"""``hsim verify``: check a run folder against its manifest."""

from __future__ import annotations

from pathlib import Path

import click

from hsim.cli.common import HELP


@click.command(context_settings=HELP, short_help="Check a run folder for damaged or missing parts.")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--quick",
    is_flag=True,
    help="Check sizes and row counts only, not every part's sha256.",
)
def verify(run_dir, quick):
    """Check a run folder: missing, extra, truncated or corrupt parts, row counts, the
    manifest, and whether the run is complete.

    \b
    Prints each problem on its own line and exits 1 if there is any (0: complete and
    intact). A missing or damaged part is played again by `hsim resume RUN_DIR`.
    \b
    Example:
      hsim verify results/run-20261129-203000-seed7
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.verify import verify_run

    check = verify_run(run_dir, full=not quick)
    if check.ok:
        what = "sizes and row counts" if quick else "checksums"
        click.echo(
            f"{run_dir}: complete, {check.games:,} games; every part matches run.json ({what})"
        )
        return
    for problem in check.problems:  # each names the folder once
        named = problem.startswith(str(run_dir))
        click.echo(problem if named else f"{run_dir}: {problem}", err=True)
    n = len(check.problems)
    raise click.ClickException(f"{run_dir} failed verification: {n} problem{'s' * (n != 1)}")
