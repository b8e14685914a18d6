"""New games in rows of the array state: ``Game.new``'s draws and its run to the first decision, as one kernel.

``Game.opening`` gives what every game of a player count and level starts with (the pending steps, the Apprentice
hands) and the cards to shuffle; ``RulesBatch.new_games`` writes that opening into the rows (one packed template)
and sets each row's chance key, then ``deal_rows`` makes ``Game.new``'s draws from the row's stream in the same
order (the season dice, then one shuffle), deals, and runs the row to its first decision.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine.data import DICE_PER_SEASON, SEASONS

from . import kernel
from .machine import run
from .state_ops import num_players, permutation, sample
from .tables import STEP_WIDTH

_SEASONS = len(SEASONS)


@kernel
def deal_rows(s, rows, pile, dealt, legal, status):
    """``deal_row`` for each row of ``rows`` (holding the opening and its chance key); ``status[row]`` as
    ``machine.run`` returns it."""
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        status[i] = deal_row(s, i, pile, dealt, task, out, legal)


@kernel
def deal_row(s, i, pile, dealt, task, out, legal):
    """For row ``i`` (holding the opening and its chance key): draw the dice of each season, shuffle ``pile`` (card
    ids), deal ``dealt`` cards to each seat's draft pack and the rest to the draw pile, then run the row to its first
    decision; returns ``machine.run``'s status."""
    n = num_players(s)
    size = pile.shape[0]
    for season in range(_SEASONS):
        chosen = sample(s, i, DICE_PER_SEASON, n + 1)
        for j in range(n + 1):
            s.game_dice[i, season, j] = chosen[j]
    order = permutation(s, i, size)
    at = 0
    for p in range(n):
        for _ in range(dealt):
            s.draft_pack[i, p, pile[order[at]]] += 1
            at += 1
    for j in range(at, size):
        s.draw_pile[i, j - at] = pile[order[j]]
    s.draw_count[i] = size - at
    return run(s, i, task, out, legal)
