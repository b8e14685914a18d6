"""``VectorGame(..., threads=N)``: blocks of games stepped on several threads give the same games as one thread.

A differential test: batches of the same seeds stepped with 1, 2 and 3 threads over many steps, autoreset included,
are compared byte for byte at every step (observations, masks, current players, each step's results) and at the end
(every array of the positions); on two cores, two threads step with each thread's part one compiled loop
(``kernels/threaded_step.py``) and, in another batch, chunk by chunk through Python, as three threads do. The batches
are large enough that the threaded ones really split into blocks. The
kernels engine's ``apply`` (one compiled call per block: step, restart, every array written) is also compared with
the reference engine's (the same bookkeeping in Python) with games selected by ``where``, observations read at
some steps only, and finished games waiting for ``reset``.
"""

from __future__ import annotations

import copy
import pickle
import threading
import time

import numpy as np
import pytest

from seasons_env import IllegalActionError
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.chance import key_of_seed
from seasons_env.vector import BatchedSeasons, SeasonsVecEnv, SeasonsVectorEnv, VectorGame, game_seed
from seasons_env.vector.arrays import FIELD_NAMES
from seasons_env.vector.kernels import PYTHON_KERNELS, row_blocks
from seasons_env.vector.kernels.row_blocks import MIN_BLOCK_ROWS, MIN_THREADED_ROWS, RowBlocks


@pytest.fixture(autouse=True)
def _threads_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small batches split over the threads too (in the library, below ``MIN_THREADED_ROWS`` games a call runs on the
    calling thread alone): the batches here stay small and still run on several threads."""
    monkeypatch.setattr(row_blocks, "MIN_THREADED_ROWS", 0)


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per running game (0 for a finished one: its entry is ignored)."""
    counts = masks.sum(axis=1)
    picks = (rng.random(masks.shape[0]) * counts).astype(np.int64)
    actions = np.zeros(masks.shape[0], dtype=np.int64)
    for i in np.flatnonzero(counts):
        actions[i] = np.flatnonzero(masks[i])[picks[i]]
    return actions


def _trace(batch: VectorGame, steps: int) -> list[bytes]:
    """Everything the batch shows at each of ``steps`` random steps, as bytes."""
    rng = np.random.default_rng(17)
    trace = []
    for _ in range(steps):
        masks = batch.legal_mask()
        trace += [masks.tobytes(), batch.observations().tobytes(), batch.current_player.tobytes()]
        info = batch.apply(_pick(masks, rng))
        trace += [getattr(info, name).tobytes() for name in ("stepped", "finished", "final_scores", "winners")]
        trace.append(info.restarted.tobytes())
    trace += [batch.scores().tobytes(), batch.episode.tobytes()]
    return trace


def _positions(batch: VectorGame) -> list[bytes]:
    state = batch._backend.state
    return [getattr(state, name).tobytes() for name in FIELD_NAMES]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_threaded_stepping_plays_the_same_games_as_one_thread(num_players: int) -> None:
    size = 3 * MIN_BLOCK_ROWS  # three blocks of rows with 3 threads, two with 2
    steps = 700 if num_players == 2 else 450
    batches = [VectorGame(size, num_players, seed=21, threads=n) for n in (1, 2, 3, 2)]
    batches[3]._backend.rules.blocks.compiled_calls = False  # chunk by chunk in Python (``row_blocks.RowBlocks``)
    traces = [_trace(batch, steps) for batch in batches]
    assert traces[1] == traces[0] and traces[2] == traces[0] and traces[3] == traces[0]
    compiled = not PYTHON_KERNELS and row_blocks.usable_cores() >= 2  # each thread's part of a step a compiled loop
    assert (batches[1]._backend._threaded is not None) == compiled and batches[3]._backend._threaded is None
    assert [_positions(batch) for batch in batches[1:]] == [_positions(batches[0])] * 3
    assert batches[0].episode.max() >= 1, "no game ended and restarted: autoreset was not exercised"


def test_threaded_batches_from_positions_copies_and_pickles_continue_alike() -> None:
    start = VectorGame(2 * MIN_BLOCK_ROWS, 2, seed=4)
    _trace(start, 120)
    games = [start.game(i) for i in range(start.batch_size)]
    one = VectorGame.from_games(games, seed=4)
    two = VectorGame.from_games(games, seed=4, threads=2)
    assert two.threads == 2 and one.threads == 1
    copied, unpickled = copy.deepcopy(two), pickle.loads(pickle.dumps(two))
    assert copied.threads == 2 and unpickled.threads == 2
    expected = _trace(one, 300)
    for batch in (two, copied, unpickled):
        assert _trace(batch, 300) == expected
        assert _positions(batch) == _positions(one)


