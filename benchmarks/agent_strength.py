"""Agent strength over 2-player games with seats rotated, with 95% intervals.

    python benchmarks/agent_strength.py                 # the full figures (long: ISMCTS games are slow)
    python benchmarks/agent_strength.py --quick         # a smoke run in well under a minute

Figures: heuristic vs random win rate (goal >= 97% over >= 1,000 games); ISMCTS at its default budget vs
heuristic (goal >= 60% over >= 200 games); the mean heuristic score in heuristic-vs-heuristic games; and
decisions per second of each agent. The head-to-head runs use the arena (``seasons_agents.arena``), so they are
resumable: the results folders under ``--out`` keep every finished game.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seasons_agents.arena import Arena, ArenaConfig  # noqa: E402
from seasons_agents.base import play_game  # noqa: E402
from seasons_env.statistics import wilson_interval  # noqa: E402


def _mirror_game(args: tuple[int, str]) -> dict:
    from seasons_agents.heuristic import HeuristicAgent

    seed, level = args
    record = play_game(
        [HeuristicAgent(seed * 2), HeuristicAgent(seed * 2 + 1)], level=level, seed=seed, agent_seed=seed
    )
    return record.to_dict()


def head_to_head(agents: tuple[str, str], games: int, level: str, workers: int, out: Path, progress: bool) -> dict:
    config = ArenaConfig(agents=agents, num_players=2, games=games, level=level, seed=0)
    arena = Arena(config, out / f"{agents[0]}-vs-{agents[1]}-{level}")
    resumed = len(arena.finished())  # games an earlier run already played (the arena does not replay them)
    started = time.perf_counter()
    summary = arena.run(workers=workers, progress=progress)
    summary["wall_seconds"] = time.perf_counter() - started
    summary["resumed_games"] = resumed
    return summary


def report_pair(summary: dict, first: str, second: str, goal: float) -> str:
    cell = summary["crosstable"][first][second]
    wins = cell["win_rate"] * cell["games"]
    verdict = "MET" if cell["win_rate"] >= goal else "NOT MET"
    a, b = summary["agents"][first], summary["agents"][second]
    return (
        f"{first} vs {second}: {cell['win_rate']:.1%} wins ({wins:.1f}/{cell['games']}), "
        f"Wilson 95% [{cell['low']:.1%}, {cell['high']:.1%}]; goal >= {goal:.0%}: {verdict}\n"
        f"  mean score {first} {a['mean_score']:.1f} (sd {a['score_std']:.1f}), {second} {b['mean_score']:.1f} "
        f"(sd {b['score_std']:.1f}); decisions/s {first} {_rate(a['decisions_per_second'])}, "
        f"{second} {_rate(b['decisions_per_second'])}; wall {summary['wall_seconds']:.0f} s"
        + (
            f" ({summary['resumed_games']} games read back from {first}-vs-{second}-*/games.jsonl)"
            if summary["resumed_games"]
            else ""
        )
    )


def _rate(per_second: float) -> str:
    """A rate with three significant figures at least (a search agent makes a few decisions a second)."""
    return f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="archmage", choices=["apprentice", "magician", "archmage"])
    parser.add_argument("--games-vs-random", type=int, default=1000)
    parser.add_argument("--games-ismcts", type=int, default=200)
    parser.add_argument("--games-mirror", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "agent_strength")
    parser.add_argument("--skip-ismcts", action="store_true", help="leave out the (slow) ISMCTS games")
    parser.add_argument("--quick", action="store_true", help="a few games of each, for a smoke test")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.games_vs_random, args.games_ismcts, args.games_mirror = 20, 2, 10
        args.out = args.out.parent / "agent_strength_quick"
    progress = not args.no_progress
    print(f"agent strength: 2 players, level {args.level}, seats rotated, {args.workers} workers")

    summary = head_to_head(("heuristic", "random"), args.games_vs_random, args.level, args.workers, args.out, progress)
    print(report_pair(summary, "heuristic", "random", 0.97))

    if not args.skip_ismcts:
        summary = head_to_head(("ismcts", "heuristic"), args.games_ismcts, args.level, args.workers, args.out, progress)
        print(report_pair(summary, "ismcts", "heuristic", 0.60))

    started = time.perf_counter()
    jobs = [(seed, args.level) for seed in range(args.games_mirror)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        records = pool.map(_mirror_game, jobs)
    scores = [s for r in records for s in r["scores"]]
    mean = statistics.fmean(scores)
    half = 1.959964 * statistics.stdev(scores) / math.sqrt(len(scores))
    seat0 = sum(1 for r in records if 0 in r["winners"]) / len(records)
    low, high = wilson_interval(seat0 * len(records), len(records))
    print(
        f"heuristic vs heuristic: mean score {mean:.1f} (95% interval [{mean - half:.1f}, {mean + half:.1f}]) over "
        f"{len(records)} games; seat 0 wins {seat0:.1%} [{low:.1%}, {high:.1%}]; "
        f"wall {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
