"""Registers this package's agents with the library's registry (``seasons_env.registry``).

Named by the ``seasons_env.agents`` entry point in ``pyproject.toml``, so ``seasons arena --agents ...``,
``seasons play --vs ...`` and the Gymnasium env's ``opponents="..."`` find them without the library importing
this package.
"""

from __future__ import annotations

from seasons_env.registry import register_agent


def register_all() -> None:
    """Register ``random``, ``heuristic``, ``ismcts`` (each at its default settings, seeded by the caller) and
    ``rllib:PATH``."""
    from .heuristic import HeuristicAgent
    from .ismcts import ISMCTSAgent
    from .random_agent import RandomAgent

    register_agent("random", RandomAgent, summary="a uniformly random legal action")
    register_agent("heuristic", HeuristicAgent, summary="one-ply lookahead over a hand-written evaluation")
    register_agent("ismcts", ISMCTSAgent, summary="information-set MCTS over the heuristic (about 30 s a game)")
    register_agent(
        "rllib",
        _rllib_agent,
        summary="a policy exported by training/train_rllib.py (its OUT/policy folder)",
        argument="PATH",
        argument_optional=False,
    )


def _rllib_agent(seed: int | None, path: str):
    """``rllib:PATH``: torch is imported only when such an agent is made."""
    from .rllib_agent import RLlibPolicyAgent

    return RLlibPolicyAgent.load(path)
