"""Disjoint chunks of a batch's rows run at once on several threads (``VectorGame(..., threads=N)``).

The kernels are compiled ``nogil`` and every row's game, legal mask, status and random stream (the row's chance key
and counter) live in that row alone, so a kernel called on disjoint rows from several Python threads runs on several
cores and writes exactly what one call over all the rows writes: the games do not depend on the number of threads,
nor on which thread ran which rows.

Each thread gets its own kernels' struct over the same arrays: kernels reading a field of a struct shared by threads
would update the same reference counts from every core (measured on a kernel reading the struct's fields row after
row: two threads sharing one struct ran 4x slower than one thread, with a struct each 1.8x faster). No rules kernel
is compiled for this: the threads call the ones the single-thread path uses.

The pool's threads wait for the next call by spinning on a counter in compiled code (``spin_until``, the interpreter
lock released) for about a quarter of a millisecond after each call, and only then sleep on a condition. A thread woken
from sleep takes tens of microseconds to start on a virtual machine (a lock's round trip between two threads measured
54 to 64 us on the development machine, against 5 to 10 us spinning), a step of 1,024 games about a millisecond: a
pool that slept between steps lost a tenth of two threads' speed (``benchmarks/vector_threads.py``).

A call through ``run_numbered`` is a Python function a chunk, and each pass through Python between two compiled calls
takes the interpreter lock, which the calling thread holds while it dispatches its own chunks and between steps: a
pool thread waiting for it started its first chunk 35 to 50 us after the call. A ``CompiledCall`` (a batch's step,
``threaded_step.py``) has each thread's part in one compiled call, its chunks claimed with an atomic operation
(``claim``), and a pool thread runs call after call of it in a compiled loop (``CompiledCall.serve``) that spins for
the next without returning to Python: on 2 cores at batch 1,024, two threads made 1.71 times one thread's decisions
this way against 1.58 chunk by chunk, the mean of the runs alternating the two (``benchmarks/vector_threads.py --pool
both``; docs/results.md, "Using both cores")."""

from __future__ import annotations

import itertools
import os
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import numpy as np

from ..state.arrays import ArrayState
from . import PYTHON_KERNELS, kernel
from .structs import KernelArrays, kernel_arrays

T = TypeVar("T")

#: A chunk has at least this many rows: below it a thread's hand-off costs more than the rows' work.
MIN_BLOCK_ROWS = 16
#: Calls over fewer rows run on the calling thread alone, whatever ``threads`` is: there a hand-off to the other
#: threads and back costs more than they save (on a 2-core machine, ``threads=2`` stepped batches of 128 games at
#: 0.79 to 1.10 times one thread's speed, of 192 at 0.96 to 1.31 and of 256 at 1.11 to 1.49:
#: ``benchmarks/vector_threads.py``).
MIN_THREADED_ROWS = 256
#: Chunks per thread: more balance the threads better when one is slowed, but each costs a pass through Python (a
#: few microseconds, and a wait for the interpreter lock if the other thread holds it). On 2 idle cores, 2 threads
#: made 1.72 and 1.70 times one thread's decisions at batch 1,024 with 2 and 4 chunks a thread of their own, 1.65
#: with 4 taken in turn by whichever thread was free; at batch 256, 1.40, 1.28 and 1.18
#: (``benchmarks/vector_threads.py``, alternating runs; docs/results.md, "Using both cores").
CHUNKS_PER_THREAD = 2
#: Chunks per thread of a ``CompiledCall``, each claimed with one atomic operation, not a pass through Python: finer
#: chunks balance the threads better at no cost (2 threads at batch 1,024 on 2 cores, eight alternating runs: 1.65
#: times one thread with 2 chunks a thread, 1.72 with 8; docs/results.md, "Using both cores").
COMPILED_CHUNKS_PER_THREAD = 8
#: Checks of the counter a pool thread makes for the next call before it sleeps (about 0.25 ms on the development
#: machine), and that a caller makes for the pool's threads to finish between two looks at the interpreter. A pool
#: with more threads than the process has cores does not spin (one check): a thread spinning there takes a core from
#: one still working (on 2 cores, 3 threads made 1.03 to 1.05 times one thread's decisions spinning, 1.09 to 1.13
#: sleeping).
SPIN_CHECKS = 400_000


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


#: Counters a cache line apart (int64s), so that a thread's writes do not slow another's reads.
LINE = 8

if PYTHON_KERNELS:

    def load_acquire(flags: np.ndarray, index: int) -> int:
        return flags[index]

    def store_release(flags: np.ndarray, index: int, value: int) -> None:
        flags[index] = value

    def claim(flags: np.ndarray, index: int, value: int) -> int:
        old = int(flags[index])
        flags[index] = max(old, value)
        return old

else:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    def _item_pointer(context, builder, signature, args):
        """The address of ``flags[index]``, an intrinsic's first two arguments."""
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        return cgutils.get_item_pointer(context, builder, array_type, array, [args[1]])

    @intrinsic
    def load_acquire(typingctx, flags, index):
        """``flags[index]`` read atomically (acquire): LLVM may not hoist it out of a waiting loop."""

        def codegen(context, builder, signature, args):
            return builder.load_atomic(_item_pointer(context, builder, signature, args), "acquire", 8)

        return types.int64(flags, index), codegen

    @intrinsic
    def store_release(typingctx, flags, index, value):
        """``flags[index] = value`` written atomically (release): what the thread wrote before is seen first."""

        def codegen(context, builder, signature, args):
            stored = context.cast(builder, args[2], signature.args[2], types.int64)
            builder.store_atomic(stored, _item_pointer(context, builder, signature, args), "release", 8)
            return context.get_dummy_value()

        return types.none(flags, index, value), codegen

    @intrinsic
    def claim(typingctx, flags, index, value):
        """``flags[index]`` before it is raised to ``value`` if below it, both in one atomic step: a chunk stamped with
        a call's ticket is claimed by the one thread that read a smaller stamp."""

        def codegen(context, builder, signature, args):
            stamp = context.cast(builder, args[2], signature.args[2], types.int64)
            return builder.atomic_rmw("max", _item_pointer(context, builder, signature, args), stamp, "acq_rel")

        return types.int64(flags, index, value), codegen


@kernel
def publish(flags, call, generation_index, generation):
    """Hand call number ``call`` to the pool's threads: its kind (``generation``) first, then the calls' counter, both
    seen by a thread that sees the counter (``store_release``)."""
    flags[generation_index] = generation
    store_release(flags, 0, call)


@kernel
def spin_until(flags, index, value, checks):
    """Whether ``flags[index]`` reached ``value`` within ``checks`` reads (compiled: without the interpreter lock)."""
    for _ in range(checks):
        if load_acquire(flags, index) >= value:
            return True
    return False


_generations = itertools.count(1)


def next_generation() -> int:
    """A ``CompiledCall.generation`` no other call of this process has."""
    return next(_generations)


class CompiledCall(ABC):
    """A call whose part on each thread is one compiled call (a ``RowBlocks.layout``'s chunks, claimed with ``claim``),
    which a pool's thread may run call after call without returning to Python (``serve``): between two steps it spins
    in compiled code and starts the next at once, never waiting for the interpreter lock the calling thread holds.
    Two calls of the same ``generation`` take the same arrays; a call of another (or a plain function) makes the
    threads' compiled loops return to Python."""

    generation: int

    @abstractmethod
    def __call__(self, k: int) -> None:
        """Thread ``k``'s chunks of the current call (0: the calling thread's), then any chunk no thread took."""

    @abstractmethod
    def serve(self, k: int, flags: np.ndarray, generation_index: int, done: int, spin_checks: int) -> int:
        """Pool thread ``k``'s loop: the call after ``done`` (which is of this generation) and each next one of the
        same generation, each followed by ``flags[LINE * k]`` set to its number; returns the last call it ran, once
        no next call came within its spins (at least ``spin_checks`` reads, the pool's own spin for a plain call) or
        the next is of another generation."""


