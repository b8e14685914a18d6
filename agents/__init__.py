"""Agents for seasons-env: random, heuristic, information-set MCTS, a trained policy and a human at the terminal."""

from __future__ import annotations

from .base import Agent, GameRecord, SeededAgent, play_game
from .heuristic import HeuristicAgent
from .human import HumanAgent
from .ismcts import ISMCTSAgent
from .learned import PolicyAgent
from .random_agent import RandomAgent

__all__ = [
    "Agent",
    "GameRecord",
    "HeuristicAgent",
    "HumanAgent",
    "ISMCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "SeededAgent",
    "play_game",
]
