"""Bit tricks on 52-bit card masks held in int64 (compiled, also valid plain Python)."""

from __future__ import annotations

from hsim._jit import kernel


@kernel
def popcount(x: int) -> int:
    """Return the number of cards in mask ``x`` (0 <= x < 2**52)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    # Summing the bytes by shifts, not by multiplication, keeps plain-Python ints exact.
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@kernel
def lowest_card(x: int) -> int:
    """Return the lowest card of non-empty mask ``x``."""
    return popcount((x & -x) - 1)


@kernel
def highest_card(x: int) -> int:
    """Return the highest card of non-empty mask ``x``."""
    c = 0
    step = 32
    while step:
        if x >> (c + step):
            c += step
        step >>= 1
    return c


@kernel
def nth_card(x: int, n: int) -> int:
    """Return the ``n``-th lowest card (0-based) of mask ``x``; ``n`` < popcount(x)."""
    for _ in range(n):
        x &= x - 1
    return lowest_card(x)


@kernel
def suit_bits(s: int) -> int:
    """Return the mask of suit ``s`` (0..3: C, D, S, H)."""
    return 0x1FFF << (13 * s)


@kernel
def above(c: int) -> int:
    """Return the mask of the cards of ``c``'s suit ranked above ``c``."""
    return suit_bits(c // 13) & ~((2 << c) - 1)


@kernel
def below(c: int) -> int:
    """Return the mask of the cards of ``c``'s suit ranked below ``c``."""
    return suit_bits(c // 13) & ((1 << c) - 1)
