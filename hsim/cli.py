"""The ``hsim`` command line: thin click commands that parse, call and print."""

from __future__ import annotations

import secrets
import sys
import time
from datetime import datetime
from pathlib import Path

import click
from click.core import ParameterSource

from hsim.cards import CardParseError
from hsim.cli_common import (
    build_rules,
    player_option,
    player_specs,
    players_option,
    rule_option,
    rules_option,
    user_error,
    workers_option,
)
from hsim.rules import (
    HEARTS_OPTIONS,
    KIERKI_OPTIONS,
    PRESET_MEANINGS,
    PRESETS,
    RulesError,
    canonical,
    describe_options,
    ineffective_options,
    parse_rules,
    scoring_variant,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hsim")
def main() -> None:
    """hsim: simulate Hearts games and tournaments at compiled speed."""


@main.command()
@players_option
@player_option
@click.option("--games", type=click.IntRange(min=1), required=True, help="Number of games.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Run seed (default: drawn at random and printed).",
)
@rules_option
@rule_option
@workers_option
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=None,
    help="Games per chunk (a Parquet part each); results do not depend on it.",
)
@click.option(
    "--first-game",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Index of the first game (to split one seeded run across machines).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Run folder (default: results/run-<time>-seed<seed>).",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing run folder at --out.")
@click.option(
    "--score-also",
    "score_also",
    multiple=True,
    metavar="NAME=VALUE[,...]",
    help="Also score every game under these scoring options (one scoring per flag; "
    "repeatable); deals go on until every scoring's game has ended.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every game once per rotation of the players over the seats, with "
    "the same deals, so card luck cancels (--games counts boards).",
)
@click.option(
    "--progress/--no-progress", default=True, show_default=True, help="Show the progress bar."
)
def tournament(
    players,
    player_list,
    games,
    seed,
    preset,
    rule_items,
    workers,
    chunk_size,
    first_game,
    out,
    overwrite,
    score_also,
    duplicate,
    progress,
):
    """Play seeded games and write per-deal and per-game Parquet datasets.

    \b
    Example:
      hsim tournament --players random,lowcard,random,lowcard --games 100000 --seed 7
    """
    started = time.perf_counter()
    rules, preset = build_rules(preset, rule_items)
    try:
        scorings = tuple(scoring_variant(rules, text) for text in score_also)
    except RulesError as exc:
        raise user_error(exc) from None
    specs = player_specs(players, player_list)
    if seed is None:
        seed = secrets.randbelow(2**63)  # printed with the result, and in run.json
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("results") / f"run-{stamp}-seed{seed}"

    from hsim.runner.run import RunConfig, RunError, default_workers, run_tournament
    from hsim.strategy import StrategyError

    config = RunConfig(
        rules=rules,
        players=specs,
        games=games,
        seed=seed,
        first_game=first_game,
        rules_preset=preset,
        chunk_size=chunk_size,
        duplicate=duplicate,
        score_also=scorings,
    )
    try:
        result = run_tournament(
            config,
            out,
            workers or default_workers(games * config.rotations),
            overwrite,
            progress,
            argv=["hsim", *sys.argv[1:]],
            started=started,
        )
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    _print_result(result, duplicate, rules.is_kierki)
    if result.status == "interrupted":
        click.echo(
            f"interrupted: {result.games_done} of {games * config.rotations} games were "
            "written; the run "
            f"folder {result.run_dir} is readable and run.json says so",
            err=True,
        )
        sys.exit(130)


def _print_result(result, duplicate: bool, kierki: bool = False) -> None:
    how = "compiled (cold: not in the cache) in" if result.compiled else "loaded compiled code in"
    rate = result.games_done / result.elapsed_s if result.elapsed_s > 0 else float("nan")
    click.echo(
        f"{how} {result.compile_s:.1f} s; played {result.games_done:,} games in "
        f"{result.elapsed_s:.1f} s ({rate:,.0f} games/s)"
    )
    click.echo(f"run folder: {result.run_dir}  (seed {result.seed})")
    who = "player" if duplicate else "seat"  # in duplicate play a player sits everywhere
    w = max([8] + [len(row["strategy"]) for row in result.summary])
    moons = "" if kierki else f" {'moons':>7}"  # Kierki: points are signed, no moon
    click.echo(
        f"{who:>6}  {'strategy':<{w}}  {'points/deal':>11} {'win rate':>8} "
        f"{'mean place':>10}{moons}"
    )
    for row in result.summary:
        moons = "" if kierki else f" {row['moons']:>7,}"
        click.echo(
            f"{row['seat']:>6}  {row['strategy']:<{w}}  {row['mean_points_per_deal']:>11.3f} "
            f"{row['win_rate']:>8.3f} {row['mean_place']:>10.3f}{moons}"
        )