def _mixed_trace(batch: VectorGame, steps: int) -> list[bytes]:
    """Like ``_trace``, with a random part of the games stepped at each step (``where``), the observations read at
    some steps only, or written by ``apply`` (``observations_out``, and ``masks_out`` at some of those), and (without
    autoreset) some finished games reset now and then."""
    rng = np.random.default_rng(29)
    trace = []
    for step in range(steps):
        masks = batch.legal_mask()
        trace += [masks.tobytes(), batch.current_player.tobytes(), batch.is_over.tobytes(), batch.winners.tobytes()]
        if step % 5 < 2 or step > steps - 3:
            trace.append(batch.observations().tobytes())
        if step % 5 == 0:  # read twice: the second read gives the same
            trace.append(batch.observations().tobytes())
        where = rng.random(batch.batch_size) < 0.7 if step % 3 else None
        if step % 4 == 1:  # the observations written by the step itself, over a buffer holding anything
            written = np.full((batch.batch_size, OBSERVATION_SIZE), np.nan, dtype=np.float32)
            info = batch.apply(_pick(masks, rng), where=where, observations_out=written)
            trace.append(written.tobytes())
        elif step % 4 == 3:  # and the legal masks, over a buffer of True (every other time a strided one)
            written = np.full((batch.batch_size, OBSERVATION_SIZE), np.nan, dtype=np.float32)
            written_masks = (
                np.ones_like(masks) if step % 8 == 3 else np.ones((batch.batch_size, 2 * NUM_ACTIONS), bool)[:, ::2]
            )
            info = batch.apply(_pick(masks, rng), where=where, observations_out=written, masks_out=written_masks)
            trace += [written.tobytes(), written_masks.tobytes()]
        else:
            info = batch.apply(_pick(masks, rng), where=where)
        trace += [getattr(info, name).tobytes() for name in ("stepped", "finished", "final_scores", "winners")]
        trace += [info.restarted.tobytes(), batch.episode.tobytes()]
        if not batch.autoreset and step % 4 == 0 and batch.is_over.any():
            batch.reset(batch.is_over & (rng.random(batch.batch_size) < 0.5))
    trace.append(batch.scores().tobytes())
    return trace


@pytest.mark.parametrize("autoreset", [True, False])
def test_block_step_writes_what_the_reference_engines_batch_writes(autoreset: bool) -> None:
    size = 2 * MIN_BLOCK_ROWS
    kernels = [VectorGame(size, 2, "apprentice", seed=13, autoreset=autoreset, threads=n) for n in (1, 2)]
    reference = VectorGame(size, 2, "apprentice", seed=13, autoreset=autoreset, engine="reference")
    traces = [_mixed_trace(batch, 260) for batch in (*kernels, reference)]
    assert traces[0] == traces[2] and traces[1] == traces[2]
    assert kernels[1].episode.max() >= 1 or kernels[1].is_over.any(), "no game finished: the test exercised less"


def test_an_illegal_action_in_a_threaded_batch_names_the_first_bad_game_and_changes_nothing() -> None:
    batch = VectorGame(2 * MIN_BLOCK_ROWS, 2, "apprentice", seed=3, threads=2)
    rng = np.random.default_rng(4)
    while not batch.is_over.any():  # a finished game: the refused call must not restart it either
        batch.apply(_pick(batch.legal_mask(), rng))
    masks, observations, episodes = batch.legal_mask(), batch.observations(), batch.episode
    positions = _positions(batch)
    running = np.flatnonzero(~batch.is_over)
    first, second, skipped = int(running[3]), int(running[-1]), int(running[1])
    actions = _pick(masks, rng)
    for i in (skipped, first, second):
        actions[i] = int(np.flatnonzero(~masks[i])[0])
    where = np.ones(batch.batch_size, dtype=np.bool_)
    where[skipped] = False
    message = rf"^action \d+ \(.*\) is not legal in game {first}: .* \(1 other game\(s\) also got an illegal action\)"
    untouched = np.full((batch.batch_size, OBSERVATION_SIZE), 5.0, dtype=np.float32)
    untouched_masks = np.ones_like(masks)
    with pytest.raises(IllegalActionError, match=message + "; no game was changed$"):
        batch.apply(actions, where=where, observations_out=untouched, masks_out=untouched_masks)
    assert _positions(batch) == positions and np.array_equal(batch.episode, episodes)
    assert (untouched == 5.0).all() and untouched_masks.all()
    assert np.array_equal(batch.legal_mask(), masks) and np.array_equal(batch.observations(), observations)
    actions[[first, second]] = _pick(masks[[first, second]], rng)
    assert batch.apply(actions, where=where).restarted.any()  # the same call, made legal, goes through


