"""The kernels of ``engine/flow.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements; the machine runs any other kind of this
module's engine counterpart on the reference engine (exact, slower).
"""

from __future__ import annotations

from . import kernel

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements.
KINDS_HANDLED: tuple[str, ...] = ()


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``)."""
    raise ValueError("run_step: a step kind this module does not handle")


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("options: a step kind this module does not handle")
    return 0


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    if i >= 0:  # always: the machine never calls this for an unhandled kind or card
        raise ValueError("private: a step kind this module does not handle")
    return False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    raise ValueError("resolve: a step kind this module does not handle")
