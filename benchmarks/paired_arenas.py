"""Two agents compared on the same deals: the paired difference of their results against a common opponent.

Give two folders of `seasons arena` played with the same `--seed`, `--games` and players, each pitting one agent (the
first of its `--agents`) against the same opponent. Each game is matched with the game of the other folder played on
the same deal with the agent in the same seat (the arena's game seeds and seats); the script prints each agent's win
share there (a sole win 1, a k-way tie 1/k) with a Wilson 95% interval, and the difference of the two with a 95%
interval from resampling the deals (both seatings of a deal together, as `statistics.bootstrap_interval` does). The
deals' luck is common to both, so the paired interval is narrower than the two intervals suggest.

    seasons arena --agents policy-gumbel:64,heuristic --games 400 --seed 4242 --out gumbel
    seasons arena --agents policy-ismcts:64,heuristic --games 400 --seed 4242 --out puct
    python benchmarks/paired_arenas.py gumbel puct
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from seasons_env.statistics import bootstrap_interval, wilson_interval


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="an arena folder (its first agent is compared)")
    parser.add_argument("second", type=Path, help="another arena folder, same seed and games")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of the deals")
    return parser.parse_args(argv)


def agent_results(folder: Path) -> tuple[str, dict[tuple[int, int], float]]:
    """The first agent of an arena folder and its win share in each game, keyed by (game seed, its seat)."""
    path = folder / "games.jsonl"
    if not path.is_file():
        raise ValueError(f"{folder}: no games.jsonl (not an arena results folder)")
    results: dict[tuple[int, int], float] = {}
    agent = None
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                game = json.loads(line)
                agent = agent or game["config"]["agents"][0]
                seat = game["seats"].index(agent)
                winners = game["winners"]
                results[(int(game["seed"]), seat)] = 1.0 / len(winners) if seat in winners else 0.0
            except (ValueError, KeyError, TypeError, IndexError) as error:
                raise ValueError(f"{path}, line {number}: not an arena game record ({error})") from None
    if agent is None:
        raise ValueError(f"{path}: no games")
    return agent, results


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        (first, a), (second, b) = agent_results(args.first), agent_results(args.second)
    except (OSError, ValueError) as error:
        print(f"paired_arenas.py: {error}", file=sys.stderr)
        return 2
    shared = sorted(set(a) & set(b))
    if not shared:
        print("paired_arenas.py: the two folders share no deal (same --seed and --games?)", file=sys.stderr)
        return 2
    deals: dict[int, list[tuple[float, float]]] = {}
    for key in shared:
        deals.setdefault(key[0], []).append((a[key], b[key]))
    groups = list(deals.values())

    def difference(sample: Sequence[list[tuple[float, float]]]) -> float:
        pairs = [pair for group in sample for pair in group]
        return sum(x - y for x, y in pairs) / len(pairs)

    n = len(shared)
    for name, share in ((first, sum(a[k] for k in shared)), (second, sum(b[k] for k in shared))):
        low, high = wilson_interval(share, n)
        print(f"{name}: {share / n:.1%} [{low:.1%}, {high:.1%}] of {n} games")
    low, high = bootstrap_interval(groups, difference, samples=args.resamples)
    print(
        f"{first} - {second}: {difference(groups) * 100:+.1f} points [{low * 100:+.1f}, {high * 100:+.1f}] "
        f"({len(groups)} deals resampled)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
