"""``hsim serve``: an hsim strategy as an engine of the protocol (docs/protocol.md)."""

from __future__ import annotations

import click

from hsim.cli.common import HELP


@click.command(
    context_settings=HELP, short_help="Answer the engine protocol on stdin/stdout with a bot."
)
@click.argument("spec", metavar="SPEC")
def serve(spec):
    """Play the strategy SPEC (any --players spec) over the engine protocol: read one
    JSON request a line on stdin, write one answer a line on stdout, until stdin closes
    (docs/protocol.md). Another arena runs it as a program; hsim itself as
    --players 'engine:hsim serve heuristic'.
    """
    # deferred: `hsim --help` loads no numba; serving loads the strategy
    from hsim.bridges.engine.serve import serve as serve_requests

    serve_requests(spec)
