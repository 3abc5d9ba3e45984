"""The fixed signatures of a compiled strategy's decisions (the compiled tier's contract).

Every argument array is one-dimensional and C-contiguous:

- ``public``: int64[PUBLIC_LEN], read-only, what every seat may see
  (:mod:`hsim.engine.layout`).
- ``private``: int64[PRIVATE_LEN], read-only, this seat's own row: seat, hand, dealt
  hand, passed, received.
- ``rng``: uint64[1], this seat's random stream; draw with :func:`hsim.engine.rng.below`.
- ``params``: float64[k], the strategy's parameters in the order it declares them.

Decisions:

- ``pass_cards(public, private, rng, params) -> int64``: mask of exactly 3 held cards.
- ``play(public, private, legal, rng, params) -> int64``: a card of mask ``legal``
  (int64, never empty).
- ``moon_choice(public, private, rng, params) -> int64``: 0 use the default rule,
  1 add 26 to every other seat, 2 subtract 26 from its own score (New Moon only).
- ``trump_choice(public, private, rng, params) -> int64`` (Kierki trump deals): a suit
  0..3 (clubs, diamonds, spades, hearts), or 4 for no trump where ``allow_no_trump``;
  ``private``'s hand then holds only the cards the chooser may see (docs/rules.md B3).
"""

from __future__ import annotations

from numba import types

#: ``public`` and ``private`` are read-only to a strategy: a compiled decision that writes
#: into them does not compile (numba refuses ``setitem`` on a read-only array), so no bot
#: can change the table or its own points. The loops pass the engine's arrays; the type
#: is a compile-time property and costs nothing at run time.
PUBLIC = types.Array(types.int64, 1, "C", readonly=True)
PRIVATE = types.Array(types.int64, 1, "C", readonly=True)
RNG = types.uint64[::1]
PARAMS = types.float64[::1]

PASS_SIG = types.int64(PUBLIC, PRIVATE, RNG, PARAMS)
PLAY_SIG = types.int64(PUBLIC, PRIVATE, types.int64, RNG, PARAMS)
MOON_SIG = types.int64(PUBLIC, PRIVATE, RNG, PARAMS)
TRUMP_SIG = types.int64(PUBLIC, PRIVATE, RNG, PARAMS)

PASS_FN = types.FunctionType(PASS_SIG)
PLAY_FN = types.FunctionType(PLAY_SIG)
MOON_FN = types.FunctionType(MOON_SIG)
TRUMP_FN = types.FunctionType(TRUMP_SIG)


def loop_signature(*seat_fns) -> types.Signature:
    """Return the signature of a compiled game loop that takes ``seat_fns``, one
    ``UniTuple`` of decision functions per kind of decision (Hearts: pass, play, moon;
    Kierki: play, trump), between its fixed arguments:

    ``int64(run_seed uint64, first_game, n_games, rules int64[:], codes int64[:, :],
    *seat_fns, params float64[:, :], public int64[:], private int64[:, :],
    hidden int64[:], rngs uint64[:, :], deal_out int64[:, :], game_out int64[:, :])``,
    every array C-contiguous; it returns the number of games completed.
    """
    i1, i2 = types.int64[::1], types.int64[:, ::1]
    return types.int64(
        types.uint64,
        types.int64,
        types.int64,
        i1,
        i2,
        *seat_fns,
        types.float64[:, ::1],
        i1,
        i2,
        i1,
        types.uint64[:, ::1],
        i2,
        i2,
    )