def test_actions_where_and_out_of_any_layout_play_alike_and_compile_nothing_more() -> None:
    from seasons_env.vector.kernels.batch_step import first_illegal, step_block
    from seasons_env.vector.kernels.observe_rows import observe_block, observe_rows_in_place

    size = 2 * MIN_BLOCK_ROWS
    batch = VectorGame(size, 2, seed=8, threads=2)
    twin = copy.deepcopy(batch)
    rng = np.random.default_rng(3)
    wide = np.zeros((size, 2 * OBSERVATION_SIZE), dtype=np.float32)
    for step in range(40):
        masks = batch.legal_mask()
        actions = _pick(masks, rng)
        columns = np.zeros((size, 2), dtype=np.int32)
        columns[:, 1] = actions
        read_only = actions.copy()
        read_only.flags.writeable = False
        where = np.repeat(rng.random(size) < 0.8, 2)[::2] if step % 3 else None
        written = np.zeros((size, OBSERVATION_SIZE), dtype=np.float32) if step % 4 == 1 else None
        written_masks = np.zeros_like(masks) if step % 8 == 5 else None  # copied by the observations' kernel
        batch.apply(
            columns[:, 1] if step % 2 else read_only, where=where, observations_out=written, masks_out=written_masks
        )
        twin.apply(actions, where=None if where is None else where.copy())
        assert np.array_equal(batch.observations(out=wide[:, ::2]), twin.observations())
        assert written is None or np.array_equal(written, twin.observations())
        assert written_masks is None or np.array_equal(written_masks, twin.legal_mask())
        assert np.array_equal(batch.legal_mask(), twin.legal_mask())
    assert _positions(batch) == _positions(twin)
    if not PYTHON_KERNELS:  # compiled once whatever the arrays' layout and flags (as Python nothing is compiled)
        for kernel in (first_illegal, step_block, observe_rows_in_place, observe_block):
            assert len(kernel.signatures) == 1, kernel.signatures
    frozen = np.zeros((size, OBSERVATION_SIZE), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"out must be a writable float32 array of shape .*; got a read-only one"):
        batch.observations(out=frozen)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda b: np.zeros((b, OBSERVATION_SIZE)), r"observations_out must be a float32 array of shape .*float64"),
        (lambda b: np.zeros((b + 1, OBSERVATION_SIZE), dtype=np.float32), r"observations_out must be a float32 array"),
        (lambda b: [[0.0] * OBSERVATION_SIZE] * b, r"observations_out must be a float32 array .*; got a list"),
        (
            lambda b: np.zeros((OBSERVATION_SIZE, b), dtype=np.float32).T,
            r"observations_out must be C-contiguous",
        ),
        (lambda b: np.zeros((b, NUM_ACTIONS), dtype=np.int8), r"masks_out must be a bool array of shape .*int8"),
        (lambda b: np.zeros((b, NUM_ACTIONS - 1), dtype=np.bool_), r"masks_out must be a bool array of shape"),
    ],
)
def test_a_bad_observations_or_masks_buffer_is_refused_before_any_game_moves(make, message: str) -> None:
    batch = VectorGame(2 * MIN_BLOCK_ROWS, 2, seed=6, threads=2)
    positions, masks = _positions(batch), batch.legal_mask()
    buffer = make(batch.batch_size)
    given = {"masks_out": buffer} if message.startswith("masks_out") else {"observations_out": buffer}
    with pytest.raises(ValueError, match=message):
        batch.apply(_pick(masks, np.random.default_rng(1)), **given)
    assert _positions(batch) == positions


def test_compiled_game_keys_equal_the_keys_of_game_seeds() -> None:
    from seasons_env.vector.kernels.batch_step import entropy_words, game_key

    rng = np.random.default_rng(0)
    cases = [(0, 0, 0), (1, 2, 3), (2**32, 5, 2**32 + 1), (2**70 + 3, 1023, 7), (2**64 - 1, 0, 1), (7, 2**40, 0)]
    cases += [(int(rng.integers(2**63)), int(rng.integers(5000)), int(rng.integers(100))) for _ in range(300)]
    for seed, index, episode in cases:
        key = int(game_key(entropy_words(seed), index, episode))
        assert key == key_of_seed(game_seed(seed, index, episode)), (seed, index, episode)


