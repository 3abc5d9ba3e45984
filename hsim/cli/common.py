"""Pieces shared by the click commands: rules, players and position options, loading
strategies, clear user errors."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import select
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import NoReturn

import click

from hsim.errors import EXIT_RUN, ConfigError, HsimError, clear_signal, on_sigint
from hsim.model.cards import CardParseError
from hsim.model.notation import PositionSpec, parse_deal_file
from hsim.model.rules import Rules, RulesError, ineffective_options, parse_assignments, parse_rules

#: Every command answers -h as well as --help (set per command: click caches a command's
#: help option the first time it is built, and commands may be invoked on their own).
HELP = {"help_option_names": ["-h", "--help"]}


class UserError(click.ClickException):
    """A user's mistake or a failed run, printed as ``Error: message`` with an exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_RUN) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def user_error(exc: Exception) -> click.ClickException:
    """Return the click error that prints ``exc``'s message (no traceback), exiting with
    ``exc.exit_code`` (2 usage, 1 run or data error; :mod:`hsim.errors`)."""
    return UserError(str(exc), getattr(exc, "exit_code", EXIT_RUN))


#: ``ctx.meta`` key where a command names the run folder it writes (for traceback files).
RUN_DIR_KEY = "hsim.run_dir"


def _holds_run(run_dir: Path) -> bool:
    try:  # the error may be the path itself (a name too long, a folder not readable)
        return (run_dir / "run.json").is_file()
    except OSError:
        return False


