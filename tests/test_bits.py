"""hsim.engine.bits: the compiled bit operations (LLVM intrinsics) against the plain-Python
definitions, both nth_card variants, and the compile-time choice between them."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from hsim.engine import bits
from hsim.model.cards import FULL_DECK

# Compiled callers of each operation (the kernels reach them the same way).
c_popcount = njit(lambda x: bits.popcount(x))
c_lowest = njit(lambda x: bits.lowest_card(x))
c_highest = njit(lambda x: bits.highest_card(x))
c_nth = njit(lambda x, n: bits.nth_card(x, n))
c_nth_portable = njit(lambda x, n: bits.nth_card_portable(x, n))
c_nth_pdep = njit(lambda x, n: bits.nth_card_pdep(x, n))

needs_bmi2 = pytest.mark.skipif(not bits.HAS_BMI2, reason="the compile target has no BMI2")

EDGES = [1, 1 << 51, FULL_DECK, (1 << 51) | 1, 0x1FFF << 39, 0x5555555555555 & FULL_DECK]
masks = st.one_of(
    st.integers(1, FULL_DECK),
    st.integers(0, 51).map(lambda b: 1 << b),  # single cards
    st.sampled_from(EDGES),
)


def _cards(x):
    """The cards of ``x`` in increasing order, by testing each bit: the reference."""
    return [c for c in range(64) if x >> c & 1]


@settings(max_examples=300, deadline=None)
@given(masks)
def test_popcount_lowest_highest_match_the_plain_definitions(x):
    cards = _cards(x)
    for python, compiled, want in (
        (bits.popcount, c_popcount, len(cards)),
        (bits.lowest_card, c_lowest, cards[0]),
        (bits.highest_card, c_highest, cards[-1]),
    ):
        assert python(x) == want
        assert compiled(x) == want
        assert compiled(np.int64(x)) == want  # as the kernels pass array elements


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_nth_card_every_variant_matches_the_plain_definition(data):
    x = data.draw(masks)
    cards = _cards(x)
    n = data.draw(st.integers(0, len(cards) - 1))
    assert bits.nth_card(x, n) == cards[n]
    assert c_nth(x, n) == cards[n]
    assert c_nth_portable(x, n) == cards[n]
    if bits.HAS_BMI2:
        assert c_nth_pdep(x, n) == cards[n]


def test_every_card_of_the_full_deck_in_each_variant():
    variants = [bits.nth_card, c_nth, c_nth_portable] + ([c_nth_pdep] if bits.HAS_BMI2 else [])
    for f in variants:
        assert [f(FULL_DECK, n) for n in range(52)] == list(range(52))
        assert [f(1 << c, 0) for c in range(52)] == list(range(52))


@given(st.integers(1, 2**63 - 1))
def test_the_whole_int64_range(x):
    cards = _cards(x)
    assert c_popcount(x) == bits.popcount(x) == len(cards)
    assert c_lowest(x) == bits.lowest_card(x) == cards[0]
    assert c_highest(x) == bits.highest_card(x) == cards[-1]


def test_empty_masks_give_the_documented_values_compiled_or_not():
    # The old shift-loop code gave these; callers check emptiness, but a record must not
    # depend on which implementation ran.
    for popcount, lowest, highest in (
        (bits.popcount, bits.lowest_card, bits.highest_card),
        (c_popcount, c_lowest, c_highest),
    ):
        assert (popcount(0), lowest(0), highest(0)) == (0, 64, 0)
    for nth in [bits.nth_card, c_nth, c_nth_portable] + ([c_nth_pdep] if bits.HAS_BMI2 else []):
        assert nth(0, 0) == 64
        assert nth(0b101, 2) == 64  # past the last card


def test_compiled_code_holds_the_instructions():
    """The choice is compiled in: pdep exactly when USE_PDEP, and no nth_card loop then."""

    @njit
    def uses_all(x, n):
        return bits.nth_card(x, n) + bits.popcount(x) + bits.lowest_card(x)

    uses_all(5, 1)
    asm = "\n".join(uses_all.inspect_asm().values())
    assert bool(re.search(r"\bpdep", asm)) == bits.USE_PDEP
    if "+popcnt" in bits.TARGET_FEATURES.split(","):
        assert re.search(r"\bpopcnt", asm)
    if "+bmi" in bits.TARGET_FEATURES.split(","):
        assert re.search(r"\btzcnt", asm)


def test_pdep_is_chosen_from_the_target_numba_caches_for():
    from numba.core.registry import cpu_target

    _, name, features = cpu_target.target_context.codegen().magic_tuple()
    assert (name, features) == (bits.TARGET_CPU_NAME, bits.TARGET_FEATURES)
    assert bits.pdep_wanted(name, features) == bits.USE_PDEP
    assert bits.pdep_wanted("znver4", "+64bit,+bmi,+bmi2,+popcnt")
    assert not bits.pdep_wanted("znver4", "+64bit,+bmi,-bmi2,+popcnt")
    assert not bits.pdep_wanted("znver2", "+bmi2")  # microcoded pdep: the portable code
    assert not bits.pdep_wanted("haswell", "")  # no explicit feature: never guess


CHILD = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from hsim.engine import bits
    import user_kernel
    out = [user_kernel.pick(0b1011010, n) for n in range(4)]
    stats = user_kernel.pick.stats
    print(json.dumps({"pdep": bits.USE_PDEP, "out": out, "hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values())}))
    """
)


