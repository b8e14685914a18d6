"""The compiled kernels' disk cache: valid across checkouts of the same sources (``ProjectCacheLocator``), and
``seasons compile`` leaves every kernel a fresh process uses in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_TWIN = '''
import json, sys
from seasons_env.vector.kernels import kernel

@kernel
def add_one(x):
    return x + 1

add_one(1)
print(json.dumps({"hits": sum(add_one.stats.cache_hits.values()), "misses": sum(add_one.stats.cache_misses.values())}))
'''


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
