"""Plain-Python strategies for the cluster tests (loaded as tests/bots/cluster_bots.py:NAME)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.bots.python_bots import PyLowcard


class KillsItsWorker(PyLowcard):
    """Plays like PyLowcard; at its ``after``-th decision in a process, SIGKILLs that
    process, once per ``marker`` file (the first process to create it dies; every later one
    plays on). Models a worker lost mid-chunk, deterministically.
    """

    decisions = 0

    def __init__(self, marker: str, after: int = 300):
        self.marker = Path(marker)
        self.after = after

    def play(self, obs, legal, rng):
        KillsItsWorker.decisions += 1
        if KillsItsWorker.decisions == self.after:
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
        return super().play(obs, legal, rng)
