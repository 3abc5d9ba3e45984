"""The one reading of the lists and numbers users type: rules strings, ``--rule``,
``--score-also``, strategy parameters. No empty piece (a trailing or doubled comma), no
key given twice, numbers in ASCII digits without underscores."""

from __future__ import annotations

import math
import re

#: A decimal number as users write one: ASCII digits, an optional sign, fraction and
#: exponent; no underscores (Python's ``1_0``), no other scripts' digits, no hex.
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INTEGER = re.compile(r"[+-]?[0-9]+")


def split_pieces(text: str, what: str, error: type[Exception]) -> list[str]:
    """Return the comma-separated pieces of ``text``, stripped; ``[]`` for blank text.

    :raises error: an empty piece (``a=1,,b=2``, ``a=1,``), naming ``what``.
    """
    if not text.strip():
        return []
    pieces = [p.strip() for p in text.split(",")]
    if any(not p for p in pieces):
        raise error(f"{what} {text!r} has an empty item (a trailing or doubled comma)")
    return pieces


def key_values(
    pieces: list[str], what: str, error: type[Exception], seen=None, form: str = "name=value"
) -> dict:
    """Return ``name=value`` pieces as a dict of raw strings.

    seen: keys already given (e.g. by an earlier ``--rule``), refused as repeats too.
    form: how the message writes a piece (``key=value`` for strategy parameters).
    :raises error: a piece without ``=`` or a name, or a key given twice.
    """
    out: dict[str, str] = {}
    for piece in pieces:
        key, eq, value = piece.partition("=")
        key = key.strip()
        if not eq or not key:
            raise error(f"{what} {piece!r} must be written {form}")
        if key in out or (seen is not None and key in seen):
            raise error(f"{what} {key!r} is given twice; give it once")
        out[key] = value.strip()
    return out


def parse_number(text: str) -> float | None:
    """Return ``text`` as a finite float if it is a plain decimal number (:data:`NUMBER`),
    else None (``nan``, ``inf``, ``1_0``, ``٣``, ``0x10`` are not)."""
    t = text.strip()
    if not NUMBER.fullmatch(t):
        return None
    try:
        value = float(t)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None