def _os_message(exc: OSError, run_dir: Path | None = None) -> str:
    """Return the message of an OSError that stopped a command; ``run_dir``: the run folder
    it was writing (``ctx.meta[RUN_DIR_KEY]``), named with what to do when it holds a run."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.filename2:
        where += f" -> {exc.filename2}"
    reason = exc.strerror or str(exc)
    if run_dir is not None and _holds_run(Path(run_dir)):
        return (
            f"cannot write or read{where}: {reason}; the run in {run_dir} stopped. What it "
            "finished is kept; check that the folder is writable and has free space, then "
            f"`hsim resume {run_dir}` continues it"
        )
    return (
        f"cannot write or read{where}: {reason}; check that the folder exists, is "
        "writable and has free space (nothing was written if the run had not started)"
    )


def traceback_file(exc: BaseException, run_dir: Path | None = None) -> Path:
    """Write ``exc``'s full traceback to a file and return its path: ``hsim-error-*.txt``
    in ``run_dir`` when that is an existing folder, else in the temporary directory."""
    folder = Path(run_dir) if run_dir is not None and Path(run_dir).is_dir() else None
    if folder is None:
        folder = Path(tempfile.gettempdir())
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    argv = " ".join(sys.argv)
    for base in (folder, Path(tempfile.gettempdir())):
        path = base / f"hsim-error-{stamp}-{os.getpid()}.txt"
        try:  # odd bytes (a surrogate from a file name) written escaped, not refused
            path.write_text(f"hsim {argv}\n\n{text}", encoding="utf-8", errors="backslashreplace")
            return path
        except OSError:
            with contextlib.suppress(OSError):  # a full disk: no empty file left behind
                path.unlink(missing_ok=True)
            continue
    return Path("(could not be written)")


class Group(click.Group):
    """The ``hsim`` group: the one place that maps errors to a message and an exit code.

    - :class:`~hsim.errors.HsimError` (rules, strategies, settings, runs, run folders):
      ``Error: message``, exit ``exc.exit_code`` (2 usage, 1 run or data error);
    - ``OSError`` (a read-only or full disk, a name too long, a file in the way): its
      message and path, exit 1;
    - a real Ctrl-C: ``interrupted``, exit 130;
    - anything else: one line naming the error and the file holding its full traceback
      (in the run folder a command names in ``ctx.meta[RUN_DIR_KEY]``, else the
      temporary directory), exit 1.

    While a command runs, SIGINT is handled by :func:`hsim.errors.on_sigint`, so that a
    strategy raising ``KeyboardInterrupt`` itself is told from a real Ctrl-C.
    """

    def invoke(self, ctx: click.Context):
        clear_signal()
        installed, old = _install_sigint()
        try:
            result = super().invoke(ctx)
            compile_done()
            return result
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            _compile_stopped()
            raise
        except HsimError as exc:
            raise user_error(exc) from None
        except BrokenPipeError as exc:
            if not _reader_gone(sys.stdout):
                raise UserError(_os_message(exc)) from None
            # `hsim replay ... | head`: the reader has what it wanted; stop quietly, as a
            # command that SIGPIPE ends does (and keep Python's exit flush from failing)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(141) from None
        except OSError as exc:
            raise UserError(_os_message(exc, ctx.meta.get(RUN_DIR_KEY))) from None
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            raise click.exceptions.Exit(130) from None
        except Exception as exc:  # a bug: one line here, the traceback in a file
            path = traceback_file(exc, ctx.meta.get(RUN_DIR_KEY))
            raise UserError(
                f"unexpected {type(exc).__name__}: {exc} (a bug in hsim or in a strategy; "
                f"the full traceback is in {path})"
            ) from None
        finally:
            _compile_stopped()
            if installed:
                signal.signal(signal.SIGINT, signal.SIG_DFL if old is None else old)


#: The values ``HSIM_START_METHOD`` takes (how worker processes start; unset: fork where
#: it is safe, else spawn).
START_METHODS = ("fork", "spawn", "forkserver")


def check_environment() -> None:
    """Refuse to run with a bad hsim environment variable (:func:`environment_problem`):
    called by every command that compiles or plays, before it does.

    :raises UserError: exit 2, naming the variable and what to set it to.
    """
    problem = environment_problem()
    if problem:
        raise UserError(problem, 2)


def environment_problem() -> str | None:
    """Return what is wrong with hsim's environment variables, or None: an
    ``HSIM_START_METHOD`` that is no start method, an ``HSIM_CACHE_DIR`` that is not a
    folder hsim can make and write (compiled code would silently never be cached)."""
    method = os.environ.get("HSIM_START_METHOD", "").strip().lower()
    if method and method not in START_METHODS:
        return (
            f"HSIM_START_METHOD={os.environ['HSIM_START_METHOD']!r} is not a start method: set "
            f"it to {', '.join(START_METHODS)}, or unset it"
        )
    cache = os.environ.get("HSIM_CACHE_DIR")
    if cache is not None:
        path = Path(cache).expanduser()
        if not cache.strip():
            return "HSIM_CACHE_DIR is set but empty: give a folder for compiled code, or unset it"
        if path.exists() and not path.is_dir():
            return (
                f"HSIM_CACHE_DIR={cache!r} is not a folder; give a folder for compiled code "
                "(it is made if missing), or unset it"
            )
        existing = next((p for p in (path, *path.parents) if p.exists()), None)
        if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
            return (
                f"HSIM_CACHE_DIR={cache!r} cannot be written ({existing} is not writable); "
                "give a folder of yours, or unset it"
            )
    return None


def _reader_gone(stream) -> bool:
    """Return whether ``stream`` is a pipe whose reading end was closed."""
    try:
        poll = select.poll()
        poll.register(stream.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _install_sigint():
    try:
        old = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, on_sigint)
    except (ValueError, OSError):  # not the main thread: leave signals alone
        return False, None
    return True, old


def build_rules(preset_text: str, rule_items: tuple[str, ...]) -> tuple[Rules, str]:
    """Return the rules from ``--rules`` (a preset or a rules string) and ``--rule`` items.

    Warns on stderr about options that cannot have an effect in this combination.

    :raises click.ClickException: an unknown preset, option or value.
    """
    try:
        preset = preset_text.partition("(")[0].strip()
        rules = dataclasses.replace(parse_rules(preset_text), **parse_assignments(rule_items))
    except RulesError as exc:
        raise user_error(exc) from None
    for note in ineffective_options(rules):
        click.echo(f"warning: {note}", err=True)
    return rules, preset


def player_specs(players: str | None, player_list: tuple[str, ...]) -> tuple[str, ...]:
    """Return one spec per seat from ``--players`` or the repeated ``--player``.

    :raises click.ClickException: both or neither given, or a malformed list.
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError, StrategySpecError
    from hsim.strategy.specs import split_players

    try:
        if players and player_list:
            raise StrategySpecError("give either --players or --player, not both")
        if not players and not player_list:
            raise StrategySpecError(
                "no players: give --players random,lowcard,random,lowcard or one --player per "
                "seat (`hsim strategies` lists what is available)"
            )
        return tuple(split_players(players) if players else (s.strip() for s in player_list))
    except StrategyError as exc:
        raise user_error(exc) from None


