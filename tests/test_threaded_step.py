"""A threaded batch's step as compiled loops (``kernels/threaded_step.py``) and the pool's protocol for them
(``row_blocks.CompiledCall``).

The games it plays are compared byte for byte with one thread's by ``tests/test_vector_threads.py``, which steps
through these loops (checked here) and through Python chunk by chunk. Here: two batches stepped in turn on the same
pool threads (each step a call of another generation), a step made while the pool runs another call (the calling
thread then claims every chunk), and the pool's side with calls written in Python: a compiled loop's error raised in
the caller, plain calls and compiled calls in turn, and a Ctrl-C while the caller waits, raised only once the pool's
threads have ended their part.
"""

from __future__ import annotations

import signal
import threading
import time

import numpy as np
import pytest

from seasons_env.vector import VectorGame
from seasons_env.vector.kernels import PYTHON_KERNELS, row_blocks
from seasons_env.vector.kernels.row_blocks import LINE, MIN_BLOCK_ROWS, CompiledCall, RowBlocks

pytestmark = pytest.mark.skipif(
    PYTHON_KERNELS or row_blocks.usable_cores() < 2,
    reason="the compiled loops run only compiled, with a core for each thread (else chunk by chunk in Python)",
)

SIZE = 4 * MIN_BLOCK_ROWS


@pytest.fixture(autouse=True)
def _threads_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(row_blocks, "MIN_THREADED_ROWS", 0)  # small batches split over the threads too


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    actions = np.zeros(masks.shape[0], dtype=np.int64)
    for i in np.flatnonzero(masks.any(axis=1)):
        actions[i] = rng.choice(np.flatnonzero(masks[i]))
    return actions


def _step(batch: VectorGame, rng: np.random.Generator, buffers: tuple[np.ndarray, np.ndarray]) -> list[bytes]:
    actions = _pick(batch.legal_mask(), rng)
    info = batch.apply(actions, observations_out=buffers[0], masks_out=buffers[1])
    fields = ("stepped", "finished", "final_scores", "winners", "restarted")
    return [buffers[0].tobytes(), buffers[1].tobytes(), *(getattr(info, name).tobytes() for name in fields)]


def _buffers(batch: VectorGame) -> tuple[np.ndarray, np.ndarray]:
    return batch.observations().copy(), batch.legal_mask().copy()


def test_two_batches_stepped_in_turn_on_the_same_threads_play_their_one_thread_games() -> None:
    threaded = [VectorGame(SIZE, n, seed=n, threads=2) for n in (2, 4)]
    single = [VectorGame(SIZE, n, seed=n, threads=1) for n in (2, 4)]
    buffers = [_buffers(batch) for batch in threaded + single]
    rngs = [np.random.default_rng(k % 2) for k in range(4)]
    for _ in range(150):
        for k in (0, 1):  # a call of one batch, then of the other: each makes the threads' loops return
            assert _step(threaded[k], rngs[k], buffers[k]) == _step(single[k], rngs[k + 2], buffers[k + 2])
    assert all(batch._backend._threaded is not None for batch in threaded), "the compiled loops were not used"
    assert all(np.array_equal(a.episode, b.episode) for a, b in zip(threaded, single, strict=True))


def test_a_step_made_while_the_pool_runs_another_call_steps_every_game_on_its_calling_thread() -> None:
    batch, twin = VectorGame(SIZE, 3, seed=5, threads=2), VectorGame(SIZE, 3, seed=5)
    buffers, twin_buffers = _buffers(batch), _buffers(twin)
    outer = _two_thread_blocks()
    rng, twin_rng = np.random.default_rng(1), np.random.default_rng(1)
    traces: list[list[bytes]] = []

    def step_inside(k: int, struct: object, lo: int, hi: int) -> None:
        if k == 0 and lo == 0:  # one chunk of the outer call steps the batch, its pool being busy
            for _ in range(40):
                traces.append(_step(batch, rng, buffers))

    outer.run_numbered(4 * MIN_BLOCK_ROWS, step_inside)
    assert len(traces) == 40 and batch._backend._threaded is not None
    assert traces == [_step(twin, twin_rng, twin_buffers) for _ in range(40)]


