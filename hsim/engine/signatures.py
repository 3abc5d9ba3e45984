"""The fixed signatures of a compiled strategy's decisions (the compiled tier's contract).

Every argument array is one-dimensional and C-contiguous:

- ``public``: int64[PUBLIC_LEN], what every seat may see (:mod:`hsim.engine.layout`).
- ``private``: int64[PRIVATE_LEN], this seat's own row: seat, hand, dealt hand, passed,
  received.
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

PUBLIC = types.int64[::1]
PRIVATE = types.int64[::1]
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