rules_option = click.option(
    "--rules",
    "preset",
    default="classic",
    show_default=True,
    metavar="PRESET",
    help="Rules preset (`hsim rules` lists them), or a rules string such as "
    "'classic(omnibus=true)'.",
)
rule_option = click.option(
    "--rule",
    "rule_items",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set one rule option on top of the preset; repeatable.",
)
players_option = click.option(
    "--players",
    default=None,
    metavar="SPECS",
    help="One strategy per seat, comma-separated: random,lowcard,random,lowcard.",
)
player_option = click.option(
    "--player",
    "player_list",
    multiple=True,
    metavar="SPEC",
    help="One seat's strategy; repeat once per seat (instead of --players).",
)
workers_option = click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the number of CPUs; fewer for small runs, where "
    "starting a worker costs more than it saves).",
)


cluster_option = click.option(
    "--cluster",
    "cluster_address",
    default=None,
    metavar="ADDRESS",
    help="Play the chunks as tasks on a Dask cluster: its scheduler's address "
    "(tcp://HOST:PORT), a scheduler file (*.json), or 'local' to start one here with "
    "--workers processes. The run folder must be on a filesystem every worker sees. "
    "Needs the cluster extra: pip install -e '.[cluster]'.",
)


@contextlib.contextmanager
def cluster_from_options(address: str | None, workers: int | None, default_workers: int = 0):
    """Yield the Dask cluster ``--cluster`` names (None without it), connected for the
    whole command and closed after it. ``--cluster local`` starts ``workers`` processes
    (default ``default_workers``, else one per CPU).

    :raises click.UsageError: a malformed address, or ``--workers`` with a cluster address
        (its workers are the ones started there).
    :raises click.ClickException: Dask not installed, no scheduler at the address, or no
        worker.
    """
    if address is None:
        yield None
        return
    if workers is not None and address.strip() != "local":
        raise click.UsageError(
            "--workers sets the worker processes of --cluster local; a cluster at an "
            "address plays on the workers started there: drop --workers"
        )
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner import run
    from hsim.runner.cluster import ClusterError, DaskCluster, check_address

    try:
        check_address(address)
    except ClusterError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        cluster = DaskCluster(address, workers or default_workers or run.default_workers())
    except ClusterError as exc:
        raise user_error(exc) from None
    with cluster:
        yield cluster


def position_options(fn):
    """Add the position flags (--deal, --deal-file, --pass-direction, --passes, --plays) to
    a command."""
    fn = click.option(
        "--plays", default="", metavar="CARDS", help="Cards played so far, in order: '2C 5C KC AC'."
    )(fn)
    fn = click.option(
        "--passes",
        default=None,
        metavar="PASSES",
        help="Each seat's 3 passed cards, seat 0 first: 'AS KS QS / ... / ...'.",
    )(fn)
    fn = click.option(
        "--pass-direction",
        default="hold",
        show_default=True,
        type=click.Choice(["left", "right", "across", "hold"]),
        help="Pass direction of the deal.",
    )(fn)
    fn = deal_file_option(fn)
    fn = click.option(
        "--deal",
        "deal_text",
        default=None,
        metavar="DEAL",
        help="The hands as dealt, seat 0 first, '/'-separated: 2C7C.../3C.../...",
    )(fn)
    return fn


def deal_file_option(fn):
    """Add --deal-file (a Kierki deal in the servers' deal-file format) to a command."""
    return click.option(
        "--deal-file",
        "deal_file",
        type=click.Path(dir_okay=False, exists=True),
        default=None,
        metavar="FILE",
        help="A 4-player Kierki deal in the Kierki servers' deal-file format (docs/rules.md "
        "B6), instead of --deal; with --rules kierki4 or another 4-player Kierki preset.",
    )(fn)


def build_position(deal_text, pass_direction, passes, plays, rules, scores=None, deal_file=None):
    """Return (spec, Position) from the position flags (and the game scores before the
    deal); clear errors for bad input. With ``deal_file`` (a Kierki deal file's path) the
    spec is None."""
    # deferred: hsim.play loads numba, which `hsim --help` should not wait for
    from hsim.play.position import IllegalPlayError, Position

    if deal_file is not None:
        return None, _kierki_position(deal_file, deal_text, pass_direction, passes, plays, rules)
    if rules.is_kierki:
        raise click.UsageError(
            "--deal is a Hearts deal; give a Kierki deal with --deal-file FILE (docs/rules.md "
            "B6), or replay a Kierki game with `hsim replay --rules kierki4 --seed S --game G "
            "--players ...`"
        )
    if not deal_text:
        raise click.UsageError("give the position with --deal (and --passes / --plays)")
    try:
        spec = PositionSpec.parse(deal_text, pass_direction, passes, plays)
        return spec, Position.from_spec(spec, rules, scores)
    except (CardParseError, IllegalPlayError, ValueError) as exc:
        raise user_error(exc) from None


