"""Ctrl-C and SIGTERM while compiled code runs: held during the compiled calls, acted on between them.

Why. numba's compiled functions call back into Python now and then (boxing a struct they return, unpickling a
constant, loading a kernel from the cache). Python runs a signal's handler at the next instruction of the main
thread, which may be inside one of those callbacks; a handler that raises there (Ctrl-C's ``KeyboardInterrupt``, a
SIGTERM handler that stops a run) leaves an exception set where numba's generated code does not expect one: a
``SystemError`` ("returned a result with an exception set"), a ``TypeError`` from a call made with missing arguments,
or a segmentation fault.

``held_signals()`` swaps the handlers of SIGINT and SIGTERM for one that only notes the signal, for the length of a
block of compiled calls; ``deliver_held()`` (called between two compiled calls of the block) and leaving the block
send each noted signal again to the handler that was in place, which then acts as it would have (raises, sets a stop
flag, ends the process). A search that calls its kernel in chunks of bounded length thus stops within one chunk.

Signal handlers belong to the main thread: in another thread the block holds nothing (the main thread's handlers run
in the main thread, never inside this thread's compiled calls).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: The signals held: Ctrl-C and the polite stop of ``kill`` and job schedulers.
HELD = (signal.SIGINT, signal.SIGTERM)


class _Holding:
    """The main thread's state: the handlers replaced by the outermost ``held_signals`` block and the signals noted."""

    def __init__(self) -> None:
        self.previous: dict[int, object] = {}
        self.noted: list[int] = []
        self.depth = 0

    def note(self, signum: int, frame: object) -> None:
        if signum not in self.noted:
            self.noted.append(signum)

    def hold(self) -> None:
        """Install ``note`` for every held signal whose handler Python can put back (the previous ones remembered)."""
        with _blocked():
            for signum in HELD:
                current = signal.getsignal(signum)
                if current is None:  # installed outside Python: it could not be put back
                    continue
                self.previous[signum] = current
                signal.signal(signum, self.note)

    def release(self) -> list[int]:
        """Put the previous handlers back; returns the signals noted meanwhile (forgotten here)."""
        with _blocked():
            for signum, handler in self.previous.items():
                signal.signal(signum, handler)
            self.previous = {}
            noted, self.noted = self.noted, []
        return noted


_HOLDING = _Holding()


@contextlib.contextmanager
def _blocked() -> Iterator[None]:
    """The held signals blocked by the kernel while handlers are swapped: one arriving meanwhile waits, and its handler
    runs once the swap is whole (``pthread_sigmask`` runs pending handlers when it returns)."""
    # The mask is read first and changed inside ``try``: a handler that raises as soon as a call returns (a signal
    # that arrived just before the block) must not leave the signals blocked, for this thread and for every process
    # it starts afterwards (a child inherits the mask and would never see Ctrl-C or SIGTERM).
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _send(noted: list[int]) -> None:
    for signum in noted:
        signal.raise_signal(signum)  # its handler runs now, in this thread


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT and SIGTERM noted, not acted on, inside the block (see the module); sent again to their handlers when the
    block is left. Nested blocks are one block."""
    if not _in_main_thread() or _HOLDING.depth:
        _HOLDING.depth += _in_main_thread()
        try:
            yield
        finally:
            _HOLDING.depth -= _in_main_thread()
        return
    _HOLDING.depth = 1
    try:
        _HOLDING.hold()
        yield
    finally:
        _HOLDING.depth = 0
        _send(_HOLDING.release())


def deliver_held() -> None:
    """Act on the signals noted so far in the ``held_signals`` block under way (call it between compiled calls): their
    handlers run, and if none raised the block holds on."""
    if not _in_main_thread() or not _HOLDING.depth or not _HOLDING.noted:
        return
    noted = _HOLDING.release()
    try:
        _send(noted)
    finally:
        _HOLDING.hold()


class Stopped(KeyboardInterrupt):
    """A run stopped by the signal ``signum`` (a ``KeyboardInterrupt``, so that what stops at Ctrl-C stops at it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: object) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """SIGTERM raises ``Stopped`` in the main thread inside the block, as Ctrl-C raises ``KeyboardInterrupt``, so that
    the same cleanup runs (by default SIGTERM ends the process at once)."""
    if not _in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_stopped)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def exit_status(stop: BaseException) -> int:
    """The shell's exit status of a run stopped by ``stop``: 128 + the signal's number (130 for Ctrl-C, 143 for
    SIGTERM)."""
    return 128 + int(getattr(stop, "signum", signal.SIGINT))
