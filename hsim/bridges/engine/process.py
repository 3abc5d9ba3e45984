"""An outside engine's process: started on first use, asked one line at a time with a
deadline, ended with the process that started it (docs/protocol.md).

One :class:`EngineProcess` per (command, seat) in each hsim process (a worker plays many
chunks with the same engines). Nothing outlives hsim: the engine is killed when the
process that started it exits normally (``atexit``), and by the kernel when it dies any
other way, SIGKILL included (Linux ``PR_SET_PDEATHSIG``; elsewhere the engine sees its
stdin close).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time

from hsim.bridges.engine.protocol import ALL_FIELDS, MAX_LINE, ProtocolError, decode, encode

#: Seconds an engine has to start and answer the hello.
START_TIMEOUT_S = 30.0
#: Bytes of an engine's stderr kept to quote when it fails.
STDERR_TAIL = 2048
#: Answer lines of at most SHORT_ANSWER bytes (``{"card": "QS"}``) are decoded once and
#: kept, up to SHORT_ANSWERS_KEPT of them: an engine repeats the same few dozen lines.
#: The objects are shared, so no caller changes an answer.
SHORT_ANSWER = 48
SHORT_ANSWERS_KEPT = 4096
_SHORT_ANSWERS: dict[bytes, dict] = {}


class EngineFailure(Exception):
    """The engine crashed, hung, closed its output or broke the protocol; the message says
    which, with the end of its stderr. The driver reports it as a strategy error naming
    the game, seat and run seed."""


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: the reaper's cue


#: On Linux an engine runs under this reaper, in a process group of its own, and the engine
#: in a group of its own below it: when hsim dies (any way: the reaper's parent-death
#: signal, or a parent already gone when the reaper starts, which the signal misses) the
#: reaper kills the engine's group, the processes the engine started included, and it does
#: so too when the engine ends by itself (an engine that exits on its stdin's end must not
#: leave its children); otherwise it passes the engine's exit on, a death by a signal as
#: the same signal. The reaper is a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``):
#: a process the engine started that left its group (``setsid``, a daemon's double fork)
#: becomes the reaper's child once its parent is gone, and is killed with the rest.
#: argv: hsim's pid, then the engine's command. The engine inherits stdin, stdout and
#: stderr unchanged.
REAPER = """
import ctypes, os, signal, subprocess, sys
engine = None
try:
    ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass
def children():
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                if int(stat.read().rsplit(b")", 1)[1].split()[1]) == os.getpid():
                    found.append(int(name))
        except (OSError, ValueError, IndexError):
            pass
    return found
def end_group():
    if engine is not None:
        try:
            os.killpg(engine.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(engine.pid, 0)  # its orphans come to the subreaper once it is gone
        except OSError:
            pass
    for _ in range(1000):  # each round kills one more generation of what left the group
        found = children()
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
def stop(*_):
    end_group()
    os._exit(128 + signal.SIGTERM)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGHUP, stop)
if os.getppid() != int(sys.argv[1]):
    sys.exit(128 + signal.SIGTERM)  # hsim died before the parent-death signal was set
try:
    engine = subprocess.Popen(sys.argv[2:], preexec_fn=os.setpgrp)
except OSError as exc:
    sys.stderr.write(f"{sys.argv[2]}: {exc.strerror or exc}\\n")
    sys.exit(127)
if os.getppid() != int(sys.argv[1]):
    stop()
null = os.open(os.devnull, os.O_RDWR)  # the pipes are the engine's alone: its EOF is seen
os.dup2(null, 0)
os.dup2(null, 1)
code = engine.wait()
end_group()
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


