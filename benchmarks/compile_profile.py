"""Where the rules kernels' compile time goes: the first ``VectorGame`` call from an empty kernel cache, kernel by
kernel.

    python benchmarks/compile_profile.py                 # the first VectorGame call, top 25 kernels
    python benchmarks/compile_profile.py --top 60
    python benchmarks/compile_profile.py --one-game      # the first CompiledGame step (engine="kernels" envs)
    python benchmarks/compile_profile.py --only heuristic   # one step of `seasons compile`, the rules loaded first
    python benchmarks/compile_profile.py --speed         # the compiled kernels' speed instead, in CPU time

Runs in a fresh empty cache folder (``SEASONS_KERNEL_CACHE``, a new temporary folder; removed afterwards) and
times, through numba's event API (``numba.core.event``: ``numba:compile`` and ``numba:run_pass``), each kernel's
compilation by itself (its callees' compilations, which numba runs inside it, are subtracted), split into
numba's own passes (type inference, the rest of the frontend) and lowering to LLVM and machine code. The lowering
is split further by timing numba's code library: LLVM's per-function passes on the new IR, the module passes on the
kernel's whole module (its own IR plus every callee's module linked in, so that LLVM can inline them), and machine
code generation (MCJIT). Each kernel signature numba compiles is one row; ``specs`` counts a kernel's signatures.
``--speed`` measures what a compile-time change may cost at run time: decisions per CPU second of ``VectorGame``
(observations, masks, a random legal action, ``apply``; ``benchmarks/vector_speed.py``'s batched side) at batch 1
and 256, 2 and 4 players, with the kernels in the usual cache (compiled first if needed, not timed).

Times are the process's CPU seconds (the wall clock is printed too): on a shared machine CPU time moves far less
with the load, so two checkouts compare best by running this in each, alternately, more than once.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
# this process's own compilation is profiled: no helper process compiling beside it (vector/compile_helper.py)
os.environ.setdefault("SEASONS_COMPILE_HELPER", "0")

_PHASES = (
    "typing",
    "frontend",
    "lowering",
    "llvm_ir_read",
    "llvm_function",
    "llvm_link",
    "llvm_module",
    "machine_code",
    "cache_save",
)


def _clock() -> float:
    """The process's CPU time: on a shared, loaded machine it moves far less than the wall clock."""
    return time.process_time()


class CompileProfile:
    """Exclusive times per compiled signature, from numba's events and its code library's steps."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self._stack: list[list] = []  # [key, start, nested seconds, phase seconds {phase: s}]
        self._pass_stack: list[list] = []  # [pass name, start, nested compile seconds at start]

    # numba:compile ---------------------------------------------------------------------------------------------
    def on_compile(self, event) -> None:
        if event.is_start:
            dispatcher = event.data["dispatcher"]
            module = (dispatcher.py_func.__module__ or "").rsplit(".", 1)[-1]
            name = f"{module}.{dispatcher.py_func.__qualname__}"
            self._stack.append([(name, str(event.data["args"])), _clock(), 0.0])
        else:
            key, start, nested = self._stack.pop()
            total = _clock() - start
            row = self.rows[key]
            row["total"] += total - nested
            row["count"] += 1
            if self._stack:
                self._stack[-1][2] += total

    def on_pass(self, event) -> None:
        if event.is_start:
            nested = self._stack[-1][2] if self._stack else 0.0
            self._pass_stack.append([event.data["name"].split(" [")[0], _clock(), nested])
            return
        name, start, nested_before = self._pass_stack.pop()
        if not self._stack:
            return
        nested = self._stack[-1][2] - nested_before
        phase = {"nopython_type_inference": "typing", "native_lowering": "lowering"}.get(name, "frontend")
        self.rows[self._stack[-1][0]][phase] += _clock() - start - nested

    def add_llvm(self, phase: str, seconds: float) -> None:
        if self._stack:
            self.rows[self._stack[-1][0]][phase] += seconds
            if phase != "cache_save":  # inside native_lowering: not counted twice
                self.rows[self._stack[-1][0]]["lowering"] -= seconds


@contextmanager
def _timed_library_steps(profile: CompileProfile):
    """Time numba's code library steps (function passes, module passes, machine code, the rest of reading IR into
    LLVM and of linking the callees' modules in) and cache writes, each by itself (its timed parts subtracted)."""
    from numba.core import caching, codegen

    patched = [
        (codegen.CPUCodeLibrary, "add_ir_module", "llvm_ir_read"),
        (codegen.CPUCodeLibrary, "_optimize_functions", "llvm_function"),
        (codegen.CPUCodeLibrary, "finalize", "llvm_link"),
        (codegen.CPUCodeLibrary, "_optimize_final_module", "llvm_module"),
        (codegen.JITCodeLibrary, "_finalize_specific", "machine_code"),
        (caching.Cache, "save_overload", "cache_save"),
    ]
    originals = []
    nested: list[float] = []  # time of timed steps inside the running one

    for owner, name, phase in patched:
        original = getattr(owner, name)
        originals.append((owner, name, original))

        def timed(*args, _original=original, _phase=phase, **kwargs):
            nested.append(0.0)
            start = _clock()
            try:
                return _original(*args, **kwargs)
            finally:
                took = _clock() - start
                inner = nested.pop()
                if nested:
                    nested[-1] += took
                profile.add_llvm(_phase, took - inner)

        setattr(owner, name, timed)
    try:
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _first_vector_call() -> None:
    from seasons_env.vector import VectorGame

    vector = VectorGame(1, engine="kernels")
    vector.apply([int(vector.legal_mask()[0].nonzero()[0][0])])


