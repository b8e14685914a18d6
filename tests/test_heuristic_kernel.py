"""The heuristic player's decisions compiled on the array state (``agents/heuristic_kernel.py``) are the Python
player's (``HeuristicAgent.act``), decision by decision: on a seat's determinized view of every position of games
at every level with 2, 3 and 4 players (the heuristic playing most moves, so its lookahead meets the cards it
summons), for every decision but the library split (the Python plan search)."""

from __future__ import annotations

import numpy as np
import pytest

from seasons_agents import heuristic_kernel
from seasons_agents.heuristic import HeuristicAgent
from seasons_env import LEVELS, Game
from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.vector.arrays import ArrayState, pack
from seasons_env.vector.kernels.structs import kernel_arrays

_LIBRARY = steps.kind("library_split")


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_decisions_are_the_python_player_s(num_players: int) -> None:
    scratch = kernel_arrays(ArrayState.empty(heuristic_kernel.SCRATCH_ROWS, num_players))
    scratch_legal = np.zeros((heuristic_kernel.SCRATCH_ROWS, A.NUM_ACTIONS), dtype=np.bool_)
    mismatches, kinds = [], set()
    for level in LEVELS:
        seed = 1000 * num_players + len(level)
        rng = np.random.default_rng(seed)
        game = Game.new(num_players, level, seed=seed)
        while not game.is_over:
            seat, legal = game.current_player, game.legal_action_list()
            view = game.determinize(seat, rng)
            agent_seed = int(rng.integers(1 << 30))
            want = HeuristicAgent(seed=agent_seed).act(view.clone(), seat, legal)
            randoms = HeuristicAgent(seed=agent_seed).rng.random(len(legal))  # the draws a draft pick reads
            got = heuristic_kernel.decide(
                kernel_arrays(pack([view])), 0, seat, np.array(legal), scratch, scratch_legal, randoms
            )
            kind = view.pending_task()[0]
            if kind == _LIBRARY and len(legal) > 1:
                assert got == -1
            elif got != want:
                mismatches.append(f"{level} {view!r}: python {A.describe_action(want)}, kernel {got}")
            kinds.add(steps.KINDS[kind])
            game.apply(want if rng.random() < 0.8 else legal[int(rng.integers(len(legal)))])
    assert not mismatches, f"{len(mismatches)} decisions differ:\n" + "\n".join(mismatches[:10])
    assert {"turn", "choose_die", "draft_pick", "gain_energy", "die_of_malice_window", "draw_symbol"} <= kinds
