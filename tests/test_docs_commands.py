"""The commands users copy run as written: the README's fenced shell and Python blocks,
the example bots' own instructions; and every install line names this project."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner

from hsim.cli import main

ROOT = Path(__file__).resolve().parent.parent
#: Sizes scaled down so that every command runs in seconds; the command is otherwise run
#: exactly as the page shows it.
SMALL = {"--games": 24, "--boards": 6, "--max-boards": 24}


def shell_commands(text: str) -> list[str]:
    """Return the ``hsim ...`` commands of ``text``'s shell lines (``\\`` continuations
    joined, ``$ `` prompts and comments dropped)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip().removeprefix("$ ")
        if line.startswith("hsim "):
            out.append(line.split(" #")[0].strip())
    return out


def fenced(text: str, language: str) -> list[str]:
    """Return the bodies of ``text``'s fenced blocks of ``language``."""
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def scaled(command: str) -> list[str]:
    args = shlex.split(command)[1:]
    for i, arg in enumerate(args[:-1]):
        if arg in SMALL:
            args[i + 1] = str(min(int(args[i + 1].replace(",", "")), SMALL[arg]))
    return args


def run_commands(commands: list[str], cwd: Path) -> None:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for command in commands:
            args = scaled(command)
            if args and args[0] in ("tournament", "sprt", "ladder", "compare-rules"):
                args.append("--no-progress")
            result = CliRunner().invoke(main, args, catch_exceptions=False)
            allowed = (0, 1, 3) if args[0] == "sprt" else (0,)  # a verdict either way
            assert result.exit_code in allowed, f"{command}\n{result.output}"
    finally:
        os.chdir(old)


def _link_examples(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)


@pytest.mark.parametrize("name", ["plain_bot.py", "compiled_bot.py"])
def test_an_example_bot_runs_as_its_docstring_says(tmp_path, name):
    text = (ROOT / "examples" / name).read_text()
    commands = shell_commands(text.split('"""')[1])
    assert commands, f"examples/{name} shows no command"
    _link_examples(tmp_path)
    run_commands(commands, tmp_path)
    assert any((tmp_path / "results").iterdir())


def test_the_readme_commands_run_as_written(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = fenced(text, "sh")
    commands = [c for b in blocks for c in shell_commands(b)]
    assert len(commands) >= 5, "the README's Quick start and recipes show hsim commands"
    _link_examples(tmp_path)
    run_commands(commands, tmp_path)
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        for code in fenced(text, "python"):
            exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own lines
    finally:
        os.chdir(old)


def install_lines() -> list[tuple[str, str]]:
    """Return (where, line) for every ``pip install`` in the docs, the help and the code."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "hsim").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    files += sorted((ROOT / "scripts").glob("*.py"))
    found = []
    for path in files:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for m in re.finditer(r"pip install ([^`\"\n]*)", line):
                found.append((f"{path.relative_to(ROOT)}:{n}", m.group(1)))
    return found


def install_problem(target: str, extras: set[str]) -> str | None:
    """Return what is wrong with the words after ``pip install``, or None: they must
    install this project, from a checkout (``.``, ``-e .``) or by its name."""
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    words = [w for w in shlex.split(target.split(" (")[0].split(" in ")[0]) if w != "-e"]
    words = [w for w in words if not w.startswith("--")]
    if not words or words[0] == "-r":  # prose ("a fresh `pip install`"), a requirements file
        return None
    target = re.sub(r"(?<=\])[.,;:]+$", "", words[0])  # a sentence's full stop
    if re.fullmatch(r"\.\[\{\w+\}\]", target):  # a message template: .[{extra}]
        return None
    m = re.fullmatch(rf"(\.|{re.escape(name)})(?:\[([a-z,]+)\])?", target)
    if m is None:
        return f"{target!r} is not this project ({name!r} or the checkout '.')"
    unknown = set((m.group(2) or "").split(",")) - extras - {""}
    return f"no extra {sorted(unknown)}" if unknown else None


def test_every_install_line_names_this_project():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"])
    lines = install_lines()
    assert len(lines) >= 5
    problems = [(where, t, install_problem(t, extras)) for where, t in lines]
    assert [p for p in problems if p[2]] == []


@pytest.mark.parametrize(
    ("target", "ok"),
    [
        ("'hsim[cluster]'", False),
        ("open_spiel", False),
        ("-e '.[cluster]' in hsim's checkout", True),
        ("-e '.[test]' && python -m pytest", True),
        ("'hsim-hearts[plot]'", True),
        ("-e '.[nosuch]'", False),
        ("-r requirements.txt", True),
    ],
)
def test_the_install_check_tells_this_project_from_another(target, ok):
    assert (install_problem(target, {"cluster", "test", "plot"}) is None) is ok


def test_the_compiled_example_of_the_strategy_page_plays(tmp_path):
    text = (ROOT / "docs" / "strategies.md").read_text()
    block = next(b for b in fenced(text, "python") if "CompiledStrategy(" in b)
    assert "..." not in block  # real bodies, nothing left out
    (tmp_path / "mybot.py").write_text(block)
    command = "hsim tournament --players mybot.py:STRATEGY,duck,duck,duck --games 2000"
    assert command in text
    run_commands([command], tmp_path)  # scaled down to 24 games