@needs_bmi2
def test_a_cache_written_with_pdep_is_not_loaded_for_a_target_without_bmi2(tmp_path):
    """numba keys its cache index on the target's CPU name and features, and USE_PDEP is a
    function of them: a process whose target lacks BMI2 compiles anew (and uses the
    portable code) instead of loading the pdep code another target wrote."""
    import json

    (tmp_path / "user_kernel.py").write_text(
        "from numba import njit\nfrom hsim.engine.bits import nth_card\n\n\n"
        "@njit(cache=True)\ndef pick(x, n):\n    return nth_card(x, n)\n"
    )
    features = bits.TARGET_FEATURES.replace("+bmi2", "-bmi2")
    assert "-bmi2" in features

    def run(cpu_features):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
        env.pop("NUMBA_CPU_FEATURES", None)
        if cpu_features is not None:
            env["NUMBA_CPU_FEATURES"] = cpu_features
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run(None)
    assert first["misses"] == 1 and first["pdep"] == bits.USE_PDEP
    no_bmi2 = run(features)
    assert no_bmi2 == {"pdep": False, "out": [1, 3, 4, 6], "hits": 0, "misses": 1}
    again = run(None)  # the first target's entry is still there, and loads
    assert again["hits"] == 1 and again["misses"] == 0 and again["out"] == [1, 3, 4, 6]


def test_plain_python_without_jit():
    """Under NUMBA_DISABLE_JIT=1 every operation, and the kernels over them, run as Python
    (array elements are numpy ints there)."""
    code = textwrap.dedent(
        """
        import numpy as np
        from hsim.engine import bits
        from hsim.engine.hearts import card_points
        x = np.int64((1 << 51) | (1 << 36) | 0b100)
        assert (bits.popcount(x), bits.lowest_card(x), bits.highest_card(x)) == (3, 2, 51)
        assert bits.nth_card(x, 1) == bits.nth_card_portable(x, 1) == 36
        assert bits.nth_card_pdep(x, 2) == 51 and bits.above(np.int64(49)) == 3 << 50
        assert card_points(x) == 14
        print("ok")
        """
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


c_lowest_by_rank = njit(lambda x: bits.lowest_by_rank(x))
c_highest_by_rank = njit(lambda x: bits.highest_by_rank(x))


def _by_rank(x):
    """The cards of ``x`` lowest rank first, clubs first within a rank: the reference."""
    return [13 * s + r for r in range(13) for s in range(4) if x >> (13 * s + r) & 1]


@settings(max_examples=300, deadline=None)
@given(st.one_of(masks, st.just(0)))
def test_cards_by_rank_match_a_rank_by_rank_search(x):
    order = _by_rank(x)
    low, high = (order[0], order[-1]) if order else (-1, -1)
    assert bits.lowest_by_rank(x) == c_lowest_by_rank(x) == low
    assert bits.highest_by_rank(x) == c_highest_by_rank(x) == high
