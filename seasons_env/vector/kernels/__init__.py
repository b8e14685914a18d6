"""The compiled rules kernels: the engine's rules, step by step, for the rows of an ``ArrayState``
(``../state/arrays.py``), compiled with numba. ``VectorGame(engine="kernels")`` (the default) and ``CompiledGame`` (the
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
``row_copy.py`` copies rows, ``row_blocks.py`` runs disjoint blocks of rows on several threads (``threaded_step.py``:
a batch's step there, each thread's part one compiled call), ``structs.py`` holds
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

Every kernel is made with ``kernel`` (below), or with ``kernel_in(folder)`` for kernels cached in a folder of their
own (the compiled agents'). Compiled code is cached on disk (numba's ``cache=True``) in ``CACHE_TOP``, each kernel
module's kernels in a folder of their own, ``kernels-<key>``, the key a hash of the files that module imports,
transitively, of the card data and of numba's version (``module_folder``, ``cache_keys.py``): a kernel's machine code
embeds the constants it reads and calls the kernels it uses, all from modules it imports, so an edit recompiles exactly
the kernel modules that import the edited file (an observation edit the observation writer and its callers; a card
amount the card kernels and every module that reads the engine's facts; a kernel module itself and its importers)
and leaves the others' compiled code in place. Inside each folder the kernels are cached under the module's package
(``disk_cache.ProjectCacheLocator``), not under a hash of the source file's absolute path as numba does by default, so
another checkout or a copy of the same version (a fresh clone, a wheel in another environment, CI's clone) loads the
kernels another compiled instead of compiling them again. A kernel missing there is loaded, if it can be, from
kernels compiled beforehand for numba's generic CPU and shipped read only (``PREBUILT_DIR``, laid out as the cache
is). The cache is read safely: a damaged entry is set aside and compiled again, a folder or file another user could
have written is not loaded (``disk_cache``).

Compile time. numba compiles every function into a module of its own and, by default, links into it the modules of every
function it calls (so that LLVM can inline them), then optimises the whole and turns it into machine code again: a
kernel deep in the call tree would be optimised and turned into machine code once by itself and once more inside every
caller up to the kernel Python calls. A kernel's call to a kernel that calls others is instead a call to the callee's
symbol, resolved to the callee's machine code, made once (``linking.py``; a kernel that calls no other, and numba's own
helpers, are still linked in, to be inlined): the kernels that deal or step a game no longer each hold a copy of the
whole rules, and a kernel's cache entry names the kernels it calls so that they are loaded before it. The few-line
helpers are ``inline_kernel`` (below), copied into their callers. LLVM optimises the kernels at level 1 (``KERNEL_OPT``;
``SEASONS_KERNEL_OPT=2`` or ``3`` for another, ``NUMBA_OPT`` being left to the rest of a program's numba code): they ran
as fast as at numba's default level 3 and compiled in about three quarters of the time. With
``SEASONS_KERNEL_INNER_OPT`` set below that level, a kernel compiled because another kernel calls it gets the lower
level, and its code runs at that level. Kernels compiled at another level are cached in folders of their own
(``kernels-<key>-opt3``, ``kernels-<key>-opt3-inner1``).

The step dispatch (``machine._resolve`` and its kin, ``hooks.py``) and the few-line helpers called with many argument
types (``state_ops.push``, ``hand_add``) are ``inline_kernel``: numba copies their bodies into their callers, so they
are not compiled, optimised and turned into machine code once more each.
Kernels also leave out the C-callable wrapper numba makes by default for passing a compiled function as a first-class
value (``no_cfunc_wrapper``), which the kernels never do. All were measured on the first ``VectorGame`` call from an
empty cache and the kernels' speed, both with ``benchmarks/compile_profile.py``; docs/results.md, "Compile times", has
the figures.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numba
import numpy as np
from numba.core import config
from numba.core.compiler_lock import global_compiler_lock

from . import linking
from .cache_keys import closure_key, module_key, rules_modules
from .disk_cache import (
    PREBUILT_VARIABLE,
    TRUST_VARIABLE,
    NotCached,
    ProjectCacheLocator,
    ProjectFunctionCache,
    folder_problem,
    load_only,
    prebuilt_root,
)

__all__ = [
    "CACHE_TOP",
    "DEFAULT_KERNEL_OPT",
    "INNER_OPT",
    "KERNEL_MODE",
    "KERNEL_OPT",
    "LIBRARY",
    "PREBUILT_DIR",
    "PREBUILT_VARIABLE",
    "PYTHON_KERNELS",
    "TRUST_VARIABLE",
    "NotCached",
    "ProjectCacheLocator",
    "cache_folder",
    "cache_problem",
    "inline_kernel",
    "kernel",
    "kernel_in",
    "load_only",
    "module_folder",
    "rules_folders",
    "wrapping_kernel",
]

#: The ``seasons_env`` folder the kernels are read from.
LIBRARY = Path(__file__).resolve().parents[2]


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
if not PYTHON_KERNELS:
    linking.install()  # a kernel calls the kernels it uses by symbol (module docstring, "Compile time")


def _opt_level(variable: str) -> int | None:
    """The environment variable ``variable`` as an LLVM optimisation level (1, 2 or 3), or None when unset (module
    docstring, "Compile time"); level 0 is refused: numba cannot cache much of the code it makes."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return None
    if text not in ("1", "2", "3"):
        raise ValueError(f"{variable} must be 1, 2 or 3 (LLVM's optimisation level); got {text!r}")
    return int(text)


