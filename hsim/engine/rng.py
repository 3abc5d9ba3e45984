"""Counter-based random streams: ``stream(run_seed, game, purpose)``, splitmix64.

A game is a pure function of (rules, strategies, run seed, game index): the deal(s) draw
from the stream of purpose :data:`PURPOSE_DEAL`, seat ``s``'s strategy from purpose
``PURPOSE_SEAT + s``. Streams are re-derived at the start of every game, so results do
not depend on workers or chunking. A stream's state is one uint64 in a length-1 array.

Version :data:`SEED_SCHEME` is recorded in every run manifest; changing any constant or
step here changes every result and must bump it.
"""

from __future__ import annotations

import numpy as np

from hsim.engine import _numba  # noqa: F401
from hsim.engine._numba import kernel
from hsim.errors import ConfigError

SEED_SCHEME = 1
PURPOSE_DEAL = 0
PURPOSE_SEAT = 1

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SALT = np.uint64(0x6873696D48454152)  # "hsimHEAR"
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)

if _numba.JIT_DISABLED:  # numpy scalars warn on the wrap-around splitmix64 relies on
    import warnings

    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)


@kernel
def mix64(z):
    """Return splitmix64's finaliser of uint64 ``z`` (a bijection on 64 bits)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def stream_state(run_seed, game, purpose):
    """Return the starting uint64 state of stream (run_seed, game, purpose).

    run_seed: uint64; game: int >= 0; purpose: small int >= 0.
    """
    z = mix64(run_seed ^ _SALT)
    z = mix64(z + np.uint64(game) * GOLDEN)
    return mix64(z ^ (np.uint64(purpose) * _M1 + GOLDEN))


@kernel
def next_u64(state):
    """Advance stream ``state`` (uint64 array of length 1) and return 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@kernel
def scaled(bits, n):
    """Return 64 random bits ``bits`` (uint64) as an int in ``0..n-1`` (1 <= n < 2**32):
    the high 32 bits times ``n``, shifted down (what :func:`below` draws)."""
    return np.int64(((bits >> _S32) * np.uint64(n)) >> _S32)


@kernel
def below(state, n):
    """Return a random int in ``0..n-1`` (1 <= n < 2**32) from stream ``state``."""
    return scaled(next_u64(state), n)


#: Run seeds are 0..MAX_SEED: the streams are keyed on 64 bits.
MAX_SEED = 2**64 - 1


def check_seed(seed, name: str = "--seed") -> int:
    """Return run seed ``seed`` if it is an int 0..2**64-1.

    A larger seed is refused rather than reduced modulo 2**64: it would silently replay
    the games of a smaller seed while the run records the larger one.

    :raises ConfigError: not an int (bools are not), negative, or beyond 2**64-1.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"{name} must be an integer 0..2**64-1, not {seed!r}")
    seed = int(seed)
    if seed > MAX_SEED:
        raise ConfigError(
            f"{name} {seed} is too large: seeds are 0..2**64-1 ({MAX_SEED}); the random "
            "streams hold 64 bits, so a larger seed would repeat a smaller one's games"
        )
    if seed < 0:
        raise ConfigError(f"{name} {seed} is negative: seeds are 0..2**64-1 ({MAX_SEED})")
    return seed


def seed_to_u64(seed: int) -> np.uint64:
    """Return run seed ``seed`` (0..2**64-1) as uint64.

    :raises ConfigError: see :func:`check_seed`.
    """
    return np.uint64(check_seed(seed))
