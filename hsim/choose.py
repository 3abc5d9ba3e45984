"""Ask one strategy for its decision at a given position (``hsim choose``).

The strategy sees exactly what it would see in a game: the seat to act's observation,
and the random stream of that seat in game 0 of run ``seed``.
"""

from __future__ import annotations

from hsim.loader import LoadedStrategy
from hsim.play import PythonDriver
from hsim.position import Position


def choose(strategy: LoadedStrategy, position: Position, seed: int = 0) -> int:
    """Return the card ``strategy`` plays as the seat to act at ``position``.

    The answer is not checked or played. :raises ValueError: the position is not in its
    play phase. :raises StrategyError: the strategy raised.
    """
    if position.phase != "play":
        raise ValueError(f"no card is due: the position is in its {position.phase} phase")
    seat = position.to_act
    players = [strategy] * 4
    driver = PythonDriver(position.rules, players, seed, state=position.state)
    driver.start_game(0, deal=False)
    return driver.seats[seat].play(position.legal())