#: The kernels' LLVM optimisation level when ``SEASONS_KERNEL_OPT`` is unset: they run as fast as at level 3 and
#: compile in about three quarters of the time (docs/results.md, "Compile times").
DEFAULT_KERNEL_OPT = 1
#: LLVM's optimisation level for every kernel's code (``SEASONS_KERNEL_OPT``, else ``DEFAULT_KERNEL_OPT``), whatever
#: numba's own level (``NUMBA_OPT``, which the rest of a program's numba code keeps).
KERNEL_OPT = _opt_level("SEASONS_KERNEL_OPT") or DEFAULT_KERNEL_OPT
#: LLVM's optimisation level for a kernel compiled because another kernel calls it, if lower than ``KERNEL_OPT``
#: (``SEASONS_KERNEL_INNER_OPT``); None: ``KERNEL_OPT``, as for every kernel.
INNER_OPT = _opt_level("SEASONS_KERNEL_INNER_OPT")


def _cache_top() -> Path:
    base = os.environ.get("SEASONS_KERNEL_CACHE") or os.environ.get("NUMBA_CACHE_DIR")
    return Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "seasons_env"


#: The folder every kernel cache folder is made in (``SEASONS_KERNEL_CACHE`` or ``NUMBA_CACHE_DIR``, else
#: ``~/.cache/seasons_env``).
CACHE_TOP = _cache_top()
#: The kernels compiled beforehand, read only, looked in for a kernel missing from the cache (``disk_cache``,
#: "Prebuilt kernels"): ``SEASONS_PREBUILT_KERNELS``, else the package's ``prebuilt_kernels`` folder; None if neither
#: holds any.
PREBUILT_DIR = prebuilt_root(LIBRARY / "prebuilt_kernels")


def _folder_named(key: str, label: str = "") -> Path:
    # kernels compiled at another level are other machine code: a folder of their own
    suffix = "" if KERNEL_OPT == DEFAULT_KERNEL_OPT else f"-opt{KERNEL_OPT}"
    suffix += "" if INNER_OPT is None else f"-inner{INNER_OPT}"
    return CACHE_TOP / f"kernels-{key}{f'-{label}' if label else ''}{suffix}"


def cache_folder(entries: Iterable[Path], roots: Mapping[str, Path], label: str = "") -> Path:
    """The cache folder of kernels defined in the files ``entries``: ``kernels-<key>[-<label>][-inner<N>]`` in
    ``CACHE_TOP``, the key a hash of the files they import under ``roots`` (package name -> folder; ``seasons_env``,
    the library, always counts: ``LIBRARY`` unless ``roots`` names another copy), the card data and numba's version
    (``cache_keys.closure_key``)."""
    roots = {"seasons_env": LIBRARY, **roots}
    return _folder_named(closure_key(entries, roots, roots["seasons_env"]), label)


@functools.cache
def _module_folder(module: str, file: Path) -> Path:
    return _folder_named(module_key(module, file, LIBRARY))


def module_folder(module: str, file: Path | None = None) -> Path:
    """The cache folder of the kernels defined in ``module`` (dotted name; ``file``: its source file, found among
    the rules kernels' when not given), named by its own import closure (``cache_keys.module_key``)."""
    return _module_folder(module, Path(file).resolve() if file is not None else rules_modules(LIBRARY)[module])


def rules_folders() -> dict[str, Path]:
    """The cache folder of each rules kernel module (dotted name -> folder)."""
    return {module: module_folder(module, file) for module, file in rules_modules(LIBRARY).items()}


def cache_problem(folder: Path | None = None) -> str | None:
    """Why the kernel cache ``folder`` will not be loaded from (another user owns it or can write it), or None; by
    default ``CACHE_TOP`` and every rules kernel module's folder."""
    folders = [folder] if folder is not None else [CACHE_TOP, *rules_folders().values()]
    return next((problem for path in folders if (problem := folder_problem(path, CACHE_TOP))), None)


