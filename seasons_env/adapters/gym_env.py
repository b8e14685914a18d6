"""Gymnasium single-agent view: one seat learns, the others are played by given opponents.

``gymnasium.make("seasons_env/Seasons-v1", num_players=2, opponents=...)`` after ``import seasons_env``.

- Observation: the flat float32 vector of ``seasons_env.encoding`` for the learning seat.
- Action: ``Discrete(314)``; ``action_masks()`` gives the legal ones (sb3-contrib's MaskablePPO reads it) and
  ``info["action_mask"]`` carries the same mask. ``step`` takes any integral scalar: an ``int``, a numpy
  integer, or a numpy integer array of one element (what ``MaskablePPO.predict`` returns); anything else
  (a float, a string, a bool, several actions) raises ``TypeError``/``ValueError``.
- Opponents: one opponent for every other seat, or a list with one per other seat (clockwise from the
  learner). An opponent is ``None`` or ``"random"`` (uniform over the legal actions, from the environment's
  generator); an agent name of the ``agents`` package (``"heuristic"``, ``"ismcts"``, … as listed by
  ``seasons_env.registry.agent_names()``; one agent per seat); an agent (anything with ``act(view, seat, legal)``:
  it gets a view determinized for its seat); an SB3-style model (anything with ``predict``: it is called with
  the seat's observation vector, ``action_masks=`` when it accepts them, and ``deterministic=True``); or a
  callable taking the PettingZoo-style observation dict ``{"observation", "action_mask"}`` of its seat and
  returning an action. Agents that have ``reset(seed=...)`` are reseeded from the environment's generator at
  every ``reset``. An opponent that answers with anything but a legal action id raises
  ``OpponentActionError``, and the step is undone (the learner's move with it).
- ``reset(options={"state": game.to_dict()})`` starts from a given position (the learner keeps its
  ``agent_seat``); ``"state"`` is the only option.
- Reward at the end only (``"win"``, ``"score"`` or ``"rank"``, see ``pettingzoo_env``). An illegal action
  ends the episode with reward -1 (``illegal="lose"``, the default here, so that unmasked algorithms
  and ``check_env`` can run), or raises ``IllegalActionError`` with ``illegal="raise"``. After the episode
  ends, ``step`` raises until ``reset``.
- ``engine="kernels"`` steps the compiled rules kernels (one compiled call per step; 2 to 3 times the learner's
  steps per second with random opponents), ``engine="reference"`` the Python reference engine. The default,
  ``engine="auto"``, takes the kernels where they load without compiling (prebuilt in the wheel, or compiled once
  by ``seasons compile`` or any earlier kernels user: about 2 s to load in a new process) and the reference engine
  otherwise, with one logged warning; ``env.engine`` says which. Both give the same episodes for the same seed;
  ``env.game`` is the reference ``Game`` of the position (on the kernels engine a copy, made when asked).
- Render modes: ``"rgb_array"`` (the board picture of ``seasons_env.picture`` as the learning seat sees it:
  what ``RecordVideo`` and SB3's ``make_vec_env`` use), ``"ansi"`` (the text board from the learning seat) and
  ``"human"`` (the picture in a matplotlib window where a display and an interactive backend exist, the text
  board on standard output otherwise).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..common.registry import make_agent
from ..display.picture import BoardRenderer
from ..encoders.encoding import OBSERVATION_HIGH, OBSERVATION_LOW, action_mask, encode_observation
from ..encoders.env_inputs import action_id, position_from_options
from ..encoders.rewards import REWARDS, final_rewards
from ..engine import LEVELS, Game, IllegalActionError, check_choice, check_num_players
from ..engine.actions import NUM_ACTIONS, describe_action
from ..vector.environment import DEFAULT_ENGINE, check_engine, illegal_policy, start_game

if TYPE_CHECKING:
    from ..vector.single import CompiledGame


class AgentLike(Protocol):
    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int: ...


class ModelLike(Protocol):
    def predict(self, observation: np.ndarray, *args: Any, **kwargs: Any) -> tuple[Any, Any]: ...


OpponentSpec = str | AgentLike | ModelLike | Callable[[dict], int] | None

OPPONENTS_ACCEPTED = (
    "An opponent is None or 'random' (uniform over the legal actions); a registered agent name "
    "(see seasons_env.registry.agent_names()); an agent (an object with act(view, seat, legal)); an SB3-style model "
    "(an object with predict(observation, action_masks=..., deterministic=...)); or a callable taking "
    "{'observation', 'action_mask'} and returning an action id."
)


class OpponentActionError(IllegalActionError):
    """An opponent answered with something that is not a legal action id; the step was undone."""


@dataclass(frozen=True)
class Opponent:
    """How one opponent seat decides."""

    kind: str  # "random", "agent", "model" or "callable"
    policy: Any
    label: str  # where it was given, for error messages: "opponents[1] ('heuristic')"
    takes_masks: bool = False  # a model whose predict() accepts action_masks


def _agent_named(name: str, field: str) -> AgentLike:
    """A new agent by its registered spec (``seasons_env.registry``: the library never imports the agents)."""
    try:
        return make_agent(name, 0, field)  # reseeded from the environment's generator at every reset
    except ValueError as error:
        raise ValueError(f"{error}. {OPPONENTS_ACCEPTED}") from None


class SeasonsGymEnv(gym.Env):
    """One learning seat (``agent_seat``) against ``opponents`` in the other seats, as the module describes: a flat
    float32 observation, ``Discrete(314)`` actions with ``action_masks()``, a reward at the end of the game."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        num_players: int = 2,
        level: str = "archmage",
        opponents: OpponentSpec | Sequence[OpponentSpec] = None,
        agent_seat: int | str = 0,
        reward: str = "win",
        illegal: str = "lose",
        render_mode: str | None = None,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        self.engine = check_engine(engine)
        self._compiled = self.engine == "kernels"
        self.num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        check_choice("reward", reward, REWARDS)
        illegal = illegal_policy(illegal)
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        if agent_seat != "random" and (
            isinstance(agent_seat, bool) or not isinstance(agent_seat, int) or not 0 <= agent_seat < num_players
        ):
            raise ValueError(f"agent_seat must be a seat 0..{num_players - 1} or 'random'; got {agent_seat!r}")
        self.level = level
        self.reward = reward
        self.illegal = illegal
        self.render_mode = render_mode
        self._renderer = BoardRenderer(render_mode)
        self.agent_seat_option = agent_seat
        self.observation_space = spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.opponents = self._opponents(opponents)
        self._opponents_can_fail = any(opponent.kind != "random" for opponent in self.opponents)
        self._play: Game | CompiledGame | None = None  # the position stepped: a Game, or a CompiledGame (kernels)
        self.seat = 0 if agent_seat == "random" else agent_seat
        self._episode_over = True  # no episode until reset()
        self._closed = False

    def _opponents(self, opponents: object) -> list[Opponent]:
        """One ``Opponent`` per other seat, clockwise from the learner (seat + 1, seat + 2, ...)."""
        count = self.num_players - 1
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != count:
                raise ValueError(
                    f"opponents must be one opponent for every other seat, or a list of {count} (one per other seat, "
                    f"clockwise from the learner); got a list of {len(opponents)}. {OPPONENTS_ACCEPTED}"
                )
            return [self._opponent(item, f"opponents[{k}]") for k, item in enumerate(opponents)]
        if isinstance(opponents, str):  # one agent per seat, so that no two seats share an agent's state
            return [self._opponent(opponents, "opponents") for _ in range(count)]
        return [self._opponent(opponents, "opponents")] * count

    def _opponent(self, item: object, field: str) -> Opponent:
        if item is None or (isinstance(item, str) and item == "random"):
            return Opponent("random", None, f"{field} (random)")
        if isinstance(item, str):
            return Opponent("agent", _agent_named(item, field), f"{field} ({item!r})")
        if callable(getattr(item, "act", None)):
            return Opponent("agent", item, f"{field} ({item!r})")
        if callable(getattr(item, "predict", None)):
            shape = getattr(getattr(item, "observation_space", None), "shape", self.observation_space.shape)
            if shape != self.observation_space.shape:
                raise ValueError(
                    f"{field}: the model reads observations of shape {shape}; this environment gives "
                    f"{self.observation_space.shape}"
                )
            try:
                takes_masks = "action_masks" in inspect.signature(item.predict).parameters
            except (TypeError, ValueError):  # a predict without an inspectable signature: call it without masks
                takes_masks = False
            return Opponent("model", item, f"{field} ({type(item).__name__})", takes_masks)
        if callable(item):
            return Opponent("callable", item, f"{field} ({getattr(item, '__name__', repr(item))})")
        raise ValueError(f"{field} must be an opponent; got {type(item).__name__} {item!r}. {OPPONENTS_ACCEPTED}")

    @property
    def game(self) -> Game | None:
        """The reference ``Game`` of the position (with ``engine="kernels"``, a copy made when asked)."""
        if self._compiled and self._play is not None:
            return self._play.to_game()
        return self._play

    # -- gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode: a new game, or with ``options={"state": game.to_dict()}`` the given position.

        The learner's seat is ``agent_seat`` (drawn at every reset if ``"random"``), in a given position too;
        the opponents then play until the learner must decide. A position they would finish first is refused
        (``ValueError``), as are unknown option keys and positions of another player count or level.
        """
        self._check_open("reset")
        start = position_from_options(options, self.num_players, self.level)  # checked before anything changes
        self._episode_over = True  # until this reset has succeeded
        super().reset(seed=seed)
        if self.agent_seat_option == "random":
            self.seat = int(self.np_random.integers(self.num_players))
        game_seed = int(self.np_random.integers(2**63 - 1)) if start is None else 0
        self._play = start_game(self.engine, self.num_players, self.level, game_seed, start)
        for opponent in self.opponents:  # agents with their own generator restart from the environment's seed
            reset_agent = getattr(opponent.policy, "reset", None) if opponent.kind == "agent" else None
            if callable(reset_agent):
                reset_agent(seed=int(self.np_random.integers(2**63 - 1)))
        self._play_opponents()
        if self._play.is_over:
            raise ValueError(
                f"options['state']: the opponents finish this game before the learner (seat {self.seat}) decides"
            )
        self._episode_over = False
        return self._observation(), self._info()

    def step(self, action: int | np.integer | np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action`` (any integral scalar), then the opponents until the learner decides again.

        If an opponent fails (returns something that is not a legal action id, or raises), the error propagates
        and the environment is left exactly as before this step: same position, same generator.
        """
        self._check_open("step")
        if self._episode_over:
            raise RuntimeError(
                "step() called outside an episode (before reset(), after the episode ended, or after a failed "
                "reset()); call reset()"
            )
        action = action_id(action)  # a non-integral action is the caller's bug, not a move: it raises in both modes
        game = self._play
        # The built-in random opponent cannot fail; any other is checked, and the step undone if it fails.
        undo = (game.clone(), self.np_random.bit_generator.state) if self._opponents_can_fail else None
        try:
            game.apply(action)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            self._episode_over = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        if undo is None:
            self._play_opponents()
        else:
            try:
                self._play_opponents()
            except BaseException:  # no half-applied turn: the learner's move is undone with the opponents'
                self._play, self.np_random.bit_generator.state = undo
                raise
        if game.is_over:
            self._episode_over = True
            rewards = game.final_rewards(self.reward) if self._compiled else final_rewards(game, self.reward)
            reward = rewards[self.seat]
            info = self._info()
            info.update(scores=game.scores(), winners=game.winners())
            return self._observation(), float(reward), True, False, info
        if self.render_mode == "human":
            self.render()
        return self._observation(), 0.0, False, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (for sb3-contrib's MaskablePPO)."""
        if self._compiled:
            return self._play.legal_mask(self.seat).astype(bool)
        return action_mask(self._play, self.seat).astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The position as the learning seat sees it, in the ``render_mode`` given at construction."""
        return self._renderer.render(self.game, self.seat)

    def close(self) -> None:
        """Release the render window; the environment cannot be reset or stepped after this."""
        self._closed = True
        self._renderer.close()
        super().close()

    def _check_open(self, call: str) -> None:
        if self._closed:
            raise RuntimeError(f"{call}() called after close(): this environment is closed; make a new one")

    # -- internals

    def _play_opponents(self) -> None:
        game = self._play
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            opponent = self.opponents[(seat - self.seat - 1) % self.num_players]
            legal = game.legal_action_list()
            if opponent.kind == "random":
                game.apply(legal[int(self.np_random.integers(len(legal)))])
                continue
            chosen = self._ask(opponent, game, seat, legal)
            try:
                action = action_id(chosen)
            except (TypeError, ValueError) as error:
                raise OpponentActionError(
                    f"{opponent.label} playing seat {seat} returned {chosen!r}, which is not an action id: {error}"
                ) from error
            if action not in legal:
                options = ", ".join(f"{a} ({describe_action(a)})" for a in legal)
                label = describe_action(action) if 0 <= action < NUM_ACTIONS else "not in the action table"
                raise OpponentActionError(
                    f"{opponent.label} playing seat {seat} chose action {action} ({label}), which is not legal for "
                    f"decision {game.pending_decision!r}; legal: {options}"
                )
            game.apply(action)

    def _ask(self, opponent: Opponent, game: Game | CompiledGame, seat: int, legal: Sequence[int]) -> object:
        """What ``opponent`` answers for ``seat``'s decision (not yet checked)."""
        if opponent.kind == "agent":  # it reads a view determinized for its seat: nothing hidden from it leaks
            position = game.to_game() if self._compiled else game
            return opponent.policy.act(position.determinize(seat, self.np_random), seat, list(legal))
        observation = self._observe(seat)
        if opponent.kind == "model":
            if opponent.takes_masks:
                answer = opponent.policy.predict(
                    observation, action_masks=self._mask(seat).astype(bool), deterministic=True
                )
            else:
                answer = opponent.policy.predict(observation, deterministic=True)
            if not (isinstance(answer, tuple) and len(answer) == 2):
                raise OpponentActionError(
                    f"{opponent.label}: predict() must return (action, state) as SB3 models do; got {answer!r}"
                )
            return answer[0]
        return opponent.policy({"observation": observation, "action_mask": self._mask(seat)})

    def _observe(self, seat: int) -> np.ndarray:
        return self._play.observation(seat) if self._compiled else encode_observation(self._play, seat)

    def _mask(self, seat: int) -> np.ndarray:
        return self._play.legal_mask(seat) if self._compiled else action_mask(self._play, seat)

    def _observation(self) -> np.ndarray:
        return self._observe(self.seat)

    def _info(self) -> dict:
        return {"action_mask": self._mask(self.seat), "seat": self.seat}
