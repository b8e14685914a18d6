"""The kernels run compiled (numba, the default) or as plain Python (``SEASONS_KERNELS=python``, ``pytest
--kernels=python``): the same functions, uncompiled, on the same arrays. Each case runs in a fresh interpreter, since
the mode is read once, when the kernels are first imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from seasons_env.vector import kernels

TESTS = Path(__file__).resolve().parent
CHECK = f"{Path(__file__).name}::test_the_kernels_run_in_the_mode_asked"

PYTHON_MODE_CHECK = """
import types
import numpy as np
from seasons_env import Game
from seasons_env.vector import VectorGame
from seasons_env.vector.core import game_seed
from seasons_env.vector.kernels import KERNEL_MODE, PYTHON_KERNELS, machine, state_ops, structs
from seasons_env.vector.arrays import ArrayState
from seasons_agents import heuristic_kernel

assert KERNEL_MODE == "python" and PYTHON_KERNELS
# every kernel is the function as written: a debugger stops in it, nothing is compiled
for function in (machine.run_rows, machine.apply_row, state_ops.below, heuristic_kernel.decide):
    assert type(function) is types.FunctionType, function
arrays = structs.kernel_arrays(ArrayState.empty(2, 3))
assert type(arrays) is structs.KernelArrays and not hasattr(arrays, "_meminfo")
# and they play the reference engine's game
batch = VectorGame(1, num_players=2, level="archmage", seed=4)
game = Game.new(2, "archmage", seed=game_seed(4, 0, 0))
rng = np.random.default_rng(0)
for _ in range(60):
    action = int(rng.choice(np.flatnonzero(batch.legal_mask()[0])))
    batch.apply(np.array([action]))
    game.apply(action)
    assert batch.game(0).to_dict() == game.to_dict()
print("python mode ok")
"""


def run_python(code: str, mode: str | None) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "SEASONS_KERNELS"}
    if mode is not None:
        environment["SEASONS_KERNELS"] = mode
    return subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=600, cwd=TESTS
    )


def test_python_mode_runs_every_kernel_uncompiled_and_exact() -> None:
    done = run_python(PYTHON_MODE_CHECK, "python")
    assert done.returncode == 0 and "python mode ok" in done.stdout, done.stderr[-3000:]


def test_compiled_mode_is_the_default() -> None:
    check = (
        "from seasons_env.vector.kernels import KERNEL_MODE, KernelDispatcher, machine\n"
        "assert KERNEL_MODE == 'compiled' and isinstance(machine.run_rows, KernelDispatcher)\n"
        "print('compiled')"
    )
    for mode in (None, "compiled", " Compiled "):
        done = run_python(check, mode)
        assert done.returncode == 0 and "compiled" in done.stdout, (mode, done.stderr[-2000:])


def test_an_unknown_mode_is_refused_naming_the_variable() -> None:
    done = run_python("import seasons_env.vector.kernels", "pypy")
    assert done.returncode != 0
    assert "SEASONS_KERNELS must be 'compiled' or 'python'; got 'pypy'" in done.stderr


def test_the_kernels_run_in_the_mode_asked() -> None:
    """Under ``pytest --kernels=MODE`` (or ``SEASONS_KERNELS``) the kernels this process imported run in that mode."""
    assert kernels.KERNEL_MODE == (os.environ.get("SEASONS_KERNELS", "").strip().lower() or "compiled")


@pytest.mark.parametrize("mode", ["python", "compiled"])
def test_the_pytest_option_sets_the_mode(mode: str) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "SEASONS_KERNELS"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--kernels={mode}", f"{CHECK}"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=TESTS,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
