"""Files a user keeps (arena records, replays, pictures, game records) are written all at once.

``replace_atomically`` writes into a temporary file beside the target (one file system, so the rename is
atomic), fsyncs it, gives it the target's mode (or a plain new file's), renames it over the target and fsyncs
the folder: a kill at any moment leaves the old file or the new one, never a part of either.

Only a regular file is replaced. A symbolic link stays a link: the file it points to is replaced. A named pipe
or a character device (``/dev/null``, a terminal) is written into, never replaced. Anything else (a folder, a
block device, a socket) is refused with ``OutputPathError``. ``check_output_file`` and ``check_output_folder``
say before any work starts whether a file or a folder of files can be written where it is to go.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


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
            raise OutputPathError(f"cannot write {path}: no permission to write into {_kind(mode)} {path}")
        return
    target = Path(os.path.realpath(path))
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(f"cannot write {path}: {target} is {_kind(mode)}, not a file")
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


def _kind(mode: int) -> str:
    kinds = [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def replace_atomically(path: Path | str, write: Callable[[Path], None]) -> None:
    """Replace ``path`` by what ``write(temporary_path)`` writes into a temporary file beside it (a link: the file
    it points to; a named pipe or a character device: written into, through a temporary file elsewhere)."""
    requested = Path(path)
    try:
        mode = requested.stat().st_mode  # through links
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a parent that is a file: said below)
        mode = None
    if mode is not None and _written_into(mode):
        _write_into(requested, write, requested.suffix)
        return
    path = Path(os.path.realpath(requested))
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(f"cannot write {requested}: {path} is {_kind(mode)}, not a file")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"folder {str(path.parent)!r} does not exist (for {path.name})")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent)
    os.close(handle)
    try:
        write(Path(temporary))
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        # mkstemp makes the file private (0600): give it the replaced file's mode, or the one open() would.
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else _new_file_mode())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _write_into(target: Path, write: Callable[[Path], None], suffix: str) -> None:
    """Write into a pipe or device: ``write`` makes a whole temporary file first (it may need to seek), whose
    bytes are then copied in."""
    with tempfile.TemporaryDirectory(prefix="seasons-") as folder:
        temporary = Path(folder) / f"output{suffix}"
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


def write_atomic(path: Path | str, data: bytes) -> None:
    """Replace ``path`` by ``data`` all at once."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as stream:
            stream.write(data)

    replace_atomically(path, write)


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


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
