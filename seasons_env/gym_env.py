"""Gymnasium single-agent view: one seat learns, the others are played by given policies.

``gymnasium.make("seasons_env/Seasons-v0", num_players=2, opponents=...)`` after ``import seasons_env``.

- Observation: the flat float32 vector of ``seasons_env.encoding`` for the learning seat.
- Action: ``Discrete(314)``; ``action_masks()`` gives the legal ones (sb3-contrib's MaskablePPO reads it) and
  ``info["action_mask"]`` carries the same mask.
- Opponents: ``None`` or ``"random"`` (uniform over legal actions, from the environment's generator), one
  policy for every other seat, or a list with one per other seat. A policy is an agent of the ``agents``
  package (anything with ``act(view, seat, legal)``: it gets a view determinized for its seat), or any
  callable taking the PettingZoo-style observation dict ``{"observation", "action_mask"}`` of its seat and
  returning an action.
- Reward at the end only (``"win"``, ``"score"`` or ``"rank"``, see ``pettingzoo_env``). An illegal action
  ends the episode with reward -1 (``illegal="penalize"``, the default here, so that unmasked algorithms
  and ``check_env`` can run), or raises ``IllegalActionError`` with ``illegal="raise"``.
- Render modes: ``"rgb_array"`` (the board picture of ``seasons_env.picture`` as the learning seat sees it:
  what ``RecordVideo`` and SB3's ``make_vec_env`` use), ``"ansi"`` (the text board from the learning seat) and
  ``"human"`` (the picture in a matplotlib window where a display and an interactive backend exist, the text
  board on standard output otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .encoding import OBSERVATION_SIZE, action_mask, encode_observation
from .engine.actions import NUM_ACTIONS
from .engine.game import LEVELS, Game, IllegalActionError, check_choice, check_num_players
from .pettingzoo_env import ILLEGAL, REWARDS, final_rewards
from .picture import PictureWindow, display_available, render_rgb
from .rendering import render_text

Policy = Callable[[dict], int]


class SeasonsGymEnv(gym.Env):
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        num_players: int = 2,
        level: str = "archmage",
        opponents: str | Policy | Sequence[Policy] | None = None,
        agent_seat: int | str = 0,
        reward: str = "win",
        illegal: str = "penalize",
        render_mode: str | None = None,
    ) -> None:
        self.num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        check_choice("reward", reward, REWARDS)
        check_choice("illegal", illegal, ILLEGAL)
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        if agent_seat != "random" and (
            isinstance(agent_seat, bool) or not isinstance(agent_seat, int) or not 0 <= agent_seat < num_players
        ):
            raise ValueError(f"agent_seat must be a seat 0..{num_players - 1} or 'random'; got {agent_seat!r}")
        self.level = level
        self.reward = reward
        self.illegal = illegal
        self.render_mode = render_mode
        self._window: PictureWindow | None = None  # the human mode's window, opened at the first render
        self.agent_seat_option = agent_seat
        self.opponents = self._opponent_policies(opponents)
        self.observation_space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.seat = 0 if agent_seat == "random" else agent_seat

    def _opponent_policies(self, opponents) -> list[Policy | None]:
        count = self.num_players - 1
        if opponents is None or opponents == "random":
            return [None] * count
        if callable(opponents) or hasattr(opponents, "act"):
            return [opponents] * count
        policies = list(opponents)
        if len(policies) != count:
            raise ValueError(f"opponents must list {count} policies (one per other seat); got {len(policies)}")
        for k, policy in enumerate(policies):
            if policy != "random" and policy is not None and not (callable(policy) or hasattr(policy, "act")):
                raise ValueError(f"opponents[{k}] must be a callable policy or 'random'; got {policy!r}")
        return [None if p == "random" else p for p in policies]

    # -- gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if self.agent_seat_option == "random":
            self.seat = int(self.np_random.integers(self.num_players))
        self.game = Game.new(self.num_players, self.level, seed=int(self.np_random.integers(2**63 - 1)))
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        game = self.game
        if game is None or game.is_over:
            raise RuntimeError("step() called on a finished episode; call reset()")
        try:
            game.apply(action)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self._play_opponents()
        if game.is_over:
            reward = final_rewards(game, self.reward)[self.seat]
            info = self._info()
            info.update(scores=game.scores(), winners=game.winners())
            return self._observation(), float(reward), True, False, info
        if self.render_mode == "human":
            self.render()
        return self._observation(), 0.0, False, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (for sb3-contrib's MaskablePPO)."""
        return action_mask(self.game, self.seat).astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The position as the learning seat sees it, in the ``render_mode`` given at construction."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array', 'ansi' or 'human'.")
            return None
        if self.game is None:
            raise RuntimeError("render() called before reset()")
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, seat=self.seat)
        if self.render_mode == "ansi":
            return render_text(self.game, viewer=self.seat)
        if self._window is None and display_available():
            self._window = PictureWindow("Seasons")
        if self._window is not None:
            self._window.show(render_rgb(self.game, seat=self.seat))
        else:
            print(render_text(self.game, viewer=self.seat))
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
        super().close()

    # -- internals

    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            policy = self.opponents[(seat - self.seat - 1) % self.num_players]
            if policy is None:
                legal = game.legal_action_list()
                action = legal[int(self.np_random.integers(len(legal)))]
            elif hasattr(policy, "act"):  # an agent of the ``agents`` package: it reads a determinized view
                view = game.determinize(seat, self.np_random)
                action = policy.act(view, seat, list(game.legal_action_list()))
            else:
                action = policy({"observation": encode_observation(game, seat), "action_mask": action_mask(game, seat)})
            game.apply(action)

    def _observation(self) -> np.ndarray:
        return encode_observation(self.game, self.seat)

    def _info(self) -> dict:
        return {"action_mask": action_mask(self.game, self.seat), "seat": self.seat}
