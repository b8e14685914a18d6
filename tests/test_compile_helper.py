"""The process that compiles the rules kernels beside a program's first use of them (``vector/compile_helper.py``):
when it is started, what it is started with, and that it stops at once when it cannot help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from installed import installed_environment, run_installed

from seasons_env.vector import compile_helper
from seasons_env.vector.kernels import LIBRARY, compile_locks, load_only

HELPER_MODULE = "seasons_env.vector.compile_helper"


@pytest.fixture
def fresh_program(monkeypatch: pytest.MonkeyPatch) -> list:
    """This test process as a program that has not decided on a helper yet, the helper on, two cores and a cold
    cache; ``Popen`` replaced: the list receives each (command, environment) it is called with."""
    started: list = []

    class FakeProcess:
        def __init__(self, command: list[str], env: dict, **_: object) -> None:
            started.append((command, env))

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(compile_helper, "_STARTED", [])
    monkeypatch.setenv(compile_helper.HELPER_VARIABLE, "1")
    monkeypatch.setattr(compile_helper, "usable_cores", lambda: 2)
    monkeypatch.setattr(compile_helper, "_kernels_cold", lambda mode: True)
    monkeypatch.setattr(compile_helper.subprocess, "Popen", FakeProcess)
    return started


def test_a_cold_cache_starts_one_helper_a_program_on_this_copy_of_the_library(fresh_program: list) -> None:
    first = compile_helper.start_compile_helper("batch")
    assert compile_helper.start_compile_helper("one-game") is first  # decided once a program
    [(command, env)] = fresh_program
    assert command == [sys.executable, "-m", "seasons_env.vector.compile_helper", str(os.getpid()), "batch"]
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(LIBRARY.parent)
    assert env[compile_helper.HELPER_VARIABLE] == "0"  # the helper's own kernels start no helper


@pytest.mark.parametrize("case", ["turned off", "one core", "warm cache", "loading only", "kernels as Python"])
def test_no_helper_is_started_where_it_cannot_help(
    fresh_program: list, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    if case == "turned off":
        monkeypatch.setenv(compile_helper.HELPER_VARIABLE, "0")
    elif case == "one core":
        monkeypatch.setattr(compile_helper, "usable_cores", lambda: 1)
    elif case == "warm cache":
        monkeypatch.setattr(compile_helper, "_kernels_cold", lambda mode: False)
    elif case == "kernels as Python":
        monkeypatch.setattr("seasons_env.vector.kernels.PYTHON_KERNELS", True)
    if case == "loading only":  # seasons compile --check runs the steps loading only
        with load_only():
            assert compile_helper.start_compile_helper("rules") is None
    else:
        assert compile_helper.start_compile_helper("rules") is None
    assert fresh_program == []


def test_an_unknown_mode_is_refused(fresh_program: list) -> None:
    with pytest.raises(ValueError, match="mode must be one of one-game, batch, rules; got 'games'"):
        compile_helper.start_compile_helper("games")
    assert fresh_program == []


@pytest.mark.parametrize("value", ["yes", "2", "off"])
def test_the_helper_variable_takes_0_or_1_and_says_so(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(compile_helper.HELPER_VARIABLE, value)
    with pytest.raises(ValueError, match=r"SEASONS_COMPILE_HELPER must be 0 .* or 1 .*got '"):
        compile_helper.helper_enabled()


_COLD_THEN_WARM = """
import sys
from seasons_env.vector import compile_helper
from seasons_env.vector.compile_order import helped_signatures
from seasons_env.vector.kernels import KERNELS
mode = sys.argv[1]
before = compile_helper._kernels_cold(mode)
name, signature = helped_signatures(first_step=compile_helper._first_step(mode))[0]
KERNELS[name].compile(signature)
print(before, compile_helper._kernels_cold(mode))
"""


@pytest.mark.parametrize("mode", ["rules", "one-game"])
def test_the_cache_is_cold_until_the_helper_s_first_kernel_is_in_it(tmp_path: Path, mode: str) -> None:
    """The first kernel of the helper's list for the program's kind of first use: a one-game program whose kernels
    are all compiled starts no helper for the kernels only a batch or a search compiles."""
    env = installed_environment({"SEASONS_KERNEL_CACHE": str(tmp_path), "SEASONS_PREBUILT_KERNELS": "none"})
    done = subprocess.run([sys.executable, "-c", _COLD_THEN_WARM, mode], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


def _helper(parent: int, cache: Path) -> subprocess.CompletedProcess:
    env = {"SEASONS_KERNEL_CACHE": str(cache), "SEASONS_PREBUILT_KERNELS": "none"}
    return run_installed([str(parent), "batch"], module=HELPER_MODULE, env=env, timeout=120)


def _compiled(cache: Path) -> list[Path]:
    return [path for path in cache.rglob("*") if path.suffix in (".nbi", ".nbc")]


def test_the_helper_stops_at_once_when_its_program_has_ended(tmp_path: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    done = _helper(int(ended.stdout), tmp_path)
    assert done.returncode == 0 and done.stdout == done.stderr == ""
    assert _compiled(tmp_path) == []


def test_a_second_helper_for_the_same_cache_stops_at_once(tmp_path: Path) -> None:
    lock = str(tmp_path / compile_helper.LOCK_NAME)
    assert compile_locks.acquire(lock, wait=False)  # as a running helper holds it
    try:
        done = _helper(os.getpid(), tmp_path)
    finally:
        compile_locks.release(lock)
    assert done.returncode == 0 and done.stdout == done.stderr == ""
    assert _compiled(tmp_path) == []


@pytest.mark.parametrize("args", [[], ["12"], ["12", "some"], ["x", "batch"]])
def test_the_helper_command_says_how_it_is_called(args: list[str]) -> None:
    done = run_installed(args, module=HELPER_MODULE)
    assert done.returncode == 2, done.stderr
    assert "usage: python -m seasons_env.vector.compile_helper PARENT_PID one-game|batch|rules" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_compiled_agents_start_the_helper_for_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled heuristic and searches compile the rules kernels on their first use too: each asks for the helper
    (rules only: they step no batch)."""
    from seasons_agents import heuristic_compiled, policy_ismcts
    from seasons_agents.ismcts import ISMCTSAgent
    from seasons_agents.learned import SEARCH_MODEL, shipped_model_path
    from seasons_env import Game

    asked: list[str] = []
    monkeypatch.setattr(compile_helper, "start_compile_helper", asked.append)
    monkeypatch.setattr(policy_ismcts, "_COMPILED", {})
    game = Game.new(2, "apprentice", seed=0)
    ISMCTSAgent(seed=0, iterations=2, engine="kernels").search(game, game.current_player)
    heuristic_compiled.HeuristicRows(2)
    policy_ismcts.compiled_search(shipped_model_path(SEARCH_MODEL))
    assert asked == ["rules", "rules", "rules"]
