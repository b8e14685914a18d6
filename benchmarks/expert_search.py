"""Expert iteration's searched decisions a second, in one process: games searched one at a time against games
searched together (``seasons_training.expert.search_games``: one forward pass over every game's request).

Policy-ISMCTS over the shipped model in every seat of 2-player Archmage games, ``--iterations`` a decision, the
network in numpy; run it with one BLAS thread, as the training's workers are:

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/expert_search.py --games 8 --iterations 64
"""

from __future__ import annotations

import argparse
import sys
import time

from seasons_agents.learned import shipped_model_path
from seasons_training.expert import SearchJob, search_game, search_games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games searched together (and one at a time)")
    parser.add_argument("--single-games", type=int, default=3, help="games searched one at a time")
    parser.add_argument("--iterations", type=int, default=64, help="search iterations a decision")
    args = parser.parse_args(argv)
    model = str(shipped_model_path())

    def jobs(count: int) -> list[SearchJob]:
        return [
            SearchJob(model, 2, "archmage", seed=100 + g, game=g, iterations=args.iterations, exploration=1.5,
                      sample_moves=20)
            for g in range(count)
        ]  # fmt: skip

    for mode, count in (("one at a time", args.single_games), ("together", args.games)):
        start = time.perf_counter()
        parts = [search_game(job) for job in jobs(count)] if mode == "one at a time" else search_games(jobs(count))
        seconds = time.perf_counter() - start
        rows = sum(len(part["seat"]) for part in parts)
        print(
            f"{count} games searched {mode}: {rows} searched decisions in {seconds:.1f} s, {rows / seconds:.1f} a "
            f"second ({args.iterations} iterations a decision)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
