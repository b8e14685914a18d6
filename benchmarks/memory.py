"""Memory: the serialized size of a position, and resident memory growth over many random games in one process.

    python benchmarks/memory.py                    # 10,000 games after a 200-game warm-up (about a minute)
    python benchmarks/memory.py --games 2000       # fewer games
    python benchmarks/memory.py --quick            # a few seconds

1. Serialized state size: ``len(json.dumps(game.to_dict()))`` in bytes at every step (every decision, and the
   final position) of several random 4-player Archmage games, the largest case; reports the maximum (goal < 8 KB)
   and the mean, plus the compact JSON form (``separators=(",", ":")``) for reference.
2. Resident memory growth: random 2-player Magician games (``seasons_env.simulate.play_random_game``) played one
   after another in this process. After a warm-up the resident set size (``/proc/self/statm``) is sampled at
   regular intervals; reports current-RSS growth from the end of the warm-up to the end (goal < 10 MB), and also
   the growth of the peak RSS (``resource.getrusage().ru_maxrss``). A leak shows as steady growth across samples.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from seasons_env import Game
from seasons_env.simulate import play_random_game

GOAL_STATE_BYTES = 8 * 1024
GOAL_GROWTH_BYTES = 10 * 1024 * 1024
MB = 1024 * 1024


def current_rss() -> int | None:
    """Resident set size in bytes now (Linux ``/proc/self/statm``), or ``None`` where unavailable."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def peak_rss() -> int:
    """Peak resident set size in bytes (``ru_maxrss`` is in KiB on Linux, in bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def state_sizes(games: int, num_players: int = 4, level: str = "archmage") -> dict:
    """Serialized size at every step of ``games`` random games (seeds 0, 1, ...)."""
    import numpy as np

    largest = compact_largest = total = steps = 0
    largest_at = None
    for seed in range(games):
        game = Game.new(num_players, level, seed=seed)
        integers = np.random.default_rng(seed).integers
        decision = 0
        while True:
            d = game.to_dict()
            size = len(json.dumps(d))
            total += size
            steps += 1
            if size > largest:
                largest, largest_at = size, (seed, decision)
            compact_largest = max(compact_largest, len(json.dumps(d, separators=(",", ":"))))
            if game.is_over:
                break
            legal = game.legal_action_list()
            game.apply(legal[integers(len(legal))])
            decision += 1
    return {
        "max": largest,
        "max_at": largest_at,
        "mean": total / steps,
        "compact_max": compact_largest,
        "steps": steps,
    }


def rss_growth(games: int, warmup: int, samples: int = 10) -> dict:
    """RSS before/after ``games`` random 2-player games that follow a ``warmup`` of games not counted."""
    for seed in range(warmup):
        play_random_game(2, "magician", seed)
    gc.collect()
    start_rss, start_peak = current_rss(), peak_rss()
    checkpoints = {max(1, round(games * (k + 1) / samples)) for k in range(samples)}
    trace = []
    start = time.perf_counter()
    decisions = 0
    for i in range(games):
        decisions += play_random_game(2, "magician", warmup + i)["decisions"]
        if i + 1 in checkpoints:
            trace.append((i + 1, current_rss()))
    seconds = time.perf_counter() - start
    gc.collect()
    end_rss, end_peak = current_rss(), peak_rss()
    return {
        "start_rss": start_rss,
        "end_rss": end_rss,
        "growth": None if start_rss is None else end_rss - start_rss,
        "peak_growth": end_peak - start_peak,
        "start_peak": start_peak,
        "end_peak": end_peak,
        "trace": trace,
        "seconds": seconds,
        "decisions": decisions,
    }


def mb(n: int | None) -> str:
    return "n/a" if n is None else f"{n / MB:.2f} MB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games for the RSS growth (default 10000)")
    parser.add_argument("--warmup", type=int, default=200, help="warm-up games before measuring RSS (default 200)")
    parser.add_argument("--size-games", type=int, default=20, help="4-player Archmage games for the state size")
    parser.add_argument("--quick", action="store_true", help="small counts: finishes in a few seconds")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.warmup, args.size_games = 300, 30, 2
    for name in ("games", "warmup", "size_games"):
        if getattr(args, name) < (0 if name == "warmup" else 1):
            parser.error(f"--{name.replace('_', '-')} is too small")

    print(
        f"memory: python {sys.version.split()[0]} on {sys.platform}{' (--quick: small counts)' if args.quick else ''}"
    )
    print()
    sizes = state_sizes(args.size_games)
    seed, decision = sizes["max_at"]
    verdict = "MET" if sizes["max"] < GOAL_STATE_BYTES else "MISSED"
    print(f"serialized state size, json.dumps(game.to_dict()), 4-player archmage, {args.size_games} games:")
    print(
        f"  max  {sizes['max']:>6,} bytes   (goal < {GOAL_STATE_BYTES:,}: {verdict}; seed {seed}, decision {decision})"
    )
    print(f"  mean {sizes['mean']:>8,.0f} bytes over {sizes['steps']:,} positions")
    print(f"  max  {sizes['compact_max']:>6,} bytes in compact JSON (separators=(',', ':'))")
    print()

    growth = rss_growth(args.games, args.warmup)
    print(f"resident memory over {args.games:,} random 2-player magician games after {args.warmup} warm-up games:")
    print(f"  {'games':>7}  {'RSS':>10}")
    print(f"  {0:>7,}  {mb(growth['start_rss']):>10}")
    for games_done, rss in growth["trace"]:
        print(f"  {games_done:>7,}  {mb(rss):>10}")
    if growth["growth"] is not None:
        verdict = "MET" if growth["growth"] < GOAL_GROWTH_BYTES else "MISSED"
        print(f"  RSS growth       {mb(growth['growth']):>10}   (goal < {GOAL_GROWTH_BYTES // MB} MB: {verdict})")
    else:
        print("  RSS growth       n/a (no /proc/self/statm)")
    print(
        f"  peak RSS growth  {mb(growth['peak_growth']):>10}   "
        f"(ru_maxrss {mb(growth['start_peak'])} -> {mb(growth['end_peak'])})"
    )
    print(
        f"  {growth['seconds']:.1f} s, {args.games / growth['seconds']:,.0f} games/s, "
        f"{growth['decisions'] / growth['seconds']:,.0f} decisions/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
