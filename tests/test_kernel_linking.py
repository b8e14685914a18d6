"""A kernel calls the kernels it uses by symbol (``kernels/linking.py``): its code holds no copy of theirs, its cache
entry names them, and loading it loads them first under the same symbols, or compiles it again when it cannot; a
kernel that calls no other kernel (a leaf) is linked in. Each case runs child processes with a cache folder of their
own and three small kernels: ``outer`` calls ``middle``, which calls the leaf ``inner``."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from installed import installed_environment

from seasons_env.vector.kernels import PYTHON_KERNELS

pytestmark = pytest.mark.skipif(PYTHON_KERNELS, reason="checks the compiled kernels' code")

_MODULE = """
from seasons_env.vector.kernels import kernel


@kernel
def inner(x):
    return x * 7 + 1


@kernel
def middle(x):
    return inner(x) + inner(x + 1)


@kernel
def outer(x):
    return middle(x) * 2
"""

_CHILD = """
import json
from numba.core import types
from seasons_env.vector.kernels import linking
import three_kernels

result = three_kernels.outer(3)  # the callees not called first: their code is loaded (or compiled) for the caller
library = three_kernels.outer.overloads[(types.int64,)].library
module = library._get_module_for_linking()
calls = linking.calls_of(library)
middle = three_kernels.middle.overloads[(types.int64,)].library
inner = three_kernels.inner.overloads.get((types.int64,))  # compiled in this process, or not needed
leaf_linked = None
if inner is not None:
    try:  # the leaf's code in middle's module, or inlined there and gone: not a declaration of a symbol elsewhere
        leaf_linked = not middle._get_module_for_linking().get_function(inner.fndesc.mangled_name).is_declaration
    except NameError:
        leaf_linked = True
names = ("inner", "middle", "outer")
print(json.dumps({
    "result": int(result),
    "calls": [[key, [str(a) for a in args]] for key, args, _ in calls],
    "declared_only": [module.get_function(symbol).is_declaration for _, _, symbol in calls],
    "middle_calls": len(linking.calls_of(middle)),
    "leaf_linked": leaf_linked,
    "hits": {name: sum(getattr(three_kernels, name).stats.cache_hits.values()) for name in names},
    "misses": {name: sum(getattr(three_kernels, name).stats.cache_misses.values()) for name in names},
}))
"""


def _run(folder: Path, cache: Path) -> tuple[dict, str]:
    env = installed_environment({"NUMBA_NUM_THREADS": "1", "SEASONS_KERNEL_CACHE": str(cache)})
    env["SEASONS_PREBUILT_KERNELS"] = "none"
    env["PYTHONPATH"] = str(folder)  # the child module only: the package is the installed one
    run = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, cwd=folder, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0 and "Traceback" not in run.stderr, (run.returncode, run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1]), run.stderr


@pytest.fixture
def kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "three_kernels.py").write_text(_MODULE)
    monkeypatch.syspath_prepend(str(folder))  # the tests unpickle its cache entries, which name the module
    return folder, tmp_path / "cache"


def test_a_kernel_calls_the_kernels_it_uses_by_symbol_and_holds_no_copy_of_them(kernels: tuple[Path, Path]) -> None:
    first, _ = _run(*kernels)
    assert first["result"] == 2 * ((3 * 7 + 1) + (4 * 7 + 1))
    assert first["calls"] == [["three_kernels:middle", ["int64"]]]
    assert first["declared_only"] == [True]  # the caller's module declares the callee: no copy of its code
    assert first["middle_calls"] == 0 and first["leaf_linked"] is True  # the leaf: in its caller's code, inlined
    assert first["misses"] == {"inner": 1, "middle": 1, "outer": 1}


def test_a_cached_kernel_loads_the_kernels_it_calls_before_itself(kernels: tuple[Path, Path]) -> None:
    _run(*kernels)
    second, _ = _run(*kernels)  # a fresh process calls the caller first: its callee is loaded before it
    assert second["result"] == 102
    assert second["hits"] == {"inner": 0, "middle": 1, "outer": 1}  # the leaf is in middle's code: not loaded
    assert second["misses"] == {"inner": 0, "middle": 0, "outer": 0}
    assert second["declared_only"] == [True] and second["middle_calls"] == 0


def _outer_entry(cache: Path) -> Path:
    (path,) = (p for p in cache.rglob("*.nbc") if ".outer-" in p.name)
    return path


def test_a_cached_kernel_whose_callee_has_another_symbol_is_compiled_again_not_set_aside(
    kernels: tuple[Path, Path],
) -> None:
    folder, cache = kernels
    _run(folder, cache)
    entry = _outer_entry(cache)
    calls, links, cached = pickle.loads(entry.read_bytes())
    ((key, args, symbol),) = calls
    entry.write_bytes(pickle.dumps((((key, args, symbol + "x"),), links, cached)))  # as if compiled again since
    again, stderr = _run(folder, cache)
    assert again["result"] == 102
    assert again["misses"] == {"inner": 0, "middle": 0, "outer": 1} and again["hits"] == {
        "inner": 0,
        "middle": 1,
        "outer": 0,
    }
    assert not list(cache.rglob("*.set-aside")) and "kernel cache" not in stderr  # not damage: no warning
    calls, _, _ = pickle.loads(_outer_entry(cache).read_bytes())
    assert calls == ((key, args, symbol),)  # the entry replaced by the one compiled again
    assert _run(folder, cache)[0]["hits"] == {"inner": 0, "middle": 1, "outer": 1}


def test_a_cached_kernel_calling_a_kernel_the_program_lacks_is_compiled_again(kernels: tuple[Path, Path]) -> None:
    folder, cache = kernels
    _run(folder, cache)
    entry = _outer_entry(cache)
    calls, links, cached = pickle.loads(entry.read_bytes())
    ((_, args, symbol),) = calls
    entry.write_bytes(pickle.dumps(((("three_kernels:gone", args, symbol),), links, cached)))
    again, stderr = _run(folder, cache)
    assert again["result"] == 102 and again["misses"]["outer"] == 1
    assert not list(cache.rglob("*.set-aside")) and "kernel cache" not in stderr


def test_the_kernels_that_deal_and_step_games_call_the_run_loop_by_symbol() -> None:
    """``machine.run`` and ``machine.apply_row`` are compiled once, by themselves: the kernels that deal and step
    games call them, where each had the loop and the whole rules' dispatch copied into it and compiled again."""
    import numpy as np

    from seasons_env.vector import VectorGame
    from seasons_env.vector.kernels import batch_step, linking, new_game, single_step

    one = VectorGame(1, engine="kernels")
    one.apply([int(np.flatnonzero(one.legal_mask()[0])[0])])
    batch = VectorGame(4, engine="kernels")
    batch.apply(np.array([np.flatnonzero(row)[0] for row in batch.legal_mask()]))

    def called(dispatcher: object) -> set[str]:
        return {call[0] for overload in dispatcher.overloads.values() for call in linking.calls_of(overload.library)}

    machine = "seasons_env.vector.kernels.machine"
    assert f"{machine}:apply_row" in called(single_step.step_row) & called(batch_step.step_block)
    assert f"{machine}:run" in called(new_game.deal_row)
