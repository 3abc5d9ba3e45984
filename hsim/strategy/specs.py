"""The ``--players`` grammar, in one place: a ``--players`` value is specs separated by
commas outside parentheses; a spec is ``NAME`` or ``NAME(key=value,...)``; a NAME of the
form ``target:attr`` names a module's attribute, or a file's when ``target`` is a file
(:func:`is_file_target`). What a NAME resolves to is the loader's business
(:mod:`hsim.strategy.loader`); this module only reads the text.

>>> split_players("random,lowcard(x=1,y=2), random")
['random', 'lowcard(x=1,y=2)', 'random']
>>> parse_spec("pimc(worlds=20, playouts=10)")
('pimc', {'worlds': '20', 'playouts': '10'})
>>> split_file_spec("bots/mine.py:Bot(depth=2)")
('bots/mine.py', 'Bot', '(depth=2)')
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
from pathlib import Path

from hsim.errors import StrategySpecError
from hsim.model.text import key_values, split_pieces


def split_players(text: str) -> list[str]:
    """Split a ``--players`` value into one spec per seat (commas inside () do not split).

    :raises StrategyError: unbalanced parentheses or an empty seat.
    """
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise StrategySpecError(f"players {text!r}: ')' without '('")
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if depth:
        raise StrategySpecError(f"players {text!r}: '(' without ')'")
    out.append(text[start:].strip())
    if any(not s for s in out):
        raise StrategySpecError(f"players {text!r}: an empty seat (two commas in a row?)")
    return out


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``NAME(key=value,...)`` into the name and the raw parameter strings.

    :raises StrategyError: malformed parentheses, a parameter without ``=`` or given twice.
    """
    spec = spec.strip()
    name, paren, rest = spec.partition("(")
    params: dict[str, str] = {}
    if paren:
        if not rest.endswith(")"):
            raise StrategySpecError(f"strategy {spec!r}: missing ')' at the end")
        pieces = split_pieces(rest[:-1], f"strategy {spec!r}: parameters", StrategySpecError)
        params = key_values(
            pieces, f"strategy {spec!r}: parameter", StrategySpecError, form="key=value"
        )
    if not name.strip():
        raise StrategySpecError(f"strategy {spec!r}: no name")
    return name.strip(), params


#: The spec prefix of an outside program at the table (docs/protocol.md).
ENGINE_PREFIX = "engine:"


def is_file_target(target: str) -> bool:
    """Return whether the ``target`` of a ``target:attr`` spec names a file (it ends in
    ``.py`` or holds a path separator), not a module, nor an engine command holding a
    colon (``engine:./bot --addr=host:80``)."""
    if target.startswith(ENGINE_PREFIX):
        return False
    return target.endswith(".py") or "/" in target or "\\" in target


def split_file_spec(spec: str) -> tuple[str, str, str] | None:
    """Return (path, attr, "(params)") of a ``path.py:attr(...)`` spec, else None."""
    name, paren, rest = spec.strip().partition("(")
    target, colon, attr = name.rpartition(":")
    if colon and target and attr and is_file_target(target):
        return target, attr, paren + rest
    return None


def engine_command(name: str) -> list[str] | None:
    """Return the command line of an ``engine:CMD ARGS`` spec NAME, split as a POSIX shell
    splits words (no shell runs it), or None when NAME is no engine spec.

    >>> engine_command("engine:python3 'my bot.py' --fast")
    ['python3', 'my bot.py', '--fast']

    :raises StrategySpecError: no command, or one a shell could not split (an open quote).
    """
    if not name.startswith(ENGINE_PREFIX):
        return None
    command = name[len(ENGINE_PREFIX) :]
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise StrategySpecError(f"engine command {command!r}: {exc}") from None
    if not argv:
        raise StrategySpecError(
            "engine: give the command after the colon, e.g. engine:./mybot or "
            "'engine:python3 bot.py' (docs/protocol.md)"
        )
    return argv


def check_engine_program(argv: list[str]) -> None:
    """Refuse an engine command whose program is neither on PATH nor an executable file.

    :raises StrategySpecError: naming the program.
    """
    program = argv[0]
    if shutil.which(program) is None:
        where = "is not an executable file" if os.sep in program else "is not on PATH"
        raise StrategySpecError(
            f"engine program {program!r} {where}; give a program to run, e.g. "
            "'engine:python3 path/to/bot.py' (docs/protocol.md)"
        )


def recorded_spec(spec: str, run_dir: Path) -> str:
    """Return ``spec`` as a run manifest records it: a strategy file's path relative to
    the run folder ``run_dir`` (so the record names no home directory and the folder
    replays where it is), other specs unchanged.

    The path is resolved against the current directory first, as :func:`find` does.
    """
    parts = split_file_spec(spec)
    if parts is None:
        return spec
    target, attr, params = parts
    path = Path(target).expanduser().resolve()
    try:
        shown = os.path.relpath(path, Path(run_dir).expanduser().resolve())
    except ValueError:  # another drive (Windows): nothing relative exists
        shown = str(path)
    return f"{Path(shown).as_posix()}:{attr}{params}"


def spec_from_run(spec: str, run_dir: Path) -> str:
    """Return a manifest's recorded ``spec`` ready to load: a relative strategy file path
    is taken relative to the run folder ``run_dir`` (see :func:`recorded_spec`)."""
    parts = split_file_spec(spec)
    if parts is None:
        return spec
    target, attr, params = parts
    if Path(target).expanduser().is_absolute():
        return spec
    return f"{Path(run_dir) / target}:{attr}{params}"


def spec_file(spec: str) -> Path | None:
    """Return the file of a ``path/to/file.py:attr`` spec (as the loader reads it), or None."""
    target, colon, attr = parse_spec(spec)[0].rpartition(":")
    if colon and target and attr and is_file_target(target):
        return Path(target).expanduser().resolve()
    return None


#: The largest strategy file hsim reads (bytes): a Python source, not a data file.
MAX_STRATEGY_FILE = 16 * 2**20


def read_strategy_file(path: Path, shown: str | None = None) -> bytes:
    """Return the bytes of strategy file ``path``, read only when it is a regular file
    of at most :data:`MAX_STRATEGY_FILE` bytes (a FIFO would block, ``/dev/zero`` never
    end). shown: the path as the user gave it, for the message.

    :raises StrategySpecError: missing, not a regular file, or too large.
    """
    shown = shown or str(path)
    try:
        info = os.stat(path)
    except OSError:
        raise StrategySpecError(f"strategy file {shown!r} does not exist") from None
    if stat.S_ISDIR(info.st_mode):
        raise StrategySpecError(
            f"strategy file {shown!r} is a folder; give a Python file, path/to/file.py:attr"
        )
    if not stat.S_ISREG(info.st_mode):
        raise StrategySpecError(
            f"strategy file {shown!r} is not a regular file (a pipe, a device…); give a "
            "Python source file"
        )
    if info.st_size > MAX_STRATEGY_FILE:
        raise StrategySpecError(
            f"strategy file {shown!r} is {info.st_size:,} bytes, more than a Python source "
            f"should be (at most {MAX_STRATEGY_FILE:,})"
        )
    with open(path, "rb") as f:  # a regular file of a checked size: read whole
        return f.read()