class _Pool:
    """``workers`` threads that run the calls ``run`` hands them, alongside the calling thread (thread 0).

    ``flags[0]`` counts the calls handed out, ``flags[LINE * k]`` those thread ``k`` finished, and
    ``flags[generation_index]`` is the current call's ``CompiledCall.generation`` (0: a plain function). Between calls a
    thread spins on ``flags[0]`` (``spin_until``, ``spin_checks`` reads), then sleeps on ``changed`` until ``run``
    wakes it; the caller spins on the threads' counters, then sleeps on ``changed`` too (for a ``CompiledCall`` it
    spins until they are done: a thread in a compiled loop cannot wake it). One call at a time: a call made while
    another runs (from another thread, or from inside a task) runs on its calling thread alone."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        # As plain Python (``SEASONS_KERNELS=python``) a spin would hold the interpreter lock: one read, then sleep.
        self.spin_checks = SPIN_CHECKS if workers + 1 <= usable_cores() and not PYTHON_KERNELS else 1
        self.generation_index = LINE * (workers + 1)
        self.flags = np.zeros(LINE * (workers + 2), dtype=np.int64)
        self.changed = threading.Condition()
        self.sleeping = 0  # pool threads asleep on ``changed``
        self.caller_waiting = False  # the caller asleep on ``changed``
        self.busy = threading.Lock()
        self._job: Callable[[int], None] | None = None
        self._errors: list[BaseException | None] = [None] * (workers + 1)
        for k in range(1, workers + 1):
            threading.Thread(target=self._serve, args=(k,), daemon=True, name=f"seasons-rows-{k}").start()

    @property
    def spins(self) -> bool:
        """Whether the threads spin between calls (a ``CompiledCall`` gains nothing from a pool that sleeps)."""
        return self.spin_checks > 1

    def _serve(self, k: int) -> None:
        flags, done, checks = self.flags, 0, self.spin_checks
        while True:
            wanted = done + 1
            if not spin_until(flags, 0, wanted, checks):
                with self.changed:
                    while flags[0] < wanted:
                        self.sleeping += 1
                        self.changed.wait()
                        self.sleeping -= 1
            job = self._job  # None if the caller was interrupted before this thread started: nothing to do
            compiled = isinstance(job, CompiledCall)
            checks = 1 if compiled else self.spin_checks  # a compiled loop has spun for the next call: else sleep
            try:
                if compiled:
                    # This call and the next ones of its generation, each marked done by the compiled loop itself.
                    done = job.serve(k, flags, self.generation_index, done, self.spin_checks)
                    if done >= wanted:
                        if self.caller_waiting:  # a pool that does not spin: the caller sleeps
                            with self.changed:
                                self.changed.notify_all()
                        continue
                elif job is not None:
                    job(k)
            except BaseException as error:  # raised again in the caller
                self._errors[k] = error
                wanted = max(wanted, int(flags[0]))  # a compiled loop may have run later calls before this one
            done = wanted
            flags[LINE * k] = done
            if self.caller_waiting:  # read after the counter's write (``_wait_for_threads``)
                with self.changed:
                    self.changed.notify_all()

    def run(self, job: Callable[[int], None]) -> bool:
        """``job(k)`` on every thread ``k`` (0: this one) at once; False, having run nothing, if another call holds
        the pool. An error of a pool thread's ``job`` is raised here, after every thread is done."""
        if not self.busy.acquire(blocking=False):
            return False
        try:
            compiled = isinstance(job, CompiledCall)
            self._job = job
            self._errors = [None] * (self.workers + 1)  # none left from a call that was interrupted
            with self.changed:
                call = int(self.flags[0]) + 1
                publish(self.flags, call, self.generation_index, job.generation if compiled else 0)
                if self.sleeping:
                    self.changed.notify_all()
            try:
                job(0)
            finally:  # every thread ends its chunks before the caller goes on (or raises), whatever happened
                self._wait_for_threads(call, compiled and self.spins)
            errors = [error for error in self._errors if error is not None]
            if errors:
                raise errors[0]
            return True
        finally:
            self._job = None
            self.busy.release()

    def _wait_for_threads(self, call: int, spin_only: bool) -> None:
        flags = self.flags
        interrupted: BaseException | None = None
        for k in range(1, self.workers + 1):
            while True:  # a Ctrl-C here waits for the threads to end, then is raised: none is left writing the rows
                try:
                    if spin_until(flags, LINE * k, call, self.spin_checks):
                        break
                    if spin_only:
                        continue
                    with self.changed:
                        self.caller_waiting = True  # before the look at the counter: a thread ending after it wakes us
                        try:
                            while flags[LINE * k] < call:
                                self.changed.wait()
                        finally:
                            self.caller_waiting = False
                    break
                except (KeyboardInterrupt, SystemExit) as error:
                    interrupted = interrupted or error
        if interrupted is not None:
            raise interrupted


_pools: dict[int, _Pool] = {}
_pools_lock = threading.Lock()


def _forget_pools() -> None:
    """In a forked child the parent's pool threads do not exist (a call handed to them would never end): start over."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def _pool(workers: int) -> _Pool:
    """The process's pool of ``workers`` threads, shared by every batch stepping with ``workers + 1`` threads."""
    with _pools_lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = _Pool(workers)
        return pool


class ChunkLayout(NamedTuple):
    """The chunks of a ``CompiledCall`` over a batch's rows, as its compiled code reads them."""

    bounds: np.ndarray  #: int64 ``[chunks + 1]``: chunk ``c`` is rows ``bounds[c]..bounds[c + 1] - 1``
    shares: np.ndarray  #: int64 ``[workers + 1]``: thread ``k`` owns chunks ``shares[k]..shares[k + 1] - 1``
    claims: np.ndarray  #: int64 ``[chunks * LINE]``: the ticket of the last call that claimed each chunk (``claim``)
    ticket: np.ndarray  #: int64 ``[1]``: the current call's ticket
    structs: tuple  #: thread ``k``'s kernels' struct (``RowBlocks``)


