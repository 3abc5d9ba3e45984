"""Run a tournament's chunks as tasks on a Dask cluster (``--cluster``).

The chunks are the same pure functions of (rules, strategies, run seed, game range) that
the local pool plays, so a cluster run writes the same datasets, row for row, whatever
the number of Dask workers. Each task writes its own Parquet part into the run folder,
which must be on a filesystem every worker mounts at the same path; the parent (the
Dask client) writes ``run.json``, keeps the progress bar and the summary.

Before any game, :meth:`DaskCluster.check_workers` asks every connected worker to

1. report its hsim version and the hash of hsim's compiled source (a worker with other
   code would play other games),
2. write a probe file where the run folder goes (its parent, so that a failed check
   leaves nothing behind), which the client then reads (the shared-folder check),
3. hash every strategy file and module the players name (they must exist on the worker,
   at the same path, with the same content; a single-file module missing on a worker is
   shipped with ``Client.upload_file``),
4. load the players and play one game in memory, so each worker process loads the
   compiled code from its own cache (``$HSIM_CACHE_DIR`` on the worker) or compiles it
   once, before the first chunk. The loaded players stay in the worker process for all
   its chunks, as in the local pool.

Dask (``distributed``) is imported only here, and only when ``--cluster`` is used.
A chunk whose worker died is run again by Dask on another worker (up to the scheduler's
``distributed.scheduler.allowed-failures``, 3 by default); its part is written under a
temporary name and renamed, so the re-run replaces it whole.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import os
import secrets
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

from hsim import __version__
from hsim.engine import _numba
from hsim.errors import install_hint
from hsim.play.games import play_range
from hsim.runner.chunk import compiled_here, worker_players
from hsim.strategy.loader import LoadedStrategy, find_builtin, find_entry_point
from hsim.strategy.specs import is_file_target, parse_spec, read_strategy_file, split_file_spec

EXTRA_HINT = install_hint("cluster")
#: ``--cluster local``: start a LocalCluster on this machine.
LOCAL = "local"
PROBE_PREFIX = ".probe-"
#: Seconds to wait for the scheduler to answer; then for a first worker; then for each
#: worker's start check (its warm-up, which may compile, has no limit).
CONNECT_TIMEOUT_S = 10.0
WORKER_WAIT_S = 60.0
CHECK_TIMEOUT_S = 120.0


class ClusterError(Exception):
    """The cluster could not be used; the message says why and how to fix it."""


def require_distributed():
    """Return the ``distributed`` module.

    :raises ClusterError: Dask's ``distributed`` is not installed (the message names the
        ``cluster`` extra).
    """
    try:
        # deferred: Dask is the optional [cluster] extra
        import distributed
    except ImportError as exc:
        raise ClusterError(
            f"--cluster needs Dask's distributed package, which is not installed here ({exc}); "
            f"install hsim's cluster extra with: {EXTRA_HINT}"
        ) from None
    return distributed


def check_address(address: str) -> str:
    """Return ``address`` stripped, if it can name a scheduler: ``local``, a scheduler
    file (``*.json``, as written by ``dask scheduler --scheduler-file``), or
    ``[protocol://]host:port``.

    :raises ClusterError: anything else (an empty string, no port).
    """
    text = address.strip()
    if text == LOCAL or text.endswith(".json"):
        return text
    _, _, rest = text.rpartition("://")
    host, colon, port = rest.rpartition(":")
    if not (colon and host and port.isdigit() and 0 < int(port) < 65536):
        raise ClusterError(
            f"--cluster {address!r} is not a scheduler address: give tcp://HOST:PORT (the "
            "address `dask scheduler` prints), a scheduler file SCHEDULER.json, or `local` "
            "to start a cluster on this machine"
        )
    return text


def scheduler_file_address(path: Path) -> str:
    """Return the scheduler address a Dask scheduler file holds (``{"address": ...}``, as
    ``dask scheduler --scheduler-file`` writes it).

    :raises ClusterError: no such regular file, too large, not JSON, or no address in it.
    """
    how = "start the scheduler with `dask scheduler --scheduler-file FILE`"
    try:
        info = path.stat()
    except OSError:
        raise ClusterError(f"--cluster {path}: no such scheduler file ({how})") from None
    if not path.is_file() or info.st_size > 2**20:
        raise ClusterError(f"--cluster {path}: not a scheduler file ({how})")
    try:
        doc = json.loads(path.read_bytes())
    except (ValueError, RecursionError, OSError):
        raise ClusterError(
            f"--cluster {path}: the scheduler file is not valid JSON ({how})"
        ) from None
    address = doc.get("address") if isinstance(doc, dict) else None
    if not isinstance(address, str) or "://" not in address:
        raise ClusterError(
            f"--cluster {path}: the scheduler file names no scheduler address ({how})"
        )
    return address


class DaskCluster:
    """A connection to a Dask scheduler (or a LocalCluster it started), for one or more runs.

    address: ``local`` (start a LocalCluster of ``workers`` single-threaded worker
    processes on 127.0.0.1), a scheduler file, or ``[tcp://]HOST:PORT``. Use as a context
    manager, or call :meth:`close`.

    :raises ClusterError: ``distributed`` missing, a malformed address, a scheduler that
        does not answer within ``timeout`` seconds, or no worker within ``worker_wait``.
    """

    def __init__(
        self,
        address: str,
        workers: int | None = None,
        timeout: float = CONNECT_TIMEOUT_S,
        worker_wait: float = WORKER_WAIT_S,
    ) -> None:
        distributed = require_distributed()
        self.address = check_address(address)
        self._local = None
        self._last_count: tuple[float, int] = (0.0, 0)
        try:
            if self.address == LOCAL:
                # The workers share the terminal: a Ctrl-C must stop the run (here), not
                # them. They start with SIGINT blocked and ignore it (dask_setup below).
                with _sigint_blocked():
                    self._local = distributed.LocalCluster(
                        n_workers=workers or 1,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        scheduler_port=0,
                        dashboard_address="127.0.0.1:0",  # no fixed port to collide on
                        silence_logs=logging.ERROR,
                        preload=[__name__],
                    )
                self.client = distributed.Client(self._local, timeout=timeout)
            elif self.address.endswith(".json"):
                address = scheduler_file_address(Path(self.address))
                self.client = distributed.Client(address, timeout=timeout)
            else:
                self.client = distributed.Client(self.address, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.address} within {timeout:g} s "
                f"({type(exc).__name__}: {exc}); start one with `dask scheduler` and give the "
                "address it prints, or use --cluster local"
            ) from None
        except BaseException:
            self.close()
            raise
        try:
            self.client.wait_for_workers(1, timeout=worker_wait)
        except (OSError, TimeoutError):
            self.close()
            raise ClusterError(
                f"the Dask scheduler at {self.address} has no worker after {worker_wait:g} s; "
                f"start workers with `dask worker {self.address} --nthreads 1`"
            ) from None

    def __enter__(self) -> DaskCluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect; stop the LocalCluster if this object started it. Safe to repeat."""
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
            self.client = None
        if self._local is not None:
            self._local.close()
            self._local = None

    @property
    def scheduler_address(self) -> str:
        """The scheduler's address (``tcp://127.0.0.1:PORT`` for ``local``)."""
        return self.client.scheduler.address

    def worker_addresses(self) -> list[str]:
        """Return the addresses of the workers connected now, sorted."""
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"])

    def threads(self) -> int:
        """Return the task slots of the workers connected now (their threads, summed)."""
        return sum(self.client.nthreads().values())

    def workers_connected(self, max_age_s: float = 1.0) -> int:
        """Return how many workers the scheduler has now: a worker that died drops out, a
        restarted or newly started one counts once it has registered. Asked of the
        scheduler at most once per ``max_age_s`` seconds.
        """
        t, n = self._last_count
        if time.monotonic() - t >= max_age_s:
            with contextlib.suppress(Exception):  # a count for the bar, never fatal
                n = len(self.client.scheduler_info(n_workers=-1)["workers"])
            self._last_count = (time.monotonic(), n)
        return n

    def window(self) -> int:
        """Return how many chunks to keep in flight: three per task slot now (so that
        each worker has its next chunk queued), at least 4.
        """
        return max(4, 3 * self.threads())

    def lost_errors(self) -> tuple[type[BaseException], ...]:
        """Return the errors that mean "the chunk's worker was lost": Dask's
        ``KilledWorker``, raised once the workers running a task died more often than the
        scheduler allows (``distributed.scheduler.allowed-failures``).
        """
        return (require_distributed().KilledWorker,)

    def executor(self) -> DaskExecutor:
        """Return a ``concurrent.futures.Executor`` whose tasks run on the workers.

        After :meth:`check_workers`, every task first checks (once per worker process)
        that its worker runs this hsim and has the strategies' files: a worker that joined
        later, or was restarted elsewhere, fails with :class:`ClusterError` instead of
        playing other games.
        """
        return DaskExecutor(self.client, getattr(self, "_guard", None))

    def describe(self) -> dict[str, Any]:
        """Return a JSON-able description for ``run.json``."""
        return {
            "address": self.address,
            "scheduler": self.scheduler_address,
            "workers": self.worker_addresses(),
            "threads": self.threads(),
            "distributed": require_distributed().__version__,
        }

    def check_workers(
        self, folder: Path, players: list[LoadedStrategy], rules, seed: int, first_game: int
    ) -> list[dict[str, Any]]:
        """Check, on every connected worker, that it runs this hsim, sees ``folder`` (the
        run folder or the folder it will be made in) and the strategies' files, then warm
        it up (module docstring, steps 1-4). Writes only a probe file, removed again.
        Returns one dict per worker (address, host, pid, cache_dir, compiled: whether it
        had to compile code not in its cache).

        :raises ClusterError: naming every worker that failed a check, and the fix.
        """

        folder = Path(folder).resolve()
        sources = strategy_sources(players)
        token = secrets.token_hex(8)
        addresses = self.worker_addresses()
        probes = {a: f"{PROBE_PREFIX}{token}-{i}" for i, a in enumerate(addresses)}
        reports = self._on_each(addresses, _worker_check, str(folder), probes, token, sources)
        problems: list[str] = []
        for address in addresses:
            problems += self._worker_problems(
                address, reports[address], folder, probes[address], token, sources,
                (__version__, _numba.source_hash()),
            )  # fmt: skip
        if problems:
            self._on_each(addresses, _remove_probe, str(folder), probes, quiet=True)
            raise ClusterError(
                "the cluster cannot play this run: "
                + "; ".join(problems)
                + ". Nothing was played. Every worker needs the run folder on a shared "
                "filesystem at the same path (see docs/cluster.md), the same "
                "hsim, and each strategy file at the same path."
            )
        self._guard = ((__version__, _numba.source_hash()), sources)
        specs = tuple(p.spec for p in players)
        warm = self._on_each(addresses, _worker_warm_up, rules, specs, seed, first_game)
        return [{"address": a, **reports[a]["who"], **warm[a]} for a in addresses]

    def _worker_problems(self, address, report, folder, probe, token, sources, ours):
        who = f"worker {address} (host {report['who']['host']})"
        problems = []
        if (report["hsim"], report["source_hash"]) != ours:
            problems.append(
                f"{who} runs hsim {report['hsim']} with compiled source {report['source_hash']}"
                f", not this machine's {ours[0]} / {ours[1]}: install the same hsim there"
            )
        if report["folder_error"]:
            problems.append(
                f"{who} cannot write into {folder}, where the run folder goes "
                f"({report['folder_error']})"
            )
        else:
            path = folder / probe
            try:
                seen = path.read_text()
                path.unlink(missing_ok=True)
            except OSError:
                seen = None
            if seen != token:
                problems.append(
                    f"{who} wrote a probe file into {folder}, but this machine does not see "
                    "it there: the run folder is not on a filesystem shared with that worker"
                )
        for (kind, name, digest), theirs in zip(sources, report["sources"], strict=True):
            if theirs == digest:
                continue
            if theirs is None and kind == "module" and self._ship_module(name, address):
                continue
            what = f"strategy {kind} {name}"
            if theirs is None:
                fix = (
                    "install it on every worker, or give it as a single-file module"
                    if kind == "module"
                    else "put it on the shared filesystem or copy it to the same path"
                )
                problems.append(f"{who} has no {what} ({fix})")
            else:
                problems.append(
                    f"{who} has a different {what} than this machine (sha256 {theirs[:12]} "
                    f"there, {digest[:12]} here): copy the same file to every worker"
                )
        return problems

    def _ship_module(self, name: str, address: str) -> bool:
        """Upload a single-file module missing on a worker; True when it now matches."""
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or "." in name or spec.submodule_search_locations:
            return False  # a package (or a module inside one) cannot travel as one file
        self.client.upload_file(spec.origin, load=False)
        theirs = self._on_each([address], _source_digests, [("module", name, "")])[address]
        return theirs[0] == _digest(Path(spec.origin))

    def _on_each(self, addresses, fn, *args, quiet: bool = False) -> dict[str, Any]:
        """Run ``fn(*args)`` once on each worker (a per-worker dict argument is indexed by
        the worker's address) and return the results by address.

        :raises ClusterError: a worker raised or did not answer (unless ``quiet``).
        """
        futures = {}
        for a in addresses:
            own = [x[a] if isinstance(x, dict) else x for x in args]
            futures[a] = self.client.submit(
                fn, *own, workers=[a], allow_other_workers=False, pure=False
            )
        out = {}
        for a, fut in futures.items():
            try:
                out[a] = fut.result(timeout=None if fn is _worker_warm_up else CHECK_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 - reported with the worker's name
                if quiet:
                    continue
                self.client.cancel(list(futures.values()))
                raise ClusterError(
                    f"worker {a} failed the start check before any game: "
                    f"{type(exc).__name__}: {exc}"
                ) from None
        return out


class DaskExecutor(cf.Executor):
    """A ``concurrent.futures.Executor`` over a Dask client: ``submit`` makes one Dask task
    (never deduplicated: ``pure=False``) and returns a ``concurrent.futures.Future``.

    ``shutdown(cancel_futures=True)`` cancels every task not finished; Dask cannot tell a
    queued task from a running one, and a running one finishes on its worker (its part is
    written whole, or not at all).
    """

    def __init__(self, client, guard: tuple | None = None) -> None:
        self._client = client
        self._guard = guard
        self._inner = client.get_executor(pure=False)

    def submit(self, fn, /, *args, **kwargs) -> cf.Future:
        """Run ``fn(*args, **kwargs)`` as a task on some worker."""
        if self._guard is not None:
            fn = Guarded(fn, *self._guard)
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking tasks; cancel unfinished ones if ``cancel_futures``; with ``wait``,
        wait for those left.
        """
        if cancel_futures:
            self._inner.shutdown(wait=False)  # cancels every unfinished task
        else:
            self._inner.shutdown(wait=wait)


class Guarded:
    """``fn`` as a task that first checks, once per worker process, that the worker runs
    hsim ``identity`` (version, compiled-source hash) and holds ``sources`` (see
    :func:`strategy_sources`) with the same content.

    :raises ClusterError: on the worker, naming it and what differs.
    """

    def __init__(self, fn, identity: tuple[str, str], sources) -> None:
        self.fn, self.identity, self.sources = fn, tuple(identity), tuple(map(tuple, sources))

    def __call__(self, *args, **kwargs):
        key = (self.identity, self.sources)
        if key not in _VERIFIED:
            problems = local_problems(self.identity, self.sources)
            if problems:
                raise ClusterError(
                    f"worker on host {socket.gethostname()} (pid {os.getpid()}) cannot play "
                    f"this run: {'; '.join(problems)} (it was not there at the start check)"
                )
            _VERIFIED.add(key)
        return self.fn(*args, **kwargs)


_VERIFIED: set[tuple] = set()


@functools.lru_cache(maxsize=1)
def _identity() -> tuple[str, str]:

    return __version__, _numba.source_hash()


def local_problems(identity: tuple[str, str], sources) -> list[str]:
    """Return what this process lacks to play like the client: another hsim, or a strategy
    file or module missing or different (empty when all is well).
    """
    problems = []
    if _identity() != tuple(identity):
        problems.append(
            f"it runs hsim {_identity()[0]} with compiled source {_identity()[1]}, not "
            f"{identity[0]} / {identity[1]}"
        )
    for (kind, name, digest), theirs in zip(sources, _source_digests(sources), strict=True):
        if theirs != digest:
            state = "no" if theirs is None else "a different"
            problems.append(f"it has {state} strategy {kind} {name}")
    return problems


def _digest(path: Path) -> str:
    return hashlib.sha256(read_strategy_file(path)).hexdigest()


def strategy_sources(players: list[LoadedStrategy]) -> list[tuple[str, str, str]]:
    """Return (kind, name, sha256) of every strategy file (``path.py:attr``, by absolute
    path) and importable module (``module:attr``) the players name, once each.

    Built-in strategies are part of hsim (checked by version and source hash); entry
    points are checked by loading them on the worker.
    """

    out: dict[tuple[str, str], str] = {}
    for p in players:
        name, _ = parse_spec(p.spec)
        if find_builtin(name) is not None or find_entry_point(name) is not None:
            continue
        target, _, _ = name.rpartition(":")
        if is_file_target(target):
            path = Path(target).expanduser().resolve()
            out[("file", str(path))] = _digest(path)
        elif target:
            spec = importlib.util.find_spec(target)
            if spec is not None and spec.origin and Path(spec.origin).is_file():
                out[("module", target)] = _digest(Path(spec.origin))
    return [(kind, name, digest) for (kind, name), digest in out.items()]


def absolute_specs(specs: tuple[str, ...]) -> tuple[str, ...]:
    """Return ``specs`` with every strategy file path made absolute and normal (workers
    do not share this process's current folder). Other specs are unchanged.
    """
    out = []
    for spec in specs:
        parts = split_file_spec(spec)
        if parts is not None:
            target, attr, params = parts
            # normpath, not resolve: the same file gets the same label however it was
            # reached (a resumed run's spec comes back as RUN/../../file.py).
            path = os.path.normpath(Path.cwd() / Path(target).expanduser())
            spec = f"{path}:{attr}{params}"
        out.append(spec)
    return tuple(out)


@contextlib.contextmanager
def _sigint_blocked():
    """Block SIGINT in this thread (processes started meanwhile inherit the mask); a
    SIGINT that arrives meanwhile is delivered at the end.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# --- run on the workers ---------------------------------------------------------------


def dask_setup(worker) -> None:
    """Dask preload of the ``--cluster local`` workers: ignore SIGINT (a Ctrl-C in the
    terminal reaches them too; hsim stops the run and closes the cluster), then unblock it.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _source_digests(sources) -> list[str | None]:
    importlib.invalidate_caches()  # a module may just have been uploaded
    out: list[str | None] = []
    for kind, name, _ in sources:
        try:
            if kind == "file":
                out.append(_digest(Path(name)) if Path(name).is_file() else None)
            else:
                spec = importlib.util.find_spec(name)
                ok = spec is not None and spec.origin and Path(spec.origin).is_file()
                out.append(_digest(Path(spec.origin)) if ok else None)
        except (OSError, ImportError, ValueError):
            out.append(None)
    return out


def _worker_check(folder: str, probe: str, token: str, sources) -> dict[str, Any]:

    folder_error = None
    try:
        (Path(folder) / probe).write_text(token)
    except OSError as exc:
        folder_error = f"{type(exc).__name__}: {exc.strerror or exc}"
    return {
        "who": {"host": socket.gethostname(), "pid": os.getpid(), "cache_dir": _numba.CACHE_DIR},
        "hsim": __version__,
        "source_hash": _numba.source_hash(),
        "folder_error": folder_error,
        "sources": _source_digests(sources),
    }


def _remove_probe(folder: str, probe: str) -> None:
    (Path(folder) / probe).unlink(missing_ok=True)


def _worker_warm_up(rules, specs: tuple[str, ...], seed: int, first_game: int) -> dict[str, Any]:
    """Load the players into this worker process's cache and play one game in memory."""

    players = worker_players(rules, specs)
    play_range(rules, players, seed, first_game, first_game + 1)
    return {"compiled": compiled_here(players)}
