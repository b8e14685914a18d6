"""Engine speed: random-play decisions, complete games and clones per second, for 2-4 players and each level; and
the position checks (``Game.from_dict`` of a position's ``to_dict()``, ``validate.invariant_violations``).

    python benchmarks/engine_speed.py                  # about 1 s per figure, ~35 s in all
    python benchmarks/engine_speed.py --seconds 3 --levels archmage --players 2
    python benchmarks/engine_speed.py --quick          # a few seconds; the figures are then very rough

Absolute times are noisy on a shared machine, so the run also times a fixed reference workload (``copy.deepcopy``
of one mid-game ``to_dict()``, a pure-Python dict/list copy of the same kind of work as the engine's) at its start
and its end, and prints every figure also as a ratio to it ("per ref": operations done in the time of one reference
deepcopy). Compare ratios between machines or runs, absolute figures only within one run.

The random player picks ``legal[int(random() * len(legal))]`` with a seeded ``random.Random``, which costs far
less than a call of ``numpy.random.Generator.integers``, so the figures measure the engine rather than the player.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from seasons_env import LEVELS, Game
from seasons_env.engine.validate import invariant_violations

PLAYER_COUNTS = (2, 3, 4)
GOAL_DECISIONS = 50_000  # decisions/s for 2 players, with legal_actions() at every step
GOAL_CLONES = 100_000  # clones/s of a 2-player mid-game position


class Row(NamedTuple):
    """One player count and level's figures."""

    num_players: int
    level: str
    numpy_rate: dict[str, float]  # random play through legal_actions()
    list_rate: dict[str, float]  # random play through legal_action_list()
    clones: float
    loads: float  # Game.from_dict of the position's to_dict()
    checks: float  # validate.invariant_violations of the position


def play_numpy(num_players: int, level: str, seed: int) -> int:
    """One random game through the public numpy API (``legal_actions()`` at every step); returns its decisions."""
    game = Game.new(num_players, level, seed=seed)
    rand = random.Random(seed).random
    decisions = 0
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rand() * len(legal))])
        decisions += 1
    return decisions


def play_list(num_players: int, level: str, seed: int) -> int:
    """The same game through ``legal_action_list()``; returns its decisions."""
    game = Game.new(num_players, level, seed=seed)
    rand = random.Random(seed).random
    decisions = 0
    while not game.is_over:
        legal = game.legal_action_list()
        game.apply(legal[int(rand() * len(legal))])
        decisions += 1
    return decisions


def random_play_rate(play: Callable[[int, str, int], int], num_players: int, level: str, seconds: float) -> dict:
    """Complete games (new game included) one after another until ``seconds`` have passed (at least one game)."""
    decisions = games = 0
    start = time.perf_counter()
    while True:
        decisions += play(num_players, level, games)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "decisions_per_s": decisions / elapsed,
        "games_per_s": games / elapsed,
        "games": games,
        "decisions_per_game": decisions / games,
    }


def mid_game(num_players: int, level: str, seed: int = 0) -> Game:
    """The position halfway (in decisions) through a random game."""
    half = play_list(num_players, level, seed) // 2
    game = Game.new(num_players, level, seed=seed)
    rand = random.Random(seed).random
    for _ in range(half):
        legal = game.legal_action_list()
        game.apply(legal[int(rand() * len(legal))])
    return game


def ops_per_second(op: Callable[[], object], seconds: float, batch: int = 500) -> float:
    """Calls of ``op`` per second, over batches of ``batch`` calls until ``seconds`` have passed."""
    calls = 0
    start = time.perf_counter()
    while True:
        for _ in range(batch):
            op()
        calls += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls / elapsed


def reference_rate(seconds: float) -> float:
    """Reference workload: ``copy.deepcopy`` of the ``to_dict()`` of a fixed 2-player Magician mid-game position."""
    state = mid_game(2, "magician", seed=0).to_dict()
    return ops_per_second(lambda: copy.deepcopy(state), seconds, batch=20)


def fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time budget of each figure (default 1.0)")
    parser.add_argument("--levels", nargs="+", choices=LEVELS, default=list(LEVELS), help="levels to measure")
    parser.add_argument(
        "--players", nargs="+", type=int, choices=PLAYER_COUNTS, default=list(PLAYER_COUNTS), help="player counts"
    )
    parser.add_argument("--quick", action="store_true", help="tiny time budgets: finishes in a few seconds")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    seconds = 0.02 if args.quick else args.seconds

    print(f"engine speed: {seconds:g} s per figure{' (--quick: rough figures)' if args.quick else ''}")
    print(f"python {sys.version.split()[0]} on {sys.platform}")
    for level in args.levels:  # warm-up: imports, caches, first-call costs
        play_list(2, level, 0)

    ref_start = reference_rate(seconds)
    rows = []
    for num_players in args.players:
        for level in args.levels:
            numpy_rate = random_play_rate(play_numpy, num_players, level, seconds)
            list_rate = random_play_rate(play_list, num_players, level, seconds)
            position = mid_game(num_players, level)
            clones = ops_per_second(position.clone, seconds)
            data = position.to_dict()
            loads = ops_per_second(lambda data=data: Game.from_dict(data), seconds, batch=20)
            checks = ops_per_second(lambda position=position: invariant_violations(position), seconds, batch=50)
            rows.append(Row(num_players, level, numpy_rate, list_rate, clones, loads, checks))
    ref_end = reference_rate(seconds)
    ref = (ref_start + ref_end) / 2

    print()
    print(f"reference: copy.deepcopy(to_dict()) of a 2-player mid-game = {fmt(ref)} /s")
    print(f"  (start {fmt(ref_start)} /s, end {fmt(ref_end)} /s, drift {ref_end / ref_start - 1:+.1%})")
    print()
    header = (
        f"{'players':>7}  {'level':<10}  {'decisions/s':>11}  {'per ref':>7}  {'decisions/s':>11}  {'per ref':>7}"
        f"  {'games/s':>8}  {'per ref':>7}  {'clones/s':>9}  {'per ref':>7}  {'decisions/game':>14}"
    )
    print(f"{'':>7}  {'':<10}  {'(legal_actions)':>20}  {'(legal_action_list)':>20}")
    print(header)
    print("-" * len(header))
    for row in rows:
        numpy_rate, list_rate, clones = row.numpy_rate, row.list_rate, row.clones
        print(
            f"{row.num_players:>7}  {row.level:<10}"
            f"  {fmt(numpy_rate['decisions_per_s']):>11}  {numpy_rate['decisions_per_s'] / ref:>7.1f}"
            f"  {fmt(list_rate['decisions_per_s']):>11}  {list_rate['decisions_per_s'] / ref:>7.1f}"
            f"  {fmt(numpy_rate['games_per_s']):>8}  {numpy_rate['games_per_s'] / ref:>7.3f}"
            f"  {fmt(clones):>9}  {clones / ref:>7.1f}"
            f"  {numpy_rate['decisions_per_game']:>14.1f}"
        )
    print()
    print("decisions/s and games/s: complete random games, Game.new included; clones/s: Game.clone() of a mid-game")
    print("position; 'per ref' = figure / reference rate.")
    print()
    header = f"{'players':>7}  {'level':<10}  {'from_dict/s':>11}  {'per ref':>7}  {'invariant_violations/s':>22}"
    header += f"  {'per ref':>7}"
    print("position checks of the same mid-game positions: Game.from_dict(to_dict()), validate.invariant_violations")
    print(header)
    print("-" * len(header))
    for row in rows:
        loads_cells = f"{fmt(row.loads):>11}  {row.loads / ref:>7.2f}"
        print(f"{row.num_players:>7}  {row.level:<10}  {loads_cells}  {fmt(row.checks):>22}  {row.checks / ref:>7.1f}")

    two = [row for row in rows if row.num_players == 2]
    if two:
        print()
        print(f"goals (2 players): decisions/s with legal_actions() >= {GOAL_DECISIONS:,}, clones/s >= {GOAL_CLONES:,}")
        for row in two:
            d, ok_d = row.numpy_rate["decisions_per_s"], row.numpy_rate["decisions_per_s"] >= GOAL_DECISIONS
            c, ok_c = row.clones, row.clones >= GOAL_CLONES
            print(
                f"  {row.level:<10}  decisions/s {fmt(d):>8}  {'MET' if ok_d else 'MISSED':<6}"
                f"  clones/s {fmt(c):>9}  {'MET' if ok_c else 'MISSED'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
