"""OpenSpiel's actor-critic learner on python_seasons through rl_environment: trained briefly, against random.

    python benchmarks/openspiel_learner.py            # the figures in docs/openspiel.md
    python benchmarks/openspiel_learner.py --quick    # a smoke run

Trains OpenSpiel's ``PolicyGradient`` (a2c) in seat 0 of 2-player Apprentice games against a uniformly random
seat 1 (``seasons_env.openspiel.learning``), for each seed, and prints the greedy policy's win rate against
random on new games before and after training, with Wilson 95% intervals, and the training time.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from seasons_env.openspiel import learning  # noqa: E402
from seasons_env.statistics import wilson_interval  # noqa: E402


def interval(rate: float, games: int) -> str:
    low, high = wilson_interval(rate * games, games)
    return f"{rate:.1%} ({low:.1%}-{high:.1%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 training games, 10 evaluation games")
    parser.add_argument("--seeds", type=int, default=3, help="training runs, seeds 0.. (default 3)")
    parser.add_argument("--episodes", type=int, default=300, help="training games a run (default 300)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games against random (default 200)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    seeds, episodes, games = (1, 20, 10) if args.quick else (args.seeds, args.episodes, args.games)
    settings = replace(learning.LearnerSettings(), episodes=episodes)
    print(
        f"python_seasons, 2 players, {settings.level}: OpenSpiel PolicyGradient (a2c, hidden {list(settings.hidden)}, "
        f"entropy cost {settings.entropy_cost}) "
        f"trained {episodes} games against random; greedy win rate against random over {games} new games"
    )
    print(f"{'seed':>4} {'untrained':>22} {'trained':>22} {'training s':>10}")
    for seed in range(seeds):
        before = learning.win_rate_against_random(learning.new_learner(settings, seed), settings.level, games)
        start = time.perf_counter()
        learner = learning.train_against_random(settings, seed)
        seconds = time.perf_counter() - start
        after = learning.win_rate_against_random(learner, settings.level, games)
        print(f"{seed:4} {interval(before, games):>22} {interval(after, games):>22} {seconds:10.1f}")


if __name__ == "__main__":
    main()
