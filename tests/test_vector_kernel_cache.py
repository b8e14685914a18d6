"""The kernels' disk cache is keyed by every source they are compiled from (``vector/kernels/__init__.py``), and not by
the checkout's path (``ProjectCacheLocator``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from seasons_env.vector.kernels import CACHE_DIR, source_digest

PACKAGE = Path(__file__).resolve().parents[1] / "seasons_env"


def _copy(tmp_path: Path) -> Path:
    package = tmp_path / "seasons_env"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "web"))
    return package


def test_the_cache_folder_is_named_by_the_digest_of_the_installed_sources() -> None:
    assert CACHE_DIR.name == f"kernels-{source_digest(PACKAGE)}"


def test_an_edit_to_any_source_the_kernels_freeze_changes_the_digest(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    before = source_digest(package)
    assert before == source_digest(PACKAGE)
    # constants frozen into compiled code come from the engine, the encoder and the array modules, not only kernels/
    for name in ("engine/steps.py", "encoding.py", "vector/arrays.py", "vector/kernels/tables.py"):
        path = package / name
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        assert source_digest(package) != before, name
        path.write_bytes(original)
    data = package / "data" / "seasons_data.json"
    data.write_bytes(data.read_bytes() + b" ")
    assert source_digest(package) != before
    data.write_bytes(data.read_bytes()[:-1])
    # a module the kernels never read leaves the key alone
    (package / "picture.py").write_text("# another picture module\n")
    assert source_digest(package) == before


def test_another_numba_release_compiles_into_another_folder(monkeypatch) -> None:
    """The key holds numba's version: code compiled by one release is never loaded by another (the dependency
    range admits several), which compiles its own."""
    import numba

    before = source_digest(PACKAGE)
    monkeypatch.setattr(numba, "__version__", "0.69.0")
    assert source_digest(PACKAGE) != before
    monkeypatch.undo()
    assert source_digest(PACKAGE) == before


_TWIN = """
import json, sys
from seasons_env.vector.kernels import kernel

@kernel
def add_one(x):
    return x + 1

add_one(1)
print(json.dumps({"hits": sum(add_one.stats.cache_hits.values()), "misses": sum(add_one.stats.cache_misses.values())}))
"""


def _run_twin(folder: Path, cache: Path) -> dict:
    env = {**os.environ, "SEASONS_KERNEL_CACHE": str(cache), "NUMBA_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", "import cache_twin"], env=env, cwd=folder, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_copy_elsewhere_loads_the_kernels_another_checkout_compiled(tmp_path: Path) -> None:
    """Two copies of a module at different paths with different modification times: the second loads the kernel
    the first compiled (numba alone keys its cache by the source folder's absolute path, so it would compile again)."""
    cache = tmp_path / "cache"
    for name, mtime in (("first", 1_000_000_000), ("second", 1_500_000_000)):
        folder = tmp_path / name / "checkout"
        folder.mkdir(parents=True)
        (folder / "cache_twin.py").write_text(_TWIN)
        os.utime(folder / "cache_twin.py", (mtime, mtime))
    assert _run_twin(tmp_path / "first" / "checkout", cache) == {"hits": 0, "misses": 1}
    assert _run_twin(tmp_path / "second" / "checkout", cache) == {"hits": 1, "misses": 0}
