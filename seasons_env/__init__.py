"""seasons-env: the rules engine and reinforcement-learning environments for the board game Seasons."""

from .engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS, describe_action
from .engine.game import LEVELS, Game, IllegalActionError

__version__ = "0.1.0"

__all__ = [
    "ACTION_TABLE_VERSION",
    "LEVELS",
    "NUM_ACTIONS",
    "Game",
    "IllegalActionError",
    "__version__",
    "describe_action",
]
