"""What holds and steps the games of a ``VectorGame``: the reference engine, or the rules kernels over arrays.

``VectorGame(engine=...)`` chooses one (``"kernels"`` by default); both give the same games, decisions and arrays
(``tests/test_vector.py`` runs the differential checks on each). ``"reference"`` keeps one ``Game`` per slot and
steps it in Python; ``"kernels"`` keeps the batch as an ``ArrayState`` stepped by the compiled rules kernels
(``kernels/``), the observations written by a kernel over the same arrays (``kernels/observe_rows.py``). The kernels
backend steps, restarts, writes masks and observes disjoint blocks of rows on ``threads`` threads at once
(``kernels/row_blocks.py``); the reference backend runs in Python and takes only ``threads=1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE, encode_observation
from ..encoders.rewards import final_rewards_of
from ..engine import Game
from ..engine.actions import NUM_ACTIONS
from ..engine.chance import key_of_seed
from .state.arrays import ArrayState, pack_into
from .state.step_codes import STEP_WIDTH

if TYPE_CHECKING:
    from .kernels.row_blocks import ChunkLayout, RowBlocks
    from .kernels.threaded_step import ThreadedStep

ENGINES: tuple[str, ...] = ("kernels", "reference")
DEFAULT_ENGINE = "kernels"
#: Smaller copies are made by the calling thread alone (a hand-off to the threads costs more than copying a batch's
#: legal masks, 1,024 x 314 bytes: about 60 against 20 microseconds on the 2-core development machine).
THREADED_COPY_BYTES = 1 << 20


#: ``observe_block``'s ``masks_out`` when it copies no masks (no rows; the type of a real buffer).
_NO_MASKS = np.zeros((0, NUM_ACTIONS), dtype=bool)


#: ``observe_block``'s ``out`` when no observations are written.
_NO_OBSERVATIONS = np.zeros((0, OBSERVATION_SIZE), dtype=np.float32)


class ThreadedStepping:
    """``KernelBackend.step_batch`` on the batch's threads with each thread's part one compiled call
    (``kernels/threaded_step.py``): the pool's threads run step after step in compiled code while the arrays stay the
    same, so the actions, the games selected and the step's results go through buffers kept from one step to the next
    (copied in and out here); other arrays (another observations buffer, level or seed) make a new call."""

    def __init__(self, layout: ChunkLayout, num_players: int) -> None:
        size = int(layout.bounds[-1])
        self.layout = layout
        self.actions = np.zeros(size, dtype=np.int64)
        self.where = np.zeros(size, dtype=np.bool_)
        self.results = (
            np.zeros(size, dtype=np.bool_),
            np.zeros(size, dtype=np.bool_),
            np.zeros(size, dtype=np.bool_),
            np.zeros((size, num_players), dtype=np.int64),
            np.zeros((size, num_players), dtype=np.bool_),
        )
        self._call: ThreadedStep | None = None
        self._identities: tuple[int, ...] = ()  # of the arrays ``_call`` holds (alive while it does)

    def step(
        self,
        blocks: RowBlocks,
        actions: np.ndarray,
        where: np.ndarray,
        autoreset: bool,
        restart_source: tuple,
        records: Records,
        info: tuple[np.ndarray, ...],
        observations: np.ndarray,
        masks_out: np.ndarray,
    ) -> None:
        """``step_batch``'s step; ``restart_source`` is ``(words, openings, pile, dealt, legal, status)``."""
        np.copyto(self.actions, actions)
        if where.shape[0]:
            np.copyto(self.where, where)
            where = self.where
        words, openings, pile, dealt, legal, status = restart_source
        arrays = (self.actions, where, autoreset, words, pile, dealt, legal, status, *records, *self.results,
                  observations, masks_out)  # fmt: skip
        identities = (id(openings), *map(id, arrays))
        call = self._call
        if call is None or identities != self._identities:
            from .kernels.threaded_step import ThreadedStep

            call = self._call = ThreadedStep(self.layout, openings, arrays)
            self._identities = identities
        blocks.run_compiled(self.layout, call)
        for target, source in zip(info, self.results, strict=True):
            np.copyto(target, source)


