"""Built-in strategies, installed as ``hsim.strategies``: one module each, with a ``STRATEGY``."""

if __name__ != "hsim.strategies":  # e.g. ``import strategies.pimc`` from a checkout's root
    # numba caches compiled code by file, not by module name: code cached under a second
    # name breaks every later run that loads it under ``hsim.strategies``.
    raise ImportError(
        f"the built-in strategies are the package hsim.strategies, not {__name__!r}: "
        "import hsim.strategies.pimc (or load them by name, hsim.strategy.loader.load('pimc'))"
    )
