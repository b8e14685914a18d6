"""One compilation of a kernel at a time across processes sharing a cache folder.

Processes that start from an empty cache at once (``seasons compile``'s worker processes, a vector environment's
subprocesses, the test suite's workers) would each compile the same kernels: numba's compiler lock is per process. A
process about to compile a kernel (it was in neither the cache nor the prebuilt kernels) first takes an exclusive
``flock`` on the kernel's lock file in its cache folder (``<kernel's file name base>.lock``, made 0600), waiting while
another process holds it, then looks in the cache again: a kernel another process compiled meanwhile is loaded, not
compiled. The lock is released once the kernel is saved (or its compilation failed). A kernel compiles the kernels it
calls inside its own compilation, so a process holds the locks of one chain of callers at a time and takes only its
callees': two processes never wait for each other.

Where ``flock`` is missing (Windows), the folder cannot be written, or another process has held a lock for
``WAIT_SECONDS``, the kernel compiles without it, as before.
"""

from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

#: The lock files' suffix, after the kernel's file name base.
LOCK_SUFFIX = ".lock"
#: Seconds a process waits for another's compilation of a kernel before compiling it itself.
WAIT_SECONDS = 600.0
#: Seconds between two tries of a held lock.
POLL_SECONDS = 0.005

#: The lock files this process holds: path -> [file descriptor, holders] (a kernel may compile for a second argument
#: type inside its first's compilation: one lock, counted).
_HELD: dict[str, list[int]] = {}


def acquire(path: str, wait: bool = True) -> bool:
    """Hold the lock file ``path``, waiting while another process holds it (without ``wait``: only if nobody does);
    False if it could not be held (then nothing is held)."""
    if path in _HELD:
        _HELD[path][1] += 1
        return True
    if fcntl is None:
        return False
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:  # a read-only folder, a link planted there
        return False
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not _locked(handle):
            if not wait or time.monotonic() > deadline:
                raise TimeoutError(path)
            time.sleep(POLL_SECONDS)
    except OSError:  # a file system without locks, or held by another too long (TimeoutError)
        os.close(handle)
        return False
    except BaseException:  # Ctrl-C while waiting
        os.close(handle)
        raise
    _HELD[path] = [handle, 1]
    return True


def _locked(handle: int) -> bool:
    """Take the exclusive lock on ``handle`` if nobody holds it."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def release(path: str) -> None:
    """Give up one hold of ``path`` (the lock is released with the last)."""
    entry = _HELD.get(path)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _HELD[path]
        os.close(entry[0])  # closing the file releases its lock


def holding(path: str) -> bool:
    """Whether this process holds ``path``."""
    return path in _HELD


def lock_path(cache_folder: str, filename_base: str) -> str:
    """The lock file of the kernel whose cache files are named ``filename_base`` in ``cache_folder``."""
    return os.path.join(cache_folder, filename_base + LOCK_SUFFIX)


def remove_lock_files(root: str) -> int:
    """Delete the lock files under ``root`` (links not followed), once no process compiles there any more (a
    folder of prebuilt kernels, when ``seasons compile --prebuild`` is done with it): how many. Never done in a
    cache in use: a process may wait on a lock file another is about to delete, then hold a lock nobody else sees."""
    removed = 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(LOCK_SUFFIX) and not os.path.islink(path) and os.path.isfile(path):
                os.unlink(path)
                removed += 1
    return removed
