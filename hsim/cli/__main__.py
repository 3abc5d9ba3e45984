"""``python -m hsim.cli``: the same as the ``hsim`` command."""

from hsim.cli import run

run()