def _fork_child_trace(batch: VectorGame, results) -> None:
    results.put(_trace(batch, 40))


def test_a_forked_process_steps_a_threaded_batch() -> None:
    # SB3's SubprocVecEnv and multiprocessing fork the process: the pool threads the parent started are not in the
    # child, which must start its own rather than wait for them.
    import multiprocessing

    batch = VectorGame(2 * MIN_BLOCK_ROWS, 2, seed=6, threads=2)
    _trace(batch, 5)  # the parent's pool is running
    twin = copy.deepcopy(batch)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_fork_child_trace, args=(batch, results))
    child.start()
    child_trace = results.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert child_trace == _trace(twin, 40)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2", None, 257])
def test_bad_threads_are_refused_naming_the_argument(threads: object) -> None:
    with pytest.raises(ValueError, match=r"threads must be an int from 1 to 256; got"):
        VectorGame(4, 2, threads=threads)
    with pytest.raises(ValueError, match=r"threads must be an int from 1 to 256"):
        SeasonsVectorEnv(2, threads=threads)


def test_the_reference_engine_takes_one_thread_only() -> None:
    with pytest.raises(ValueError, match=r"threads must be 1 with engine='reference'"):
        VectorGame(4, 2, engine="reference", threads=2)
    assert VectorGame(2, 2, engine="reference", threads=1).threads == 1


