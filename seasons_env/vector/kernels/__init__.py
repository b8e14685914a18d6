"""The compiled rules kernels: the engine's rules, step by step, for the rows of an ``ArrayState``
(``../arrays.py``), compiled with numba. ``VectorGame(engine="kernels")`` (the default) and ``CompiledGame`` (the
environments' ``engine="kernels"``) step every game with them.

The reference engine (``seasons_env/engine``) stays the specification: each kernel module ports one engine module
(``state_ops.py`` ← ``state.py`` and ``chance.py``, ``flow_kernels.py`` and ``turn_kernels.py`` ← ``flow.py``,
``payment_kernels.py`` ← ``payment.py``, ``cards_basic_kernels.py`` / ``cards_archmage_kernels.py`` ← the card
modules, dispatched by card id from ``hooks.py``; ``hidden_kernels.py`` ← ``hidden.py``; ``observe_rows.py`` ←
``encoding.py``'s observation) and is checked against it by the rules-scenario tests (run on both engines) and,
step by step, by ``tests/test_vector_rules_kernels.py``. ``machine.py`` is the run loop (``Game._run``) over the rows
and dispatches each step kind to the module that owns it; ``batch.py`` (``RulesBatch``) drives it from Python,
``new_game.py`` deals new games, ``single_step.py`` is one game's step and observation in one call,
``batch_step.py`` a ``VectorGame`` step (steps, restarts, every array written) in one call per block of rows,
``row_copy.py`` copies rows, ``row_blocks.py`` runs disjoint blocks of rows on several threads, ``structs.py`` holds
the arrays as one struct and ``tables.py`` the engine's facts as the tables they compile in. Every step kind and
every card has its kernels (each module's ``KINDS_HANDLED`` is generated from the engine's registry).

Kernels as plain Python. With ``SEASONS_KERNELS=python`` in the environment when this package is first imported
(``pytest --kernels=python`` sets it for the tests), ``kernel`` and ``inline_kernel`` return the function itself and
the struct is a plain object (``structs.py``): nothing is compiled, every kernel runs in the Python interpreter, the
same code on the same arrays, so the rules and differential tests start at once and a debugger stops inside a kernel
(slower than the reference engine: a mode for tests and debugging). The results are the same as compiled: where
numba computes in 64 bits and NumPy would keep a small field's type (``np.uint8 + 1`` is a uint8 under NumPy 2), the
kernels cast the field to ``np.int64`` first. NumPy warns on an integer overflow in Python mode, and the tests in
that mode make the warning an error; ``wrapping_kernel`` marks the hashes whose 64-bit arithmetic wraps around on
purpose.

Every kernel is made with ``kernel`` (below). Compiled code is cached on disk (numba's ``cache=True``) in a folder
named by a hash of every source file the kernels are built from and the card data (``CACHE_DIR``): the kernel
modules, and the engine, encoder and array modules whose constants and tables they freeze at compile time. numba
itself only notices a change in the file of the function it compiles, not in the functions it calls from other files
nor in the values of the globals it froze, so the folder changes whenever any of those files does.

Inside that folder each module's kernels are cached under the module's package (``ProjectCacheLocator``), not under
a hash of the source file's absolute path as numba does by default: the folder's name already stands for the sources,
so another checkout or a copy of the same version (a fresh clone, a wheel in another environment, CI's clone) loads
the kernels another compiled instead of compiling them again.

Compile time. numba compiles every kernel into a module of its own and links into it the modules of every kernel it
calls, so that LLVM can inline them; the whole module is then optimised and turned into machine code again. A kernel
deep in the call tree is thus optimised once by itself and once more inside every caller up to the kernel Python calls
(``step_row``, ``apply_rows``, ...), whose optimisation decides the code that runs. With ``SEASONS_KERNEL_INNER_OPT=1``
only a kernel compiled for Python (the outermost of a compilation) gets LLVM's full optimisation (``NUMBA_OPT``, 3 by
default); a kernel compiled because another kernel calls it gets level 1, its code optimised at the full level again
inside its caller's module. That compiles faster but LLVM then inlines differently and the kernels ran up to about a
tenth slower at batch 1, so it is an option, off by default; its kernels are cached in a folder of their own
(``kernels-<digest>-inner1``). The dispatching layers (``machine.run`` and the step dispatch it calls, ``hooks.py``) and
the few-line helpers called with many argument types (``state_ops.push``, ``hand_add``) are ``inline_kernel``: numba
copies their bodies into their callers, so they are not compiled, optimised and turned into machine code once more each.
Kernels also leave out the C-callable wrapper numba makes by default for passing a compiled function as a first-class
value (``no_cfunc_wrapper``), which the kernels never do. All were measured on the first ``VectorGame`` call from an
empty cache and the kernels' speed, both with ``benchmarks/compile_profile.py``; docs/results.md, "Compile times", has
the figures.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
from numba.core import caching, config
from numba.core.compiler_lock import global_compiler_lock

#: The sources the compiled kernels depend on, relative to the package: every module of these folders, and files.
_SOURCE_FOLDERS = ("engine", "vector")
_SOURCE_FILES = ("encoding.py",)


def source_digest(package: Path = Path(__file__).parents[2]) -> str:
    """A hash of the sources and card data under ``package`` (the ``seasons_env`` folder) that the kernels compile
    from, and of numba's version."""
    paths = [path for folder in _SOURCE_FOLDERS for path in (package / folder).rglob("*.py")]
    paths += [package / name for name in _SOURCE_FILES]
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(paths):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update((package / "data" / "seasons_data.json").read_bytes())
    return digest.hexdigest()[:16]


