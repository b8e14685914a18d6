"""The array state's size per game, and how full its fixed capacities get in random games.

    python benchmarks/vector_memory.py              # sizes, and 30 random games per level and player count
    python benchmarks/vector_memory.py --verbose    # also the layout: every field's dtype, shape and bytes
    python benchmarks/vector_memory.py --quick      # 2 games per level and player count

1. Bytes per game of ``seasons_env.vector.arrays.ArrayState`` at 2, 3 and 4 players (goal: at most 4,096 at 4
   players, the fixed-depth step stack included), and a batch of 1,024 games in MiB.
2. Every position of seeded random games at every level and player count is packed and unpacked again (and
   checked equal): the most each capacity held (pending steps, limbo, cards in play, deferred tokens) against
   the capacity, and the time per game of ``pack`` and ``unpack`` (reference code, one game at a time).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import numpy as np

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.data import LEVELS
from seasons_env.vector.arrays import (
    DEFERRED_CAPACITY,
    IN_PLAY_CAPACITY,
    LIMBO_CAPACITY,
    ArrayState,
    layout_markdown,
    pack,
    unpack,
)
from seasons_env.vector.step_codes import STACK_DEPTH

GOAL_BYTES = 4096
DRAFT_KINDS = {steps.kind(name) for name in ("draft_pick", "draft_pass", "library_split")}
CAPACITIES = {
    "pending steps": (STACK_DEPTH, lambda g: len(g.stack)),
    "  once play has begun": (STACK_DEPTH, lambda g: 0 if any(t[0] in DRAFT_KINDS for t in g.stack) else len(g.stack)),
    "limbo cards": (LIMBO_CAPACITY, lambda g: len(g.limbo)),
    "cards in play (a seat)": (IN_PLAY_CAPACITY, lambda g: max(len(p) for p in g.in_play)),
    "deferred tokens": (DEFERRED_CAPACITY, lambda g: len(g.deferred_tokens)),
}


def random_positions(num_players: int, level: str, seed: int) -> list[Game]:
    """Every position (each decision and the end) of a seeded random game."""
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng([seed, num_players])
    out = [game.clone()]
    while not game.is_over:
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
        out.append(game.clone())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30, help="random games per level and player count")
    parser.add_argument("--quick", action="store_true", help="2 games per level and player count")
    parser.add_argument("--verbose", action="store_true", help="print the layout (every field's size)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games = 2
    if args.games < 1:
        parser.error("--games must be at least 1")

    print("array state (seasons_env.vector.arrays.ArrayState), bytes per game:")
    for n in (2, 3, 4):
        size = ArrayState.bytes_per_game(n)
        goal = f"   (goal <= {GOAL_BYTES:,}: {'MET' if size <= GOAL_BYTES else 'MISSED'})" if n == 4 else ""
        print(f"  {n} players  {size:>6,} bytes   batch of 1,024: {1024 * size / 2**20:.2f} MiB{goal}")
    if args.verbose:
        print()
        print(layout_markdown(4))
    print()

    most = dict.fromkeys(CAPACITIES, 0)
    positions = pack_seconds = unpack_seconds = 0.0
    for level in LEVELS:
        for n in (2, 3, 4):
            for seed in range(args.games):
                games = random_positions(n, level, seed)
                for name, (_, measure) in CAPACITIES.items():
                    most[name] = max(most[name], max(measure(g) for g in games))
                start = time.perf_counter()
                state = pack(games)
                pack_seconds += time.perf_counter() - start
                start = time.perf_counter()
                unpacked = [unpack(state, i) for i in range(len(games))]
                unpack_seconds += time.perf_counter() - start
                for i, (a, b) in enumerate(zip(games, unpacked, strict=True)):
                    if a != b:
                        print(f"MISMATCH: {level} {n} players seed {seed} position {i}")
                        return 1
                positions += len(games)
    cases = len(LEVELS) * 3 * args.games
    print(f"{positions:,.0f} positions of {cases} random games (every level, 2-4 players) packed and unpacked: equal")
    print(f"  {'capacity':<24} {'most held':>9} {'capacity':>9}")
    for name, (capacity, _) in CAPACITIES.items():
        print(f"  {name:<24} {most[name]:>9} {capacity:>9}")
    print(
        f"  pack {1e6 * pack_seconds / positions:,.0f} us/game, "
        f"unpack {1e6 * unpack_seconds / positions:,.0f} us/game (reference code, one game at a time)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
