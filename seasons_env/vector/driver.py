"""``LearnerBatch``: the part the Gymnasium and SB3 vector adapters share.

It holds a ``VectorGame`` (``autoreset=False``: the adapters decide when a game restarts) and a learner. Either
the learner plays one seat per game (``agent_seat``: a seat, or ``"random"`` for a seat drawn per game and
episode) and the other seats are played here by batched policies, one call for all the games waiting on the
same policy; or (``self_play=True``) the learner plays every seat and the seat to act is reported with each
observation. Rewards come at the end of a game (``"win"``, ``"score"`` or ``"rank"``, as in ``pettingzoo_env``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE
from ..encoders.rewards import REWARDS
from ..engine import IllegalActionError, check_choice
from ..engine.actions import NUM_ACTIONS
from .backends import DEFAULT_ENGINE
from .core import VectorGame, check_seed
from .environment import illegal_policy
from .policies import choose_actions, make_policy


class OpponentActionError(IllegalActionError):
    """A batched opponent policy failed or answered an illegal action; the batch must be reset."""


@dataclass(frozen=True)
class LearnerStep:
    """One learner step over the batch (``[N]`` / ``[N, P]`` arrays)."""

    observations: np.ndarray  # the learner's observation; for a game that ended, its terminal observation
    rewards: np.ndarray  # float32: the learner's reward (self-play: the reward of the seat that acted)
    ended: np.ndarray  # the episode ended in this step (game over, or an illegal action under "lose")
    illegal: np.ndarray  # the learner's action was illegal ("lose": the episode ended with reward -1)
    acted: np.ndarray  # the seat whose action this step played, -1 where no action was played
    final_rewards: np.ndarray  # float32 [N, P]: every seat's reward in the games that ended (zeros elsewhere)
    final_scores: np.ndarray  # int64 [N, P]: scores of the games that ended (zeros elsewhere)


def seat_of_episode(seed: int, index: int, episode: int, num_players: int) -> int:
    """The learner's seat in episode ``episode`` of game ``index`` when ``agent_seat="random"``."""
    word = np.random.SeedSequence((seed, index, episode, 0x5EA7)).generate_state(1, np.uint32)[0]
    return int(word) % num_players


