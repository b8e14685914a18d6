"""The shipped learned policy at 3 and 4 players: one learned seat against a table of another agent.

Each deal is played once per seat with the learned agent moved round the table (the other seats held by copies
of the opponent agent), so every seat is the learned agent's equally often. Prints the learned seat's win share
(a tie counts as a share of the win) with a Wilson 95% interval beside the 1 / players an equal agent would get,
the mean scores, and the seconds taken.

    python benchmarks/learned_multiplayer.py --games 600            # 3 and 4 players, against the heuristic
    python benchmarks/learned_multiplayer.py --opponent random --players 4 --games 200
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time

from seasons_agents import HeuristicAgent, PolicyAgent, RandomAgent, play_game
from seasons_env.statistics import wilson_interval

OPPONENTS = {"heuristic": HeuristicAgent, "random": RandomAgent}


def play(args: tuple[str, int, str, int]) -> tuple[float, int, float]:
    """Game ``index``: (learned seat's win share, its score, the mean score of the other seats)."""
    opponent, players, level, index = args
    deal, learned_seat = divmod(index, players)
    agents = [OPPONENTS[opponent](index * 8 + k) for k in range(players)]
    agents[learned_seat] = PolicyAgent(index * 8 + learned_seat)
    record = play_game(agents, level=level, seed=70_000 + deal, agent_seed=deal)
    win = 1.0 / len(record.winners) if learned_seat in record.winners else 0.0
    others = [s for k, s in enumerate(record.scores) if k != learned_seat]
    return win, record.scores[learned_seat], sum(others) / len(others)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=600, help="games per player count (whole rotations)")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4], choices=[2, 3, 4])
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default="heuristic")
    parser.add_argument("--level", choices=["apprentice", "magician", "archmage"], default="archmage")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1; got {args.games}")
    for players in args.players:
        games = -(-args.games // players) * players  # whole rotations of the learned seat
        start = time.perf_counter()
        jobs = [(args.opponent, players, args.level, k) for k in range(games)]
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            results = pool.map(play, jobs, chunksize=4)
        wins = sum(r[0] for r in results)
        low, high = wilson_interval(wins, games)
        mine = sum(r[1] for r in results) / games
        theirs = sum(r[2] for r in results) / games
        print(
            f"{players}-player {args.level}, learned vs {players - 1} x {args.opponent}: "
            f"{wins / games:.1%} [{low:.1%}, {high:.1%}] over {games} games (an equal agent: {1 / players:.1%}); "
            f"mean scores {mine:.1f} vs {theirs:.1f} ({time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
