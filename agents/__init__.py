"""Agents for seasons-env, installed as ``seasons_agents``: random, heuristic, information-set MCTS, a trained policy,
policy-guided ISMCTS, an RLlib network, a human at the terminal or in the browser, and the arena that rates them.

- ``base``: the ``Agent`` protocol and ``play_game``, which gives every seat only what it may know; ``registry``
  registers the agents below with ``seasons_env.registry`` (through the ``seasons_env.agents`` entry point).
- ``random_agent``; ``heuristic`` (the hand-written player; its evaluation in ``heuristic_eval``, its knowledge as
  data in ``values`` and ``heuristic_cards``); the same player compiled for the array state in
  ``heuristic_cards_kernel``, ``heuristic_eval_kernel`` and ``heuristic_kernel``, driven by ``heuristic_compiled``.
- ``ismcts``; ``learned`` (a trained policy-value network: ``network`` in torch, ``policy_numpy`` without it, the
  file format in ``policy_format``); ``policy_ismcts`` (ISMCTS guided by the network;
  compiled in ``search_kernel``, over the network's compiled forward pass in ``policy_kernel``); ``rllib_agent``.
- ``human`` (the terminal), ``web_commands``, ``web_game``, ``web_server`` and ``web_connections`` (``seasons play
  --web``).
- ``arena`` (``seasons arena``), with its settings and schedule (``arena_config``), records (``arena_records``), folder
  lock (``arena_lock``), picture (``arena_pictures``) and pages (``arena_pages``); ``commands``: the ``seasons``
  commands that need agents (through the ``seasons_env.commands`` entry point).

``docs/engine.md`` says which of these to edit when a rule or the heuristic changes.
"""

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
