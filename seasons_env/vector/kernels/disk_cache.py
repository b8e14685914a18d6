"""The kernels' disk cache: numba's cache made safe to read, and kernels compiled beforehand.

Each kernel module's kernels are cached in a folder named by a hash of that module's import closure
(``cache_keys.py``); this module reads and writes such a folder.

**Reading it safely.** numba stores each function as an index file (``*.nbi``, the signatures compiled and their data
files) and data files (``*.nbc``, the machine code), both pickled, so whoever can write the cache folder can make the
next process that loads it run any code. ``ProjectFunctionCache`` therefore:

- refuses a cache folder (and each folder above it up to the one the user chose) or a file that another user owns or
  that its group or every user can write (a folder with the sticky bit, such as ``/tmp``, excepted: nobody can replace
  what another user put there), unless ``SEASONS_TRUST_KERNEL_CACHE=1``; the kernels then compile in memory, with one
  warning line saying why;
- reads an index file with an unpickler that builds numba's signature types and nothing else, and checks that every
  data file it names is one of this function's (no path);
- takes any entry it cannot read (empty, truncated, garbage, another program's file, another user's) as damaged: the
  file is renamed ``<name>.set-aside`` and the kernel compiled again, with one warning line, never an exception;
- creates the folders it writes private to the user (mode 0700).

**Prebuilt kernels.** A kernel missing from the user's cache is looked for, read only, in a folder of kernels compiled
beforehand (``prebuilt_root``: ``SEASONS_PREBUILT_KERNELS``, else the package's ``prebuilt_kernels`` folder), laid out
as the cache is and made by ``seasons compile --prebuild FOLDER`` for numba's generic CPU (``NUMBA_CPU_NAME=generic``:
machine code every CPU of the architecture runs). numba keys each entry by the CPU it was compiled for; the folder's
manifest (``prebuilt.json``) names that CPU, and its entries are used when the target triple (architecture and
operating system) is this machine's, the sources' hash (the folder's name), numba's version and Python's (the file
names) being checked as for the cache. Nothing is written there; kernels compiled because one was missing go to the
user's cache as before.

**One compilation at a time.** A process about to compile a kernel first holds the kernel's lock file in the cache
folder and looks again: another process compiling it at the same time saves it, and this one loads it
(``compile_locks``).

**Loading only.** Inside ``load_only()`` a kernel that is not in the cache raises ``NotCached`` (saying which, and
why) instead of compiling: ``seasons compile --check`` runs each step that way, so what it reports is exactly what the
next run loads.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import json
import logging
import os
import pickle
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import numba
from numba.core import caching

from . import compile_locks, linking

#: Set to 1 to load a kernel cache that another user owns or can write (the checks above are then skipped).
TRUST_VARIABLE = "SEASONS_TRUST_KERNEL_CACHE"
#: The suffix a damaged cache file is renamed with.
SET_ASIDE = ".set-aside"

log = logging.getLogger("seasons_env.kernel_cache")

# ------------------------------------------------------------------------------------------------ prebuilt kernels

#: The folder of kernels compiled beforehand (``prebuilt_root``); ``none`` for none.
PREBUILT_VARIABLE = "SEASONS_PREBUILT_KERNELS"
#: The file in that folder naming the target its kernels were compiled for.
PREBUILT_MANIFEST = "prebuilt.json"


def prebuilt_root(default: Path) -> Path | None:
    """The folder of kernels compiled beforehand (``seasons compile --prebuild``, for numba's generic CPU), laid out
    as the user's cache folder is: ``SEASONS_PREBUILT_KERNELS`` (``none``: none), else ``default`` (the package's
    ``prebuilt_kernels`` folder) if it holds a manifest; none when numba compiles with bounds checks, debug
    information or another optimisation level than its default (the test suite's bounds-checked run)."""
    from numba.core import config

    text = os.environ.get(PREBUILT_VARIABLE, "").strip()
    if text.lower() == "none" or config.BOUNDSCHECK or int(config.OPT) != 3 or config.DEBUGINFO_DEFAULT:
        return None  # numba's keys leave these settings out: kernels compiled otherwise must not be loaded
    root = Path(text) if text else default
    return root if (root / PREBUILT_MANIFEST).is_file() else None


@functools.cache
def prebuilt_magic(root: Path) -> tuple[str, str, str] | None:
    """numba's description of the machine code under ``root`` (target triple, CPU name, CPU features: the
    ``magic_tuple`` of the index keys), from its manifest; None if it cannot be read."""
    try:
        magic = json.loads((root / PREBUILT_MANIFEST).read_text(encoding="utf-8"))["magic"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.debug("prebuilt kernels: %s: no readable manifest (%s)", root, error)
        return None
    if not (isinstance(magic, list) and len(magic) == 3 and all(isinstance(part, str) for part in magic)):
        return None
    return (magic[0], magic[1], magic[2])


def write_prebuilt_manifest(root: Path) -> tuple[str, str, str]:
    """Write the manifest of the kernels this process compiled into ``root`` (its ``magic_tuple``)."""
    from numba.core.registry import cpu_target

    magic = tuple(cpu_target.target_context.codegen().magic_tuple())
    (root / PREBUILT_MANIFEST).write_text(json.dumps({"magic": magic, "numba": numba.__version__}) + "\n")
    return magic


# ------------------------------------------------------------------------------------------------ trust


def _distrust(status: os.stat_result, what: str) -> str | None:
    """Why a file or folder with this ``stat`` cannot be trusted with code, or None."""
    if os.environ.get(TRUST_VARIABLE, "").strip() == "1" or not hasattr(os, "geteuid"):
        return None
    if status.st_uid not in (os.geteuid(), 0):
        return f"{what} is owned by another user (uid {status.st_uid})"
    sticky_folder = stat.S_ISDIR(status.st_mode) and status.st_mode & stat.S_ISVTX
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky_folder:
        who = "every user" if status.st_mode & stat.S_IWOTH else "its group"
        return f"{what} can be written by {who} (mode {stat.S_IMODE(status.st_mode):o})"
    return None


def folder_problem(folder: Path, top: Path) -> str | None:
    """Why the cache ``folder`` (inside ``top``, the folder the user chose) must not be loaded from, or None: each
    existing folder from ``top`` down to ``folder`` must be the user's and writable by nobody else."""
    folders = [folder, *(parent for parent in folder.parents if parent.is_relative_to(top))]
    for path in reversed(folders):
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            return None  # made by this process, private (ensure_folder)
        if stat.S_ISLNK(status.st_mode):
            status = os.stat(path)
        problem = _distrust(status, f"the kernel cache folder {path}")
        if problem:
            return problem
    return None


def ensure_folder(folder: Path) -> None:
    """Make ``folder`` and any missing parent, private to the user (0700)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)


# ------------------------------------------------------------------------------------------------ loading only


class NotCached(Exception):
    """Raised inside ``load_only()`` by a kernel that would be compiled: it is not in the cache, or its entry
    cannot be loaded (the message says which and why)."""


_LOAD_ONLY = [0]


@contextlib.contextmanager
def load_only() -> Iterator[None]:
    """Kernels load from the cache or raise ``NotCached``: nothing compiles, nothing in the cache changes."""
    _LOAD_ONLY[0] += 1
    try:
        yield
    finally:
        _LOAD_ONLY[0] -= 1


def loading_only() -> bool:
    """Whether kernels only load now (inside ``load_only()``)."""
    return _LOAD_ONLY[0] > 0


_WARNED: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        log.warning("%s", message)


# ------------------------------------------------------------------------------------------------ reading an index

#: The classes an index file may name besides numba's types (which ``_IndexUnpickler`` checks by class).
_INDEX_GLOBALS = {
    ("builtins", "object"),
    ("copyreg", "_reconstructor"),
    ("numba.core.types.abstract", "_type_reconstructor"),
}


class _IndexUnpickler(pickle.Unpickler):
    """Builds the contents of an index file (strings, bytes, tuples, dicts and numba types) and nothing else: a
    global is allowed only if it is one of ``_INDEX_GLOBALS`` or a numba type class of a module already imported,
    so a planted index cannot call anything."""

    def find_class(self, module: str, name: str) -> object:
        if (module, name) in _INDEX_GLOBALS:
            return super().find_class(module, name)
        value = getattr(sys.modules.get(module), name, None)
        if isinstance(value, type) and issubclass(value, numba.core.types.Type):
            return value
        raise pickle.UnpicklingError(f"an index file may not name {module}.{name}")


class _Stale(Exception):
    """An index another numba release or another version of the source file wrote: numba overwrites it."""


def read_index(data: bytes, version: str, stamp: object, data_names: re.Pattern) -> dict:
    """The signatures -> data file names of an index file's bytes, checked; raises on anything else."""
    stream = io.BytesIO(data)
    found_version = _IndexUnpickler(stream).load()
    if not isinstance(found_version, str):
        raise ValueError("not a numba index file")
    if found_version != version:
        raise _Stale
    content = _IndexUnpickler(stream).load()
    if not (isinstance(content, tuple) and len(content) == 2 and isinstance(content[1], dict)):
        raise ValueError("not a numba index file")
    found_stamp, overloads = content
    if found_stamp != stamp:
        raise _Stale
    for name in overloads.values():
        if not (isinstance(name, str) and data_names.fullmatch(name)):
            raise ValueError(f"names a data file that is not this function's: {name!r}")
    return overloads


def _read_private(path: str, what: str) -> bytes:
    """The bytes of ``path``, a regular file (not a symlink) the user owns and nobody else can write; raises
    FileNotFoundError, or ``_Untrusted`` saying why not."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise
    except OSError as error:  # a symlink (ELOOP) or unreadable
        raise _Untrusted(f"{what} cannot be opened as a file ({error.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise _Untrusted(f"{what} is not a file")
        problem = _distrust(status, what)
        if problem:
            raise _Untrusted(problem)
        return file.read()


class _Untrusted(Exception):
    pass


class GuardedCacheFile(caching.IndexDataCacheFile):
    """numba's index and data files, read safely (module docstring): an entry that cannot be read is set aside and
    counts as missing."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: object) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._data_names = re.compile(re.escape(filename_base) + r"\.[0-9]+\.nbc")

    def read(self, path: str, what: str) -> bytes:
        """The bytes of the file ``path``, if it can be trusted (``_read_private``)."""
        return _read_private(path, what)

    def reject(self, path: str, reason: str) -> None:
        """Set the file ``path`` aside (or, loading only, raise ``NotCached``)."""
        if _LOAD_ONLY[0]:
            raise NotCached(f"{os.path.basename(path)}: {reason}; the next run compiles it again")
        try:
            os.replace(path, path + SET_ASIDE)
            done = f"set aside as {os.path.basename(path)}{SET_ASIDE}"
        except OSError as error:
            done = f"could not be set aside ({error.strerror})"
        _warn_once(path, f"kernel cache: {path}: {reason}; {done}, compiling the kernel again")

    def _load_index(self) -> dict:
        try:
            data = self.read(self._index_path, "the index file")
            return read_index(data, self._version, self._source_stamp, self._data_names)
        except (FileNotFoundError, _Stale):
            return {}
        except _Untrusted as error:
            self.reject(self._index_path, str(error))
        except Exception as error:  # any damage: empty, truncated, garbage, another program's file
            self.reject(self._index_path, f"damaged index ({type(error).__name__}: {error})")
        return {}

    def _load_data(self, name: str) -> object:
        path = self._data_path(name)
        try:
            return pickle.loads(self.read(path, "the data file"))
        except FileNotFoundError:
            return None
        except _Untrusted as error:
            self.reject(path, str(error))
        except Exception as error:
            self.reject(path, f"damaged data ({type(error).__name__}: {error})")
        return None

    def load(self, key: object) -> object:
        name = self._load_index().get(key)
        return None if name is None else self._load_data(name)

    def reject_entry(self, key: object, reason: str) -> None:
        """Set aside the data file of ``key`` (it unpickled but could not be rebuilt)."""
        name = self._load_index().get(key)
        if name is not None:
            self.reject(self._data_path(name), reason)


class PrebuiltCacheFile(GuardedCacheFile):
    """The index and data files of kernels compiled beforehand (``prebuilt_root``), read only: an entry that cannot
    be read counts as missing and is left alone. Their owner is not checked: they come with the package, whose own
    source files the process runs anyway (whoever can write one can write the other)."""

    def read(self, path: str, what: str) -> bytes:
        with open(path, "rb") as file:
            return file.read()

    def reject(self, path: str, reason: str) -> None:
        log.debug("prebuilt kernels: %s: %s; not used", path, reason)


# ------------------------------------------------------------------------------------------------ numba's classes


class ProjectCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Where a kernel is cached: ``folder`` (passed by whoever makes the kernel) / the function's package, not a hash
    of its source folder's absolute path as numba does by default. Sound because the folder is named by the hash of
    the sources the function's module imports (``cache_keys.module_key``) and numba still checks each file's content
    hash (its source stamp) and the function's bytecode; only the path is left out of the key."""

    def __init__(self, py_func, py_file: str, folder: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        package = py_func.__module__.rpartition(".")[0] or py_func.__module__
        self._cache_path = os.path.join(folder, package)

    def get_cache_path(self) -> str:
        return self._cache_path

    def ensure_cache_path(self) -> None:
        ensure_folder(Path(self._cache_path))


class _ProjectCacheImpl(caching.CompileResultCacheImpl):
    def __init__(self, py_func, folder: Path) -> None:  # numba's, with the locator given
        self._lineno = py_func.__code__.co_firstlineno
        source = inspect.getfile(py_func)
        self._locator = ProjectCacheLocator(py_func, source, folder)
        fullname = f"{os.path.splitext(os.path.basename(source))[0]}.{py_func.__qualname__}"
        self._filename_base = self.get_filename_base(fullname, getattr(sys, "abiflags", ""))

    def reduce(self, cres) -> tuple:
        """numba's cached form, the kernels the code calls by symbol and how many it linked in (``linking``)."""
        return linking.calls_of(cres.library), linking.links_of(cres.library), super().reduce(cres)

    def rebuild(self, target_context, payload):
        """The kernels the code calls loaded first (``linking.load_calls``; ``StaleCalls`` if they cannot be), then
        numba's."""
        calls, links, cached = payload
        linking.load_calls(calls)
        cres = super().rebuild(target_context, cached)
        linking.record_calls(cres.library, calls, links)
        return cres


def _brief(sig: object) -> str:
    """A signature's argument types, each named by its class when its full name is long (the arrays' struct)."""
    args = sig if isinstance(sig, tuple) else getattr(sig, "args", (sig,))
    return "(" + ", ".join(str(a) if len(str(a)) <= 60 else type(a).__name__ for a in args) + ")"


class ProjectFunctionCache(caching.FunctionCache):
    """numba's function cache in ``folder`` (``ProjectCacheLocator``), read through ``GuardedCacheFile``, refusing
    an untrusted folder (module docstring); ``top`` is the folder the user chose (``SEASONS_KERNEL_CACHE``), in which
    ``folder`` is made. A kernel missing there is looked for in the same place under ``prebuilt`` (``prebuilt_root``),
    read only, and loaded from there if it was compiled for this machine's target triple (``prebuilt_magic``)."""

    def __init__(self, py_func, folder: Path, top: Path, prebuilt: Path | None = None) -> None:  # numba's, and more
        self._name = repr(py_func)
        self._py_func = py_func
        self._qualified_name = f"{py_func.__module__}.{py_func.__qualname__}"
        self._impl = _ProjectCacheImpl(py_func, folder)
        self._cache_path = self._impl.locator.get_cache_path()
        # the folders checked: from the one the user chose (or the folder's parent, for a folder elsewhere) down
        self._top = top if Path(folder).is_relative_to(top) else Path(folder).parent
        stamp = self._impl.locator.get_source_stamp()
        self._cache_file = GuardedCacheFile(self._cache_path, self._impl.filename_base, stamp)
        self._lock_path = compile_locks.lock_path(self._cache_path, self._impl.filename_base)
        self._locked: set[str] = set()  # the signatures this process compiles holding the lock
        self._prebuilt, self._prebuilt_file = None, None
        if prebuilt is not None and Path(folder).is_relative_to(top):
            self._prebuilt = prebuilt
            path = os.path.join(prebuilt, Path(self._cache_path).relative_to(top))
            self._prebuilt_file = PrebuiltCacheFile(path, self._impl.filename_base, stamp)
        self.enable()

    def _folder_trusted(self) -> bool:
        problem = folder_problem(Path(self._cache_path), self._top)
        if problem is None:
            return True
        if _LOAD_ONLY[0]:
            raise NotCached(f"{problem}: not loaded (set {TRUST_VARIABLE}=1 to trust it)")
        _warn_once(
            f"folder:{problem}",
            f"kernel cache not used, kernels compile in memory: {problem} (make it yours and private, chmod 700, "
            f"or set {TRUST_VARIABLE}=1 to trust it)",
        )
        return False

    def load_overload(self, sig, target_context):
        data = self._load_overload(sig, target_context)
        if data is None and self._lock_for_compile(sig):
            data = self._load_overload(sig, target_context)  # compiled by another process while this one waited
            if data is not None:
                self.compile_done(sig)
        return data

    def _lock_for_compile(self, sig) -> bool:
        """Hold this kernel's compile lock (``compile_locks``) before compiling it for ``sig``; False if not held."""
        if not self._enabled or not self._folder_trusted():
            return False
        try:
            self._impl.locator.ensure_cache_path()
        except OSError:
            return False
        if not compile_locks.acquire(self._lock_path):
            return False
        self._locked.add(str(sig))
        return True

    def compile_done(self, sig) -> None:
        """Release the compile lock held for ``sig``, if any (the kernel saved, loaded after the wait, or its
        compilation failed)."""
        if str(sig) in self._locked:
            self._locked.discard(str(sig))
            compile_locks.release(self._lock_path)

    def _load_overload(self, sig, target_context):
        target_context.refresh()
        data = None
        if self._enabled and self._folder_trusted():
            key = self._index_key(sig, target_context.codegen())
            data = self._cache_file.load(key)
            if data is not None:
                try:
                    data = self._impl.rebuild(target_context, data)
                except NotCached:  # loading only, and a kernel it calls is not compiled
                    raise
                except linking.StaleCalls as error:  # not damaged: compiled again, its entry replaced
                    if _LOAD_ONLY[0]:
                        raise NotCached(f"{self._qualified_name} for {_brief(sig)} {error}") from None
                    log.debug("kernel cache: %s for %s compiled again: %s", self._name, sig, error)
                    data = None
                except Exception as error:
                    self._cache_file.reject_entry(key, f"damaged data ({type(error).__name__}: {error})")
                    data = None
        if data is None and self._prebuilt_file is not None:
            data = self._load_prebuilt(sig, target_context)
        if data is None and _LOAD_ONLY[0]:
            raise NotCached(f"{self._qualified_name} is not compiled for {_brief(sig)}")
        return data

    def _load_prebuilt(self, sig, target_context) -> object:
        """The kernel for ``sig`` from the prebuilt folder, or None (not there, another target, unreadable)."""
        codegen = target_context.codegen()
        magic = prebuilt_magic(self._prebuilt)
        if magic is None or magic[0] != codegen.magic_tuple()[0]:
            return None
        sig_key, _, hashes = self._index_key(sig, codegen)
        data = self._prebuilt_file.load((sig_key, magic, hashes))
        if data is None:
            return None
        try:
            return self._impl.rebuild(target_context, data)
        except Exception as error:
            log.debug("prebuilt kernels: %s for %s not used: %s", self._name, sig, error)
            return None

    def save_overload(self, sig, data) -> None:
        try:
            if self._folder_trusted():
                self._save_overload(sig, data)
        except OSError as error:  # a full disk or a read-only folder: the kernel still runs, compiled in memory
            _warn_once(f"save:{self._cache_path}", f"kernel cache: cannot write {self._cache_path}: {error}")
        finally:
            self.compile_done(sig)
