"""Random play used by several tests: thin wrappers over ``seasons_env.simulate.random_play``.

Their policy streams (``seed + 10_000``, ``seed + 20_000``) are fixed: the golden playthroughs in
``tests/golden/`` were made with them.
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


def random_step_args(
    kind: int,
    rng: np.random.Generator,
    num_players: int,
    *,
    instance: Callable[[], int] | None = None,
    special: dict[str, Callable[[], object]] | None = None,
    count_high: int = 3,
) -> list:
    """Random arguments for a pending step of ``kind`` within its array-state columns: cards, seats, energy, a
    card or an instance (``instance()`` if given), ``special[name]()`` for other named arguments, and any count
    from 1 to ``count_high``."""
    from seasons_env.engine.data import NUM_CARDS, NUM_INSTANCES
    from seasons_env.vector.step_codes import ARG_COLUMNS

    args: list = []
    for col in ARG_COLUMNS[kind]:
        if col.name == "cards":
            size = int(rng.integers(1, col.width + 1))
            args.append(tuple(int(c) for c in rng.integers(1, NUM_CARDS + 1, size=size)))
        elif col.name == "recipients":
            size = int(rng.integers(1, col.width + 1))
            args.append(tuple(int(s) for s in rng.integers(0, num_players, size=size)))
        elif col.name == "need":
            args.append(tuple(int(e) for e in rng.integers(0, 5, size=4)))
        elif col.name == "card":
            args.append(int(rng.integers(1, NUM_CARDS + 1)))
        elif col.name == "instance":
            args.append(instance() if instance is not None else int(rng.integers(0, NUM_INSTANCES)))
        elif col.name in ("energy", "from_type"):
            args.append(int(rng.integers(0, 4)))
        elif special is not None and col.name in special:
            args.append(special[col.name]())
        else:  # counts, waivers, a year, flags
            args.append(int(rng.integers(1, count_high + 1)))
    return args
