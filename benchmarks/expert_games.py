"""An expert-iteration run's game chunks (``RUN/expert/round-R/games-*.npz``) as the benchmarks that judge networks on
them read them (``value_error.py``, ``oracle_critic.py``): the chunks of a glob, each row's game, and a 95% interval
of a per-game figure with whole games resampled."""

from __future__ import annotations

import argparse
import glob
import sys

import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every such benchmark takes: the chunks' glob and the resamples of the games."""
    parser.add_argument("games", help="a glob of expert iteration's game chunks (quote it)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the games")


def read_games(pattern: str, script: str) -> list[dict[str, np.ndarray]] | None:
    """The rows of every chunk matching ``pattern``, a chunk a dict; None (the reason printed, naming ``script``)
    when none matches or one is not a chunk of searched games."""
    from seasons_training.errors import BadFileError
    from seasons_training.expert_rows import load_rows

    files = sorted(glob.glob(pattern))
    if not files:
        print(f"{script}: no files match {pattern!r}", file=sys.stderr)
        return None
    try:
        return [load_rows(f) for f in files]
    except BadFileError as error:
        print(f"{script}: {error}", file=sys.stderr)
        return None


class Games:
    """Which game each row of ``parts`` (in their order) belongs to, for figures summed by game."""

    def __init__(self, parts: list[dict[str, np.ndarray]]) -> None:
        # a game is (chunk, game index): the chunks of one round number their games apart, other runs' may not
        games = np.concatenate([k * 1_000_000 + part["game"].astype(np.int64) for k, part in enumerate(parts)])
        _, self.index = np.unique(games, return_inverse=True)
        self.counts = np.bincount(self.index)

    def sums(self, per_row: np.ndarray) -> np.ndarray:
        """``per_row`` summed by game."""
        return np.bincount(self.index, weights=per_row, minlength=len(self.counts))

    def mean(self, per_game: np.ndarray) -> float:
        """The mean over rows of a figure summed by game."""
        return float(per_game.sum() / self.counts.sum())

    def interval(self, per_game: np.ndarray, resamples: int) -> tuple[float, float]:
        """95% interval of ``mean(per_game)``, the games resampled (``bootstrap_interval``)."""
        from seasons_env.common.statistics import bootstrap_interval

        every_game = list(range(len(self.counts)))
        return bootstrap_interval(
            every_game, lambda picked: per_game[picked].sum() / self.counts[picked].sum(), resamples
        )