def position_options(fn):
    """Add the position flags (--deal, --pass-direction, --passes, --plays) to a command."""
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
    fn = click.option(
        "--deal",
        "deal_text",
        default=None,
        metavar="DEAL",
        help="The hands as dealt, seat 0 first, '/'-separated: 2C7C.../3C.../...",
    )(fn)
    return fn


def build_position(deal_text, pass_direction, passes, plays, rules):
    """Return (spec, Position) from the position flags; clear errors for bad input."""
    from hsim.notation import PositionSpec
    from hsim.position import IllegalPlayError

    if rules.is_kierki:
        raise click.UsageError(
            "positions (--deal, perft, choose) are Hearts deals; Kierki positions are not "
            "supported: replay a Kierki game with `hsim replay --rules kierki4 --seed S "
            "--game G --players ...` instead"
        )
    if not deal_text:
        raise click.UsageError("give the position with --deal (and --passes / --plays)")
    try:
        spec = PositionSpec.parse(deal_text, pass_direction, passes, plays)
        return spec, spec.position(rules)
    except (CardParseError, IllegalPlayError) as exc:
        raise user_error(exc) from None


def _board_of(manifest: dict, game: int, rules) -> str:
    """Return `` (board B, rotation R)`` for a game of a duplicate run, else ``""``."""
    if not manifest.get("duplicate"):
        return ""
    board, rotation = divmod(game, rules.players)
    return f" (board {board}, rotation {rotation})"


def _load(specs, rules=None):
    from hsim.loader import load_players, split_players
    from hsim.strategy import StrategyError

    try:
        return load_players(split_players(specs), rules)
    except StrategyError as exc:
        raise user_error(exc) from None


def _load_one(spec, rules):
    from hsim.loader import check_game, load
    from hsim.strategy import StrategyError

    try:
        loaded = load(spec)
        check_game(loaded, rules.game)
        return (loaded,)
    except StrategyError as exc:
        raise user_error(exc) from None


@main.command()
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@click.option("--game", type=click.IntRange(min=0), default=None, help="Game index to replay.")
@click.option(
    "--seed", type=click.IntRange(min=0), default=None, help="Run seed (without RUN_DIR)."
)
@click.option(
    "--players",
    default=None,
    metavar="SPECS",
    help="One strategy per seat (without RUN_DIR; default random for --deal).",
)
@rules_option
@rule_option
@position_options
def replay(
    run_dir, game, seed, players, preset, rule_items, deal_text, pass_direction, passes, plays
):
    """Print a game trick by trick: each deal string, the passes, every trick, the scores.

    \b
    From a run folder:  hsim replay results/RUN --game 12
    From a seed:        hsim replay --seed 7 --game 12 --players random,lowcard,random,lowcard
    One given deal:     hsim replay --deal 2C7C.../.../.../... [--pass-direction left]
    """
    from hsim import replay as rp
    from hsim.strategy import StrategyError

    try:
        if run_dir is not None:
            if game is None:
                raise click.UsageError("give --game G with a run folder")
            ctx = click.get_current_context()
            preset_given = ctx.get_parameter_source("preset") != ParameterSource.DEFAULT
            if players or rule_items or preset_given or deal_text:
                raise click.UsageError(
                    "a run folder replays with its own rules and players: drop --rules, "
                    "--rule, --players and --deal (or replay --seed S --game G without it)"
                )
            manifest, rules, records, game_rows, recorded = rp.replay_run(run_dir, game)
            specs = [p["spec"] for p in manifest["players"]]
            if manifest.get("duplicate"):
                from hsim.runner.run import rotate

                specs = rotate(specs, game % rules.players)
            header = rp.format_header(
                rules,
                manifest["rules"]["preset"],
                specs,
                f"game {game}{_board_of(manifest, game, rules)} of run seed {manifest['seed']}",
            )
            if not rp.rows_match(records, recorded):
                click.echo(
                    "warning: the replay differs from the recorded rows; has a "
                    "strategy or hsim changed since the run?",
                    err=True,
                )
        elif deal_text:
            rules, preset = build_rules(preset, rule_items)
            spec, _ = build_position(deal_text, pass_direction, passes, plays, rules)
            specs = players or "random,random,random,random"
            loaded = _load(specs)
            records = [rp.replay_deal(spec, rules, loaded, seed or 0)]
            specs = [p.spec for p in loaded]
            header = rp.format_header(rules, preset, specs, "given deal")
        else:
            if seed is None or game is None or players is None:
                raise click.UsageError(
                    "give a run folder, or --seed, --game and --players, or --deal"
                )
            rules, preset = build_rules(preset, rule_items)
            loaded = _load(players, rules)
            records, _ = rp.replay_game(rules, loaded, seed, game)
            specs = [p.spec for p in loaded]
            header = rp.format_header(rules, preset, specs, f"game {game} of run seed {seed}")
    except (rp.ReplayError, StrategyError) as exc:
        raise user_error(exc) from None
    click.echo(header)
    for record in records:
        click.echo("\n".join(rp.format_record(record, specs)))


