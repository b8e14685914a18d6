"""Compiling the kernels ahead of time (``seasons compile``), and telling whether they are compiled.

Each ``CompileStep`` compiles one group of kernels the way a caller does: by a short piece of work through the
public path (a few steps of a ``VectorGame``, a ``CompiledGame``), which compiles each kernel for exactly the
argument types real callers use, or loads it from the disk cache (``seasons_env.vector.kernels.CACHE_TOP``: a folder
for each kernel module, named by the hash of the files it imports, ``kernels.module_folder``).
Packages that add compiled code (the compiled heuristic, the self-play snapshot policy) add their steps through the
``seasons_env.compile`` entry points (a function returning a list of steps), so the library never imports them.

``check_step`` runs a step with the kernels loading from the cache only (``kernels.load_only``): a kernel that is not
there, or whose entry is damaged or not trusted, stops it with the reason instead of compiling. So ``seasons compile
--check`` reports what the next run loads, exactly, whoever compiled the kernels (``seasons compile``, the tests, a
first game), and changes nothing.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import os
import queue
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

COMPILE_GROUP = "seasons_env.compile"


@dataclass(frozen=True)
class CompileStep:
    """One group of compiled code: ``run()`` compiles it (or loads it from the cache).

    ``after`` names a step whose compiled kernels this one calls (the snapshot policy steps a ``VectorGame``): with
    several worker processes it runs after that step, in the same process, which then has those kernels in memory.
    ``weight`` is its compile time from an empty cache, relative to the others (seconds measured on one machine):
    how ``plan_workers`` balances the processes. ``folders`` gives the cache folders of the kernels its package
    defines, for these sources (``seasons compile --prune`` keeps them and deletes the other ``kernels-…`` folders).
    ``beside`` names a step this one helps from another process, at the same time: it compiles some of that step's
    kernels and has none of its own, so it runs only with several processes and is not checked by ``--check``."""

    name: str
    summary: str
    run: Callable[[], None]
    after: str | None = None
    weight: float = 1.0
    folders: Callable[[], Iterable[Path]] | None = None
    beside: str | None = None


def _rules_kernels() -> None:
    from ..vector import VectorGame
    from ..vector.arrays import ArrayState
    from ..vector.kernels.row_blocks import MIN_THREADED_ROWS

    for num_players in (2, 3, 4):
        for threads in (1, 2):
            vector = VectorGame(2, num_players=num_players, seed=0, engine="kernels", threads=threads)
            rng = np.random.default_rng(0)
            view = ArrayState.empty(1, num_players)
            obs, masks = vector.observations(), vector.legal_mask()
            for step in range(40):
                vector.observations()
                mask = vector.legal_mask()
                vector.determinize_into(0, int(vector.current_player[0]), rng, view, 0)  # self-play's agents' views
                actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
                if step % 2:  # the vector environments' step: the observations and masks written by it
                    vector.apply(actions, observations_out=obs, masks_out=masks)
                else:
                    vector.apply(actions)
            vector.scores()
        single = VectorGame(1, num_players=num_players, seed=0, engine="kernels")  # one game: one call a step
        for _ in range(20):
            single.apply([int(np.flatnonzero(single.legal_mask()[0])[0])])
    # A batch large enough for its step's threads to run as compiled loops (``kernels/threaded_step.py``; on one core
    # it steps on the calling thread, and compiles nothing more).
    threaded = VectorGame(MIN_THREADED_ROWS, num_players=2, seed=0, engine="kernels", threads=2)
    obs, masks = threaded.observations(), threaded.legal_mask()
    for _ in range(2):
        actions = np.array([np.flatnonzero(row)[0] for row in masks])
        threaded.apply(actions, observations_out=obs, masks_out=masks)


def first_use(kind: str) -> None:
    """A program's first use of the compiled rules of ``kind`` (``compile_order.FIRST_USES``), a few decisions long: an
    environment or ``VectorGame`` of one game (``"one-game"``), or a batch stepped as the vector environments step it
    (``"batch"``). ``python -m seasons_env.commands.compiling`` records what each compiles in a new process."""
    from ..vector import VectorGame
    from ..vector.compile_order import FIRST_USES
    from ..vector.single import CompiledGame

    if kind not in FIRST_USES:
        raise ValueError(f"kind must be one of {', '.join(FIRST_USES)}; got {kind!r}")
    if kind == "one-game":
        game = CompiledGame.new(2, "apprentice", 0)
        vector = VectorGame(1, seed=0, engine="kernels")
        for _ in range(10):
            game.observation(game.current_player)
            game.apply(int(np.flatnonzero(game.legal_mask(game.current_player))[0]))
            vector.observations()
            vector.apply([int(np.flatnonzero(vector.legal_mask()[0])[0])])
        return
    vector = VectorGame(4, seed=0, engine="kernels")
    obs, masks = vector.observations(), vector.legal_mask()
    rng = np.random.default_rng(0)
    for step in range(10):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        if step % 2:
            vector.apply(actions, observations_out=obs, masks_out=masks)
        else:
            vector.apply(actions)
            obs, masks = vector.observations(), vector.legal_mask()


def _one_game() -> None:
    from ..vector.single import play_sample_games

    play_sample_games()


def _rules_from_the_end() -> None:
    from ..vector.compile_order import compile_from_the_end

    compile_from_the_end()


def _rules_folders() -> list[Path]:
    from ..vector.kernels import rules_folders

    return list(rules_folders().values())


LIBRARY_STEPS = (
    CompileStep("rules", "the rules kernels (VectorGame)", _rules_kernels, weight=33, folders=_rules_folders),
    CompileStep("one-game", "the one-game path (CompiledGame, engine='kernels')", _one_game, after="rules", weight=1),
    CompileStep(
        "rules-from-the-end",
        "the rules kernels again, from the other end of their list, beside the rules step",
        _rules_from_the_end,
        weight=18,
        beside="rules",
    ),
)


def compile_steps() -> tuple[list[CompileStep], list[str]]:
    """The library's steps and those of installed packages, and one message for each package whose steps could not
    be loaded."""
    steps, errors = list(LIBRARY_STEPS), []
    for entry in entry_points(group=COMPILE_GROUP):
        try:
            found = entry.load()()
        except Exception as error:  # a package that fails to import must not hide the others
            errors.append(f"{entry.name} ({entry.value}): {type(error).__name__}: {error}")
            continue
        steps.extend(step for step in found if isinstance(step, CompileStep))
    return steps, errors


def cache_root() -> Path:
    """The folder every compiled kernel is cached under (each kernel module's folder, each group's)."""
    from ..vector.kernels import CACHE_TOP

    return CACHE_TOP


def check_step(step: CompileStep) -> str | None:
    """Run ``step`` loading kernels from the cache only: None if every kernel it uses loads, else why not (the first
    kernel that would be compiled, or the entry or folder that would not be loaded). Nothing is compiled or
    changed."""
    from ..vector.kernels import NotCached, load_only

    try:
        with load_only():
            step.run()
    except NotCached as missing:
        return str(missing)
    return None


#: A folder name's suffix for kernels compiled at another optimisation level (``kernels.KERNEL_OPT``, ``INNER_OPT``).
_LEVEL_SUFFIX = re.compile(r"(-opt[0-9])?(-inner[0-9])?$")


def current_cache_folders() -> set[str]:
    """The names of the cache folders of these sources' kernels: each step's ``folders`` (at every optimisation
    level: the ``-opt<N>`` and ``-inner<N>`` suffixes left out). Raises ``RuntimeError`` if an installed package's steps
    cannot be loaded, since its folders would then count as stale."""
    steps, errors = compile_steps()
    if errors:
        raise RuntimeError(f"cannot tell which kernel folders are current: {'; '.join(errors)}")
    return {_LEVEL_SUFFIX.sub("", path.name) for step in steps if step.folders for path in step.folders()}


def stale_cache_folders(current: set[str] | None = None) -> list[Path]:
    """The cache folders of kernels compiled from other sources than these (an older version, another checkout's
    edits): every ``kernels-…`` folder directly in ``cache_root()`` and in its ``boundscheck`` folder (the test
    suite's bounds-checked kernels) that no current module or group names (``current``, by default
    ``current_cache_folders()``). Nothing else in the folder is ever counted: it may be a folder shared with other
    programs (``NUMBA_CACHE_DIR``); and no symlink is followed (a ``boundscheck`` or ``kernels-…`` symlink is left
    alone, with what it points to)."""
    current = current_cache_folders() if current is None else current
    root = cache_root()
    stale = []
    for parent in (root, root / "boundscheck"):
        if parent.is_symlink() or not parent.is_dir():
            continue
        real = parent.resolve()
        for path in sorted(parent.iterdir()):
            own = _LEVEL_SUFFIX.sub("", path.name) in current
            if not path.name.startswith("kernels-") or own or path.is_symlink() or not path.is_dir():
                continue
            if path.resolve().parent == real:  # really in this folder, not reached through a link
                stale.append(path)
    return stale


def delete_folder(path: Path) -> None:
    """Delete the folder ``path`` and everything in it, following no symlink: a link inside is removed, not what it
    points to, and ``path`` itself must not be one (``shutil.rmtree`` refuses it)."""
    import shutil

    if path.is_symlink():
        raise OSError(f"{path} is a symlink")
    shutil.rmtree(path)


def folder_size(path: Path) -> int:
    """The bytes of the files under ``path`` (symlinks not followed)."""
    return sum(entry.lstat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())


# ------------------------------------------------------------------------------------------------ worker processes


def default_jobs() -> int:
    """The cores this process may run on: ``seasons compile``'s default number of worker processes."""
    from ..vector.kernels.row_blocks import usable_cores

    return usable_cores()


