"""The tutorials of the documentation site run as written.

Each tutorial page's ``python`` code blocks are run top to bottom as one script, in a fresh interpreter in an
empty folder, with this checkout first on the path: a block that raises or an ``assert`` that fails fails the test.
Each ``bash`` block's ``seasons ...``, ``python -m seasons_training ...`` and
``python -m seasons_training.train_rllib ...`` lines are parsed by the command line itself
(every option checked against its type and choices, nothing run), so a renamed or mistyped option fails here. A
page may mark a block that cannot run here (it needs a cluster) with the fence ``python title="..."`` and the word
``(not run)`` in its title: such a block is compiled, not run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from installed import installed_environment

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)


def blocks(page: Path, language: str) -> list[tuple[str, str]]:
    """The page's code blocks of one language, as (the fence's options, the code)."""
    text = page.read_text(encoding="utf-8")
    return [(options, code) for lang, options, code in FENCE.findall(text) if lang == language]


def command_lines(page: Path) -> list[tuple[str, list[str]]]:
    """The ``seasons``, ``python -m seasons_training`` and ``python -m seasons_training.train_rllib`` commands of the
    page's bash blocks (continuation lines joined), as (the program, its arguments)."""
    found = []
    for _, code in blocks(page, "bash"):
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            words = shlex.split(line) if line else []
            if words[:1] == ["seasons"]:
                found.append(("seasons", words[1:]))
            elif words[:3] == ["python", "-m", "seasons_training"]:
                found.append(("training", words[3:]))
            elif words[:3] == ["python", "-m", "seasons_training.train_rllib"]:
                found.append(("train_rllib", words[3:]))
    return found


def parse(group: click.Group, args: list[str]) -> None:
    """Parse a command line as ``group`` would run it, down to the subcommand, without invoking anything."""
    context = click.Context(group, info_name=group.name)
    assert args, "a command line without a command"
    command = group.get_command(context, args[0])
    assert command is not None, f"no command {args[0]!r} in {group.name}"
    with command.make_context(args[0], list(args[1:]), parent=context):
        pass


@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs_and_its_commands_parse(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's code runs in an empty folder; then its commands are parsed there (a command that names a file the
    page made, such as ``seasons replay game.json``, finds it)."""
    code = blocks(page, "python")
    assert code, f"{page.name} has no python block"
    for options, body in code:
        compile(body, f"{page.name} block {options.strip() or '(untitled)'}", "exec")
    runnable = [body for options, body in code if "(not run)" not in options]
    if runnable:
        script = tmp_path / f"{page.stem}.py"
        script.write_text("\n\n".join(runnable), encoding="utf-8")
        env = installed_environment({"MPLBACKEND": "Agg", "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        result = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert result.returncode == 0, f"{page.name}:\n{result.stdout}\n{result.stderr}"

    from seasons_env.cli import main as seasons

    monkeypatch.chdir(tmp_path)
    for program, args in command_lines(page):
        if program == "seasons":
            parse(seasons, args)
        elif program == "training":
            from seasons_training.cli import main as training

            parse(training, args)
        else:
            pytest.importorskip("ray", reason="the rllib extra is not installed")
            from seasons_training.train_rllib import parse_args

            parse_args(args)  # argparse exits with status 2 on an unknown option or a bad value
