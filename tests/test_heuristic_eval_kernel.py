"""The heuristic's evaluation compiled on the array state (``agents/heuristic_eval_kernel.py``) gives the Python
evaluation's floats to the last bit: on positions of random games at every level and on every position the
heuristic player itself evaluates while it plays (its lookahead's candidates: settled sub-decisions, turn ends,
die previews, drawn cards), for every seat, at 2, 3 and 4 players."""

from __future__ import annotations

import numpy as np
import pytest
from random_play import level_positions

import seasons_agents.heuristic as heuristic_module
from seasons_agents import RandomAgent, play_game
from seasons_agents.heuristic import HeuristicAgent
from seasons_agents.heuristic_eval import evaluate, margins
from seasons_agents.heuristic_eval_kernel import evaluate_row, margins_row
from seasons_env import Game
from seasons_env.vector.arrays import pack
from seasons_env.vector.kernels.structs import kernel_arrays


def evaluated_positions(monkeypatch: pytest.MonkeyPatch, num_players: int, seed: int) -> list[Game]:
    """Copies of every position the heuristic evaluates in one game (the heuristic in seat 0, random players in
    the others): the positions its one-ply search meets."""
    seen: list[Game] = []

    def recording(game: Game, seat: int) -> float:
        seen.append(game.clone())
        return evaluate(game, seat)

    monkeypatch.setattr(heuristic_module, "evaluate", recording)
    agents = [HeuristicAgent(), *(RandomAgent() for _ in range(num_players - 1))]
    play_game(agents, "archmage", seed=seed, agent_seed=seed)
    monkeypatch.undo()
    return seen[::3]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_evaluation_gives_the_python_evaluation_s_floats(
    monkeypatch: pytest.MonkeyPatch, num_players: int
) -> None:
    positions = level_positions(num_players, 1, 4, seed_base=61, tag=12)
    positions += evaluated_positions(monkeypatch, num_players, seed=num_players)
    state = kernel_arrays(pack(positions))
    out = np.zeros(num_players)
    mismatches = []
    for row, game in enumerate(positions):
        for seat in range(num_players):
            want, got = evaluate(game, seat), evaluate_row(state, row, seat)
            if got != want:
                mismatches.append(f"position {row} ({game!r}) seat {seat}: evaluate {want!r}, kernel {got!r}")
            margins_row(state, row, seat, out)
            if out.tolist() != margins(game, seat):
                mismatches.append(f"position {row} seat {seat}: margins {margins(game, seat)}, kernel {out.tolist()}")
    assert not mismatches, f"{len(mismatches)} of {len(positions) * num_players}:\n" + "\n".join(mismatches[:10])
    assert len(positions) > 300


def test_building_the_kernel_tables_leaves_python_floats_in_the_python_player_s_tables() -> None:
    """``values.token_values`` caches by its arguments: the kernel module once filled that cache with numpy floats,
    which changed the ``repr`` of the Python heuristic's evaluations in the same process."""
    from seasons_agents.values import token_values

    assert all(type(x) is float for x in token_values(0, 0.0)[5] + token_values(1, 3.0)[20])