def _kierki_position(path, deal_text, pass_direction, passes, plays, rules):
    """Return the Position of the one deal of Kierki deal file ``path``, ``plays`` played."""
    # deferred: hsim.play loads numba, which `hsim --help` should not wait for
    from hsim.play.position import IllegalPlayError, Position

    if deal_text:
        raise click.UsageError("give the deal with --deal or --deal-file, not both")
    if not rules.is_kierki or rules.players != 4:
        raise click.UsageError(
            "--deal-file holds a 4-player Kierki deal: give --rules kierki4 (or "
            "kierki4_servers, kierki4_program)"
        )
    if passes or pass_direction != "hold":
        raise click.UsageError("Kierki has no passing: drop --passes and --pass-direction")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read the deal file {path}: {exc}") from None
    try:
        deals = parse_deal_file(text)
        if len(deals) != 1:
            raise click.UsageError(
                f"{path} holds {len(deals)} deals; --deal-file takes a file of one deal"
            )
        position = Position.from_deal_file(text, rules)
        if plays:
            position.play(plays)
        return position
    except (CardParseError, IllegalPlayError, ValueError) as exc:
        raise click.UsageError(f"{path}: {exc}") from None


def load_specs(specs: str, rules: Rules | None = None) -> list:
    """Return the loaded strategies of a comma-separated spec list; clear errors."""
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.loader import load_players
    from hsim.strategy.specs import split_players

    try:
        return load_players(split_players(specs), rules)
    except StrategyError as exc:
        raise user_error(exc) from None


def load_one(spec: str, rules: Rules) -> tuple:
    """Return ``(strategy,)`` for one spec that plays ``rules``' game; clear errors."""
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.loader import check_game, load

    try:
        loaded = load(spec)
        check_game(loaded, rules.game)
        return (loaded,)
    except StrategyError as exc:
        raise user_error(exc) from None


def parse_scores(text: str | None) -> tuple[int, ...] | None:
    """Read ``--scores 30,10,10,10`` (game scores before the deal, seat 0 first, one per
    seat: 3 to 6); None when not given (every score 0).

    :raises click.BadParameter: not 3 to 6 integers >= 0.
    """
    if not text:
        return None
    try:
        scores = tuple(int(x) for x in text.replace(" ", "").split(","))
    except ValueError:
        scores = ()
    if not 3 <= len(scores) <= 6 or min(scores) < 0 or max(scores) >= 1 << 31:
        raise click.BadParameter(
            f"{text!r}: give one game score per seat, seat 0 first, each 0 .. 2**31 - 1: "
            "30,10,10,10",
            param_hint="--scores",
        )
    return scores


allow_partial_option = click.option(
    "--allow-partial",
    is_flag=True,
    help="Use an incomplete run (stopped before its end) with a warning saying how much is "
    "missing, instead of refusing it.",
)


