"""``run_here_and_in_workers``: every job's result once, the caller running jobs from the start, a worker handed
jobs only once it has started, errors raised in the caller."""

from __future__ import annotations

import os
import threading
import time

import pytest

from seasons_env.common.parallel import run_here_and_in_workers


def _square_where(job: int) -> tuple[int, int]:
    time.sleep(0.05)  # long enough that a started worker takes some of the jobs
    return job * job, os.getpid()


def _fail_on_three(job: int) -> int:
    if job == 3:
        raise ValueError(f"job {job} failed")
    return job


def _start_slowly() -> None:
    time.sleep(60)


#: Set by ``on_result`` when a worker's result is back (read in this process only).
_WORKER_RESULT_BACK = threading.Event()


def _wait_here_for_a_worker(job: int) -> int:
    """Job 0, this process's first, waits until a worker's result has reached ``on_result``; the others are quick."""
    if job == 0:
        _WORKER_RESULT_BACK.wait(timeout=60)
    return os.getpid()


def test_one_process_runs_every_job_here_in_order() -> None:
    assert [result for result, _ in run_here_and_in_workers(_square_where, range(5), 1)] == [0, 1, 4, 9, 16]
    assert {pid for _, pid in run_here_and_in_workers(_square_where, range(3), 1)} == {os.getpid()}


@pytest.mark.parametrize("processes", [2, 3])
def test_every_job_gives_its_result_once_and_the_workers_take_a_share(processes: int) -> None:
    results = list(run_here_and_in_workers(_square_where, range(60), processes))
    assert sorted(result for result, _ in results) == [job * job for job in range(60)]
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) > 1, "the caller and a worker each ran some of the jobs"


def test_no_job_waits_for_a_worker_that_is_still_starting() -> None:
    """The worker's start takes a minute: the caller runs every job meanwhile, and leaving ends the worker."""
    begin = time.monotonic()
    results = list(run_here_and_in_workers(_square_where, range(6), 2, initializer=_start_slowly))
    assert {pid for _, pid in results} == {os.getpid()}
    assert sorted(result for result, _ in results) == [job * job for job in range(6)]
    assert time.monotonic() - begin < 30, "the run waited for the worker that never started its jobs"


@pytest.mark.parametrize("processes", [1, 2])
def test_a_job_s_error_is_raised_in_the_caller(processes: int) -> None:
    with pytest.raises(ValueError, match="job 3 failed"):
        list(run_here_and_in_workers(_fail_on_three, range(40), processes))


def test_a_worker_s_result_reaches_on_result_while_this_process_is_busy_with_its_own_job() -> None:
    """A worker's result is not held until this process's own job ends: ``on_result`` gets it at once (the arena
    writes a finished game to disk there, so a stop then loses no game a worker finished)."""
    _WORKER_RESULT_BACK.clear()
    seen = []

    def on_result(pid: int) -> None:
        seen.append(pid)
        if pid != os.getpid():
            _WORKER_RESULT_BACK.set()

    begin = time.monotonic()
    results = list(run_here_and_in_workers(_wait_here_for_a_worker, range(8), 2, on_result=on_result))
    assert _WORKER_RESULT_BACK.is_set() and time.monotonic() - begin < 60
    assert sorted(results) == sorted(seen) and len(results) == 8  # each result given to on_result once
    assert seen.index(os.getpid()) > 0, "job 0 (this process's) ended only after a worker's result was delivered"


def test_an_error_in_on_result_is_raised_in_the_caller() -> None:
    def refuse(result: tuple[int, int]) -> None:
        if result[0] == 9:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        list(run_here_and_in_workers(_square_where, range(40), 2, on_result=refuse))