def _first_one_game_step() -> None:
    from seasons_env.vector.single import CompiledGame

    game = CompiledGame.new(2, "archmage", seed=0)
    game.observation(game.current_player)
    game.apply(int(game.legal_action_list()[0]))


def run_speed(steps: int, rounds: int) -> None:
    """Decisions per CPU second of the batched side of ``vector_speed.py``, best of ``rounds``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from vector_speed import BatchedSide, staggered_games

    print(f"decisions per CPU second of VectorGame (archmage), best of {rounds}; load average {os.getloadavg()[0]:.1f}")
    for players in (2, 4):
        for batch in (1, 256):
            side = BatchedSide(staggered_games(batch, players, "archmage", seed=batch), seed=batch)
            side.step()  # compiled (or loaded) before timing
            count = max(1, steps // batch)
            best = 0.0
            for _ in range(rounds):
                start = _clock()
                decisions = sum(side.step() for _ in range(count))
                best = max(best, decisions / (_clock() - start))
            print(f"  {players} players, batch {batch:5d}: {best:12,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=25, help="kernels listed, by their own compile time")
    parser.add_argument("--one-game", action="store_true", help="the first CompiledGame step instead")
    parser.add_argument("--speed", action="store_true", help="the kernels' run speed (CPU time) instead")
    parser.add_argument(
        "--only",
        metavar="NAME",
        help="one step of `seasons compile` instead (heuristic, ismcts-search, ...): the steps it follows and the "
        "rules step compiled first, not profiled",
    )
    parser.add_argument("--steps", type=int, default=20_000, help="--speed: decisions per round (default 20,000)")
    args = parser.parse_args()
    if args.speed:
        run_speed(args.steps, rounds=3)
        return

    cache = tempfile.mkdtemp(prefix="seasons-kernel-cache-")
    os.environ["SEASONS_KERNEL_CACHE"] = cache
    try:
        from numba.core import event as ev

        work = _first_one_game_step if args.one_game else _first_vector_call
        what = "first CompiledGame step" if args.one_game else "first VectorGame call"
        if args.only:
            work, before = _compile_step(args.only)
            what = f"`seasons compile --only {args.only}`, after {', '.join(before) or 'nothing'}"

        profile = CompileProfile()
        wall = time.perf_counter()
        start = _clock()
        with (
            ev.install_listener("numba:compile", _Forward(profile.on_compile)),
            ev.install_listener("numba:run_pass", _Forward(profile.on_pass)),
            _timed_library_steps(profile),
        ):
            import seasons_env.vector  # noqa: F401

            imported = _clock()
            work()
        end = _clock()
        wall = time.perf_counter() - wall
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    load = os.getloadavg()[0]
    rows = profile.rows
    totals = {phase: sum(row[phase] for row in rows.values()) for phase in ("total", *_PHASES)}
    specs: dict[str, int] = defaultdict(int)
    for name, _ in rows:
        specs[name] += 1
    print(f"{what} from an empty kernel cache; load average {load:.1f} at the end")
    cpu = f"CPU {end - start:.1f} s (import {imported - start:.1f} s, the call {end - imported:.1f} s)"
    print(f"  wall {wall:.1f} s; {cpu}")
    print(f"  {len(rows)} signatures compiled, of {len(specs)} functions")
    print("  CPU seconds by phase:  " + "  ".join(f"{phase} {totals[phase]:.1f}" for phase in ("total", *_PHASES)))
    print()
    header = f"{'kernel':44} {'specs':>5} {'total':>6} " + " ".join(f"{p[:9]:>9}" for p in _PHASES)
    print(header)
    ranked = sorted(rows.items(), key=lambda item: -item[1]["total"])
    for (name, _), row in ranked[: args.top]:
        cells = " ".join(f"{row[p]:9.2f}" for p in _PHASES)
        print(f"{name[:44]:44} {specs[name]:5d} {row['total']:6.2f} {cells}")
    multi = sorted((name, count) for name, count in specs.items() if count > 1)
    if multi:
        print()
        print("functions compiled for more than one signature: " + ", ".join(f"{n} ({c})" for n, c in multi))


def _compile_step(name: str) -> tuple[Callable[[], None], list[str]]:
    """``seasons compile``'s step ``name`` and the names of the steps run before it, unprofiled: the rules step and the
    chain of steps it follows (``after``), whose kernels it calls."""
    from seasons_env.commands.compiling import compile_steps

    steps = {step.name: step for step in compile_steps()[0]}
    if name not in steps:
        raise SystemExit(f"compile_profile.py: --only: no step {name!r}; the steps: {', '.join(steps)}")
    chain, follows = [], steps[name].after
    while follows:
        chain.insert(0, follows)
        follows = steps[follows].after
    if name != "rules" and "rules" not in chain:
        chain.insert(0, "rules")
    for earlier in chain:
        steps[earlier].run()
    return steps[name].run, chain


class _Forward:
    """A numba event listener calling one function on both the start and the end of an event."""

    def __new__(cls, callback):
        from numba.core import event as ev

        class Listener(ev.Listener):
            def on_start(self, event):
                callback(event)

            def on_end(self, event):
                callback(event)

        return Listener()


if __name__ == "__main__":
    main()