def plan_workers(steps: list[CompileStep], jobs: int) -> list[list[CompileStep]]:
    """``steps`` spread over at most ``jobs`` worker processes, each list run in order by one process. numba compiles
    one function at a time in a process (its compiler lock), so processes are what compiles in parallel; but each
    process compiles every kernel it calls that is not yet on disk, so a step that calls another's kernels
    (``after``) goes to that step's process, after it. The chains of steps so formed are dealt out longest first
    (``weight``) to the process with the least work so far. A step ``beside`` another goes first in the process with
    the least work among those without that step, and is left out with one process or without that step."""
    helpers = [step for step in steps if step.beside is not None]
    steps = [step for step in steps if step.beside is None]
    chosen = {step.name for step in steps}
    chains: dict[str, list[CompileStep]] = {}
    head: dict[str, str] = {}
    for step in steps:  # listed after the step they follow (compile_steps' order)
        root = head.get(step.after) if step.after in chosen else None
        if root is None:
            chains[step.name] = [step]
            head[step.name] = step.name
        else:
            chains[root].append(step)
            head[step.name] = root
    workers: list[list[CompileStep]] = [[] for _ in range(max(1, min(jobs, len(chains))))]
    for chain in sorted(chains.values(), key=lambda chain: -sum(step.weight for step in chain)):
        min(workers, key=lambda worker: sum(step.weight for step in worker)).extend(chain)
    workers = [worker for worker in workers if worker]
    for helper in helpers:
        if helper.beside not in chosen:
            continue
        others = [worker for worker in workers if all(step.name != helper.beside for step in worker)]
        if not others and len(workers) < jobs:  # a process of its own
            workers.append([])
            others = workers[-1:]
        if others:
            min(others, key=lambda worker: sum(step.weight for step in worker)).insert(0, helper)
    return workers


