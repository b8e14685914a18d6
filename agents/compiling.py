"""This package's steps of ``seasons compile``: the compiled heuristic, the compiled ISMCTS and the compiled
policy-ISMCTS with the network's compiled forward pass (named by the ``seasons_env.compile`` entry point in
``pyproject.toml``, so the library finds them without importing this package)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from seasons_env.commands.compiling import CompileStep


def _heuristic() -> None:
    """A few decisions of the compiled heuristic on a seat's determinized view, written into its row from a reference
    game: the heuristic's kernels and the rules kernels they play on, and not the batched core's own (the rules
    step's, which another worker process compiles meanwhile)."""
    from seasons_env import Game
    from seasons_env.vector.arrays import pack_into

    from .heuristic import HeuristicAgent
    from .heuristic_compiled import HeuristicRows

    game = Game.new(2, "archmage", seed=0)
    rows, agent, rng = HeuristicRows(2), HeuristicAgent(0), np.random.default_rng(0)
    for _ in range(12):
        if game.is_over:
            break
        seat = game.current_player
        pack_into(rows.view_state, [0], [game.determinize(seat, rng)])
        game.apply(rows.act(agent, seat, game.legal_action_list()))


def _policy_search() -> None:
    """A search of a few iterations with the shipped model (the compiled forward pass and search, as policy-ismcts
    and expert iteration call them), and the forward pass on its own."""
    from seasons_env import Game

    from .learned import SEARCH_MODEL, shipped_model_path
    from .policy_ismcts import PolicyISMCTSAgent, compiled_search

    game = Game.new(2, "archmage", seed=0)
    agent = PolicyISMCTSAgent(seed=0, iterations=4, engine="kernels")
    seat = game.current_player
    agent.act(game.determinize(seat, np.random.default_rng(0)), seat, game.legal_action_list())
    policy = compiled_search(shipped_model_path(SEARCH_MODEL)).policy
    observations = np.zeros((1, policy.observation_size), dtype=np.float32)
    policy.forward(observations)
    policy.probabilities(observations, np.ones((1, policy.num_actions), dtype=bool))


def _ismcts_search() -> None:
    """A search of a few iterations by the compiled ISMCTS (the arena's ``ismcts``), at 2 and 4 players."""
    from seasons_env import Game

    from .ismcts import ISMCTSAgent

    for num_players in (2, 4):
        game = Game.new(num_players, "archmage", seed=0)
        agent = ISMCTSAgent(seed=0, iterations=4, search_prelude=True, engine="kernels")
        seat = game.current_player
        agent.act(game.determinize(seat, np.random.default_rng(0)), seat, game.legal_action_list())


def _folders(label: str) -> Callable[[], list[Path]]:
    """The cache folders of the kernel group ``label`` (``kernel_cache.group_folders``), when asked."""

    def folders() -> list[Path]:
        from .kernel_cache import group_folders

        return group_folders(label)

    return folders


def compile_steps() -> list[CompileStep]:
    return [
        CompileStep(
            "heuristic",
            "the compiled heuristic (self-play's heuristic opponents)",
            _heuristic,
            weight=25,
            folders=_folders("heuristic"),
        ),
        CompileStep(
            "ismcts-search",
            "the compiled ISMCTS (ismcts, self-play's ISMCTS opponents)",
            _ismcts_search,
            weight=12,
            folders=_folders("ismcts"),
        ),
        CompileStep(
            "policy-search",
            "the compiled policy-ISMCTS and forward pass (policy-ismcts, expert)",
            _policy_search,
            weight=13,
            folders=_folders("search"),
        ),
    ]