class LearnerBatch:
    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        level: str = "archmage",
        opponents: object = None,
        agent_seat: int | str = 0,
        self_play: bool = False,
        reward: str = "win",
        illegal: str = "lose",
        seed: int = 0,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> None:
        check_choice("reward", reward, REWARDS)
        illegal = illegal_policy(illegal)
        if not isinstance(self_play, bool):
            raise ValueError(f"self_play must be True or False; got {self_play!r}")
        self.batch = VectorGame(
            num_envs, num_players, level, check_seed(seed), autoreset=False, engine=engine, threads=threads
        )
        n = self.batch.num_players
        if agent_seat != "random" and (
            isinstance(agent_seat, bool) or not isinstance(agent_seat, numbers.Integral) or not 0 <= agent_seat < n
        ):
            raise ValueError(f"agent_seat must be a seat 0..{n - 1} or 'random'; got {agent_seat!r}")
        if self_play and opponents is not None:
            raise ValueError("self_play=True: the learner plays every seat, so opponents must be None")
        self.num_envs = self.batch.batch_size
        self.num_players = n
        self.self_play = self_play
        self.agent_seat = agent_seat
        self.reward = reward
        self.illegal = illegal
        self.opponents_spec = opponents
        self.seed = self.batch.seed
        self.groups = [] if self_play else self._policy_groups(opponents)
        self.seat = np.zeros(self.num_envs, dtype=np.int64)
        self.broken = False
        self._start(np.ones(self.num_envs, dtype=np.bool_))

    def _policy_groups(self, opponents: object) -> list[tuple[object, np.ndarray, str]]:
        """(policy, relative seats it plays as a bool [P - 1] array, label), one entry per distinct policy.
        Relative seat k is the (k + 1)-th seat clockwise from the learner."""
        count = self.num_players - 1
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != count:
                raise ValueError(
                    f"opponents must be one policy for every other seat, or a list of {count} (one per other seat, "
                    f"clockwise from the learner); got a list of {len(opponents)}"
                )
            groups = []
            for k, spec in enumerate(opponents):
                seats = np.zeros(count, dtype=np.bool_)
                seats[k] = True
                groups.append((make_policy(spec, self.seed + 1 + k, f"opponents[{k}]"), seats, f"opponents[{k}]"))
            return groups
        return [(make_policy(opponents, self.seed + 1, "opponents"), np.ones(count, dtype=np.bool_), "opponents")]

    # ------------------------------------------------------------------ episodes

    def reseed(self, seed: int) -> None:
        """Start over: every game from episode 0 of a batch seeded with ``seed``, the policies reseeded."""
        self.seed = check_seed(seed)
        self.batch = VectorGame(
            self.num_envs,
            self.num_players,
            self.batch.level,
            self.seed,
            autoreset=False,
            engine=self.batch.engine,
            threads=self.batch.threads,
        )
        if not self.self_play:
            self.groups = self._policy_groups(self.opponents_spec)
        self.broken = False
        self._start(np.ones(self.num_envs, dtype=np.bool_))

    def restart(self, mask: np.ndarray) -> None:
        """Start the next episode of the games in ``mask`` and play their opponents up to the learner (restarting
        every game also clears an earlier opponent failure)."""
        if mask.all():
            self.broken = False
        self.batch.reset(mask)
        self._start(mask)

    def _start(self, mask: np.ndarray) -> None:
        idx = np.flatnonzero(mask)
        if self.agent_seat == "random":
            episodes = self.batch.episode
            for i in idx.tolist():
                self.seat[i] = seat_of_episode(self.seed, i, int(episodes[i]), self.num_players)
        else:
            self.seat[idx] = self.agent_seat
        self._play_opponents(mask)
        over = self.batch.is_over & mask
        if over.any():  # cannot happen from a new game: the learner has decisions in every year
            raise RuntimeError(f"games {np.flatnonzero(over).tolist()} ended before the learner's first decision")

    # ------------------------------------------------------------------ stepping

    def step(self, actions: object, active: np.ndarray) -> LearnerStep:
        """Play ``actions`` in the ``active`` games, then their opponents until the learner decides again."""
        if self.broken:
            raise RuntimeError("an opponent policy failed during an earlier step; call reset() before stepping again")
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({n},), one action id per environment; got dtype "
                f"{actions.dtype} shape {actions.shape}"
            )
        batch = self.batch
        acting = np.where(active, batch.current_player, -1)
        legal = np.zeros(n, dtype=np.bool_)
        in_range = active & (actions >= 0) & (actions < NUM_ACTIONS)
        legal[in_range] = batch.legal_mask_of(np.flatnonzero(in_range))[
            np.arange(int(in_range.sum())), actions[in_range]
        ]
        illegal = active & ~legal
        if self.illegal == "raise":
            illegal[:] = False  # apply() below names the first illegal action and changes nothing
        moving = active & ~illegal
        # Self-play moves no opponent after the learners: the step itself writes the observations (one pass).
        written = np.empty((n, OBSERVATION_SIZE), dtype=np.float32) if self.self_play else None
        batch.apply(actions, where=moving, observations_out=written)
        self._play_opponents(moving)
        over = batch.is_over & moving
        ended = over | illegal
        if self.self_play:
            self.seat[moving & ~over] = batch.current_player[moving & ~over]
        final = np.zeros((n, self.num_players), dtype=np.float32)
        scores = np.zeros((n, self.num_players), dtype=np.int64)
        over_idx = np.flatnonzero(over)
        if over_idx.size:
            final[over_idx] = batch.final_rewards(over_idx, self.reward)
            scores[over_idx] = batch.scores()[over_idx]
        reward_seat = acting if self.self_play else self.seat
        rewards = np.zeros(n, dtype=np.float32)
        rewards[over_idx] = final[over_idx, reward_seat[over_idx]]
        rewards[illegal] = -1.0
        observations = batch.observations() if written is None else written
        if over_idx.size:
            observations[over_idx] = batch.observe(over_idx, reward_seat[over_idx])
        return LearnerStep(observations, rewards, ended, illegal, np.where(moving, acting, -1), final, scores)

    def observations(self) -> np.ndarray:
        return self.batch.observations()

    def _play_opponents(self, scope: np.ndarray) -> None:
        """Step the opponents of the games in ``scope`` until the learner decides or the game ends."""
        if self.self_play:
            self.seat[scope & ~self.batch.is_over] = self.batch.current_player[scope & ~self.batch.is_over]
            return
        batch, n = self.batch, self.num_players
        while True:
            current = batch.current_player
            waiting = scope & (current >= 0) & (current != self.seat)
            if not waiting.any():
                return
            relative = (current - self.seat - 1) % n
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for policy, seats, label in self.groups:
                games = np.flatnonzero(waiting & seats[np.minimum(relative, n - 2)])
                if games.size == 0:
                    continue
                masks = batch.legal_mask_of(games)
                try:
                    actions[games] = choose_actions(policy, batch, games, current[games], masks, label)
                except Exception as error:
                    self.broken = True
                    raise OpponentActionError(f"{label} failed: {error}") from error
            try:
                batch.apply(actions, where=waiting)
            except IllegalActionError as error:
                self.broken = True
                raise OpponentActionError(f"an opponent policy chose an illegal action: {error}") from error

    def action_masks(self) -> np.ndarray:
        return self.batch.legal_mask()


__all__ = ["LearnerBatch", "LearnerStep", "OpponentActionError", "seat_of_episode"]