#: The values of ``SEASONS_KERNELS``: ``compiled`` (the default) or ``python``.
KERNEL_MODES = ("compiled", "python")


def _kernel_mode() -> str:
    """``SEASONS_KERNELS`` (module docstring, "Kernels as plain Python"): ``compiled`` when unset."""
    text = os.environ.get("SEASONS_KERNELS", "").strip().lower() or "compiled"
    if text not in KERNEL_MODES:
        raise ValueError(f"SEASONS_KERNELS must be 'compiled' or 'python'; got {os.environ['SEASONS_KERNELS']!r}")
    return text


#: How the kernels run, read once when this package is first imported: ``compiled`` (numba) or ``python`` (each
#: kernel the plain Python function it is written as).
KERNEL_MODE = _kernel_mode()
#: True when the kernels run as plain Python (``SEASONS_KERNELS=python``).
PYTHON_KERNELS = KERNEL_MODE == "python"


def _inner_opt() -> int | None:
    """``SEASONS_KERNEL_INNER_OPT`` (1, 2 or 3), or None when unset (module docstring, "Compile time")."""
    text = os.environ.get("SEASONS_KERNEL_INNER_OPT", "").strip()
    if not text:
        return None
    if text not in ("1", "2", "3"):
        raise ValueError(f"SEASONS_KERNEL_INNER_OPT must be 1, 2 or 3 (LLVM's optimisation level); got {text!r}")
    return int(text)


#: LLVM's optimisation level for a kernel compiled because another kernel calls it; None: numba's level (``NUMBA_OPT``,
#: 3 by default), as for every kernel.
INNER_OPT = _inner_opt()


def _cache_dir() -> Path:
    base = os.environ.get("SEASONS_KERNEL_CACHE") or os.environ.get("NUMBA_CACHE_DIR")
    root = Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "seasons_env"
    # kernels compiled at another inner level are other machine code: a folder of their own
    suffix = "" if INNER_OPT is None else f"-inner{INNER_OPT}"
    return root / f"kernels-{source_digest()}{suffix}"


#: Where compiled kernels are cached (``SEASONS_KERNEL_CACHE`` or ``NUMBA_CACHE_DIR`` chooses the parent folder).
CACHE_DIR = _cache_dir()
# numba reads its cache folder when a function is decorated: set it before any kernel module is imported.
numba.config.CACHE_DIR = str(CACHE_DIR)


