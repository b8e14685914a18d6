"""Processes sharing a cache folder compile a kernel once (``kernels/compile_locks.py``): one compiles it holding the
kernel's lock file, another wanting it meanwhile waits and loads what the first saved. Each case runs child
processes with a cache folder of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from installed import installed_environment

from seasons_env.vector.kernels import compile_locks

_KERNEL = """
import json, os, sys, time
from seasons_env.vector.kernels import disk_cache, kernel

if os.environ.get("SLOW_SAVE"):  # a long compilation: the lock held for a while before the kernel is saved
    save = disk_cache.ProjectFunctionCache.save_overload

    def slow_save(self, sig, data):
        time.sleep(float(os.environ["SLOW_SAVE"]))
        return save(self, sig, data)

    disk_cache.ProjectFunctionCache.save_overload = slow_save

@kernel
def add_three(x):
    return x + 3

print("started", flush=True)
assert add_three(1) == 4
print(json.dumps({"hits": sum(add_three.stats.cache_hits.values()),
                  "misses": sum(add_three.stats.cache_misses.values())}))
"""


def _start(folder: Path, cache: Path, **environment: str) -> subprocess.Popen:
    env = installed_environment({"NUMBA_NUM_THREADS": "1", "SEASONS_KERNEL_CACHE": str(cache), **environment})
    env["SEASONS_PREBUILT_KERNELS"] = "none"
    env["PYTHONPATH"] = str(folder)  # the child module only: the package is the installed one
    return subprocess.Popen(
        [sys.executable, "-c", "import locked_kernel"],
        env=env,
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _result(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0 and "Traceback" not in err, err
    return json.loads(out.strip().splitlines()[-1])


def test_a_kernel_another_process_is_compiling_is_waited_for_and_loaded(tmp_path: Path) -> None:
    folder, cache = tmp_path / "code", tmp_path / "cache"
    folder.mkdir()
    (folder / "locked_kernel.py").write_text(_KERNEL)
    first = _start(folder, cache, SLOW_SAVE="4")
    assert first.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 120
    while not list(cache.rglob("*add_three*.lock")) and time.monotonic() < deadline:  # the first holds the lock
        time.sleep(0.05)
    second = _start(folder, cache)
    assert _result(second) == {"hits": 1, "misses": 0}  # waited, then loaded what the first saved
    assert _result(first) == {"hits": 0, "misses": 1}
    assert len(list(cache.rglob("*add_three*.nbc"))) == 1  # compiled and saved once
    (lock,) = cache.rglob("*add_three*.lock")
    assert lock.stat().st_mode & 0o777 == 0o600


def test_a_lock_is_taken_once_per_process_and_released_with_the_last_hold(tmp_path: Path) -> None:
    path = str(tmp_path / "k.lock")
    assert compile_locks.acquire(path) and compile_locks.acquire(path)  # a kernel compiling inside its own compile
    compile_locks.release(path)
    assert compile_locks.holding(path)
    probe = [sys.executable, "-c", _PROBE, path]
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "held"
    compile_locks.release(path)
    assert not compile_locks.holding(path)
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "free"
    compile_locks.release(path)  # one release too many: nothing happens


def test_a_lock_taken_without_waiting_is_held_only_when_nobody_holds_it(tmp_path: Path) -> None:
    path = str(tmp_path / "helper.lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, path], stdout=subprocess.PIPE, text=True, env=installed_environment()
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert not compile_locks.acquire(path, wait=False) and not compile_locks.holding(path)  # no wait, nothing held
    finally:
        holder.kill()
        holder.wait()
    assert compile_locks.acquire(path, wait=False) and compile_locks.holding(path)
    probe = [sys.executable, "-c", _PROBE, path]
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "held"
    compile_locks.release(path)
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "free"


_HOLD = """
import sys, time
from seasons_env.vector.kernels import compile_locks
assert compile_locks.acquire(sys.argv[1], wait=False)
print("holding", flush=True)
time.sleep(60)
"""

_PROBE = """
import fcntl, os, sys
handle = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except BlockingIOError:
    print("held")
"""


def test_a_folder_that_cannot_be_written_compiles_without_a_lock(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anyway: a missing folder stands in
            folder = tmp_path / "missing" / "folder"
        assert not compile_locks.acquire(str(folder / "k.lock"))
        assert not compile_locks.holding(str(folder / "k.lock"))
    finally:
        (tmp_path / "read-only").chmod(0o700)


def test_removing_lock_files_deletes_only_them_and_follows_no_link(tmp_path: Path) -> None:
    root, outside = tmp_path / "prebuilt", tmp_path / "outside"
    (root / "kernels").mkdir(parents=True)
    outside.mkdir()
    kept = [root / "kernels" / "k-1.py311.nbi", root / "kernels" / "k-1.py311.nbc", outside / "theirs.lock"]
    for path in [*kept, root / "kernels" / "k-1.py311.lock", root / "k-2.py311.lock"]:
        path.write_bytes(b"x")
    (root / "kernels" / "linked").symlink_to(outside, target_is_directory=True)
    (root / "k-3.py311.lock").symlink_to(outside / "theirs.lock")  # a link is not a lock file of this folder
    assert compile_locks.remove_lock_files(str(root)) == 2
    assert all(path.exists() for path in kept)
    assert sorted(path.name for path in root.rglob("*.lock")) == ["k-3.py311.lock"]