def observing_seats(over: np.ndarray, last_player: np.ndarray, current: np.ndarray) -> np.ndarray:
    """The seat each game's observation is for: its current player, or once over the seat that made its last
    decision."""
    return np.where(over, last_player, current)


class Records(NamedTuple):
    """``VectorGame``'s arrays of what each game shows (``[B]``, ``[B, P]`` or ``[B, width]``), written by
    ``KernelBackend.step_batch`` as ``VectorGame._refresh`` writes them."""

    episode: np.ndarray
    mask: np.ndarray
    current: np.ndarray
    last_player: np.ndarray
    over: np.ndarray
    final_scores: np.ndarray
    final_cards: np.ndarray
    winners: np.ndarray
    obs_stale: np.ndarray


class ReferenceBackend:
    """One reference ``Game`` per slot, stepped one by one."""

    def __init__(self, games: Sequence[Game], threads: int = 1) -> None:
        self.games = list(games)  # threads: always 1 here (VectorGame refuses more for this engine)

    @classmethod
    def started(cls, num_players: int, level: str, seeds: Sequence[int], threads: int = 1) -> ReferenceBackend:
        """``Game.new(num_players, level, seed)`` for each seed."""
        return cls([Game.new(num_players, level, seed=seed) for seed in seeds], threads)

    def new_games(self, idx: np.ndarray, level: str, seeds: Sequence[int]) -> None:
        """Start ``Game.new(num_players, level, seeds[j])`` in slot ``idx[j]``."""
        n = self.games[0].num_players
        self.restart(idx, [Game.new(n, level, seed=seed) for seed in seeds])

    def step(self, idx: np.ndarray, actions: np.ndarray) -> None:
        games = self.games
        for i, action in zip(idx.tolist(), actions.tolist(), strict=True):
            games[i].apply(action)

    def restart(self, idx: np.ndarray, games: Sequence[Game]) -> None:
        for i, game in zip(idx.tolist(), games, strict=True):
            self.games[i] = game

    def game(self, i: int) -> Game:
        return self.games[i]

    def determinize_into(self, i: int, seat: int, rng: np.random.Generator, view: ArrayState, row: int) -> None:
        pack_into(view, [row], [self.games[i].determinize(seat, rng)])

    def write_masks(self, idx: np.ndarray, mask: np.ndarray) -> None:
        # Gathered into lists and written with one fancy assignment: scalar numpy writes cost more.
        mask[idx] = False
        rows: list[int] = []
        columns: list[int] = []
        for i in idx.tolist():
            legal = self.games[i]._legal
            rows.extend([i] * len(legal))
            columns.extend(legal)
        mask[rows, columns] = True

    def current_players(self, idx: np.ndarray) -> np.ndarray:
        return np.array([self.games[i].current_player for i in idx.tolist()], dtype=np.int64)

    def results(self, finished: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The final scores, winners and cards in play (``[k, P]`` each) of the finished games ``finished``."""
        n = self.games[0].num_players
        scores = np.array([self.games[i].final_scores for i in finished.tolist()], dtype=np.int64).reshape(-1, n)
        winners = np.zeros(scores.shape, dtype=np.bool_)
        cards = np.zeros(scores.shape, dtype=np.int64)
        for row, i in enumerate(finished.tolist()):
            winners[row, self.games[i].winners()] = True
            cards[row] = [len(in_play) for in_play in self.games[i].in_play]
        return scores, winners, cards

    def scores(self, running: np.ndarray) -> np.ndarray:
        n = self.games[0].num_players
        return np.array([self.games[i].scores() for i in running.tolist()], dtype=np.int64).reshape(-1, n)

    def encode(self, idx: np.ndarray, seats: np.ndarray, obs: np.ndarray) -> None:
        """Write the observation of ``seats[j]`` in game ``idx[j]`` into ``obs[idx[j]]``."""
        for i, seat in zip(idx.tolist(), seats.tolist(), strict=True):
            encode_observation(self.games[i], seat, obs[i])

    def copy_rows(self, source: np.ndarray, out: np.ndarray) -> None:
        np.copyto(out, source)

    def observe(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float32 ``[k, OBSERVATION_SIZE]``: the observation of ``seats[j]`` in game ``idx[j]``."""
        out = np.zeros((idx.size, OBSERVATION_SIZE), dtype=np.float32)
        for row, (i, seat) in enumerate(zip(idx.tolist(), seats.tolist(), strict=True)):
            encode_observation(self.games[i], seat, out[row])
        return out


class KernelBackend:
    """The batch as an ``ArrayState`` stepped by the compiled rules kernels (``kernels/batch.RulesBatch``)."""

    def __init__(self, games: Sequence[Game], threads: int = 1) -> None:
        from .compile_helper import start_compile_helper
        from .kernels.batch import RulesBatch  # compiles (or loads from the disk cache) the kernels on first use

        # from an empty cache, a second process compiles beside this one
        start_compile_helper("one-game" if len(games) == 1 else "batch")
        self.rules = RulesBatch.from_games(games, threads)
        self.state = self.rules.state
        self._clear_caches()

    def _clear_caches(self) -> None:
        from .kernels.batch_step import first_illegal

        self._first_illegal = first_illegal  # imported once: each ``apply`` calls it
        self._views: dict[int, tuple] = {}  # the kernels' struct of each view ArrayState written into
        self._one: tuple | None = None  # step_one's kernel and buffers, made on its first call
        self._restarts: dict[tuple[str, int], tuple] = {}  # step_batch's new-game sources, by level and seed
        self._threaded: ThreadedStepping | None = None  # step_batch's call on the threads, made on its first use

    def __getstate__(self) -> dict:
        """What pickling and ``copy.deepcopy`` copy: the rules batch (its arrays); the views' kernel structs are a
        cache, made again when needed."""
        return {"rules": self.rules}

    def __setstate__(self, state: dict) -> None:
        self.rules = state["rules"]
        self.state = self.rules.state
        self._clear_caches()

    @classmethod
    def started(cls, num_players: int, level: str, seeds: Sequence[int], threads: int = 1) -> KernelBackend:
        """``Game.new(num_players, level, seed)`` for each seed, dealt and run by the kernels."""
        from .compile_helper import start_compile_helper
        from .kernels.batch import RulesBatch
        from .state.arrays import ArrayState

        start_compile_helper("one-game" if len(seeds) == 1 else "batch")
        backend = cls.__new__(cls)
        state = ArrayState.empty(len(seeds), num_players)
        backend.rules = RulesBatch(state, np.zeros((len(seeds), NUM_ACTIONS), dtype=np.bool_), threads)
        backend.state = state
        backend._clear_caches()
        backend.rules.new_games(np.arange(len(seeds)), level, seeds)
        return backend

    def new_games(self, idx: np.ndarray, level: str, seeds: Sequence[int]) -> None:
        """Start ``Game.new(num_players, level, seeds[j])`` in row ``idx[j]``, in the kernels."""
        self.rules.new_games(idx, level, seeds)

    def step(self, idx: np.ndarray, actions: np.ndarray) -> None:
        self.rules.apply(actions, idx)

    def step_one(self, action: int, obs: np.ndarray) -> tuple[int, np.ndarray]:
        """Play ``action`` in row 0 of a one-row batch with one compiled call (``kernels/single_step.step_row``):
        check it, resolve it, run the game to its next decision and write the row's legal mask and, into ``obs[0]``,
        the observation of the seat that decides (once over, of the seat that made the last decision). Returns the
        call's code and its ``seats`` (the seat that decided, the seat ``obs[0]`` is now for). On ``ILLEGAL``
        nothing changed."""
        one = self._one
        if one is None or one[0] is not obs:
            from .kernels.single_step import step_row

            task = np.empty(STEP_WIDTH, dtype=np.int64)
            out = np.empty(NUM_ACTIONS, dtype=np.int64)
            seats = np.full(2, -1, dtype=np.int64)
            one = self._one = (obs, obs[0], step_row, self.rules.arrays, task, out, seats)
        _, row, step_row, arrays, task, out, seats = one
        rules = self.rules
        code = step_row(arrays, action, rules.legal, rules.status, task, out, row, seats)
        return code, seats

    def step_batch(
        self,
        actions: np.ndarray,
        where: np.ndarray,
        autoreset: bool,
        seed: int,
        level: str,
        records: Records,
        info: tuple[np.ndarray, ...],
        observations_out: np.ndarray | None = None,
        masks_out: np.ndarray | None = None,
    ) -> None:
        """``VectorGame.apply`` of every game (``where`` empty) or of the games where ``where`` is True, their
        actions legal (``first_illegal``), as one compiled call per block of rows (``kernels/batch_step.py``): step
        the running games, restart the finished ones if ``autoreset`` (episode ``records.episode[i] + 1``, seeded
        as ``game_seed(seed, i, episode)``), write their ``records`` (their observations marked stale) and ``info``
        (stepped, restarted, finished, final scores, winners). With ``observations_out`` (``masks_out``), each block's
        observations (legal masks) of every game, as ``VectorGame.observations`` (``legal_mask``) gives them, are
        written into it right after its step, by the thread that stepped it. On several threads with a core each,
        each thread's blocks are one compiled call (``ThreadedStepping``); otherwise each block is a call from Python
        (``RowBlocks.run_numbered``)."""
        pile, dealt, words, openings = self._restart_source(level, seed)
        rules = self.rules
        legal, status = rules.legal, rules.status
        current, last_player, over, mask = records.current, records.last_player, records.over, records.mask
        # The masks are copied by the observations' kernel where it can (a C-contiguous buffer), else by numpy.
        kernel_copies_masks = observations_out is not None and masks_out is not None and masks_out.flags.c_contiguous
        masks_by_kernel = masks_out if kernel_copies_masks else _NO_MASKS
        layout = rules.blocks.layout(rules.batch_size)
        if layout is not None and (masks_out is None or kernel_copies_masks):
            threaded = self._threaded
            if threaded is None or threaded.layout is not layout:
                threaded = self._threaded = ThreadedStepping(layout, info[3].shape[1])
            observations = _NO_OBSERVATIONS if observations_out is None else observations_out
            restart_source = (words, openings, pile, dealt, legal, status)
            threaded.step(rules.blocks, actions, where, autoreset, restart_source, records, info, observations,
                          masks_by_kernel)  # fmt: skip
            return
        from .kernels.batch_step import step_block
        from .kernels.observe_rows import observe_block

        def block(k: int, s, lo: int, hi: int) -> None:
            step_block(
                s, lo, hi, actions, where, autoreset, words, openings[k], pile, dealt, legal, status,
                *records, *info,
            )  # fmt: skip
            if observations_out is not None:  # the observations' own kernel, on the same rows
                observe_block(s, lo, hi, over, last_player, current, observations_out, mask, masks_by_kernel)
            if masks_out is not None and not kernel_copies_masks:
                np.copyto(masks_out[lo:hi], mask[lo:hi])

        rules.blocks.run_numbered(rules.batch_size, block)

    def _restart_source(self, level: str, seed: int) -> tuple:
        """What ``step_batch`` restarts games from: the opening's cards to shuffle, the cards dealt to each seat,
        the seed's entropy words and the opening packed, as one kernels' struct per thread."""
        source = self._restarts.get((level, seed))
        if source is None:
            from .kernels.batch_step import entropy_words
            from .kernels.structs import kernel_arrays

            opening, pile, dealt = self.rules.opening(level)
            openings = [kernel_arrays(opening) for _ in range(self.rules.threads)]  # one per thread: no shared counts
            source = self._restarts[(level, seed)] = (pile, dealt, entropy_words(seed), openings)
        return source

    def first_illegal(self, actions: np.ndarray, where: np.ndarray, over: np.ndarray, mask: np.ndarray) -> int:
        """The first running game selected by ``where`` (every one if it is empty) whose action is not legal in
        ``mask``, -1 if none, in one compiled call; and how many there are."""
        return self._first_illegal(actions, where, over, mask)

    def restart(self, idx: np.ndarray, games: Sequence[Game]) -> None:
        self.rules.replace(idx, games)

    def game(self, i: int) -> Game:
        return self.rules.game(i)

    def determinize_into(self, i: int, seat: int, rng: np.random.Generator, view: ArrayState, row: int) -> None:
        from .kernels.hidden_kernels import determinize_row, hidden_pool_size
        from .kernels.structs import kernel_arrays

        # The draws of Game.determinize, in its order: the view's chance seed, then the pool's permutation.
        key = np.uint64(key_of_seed(int(rng.integers(2**63))))
        order = rng.permutation(hidden_pool_size(self.rules.arrays, i, seat))
        known = self._views.get(id(view))
        if known is None or known[0] is not view:
            if len(self._views) >= 8:  # views are few and long-lived (one per player count); keep no stale ones
                self._views.clear()
            known = self._views[id(view)] = (view, kernel_arrays(view))
        determinize_row(self.rules.arrays, i, seat, known[1], row, key, order)

    def write_masks(self, idx: np.ndarray, mask: np.ndarray) -> None:
        legal = self.rules.legal

        def copy_block(_, lo: int, hi: int) -> None:  # numpy copies plain arrays without the interpreter lock
            rows = idx[lo:hi]
            mask[rows] = legal[rows]

        self.rules.blocks.run(idx.size, copy_block)

    def current_players(self, idx: np.ndarray) -> np.ndarray:
        return self.rules.current_players(idx)

    def results(self, finished: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        scores = self.state.final_scores[finished].astype(np.int64)
        cards = self.state.in_play_count[finished].astype(np.int64)
        # The engine's tie-break (``Game.winners``) is the "win" reward's +1.
        return scores, final_rewards_of(scores, cards, "win") > 0, cards

    def scores(self, running: np.ndarray) -> np.ndarray:
        return self.rules.scores(running)

    def encode(self, idx: np.ndarray, seats: np.ndarray, obs: np.ndarray) -> None:
        from .kernels.observe_rows import observe_rows_in_place

        idx, seats = idx.astype(np.int64, copy=False), seats.astype(np.int64, copy=False)
        self.rules.blocks.run(idx.size, lambda s, lo, hi: observe_rows_in_place(s, idx[lo:hi], seats[lo:hi], obs))

    def copy_rows(self, source: np.ndarray, out: np.ndarray) -> None:
        """``out[:] = source`` (``[B, ...]`` arrays), in blocks of rows on the batch's threads when it is large."""
        if self.rules.threads == 1 or source.nbytes < THREADED_COPY_BYTES:
            np.copyto(out, source)
            return

        def copy_block(_, lo: int, hi: int) -> None:
            np.copyto(out[lo:hi], source[lo:hi])

        self.rules.blocks.run(source.shape[0], copy_block)

    def observe(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        from .kernels.observe_rows import observe_rows

        out = np.zeros((idx.size, OBSERVATION_SIZE), dtype=np.float32)
        observe_rows(self.rules.arrays, idx.astype(np.int64), seats.astype(np.int64), out)
        return out


BACKENDS = {"kernels": KernelBackend, "reference": ReferenceBackend}
