"""The first environment of a new process: what choosing an engine costs before the first step.

    python benchmarks/env_first_call.py               # 5 rounds
    python benchmarks/env_first_call.py --rounds 10

Each figure is one new Python process that imports ``seasons_env``, makes ``seasons_env.env(engine=...)``, resets it
and plays one game by the first legal action; it prints the wall time of each part. The ways, alternating in rounds
so that a drift of the machine's load touches them alike:

- ``reference``, ``kernels``, ``auto``: with the kernel cache as it is (run ``seasons compile`` first for the
  figures of a compiled machine);
- ``auto, empty cache``: a new empty kernel cache and no prebuilt kernels, where ``auto`` finds the kernels would
  have to compile and takes the reference engine (nothing is compiled).

Medians over the rounds; the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence

CHILD = """
import json, logging, time
logging.disable(logging.WARNING)  # the fallback's warning, not part of the figure
start = time.perf_counter()
import numpy as np
import seasons_env
imported = time.perf_counter()
env = seasons_env.env(num_players=2, engine=ENGINE)
env.reset(seed=0)
ready = time.perf_counter()
steps = 0
while True:
    obs, reward, termination, truncation, info = env.last()
    if termination or truncation:
        break
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    steps += 1
done = time.perf_counter()
print(json.dumps({"engine": env.engine, "import": imported - start, "ready": ready - imported,
                  "game": done - ready, "steps": steps}))
"""

WAYS = {
    "reference": ("reference", False),
    "kernels": ("kernels", False),
    "auto": ("auto", False),
    "auto, empty cache": ("auto", True),
}


def run(engine: str, empty_cache: bool) -> dict:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        if empty_cache:
            env.update(SEASONS_KERNEL_CACHE=folder, SEASONS_PREBUILT_KERNELS="none")
        done = subprocess.run(
            [sys.executable, "-c", CHILD.replace("ENGINE", repr(engine))],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            check=True,
        )
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="new processes per way (default 5)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1; got {args.rounds}")
    load_before = os.getloadavg()[0]
    results: dict[str, list[dict]] = {name: [] for name in WAYS}
    for _ in range(args.rounds):
        for name, (engine, empty_cache) in WAYS.items():
            results[name].append(run(engine, empty_cache))
    load_after = os.getloadavg()[0]
    print(f"medians of {args.rounds} new processes; load average {load_before:.2f} -> {load_after:.2f}")
    print("| way | engine taken | import s | env + reset s | one game s (steps) |")
    print("|---|---|---:|---:|---:|")
    for name, rows in results.items():
        taken = sorted({row["engine"] for row in rows})
        median = {key: statistics.median(row[key] for row in rows) for key in ("import", "ready", "game")}
        print(
            f"| {name} | {', '.join(taken)} | {median['import']:.2f} | {median['ready']:.2f} | "
            f"{median['game']:.3f} ({rows[0]['steps']}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
