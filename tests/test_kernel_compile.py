"""How the ``kernel`` decorator compiles (``seasons_env/vector/kernels/__init__.py``, "Compile time"): every kernel at
LLVM level 1 whatever ``NUMBA_OPT`` (``SEASONS_KERNEL_OPT`` for another level), with ``SEASONS_KERNEL_INNER_OPT`` a
kernel compiled for another kernel at that lower level, no C-callable wrapper, ``inline_kernel`` bodies copied into
their callers rather than compiled by themselves, and a process whose kernels are all in the disk cache compiling
nothing (the kernels' struct included). Each case runs in a child process with an empty cache folder of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_LEVELS = """
import json
from numba.core import codegen, config

levels = {}
optimize = codegen.CPUCodeLibrary._optimize_final_module

def recording(self):
    levels.setdefault(self.name.rsplit(".", 1)[-1], int(config.OPT))
    return optimize(self)

codegen.CPUCodeLibrary._optimize_final_module = recording

from pathlib import Path
from seasons_env.vector.kernels import INNER_OPT, KERNEL_OPT, inline_kernel, kernel

@inline_kernel
def twice(x):
    return 2 * x

@kernel
def inner(x):
    return twice(x) + 1

@kernel
def outer(x):
    return inner(x) * 3

@kernel
def alone(x):
    return x - 1

outer(1)
alone(1)
cfunc = [f.name for f in outer.overloads[outer.signatures[0]].library.get_defined_functions() if "cfunc" in f.name]
folder = Path(outer.stats.cache_path).parent.name
print(json.dumps({"levels": levels, "inner_opt": INNER_OPT, "kernel_opt": KERNEL_OPT, "numba": int(config.OPT),
                  "cfunc": cfunc,
                  "twice": len(twice.signatures), "result": outer(1), "folder": folder}))
"""

_STRUCT = """
import json
from numba.core import event
from seasons_env.vector.arrays import ArrayState
from seasons_env.vector.kernels.structs import kernel_arrays

compiled = []

class Listener(event.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__qualname__)

    def on_end(self, e):
        pass

with event.install_listener("numba:compile", Listener()):
    arrays = kernel_arrays(ArrayState.empty(2, 3))
print(json.dumps({"compiled": compiled, "reserve": arrays.reserve.shape[0]}))
"""


def _child(code: str, folder: Path, **environment: str) -> dict:
    """Run ``code`` as a module file in ``folder`` (numba caches only functions with a source file), with the kernel
    cache in ``folder / "cache"``; returns the JSON it prints last."""
    folder.mkdir(exist_ok=True)
    (folder / "compile_child.py").write_text(code)
    env = {**os.environ, "SEASONS_KERNEL_CACHE": str(folder / "cache"), "NUMBA_NUM_THREADS": "1", **environment}
    for variable in ("NUMBA_OPT", "SEASONS_KERNEL_OPT", "SEASONS_KERNEL_INNER_OPT"):
        if variable not in environment:
            env.pop(variable, None)
    env["PYTHONPATH"] = str(folder)  # the child module only: the packages are the installed ones
    done = subprocess.run(
        [sys.executable, "-c", "import compile_child"], env=env, cwd=folder, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_by_default_every_kernel_gets_level_1_whatever_numba_s_level(tmp_path: Path) -> None:
    for name, environment in {"unset": {}, "numba3": {"NUMBA_OPT": "3"}}.items():
        found = _child(_LEVELS, tmp_path / name, **environment)
        assert found["result"] == 9 and found["numba"] == 3  # numba's level, left to the program's own code
        assert found["inner_opt"] is None and found["kernel_opt"] == 1
        assert [found["levels"][name] for name in ("outer", "alone", "inner")] == [1, 1, 1]
        assert "opt" not in found["folder"] and "inner" not in found["folder"]


def test_another_kernel_level_compiles_every_kernel_at_it_into_folders_of_their_own(tmp_path: Path) -> None:
    found = _child(_LEVELS, tmp_path, SEASONS_KERNEL_OPT="3")
    assert found["result"] == 9 and found["kernel_opt"] == 3
    assert [found["levels"][name] for name in ("outer", "alone", "inner")] == [3, 3, 3]
    assert found["folder"].endswith("-opt3")  # other machine code: never mixed with the default's


def test_with_the_inner_option_a_kernel_compiled_for_another_gets_the_inner_level_and_the_outermost_the_kernels(
    tmp_path: Path,
) -> None:
    found = _child(_LEVELS, tmp_path, SEASONS_KERNEL_OPT="3", SEASONS_KERNEL_INNER_OPT="1")
    assert found["result"] == 9
    assert found["inner_opt"] == 1 and found["kernel_opt"] == 3
    assert found["levels"]["outer"] == 3
    assert found["levels"]["alone"] == 3  # called from Python: the kernels' level
    assert found["levels"]["inner"] == 1  # compiled for ``outer``
    assert found["folder"].endswith("-opt3-inner1")
    found = _child(_LEVELS, tmp_path / "above", SEASONS_KERNEL_INNER_OPT="2")  # never above the kernels' level
    assert [found["levels"][name] for name in ("outer", "alone", "inner")] == [1, 1, 1]


@pytest.mark.parametrize("variable", ["SEASONS_KERNEL_OPT", "SEASONS_KERNEL_INNER_OPT"])
def test_a_bad_level_is_refused_by_name(tmp_path: Path, variable: str) -> None:
    env = {**os.environ, variable: "0", "SEASONS_KERNEL_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", "import seasons_env.vector.kernels"],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode != 0
    assert f"{variable} must be 1, 2 or 3" in done.stderr and "'0'" in done.stderr
    assert not (tmp_path / "cache").exists()


def test_kernels_have_no_c_callable_wrapper_and_inline_kernels_no_code_of_their_own(tmp_path: Path) -> None:
    found = _child(_LEVELS, tmp_path)
    assert found["cfunc"] == []
    assert found["twice"] == 0  # copied into ``inner``, never compiled by itself


def test_a_process_with_the_kernels_cached_compiles_nothing_not_even_the_struct(tmp_path: Path) -> None:
    """numba compiles its own constructor of a StructRef proxy in every process, cache or not; the kernels' struct is
    made by a cached kernel instead."""
    first = _child(_STRUCT, tmp_path)
    assert first["compiled"] and first["reserve"] == 2
    assert _child(_STRUCT, tmp_path) == {"compiled": [], "reserve": 2}
