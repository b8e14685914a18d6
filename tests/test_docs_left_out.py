"""What the user journeys leave out of the documentation pages still parses.

``tests/test_journeys.py`` runs every page's code blocks and commands from the installed wheel, except a long run
(``LONG`` in ``tests/doc_commands.py``: the page's small variant runs instead) and what cannot run unattended
(``NOT_RUN``). This module checks those left-out lines without running them: each ``seasons``,
``python -m seasons_training`` and ``python -m seasons_training.train_*`` command is parsed by the command line
itself (every option checked against its type and choices, nothing run), so a renamed or mistyped option fails
here (a file a command reads, such as a record or a data set, is made empty first: the options are checked, not the
files); and each ``python`` block titled ``(not run...)`` is compiled. A tutorial page has at least one ``python``
block.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click
import pytest
from doc_commands import PAGES, page_blocks, plan, shell_lines

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
#: The ``python -m`` modules whose command lines are parsed, by the name of the parser that reads them.
MODULES = {
    "seasons_training": "training",
    "seasons_training.train_rllib": "train_rllib",
    "seasons_training.train_maskable_ppo": "train_maskable_ppo",
}

#: The suffixes of the files the commands read (records, data sets, models).
FILES = (".json", ".npz", ".pt")


def left_out(page: str) -> list[tuple[str, list[str]]]:
    """The project's commands among the page's lines that the journeys do not run, as (the program, its
    arguments); a line of several commands joined by ``&&`` gives each."""
    found = []
    for language, _, code in page_blocks(ROOT / page):
        if language not in ("bash", "sh", "shell"):
            continue
        for line in shell_lines(code):
            if plan(page, line) is None:
                continue
            for part in line.split("&&"):
                words = shlex.split(part)
                if words[:1] == ["seasons"]:
                    found.append(("seasons", words[1:]))
                elif words[:2] == ["python", "-m"] and len(words) > 2 and words[2] in MODULES:
                    found.append((MODULES[words[2]], words[3:]))
    return found


def parse(group: click.Group, args: list[str]) -> None:
    """Parse a command line as ``group`` would run it, down to the subcommand, without invoking anything."""
    context = click.Context(group, info_name=group.name)
    assert args, "a command line without a command"
    command = group.get_command(context, args[0])
    assert command is not None, f"no command {args[0]!r} in {group.name}"
    with command.make_context(args[0], list(args[1:]), parent=context):
        pass


def test_the_pages_leave_out_commands_of_every_program() -> None:
    """The parse test below sees the long runs of each program (a pattern that stopped matching would empty it)."""
    programs = {program for page in PAGES for program, _ in left_out(page)}
    assert {"seasons", "training", "train_rllib", "train_maskable_ppo"} <= programs, programs


@pytest.mark.parametrize("page", PAGES)
def test_what_the_journeys_leave_out_parses(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for language, options, code in page_blocks(ROOT / page):
        if language == "python" and "(not run" in options:
            compile(code, f"{page} block {options.strip()}", "exec")
    monkeypatch.chdir(tmp_path)
    for program, args in left_out(page):
        for word in args:
            if Path(word).suffix in FILES and not word.startswith("-") and not Path(word).is_absolute():
                (tmp_path / word).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / word).touch()
        if program == "seasons":
            from seasons_env.cli import main as seasons

            parse(seasons, args)
        elif program == "training":
            from seasons_training.cli import main as training

            parse(training, args)
        elif program == "train_rllib":
            pytest.importorskip("ray", reason="the rllib extra is not installed")
            from seasons_training.train_rllib import parse_args

            parse_args(args)  # argparse exits with status 2 on an unknown option or a bad value
        else:
            from seasons_training.train_maskable_ppo import argument_parser

            argument_parser().parse_args(args)


@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_a_tutorial_has_python(page: Path) -> None:
    assert any(language == "python" for language, _, _ in page_blocks(page)), f"{page.name} has no python block"
