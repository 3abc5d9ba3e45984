"""``hsim atlas``: what rule variants do to games, per bot level, on paired seeds."""

from __future__ import annotations

import json
import sys

import click

from hsim.cli.common import (
    HELP,
    UserError,
    announce_compile,
    build_rules,
    cluster_from_options,
    cluster_option,
    default_out,
    out_option,
    overwrite_option,
    progress_option,
    rule_option,
    rules_option,
    seed_option,
    user_error,
    workers_option,
)
from hsim.errors import EXIT_USAGE
from hsim.model.rules import RulesError


@click.command(context_settings=HELP, short_help="What rule variants do to games, per bot.")
@rules_option
@rule_option
@click.option(
    "--variant",
    "variant_items",
    multiple=True,
    required=True,
    metavar="NAME=VALUE[,...]|all",
    help="A rule set to measure against the base (repeatable), as in compare-rules; 'all': "
    "every other value of every option of the game that has an effect on the base.",
)
@click.option(
    "--bots",
    default=None,
    metavar="SPECS",
    help="The bot levels, each playing every seat (default random,duck,heuristic; "
    "Kierki random,kierki).",
)
@click.option(
    "--deals",
    type=click.IntRange(min=2, max=10**12),
    default=None,
    help="About this many deals per rule set and bot (games: DEALS over the base's mean "
    "game length in a 200-game pilot).  [default: 100000]",
)
@click.option(
    "--games",
    type=click.IntRange(min=20, max=10**12),
    default=None,
    help="Games per rule set and bot (at least 20), instead of --deals.",
)
@seed_option("the deals, the same under every rule set")
@workers_option
@cluster_option
@out_option("results/atlas-<time>-seed<seed>-<random>")
@overwrite_option
@click.option("--json", "as_json", is_flag=True, help="Print the atlas as JSON.")
@progress_option
def atlas(
    preset,
    rule_items,
    variant_items,
    bots,
    deals,
    games,
    seed,
    workers,
    cluster_address,
    out,
    overwrite,
    as_json,
    progress,
):
    """Measure what rule variants do to games: for each bot level (a copy of it in every
    seat) and each rule set, the same seeded games under the base rules and each
    variant. Per bot and rule set, with 95% intervals: moons per deal, deals per game,
    the winning score, the spread of final scores (highest minus lowest: how close the
    games are), and the share of games whose winner changes against the base; also in
    atlas.json, the score per deal by seat and the moons by pass direction.

    \b
    Every rule set and bot is an ordinary run folder under --out; running the same
    command again after an interruption resumes the atlas where it stopped. --out also
    gets atlas.json, atlas.parquet (one row per figure) and atlas.md (the tables).
    \b
    Examples:
      hsim atlas --variant omnibus=true --variant moon=new_moon --deals 200000
      hsim atlas --variant all --bots random,duck --deals 1000000 --out results/atlas
    """
    # deferred: `hsim --help` and `hsim rules` load no numba, scipy or pyarrow
    from hsim.experiments import atlas as at
    from hsim.experiments.compare_rules import parse_variant
    from hsim.runner.config import default_workers
    from hsim.strategy.contract import StrategyError
    from hsim.strategy.specs import split_players

    if deals is not None and games is not None:
        raise click.UsageError("give --deals or --games, not both")
    base, preset_name = build_rules(preset, rule_items)
    texts = []
    for text in variant_items:
        texts += at.option_variants(base) if text.strip() == "all" else [text]
    try:
        variants = [parse_variant(text, base, preset_name) for text in texts]
    except RulesError as exc:
        raise user_error(exc) from None
    seen: dict = {}
    for v in variants:
        if v.rules in seen:
            raise UserError(
                f"--variant {v.text!r} is the same rule set as --variant {seen[v.rules]!r}",
                EXIT_USAGE,
            )
        seen[v.rules] = v.text
    default = ("random", "kierki") if base.is_kierki else at.DEFAULT_BOTS
    try:
        bot_specs = tuple(split_players(bots)) if bots is not None else default
    except StrategyError as exc:
        raise click.BadParameter(str(exc), param_hint="--bots") from None
    announce_compile(bot_specs)
    echo = None if as_json else (lambda line: click.echo(line, err=True))
    try:
        if games is None:
            wanted = deals or 100_000
            if echo is not None:
                echo(f"sizing the games: {at.PILOT_GAMES} games of each bot under the base")
            sized = [at.games_for_deals(base, bot, wanted, seed) for bot in bot_specs]
            games, length = max(sized)
            if echo is not None:
                echo(f"{games:,} games per rule set and bot: about {round(games * length):,} "
                     "deals under the base")  # fmt: skip
        config = at.AtlasConfig(base, tuple(variants), bot_specs, games, seed, preset_name)
        config.validate(workers or 1)
    except StrategyError as exc:
        raise click.BadParameter(str(exc), param_hint="--bots") from None
    if out is None:
        out = default_out("atlas", seed)
    argv = ["hsim", *sys.argv[1:]]
    try:
        with cluster_from_options(cluster_address, workers, default_workers(games)) as cluster:
            result = at.run_atlas(
                config, out, workers or default_workers(games), overwrite, progress, echo,
                cluster, argv,
            )  # fmt: skip
    except at.AtlasStopped as exc:  # a stop, not an error: said as the other commands say it
        click.echo(str(exc), err=True)
        sys.exit(exc.exit_code)
    if as_json:
        click.echo(json.dumps(result, indent=1))
    else:
        click.echo("\n".join(at.format_markdown(result)))
        click.echo(f"\n(atlas.json, atlas.parquet and atlas.md in {out})")
