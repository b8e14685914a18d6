"""``python_seasons``: the game, its states and its observer, registered with pyspiel.

The game is OpenSpiel's explicit-stochastic kind whose chance nodes open the game: ``SEED_BYTES`` chance nodes
each draw one byte of the engine's seed (256 equally likely outcomes; the first is the lowest byte), and the
engine's position is then ``Game.new(players, level, seed)``. Every later die roll and shuffle comes from the
position's own chance stream, which that seed fixes, so the opening chance nodes hold all of a game's randomness
and a game is replayed exactly by its history. OpenSpiel's sampled-stochastic kind would fit the engine as well,
but pyspiel serializes such a game only through a game-level random state that a Python game cannot supply, so
``serialize_game_and_state`` and ``random_sim_test(serialize=True)`` would fail.
"""

from __future__ import annotations

import json
import numbers

import numpy as np
import pyspiel

from ..common.simulate import MAX_DECISIONS
from ..display.rendering import render_text
from ..encoders.encoding import OBSERVATION_SIZE, encode_observation, observation_views
from ..encoders.rewards import final_rewards
from ..engine import LEVELS, NUM_ACTIONS, Game, describe_action

GAME_NAME = "python_seasons"
#: The opening chance nodes, one a byte of the engine's seed: game ``k`` is ``Game.new(players, level, seed=k)``.
SEED_BYTES = 4
NUM_SEEDS = 1 << (8 * SEED_BYTES)
_BYTE_OUTCOMES = [(b, 1.0 / 256) for b in range(256)]
#: The reward schemes a game may pay (``seasons_env.rewards``). ``"score"`` is left out: OpenSpiel needs bounds
#: on the utility, and a score margin has none the rules fix.
REWARDS = ("win", "rank")
DEFAULT_PARAMETERS = {"players": 2, "level": "archmage", "reward": "win"}  # the environments' defaults

_SEQUENTIAL = pyspiel.GameType.Dynamics.SEQUENTIAL
_EXPLICIT = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
_IMPERFECT = pyspiel.GameType.Information.IMPERFECT_INFORMATION


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Seasons (Libellud, 2012), the seasons-env rules engine",
        dynamics=_SEQUENTIAL,
        chance_mode=_EXPLICIT,
        information=_IMPERFECT,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMETERS,
    )


#: Registered type: general-sum covers both reward schemes; a ``reward=rank`` game reports itself zero-sum.
GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)


def _check_parameters(params: dict) -> dict:
    unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise ValueError(f"{GAME_NAME}: unknown parameters {unknown}; it takes {sorted(DEFAULT_PARAMETERS)}")
    merged = {**DEFAULT_PARAMETERS, **params}
    players = merged["players"]
    if isinstance(players, bool) or not isinstance(players, numbers.Integral) or not 2 <= players <= 4:
        raise ValueError(f"{GAME_NAME}: players must be 2, 3 or 4; got {players!r}")
    if merged["level"] not in LEVELS:
        raise ValueError(f"{GAME_NAME}: level must be one of {', '.join(LEVELS)}; got {merged['level']!r}")
    if merged["reward"] not in REWARDS:
        raise ValueError(f"{GAME_NAME}: reward must be one of {', '.join(REWARDS)}; got {merged['reward']!r}")
    return {"players": int(players), "level": merged["level"], "reward": merged["reward"]}


class SeasonsGame(pyspiel.Game):
    """Seasons for OpenSpiel: ``pyspiel.load_game("python_seasons(players=3,level=archmage)")``.

    Parameters: ``players`` (2-4, OpenSpiel's name for the engine's ``num_players``), ``level`` (``apprentice``,
    ``magician``, ``archmage``) and ``reward`` (``win``: +1 for the winners, -1 for the others; ``rank``: +1 for
    first to -1 for last, the environments' schemes of the same names).
    """

    def __init__(self, params: dict | None = None) -> None:
        checked = _check_parameters(dict(params or {}))
        self.players = checked["players"]
        self.level = checked["level"]
        self.reward = checked["reward"]
        zero_sum = self.reward == "rank"  # places' values are symmetric about 0 and ties share their mean
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=256,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            # the opening chance nodes, then the engine's bound (reaching it is an engine bug, reported as one)
            max_game_length=SEED_BYTES + MAX_DECISIONS,
        )
        game_type = _game_type(pyspiel.GameType.Utility.ZERO_SUM) if zero_sum else GAME_TYPE
        super().__init__(game_type, info, checked)

    def new_initial_state(self) -> SeasonsState:
        """A game before its opening chance nodes (which draw the engine's seed)."""
        return SeasonsState(self)

    def new_initial_state_for_seed(self, seed: int) -> SeasonsState:
        """The state after the opening chance nodes drew ``seed``: the engine's ``Game.new(players, level, seed)``."""
        seed = _check_seed(seed)
        state = SeasonsState(self)
        for k in range(SEED_BYTES):
            state.apply_action(seed >> (8 * k) & 0xFF)
        return state

    def state_from_position(self, position: Game) -> SeasonsState:
        """A state over a copy of an engine position of this game's player count and level (its history is empty)."""
        if not isinstance(position, Game):
            raise TypeError(f"position must be a seasons_env Game; got {type(position).__name__}")
        if (position.num_players, position.level) != (self.players, self.level):
            raise ValueError(
                f"position is a {position.num_players}-player {position.level} game; this game is "
                f"{self.players}-player {self.level}"
            )
        return SeasonsState(self, position.clone())

    def deserialize_state(self, text: str) -> SeasonsState:
        """The state ``SeasonsState.serialize`` wrote: the engine's position format (``docs/state_format.md``)."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{GAME_NAME}: a serialized state is JSON; {error}") from None
        except RecursionError:  # json's decoder recurses once a nesting level
            raise ValueError(
                f"{GAME_NAME}: a serialized state is JSON of a position; this one is nested too deeply"
            ) from None
        if not isinstance(data, dict) or not {"position"} <= set(data) <= {"position", "seed_bytes"}:
            raise ValueError(f"{GAME_NAME}: a serialized state is a JSON object with keys 'position', 'seed_bytes'")
        bytes_drawn = data.get("seed_bytes", [])
        if bytes_drawn != []:
            ok = isinstance(bytes_drawn, list) and len(bytes_drawn) < SEED_BYTES and data["position"] is None
            if not ok or not all(type(b) is int and 0 <= b < 256 for b in bytes_drawn):
                raise ValueError(
                    f"{GAME_NAME}: 'seed_bytes' lists the seed's bytes drawn before the position exists (fewer "
                    f"than {SEED_BYTES}, each 0-255), with 'position' null"
                )
        if data["position"] is None:
            state = SeasonsState(self)
            for byte in data.get("seed_bytes", []):
                state.apply_action(byte)
            return state
        return self.state_from_position(Game.from_dict(data["position"]))

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict | None = None
    ) -> SeasonsObserver | None:
        """The observer of a seat's observation (OpenSpiel's ``make_observation`` calls this). Other observation
        types (an information state, public-only or private-only observations) are not provided: None, as
        OpenSpiel's tools expect of a game without them."""
        if params:
            raise ValueError(f"{GAME_NAME}'s observer takes no parameters; got {params}")
        if not _is_default_observation(iig_obs_type):
            return None
        return SeasonsObserver()


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < NUM_SEEDS:
        raise ValueError(f"{GAME_NAME}: a game seed is an int from 0 to {NUM_SEEDS - 1}; got {seed!r}")
    return int(seed)


