"""A pipelined engine (``"pipeline": true``) that fails in one game only
(tests/test_engine_protocol.py): it plays like the reference client until the first play
request of the game whose deal 0 dealt its seat DEALT, and fails there, one way.

python marked_game.py EXAMPLES MODE DEALT: EXAMPLES is the examples folder (the reference
client's logic); MODE is ``illegal``, ``hang``, ``crash`` or ``fine``; DEALT the seat's
deal-0 cards, comma-separated, in any order.
"""

import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from engine_client import answer  # noqa: E402


def main(mode: str, dealt: set[str]) -> None:
    for line in sys.stdin:
        request = json.loads(line)
        said = answer(request)
        if request["type"] == "hello":
            said.pop("fields", None)  # every field: it reads "deal" and "dealt"
        marked = request.get("deal") == 0 and set(request.get("dealt", ())) == dealt
        if mode != "fine" and request["type"] == "play" and marked:
            if mode == "illegal":
                out = [c for c in request["hand"] if c not in request["legal"]]
                said = {"card": out[0] if out else "ZZ"}
            elif mode == "hang":
                sys.stdout.flush()
                for _ in sys.stdin:  # reads on, never answers
                    pass
                return
            elif mode == "crash":
                sys.stderr.write("marked: crashed in the marked game\n")
                sys.stderr.flush()
                os._exit(139)
        sys.stdout.write(json.dumps(said) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[2], set(sys.argv[3].split(",")))
