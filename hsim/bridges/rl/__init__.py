"""Environments for learning agents over hsim's compiled engine (the ``rl`` extra).

- :class:`HsimEnv` (Gymnasium): a learner at one seat, hsim strategies at the others;
- :class:`HsimVectorEnv` (Gymnasium vector): many tables in one compiled call;
- :class:`HsimAECEnv` (PettingZoo AEC): every seat an agent;
- :class:`PolicyStrategy`: a trained policy back at hsim's table as a strategy.

The observation tensor and the actions are in :mod:`hsim.bridges.rl.tensor`, the compiled
tables in :mod:`hsim.bridges.rl.tables`; docs/rl.md is the user's guide. The environment
classes are imported on first use, so that ``hsim.bridges.rl.tensor`` and the policy
strategy work without gymnasium and pettingzoo installed.
"""

from __future__ import annotations

_LAZY = {
    "HsimEnv": "hsim.bridges.rl.envs",
    "HsimVectorEnv": "hsim.bridges.rl.envs",
    "HsimAECEnv": "hsim.bridges.rl.aec",
    "PolicyStrategy": "hsim.bridges.rl.policy",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib  # deferred: only for the names imported on first use

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hsim.bridges.rl' has no attribute {name!r}")
