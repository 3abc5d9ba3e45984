"""Commands on one game or position: ``hsim replay``, ``hsim perft``, ``hsim choose``."""

from __future__ import annotations

import time
from pathlib import Path

import click
from click.core import ParameterSource

from hsim.cli.common import (
    HELP,
    allow_partial_option,
    announce_compile,
    build_position,
    build_rules,
    check_run,
    compile_done,
    load_one,
    load_specs,
    parse_scores,
    position_options,
    rule_option,
    rules_option,
    seed_option,
    user_error,
)
from hsim.model.cards import format_card


def game_options(what: str):
    """The arguments and options that name one game, as ``hsim replay`` and ``hsim view``
    take it (a run folder and --game, --seed/--game/--players, or --deal), in their help's
    order; ``what``: the help of --game."""
    decorators = [
        click.argument("run_dir", required=False, type=click.Path(path_type=Path)),
        click.option("--game", type=click.IntRange(min=0), default=None, help=what),
        seed_option("the deals and the strategies' random choices (a run folder uses its own)"),
        click.option(
            "--players",
            default=None,
            metavar="SPECS",
            help="One strategy per seat (without RUN_DIR; default random for --deal).",
        ),
        click.option(
            "--trust",
            is_flag=True,
            help="Let a run folder's strategies that are not built-in (files, modules, entry "
            "points) be imported: that runs their code.",
        ),
        rules_option,
        rule_option,
        position_options,
        allow_partial_option,
    ]

    def apply(fn):
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn

    return apply


@click.command(context_settings=HELP, short_help="Print a game trick by trick.")
@game_options("Game index to replay.")
def replay(
    run_dir,
    game,
    seed,
    players,
    trust,
    preset,
    rule_items,
    deal_text,
    deal_file,
    pass_direction,
    passes,
    plays,
    allow_partial,
):
    """Print a game trick by trick: each deal string, the passes, every trick, the scores.

    \b
    From a run folder:  hsim replay results/RUN --game 12  [--trust]
    From a seed:        hsim replay --seed 7 --game 12 --players random,lowcard,random,lowcard
    One given deal:     hsim replay --deal 2C7C.../.../.../... [--pass-direction left]
    A Kierki deal:      hsim replay --rules kierki4 --deal-file deal.txt --players kierki,...

    A run folder replays only built-in strategies unless --trust is given: its run.json
    may name any strategy file or module, and loading one runs its code.
    """
    records, specs, rules, preset, what = replayed_game(
        run_dir,
        game,
        seed,
        players,
        trust,
        preset,
        rule_items,
        (deal_text, pass_direction, passes, plays, deal_file),
        allow_partial,
        "the step-by-step game",
    )
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import replay as rp

    click.echo(rp.format_header(rules, preset, specs, what))
    for record in records:
        click.echo("\n".join(rp.format_record(record, specs)))


def replayed_game(
    run_dir,
    game,
    seed,
    players,
    trust,
    preset,
    rule_items,
    position,
    allow_partial,
    part,
    watch=None,
    more_specs=(),
):
    """Replay the game a command names (a run folder and --game, --seed/--game/--players,
    or --deal with ``position`` = (deal, pass direction, passes, plays)), as ``hsim
    replay`` and ``hsim view`` take it; say what compiles (``part``: what the command
    compiles besides the strategies, ``more_specs``: strategies it loads besides the
    players). watch: called before each decision (:func:`hsim.analysis.replay.replay_game`).

    Returns (deal records, the spec in each seat, the rules, their preset's name, what was
    replayed, e.g. ``game 3 of run seed 7``). Errors are click errors (message, exit code).
    """
    deal_text, pass_direction, passes, plays, deal_file = position
    announce_compile(
        [*_replay_specs(run_dir, players, deal_text or deal_file), *more_specs],
        [part] if isinstance(part, str) else part,
        check_specs=run_dir is None,
    )
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.analysis import replay as rp
    from hsim.strategy.contract import StrategyError

    try:
        if run_dir is not None:
            if game is None:
                raise click.UsageError("give --game G with a run folder")
            ctx = click.get_current_context()
            preset_given = ctx.get_parameter_source("preset") != ParameterSource.DEFAULT
            seed_given = ctx.get_parameter_source("seed") != ParameterSource.DEFAULT
            if players or rule_items or preset_given or deal_text or deal_file or seed_given:
                raise click.UsageError(
                    "a run folder replays with its own rules, players and seed: drop "
                    "--rules, --rule, --players, --seed and --deal (or replay --seed S "
                    "--game G without it)"
                )
            check_run(run_dir, allow_partial, quiet=True)
            manifest, rules, records, game_rows, recorded = rp.replay_run(
                run_dir, game, trust, watch
            )
            specs, what = rp.run_game_seating(manifest, rules, game)
            preset = manifest["rules"]["preset"]
            if not rp.rows_match(records, recorded):
                compile_done()
                click.echo(
                    "warning: the replay differs from the recorded rows; has a "
                    "strategy or hsim changed since the run?",
                    err=True,
                )
        elif deal_text or deal_file:
            rules, preset = build_rules(preset, rule_items)
            spec, position = build_position(
                deal_text, pass_direction, passes, plays, rules, deal_file=deal_file
            )
            specs = players or ",".join(["random"] * rules.players)
            loaded = load_specs(specs, rules)
            records = [rp.replay_deal(spec or position, rules, loaded, seed, watch)]
            specs = [p.spec for p in loaded]
            what = "given deal"
        else:
            if game is None or players is None:
                raise click.UsageError(
                    "give a run folder, or --game and --players (and --seed), or --deal (or "
                    "--deal-file)"
                )
            rules, preset = build_rules(preset, rule_items)
            loaded = load_specs(players, rules)
            records, _ = rp.replay_game(rules, loaded, seed, game, watch)
            specs = [p.spec for p in loaded]
            what = f"game {game} of run seed {seed}"
    except (rp.ReplayError, StrategyError) as exc:
        raise user_error(exc) from None
    compile_done()
    return records, specs, rules, preset, what


