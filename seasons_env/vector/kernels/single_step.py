"""One game's step as one compiled call: check the action against the legal mask, resolve it, run the game to its
next decision (``machine.apply_row``) and write the next observation of the seat that decides (or, once over, of
the seat that made the last decision). ``single.CompiledGame`` calls it on row 0 of a one-row array state.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A

from . import kernel
from .machine import OVER, STOPPED, apply_row
from .observe_rows import observe_row

#: ``step_row`` refused the action (out of the table, not legal now, or the game is over); nothing changed.
ILLEGAL = -1


@kernel
def step_row(s, action, legal, status, task, out, obs, seats):
    """Play ``action`` in row 0 and write ``obs``; returns ``ILLEGAL`` (nothing changed), ``STOPPED`` or ``OVER``.
    ``seats[0]`` is set to the seat that decided, ``seats[1]`` to the seat whose observation ``obs`` holds
    (-1: none was written)."""
    if action < 0 or action >= A.NUM_ACTIONS or s.over[0] or s.stack_depth[0] == 0 or not legal[0, action]:
        return ILLEGAL
    top = s.stack_depth[0] - 1
    seats[0] = np.int64(s.stack[0, top, 1])
    seats[1] = -1
    code = apply_row(s, 0, action, task, out, legal)
    status[0] = code
    if code == STOPPED:
        seats[1] = np.int64(s.stack[0, s.stack_depth[0] - 1, 1])
        observe_row(s, 0, seats[1], obs)
    elif code == OVER:
        seats[1] = seats[0]
        observe_row(s, 0, seats[1], obs)
    return code
