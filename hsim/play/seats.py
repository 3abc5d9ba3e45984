"""How the compiled loops call a seat's decisions: the light built-in bots directly, the
heavy ones at their native entries, any other compiled strategy through its function
value.

A call through a first-class function value (the compiled tier's contract,
:mod:`hsim.engine.signatures`) is an indirect call the compiler cannot inline, and it
passes the four arrays unpacked, 29 machine words a call. For a bot whose decision is a
few instructions that costs more than the decision: so each seat's decision gets a code
(:func:`seat_codes`), and the ``call_*`` kernels below call the built-in decision a
code names directly, which the compiler sees whole: ``random``'s play is inlined by
LLVM, ``lowcard``'s and ``duck``'s by numba (``inline="always"``: too large for LLVM's
inliner; measured 6-10% more deals per second for those bots); code 0 calls the seat's
function value. The same functions answer either way, so the records do not depend on
the route.

A heavy bot (``heuristic``, ``kierki``) is not compiled into the loops: that would make
every first run compile it (measured for ``heuristic``: about 40 s more cold compile for
every command). It offers native entries instead (:mod:`hsim.engine.native`), the same
decisions over the arrays' data pointers, which the loops call at their address (code
:data:`NATIVE`): 5 words a call instead of 29 (measured: ``heuristic`` ~20% more deals
per second, ``kierki`` ~15%). A native play entry is
not asked when only one card is legal: the loop plays that card, as the bot would.

A bot may also be compiled into a game loop of its own
(:func:`hsim.play.hearts_game.play_games_with`, for a bot whose bundle says ``in_loop``):
its seats then get code :data:`INLINED`, and that loop's ``call_play`` / ``call_pass``
are :func:`call_play_inlined` / :func:`call_pass_inlined` with the bot's native
entries compiled in, which saves the call (measured for ``heuristic``: 5-8% more deals
per second in whole games). The loop is compiled only for runs with that bot, the first
time (``heuristic``: ~45 s more of a cold compile).
"""

from __future__ import annotations

import numpy as np

from hsim.engine._numba import kernel
from hsim.engine.bits import lowest_card
from hsim.engine.choices import default_moon_choice, default_trump_choice
from hsim.engine.layout import MAX_SEATS
from hsim.engine.native import (
    PASS_AT_SIG,
    PLAY_AT_SIG,
    call_pass_at,
    call_play_at,
    data_ptr,
    native_address,
    native_enabled,
)
from hsim.strategies import duck, lowcard, random_bot

#: The decisions the loops call directly, per decision kind; a seat's code for a decision
#: is 1 + the index of its function here, 0 for any other function.
PASS_BUILTINS = (random_bot.pass_cards, lowcard.pass_cards, duck.pass_cards)
PLAY_BUILTINS = (random_bot.play, lowcard.play, duck.play)
MOON_BUILTINS = (default_moon_choice,)
TRUMP_BUILTINS = (random_bot.trump_choice, default_trump_choice)

#: Columns of the codes array, one per decision kind; then the addresses of the seat's
#: native pass and play entries (:mod:`hsim.engine.native`), 0 where it has none.
C_PASS, C_PLAY, C_MOON, C_TRUMP = range(4)
A_PASS, A_PLAY = 4, 5
N_CODES = 6
BY_PROGRAM = 0  # the code of a decision called through its function value
NATIVE = 9  # the code of a decision called at its native entry's address
INLINED = 10  # the code of a decision of the bot compiled into the loop (play_games_with)


def _code(fn, builtins: tuple) -> int:
    for k, builtin in enumerate(builtins):
        if fn is builtin:
            return k + 1
    return BY_PROGRAM


def seat_codes(bundles, inlined=None) -> np.ndarray:
    """Return how the loops call each seat's decisions: int64[MAX_SEATS, N_CODES].

    bundles: one :class:`hsim.strategy.contract.CompiledStrategy` per seat (up to MAX_SEATS;
    missing seats get code 0). Column C_PASS, C_PLAY, C_MOON, C_TRUMP of row ``s`` is 1 +
    the index of seat ``s``'s function in PASS_BUILTINS ... TRUMP_BUILTINS when it is one of
    them (called directly), :data:`NATIVE` for a pass or play with a native entry (its
    address in column A_PASS or A_PLAY; never under ``NUMBA_DISABLE_JIT``), else 0 (called
    through its function value). inlined: the bundle compiled into the loop these codes are
    for (:func:`hsim.play.hearts_game.play_games_with`), whose seats' pass and play get
    :data:`INLINED` instead of NATIVE; None for the plain loops. The addresses belong to
    this process: make the codes where the loops run.

    :raises TypeError: a native entry not compiled with exactly its signature
        (:func:`hsim.engine.native.native_address`).
    """
    codes = np.zeros((MAX_SEATS, N_CODES), np.int64)
    for s, b in enumerate(bundles):
        codes[s, C_PASS] = _code(b.pass_cards, PASS_BUILTINS)
        codes[s, C_PLAY] = _code(b.play, PLAY_BUILTINS)
        if native_enabled() and b.native_pass is not None:
            codes[s, C_PASS], codes[s, A_PASS] = NATIVE, native_address(b.native_pass, PASS_AT_SIG)
        if native_enabled() and b.native_play is not None:
            codes[s, C_PLAY], codes[s, A_PLAY] = NATIVE, native_address(b.native_play, PLAY_AT_SIG)
        if inlined is not None and b is inlined:
            codes[s, C_PASS] = codes[s, C_PLAY] = INLINED
        codes[s, C_MOON] = _code(b.moon_choice, MOON_BUILTINS)
        codes[s, C_TRUMP] = _code(b.trump_choice, TRUMP_BUILTINS)
    return codes


