"""Jobs run in this process and in worker processes at once: ``run_here_and_in_workers``.

A worker process starts from nothing (``spawn``): it imports the library, torch and the agents' compiled kernels
before its first job, seconds in which a pool of only workers leaves the calling process idle. Here the calling
process, which has all of that loaded already, runs jobs from the first moment, and a worker is handed a job only
once it has started (it answers a first, empty task), so no job waits in the queue of a worker still starting while
the caller could have run it: a run of a few jobs ends about when the caller alone would have ended it, a long run
uses every process.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")

#: How often (seconds) the caller, waiting for the workers' last results, looks up from the wait (a signal's
#: handler runs between two looks).
_WAIT = 0.25


def _started() -> None:
    """The empty first task that tells the caller a worker has started."""


def run_here_and_in_workers(
    function: Callable[[Job], Result],
    jobs: Iterable[Job],
    processes: int,
    initializer: Callable[[], None] | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> Iterator[Result]:
    """``function(job)`` for every job, on ``processes`` processes in all: this one and ``processes - 1`` started
    with ``spawn`` (``function``, the jobs and their results are pickled for them; ``initializer`` runs in each as
    it starts). Results come as they finish, in no set order; with ``processes <= 1`` every job runs here, in order.

    ``on_result(result)`` is called with each result as soon as it is back, before it is yielded, one call at a time
    but on whichever thread got it: what must not wait until this process's own job ends, such as writing the result
    to disk (a worker's result is otherwise yielded only between two of this process's jobs).

    The first error raised by a job or by ``on_result``, here or in a worker, is raised here and no further job
    starts. Closing the iterator early (or a ``KeyboardInterrupt`` here) terminates the workers: their jobs under way
    are lost; every result already back has been given to ``on_result``."""
    delivering = threading.Lock()

    def delivered(result: Result) -> Result:
        if on_result is not None:
            with delivering:
                on_result(result)
        return result

    if processes <= 1:
        for job in jobs:
            yield delivered(function(job))
        return
    todo = iter(jobs)
    lock = threading.Lock()
    back: queue.SimpleQueue = queue.SimpleQueue()  # (True, result) or (False, error), from the pool's thread
    running = 0  # jobs handed to the workers and not yet finished (guarded by lock)
    stopped = False  # no further job is handed out (an error, the caller gone, or no job left)

    def take(for_worker: bool) -> tuple[bool, Job | None]:
        """The next job, if one is left and nothing stopped the run; one taken for a worker counts as running at
        once, so the caller never sees no job running while a worker's is about to start."""
        nonlocal running, stopped
        with lock:
            if stopped:
                return False, None
            try:
                job = next(todo)
            except StopIteration:
                stopped = True
                return False, None
            except BaseException:
                stopped = True
                raise
            running += for_worker
            return True, job

    def hand_out(_: object = None) -> None:
        """Give a started worker its next job (called in the pool's result thread)."""
        nonlocal running, stopped
        try:
            found, job = take(for_worker=True)
        except BaseException as error:  # the jobs' own iterator failed: the caller raises it
            back.put((False, error))
            return
        if not found:
            return
        try:
            pool.apply_async(function, (job,), callback=done, error_callback=failed)
        except ValueError:  # the pool was closed meanwhile: the caller has left
            with lock:
                running -= 1
                stopped = True

    def done(result: Result) -> None:
        nonlocal running
        try:
            delivered(result)
        except BaseException as error:
            failed(error)
            return
        back.put((True, result))  # before the count falls: the caller stops waiting only once it is queued
        with lock:
            running -= 1
        hand_out()

    def failed(error: BaseException) -> None:
        nonlocal running, stopped
        back.put((False, error))
        with lock:
            running -= 1
            stopped = True

    def results_so_far() -> Iterator[Result]:
        while True:
            try:
                ok, value = back.get_nowait()
            except queue.Empty:
                return
            if not ok:
                raise value
            yield value

    context = multiprocessing.get_context("spawn")
    with context.Pool(processes - 1, initializer=initializer) as pool:
        try:
            for _ in range(processes - 1):
                pool.apply_async(_started, callback=hand_out)
            while True:
                yield from results_so_far()
                found, job = take(for_worker=False)
                if not found:
                    break
                yield delivered(function(job))
            while True:
                yield from results_so_far()
                with lock:
                    if not running:
                        break
                try:
                    ok, value = back.get(timeout=_WAIT)
                except queue.Empty:
                    continue
                if not ok:
                    raise value
                yield value
            yield from results_so_far()  # an error reported after the last job finished
        finally:
            with lock:
                stopped = True