def check_run(run_dir, allow_partial: bool, checksums: bool = False, quiet: bool = False) -> None:
    """Refuse an incomplete or damaged run folder before a command reads it (see
    :func:`hsim.runner.verify.require_complete`; ``checksums``: every part's sha256 too,
    for a command that reads every part); print the warnings of a partial one, unless
    ``quiet`` (a command on one game, which refuses a game the run did not play).

    :raises click.ClickException: the folder is damaged, or incomplete without
        ``allow_partial``.
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.verify import RunCheckError, require_complete

    try:
        for warning in require_complete(run_dir, allow_partial, checksums=checksums):
            if not quiet:
                click.echo(f"warning: {warning}", err=True)
    except RunCheckError as exc:
        raise user_error(exc) from None


def announce_compile(
    specs=(),
    parts=(),
    engine: bool = True,
    loops: bool = True,
    progress: bool = True,
    check_specs: bool = True,
) -> list[tuple[str, float]]:
    """Say on stderr, before the first compiled call, what is about to be compiled and
    about how long it takes, when it is not in the cache yet (the first run after an
    install or upgrade, or a strategy's first use): a cold compile takes a minute or
    more, and the command would otherwise sit silent. Nothing is printed when the
    cache is warm. specs: the strategy specs the command loads; parts, engine, loops:
    see :func:`hsim.strategy.notice.compile_plan` (loops=False: the command plays no games).
    check_specs: refuse an unknown strategy first (:func:`hsim.strategy.loader.precheck`);
    False for specs a run folder recorded (relative to that folder, checked on loading).
    On a terminal, and unless ``progress`` is False (``--no-progress``), the elapsed time
    then ticks on stderr (:class:`hsim.strategy.notice.CompileTicker`) until the compile
    ends: a run's first finished chunk, :func:`compile_done`, or the command's end.
    Returns the plan (:func:`hsim.strategy.notice.compile_plan`; empty when all is cached).
    """
    check_environment()  # before numba reads HSIM_CACHE_DIR
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.strategy import notice
    from hsim.strategy.loader import precheck

    for spec in specs if check_specs else ():  # said at once, not after minutes of compiling
        precheck(spec)
    plan = notice.compile_plan(specs, parts, engine, loops)
    line = notice.compile_notice(plan=plan)
    if line:
        click.echo(line, err=True)
        if progress and sys.stderr.isatty():
            notice.start_ticker(plan)
    return plan


def keep_compile_seconds(plan: list[tuple[str, float]], compiled: bool, seconds: float) -> None:
    """Keep ``seconds``, the compile time a run measured (``compiled``: some code was not
    in the cache), as the next estimate for the one thing ``plan`` (:func:`announce_compile`'s)
    named: off a terminal no ticker times it, and a strategy file's notice would say
    "time not known yet" again after every change. On a terminal it replaces the ticker's
    time, which runs on to the first chunk played. A plan of several things is not split.
    """
    if compiled and len(plan) == 1 and seconds >= 1:  # under 1 s: nothing to estimate
        # deferred: `hsim --help` and `hsim rules` load no numba (the plan loaded it here)
        from hsim.strategy import notice

        notice.record_seconds(plan[0][0], seconds)


def _compile_stopped() -> None:
    """End the compile ticker without keeping its time (the command failed or stopped)."""
    if "hsim.strategy.notice" in sys.modules:
        sys.modules["hsim.strategy.notice"].stop_ticker(done=False)


def compile_done() -> None:
    """End the compile ticker, if one runs (before a command prints its result)."""
    if "hsim.strategy.notice" in sys.modules:  # nothing to stop when it was never loaded
        sys.modules["hsim.strategy.notice"].stop_ticker()


class SeedType(click.ParamType):
    """A run seed, 0..2**64-1, checked by :func:`hsim.engine.rng.check_seed`."""

    name = "seed"

    def convert(self, value, param, ctx):
        # deferred: hsim.engine.rng loads numba, which `hsim --help` should not wait for
        from hsim.engine.rng import check_seed

        if isinstance(value, str):
            try:
                value = int(value.strip(), 10)
            except ValueError:
                self.fail(f"{value!r} is not a whole number: give a seed 0..2**64-1", param, ctx)
        try:
            return check_seed(value, "--seed")
        except ConfigError as exc:
            self.fail(str(exc), param, ctx)


#: The default run seed of every command that takes --seed.
DEFAULT_SEED = 1


def seed_option(what: str = "the deals and every strategy's random choices"):
    """The one ``--seed`` option: an int 0..2**64-1, default :data:`DEFAULT_SEED`.

    what: the help's words for what the seed fixes.
    """
    return click.option(
        "--seed",
        type=SeedType(),
        default=DEFAULT_SEED,
        show_default=True,
        help=f"Run seed, 0..2**64-1: it fixes {what}; the same seed gives the same result "
        "on any number of workers.",
    )


def default_out(kind: str, seed: int | None = None) -> Path:
    """Return a new folder name under ``results/`` for a command run without --out:
    ``<kind>-<date>-<time>[-seed<seed>]-<4 hex>``; the random tail keeps two runs started
    in the same second (with the same seed) apart, and a name already taken is skipped."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    seed_part = "" if seed is None else f"-seed{seed}"
    while True:
        path = Path("results") / f"{kind}-{stamp}{seed_part}-{secrets.token_hex(2)}"
        if not os.path.lexists(path):
            return path


class OutFolder(click.Path):
    """``--out``: a folder path; an empty one (which would mean the current directory) is
    refused."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("is empty: give the folder to write, e.g. --out results/r1", param, ctx)
        return super().convert(value, param, ctx)


def out_option(default: str):
    """The ``--out FOLDER`` option; ``default``: the help's words for the folder chosen
    when it is not given."""
    return click.option(
        "--out",
        type=OutFolder(path_type=Path),
        default=None,
        help=f"Folder to write (default: {default}).",
    )


overwrite_option = click.option(
    "--overwrite",
    is_flag=True,
    help="Replace the results an earlier run of this command wrote at --out.",
)


def resume_option(units: str):
    """``--resume`` for a command that plays several run folders into ``--out`` (``units``:
    ``rungs``, ``pairings``)."""
    return click.option(
        "--resume",
        is_flag=True,
        help=f"Continue the {units} an earlier run of this command left in --out: those "
        "complete with the same settings are read, not played again; a stopped one plays "
        "the rest; the others are played.",
    )


def folder_mode(out, resume: bool, overwrite: bool) -> str | None:
    """Return what ``--resume`` or ``--overwrite`` ask of the run folders in ``--out``
    (:data:`hsim.experiments.ladder.RESUME`, ``OVERWRITE``, or None: neither).

    :raises click.UsageError: both given, or ``--resume`` without ``--out``.
    """
    if resume and overwrite:
        raise click.UsageError("give --resume or --overwrite, not both")
    if resume and out is None:
        raise click.UsageError("--resume needs --out: the folder of the earlier run to continue")
    return "resume" if resume else "overwrite" if overwrite else None


progress_option = click.option(
    "--progress/--no-progress",
    default=True,
    show_default=True,
    help="Show progress bars on stderr.",
)


def output_options(default: str):
    """``--out``, ``--overwrite`` and ``--progress/--no-progress`` for a command that writes
    a folder; ``default``: the help's words for the folder used without --out."""

    def decorate(fn):
        return out_option(default)(overwrite_option(progress_option(fn)))

    return decorate


retries_option = click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Times a chunk is played again when its worker dies (killed, out of memory).",
)


def html_option(shows: str):
    """The ``--html FILE`` option of a command that can also write its page
    (:mod:`hsim.analysis.pages`); ``shows``: what the page holds, for the help."""
    return click.option(
        "--html",
        "html_file",
        type=click.Path(path_type=Path),
        default=None,
        metavar="FILE",
        help=f"Also write one self-contained HTML page (opens offline: {shows}) to this file "
        "(needs the html extra).",
    )


def exit_stopped(stop, unit: str, players: int, overwrite: bool = False) -> NoReturn:
    """Say on stderr that a signal stopped a ladder's rung or a gauntlet's pairing
    (``unit``; ``stop``: :class:`hsim.experiments.ladder.LadderStopped`, ``players``: seats
    a board is played in) and exit with its run's status (130 or 143). overwrite: the
    command was given ``--overwrite`` (the hint says to give ``--resume`` instead)."""
    played = stop.result.games_done // players
    click.echo(
        f"interrupted: the {unit} {stop.rung} stopped after {played:,} of {stop.boards:,} "
        f"boards (no result); the {unit}s after it were not played. "
        f"{_continue_hint(Path(stop.result.run_dir).parent, overwrite)}",
        err=True,
    )
    sys.exit(stop.result.exit_code)


def exit_between(exc: BaseException, unit: str, out, overwrite: bool = False) -> NoReturn:
    """Say on stderr that Ctrl-C or SIGTERM (``exc``: ``KeyboardInterrupt`` or
    :class:`hsim.errors.StopRequested`) stopped a ladder or gauntlet between its rungs or
    pairings (``unit``), or before one began to write, and exit 130 or 143."""
    signum = getattr(exc, "signum", signal.SIGINT)
    click.echo(
        f"interrupted before a {unit} began to write its games: the {unit}s finished are "
        "kept. "
        f"{_continue_hint(Path(out), overwrite)}",
        err=True,
    )
    sys.exit(128 + int(signum))


def _continue_hint(out: Path, overwrite: bool) -> str:
    instead = " in place of --overwrite" if overwrite else ""
    return (
        f"The same command with --out {out} and --resume{instead} continues: what was "
        "played is kept"
    )
