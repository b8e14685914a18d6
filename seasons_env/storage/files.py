"""Files a user keeps (arena records, replays, pictures, game records) are written all at once.

``replace_atomically`` writes into a temporary file beside the target (one file system, so the rename is
atomic), fsyncs it, gives it the target's mode (or a plain new file's), renames it over the target and fsyncs
the folder: a kill at any moment leaves the old file or the new one, never a part of either. A file written
with ``mode`` (a secret: 0600) has that mode from its creation on, the temporary file included.

A kill can leave the temporary file itself (``.NAME.XXXXXXXX.tmpSUFFIX`` beside ``NAME``). Its writer holds a
lock on it (``flock``) until the rename, and the lock dies with the process: the next write of ``NAME`` deletes
the temporaries of ``NAME``'s own pattern that nobody holds and that were not written to for a minute, and
nothing else.

Only a regular file is replaced. A symbolic link stays a link: the file it points to is replaced. A named pipe
or a character device (``/dev/null``, a terminal) is written into, never replaced. Anything else (a folder, a
block device, a socket) is refused with ``OutputPathError``. ``check_output_file`` and ``check_output_folder``
say before any work starts whether a file or a folder of files can be written where it is to go.

Ctrl-C or SIGTERM arriving while the temporary file is written is acted on once its writer returns (then the
temporary is removed): a writer's own cleanup may fail on a half-made file and hide the stop behind its error
(``zipfile`` interrupted inside ``ZipFile.open`` raises a ValueError as the archive closes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..common.interrupts import held_signals

try:
    import fcntl
except ImportError:  # Windows: no flock; a temporary is then stale only when old (STALE_UNLOCKED_SECONDS)
    fcntl = None  # type: ignore[assignment]

#: A temporary nobody holds a lock on is deleted once it has not been written to for this long (the gap between
#: its creation and its writer's lock is microseconds; a minute leaves room for clocks and slow file systems).
STALE_SECONDS = 60.0
#: Where locks are not available, a temporary is taken for stale only after a day without writes.
STALE_UNLOCKED_SECONDS = 86_400.0


class OutputPathError(ValueError):
    """A file cannot be written where it is to go; the message names the path and why."""


def check_output_file(path: Path | str) -> None:
    """Raise ``OutputPathError`` unless ``replace_atomically(path, ...)`` can write there: the path (or the file a
    link points to) is a regular file or a new name in a folder this process can create files in, or a named
    pipe or character device it may write into."""
    path = Path(path)
    try:
        mode = path.stat().st_mode  # through links: /dev/stdout is a link to a pipe or a terminal
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a parent that is a file: said below)
        mode = None
    except OSError as error:
        raise OutputPathError(f"cannot write {path}: {error.strerror or error}") from None
    if mode is not None and _written_into(mode):
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"cannot write {path}: no permission to write into {file_kind(mode)} {path}")
        return
    target = Path(os.path.realpath(path))
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(f"cannot write {path}: {target} is {file_kind(mode)}, not a file")
    _check_can_create_in(target.parent, path)


def check_output_folder(folder: Path | str) -> None:
    """Raise ``OutputPathError`` unless files can be created in ``folder``, or it can be made (its nearest
    existing ancestor is a folder this process can create entries in)."""
    folder = Path(folder)
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        if existing.is_symlink():  # a link to nothing: the folder cannot be made in its place
            raise OutputPathError(f"cannot make folder {folder}: {existing} is a broken symbolic link")
        existing = existing.parent
    _check_can_create_in(Path(os.path.realpath(existing)), folder)


def _check_can_create_in(folder: Path, wanted: Path) -> None:
    """Create and remove a file in ``folder``: the only test that also holds for root, read-only file systems and
    kernel folders such as ``/proc``."""
    if not folder.exists():
        raise OutputPathError(f"cannot write {wanted}: folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise OutputPathError(f"cannot write {wanted}: {folder} is a file, not a folder")
    try:
        handle, probe = tempfile.mkstemp(prefix=".seasons-write-check.", dir=folder)
    except OSError as error:
        raise OutputPathError(f"cannot write {wanted}: cannot create files in {folder} ({error.strerror})") from None
    os.close(handle)
    os.unlink(probe)


def _written_into(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for a message: ``a folder``, ``a named pipe``, ..."""
    kinds = [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def replace_atomically(path: Path | str, write: Callable[[Path], None], mode: int | None = None) -> None:
    """Replace ``path`` by what ``write(temporary_path)`` writes into a temporary file beside it (a link: the file
    it points to; a named pipe or a character device: written into, through a temporary file elsewhere). The new
    file has ``mode`` if given (the temporary has it from the start), else the replaced file's mode, else the one
    ``open`` would give a new file."""
    requested = Path(path)
    try:
        current = requested.stat().st_mode  # through links
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a parent that is a file: said below)
        current = None
    if current is not None and _written_into(current):
        _write_into(requested, write, requested.suffix)
        return
    path = Path(os.path.realpath(requested))
    if current is not None and not stat.S_ISREG(current):
        raise OutputPathError(f"cannot write {requested}: {path} is {file_kind(current)}, not a file")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"folder {str(path.parent)!r} does not exist (for {path.name})")
    # mkstemp creates the file private (0600) and open: it stays private until its final mode is set below, and
    # the lock on it says "a writer is at work" to the cleaning of stale temporaries (the lock dies with us).
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent)
    try:
        _lock(handle)
        with held_signals():  # acted on as the block ends (the module says why)
            write(Path(temporary))
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        if mode is None:
            mode = current & 0o777 if current is not None else _new_file_mode()
        os.chmod(temporary, mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        os.close(handle)
    _fsync_folder(path.parent)
    remove_stale_temporaries(path)


def temporary_pattern(path: Path | str) -> re.Pattern[str]:
    """The names of the temporary files ``replace_atomically(path, ...)`` makes: ``.NAME.XXXXXXXX.tmpSUFFIX``
    (``XXXXXXXX``: eight of the letters, digits and underscores ``tempfile`` draws from)."""
    path = Path(path)
    return re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.tmp{re.escape(path.suffix)}")


def remove_stale_temporaries(path: Path | str, now: float | None = None) -> list[Path]:
    """Delete the temporaries of ``path``'s own pattern that a killed writer left beside it: those no process holds
    a lock on and that were not written to for ``STALE_SECONDS`` (without locks: ``STALE_UNLOCKED_SECONDS``).
    Other files, and the temporaries of a writer still at work, stay. Returns the paths deleted."""
    path = Path(path)
    pattern = temporary_pattern(path)
    now = time.time() if now is None else now
    removed = []
    try:
        names = [name for name in os.listdir(path.parent) if pattern.fullmatch(name)]
    except OSError:
        return removed
    for name in names:
        candidate = path.parent / name
        if _remove_if_stale(candidate, now):
            removed.append(candidate)
    return removed


def _remove_if_stale(candidate: Path, now: float) -> bool:
    try:
        handle = os.open(candidate, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # gone already (renamed by its writer), a link, not ours to read
        return False
    try:
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode):
            return False
        age = now - opened.st_mtime
        if fcntl is None:
            if age < STALE_UNLOCKED_SECONDS:
                return False
        else:
            if age < STALE_SECONDS:
                return False
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: its writer is at work (or locks are refused here: then keep it too)
                return False
        try:
            named = os.stat(candidate, follow_symlinks=False)
        except OSError:
            return False
        if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):  # the name now is another file
            return False
        os.unlink(candidate)
        return True
    except OSError:
        return False
    finally:
        os.close(handle)


