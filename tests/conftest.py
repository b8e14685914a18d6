"""Fixtures shared by the test modules.

``rules_engine``: every test of a module marked ``pytestmark = pytest.mark.rules_scenario`` runs once per engine
of ``scenario.ENGINES`` (ids ``[reference]`` and ``[kernels]``), its ``scenario`` / ``act`` / ``labels`` /
``refuse`` calls routed through that engine (``tests/scenario.py``). A new rules-scenario module only needs the
marker.

The suite runs on every core with pytest-xdist (``python -m pytest -n auto``, the README's command): ``-n auto`` starts
one worker a core, at most ``MAX_WORKERS`` (each worker loads the compiled kernels and torch: memory, not cores, is
what a big machine runs out of). Each worker starts with its lane of ``LANES`` (from an empty kernel cache one worker
compiles the kernels while the other runs tests that compile nothing), then its share of the tests marked ``slow``, so
that the longest ones do not start last and leave one worker running alone at the end.

``--boundscheck`` adds the differential tests once more with numba's bounds checking (``test_kernels_boundscheck.py``),
which compiles every kernel a second time; without it those tests are skipped, because the kernels run as Python
(``test_kernels_as_python.py``, every run) index NumPy arrays, which check every index.

``--kernels=python`` runs the rules kernels as plain Python (``SEASONS_KERNELS=python``, docs/vector.md): nothing is
compiled, so the rules, differential and scenario tests start at once and a debugger stops inside a kernel. The option
sets the variable before any test module imports the kernels (this module imports ``scenario`` only when needed), and
the tests' subprocesses inherit it.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest

#: The most workers ``-n auto`` starts.
MAX_WORKERS = 4
#: Test modules about compiling the kernels (numba's cache, signatures, bounds checking): skipped in Python mode.
COMPILED_ONLY = frozenset(
    {"test_compile_command.py", "test_kernel_compile.py", "test_vector_kernel_cache.py", "test_kernels_boundscheck.py"}
)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--kernels",
        choices=("compiled", "python"),
        default=None,
        help="run the rules kernels compiled (numba, the default) or as plain Python (SEASONS_KERNELS)",
    )
    parser.addoption(
        "--boundscheck",
        action="store_true",
        help="also run the differential tests with numba's bounds checking (compiles every kernel again)",
    )


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("kernels")
    if mode is not None:
        imported = sys.modules.get("seasons_env.vector.kernels")
        if imported is not None and imported.KERNEL_MODE != mode:
            raise pytest.UsageError(f"--kernels={mode}: the kernels were imported {imported.KERNEL_MODE} already")
        os.environ["SEASONS_KERNELS"] = mode
    if _python_mode():  # the option, just set, or the variable given by the user
        # compiled kernels compute in 64 bits; NumPy keeps a small integer's type, so an overflow in a kernel run as
        # Python is a difference from the compiled code, not noise (the hashes that wrap on purpose silence it)
        config.addinivalue_line("filterwarnings", "error:overflow encountered:RuntimeWarning")
    # From an empty kernel cache the first VectorGame would start a process compiling beside it
    # (vector/compile_helper.py): the suite schedules its compiling itself (LANES), and the helper's tests turn it on.
    os.environ.setdefault("SEASONS_COMPILE_HELPER", "0")
    # xdist's workers ignore SIGINT, and a child process inherits that: give the tests' subprocesses (a server stopped
    # with Ctrl-C) the handler they get when started from a terminal.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _python_mode() -> bool:
    return os.environ.get("SEASONS_KERNELS", "").strip().lower() == "python"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("boundscheck"):
        skip_bounds = pytest.mark.skip(
            reason="compiles every kernel again with bounds checks: run with --boundscheck (the kernels as Python, "
            "run every time, check every index)"
        )
        for item in items:
            if item.get_closest_marker("boundscheck") is not None:
                item.add_marker(skip_bounds)
    if _python_mode():
        skip = pytest.mark.skip(reason="checks the compiled kernels; --kernels=python runs them as Python")
        for item in items:
            if item.path.name in COMPILED_ONLY:
                item.add_marker(skip)
    # an xdist worker knows how many there are; a plain run (or a test's own pytest child) is one worker
    workers = config.workerinput["workercount"] if hasattr(config, "workerinput") else 1
    items[:] = handed_out_first(items, workers)


#: The tests each worker starts with, in order (lane 0 for the first worker, lane 1 for the second). From an empty
#: kernel cache, the first worker compiles the kernel groups one after another (the rules, the heuristic that calls
#: them, then the two searches) while the second runs tests that compile nothing (the kernels as Python, the
#: reference engine's invariants, channels and learners), so that no group is compiled by two processes at once.
#: A name is a test id or its start.
LANES = (
    (
        "tests/test_compile_command.py::test_after_seasons_compile_a_fresh_process_loads_every_kernel_from_the_cache",
        "tests/test_heuristic_decisions.py::test_heuristic_decisions_are_pinned[selfplay]",
        "tests/test_compile_command.py::test_the_ismcts_search_step_compiles_the_compiled_ismcts",
        "tests/test_compile_command.py::test_the_policy_search_step_compiles_the_compiled_search_and_forward_pass",
    ),
    (
        "tests/test_kernels_as_python.py::test_the_rules_and_differential_tests_pass_with_the_kernels_as_python",
        "tests/test_card_constants.py::test_a_changed_amount_needs_no_test_edit",
        "tests/test_invariants.py::test_invariants_hold_at_every_decision",
        "tests/test_human_channels.py::test_no_human_channel_tells_paired_positions_apart",
        "tests/test_openspiel.py::test_a_short_seeded_actor_critic_run_through_rl_environment_beats_random",
        "tests/test_rllib_cluster.py::test_two_node_cluster_trains_on_the_worker_node_and_restores_a_checkpoint",
    ),
)


def first_batch_size(num_items: int, workers: int) -> int:
    """How many tests pytest-xdist's ``load`` scheduling sends each worker at the start, one run of consecutive
    tests each (``LoadScheduling.schedule``): a quarter of a worker's share, at least 2."""
    return max((num_items // workers) // 4, 2)


def handed_out_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """``items`` reordered so that each of the ``workers`` starts with its lane of ``LANES`` (the lanes of absent
    workers join the last worker's), then its share of the other tests marked ``slow`` (so that the longest do not
    start last and leave one worker running alone at the end), then tests in collection order."""
    workers = max(1, workers)
    lanes: list[list[pytest.Item]] = [[] for _ in range(workers)]
    placed: set[pytest.Item] = set()
    for index, names in enumerate(LANES):
        lane = lanes[min(index, workers - 1)]
        for name in names:
            chosen = [item for item in items if item.nodeid.startswith(name) and item not in placed]
            lane += chosen
            placed.update(chosen)
    slow = [item for item in items if item not in placed and item.get_closest_marker("slow") is not None]
    for index, item in enumerate(slow):
        lanes[index % workers].append(item)
    placed.update(slow)
    rest = [item for item in items if item not in placed]
    if workers == 1:
        return lanes[0] + rest
    size = first_batch_size(len(items), workers)
    ordered: list[pytest.Item] = []
    overflow: list[pytest.Item] = []  # what does not fit in a worker's first batch is handed out next
    for lane in lanes:
        overflow += lane[size:]
        fill = size - len(lane[:size])
        ordered += lane[:size] + rest[:fill]
        del rest[:fill]
    return ordered + overflow + rest


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    import scenario

    if metafunc.definition.get_closest_marker("rules_scenario") is not None:
        metafunc.parametrize("rules_engine", scenario.ENGINES, indirect=True)


@pytest.fixture(autouse=True)
def rules_engine(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The engine a rules-scenario test runs on (None for any other test, which this leaves alone)."""
    engine = getattr(request, "param", None)
    if engine is None:
        yield None
        return
    import scenario

    with scenario.engine_under_test(engine):
        yield engine
