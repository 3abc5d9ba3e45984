"""The variant atlas: what each rule variant does to games, per bot, on paired seeds.

For every bot of ``bots`` (a copy of it in every seat) and every rule set (the base,
then each variant), one tournament of ``games`` games with the same seed: game ``g`` is
dealt the same hands under every rule set, so each variant is compared with the base on
the same deals (paired). Each is an ordinary run folder, ``out/<k>-<bot>/base`` and
``out/<k>-<bot>/variant-<i>``, played or continued (:func:`hsim.runner.resume.resume_run`)
as needed, so an interrupted atlas resumes from where it stopped when run again with the
same settings.

Figures per bot and rule set (95% intervals; the definitions are in docs/atlas.md):
deals and games played; the moon rate (moons per deal); game length (deals per game); the
winning score; the *spread* (per game, the highest final score minus the lowest: how close
a game is); score per deal by seat (after the moon and bonuses; in self-play every seat
plays alike, so a seat that differs shows an advantage of its place) and the moon rate by
pass direction (moons a seat shoots per deal it plays: in self-play the points per deal
are the same in every direction, 26 shared by four); and against the base, the
winner-change rate (the share of games whose winner set differs). They are computed by
the same code as ``hsim report`` and ``hsim compare-rules``, in one pass over the runs
(:func:`hsim.experiments.compare_rules.compare_and_report`).

``out`` holds ``atlas.json`` (settings, ``status``, and per bot and rule set the figures
with ``run_dir``, the run folder relative to ``out``), ``atlas.parquet`` (one row per
figure: bot, rules, figure, key, estimate, low, high, n) and ``atlas.md`` (the tables).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hsim.analysis.frames import interval_dict
from hsim.analysis.stats import mean_interval
from hsim.engine.layout import G_DEALS
from hsim.errors import ConfigError, HsimError, StopRequested
from hsim.experiments.compare_rules import Variant, compare_and_report
from hsim.experiments.ladder import slug
from hsim.model.rules import (
    HEARTS_OPTIONS,
    KIERKI_OPTIONS,
    RULE_FIELDS,
    Rules,
    canonical,
    ineffective_options,
)
from hsim.runner.config import RunConfig, check_seed, validate
from hsim.runner.lock import FolderError, check_not_inside_held, claim
from hsim.runner.manifest import MANIFEST
from hsim.runner.resume import resume_run
from hsim.runner.run import RunError, run_tournament
from hsim.runner.signals import sigterm_as_stop
from hsim.runner.verify import require_complete

ATLAS_FILE = "atlas.json"
TABLE_FILE = "atlas.parquet"
MARKDOWN_FILE = "atlas.md"
#: The bot levels of an atlas by default (Hearts).
DEFAULT_BOTS = ("random", "duck", "heuristic")
#: Games of the pilot that sizes ``--deals`` (deals per game of the base, per bot).
PILOT_GAMES = 200
#: Games per rule set and bot at least: fewer give intervals too wide to read (a t
#: interval over 2 games spans impossible values).
MIN_GAMES = 20
#: The name of an atlas's run folder, under its bot's folder.
RUN_NAME = re.compile(r"base|variant-[0-9]+")
#: The name of a bot's folder (:meth:`AtlasConfig.bot_folder`).
BOT_FOLDER = re.compile(r"[0-9]{2,}-[A-Za-z0-9_]*")
#: The temporary name of an atlas file being written.
ATLAS_TMP = re.compile(r"\.atlas\.(json|parquet|md)\.tmp")
#: The atlas format's version (``atlas.json``), bumped when its figures change.
ATLAS_VERSION = 1


def option_variants(base: Rules) -> list[str]:
    """Return ``name=value`` for every other value of every option of ``base``'s game that
    has a list of values and an effect on top of ``base`` (docs/rules.md; ``--variant
    all``): the atlas of the options."""
    names = KIERKI_OPTIONS if base.is_kierki else HEARTS_OPTIONS
    out = []
    for name in names:
        choices = RULE_FIELDS[name].metadata["choices"]
        if not isinstance(choices, tuple) or name in ("game", "players"):
            continue
        for value in choices:
            if value != getattr(base, name):
                text = str(value).lower() if isinstance(value, bool) else str(value)
                rules = dataclasses.replace(base, **{name: value})
                if len(ineffective_options(rules)) == len(ineffective_options(base)):
                    out.append(f"{name}={text}")
    return out


class AtlasError(HsimError):
    """The atlas cannot run: its folder holds another atlas or something else, or a cell's
    run failed (exit 1; exit 2 for settings)."""


class AtlasStopped(HsimError):
    """A signal stopped one of the atlas's runs; running the same command again resumes."""