class RowBlocks:
    """Runs a task over ``count`` row positions on at most ``threads`` threads: the positions are split into
    contiguous chunks (``CHUNKS_PER_THREAD`` per thread, at least ``MIN_BLOCK_ROWS`` positions each; fewer than
    ``MIN_THREADED_ROWS`` positions run on the calling thread alone). Each thread owns a contiguous share of the
    chunks and runs them in order, then takes the chunks other threads have not started, from the far end of their
    shares: a thread slowed down (another process on its core, costlier rows) runs fewer, and otherwise each thread
    steps the same rows at every call, which stay in its core's cache (taken in turn, the chunks moved between the
    cores from one step to the next).
    ``task(k, struct, lo, hi)`` handles positions ``lo..hi-1`` on thread ``k`` (0: the calling thread) with
    ``struct``, thread ``k``'s own kernels' struct. Which thread runs which chunk changes nothing in the rows.
    ``threads`` is checked by the caller (``VectorGame``: ``core.check_threads``)."""

    def __init__(self, state: ArrayState, arrays: KernelArrays, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1; got {threads!r}")
        self.threads = int(threads)
        if self.threads > 1:
            spin_until(np.ones(1, dtype=np.int64), 0, 1, 1)  # compiled (or loaded) with the batch, not at a step
        self._state = state
        self._structs = [arrays]  # thread 0 (the calling thread) uses the batch's own struct
        self._layouts: dict[int, ChunkLayout | None] = {}
        #: False: no ``layout``, so that the callers run their calls through ``run_numbered`` (chunk by chunk in
        #: Python; ``benchmarks/vector_threads.py --pool both`` compares the two ways).
        self.compiled_calls = True

    def layout(self, count: int) -> ChunkLayout | None:
        """The chunks a ``CompiledCall`` over ``count`` positions runs (``COMPILED_CHUNKS_PER_THREAD`` a thread, at
        least ``MIN_BLOCK_ROWS`` positions each), or None when such a call runs on the calling thread alone (one
        thread, too few positions) or the pool's threads do not spin between calls (more threads than cores, or the
        kernels as plain Python): there ``run_numbered`` serves."""
        if not self.compiled_calls:
            return None
        if count not in self._layouts:  # decided once a count: ``apply`` asks at every step
            self._layouts[count] = self._new_layout(count)
        return self._layouts[count]

    def _new_layout(self, count: int) -> ChunkLayout | None:
        chunks = max(1, min(self.threads * COMPILED_CHUNKS_PER_THREAD, count // MIN_BLOCK_ROWS))
        if chunks == 1 or self.threads == 1 or count < MIN_THREADED_ROWS or PYTHON_KERNELS:
            return None
        if not _pool(self.threads - 1).spins:
            return None
        workers = min(self.threads, chunks)
        while len(self._structs) < workers:
            self._structs.append(kernel_arrays(self._state))
        return ChunkLayout(
            np.array([count * c // chunks for c in range(chunks + 1)], dtype=np.int64),
            np.array([chunks * k // workers for k in range(workers + 1)], dtype=np.int64),
            np.zeros(chunks * LINE, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            tuple(self._structs[:workers]),
        )

    def run_compiled(self, layout: ChunkLayout, call: CompiledCall) -> None:
        """``call`` (built on ``layout``) on the pool's threads and this one; on this one alone, every chunk, if the
        pool is running another call."""
        layout.ticket[0] += 1  # seen by the pool's threads with the call (``publish``)
        if not _pool(self.threads - 1).run(call):
            call(0)

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
        # A deque's pops from either end are atomic: no chunk is run twice, whoever takes it.
        shares = [deque(range(chunks * k // workers, chunks * (k + 1) // workers)) for k in range(workers)]

        def work(k: int) -> None:
            if k >= workers:  # a pool of more threads than this call has chunks for
                return
            struct = self._structs[k]
            for j in range(workers):
                share = shares[(k + j) % workers]
                take = share.popleft if j == 0 else share.pop  # its own in order, then the others' from their end
                while True:
                    try:
                        c = take()
                    except IndexError:
                        break
                    results[c] = task(k, struct, bounds[c], bounds[c + 1])

        if not _pool(self.threads - 1).run(work):  # the pool is running another call
            work(0)
        return results