def _run_in_worker(names: list[str], reports: multiprocessing.queues.Queue) -> None:
    """A worker process: run the steps ``names`` in order, reporting (name, seconds, error or None) for each."""
    from ..vector.compile_helper import HELPER_VARIABLE

    os.environ[HELPER_VARIABLE] = "0"  # the steps are the helpers: no VectorGame of theirs starts one
    steps = {step.name: step for step in compile_steps()[0]}
    for name in names:
        start = time.perf_counter()
        try:
            steps[name].run()
        except BaseException as error:
            reports.put((name, time.perf_counter() - start, f"{type(error).__name__}: {error}"))
            return
        reports.put((name, time.perf_counter() - start, None))


def run_in_workers(plan: list[list[CompileStep]], done: Callable[[str, float, str | None], None]) -> None:
    """Run each list of ``plan`` in a worker process of its own (started fresh: ``spawn``), all at once; ``done(name,
    seconds, error)`` is called as each step finishes (``error``: why it failed, or None). A failed step stops the
    rest of its process's list; the other processes go on."""
    context = multiprocessing.get_context("spawn")
    reports = context.Queue()
    workers = [context.Process(target=_run_in_worker, args=([s.name for s in steps], reports)) for steps in plan]
    expected = {step.name for steps in plan for step in steps}
    try:
        for worker in workers:
            worker.start()
        while expected:
            try:
                name, seconds, error = reports.get(timeout=1.0)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers) and reports.empty():
                    for name in sorted(expected):  # a worker died without reporting (killed, out of memory)
                        done(name, 0.0, "its worker process ended without reporting")
                    return
                continue
            expected.discard(name)
            done(name, seconds, error)
            if error is not None:
                stopped = next(steps for steps in plan if any(step.name == name for step in steps))
                for step in stopped[[s.name for s in stopped].index(name) + 1 :]:
                    expected.discard(step.name)
                    done(step.name, 0.0, f"not run: {name} failed before it in the same worker")
    finally:
        for worker in workers:
            worker.join(timeout=5.0)
            if worker.is_alive():
                worker.terminate()
                worker.join()


