"""A run's configuration (:class:`RunConfig`), checked whole before anything is written,
and a run folder's manifest, checked before anything is read from it.

In the spirit of fastchess's config sanitising: :func:`validate` looks at every setting of
a :class:`RunConfig` (sizes, seed, rules, other scorings, players and
their parameters, workers) and refuses the first that is wrong with a
:class:`~hsim.errors.ConfigError` (exit 2) naming the setting and its allowed values, so
a run either starts with sound settings or touches nothing. :func:`load_manifest` does
the same for ``run.json`` when a folder is read back (``replay``, ``report``): a missing,
truncated or edited manifest is a :class:`~hsim.errors.ManifestError` (exit 1) naming the
field.

The limits, and why:

- seeds: 0..2**64-1. The random streams are keyed on a uint64 (docs/rules.md does not
  bound it; :func:`hsim.engine.rng.seed_to_u64`), so a larger seed would silently share the
  streams of its value modulo 2**64: it is refused instead.
- game indices: the first game and the games after it must stay below 2**63 - 1 (the
  datasets' ``game`` column and the engine's counters are int64; in duplicate play game
  ``n * board + rotation``).
- chunk size: 1..:data:`MAX_CHUNK_SIZE` games (a chunk's rows are held in memory);
  with ``--record plays`` (a row per card) 1..:data:`MAX_PLAYS_CHUNK_SIZE`.
- record: one of :data:`hsim.runner.columns.RECORD_MODES`.
- other scorings (``--score-also``): at most :data:`hsim.engine.layout.MAX_EXTRA`, each
  different from the base and from each other.
- workers: 1..:data:`MAX_WORKERS`.
- rule values: :class:`~hsim.model.rules.Rules` bounds every count (``hsim rules`` lists them);
  strategy parameters: each strategy's declared :class:`~hsim.strategy.contract.Param` ranges.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hsim import __version__
from hsim.bridges.engine.strategies import program_paths
from hsim.engine import _numba
from hsim.engine.layout import MAX_EXTRA
from hsim.engine.rng import MAX_SEED, check_seed
from hsim.errors import ConfigError, ManifestError, StrategySpecError
from hsim.model.rules import (
    KIERKI_NO_SCORINGS,
    PRESETS,
    RULE_NAMES,
    Rules,
    RulesError,
    canonical,
    parse_rules,
    preset_of,
)
from hsim.runner.columns import DEFAULT_RECORD, RECORD_DATASETS, RECORD_MODES, SCHEMA_VERSION
from hsim.runner.manifest import check_settings, parse_record, read_record
from hsim.runner.sink import file_sha256
from hsim.strategy.loader import load_players
from hsim.strategy.specs import ENGINE_PREFIX, read_strategy_file, recorded_spec, spec_file

if TYPE_CHECKING:  # pragma: no cover
    from hsim.strategy.contract import LoadedStrategy

#: The largest game index stop (exclusive) a run may reach: int64's largest value.
MAX_GAME_STOP = 2**63 - 1
MAX_CHUNK_SIZE = 50_000
#: A plays chunk holds a row per card in memory: 2,500 games keep a worker near 400 MB.
MAX_PLAYS_CHUNK_SIZE = 2_500
MAX_WORKERS = 1024
MANIFEST = "run.json"


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` if it is an int in ``low..high`` (bools are not ints here).

    name: how the user wrote the setting (``--games``). :raises ConfigError: naming the
    setting, the value and the allowed range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer {low}..{high}, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"{name} {value} is out of range: give an integer {low}..{high}")
    return value


def check_games(games: Any, first_game: Any, rotations: int = 1, what: str = "--games") -> None:
    """Check a game count and first game index: their game indices must fit int64.

    rotations: games played per index (duplicate play: one per seat rotation).
    :raises ConfigError: a count below 1, a negative first game, or a last game index
        beyond int64.
    """
    check_int(what, games, 1, MAX_GAME_STOP)
    check_int("--first-game", first_game, 0, MAX_GAME_STOP)
    stop = (first_game + games) * rotations
    if stop > MAX_GAME_STOP:
        per = f" x {rotations} rotations" if rotations > 1 else ""
        raise ConfigError(
            f"--first-game {first_game} with {what} {games}{per} goes past the largest game "
            f"index, 2**63-2 (game indices are int64); lower --first-game or {what}"
        )


#: The longest ``--decision-timeout`` (seconds; 0 or None: no limit): about 11.6 days. The
#: timers (``setitimer``, a deadline on the monotonic clock) overflow far beyond it.
MAX_DECISION_TIMEOUT = 1e6


def check_decision_timeout(value: Any, name: str = "--decision-timeout") -> float | None:
    """Return a decision timeout checked to be None or a number of seconds in
    0..MAX_DECISION_TIMEOUT (0: no limit, as None).

    :raises ConfigError: not a number, NaN, negative, infinite or above the largest.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number of seconds, not {value!r}")
    if not 0 <= value <= MAX_DECISION_TIMEOUT:  # NaN fails both comparisons
        raise ConfigError(
            f"{name} {value} is out of range: give seconds from 0 to {MAX_DECISION_TIMEOUT:g} "
            "(0: no limit)"
        )
    return float(value) or None


