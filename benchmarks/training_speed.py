"""Training throughput: learner steps a second of ``seasons train``'s PPO stage, learning included, per variant.

Each variant is a set of ``--set`` overrides on top of the common ones; every round runs each variant once, in a
fresh process, in turn (so that all see the same machine load), from the shipped model (``--init learned``: the
final network), no evaluation. The figure is the PPO stage's steps over its wall seconds (``stages.json``);
the table gives each variant's median over the rounds, every round's figure, and the ratio to the first
variant's median.

    python benchmarks/training_speed.py --rounds 2 --steps 40960 \\
        --variant one-thread:threads=1 --variant two-threads:threads=2

A variant's overrides are separated by commas; a piece without ``=`` continues the value before it, so
``league:opponents=random,heuristic,ismcts,ismcts_share=0.01`` sets ``opponents`` and ``ismcts_share``.

``--compare DIR`` runs every variant on this checkout and on the checkout DIR (say a ``git worktree`` of the
commit before a change), in turn within each round; each checkout first makes one short run, uncounted, so that
its compiled kernels are cached before anything is timed (``WARM_UP_STEPS``, or ``--steps`` if fewer: the kernels
are compiled by the first steps).

    python benchmarks/training_speed.py --rounds 2 --steps 40960 --variant league:threads=2 --compare ../before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkouts import import_root  # this folder's module: the script's own folder is first on the path

ROOT = Path(__file__).resolve().parents[1]

#: The learner steps of each checkout's uncounted first run under ``--compare``.
WARM_UP_STEPS = 2048

COMMON = ("opponents=random,heuristic", "threads=2", "envs=128", "rollout=16", "eval_games=0")


def run(steps: int, overrides: list[str], folder: Path, code: Path = ROOT) -> float:
    """One training run of the checkout ``code``; its PPO stage's learner steps a second."""
    command = [sys.executable, "-m", "seasons_training", "train", "--preset", "quick", "--init", "learned"]
    command += ["--steps", str(steps), "--no-progress", "--out", str(folder)]
    for override in overrides:
        command += ["--set", override]
    # -m and PYTHONPATH: the packages (and the worker processes') come from ``code``, not the installed checkout
    environment = {**os.environ, "PYTHONPATH": str(import_root(code))}
    subprocess.run(command, cwd=code, env=environment, check=True, stdout=subprocess.DEVNULL)
    stage = json.loads((folder / "stages.json").read_text())["stages"]["ppo"]
    return stage["steps"] / stage["seconds"]


def parse_variant(text: str) -> tuple[str, list[str]]:
    """``NAME:FIELD=VALUE[,FIELD=VALUE...]`` as the name and its overrides (a piece without ``=`` belongs to the
    value before it: field values never hold ``=``)."""
    name, _, settings = text.partition(":")
    overrides: list[str] = []
    for piece in (p for p in settings.split(",") if p):
        if "=" in piece or not overrides:
            overrides.append(piece)
        else:
            overrides[-1] += "," + piece
    return name, overrides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=131_072, help="learner steps a run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--common", action="append", default=None, help=f"an override for every variant (default: {' '.join(COMMON)})"
    )
    parser.add_argument(
        "--variant",
        action="append",
        required=True,
        help="NAME:FIELD=VALUE[,FIELD=VALUE...] (a piece without '=' continues the value before it: "
        "opponents=random,heuristic,ismcts)",
    )
    parser.add_argument("--compare", type=Path, default=None, help="also run every variant on this checkout")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.rounds < 1:
        parser.error("--steps and --rounds must be at least 1")
    checkouts = {"": ROOT}
    if args.compare is not None:
        if not (args.compare / "training" / "__main__.py").is_file():
            parser.error(f"--compare {args.compare}: not a checkout of this project (no training/__main__.py)")
        checkouts = {" (this checkout)": ROOT, f" ({args.compare})": args.compare.resolve()}
    common = list(COMMON if args.common is None else args.common)
    variants: dict[str, list[str]] = {}
    for text in args.variant:
        name, overrides = parse_variant(text)
        if not name or name in variants:
            parser.error(f"--variant {text!r}: each variant needs a name of its own (NAME:FIELD=VALUE,...)")
        variants[name] = overrides
    runs = {name + label: (settings, code) for name, settings in variants.items() for label, code in checkouts.items()}
    rates: dict[str, list[float]] = {name: [] for name in runs}
    started = time.strftime("%Y-%m-%d %H:%M")
    with tempfile.TemporaryDirectory() as scratch:
        if args.compare is not None:
            for index, code in enumerate(checkouts.values()):
                run(min(WARM_UP_STEPS, args.steps), common, Path(scratch) / f"warm-up-{index}", code)
        for round_index in range(args.rounds):
            for number, (name, (settings, code)) in enumerate(runs.items()):
                folder = Path(scratch) / f"{number}-{round_index}"
                rates[name].append(run(args.steps, common + settings, folder, code))
                print(f"round {round_index + 1}, {name}: {rates[name][-1]:,.0f} learner steps/s", flush=True)
    print(f"\n{started}, {os.cpu_count()} cores, {args.steps:,} learner steps a run; common: {' '.join(common)}\n")
    print("| variant | overrides | learner steps/s (median) | each round | ratio |")
    print("|---|---|---:|---|---:|")
    first = statistics.median(next(iter(rates.values())))
    for name, values in rates.items():
        median = statistics.median(values)
        each = ", ".join(f"{v:,.0f}" for v in values)
        print(f"| {name} | {' '.join(runs[name][0]) or '-'} | {median:,.0f} | {each} | {median / first:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
