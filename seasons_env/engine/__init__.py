"""The rules engine of Seasons: pure Python and numpy, importing no RL library (``docs/engine.md``).

Modules, lowest first (each imports only those above it): ``data`` (card and dice facts), ``actions`` (the
action table), ``steps`` (the step kinds and their registry), ``behaviour`` (the card-hook protocol),
``state`` (the position and its mutators), ``payment`` and ``flow`` (the rules), ``cards`` (one behaviour per
card), ``serialization`` and ``hidden`` (the position format, information sets), ``machine`` (``Game``).
"""

from __future__ import annotations

from . import cards  # registers every card behaviour and the decisions cards ask
from .actions import ACTION_TABLE_VERSION, NUM_ACTIONS, describe_action
from .data import LEVELS, Card
from .machine import Decision, Game, IllegalActionError
from .serialization import STATE_FORMAT, STATE_VERSION
from .state import check_choice, check_num_players

__all__ = [
    "ACTION_TABLE_VERSION",
    "LEVELS",
    "NUM_ACTIONS",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Card",
    "Decision",
    "Game",
    "IllegalActionError",
    "cards",
    "check_choice",
    "check_num_players",
    "describe_action",
]
