"""The run loop of ``Game`` (``engine/machine.py``) over the rows of an array state, and the dispatch of each step
kind to the kernel module that implements it.

``run(s, i, ...)`` runs row ``i`` as ``Game._run`` does: before every step the reserve limit is checked if tokens
came in; an automatic step is popped and run; a decision is asked (the loop stops, its legal actions written into
the row of ``legal``) if it has two or more options, or one option when its options may hang on hidden cards;
a decision with one option is resolved by itself, one with none skipped. ``apply_rows`` resolves the chosen
actions then runs each row on.

Every step kind has its kernels: each kind is dispatched to the kernel module that ports the engine module
registering it (``OWNER``), whose ``KINDS_HANDLED`` lists them.

``run`` and ``apply_row`` are kernels of their own, compiled once: the kernels that deal or step games
(``run_rows``, ``apply_rows``, ``single_step.step_row``, ``batch_step.step_block``, ``new_game.deal_row``) call their
symbols (``kernels/__init__.py``, "Compile time") where each had the loop, and the whole rules' dispatch with it,
copied into it and compiled again. The dispatch of each step kind (``_run_step``, ``_options``, ``_private``,
``_resolve``) is ``inline_kernel``, copied into the loop.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps

from . import cards_archmage_kernels, cards_basic_kernels, flow_kernels, inline_kernel, kernel, payment_kernels
from .state_ops import pop, push_overflows
from .tables import HAS_PRIVATE, IS_DECISION, NUM_KINDS, STEP_WIDTH

#: What ``run`` stopped at.
STOPPED = 0  # a decision with its legal actions written
OVER = 1  # the game ended

_FLOW, _PAYMENT, _BASIC, _ARCHMAGE = range(4)
_SOURCE = {"flow": _FLOW, "payment": _PAYMENT, "cards_basic": _BASIC, "cards_archmage": _ARCHMAGE}


def _owner_of_kinds() -> np.ndarray:
    """``OWNER[kind]``: the kernel module of each kind, by the engine module that registers it."""
    owner = np.full(NUM_KINDS, -1, dtype=np.int64)
    for k in range(NUM_KINDS):
        run = steps.spec(k).run or steps.spec(k).resolve
        owner[k] = _SOURCE[run.__module__.rsplit(".", 1)[1]]
    return owner


OWNER = _owner_of_kinds()


@inline_kernel
def _run_step(s, i, kind, task):
    owner = OWNER[kind]
    if owner == _FLOW:
        flow_kernels.run_step(s, i, kind, task)
    elif owner == _PAYMENT:
        payment_kernels.run_step(s, i, kind, task)
    elif owner == _BASIC:
        cards_basic_kernels.run_step(s, i, kind, task)
    else:
        cards_archmage_kernels.run_step(s, i, kind, task)


@inline_kernel
def _options(s, i, kind, task, out):
    owner = OWNER[kind]
    if owner == _FLOW:
        return flow_kernels.options(s, i, kind, task, out)
    if owner == _PAYMENT:
        return payment_kernels.options(s, i, kind, task, out)
    if owner == _BASIC:
        return cards_basic_kernels.options(s, i, kind, task, out)
    return cards_archmage_kernels.options(s, i, kind, task, out)


@inline_kernel
def _private(s, i, kind, task):
    owner = OWNER[kind]
    if owner == _FLOW:
        return flow_kernels.private(s, i, kind, task)
    if owner == _PAYMENT:
        return payment_kernels.private(s, i, kind, task)
    if owner == _BASIC:
        return cards_basic_kernels.private(s, i, kind, task)
    return cards_archmage_kernels.private(s, i, kind, task)


@inline_kernel
def _resolve(s, i, kind, task, action):
    owner = OWNER[kind]
    if owner == _FLOW:
        flow_kernels.resolve(s, i, kind, task, action)
    elif owner == _PAYMENT:
        payment_kernels.resolve(s, i, kind, task, action)
    elif owner == _BASIC:
        cards_basic_kernels.resolve(s, i, kind, task, action)
    else:
        cards_archmage_kernels.resolve(s, i, kind, task, action)


@kernel
def run(s, i, task, out, legal):
    """Run row ``i`` to its next decision (``Game._run``); returns ``STOPPED`` or ``OVER``."""
    while s.stack_depth[i] > 0:
        if s.overflow_check[i]:
            s.overflow_check[i] = False
            push_overflows(s, i)
        top = s.stack_depth[i] - 1
        kind = np.int64(s.stack[i, top, 0])
        if not IS_DECISION[kind]:
            pop(s, i, task)
            _run_step(s, i, kind, task)
            continue
        for k in range(STEP_WIDTH):
            task[k] = s.stack[i, top, k]
        count = _options(s, i, kind, task, out)
        if count > 1 or (count == 1 and HAS_PRIVATE[kind] and _private(s, i, kind, task)):
            legal[i, :] = False
            for k in range(count):
                legal[i, out[k]] = True
            return STOPPED
        pop(s, i, task)
        if count == 1:
            _resolve(s, i, kind, task, out[0])
    legal[i, :] = False
    if not s.over[i]:
        raise ValueError("the pending steps ran out before the game ended")
    return OVER


@kernel
def run_rows(s, rows, legal, status):
    """``run`` every row of ``rows``; ``status[row]`` says where it stopped."""
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        status[i] = run(s, i, task, out, legal)


@kernel
def apply_rows(s, rows, actions, legal, status):
    """Resolve ``actions[k]`` (legal: the caller checked) in row ``rows[k]``, then run it to its next decision."""
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        status[i] = apply_row(s, i, actions[k], task, out, legal)


@kernel
def apply_row(s, i, action, task, out, legal):
    """Resolve ``action`` (legal: the caller checked) in row ``i``, then run the row to
    its next decision; returns ``run``'s status."""
    kind = np.int64(s.stack[i, s.stack_depth[i] - 1, 0])
    pop(s, i, task)
    _resolve(s, i, kind, task, action)
    return run(s, i, task, out, legal)
