"""Pieces shared by the click commands: rules and players options, clear user errors."""

from __future__ import annotations

import dataclasses

import click

from hsim.rules import Rules, RulesError, ineffective_options, parse_assignments, parse_rules


def user_error(exc: Exception) -> click.ClickException:
    """Return the click error that prints ``exc``'s message (no traceback, exit 1)."""
    return click.ClickException(str(exc))


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
    from hsim.loader import split_players
    from hsim.strategy import StrategyError

    try:
        if players and player_list:
            raise StrategyError("give either --players or --player, not both")
        if not players and not player_list:
            raise StrategyError(
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
