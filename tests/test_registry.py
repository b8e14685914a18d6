"""The agent registry: specs, arguments, errors, and the layering it exists for."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from seasons_env import registry
from seasons_env.cli import main
from seasons_env.registry import make_agent, parse_agent_spec, register_agent


@pytest.fixture(autouse=True)
def _private_registry(monkeypatch):
    monkeypatch.setattr(registry, "_agents", dict(registry.agent_entries()))


class Remembers:
    name = "remembers"

    def __init__(self, seed=None, argument=None):
        self.seed, self.argument = seed, argument

    def act(self, view, seat, legal):
        return legal[0]


def test_the_shipped_agents_are_registered_through_the_entry_point():
    assert {"random", "heuristic", "ismcts"} <= set(registry.agent_names())
    assert type(make_agent("heuristic", 5)).__name__ == "HeuristicAgent"


def test_ismcts_takes_a_budget_in_iterations():
    assert make_agent("ismcts", 1).iterations == 3000 and make_agent("ismcts:100", 1).iterations == 100
    for bad in ("0", "fast", "1.5", "100001"):
        with pytest.raises(ValueError, match=r"agents\[1\]: agent 'ismcts:.*': ismcts:ITERATIONS takes a whole number"):
            parse_agent_spec(f"ismcts:{bad}", "agents[1]")


def test_specs_with_arguments():
    register_agent("model", Remembers, argument="PATH", argument_optional=False)
    agent = make_agent("model:runs/a.pt", seed=3)
    assert (agent.seed, agent.argument) == (3, "runs/a.pt")
    with pytest.raises(ValueError, match=r"agents\[0\]: agent 'model' needs an argument: model:PATH"):
        make_agent("model", field="agents[0]")
    with pytest.raises(ValueError, match="has an empty PATH"):
        make_agent("model:")
    with pytest.raises(ValueError, match="agent 'heuristic' takes no argument"):
        parse_agent_spec("heuristic:x")


@pytest.mark.parametrize("name", ["", "Two Words", "Upper", "a.b", None])
def test_bad_names_are_refused(name):
    with pytest.raises(ValueError, match="agent name"):
        register_agent(name, Remembers)


def test_a_taken_name_needs_replace():
    register_agent("mine", Remembers)
    with pytest.raises(ValueError, match="'mine' is already registered"):
        register_agent("mine", lambda seed: Remembers(seed))
    register_agent("mine", lambda seed: Remembers(seed, "new"), replace=True)
    assert make_agent("mine").argument == "new"


def test_a_registered_agent_plays_in_the_cli(tmp_path):
    register_agent("first", Remembers)
    args = ["arena", "--agents", "random,first", "--games", "2", "--workers", "1", "--level", "apprentice"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "first" in result.output


def test_the_library_imports_neither_agents_nor_the_commands():
    """At run time; tests/test_structure.py checks every import statement of the library too."""
    code = (
        "import sys, seasons_env, seasons_env.cli, seasons_env.gym_env, seasons_env.pettingzoo_env, "
        "seasons_env.replay, seasons_env.registry\n"
        "app = ('seasons_agents', 'seasons_training', 'agents', 'training')\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in app], 'the application layer was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_code_imports_the_folders_by_their_old_names():
    """The folders agents/ and training/ install as seasons_agents and seasons_training (another distribution,
    openai-agents, owns the import name ``agents``): no module, script, test, notebook or page uses the old names."""
    import ast
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    old = re.compile(r"^\s*(?:from|import) (?:agents|training)\b|python -m (?:agents|training)\b", re.MULTILINE)
    offenders = []
    for folder in ("seasons_env", "agents", "training", "tests", "benchmarks", "docs", "notebooks"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix == ".py":
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    names = (
                        [node.module or ""]
                        if isinstance(node, ast.ImportFrom) and node.level == 0
                        else [a.name for a in node.names]
                        if isinstance(node, ast.Import)
                        else []
                    )
                    offenders += [f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] in OLD_NAMES]
            elif path.suffix == ".ipynb":
                cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
                text = "\n".join("".join(cell["source"]) for cell in cells)
                offenders += [f"{path.relative_to(root)}: {m.group(0)}" for m in old.finditer(text)]
            elif path.suffix == ".md":
                offenders += [f"{path.relative_to(root)}: {m.group(0)}" for m in old.finditer(path.read_text())]
    readme = (root / "README.md").read_text(encoding="utf-8")
    offenders += [f"README.md: {m.group(0)}" for m in old.finditer(readme)]
    assert not offenders, offenders


OLD_NAMES = ("agents", "training")