def _record_part(part: str, out: Path) -> None:
    """In a new process with an empty cache: the list's lines of ``part`` (``rules``, or a first use) into ``out``."""
    from ..storage.files import write_atomic
    from ..vector.compile_order import record

    lines = record(_rules_kernels if part == "rules" else lambda: first_use(part))
    write_atomic(out, ("\n".join(lines) + "\n").encode())


def write_rules_compile_order() -> int:
    """Write the rules step's compile order (``vector/compile_order.txt``), each line marked with the first uses that
    compile it: the rules step and each first use (``compile_order.FIRST_USES``) recorded in a new process with an
    empty cache, so that every kernel compiles, two at a time: ``python -m seasons_env.commands.compiling``."""
    import shutil
    import subprocess
    import sys
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    from ..storage.files import write_atomic
    from ..vector.compile_order import FIRST_USES, ORDER_FILE, mark_first_uses

    part = os.environ.get("_SEASONS_RECORDING")
    if part:  # one part, in its own process
        _record_part(part, Path(sys.argv[1]))
        return 0
    folder = Path(tempfile.mkdtemp(prefix="seasons-compile-order-"))

    def recorded(part: str) -> list[str]:
        env = {
            **os.environ,
            "SEASONS_KERNEL_CACHE": str(folder / f"cache-{part}"),
            "SEASONS_PREBUILT_KERNELS": "none",
            "_SEASONS_RECORDING": part,
            "SEASONS_COMPILE_HELPER": "0",  # this process's own compile order: no helper process beside it
        }
        out = folder / f"{part}.txt"
        command = [sys.executable, "-m", "seasons_env.commands.compiling", str(out)]
        subprocess.run(command, env=env, check=True)
        return [line for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            parts = dict(zip(("rules", *FIRST_USES), pool.map(recorded, ("rules", *FIRST_USES)), strict=True))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lines = mark_first_uses(parts.pop("rules"), parts)
    write_atomic(ORDER_FILE, ("\n".join(lines) + "\n").encode())
    counts = ", ".join(f"{len(set(found))} compiled by the first use of {use}" for use, found in parts.items())
    print(f"{len(lines)} kernel signatures written to {ORDER_FILE} ({counts})")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_rules_compile_order())