@main.command()
@rules_option
@rule_option
@position_options
@click.option(
    "--depth",
    type=click.IntRange(min=0, max=52),
    required=True,
    help="Length of the play sequences to count.",
)
@click.option("--divide", is_flag=True, help="Print the count under each legal next card.")
def perft(preset, rule_items, deal_text, pass_direction, passes, plays, depth, divide):
    """Count the legal play sequences of length --depth from a position.

    \b
    Example:
      hsim perft --deal 2C3C.../.../.../... --pass-direction hold --depth 4 --divide
    """
    import numpy as np

    from hsim.cards import format_card
    from hsim.engine import perft as pf

    rules, _ = build_rules(preset, rule_items)
    _, position = build_position(deal_text, pass_direction, passes, plays, rules)
    if position.phase != "play":
        raise click.ClickException(
            f"the position is in its {position.phase} phase; perft counts plays "
            "(give --passes for a deal with a pass)"
        )
    st = position.state
    pf.perft(st.public, st.private, position.rules_array, 0)  # compile (or load) first
    t0 = time.perf_counter()
    if divide and depth > 0:
        out = np.zeros(52, np.int64)
        total = int(pf.divide(st.public, st.private, position.rules_array, depth, out))
        for card in range(52):
            if position.legal() >> card & 1:
                click.echo(f"{format_card(card)}: {int(out[card])}")
    else:
        total = int(pf.perft(st.public, st.private, position.rules_array, depth))
    elapsed = time.perf_counter() - t0
    click.echo(f"total: {total}" if divide else str(total))
    rate = total / elapsed if elapsed > 0 else float("nan")
    click.echo(f"{total:,} sequences in {elapsed:.3f} s ({rate:,.0f} nodes/s)", err=True)


@main.command()
@click.option(
    "--strategy",
    "spec",
    required=True,
    metavar="SPEC",
    help="The strategy to ask, e.g. heuristic or 'pimc(worlds=20)'.",
)
@rules_option
@rule_option
@position_options
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Run seed of the strategy's random stream (game 0, the seat to act).",
)
def choose(spec, preset, rule_items, deal_text, pass_direction, passes, plays, seed):
    """Print the card a strategy plays at a position.

    \b
    Example:
      hsim choose --strategy lowcard --deal 2C3C.../.../.../... --plays "2C"
    """
    from hsim.cards import format_card, format_mask
    from hsim.choose import choose as ask
    from hsim.strategy import StrategyError

    rules, _ = build_rules(preset, rule_items)
    _, position = build_position(deal_text, pass_direction, passes, plays, rules)
    (strategy,) = _load_one(spec, rules)
    try:
        card = ask(strategy, position, seed)
    except (ValueError, StrategyError) as exc:
        raise user_error(exc) from None
    legal = position.legal()
    if not (0 <= card < 52 and legal >> card & 1):
        shown = format_card(card) if 0 <= card < 52 else str(card)
        raise click.ClickException(
            f"strategy {spec!r} chose {shown}, which is not legal here "
            f"(legal: {format_mask(legal)})"
        )
    click.echo(format_card(card))


