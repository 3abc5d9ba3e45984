"""Test hooks: pause a run at a named moment so that a test can kill it there.

``HSIM_TEST_PAUSE=MOMENT`` (optionally ``MOMENT@GAME``: only in the chunk starting at
game index GAME) and ``HSIM_TEST_PAUSE_FILE=PATH``: the first process to reach that
moment creates PATH (exclusively, so the pause happens once per test, even after a
resume or on a replacement worker), writes its pid into it and sleeps until killed.

Moments: ``claimed`` (folder locked, nothing written), ``manifest`` (run.json written,
no game played), ``chunk`` (a chunk played, its parts not written), ``rename`` (one
dataset's part renamed into place, the other not), ``recorded`` (parts renamed, not yet
in the journal), ``finish`` (every chunk recorded, run.json not yet ``complete``).
Unset (always, outside tests), :func:`pause` costs one dictionary lookup.
"""

from __future__ import annotations

import os
import time


def pause(moment: str, game: int | None = None) -> None:
    """Sleep forever at ``moment`` if the environment asks for it (see the module)."""
    wanted = os.environ.get("HSIM_TEST_PAUSE")
    if not wanted:
        return
    name, _, at = wanted.partition("@")
    if name != moment or (at and game is not None and int(at) != game):
        return
    path = os.environ.get("HSIM_TEST_PAUSE_FILE")
    if not path:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return  # paused once already
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    while True:
        time.sleep(3600)
