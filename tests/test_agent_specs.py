"""Agents given by their code (``file.py:Class``, ``package.module:Class``) or as a bare model file, in the API and in
the installed ``seasons arena`` (worker processes load the code again)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from installed import run_installed

from seasons_agents.learned import shipped_model_path
from seasons_env import Game
from seasons_env.registry import describe_agents, make_agent, parse_agent_spec

AGENT_FILE = textwrap.dedent(
    """
    import numpy as np

    class FirstLegal:
        name = "first-legal"

        def act(self, view, seat, legal):
            return int(legal[0])

    class Seeded:
        name = "seeded"

        def __init__(self, seed=None):
            self.seed = seed
            self.rng = np.random.default_rng(seed)

        def act(self, view, seat, legal):
            return int(self.rng.choice(legal))

    class NoAct:
        pass

    class Broken:
        def __init__(self):
            raise RuntimeError("no agent today")

        def act(self, view, seat, legal):
            return legal[0]
    """
)


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(AGENT_FILE)
    return path


def _plays(agent: object) -> None:
    game = Game.new(num_players=2, level="apprentice", seed=1)
    legal = game.legal_action_list()
    assert agent.act(game.clone(), game.current_player, legal) in legal


def test_a_class_in_a_file_is_an_agent(agent_file: Path) -> None:
    agent = make_agent(f"{agent_file}:FirstLegal", seed=3)
    assert type(agent).__name__ == "FirstLegal"
    _plays(agent)


def test_the_seed_goes_to_a_constructor_that_takes_one(agent_file: Path) -> None:
    assert make_agent(f"{agent_file}:Seeded", seed=11).seed == 11
    first, second = (make_agent(f"{agent_file}:Seeded", seed=5) for _ in range(2))
    assert first.rng.integers(1 << 30) == second.rng.integers(1 << 30)


def test_a_file_runs_once_per_process(agent_file: Path) -> None:
    first = make_agent(f"{agent_file}:FirstLegal")
    second = make_agent(f"{agent_file}:FirstLegal")
    assert type(first) is type(second)


def test_a_class_in_a_module_is_an_agent(agent_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = agent_file.parent / "my_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(agent_file, package / "bots.py")
    monkeypatch.syspath_prepend(str(agent_file.parent))
    agent = make_agent("my_pkg.bots:Seeded", seed=2)
    assert type(agent).__name__ == "Seeded" and agent.seed == 2
    _plays(agent)


def test_a_bare_model_file_is_the_learned_agent(tmp_path: Path) -> None:
    model = tmp_path / "mine.pt"
    shutil.copy(shipped_model_path(None), model)
    entry, argument = parse_agent_spec(str(model))
    assert entry.name == "learned" and argument == str(model)
    _plays(make_agent(str(model), seed=0))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{file}:NoAct", "NoAct has no act(view, seat, legal) method"),
        ("{file}:Missing", "has no class 'Missing'; agent classes there: Broken, FirstLegal, Seeded"),
        ("{file}:Broken", "creating the agent failed: RuntimeError: no agent today"),
        ("{dir}/absent.py:Agent", "no Python file"),
        ("no_such_package.bots:Agent", "no module named 'no_such_package.bots'"),
        ("{dir}/raises.py:Agent", "importing '{dir}/raises.py' failed: ZeroDivisionError: division by zero"),
        ("{dir}/exits.py:Agent", "importing '{dir}/exits.py' failed: SystemExit: 3"),
    ],
)
def test_bad_code_specs_name_what_is_wrong(agent_file: Path, spec: str, message: str) -> None:
    (agent_file.parent / "raises.py").write_text("1 / 0\n")
    (agent_file.parent / "exits.py").write_text("raise SystemExit(3)\n")
    spec = spec.format(file=agent_file, dir=agent_file.parent)
    with pytest.raises(ValueError) as caught:
        parse_agent_spec(spec, "--vs")
    text = str(caught.value)
    assert text.startswith(f"--vs: agent {spec!r}: ") and message.format(dir=agent_file.parent) in text
    assert "\n" not in text


def test_unknown_names_still_list_the_registered_agents_and_the_code_forms() -> None:
    with pytest.raises(ValueError, match="unknown agent 'heuristc'") as caught:
        parse_agent_spec("heuristc")
    assert "heuristic" in str(caught.value) and "FILE.py:CLASS, MODULE:CLASS" in describe_agents()


def test_the_installed_arena_rates_agents_given_by_file_module_and_model(agent_file: Path, tmp_path: Path) -> None:
    """Worker processes load the file and the module themselves; the names in the results are the specs."""
    package = tmp_path / "my_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(agent_file, package / "bots.py")
    shutil.copy(shipped_model_path(None), tmp_path / "mine.pt")
    agents = "my_agents.py:Seeded,my_pkg.bots:FirstLegal,mine.pt"
    arguments = ["arena", "--agents", agents, "--games", "6", "--level", "apprentice", "--workers", "2"]
    result = run_installed(
        [*arguments, "--no-progress", "--out", "out"], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)}
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(summary["agents"]) == set(agents.split(","))
    assert sum(stats["games"] for stats in summary["agents"].values()) == 6 * 2


def test_the_installed_arena_refuses_a_bad_file_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("class Agent:\n    pass\n")
    result = run_installed(["arena", "--agents", "mine.py:Agent,random", "--games", "2"], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "agent 'mine.py:Agent': Agent has no act(view, seat, legal) method" in result.stderr
    assert not (tmp_path / "results").exists()
