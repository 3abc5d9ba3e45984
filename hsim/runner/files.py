"""Writing a run folder's files without following links out of it."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

#: Flags of every file hsim creates in a run folder: created here, never through a link.
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def open_new(path: Path, mode: str = "w"):
    """Return ``path`` opened for writing as a new file (``mode`` ``"w"`` or ``"wb"``).

    A file or link of that name left by an earlier run is removed first (a link itself,
    never what it points to), then the file is created exclusively and without following
    links, so a link placed there cannot redirect the write outside the folder.

    :raises IsADirectoryError: a folder has that name (hsim deletes no folder of yours).
    :raises FileExistsError: another process created the file in between.
    """
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            raise IsADirectoryError(
                errno.EISDIR, "a folder has the name of a file hsim writes", str(path)
            )
        os.unlink(path)
    fd = os.open(path, NEW_FILE, 0o644)
    return os.fdopen(fd, mode)


def open_append(path: Path) -> int:
    """Return a descriptor of ``path`` opened to append (created if missing), refusing a
    link (``OSError`` ELOOP) so that appends stay inside the folder."""
    return os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
    )
