"""Kernels compiled beforehand for numba's generic CPU and read only (``disk_cache``, "Prebuilt kernels"): a kernel
missing from the user's cache loads from there, nothing is written to either folder, and a folder for another
target, or a damaged entry in it, only means compiling as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_TWIN = """
import json
from seasons_env.vector.kernels import kernel

@kernel
def add_two(x):
    return x + 2

assert add_two(1) == 3
print(json.dumps({"hits": sum(add_two.stats.cache_hits.values()), "misses": sum(add_two.stats.cache_misses.values())}))
"""

_MANIFEST = """
from pathlib import Path
import sys
from seasons_env.vector.kernels.disk_cache import write_prebuilt_manifest
print(list(write_prebuilt_manifest(Path(sys.argv[1]))))
"""


def _run(folder: Path, env: dict[str, str], code: str = "import prebuilt_twin", *args: str) -> str:
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", **env}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout.strip().splitlines()[-1]


def _prebuild(tmp_path: Path) -> tuple[Path, Path]:
    """The twin kernel compiled for the generic CPU into a prebuilt folder, with its manifest."""
    folder, prebuilt = tmp_path / "code", tmp_path / "prebuilt"
    folder.mkdir()
    (folder / "prebuilt_twin.py").write_text(_TWIN)
    env = {"NUMBA_CPU_NAME": "generic", "SEASONS_KERNEL_CACHE": str(prebuilt), "SEASONS_PREBUILT_KERNELS": "none"}
    assert json.loads(_run(folder, env)) == {"hits": 0, "misses": 1}
    magic = _run(folder, env, _MANIFEST, str(prebuilt))
    assert "'generic'" in magic
    return folder, prebuilt


def _files(folder: Path) -> dict[str, int]:
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def test_a_kernel_missing_from_the_cache_loads_from_the_prebuilt_folder_and_nothing_is_written(tmp_path: Path) -> None:
    folder, prebuilt = _prebuild(tmp_path)
    before = _files(prebuilt)
    user = tmp_path / "user"
    env = {"SEASONS_KERNEL_CACHE": str(user), "SEASONS_PREBUILT_KERNELS": str(prebuilt)}
    assert json.loads(_run(folder, env)) == {"hits": 1, "misses": 0}
    assert not [path for path in user.rglob("*") if path.is_file()]  # loaded, not compiled: nothing saved
    assert _files(prebuilt) == before
    # the bounds-checked kernels (numba leaves the setting out of its keys) are never the prebuilt ones
    checked = {**env, "SEASONS_KERNEL_CACHE": str(tmp_path / "checked"), "NUMBA_BOUNDSCHECK": "1"}
    assert json.loads(_run(folder, checked)) == {"hits": 0, "misses": 1}
    # without the prebuilt folder the same process compiles it, into the user's cache
    assert json.loads(_run(folder, {**env, "SEASONS_PREBUILT_KERNELS": "none"})) == {"hits": 0, "misses": 1}
    assert list(user.rglob("*.nbi"))


def test_prebuilt_kernels_for_another_target_or_damaged_are_compiled_again(tmp_path: Path) -> None:
    folder, prebuilt = _prebuild(tmp_path)
    manifest = prebuilt / "prebuilt.json"
    original = manifest.read_text()
    env = {"SEASONS_PREBUILT_KERNELS": str(prebuilt)}

    other = json.loads(original)
    other["magic"][0] = "riscv64-unknown-linux-gnu"  # another architecture's machine code
    manifest.write_text(json.dumps(other))
    assert json.loads(_run(folder, {**env, "SEASONS_KERNEL_CACHE": str(tmp_path / "a")})) == {"hits": 0, "misses": 1}

    manifest.write_text("not json")
    assert json.loads(_run(folder, {**env, "SEASONS_KERNEL_CACHE": str(tmp_path / "b")})) == {"hits": 0, "misses": 1}

    manifest.write_text(original)
    (index,) = prebuilt.rglob("prebuilt_twin.add_two-*.nbi")
    index.write_bytes(b"\x80\x05garbage")  # a damaged entry: compiled again, left as it is, no warning
    env["SEASONS_KERNEL_CACHE"] = str(tmp_path / "c")
    full = {**os.environ, "NUMBA_NUM_THREADS": "1", **env, "PYTHONPATH": str(folder)}
    done = subprocess.run(
        [sys.executable, "-c", "import prebuilt_twin"], env=full, cwd=folder, capture_output=True, text=True
    )
    assert done.returncode == 0 and json.loads(done.stdout) == {"hits": 0, "misses": 1}
    assert "kernel cache" not in done.stderr and "Traceback" not in done.stderr
    assert index.read_bytes() == b"\x80\x05garbage"