def _replay_specs(run_dir, players, deal_text) -> list[str]:
    """Return the strategy specs a replay will load (for the compile notice), or [] when
    they cannot be known yet (the command then reports what is wrong)."""
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.runner.manifest import read_manifest
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.specs import split_players

    try:
        if run_dir is not None:
            return [p["spec"] for p in read_manifest(run_dir)["players"]]
        if players:
            return split_players(players)
        return ["random"] if deal_text else []
    except (OSError, ValueError, KeyError, TypeError, StrategyError):
        return []


@click.command(context_settings=HELP, short_help="Count the legal play sequences from a position.")
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
def perft(preset, rule_items, deal_text, deal_file, pass_direction, passes, plays, depth, divide):
    """Count the legal play sequences of length --depth from a position.

    \b
    Examples:
      hsim perft --deal 2C3C.../.../.../... --pass-direction hold --depth 4 --divide
      hsim perft --rules kierki4_servers --deal-file deal.txt --plays '2C' --depth 3
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.play.position import IllegalPlayError

    rules, _ = build_rules(preset, rule_items)
    announce_compile(parts=["perft", "the position kernels"])
    _, position = build_position(
        deal_text, pass_direction, passes, plays, rules, deal_file=deal_file
    )
    try:
        position.perft(0)  # compile (or load) before timing
        compile_done()
        t0 = time.perf_counter()
        total, per_card = position.perft(depth, divide)
    except IllegalPlayError as exc:
        raise user_error(exc) from None
    elapsed = time.perf_counter() - t0
    for card, count in per_card.items():
        click.echo(f"{format_card(card)}: {count}")
    click.echo(f"total: {total}" if divide else str(total))
    rate = total / elapsed if elapsed > 0 else float("nan")
    click.echo(f"{total:,} sequences in {elapsed:.3f} s ({rate:,.0f} nodes/s)", err=True)


@click.command(context_settings=HELP, short_help="Print a strategy's decision at a position.")
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
@seed_option("the strategy's random stream (with --game and the seat)")
@click.option(
    "--game",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Game index of the strategy's random stream: the stream of the deciding seat in "
    "that game of run --seed.",
)
@click.option(
    "--seat",
    type=click.IntRange(min=0, max=5),
    default=None,
    help="At a pass: the seat whose 3 cards to ask (default: seat 0; passes are blind).",
)
@click.option(
    "--scores",
    "scores_text",
    default=None,
    metavar="S0,S1,S2,S3",
    help="Game scores before the deal, one per seat, seat 0 first (default all 0); New Moon "
    "asks the shooter only from 26.",
)
def choose(
    spec,
    preset,
    rule_items,
    deal_text,
    deal_file,
    pass_direction,
    passes,
    plays,
    seed,
    game,
    seat,
    scores_text,
):
    """Print a strategy's decision at a position: its 3 passed cards at a pass, its card in
    play, its New Moon choice (add, subtract or default) once a moon deal is over.

    The strategy sees only the deciding seat's observation and draws from the random
    stream of that seat in game --game of run --seed: the same seed and game give the
    same answer. The first line is the answer; stderr says whose decision it was.

    \b
    Examples:
      hsim choose --strategy lowcard --deal 2C3C.../.../.../... --plays "2C"
      hsim choose --strategy heuristic --deal ... --pass-direction left --seat 2
      hsim choose --strategy pimc --rules 'classic(moon=new_moon)' --scores 30,0,0,0 \\
        --deal ... --plays '...all 52 cards of a moon deal...'
      hsim choose --strategy kierki --rules kierki4 --deal-file deal.txt --plays '5C'
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.play.choose import decide
    from hsim.strategy.contract import StrategyError

    rules, _ = build_rules(preset, rule_items)
    scores = parse_scores(scores_text)
    _, position = build_position(deal_text, pass_direction, passes, plays, rules, scores, deal_file)
    if seat is not None and position.phase != "pass":
        raise click.UsageError(
            f"--seat picks a passer; the position is in its {position.phase} phase"
        )
    # one decision, reached step by step: no game loop is played
    announce_compile([spec], ["the position kernels"], loops=False)
    (strategy,) = load_one(spec, rules)
    try:
        decision = decide(strategy, position, seed, game, seat)
    except (ValueError, StrategyError) as exc:
        raise user_error(exc) from None
    compile_done()
    click.echo(str(decision))
    click.echo(f"{decision.kind} of seat {decision.seat}", err=True)
