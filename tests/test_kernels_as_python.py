"""The rules scenarios and the kernels' differential tests once more, with every kernel run as plain Python
(``pytest --kernels=python``, ``SEASONS_KERNELS=python``: nothing compiled).

Run as Python, a kernel is the same source on the same arrays, but NumPy's integer rules apply instead of numba's: a
small field added to without a cast to 64 bits overflows (NumPy 2 keeps ``uint8 + 1`` a uint8), which this mode turns
into an error. So the kernels stay correct as Python, a debugger works inside them, and the rules tests need no
compile. The scenarios run on both engines in that mode (``rules_scenario`` modules), so the kernels are still
compared with the reference engine at every step.

The modules are split between two runs that go to two workers: the whole games here, the rules scenarios and card
kernels in ``test_card_constants.py`` (with every card amount changed, which shows that the tests read them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: The kernels' differential tests of whole games (every step against the reference engine, the hidden-information
#: views, the observation). The rules scenarios and the card kernels' tests run as Python in
#: ``test_card_constants.py``'s run, with every amount changed: each module runs this way once per suite.
PYTHON_MODE_TESTS = (
    "test_vector_rules_kernels.py",
    "test_vector_hidden_kernels.py",
    "test_vector_observe_kernel.py",
)
#: A child run that passes this is hung, not slow (about a minute of CPU on a 2-core machine).
TIMEOUT_SECONDS = 1800


@pytest.mark.slow
def test_the_rules_and_differential_tests_pass_with_the_kernels_as_python() -> None:
    files = [str(TESTS / name) for name in PYTHON_MODE_TESTS]
    missing = [name for name, path in zip(PYTHON_MODE_TESTS, files, strict=True) if not Path(path).is_file()]
    assert not missing, f"test files listed here no longer exist: {missing}"
    command = [sys.executable, "-m", "pytest", *files, "-q", "-x", "-p", "no:cacheprovider", "--kernels=python"]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, cwd=TESTS.parent)
    assert done.returncode == 0, f"with --kernels=python:\n{done.stdout[-20000:]}\n{done.stderr[-5000:]}"
    assert " passed" in done.stdout.strip().splitlines()[-1], done.stdout[-2000:]


def test_every_rules_scenario_and_differential_module_runs_as_python() -> None:
    """Between this module's run and the changed amounts' run, every module on both engines (``rules_scenario``) and
    every kernels' differential module runs with the kernels as Python."""
    from test_card_constants import TESTS as CHANGED_AMOUNT_TESTS

    marker = "pytestmark = pytest.mark.rules_scenario"
    marked = {path.name for path in TESTS.glob("test_*.py") if marker in path.read_text()}
    differential = {path.name for path in TESTS.glob("test_vector_*_kernel*.py")}
    expected = (marked | differential) - {Path(__file__).name}
    assert sorted(expected - set(PYTHON_MODE_TESTS) - set(CHANGED_AMOUNT_TESTS)) == []
    assert set(PYTHON_MODE_TESTS).isdisjoint(CHANGED_AMOUNT_TESTS)
