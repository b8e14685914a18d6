"""Measure the benchmark's frozen scale: the reference panel's round robin at each player count, rated.

Plays the panel (``seasons_agents.bench.PANEL``) in one arena per player count (every combination of distinct
panel agents, seats rotated, on deals of the public seed ``CALIBRATION_SEED + N``, apart from the bench's own
deals), resumable in ``--out``; then fits the panel's Bradley-Terry ratings (random at 0) with 95% bootstrap
intervals and writes the scale file that ``seasons bench`` reads:

    python benchmarks/bench_calibrate.py --games 3000 --workers 2 --out runs/bench-calibration \\
        --write agents/bench/seasons-bench-1.json --name seasons-bench-1

Rerun the same command to resume an interrupted run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import sys
from pathlib import Path

from seasons_agents.arena import Arena, ArenaConfig
from seasons_agents.bench import PANEL, PLAYER_COUNTS, calibrate, protocol
from seasons_env.files import write_atomic

#: The calibration's deals at N players come from the arena seed ``CALIBRATION_SEED + N``.
CALIBRATION_SEED = 910_000


def _games_by_count(text: str, counts: list[int]) -> dict[int, int] | None:
    """``--games`` as games per player count: ``3000`` for every count, or ``2=3000,3=2000,4=1500``."""
    try:
        if "=" not in text:
            return {count: int(text) for count in counts} if int(text) > 0 else None
        pairs = dict(word.split("=") for word in text.split(","))
        games = {int(count): int(number) for count, number in pairs.items()}
    except ValueError:
        return None
    if set(games) != set(counts) or min(games.values()) < 1:
        return None
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games",
        default="3000",
        help="games at each player count: one number, or one per count as 2=3000,3=2000,4=1500",
    )
    parser.add_argument("--players", default=",".join(map(str, PLAYER_COUNTS)), help="player counts, e.g. 2,3,4")
    parser.add_argument("--level", default="archmage")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-calibration"))
    parser.add_argument("--write", type=Path, help="the scale file to write (default: print it)")
    parser.add_argument("--name", default="seasons-bench-1", help="the scale's name, as a paper cites it")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap samples of the intervals")
    args = parser.parse_args(argv)
    counts = sorted({int(word) for word in args.players.split(",")})
    if not set(counts) <= set(PLAYER_COUNTS):
        parser.error(f"--players must be among {list(PLAYER_COUNTS)}")
    games = _games_by_count(args.games, counts)
    if games is None:
        parser.error(f"--games must be a positive number or one per count as 2=3000,3=2000; got {args.games!r}")
    records = {}
    for count in counts:
        config = ArenaConfig(
            agents=PANEL, num_players=count, games=games[count], level=args.level, seed=CALIBRATION_SEED + count
        )
        arena = Arena(config, args.out / f"{count}p")
        arena.run(workers=args.workers, progress=True)
        records[count] = arena.finished()
        print(f"{count} players: {len(records[count])} games", flush=True)
    scale = {
        "name": args.name,
        "protocol": protocol(args.level),
        "ratings": calibrate(records, args.bootstrap),
        "measured": {
            "command": "python benchmarks/bench_calibrate.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
            "games": {str(count): len(found) for count, found in records.items()},
            "date": datetime.date.today().isoformat(),
        },
    }
    text = json.dumps(scale, indent=2) + "\n"
    if args.write is None:
        print(text)
    else:
        write_atomic(args.write, text.encode())
        print(f"wrote {args.write}")
    for count, ratings in scale["ratings"].items():
        print(f"{count} players:")
        for name, entry in ratings.items():
            print(f"  {name:14} {entry['rating']:8.0f}  [{entry['low']:8.0f}, {entry['high']:8.0f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
