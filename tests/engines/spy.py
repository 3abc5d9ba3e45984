"""An engine that checks every request it gets (tests/test_engine_protocol.py), then plays
like ``lowcard``: it exits 2, so the run fails, if a request names a card its seat could
not have seen (another seat's unplayed card) or a field the protocol does not list.

A seat may see: its hand, its dealt cards, what it passed and received, and every card
played. docs/protocol.md lists the fields.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])  # the examples folder: the reference client's logic
from engine_client import answer  # noqa: E402

FIELDS = {
    "type",
    "seat",
    "players",
    "deal",
    "hand",
    "dealt",
    "passed",
    "received",
    "pass_direction",
    "trick",
    "leader",
    "current_trick",
    "plays",
    "trick_leaders",
    "trick_winners",
    "points",
    "tricks_won",
    "taken",
    "voids",
    "scores",
    "hearts_broken",
    "moon_shooter",
    "seed",
    "legal",
    "kind",
    "dealer",
    "trump",
    "trump_chooser",
    "lottery_start_rank",
    "lottery_out",
    "table",
}


def check(request: dict) -> None:
    extra = set(request) - FIELDS
    if extra:
        sys.exit(f"spy: unknown fields {sorted(extra)}")
    played = {card for _, card in request["plays"]}
    seen = set(request["hand"]) | set(request["dealt"]) | set(request["passed"])
    seen |= set(request["received"]) | played
    named = set(request.get("legal", ())) | set(request.get("table", ()))
    named |= {c for taken in request["taken"] for c in taken}
    named |= {card for _, card in request["current_trick"]} | set(request["hand"])
    if not named <= seen:
        sys.exit(f"spy: request names cards the seat never saw: {sorted(named - seen)}")
    if not set(request["hand"]) <= set(request["dealt"]) | set(request["received"]):
        sys.exit("spy: a hand card that was neither dealt nor received")


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        said = answer(request)
        if request["type"] == "hello":
            said.pop("fields", None)  # every field: the spy checks them all
        else:
            check(request)
        sys.stdout.write(json.dumps(said) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