@kernel
def builtin_pass(codes, public, private, rng, params) -> int:
    """Return the pass of the built-in decision ``codes[C_PASS]`` names (``codes``: the
    seat's row of :func:`seat_codes`, C_PASS not :data:`BY_PROGRAM`): a bot called
    directly, or the native entry at address ``codes[A_PASS]`` (code :data:`NATIVE`)."""
    code = codes[C_PASS]
    if code == 1:
        return random_bot.pass_cards(public, private, rng, params)
    if code == 2:
        return lowcard.pass_cards(public, private, rng, params)
    if code == 3:
        return duck.pass_cards(public, private, rng, params)
    return call_pass_at(
        codes[A_PASS], data_ptr(public), data_ptr(private), data_ptr(rng), data_ptr(params)
    )


@kernel
def call_pass(codes, fns, seat, public, private, rng, params) -> int:
    """Return the pass of the decision ``codes[C_PASS]`` names (``codes``: the seat's row
    of :func:`seat_codes`): a built-in (:func:`builtin_pass`), else ``fns[seat]``
    (``fns``: one function value per seat).

    The function value is taken out of ``fns`` only when it is called: picking one of a
    tuple by a seat known only at run time is an indirect jump, which for a built-in
    would cost more than its decision.
    """
    if codes[C_PASS] != BY_PROGRAM:
        return builtin_pass(codes, public, private, rng, params)
    return fns[seat](public, private, rng, params)


@kernel
def builtin_play(codes, public, private, legal, rng, params) -> int:
    """Return the card of the built-in decision ``codes[C_PLAY]`` names (not
    :data:`BY_PROGRAM`): a bot called directly, or the native entry at address
    ``codes[A_PLAY]`` (code :data:`NATIVE`; the only legal card without asking it, when
    there is one)."""
    code = codes[C_PLAY]
    if code == 1:
        return random_bot.play(public, private, legal, rng, params)
    if code == 2:
        return lowcard.play(public, private, legal, rng, params)
    if code == 3:
        return duck.play(public, private, legal, rng, params)
    if legal & (legal - 1) == 0:
        return lowest_card(legal)  # one legal card: a native entry is not asked
    return call_play_at(
        codes[A_PLAY],
        data_ptr(public),
        data_ptr(private),
        legal,
        data_ptr(rng),
        data_ptr(params),
    )


@kernel
def call_play(codes, fns, seat, public, private, legal, rng, params) -> int:
    """Return the card of the decision ``codes[C_PLAY]`` names (``codes``: the seat's row
    of :func:`seat_codes`): a built-in (:func:`builtin_play`), else ``fns[seat]`` (taken
    out of the tuple only then, as in :func:`call_pass`)."""
    if codes[C_PLAY] != BY_PROGRAM:
        return builtin_play(codes, public, private, legal, rng, params)
    return fns[seat](public, private, legal, rng, params)


@kernel
def builtin_moon(codes, public, private, rng, params) -> int:
    """Return the moon choice of the built-in decision ``codes[C_MOON]`` names."""
    return default_moon_choice(public, private, rng, params)


@kernel
def call_moon(codes, fns, seat, public, private, rng, params) -> int:
    """Return the moon choice of the decision ``codes[C_MOON]`` names, else
    ``fns[seat]``'s."""
    if codes[C_MOON] != BY_PROGRAM:
        return builtin_moon(codes, public, private, rng, params)
    return fns[seat](public, private, rng, params)


@kernel
def builtin_trump(codes, public, private, rng, params) -> int:
    """Return the trump choice of the built-in decision ``codes[C_TRUMP]`` names."""
    if codes[C_TRUMP] == 1:
        return random_bot.trump_choice(public, private, rng, params)
    return default_trump_choice(public, private, rng, params)


@kernel
def call_trump(codes, fns, seat, public, private, rng, params) -> int:
    """Return the trump choice of the decision ``codes[C_TRUMP]`` names, else
    ``fns[seat]``'s."""
    if codes[C_TRUMP] != BY_PROGRAM:
        return builtin_trump(codes, public, private, rng, params)
    return fns[seat](public, private, rng, params)


# -- the calls of a loop with a bot compiled in (play_games_with) -----------------------
# Plain functions: play_games_with compiles copies of them (hsim.engine._numba.with_globals) in
# which inlined_play / inlined_pass are that bot's native entries, as kernels.


def inlined_play(public, private, legal, rng, params) -> int:
    """Stands for the play entry of the bot a loop is compiled with; never called."""
    raise NotImplementedError("call_play_inlined is compiled by play_games_with")


def inlined_pass(public, private, rng, params) -> int:
    """Stands for the pass entry of the bot a loop is compiled with; never called."""
    raise NotImplementedError("call_pass_inlined is compiled by play_games_with")


def call_play_inlined(codes, fns, seat, public, private, legal, rng, params) -> int:
    """:func:`call_play` for a loop with a bot compiled in: code :data:`INLINED` plays
    through ``inlined_play``, the bot's native play entry compiled into the loop (the
    only legal card without asking it, as at its address), any other as call_play."""
    if codes[C_PLAY] == INLINED:
        if legal & (legal - 1) == 0:
            return lowest_card(legal)  # one legal card: a native entry is not asked
        return inlined_play(
            data_ptr(public), data_ptr(private), legal, data_ptr(rng), data_ptr(params)
        )
    return call_play(codes, fns, seat, public, private, legal, rng, params)


def call_pass_inlined(codes, fns, seat, public, private, rng, params) -> int:
    """:func:`call_pass` for a loop with a bot compiled in (as :func:`call_play_inlined`)."""
    if codes[C_PASS] == INLINED:
        return inlined_pass(data_ptr(public), data_ptr(private), data_ptr(rng), data_ptr(params))
    return call_pass(codes, fns, seat, public, private, rng, params)
