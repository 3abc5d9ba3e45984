r"""A program in any language can sit at hsim's table: this one is written in plain Python
with no hsim import, to show the engine protocol (docs/protocol.md) end to end.

It plays like the built-in ``lowcard``: it passes its three highest cards and plays its
lowest legal card (by rank; ties: clubs, diamonds, spades, hearts), and in Kierki names
its longest suit as trump. Run it at a table (from the checkout's folder):

    hsim tournament --games 100 --out results/engine \
        --players 'engine:python3 examples/engine_client.py,heuristic,heuristic,heuristic'

Each line hsim writes is one JSON request; the program answers each with one JSON line.
It reads only a request's ``hand`` and ``legal``, so its hello answer asks for those
fields alone (``"fields"``): hsim then writes, and this program parses, a short line per
decision. ``python3 examples/engine_client.py --all-fields`` asks for every field.
"""

import json
import os
import sys

RANKS = "23456789TJQKA"
SUITS = "CDSH"


def key(card: str) -> tuple[int, int]:
    """Return (rank, suit) of a card name such as ``QS``: the order lowcard uses."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def longest_suit(hand: list[str]) -> str:
    """Return the suit with the most cards; ties: higher total rank, then higher suit."""

    def weight(suit: str) -> tuple[int, int, int]:
        cards = [c for c in hand if c[1] == suit]
        return len(cards), sum(RANKS.index(c[0]) for c in cards), SUITS.index(suit)

    return max(SUITS, key=weight)


def answer(request: dict) -> dict:
    """Return the answer to one request."""
    kind = request["type"]
    if kind == "hello":
        # pipeline: it answers each request on its own, in order, so hsim may send
        # several (of different games) before reading the answers
        said = {"protocol": 1, "name": "lowcard-client", "pipeline": True}
        if "--all-fields" not in sys.argv:
            said["fields"] = ["hand", "legal"]  # the only fields it reads
        return said
    if kind == "play":
        return {"card": min(request["legal"], key=key)}
    if kind == "pass":
        return {"cards": sorted(request["hand"], key=key)[-3:]}
    if kind == "trump":
        return {"trump": longest_suit(request["hand"])}
    return {"moon": "default"}


def main() -> None:
    """Answer requests until hsim closes stdin.

    Each read takes every request that has come (several at once when hsim pipelines:
    see "pipeline" in the hello answer), and their answers go out in one write: hsim
    then wakes once for all of them.
    """
    rest = b""
    while chunk := os.read(0, 1 << 16):
        *lines, rest = (rest + chunk).split(b"\n")
        out = [json.dumps(answer(json.loads(line))) + "\n" for line in lines if line.strip()]
        if out:
            sys.stdout.write("".join(out))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
