"""A learned policy at 3 and 4 players: one learned seat against a table of another agent.

Each deal is played once per seat with the learned agent moved round the table (the other seats held by copies
of the opponent agent), so every seat is the learned agent's equally often. Prints the learned seat's win share
(a tie counts as a share of the win) with a Wilson 95% interval beside the 1 / players an equal agent would get;
how often it finished ahead of an opponent seat, over every (game, opponent seat) pair (a tie counts half; an
equal agent: 50%), with an interval from resampling the deals; the mean scores, and the seconds taken.

    python benchmarks/learned_multiplayer.py --games 600            # 3 and 4 players, against the heuristic
    python benchmarks/learned_multiplayer.py --opponent random --players 4 --games 200
    python benchmarks/learned_multiplayer.py --agent learned:runs/x/expert/model-0003.pt --seed 4242   # held out

``--agent`` takes the arena's specs of the learned agents (``learned``, ``learned:v1``, ``learned:PATH``);
``--seed`` the first deal's seed (deal ``k`` is game seed ``seed + k``; 70,000 by default, the figures of
2026-11-26; the held-out protocol's are 4,242 and 9,001).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time

import numpy as np

from seasons_agents import HeuristicAgent, RandomAgent, play_game
from seasons_env.common.registry import make_agent
from seasons_env.statistics import wilson_interval

OPPONENTS = {"heuristic": HeuristicAgent, "random": RandomAgent}


def play(args: tuple[str, str, int, str, int, int]) -> tuple[int, float, float, int, float]:
    """Game ``index``: (its deal, the learned seat's win share, its share of opponent seats it finished ahead of,
    its score, the mean score of the other seats)."""
    agent, opponent, players, level, seed, index = args
    deal, learned_seat = divmod(index, players)
    agents = [OPPONENTS[opponent](index * 8 + k) for k in range(players)]
    agents[learned_seat] = make_agent(agent, index * 8 + learned_seat, field="--agent")
    record = play_game(agents, level=level, seed=seed + deal, agent_seed=deal)
    mine = record.scores[learned_seat]
    win = 1.0 / len(record.winners) if learned_seat in record.winners else 0.0
    others = [s for k, s in enumerate(record.scores) if k != learned_seat]
    ahead = sum(1.0 if mine > s else 0.5 if mine == s else 0.0 for s in others) / len(others)
    return deal, win, ahead, mine, sum(others) / len(others)


def deal_interval(deals: list[int], values: list[float], resamples: int = 2000) -> tuple[float, float]:
    """A 95% interval of the mean of ``values`` from resampling the deals (a deal's games together)."""
    by_deal: dict[int, list[float]] = {}
    for deal, value in zip(deals, values, strict=True):
        by_deal.setdefault(deal, []).append(value)
    sums = np.array([sum(v) for v in by_deal.values()])
    counts = np.array([len(v) for v in by_deal.values()])
    picks = np.random.default_rng(0).integers(len(sums), size=(resamples, len(sums)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=600, help="games per player count (whole rotations)")
    parser.add_argument("--agent", default="learned", help="the learned seat's agent spec (default: learned)")
    parser.add_argument("--seed", type=int, default=70_000, help="the first deal's game seed (default 70000)")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4], choices=[2, 3, 4])
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default="heuristic")
    parser.add_argument("--level", choices=["apprentice", "magician", "archmage"], default="archmage")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1; got {args.games}")
    if not 0 <= args.seed < 2**63 - 1_000_000_000:
        parser.error(f"--seed must be from 0 to {2**63 - 1_000_000_001}; got {args.seed}")
    try:
        make_agent(args.agent, 0, field="--agent")
    except (ValueError, OSError) as error:
        parser.error(str(error))
    for players in args.players:
        games = -(-args.games // players) * players  # whole rotations of the learned seat
        start = time.perf_counter()
        jobs = [(args.agent, args.opponent, players, args.level, args.seed, k) for k in range(games)]
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            results = pool.map(play, jobs, chunksize=4)
        deals = [r[0] for r in results]
        wins = sum(r[1] for r in results)
        low, high = wilson_interval(wins, games)
        ahead = [r[2] for r in results]
        ahead_low, ahead_high = deal_interval(deals, ahead)
        mine = sum(r[3] for r in results) / games
        theirs = sum(r[4] for r in results) / games
        print(
            f"{players}-player {args.level}, {args.agent} vs {players - 1} x {args.opponent}: "
            f"{wins / games:.1%} [{low:.1%}, {high:.1%}] over {games} games (an equal agent: {1 / players:.1%}); "
            f"ahead of an opponent seat {sum(ahead) / games:.1%} [{ahead_low:.1%}, {ahead_high:.1%}] (an equal "
            f"agent: 50%); mean scores {mine:.1f} vs {theirs:.1f} ({time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
