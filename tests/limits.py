"""Bounds for tests that hand hostile files to loaders: a loader must refuse the file or load it within them.

``bounded()`` runs a block with a cap on the process's address space a little above what it uses now (an
allocation past the cap fails at once, as torch's ``RuntimeError`` or numpy's ``MemoryError``, instead of taking the
machine's memory) and a timer that interrupts a block that hangs. Linux only (it reads ``/proc/self/statm``).
"""

from __future__ import annotations

import contextlib
import resource
import signal
from collections.abc import Iterator

GIB = 1 << 30


def address_space() -> int:
    """The bytes of address space the process holds now."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


@contextlib.contextmanager
def bounded(seconds: float = 60.0, extra_bytes: int = GIB) -> Iterator[None]:
    """Run the block with at most ``extra_bytes`` more address space than now, and ``TimeoutError`` after
    ``seconds`` (a guard against a hang: generous, never a measure of speed)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = address_space() + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)

    def interrupt(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
