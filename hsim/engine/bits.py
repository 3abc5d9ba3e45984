"""Bit operations on 52-bit card masks held in int64: plain Python, and LLVM intrinsics
in compiled code.

Each operation is a plain-Python function (exact for any Python int >= 0; what runs
under ``NUMBA_DISABLE_JIT=1`` and what the tests compare against) with a numba overload:
compiled callers get ``llvm.ctpop.i64`` (``popcnt``), ``llvm.cttz.i64`` (``tzcnt``),
``llvm.ctlz.i64`` (``lzcnt``) and, where the compile target has BMI2,
``llvm.x86.bmi.pdep.64`` (``pdep``) instead of shift-and-loop bit tricks, which LLVM
does not turn into those instructions (measured: the play loop held none of them).

Which ``nth_card`` is compiled in is chosen once, at import, from the CPU name and the
feature string numba's code generator targets (:data:`USE_PDEP`). numba's on-disk cache
index keys every entry on that same (triple, CPU name, features) tuple
(``codegen.magic_tuple()``), so code compiled with ``pdep`` on one machine is never
loaded on a machine whose target lacks BMI2 (or where the choice would differ): the
choice cannot go stale in the cache.

>>> popcount(0b1011), lowest_card(0b1000), highest_card(0b1001), nth_card(0b10110, 1)
(3, 3, 3, 2)
"""

from __future__ import annotations

import llvmlite.binding as ll
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from hsim.engine._numba import kernel
from hsim.model.cards import SUIT_MASK

# --- the choice of nth_card, made at import from the compile target -------------------

#: CPUs whose ``pdep`` is microcoded (hundreds of cycles, data-dependent): the portable
#: ``nth_card`` is faster there even though they have BMI2.
SLOW_PDEP_CPUS = frozenset({"znver1", "znver2", "bdver4"})


def target_cpu() -> tuple[str, str]:
    """Return (CPU name, feature string) of numba's compile target, as its cache keys them.

    The feature string is LLVM's (``"+64bit,+adx,...,+bmi2,..."``); both honour
    ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES``.
    """
    try:
        # deferred: numba's internals, whose layout differs between versions (hence the fallback)
        from numba.core.registry import cpu_target

        _, name, features = cpu_target.target_context.codegen().magic_tuple()
        return name, features
    except Exception:  # noqa: BLE001 - another numba layout: read the same settings
        # deferred: numba's internals, whose layout differs between versions (hence the fallback)
        from numba.core import config
        from numba.core.codegen import get_host_cpu_features

        name = config.CPU_NAME or ll.get_host_cpu_name()
        features = config.CPU_FEATURES
        return name, features if features is not None else get_host_cpu_features()


def pdep_wanted(cpu_name: str, features: str) -> bool:
    """Return whether to compile ``nth_card`` with ``pdep`` for this target.

    ``features`` is an LLVM feature string; only an explicit ``+bmi2`` counts (an empty
    string, the CPU's defaults, gets the portable code: slower, never wrong).
    """
    enabled = {f.strip()[1:] for f in features.split(",") if f.strip().startswith("+")}
    return "bmi2" in enabled and cpu_name not in SLOW_PDEP_CPUS


TARGET_CPU_NAME, TARGET_FEATURES = target_cpu()
#: True when compiled ``nth_card`` uses ``pdep``: a pure function of the cache key.
USE_PDEP: bool = pdep_wanted(TARGET_CPU_NAME, TARGET_FEATURES)
#: Whether the target can run ``pdep`` at all (the tests compile both variants).
HAS_BMI2: bool = pdep_wanted("", TARGET_FEATURES)

# --- LLVM intrinsics ------------------------------------------------------------------

_I64 = ir.IntType(64)


def _call(builder, name: str, argtypes: list, args: list):
    fnty = ir.FunctionType(_I64, argtypes)
    return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, sig, args):
        return _call(builder, "llvm.ctpop.i64", [_I64], list(args))

    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx, x):
    # is_zero_poison false: 0 gives 64 (tzcnt does the same; defined, never poison).
    def codegen(context, builder, sig, args):
        no = ir.Constant(ir.IntType(1), 0)
        return _call(builder, "llvm.cttz.i64", [_I64, ir.IntType(1)], [args[0], no])

    return types.int64(types.int64), codegen


@intrinsic
def _ctlz(typingctx, x):
    def codegen(context, builder, sig, args):
        no = ir.Constant(ir.IntType(1), 0)
        return _call(builder, "llvm.ctlz.i64", [_I64, ir.IntType(1)], [args[0], no])

    return types.int64(types.int64), codegen


