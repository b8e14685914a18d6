"""A second process compiling the rules kernels beside a program's first use of the compiled engine.

numba compiles one function at a time in a process: from an empty kernel cache, the first ``VectorGame`` or
``engine="kernels"`` environment compiles the rules kernels depth first, on one core. Where the program may run on two
cores or more, that first use starts one helper process (``python -m seasons_env.vector.compile_helper PID MODE``)
which compiles the same kernels from the other end of their list (``compile_order``, as ``seasons compile``'s
``rules-from-the-end`` step does), then, for the batched core, the kernels that step the games, those of the
program's first batch first (MODE ``one-game`` or ``batch``: only the kernels that kind of first use compiles, as the
list marks them; ``rules`` for a compiled agent: the rules kernels only);
the compile locks (``kernels/compile_locks.py``) keep each kernel to one
compilation, the process that comes second loading it from the cache.

The helper is started at most once a program, and only when it can help: the kernels compile (not
``SEASONS_KERNELS=python``), the kernel cache is usable and the helper's first kernel is not in it (nor among the
prebuilt kernels), ``flock`` exists (not on Windows), and the program may use two cores. It writes nothing but the
cache, prints nothing, and stops once its list is done or the program that started it has ended (checked before each
kernel); a helper already running for the same cache (a lock file) makes another one stop at once.
``SEASONS_COMPILE_HELPER=0`` turns it off (``1``, the default, on).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from .kernels.row_blocks import usable_cores

#: The environment variable that turns the helper off (``0``) or on (``1``, the default).
HELPER_VARIABLE = "SEASONS_COMPILE_HELPER"
#: The helper's lock file in the cache folder (``kernels.CACHE_TOP``): one helper a cache at a time.
LOCK_NAME = "compile-helper.lock"
#: What a program compiles (``start_compile_helper``): one-game batches, larger ones, or only the rules (an agent).
MODES = ("one-game", "batch", "rules")

_STARTED: list[subprocess.Popen | None] = []  # the helper this program started (or None: it decided not to)


def helper_enabled() -> bool:
    """``SEASONS_COMPILE_HELPER``: True when unset or ``1``, False for ``0``; ValueError for anything else."""
    text = os.environ.get(HELPER_VARIABLE, "").strip()
    if text not in ("", "0", "1"):
        raise ValueError(f"{HELPER_VARIABLE} must be 0 (no helper process) or 1 (the default); got {text!r}")
    return text != "0"


def _first_step(mode: str) -> str | None:
    """The kind of batch the program steps (``compile_order.STEP_KERNELS``), None for ``"rules"``."""
    from .compile_order import STEP_KERNELS

    return mode if mode in STEP_KERNELS else None


def _kernels_cold(mode: str) -> bool:
    """Whether the helper's first kernel in ``mode`` is missing from the cache and the prebuilt kernels (loaded if
    there)."""
    from .compile_order import helped_signatures
    from .kernels import KERNELS, NotCached, load_only

    signatures = helped_signatures(first_step=_first_step(mode))
    if not signatures:
        return False
    name, signature = signatures[0]
    try:
        with load_only():
            KERNELS[name].compile(signature)
    except NotCached:
        return True
    except Exception:  # a stale list: nothing to help with
        return False
    return False


def _should_start(mode: str) -> bool:
    from .kernels import CACHE_TOP, PYTHON_KERNELS, cache_problem, compile_locks
    from .kernels.disk_cache import loading_only

    if PYTHON_KERNELS or not helper_enabled() or usable_cores() < 2 or not sys.executable:
        return False
    if compile_locks.fcntl is None or loading_only() or cache_problem(CACHE_TOP) is not None:
        return False
    return _kernels_cold(mode)


def start_compile_helper(mode: str) -> subprocess.Popen | None:
    """Start the helper process if it can help (the module docstring), once a program: the process, or None.
    ``mode`` (``MODES``) says what the program compiles: the batched core stepping batches of one game
    (``"one-game"``) or more (``"batch"``), whose stepping kernel the helper compiles first after the rules', or a
    compiled agent (``"rules"``: the rules kernels only)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    if _STARTED:
        return _STARTED[0]
    process = None
    if _should_start(mode):
        from .kernels import LIBRARY

        # the helper imports this copy of the library, whatever the program's sys.path
        path = os.pathsep.join(filter(None, [str(LIBRARY.parent), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, HELPER_VARIABLE: "0"}
        command = [sys.executable, "-m", __name__, str(os.getpid()), mode]
        try:
            process = subprocess.Popen(
                command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        except OSError:  # no process can be started here: the program compiles alone
            process = None
        else:
            threading.Thread(target=process.wait, name="seasons-compile-helper", daemon=True).start()  # reaped
    _STARTED.append(process)
    return process


def run_helper(parent: int, mode: str = "batch") -> int:
    """The helper's work for the program ``parent`` (a process id) in ``mode`` (``MODES``): how many kernel
    signatures it compiled or loaded; 0 at once if another helper holds the cache's helper lock or ``parent`` has
    already ended."""
    from .compile_order import compile_from_the_end
    from .kernels import CACHE_TOP, compile_locks
    from .kernels.disk_cache import ensure_folder

    def parent_running() -> bool:
        return os.getppid() == parent

    if not parent_running():
        return 0
    try:
        ensure_folder(CACHE_TOP)
    except OSError:
        return 0
    lock = str(CACHE_TOP / LOCK_NAME)
    if not compile_locks.acquire(lock, wait=False):
        return 0
    try:
        return compile_from_the_end(keep_going=parent_running, first_step=_first_step(mode))
    finally:
        compile_locks.release(lock)


def main(argv: list[str] | None = None) -> int:
    """``python -m seasons_env.vector.compile_helper PARENT_PID MODE`` (``MODES``)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[0].isdigit() or args[1] not in MODES:
        print(f"usage: python -m seasons_env.vector.compile_helper PARENT_PID {'|'.join(MODES)}", file=sys.stderr)
        return 2
    run_helper(int(args[0]), args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
