"""The ``hsim`` console script's entry: :func:`hsim.cli.run`, with a Ctrl-C during its
imports (numpy, numba, pyarrow: about half a second of every command's start) ending as
any other Ctrl-C does, ``interrupted`` and exit 130, instead of a traceback."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT: what every command exits with on a Ctrl-C


def run() -> None:
    """Import the command line and run it (:func:`hsim.cli.run`); exits the process."""
    try:
        # deferred: a Ctrl-C while the command line loads is reported, not a traceback
        from hsim.cli import run as run_cli
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    run_cli()
