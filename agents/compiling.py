"""This package's steps of ``seasons compile``: the compiled heuristic (named by the ``seasons_env.compile`` entry
point in ``pyproject.toml``, so the library finds it without importing this package)."""

from __future__ import annotations

import numpy as np

from seasons_env.compiling import CompileStep


def _heuristic() -> None:
    """A few decisions of the compiled heuristic on a determinized view, as self-play makes them."""
    from seasons_env.vector import VectorGame

    from .heuristic import HeuristicAgent
    from .heuristic_compiled import HeuristicRows

    vector = VectorGame(1, num_players=2, seed=0, engine="kernels", autoreset=False)
    rows, agent, rng = HeuristicRows(2), HeuristicAgent(0), np.random.default_rng(0)
    for _ in range(12):
        if vector.is_over[0]:
            break
        seat = int(vector.current_player[0])
        legal = np.flatnonzero(vector.legal_mask()[0])
        vector.determinize_into(0, seat, rng, rows.view_state, 0)
        vector.apply([rows.act(agent, seat, legal)])


def compile_steps() -> list[CompileStep]:
    return [CompileStep("heuristic", "the compiled heuristic (self-play's heuristic opponents)", _heuristic)]
