"""Kernels that call other kernels by symbol instead of linking a copy of them in.

numba compiles each function into an LLVM module of its own and, when it calls another compiled function, links the
callee's whole module (with everything the callee links in turn) into the caller's, then optimises the result and
generates its machine code. For the kernels that made every kernel's code be optimised and turned into machine code
once by itself and again inside each caller up to the kernels Python calls: the kernels that deal or step a game each
held the whole rules. Here a kernel's call to another kernel stays a call to the callee's symbol, which the process's
JIT engine resolves to the callee's machine code, made once (``install`` patches numba's code library for that, and
only for a kernel calling a kernel; everything else numba links as before). A kernel that calls no other kernel (a
leaf, mostly a few lines) is still linked in, so that LLVM can inline it: calling every kernel by symbol stepped
batches of 256 games about 6% slower than linking them all, the leaves linked in about 2% (docs/results.md, "Compile
times").

A compiled kernel's machine code then refers to its callees by name, so loading it from the disk cache needs them
loaded first, under the same names: each cache entry carries the kernels it calls (``calls_of``: each one's registry
key, argument types and symbol), and ``load_calls`` loads them before the entry itself (each from the cache, or
compiled). A callee not in the registry, or loaded under another symbol (compiled again since, by another process:
numba's symbols carry a number unique within the process that compiled them), makes the entry stale (``StaleCalls``):
the kernel is compiled again rather than loaded with a call to nowhere.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping

from numba.core import codegen

#: Every compiled kernel defined so far, by ``module:qualified name`` (re-exported as the package's ``KERNELS``).
KERNELS: dict[str, object] = {}

#: The attribute a kernel's code library carries: (registry key, argument types, symbol).
_KERNEL_TAG = "_seasons_kernel"
#: The attribute a kernel's code library carries while it is compiled: the kernels it calls, as (key, args, symbol).
_CALLS = "_seasons_calls"

#: The attribute a kernel's code library carries: how many kernels it linked in (``_is_leaf``).
_LINKED = "_seasons_linked"

#: The kernels being compiled on this thread, innermost last (their libraries' names are their qualified names).
_compiling = threading.local()


class StaleCalls(Exception):
    """A cached kernel calls a kernel that cannot be loaded under the symbol its machine code refers to."""


def tag(library: object, key: str, args: tuple, symbol: str) -> None:
    """Mark ``library`` as the code of the kernel ``key`` compiled for ``args``, its entry point ``symbol``."""
    setattr(library, _KERNEL_TAG, (key, args, symbol))


def calls_of(library: object) -> tuple[tuple[str, tuple, str], ...]:
    """The kernels the code in ``library`` calls by symbol (``install``), in the order it first called them."""
    return tuple(getattr(library, _CALLS, ()))


def links_of(library: object) -> int:
    """How many kernels (leaves) the code in ``library`` has linked in."""
    return getattr(library, _LINKED, 0)


@contextlib.contextmanager
def compiling_kernel(qualname: str) -> Iterator[None]:
    """While a kernel named ``qualname`` compiles on this thread, its calls to kernels are not linked in."""
    stack = getattr(_compiling, "stack", None)
    if stack is None:
        stack = _compiling.stack = []
    stack.append(qualname)
    try:
        yield
    finally:
        stack.pop()


def compiling_depth() -> int:
    """How many kernel compilations this thread is inside (numba compiles a callee inside its caller's)."""
    return len(getattr(_compiling, "stack", ()))


def _kernel_being_lowered(library: object) -> bool:
    """True if ``library`` is the code of the kernel this thread is compiling (the innermost one)."""
    stack = getattr(_compiling, "stack", None)
    return bool(stack) and getattr(library, "name", None) == stack[-1]


_numba_add_linking_library = codegen.CPUCodeLibrary.add_linking_library


def _add_linking_library(self: codegen.CPUCodeLibrary, library: codegen.CPUCodeLibrary) -> None:
    called = getattr(library, _KERNEL_TAG, None)
    if called is None or not _kernel_being_lowered(self) or _is_leaf(library):
        if called is not None:
            setattr(self, _LINKED, getattr(self, _LINKED, 0) + 1)
        _numba_add_linking_library(self, library)
        return
    library._ensure_finalized()  # its machine code is in the JIT engine, where the caller's call resolves
    calls = self.__dict__.setdefault(_CALLS, [])
    if called not in calls:
        calls.append(called)


def _is_leaf(library: object) -> bool:
    """True if the kernel whose code is ``library`` calls no other kernel: a few lines, linked in (inlined)."""
    return not getattr(library, _CALLS, None) and not getattr(library, _LINKED, 0)


def install() -> None:
    """Make a kernel's calls to other kernels calls by symbol (module docstring). Idempotent."""
    codegen.CPUCodeLibrary.add_linking_library = _add_linking_library


def record_calls(library: object, calls: tuple, links: int) -> None:
    """Mark ``library``, loaded from the cache, as calling ``calls`` and having linked ``links`` kernels in (as
    compiled code is marked while lowered)."""
    setattr(library, _CALLS, list(calls))
    setattr(library, _LINKED, links)


def load_calls(calls: tuple, kernels: Mapping[str, object] = KERNELS) -> None:
    """Load (or compile) each kernel in ``calls`` (``calls_of``) from the registry ``kernels``, so that code calling
    them can be loaded; raises ``StaleCalls`` if one is not registered or has another symbol than the one recorded."""
    if not isinstance(calls, tuple):
        raise StaleCalls("its list of calls is not a tuple")
    for key, args, symbol in calls:
        dispatcher = kernels.get(key)
        if dispatcher is None:
            raise StaleCalls(f"calls {key}, which is not a kernel of this program")
        overload = dispatcher.overloads.get(args)
        if overload is None:
            dispatcher.compile(args)
            overload = dispatcher.overloads[args]
        if overload.fndesc.mangled_name != symbol:
            raise StaleCalls(f"calls {key} compiled since under another symbol")
