"""Disjoint chunks of a batch's rows run at once on several threads (``VectorGame(..., threads=N)``).

The kernels are compiled ``nogil`` and every row's game, legal mask, status and random stream (the row's chance key
and counter) live in that row alone, so a kernel called on disjoint rows from several Python threads runs on several
cores and writes exactly what one call over all the rows writes: the games do not depend on the number of threads,
nor on which thread ran which rows.

Each thread gets its own kernels' struct over the same arrays: kernels reading a field of a struct shared by threads
would update the same reference counts from every core (measured on a kernel reading the struct's fields row after
row: two threads sharing one struct ran 4x slower than one thread, with a struct each 1.8x faster). No new kernel is
compiled for this: the threads call the ones the single-thread path uses, so ``threads`` adds nothing to the first
call's compile time."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from ..state.arrays import ArrayState
from .structs import KernelArrays, kernel_arrays

T = TypeVar("T")

#: A chunk has at least this many rows: below it a thread's hand-off costs more than the rows' work.
MIN_BLOCK_ROWS = 16
#: Calls over fewer rows run on the calling thread alone, whatever ``threads`` is: there a hand-off to the other
#: threads and back costs more than they save (on a 2-core machine, ``threads=2`` stepped batches of 256 games at
#: 0.70 to 0.83 times one thread's speed and of 384 games at 1.11 to 1.16 times: ``benchmarks/vector_threads.py``).
MIN_THREADED_ROWS = 320
#: Chunks per thread: more balance the threads better, each costs a kernel call (a few microseconds).
CHUNKS_PER_THREAD = 4

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
    """Runs a task over ``count`` row positions on at most ``threads`` threads: the positions are split into
    contiguous chunks (``CHUNKS_PER_THREAD`` per thread, at least ``MIN_BLOCK_ROWS`` positions each; fewer than
    ``MIN_THREADED_ROWS`` positions run on the calling thread alone) and each thread takes the next chunk as soon as
    it is done with its last, so that a thread slowed down (another process on its core, costlier rows) takes fewer.
    ``task(k, struct, lo, hi)`` handles positions ``lo..hi-1`` on thread ``k`` (0: the calling thread) with
    ``struct``, thread ``k``'s own kernels' struct. Which thread runs which chunk changes nothing in the rows.
    ``threads`` is checked by the caller (``VectorGame``: ``core.check_threads``)."""

    def __init__(self, state: ArrayState, arrays: KernelArrays, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1; got {threads!r}")
        self.threads = int(threads)
        self._state = state
        self._structs = [arrays]  # thread 0 (the calling thread) uses the batch's own struct

    def run(self, count: int, task: Callable[[KernelArrays, int, int], None]) -> None:
        self.run_numbered(count, lambda _, struct, lo, hi: task(struct, lo, hi))

    def run_numbered(self, count: int, task: Callable[[int, KernelArrays, int, int], T]) -> list[T]:
        """``task(k, struct, lo, hi)`` for each chunk; the results in the chunks' order."""
        chunks = max(1, min(self.threads * CHUNKS_PER_THREAD, count // MIN_BLOCK_ROWS))
        if chunks == 1 or self.threads == 1 or count < MIN_THREADED_ROWS:
            return [task(0, self._structs[0], 0, count)]
        workers = min(self.threads, chunks)
        while len(self._structs) < workers:
            self._structs.append(kernel_arrays(self._state))
        bounds = [count * c // chunks for c in range(chunks + 1)]
        results: list = [None] * chunks
        claim = itertools.count().__next__  # one C call: threads never get the same chunk

        def work(k: int) -> None:
            struct = self._structs[k]
            while (c := claim()) < chunks:
                results[c] = task(k, struct, bounds[c], bounds[c + 1])

        pool = _pool(self.threads - 1)
        futures: list[Future] = [pool.submit(work, k) for k in range(1, workers)]
        try:
            work(0)
        finally:
            wait(futures)  # every chunk ends before the caller goes on (or raises), whatever happened to the others
        for future in futures:
            future.result()  # a chunk's error, raised in the caller
        return results
