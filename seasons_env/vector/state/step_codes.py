"""Pending steps as fixed-width rows of small ints: the step stack of the array state (``arrays.py``).

A step ``(kind, player, *args)`` becomes one row of ``STEP_WIDTH`` int8: ``[kind, player, a0, a1, ...]``. Each
kind's arguments take the columns the position format's schema gives them (``serialization.STEP_ARGS``, in the
order of ``steps.spec(kind).args``): one column for an int, four for an energy vector (``need``), ``max_len``
columns for a list of cards or seats (``cards``, ``recipients``), its unused columns -1 (never a card id or a
seat). Every column a kind does not use is -1, and so is every row above the stack's depth.

The widths and the value bounds come from the schema itself, so a new step argument either fits the layout or
fails ``tests/test_vector_arrays.py``; a value outside int8 is refused when packed, never wrapped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seasons_env.engine import serialization, steps
from seasons_env.engine.schema import Checked, Fixed, ListOf, Rule

#: Columns of a step row: kind, player, then the widest kind's arguments (``naria_give``: 3 cards and 3
#: recipients; ``payment``: a 4-type need, waivers and the type being paid).
STEP_WIDTH = 8
#: The most pending steps a position holds: 70 at the start of a 4-player draft (9 rounds of 4 picks and a
#: pass, 24 library placements, the first round's start); far fewer once play begins (at most 14 in 180 random
#: games of every level and player count). The schema's 256 is a sanity bound for positions read from files.
STACK_DEPTH = 80
#: The fill of unused columns and rows, and the end of a list argument.
NO_VALUE = -1
STEP_DTYPE = np.int8
_LOW, _HIGH = int(np.iinfo(STEP_DTYPE).min), int(np.iinfo(STEP_DTYPE).max)


@dataclass(frozen=True)
class ArgColumns:
    """Where one step argument lives in a step row: ``start`` and ``width`` columns; ``is_tuple``: a tuple value
    (an energy vector of exactly ``width`` entries, or a list of at most ``width``)."""

    name: str
    start: int
    width: int
    is_tuple: bool
    fixed: bool


def _columns_of(rule: Rule) -> tuple[int, bool, bool]:
    """``(width, is_tuple, fixed length)`` of an argument read by ``rule``."""
    while isinstance(rule, Checked):
        rule = rule.rule
    if isinstance(rule, Fixed):
        return len(rule.items), True, True
    if isinstance(rule, ListOf):
        if not isinstance(rule.max_len, int):
            raise TypeError("a list step argument needs a fixed max_len to have a fixed width")
        return rule.max_len, True, False
    return 1, False, False


def _layouts() -> tuple[tuple[ArgColumns, ...], ...]:
    out = []
    for kind in range(len(steps.KINDS)):
        spec = steps.spec(kind)
        rules = serialization.STEP_ARGS[spec.name]
        if tuple(rules) != spec.args:
            raise RuntimeError(f"step {spec.name!r}: STEP_ARGS lists {tuple(rules)}, the kind registers {spec.args}")
        columns, start = [], 2
        for name in spec.args:
            width, is_tuple, fixed = _columns_of(rules[name])
            columns.append(ArgColumns(name, start, width, is_tuple, fixed))
            start += width
        if start > STEP_WIDTH:
            raise RuntimeError(f"step {spec.name!r} needs {start} columns; STEP_WIDTH is {STEP_WIDTH}")
        out.append(tuple(columns))
    return tuple(out)


#: ``ARG_COLUMNS[kind]``: the columns of each argument of the kind, in its argument order.
ARG_COLUMNS: tuple[tuple[ArgColumns, ...], ...] = _layouts()


def encode_step(task: tuple, where: str) -> list[int]:
    """One step row for ``task``; a ``ValueError`` naming ``where`` (e.g. ``game 3: pending[0]``) if it does not
    fit (an unknown kind, a wrong number of arguments, a list longer than its columns, a value outside int8)."""
    kind = task[0]
    if not isinstance(kind, int) or not 0 <= kind < len(steps.KINDS):
        raise ValueError(f"{where}: step kind {kind!r} is not a kind id of steps.KINDS")
    columns = ARG_COLUMNS[kind]
    name = steps.KINDS[kind]
    if len(task) != 2 + len(columns):
        raise ValueError(f"{where} ({name}): has {len(task) - 2} arguments; the kind takes {len(columns)}")
    row = [NO_VALUE] * STEP_WIDTH
    row[0], row[1] = kind, task[1]
    for col, value in zip(columns, task[2:], strict=True):
        if col.is_tuple:
            if not isinstance(value, tuple) or len(value) > col.width or (col.fixed and len(value) != col.width):
                size = f"exactly {col.width}" if col.fixed else f"at most {col.width}"
                raise ValueError(f"{where} ({name}): {col.name} must be a tuple of {size} ints; got {value!r}")
            if NO_VALUE in value and not col.fixed:
                raise ValueError(f"{where} ({name}): {col.name} holds {NO_VALUE}, which marks the end of a list")
            row[col.start : col.start + len(value)] = value
        else:
            row[col.start] = value
    for k, value in enumerate(row):
        if isinstance(value, bool) or not isinstance(value, int) or not _LOW <= value <= _HIGH:
            what = "kind" if k == 0 else "player" if k == 1 else f"column {k}"
            raise ValueError(f"{where} ({name}): {what} is {value!r}, not an int in {_LOW}..{_HIGH}")
    return row


def decode_step(row: list[int]) -> tuple:
    """The step ``(kind, player, *args)`` of a step row (Python ints, tuples where the engine has tuples)."""
    kind = row[0]
    args: list[object] = []
    for col in ARG_COLUMNS[kind]:
        if not col.is_tuple:
            args.append(row[col.start])
        elif col.fixed:
            args.append(tuple(row[col.start : col.start + col.width]))
        else:
            args.append(tuple(v for v in row[col.start : col.start + col.width] if v != NO_VALUE))
    return (kind, row[1], *args)