@dataclasses.dataclass(frozen=True)
class AtlasConfig:
    """What an atlas plays: ``base`` rules (named ``preset`` where a preset), ``variants``
    (:func:`hsim.experiments.compare_rules.parse_variant`), ``bots`` (specs; four copies
    of each at the table), ``games`` per rule set and bot, ``seed``."""

    base: Rules
    variants: tuple[Variant, ...]
    bots: tuple[str, ...]
    games: int
    seed: int = 1
    preset: str = "classic"

    def validate(self, workers: int = 1) -> None:
        """:raises ConfigError: no bot, no variant, a bad game count or seed; and each
        run's settings (:func:`hsim.runner.config.validate`)."""
        if not self.bots:
            raise ConfigError("an atlas needs at least one bot (--bots)")
        if not self.variants:
            raise ConfigError("an atlas needs at least one variant (--variant)")
        if not (isinstance(self.games, int) and self.games >= MIN_GAMES):
            raise ConfigError(
                f"an atlas plays at least {MIN_GAMES} games per rule set and bot (fewer "
                f"give intervals too wide to read), not {self.games}"
            )
        check_seed(self.seed, "--seed")
        for bot, _, config in self.cells():
            try:
                validate(config, workers)
            except HsimError as exc:
                raise ConfigError(f"{bot}: {exc}") from None

    def rule_sets(self) -> list[tuple[str, Rules, str]]:
        """Return (folder name, rules, label) of the base, then each variant."""
        return [("base", self.base, "base")] + [
            (f"variant-{i}", v.rules, v.label) for i, v in enumerate(self.variants, 1)
        ]

    def bot_folder(self, k: int, bot: str) -> str:
        """Return the folder of the ``k``-th bot (from 1): ``01-heuristic``."""
        return f"{k:02d}-{slug(bot)[:60]}"

    def cells(self) -> list[tuple[str, str, RunConfig]]:
        """Return (bot, its run folder relative to the atlas, run settings) of every run."""
        out = []
        for k, bot in enumerate(self.bots, 1):
            for name, rules, _ in self.rule_sets():
                players = (bot,) * rules.players
                config = RunConfig(
                    rules=rules,
                    players=players,
                    games=self.games,
                    seed=self.seed,
                    rules_preset=self.preset,
                )
                out.append((bot, f"{self.bot_folder(k, bot)}/{name}", config))
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as ``atlas.json`` keeps them (what a resume must match)."""
        return {
            "version": ATLAS_VERSION,
            "base": canonical(self.base, self.preset),
            "variants": [v.label for v in self.variants],
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
        }


def games_for_deals(base: Rules, bot: str, deals: int, seed: int) -> tuple[int, float]:
    """Return (games, the base's mean game length in deals): the games that give about
    ``deals`` deals under ``base`` with four ``bot`` seats, from a pilot of
    :data:`PILOT_GAMES` games (games ``2**40`` on of run ``seed``, never part of the
    atlas); at least :data:`MIN_GAMES`."""
    # deferred: importing a game module compiles the engine
    from hsim.play.games import play_range
    from hsim.strategy.loader import load_players

    players = load_players([bot] * base.players, base)
    start = 1 << 40
    _, games = play_range(base, players, seed, start, start + PILOT_GAMES)
    length = float(np.mean(games[:, G_DEALS]))
    return max(MIN_GAMES, math.ceil(deals / length)), length


def _check_folder(out: Path, settings: dict[str, Any], overwrite: bool) -> None:
    """Refuse ``out`` when it holds another atlas (other settings; ``overwrite`` lets its
    runs be replaced, and a damaged ``atlas.json`` too), or anything that is not an
    atlas's (exit 2)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a folder")
    entries = [p for p in out.iterdir() if not p.name.startswith(".hsim")]
    if not entries:
        return
    foreign = sorted(p.name for p in entries if not _atlas_entry(p))
    if foreign:
        raise ConfigError(
            f"--out {out} holds files an atlas does not write ({', '.join(foreign[:3])}); "
            "choose another folder"
        )
    try:
        recorded = json.loads((out / ATLAS_FILE).read_text())["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        if overwrite:
            return
        raise ConfigError(
            f"--out {out} holds an atlas whose {ATLAS_FILE} is missing or damaged; give "
            "--overwrite to play it again there, or choose another folder"
        ) from None
    if recorded != settings and not overwrite:
        raise ConfigError(
            f"--out {out} holds an atlas with other settings ({json.dumps(recorded)}); run "
            "that one again to resume it, choose another folder, or give --overwrite to "
            "replace its runs"
        )


def _atlas_entry(path: Path) -> bool:
    """Whether ``path``, in an atlas folder, is one of the atlas's: its files (and their
    temporary names) or a bot's folder of run folders."""
    name = path.name
    if name in (ATLAS_FILE, TABLE_FILE, MARKDOWN_FILE) or ATLAS_TMP.fullmatch(name):
        return path.is_file()
    if not (BOT_FOLDER.fullmatch(name) and path.is_dir() and not path.is_symlink()):
        return False
    return all(RUN_NAME.fullmatch(run.name) and run.is_dir() for run in path.iterdir())


def run_atlas(
    config: AtlasConfig,
    out: Path,
    workers: int = 1,
    overwrite: bool = False,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
    cluster=None,
    argv: list[str] | None = None,
) -> dict[str, Any]:
    """Play (or continue) every run of ``config`` into ``out`` and return the atlas (also
    written to ``out``: see the module doc). A complete run is not played again; a stopped
    one is resumed. echo: called with a line before each run.

    :raises ConfigError: bad settings (nothing written). :raises AtlasError: ``out``
        holds something else, is in use, or a run failed. :raises AtlasStopped: a signal
        stopped a run (its parts are kept: the same command resumes it).
    """
    config.validate(workers)
    out = Path(out)
    settings = config.to_dict()
    _check_folder(out, settings, overwrite)
    try:
        check_not_inside_held(out)  # before anything is created there
        out.mkdir(parents=True, exist_ok=True)
        lock = claim(out)
    except FolderError as exc:
        raise AtlasError(str(exc)) from None
    status = "failed"
    try:
        with sigterm_as_stop():  # SIGTERM between two runs stops as Ctrl-C does
            _write_json(out / ATLAS_FILE, {"settings": settings, "status": "running"})
            cells = config.cells()
            if overwrite:
                _remove_other_runs(out, {name for _, name, _ in cells})
            for k, (bot, name, run_config) in enumerate(cells, 1):
                folder = out / name
                if echo is not None:
                    echo(f"run {k} of {len(cells)}: {bot} x {run_config.rules.players}, "
                         f"{canonical(run_config.rules, config.preset)} -> {folder}")  # fmt: skip
                _play(run_config, folder, workers, progress, cluster, argv, overwrite)
            if echo is not None:
                echo(f"computing the figures of {len(cells)} runs")
            try:
                atlas = measure(config, out)
            except KeyboardInterrupt:
                raise AtlasStopped(
                    "interrupted while computing the figures (every run is complete); run the "
                    "same command again to compute them",
                    exit_code=130,
                ) from None
            atlas["status"] = status = "complete"
            _write_json(out / ATLAS_FILE, atlas)
            _write_table(out / TABLE_FILE, atlas)
            _write_text(out / MARKDOWN_FILE, "\n".join(format_markdown(atlas)) + "\n")
            return atlas
    except StopRequested as exc:
        status = "interrupted"
        raise AtlasStopped(
            "interrupted; run the same command again to resume the atlas",
            exit_code=128 + exc.signum,
        ) from None
    except (AtlasStopped, KeyboardInterrupt):
        status = "interrupted"
        raise
    finally:
        try:
            if status != "complete":
                _write_json(out / ATLAS_FILE, {"settings": settings, "status": status})
        finally:
            lock.release()


def _remove_other_runs(out: Path, keep: set[str]) -> None:
    """Delete the run folders of an earlier atlas in ``out`` that ``keep`` (paths relative
    to ``out``) does not name: only ``<bot>/<base|variant-i>`` folders holding a run."""
    for folder in sorted(out.glob("*/*")):
        name = f"{folder.parent.name}/{folder.name}"
        is_run = folder.is_dir() and not folder.is_symlink() and (folder / MANIFEST).is_file()
        if name not in keep and is_run and RUN_NAME.fullmatch(folder.name):
            shutil.rmtree(folder)
            if not any(folder.parent.iterdir()):
                folder.parent.rmdir()


def _play(config: RunConfig, folder: Path, workers, progress, cluster, argv, overwrite) -> None:
    """Play ``config`` into ``folder``, or continue it there, or keep it when complete."""
    try:
        if (folder / MANIFEST).is_file() and not overwrite:
            result = resume_run(folder, workers, progress, argv=argv, cluster=cluster, trust=False)
        else:
            folder.parent.mkdir(parents=True, exist_ok=True)
            result = run_tournament(
                config, folder, workers=workers, overwrite=True, progress=progress,
                argv=argv, cluster=cluster,
            )  # fmt: skip
    except RunError as exc:
        raise AtlasError(
            f"{folder}: {exc} (running the same hsim atlas command again resumes the atlas)"
        ) from None
    if result.status == "interrupted":
        raise AtlasStopped(
            f"interrupted in {folder}; run the same command again to resume the atlas",
            exit_code=result.exit_code,
        )
    if result.status != "complete":
        raise AtlasError(f"{folder}: the run {result.status}: {result.error}")
    require_complete(folder)


def measure(config: AtlasConfig, out: Path) -> dict[str, Any]:
    """Return the atlas's figures from its complete run folders in ``out``: settings, then
    per bot and rule set ``cells`` (see the module doc). Reads each run once
    (:func:`hsim.experiments.compare_rules.compare_and_report`)."""
    cells = []
    for k, bot in enumerate(config.bots, 1):
        base_dir = out / config.bot_folder(k, bot)
        sets = config.rule_sets()
        dirs = [base_dir / name for name, _, _ in sets]
        _, figures, reports, spreads = compare_and_report(
            dirs[0], dirs[1:], config.base, [v.rules for v in config.variants]
        )
        changes = [None] + [f["winner_change"]["share"] for f in figures]
        for (name, rules, _), folder, change, report, gaps in zip(
            sets, dirs, changes, reports, spreads, strict=True
        ):
            summary = report["summary"]
            cells.append(
                {
                    "bot": bot,
                    "rules": canonical(rules, config.preset),
                    "base": name == "base",
                    "run_dir": str(folder.relative_to(out)),
                    "games": summary["games"],
                    "deals": sum(r["seat_deals"] for r in report["by_seat"]) // rules.players,
                    "moon_rate": summary.get("moon_rate"),
                    "game_length": summary["game_length"],
                    "winning_score": summary["winning_score"],
                    "spread": interval_dict(mean_interval(gaps)) if len(gaps) >= 2 else None,
                    "winner_change": change,
                    "by_seat": [
                        {"seat": r["seat"], "score_per_deal": r["score_per_deal"]}
                        for r in report["by_seat"]
                    ],
                    "by_pass_direction": [
                        {"pass_direction": r["pass_direction"], "moon_rate": r.get("moon_rate")}
                        for r in report.get("by_pass_direction", [])
                    ],
                }
            )
    return {"settings": config.to_dict(), "cells": cells}


#: The figures of the long table (``atlas.parquet``): name, cell key, and per row key.
_FIGURES = ("moon_rate", "game_length", "winning_score", "spread", "winner_change")


def table_rows(atlas: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the atlas as rows: bot, rules, figure, key (seat or pass direction, or ""),
    estimate, low, high, n."""
    rows = []

    def add(cell, figure, key, iv):
        if iv is None:
            return
        rows.append(
            {
                "bot": cell["bot"],
                "rules": cell["rules"],
                "figure": figure,
                "key": key,
                "estimate": float(iv["estimate"]),
                "low": float(iv["low"]),
                "high": float(iv["high"]),
                "n": int(iv["n"]),
            }
        )

    for cell in atlas["cells"]:
        for figure in _FIGURES:
            add(cell, figure, "", cell[figure])
        for r in cell["by_seat"]:
            add(cell, "score_per_deal", f"seat {r['seat']}", r["score_per_deal"])
        for r in cell["by_pass_direction"]:
            add(cell, "moon_rate", r["pass_direction"], r["moon_rate"])
    return rows


def _write_table(path: Path, atlas: dict[str, Any]) -> None:
    frame = pd.DataFrame(table_rows(atlas))
    tmp = path.with_name(f".{path.name}.tmp")
    frame.to_parquet(tmp, index=False)
    tmp.replace(path)


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    _write_text(path, json.dumps(doc, indent=1, allow_nan=False) + "\n")


def _write_text(path: Path, text: str) -> None:
    """Write ``path`` through a temporary name and a rename: never half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _cell(iv: dict[str, float] | None, scale: float = 1.0, digits: int = 2) -> str:
    if iv is None:
        return "–"
    e, lo, hi = (iv[k] * scale for k in ("estimate", "low", "high"))
    return f"{e:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def format_markdown(atlas: dict[str, Any]) -> list[str]:
    """Return the atlas as markdown: one table per bot, a row per rule set."""
    s = atlas["settings"]
    lines = [
        f"Base rules `{s['base']}`, {s['games']:,} games per rule set and bot, seed {s['seed']}; "
        "95% intervals in brackets.",
    ]
    for bot in s["bots"]:
        lines += [
            "",
            f"### {bot}",
            "",
            "| rules | deals | moons per 100 deals | deals per game | winner changes, % "
            "| spread | seat 0 score per deal |",
            "|---|---|---|---|---|---|---|",
        ]
        for cell in (c for c in atlas["cells"] if c["bot"] == bot):
            seat0 = cell["by_seat"][0]["score_per_deal"] if cell["by_seat"] else None
            rules = f"`{cell['rules']}`" + (" (base)" if cell["base"] else "")
            lines.append(
                f"| {rules} | {cell['deals']:,} | {_cell(cell['moon_rate'], 100)} "
                f"| {_cell(cell['game_length'])} | {_cell(cell['winner_change'], 100, 1)} "
                f"| {_cell(cell['spread'], digits=1)} | {_cell(seat0)} |"
            )
    return lines
