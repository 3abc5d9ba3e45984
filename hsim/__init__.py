"""hsim: a simulator and tournament runner for Hearts and its relatives.

The names most scripts need are here, imported on first use (the engine compiles or
loads its kernels then): :class:`Position` (a deal in progress, printed as a pasteable
position), :class:`CardSet` (cards printed as card names), :func:`decide` and
:class:`Decision` (any strategy's answer to any decision at a position).
"""

__version__ = "0.1.0"

_LAZY = {
    "CardSet": "hsim.model.cards",
    "Position": "hsim.play.position",
    "Decision": "hsim.play.choose",
    "decide": "hsim.play.choose",
}
__all__ = ["CardSet", "Decision", "Position", "decide", "__version__"]


def __getattr__(name: str):
    if name in _LAZY:
        # deferred: `import hsim` stays light; each name loads on first use
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hsim' has no attribute {name!r}")
