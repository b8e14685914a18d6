"""Thread scaling of the batched core: decisions per second of ``VectorGame(..., threads=N)`` against one thread.

    python benchmarks/vector_threads.py                    # batch 256 and 1,024; 1 and 2 threads; 2 and 4 players
    python benchmarks/vector_threads.py --threads 1,2,4 --batches 1024 --seconds 20
    python benchmarks/vector_threads.py --compile          # also the first call's time with an empty kernel cache
    python benchmarks/vector_threads.py --split            # one thread's step by CPU time: what the threads split
    python benchmarks/vector_threads.py --timeline         # where two threads lose: their step's call timed inside
    python benchmarks/vector_threads.py --observations both  # also the step with separate reads, same rounds
    python benchmarks/vector_threads.py --pool both        # also the threads stepping chunk by chunk through Python
    python benchmarks/vector_threads.py --machine          # a thread hand-off's round trip; two processes against one

Every step picks a uniformly random legal action per game from the legal masks of every game (a small compiled loop in
the calling thread, standing for a policy that costs little beside the games; its share of the time is printed) and
applies them with ``apply(actions, observations_out=obs, masks_out=masks)``, which writes every game's observation and
legal mask after the step in the same pass over the games (``--observations separate``: ``apply(actions)``, then
``observations(out=obs)`` and ``legal_mask(out=masks)``, the way before ``apply`` wrote them; ``both``: each way, all
their batches stepped in the same alternating rounds); finished games restart (``autoreset=True``). All the thread
counts of a row start from the same positions, spread over a game's whole course, and play the same games (the picks
depend only on the masks and one generator per run). With several threads, each thread's part of a step is one
compiled call, the pool's threads running step after step in a compiled loop (``kernels/threaded_step.py``);
``--pool python`` steps them chunk by chunk through Python instead (``RowBlocks.run_numbered``), ``--pool both`` each
way in the same alternating rounds, one thread's column shared. The budget is split into rounds alternating between
the thread counts, so that a change in the shared machine's load hits them alike: read the ratio to one thread,
measured in the same run. The machine's load average (``os.getloadavg``) is printed before and after, and the cores
each column really got (CPU seconds per second): other processes running on the cores lower the figures with several
threads most.

``--split`` prints instead one thread's step by CPU time: the share spent in the work the threads split, the pick's
share, the rest (the calling thread's whatever ``threads`` is), and Amdahl's bound on two threads.

``--timeline`` prints instead, for one thread and two from the same positions alternating in rounds, the step's call
to the threads timed inside: when the second thread starts its first chunk, how long the calling thread waits after
its last, and the CPU time of the chunks over both threads against one thread's.

``--machine`` prints what the machine itself gives: the round trip of a hand-off between two threads (a lock each way,
and spinning in compiled code as the pool's threads wait between steps), and one-thread batches stepped by one process
alone against two processes at once, each with a batch of its own (the scaling two cores give work that shares nothing).

``--compile`` times, in a fresh process with an empty ``SEASONS_KERNEL_CACHE`` folder, building a batch and its
first step with one thread and then with two (the threaded path compiles only its waiting kernel).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import numba
import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector import VectorGame
from seasons_env.vector.kernels.row_blocks import MIN_THREADED_ROWS, CompiledCall, RowBlocks

GOAL_RATIO = 1.7  # 2 threads / 1 thread at batch 1,024 on a 2-core machine
ROUNDS = 4
WARMUP_STEPS = 300  # from new games: spreads the batch over the draft and the first years before measuring
SPLIT_STEPS = 600  # steps timed by --split and --timeline unless --steps says otherwise
WAYS = {"apply": [False], "separate": [True], "both": [False, True]}  # --observations: observations read separately?
POOLS = {"compiled": [True], "python": [False], "both": [True, False]}  # --pool: each thread's part a compiled loop?


@numba.njit
def _pick_rows(masks: np.ndarray, draws: np.ndarray, out: np.ndarray) -> None:
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        if count == 0:
            continue
        left = int(draws[i] * count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if left == 0:
                    out[i] = a
                    break
                left -= 1


def random_legal(masks: np.ndarray, rng: np.random.Generator, out: np.ndarray) -> None:
    """A uniformly random legal action per row of ``masks`` into ``out`` (rows without one are left as they are)."""
    _pick_rows(masks, rng.random(masks.shape[0]), out)


class Side:
    """One ``VectorGame`` and its buffers, stepped as the module docstring says; ``clock`` times the pick."""

    def __init__(
        self,
        batch: VectorGame,
        seed: int,
        clock: Callable[[], float] = time.perf_counter,
        separate: bool = False,
        compiled_pool: bool = True,
    ) -> None:
        self.clock = clock
        self.batch = batch
        # False: the threads step chunk by chunk through Python (``RowBlocks.run_numbered``), not in compiled loops
        batch._backend.rules.blocks.compiled_calls = compiled_pool
        self.obs = np.empty((batch.batch_size, OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.empty((batch.batch_size, NUM_ACTIONS), dtype=np.bool_)
        self.actions = np.zeros(batch.batch_size, dtype=np.int64)
        self.rng = np.random.default_rng(seed)
        self.picking = 0.0  # seconds spent in the pick (the calling thread's, outside the batch)
        self.separate = separate  # observations and masks read by their own calls, not written by apply
        batch.observations(out=self.obs)
        batch.legal_mask(out=self.masks)

    def step(self) -> int:
        begin = self.clock()
        random_legal(self.masks, self.rng, self.actions)
        self.picking += self.clock() - begin
        if self.separate:
            info = self.batch.apply(self.actions)
            self.batch.observations(out=self.obs)
            self.batch.legal_mask(out=self.masks)
        else:
            info = self.batch.apply(self.actions, observations_out=self.obs, masks_out=self.masks)
        return int(info.stepped.sum())


def started_games(batch_size: int, players: int) -> list:
    """``batch_size`` games stepped ``WARMUP_STEPS`` times from new (spread over the draft and the first years): the
    positions every thread count of a row starts from."""
    start = VectorGame(batch_size, players, "archmage", seed=1)
    warm = Side(start, 7)
    for _ in range(WARMUP_STEPS):
        warm.step()
    return [start.game(i) for i in range(batch_size)]


def measure(
    batch_size: int,
    players: int,
    threads: list[int],
    seconds: float,
    ways: Sequence[tuple[bool, bool]] = ((False, True),),
) -> tuple[list[float], list[float], list[float]]:
    """Decisions per second for each way (observations written by ``apply`` or read separately; the threads' parts
    compiled loops or chunks through Python) and each thread count (way by way, the thread counts within), all from
    the same positions, in alternating rounds; the cores each used (this process's CPU seconds per second); and the
    share of its time spent picking the actions."""
    games = started_games(batch_size, players)
    # one side per distinct setting: the pool's way does not change one thread's step, so the ways share its side
    settings = [(separate, compiled or n == 1, n) for separate, compiled in ways for n in threads]
    distinct = list(dict.fromkeys(settings))
    sides = [
        Side(VectorGame.from_games(games, seed=1, threads=n), 11, separate=separate, compiled_pool=compiled)
        for separate, compiled, n in distinct
    ]
    for side in sides:
        side.step()
        side.picking = 0.0
    totals = [[0, 0.0, 0.0] for _ in sides]
    for _ in range(ROUNDS):
        for k, side in enumerate(sides):
            begin, cpu = time.perf_counter(), time.process_time()
            while (elapsed := time.perf_counter() - begin) < seconds / (len(sides) * ROUNDS):
                totals[k][0] += side.step()
            totals[k][1] += elapsed
            totals[k][2] += time.process_time() - cpu
    rates = [count / spent for count, spent, _ in totals]
    cores = [cpu / spent for _, spent, cpu in totals]
    picking = [side.picking / spent for side, (_, spent, _) in zip(sides, totals, strict=True)]
    order = [distinct.index(setting) for setting in settings]
    return [rates[k] for k in order], [cores[k] for k in order], [picking[k] for k in order]


def scaling_table(
    batches: list[int], threads: list[int], players_list: list[int], seconds: float, ways: list[tuple[bool, bool]]
) -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    print("decisions/s with observation + mask of every game at every step (archmage, random legal actions)")
    header = f"{'players':>7} {'batch':>6} {'observations':>12} {'pool':>8} "
    header += " ".join(f"{f'{n} thr':>10}" for n in threads)
    header += " " + " ".join(f"{f'{n}/1':>6}" for n in threads[1:])
    header += "  cores used: " + " ".join(f"{f'{n} thr':>5}" for n in threads)
    header += "  pick share: " + " ".join(f"{f'{n} thr':>5}" for n in threads)
    print(header)
    for players in players_list:
        for batch_size in batches:
            every = measure(batch_size, players, threads, seconds * len(ways), ways)
            for w, (separate, compiled) in enumerate(ways):
                rates, cores, picking = (values[w * len(threads) : (w + 1) * len(threads)] for values in every)
                line = f"{players:>7} {batch_size:>6} {'separate' if separate else 'by apply':>12} "
                line += f"{'compiled' if compiled else 'python':>8} "
                line += " ".join(f"{rate:>10,.0f}" for rate in rates)
                line += " " + " ".join(f"{rate / rates[0]:>6.2f}" for rate in rates[1:])
                line += "              " + " ".join(f"{used:>5.2f}" for used in cores)
                line += "              " + " ".join(f"{share:>5.0%}" for share in picking)
                print(line, flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("cores used: this process's CPU seconds per second while that column ran (other processes take the rest)")
    print(
        "pick share: the time spent picking the actions (the calling thread's, outside the batch: a policy's stand-in)"
    )
    print("observations: written by apply(actions, observations_out=obs, masks_out=masks), or read after it")
    print("pool: each thread's part of a step one compiled call (in a loop between steps), or chunks through Python")
    print(f"goal: 2 threads >= {GOAL_RATIO}x 1 thread at batch 1,024 on 2 cores")


def split_shares(batch_size: int, players: int, steps: int) -> tuple[float, list[float]]:
    """One thread's step by CPU time (``time.thread_time``: other processes' load does not count): microseconds per
    step, and the shares spent in the work the threads split (every chunk ``RowBlocks`` runs: the step's compiled
    calls, the observations, the masks; ``_Timeline``), in the pick, and in the rest (the calling thread's whatever
    ``threads`` is)."""
    side = Side(VectorGame(batch_size, players, "archmage", seed=1), 7, time.thread_time)
    for _ in range(WARMUP_STEPS):
        side.step()
    side.picking = 0.0
    with _Timeline() as timeline:
        begin = time.thread_time()
        for _ in range(steps):
            side.step()
        total = time.thread_time() - begin
    split = sum(call[3][0] for call in timeline.calls)
    return 1e6 * total / steps, [split / total, side.picking / total, 1 - (split + side.picking) / total]


def split_table(batches: list[int], players_list: list[int], steps: int) -> None:
    print("one thread's step by CPU time (archmage, random legal actions; other processes' load does not count)")
    print(f"{'players':>7} {'batch':>6} {'us/step':>8} {'split':>6} {'pick':>6} {'rest':>6}  bound on 2 threads")
    for players in players_list:
        for batch_size in batches:
            per_step, shares = split_shares(batch_size, players, steps)
            line = f"{players:>7} {batch_size:>6} {per_step:>8.0f} " + " ".join(f"{share:>6.1%}" for share in shares)
            print(line + f"  {1 / (1 - shares[0] / 2):>17.2f}", flush=True)
    print("split: the work the threads split; pick: the random pick (a policy's stand-in); rest: the calling thread's")
    print("bound on 2 threads: Amdahl's law, 1 / (1 - split / 2), with both cores free and nothing else lost")


class _Timeline:
    """Times the calls to the threads: each call's wall time, when each thread started its first chunk and ended its
    last (after the call's start), and each thread's CPU time in its chunks (``time.thread_time``). Chunk by chunk
    through Python (``RowBlocks.run_numbered``) every thread's chunks are timed; as compiled loops
    (``RowBlocks.run_compiled``) only the calling thread's part (thread 0): the pool's threads are in compiled code."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, dict[int, float], dict[int, float], dict[int, float]]] = []
        self._run_numbered = RowBlocks.run_numbered
        self._run_compiled = RowBlocks.run_compiled

    def __enter__(self) -> _Timeline:
        run_numbered, run_compiled, calls = self._run_numbered, self._run_compiled, self.calls

        def timed(run: Callable, wrap: Callable) -> Callable:
            def call(blocks: RowBlocks, first_argument: object, task: Callable) -> object:
                first: dict[int, float] = {}
                last: dict[int, float] = {}
                cpu: dict[int, float] = {}
                begin = time.perf_counter()

                def chunk(k: int, *rest: object) -> object:
                    first.setdefault(k, time.perf_counter() - begin)
                    used = time.thread_time()
                    try:
                        return task(k, *rest)
                    finally:
                        cpu[k] = cpu.get(k, 0.0) + time.thread_time() - used
                        last[k] = time.perf_counter() - begin

                try:
                    return run(blocks, first_argument, wrap(task, chunk))
                finally:
                    calls.append((time.perf_counter() - begin, first, last, cpu))

            return call

        RowBlocks.run_numbered = timed(run_numbered, lambda task, chunk: chunk)
        RowBlocks.run_compiled = timed(run_compiled, _CallerTimed)
        return self

    def __exit__(self, *_: object) -> None:
        RowBlocks.run_numbered = self._run_numbered
        RowBlocks.run_compiled = self._run_compiled


class _CallerTimed(CompiledCall):
    """``call`` with its calling thread's part (``call(0)``) timed by ``chunk``; the pool's threads' loops unchanged."""

    def __init__(self, call: CompiledCall, chunk: Callable) -> None:
        self.generation = call.generation
        self._call, self._chunk = call, chunk

    def __call__(self, k: int) -> None:
        self._chunk(k)

    def serve(self, k: int, flags: np.ndarray, generation_index: int, done: int, spin_checks: int) -> int:
        return self._call.serve(k, flags, generation_index, done, spin_checks)


def _chunk_cpu(timeline: _Timeline) -> float:
    """The CPU seconds of every chunk of every call ``timeline`` saw, on every thread."""
    return sum(sum(call[3].values()) for call in timeline.calls)


def timeline_figures(batch_size: int, players: int, steps: int, compiled: bool = True) -> dict[str, float]:
    """One thread's and two threads' steps from the same positions, alternating in rounds (``_Timeline``): medians
    in microseconds, and (chunk by chunk through Python) the chunks' CPU time over both threads against one thread's;
    ``compiled``: the two threads' parts compiled loops (only the calling thread's part is timed)."""
    games = started_games(batch_size, players)
    sides = [Side(VectorGame.from_games(games, seed=1, threads=n), 11, compiled_pool=compiled) for n in (1, 2)]
    timelines = [_Timeline() for _ in sides]
    wall = [0.0, 0.0]
    for _ in range(ROUNDS):
        for k, side in enumerate(sides):
            with timelines[k]:
                begin = time.perf_counter()
                for _ in range(steps // ROUNDS):
                    side.step()
                wall[k] += time.perf_counter() - begin
    per_step = 1e6 / (ROUNDS * (steps // ROUNDS))
    figures = {"step 1 thr": wall[0] * per_step, "step 2 thr": wall[1] * per_step}
    if batch_size < MIN_THREADED_ROWS:  # every call ran on the calling thread alone
        return figures
    calls = timelines[1].calls
    figures["call 2 thr"] = 1e6 * float(np.median([call[0] for call in calls]))
    figures["end wait"] = 1e6 * float(np.median([call[0] - call[2][0] for call in calls if 0 in call[2]]))
    two = [call for call in calls if 1 in call[1]]  # the calls whose pool thread's chunks were timed (Python's)
    if two:
        figures["2nd start"] = 1e6 * float(np.median([call[1][1] for call in two]))
        figures["chunk CPU"] = _chunk_cpu(timelines[1]) / _chunk_cpu(timelines[0])  # the same steps on each side
    return figures


def timeline_table(batches: list[int], players_list: list[int], steps: int, pools: list[bool]) -> None:
    print("where two threads lose, the step's call to the threads timed inside (archmage, random legal actions)")
    names = ["step 1 thr", "step 2 thr", "call 2 thr", "2nd start", "end wait"]
    head = f"{'players':>7} {'batch':>6} {'pool':>8} "
    print(head + " ".join(f"{name:>10}" for name in names) + f" {'chunk CPU':>10}")
    for players in players_list:
        for batch_size in batches:
            for compiled in pools:
                figures = timeline_figures(batch_size, players, steps, compiled)
                shown = [f"{figures[name]:>10.0f}" if name in figures else f"{'-':>10}" for name in names]
                cpu = f"{figures['chunk CPU']:>10.2f}" if "chunk CPU" in figures else f"{'-':>10}"
                pool = "compiled" if compiled else "python"
                print(f"{players:>7} {batch_size:>6} {pool:>8} " + " ".join(shown) + f" {cpu}", flush=True)
    print("step: microseconds a step, 1 and 2 threads; call: the step's call to the threads (median, 2 threads)")
    print("2nd start: when the second thread started its first chunk, after the call began (median; chunks in Python)")
    print("end wait: from the calling thread's last chunk (or its part of a compiled call) to the call's end (median)")
    print("chunk CPU: CPU time in the chunks, both threads', over one thread's for the same steps (1.00: nothing lost)")
    print("pool: compiled loops (the pool's threads' chunks are not timed) or chunks through Python")
    print(f"-: not measured that way, or the batch is under {MIN_THREADED_ROWS} games (the calling thread alone)")


def compile_times() -> None:
    """The first call's seconds (import, build a batch, observe, one step) in a fresh process with an empty cache,
    for one thread and then two threads (each from its own empty cache)."""
    probe = (
        "import sys, time; start = time.perf_counter(); import numpy as np; "
        "from seasons_env.vector import VectorGame; "
        "batch = VectorGame(4, 2, 'archmage', threads=int(sys.argv[1])); batch.observations(); "
        "batch.apply(np.array([np.flatnonzero(m)[0] for m in batch.legal_mask()])); "
        "print(time.perf_counter() - start)"
    )
    root = str(Path(__file__).resolve().parents[1])
    for threads in (1, 2):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "SEASONS_KERNEL_CACHE": cache, "PYTHONPATH": root}
            result = subprocess.run(
                [sys.executable, "-c", probe, str(threads)], env=env, capture_output=True, text=True, check=True
            )
            seconds = float(result.stdout.strip())
            print(f"first call, empty kernel cache, threads={threads}: {seconds:.1f} s")


def _stepping_process(players: int, batch_size: int, seconds: float, start: object, results: object) -> None:
    """One process stepping a one-thread batch for ``seconds`` once every process is ready: its decisions/s."""
    side = Side(VectorGame(batch_size, players, "archmage", seed=1), 7)
    for _ in range(WARMUP_STEPS):
        side.step()
    start.wait()
    count, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        count += side.step()
    results.put(count / (time.perf_counter() - begin))


TRIPS = 20_000  # round trips timed by --machine


def _lock_trip() -> float:
    """Seconds of a round trip between two threads, each waiting for the other on a lock."""
    import threading

    ping, pong = threading.Lock(), threading.Lock()
    ping.acquire()
    pong.acquire()

    def answer() -> None:
        for _ in range(TRIPS):
            ping.acquire()
            pong.release()

    other = threading.Thread(target=answer)
    other.start()
    begin = time.perf_counter()
    for _ in range(TRIPS):
        ping.release()
        pong.acquire()
    trip = (time.perf_counter() - begin) / TRIPS
    other.join()
    return trip


def _spin_trip() -> float:
    """Seconds of a round trip between two threads, each spinning on a counter in compiled code
    (``row_blocks.spin_until``, the interpreter lock released) until the other moves it."""
    import threading

    from seasons_env.vector.kernels.row_blocks import spin_until

    counters = np.zeros(16, dtype=np.int64)  # the two counters a cache line apart
    spin_until(counters, 0, 0, 1)  # compiled (or loaded) before the clock starts

    def answer() -> None:
        for trip in range(1, TRIPS + 1):
            while not spin_until(counters, 0, trip, 1 << 20):
                pass
            counters[8] = trip

    other = threading.Thread(target=answer)
    other.start()
    begin = time.perf_counter()
    for trip in range(1, TRIPS + 1):
        counters[0] = trip
        while not spin_until(counters, 8, trip, 1 << 20):
            pass
    trip_seconds = (time.perf_counter() - begin) / TRIPS
    other.join()
    return trip_seconds


def machine_table(batches: list[int], players_list: list[int], seconds: float) -> None:
    """What the machine gives two threads of this process and two processes: a hand-off's round trip between two
    threads, and one-thread batches stepped by one process alone against two processes at once."""
    import multiprocessing

    print(f"a hand-off between two threads and back (a lock each way): {_lock_trip() * 1e6:.1f} us")
    print(f"the same by spinning in compiled code (how the pool's threads wait): {_spin_trip() * 1e6:.1f} us")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    print("decisions/s of one-thread batches, observation + mask of every game at every step, 2 rounds each")
    print(f"{'players':>7} {'batch':>6} {'1 process':>10} {'2 processes':>12} {'2 / 1':>6}")
    context = multiprocessing.get_context("spawn")
    for players in players_list:
        for batch_size in batches:
            totals = {1: [], 2: []}
            for _ in range(2):
                for count in (1, 2):
                    start, results = context.Barrier(count), context.Queue()
                    workers = [
                        context.Process(
                            target=_stepping_process, args=(players, batch_size, seconds / 4, start, results)
                        )
                        for _ in range(count)
                    ]
                    for worker in workers:
                        worker.start()
                    totals[count].append(sum(results.get() for _ in workers))
                    for worker in workers:
                        worker.join()
            one, two = (sum(totals[n]) / len(totals[n]) for n in (1, 2))
            print(f"{players:>7} {batch_size:>6} {one:>10,.0f} {two:>12,.0f} {two / one:>6.2f}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("2 processes: the sum of both; each steps a batch of its own on one thread (what two cores give free work)")


def int_list(parser: argparse.ArgumentParser, text: str, name: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = [0]
    if min(values) < 1:
        parser.error(f"--{name} must be comma-separated positive ints; got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", default="256,1024", help="comma-separated batch sizes (default 256,1024)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts, 1 first (default 1,2)")
    parser.add_argument("--players", default="2,4", help="comma-separated player counts (default 2,4)")
    parser.add_argument("--seconds", type=float, default=8.0, help="budget per row of the table (default 8)")
    parser.add_argument("--compile", action="store_true", help="also the first call's time with an empty cache")
    parser.add_argument(
        "--split", action="store_true", help="only one thread's step by CPU time (what the threads split)"
    )
    parser.add_argument(
        "--observations",
        choices=sorted(WAYS),
        default="apply",
        help="observations and masks written by apply (default), read after it (separate), or both",
    )
    parser.add_argument(
        "--pool",
        choices=sorted(POOLS),
        default="compiled",
        help="each thread's part of a step a compiled loop (default), chunks through Python (python), or both",
    )
    parser.add_argument(
        "--timeline", action="store_true", help="only where two threads lose: their step's call timed inside"
    )
    parser.add_argument(
        "--steps", type=int, default=SPLIT_STEPS, help=f"steps timed by --split and --timeline (default {SPLIT_STEPS})"
    )
    parser.add_argument(
        "--machine",
        action="store_true",
        help="only what the machine gives: a thread hand-off's round trip, and two processes against one",
    )
    args = parser.parse_args(argv)
    if args.steps < ROUNDS:
        parser.error(f"--steps must be at least {ROUNDS} (a step a round); got {args.steps}")
    threads = int_list(parser, args.threads, "threads")
    if threads[0] != 1:
        parser.error(f"--threads must start with 1 (the ratios are to one thread); got {args.threads!r}")
    players = int_list(parser, args.players, "players")
    if any(n not in (2, 3, 4) for n in players):
        parser.error(f"--players must be 2, 3 or 4; got {args.players!r}")
    if args.machine:
        machine_table(int_list(parser, args.batches, "batches"), players, args.seconds)
        return 0
    if args.split:
        split_table(int_list(parser, args.batches, "batches"), players, args.steps)
        return 0
    if args.timeline:
        timeline_table(int_list(parser, args.batches, "batches"), players, args.steps, POOLS[args.pool])
        return 0
    ways = [(separate, compiled) for separate in WAYS[args.observations] for compiled in POOLS[args.pool]]
    scaling_table(int_list(parser, args.batches, "batches"), threads, players, args.seconds, ways)
    if args.compile:
        print()
        compile_times()
    return 0


if __name__ == "__main__":
    sys.exit(main())
