"""Built-in strategies, installed as ``hsim.strategies``: one module each, with a ``STRATEGY``."""
