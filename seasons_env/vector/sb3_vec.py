"""``SeasonsVecEnv``: a Stable-Baselines3 ``VecEnv`` over a ``VectorGame``, for MaskablePPO.

    from sb3_contrib import MaskablePPO
    env = SeasonsVecEnv(num_envs=64, opponents="random", agent_seat="random")
    MaskablePPO("MlpPolicy", env, gamma=1.0).learn(100_000)

One object steps all N games (on the batched core's compiled kernels by default, ``engine="reference"`` for the
reference engine), on ``threads`` threads at once if asked (the same games whatever the count): no subprocesses and
no per-env objects. The learner and its opponents are set up as in
``SeasonsVectorEnv`` (``seasons_env.vector.driver``): one seat with batched opponent policies, or every seat with
``self_play=True`` (``infos[i]["seat"]`` names the seat to act). As SB3 expects, a game that ends restarts in the
same step: ``infos[i]["terminal_observation"]`` holds the learner's last observation of it,
``infos[i]["final_rewards"]`` / ``["final_scores"]`` every seat's result, and the returned observation is the new
game's. ``action_masks()`` → bool ``[N, NUM_ACTIONS]`` (what MaskablePPO reads through
``env_method("action_masks")``). An illegal action raises ``IllegalActionError`` by default (``illegal="raise"``:
with masks it is a bug) or ends the episode with reward -1 (``"lose"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ..encoders.encoding import OBSERVATION_HIGH, OBSERVATION_LOW
from ..engine.actions import NUM_ACTIONS
from .backends import DEFAULT_ENGINE
from .driver import LearnerBatch


class SeasonsVecEnv(VecEnv):
    """A Stable-Baselines3 ``VecEnv`` of ``num_envs`` games for MaskablePPO, as the module describes: the learner's
    seat in each game (or every seat with ``self_play=True``), opponents answered inside, ``action_masks()``."""

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 2,
        level: str = "archmage",
        opponents: object = None,
        agent_seat: int | str = 0,
        self_play: bool = False,
        reward: str = "win",
        illegal: str = "raise",
        seed: int = 0,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> None:
        self.learner = LearnerBatch(
            num_envs, num_players, level, opponents, agent_seat, self_play, reward, illegal, seed, engine, threads
        )
        self.render_mode = None
        self._actions: np.ndarray | None = None
        self._started = False
        super().__init__(
            self.learner.num_envs,
            spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32),
            spaces.Discrete(NUM_ACTIONS),
        )

    @property
    def batch(self):
        """The ``VectorGame`` underneath (``batch.game(i)`` is environment i's position)."""
        return self.learner.batch

    def reset(self) -> np.ndarray:
        """Every game restarts: from the seed given to ``seed()`` if one was (then consumed); else the first reset
        starts episode 0 of the constructor's ``seed`` and later ones the next episode of every game."""
        seed = self._seeds[0]
        if seed is not None:
            self.learner.reseed(int(seed))
        elif self._started or self.learner.broken:
            self.learner.restart(np.ones(self.num_envs, dtype=np.bool_))
        self._started = True
        self._reset_seeds()
        self.reset_infos = [{"seat": int(seat)} for seat in self.learner.seat]
        return self.learner.observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async(actions)")
        actions, self._actions = self._actions, None
        if actions.ndim == 2 and actions.shape[1] == 1:  # SB3 may hand Discrete actions as [N, 1]
            actions = actions[:, 0]
        result = self.learner.step(actions, active=np.ones(self.num_envs, dtype=np.bool_))
        observations = result.observations
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(result.ended)
        for i in ended.tolist():
            infos[i] = {
                "terminal_observation": observations[i].copy(),
                "TimeLimit.truncated": False,
                "final_rewards": result.final_rewards[i].copy(),
                "final_scores": result.final_scores[i].copy(),
                "illegal_action": bool(result.illegal[i]),
            }
        if ended.size:
            self.learner.restart(result.ended)
            observations[ended] = self.learner.observations()[ended]
        for i, seat in enumerate(self.learner.seat.tolist()):
            infos[i]["seat"] = seat
        return observations, result.rewards.copy(), result.ended.copy(), infos

    def action_masks(self) -> np.ndarray:
        """bool ``[N, NUM_ACTIONS]``: each game's legal actions for the learner."""
        return self.learner.action_masks()

    def close(self) -> None:
        return None

    # -- the per-env access SB3 uses; all envs are one object, so each index answers from the batch

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if self._indices(indices) != list(range(self.num_envs)):
            raise ValueError(f"set_attr({attr_name!r}): the batched environment sets attributes for all envs at once")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list:
        chosen = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        raise AttributeError(f"SeasonsVecEnv has no per-env method {method_name!r} (it offers 'action_masks')")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The seed the next ``reset()`` starts every game from (one batch seed; each game's own seed derives from
        it and the game's index, ``seasons_env.vector.game_seed``)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        self._seeds = [seed] * self.num_envs
        return [seed + i for i in range(self.num_envs)]
