"""The strategy layer: what a bot is and how hsim finds one.

- :mod:`hsim.strategy.contract` — the contract: :class:`CompiledStrategy` (a bundle of
  compiled decisions), :class:`Param`, :class:`Observation` (what a plain-Python strategy
  sees), :class:`LoadedStrategy` (a strategy ready to sit at a table), the errors;
- :mod:`hsim.strategy.specs` — the ``--players`` grammar (``name(key=value)``, files,
  modules), in one place;
- :mod:`hsim.strategy.loader` — turns a spec into a :class:`LoadedStrategy`;
- :mod:`hsim.strategy.notice` — what a command is about to compile, said before it does.

The names a bot author imports are here: ``from hsim.strategy.contract import CompiledStrategy,
Param``.
"""

from hsim.strategy.contract import (
    CompiledStrategy,
    LoadedStrategy,
    Observation,
    Param,
    StrategyError,
    StrategySpecError,
)

__all__ = [
    "CompiledStrategy",
    "LoadedStrategy",
    "Observation",
    "Param",
    "StrategyError",
    "StrategySpecError",
]
