"""Batched Seasons: many games stepped together, with observations and masks as ``[batch, ...]`` arrays.

``VectorGame`` (numpy, and numba for its compiled rules kernels) is the core. The adapters need the ``rl`` extra:
``SeasonsVectorEnv`` (Gymnasium ``VectorEnv``, also through ``gymnasium.make_vec("seasons_env/Seasons-v0", num_envs=N,
vectorization_mode="vector_entry_point")``), ``SeasonsVecEnv`` (Stable-Baselines3 ``VecEnv`` for MaskablePPO)
and ``BatchedSeasons`` (a PettingZoo-style batched loop for your own trainer). See ``docs/vector.md``.

Two engines sit behind it (``engine=``): ``"kernels"`` (the default), the games held as arrays and stepped by the
engine's rules compiled with numba (``kernels/``); ``"reference"``, one reference ``Game`` per slot.
"""

from __future__ import annotations

from .core import StepInfo, VectorGame, game_seed

_ADAPTERS = {
    "SeasonsVectorEnv": "gym_vector",
    "SeasonsVecEnv": "sb3_vec",
    "BatchedSeasons": "loop",
    "RandomPolicy": "policies",
    "AgentPolicy": "policies",
    "ModelPolicy": "policies",
}


def __getattr__(name: str):
    # The adapters import gymnasium / stable-baselines3; load them only when asked for.
    if name in _ADAPTERS:
        import importlib

        return getattr(importlib.import_module(f".{_ADAPTERS[name]}", __name__), name)
    raise AttributeError(f"module 'seasons_env.vector' has no attribute {name!r}")


__all__ = [
    "AgentPolicy",
    "BatchedSeasons",
    "ModelPolicy",
    "RandomPolicy",
    "SeasonsVecEnv",
    "SeasonsVectorEnv",
    "StepInfo",
    "VectorGame",
    "game_seed",
]
