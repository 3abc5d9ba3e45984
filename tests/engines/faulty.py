"""Engines of the protocol that fail on purpose, one way each (tests/test_engine_protocol.py).

python faulty.py MODE [MARK]: MODE says how it fails, after answering the hello and
AFTER requests well (a lowcard play); MARK only tags the process so a test can look for it.
"""

import json
import os
import sys
import time

RANKS, SUITS = "23456789TJQKA", "CDSH"
AFTER = int(os.environ.get("FAULTY_AFTER", "30"))  # plays before failing


def low(cards):
    return min(cards, key=lambda c: (RANKS.index(c[0]), SUITS.index(c[1])))


def main(mode: str) -> None:
    if mode == "crash_at_start":
        sys.stderr.write("faulty: no licence file\n")
        sys.exit(3)
    if mode == "no_hello":
        sys.stdout.write('{"name": "no protocol"}\n')
        sys.stdout.flush()
        time.sleep(60)
    asked = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            answer = {"protocol": 1, "name": "faulty"}
        elif request["type"] == "pass":
            answer = {"cards": request["hand"][-3:]}
        else:
            asked += 1
            legal = request.get("legal", request["hand"])
            answer = {"card": low(legal)}
            if asked == AFTER:
                if mode == "crash_mid":
                    sys.stderr.write("faulty: segmentation fault (pretend)\n")
                    os._exit(139)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "garbage":
                    sys.stdout.write("I play the queen of spades\n")
                    sys.stdout.flush()
                    continue
                if mode == "close_stdout":
                    os.close(1)
                    time.sleep(3600)
                if mode == "illegal":
                    out = [c for c in request["hand"] if c not in legal]
                    answer = {"card": out[0] if out else "ZZ"}
                if mode == "unheld":
                    held = set(request["hand"]) | {c for _, c in request["plays"]}
                    unheld = (r + s for s in SUITS for r in RANKS if r + s not in held)
                    answer = {"card": next(unheld)}
                if mode == "error":
                    answer = {"error": "out of memory"}
                if mode == "huge_line":  # a whole line, newline included, past the limit
                    answer = {"card": low(legal), "log": "x" * 70_000}
                if mode == "twice":  # the same answer twice, in one write (one read)
                    os.write(1, (json.dumps(answer) + "\n").encode() * 2)
                    continue
        if mode == "blank_lines":  # blank lines around every answer: skipped
            sys.stdout.write("\n \r\n" + json.dumps(answer) + "\n\t\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
