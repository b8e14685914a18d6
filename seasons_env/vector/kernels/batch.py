"""``RulesBatch``: B games held as an array state and advanced by the rules kernels (``machine.py``).

The Python side of the kernels: it checks actions against the legal masks and calls ``machine.apply_rows`` for the
whole batch at once; each row stays exactly what the reference engine would reach. With ``threads`` > 1 the kernels
run on disjoint blocks of rows at once (``row_blocks.py``); the rows end the same whatever the count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.chance import Chance, key_of_seed
from seasons_env.engine.data import HAND_SIZE, LEVELS
from seasons_env.engine.machine import Game, IllegalActionError

from ..state.arrays import FIELD_NAMES, ArrayState, pack, pack_into, unpack
from . import machine
from .new_game import deal_rows
from .row_blocks import RowBlocks
from .state_ops import scores_rows
from .structs import kernel_arrays


class RulesBatch:
    """B games of one player count, stepped by the rules kernels; each row stays equal to the reference game."""

    def __init__(self, state: ArrayState, legal: np.ndarray, threads: int = 1) -> None:
        self.state = state
        self.arrays = kernel_arrays(state)
        #: Runs the kernels over blocks of rows on ``threads`` threads.
        self.blocks = RowBlocks(state, self.arrays, threads)
        self.legal = legal
        self.status = np.zeros(state.batch_size, dtype=np.int64)
        self._openings: dict[str, tuple[ArrayState, np.ndarray, int]] = {}

    def __getstate__(self) -> dict:
        """Pickling and ``copy.deepcopy`` copy the arrays; the kernels' struct over them (numba's, which neither
        can copy) is left out and made again over the copies."""
        state = self.__dict__.copy()
        del state["arrays"], state["blocks"]
        state["threads"] = self.threads
        return state

    def __setstate__(self, state: dict) -> None:
        threads = state.pop("threads", 1)
        self.__dict__.update(state)
        self.arrays = kernel_arrays(self.state)
        self.blocks = RowBlocks(self.state, self.arrays, threads)

    @property
    def threads(self) -> int:
        return self.blocks.threads

    @classmethod
    def from_games(cls, games: Sequence[Game], threads: int = 1) -> RulesBatch:
        """A batch holding copies of positions, each run by the kernels to its next decision: a position at a
        decision (or over) stays as it is, the kernels writing its legal actions; one whose first pending steps
        have not run yet (as ``serialization.from_dict`` reads it) runs them, as ``Game.from_dict`` does."""
        games = list(games)
        batch = cls(pack(games), np.zeros((len(games), A.NUM_ACTIONS), dtype=np.bool_), threads)
        rows = np.arange(len(games), dtype=np.int64)
        machine.run_rows(batch.arrays, rows, batch.legal, batch.status)
        return batch

    @property
    def batch_size(self) -> int:
        return self.state.batch_size

    @property
    def is_over(self) -> np.ndarray:
        return self.state.over.copy()

    @property
    def current_player(self) -> np.ndarray:
        """int64 ``[B]``: the seat deciding in each game, -1 once it is over."""
        return self.current_players(np.arange(self.batch_size))

    def current_players(self, rows: np.ndarray) -> np.ndarray:
        """int64 ``[k]``: the seat deciding in row ``rows[k]``'s game, -1 once it is over."""
        depth = self.state.stack_depth[rows].astype(np.int64)
        players = self.state.stack[rows, np.maximum(depth - 1, 0), 1].astype(np.int64)
        return np.where(depth > 0, players, -1)

    def replace(self, rows: np.ndarray, games: Sequence[Game]) -> None:
        """Put copies of ``games`` (each at a decision, or over) into rows ``rows``."""
        rows = np.asarray(rows, dtype=np.int64)
        pack_into(self.state, rows.tolist(), list(games))
        self.legal[rows] = False
        for i, game in zip(rows.tolist(), games, strict=True):
            self.legal[i, game.legal_action_list()] = True
        self.status[rows] = machine.STOPPED

    def new_games(self, rows: np.ndarray, level: str, seeds: Sequence[int]) -> None:
        """Start ``Game.new(num_players, level, seed=seeds[k])`` in row ``rows[k]``, in the kernels: the rows end
        equal to those games."""
        rows = np.asarray(rows, dtype=np.int64)
        seeds = list(seeds)
        if rows.ndim != 1 or len(seeds) != rows.size:
            raise ValueError(f"new_games needs one seed per row; got {len(seeds)} seeds for rows of shape {rows.shape}")
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
        for k, seed in enumerate(seeds):
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seeds[{k}] must be a non-negative int; got {seed!r}")
        if rows.size == 0:
            return
        keys = np.array([key_of_seed(int(seed)) for seed in seeds], dtype=np.uint64)
        opening, pile, dealt = self.opening(level)
        for name in FIELD_NAMES:
            getattr(self.state, name)[rows] = getattr(opening, name)[0]
        self.state.chance_key[rows] = keys
        legal, status = self.legal, self.status
        self.blocks.run(rows.size, lambda s, lo, hi: deal_rows(s, rows[lo:hi], pile, dealt, legal, status))

    def opening(self, level: str) -> tuple[ArrayState, np.ndarray, int]:
        """``Game.opening`` of this batch's player count at ``level``, packed, its cards to shuffle and how many
        of them each seat is dealt (``new_game.deal_row``)."""
        if level not in self._openings:
            game, pile = Game.opening(self.state.num_players, level, Chance(0))
            dealt = 0 if level == "apprentice" else HAND_SIZE
            self._openings[level] = (pack([game]), np.array(pile, dtype=np.int64), dealt)
        return self._openings[level]

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """int64 ``[k, P]``: the scores of rows ``rows`` if their games ended now."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((rows.size, self.state.num_players), dtype=np.int64)
        scores_rows(self.arrays, rows, out)
        return out

    def game(self, i: int) -> Game:
        """The reference ``Game`` of row ``i`` (it continues exactly as the row does)."""
        return unpack(self.state, i)

    def apply(self, actions: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Play ``actions[k]`` in row ``rows[k]`` (every row if ``rows`` is None). Every action is checked first: an
        illegal one raises ``IllegalActionError`` naming the row, its decision and the legal actions, and no row
        changes."""
        rows = np.arange(self.batch_size) if rows is None else np.asarray(rows, dtype=np.int64)
        actions = np.asarray(actions)
        if actions.shape != rows.shape or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be an int array of shape {rows.shape}; got {actions.dtype} {actions.shape}")
        actions = actions.astype(np.int64)
        inside = (actions >= 0) & (actions < A.NUM_ACTIONS)
        legal = inside & self.legal[rows, np.clip(actions, 0, A.NUM_ACTIONS - 1)] & ~self.state.over[rows]
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            self._refuse(int(rows[k]), int(actions[k]))
        masks, status = self.legal, self.status
        self.blocks.run(rows.size, lambda s, lo, hi: machine.apply_rows(s, rows[lo:hi], actions[lo:hi], masks, status))

    def _refuse(self, i: int, action: int) -> None:
        if self.state.over[i]:
            raise IllegalActionError(f"game {i} is over; no action is legal (got {action})")
        top = self.state.stack[i, self.state.stack_depth[i] - 1]
        legal = ", ".join(f"{a} ({A.describe_action(a)})" for a in np.flatnonzero(self.legal[i]))
        label = A.describe_action(action) if 0 <= action < A.NUM_ACTIONS else "not in the action table"
        raise IllegalActionError(
            f"game {i}: action {action} ({label}) is not legal for decision {steps.KINDS[top[0]]!r} of player "
            f"{top[1]}; legal: {legal}"
        )