class ProjectCacheLocator(caching.UserProvidedCacheLocator):
    """numba's locator for ``numba.config.CACHE_DIR``, with the function's package (``seasons_env.vector.kernels``)
    as the subfolder instead of a hash of its source folder's absolute path. Sound because ``CACHE_DIR`` is named by
    the hash of the sources (``source_digest``) and numba still checks each file's content hash (its source stamp)
    and the function's bytecode; only the path is left out of the key."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        package = py_func.__module__.rpartition(".")[0] or py_func.__module__
        self._cache_path = os.path.join(numba.config.CACHE_DIR, package)


class _ProjectCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = (ProjectCacheLocator, *caching.CompileResultCacheImpl._locator_classes)


class _ProjectFunctionCache(caching.FunctionCache):
    _impl_class = _ProjectCacheImpl


class KernelDispatcher(numba.core.registry.CPUDispatcher):
    """A kernel compiled once per argument type: a call from another kernel with a constant argument types it as
    the constant's type (int64), not as a literal (``Literal[int](1)``), which would compile the kernel and
    everything it calls again for each constant."""

    def get_call_template(self, args, kws):
        args = tuple(numba.core.types.unliteral(a) for a in args)
        kws = {k: numba.core.types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def enable_caching(self) -> None:
        self._cache = _ProjectFunctionCache(self.py_func)

    def compile(self, sig):
        """Compile for ``sig`` (or load it from the cache): at numba's optimisation level when no other kernel is
        being compiled, at ``INNER_OPT`` (if set) when a kernel's compilation needs this one (module docstring)."""
        depth = getattr(_COMPILING, "depth", 0)
        with global_compiler_lock:  # numba's level is process-wide: no other thread compiles meanwhile
            level = config.OPT
            if depth and INNER_OPT is not None:
                config.OPT = config._OptLevel(min(INNER_OPT, int(level)))
            _COMPILING.depth = depth + 1
            try:
                return super().compile(sig)
            finally:
                _COMPILING.depth = depth
                config.OPT = level


#: How many kernel compilations this thread is inside (numba compiles a callee inside its caller's compilation).
_COMPILING = threading.local()


def kernel(func: Callable) -> numba.core.registry.CPUDispatcher | Callable:
    """The decorator of every kernel function: ``numba.njit(cache=True, nogil=True)``, compiled without the Python
    interpreter and cached on disk (in the folder ``numba.config.CACHE_DIR`` names when it decorates), once per
    argument type rather than once per constant argument, at ``INNER_OPT`` when compiled for another kernel (if set),
    and without a C-callable wrapper (``KernelDispatcher``, the module docstring). With ``SEASONS_KERNELS=python``,
    ``func`` itself, run by the Python interpreter."""
    if PYTHON_KERNELS:
        return func
    options = {"nopython": True, "nogil": True, "no_cfunc_wrapper": True}
    dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


def wrapping_kernel(func: Callable) -> numba.core.registry.CPUDispatcher | Callable:
    """A ``kernel`` whose unsigned 64-bit arithmetic wraps around on purpose (the chance stream's and the seeds'
    hashes). Compiled it is a ``kernel``; as plain Python it runs with NumPy's integer-overflow warning off, which
    stays on for every other kernel, where an overflow is a difference from the compiled code (module docstring)."""
    if not PYTHON_KERNELS:
        return kernel(func)

    @functools.wraps(func)
    def wrapping(*args):
        with np.errstate(over="ignore"):
            return func(*args)

    return wrapping


def inline_kernel(func: Callable) -> numba.core.registry.CPUDispatcher:
    """A ``kernel`` whose body numba copies into each kernel that calls it (``inline="always"``) instead of compiling
    it by itself: for a few lines called from many places with argument types that vary (``state_ops.push``), where
    each set of types would otherwise be a compilation of its own. Python can still call it (compiled then). With
    ``SEASONS_KERNELS=python``, ``func`` itself."""
    if PYTHON_KERNELS:
        return func
    options = {"nopython": True, "nogil": True, "no_cfunc_wrapper": True, "inline": "always"}
    dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher
