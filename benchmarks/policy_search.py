"""The learned policy with search on top: ``PolicyISMCTSAgent`` against the heuristic agent, or (``--compare-engines``)
its compiled search against its reference search.

Two-player Archmage games, seats alternated (each deal played twice, the agents swapping seats); the searcher
uses the shipped model as prior and value, with ``--seconds`` a decision. Prints its win rate with a Wilson 95%
interval, the mean scores and the time it took a decision.

    python benchmarks/policy_search.py --games 30 --seconds 0.25

``--compare-engines``: the compiled search (``engine="kernels"``) against the Python one (``engine="reference"``),
both at ``--iterations`` a decision (no clock: the same search budget), the compiled search's win rate reported (a
shared win counts its share):

    NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/policy_search.py --compare-engines --games 40
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
    parser.add_argument("--compare-engines", action="store_true", help="compiled search against the reference one")
    parser.add_argument("--iterations", type=int, default=64, help="iterations a decision (--compare-engines)")
    args = parser.parse_args(argv)
    wins, mine, theirs, spent, decisions, other_spent = 0.0, [], [], 0.0, 0, 0.0
    start = time.perf_counter()
    for k in range(args.games):
        if args.compare_engines:
            searcher = PolicyISMCTSAgent(seed=k, iterations=args.iterations, engine="kernels")
            opponent = PolicyISMCTSAgent(seed=k, iterations=args.iterations, engine="reference", backend="numpy")
        else:
            searcher, opponent = PolicyISMCTSAgent(seed=k, seconds=args.seconds), HeuristicAgent(seed=k)
        seats = [searcher, opponent] if k % 2 == 0 else [opponent, searcher]
        record = play_game(seats, level="archmage", seed=70_000 + k // 2, agent_seed=k)
        me = seats.index(searcher)
        wins += 1 / len(record.winners) if me in record.winners else 0.0
        mine.append(record.scores[me])
        theirs.append(record.scores[1 - me])
        spent += record.seconds_per_seat[me]
        other_spent += record.seconds_per_seat[1 - me]
        decisions += record.decisions_per_seat[me]
    low, high = wilson_interval(wins, args.games)
    if args.compare_engines:
        title = f"compiled vs reference policy-ismcts ({args.iterations} iterations a decision)"
        timing = f"{other_spent / max(spent, 1e-9):.1f}x the compiled seat's time on the reference seat"
    else:
        title = f"policy-ismcts ({args.seconds} s a decision) vs heuristic"
        timing = f"{spent / max(decisions, 1):.3f} s a decision"
    print(
        f"{title}: {wins / args.games:.1%} [{low:.1%}, {high:.1%}] over {args.games} games; mean scores "
        f"{sum(mine) / args.games:.1f} vs {sum(theirs) / args.games:.1f}; {timing}; {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
