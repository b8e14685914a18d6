"""ISMCTS's two engines: the compiled search (``ISMCTSAgent(engine="kernels")``) against the reference one
(``engine="reference"``), in speed at the same positions and, with ``--games``, in strength at the same budget.

Speed: the decisions with a choice of 2-player Archmage games played at random (every ``--every``-th, the draft and
library split left out as the agent leaves them to the heuristic), each searched by both engines at ``--iterations``
a decision, one after the other in the same run; prints each engine's iterations a second and decisions a second
and their ratio (the early stop counts: a decision ends when its choice is settled, the same rule on both).

    NUMBA_NUM_THREADS=1 python benchmarks/ismcts_speed.py --iterations 3000 --positions 40

Strength (``--games N``): N 2-player Archmage games of the compiled search against the reference one, both at
``--iterations`` a decision (no clock: the same budget), seats alternated (each deal played twice, the agents
swapping seats); prints the compiled seat's win rate (a shared win counts its share) with a Wilson 95% interval, the
mean scores and each seat's time a decision. ``--offset`` starts at another game number (to split a run into parts).

    NUMBA_NUM_THREADS=1 python benchmarks/ismcts_speed.py --games 60 --iterations 3000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from seasons_agents import play_game
from seasons_agents.ismcts import ISMCTSAgent
from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.statistics import wilson_interval

_PRELUDE = frozenset((steps.kind("draft_pick"), steps.kind("library_split")))


def positions(count: int, every: int, seed: int = 0) -> list[tuple[Game, int]]:
    """``count`` (view, seat) pairs: every ``every``-th decision with a choice (not in the prelude) of random
    2-player Archmage games, as the deciding seat's determinized view."""
    rng = np.random.default_rng(seed)
    found: list[tuple[Game, int]] = []
    game_seed = seed
    while len(found) < count:
        game, seen = Game.new(2, "archmage", seed=game_seed), 0
        game_seed += 1
        while not game.is_over and len(found) < count:
            legal = game.legal_action_list()
            task = game.pending_task()
            if len(legal) > 1 and task is not None and task[0] not in _PRELUDE:
                seen += 1
                if seen % every == 0:
                    seat = game.current_player
                    found.append((game.determinize(seat, rng), seat))
            game.apply(legal[int(rng.integers(len(legal)))])
    return found


def speed(args: argparse.Namespace) -> None:
    jobs = positions(args.positions, args.every)
    agents = {engine: ISMCTSAgent(seed=0, iterations=args.iterations, engine=engine) for engine in ("kernels",)}
    view, seat = jobs[0]
    agents["kernels"].search(view.clone(), seat)  # compiled (or loaded from the cache) before the clock starts
    figures = {}
    for engine in ("kernels", "reference"):
        agent = ISMCTSAgent(seed=0, iterations=args.iterations, engine=engine)
        iterations, start = 0, time.perf_counter()
        for view, seat in jobs:
            agent.search(view.clone(), seat)
            iterations += agent.last_iterations
        spent = time.perf_counter() - start
        figures[engine] = (iterations / spent, len(jobs) / spent)
        print(
            f"{engine:>9}: {iterations / spent:10,.0f} iterations/s, {len(jobs) / spent:8.2f} decisions/s "
            f"({len(jobs)} decisions, {iterations / len(jobs):,.0f} iterations each on average, {spent:.1f} s)"
        )
    print(
        f"compiled/reference at {args.iterations} iterations a decision: "
        f"{figures['kernels'][0] / figures['reference'][0]:.1f}x the iterations a second, "
        f"{figures['kernels'][1] / figures['reference'][1]:.1f}x the decisions a second"
    )


def strength(args: argparse.Namespace) -> None:
    wins, mine, theirs, spent, other_spent, decisions, other_decisions = 0.0, [], [], 0.0, 0.0, 0, 0
    for k in range(args.offset, args.offset + args.games):
        compiled = ISMCTSAgent(seed=k, iterations=args.iterations, engine="kernels")
        reference = ISMCTSAgent(seed=k, iterations=args.iterations, engine="reference")
        seats = [compiled, reference] if k % 2 == 0 else [reference, compiled]
        record = play_game(seats, level="archmage", seed=80_000 + k // 2, agent_seed=k)
        me = seats.index(compiled)
        wins += 1 / len(record.winners) if me in record.winners else 0.0
        mine.append(record.scores[me])
        theirs.append(record.scores[1 - me])
        spent += record.seconds_per_seat[me]
        other_spent += record.seconds_per_seat[1 - me]
        decisions += record.decisions_per_seat[me]
        other_decisions += record.decisions_per_seat[1 - me]
        print(f"game {k}: compiled seat {me}, scores {record.scores}, winners {record.winners}", flush=True)
    low, high = wilson_interval(wins, args.games)
    print(
        f"compiled vs reference ismcts ({args.iterations} iterations a decision): {wins / args.games:.1%} "
        f"[{low:.1%}, {high:.1%}] over {args.games} games (wins {wins:g}); mean scores {np.mean(mine):.1f} vs "
        f"{np.mean(theirs):.1f}; {spent / max(decisions, 1):.3f} s vs {other_spent / max(other_decisions, 1):.3f} s "
        f"a decision"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=3000, help="iterations a decision")
    parser.add_argument("--positions", type=int, default=40, help="decisions searched by each engine (speed)")
    parser.add_argument("--every", type=int, default=7, help="take every N-th decision of the random games (speed)")
    parser.add_argument("--games", type=int, default=0, help="play this many games instead (strength)")
    parser.add_argument("--offset", type=int, default=0, help="the first game's number (strength)")
    args = parser.parse_args(argv)
    for name in ("iterations", "positions", "every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.games < 0 or args.offset < 0:
        parser.error("--games and --offset must not be negative")
    (strength if args.games else speed)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
