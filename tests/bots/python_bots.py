"""Plain-Python strategies used by the tests (loaded as tests/bots/python_bots.py:NAME)."""

from __future__ import annotations

import os
import time

from hsim.model.cards import cards_of, parse_mask


class PyLowcard:
    """The ``lowcard`` rules in plain Python: pass the 3 highest, play the lowest legal."""

    @staticmethod
    def _order(c):
        return (c % 13, c // 13)

    def pass_cards(self, obs, rng):
        top = sorted(cards_of(obs.hand), key=self._order)[-3:]
        return sum(1 << c for c in top)

    def play(self, obs, legal, rng):
        return min(cards_of(legal), key=self._order)


class PyRandom:
    """Uniform random play from the engine-handed numpy Generator."""

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    def pass_cards(self, obs, rng):
        cards = list(cards_of(obs.hand))
        return sum(1 << int(c) for c in rng.choice(cards, 3, replace=False))

    def play(self, obs, legal, rng):
        if self.delay:
            time.sleep(self.delay)
        cards = list(cards_of(legal))
        return cards[int(rng.integers(len(cards)))]


class NotHeld(PyLowcard):
    """Plays a card it does not hold on its first lead after trick 1."""

    def play(self, obs, legal, rng):
        if obs.trick_number > 0 and not obs.trick:
            missing = [c for c in range(52) if not obs.hand >> c & 1 and not obs.played >> c & 1]
            return missing[0]
        return super().play(obs, legal, rng)


class Crashes(PyLowcard):
    """Raises when dealt every card of ``holding`` (a deal-dependent, chunk-proof crash)."""

    def __init__(self, holding: str = "AS KS"):
        self.holding = parse_mask(holding)

    def play(self, obs, legal, rng):
        if obs.dealt & self.holding == self.holding:
            raise RuntimeError("boom")
        return super().play(obs, legal, rng)


class Counter(PyLowcard):
    """Records how many decisions it saw since its last reset, to check resets."""

    seen_at_reset: list[int] = []

    def __init__(self):
        self.decisions = 0

    def new_game(self, seat, rules):
        Counter.seen_at_reset.append(self.decisions)
        self.decisions = 0

    def play(self, obs, legal, rng):
        self.decisions += 1
        return super().play(obs, legal, rng)


class Sleeper(PyLowcard):
    """Blocks (sleeps ``seconds``, default for ever) when dealt every card of ``holding``:
    a hung plugin, at a deal-dependent (chunk-proof) game.
    """

    def __init__(self, holding: str = "AS KS QS", seconds: float = 1e9):
        self.holding = parse_mask(holding)
        self.seconds = seconds

    def play(self, obs, legal, rng):
        if obs.dealt & self.holding == self.holding:
            marker = os.environ.get("HSIM_TEST_SLEEP_MARKER")
            if marker:
                with open(marker, "a") as f:
                    f.write(f"{os.getpid()}\n")
            time.sleep(self.seconds)
        return super().play(obs, legal, rng)


class Spinner(Sleeper):
    """Loops for ever in Python (a busy hang, not a blocking call) when dealt every card
    of ``holding``."""

    def play(self, obs, legal, rng):
        spins = 0
        while obs.dealt & self.holding == self.holding:
            spins += 1
        return PyLowcard.play(self, obs, legal, rng)


class SlowStart(PyLowcard):
    """Loops for ever in its ``new_game`` hook: a hang before any decision."""

    def new_game(self, seat, rules):
        while True:
            pass


class WritesObservation(PyLowcard):
    """Plays as PyLowcard, but first makes its observation writable and zeros its own
    points and score in it: a cheat the engine must refuse, not record."""

    def play(self, obs, legal, rng):
        public, private = obs.arrays()
        public.flags.writeable = True
        public[:] = 0
        return super().play(obs, legal, rng)


class IgnoresSignals(PyLowcard):
    """Plays as PyLowcard, slowly, after setting SIGINT and SIGTERM to be ignored."""

    def __init__(self):
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def play(self, obs, legal, rng):
        time.sleep(0.01)
        return super().play(obs, legal, rng)


class ExitsProcess(PyLowcard):
    """Ends the whole process with ``os._exit(0)`` at its first play: a success status
    that hsim must not pass on."""

    def play(self, obs, legal, rng):
        os._exit(0)


class LeavesThreads(PyLowcard):
    """Starts a thread that never ends and one that raises, at construction."""

    def __init__(self):
        import threading

        def forever():
            while True:
                time.sleep(1)

        def fails():
            raise RuntimeError("the strategy's helper thread broke")

        threading.Thread(target=forever, name="bot-forever").start()
        threading.Thread(target=fails, name="bot-fails").start()