class SeasonsState(pyspiel.State):
    """One position: during the opening chance nodes ``position`` is None (``seed_bytes`` holds the bytes drawn),
    afterwards an engine ``Game``.

    pyspiel's ``clone`` deep-copies the instance's attributes: the engine position's ``__deepcopy__`` is its own
    fast ``clone``, and the rest are a few small immutable values.
    """

    def __init__(self, game: SeasonsGame, position: Game | None = None) -> None:
        super().__init__(game)
        self.position = position
        self.seed_bytes: tuple[int, ...] = ()
        self._reward = game.reward
        self._players = game.players
        self._level = game.level

    # ------------------------------------------------------------------ whose move

    def current_player(self) -> int:
        if self.position is None:
            return pyspiel.PlayerId.CHANCE
        if self.position.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.position.current_player

    def is_terminal(self) -> bool:
        return self.position is not None and self.position.is_over

    def _legal_actions(self, player: int) -> list[int]:
        if self.position is None or self.position.is_over or player != self.position.current_player:
            return []
        return self.position.legal_action_list()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [] if self.position is not None else list(_BYTE_OUTCOMES)

    def _apply_action(self, action: int) -> None:
        if self.position is None:
            if not 0 <= action < 256:
                raise ValueError(f"{GAME_NAME}: a chance outcome is a seed byte 0-255; got {action}")
            self.seed_bytes += (int(action),)
            if len(self.seed_bytes) == SEED_BYTES:
                seed = sum(byte << (8 * k) for k, byte in enumerate(self.seed_bytes))
                self.position = Game.new(self._players, self._level, seed=seed)
        else:
            self.position.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {len(self.seed_bytes) + 1} of {SEED_BYTES}: {action}"
        return describe_action(int(action))

    # ------------------------------------------------------------------ outcome

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._players
        return [float(r) for r in final_rewards(self.position, self._reward)]

    def rewards(self) -> list[float]:
        return self.returns()  # terminal rewards only: the one reward is the return

    # ------------------------------------------------------------------ copies and text

    def serialize(self) -> str:
        """The engine's position format as JSON (``Game.to_dict``), the whole state exactly."""
        if self.position is None:
            return json.dumps({"position": None, "seed_bytes": list(self.seed_bytes)})
        return json.dumps({"position": self.position.to_dict()})

    def __str__(self) -> str:
        """The whole position (god view: every hidden card shown), for debugging."""
        if self.position is None:
            return (
                f"Seasons - {self._players} players, {self._level} - drawing the game's seed: "
                f"{len(self.seed_bytes)} of {SEED_BYTES} bytes drawn"
            )
        return render_text(self.position)


def _is_default_observation(iig_obs_type: pyspiel.IIGObservationType | None) -> bool:
    """Whether ``iig_obs_type`` asks for the one observation the game provides: a seat's own (public information
    and that seat's private information, without perfect recall)."""
    return iig_obs_type is None or (
        not iig_obs_type.perfect_recall
        and iig_obs_type.public_info
        and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    )


class SeasonsObserver:
    """A seat's observation: ``tensor`` is the environments' observation vector (``encode_observation``) and
    ``dict`` its named slices (``observation_views``); ``string_from`` is the seat-aware text board."""

    def __init__(self) -> None:
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = observation_views(self.tensor)

    def set_from(self, state: SeasonsState, player: int) -> None:
        if state.position is None:  # while the seed is drawn nobody knows anything
            self.tensor.fill(0.0)
        else:
            encode_observation(state.position, player, out=self.tensor)

    def string_from(self, state: SeasonsState, player: int) -> str:
        if state.position is None:
            return str(state)
        return render_text(state.position, viewer=player)


pyspiel.register_game(GAME_TYPE, SeasonsGame)
