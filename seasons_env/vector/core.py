"""``VectorGame``: B games of Seasons stepped together, read and written as arrays with a leading batch axis.

Everything a caller sees is batch-shaped: the legal masks live in one preallocated ``[B, NUM_ACTIONS]`` buffer, the
observations in one ``[B, OBSERVATION_SIZE]`` buffer (re-encoded only for the games that moved), the current
players, the finished flags and the final scores in ``[B]`` / ``[B, P]`` arrays, and all inputs are checked as
arrays before any game changes. The stepping is the backend's (``backends.py``): the compiled rules kernels over an
array state (``engine="kernels"``, the default) or one reference ``Game`` per slot (``engine="reference"``); both
give the same games. A batch of one game on the kernels takes each step, its next mask and observation included, in
one compiled call (``KernelBackend.step_one``): one game, e.g. a search's, gets the compiled rules' speed too.
``threads=N`` (kernels engine) steps, restarts, observes and writes the masks of disjoint blocks of games on N
threads at once: the games, observations and masks are the same whatever N is.

Seeds: episode ``e`` of game ``i`` is ``Game.new(num_players, level, seed=game_seed(seed, i, e))``, so a game's
course depends on (seed, its index, its episode count) and the actions it is given, never on the batch size.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE
from ..encoders.rewards import final_rewards_of
from ..engine import LEVELS, Game, IllegalActionError, check_choice, check_num_players
from ..engine.actions import NUM_ACTIONS, describe_action
from .backends import BACKENDS, DEFAULT_ENGINE, ENGINES, Records, observing_seats
from .state.arrays import ArrayState


def game_seed(seed: int, index: int, episode: int) -> int:
    """The ``Game.new`` seed of episode ``episode`` of game ``index`` in a batch seeded with ``seed``."""
    words = np.random.SeedSequence((seed, index, episode)).generate_state(2, np.uint32)
    return (int(words[0]) << 31) | (int(words[1]) >> 1)  # 63 bits: any non-negative int Game.new accepts


def check_seed(seed: object, field: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"{field} must be a non-negative int; got {seed!r}")
    return int(seed)


#: ``where`` of ``KernelBackend.step_batch`` selecting every game.
_EVERY_GAME = np.zeros(0, dtype=np.bool_)

#: The most threads a batch may step with (``threads``).
MAX_THREADS = 256


def check_threads(threads: object) -> int:
    """``threads`` as an int in ``1..MAX_THREADS``; a ``ValueError`` naming it otherwise."""
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be an int from 1 to {MAX_THREADS}; got {threads!r}")
    return int(threads)


def check_batch_mask(mask: object, batch_size: int, field: str) -> np.ndarray:
    """``mask`` as a bool array of shape ``[batch_size]``; a ``ValueError`` naming ``field`` otherwise."""
    array = np.asarray(mask)
    if array.dtype != np.bool_ or array.shape != (batch_size,):
        raise ValueError(
            f"{field} must be a bool array of shape ({batch_size},); got dtype {array.dtype} shape {array.shape}"
        )
    return array


@dataclass(frozen=True)
class StepInfo:
    """What one ``apply`` did, as ``[B]`` / ``[B, P]`` arrays.

    ``finished`` marks the games that ended during this call; their ``final_scores`` and ``winners`` rows hold the
    result (zero / False elsewhere), reported here once. ``restarted`` marks the finished games that this call
    restarted (``autoreset=True``) instead of stepping them, and ``stepped`` the games that took an action."""

    stepped: np.ndarray
    finished: np.ndarray
    final_scores: np.ndarray
    winners: np.ndarray
    restarted: np.ndarray


class VectorGame:
    """``batch_size`` games of ``num_players`` at ``level``, stepped together (see the module docstring).

    - ``legal_mask()`` → bool ``[B, NUM_ACTIONS]`` (all False for a finished game);
    - ``current_player`` → int ``[B]`` (-1 for a finished game);
    - ``observations(out=None)`` → float32 ``[B, OBSERVATION_SIZE]``: row i is ``encode_observation(game i,
      current player)``, and for a finished game the observation of the seat that made its last decision;
    - ``apply(actions, where=None)`` → ``StepInfo``: one action per game (``[B]`` integers); ``where`` (bool
      ``[B]``) limits the call to some games, the others' entries being ignored. Every action is checked before any
      game moves: an illegal one raises ``IllegalActionError`` naming the game, its decision and its legal options,
      and the batch is left unchanged. A finished game's entry is ignored: with ``autoreset=True`` the call
      restarts it (its next episode), with ``autoreset=False`` it stays finished until ``reset(mask)``.
      ``apply(actions, observations_out=buf)`` also writes the observations after the step into ``buf``, in the
      same pass over the games (what ``observations(out=buf)`` would write, at less cost with ``threads``);
    - ``is_over`` → bool ``[B]``; ``scores()`` → int ``[B, P]`` (final scores once over, else the score if the game
      ended now); ``winners`` → bool ``[B, P]`` (the engine's tie-break included; all False while a game runs);
    - ``game(i)`` → a reference ``Game`` equal to game i, generator included: it continues exactly as the batch
      does; ``VectorGame.from_games(games)`` starts a batch from reference positions;
    - ``copy.deepcopy`` and ``pickle`` copy every array: the copy continues exactly as the batch;
    - ``threads`` (an int, 1 by default): the threads the kernels engine steps the games on (``engine="reference"``
      takes only 1). The same games whatever it is; more than the machine's cores only adds hand-offs.
    """

    def __init__(
        self,
        batch_size: int,
        num_players: int = 2,
        level: str = "archmage",
        seed: int = 0,
        autoreset: bool = True,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int; got {batch_size!r}")
        num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        seed = check_seed(seed)
        self._setup(int(batch_size), num_players, level, seed, autoreset, engine, threads)
        seeds = [game_seed(seed, i, 0) for i in range(self.batch_size)]
        self._backend = BACKENDS[engine].started(num_players, level, seeds, self.threads)
        self._refresh(np.arange(self.batch_size))

    @classmethod
    def from_games(
        cls,
        games: Sequence[Game],
        seed: int = 0,
        autoreset: bool = True,
        engine: str = DEFAULT_ENGINE,
        threads: int = 1,
    ) -> VectorGame:
        """A batch starting from copies of ``games`` (one player count and level); their next episodes
        (after a reset) are seeded as in a batch built with ``seed``, from episode 1 on."""
        games = list(games)
        if not games:
            raise ValueError("from_games needs at least one game")
        for k, game in enumerate(games):
            if not isinstance(game, Game):
                raise ValueError(f"games[{k}] must be a Game; got {type(game).__name__}")
            if (game.num_players, game.level) != (games[0].num_players, games[0].level):
                raise ValueError(
                    f"games[{k}] is a {game.num_players}-player {game.level} game; games[0] is a "
                    f"{games[0].num_players}-player {games[0].level} game (one batch holds one player count and level)"
                )
        batch = cls.__new__(cls)
        batch._setup(len(games), games[0].num_players, games[0].level, check_seed(seed), autoreset, engine, threads)
        batch._backend = BACKENDS[engine]([game.clone() for game in games], batch.threads)
        batch._refresh(np.arange(batch.batch_size))
        return batch

    def _setup(
        self, batch_size: int, num_players: int, level: str, seed: int, autoreset: bool, engine: str, threads: int
    ) -> None:
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False; got {autoreset!r}")
        check_choice("engine", engine, ENGINES)
        threads = check_threads(threads)
        if engine == "reference" and threads != 1:
            raise ValueError(f"threads must be 1 with engine='reference' (it steps its games in Python); got {threads}")
        self.engine = engine
        self.threads = threads
        # One game on the kernels: ``apply`` steps it, writes its mask and observation in one compiled call.
        self._one_call = engine == "kernels" and batch_size == 1
        self.batch_size = batch_size
        self.num_players = num_players
        self.level = level
        self.seed = seed
        self.autoreset = autoreset
        b, p = batch_size, num_players
        self._episode = np.zeros(b, dtype=np.int64)
        self._every_game = np.arange(b, dtype=np.int64)
        self._mask = np.zeros((b, NUM_ACTIONS), dtype=np.bool_)
        self._obs = np.zeros((b, OBSERVATION_SIZE), dtype=np.float32)
        self._obs_stale = np.ones(b, dtype=np.bool_)
        self._current = np.full(b, -1, dtype=np.int64)
        self._last_player = np.zeros(b, dtype=np.int64)  # the seat whose observation a finished game shows
        self._over = np.zeros(b, dtype=np.bool_)
        self._final_scores = np.zeros((b, p), dtype=np.int64)
        self._winners = np.zeros((b, p), dtype=np.bool_)
        self._final_cards = np.zeros((b, p), dtype=np.int64)  # cards in play at the end: the tie-break

    # ------------------------------------------------------------------ reads

    def __len__(self) -> int:
        return self.batch_size

    def __repr__(self) -> str:
        return (
            f"<VectorGame {self.batch_size} x {self.num_players}p {self.level} seed {self.seed}: "
            f"{int(self._over.sum())} over>"
        )

    @property
    def current_player(self) -> np.ndarray:
        """int64 ``[B]``: the seat that must decide in each game, -1 for a finished game."""
        return self._current.copy()

    @property
    def is_over(self) -> np.ndarray:
        """bool ``[B]``: the finished games."""
        return self._over.copy()

    @property
    def episode(self) -> np.ndarray:
        """int64 ``[B]``: how many times each game was restarted (its seed's episode number)."""
        return self._episode.copy()

    @property
    def winners(self) -> np.ndarray:
        """bool ``[B, P]``: the winning seats of each finished game (several on a shared win after the tie-break
        on cards in play); all False while a game runs."""
        return self._winners.copy()

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool ``[B, NUM_ACTIONS]``: the legal actions of each game's pending decision (all False once over)."""
        if out is None:
            out = np.empty_like(self._mask)
        else:
            _check_out(out, self._mask)
        self._backend.copy_rows(self._mask, out)
        return out

    def observations(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 ``[B, OBSERVATION_SIZE]``: each game's observation for its current player, in exactly the
        layout of ``encode_observation`` (a finished game: for the seat that made its last decision)."""
        if out is None:
            out = np.empty_like(self._obs)
        else:
            _check_out(out, self._obs)
        # One game: a scalar read (the usual case after ``apply``, which wrote the observation, is nothing stale).
        if self._obs_stale[0] if self.batch_size == 1 else self._obs_stale.any():
            # Every game moved (a whole batch's step): encoded straight into ``out``, sparing a copy through the
            # cache (the kernel takes a C-contiguous ``out``: another layout would compile it again).
            if self._obs_stale.all() and out.flags.c_contiguous:
                seats = observing_seats(self._over, self._last_player, self._current)
                self._backend.encode(self._every_game, seats, out)
                return out
            stale = np.flatnonzero(self._obs_stale)
            seats = observing_seats(self._over[stale], self._last_player[stale], self._current[stale])
            self._encode(stale, seats)
            self._obs_stale[stale] = False
        self._backend.copy_rows(self._obs, out)
        return out

    def observe(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float32 ``[k, OBSERVATION_SIZE]``: the observation of ``seats[j]`` in game ``games[j]`` (any seat, e.g.
        a learner's at the end of its game)."""
        games = self._check_indices(games, "games")
        seats = np.asarray(seats)
        if (
            seats.shape != games.shape
            or seats.dtype.kind not in "iu"
            or np.any((seats < 0) | (seats >= self.num_players))
        ):
            raise ValueError(
                f"seats must be {games.shape[0]} integer seats 0..{self.num_players - 1}, one per game; got {seats!r}"
            )
        return self._backend.observe(games, seats.astype(np.int64))

    def legal_mask_of(self, games: np.ndarray) -> np.ndarray:
        """bool ``[k, NUM_ACTIONS]``: the rows of ``legal_mask()`` for the games ``games``."""
        return self._mask[self._check_indices(games, "games")]

    def final_rewards(self, games: np.ndarray, reward: str) -> np.ndarray:
        """float64 ``[k, P]``: every seat's end-of-game reward (``seasons_env.rewards``) in the finished games
        ``games``."""
        games = self._check_indices(games, "games")
        if not self._over[games].all():
            running = games[~self._over[games]]
            raise ValueError(f"final_rewards needs finished games; game {int(running[0])} is still running")
        return final_rewards_of(self._final_scores[games], self._final_cards[games], reward)

    def scores(self) -> np.ndarray:
        """int64 ``[B, P]``: final scores of finished games; for the others the score if the game ended now."""
        out = self._final_scores.copy()
        running = np.flatnonzero(~self._over)
        out[running] = self._backend.scores(running)
        return out

    def game(self, index: int) -> Game:
        """A reference ``Game`` equal to game ``index``, its generator included (changing it changes nothing here)."""
        return self._backend.game(self._check_index(index)).clone()

    def determinized(self, index: int, seat: int, rng: np.random.Generator) -> Game:
        """Game ``index`` as ``seat`` may know it, everything hidden from that seat redrawn with ``rng``
        (``Game.determinize``): what an agent reading positions is given."""
        return self._backend.game(self._check_index(index)).determinize(seat, rng)

    def determinize_into(self, index: int, seat: int, rng: np.random.Generator, view: ArrayState, row: int) -> None:
        """Write into row ``row`` of ``view`` (an ``ArrayState`` of this player count) the row of
        ``determinized(index, seat, rng)``, with the same draws from ``rng``: on the kernels engine without building
        a ``Game`` (``kernels/hidden_kernels.py``), for agents that read positions as array rows."""
        index = self._check_index(index)
        if not isinstance(view, ArrayState) or view.num_players != self.num_players:
            got = f"{view.num_players}-player games" if isinstance(view, ArrayState) else type(view).__name__
            raise ValueError(f"view must be an ArrayState of {self.num_players}-player games; got {got}")
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < view.batch_size:
            raise ValueError(f"row must be a row of view (0..{view.batch_size - 1}); got {row!r}")
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be a seat 0..{self.num_players - 1}; got {seat!r}")
        self._backend.determinize_into(index, int(seat), rng, view, int(row))

    def describe_decision(self, index: int) -> str:
        """The pending decision of game ``index`` and its legal options, for error messages."""
        game = self._backend.game(self._check_index(index))
        if game.is_over:
            return f"game {index} is over"
        legal = ", ".join(f"{a} ({describe_action(a)})" for a in game.legal_action_list())
        return f"game {index}: decision {game.pending_decision!r} of player {game.current_player}; legal: {legal}"

    # ------------------------------------------------------------------ writes

    def apply(
        self,
        actions: np.ndarray | Sequence[int],
        where: np.ndarray | None = None,
        *,
        observations_out: np.ndarray | None = None,
        masks_out: np.ndarray | None = None,
    ) -> StepInfo:
        """Play ``actions[i]`` in every selected unfinished game (see the class docstring).

        ``observations_out`` (a writable, C-contiguous float32 ``[B, OBSERVATION_SIZE]`` array): after the step,
        every game's observation is written into it, exactly what ``observations(out=observations_out)`` would
        write; ``masks_out`` (a writable bool ``[B, NUM_ACTIONS]`` array): every game's legal mask, what
        ``legal_mask(out=masks_out)`` would write. On the kernels engine both are written in the same pass over the
        games as the step (with ``threads``, one hand-off to the threads a step instead of up to three). They are
        checked before any game moves, and left as they were when the call raises."""
        if observations_out is not None:
            _check_out(observations_out, self._obs, "observations_out")
            if not observations_out.flags.c_contiguous:
                raise ValueError("observations_out must be C-contiguous (a row per game, one after the other)")
        if masks_out is not None:
            _check_out(masks_out, self._mask, "masks_out")
        info, written = self._apply(np.asarray(actions), where, observations_out, masks_out)
        if not written:
            if observations_out is not None:
                self.observations(out=observations_out)
            if masks_out is not None:
                self.legal_mask(out=masks_out)
        return info

    def _apply(
        self,
        actions: np.ndarray,
        where: np.ndarray | None,
        observations_out: np.ndarray | None,
        masks_out: np.ndarray | None,
    ) -> tuple[StepInfo, bool]:
        """``apply``'s step, and whether it wrote ``observations_out`` and ``masks_out`` (the kernels engine's step
        of a batch)."""
        if self._one_call and where is None and not self._over[0]:
            info = self._apply_one(actions)
            if info is not None:
                return info, False
        b = self.batch_size
        if actions.shape != (b,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({b},), one action id per game; got dtype "
                f"{actions.dtype} shape {actions.shape}"
            )
        if where is not None:
            where = check_batch_mask(where, b, "where")
        if self.engine == "kernels":
            return self._apply_blocks(actions, where, observations_out, masks_out), True
        selected = np.ones(b, dtype=np.bool_) if where is None else where
        stepped = selected & ~self._over
        idx = np.flatnonzero(stepped)
        chosen = actions[idx]
        bad = (chosen < 0) | (chosen >= NUM_ACTIONS)
        if not bad.any():
            bad = ~self._mask[idx, chosen]
        if bad.any():
            self._refuse(actions, int(idx[bad][0]), int(bad.sum()))
        restarted = selected & self._over if self.autoreset else np.zeros(b, dtype=np.bool_)
        if restarted.any():
            self._restart(np.flatnonzero(restarted))
        self._last_player[idx] = self._current[idx]
        self._step(idx, chosen)
        finished = np.zeros(b, dtype=np.bool_)
        finished[idx] = self._over[idx]
        final_scores = np.where(finished[:, None], self._final_scores, 0)
        winners = self._winners & finished[:, None]
        return StepInfo(stepped, finished, final_scores, winners, restarted), False

    def _apply_blocks(
        self,
        actions: np.ndarray,
        where: np.ndarray | None,
        observations_out: np.ndarray | None,
        masks_out: np.ndarray | None,
    ) -> StepInfo:
        """``apply`` on the kernels engine: one compiled check of every action, then every selected game stepped or
        restarted, its arrays and this step's results written, in one compiled call per block of games on the
        batch's threads (``KernelBackend.step_batch``); their observations are encoded when read, or right after
        each block's step into ``observations_out`` if given."""
        b, p = self.batch_size, self.num_players
        backend = self._backend
        # Copies, C-contiguous, writable and int64 / bool whatever was given, so that the kernels are never compiled
        # again for another layout (a value that does not fit int64 is out of range either way).
        given = actions.astype(np.int64)
        selected = _EVERY_GAME if where is None else where.astype(np.bool_)
        first, count = backend.first_illegal(given, selected, self._over, self._mask)
        if first >= 0:
            self._refuse(actions, first, count)
        info = StepInfo(
            np.zeros(b, dtype=np.bool_),
            np.zeros(b, dtype=np.bool_),
            np.zeros((b, p), dtype=np.int64),
            np.zeros((b, p), dtype=np.bool_),
            np.zeros(b, dtype=np.bool_),
        )
        records = Records(
            self._episode,
            self._mask,
            self._current,
            self._last_player,
            self._over,
            self._final_scores,
            self._final_cards,
            self._winners,
            self._obs_stale,
        )
        results = (info.stepped, info.restarted, info.finished, info.final_scores, info.winners)
        backend.step_batch(
            given, selected, self.autoreset, self.seed, self.level, records, results, observations_out, masks_out
        )
        return info

    def _refuse(self, actions: np.ndarray, first: int, count: int) -> None:
        """Raise ``IllegalActionError`` for game ``first``, the first of ``count`` games given an illegal action
        (nothing has changed yet)."""
        action = int(actions[first])
        label = describe_action(action) if 0 <= action < NUM_ACTIONS else "not in the action table"
        others = f" ({count - 1} other game(s) also got an illegal action)" if count > 1 else ""
        raise IllegalActionError(
            f"action {action} ({label}) is not legal in {self.describe_decision(first)}{others}; no game was changed"
        )

    def _apply_one(self, actions: np.ndarray) -> StepInfo | None:
        """``apply`` of a one-game kernels batch whose game runs, in one compiled call (``KernelBackend.step_one``);
        None, nothing changed, when ``actions`` is not one legal action id (``apply`` then says what is wrong)."""
        if actions.shape != (1,) or actions.dtype.kind not in "iu":
            return None
        action = int(actions[0])
        if not 0 <= action < NUM_ACTIONS:
            return None
        code, seats = self._backend.step_one(action, self._obs)
        if code < 0:
            return None
        if code == 0:  # STOPPED at the next decision: its mask and observation are written, nothing else moved
            seat = seats[1]
            self._current[0] = seat
            self._last_player[0] = seat
            self._mask[0] = self._backend.rules.legal[0]
            self._obs_stale[0] = False
            p = self.num_players
            return StepInfo(
                np.ones(1, dtype=np.bool_),
                np.zeros(1, dtype=np.bool_),
                np.zeros((1, p), dtype=np.int64),
                np.zeros((1, p), dtype=np.bool_),
                np.zeros(1, dtype=np.bool_),
            )
        # The game ended: the general bookkeeping, as ``apply`` does it.
        row = np.zeros(1, dtype=np.int64)
        self._last_player[0] = seats[0]
        self._refresh(row)
        finished = self._over.copy()
        return StepInfo(
            np.ones(1, dtype=np.bool_),
            finished,
            np.where(finished[:, None], self._final_scores, 0),
            self._winners & finished[:, None],
            np.zeros(1, dtype=np.bool_),
        )

    def put(self, indices: np.ndarray | Sequence[int], games: Sequence[Game]) -> None:
        """Replace the games at ``indices`` with copies of reference positions ``games`` (this batch's player count
        and level; each at a decision or over): for callers that schedule games of their own (seeds, deals). Their
        episode counters are left as they are."""
        idx = self._check_indices(indices, "indices")  # as given: 1.9 or True is refused, not taken as slot 1
        games = list(games)
        if len(games) != idx.size or len(set(idx.tolist())) != idx.size:
            raise ValueError(f"put needs one game per distinct index; got {idx.size} indices and {len(games)} games")
        for k, game in enumerate(games):
            if not isinstance(game, Game) or (game.num_players, game.level) != (self.num_players, self.level):
                raise ValueError(f"games[{k}] must be a {self.num_players}-player {self.level} Game; got {game!r:.120}")
        self._backend.restart(idx, [game.clone() for game in games])
        self._refresh(idx)

    def new_games(self, indices: np.ndarray | Sequence[int], seeds: Sequence[int]) -> None:
        """Start ``Game.new(num_players, level, seed=seeds[j])`` at ``indices[j]``: ``put`` of those games, dealt by
        the backend without building them in Python. Their episode counters are left as they are."""
        idx = self._check_indices(indices, "indices")
        seeds = list(seeds)
        if len(seeds) != idx.size or len(set(idx.tolist())) != idx.size:
            raise ValueError(
                f"new_games needs one seed per distinct index; got {idx.size} indices and {len(seeds)} seeds"
            )
        seeds = [check_seed(seed, f"seeds[{k}]") for k, seed in enumerate(seeds)]
        self._backend.new_games(idx, self.level, seeds)
        self._refresh(idx)

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Restart the games where ``mask`` (bool ``[B]``) is True, all of them if it is None: each starts its next
        episode, seeded by (seed, index, episode)."""
        mask = (
            np.ones(self.batch_size, dtype=np.bool_)
            if mask is None
            else check_batch_mask(mask, self.batch_size, "mask")
        )
        self._restart(np.flatnonzero(mask))

    # ------------------------------------------------------------------ the stepping (the backend's)

    def _step(self, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply ``actions[j]`` to game ``idx[j]`` (already checked legal), then refresh their arrays."""
        self._backend.step(idx, actions)
        self._refresh(idx)

    def _restart(self, idx: np.ndarray) -> None:
        self._episode[idx] += 1
        episodes = self._episode[idx].tolist()
        seeds = [game_seed(self.seed, i, episode) for i, episode in zip(idx.tolist(), episodes, strict=True)]
        self._backend.new_games(idx, self.level, seeds)
        self._refresh(idx)

    def _refresh(self, idx: np.ndarray) -> None:
        """Rewrite the arrays of games ``idx`` from their positions."""
        self._obs_stale[idx] = True
        self._backend.write_masks(idx, self._mask)
        current = self._backend.current_players(idx)
        self._current[idx] = current
        over = current < 0
        self._over[idx] = over
        self._last_player[idx[~over]] = current[~over]
        self._final_scores[idx] = 0
        self._winners[idx] = False
        self._final_cards[idx] = 0
        finished = idx[over]
        if finished.size:
            scores, winners, cards = self._backend.results(finished)
            self._final_scores[finished] = scores
            self._winners[finished] = winners
            self._final_cards[finished] = cards

    def _encode(self, idx: np.ndarray, seats: np.ndarray) -> None:
        """Write the observation of ``seats[j]`` in game ``idx[j]`` into row ``idx[j]`` of the buffer."""
        self._backend.encode(idx, seats, self._obs)

    # ------------------------------------------------------------------ checks

    def _check_index(self, index: object) -> int:
        if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not 0 <= index < self.batch_size:
            raise IndexError(f"game index must be an int 0..{self.batch_size - 1}; got {index!r}")
        return int(index)

    def _check_indices(self, games: object, field: str) -> np.ndarray:
        """``games`` as int64 game indices: a 1-d array of integers (bools and floats refused, never rounded)."""
        array = np.asarray(games)
        if array.ndim == 1 and array.size == 0:  # an empty list is a float array to numpy
            return np.zeros(0, dtype=np.int64)
        if array.ndim != 1 or array.dtype.kind not in "iu" or np.any((array < 0) | (array >= self.batch_size)):
            raise ValueError(
                f"{field} must be a 1-d integer array of game indices 0..{self.batch_size - 1}; got {games!r}"
            )
        return array.astype(np.int64, copy=False)


def _check_out(out: object, like: np.ndarray, name: str = "out") -> None:
    if not isinstance(out, np.ndarray) or out.shape != like.shape or out.dtype != like.dtype:
        shown = f"{out.dtype} array of shape {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ValueError(f"{name} must be a {like.dtype} array of shape {like.shape}; got a {shown}")
    if not out.flags.writeable:
        raise ValueError(f"{name} must be a writable {like.dtype} array of shape {like.shape}; got a read-only one")
