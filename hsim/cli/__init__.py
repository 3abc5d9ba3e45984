"""The ``hsim`` command line: a package of thin click commands (parse, call one library
function, print), one module per command group:

- :mod:`hsim.cli.tournament` — ``tournament``, ``resume``
- :mod:`hsim.cli.runs` — ``verify``
- :mod:`hsim.cli.positions` — ``replay``, ``perft``, ``choose``
- :mod:`hsim.cli.view` — ``view``, ``analyse``
- :mod:`hsim.cli.bots` — ``strategies``, ``ladder``
- :mod:`hsim.cli.rules` — ``rules``
- :mod:`hsim.cli.sprt` — ``sprt``
- :mod:`hsim.cli.analysis` — ``compare-rules``, ``report``
- :mod:`hsim.cli.atlas` — ``atlas``
- :mod:`hsim.cli.warm` — ``warm``
- :mod:`hsim.cli.serve` — ``serve``
- :mod:`hsim.cli.gauntlet` — ``gauntlet``
- :mod:`hsim.cli.common` — the shared options, and :class:`~hsim.cli.common.Group`: the
  one place that maps errors to a message and an exit code (2 usage, 1 run or data)
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time

if "numpy" not in sys.modules:  # only before numpy loads its BLAS
    # hsim does no linear algebra, and the threads numpy's and scipy's BLAS start at
    # import (one per core) spin for ~0.1 s of CPU (measured on 2 cores), in the run's
    # process and in every spawned worker. A value already in the environment is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from hsim.cli.analysis import compare_rules, report
from hsim.cli.atlas import atlas
from hsim.cli.bots import ladder, strategies
from hsim.cli.common import HELP, Group
from hsim.cli.gauntlet import gauntlet
from hsim.cli.positions import choose, perft, replay
from hsim.cli.rules import rules_command
from hsim.cli.runs import verify
from hsim.cli.serve import serve
from hsim.cli.sprt import sprt
from hsim.cli.tournament import resume, tournament
from hsim.cli.view import analyse, view
from hsim.cli.warm import warm
from hsim.errors import tell_finished


@click.group(cls=Group, context_settings=HELP)
@click.version_option(package_name="hsim-hearts")
def main() -> None:
    """hsim: simulate Hearts games and tournaments at compiled speed."""


for _command in (
    tournament,
    resume,
    verify,
    replay,
    view,
    analyse,
    perft,
    choose,
    ladder,
    gauntlet,
    rules_command,
    strategies,
    warm,
    serve,
):
    main.add_command(_command)
main.add_command(compare_rules)
main.add_command(atlas)
main.add_command(report)
main.add_command(sprt)


def run() -> None:
    """Run :func:`main` as the ``hsim`` console script, then exit without the
    interpreter's teardown of numba's and LLVM's objects (~0.25 s a command, measured).

    The exit handlers run and the standard streams are flushed first, as at a normal
    exit, so nothing written is lost; the exit status is the one ``sys.exit`` would give.
    Threads a strategy left running do not keep the command alive: it names them and
    exits (they end with the process). An exception in such a thread is a strategy
    error: the command says so and exits 1, whatever it did.
    """
    failures: list[str] = []

    def thread_failed(args) -> None:
        name = getattr(args.thread, "name", "?")
        failures.append(f"{name}: {type(args.exc_value).__name__}: {args.exc_value}")

    threading.excepthook = thread_failed
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    if code is None:
        code = 0
    elif not isinstance(code, int):  # as sys.exit("message") does
        sys.stderr.write(f"{code}\n")
        code = 1
    if failures:
        sys.stderr.write(
            f"Error: a thread a strategy started failed ({'; '.join(failures[:3])}); the "
            "command's results may be incomplete\n"
        )
        code = code or 1
    here = threading.current_thread()
    left = [t.name for t in threading.enumerate() if t is not here and t.is_alive()]
    left = [n for n in left if not n.startswith(("hsim-", "compile-ticker"))]
    stray = [t for t in threading.enumerate() if t.name in left and not t.daemon]
    deadline = time.monotonic() + 1.0  # a pool's own threads finish their shutdown
    for t in stray:
        t.join(max(0.0, deadline - time.monotonic()))
    stray = [t for t in stray if t.is_alive()]
    if stray:
        sys.stderr.write(
            f"warning: a strategy left {len(stray)} thread(s) running "
            f"({', '.join(t.name for t in stray[:3])}); they end with hsim\n"
        )
    tell_finished()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe (hsim ... | head) included
            stream.flush()
    os._exit(code & 0xFF)
