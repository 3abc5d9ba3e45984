"""The compiled core: deal, pass, legal plays, apply a card, score a deal, play a game,
for Hearts (``hearts``, ``game``) and Kierki (``kierki``, ``kierki_game``), with the
kernels both share in ``common``.

Pure numba kernels over int64 arrays (layout in :mod:`hsim.engine.layout`); no I/O and
no imports of the runner, pandas or pyarrow. The game loops call the light built-in bots
directly (``seats``), so the engine imports those three strategy modules (``random``,
``lowcard``, ``duck``) and no other.
"""

from hsim.engine import _numba  # noqa: F401  (sets the numba cache folder before any kernel)
