"""The lock that keeps two arena runs from writing into one folder at once (``arena.lock``)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .arena_config import ArenaFolderError


class FolderLock:
    """Exclusive use of an arena folder by one run: an OS file lock on ``arena.lock``, which holds the pid and the
    start time of the process (``PID START``; the start time tells a process from a later one given the same pid).

    The OS drops the lock when its process ends, however it ends, so a lock left by a killed run is taken over
    (``note`` then says whose it was); while a run holds it, another run fails at once with an error naming the
    holder's pid. A free OS lock naming a process that is still running is taken over only when that process is
    shown to be another one (a later start time): the run that wrote it may still be going (on a file system
    without working locks, or with the lock file replaced), and one that cannot be told apart is refused."""

    def __init__(self, folder: Path | str) -> None:
        self.path = Path(folder) / "arena.lock"
        self.note: str | None = None
        self._handle: int | None = None

    def acquire(self) -> None:
        while True:
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                self._lock(handle)
            except BaseException:
                os.close(handle)
                raise
            if _still_named(handle, self.path):
                break
            # The run that held it deleted the file on release after this run opened it: lock the new one.
            os.close(handle)
        self._handle = handle

    def _lock(self, handle: int) -> None:
        if not _try_lock(handle):
            holder, _ = _read_holder(handle)
            raise ArenaFolderError(
                f"{self.path.parent} is in use by another arena run "
                f"({f'pid {holder}' if holder is not None else 'pid unknown'}, lock file {self.path}); "
                "wait for it to end, or stop it, before running this arena again"
            )
        self.note = self._take_over(*_read_holder(handle))
        os.ftruncate(handle, 0)
        started = process_start(os.getpid())
        os.write(handle, f"{os.getpid()}{f' {started}' if started is not None else ''}\n".encode())

    def _take_over(self, pid: int | None, started: str | None) -> str | None:
        """What taking over a lock naming ``pid`` (started at ``started``) means; ``ArenaFolderError`` when that
        process may be an arena still writing into this folder."""
        if pid is None or pid == os.getpid():
            return None
        if not _pid_alive(pid):
            return f"took over {self.path} from pid {pid} (no longer running: that run was interrupted)"
        now = process_start(pid)
        if started is not None and now is not None and now != started:
            return (
                f"took over {self.path} from pid {pid}: that pid is now another process (started at another time), "
                "so the run that wrote the lock has ended"
            )
        why = (
            "is still running: the arena run that wrote the lock"
            if started is not None and now == started
            else "is running, and nothing tells whether it is an arena run of this folder (the lock holds no start "
            "time to compare)"
        )
        raise ArenaFolderError(
            f"{self.path} names pid {pid}, which {why}; wait for it to end or stop it, or, if no arena run is using "
            f"{self.path.parent}, delete {self.path}"
        )

    def release(self) -> None:
        if self._handle is None:
            return
        try:
            os.ftruncate(self._handle, 0)  # no pid: a later run has no stale lock to report
            if os.name != "nt":  # a clean run leaves no lock file (deleted while still locked: no run can slip in)
                self.path.unlink(missing_ok=True)
        finally:
            os.close(self._handle)  # closing drops the OS lock
            self._handle = None
        if os.name == "nt":  # Windows deletes no open file; another run may hold it by now, then it stays
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


try:
    import fcntl

    def _try_lock(handle: int) -> bool:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

except ImportError:  # Windows
    import msvcrt

    def _try_lock(handle: int) -> bool:
        # Lock one byte far past the pid, so other runs can still read the pid to name the holder.
        os.lseek(handle, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            os.lseek(handle, 0, os.SEEK_SET)
        return True


def _still_named(handle: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``handle`` (a releasing run may have deleted it meanwhile)."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(handle)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _read_holder(handle: int) -> tuple[int | None, str | None]:
    """The pid and the start time a lock file names (``None`` for what it does not hold)."""
    os.lseek(handle, 0, os.SEEK_SET)
    words = os.read(handle, 128).decode("ascii", "replace").split()
    os.lseek(handle, 0, os.SEEK_SET)
    if not words or not (words[0].isascii() and words[0].isdigit()) or int(words[0]) <= 0:
        return None, None
    return int(words[0]), (words[1] if len(words) > 1 and words[1].isascii() and words[1].isdigit() else None)


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks after boot, from Linux's ``/proc``), or None when it cannot be told
    (no such process, or another system: a live pid is then never taken for another process)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat_line[stat_line.rfind(")") + 2 :].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill would end the process there; the OS lock has already said it is gone
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
