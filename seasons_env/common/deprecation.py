"""Renamed settings: an old name still accepted for one release, with a ``DeprecationWarning`` naming the new one.

The project names one concept one way (``num_players``, not ``players``). Where the old name was public (a
function keyword, an RLlib ``env_config`` key, a training configuration field), ``renamed`` maps it to the new name,
warns, and refuses a mapping that gives both; ``renamed_keywords`` does the same for a function's keyword arguments.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from typing import TypeVar

F = TypeVar("F", bound=Callable)

#: Old public name -> new name, removed one release after the rename.
RENAMED = {"players": "num_players"}


def deprecation_message(old: str, new: str, where: str) -> str:
    """The warning's text: what is deprecated, in which setting, and its new name."""
    return f"{where}: {old!r} is deprecated and will be removed in the next release; use {new!r}"


def renamed(values: Mapping, where: str, *, warn: bool = True, stacklevel: int = 3) -> dict:
    """``values`` with each old name of ``RENAMED`` replaced by its new one (a ``DeprecationWarning`` each, unless
    ``warn`` is false: a saved file read back); a ``ValueError`` when both the old and the new name are given."""
    result = dict(values)
    for old, new in RENAMED.items():
        if old not in result:
            continue
        if new in result:
            raise ValueError(f"{where}: give {new!r} only; {old!r} is its deprecated name, and both were given")
        if warn:
            warnings.warn(deprecation_message(old, new, where), DeprecationWarning, stacklevel=stacklevel)
        result[new] = result.pop(old)
    return result


def renamed_argument(new_value: object, old_value: object, old: str, new: str, where: str, default: object) -> object:
    """The value of a keyword argument renamed ``old`` -> ``new`` (both default to None in the signature): the new
    one, else the old one with a ``DeprecationWarning``, else ``default``; a ``ValueError`` when both are given."""
    if old_value is None:
        return default if new_value is None else new_value
    if new_value is not None:
        raise ValueError(f"{where}: give {new}= only; {old}= is its deprecated name, and both were given")
    warnings.warn(deprecation_message(old, new, where), DeprecationWarning, stacklevel=3)
    return old_value


def renamed_keywords(function: F) -> F:
    """Decorate ``function`` (whose parameters have the new names) to accept each old name of ``RENAMED`` as a
    keyword for its new one, with a ``DeprecationWarning`` naming the function; giving both is a ``ValueError``.
    Positional calls are unchanged."""
    where = function.__qualname__

    @functools.wraps(function)
    def accepting_old_names(*args: object, **kwargs: object) -> object:
        if any(old in kwargs for old in RENAMED):
            kwargs = renamed(kwargs, where, stacklevel=3)
        return function(*args, **kwargs)

    return accepting_old_names  # type: ignore[return-value]
