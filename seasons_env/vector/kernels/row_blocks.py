"""Disjoint blocks of a batch's rows run at once on several threads (``VectorGame(..., threads=N)``).

The kernels are compiled ``nogil`` and every row's game, legal mask, status and random stream (the row's chance key
and counter) live in that row alone, so a kernel called on disjoint rows from several Python threads runs on several
cores and writes exactly what one call over all the rows writes: the games do not depend on the number of threads.

Each block gets its own kernels' struct over the same arrays: kernels reading a field of a struct shared by threads
would update the same reference counts from every core (measured on a kernel reading the struct's fields row after
row: two threads sharing one struct ran 4x slower than one thread, with a struct each 1.8x faster). No new kernel is
compiled for this: the blocks call the ones the single-thread path uses, so ``threads`` adds nothing to the first
call's compile time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from ..arrays import ArrayState
from .structs import KernelArrays, kernel_arrays

T = TypeVar("T")

#: A block has at least this many rows: below it a thread's hand-off costs more than the rows' work.
MIN_BLOCK_ROWS = 16

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _forget_pools() -> None:
    """In a forked child the parent's pool threads do not exist (a task given to them would never run): start over."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` threads, shared by every batch stepping with ``workers + 1`` threads."""
    with _pools_lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = ThreadPoolExecutor(workers, thread_name_prefix="seasons-rows")
        return pool


class RowBlocks:
    """Runs a task over ``count`` row positions split into at most ``threads`` contiguous blocks, one per thread:
    ``task(struct, lo, hi)`` handles positions ``lo..hi-1`` with ``struct``, the block's own kernels' struct.
    ``threads`` is checked by the caller (``VectorGame``: ``core.check_threads``)."""

    def __init__(self, state: ArrayState, arrays: KernelArrays, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1; got {threads!r}")
        self.threads = int(threads)
        self._state = state
        self._structs = [arrays]  # block 0 (run by the calling thread) uses the batch's own struct

    def run(self, count: int, task: Callable[[KernelArrays, int, int], None]) -> None:
        self.run_numbered(count, lambda _, struct, lo, hi: task(struct, lo, hi))

    def run_numbered(self, count: int, task: Callable[[int, KernelArrays, int, int], T]) -> list[T]:
        """``task(k, struct, lo, hi)`` for each block ``k`` (numbered from 0, the calling thread's); the results in
        block order."""
        blocks = max(1, min(self.threads, count // MIN_BLOCK_ROWS))
        if blocks == 1:
            return [task(0, self._structs[0], 0, count)]
        while len(self._structs) < blocks:
            self._structs.append(kernel_arrays(self._state))
        bounds = [count * k // blocks for k in range(blocks + 1)]
        pool = _pool(self.threads - 1)
        futures: list[Future] = [
            pool.submit(task, k, self._structs[k], bounds[k], bounds[k + 1]) for k in range(1, blocks)
        ]
        try:
            first = task(0, self._structs[0], bounds[0], bounds[1])
        finally:
            wait(futures)  # every block ends before the caller goes on (or raises), whatever happened to the others
        return [first] + [future.result() for future in futures]  # a block's error, raised in the caller
