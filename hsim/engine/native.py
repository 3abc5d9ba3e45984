"""Direct calls of a built-in bot's decisions: raw pointers in, one native call.

A call through a first-class function value (the compiled tier's contract,
:mod:`hsim.engine.signatures`) passes each of its four arrays as numba's array struct,
29 machine words a call, and the callee unpacks them again: 7.7 ns a call in a loop of
calls of a decision of a few instructions (measured), more than some decisions cost. A
built-in bot whose decisions are too large to compile into the loops (``heuristic``,
``kierki``) instead offers *native entries*: the same decisions compiled with
:data:`PLAY_AT_SIG` / :data:`PASS_AT_SIG`, which take the arrays' data pointers (one
word each). The loops call such an entry at its address (:func:`native_address`, kept
in the seat's codes, :func:`hsim.play.seats.seat_codes`) through
:func:`call_play_at` / :func:`call_pass_at`, numba's own calling convention: 2.8 ns a
call in the same loop.

The entry's code is numba's, compiled and cached with the bot's module; its address is
taken in the process that plays, so it never travels to another process. Under
``NUMBA_DISABLE_JIT=1`` nothing here is compiled: :func:`data_ptr` returns the array
itself, and the loops call every seat through its function value
(:func:`native_enabled`).
"""

from __future__ import annotations

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from hsim.engine._numba import KeptAddresses
from hsim.engine.signatures import PASS_SIG, PLAY_SIG

#: Argument types of a native entry: the data pointers of ``public`` (int64[PUBLIC_LEN]),
#: ``private`` (this seat's int64[PRIVATE_LEN] row), ``rng`` (uint64[1]) and ``params``
#: (float64[k]), as :mod:`hsim.engine.signatures` describes the arrays.
PUBLIC_AT = types.CPointer(types.int64)
PRIVATE_AT = types.CPointer(types.int64)
RNG_AT = types.CPointer(types.uint64)
PARAMS_AT = types.CPointer(types.float64)

PLAY_AT_SIG = types.int64(PUBLIC_AT, PRIVATE_AT, types.int64, RNG_AT, PARAMS_AT)
PASS_AT_SIG = types.int64(PUBLIC_AT, PRIVATE_AT, RNG_AT, PARAMS_AT)


def native_enabled() -> bool:
    """Return whether native entries may be called (False under ``NUMBA_DISABLE_JIT``)."""
    return not numba.config.DISABLE_JIT


def data_ptr(arr):
    """Return the data pointer of the C-contiguous array ``arr`` (compiled code); plain
    Python (``NUMBA_DISABLE_JIT=1``) gets ``arr`` itself, which indexes the same way."""
    return arr


@intrinsic
def _data_ptr(typingctx, arr):
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return types.CPointer(arr.dtype)(arr), codegen


@overload(data_ptr, inline="always")
def _data_ptr_overload(arr):
    return lambda arr: _data_ptr(arr)


def _native_call(signature):
    """Return the codegen of a call of the native entry whose address is the first of
    ``signature.args``, with the other arguments."""

    def codegen(context, builder, sig, llargs):
        fnty = context.call_conv.get_function_type(types.int64, sig.args[1:])
        fn = builder.inttoptr(llargs[0], fnty.as_pointer())
        status, res = context.call_conv.call_function(
            builder, fn, types.int64, sig.args[1:], llargs[1:]
        )
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res

    return signature, codegen


@intrinsic
def call_play_at(typingctx, address, public, private, legal, rng, params):
    """Call the :data:`PLAY_AT_SIG` entry at ``address`` (int64, :func:`native_address`)
    with the arrays' data pointers; return its card. An exception raised in the entry
    propagates to the caller like any compiled call's."""
    return _native_call(types.int64(types.int64, *PLAY_AT_SIG.args))


@intrinsic
def call_pass_at(typingctx, address, public, private, rng, params):
    """Call the :data:`PASS_AT_SIG` entry at ``address``; return its pass (as
    :func:`call_play_at`)."""
    return _native_call(types.int64(types.int64, *PASS_AT_SIG.args))


@intrinsic
def call_play_fn(typingctx, address, public, private, legal, rng, params):
    """Call the compiled play decision (:data:`hsim.engine.signatures.PLAY_SIG`: arrays,
    not pointers) at ``address`` (:func:`native_address` of it with PLAY_SIG); return its
    card. For a compiled loop that keeps a seat's decisions as addresses in an int64
    array instead of taking them as function values, whose every call from Python looks
    each function's address up again."""
    return _native_call(types.int64(types.int64, *PLAY_SIG.args))


@intrinsic
def call_choice_fn(typingctx, address, public, private, rng, params):
    """Call the compiled pass, moon or trump decision (PASS_SIG, MOON_SIG, TRUMP_SIG: one
    shape) at ``address``; return its answer (as :func:`call_play_fn`)."""
    return _native_call(types.int64(types.int64, *PASS_SIG.args))


def native_address(dispatcher, signature) -> int:
    """Return the address of ``dispatcher``'s compiled entry, as int64.

    dispatcher: an ``@njit`` function compiled with exactly one signature, ``signature``
    (:data:`PLAY_AT_SIG` or :data:`PASS_AT_SIG`): a call at an address cannot check its
    arguments, so anything else is refused.

    :raises TypeError: ``dispatcher`` is not such a function.
    """
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads or len(overloads) != 1:
        raise TypeError(f"a native entry must be an @njit function compiled with {signature}")
    args, cres = next(iter(overloads.items()))
    known = _CHECKED.get(dispatcher, signature, (cres,))
    if known is not None:
        return known
    if tuple(args) != tuple(signature.args) or cres.signature.return_type != signature.return_type:
        raise TypeError(
            f"native entry {dispatcher.__name__} has signature {cres.signature}, not {signature}"
        )
    address = int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
    _CHECKED.keep(dispatcher, signature, cres, address)
    return address


#: The address of each entry :func:`native_address` checked, given again while the
#: dispatcher holds the same compile result: the look-up and the check of the types were
#: paid by every ``play_range`` call for each native seat (measured once: a one-game call of
#: heuristic at four seats 337 -> 319 us). A refusal is never kept.
_CHECKED = KeptAddresses()
