"""Heuristic data-set speed: decision rows a second of the reference path (``data.record_game``, one game at a time
on the reference engine) and of the batched core (``data_compiled.record_block``), in one process, alternating.

    python benchmarks/data_speed.py                    # 3 rounds of 32 two-player Archmage games each way
    python benchmarks/data_speed.py --games 64 --rounds 2

Each round plays the same games both ways (new seeds each round) and checks that they give the same rows; the
first block, untimed, loads the compiled kernels. Prints each round's rows a second, the ratio, and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from seasons_training.data import FIELDS, DataConfig, concatenate, record_game
from seasons_training.data_compiled import record_block


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--level", default="archmage")
    args = parser.parse_args()
    record_block((DataConfig(games=1, level=args.level, seed=999), 0, 1))  # compile or load the kernels
    ratios = []
    for round_ in range(args.rounds):
        config = DataConfig(games=args.games, level=args.level, seed=round_ + 1)
        started = time.perf_counter()
        reference = concatenate([record_game((config, g)) for g in range(args.games)])
        reference_seconds = time.perf_counter() - started
        started = time.perf_counter()
        batched = record_block((config, 0, args.games))
        batched_seconds = time.perf_counter() - started
        same = all(np.array_equal(reference[name], batched[name]) for name in FIELDS)
        rows = len(batched["action"])
        ratio = reference_seconds / batched_seconds
        ratios.append(ratio)
        print(
            f"round {round_ + 1}: {rows} rows; reference {rows / reference_seconds:,.0f} rows/s, batched core "
            f"{rows / batched_seconds:,.0f} rows/s: {ratio:.2f}x; same rows: {same}; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    print(f"median ratio {statistics.median(ratios):.2f}x over {args.rounds} rounds")


if __name__ == "__main__":
    main()
