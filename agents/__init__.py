"""Agents for seasons-env: random, heuristic, information-set MCTS and a human at the terminal."""

from __future__ import annotations

from .base import Agent, GameRecord, SeededAgent, play_game
from .human import HumanAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "GameRecord", "HumanAgent", "RandomAgent", "SeededAgent", "play_game"]
