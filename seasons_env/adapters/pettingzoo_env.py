"""PettingZoo AEC environment for Seasons.

| | |
|---|---|
| Import | `from seasons_env import env, raw_env` |
| Registry | `pettingzoo.make("aec", "seasons_env/Seasons-v1", **kwargs)` (PettingZoo 1.27+) |
| Agents | `player_0` … `player_{n-1}` (seat order, clockwise) |
| Action space | `Discrete(314)`: the engine's fixed action table (`docs/actions.md`) |
| Observation space | `Dict(observation=Box(float32, (OBSERVATION_SIZE,)), action_mask=Box(int8, (314,)))` |
| Observation | named slices of one flat vector (`docs/observation.md`): what the agent may know |
| Rewards | `"win"`: +1 winner(s), −1 others; `"score"`: (own − best opponent score)/100; `"rank"`: +1 first … −1 last |
| Turn order | the agent that must decide (see below) |
| Engine | `engine="auto"` (default): the compiled kernels where they are compiled, else the reference engine |

The same agent stays selected for every step of a multi-step turn; an out-of-turn decision (Syllas,
Amsug, Naria, overflow, …) selects the deciding agent. Rewards arrive at the end of the game (nothing
before it). ``reset(options={"state": game.to_dict()})`` starts from a given position; ``"state"`` is the
only option (others are ignored with a warning: PettingZoo's ``api_test`` passes one). ``step`` takes any
integral scalar (an ``int``, a numpy integer, or a numpy integer array of one element); anything else (a
float, a string, a bool, several actions) raises ``TypeError``/``ValueError`` whatever ``illegal`` says. An
illegal action raises `IllegalActionError` and changes nothing (`illegal="raise"`), or ends the game with −1
for the offender and 0 for the others (`illegal="lose"`, as PettingZoo's classic environments do).

Two ways to create it, the same environment: ``seasons_env.env(num_players=3)`` and, through PettingZoo's
registry (which ``import seasons_env`` fills), ``pettingzoo.make("aec", "seasons_env/Seasons-v1",
num_players=3)``.

Engines: ``engine="kernels"`` steps the compiled rules kernels (``seasons_env.vector.single.CompiledGame``: one
compiled call per step checks the action, steps, and writes the next observation and mask), 3.6 to 5 times as fast
per step as ``engine="reference"``, the Python reference engine. The default, ``engine="auto"``, takes the kernels
where they load without compiling (prebuilt in the wheel, or compiled once by ``seasons compile`` or any earlier
kernels user; a new process loads them in about 2 s) and the reference engine otherwise, with one logged warning
naming the command that compiles them; ``env.engine`` says which. Compiling from nothing takes minutes on a
2-core machine, once per version. Both engines give the same game for the same seed: the same observations, masks,
rewards and positions. ``env.game`` is the reference ``Game`` of the position (on the kernels engine a copy, made
when asked); any other ``engine`` raises ``ValueError``.

Rendering: ``render()`` is the **god view** by default: it shows every hand, draft pack and library, and the
options of whoever decides (for watching and debugging, never for an agent's input). ``render_seat=p`` shows
only what seat ``p`` may see. Modes: ``"rgb_array"`` (the board picture of ``seasons_env.picture``), ``"ansi"``
(the text board) and ``"human"`` (the picture in a matplotlib window where a display and an interactive
backend exist, the text board on standard output otherwise).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..display.picture import BoardRenderer
from ..encoders.encoding import OBSERVATION_HIGH, OBSERVATION_LOW, action_mask, encode_observation
from ..encoders.env_inputs import action_id, position_from_options
from ..encoders.rewards import REWARDS, final_rewards
from ..engine import LEVELS, Game, IllegalActionError, check_choice, check_num_players
from ..engine.actions import NUM_ACTIONS
from ..vector.environment import DEFAULT_ENGINE, check_engine, illegal_policy, start_game

if TYPE_CHECKING:
    from ..vector.single import CompiledGame


def env(**kwargs) -> AECEnv:
    """The AEC environment inside PettingZoo's order-enforcing wrapper.

    No bounds-checking wrapper: the raw environment already rejects any action outside the table (or not
    legal now) with an ``IllegalActionError`` that names the decision and the legal options.
    """
    return SeasonsOrderEnforcingWrapper(raw_env(**kwargs))


class SeasonsOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcement, with ``last()`` asked of the wrapped environment in one call.

    The inherited ``last()`` reads five attributes through the wrapper's ``__getattr__``; the result is the
    same, only slower (it was a third of the wrapper's cost per turn).
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)


class raw_env(AECEnv, EzPickle):  # PettingZoo's naming convention
    """The AEC environment without PettingZoo's order-enforcing wrapper (``env()`` adds it): every seat an agent,
    ``player_0`` ... in seat order, the observation and mask of the module's table."""

    metadata: ClassVar[dict] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "seasons_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        num_players: int = 2,
        level: str = "archmage",
        render_mode: str | None = None,
        reward: str = "win",
        seed: int | None = None,
        illegal: str = "raise",
        render_seat: int | None = None,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        EzPickle.__init__(self, num_players, level, render_mode, reward, seed, illegal, render_seat, engine)
        super().__init__()
        self.num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        check_choice("reward", reward, REWARDS)
        illegal = illegal_policy(illegal)
        self.engine = check_engine(engine)
        self._compiled = self.engine == "kernels"
        if render_seat is not None and (
            isinstance(render_seat, bool) or not isinstance(render_seat, int) or not 0 <= render_seat < num_players
        ):
            raise ValueError(
                f"render_seat must be None (the god view) or a seat 0..{num_players - 1}; got {render_seat!r}"
            )
        self.level = level
        self.render_mode = render_mode
        self.render_seat = render_seat
        self._renderer = BoardRenderer(render_mode)
        self.reward = reward
        self.illegal = illegal
        self._seed = seed
        self.possible_agents = [f"player_{p}" for p in range(self.num_players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._play: Game | CompiledGame | None = None  # the position stepped: a Game, or a CompiledGame (kernels)
        self._np_random = np.random.default_rng(seed)

    @property
    def game(self) -> Game | None:
        """The reference ``Game`` of the position (with ``engine="kernels"``, a copy made when asked)."""
        if self._compiled and self._play is not None:
            return self._play.to_game()
        return self._play

    # -- spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- lifecycle

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # checked before anything changes; unknown keys only warn, as PettingZoo's api_test passes one
        start = position_from_options(options, self.num_players, self.level, unknown_keys="warn")
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
            game_seed = seed
        elif self._seed is not None and self._play is None:
            game_seed = self._seed
        else:
            game_seed = int(self._np_random.integers(2**63 - 1))
        self._play = start_game(self.engine, self.num_players, self.level, game_seed, start)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._play.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        if self._compiled:
            return {"observation": self._play.observation(seat), "action_mask": self._play.legal_mask(seat)}
        return {
            "observation": encode_observation(self._play, seat),
            "action_mask": action_mask(self._play, seat),
        }

    def step(self, action: int | np.integer | np.ndarray | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = action_id(action)  # a non-integral action is the caller's bug, not a move: it raises in both modes
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        game = self._play
        try:
            game.apply(action)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            for a in self.agents:
                self.rewards[a] = -1.0 if a == agent else 0.0
                self.infos[a] = {"illegal_action": a == agent}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        if game.is_over:
            rewards = game.final_rewards(self.reward).tolist() if self._compiled else final_rewards(game, self.reward)
            for a, value in zip(self.possible_agents, rewards, strict=True):
                self.rewards[a] = value
                self.infos[a] = {"scores": game.scores(), "winners": game.winners()}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The god view (every hand shown), or what ``render_seat`` may see, in the ``render_mode``."""
        return self._renderer.render(self.game, self.render_seat)

    def close(self) -> None:
        self._renderer.close()

    # -- copies and state

    def state(self) -> dict:
        """The whole position, hidden information included (``Game.to_dict``)."""
        return self.game.to_dict()

    def clone(self) -> raw_env:
        """An independent copy of the environment mid-game."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict) -> raw_env:
        other = self.__class__.__new__(self.__class__)
        for key, value in self.__dict__.items():
            if key == "_play":
                other._play = value.clone() if value is not None else None
            elif key == "_np_random":
                other._np_random = copy.deepcopy(value, memo)
            else:
                object.__setattr__(other, key, copy.deepcopy(value, memo))
        return other

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_play"] = self.game.to_dict() if self._play is not None else None
        return state

    def __setstate__(self, state: dict) -> None:
        game = state.pop("_play")
        self.__dict__.update(state)
        start = Game.from_dict(game) if game is not None else None
        self._play = start_game(self.engine, self.num_players, self.level, 0, start) if start is not None else None
