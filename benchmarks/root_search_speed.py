"""The compiled policy-ISMCTS's decisions a CPU second with PUCT at the root and with Gumbel's sequential halving.

The same positions (two-player Archmage games played by random moves, a decision with at least two legal actions
taken every few moves) are searched by both roots, alternating position by position, at the same iterations, over
the shipped network; the time is the calling thread's CPU time (``time.thread_time``), so other processes on the
machine count little. Prints decisions per CPU second for each and their ratio.

    python benchmarks/root_search_speed.py --iterations 64 200 --positions 200
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np


def _positions(count: int, seed: int) -> list:
    from seasons_env import Game

    rng = np.random.default_rng(seed)
    views = []
    game_seed = seed
    while len(views) < count:
        game = Game.new(2, "archmage", seed=game_seed)
        game_seed += 1
        while not game.is_over and len(views) < count:
            legal = game.legal_action_list()
            if len(legal) > 1 and rng.random() < 0.2:
                seat = game.current_player
                views.append((game.determinize(seat, rng), seat, legal))
            game.apply(int(rng.choice(legal)))
    return views


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[64, 200], help="iterations a decision")
    parser.add_argument("--positions", type=int, default=200, help="positions searched by each root")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from seasons_agents.policy_ismcts import PolicyISMCTSAgent

    views = _positions(args.positions, args.seed)
    for iterations in args.iterations:
        agents = {root: PolicyISMCTSAgent(seed=1, iterations=iterations, root=root) for root in ("puct", "gumbel")}
        for agent in agents.values():  # compile and load before timing
            agent.act(*views[0])
        spent = dict.fromkeys(agents, 0.0)
        for view, seat, legal in views:
            for root, agent in agents.items():
                start = time.thread_time()
                agent.act(view, seat, legal)
                spent[root] += time.thread_time() - start
        rates = {root: len(views) / seconds for root, seconds in spent.items()}
        print(
            f"{iterations} iterations, {len(views)} positions: PUCT {rates['puct']:,.1f} decisions per CPU second, "
            f"Gumbel {rates['gumbel']:,.1f}; Gumbel / PUCT {rates['gumbel'] / rates['puct']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