def check_workers(workers: Any) -> int:
    """Return ``workers`` checked to be 1..MAX_WORKERS. :raises ConfigError: otherwise."""
    return check_int("--workers", workers, 1, MAX_WORKERS)


def check_scorings(rules: Rules, scorings: Any, preset: str | None = None) -> None:
    """Check the other scorings (``--score-also``) of a run under ``rules``.

    :raises ConfigError: Kierki rules (no scoring options), more than MAX_EXTRA, a
        scoring that is not a Rules, or one equal to the base or to another.
    """
    scorings = tuple(scorings)
    if not scorings:
        return
    if rules.is_kierki:
        raise ConfigError(KIERKI_NO_SCORINGS)
    if len(scorings) > MAX_EXTRA:
        raise ConfigError(
            f"--score-also given {len(scorings)} times: at most {MAX_EXTRA} other scorings "
            "per run (split them over runs of the same seed)"
        )
    seen = {rules: "the base rules"}
    for other in scorings:
        if not isinstance(other, Rules):
            raise ConfigError(f"--score-also must give rule sets, not {other!r}")
        text = canonical(other, preset)
        if other in seen:
            raise ConfigError(f"--score-also {text!r} scores the games as {seen[other]} already")
        seen[other] = repr(text)


def check_record(record: Any) -> str:
    """Return ``record`` (the ``--record`` mode) if it is one of ``games``, ``deals``,
    ``plays``.

    :raises ConfigError: naming the allowed modes and what each writes.
    """
    if not isinstance(record, str) or record not in RECORD_MODES:
        raise ConfigError(
            f"--record must be one of {', '.join(RECORD_MODES)} (games: the games dataset "
            f"only; deals: also one row per seat per deal, the default; plays: also one row "
            f"per card played), not {record!r}"
        )
    return record


def validate(config: RunConfig, workers: int = 1) -> list[LoadedStrategy]:
    """Check every setting of ``config`` (and ``workers``) and load its players.

    Called before a run touches its folder; returns the loaded players (one per seat).

    :raises ConfigError: a size, seed, scoring or worker count out of range (exit 2).
    :raises RulesError: rules that are not a valid Rules, or a preset that does not exist.
    :raises StrategyError: a player spec that cannot be used (StrategySpecError for an
        unknown name, a parameter out of its declared range, the wrong number of seats).
    """

    rules = config.rules
    if not isinstance(rules, Rules):
        raise ConfigError(f"rules must be a hsim.model.rules.Rules, not {rules!r}")
    if config.rules_preset not in PRESETS:
        raise RulesError(
            f"unknown rules preset {config.rules_preset!r}; valid presets: {', '.join(PRESETS)}"
        )
    if not isinstance(config.duplicate, bool):
        raise ConfigError(f"duplicate must be true or false, not {config.duplicate!r}")
    check_record(config.record)
    check_decision_timeout(config.decision_timeout)
    check_games(config.games, config.first_game, config.rotations)
    check_seed(config.seed)
    if config.chunk_size is not None:
        size = config.chunk_size
        if config.record == "plays" and type(size) is int and size > MAX_PLAYS_CHUNK_SIZE:
            raise ConfigError(
                f"--chunk-size {size} is out of range with --record plays (a row per card "
                f"played, held in memory per chunk): give an integer 1..{MAX_PLAYS_CHUNK_SIZE}"
            )
        check_int("--chunk-size", config.chunk_size, 1, MAX_CHUNK_SIZE)
    check_workers(workers)
    check_scorings(rules, config.score_also, config.rules_preset)
    players = config.players
    if isinstance(players, str) or not all(isinstance(p, str) for p in players):
        raise ConfigError(f"players must be one spec string per seat, not {players!r}")
    labels = config.labels
    if labels is not None and (
        not isinstance(labels, (tuple, list))
        or len(labels) != len(players)
        or not all(isinstance(x, str) for x in labels)
    ):
        raise ConfigError(f"labels must be one name per player ({len(players)}), not {labels!r}")
    for k, name in enumerate(config.names):  # the datasets' strategy strings
        check_text(f"player {k}'s name", name)
    return load_players(list(players), rules)