@main.command()
@click.option(
    "--bots",
    default=None,
    metavar="SPECS",
    help="The ladder, weakest first; each bot plays copies of the one before.  [default: "
    "random,lowcard,duck,heuristic,pimc; Kierki: random,kierki]",
)
@click.option(
    "--boards",
    type=click.IntRange(min=2),
    default=1000,
    show_default=True,
    help="Duplicate boards per rung (each played in one rotation per seat).",
)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@rules_option
@rule_option
@workers_option
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for the rungs' run folders (default: results/ladder-<time>).",
)
@click.option("--check", is_flag=True, help="Exit with status 1 unless every rung holds (for CI).")
@click.option("--progress/--no-progress", default=True, show_default=True)
def ladder(bots, boards, seed, preset, rule_items, workers, out, check, progress):
    """Measure the bot ladder on duplicate deals, with 95% intervals.

    \b
    Each rung plays UPPER against copies of LOWER (three; two in 3-player Kierki) on
    --boards duplicate boards and prints UPPER's advantage in mean score per deal
    (deal_score) with its 95% interval over boards: LOWER's minus UPPER's in Hearts,
    where lower is better (after moon and bonuses), UPPER's minus LOWER's in Kierki,
    where higher is better. Positive: UPPER is stronger. A rung holds when the interval
    is above zero.
    \b
    Example:
      hsim ladder --boards 2000 --seed 1
    """
    from hsim.ladder import default_bots, run_ladder
    from hsim.loader import split_players
    from hsim.runner.run import RunError, default_workers
    from hsim.strategy import StrategyError

    rules, _ = build_rules(preset, rule_items)
    if bots is None:
        bots = ",".join(default_bots(rules))
    try:
        specs = split_players(bots)
    except StrategyError as exc:
        raise user_error(exc) from None
    if len(specs) < 2:
        raise click.UsageError("a ladder needs at least two bots")
    from hsim.loader import load_players

    try:  # every bot must load and play the rules' game before any rung is played
        for spec in specs:
            load_players([spec] * rules.players, rules)
    except StrategyError as exc:
        raise user_error(exc) from None
    if out is None:
        out = Path("results") / f"ladder-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    click.echo(f"{'rung':<40} {'boards':>6} {'deals':>9}  {'advantage, 95% CI':<22} holds")
    all_hold = True
    try:
        for rung in run_ladder(
            specs,
            boards,
            seed,
            workers or default_workers(rules.players * boards),
            out,
            rules,
            progress,
        ):
            ci = rung.advantage
            all_hold &= rung.holds
            label = f"{rung.upper} over {rules.players - 1} x {rung.lower}"
            click.echo(
                f"{label:<40} {ci.n:>6} {rung.deals:>9,}  "
                f"{ci.estimate:+.3f} [{ci.low:+.3f}, {ci.high:+.3f}]  "
                f"{'yes' if rung.holds else 'NO'}"
            )
    except (RunError, StrategyError) as exc:
        raise user_error(exc) from None
    what = (
        "score per deal: the deal's Kierki points, higher is better"
        if rules.is_kierki
        else "score per deal, after moon and bonuses"
    )
    click.echo(f"({what}; run folders under {out}; seed {seed})")
    if check and not all_hold:
        raise click.ClickException("the ladder does not hold")


@main.command("rules")
@click.argument("rules_string", required=False)
def rules_command(rules_string):
    """List the presets and every rule option, or show one rules string in full.

    \b
    Examples:
      hsim rules
      hsim rules 'classic(omnibus=true,end_score=50)'
    """
    if rules_string:
        try:
            rules = parse_rules(rules_string)
        except RulesError as exc:
            raise user_error(exc) from None
        click.echo(canonical(rules, rules_string.partition("(")[0].strip()))
        other = KIERKI_OPTIONS if not rules.is_kierki else HEARTS_OPTIONS
        for name, value in rules.to_dict().items():
            unused = f"  (no effect in {rules.game.capitalize()})" if name in other else ""
            if name == "trump_trick_value" and rules.is_kierki and not value:
                unused = f"  ({rules.trump_points} per trick for {rules.players} players)"
            click.echo(f"  {name} = {value}{unused}")
        for note in ineffective_options(rules):
            click.echo(f"warning: {note}", err=True)
        return
    click.echo("Presets (--rules PRESET):")
    for name in PRESETS:
        click.echo(f"  {name:<10} {PRESET_MEANINGS[name]}  [{canonical(PRESETS[name], 'classic')}]")
    click.echo("\nOptions (--rule NAME=VALUE; see RULES.md parts A, Hearts, and B, Kierki):")
    rows = describe_options()
    w = max(len(r["name"]) for r in rows)
    wd = max(len(r["default"]) for r in rows)
    wa = max(len(r["allowed"]) for r in rows)
    click.echo(f"  {'name':<{w}}  {'default':<{wd}}  {'allowed':<{wa}}  meaning")
    for r in rows:
        click.echo(
            f"  {r['name']:<{w}}  {r['default']:<{wd}}  {r['allowed']:<{wa}}  "
            f"{r['meaning']} ({r['section']})"
        )


@main.command()
def strategies():
    """List the strategies --players accepts, with their parameters."""
    from hsim.loader import describe_available

    rows = describe_available()
    w = max(len(r["name"]) for r in rows)
    for r in rows:
        games = f" [{', '.join(r['games'])}]" if r.get("games") else ""
        click.echo(f"{r['name']:<{w}}  {r['source']}{games}: {r['description']}")
        for name, default, meaning in r["params"] or []:
            click.echo(f"{'':<{w}}    {name}={default}  {meaning}")
    click.echo(
        "\nAlso accepted: an installed entry point of the group 'hsim.strategies', "
        "package.module:attr, or path/to/file.py:attr; parameters as NAME(key=value,...)."
    )


def _register_analysis() -> None:
    from hsim.analysis.commands import compare_rules, report

    main.add_command(compare_rules)
    main.add_command(report)


_register_analysis()

if __name__ == "__main__":  # pragma: no cover
    main()
