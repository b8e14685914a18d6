"""Random play used by several tests: thin wrappers over ``seasons_env.simulate.random_play``.

Their policy streams (``seed + 10_000``, ``seed + 20_000``) are fixed: the golden hashes in
``tests/golden/streams.json`` were made with them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from seasons_env import Game
from seasons_env.simulate import random_play


def random_game(
    num_players: int,
    level: str,
    seed: int,
    on_step: Callable[[Game], None] | None = None,
    on_action: Callable[[Game, int], None] | None = None,
) -> tuple[Game, int]:
    """Play one game with uniformly random legal actions; returns the final game and the decision count.

    ``on_step(game)`` sees every position (the final one too); ``on_action(game, action)`` each chosen action
    before it is applied."""
    game = Game.new(num_players, level, seed=seed)
    decisions = 0
    for action in random_play(game, np.random.default_rng(seed + 10_000)):
        if on_step is not None:
            on_step(game)
        if on_action is not None:
            on_action(game, action)
        decisions += 1
    if on_step is not None:
        on_step(game)
    return game, decisions


def random_positions(num_players: int, level: str, seed: int, every: int = 7) -> Iterator[Game]:
    """Every ``every``-th position of a random game."""
    game = Game.new(num_players, level, seed=seed)
    for k, _ in enumerate(random_play(game, np.random.default_rng(seed + 20_000))):
        if k % every == 0:
            yield game


def level_positions(num_players: int, games_per_level: int, every: int, seed_base: int, tag: int) -> list[Game]:
    """Copies of random games' positions every ``every`` decisions and at their ends, every level: game ``k``
    of a level is seeded ``seed_base * num_players + k`` and played with the stream ``(num_players, k, tag)``."""
    from seasons_env.engine.data import LEVELS

    kept = []
    for level in LEVELS:
        for k in range(games_per_level):
            game = Game.new(num_players, level, seed=seed_base * num_players + k)
            rng = np.random.default_rng([num_players, k, tag])
            decisions = 0
            while True:
                if decisions % every == 0 or game.is_over:
                    kept.append(game.clone())
                if game.is_over:
                    break
                legal = game.legal_action_list()
                game.apply(legal[int(rng.integers(len(legal)))])
                decisions += 1
    return kept
