"""Checks of what callers pass to both environments: action ids and ``reset`` options.

Kept apart from the adapters so that the Gymnasium and PettingZoo environments read their inputs the same way.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from ..engine import Game

RESET_OPTIONS = ("state",)
ACTION_FORMS = "an int, a numpy integer, or a numpy integer array with one element"


def action_id(action: object) -> int:
    """The action id that ``action`` stands for, as a Python int.

    Accepts any integral scalar: an ``int``, a numpy integer, or a numpy integer array with exactly one element
    (``MaskablePPO.predict`` returns a 0-d array). Raises ``TypeError`` for anything else that is not integral
    (floats, even 2.0, strings, bools, None) and ``ValueError`` for an array holding several actions. Whether the
    id is legal is the engine's business.
    """
    given = action
    if isinstance(action, np.ndarray):
        if action.size != 1:
            raise ValueError(f"action must be one action id ({ACTION_FORMS}); got an array of shape {action.shape}")
        action = action.reshape(())[()]  # the numpy scalar, of the array's dtype
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        kind = f"array of dtype {given.dtype}" if isinstance(given, np.ndarray) else type(given).__name__
        raise TypeError(f"action must be an integer action id ({ACTION_FORMS}); got {kind} {given!r}")
    return int(action)


def reset_options(options: object, accepted: Sequence[str], unknown_keys: str = "raise") -> dict:
    """``reset(options=...)`` as a dict (``{}`` for None): a ``ValueError`` if it is not a dict, and for keys not in
    ``accepted`` a ``ValueError`` (``unknown_keys="raise"``) or a warning (``"warn"``) naming them."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None; got {type(options).__name__} {options!r}")
    unknown = [key for key in options if key not in accepted]
    if unknown:
        message = f"options: unknown key(s) {', '.join(map(repr, unknown))}; accepted: {', '.join(map(repr, accepted))}"
        if unknown_keys == "raise":
            raise ValueError(message)
        warnings.warn(f"{message} (the others are ignored)", UserWarning, stacklevel=4)
    return options


def position_from_options(options: object, num_players: int, level: str, unknown_keys: str = "raise") -> Game | None:
    """The position ``reset(options=...)`` asks to start from, or None for a new game.

    ``options`` may be None or a dict whose only key is ``"state"``: a position in the ``Game.to_dict`` format
    (None there also means a new game). The position must be of this environment's player count and level, and
    not finished. Every problem is a ``ValueError`` naming the option. Other keys raise a ``ValueError``
    (``unknown_keys="raise"``) or only warn (``"warn"``: PettingZoo's ``api_test`` resets with
    ``options={"options": 1}`` and expects it to work).
    """
    state = reset_options(options, RESET_OPTIONS, unknown_keys).get("state")
    if state is None:
        return None
    try:
        game = Game.from_dict(state)
    except ValueError as error:
        raise ValueError(f"options['state'] is not a valid position: {error}") from error
    if game.num_players != num_players or game.level != level:
        raise ValueError(
            f"options['state'] is a {game.num_players}-player {game.level} position; this environment plays "
            f"{num_players}-player {level}"
        )
    if game.is_over:
        raise ValueError("options['state'] is a finished game; there is nothing left to decide")
    return game