def _two_thread_blocks() -> RowBlocks:
    from seasons_env.vector.kernels.structs import kernel_arrays
    from seasons_env.vector.state.arrays import ArrayState

    state = ArrayState.empty(1, 2)
    return RowBlocks(state, kernel_arrays(state), threads=2)


class _PythonCall(CompiledCall):
    """A ``CompiledCall`` written in Python: each thread records that it ran; the pool's thread's loop waits up to
    ``wait`` seconds for each next call of its generation and takes ``delay`` seconds over each, raising ``error`` at
    the ``error_at``-th call it runs."""

    def __init__(
        self, delay: float = 0.0, error: BaseException | None = None, error_at: int = 1, wait: float = 0.0
    ) -> None:
        self.generation = row_blocks.next_generation()
        self.ran: list[tuple[int, int]] = []
        self.delay, self.error, self.error_at, self.wait = delay, error, error_at, wait
        self.ended_at: float | None = None

    def __call__(self, k: int) -> None:
        self.ran.append((k, -1))

    def serve(self, k: int, flags: np.ndarray, generation_index: int, done: int, spin_checks: int) -> int:
        served = 0
        while True:
            deadline = time.monotonic() + self.wait
            while flags[0] <= done and time.monotonic() < deadline:
                time.sleep(0.001)
            if flags[0] <= done or flags[generation_index] != self.generation:
                return done
            time.sleep(self.delay)
            self.ended_at = time.monotonic()
            served += 1
            if self.error is not None and served == self.error_at:
                raise self.error
            done += 1
            self.ran.append((k, done))
            flags[LINE * k] = done


def test_an_error_in_a_pool_thread_s_compiled_loop_is_raised_in_the_caller_once_and_the_pool_goes_on() -> None:
    pool = row_blocks._pool(1)
    with pytest.raises(RuntimeError, match="in the loop"):
        pool.run(_PythonCall(error=RuntimeError("in the loop")))
    call = _PythonCall()
    for _ in range(3):
        assert pool.run(call)
    assert sorted(k for k, _ in call.ran) == [0, 0, 0, 1, 1, 1]


def test_an_error_in_a_later_call_of_a_compiled_loop_ends_that_call_not_an_earlier_one() -> None:
    pool = row_blocks._pool(1)
    call = _PythonCall(error=RuntimeError("at the second call"), error_at=2, wait=5.0)
    assert pool.run(call)  # the pool's thread now waits in its loop for the next call
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            pool.run(call)
            outcome.append(None)
        except RuntimeError as error:
            outcome.append(error)

    caller = threading.Thread(target=run)
    caller.start()
    caller.join(10)
    assert not caller.is_alive(), "the caller still waits for a call the pool's thread ended with an error"
    assert isinstance(outcome[0], RuntimeError) and "second call" in str(outcome[0])
    assert len([k for k, _ in call.ran if k == 1]) == 1, "the pool's thread ran the call that raised again"
    after = _PythonCall()
    assert pool.run(after) and sorted(k for k, _ in after.ran) == [0, 1]


def test_plain_calls_and_compiled_calls_in_turn_each_run_on_every_thread() -> None:
    pool = row_blocks._pool(1)
    first, second = _PythonCall(), _PythonCall()
    plain: list[int] = []
    for _ in range(3):
        for job in (first, plain.append, second, second):
            assert pool.run(job)
    assert sorted(plain) == [0, 0, 0, 1, 1, 1]
    assert sorted(k for k, _ in first.ran) == [0] * 3 + [1] * 3
    assert sorted(k for k, _ in second.ran) == [0] * 6 + [1] * 6


def test_ctrl_c_while_the_caller_waits_is_raised_once_the_pool_s_threads_have_ended() -> None:
    pool = row_blocks._pool(1)
    assert pool.run(_PythonCall())  # the pool's kernels loaded: the Ctrl-C comes while the caller waits
    call = _PythonCall(delay=0.5)  # the pool's thread takes half a second over its part
    main = threading.main_thread().ident
    timer = threading.Timer(0.1, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.run(call)
        raised_at = time.monotonic()
    finally:
        timer.cancel()
    assert call.ended_at is not None and call.ended_at <= raised_at, "the caller went on while a thread still ran"
    after = _PythonCall()
    assert pool.run(after) and sorted(k for k, _ in after.ran) == [0, 1]