class EngineProcess:
    """One running engine. argv: the command line, split. name: how errors call it."""

    def __init__(self, argv: list[str], name: str) -> None:
        self.argv = argv
        self.name = name
        self.proc: subprocess.Popen | None = None
        self.hello_answer: dict | None = None
        #: The request fields it reads (its hello answer's "fields"; set by the strategy).
        self.fields = ALL_FIELDS
        self._buffer = b""  # the start of a line not yet ended
        self._lines: collections.deque[bytes] = collections.deque()  # lines not yet read
        self._owed = 0  # requests sent and not yet answered
        self._stderr = collections.deque(maxlen=64)
        self._drain: threading.Thread | None = None
        self._poll: select.poll | None = None
        self._stdin_fd = -1

    @property
    def running(self) -> bool:
        """Whether the process is started and has not been stopped."""
        return self.proc is not None

    def start(self, hello: dict, timeout: float = START_TIMEOUT_S) -> dict:
        """Start the engine, send ``hello`` and return its hello answer (a JSON object).

        :raises EngineFailure: the command cannot be run, or it does not answer the
            hello within ``timeout`` seconds with a JSON object.
        """
        linux = sys.platform.startswith("linux")
        argv = [sys.executable, "-S", "-c", REAPER, str(os.getpid()), *self.argv]
        argv = argv if linux else self.argv
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=_die_with_parent if linux else None,
                start_new_session=True,  # its own process group: stopped whole, children too
                bufsize=0,
            )
        except OSError as exc:
            self.proc = None
            raise EngineFailure(f"could not be started: {exc.strerror or exc}") from None
        _RUNNING.add(self)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)  # several requests at once: never blocks
        self._poll = select.poll()
        self._poll.register(self.proc.stdout.fileno(), select.POLLIN)
        self._drain = threading.Thread(
            target=self._drain_stderr,
            args=(self.proc.stderr,),
            daemon=True,
            name="hsim-engine-stderr",
        )
        self._drain.start()
        try:
            self.hello_answer = self.ask(encode(hello), timeout, "start_timeout")
        except EngineFailure as exc:
            raise EngineFailure(f"did not answer the hello: {exc}") from None
        return self.hello_answer

    def _drain_stderr(self, stream) -> None:
        # An engine that writes much to stderr must never block on it: read it all,
        # keep its tail for error messages.
        fd = stream.fileno()
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: os.read(fd, 4096), b""):
                self._stderr.append(chunk)
        with contextlib.suppress(OSError):
            stream.close()

    def stderr_tail(self) -> str:
        """Return the last lines the engine wrote to stderr (at most STDERR_TAIL bytes)."""
        text = b"".join(self._stderr)[-STDERR_TAIL:].decode("utf-8", "replace").strip()
        return text

    def ask(self, line: bytes, timeout: float, limit: str = "timeout") -> dict:
        """Send one request ``line`` (ending in ``\\n``) and return the engine's answer
        line as a JSON object.

        On any failure (and on any exception raised into it, such as a decision
        timeout) the process is killed: its next use starts it again.

        :raises EngineFailure: no answer within ``timeout`` seconds, output closed, the
            process exited, or a line that is not a JSON object.
        """
        self.send(line, timeout)
        return self.receive(timeout, limit)

    @property
    def pipelined(self) -> bool:
        """Whether the engine said in its hello answer that it takes several requests
        before answering (``"pipeline": true``, docs/protocol.md): it answers each one
        on its own, in the order sent."""
        return self.proc is not None and (self.hello_answer or {}).get("pipeline") is True

    def send(self, lines: bytes, timeout: float) -> None:
        """Write request ``lines`` (each ending in ``\\n``) without waiting for answers.

        :raises EngineFailure: its input is closed, or it took no bytes for ``timeout``
            seconds (its stdin pipe full); the process is then killed.
        """
        ok = False
        try:
            if not self._owed and self._left_over():
                raise EngineFailure(self._unasked())
            view = memoryview(lines)
            while view:
                try:
                    view = view[os.write(self._stdin_fd, view) :]
                except BlockingIOError:
                    if not select.select([], [self._stdin_fd], [], timeout)[1]:
                        raise EngineFailure(
                            f"did not read its requests within {timeout:g} s (timeout=)"
                        ) from None
                except OSError:  # BrokenPipeError among them
                    raise EngineFailure(self._ended("its input closed")) from None
            self._owed += lines.count(b"\n")
            ok = True
        finally:
            if not ok:
                self.stop()

    def receive(self, timeout: float, limit: str = "timeout") -> dict:
        """Return the engine's next answer line as a JSON object, read within ``timeout``
        seconds (``limit``: the parameter that sets it, for the message).

        :raises EngineFailure: as :meth:`ask`; the process is then killed.
        """
        ok = False
        try:
            line = self._read_line(time.monotonic() + timeout, timeout, limit)
            self._owed -= 1
            if self._owed <= 0 and self._left_over():
                raise EngineFailure(self._unasked())
            answer = _SHORT_ANSWERS.get(line)
            if answer is None:
                try:
                    answer = decode(line, "its answer")
                except ProtocolError as exc:
                    raise EngineFailure(str(exc)) from None
                if len(line) <= SHORT_ANSWER and len(_SHORT_ANSWERS) < SHORT_ANSWERS_KEPT:
                    _SHORT_ANSWERS[line] = answer
            ok = True
            return answer
        finally:
            if not ok:
                self.stop()

    def _read_line(self, deadline: float, timeout: float, limit: str) -> bytes:
        fd = self.proc.stdout.fileno()
        while True:
            if self._lines:
                return self._lines.popleft()
            if len(self._buffer) > MAX_LINE:
                raise EngineFailure(
                    f"answer: a line of more than {MAX_LINE:,} bytes (at most {MAX_LINE:,})"
                )
            left = deadline - time.monotonic()
            if left <= 0 or not self._poll.poll(max(1, int(left * 1000))):
                raise EngineFailure(f"did not answer within {timeout:g} s ({limit}=)")
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise EngineFailure(self._ended("closed its output"))
            *lines, self._buffer = (self._buffer + chunk).split(b"\n")
            self._lines.extend([x for x in lines if x and not x.isspace()])  # blank: skipped

    def _left_over(self) -> bool:
        """Whether a line (or the start of one) has been read that no answer took."""
        return bool(self._lines or self._buffer.strip())

    def _unasked(self) -> str:
        extra = (self._lines[0] if self._lines else self._buffer).strip()
        return (
            "wrote more lines than it was sent requests (one line answers one request, "
            f"docs/protocol.md); the line left over: {extra[:80].decode(errors='replace')!r}"
        )

    def _ended(self, what: str) -> str:
        code = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self.proc.wait(timeout=1.0)
        if self._drain is not None:
            self._drain.join(timeout=1.0)  # what it wrote last, before the message
        if code is None:
            text = f"{what} before answering"
        elif code < 0:
            text = f"{what}: it was killed by signal {-code} before answering"
        else:
            text = f"{what}: it exited with code {code} before answering"
        tail = self.stderr_tail()
        return f"{text}; its stderr ends: {tail[-400:]!r}" if tail else text

    def stop(self) -> None:
        """End the engine: close its input (its signal to exit), wait a moment, kill it."""
        proc, self.proc = self.proc, None
        self._buffer = b""
        self._lines.clear()
        self._owed = 0
        _RUNNING.discard(self)
        self._poll = None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.stdin.close()
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            proc.terminate()  # the reaper's cue to kill the engine's group, then exit
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
        with contextlib.suppress(OSError):  # what it started, in its group, ends with it
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.stdout.close()


#: Engines started by this process and not stopped: stopped at exit.
_RUNNING: set[EngineProcess] = set()
#: This process's engines by (command line, seat, rules), reused across chunks and games.
_POOL: dict[tuple[tuple[str, ...], int, str], EngineProcess] = {}


def engine_for(argv: list[str], seat: int, rules_text: str, name: str) -> EngineProcess:
    """Return this process's engine for ``argv`` at ``seat`` under the rules
    ``rules_text`` (started when first asked: :meth:`EngineProcess.start`)."""
    key = (tuple(argv), seat, rules_text)
    if key not in _POOL:
        _POOL[key] = EngineProcess(argv, name)
    return _POOL[key]


@atexit.register
def stop_all() -> None:
    """Stop every engine this process started (also at exit)."""
    for engine in list(_RUNNING):
        engine.stop()
