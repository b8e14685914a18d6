"""Decision rows in the data set format of ``seasons_training.data`` (not of real games), for the loaders' tests."""

from __future__ import annotations

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS


def synthetic_rows(rows: int = 40, seed: int = 0, rows_per_game: int = 10) -> dict[str, np.ndarray]:
    """``rows`` two-player decision rows, ``rows_per_game`` to a game, each action legal under its mask."""
    rng = np.random.default_rng(seed)
    action = rng.integers(NUM_ACTIONS, size=rows).astype(np.int16)
    mask = rng.random((rows, NUM_ACTIONS)) < 0.1
    mask[np.arange(rows), action] = True
    return {
        "obs": rng.random((rows, OBSERVATION_SIZE), dtype=np.float32),
        "mask": mask,
        "action": action,
        "seat": (np.arange(rows) % 2).astype(np.int8),
        "players": np.full(rows, 2, dtype=np.int8),
        "game": (np.arange(rows) // rows_per_game).astype(np.int32),
        "margin": rng.normal(0, 10, rows).astype(np.float32),
    }
