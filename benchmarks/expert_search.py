"""Expert iteration's searched decisions a second, in one process and one run: the reference search (Python over the
reference engine, the network in numpy) with games searched one at a time and together (``search_games``: one
forward pass over every game's request), and the compiled search (``expert_search = "kernels"``: the rules kernels
and the network's compiled forward pass, games one after another).

Policy-ISMCTS over the shipped model in every seat of 2-player Archmage games, ``--iterations`` a decision; run it
with one BLAS thread, as the training's workers are:

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/expert_search.py --games 4

The kernels are compiled (or loaded from the cache) before the clock starts. On a loaded machine quote the ratio of
the rates of one run, not the rates.
"""

from __future__ import annotations

import argparse
import sys
import time

from seasons_agents.learned import shipped_model_path
from seasons_training.expert import SearchJob, search_game, search_games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4, help="games searched together, and by the compiled search")
    parser.add_argument("--single-games", type=int, default=2, help="games searched one at a time (reference)")
    parser.add_argument("--iterations", type=int, default=64, help="search iterations a decision")
    args = parser.parse_args(argv)
    model = str(shipped_model_path())

    def jobs(count: int, engine: str) -> list[SearchJob]:
        return [
            SearchJob(model, 2, "archmage", seed=100 + g, game=g, iterations=args.iterations, exploration=1.5,
                      sample_moves=20, engine=engine)
            for g in range(count)
        ]  # fmt: skip

    search_games([SearchJob(model, 2, "archmage", 0, 0, 2, 1.5, 0, engine="kernels")])  # compile or load the kernels
    rates = {}
    modes = (
        ("reference, one at a time", args.single_games, "reference"),
        ("reference, together", args.games, "reference"),
        ("compiled", args.games, "kernels"),
    )
    for mode, count, engine in modes:
        start = time.perf_counter()
        if mode == "reference, one at a time":
            parts = [search_game(job) for job in jobs(count, engine)]
        else:
            parts = search_games(jobs(count, engine))
        seconds = time.perf_counter() - start
        rows = sum(len(part["seat"]) for part in parts)
        rates[mode] = rows / seconds
        print(
            f"{count} games, {mode}: {rows} searched decisions in {seconds:.1f} s, {rows / seconds:.1f} a second "
            f"({args.iterations} iterations a decision)",
            flush=True,
        )
    best = max(rates["reference, one at a time"], rates["reference, together"])
    print(f"compiled / best reference: {rates['compiled'] / best:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
