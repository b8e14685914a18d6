"""seasons-env: the rules engine and reinforcement-learning environments for the board game Seasons.

The engine (``Game``) needs only numpy. The environments need the ``rl`` extra (``pip install seasons-env[rl]``);
importing this package registers them under one id, ``"seasons_env/Seasons-v1"`` (``ENV_ID``: its version,
``ENV_VERSION``, goes up whenever the rules, the observation or the actions change; an older id is refused by both
registries with an error naming the current one):

- PettingZoo AEC: ``seasons_env.env(**kwargs)`` (or ``raw_env`` without PettingZoo's order-enforcing wrapper),
  or through PettingZoo's registry (PettingZoo 1.27 and later):
  ``pettingzoo.make("aec", "seasons_env/Seasons-v1", **kwargs)``, the same environment as ``env()``.
- Gymnasium single-agent: ``gymnasium.make("seasons_env/Seasons-v1", **kwargs)``; N games in one batched
  environment: ``gymnasium.make_vec("seasons_env/Seasons-v1", num_envs=N, vectorization_mode="vector_entry_point")``
  (``seasons_env.vector``).

Where things live (``docs/engine.md`` maps every module, and which places to edit for a change). The folders are the
layers, each importing only the ones before it:

- ``engine``: the reference rules engine (``Game``), pure Python and numpy; ``engine.actions`` the action table.
- ``common`` (the version, ``registry`` of agents and commands, ``statistics``, ``deprecation``, ``interrupts``,
  ``simulate``), ``encoders`` (``encoding``: the observation and the action mask; ``rewards``; ``env_inputs``),
  ``storage`` (``records``, ``files``) and ``display`` (``rendering``, ``picture``).
- ``vector``: many games stepped together as arrays (``VectorGame``) and its Gymnasium, Stable-Baselines3 and loop
  adapters; ``vector.state`` the array state below ``vector.kernels``, the rules compiled with numba, whose public
  API is ``vector.kernels.api``; ``vector.single``: one game on them.
- ``adapters`` (``pettingzoo_env``, ``gym_env``, ``rllib`` with ``masked_mlp``, ``replay``) and ``openspiel``.
- ``commands``: ``cli`` (the ``seasons`` command), ``info``, ``compiling``, ``docgen``.

This top level holds the public entry points: the names below, and modules that are the public paths of the modules
above (``seasons_env.encoding``, ``seasons_env.gym_env``, ``seasons_env.registry``, ...: each the same module object).

The agents and the arena install as ``seasons_agents``, training as ``seasons_training``; this package never imports
them and finds them through ``registry``, filled from entry points.
"""

from __future__ import annotations

import importlib.util

from .common.version import __version__
from .engine import LEVELS, Game, IllegalActionError
from .engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS, describe_action

#: The environments' version, in their id: raised whenever the rules (a golden playthrough changes), the observation
#: (``OBSERVATION_VERSION``), the actions (``ACTION_TABLE_VERSION``) or the position format (``STATE_VERSION``)
#: change, so that results and models made on one version are not mixed with another's. Version 1: state format 3,
#: observation 2, action table 1 (version 0: the id of the releases before).
ENV_VERSION = 1
#: The id both registries know the environments by (``gymnasium.make``, ``pettingzoo.make("aec", ...)``).
ENV_ID = f"seasons_env/Seasons-v{ENV_VERSION}"
GYM_ENV_ID = ENV_ID
PETTINGZOO_ENV_ID = ENV_ID

if importlib.util.find_spec("gymnasium") is not None:
    import gymnasium

    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ENV_ID,
            entry_point="seasons_env.adapters.gym_env:SeasonsGymEnv",
            # gymnasium.make_vec(GYM_ENV_ID, num_envs=N, vectorization_mode="vector_entry_point"): the batched core
            vector_entry_point="seasons_env.vector.gym_vector:make_vector_env",
        )

if importlib.util.find_spec("pettingzoo") is not None:
    import pettingzoo

    # PettingZoo has a registry (``pettingzoo.make("aec", id)``) from 1.27; older releases have only ``env()``.
    # The entry point is a string, so that this import does not load the environment module.
    if hasattr(pettingzoo, "aec_registry") and PETTINGZOO_ENV_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", PETTINGZOO_ENV_ID, entry_point="seasons_env.adapters.pettingzoo_env:env")


def __getattr__(name: str):
    # The PettingZoo adapters import pettingzoo; load them only when asked for.
    if name in ("env", "raw_env"):
        from .adapters import pettingzoo_env

        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'seasons_env' has no attribute {name!r}")


__all__ = [
    "ACTION_TABLE_VERSION",
    "ENV_ID",
    "ENV_VERSION",
    "GYM_ENV_ID",
    "LEVELS",
    "NUM_ACTIONS",
    "PETTINGZOO_ENV_ID",
    "Game",
    "IllegalActionError",
    "__version__",
    "describe_action",
    "env",
    "raw_env",
]