def _lock(handle: int) -> None:
    """Hold an exclusive lock on a temporary while it is written (best effort: some file systems refuse locks)."""
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _write_into(target: Path, write: Callable[[Path], None], suffix: str) -> None:
    """Write into a pipe or device: ``write`` makes a whole temporary file first (it may need to seek), whose
    bytes are then copied in."""
    with tempfile.TemporaryDirectory(prefix="seasons-") as folder:
        temporary = Path(folder) / f"output{suffix}"
        with held_signals():
            write(temporary)
        with open(temporary, "rb") as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink)


def file_sha256(path: Path | str) -> str:
    """The SHA-256 of a file's bytes, hex, read in blocks (a model or data set may be large)."""
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path | str, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` by ``data`` all at once; ``mode`` (e.g. 0o600 for a secret) holds from the file's creation
    on (see ``replace_atomically``)."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as stream:
            stream.write(data)

    replace_atomically(path, write, mode)


def _new_file_mode() -> int:
    """The mode ``open`` gives a new file: 0666 less the umask."""
    return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process's umask, read without changing it: from ``/proc/self/status`` (Linux), else the value read
    when this module was imported. Setting the umask to read it (``os.umask``) would leave it 0 for a moment, in
    which another thread could create a world-writable file."""
    mask = _umask_from_proc()
    return mask if mask is not None else _UMASK_AT_IMPORT


def _umask_from_proc() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8) & 0o777
    except (OSError, ValueError, IndexError):
        pass
    return None


def _umask_at_import() -> int:
    """Without /proc: read once while the module is imported, before a program starts its threads, through a
    stricter mask (077: a file another thread makes in that moment is private, never world-writable). A program
    that changes its umask later gets files of the umask it had then."""
    found = _umask_from_proc()
    if found is not None:
        return found
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


_UMASK_AT_IMPORT = _umask_at_import()


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (a folder cannot be opened on some systems, such as Windows: then it is as
    durable as it gets)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
