"""Counting the CPU time of processes a timed command leaves behind (the compiled engine's helper process, which
outlives the program that started it by at most one kernel's compilation), for the benchmarks that time commands by
``getrusage(RUSAGE_CHILDREN)``: that counts only descendants some process waited for, and an orphan is adopted and
waited for by the system's init, not by the benchmark.

``adopt_orphans()`` makes this process the reaper of its descendants (Linux's ``PR_SET_CHILD_SUBREAPER``; elsewhere
nothing changes); ``reap_orphans()``, after a command, waits for every descendant adopted meanwhile, so that the next
``getrusage`` counts them.
"""

from __future__ import annotations

import os
import sys

_PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Become the reaper of this process's orphaned descendants: whether that is in effect (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def reap_orphans() -> None:
    """Wait for every child left (adopted orphans included) until none is."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
