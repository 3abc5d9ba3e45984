"""``hsim rules``: the presets and options, or one rule set in full."""

from __future__ import annotations

import click

from hsim.cli.common import HELP, user_error
from hsim.model.rules import (
    HEARTS_OPTIONS,
    KIERKI_OPTIONS,
    PRESET_MEANINGS,
    PRESETS,
    RulesError,
    canonical,
    describe_options,
    ineffective_options,
    parse_rules,
)


@click.command("rules", context_settings=HELP, short_help="List the rule presets and options.")
@click.argument("rules_string", required=False)
def rules_command(rules_string):
    """List the presets and every rule option, or show one rules string in full.

    \b
    Examples:
      hsim rules
      hsim rules 'classic(omnibus=true,end_score=50)'
    """
    if rules_string is not None:
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
    click.echo("\nOptions (--rule NAME=VALUE; see docs/rules.md parts A (Hearts) and B (Kierki)):")
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
