"""Measure the benchmark's frozen scale: the reference panel's round robin at each player count, rated.

Plays the panel (``seasons_agents.bench.PANEL``) in one arena per player count (every combination of distinct
panel agents, seats rotated, on deals of the public seed ``CALIBRATION_SEED + N``, apart from the bench's own
deals), resumable in ``--out``; then fits the panel's Bradley-Terry ratings (random at 0) with 95% bootstrap
intervals and writes the scale file that ``seasons bench`` reads:

    python benchmarks/bench_calibrate.py --games 3000 --workers 2 --out runs/bench-calibration \\
        --write agents/bench/seasons-bench-1.json --name seasons-bench-1

Rerun the same command to resume an interrupted run. The round robin takes many hours of two cores, so it can span
several machines: ``--archive DIR`` restores each player count's games from ``DIR/Np.jsonl.gz`` into ``--out``
before playing (when the archive holds more of them) and saves them back after; ``--pack`` only saves what ``--out``
holds now (after a run was stopped) and exits. The repository keeps the archive in ``benchmarks/bench-calibration``.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import shlex
import sys
from pathlib import Path

from seasons_agents.arena import Arena, ArenaConfig
from seasons_agents.bench import PANEL, PLAYER_COUNTS, calibrate, protocol
from seasons_env.files import write_atomic
from seasons_env.interrupts import exit_status, sigterm_stops

#: The calibration's deals at N players come from the arena seed ``CALIBRATION_SEED + N``.
CALIBRATION_SEED = 910_000


def _lines(data: bytes) -> int:
    return sum(1 for line in data.splitlines() if line.strip())


def restore(archive: Path, folder: Path) -> None:
    """Put the archived games of one player count into the arena folder, unless it already holds as many."""
    if not archive.exists():
        return
    data = gzip.decompress(archive.read_bytes())
    games = folder / "games.jsonl"
    if games.exists() and _lines(games.read_bytes()) >= _lines(data):
        return
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(games, data)
    print(f"restored {_lines(data)} games from {archive}", flush=True)


def pack(folder: Path, archive: Path) -> None:
    """Save one player count's recorded games into the archive (gzip, reproducible bytes), if it holds more."""
    games = folder / "games.jsonl"
    if not games.exists():
        return
    data = games.read_bytes()
    if archive.exists() and _lines(gzip.decompress(archive.read_bytes())) >= _lines(data):
        return
    archive.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(archive, gzip.compress(data, mtime=0))
    print(f"saved {_lines(data)} games to {archive}", flush=True)


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
    parser.add_argument("--archive", type=Path, help="restore games from, and save them to, DIR/Np.jsonl.gz")
    parser.add_argument("--pack", action="store_true", help="only save --out's games into --archive, then exit")
    args = parser.parse_args(argv)
    counts = sorted({int(word) for word in args.players.split(",")})
    if not set(counts) <= set(PLAYER_COUNTS):
        parser.error(f"--players must be among {list(PLAYER_COUNTS)}")
    games = _games_by_count(args.games, counts)
    if games is None:
        parser.error(f"--games must be a positive number or one per count as 2=3000,3=2000; got {args.games!r}")
    if args.pack:
        if args.archive is None:
            parser.error("--pack needs --archive")
        for count in counts:
            pack(args.out / f"{count}p", args.archive / f"{count}p.jsonl.gz")
        return 0
    records = {}
    for count in counts:
        if args.archive is not None:
            restore(args.archive / f"{count}p.jsonl.gz", args.out / f"{count}p")
        config = ArenaConfig(
            agents=PANEL, num_players=count, games=games[count], level=args.level, seed=CALIBRATION_SEED + count
        )
        arena = Arena(config, args.out / f"{count}p")
        try:
            with sigterm_stops():
                arena.run(workers=args.workers, progress=True)
        except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: the games played are kept, and archived
            print(f"stopped: {len(arena.finished())} games of {count} players recorded in {args.out}", flush=True)
            return exit_status(stop)
        finally:
            if args.archive is not None:
                pack(args.out / f"{count}p", args.archive / f"{count}p.jsonl.gz")
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
