"""seasons-env: the rules engine and reinforcement-learning environments for the board game Seasons.

The engine (``Game``) needs only numpy. The PettingZoo environment (``env``, ``raw_env``) and the
Gymnasium environment (``"seasons_env/Seasons-v0"``) need the ``rl`` extra: ``pip install seasons-env[rl]``.
"""

from __future__ import annotations

import importlib.util

from .engine import LEVELS, Game, IllegalActionError
from .engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS, describe_action

__version__ = "0.1.0"

GYM_ENV_ID = "seasons_env/Seasons-v0"

if importlib.util.find_spec("gymnasium") is not None:
    import gymnasium

    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ENV_ID, entry_point="seasons_env.gym_env:SeasonsGymEnv")


def __getattr__(name: str):
    # The PettingZoo adapters import pettingzoo; load them only when asked for.
    if name in ("env", "raw_env"):
        from . import pettingzoo_env

        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'seasons_env' has no attribute {name!r}")


__all__ = [
    "ACTION_TABLE_VERSION",
    "GYM_ENV_ID",
    "LEVELS",
    "NUM_ACTIONS",
    "Game",
    "IllegalActionError",
    "__version__",
    "describe_action",
    "env",
    "raw_env",
]
