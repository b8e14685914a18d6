"""Seasons as an OpenSpiel game (``docs/openspiel.md``); needs the ``openspiel`` extra.

Importing this package registers ``python_seasons`` with pyspiel::

    import pyspiel
    import seasons_env.openspiel  # noqa: F401

    game = pyspiel.load_game("python_seasons(players=3,level=archmage)")

``game`` explains the game, its states and its observer; ``bots`` makes OpenSpiel's ISMCTS bot play it and
seats the project's agents (found through ``seasons_env.registry``) as ``pyspiel.Bot``s; ``learning`` trains
OpenSpiel's actor-critic on it through ``rl_environment``; ``playthrough`` writes or checks the committed
playthrough (``python -m seasons_env.openspiel.playthrough tests/playthroughs/python_seasons.txt``).
"""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "seasons_env.openspiel needs OpenSpiel: pip install 'seasons-env[openspiel]' (the open-spiel package)"
    ) from error

from .bots import AgentBot, SeasonsISMCTSBot, ismcts_bot, make_agent_bot, resampler
from .game import GAME_NAME, GAME_TYPE, NUM_SEEDS, REWARDS, SEED_BYTES, SeasonsGame, SeasonsObserver, SeasonsState

__all__ = [
    "GAME_NAME",
    "GAME_TYPE",
    "NUM_SEEDS",
    "REWARDS",
    "SEED_BYTES",
    "AgentBot",
    "SeasonsGame",
    "SeasonsISMCTSBot",
    "SeasonsObserver",
    "SeasonsState",
    "ismcts_bot",
    "make_agent_bot",
    "resampler",
]
