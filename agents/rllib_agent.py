"""A network trained with RLlib (``seasons_env.rllib``) as an arena agent.

``RLlibPolicyAgent.load(folder)`` reads the exported form (``seasons_env.masked_mlp``: ``network.json`` and
``weights.pt``, written by ``seasons_env.rllib.export_module`` and by ``training/train_rllib.py`` as
``OUT/policy``). It needs torch but not Ray, runs on CPU, and plays the most probable legal action: the
mask comes from the legal actions it is given, so it never plays an illegal one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from seasons_env import Game
from seasons_env.encoding import encode_observation
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.masked_mlp import MaskedActorCritic, greedy_action, load_network


def load_cached(folder: str | Path) -> MaskedActorCritic:
    """``load_network(folder)``, loaded once per process while its files are unchanged (arena games reuse it;
    greedy play never changes the network). ``ValueError`` names a folder that is not an exported network."""
    folder = Path(folder).expanduser().resolve()
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder (give the policy folder that training/train_rllib.py exported)")
    stamps = tuple(
        (entry.stat().st_mtime_ns, entry.stat().st_size) if entry.is_file() else None
        for entry in (folder / "network.json", folder / "weights.pt")
    )
    return _cached_network(str(folder), stamps)


@functools.lru_cache(maxsize=8)
def _cached_network(folder: str, stamps: tuple) -> MaskedActorCritic:
    return load_network(folder).eval()


class RLlibPolicyAgent:
    """Greedy play of an RLlib-trained masked network (the arena's Agent protocol)."""

    name = "rllib"

    def __init__(self, network: MaskedActorCritic, name: str = "rllib") -> None:
        if network.num_actions != NUM_ACTIONS:
            raise ValueError(f"the network has {network.num_actions} actions; the action table has {NUM_ACTIONS}")
        self.network = network.eval()
        self.name = name

    @classmethod
    def load(cls, folder: str | Path, name: str = "rllib") -> RLlibPolicyAgent:
        """The agent of the network exported to ``folder`` (``ValueError`` if it is not one, or was trained on
        another observation layout or action table)."""
        return cls(load_network(folder), name)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: greedy play has no randomness."""

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(legal)] = 1
        return greedy_action(self.network, encode_observation(view, seat), mask)

    def __repr__(self) -> str:
        return f"RLlibPolicyAgent(name={self.name!r})"
