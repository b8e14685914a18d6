"""The learned policy with search on top: ``PolicyISMCTSAgent`` against the heuristic agent.

Two-player Archmage games, seats alternated (each deal played twice, the agents swapping seats); the searcher
uses the shipped model as prior and value, with ``--seconds`` a decision. Prints its win rate with a Wilson 95%
interval, the mean scores and the time it took a decision.

    python benchmarks/policy_search.py --games 30 --seconds 0.25
"""

from __future__ import annotations

import argparse
import sys
import time

from seasons_agents import HeuristicAgent, play_game
from seasons_agents.policy_ismcts import PolicyISMCTSAgent
from seasons_env.statistics import wilson_interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=0.25, help="search time a decision")
    args = parser.parse_args(argv)
    wins, mine, theirs, spent, decisions = 0.0, [], [], 0.0, 0
    start = time.perf_counter()
    for k in range(args.games):
        searcher, heuristic = PolicyISMCTSAgent(seed=k, seconds=args.seconds), HeuristicAgent(seed=k)
        seats = [searcher, heuristic] if k % 2 == 0 else [heuristic, searcher]
        record = play_game(seats, level="archmage", seed=70_000 + k // 2, agent_seed=k)
        me = seats.index(searcher)
        wins += 1 / len(record.winners) if me in record.winners else 0.0
        mine.append(record.scores[me])
        theirs.append(record.scores[1 - me])
        spent += record.seconds_per_seat[me]
        decisions += record.decisions_per_seat[me]
    low, high = wilson_interval(wins, args.games)
    print(
        f"policy-ismcts ({args.seconds} s a decision) vs heuristic: {wins / args.games:.1%} [{low:.1%}, {high:.1%}] "
        f"over {args.games} games; mean scores {sum(mine) / args.games:.1f} vs {sum(theirs) / args.games:.1f}; "
        f"{spent / max(decisions, 1):.3f} s a decision; {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
