"""Many games at once with one learning seat each, stepped as batches (``seasons_env.vector.VectorGame``).

``SelfPlayGames`` keeps ``size`` games running. In each the learner plays one seat; every other seat is played by
one opponent of the league: ``"random"``, ``"heuristic"``, ``"ismcts"`` (``seasons_agents.ismcts.ISMCTSAgent`` at
``ismcts_iterations`` a decision) or a frozen snapshot of the learner's network (``"snapshot:K"``). ``observe()``
gives the learner's observation and action mask in every game (a batch, for one forward pass); ``step(actions)``
plays the learner's actions, then every opponent until each game is back at a learner decision. A game that ends
gives the learner its result (a ``Finished`` record: its final margin, score and win) and is replaced by the next
game of the schedule at once, so every slot is always at a learner decision (or idle when the schedule has ended).

The games live in one ``VectorGame`` per player count dealt (created when the schedule first deals that count),
slot ``i`` being row ``i`` of the batch of its game's player count. Between two learner decisions the games are
played in rounds, each answering the pending decision of every waiting game and applying all the answers with
one ``apply`` per batch: decisions with a single legal action are applied without asking anyone, the random
seats' actions are drawn for all their games at once from the legal masks, each snapshot answers all its games
with one call of its compiled policy on the batch's observation rows (``training/snapshot_policy.py``; sampled from
the masked policy), and the heuristic and
ISMCTS seats play per game from a view determinized for their seat (as in the arena), each game its own agent: on
the kernels engine the heuristic's view is an array row and its decisions the compiled ones
(``agents/heuristic_compiled.py``: the same actions and draws as ``HeuristicAgent.act``).

``engine`` chooses how the batches step (``seasons_env.vector.ENGINES``: the reference engine or the compiled
kernels); both give the same games, as does ``threads`` (the kernels' batches step their games on that many threads).
``state_dict``/``load_state_dict`` capture everything (positions as
``Game.to_dict()``, seats, opponents, the generator, the heuristic and ISMCTS agents' state), so a resumed run
continues exactly, on either engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from seasons_agents.heuristic import HeuristicAgent
from seasons_agents.ismcts import ISMCTSAgent
from seasons_env import Game, IllegalActionError
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine import check_choice
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector import VectorGame
from seasons_env.vector.backends import DEFAULT_ENGINE, ENGINES
from seasons_env.vector.core import check_threads
from seasons_env.vector.policies import sample_legal

from .data import final_margins

if TYPE_CHECKING:
    from seasons_agents.heuristic_compiled import HeuristicRows

    from .snapshot_policy import SnapshotPolicy

RANDOM = "random"
HEURISTIC = "heuristic"
ISMCTS = "ismcts"
SNAPSHOT = "snapshot:"

# what plays a slot's other seats, as a code per slot
_IDLE, _RANDOM, _HEURISTIC, _SNAPSHOT, _ISMCTS = -1, 0, 1, 2, 3
_KINDS = {RANDOM: _RANDOM, HEURISTIC: _HEURISTIC, ISMCTS: _ISMCTS}  # the fixed opponents' codes
# the opponents that are an agent object per game (its state saved with the game): their name, and the field of
# a checkpoint holding their agents
_SEARCHERS = {_HEURISTIC: (HEURISTIC, "heuristics"), _ISMCTS: (ISMCTS, "ismcts")}


@dataclass
class Deal:
    """What the schedule gives a new game: player count, the learner's seat, the opponent and the game seed."""

    players: int
    seat: int
    opponent: str
    seed: int


@dataclass
class Finished:
    """The learner's result in one finished game."""

    slot: int
    players: int
    seat: int
    opponent: str
    margin: int
    score: int
    win: float  # 1 for a sole win, 1/k for a k-way tie for first, 0 otherwise


