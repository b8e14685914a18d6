"""``BatchedSeasons``: a PettingZoo-style loop over B games, everything ``[B, ...]``, for your own trainer.

    env = BatchedSeasons(batch_size=256, num_players=3, seed=0)
    step = env.reset()
    while training:
        actions = my_policy(step.observations, step.masks, step.current_player)  # [B]
        step = env.step(actions)
        # step.rewards [B, P] (every seat's reward, non-zero when its game ended), step.terminations [B]

Every game is always waiting on one seat (``current_player``), as in PettingZoo's AEC loop, and every seat is
yours: there are no opponents inside. A game that ends reports ``terminations[i]`` and every seat's reward once;
the next ``step`` restarts it (its action is ignored) and ``restarted[i]`` says so: the same next-step
autoreset as ``VectorGame(autoreset=True)``, which this wraps (``threads=N``: its games stepped on N threads, the same
games whatever N).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE
from ..encoders.rewards import REWARDS
from ..engine import check_choice
from ..engine.actions import NUM_ACTIONS
from .backends import DEFAULT_ENGINE
from .core import VectorGame


@dataclass(frozen=True)
class BatchedStep:
    """The batch after a ``reset`` or ``step`` (``B`` games, ``P`` seats)."""

    observations: np.ndarray  # float32 [B, OBSERVATION_SIZE], for current_player (finished: the last to act)
    masks: np.ndarray  # bool [B, NUM_ACTIONS], the current player's legal actions (all False when finished)
    current_player: np.ndarray  # int64 [B], -1 for a finished game
    rewards: np.ndarray  # float32 [B, P]: every seat's reward, non-zero only in the step its game ended
    terminations: np.ndarray  # bool [B]: the game ended in this step
    final_scores: np.ndarray  # int64 [B, P]: scores of the games that ended in this step (zeros elsewhere)
    restarted: np.ndarray  # bool [B]: the game was restarted by this step (its action was ignored)


class BatchedSeasons:
    """B games in a PettingZoo-style loop with every seat yours: ``reset()`` and ``step(actions)`` return a
    ``BatchedStep`` of ``[B, ...]`` arrays (see the module's example)."""

    def __init__(
        self,
        batch_size: int,
        num_players: int = 2,
        level: str = "archmage",
        reward: str = "win",
        seed: int = 0,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> None:
        check_choice("reward", reward, REWARDS)
        self.reward = reward
        self.batch = VectorGame(batch_size, num_players, level, seed, autoreset=True, engine=engine, threads=threads)
        self.batch_size = self.batch.batch_size
        self.num_players = self.batch.num_players

    def reset(self, seed: int | None = None) -> BatchedStep:
        """Every game from episode 0 of ``seed`` (the constructor's if None)."""
        batch = self.batch
        self.batch = VectorGame(
            batch.batch_size,
            batch.num_players,
            batch.level,
            batch.seed if seed is None else seed,
            autoreset=True,
            engine=batch.engine,
            threads=batch.threads,
        )
        zeros = np.zeros(self.batch_size, dtype=np.bool_)
        return self._state(np.zeros((self.batch_size, self.num_players), dtype=np.float32), zeros, None, zeros)

    def step(self, actions: np.ndarray) -> BatchedStep:
        """One action per game (``[B]`` integers) for its current player; ignored for the games that ended on the
        previous step (they restart). An illegal action raises ``IllegalActionError`` and changes nothing."""
        observations = np.empty((self.batch_size, OBSERVATION_SIZE), dtype=np.float32)
        masks = np.empty((self.batch_size, NUM_ACTIONS), dtype=np.bool_)
        # one pass over the games, not three
        info = self.batch.apply(actions, observations_out=observations, masks_out=masks)
        rewards = np.zeros((self.batch_size, self.num_players), dtype=np.float32)
        finished = np.flatnonzero(info.finished)
        rewards[finished] = self.batch.final_rewards(finished, self.reward)
        return self._state(rewards, info.finished, info.final_scores, info.restarted, observations, masks)

    def _state(
        self,
        rewards: np.ndarray,
        terminations: np.ndarray,
        scores: np.ndarray | None,
        restarted: np.ndarray,
        observations: np.ndarray | None = None,
        masks: np.ndarray | None = None,
    ) -> BatchedStep:
        batch = self.batch
        if scores is None:
            scores = np.zeros((self.batch_size, self.num_players), dtype=np.int64)
        if observations is None:
            observations = batch.observations()
        if masks is None:
            masks = batch.legal_mask()
        return BatchedStep(observations, masks, batch.current_player, rewards, terminations, scores, restarted)
