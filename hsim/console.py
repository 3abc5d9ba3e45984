"""The ``hsim`` console script's entry: :func:`hsim.cli.run`, with a Ctrl-C during its
imports (numpy, numba, pyarrow: about half a second of every command's start) ending as
any other Ctrl-C does, ``interrupted`` and exit 130, instead of a traceback.

On Linux the command runs in a child process that this one supervises: a strategy (or
anything else) that ends the process without hsim finishing its command (``os._exit(0)``)
would otherwise leave an exit status of success. The child says when it finished
(:func:`hsim.errors.tell_finished`); when it ends without saying so, the supervisor
says what happened and exits 1 (or the child's own non-zero status). The child dies with
the supervisor (``PR_SET_PDEATHSIG``), and SIGTERM and SIGHUP sent to the supervisor are
passed on; one that ends the child before its command handles it (in its first second,
while it imports and compiles) is reported as ``interrupted``, as a Ctrl-C is.
``HSIM_NO_SUPERVISOR=1`` runs the command in this process.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import sys

import hsim.errors

EXIT_INTERRUPTED = 130  # 128 + SIGINT: what every command exits with on a Ctrl-C
PR_SET_PDEATHSIG = 1


def run() -> None:
    """Import the command line and run it (:func:`hsim.cli.run`); exits the process."""
    if sys.platform.startswith("linux") and os.environ.get("HSIM_NO_SUPERVISOR") != "1":
        _supervise()  # returns in the child only
    try:
        # deferred: a Ctrl-C while the command line loads is reported, not a traceback
        from hsim.cli import run as run_cli
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    run_cli()


def _in_terminal_foreground() -> bool:
    """Whether this process is in its terminal's foreground group: a Ctrl-C there reaches
    the child as well, so it is not passed on a second time."""
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                return os.tcgetpgrp(fd) == os.getpgrp()
    return False


def _supervise() -> None:
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no fork to spare: run unsupervised rather than not at all
        os.close(read_end)
        os.close(write_end)
        return
    if pid == 0:
        os.close(read_end)
        hsim.errors.finished_fd = write_end
        # any end Python makes itself says so (an error, Ctrl-C while loading, sys.exit);
        # os._exit() and signals skip exit handlers: those are what the supervisor catches
        atexit.register(hsim.errors.tell_finished)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:  # the supervisor died before prctl took effect
            os._exit(1)
        return
    os.close(write_end)

    def forward(signum, frame) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGHUP, forward)
    signal.signal(signal.SIGINT, signal.SIG_IGN if _in_terminal_foreground() else forward)
    _, status = os.waitpid(pid, 0)
    finished = os.read(read_end, 1) == b"1"
    if os.WIFSIGNALED(status):  # killed: end as it ended
        signum = os.WTERMSIG(status)
        if signum == signal.SIGKILL:  # its handler cannot be reset: say it, exit 137
            sys.stderr.write(
                "Error: hsim's process was killed (SIGKILL: by a user, or by the system when "
                "memory ran out). Its output is incomplete; a "
                "run folder it was writing is resumable (hsim resume)\n"
            )
        else:
            if signum in (signal.SIGTERM, signal.SIGHUP):  # before the command handles it
                name = signal.Signals(signum).name
                sys.stderr.write(
                    f"interrupted ({name}, while hsim was starting or between its runs); a "
                    "run folder it was writing, if any, is resumable (hsim resume)\n"
                )
                sys.stderr.flush()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    code = os.waitstatus_to_exitcode(status)
    if not finished:
        sys.stderr.write(
            f"Error: hsim ended before finishing its command (exit status {code}): something "
            "in its process, such as a strategy calling os._exit(), ended it. Its output is "
            "incomplete; a run folder it was writing is resumable (hsim resume) unless a "
            "strategy ends it again\n"
        )
        os._exit(code or 1)
    os._exit(code)
