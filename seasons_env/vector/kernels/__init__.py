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
the arrays as one struct and ``tables.py`` the engine's facts as the tables they compile in. A step kind whose
kernel module does not list it in ``KINDS_HANDLED`` (``SUPPORTED`` in ``machine.py``; the lists are generated from
the engine's registry) is run by the reference engine on that row (unpack, run to the next decision, pack), so a
batch is always exact.

Every kernel is made with ``kernel`` (below). Compiled code is cached on disk (numba's ``cache=True``) in a folder
named by a hash of every source file the kernels are built from and the card data (``CACHE_DIR``): the kernel
modules, and the engine, encoder and array modules whose constants and tables they freeze at compile time. numba
itself only notices a change in the file of the function it compiles, not in the functions it calls from other files
nor in the values of the globals it froze, so the folder changes whenever any of those files does.

Inside that folder each module's kernels are cached under the module's package (``ProjectCacheLocator``), not under
a hash of the source file's absolute path as numba does by default: the folder's name already stands for the sources,
so another checkout or a copy of the same version (a fresh clone, a wheel in another environment, CI's clone) loads
the kernels another compiled instead of compiling them again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import numba
from numba.core import caching

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


def _cache_dir() -> Path:
    base = os.environ.get("SEASONS_KERNEL_CACHE") or os.environ.get("NUMBA_CACHE_DIR")
    root = Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "seasons_env"
    return root / f"kernels-{source_digest()}"


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


def kernel(func: Callable) -> numba.core.registry.CPUDispatcher:
    """The decorator of every kernel function: ``numba.njit(cache=True, nogil=True)``, compiled without the Python
    interpreter and cached on disk (in the folder ``numba.config.CACHE_DIR`` names when it decorates), once per
    argument type rather than once per constant argument (``KernelDispatcher``)."""
    dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions={"nopython": True, "nogil": True})
    dispatcher.enable_caching()
    return dispatcher
