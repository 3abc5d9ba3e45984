"""Ask one strategy for its decision at a given position (``hsim choose``).

The strategy sees exactly what it would see in a game: the seat to act's observation,
and the random stream of that seat in game 0 of run ``seed``.
"""

from __future__ import annotations

from hsim.errors import ConfigError
from hsim.loader import LoadedStrategy
from hsim.play import PythonDriver
from hsim.position import Position


def choose(strategy: LoadedStrategy, position: Position, seed: int = 0) -> int:
    """Return the card ``strategy`` plays as the seat to act at ``position``.

    The answer is not checked or played. :raises ConfigError: (a ValueError) the position is not
    in its play phase. :raises StrategyError: the strategy raised (``sys.exit()`` and its own
    ``KeyboardInterrupt`` included) or answered something that is not an int64, with
    the usual strategy, seat, game and seed.
    """
    if position.phase != "play":
        raise ConfigError(f"no card is due: the position is in its {position.phase} phase")
    from hsim.engine.layout import H_DECIDER, H_GAME, ST_OK

    seat = position.to_act
    players = [strategy] * 4
    driver = PythonDriver(position.rules, players, seed, state=position.state)
    driver.start_game(0, deal=False)
    driver.state.hidden[H_DECIDER] = seat  # the seat and game a strategy error names
    driver.state.hidden[H_GAME] = 0
    return driver.decide(ST_OK)
