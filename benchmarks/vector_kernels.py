"""The compiled observation writer of the batched core against the reference engine.

    python benchmarks/vector_kernels.py              # batch 1, 64, 1,024, 4,096; 2 and 4 players
    python benchmarks/vector_kernels.py --quick      # batch 1, 64, 1,024; shorter budgets, fewer source games
    python benchmarks/vector_kernels.py --kinds      # also: which decisions random play asks, what their options cost

Observations per second of the compiled ``kernels.observe_rows`` (what ``VectorGame`` uses on the kernels) over an
array state against the
reference ``encode_observation`` looping over the same positions' ``Game`` objects, each writing the observation
of the seat that decides (seat 0 in a finished game) into a preallocated ``[B, OBSERVATION_SIZE]`` buffer. The
positions are drawn without replacement from every position of seeded random games played to the end, so they
spread over whole games (draft, every year, ends). Before timing, every kernel row is checked equal to the
reference's. Each cell's budget is split into rounds alternating between the sides, so a drift of the
shared machine's speed hits both alike; compare the ratios, not the absolute figures, between machines.

``--kinds`` first prints, for 2 and 4 players, how often random play asks each decision kind and the share of the
option functions' time each takes. (The compiled engine's legal masks are written as it steps, not by a separate
writer: ``benchmarks/vector_speed.py`` measures them with the steps.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import numpy as np
from vector_speed import batch_sizes  # benchmarks/ is the script's folder

from seasons_env.encoding import OBSERVATION_SIZE, encode_observation
from seasons_env.engine import Game, steps
from seasons_env.vector.arrays import pack
from seasons_env.vector.kernels.observe_rows import observe_rows
from seasons_env.vector.kernels.structs import kernel_arrays

GOAL_RATIO = 10.0  # batched / reference at batch 1,024
ROUNDS = 3


def game_positions(players: int, level: str, games: int, seed: int) -> list[Game]:
    """Every position (the end included) of ``games`` seeded random games."""
    kept = []
    for g in range(games):
        game = Game.new(players, level, seed=seed * 100_003 + g)
        rng = np.random.default_rng((seed, g, 0x0B5))
        while True:
            kept.append(game.clone())
            if game.is_over:
                break
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
    return kept


def sample_positions(pool: list[Game], batch_size: int, seed: int) -> list[Game]:
    """``batch_size`` positions of ``pool``, without replacement while the pool lasts."""
    rng = np.random.default_rng((seed, batch_size))
    picks = rng.permutation(len(pool))
    if batch_size > len(pool):
        picks = np.concatenate([picks, rng.integers(len(pool), size=batch_size - len(pool))])
    return [pool[int(k)] for k in picks[:batch_size]]


def observer_of(game: Game) -> int:
    return game.current_player if not game.is_over else 0


def measure_observations(games: list[Game], seconds: float) -> tuple[float, float]:
    """(compiled, reference) observations per second over ``games``, after checking both write the same values."""
    batch_size = len(games)
    arrays = kernel_arrays(pack(games))
    rows = np.arange(batch_size, dtype=np.int64)
    seats = np.array([observer_of(g) for g in games], dtype=np.int64)
    compiled_out = np.empty((batch_size, OBSERVATION_SIZE), dtype=np.float32)
    reference_out = np.empty((batch_size, OBSERVATION_SIZE), dtype=np.float32)

    def compiled() -> int:
        observe_rows(arrays, rows, seats, compiled_out)
        return batch_size

    def reference() -> int:
        for i, game in enumerate(games):
            encode_observation(game, int(seats[i]), reference_out[i])
        return batch_size

    sides = (compiled, reference)
    for side in sides:
        side()
    if not np.array_equal(compiled_out, reference_out):
        row = int(np.flatnonzero((compiled_out != reference_out).any(axis=1))[0])
        raise SystemExit(f"the compiled observation of row {row} differs from encode_observation's")
    totals = [[0, 0.0] for _ in sides]
    for _ in range(ROUNDS):
        for k, side in enumerate(sides):
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / (len(sides) * ROUNDS):
                totals[k][0] += side()
            totals[k][1] += elapsed
    compiled_rate, reference_rate = (count / elapsed for count, elapsed in totals)
    return compiled_rate, reference_rate


def observation_table(batches: list[int], seconds: float, level: str, source_games: int) -> None:
    print(f"observations/s: observe_rows (compiled) vs encode_observation per Game (reference), {level}")
    print(f"{'players':>7} {'batch':>6} {'compiled':>11} {'reference':>10} {'ratio':>6}")
    for players in (2, 4):
        pool = game_positions(players, level, source_games, seed=players)
        for batch_size in batches:
            games = sample_positions(pool, batch_size, seed=players)
            compiled, reference = measure_observations(games, seconds)
            print(f"{players:>7} {batch_size:>6} {compiled:>11,.0f} {reference:>10,.0f} {compiled / reference:>6.2f}")
    print(
        "ratio: compiled / reference; every compiled row checked equal to encode_observation; "
        f"goal at batch 1024: >= {GOAL_RATIO:.0f}x per decision"
    )


def kinds_table(level: str, games: int) -> None:
    """How often random play asks each decision kind, and the share of the option functions' time it takes."""
    for players in (2, 4):
        asked: dict[int, int] = {}
        spent: dict[int, float] = {}
        for g in range(games):
            game = Game.new(players, level, seed=77_000 + g)
            rng = np.random.default_rng((players, g, 0x6B1))
            while not game.is_over:
                task = game.pending_task()
                start = time.perf_counter()
                steps.OPTIONS[task[0]](game, task)
                spent[task[0]] = spent.get(task[0], 0.0) + time.perf_counter() - start
                asked[task[0]] = asked.get(task[0], 0) + 1
                legal = game.legal_action_list()
                game.apply(legal[int(rng.integers(len(legal)))])
        total, total_time = sum(asked.values()), sum(spent.values())
        print(f"decision kinds of {games} random {players}-player {level} games ({total:,} decisions):")
        print(f"  {'kind':<24} {'asked':>6} {'options time':>12} {'us/call':>8}")
        for k, count in sorted(asked.items(), key=lambda item: -item[1]):
            name = steps.KINDS[k]
            print(f"  {name:<24} {count / total:>6.1%} {spent[k] / total_time:>12.1%} {spent[k] / count * 1e6:>8.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="batch up to 1,024, short budgets, fewer source games")
    parser.add_argument("--seconds", type=float, default=None, help="budget per cell (default 4, quick 1)")
    parser.add_argument("--level", default="archmage", choices=["apprentice", "magician", "archmage"])
    parser.add_argument("--batches", default=None, help="comma-separated batch sizes (default 1,64,1024,4096)")
    parser.add_argument("--kinds", action="store_true", help="first print the decision kinds random play asks")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (1.0 if args.quick else 4.0)
    if seconds <= 0:
        parser.error(f"--seconds must be positive; got {seconds}")
    batches = batch_sizes(parser, args.batches, args.quick)
    if args.kinds:
        kinds_table(args.level, games=6 if args.quick else 30)
    observation_table(batches, seconds, args.level, source_games=6 if args.quick else 24)
    return 0


if __name__ == "__main__":
    sys.exit(main())
