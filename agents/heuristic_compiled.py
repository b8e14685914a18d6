"""The heuristic player on the array state: ``HeuristicAgent``'s decisions for a seat's view held as an array row,
answered by the compiled kernels (``heuristic_kernel.decide``), the library split by the agent's own plan search.

``HeuristicRows(num_players)`` holds the rows one decision works on: ``view`` (row 0 of ``view_state``, where the
caller writes the seat's determinized view, e.g. ``VectorGame.determinize_into``) and the scratch rows of the
lookahead. ``rows.act(agent, seat, legal)`` is ``agent.act(view, seat, legal)`` for the ``Game`` of that row: the
same action, and the same draws from the agent's generator (a draft pick's tie-breaks), so that a heuristic seat
plays the same game either way (``tests/test_heuristic_kernel.py``, and the self-play digest of
``tests/test_heuristic_decisions.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.vector.arrays import ArrayState
from seasons_env.vector.kernels.api import column, kernel_arrays

from .heuristic import HeuristicAgent
from .heuristic_kernel import SCRATCH_ROWS, decide

_DRAFT_PICK = steps.kind("draft_pick")
_YEAR = column("library_split", "year")
_NO_DRAWS = np.zeros(0)


class HeuristicRows:
    """The array rows a compiled heuristic decision reads and plays on, for one player count."""

    def __init__(self, num_players: int) -> None:
        from seasons_env.vector.compile_helper import start_compile_helper

        # from an empty cache, a second process compiles the rules kernels beside this one
        start_compile_helper("rules")
        self.num_players = num_players
        self.view_state = ArrayState.empty(1, num_players)
        self.view = kernel_arrays(self.view_state)
        self.scratch = kernel_arrays(ArrayState.empty(SCRATCH_ROWS, num_players))
        self.scratch_legal = np.zeros((SCRATCH_ROWS, A.NUM_ACTIONS), dtype=np.bool_)

    def act(self, agent: HeuristicAgent, seat: int, legal: Sequence[int]) -> int:
        """``agent.act`` for the view in row 0 of ``view_state`` (``legal``: the real decision's actions, ascending;
        an int64 array is used as it is)."""
        legal_array = np.asarray(legal, dtype=np.int64)
        state = self.view_state
        depth = int(state.stack_depth[0])
        kind = int(state.stack[0, depth - 1, 0])
        randoms = agent.rng.random(len(legal)) if kind == _DRAFT_PICK and len(legal) > 1 else _NO_DRAWS
        action = int(decide(self.view, 0, seat, legal_array, self.scratch, self.scratch_legal, randoms))
        if action >= 0:
            return action
        # the library split: the agent's plan, from the view's hand and library sets
        hand = tuple(int(c) for c in np.repeat(np.arange(state.hand.shape[2]), state.hand[0, seat]))
        year2, year3 = (tuple(int(c) for c in state.library[0, seat, y] if c) for y in range(2))
        year = int(state.stack[0, depth - 1, _YEAR])
        return agent.split_choice(seat, year, hand, year2, year3, self.num_players, legal)