def check_text(what: str, text: str) -> None:
    """Check that ``text`` can be stored as UTF-8 (the datasets' strings and run.json are):
    a file name read from bytes that are not UTF-8 reaches Python with lone surrogates.

    :raises ConfigError: naming ``what`` and the text, its odd bytes shown escaped.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise ConfigError(
            f"{what} '{shown}' is not valid UTF-8 text (a file or folder name in another "
            "encoding?): the datasets store it as text; rename the file or folder"
        ) from None


# -- what a manifest records ---------------------------------------------------------------
def without_home(value: Any) -> Any:
    """Return ``value`` (a string, or a list of them, or None) with the user's home
    directory written ``~``, so that a run folder shared with others names no home."""
    if isinstance(value, list):
        return [without_home(v) for v in value]
    if not isinstance(value, str):
        return value
    home = str(Path.home())
    if len(home) > 1 and home in value:
        return value.replace(home, "~")
    return value


def recorded_players(
    players: list[LoadedStrategy], run_dir: Path, labels: tuple[str, ...] | None = None
) -> list[dict[str, Any]]:
    """Return the manifest's ``players``: each strategy's description, with a strategy
    file's path relative to ``run_dir`` (:func:`hsim.strategy.specs.recorded_spec`, used to find
    the file again) and, where it differs from that, ``label``: the seat's name in the
    datasets (``labels``, default each spec as loaded), which a resume writes into its
    parts unchanged; for an ``engine:`` spec, ``program_files``
    (:func:`recorded_program_files`). A name or label naming the
    home directory is written with ``~`` (a label with ``label_home: true``: a resume by
    the same user restores it).
    """

    out = []
    for i, p in enumerate(players):
        entry = {**p.describe(), "spec": recorded_spec(p.spec, run_dir)}
        if p.spec.startswith(ENGINE_PREFIX):  # so that a resume notices a changed engine
            entry["program_files"] = recorded_program_files(p.spec)
        entry["name"] = without_home(entry["name"])
        label = p.spec if labels is None else labels[i]
        if label != entry["spec"]:
            entry["label"] = without_home(label)
            if entry["label"] != label:
                entry["label_home"] = True
        out.append(entry)
    return out


def recorded_program_files(spec: str) -> dict[str, str]:
    """Return {path: sha256 (hex)} of the files an ``engine:`` spec runs
    (:func:`~hsim.bridges.engine.strategies.program_paths`) as a manifest records them:
    paths in the home directory written with ``~``; a file that cannot be read has
    ``"unreadable"``. {} for any other spec."""
    return {without_home(str(path)): _kept_sha256(path) for path in program_paths(spec)}


def _kept_sha256(path: Path) -> str:
    """:func:`hsim.runner.sink.file_sha256` of ``path``, or ``"unreadable"``; kept per
    size and modification time, so that the seats of one run read a large file once."""
    try:
        info = os.stat(path)
    except OSError:
        return "unreadable"
    return _sha256_as_of(str(path), info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256_as_of(path: str, size: int, mtime_ns: int) -> str:
    """:func:`_kept_sha256` of ``path`` at ``size`` bytes and ``mtime_ns``."""
    try:
        return file_sha256(Path(path))
    except OSError:
        return "unreadable"


def code_changed(manifest: dict[str, Any], specs, files: bool = True) -> str | None:
    """Name what would play a run's missing games differently from the code that played
    its parts (``"hsim 0.1.0, not 0.2.0"``), or None when nothing did change.

    Compared: hsim's version; the source hash of the built-in bots' compiled code (the
    name of numba's cache folder, unless the user set ``NUMBA_CACHE_DIR``); and, when
    ``files``, each strategy file's ``sha256`` and each engine's ``program_files``
    (:func:`recorded_program_files`) that ``manifest``'s players record, with those of
    ``specs``, the specs as they would be loaded now (one per recorded player). A run
    recorded without them is not compared on them.
    """
    versions = manifest.get("versions")
    played_by = versions.get("hsim") if isinstance(versions, dict) else None
    if played_by != __version__:
        return f"hsim {played_by or '(no version recorded)'}, not {__version__}"
    then = re.search(r"numba-([0-9a-f]+)$", str(manifest.get("numba_cache") or ""))
    now = re.search(r"numba-([0-9a-f]+)$", str(_numba.CACHE_DIR))
    if then and now and then.group(1) != now.group(1):
        return (
            f"the built-in bots' compiled code of source {then.group(1)}, not {now.group(1)} "
            "(hsim's engine or bots changed since)"
        )
    if not files:
        return None
    for entry, spec in zip(manifest.get("players") or (), specs, strict=False):
        if not isinstance(entry, dict):
            continue
        path = spec_file(spec)  # the file this spec names, from where it runs
        if path is not None and "sha256" in entry:
            try:
                digest = hashlib.sha256(read_strategy_file(path)).hexdigest()
            except (OSError, StrategySpecError):
                digest = None
            if digest != entry["sha256"]:
                return f"another strategy file {path} (it has changed since)"
        elif entry.get("program_files") is not None:
            changed = _engine_changed(entry["program_files"], recorded_program_files(spec))
            if changed:
                return f"{changed}, in {spec!r}"
    return None


def _engine_changed(then: Any, now: dict[str, str]) -> str | None:
    """Name how an engine's files ``now`` (path -> sha256) differ from those recorded,
    ``then``, or None when they hold the same contents (wherever they are now: another
    home folder, a moved file)."""
    if not isinstance(then, dict):
        return "a damaged program_files record (restore run.json from a copy)"
    if sorted(map(str, then.values())) == sorted(now.values()):
        return None
    for path, digest in then.items():
        if now.get(path, digest) != digest:
            return f"another {path} (it has changed since)"
    gone = [path for path in then if path not in now]
    new = sorted(set(now) - set(then))
    if gone and new:  # the program on PATH, or a link, is another file now
        return f"{gone[0]}, where the engine would now run {new[0]}"
    if gone:
        return f"{gone[0]}, which is not found from here"
    return f"other files: the engine would now also run {new[0]}"


# -- a run folder's manifest -------------------------------------------------------------------
def load_manifest(run_dir: Path) -> tuple[dict[str, Any], Rules]:
    """Return the manifest of run folder ``run_dir`` and the rules it was played under,
    after checking every field replay and analysis read (:func:`check_manifest`).

    :raises ManifestError: no ``run.json`` ("not an hsim run folder"), unreadable, not
        JSON (truncated?), or a field missing or of the wrong type; the message names it.
    """
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{run_dir} is not an hsim run folder: it has no {MANIFEST}")
    try:
        manifest = parse_record(read_record(path), path)
    except OSError as exc:
        raise ManifestError(f"cannot read {path}: {exc.strerror or exc}") from None
    return manifest, check_manifest(manifest, path)


def _field(manifest: Mapping, name: str, kind, where: Path, required: bool = True) -> Any:
    if name not in manifest:
        if required:
            raise ManifestError(f"{where}: field {name!r} is missing; is it from this hsim?")
        return None
    value = manifest[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (bool not in kinds and isinstance(value, bool)) or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise ManifestError(f"{where}: field {name!r} must be {names}, not {value!r}")
    return value


def check_manifest(manifest: Any, where: Path | str = MANIFEST) -> Rules:
    """Check a run manifest's fields (as read from JSON) and return its rules.

    Checked: ``seed`` (0..2**64-1), ``first_game``, ``games`` (game indices within int64),
    ``chunk_size`` (1..:data:`MAX_CHUNK_SIZE`),
    ``duplicate``, ``seed_scheme``, ``rules`` (``options``: every name a known rule option
    with a valid value; ``preset``), ``players`` (one ``{"spec": ...}`` per seat),
    ``score_also`` (strings); then the settings against their recorded checksum
    (:func:`hsim.runner.manifest.check_settings`).

    :raises ManifestError: naming the first bad field, or the settings damaged or edited.
    """
    where = Path(where)
    if not isinstance(manifest, Mapping):
        raise ManifestError(f"{where} must hold a JSON object, not {type(manifest).__name__}")
    _field(manifest, "seed_scheme", int, where)
    seed = _field(manifest, "seed", int, where)
    first = _field(manifest, "first_game", int, where)
    games = _field(manifest, "games", int, where)
    duplicate = _field(manifest, "duplicate", bool, where, required=False) or False
    chunk_size = _field(manifest, "chunk_size", int, where, required=False)
    try:
        check_seed(seed, "seed")
        check_int("first_game", first, 0, MAX_GAME_STOP)
        check_int("games", games, 1, MAX_GAME_STOP)
        if chunk_size is not None:
            check_int("chunk_size", chunk_size, 1, MAX_CHUNK_SIZE)
    except ConfigError as exc:
        raise ManifestError(f"{where}: field {exc}") from None
    rules_field = _field(manifest, "rules", dict, where)
    options = rules_field.get("options")
    if not isinstance(options, dict):
        raise ManifestError(f"{where}: field 'rules.options' must be an object of rule options")
    unknown = sorted(set(options) - set(RULE_NAMES))
    if unknown:
        raise ManifestError(
            f"{where}: field 'rules.options' has unknown rule option(s) {', '.join(unknown)} "
            "(written by another hsim version, or edited?)"
        )
    try:
        rules = Rules(**options)
    except RulesError as exc:
        raise ManifestError(f"{where}: field 'rules.options': {exc}") from None
    except TypeError as exc:  # pragma: no cover - unknown names are refused above
        raise ManifestError(f"{where}: field 'rules.options': {exc}") from None
    preset = rules_field.get("preset")
    if preset is not None and preset not in PRESETS:
        raise ManifestError(
            f"{where}: field 'rules.preset' is {preset!r}, not one of {', '.join(PRESETS)}"
        )
    text = rules_field.get("string")
    if text is not None:
        try:
            agrees = isinstance(text, str) and parse_rules(text) == rules
        except RulesError:
            agrees = False
        if not agrees:
            raise ManifestError(
                f"{where}: field 'rules.string' {text!r} does not read as the rules in "
                "'rules.options' (edited by hand?)"
            )
    per = rules.players if duplicate else 1
    if (first + games) * per > MAX_GAME_STOP:
        raise ManifestError(f"{where}: fields 'first_game' + 'games' go past int64")
    players = _field(manifest, "players", list, where)
    if len(players) != rules.players or not all(
        isinstance(p, dict) and isinstance(p.get("spec"), str) for p in players
    ):
        raise ManifestError(
            f"{where}: field 'players' must list {rules.players} objects with a 'spec' "
            f"string (one per seat of these rules)"
        )
    scorings = _field(manifest, "score_also", list, where, required=False) or []
    if not all(isinstance(s, str) for s in scorings):
        raise ManifestError(f"{where}: field 'score_also' must be a list of rules strings")
    for name in ("status", "command"):
        _field(manifest, name, (str, type(None)), where, required=False)
    record = _field(manifest, "record", str, where, required=False)
    if record is not None and record not in RECORD_MODES:
        raise ManifestError(
            f"{where}: field 'record' is {record!r}, not one of {', '.join(RECORD_MODES)}"
        )
    version = _field(manifest, "schema_version", int, where, required=False)
    if version is not None and not 1 <= version <= SCHEMA_VERSION:
        raise ManifestError(
            f"{where}: field 'schema_version' is {version}; this hsim reads schema versions "
            f"1..{SCHEMA_VERSION} (a newer hsim wrote it? read it with that hsim)"
        )
    check_settings(manifest, where)
    return rules


__all__ = [
    "MAX_CHUNK_SIZE",
    "MAX_GAME_STOP",
    "MAX_SEED",
    "MAX_WORKERS",
    "check_games",
    "check_int",
    "check_record",
    "check_manifest",
    "check_scorings",
    "check_seed",
    "check_workers",
    "load_manifest",
    "recorded_players",
    "validate",
    "without_home",
]


GAMES_PER_WORKER = 20_000
#: Largest default chunk (games) on the local pool.
LOCAL_CHUNK = 2_000
#: Largest default chunk (games) on a Dask cluster, where a task costs milliseconds: 10,000
#: random games play ~1 s.
CLUSTER_CHUNK = 10_000
DEFAULT_DECISION_TIMEOUT = 60.0


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """What to play. games: how many; seed: the run seed; first_game: index of the first.

    players: one spec per seat (``NAME`` or ``NAME(key=value,...)``). duplicate: play each
    game index as a board, once per rotation of the players over the seats (so ``games``
    boards make ``4 * games`` games). score_also: other scorings (full rule sets differing
    from ``rules`` in scoring options only) each game is also followed under.
    rules_preset: the preset the canonical rules string is written against (default: the
    preset the rules differ least from, e.g. ``kierki3`` for 3-player Kierki rules).
    decision_timeout: seconds a plain-Python strategy may take per decision (None or 0:
    no limit); it does not change results. labels: each seat's name in the datasets'
    ``strategy`` column and the summary (default: ``players``, the specs as the user gave
    them). A run keeps its labels when its specs are rewritten to load the same files from
    elsewhere (a cluster's absolute paths; a resume's paths relative to the run folder), so
    every part of a run names its strategies alike. record: the datasets written
    (``--record``): ``games`` (games only), ``deals`` (deals and games, the default) or
    ``plays`` (deals, games and one row per card played).
    """

    rules: Rules
    players: tuple[str, ...]
    games: int
    seed: int
    first_game: int = 0
    rules_preset: str | None = None
    chunk_size: int | None = None
    duplicate: bool = False
    score_also: tuple[Rules, ...] = ()
    decision_timeout: float | None = DEFAULT_DECISION_TIMEOUT
    labels: tuple[str, ...] | None = None
    record: str = DEFAULT_RECORD

    def __post_init__(self) -> None:
        if self.rules_preset is None:
            object.__setattr__(self, "rules_preset", preset_of(self.rules))

    @property
    def names(self) -> tuple[str, ...]:
        """Each seat's label: ``labels``, or the ``players`` specs when it is None."""
        return self.players if self.labels is None else self.labels

    @property
    def rotations(self) -> int:
        """Games played per index: one per rotation of the players (4, or 3 in 3-player
        Kierki) in duplicate play, else 1.
        """
        return self.rules.players if self.duplicate else 1

    def scoring_names(self) -> tuple[str, ...]:
        """Return ``base`` and the canonical rules string of each other scoring."""
        return ("base", *(canonical(r, self.rules_preset) for r in self.score_also))

    @property
    def datasets(self) -> tuple[str, ...]:
        """The datasets this run writes (:data:`hsim.runner.columns.RECORD_DATASETS`)."""
        return RECORD_DATASETS[self.record]

    @property
    def stop(self) -> int:
        """One past the last game (duplicate: board) index."""
        return self.first_game + self.games

    def size_for(self, workers: int, most_games: int = LOCAL_CHUNK) -> int:
        """Return the games (duplicate: boards) per chunk for ``workers`` workers: about
        8 chunks per worker, of at most ``most_games`` games (``chunk_size`` if set).
        """
        if self.record == "plays":  # a row per card held per chunk: keep workers small
            most_games = min(most_games, MAX_PLAYS_CHUNK_SIZE)
        largest = most_games // self.rotations
        return self.chunk_size or max(1, min(largest, math.ceil(self.games / (workers * 8))))

    def ranges(self, size: int, done: set[int] | dict = frozenset()) -> Iterator[tuple[int, int]]:
        """Yield the (start, stop) chunks of ``size`` indices, in order, lazily, skipping
        those whose start is in ``done``. Chunk k is ``first_game + k * size ..``.
        """
        stop = self.stop
        for a in range(self.first_game, stop, size):
            if a not in done:
                yield a, min(a + size, stop)

    def chunks(self, workers: int) -> list[tuple[int, int]]:
        """Return every (start, stop) chunk as a list (small runs only: see :meth:`ranges`)."""
        return list(self.ranges(self.size_for(workers)))


def default_workers(games: int | None = None) -> int:
    """Return the default worker count: the CPUs this process may use, but no more than
    one per ``GAMES_PER_WORKER`` games (a worker takes ~1.5 s to start and load the code).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    if games is None:
        return cpus
    return max(1, min(cpus, games // GAMES_PER_WORKER))
