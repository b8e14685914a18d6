"""Compile times of whole groups: each ``seasons compile`` step and the first ``VectorGame`` call, from an empty
kernel cache (cold) and again from the cache that run filled (warm), for several ways of compiling, side by side.

    python benchmarks/compile_time.py                           # seasons compile with 1 process, then one per core
    python benchmarks/compile_time.py --ways jobs1 generic      # host CPU against numba's generic CPU target
    python benchmarks/compile_time.py --ways first-call first-call-prebuilt --only rules
    python benchmarks/compile_time.py --rounds 2                # each way twice, the ways alternating
    python benchmarks/compile_time.py --ways first-call first-call-prebuilt --prebuilt FOLDER   # a prebuilt folder

The ways (``--ways``; the first is the reference the others are divided by):

- ``jobs1``: ``seasons compile --jobs 1`` (every step in one process, one after the other);
- ``jobs``: ``seasons compile`` with its default, one worker process per core (``--jobs-count`` to set it);
- ``generic``: ``seasons compile --jobs 1`` with ``NUMBA_CPU_NAME=generic`` (portable machine code);
- ``first-call``: the first ``VectorGame`` call in a new process (import, a batch of one game, one step), compiling
  alone (``SEASONS_COMPILE_HELPER=0``);
- ``first-call-background``: the same as a user meets it on two cores or more: the call starts a background compiler
  process that compiles the rules kernels from the other end of their list (``vector/compile_helper.py``); the CPU
  time counts that process's too (on Linux this script adopts it when the call's process ends, and waits for it to
  stop);
- ``first-call-prebuilt``: the same with an empty user cache and the kernels built beforehand with the generic
  target into a read-only folder (``SEASONS_PREBUILT_KERNELS``), as a wheel with prebuilt kernels ships them.

Each run is a new process with ``SEASONS_KERNEL_CACHE`` a new temporary folder (removed afterwards). Printed for each:
the wall clock, the CPU seconds of the process and its children (user + system), the load average (1 minute) before
and after, and each step's seconds as ``seasons compile`` prints them. The machine may be shared: compare the ways
within one run (the ratios), and prefer CPU time when the load moved.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from descendants import adopt_orphans, reap_orphans

ROOT = Path(__file__).resolve().parents[1]
FIRST_CALL = (
    "from seasons_env.vector import VectorGame; v = VectorGame(1, engine='kernels'); "
    "v.apply([int(v.legal_mask()[0].nonzero()[0][0])])"
)
WAYS = ("jobs1", "jobs", "generic", "first-call", "first-call-background", "first-call-prebuilt")
_STEP_LINE = re.compile(r"^([\w-]+): ([0-9.]+) s \(", re.M)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str]) -> dict:
    """Run ``command``; its wall and CPU seconds, the load before and after, and the steps' seconds it printed."""
    load_before = os.getloadavg()[0]
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - wall
    reap_orphans()  # the helper process of a first call, once that call's process has ended
    cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    steps = {name: float(seconds) for name, seconds in _STEP_LINE.findall(done.stderr)}
    return {"wall": wall, "cpu": cpu, "load": (load_before, os.getloadavg()[0]), "steps": steps}


def _compile_command(jobs: int | None, only: list[str]) -> list[str]:
    command = [sys.executable, "-m", "seasons_env.cli", "compile", "--no-progress"]
    command += [] if jobs is None else ["--jobs", str(jobs)]
    return command + [arg for name in only for arg in ("--only", name)]


def run_way(way: str, only: list[str], jobs_count: int | None, prebuilt: Path | None) -> tuple[dict, dict]:
    """The cold and the warm run of ``way`` in a new empty cache."""
    cache = Path(tempfile.mkdtemp(prefix="seasons-compile-time-"))
    env = {**os.environ, "SEASONS_KERNEL_CACHE": str(cache), "SEASONS_PREBUILT_KERNELS": "none"}
    if way == "generic":
        env["NUMBA_CPU_NAME"] = "generic"
    if way == "first-call-prebuilt":
        assert prebuilt is not None
        env["SEASONS_PREBUILT_KERNELS"] = str(prebuilt)
    if way.startswith("first-call"):
        env["SEASONS_COMPILE_HELPER"] = "1" if way == "first-call-background" else "0"
        command = [sys.executable, "-c", FIRST_CALL]
    else:
        command = _compile_command({"jobs1": 1, "generic": 1}.get(way, jobs_count), only)
    try:
        return timed(command, env), timed(command, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def build_prebuilt(only: list[str]) -> Path:
    """Kernels compiled for the generic CPU into a new folder (not timed as a way): what a wheel would ship."""
    folder = Path(tempfile.mkdtemp(prefix="seasons-prebuilt-"))
    command = [sys.executable, "-m", "seasons_env.cli", "compile", "--prebuild", str(folder), "--no-progress"]
    command += [arg for name in only for arg in ("--only", name)]
    print(f"building the prebuilt kernels in {folder} ...", flush=True)
    result = timed(command, {**os.environ, "SEASONS_PREBUILT_KERNELS": "none"})
    print(f"  built in {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU", flush=True)
    return folder


def _line(way: str, state: str, result: dict, reference: dict | None) -> str:
    ratio = (
        ""
        if reference is None
        else f"{result['wall'] / reference['wall']:6.3f}x {result['cpu'] / reference['cpu']:6.3f}x"
    )
    steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in result["steps"].items())
    load = f"{result['load'][0]:.1f}-{result['load'][1]:.1f}"
    return f"{way:20} {state:5} {result['wall']:8.1f} {result['cpu']:8.1f} {load:>9} {ratio:>15}  {steps}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=["jobs1", "jobs"], help="the first: reference")
    parser.add_argument("--only", action="append", default=[], metavar="STEP", help="seasons compile's --only")
    parser.add_argument("--jobs-count", type=int, default=None, help="the processes of the 'jobs' way")
    parser.add_argument("--rounds", type=int, default=1, help="each way this many times, alternating")
    parser.add_argument("--prebuilt", type=Path, default=None, help="first-call-prebuilt: this folder, not a new one")
    args = parser.parse_args()
    adopt_orphans()

    prebuilt = args.prebuilt
    made = prebuilt is None and "first-call-prebuilt" in args.ways
    if made:
        prebuilt = build_prebuilt(args.only)
    print(f"{os.cpu_count()} CPUs; seconds; ratios: wall and CPU against the first way's run of the same round")
    print(f"{'way':20} {'cache':5} {'wall':>8} {'CPU':>8} {'load':>9} {'wall   CPU':>15}  steps")
    try:
        for round_ in range(args.rounds):
            reference: dict[str, dict] = {}
            for way in args.ways:
                cold, warm = run_way(way, args.only, args.jobs_count, prebuilt)
                reference.setdefault("cold", cold)
                reference.setdefault("warm", warm)
                first = way == args.ways[0]
                print(_line(way, "cold", cold, None if first else reference["cold"]), flush=True)
                print(_line(way, "warm", warm, None if first else reference["warm"]), flush=True)
            if args.rounds > 1:
                print(f"(round {round_ + 1} of {args.rounds})", flush=True)
    finally:
        if made:
            shutil.rmtree(prebuilt, ignore_errors=True)


if __name__ == "__main__":
    main()
