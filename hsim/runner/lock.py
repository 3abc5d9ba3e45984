"""One owner per run folder: an exclusive lock taken before anything is written.

The lock is the file ``RUN/.hsim.lock`` held with ``fcntl.flock`` by the process that
plays into the folder (``hsim tournament`` or ``hsim resume``). The kernel releases the
lock when that process ends, however it ends (SIGKILL included), so a lock left by a dead
run is recognised as stale without guessing from pids; the file holds the owner's pid,
host and start time, only to name it when a second run is refused.
A child forked from the owner (a worker of its pool) closes its copy of the descriptor
at once, so the lock ends with the owner, not with the last of its workers.

On a file system without ``flock`` (some network mounts answer ENOLCK or EOPNOTSUPP) the
lock is instead the file ``RUN/.hsim.owner``, created exclusively (``O_EXCL``) and
removed on release. A file left by a killed run is stale when it names a process of this
host that is gone (its pid no longer runs, or runs a process started at another time);
one naming another host cannot be checked from here, so it is refused with its path to
delete once that run is known to be gone.

:func:`claim` refuses a folder inside one that another live process holds (a ladder's,
gauntlet's, sprt's or atlas's ``--out`` while it plays: :func:`held_above`).
:func:`claim_new` also checks where a new run may go (not inside another run folder,
``--overwrite`` not of the current directory or one of its parents) and, with
``overwrite``, empties the folder only after every check has passed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

from hsim.errors import ManifestError
from hsim.runner.manifest import JOURNAL, MANIFEST, now, parse_record, read_record

LOCK = ".hsim.lock"
#: The lock where the file system has no flock (see the module docstring).
OWNER = ".hsim.owner"
_NO_FLOCK = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)
# What an hsim run folder may hold (and --overwrite may delete): its manifest, journal,
# datasets and their temporary files.
RUN_ENTRIES = {
    MANIFEST,
    f".{MANIFEST}.tmp",
    JOURNAL,
    f".{JOURNAL}.tmp",
    "deals",
    "games",
    "plays",
    LOCK,
    OWNER,
}
#: The traceback file an unexpected error leaves in the run folder (hsim.cli.common).
ERROR_FILE = re.compile(r"hsim-error-[^/]*\.txt")


class FolderError(Exception):
    """The run folder cannot be used: owned by another run, not a run folder, a file…"""


@dataclasses.dataclass
class FolderLock:
    """A held lock on a run folder. Release with :meth:`release` (or let the process end).

    path: the lock file. fd: its open descriptor (the lock lives as long as it is open).
    """

    path: Path
    fd: int

    def __post_init__(self) -> None:
        _HELD.append(self)

    def release(self) -> None:
        """Remove the lock file and drop the lock."""
        _HELD[:] = [lock for lock in _HELD if lock is not self]
        if self.fd < 0:
            return
        try:
            if os.stat(self.path).st_ino == os.fstat(self.fd).st_ino:
                self.path.unlink()
        except OSError:
            pass
        os.close(self.fd)
        self.fd = -1


#: The locks this process holds (see :func:`_forget_in_child`).
_HELD: list[FolderLock] = []


def _forget_in_child() -> None:
    """Close the held locks' descriptors in a child just forked (a worker of the run's
    pool): the flock lives while any descriptor of it is open, so a child that outlived a
    killed owner by a moment would otherwise keep ``hsim resume`` out of the folder. The
    child's copy of each :class:`FolderLock` is left released (its :meth:`~FolderLock.
    release` removes nothing)."""
    for lock in _HELD:
        with contextlib.suppress(OSError):
            os.close(lock.fd)
        lock.fd = -1
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def owner_text(owner: dict[str, Any] | None) -> str:
    """Return a phrase naming the owner recorded in a lock file."""
    if not owner:
        return "another hsim process (it has not written its pid yet)"
    return (
        f"hsim process {owner.get('pid')} on host {owner.get('host')} "
        f"(started {owner.get('started')})"
    )


def read_owner(run_dir: Path) -> dict[str, Any] | None:
    """Return what the lock file of ``run_dir`` says about its owner, or None."""
    for name in (LOCK, OWNER):
        owner = _read_json(Path(run_dir) / name)
        if owner:
            return owner
    return None


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        text = read_record(path)
        owner = parse_record(text, path) if text.strip() else None
        return owner if isinstance(owner, dict) else None
    except (OSError, ManifestError):
        return None


def _flock(fd: int, operation: int) -> None:
    """``fcntl.flock``, or OSError(EOPNOTSUPP) when a test asks for a file system without
    it (``HSIM_TEST_NO_FLOCK=1``)."""
    if os.environ.get("HSIM_TEST_NO_FLOCK") == "1":
        raise OSError(errno.EOPNOTSUPP, "flock disabled for a test")
    fcntl.flock(fd, operation)


def _process_start(pid: int) -> str | None:
    """Return the start time of process ``pid`` (clock ticks since boot, from /proc), or
    None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def _owner_alive(owner: dict[str, Any]) -> bool | None:
    """Return whether the process an owner file names still runs: True, False, or None
    when that cannot be told from here (another host)."""
    if owner.get("host") != socket.gethostname():
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it runs, as another user
    started = owner.get("process_start")
    return not (started and _process_start(pid) not in (None, started))


def _owner_record() -> bytes:
    owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": now()}
    started = _process_start(os.getpid())
    if started:
        owner["process_start"] = started
    return (json.dumps(owner) + "\n").encode()


def _claim_exclusive(run_dir: Path) -> FolderLock:
    """Take the ``O_EXCL`` lock of ``run_dir`` (file systems without flock).

    :raises FolderError: a live or unknown process owns the folder (the message names it).
    """
    path = run_dir / OWNER
    for _ in range(200):
        try:
            fd = os.open(
                path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644
            )
        except FileExistsError:
            owner = _read_json(path)
            try:
                age = time.time() - os.stat(path).st_mtime
            except FileNotFoundError:
                continue  # released meanwhile: try again
            if owner is None and age < 5:  # being written by its owner
                time.sleep(0.025)
                continue
            alive = _owner_alive(owner) if owner else False
            if alive is False:
                _remove_stale(run_dir, path)
                continue
            if alive is None:
                raise FolderError(
                    f"{run_dir} is in use by {owner_text(owner)}, which cannot be checked "
                    f"from this host; if that run is gone, delete {path} and try again"
                ) from None
            raise FolderError(
                f"{run_dir} is in use by {owner_text(owner)}; wait for it to finish or stop "
                "it, or choose another folder"
            ) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise FolderError(
                    f"cannot write {run_dir}: its lock file is a link; hsim follows no link "
                    "in a run folder: delete the link, then try again"
                ) from None
            raise FolderError(
                f"cannot write {run_dir}: the lock file {path} cannot be created "
                f"({exc.strerror or exc})"
            ) from None
        os.write(fd, _owner_record())
        os.fsync(fd)
        return FolderLock(path, fd)
    raise FolderError(f"{run_dir}: could not take its lock {path}; try again")


def _remove_stale(run_dir: Path, path: Path) -> None:
    """Move a stale owner file out of the way. Two claimers may both find it stale: only
    one rename succeeds, and a file that turns out to be a new owner's (its inode
    changed between the look and the rename) is put back."""
    try:
        seen = os.stat(path).st_ino
    except FileNotFoundError:
        return
    aside = run_dir / f".hsim.owner.stale-{os.getpid()}-{time.monotonic_ns()}"
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    if os.stat(aside).st_ino != seen:
        with contextlib.suppress(OSError):
            os.link(aside, path)  # fails if yet another owner has claimed meanwhile
    with contextlib.suppress(OSError):
        aside.unlink()


def is_locked(run_dir: Path) -> bool:
    """Return True when a live process holds the lock of ``run_dir`` (or, without flock,
    its owner file names a process that runs or cannot be checked)."""
    owner = _read_json(Path(run_dir) / OWNER)
    if owner is not None and _owner_alive(owner) is not False:
        return True
    path = Path(run_dir) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        _flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError as exc:
        if exc.errno in _NO_FLOCK:
            return False  # no flock here: the owner file above decides
        raise
    finally:
        os.close(fd)


def claim(run_dir: Path) -> FolderLock:
    """Take the lock of the existing folder ``run_dir`` and record this process in it.

    :raises FolderError: a live process holds it (the message names it), or the lock
        cannot be taken on this file system.
    """
    run_dir = Path(run_dir)
    path = run_dir / LOCK
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise FolderError(
                    f"cannot write {run_dir}: its lock file is a link; hsim follows no link "
                    "in a run folder: delete the link, then try again"
                ) from None
            raise FolderError(
                f"cannot write {run_dir}: the lock file {path} cannot be created "
                f"({exc.strerror or exc})"
            ) from None
        try:
            _flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            owner = None
            for _ in range(20):  # the owner writes its details just after locking
                owner = read_owner(run_dir)
                if owner:
                    break
                time.sleep(0.025)
            raise FolderError(
                f"{run_dir} is in use by {owner_text(owner)}; wait for it to finish or stop "
                "it, or choose another folder"
            ) from None
        except OSError as exc:
            os.close(fd)
            if exc.errno in _NO_FLOCK:  # the owner file is the lock on this file system
                lock = _claim_exclusive(run_dir)
                _refuse_inside_held(run_dir, lock)
                return lock
            raise
        try:  # the previous owner may have removed the file between our open and lock
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    os.ftruncate(fd, 0)
    os.pwrite(fd, _owner_record(), 0)
    lock = FolderLock(path, fd)
    _refuse_inside_held(run_dir, lock)
    return lock


def held_above(run_dir: Path) -> tuple[Path, dict[str, Any] | None] | None:
    """Return the closest folder above ``run_dir`` (not itself) whose lock another live
    process holds, with what its lock file says of that owner; None when there is none.
    A ladder, gauntlet, sprt or atlas holds its ``--out`` while it writes its runs there;
    folders this process holds do not count."""
    own = {lock.path.parent.resolve() for lock in _HELD}
    for parent in Path(run_dir).resolve().parents:
        if parent in own or not ((parent / LOCK).exists() or (parent / OWNER).exists()):
            continue
        if is_locked(parent):
            return parent, read_owner(parent)
    return None


def check_not_inside_held(run_dir: Path) -> None:
    """Raise FolderError when a folder above ``run_dir`` is held by another live process
    (:func:`held_above`): a command checks this before it creates anything there, and
    :func:`claim` again once it holds ``run_dir``'s lock."""
    above = held_above(run_dir)
    if above is not None:
        folder, owner = above
        raise FolderError(
            f"{run_dir} is inside {folder}, which is in use by {owner_text(owner)} (a "
            "ladder, gauntlet, sprt or atlas writes its runs there); wait for it to finish "
            "or stop it, or choose another folder"
        )


def _refuse_inside_held(run_dir: Path, lock: FolderLock) -> None:
    """Release ``lock`` (just taken on ``run_dir``) and raise FolderError when a folder
    above ``run_dir`` is held by another process (:func:`check_not_inside_held`). Checked
    once the lock is held: the holder above checks its folders' locks in turn
    (ladder.plan_folder), so of two processes claiming at once one of them sees the
    other."""
    try:
        check_not_inside_held(run_dir)
    except FolderError:
        lock.release()
        raise


def run_folder_above(path: Path) -> Path | None:
    """Return the closest folder above ``path`` (not ``path`` itself) holding a
    ``run.json``, or None.
    """
    for parent in Path(path).resolve().parents:
        if (parent / MANIFEST).is_file():
            return parent
    return None


def is_fresh(run_dir: Path) -> bool:
    """True when the folder holds nothing but a lock, empty dataset folders and a manifest
    never finished (``.run.json.tmp``: a run killed, or out of disk space, before its
    manifest was written), so a new run may take it without ``--overwrite``.
    """
    for entry in run_dir.iterdir():
        if entry.name in (LOCK, OWNER, f".{MANIFEST}.tmp"):
            continue
        if entry.name in ("deals", "games") and entry.is_dir() and not any(entry.iterdir()):
            continue
        return False
    return True


def claim_new(run_dir: Path, overwrite: bool) -> FolderLock:
    """Claim ``run_dir`` for a new run: check, create it, lock it, empty it (overwrite).

    Order: every check that needs no lock, then create and lock the folder, then the
    checks of its contents under the lock, and only then (``overwrite``) the deletion.
    A folder this call created is removed again when a check fails.

    :raises FolderError: ``run_dir`` is a file, lies inside another run folder, is owned
        by a live run, exists without ``overwrite``, is not an hsim run folder, or is
        (or holds) the current directory.
    """
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise FolderError(f"--out {run_dir} is a file, not a folder; choose another --out")
    above = run_folder_above(run_dir)
    if above is not None:
        raise FolderError(
            f"--out {run_dir} is inside the run folder {above}; writing there would break "
            "reading that run: choose an --out outside it"
        )
    if overwrite and run_dir.exists():
        cwd = Path.cwd().resolve()
        target = run_dir.resolve()
        if cwd == target or target in cwd.parents:
            raise FolderError(
                f"--overwrite refused: {run_dir} is the current directory or holds it; "
                "run from another directory"
            )
    check_not_inside_held(run_dir)  # before anything is created there
    created = False
    try:
        run_dir.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderError(
            f"cannot write --out {run_dir}: {exc.strerror or exc} ({exc.filename}); choose "
            "another --out"
        ) from None
    try:
        run_dir.mkdir()
        created = True
    except FileExistsError:
        pass  # another run may have just made it: the lock decides
    except OSError as exc:
        raise FolderError(
            f"cannot write --out {run_dir}: {exc.strerror or exc}; choose another --out"
        ) from None
    try:
        lock = claim(run_dir)
    except FolderError:
        if created:  # refused (a process holds a folder above): leave no empty folder
            with contextlib.suppress(OSError):
                (run_dir / LOCK).unlink()  # left by a file system without flock
            with contextlib.suppress(OSError):
                run_dir.rmdir()
        raise
    try:
        if is_fresh(run_dir):
            return lock
        if not overwrite:
            status = _status(run_dir)
            hint = (
                f"; `hsim resume {run_dir}` continues it"
                if status in ("running", "interrupted", "failed")
                else ""
            )
            raise FolderError(
                f"output folder {run_dir} already exists{f' (run {status})' if status else ''}"
                f"; choose another --out or pass --overwrite to replace it{hint}"
            )
        problem = replace_problem(run_dir)
        if problem:
            raise FolderError(
                f"--overwrite refused: {run_dir} is not an hsim run folder ({problem}), and "
                "--overwrite deletes nothing else; choose another --out"
            )
        for entry in run_dir.iterdir():  # every check passed: delete last
            if entry.name in (LOCK, OWNER):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        return lock
    except BaseException:
        if created:  # ours and still locked by us: nothing of anyone else's is in it
            for entry in run_dir.iterdir():
                if entry.name not in (LOCK, OWNER):
                    shutil.rmtree(entry, ignore_errors=True)
        lock.release()
        if created:
            with contextlib.suppress(OSError):
                run_dir.rmdir()
        raise


#: What a dataset folder of a run holds: its parts and their temporary files
#: (hsim.runner.sink); anything else in it is not hsim's.
PART_FILE = re.compile(r"part-\d+\.parquet|\.tmp-.+")
DATASET_FOLDERS = ("deals", "games", "plays")


def overwrite_problem(
    folder: Path,
    known: set[str] = RUN_ENTRIES,
    manifests: dict[str, str] | None = None,
    runs_in: tuple[str, ...] = (),
) -> str | None:
    """Return why ``--overwrite`` may not empty ``folder``, or None when it may.

    Every entry must be one hsim writes there (``known``, or an error's traceback file),
    every file in a dataset folder one of its parts (:data:`PART_FILE`), each folder of
    ``runs_in`` (an sprt test's ``candidate/`` and ``baseline/``) a run folder by the same
    rule, and each of ``manifests`` (file name: the key only hsim's has; default
    ``{"run.json": "seed_scheme"}``, an sprt folder adds ``{"sprt.json": "config"}``)
    that is there and valid JSON, hsim's: an object with that key. A manifest that is not
    valid JSON is taken for a damaged one of hsim's: the folder holds nothing else but
    hsim's entries.
    """
    foreign = []
    for entry in folder.iterdir():
        if entry.name not in known and not ERROR_FILE.fullmatch(entry.name):
            foreign.append(entry.name)
        elif entry.name in DATASET_FOLDERS and entry.is_dir() and not entry.is_symlink():
            foreign += [
                f"{entry.name}/{p.name}" for p in entry.iterdir() if not PART_FILE.fullmatch(p.name)
            ]
    if foreign:
        foreign.sort()
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        return f"it holds entries hsim does not write ({shown})"
    for name in runs_in:
        sub = folder / name
        if sub.is_dir() and not sub.is_symlink():
            problem = overwrite_problem(sub)
            if problem:
                return f"{name}/: {problem}"
    for name, marker in (manifests or {MANIFEST: "seed_scheme"}).items():
        try:
            doc = parse_record(read_record(folder / name), folder / name)
        except (OSError, ManifestError):  # not there, or damaged
            continue
        if not isinstance(doc, dict) or marker not in doc:
            return f"its {name} is not one hsim wrote"
    return None


def replace_problem(run_dir: Path) -> str | None:
    """Return why hsim may not empty run folder ``run_dir`` to play a new run in it (what
    it holds that hsim does not write, :func:`overwrite_problem`; or what would lead a
    delete out of it, :func:`unsafe_entries`, the first three), or None when it may."""
    return overwrite_problem(run_dir) or "; ".join(unsafe_entries(run_dir)[:3]) or None


def unsafe_entries(run_dir: Path, strays: bool = True) -> list[str]:
    """Return what in ``run_dir`` would lead hsim's reads, writes or deletes out of the
    folder, or make it delete what it did not write, one phrase each (empty: none).

    A link among hsim's own entries (the manifest, the journal, their temporary files,
    the lock, a dataset folder) or inside a dataset folder; a dataset folder that is not
    a folder; a folder where hsim writes a file; inside a dataset folder, anything but
    a part file (:data:`PART_FILE`) or a folder (unless not ``strays``). The run folder
    itself may be a link.
    """
    problems = []
    run_dir = Path(run_dir)
    for name in sorted(RUN_ENTRIES):
        path = run_dir / name
        if path.is_symlink():
            problems.append(f"{name} is a link (to {os.readlink(path)})")
        elif name in DATASET_FOLDERS:
            if path.exists() and not path.is_dir():
                problems.append(f"{name} is not a folder")
            elif path.is_dir():
                for entry in sorted(path.iterdir()):
                    if entry.is_symlink():
                        problems.append(f"{name}/{entry.name} is a link")
                    elif strays and not entry.is_dir() and not PART_FILE.fullmatch(entry.name):
                        problems.append(f"{name}/{entry.name} is not a part hsim wrote")
        elif path.is_dir():
            problems.append(f"{name} is a folder, where hsim writes a file")
        elif path.exists() and not path.is_file():
            problems.append(f"{name} is not a regular file (a pipe, a device…)")
    for path in sorted(run_dir.iterdir()) if run_dir.is_dir() else ():
        if ERROR_FILE.fullmatch(path.name) and (path.is_symlink() or not path.is_file()):
            problems.append(f"{path.name} is not a file hsim wrote")
    return problems


def refuse_unsafe(run_dir: Path, what: str, strays: bool = True) -> None:
    """Raise FolderError naming :func:`unsafe_entries` of ``run_dir``, if any: ``what``
    (e.g. ``cannot resume``) is refused, and nothing is changed.

    :raises FolderError: with what to move or delete before trying again.
    """
    problems = unsafe_entries(run_dir, strays)
    if problems:
        shown = "; ".join(problems[:3]) + (
            f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        )
        raise FolderError(
            f"{what} {run_dir}: {shown}. hsim reads, writes and deletes only its own files "
            "inside the run folder; nothing was changed: move those entries out of the "
            "folder (or replace the links by what they point to), then try again"
        )


def _status(run_dir: Path) -> str | None:
    try:
        return str(parse_record(read_record(run_dir / MANIFEST), run_dir).get("status"))
    except (OSError, ManifestError, AttributeError):
        return None