class KernelDispatcher(numba.core.registry.CPUDispatcher):
    """A kernel compiled once per argument type: a call from another kernel with a constant argument types it as
    the constant's type (int64), not as a literal (``Literal[int](1)``), which would compile the kernel and
    everything it calls again for each constant."""

    def get_call_template(self, args, kws):
        args = tuple(numba.core.types.unliteral(a) for a in args)
        kws = {k: numba.core.types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    @property
    def registry_key(self) -> str:
        """``module:qualified name``, its key in ``KERNELS``."""
        return f"{self.py_func.__module__}:{self.py_func.__qualname__}"

    def cache_in(self, folder: Path) -> None:
        """Cache this kernel's compiled code in ``folder`` (``ProjectFunctionCache``)."""
        self._cache = ProjectFunctionCache(self.py_func, folder, CACHE_TOP, PREBUILT_DIR)

    def compile(self, sig):
        """Compile for ``sig`` (or load it from the cache): at ``KERNEL_OPT`` when no other kernel is being compiled,
        at ``INNER_OPT`` (if set and lower) when a kernel's compilation needs this one (module docstring)."""
        with global_compiler_lock:  # numba's level is process-wide: no other thread compiles meanwhile
            level = config.OPT
            inner = linking.compiling_depth() > 0 and INNER_OPT is not None
            config.OPT = config._OptLevel(min(INNER_OPT, KERNEL_OPT) if inner else KERNEL_OPT)
            try:
                with linking.compiling_kernel(self.py_func.__qualname__):
                    return super().compile(sig)
            except BaseException:
                getattr(self._cache, "compile_done", lambda sig: None)(sig)  # the cross-process lock (``disk_cache``)
                raise
            finally:
                config.OPT = level

    def add_overload(self, cres) -> None:
        """numba's, and the code marked as this kernel's, so that kernels calling it call its symbol (``linking``)."""
        linking.tag(cres.library, self.registry_key, tuple(cres.signature.args), cres.fndesc.mangled_name)
        super().add_overload(cres)


#: Every compiled kernel defined so far, by ``module:qualified name`` (``compile_order.py`` looks kernels up here, and
#: a cached kernel's callees are loaded from here: ``linking``).
KERNELS: dict[str, KernelDispatcher] = linking.KERNELS


def kernel_in(
    folder: Path | None = None, inline: bool = False, wrapping: bool = False
) -> Callable[[Callable], numba.core.registry.CPUDispatcher | Callable]:
    """The ``kernel`` decorator (``inline_kernel`` with ``inline``, ``wrapping_kernel`` with ``wrapping``) for kernels
    cached in ``folder``; None (``kernel``): the folder of each kernel's own module (``module_folder``), named by that
    module's import closure. With ``SEASONS_KERNELS=python`` it returns the function itself, run by the Python
    interpreter."""
    options = {"nopython": True, "nogil": True, "no_cfunc_wrapper": True}
    if inline:
        options["inline"] = "always"

    def decorate(func: Callable) -> numba.core.registry.CPUDispatcher | Callable:
        if PYTHON_KERNELS:
            if not wrapping:
                return func

            @functools.wraps(func)
            def wraps_around(*args):
                with np.errstate(over="ignore"):
                    return func(*args)

            return wraps_around
        dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions=dict(options))
        dispatcher.cache_in(folder if folder is not None else module_folder(func.__module__, func.__code__.co_filename))
        KERNELS[dispatcher.registry_key] = dispatcher
        return dispatcher

    return decorate


#: The decorator of every rules kernel: ``numba.njit(cache=True, nogil=True)``, compiled without the Python
#: interpreter and cached on disk in its module's folder (``module_folder``), once per argument type rather than once
#: per constant argument, at LLVM level ``KERNEL_OPT`` (``INNER_OPT`` when compiled for another kernel, if set), and
#: without a C-callable wrapper (``KernelDispatcher``, the module docstring). With ``SEASONS_KERNELS=python``, the
#: function itself.
kernel = kernel_in()
#: A ``kernel`` whose body numba copies into each kernel that calls it (``inline="always"``) instead of compiling it by
#: itself: for a few lines called from many places with argument types that vary (``state_ops.push``), where each set
#: of types would otherwise be a compilation of its own. Python can still call it (compiled then).
inline_kernel = kernel_in(inline=True)
#: A ``kernel`` whose unsigned 64-bit arithmetic wraps around on purpose (the chance stream's and the seeds' hashes).
#: Compiled it is a ``kernel``; as plain Python it runs with NumPy's integer-overflow warning off, which stays on for
#: every other kernel, where an overflow is a difference from the compiled code (module docstring).
wrapping_kernel = kernel_in(wrapping=True)
