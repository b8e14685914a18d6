"""Files a user keeps (arena records, replays, pictures, game records) are written all at once.

``replace_atomically`` writes into a temporary file beside the target (one file system, so the rename is
atomic), fsyncs it, gives it the target's mode (or a plain new file's), renames it over the target and fsyncs
the folder: a kill at any moment leaves the old file or the new one, never a part of either.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def replace_atomically(path: Path | str, write: Callable[[Path], None]) -> None:
    """Replace ``path`` by what ``write(temporary_path)`` writes into a temporary file beside it."""
    path = Path(path)
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
