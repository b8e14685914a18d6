"""``CompiledGame``: one game of Seasons on the compiled rules kernels, one compiled call per step.

The single-game counterpart of ``VectorGame`` for the environments (``engine="kernels"``) and for search: the game
is row 0 of a one-row ``ArrayState``; ``apply(action)`` checks the action, resolves it, runs the game to its next
decision and writes the next observation and legal mask in one call of ``kernels/single_step.step_row``, into
buffers allocated once. Nothing is converted to a reference ``Game`` unless asked (``to_game()``, for rendering,
positions and agents that read a ``Game``).

The same seed gives the same game as ``Game.new(num_players, level, seed=...)``, decision for decision, and every
observation equals ``encode_observation`` of that game (``tests/test_single_game.py``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE
from ..encoders.rewards import final_rewards_of
from ..engine import Game, IllegalActionError, check_num_players
from ..engine.actions import NUM_ACTIONS, describe_action
from .state.arrays import ArrayState
from .state.step_codes import STEP_WIDTH


class CompiledGame:
    """One game on the compiled kernels. Read ``current_player`` (-1 once over) and ``is_over`` as attributes;
    ``observation(seat)`` and ``legal_mask(seat)`` return fresh arrays equal to ``encode_observation`` and
    ``action_mask`` of the reference game; ``apply(action)`` plays an int action id (``IllegalActionError`` and no
    change if it is not legal)."""

    def __init__(self, num_players: int, level: str) -> None:
        from .compile_helper import start_compile_helper
        from .kernels.batch import RulesBatch  # compiles (or loads from the disk cache) the kernels on first use

        self.num_players = check_num_players(num_players)
        start_compile_helper("one-game")  # from an empty cache, a second process compiles beside this one
        self.level = level
        legal = np.zeros((1, NUM_ACTIONS), dtype=np.bool_)
        self._rules = RulesBatch(ArrayState.empty(1, self.num_players), legal)
        self._allocate()
        self.current_player = -1
        self.is_over = True

    def _allocate(self) -> None:
        from .kernels.observe_rows import observe_row
        from .kernels.single_step import step_row

        self._step_row, self._observe_row = step_row, observe_row
        self._arrays = self._rules.arrays
        self._legal = self._rules.legal
        self._mask_row = self._legal[0].view(np.int8)  # the legal row as the environments' int8 mask
        self._status = self._rules.status
        self._task = np.empty(STEP_WIDTH, dtype=np.int64)
        self._out = np.empty(NUM_ACTIONS, dtype=np.int64)
        self._obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._scratch = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._seats = np.full(2, -1, dtype=np.int64)  # the seat that last decided, the seat ``_obs`` is for

    @classmethod
    def new(cls, num_players: int, level: str, seed: int) -> CompiledGame:
        """``Game.new(num_players, level, seed=seed)``, dealt by the kernels."""
        game = cls(num_players, level)
        game.reset(seed)
        return game

    @classmethod
    def from_game(cls, game: Game) -> CompiledGame:
        """A copy of the reference position ``game`` (at a decision, or over)."""
        compiled = cls(game.num_players, game.level)
        compiled.load(game)
        return compiled

    # ------------------------------------------------------------------ starting

    def reset(self, seed: int) -> None:
        """Start ``Game.new(num_players, level, seed=seed)`` here."""
        self._rules.new_games(np.zeros(1, dtype=np.int64), self.level, [seed])
        self._seats[0] = -1
        self._refresh()

    def load(self, game: Game) -> None:
        """Continue from a copy of the reference position ``game`` (this player count; at a decision, or over)."""
        if game.num_players != self.num_players:
            raise ValueError(f"load needs a {self.num_players}-player game; got a {game.num_players}-player game")
        self.level = game.level
        self._rules.replace(np.zeros(1, dtype=np.int64), [game])
        self._seats[0] = game.current_player if not game.is_over else -1
        self._refresh()

    def _refresh(self) -> None:
        """Read the current player back, and write its observation (the last decider's once over)."""
        state = self._rules.state
        self.is_over = bool(state.over[0])
        depth = int(state.stack_depth[0])
        self.current_player = int(state.stack[0, depth - 1, 1]) if depth > 0 else -1
        seat = self.current_player if self.current_player >= 0 else int(self._seats[0])
        self._seats[1] = seat
        if seat >= 0:
            self._observe_row(self._arrays, 0, seat, self._obs)

    # ------------------------------------------------------------------ stepping

    def apply(self, action: int) -> None:
        """Play ``action`` (an int): one compiled call checks it, steps, and writes the next observation and mask."""
        if type(action) is not int:
            action = _action_int(action)
        code = self._step_row(
            self._arrays, action, self._legal, self._status, self._task, self._out, self._obs, self._seats
        )
        if code == 0:  # STOPPED: the usual case, nothing more to read than the next decider
            self.current_player = int(self._seats[1])
            return
        if code < 0:
            self._refuse(action)
        self._refresh()

    def _refuse(self, action: int) -> None:
        if self.is_over:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        legal = ", ".join(f"{a} ({describe_action(a)})" for a in self.legal_action_list())
        label = describe_action(action) if 0 <= action < NUM_ACTIONS else "not in the action table"
        raise IllegalActionError(
            f"action {action!r} ({label}) is not legal for decision {self.pending_decision!r} of player "
            f"{self.current_player}; legal: {legal}"
        )

    # ------------------------------------------------------------------ reads

    @property
    def pending_decision(self) -> str | None:
        """The kind of the decision asked (``Game.pending_decision``), None once over."""
        from ..engine import steps

        state = self._rules.state
        depth = int(state.stack_depth[0])
        return steps.KINDS[int(state.stack[0, depth - 1, 0])] if depth > 0 and not self.is_over else None

    def observation(self, seat: int) -> np.ndarray:
        """float32 ``[OBSERVATION_SIZE]``: ``encode_observation`` of this game for ``seat`` (a fresh array)."""
        if seat == self._seats[1]:
            return self._obs.copy()
        self._observe_row(self._arrays, 0, seat, self._scratch)
        return self._scratch.copy()

    def legal_mask(self, seat: int) -> np.ndarray:
        """int8 ``[NUM_ACTIONS]``: the legal actions if ``seat`` decides now, else all zero (``action_mask``)."""
        if seat == self.current_player:
            return self._mask_row.copy()
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def legal_action_list(self) -> list[int]:
        """The legal action ids, sorted (empty once over)."""
        return np.flatnonzero(self._legal[0]).tolist()

    def scores(self) -> list[int]:
        """Final scores once over; before that the score if the game ended now (``Game.scores``)."""
        if self.is_over:
            return self._rules.state.final_scores[0].tolist()
        return self._rules.scores(np.zeros(1, dtype=np.int64))[0].tolist()

    def cards_in_play(self) -> list[int]:
        """How many cards each seat has in play (the winners' tie-break)."""
        return self._rules.state.in_play_count[0].tolist()

    def winners(self) -> list[int]:
        """Winning seats (``Game.winners``: the tie-break on cards in play included); empty while the game runs."""
        if not self.is_over:
            return []
        return np.flatnonzero(self.final_rewards("win") > 0).tolist()

    def final_rewards(self, reward: str) -> np.ndarray:
        """float64 ``[P]``: every seat's end-of-game reward (``seasons_env.rewards``) of the finished game."""
        state = self._rules.state
        return final_rewards_of(state.final_scores[:1], state.in_play_count[:1], reward)[0]

    def to_game(self) -> Game:
        """The reference ``Game`` of this position, chance stream included (a copy: changing it changes nothing)."""
        return self._rules.game(0)

    # ------------------------------------------------------------------ copies

    def clone(self) -> CompiledGame:
        """An independent copy that continues exactly as this game does."""
        other = CompiledGame.__new__(CompiledGame)
        other.__setstate__(self.__getstate__())  # the state's arrays are copied, not shared
        return other

    def __getstate__(self) -> dict:
        return {
            "num_players": self.num_players,
            "level": self.level,
            "state": self._rules.state.copy(),
            "legal": self._legal.copy(),
            "seats": self._seats.copy(),
        }

    def __setstate__(self, saved: dict) -> None:
        from .kernels.batch import RulesBatch

        self.num_players, self.level = saved["num_players"], saved["level"]
        self._rules = RulesBatch(saved["state"], saved["legal"])
        self._allocate()
        self._seats[:] = saved["seats"]
        self._refresh()

    def __deepcopy__(self, memo: dict) -> CompiledGame:
        return self.clone()

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"player {self.current_player} to decide"
        return f"<CompiledGame {self.num_players}p {self.level}: {state}>"


def play_sample_games() -> None:
    """Seeded games of a ``CompiledGame`` of each player count (the 2-player one to its end, the others 40 decisions),
    their results read, a copy made: every kernel the one-game path calls, with the argument types real callers use
    (``seasons compile``'s ``one-game`` step, and the ``"auto"`` engine's check that they load without compiling)."""
    for num_players in (2, 3, 4):
        game = CompiledGame.new(num_players, "archmage", seed=0)
        rng = np.random.default_rng(0)
        decisions = 0
        while not game.is_over and (num_players == 2 or decisions < 40):
            game.observation(game.current_player)
            game.apply(int(rng.choice(game.legal_action_list())))
            decisions += 1
        game.scores()  # a kernel of its own (winners and final rewards read the arrays)
        game.clone()


def one_game_kernels_problem() -> str | None:
    """None if every kernel of the one-game path loads from the cache (or the prebuilt kernels) without compiling,
    else why not: the first kernel that would compile, or the entry that would not load. Nothing is compiled."""
    from .kernels import NotCached, load_only

    try:
        with load_only():
            play_sample_games()
    except NotCached as missing:
        return str(missing)
    return None


def _action_int(action: object) -> int:
    """``action`` as a Python int if it is an integer (a numpy integer too); ``IllegalActionError`` otherwise."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        raise IllegalActionError(f"action must be an int id from the action table, got {action!r}")
    return int(action)
