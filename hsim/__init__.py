"""hsim: a simulator and tournament runner for Hearts and its relatives."""

__version__ = "0.1.0"