class SelfPlayGames:
    """``size`` games, the learner in one seat of each; ``schedule(rng)`` deals each new game (``None``: no more);
    ``ismcts_iterations``: the budget of an ISMCTS opponent's decisions."""

    def __init__(
        self,
        size: int,
        level: str,
        schedule: Callable[[np.random.Generator], Deal | None],
        snapshots: dict[str, SnapshotPolicy],
        seed: int,
        engine: str = DEFAULT_ENGINE,
        ismcts_iterations: int = 100,
        threads: int = 1,
    ) -> None:
        check_choice("engine", engine, ENGINES)
        if isinstance(ismcts_iterations, bool) or not isinstance(ismcts_iterations, int) or ismcts_iterations < 1:
            raise ValueError(f"ismcts_iterations must be a whole number of at least 1; got {ismcts_iterations!r}")
        self.ismcts_iterations = ismcts_iterations
        self.size = size
        self.level = level
        self.schedule = schedule
        self.snapshots = snapshots  # name -> its compiled masked policy (the league's dict: it gains and loses some)
        self.engine = engine
        self.threads = check_threads(threads)  # the threads each batch steps its games on (VectorGame)
        self.rng = np.random.default_rng(seed)
        self.batches: dict[int, VectorGame] = {}  # player count -> its games, slot i in row i
        self.deals: list[Deal | None] = [None] * size
        self.agents: list[HeuristicAgent | ISMCTSAgent | None] = [None] * size  # a heuristic or ISMCTS slot's player
        self.slot_players = np.zeros(size, dtype=np.int64)  # 0: idle
        self.seats = np.zeros(size, dtype=np.int64)
        self.kinds = np.full(size, _IDLE, dtype=np.int8)
        self.obs = np.zeros((size, OBSERVATION_SIZE), dtype=np.float32)
        self.mask = np.zeros((size, NUM_ACTIONS), dtype=bool)
        self.decisions = 0  # every decision applied in every game, forced ones included
        self._buffers: dict[int, np.ndarray] = {}  # player count -> [size, OBSERVATION_SIZE] observations
        self._ended: dict[int, tuple[list[int], list[int]]] = {}  # slot -> final scores, winning seats
        self._compiled: dict[int, HeuristicRows] = {}  # player count -> the compiled heuristic's rows

    # ------------------------------------------------------------------ the games

    def start(self) -> list[Finished]:
        """Deal a game into every slot and play each to the learner's first decision."""
        self._deal(list(range(self.size)))
        return self._play(self.slot_players > 0)

    def active(self) -> np.ndarray:
        return self.slot_players > 0

    def game(self, slot: int) -> Game | None:
        """A copy of the game in ``slot`` (``None`` if idle)."""
        players = int(self.slot_players[slot])
        return None if players == 0 else self.batches[players].game(slot)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observation and mask in every slot (idle slots: zeros)."""
        self.obs[:] = 0.0
        self.mask[:] = False
        for players, batch in sorted(self.batches.items()):
            rows = np.flatnonzero(self.slot_players == players)
            if rows.size:  # every game waits on its learner: each row is the learner's view
                self.obs[rows] = batch.observations(out=self._buffers[players])[rows]
                self.mask[rows] = batch.legal_mask_of(rows)
        return self.obs, self.mask

    def step(self, actions: Sequence[int] | np.ndarray) -> list[Finished]:
        """Play the learner's action in every active slot, then on to its next decision (in a new game if needed)."""
        actions = np.asarray(actions)
        if actions.shape != (self.size,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.size} integer action ids, one per slot; got dtype {actions.dtype} "
                f"shape {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        active = self.slot_players > 0
        for players, batch in sorted(self.batches.items()):  # all checked before any game moves
            rows = np.flatnonzero(active & (self.slot_players == players))
            chosen = actions[rows]
            legal = (chosen >= 0) & (chosen < NUM_ACTIONS)
            legal[legal] = batch.legal_mask_of(rows[legal])[np.flatnonzero(legal), chosen[legal]]
            if not legal.all():
                slot = int(rows[np.flatnonzero(~legal)[0]])
                raise IllegalActionError(
                    f"slot {slot}: the learner's action {int(actions[slot])} is not legal in "
                    f"{batch.describe_decision(slot)}; no game was changed"
                )
        for players, batch in sorted(self.batches.items()):
            where = active & (self.slot_players == players)
            if where.any():
                self._apply(batch, actions, where)
        self.decisions += int(active.sum())
        return self._play(active)

    def _play(self, pending: np.ndarray) -> list[Finished]:
        """Play the games of the ``pending`` slots on, round by round, until each waits on its learner or is idle."""
        finished: list[Finished] = []
        while True:
            if self._ended:
                slots = sorted(self._ended)
                finished += [self._result(slot, *self._ended.pop(slot)) for slot in slots]
                self._deal(slots)
                pending[slots] = self.slot_players[slots] > 0
            if not pending.any():
                return finished
            for players, batch in sorted(self.batches.items()):
                rows = np.flatnonzero(pending & (self.slot_players == players))
                if rows.size:
                    self._round(players, batch, rows, pending)

    def _round(self, players: int, batch: VectorGame, rows: np.ndarray, pending: np.ndarray) -> None:
        """Answer the pending decision in each game of ``rows`` that does not wait on its learner; one ``apply``."""
        masks = batch.legal_mask_of(rows)
        current = batch.current_player[rows]
        forced = masks.sum(axis=1) == 1  # applied without asking anyone, the learner's included
        learner = ~forced & (current == self.seats[rows])
        if learner.any():
            pending[rows[learner]] = False
            if learner.all():
                return
            acting = ~learner
            rows, masks, current, forced = rows[acting], masks[acting], current[acting], forced[acting]
        choice = np.argmax(masks, axis=1)  # the forced moves' only action
        if not forced.all():
            kinds = self.kinds[rows]
            kinds[forced] = _IDLE
            chosen = kinds == _RANDOM
            if chosen.any():
                choice[chosen] = sample_legal(masks[chosen], self.rng)
            for j in np.flatnonzero((kinds == _HEURISTIC) | (kinds == _ISMCTS)).tolist():
                slot, seat = int(rows[j]), int(current[j])
                legal = np.flatnonzero(masks[j])
                if kinds[j] == _HEURISTIC and self.engine == "kernels":
                    # the compiled heuristic on the view's array row: the same decision and draws, no Game built
                    compiled = self._heuristic_rows(players)
                    batch.determinize_into(slot, seat, self.rng, compiled.view_state, 0)
                    choice[j] = compiled.act(self.agents[slot], seat, legal)
                else:
                    view = batch.determinized(slot, seat, self.rng)
                    choice[j] = self.agents[slot].act(view, seat, legal.tolist())
            asked = np.flatnonzero(kinds == _SNAPSHOT)
            if asked.size:  # a row of observations() is its current player's view: the snapshot's here
                observations = batch.observations(out=self._buffers[players])
                names = np.array([self.deals[slot].opponent for slot in rows[asked].tolist()])
                for name in sorted(set(names.tolist())):
                    group = asked[names == name]
                    choice[group] = self._sample_snapshot(name, observations[rows[group]], masks[group])
        actions = np.zeros(self.size, dtype=np.int64)
        actions[rows] = choice
        where = np.zeros(self.size, dtype=bool)
        where[rows] = True
        self._apply(batch, actions, where)
        self.decisions += len(rows)

    def _apply(self, batch: VectorGame, actions: np.ndarray, where: np.ndarray) -> None:
        info = batch.apply(actions, where=where)
        for slot in np.flatnonzero(info.finished).tolist():
            self._ended[slot] = (info.final_scores[slot].tolist(), np.flatnonzero(info.winners[slot]).tolist())

    def _sample_snapshot(self, name: str, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """An action per row sampled from snapshot ``name``'s masked policy (``training/snapshot_policy.py``)."""
        probabilities = self.snapshots[name].probabilities(observations, masks)
        # inverse CDF: the first action whose cumulative probability passes u * total, u in [0, 1); an illegal
        # action has probability exactly 0, so it never is the one that passes
        cumulative = np.cumsum(probabilities, axis=1)
        total = cumulative[:, -1]
        threshold = np.minimum(self.rng.random(len(masks)) * total, np.nextafter(total, 0.0))
        return np.argmax(cumulative > threshold[:, None], axis=1)

    def _result(self, slot: int, scores: list[int], winners: list[int]) -> Finished:
        deal = self.deals[slot]
        return Finished(
            slot=slot,
            players=deal.players,
            seat=deal.seat,
            opponent=deal.opponent,
            margin=final_margins(scores)[deal.seat],
            score=scores[deal.seat],
            win=1.0 / len(winners) if deal.seat in winners else 0.0,
        )

    # ------------------------------------------------------------------ dealing

    def _deal(self, slots: list[int]) -> None:
        """The schedule's next game in each of ``slots``, in order (idle once it has no more)."""
        new: dict[int, tuple[list[int], list[int]]] = {}
        for slot in slots:
            deal = self.schedule(self.rng)
            self._seat(slot, deal)
            if deal is None:
                self.agents[slot] = None
                continue
            self.agents[slot] = self._new_agent(int(self.kinds[slot]))
            rows, seeds = new.setdefault(deal.players, ([], []))
            rows.append(slot)
            seeds.append(deal.seed)
        for players, (rows, seeds) in sorted(new.items()):
            self._batch(players).new_games(rows, seeds)  # Game.new(players, level, seed), dealt in the batch

    def _seat(self, slot: int, deal: Deal | None) -> None:
        """Record ``deal`` as the slot's game: checked, as it comes from a schedule or a saved state."""
        self.deals[slot] = deal
        if deal is None:
            self.slot_players[slot], self.kinds[slot] = 0, _IDLE
            return
        if deal.players not in (2, 3, 4):
            raise ValueError(f"deal for slot {slot}: players must be 2, 3 or 4; got {deal.players!r}")
        if not 0 <= deal.seat < deal.players:
            raise ValueError(f"deal for slot {slot}: seat must be 0..{deal.players - 1}; got {deal.seat!r}")
        if deal.opponent in _KINDS:
            kind = _KINDS[deal.opponent]
        elif deal.opponent.startswith(SNAPSHOT) and deal.opponent in self.snapshots:
            kind = _SNAPSHOT
        else:
            known = ", ".join([*_KINDS, *sorted(self.snapshots)])
            raise ValueError(f"deal for slot {slot}: opponent must be one of {known}; got {deal.opponent!r}")
        self.slot_players[slot], self.seats[slot], self.kinds[slot] = deal.players, deal.seat, kind

    def _heuristic_rows(self, players: int) -> HeuristicRows:
        """The rows the compiled heuristic decides on, for a player count (compiled or loaded on first use)."""
        rows = self._compiled.get(players)
        if rows is None:
            from seasons_agents.heuristic_compiled import HeuristicRows

            rows = self._compiled[players] = HeuristicRows(players)
        return rows

    def _new_agent(self, kind: int, seed: int | None = None) -> HeuristicAgent | ISMCTSAgent | None:
        """The player of a new game's heuristic or ISMCTS seats, seeded from the generator (``None`` for the
        other opponents, which keep no state)."""
        if kind not in _SEARCHERS:
            return None
        seed = int(self.rng.integers(2**63 - 1)) if seed is None else seed
        if kind == _HEURISTIC:
            return HeuristicAgent(seed)
        return ISMCTSAgent(seed, iterations=self.ismcts_iterations)

    def _batch(self, players: int) -> VectorGame:
        """The batch of ``players``-player games, one row per slot (made on first use; a row is played only while
        its slot's deal has that player count)."""
        batch = self.batches.get(players)
        if batch is None:
            batch = VectorGame(
                self.size, players, self.level, autoreset=False, engine=self.engine, threads=self.threads
            )
            self.batches[players] = batch
            self._buffers[players] = np.zeros((self.size, OBSERVATION_SIZE), dtype=np.float32)
        return batch

    # ------------------------------------------------------------------ checkpoints

    def state_dict(self) -> dict:
        """Everything needed to continue exactly: plain Python values only (a ``weights_only`` torch file holds it)."""
        games = [self.game(slot) for slot in range(self.size)]
        state = {
            "rng": self.rng.bit_generator.state,
            "games": [None if g is None else g.to_dict() for g in games],
            "deals": [None if d is None else [d.players, d.seat, d.opponent, d.seed] for d in self.deals],
        }
        for kind, (_, key) in _SEARCHERS.items():  # each slot's agent under its kind's key, None elsewhere
            state[key] = [
                agent.state_dict() if agent is not None and self.kinds[slot] == kind else None
                for slot, agent in enumerate(self.agents)
            ]
        state["decisions"] = self.decisions
        return state

    def load_state_dict(self, state: dict) -> None:
        """Continue from ``state_dict()``'s values (the format of earlier versions too: no ``ismcts`` field)."""
        saved_games, saved_deals = state["games"], state["deals"]
        saved_agents = {key: state.get(key, [None] * self.size) for _, key in _SEARCHERS.values()}
        if len(saved_games) != self.size or len(saved_deals) != self.size:
            raise ValueError(f"the saved games are {len(saved_games)}; this run has {self.size} slots")
        for key, saved in saved_agents.items():
            if not isinstance(saved, list) or len(saved) != self.size:
                raise ValueError(f"the saved {key} agents are not a list of {self.size}, one per slot")
        self.rng.bit_generator.state = state["rng"]
        new: dict[int, tuple[list[int], list[Game]]] = {}
        for slot, (saved, deal) in enumerate(zip(saved_games, saved_deals, strict=True)):
            deal = None if deal is None else Deal(*deal)
            if (saved is None) != (deal is None):
                raise ValueError(f"saved slot {slot}: a game needs its deal and a deal its game")
            self._seat(slot, deal)
            if deal is None:
                continue
            game = Game.from_dict(saved)
            if game.num_players != deal.players or game.level != self.level or game.is_over:
                raise ValueError(
                    f"saved slot {slot}: its game ({game.num_players} players, {game.level}, over: {game.is_over}) "
                    f"is not a running {deal.players}-player {self.level} game"
                )
            rows, games = new.setdefault(deal.players, ([], []))
            rows.append(slot)
            games.append(game)
        for players, (rows, games) in sorted(new.items()):
            self._batch(players).put(rows, games)
        self.agents = [None] * self.size
        for kind, (name, key) in _SEARCHERS.items():
            for slot, saved in enumerate(saved_agents[key]):
                if self.kinds[slot] != kind:
                    if saved is not None:
                        raise ValueError(f"saved slot {slot}: a {name} agent was saved, but its opponent is not {name}")
                    continue
                if saved is None:
                    raise ValueError(f"saved slot {slot}: its opponent is {name}, but no {name} agent was saved")
                agent = self._new_agent(kind, seed=0)
                try:
                    agent.load_state_dict(saved)
                except ValueError as error:
                    raise ValueError(f"saved slot {slot}: {error}") from None
                self.agents[slot] = agent
        self.decisions = int(state["decisions"])
        self._ended = {}
