"""Random play used by several tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from seasons_env import Game

MAX_DECISIONS = 20_000  # far above any real game; reaching it means the game does not end


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
    rng = np.random.default_rng(seed + 10_000)
    decisions = 0
    while not game.is_over:
        if on_step is not None:
            on_step(game)
        legal = game.legal_action_list()
        action = legal[int(rng.integers(len(legal)))]
        if on_action is not None:
            on_action(game, action)
        game.apply(action)
        decisions += 1
        if decisions > MAX_DECISIONS:
            raise AssertionError(f"game {num_players}p {level} seed {seed} did not end in {MAX_DECISIONS} decisions")
    if on_step is not None:
        on_step(game)
    return game, decisions


def random_positions(num_players: int, level: str, seed: int, every: int = 7) -> Iterator[Game]:
    """Every ``every``-th position of a random game."""
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng(seed + 20_000)
    k = 0
    while not game.is_over:
        if k % every == 0:
            yield game
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
        k += 1
