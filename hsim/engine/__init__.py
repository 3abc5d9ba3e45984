"""The compiled core: deal, pass, legal plays, apply a card, score a deal, play a game,
for Hearts (``hearts``, ``game``) and Kierki (``kierki``, ``kierki_game``).

Pure numba kernels over int64 arrays (layout in :mod:`hsim.engine.layout`); no I/O and
no imports of the runner, pandas or pyarrow.
"""

from hsim import _jit  # noqa: F401  (sets the numba cache folder before any kernel)
