"""The batched core against the reference engine over many games: prints any divergence with its position.

    python benchmarks/vector_equivalence.py                 # 10,000 games over every level and player count
    python benchmarks/vector_equivalence.py --quick         # 450 games (50 per level and player count)
    python benchmarks/vector_equivalence.py --games 2000 --batch 100 --seed 7

The games are shared evenly between the 9 (level, player count) cases and played in batches of ``--batch``
(``seasons_env.vector.differential.run_differential``): seeded random play on a ``VectorGame`` and on reference
games stepped alongside, compared at every step and for every game (observation, mask, current player, scores,
winners, termination; ``game(i)`` against the reference game, generator included, every ``--check-every`` steps),
each game through one whole episode and into its next. Exits with status 1 if anything diverged.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from seasons_env import LEVELS
from seasons_env.vector.differential import run_differential

PLAYER_COUNTS = (2, 3, 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games in all (default 10,000)")
    parser.add_argument("--quick", action="store_true", help="450 games")
    parser.add_argument("--batch", type=int, default=250, help="games per batch (default 250)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=5, help="steps between game(i) comparisons (default 5)")
    parser.add_argument(
        "--engine", default="kernels", choices=["kernels", "reference"], help="the batch's backend (default kernels)"
    )
    args = parser.parse_args(argv)
    total = 450 if args.quick else args.games
    if total < 1 or args.batch < 1 or args.check_every < 1:
        parser.error("--games, --batch and --check-every must be positive")
    cases = [(level, players) for level in LEVELS for players in PLAYER_COUNTS]
    divergences = 0
    games_run = decisions = 0
    start = time.perf_counter()
    print(f"VectorGame(engine={args.engine!r}) against the reference engine")
    print(f"{'level':<11} {'players':>7} {'games':>6} {'decisions':>10} {'game(i) checks':>14}  result")
    for k, (level, players) in enumerate(cases):
        share = total // len(cases) + (1 if k < total % len(cases) else 0)
        played = case_decisions = checks = 0
        first = None
        part = 0
        while played < share:
            size = min(args.batch, share - played)
            report = run_differential(
                level,
                players,
                size,
                seed=args.seed + 1000 * k + part,
                game_check_every=args.check_every,
                engine=args.engine,
            )
            part += 1
            played += size
            case_decisions += report.decisions
            checks += report.game_checks
            if report.divergence is not None:
                divergences += 1
                first = first or report.divergence
                print(f"DIVERGENCE {report.divergence}")
        games_run += played
        decisions += case_decisions
        result = "identical" if first is None else "DIVERGED"
        print(f"{level:<11} {players:>7} {played:>6} {case_decisions:>10,} {checks:>14,}  {result}")
    elapsed = time.perf_counter() - start
    verdict = "no divergence" if divergences == 0 else f"{divergences} batch(es) diverged"
    print(f"{games_run:,} games, {decisions:,} decisions compared in {elapsed:.0f} s: {verdict}")
    return 0 if divergences == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
