"""Who sits where in duplicate play, and how games are numbered (one definition for all).

A duplicate *board* is played once per rotation of the players over the seats (4
rotations, 3 in 3-player Kierki). Game ``n * board + rotation`` is board ``board`` in
rotation ``rotation``, n = the number of rotations; in rotation r seat s is taken by
player ``(s + r) % n``. Without duplicate play game = board and rotation 0.

>>> game_number(5, 2, 4), board_and_rotation(22, 4)
(22, (5, 2))
>>> rotate(["a", "b", "c", "d"], 1)
['b', 'c', 'd', 'a']
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def rotate(players: list[T], rotation: int) -> list[T]:
    """Return the seating of a rotation: seat s is taken by player ``(s + rotation) % n``,
    n = ``len(players)``.
    """
    n = len(players)
    return [players[(s + rotation) % n] for s in range(n)]


def game_number(board: Any, rotation: int, rotations: int) -> Any:
    """Return the game index of ``board`` played in ``rotation`` (ints or int arrays).

    rotations: games per board (1 without duplicate play, then game = board).
    """
    return board * rotations + rotation if rotations > 1 else board


def board_and_rotation(game: int, rotations: int) -> tuple[int, int]:
    """Return (board, rotation) of game index ``game``; the inverse of :func:`game_number`."""
    return divmod(game, rotations) if rotations > 1 else (game, 0)


def player_of(seat: Any, rotation: int, n: int) -> Any:
    """Return the player (index into the players list) at ``seat`` in ``rotation``."""
    return (seat + rotation) % n
