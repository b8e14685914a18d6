"""The rules engine of Seasons: pure Python and numpy, importing no RL library (``docs/engine.md``).

``Game`` (``machine``) is its public API. Modules, lowest first (each imports only those above it): ``data`` (card
and dice facts from the card data), ``card_constants`` (the amounts in the cards' effects), ``chance`` (the chance
stream), ``schema`` (rules for untrusted data), ``actions`` (the action table), ``steps`` (the step kinds and their
registry), ``behaviour`` (the card-hook protocol), ``state`` (the position and its mutators), ``payment`` and
``flow`` (the rules), ``cards_basic`` and ``cards_archmage`` (one behaviour per card), ``consistency``,
``serialization`` and ``hidden`` (the position format, checked field by field, and information sets), ``machine``
(``Game``), ``validate`` (invariants, for tests and debugging). The compiled kernels (``seasons_env.vector.kernels``)
port these rules and read the same facts; ``docs/engine.md`` maps both and says where to edit for a change.
"""

from __future__ import annotations

from . import behaviour, cards_archmage, cards_basic, data, steps  # noqa: F401  (importing them registers every card behaviour)
from .actions import ACTION_TABLE_VERSION, NUM_ACTIONS, describe_action
from .data import LEVELS, Card
from .machine import Decision, Game, IllegalActionError
from .serialization import STATE_FORMAT, STATE_VERSION
from .state import check_choice, check_num_players

_missing = sorted(set(data.ALL_CARDS) - set(behaviour.BEHAVIOUR)) + [
    k for k, s in enumerate(steps.STEP_KINDS) if s is None
]
if _missing:  # pragma: no cover - a card or step kind without rules is a packaging error
    raise ImportError(f"the engine lacks behaviours for cards or rules for step kinds: {_missing}")

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
    "check_choice",
    "check_num_players",
    "describe_action",
]
