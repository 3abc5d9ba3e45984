"""Environments for learning agents over hsim's compiled engine (the ``rl`` extra).

- :class:`HsimEnv` (Gymnasium): a learner at one seat, hsim strategies at the others;
- :class:`HsimVectorEnv` (Gymnasium vector): many tables in one compiled call;
- :class:`HsimAECEnv` (PettingZoo AEC): every seat an agent;
- :class:`PolicyStrategy`: a trained policy back at hsim's table as a strategy.

The observation tensor and the actions are in :mod:`hsim.bridges.rl.tensor`, the compiled
tables in :mod:`hsim.bridges.rl.tables`; docs/rl.md is the user's guide. The environment
classes are imported on first use, so that the policy strategy works without gymnasium
and pettingzoo installed. With gymnasium installed, importing this package registers the
Gymnasium ids :data:`GYM_IDS` (``gymnasium.make("hsim/Hearts-v0")``).

The first import after an install or upgrade compiles the environments' step (about a
minute; ``hsim warm`` does it ahead) and says so on stderr, with the elapsed time.
"""

from __future__ import annotations

import importlib
import sys

from hsim.strategy import notice

_LAZY = {
    "HsimEnv": "hsim.bridges.rl.envs",
    "HsimVectorEnv": "hsim.bridges.rl.envs",
    "HsimAECEnv": "hsim.bridges.rl.aec",
    "PolicyStrategy": "hsim.bridges.rl.policy",
    "IllegalActionError": "hsim.bridges.rl.tables",
}

#: The Gymnasium ids, by the rules they play: ``gymnasium.make(id, opponents=...)`` makes
#: an :class:`HsimEnv`, ``gymnasium.make_vec(id, num_envs=N)`` an :class:`HsimVectorEnv`.
GYM_IDS = {"hsim/Hearts-v0": "classic", "hsim/Kierki-v0": "kierki4"}

__all__ = sorted([*_LAZY, "GYM_IDS"])


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hsim.bridges.rl' has no attribute {name!r}")


def _register_gymnasium_ids() -> None:
    """Register :data:`GYM_IDS` with gymnasium, when it is installed (by name: nothing of
    the environments is imported until an id is made)."""
    try:
        import gymnasium  # deferred: optional (the rl extra)
    except ImportError:
        return
    for env_id, rules in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="hsim.bridges.rl.envs:HsimEnv",
                vector_entry_point="hsim.bridges.rl.envs:make_vector",
                kwargs={"rules": rules},
            )


def _compile_with_notice() -> None:
    """Compile the environments' step now if the cache lacks it, saying so on stderr
    (on a terminal with the elapsed time, as hsim's commands do), rather than silently
    on first use."""
    plan = notice.compile_plan(parts=["the learning environments"], loops=False)
    if not plan:
        return
    print(f"hsim: {notice.compile_notice(plan=plan)}", file=sys.stderr, flush=True)
    if not sys.stderr.isatty():  # a log gets the notice alone, as from hsim's commands
        importlib.import_module("hsim.bridges.rl.tables")
        return
    notice.start_ticker(plan)
    try:
        importlib.import_module("hsim.bridges.rl.tables")
    except BaseException:
        notice.stop_ticker(done=False)
        raise
    notice.stop_ticker()


_register_gymnasium_ids()
_compile_with_notice()
