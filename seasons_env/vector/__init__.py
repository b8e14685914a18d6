"""Batched Seasons: many games stepped together, with observations and masks as ``[batch, ...]`` arrays.

``VectorGame`` (numpy, and numba for its compiled rules kernels) is the core. The adapters need the ``rl`` extra:
``SeasonsVectorEnv`` (Gymnasium ``VectorEnv``, also through ``gymnasium.make_vec("seasons_env/Seasons-v1", num_envs=N,
vectorization_mode="vector_entry_point")``), ``SeasonsVecEnv`` (Stable-Baselines3 ``VecEnv`` for MaskablePPO)
and ``BatchedSeasons`` (a PettingZoo-style batched loop for your own trainer). See ``docs/vector.md``.

Two engines sit behind it (``engine=``): ``"kernels"`` (the default), the games held as arrays and stepped by the
engine's rules compiled with numba (``kernels/``); ``"reference"``, one reference ``Game`` per slot.

Modules: ``core`` (``VectorGame``, ``StepInfo``, ``game_seed``), ``backends`` (the two engines behind it),
``arrays`` (``ArrayState``: positions as arrays, ``pack`` / ``unpack``) and ``step_codes`` (pending steps as rows of
small ints), both in ``state/`` below the kernels, ``environment`` (what the single-game environments share:
``ILLEGAL``, ``ENGINES``, ``start_game``), ``kernels`` (the compiled rules, observation writer and a seat's view;
their public API is ``kernels.api``), ``single`` (``CompiledGame``: one game on the kernels, which the environments
step with ``engine="kernels"``), ``differential`` (the checks against the reference engine; ``equivalence`` is its
deprecated old name), ``driver`` and ``policies`` (the learner's seats and the batched policies for the others),
``gym_vector``, ``sb3_vec`` and ``loop`` (the adapters).
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
