"""Uniform random play."""

from __future__ import annotations

from collections.abc import Sequence

from seasons_env import Game

from .base import SeededAgent


class RandomAgent(SeededAgent):
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        return int(legal[int(self.rng.integers(len(legal)))])