def test_vector_environments_pass_threads_through_and_play_the_same_games() -> None:
    size = 2 * MIN_BLOCK_ROWS
    gym_envs = [SeasonsVectorEnv(size, 3, opponents="random", threads=n) for n in (1, 2)]
    sb3_envs = [SeasonsVecEnv(size, 2, opponents="random", agent_seat="random", threads=n) for n in (1, 2)]
    assert [env.batch.threads for env in gym_envs + sb3_envs] == [1, 2, 1, 2]
    gym_obs = [env.reset(seed=3)[0] for env in gym_envs]
    sb3_obs = [env.reset() for env in sb3_envs]
    assert np.array_equal(gym_obs[0], gym_obs[1]) and np.array_equal(sb3_obs[0], sb3_obs[1])
    rng = np.random.default_rng(0)
    for _ in range(150):
        actions = _pick(gym_envs[0].action_masks(), rng)
        results = [env.step(actions) for env in gym_envs]
        for a, b in zip(results[0][:4], results[1][:4], strict=True):
            assert np.array_equal(a, b)
        actions = _pick(sb3_envs[0].action_masks(), rng)
        results = [env.step(actions) for env in sb3_envs]
        for a, b in zip(results[0][:3], results[1][:3], strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(gym_envs[0].action_masks(), gym_envs[1].action_masks())
    assert sb3_envs[0].action_masks().shape == (size, NUM_ACTIONS)
    loops = [BatchedSeasons(size, 4, seed=2, threads=n) for n in (1, 2)]
    steps = [loop.reset(seed=5) for loop in loops]
    assert loops[1].batch.threads == 2, "reset keeps the thread count"
    for _ in range(100):
        actions = _pick(steps[0].masks, rng)
        steps = [loop.step(actions) for loop in loops]
        for a, b in zip(vars(steps[0]).values(), vars(steps[1]).values(), strict=True):
            assert np.array_equal(a, b)


def test_training_takes_game_threads_and_selfplay_batches_step_on_them() -> None:
    from seasons_training.config import TrainConfig
    from seasons_training.selfplay import Deal, SelfPlayGames

    assert TrainConfig().game_threads == 1 and TrainConfig(game_threads=2).game_threads == 2
    with pytest.raises(ValueError, match=r"game_threads: must be at least 1"):
        TrainConfig(game_threads=0)
    with pytest.raises(ValueError, match=r"game_threads: must be 1 with engine 'reference'"):
        TrainConfig(game_threads=2, engine="reference")

    def schedule(rng: np.random.Generator) -> Deal:
        return Deal(2, int(rng.integers(2)), "random", int(rng.integers(2**40)))

    size = 2 * MIN_BLOCK_ROWS
    runs = [SelfPlayGames(size, "apprentice", schedule, {}, seed=8, threads=n) for n in (1, 2)]
    rng = np.random.default_rng(1)
    for games in runs:
        games.start()
    for _ in range(60):
        masks = [games.observe()[1] for games in runs]
        assert np.array_equal(masks[0], masks[1])
        actions = _pick(masks[0], rng).tolist()
        for games in runs:
            games.step(actions)
    assert runs[1].batches[2].threads == 2
    assert [runs[1].game(i).to_dict() for i in range(size)] == [runs[0].game(i).to_dict() for i in range(size)]


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_observations_and_masks_written_by_apply_in_a_one_game_batch_are_what_their_reads_give(engine: str) -> None:
    batch = VectorGame(1, 3, seed=2, engine=engine)
    rng = np.random.default_rng(5)
    written = np.full((1, OBSERVATION_SIZE), np.nan, dtype=np.float32)
    written_masks = np.ones((1, NUM_ACTIONS), dtype=np.bool_)
    while not batch.is_over[0]:
        batch.apply(_pick(batch.legal_mask(), rng), observations_out=written, masks_out=written_masks)
        assert np.array_equal(written, batch.observations())
        assert np.array_equal(written_masks, batch.legal_mask())


def test_self_play_and_the_batched_loop_observe_as_the_reference_engine_does() -> None:
    """Both step with the observations written by ``apply`` on the kernels engine (``observations_out``): every
    step's observations, rewards and ends equal the reference engine's, finished and restarted games included."""
    size = 2 * MIN_BLOCK_ROWS
    engines = ("kernels", "reference")
    gym_envs = [
        SeasonsVectorEnv(size, 2, self_play=True, level="apprentice", engine=e, threads=n)
        for e, n in zip(engines, (2, 1), strict=True)
    ]
    first = [env.reset(seed=9)[0] for env in gym_envs]
    assert np.array_equal(first[0], first[1])
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        actions = _pick(gym_envs[1].action_masks(), rng)
        results = [env.step(actions) for env in gym_envs]
        for a, b in zip(results[0][:4], results[1][:4], strict=True):
            assert np.array_equal(a, b)
        ended += int(results[0][2].sum())
    assert ended > 0, "no game ended: the test exercised less"
    loops = [
        BatchedSeasons(size, 3, level="apprentice", seed=4, engine=e, threads=n)
        for e, n in zip(engines, (2, 1), strict=True)
    ]
    steps = [loop.reset() for loop in loops]
    restarted = 0
    for _ in range(500):
        actions = _pick(steps[1].masks, rng)
        steps = [loop.step(actions) for loop in loops]
        for a, b in zip(vars(steps[0]).values(), vars(steps[1]).values(), strict=True):
            assert np.array_equal(a, b)
        restarted += int(steps[0].restarted.sum())
    assert restarted > 0, "no game restarted: the test exercised less"


def test_calls_over_fewer_rows_than_the_threshold_run_on_the_calling_thread_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from seasons_env.vector.kernels.structs import kernel_arrays
    from seasons_env.vector.state.arrays import ArrayState

    monkeypatch.setattr(row_blocks, "MIN_THREADED_ROWS", MIN_THREADED_ROWS)  # the library's own threshold
    state = ArrayState.empty(1, 2)
    blocks = RowBlocks(state, kernel_arrays(state), threads=2)
    for count, split in ((MIN_THREADED_ROWS - 1, False), (MIN_THREADED_ROWS, True)):
        chunks = blocks.run_numbered(count, lambda k, struct, lo, hi: (k, lo, hi))
        bounds = [bound for _, lo, hi in chunks for bound in (lo, hi)]
        assert bounds[0] == 0 and bounds[-1] == count and bounds[1:-1:2] == bounds[2:-1:2], "the rows once, in order"
        assert (len(chunks) > 1) == split, (count, chunks)
        assert split or chunks == [(0, 0, count)], chunks  # the calling thread's, in one call


def _two_thread_blocks() -> RowBlocks:
    from seasons_env.vector.kernels.structs import kernel_arrays
    from seasons_env.vector.state.arrays import ArrayState

    state = ArrayState.empty(1, 2)
    return RowBlocks(state, kernel_arrays(state), threads=2)


def _two_thread_chunks(count: int) -> list[tuple[int, int]]:
    """The chunks of rows a two-thread call over ``count`` rows runs: ``CHUNKS_PER_THREAD`` a thread, equal."""
    chunks = min(2 * row_blocks.CHUNKS_PER_THREAD, count // MIN_BLOCK_ROWS)
    return [(count * c // chunks, count * (c + 1) // chunks) for c in range(chunks)]


def _slow_chunk(k: int, struct: object, lo: int, hi: int) -> tuple[int, int, int]:
    time.sleep(0.03)  # longer than a thread spins for the next call or for the others: both sleep and are woken
    return k, lo, hi


def test_the_pool_threads_sleep_between_calls_and_wake_for_the_next() -> None:
    blocks = _two_thread_blocks()
    for _ in range(3):
        chunks = blocks.run_numbered(128, _slow_chunk)
        assert [(lo, hi) for _, lo, hi in chunks] == _two_thread_chunks(128)
        assert {k for k, _, _ in chunks} == {0, 1}, "both threads took chunks"
        pool = row_blocks._pool(1)
        deadline = time.monotonic() + 10
        while pool.sleeping < 1 and time.monotonic() < deadline:  # it spins for about a quarter of a millisecond
            time.sleep(0.001)
        assert pool.sleeping == 1, "the pool's thread still spins with no call to run"


def test_an_error_in_a_pool_thread_is_raised_in_the_caller_once_and_the_pool_goes_on() -> None:
    blocks = _two_thread_blocks()

    def failing(k: int, struct: object, lo: int, hi: int) -> tuple[int, int, int]:
        if k == 1:
            raise RuntimeError(f"rows {lo}..{hi}")
        return _slow_chunk(k, struct, lo, hi)

    with pytest.raises(RuntimeError, match="rows"):
        blocks.run_numbered(128, failing)
    chunks = blocks.run_numbered(128, _slow_chunk)  # the error is not raised again
    assert [(lo, hi) for _, lo, hi in chunks] == _two_thread_chunks(128)


def test_each_thread_runs_its_own_chunks_first_then_takes_the_others_from_their_far_end() -> None:
    """Each thread steps the same rows at every call (they stay in its core's cache) unless the other is late: the
    calling thread owns the first half of the chunks, the pool's thread the second; here the pool's thread is held
    in its first chunk until the caller has taken every chunk it can."""
    blocks = _two_thread_blocks()
    count = 256
    chunks = _two_thread_chunks(count)
    own = len(chunks) // 2
    assert own >= 2, "a share of one chunk leaves nothing to take from"
    started, caller_done = threading.Event(), threading.Event()
    ran: dict[int, list[int]] = {0: [], 1: []}

    def chunk(k: int, struct: object, lo: int, hi: int) -> None:
        ran[k].append(chunks.index((lo, hi)))
        if k == 1 and len(ran[1]) == 1:
            started.set()
            caller_done.wait(10)
        if k == 0:
            started.wait(10)  # the pool's thread has its first chunk
            if len(ran[0]) == len(chunks) - 1:
                caller_done.set()

    blocks.run_numbered(count, chunk)
    assert ran[1] == [own], "the pool's thread first ran the first chunk of its half"
    assert ran[0] == [*range(own), *range(len(chunks) - 1, own, -1)], "its own half, then the other's from the end"


def test_a_call_made_while_the_pool_runs_another_runs_on_its_calling_thread() -> None:
    outer, inner = _two_thread_blocks(), _two_thread_blocks()

    def nested(k: int, struct: object, lo: int, hi: int) -> list:
        return inner.run_numbered(64, lambda *chunk: chunk[0])  # the pool is busy with the outer call

    for threads_of_inner_chunks in outer.run_numbered(64, nested):
        assert len(threads_of_inner_chunks) == 4
        assert set(threads_of_inner_chunks) <= {0}, "an inner call ran on the pool's thread"


def test_a_pool_of_more_threads_than_cores_waits_asleep_and_runs_every_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(row_blocks, "usable_cores", lambda: 1)
    pool = row_blocks._Pool(1)  # two threads, one core: a spinning thread would take the core from a working one
    assert pool.spin_checks == 1
    done: list[int] = []
    for _ in range(3):
        assert pool.run(lambda k: done.append(k))
    assert sorted(done) == [0, 0, 0, 1, 1, 1]
    monkeypatch.setattr(row_blocks, "usable_cores", lambda: 2)
    # a core each: it spins when compiled (as Python a spin would hold the interpreter lock)
    assert row_blocks._Pool(1).spin_checks == (1 if PYTHON_KERNELS else row_blocks.SPIN_CHECKS)