@intrinsic
def _pdep(typingctx, src, mask):
    if not HAS_BMI2:  # LLVM could not select it; the overloads never ask then
        raise TypingError("pdep needs a compile target with BMI2")

    def codegen(context, builder, sig, args):
        return _call(builder, "llvm.x86.bmi.pdep.64", [_I64, _I64], list(args))

    return types.int64(types.int64, types.int64), codegen


# --- the operations ------------------------------------------------------------------


def popcount(x: int) -> int:
    """Return the number of cards in mask ``x`` (52-bit int, 0 <= x; compiled: int64)."""
    return int(x).bit_count()


def lowest_card(x: int) -> int:
    """Return the lowest card of mask ``x``, 0..51; 64 when ``x`` is empty."""
    x = int(x)
    return (x & -x).bit_length() - 1 if x else 64


def highest_card(x: int) -> int:
    """Return the highest card of mask ``x``, 0..51; 0 when ``x`` is empty."""
    return max(int(x).bit_length() - 1, 0)


def nth_card(x: int, n: int) -> int:
    """Return the ``n``-th lowest card (0-based) of mask ``x``, 0 <= ``n`` < popcount(x);
    64 when ``x`` holds ``n`` cards or fewer."""
    x = int(x)
    for _ in range(int(n)):
        x &= x - 1
    return lowest_card(x)


def nth_card_portable(x: int, n: int) -> int:
    """:func:`nth_card` as compiled where ``pdep`` is not used: clear the ``n`` lowest
    cards, then take the lowest (``n`` one-cycle steps; ``n`` is small in play)."""
    return nth_card(x, n)


def nth_card_pdep(x: int, n: int) -> int:
    """:func:`nth_card` as compiled with ``pdep``: deposit bit ``n`` onto the cards of
    ``x``. Compiled only for a target with BMI2 (:data:`HAS_BMI2`).

    :raises numba.core.errors.TypingError: compiled for a target without BMI2.
    """
    return nth_card(x, n)


def _nth_portable_impl(x, n):
    for _ in range(n):
        x &= x - 1
    return _cttz(x)


def _nth_pdep_impl(x, n):
    return _cttz(_pdep(1 << n, x))


# Compiled callers of the plain functions above get these (inlined, as the kernels are).


@overload(popcount, inline="always")
def _popcount(x):
    return lambda x: _ctpop(x)


@overload(lowest_card, inline="always")
def _lowest_card(x):
    return lambda x: _cttz(x)


@overload(highest_card, inline="always")
def _highest_card(x):
    # x | 1 keeps the highest card of a non-empty mask and makes the empty one card 0.
    return lambda x: 63 - _ctlz(x | 1)


@overload(nth_card_portable, inline="always")
def _nth_card_portable(x, n):
    return _nth_portable_impl


@overload(nth_card_pdep, inline="always")
def _nth_card_pdep(x, n):
    return _nth_pdep_impl


@overload(nth_card, inline="always")
def _nth_card(x, n):
    return _nth_pdep_impl if USE_PDEP else _nth_portable_impl


@kernel
def suit_bits(s: int) -> int:
    """Return the mask of suit ``s`` (0..3: C, D, S, H)."""
    return SUIT_MASK << (13 * s)


@kernel
def above(c: int) -> int:
    """Return the mask of the cards of ``c``'s suit ranked above ``c``."""
    return suit_bits(c // 13) & ~((2 << c) - 1)


@kernel
def below(c: int) -> int:
    """Return the mask of the cards of ``c``'s suit ranked below ``c``."""
    return suit_bits(c // 13) & ((1 << c) - 1)


@kernel
def lowest_by_rank(cards: int) -> int:
    """Return the lowest-ranked card of mask ``cards`` (ties: C, D, S, H); -1 when empty.

    >>> lowest_by_rank((1 << 13) | (1 << 1))  # 2D ranks below 3C
    13
    """
    best = -1
    best_rank = 13
    for s in range(4):
        m = (cards >> (13 * s)) & SUIT_MASK
        if m:
            r = lowest_card(m)
            if r < best_rank:  # strictly lower: the lower suit keeps a tie
                best_rank = r
                best = 13 * s + r
    return best


@kernel
def highest_by_rank(cards: int) -> int:
    """Return the highest-ranked card of mask ``cards`` (ties: H, S, D, C); -1 when empty."""
    best = -1
    best_rank = -1
    for s in range(3, -1, -1):
        m = (cards >> (13 * s)) & SUIT_MASK
        if m:
            r = highest_card(m)
            if r > best_rank:  # strictly higher: the higher suit keeps a tie
                best_rank = r
                best = 13 * s + r
    return best
