"""``SeasonsVectorEnv``: a Gymnasium ``VectorEnv`` over a ``VectorGame``, N games in one object.

    envs = gymnasium.make_vec("seasons_env/Seasons-v1", num_envs=64, vectorization_mode="vector_entry_point")

No sub-environment objects and no per-env wrappers: the observations ``[N, OBSERVATION_SIZE]`` and masks
``[N, NUM_ACTIONS]`` come from the batch's arrays.

- The learner plays ``agent_seat`` (a seat, or ``"random"``: drawn per game and episode from the seed) and the
  other seats are played inside the environment by ``opponents`` (``seasons_env.vector.policies``: random by
  default, a registered agent name such as ``"heuristic"``, an SB3 model, or any callable taking
  ``(observations [k, OBS], masks [k, A])`` and returning ``[k]`` actions, called once for all games waiting on
  it); or with ``self_play=True`` the learner plays every seat, and ``infos["seat"]`` names the seat each
  observation belongs to (the seat to act).
- Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``: the step after an episode ends
  restarts that game (its action is ignored, reward 0, not terminated). ``reset(options={"reset_mask": m})``
  restarts only the games where ``m`` is True.
- Reward at the end of a game (``"win"``, ``"score"`` or ``"rank"``); in self-play it is the reward of the seat
  that played the last action, and ``infos["final_rewards"]`` (``[N, P]``, masked by ``"_final_rewards"``) gives
  every seat's. An illegal action ends that game's episode with reward -1 (``illegal="lose"``, the default,
  so that ``action_space.sample()`` works) or raises ``IllegalActionError`` and changes nothing (``"raise"``).
- ``action_masks()`` → bool ``[N, NUM_ACTIONS]`` (also ``infos["action_mask"]``); a game waiting for its
  autoreset allows every action (it is ignored), so that a masked policy never sees an empty mask.
- ``threads=N`` steps the games on N threads at once (``VectorGame``, kernels engine): the same games whatever N.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..encoders.encoding import OBSERVATION_HIGH, OBSERVATION_LOW
from ..encoders.env_inputs import reset_options
from ..engine.actions import NUM_ACTIONS
from .backends import DEFAULT_ENGINE
from .core import check_batch_mask
from .driver import LearnerBatch, LearnerStep

RESET_OPTIONS = ("reset_mask",)


class SeasonsVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv`` of ``num_envs`` games: the learner's seat in each, opponents answered inside in one
    batched call per opponent, next-step autoreset, ``action_masks()`` of shape ``[N, NUM_ACTIONS]``."""

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 2,
        level: str = "archmage",
        opponents: object = None,
        agent_seat: int | str = 0,
        self_play: bool = False,
        reward: str = "win",
        illegal: str = "lose",
        render_mode: None = None,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector environment; got {render_mode!r}")
        self.learner = LearnerBatch(
            num_envs,
            num_players,
            level,
            opponents,
            agent_seat,
            self_play,
            reward,
            illegal,
            seed=0,
            engine=engine,
            threads=threads,
        )
        self.num_envs = self.learner.num_envs
        self.num_players = self.learner.num_players
        self.render_mode = None
        self.single_observation_space = spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False

    @property
    def batch(self):
        """The ``VectorGame`` underneath (``batch.game(i)`` is environment i's position)."""
        return self.learner.batch

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """All games from a new seed (``seed``, or drawn on the first reset), or their next episodes; with
        ``options={"reset_mask": m}`` (bool ``[N]``) only the games where ``m`` is True restart."""
        mask = self._reset_mask(options)
        super().reset(seed=seed)
        if seed is not None or not self._started:
            if mask is not None and not mask.all():
                raise ValueError("options['reset_mask']: the first reset, and a reset with a seed, restart every game")
            self.learner.reseed(int(self.np_random.integers(2**63 - 1)) if seed is None else seed)
            self._autoreset[:] = False
        else:
            mask = np.ones(self.num_envs, dtype=np.bool_) if mask is None else mask
            self.learner.restart(mask)
            self._autoreset[mask] = False
        self._started = True
        return self.learner.observations(), self._infos(None)

    def _reset_mask(self, options: object) -> np.ndarray | None:
        options = reset_options(options, RESET_OPTIONS)
        if "reset_mask" not in options:
            return None
        return check_batch_mask(options["reset_mask"], self.num_envs, "options['reset_mask']")

    def step(self, actions: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per environment (``[N]`` integers); games that ended on the previous step restart instead."""
        if not self._started:
            raise RuntimeError("step() called before reset(); call reset() first")
        restart = self._autoreset.copy()
        if restart.any():
            self.learner.restart(restart)
        result = self.learner.step(actions, active=~restart)
        self._autoreset = result.ended.copy()
        rewards = result.rewards.astype(np.float64)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return result.observations, rewards, result.ended.copy(), truncated, self._infos(result)

    def action_masks(self) -> np.ndarray:
        """bool ``[N, NUM_ACTIONS]``: the learner's legal actions (all True in a game waiting for its autoreset)."""
        masks = self.learner.action_masks()
        masks[self._autoreset] = True
        return masks

    def _infos(self, result: LearnerStep | None) -> dict[str, Any]:
        everywhere = np.ones(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {
            "seat": self.learner.seat.copy(),
            "_seat": everywhere,
            "action_mask": self.action_masks(),
            "_action_mask": everywhere.copy(),
        }
        if result is not None and result.ended.any():
            ended = result.ended
            infos.update(
                final_rewards=result.final_rewards,
                _final_rewards=ended.copy(),
                final_scores=result.final_scores,
                _final_scores=ended.copy(),
                illegal_action=result.illegal,
                _illegal_action=ended.copy(),
            )
        return infos


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> SeasonsVectorEnv:
    """The vector entry point ``gymnasium.make_vec`` calls (it passes ``max_episode_steps`` when the spec sets
    one; this environment has no step limit, so only None is accepted)."""
    limit = kwargs.pop("max_episode_steps", None)
    if limit is not None:
        raise ValueError(f"max_episode_steps is not supported by the vector environment; got {limit!r}")
    return SeasonsVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["SeasonsVectorEnv", "make_vector_env"]
