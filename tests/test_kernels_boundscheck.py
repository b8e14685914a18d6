"""The kernels' differential tests once more, compiled with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``).

Compiled kernels do not check indices: an index out of range reads or writes the memory beside the array, which may
pass every comparison by luck or corrupt another row. With bounds checking on, the same index raises ``IndexError``
and the test fails. Bounds-checked code is other machine code, so it is compiled into a kernel cache of its own and
never mixed with the ordinary kernels: ``SEASONS_KERNEL_CACHE`` set to a temporary folder, deleted when the tests of
this module end, so that the suite leaves nothing of it (about 100 MB) in the user's cache folder. The run compiles
every kernel, three to four minutes on a 2-core machine, so it runs only when asked: ``pytest --boundscheck``
(tests/conftest.py). The kernels run as Python in every run (``test_kernels_as_python.py``), where NumPy checks every
index of the rules kernels.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from seasons_env.vector.kernels import CACHE_TOP

TESTS = Path(__file__).resolve().parent
#: Every compiled kernel is reached by these: the rules step by step against the reference engine (every step kind,
#: card hook, payment step, dealing and hidden-information view), the compiled heuristic against the Python one, and
#: the compiled policy-ISMCTS and forward pass (against NumpyPolicy, full games, searches in threads).
DIFFERENTIAL_TESTS = (
    "test_vector_rules_kernels.py",
    "test_vector_cards_basic_kernels.py",
    "test_vector_cards_archmage_kernels.py",
    "test_vector_payment_kernels.py",
    "test_vector_hidden_kernels.py",
    "test_heuristic_kernel.py",
    "test_heuristic_eval_kernel.py",
    "test_policy_search_kernel.py",
)
#: A child run that passes this is hung, not slow (about 3 minutes from an empty cache).
TIMEOUT_SECONDS = 1500


def _bounds_checked_environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "NUMBA_BOUNDSCHECK": "1", "SEASONS_KERNEL_CACHE": str(cache), "NUMBA_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def boundscheck_cache() -> Iterator[Path]:
    """The parent folder of the bounds-checked kernels' cache (the child names its ``kernels-<hash>`` folders): a
    temporary folder, deleted with everything compiled into it when this module's tests end."""
    with tempfile.TemporaryDirectory(prefix="seasons-boundscheck-") as folder:
        yield Path(folder)


def test_the_bounds_checked_kernels_are_compiled_into_a_temporary_folder(boundscheck_cache: Path) -> None:
    """Not into the user's cache folder, where the suite would leave about 100 MB behind."""
    folder = boundscheck_cache.resolve()
    assert folder.is_relative_to(Path(tempfile.gettempdir()).resolve()), folder
    assert not folder.is_relative_to(CACHE_TOP.resolve()), folder
    assert _bounds_checked_environment(boundscheck_cache)["SEASONS_KERNEL_CACHE"] == str(boundscheck_cache)


@pytest.mark.slow
def test_bounds_checking_turns_an_index_out_of_range_into_an_error(boundscheck_cache: Path) -> None:
    """The switch the run below relies on: in a process started as it is, compiled code checks its indices."""
    code = (
        "import numba, numpy as np\n"
        "assert numba.config.BOUNDSCHECK, 'NUMBA_BOUNDSCHECK was not read'\n"
        "at = numba.njit(lambda values, i: values[i])\n"
        "assert at(np.arange(3), 2) == 2\n"
        "try:\n"
        "    at(np.arange(3), 3)\n"
        "except IndexError:\n"
        "    print('caught')\n"
    )
    env = _bounds_checked_environment(boundscheck_cache)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "caught", done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.boundscheck
def test_the_differential_tests_pass_with_bounds_checking(boundscheck_cache: Path) -> None:
    files = [str(TESTS / name) for name in DIFFERENTIAL_TESTS]
    missing = [name for name, path in zip(DIFFERENTIAL_TESTS, files, strict=True) if not Path(path).is_file()]
    assert not missing, f"differential test files listed here no longer exist: {missing}"
    command = [sys.executable, "-m", "pytest", *files, "-q", "-x", "-p", "no:cacheprovider"]
    env = _bounds_checked_environment(boundscheck_cache)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, cwd=TESTS.parent)
    assert done.returncode == 0, f"with NUMBA_BOUNDSCHECK=1:\n{done.stdout[-20000:]}\n{done.stderr[-5000:]}"
