"""What the learned draft is worth: the same play policy on both sides, only the draft differs.

Two-player games of the shipped learned policy against itself, where one side drafts (the 9 picks and the
library split) with the learned policy and the other with another drafter: random picks, or the heuristic's
draft rules. Each deal is played twice with the seats swapped. Prints the learned-draft side's win rate with a
Wilson 95% interval and the mean scores.

    python benchmarks/draft_value.py --games 1000
    python benchmarks/draft_value.py --games 1000 --model v1 --against heuristic   # an older shipped model

``--model`` takes what ``learned:`` takes in the arena: a shipped version (``v1``) or a model file.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from seasons_agents import HeuristicAgent, PolicyAgent, RandomAgent, play_game
from seasons_agents.learned import learned_model_path
from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.statistics import wilson_interval

DRAFT = frozenset((steps.kind("draft_pick"), steps.kind("library_split")))


class DraftedBy:
    """Plays with ``player`` but drafts (picks and library split) with ``drafter``."""

    def __init__(self, player, drafter, name: str) -> None:
        self.player, self.drafter, self.name = player, drafter, name

    def reset(self, seed: int | None = None) -> None:
        for agent in (self.player, self.drafter):
            agent.reset(seed)

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        task = view.pending_task()
        agent = self.drafter if task is not None and task[0] in DRAFT else self.player
        return agent.act(view, seat, legal)


def play(args: tuple[str, int, str]) -> tuple[float, int, int]:
    """Game ``index`` against drafter ``other``, every network the model at ``model``: (learned-draft side's win
    share, its score, the other's)."""
    other, index, model = args
    learned = DraftedBy(PolicyAgent(index, model=model), PolicyAgent(index + 1, model=model), "learned draft")
    drafter = RandomAgent(index) if other == "random" else HeuristicAgent(index)
    rival = DraftedBy(PolicyAgent(index + 2, model=model), drafter, f"{other} draft")
    seats = [learned, rival] if index % 2 == 0 else [rival, learned]
    record = play_game(seats, level="archmage", seed=50_000 + index // 2, agent_seed=index)
    me = seats.index(learned)
    win = 1.0 / len(record.winners) if me in record.winners else 0.0
    return win, record.scores[me], record.scores[1 - me]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", default=None, help="a shipped version (v1) or a model file; default: the newest")
    parser.add_argument("--against", choices=("random", "heuristic", "both"), default="both")
    args = parser.parse_args(argv)
    try:
        model = str(learned_model_path(args.model))
    except ValueError as error:
        parser.error(str(error))
    if not Path(model).is_file():
        parser.error(f"--model: no such model file {model!r}")
    model_name = args.model or "learned"
    for other in ("random", "heuristic") if args.against == "both" else (args.against,):
        start = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            results = pool.map(play, [(other, k, model) for k in range(args.games)], chunksize=8)
        wins = sum(r[0] for r in results)
        low, high = wilson_interval(wins, len(results))
        mine = sum(r[1] for r in results) / len(results)
        theirs = sum(r[2] for r in results) / len(results)
        print(
            f"{model_name}: learned draft vs {other} draft (same learned play): {wins / len(results):.1%} "
            f"[{low:.1%}, {high:.1%}] "
            f"over {len(results)} games; mean scores {mine:.1f} vs {theirs:.1f} ({time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
