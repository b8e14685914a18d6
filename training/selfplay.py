"""Many games at once with one learning seat each: a vector environment with batched policy inference.

``SelfPlayGames`` keeps ``size`` games running. In each the learner plays one seat; every other seat is played
by one opponent of the league: ``"random"``, ``"heuristic"`` or a frozen snapshot of the learner's network
(``"snapshot:K"``). ``observe()`` gives the learner's observation and action mask in every game (a batch,
for one forward pass); ``step(actions)`` plays the learner's actions, then every opponent until each game
is back at a learner decision: the snapshots' decisions are gathered across games and answered in one
forward pass per snapshot (sampled from the masked policy), the random and heuristic seats are answered in
place, and decisions with a single legal action are applied without asking anyone. A game that ends gives
the learner its reward (``margin_target`` of its final margin) and is replaced by the next game of the
schedule at once, so every slot is always at a learner decision (or idle when the schedule has ended).

``state_dict``/``load_state_dict`` capture everything (positions, seats, opponents, the generators, the
heuristic agents' state), so a resumed run continues exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.heuristic import HeuristicAgent
from seasons_env import Game
from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.engine.actions import NUM_ACTIONS

from .data import final_margins

RANDOM = "random"
HEURISTIC = "heuristic"
SNAPSHOT = "snapshot:"


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
    """``size`` games, the learner in one seat of each; ``schedule(rng)`` deals each new game (``None``: no more)."""

    def __init__(
        self,
        size: int,
        level: str,
        schedule: Callable[[np.random.Generator], Deal | None],
        snapshots: dict[str, Callable],
        seed: int,
    ) -> None:
        self.size = size
        self.level = level
        self.schedule = schedule
        self.snapshots = snapshots  # name -> network (logits, value) = net(obs batch)
        self.rng = np.random.default_rng(seed)
        self.games: list[Game | None] = [None] * size
        self.deals: list[Deal | None] = [None] * size
        self.heuristics: list[HeuristicAgent | None] = [None] * size
        self.obs = np.zeros((size, OBSERVATION_SIZE), dtype=np.float32)
        self.mask = np.zeros((size, NUM_ACTIONS), dtype=bool)
        self.decisions = 0  # every decision applied in every game, forced ones included

    # ------------------------------------------------------------------ the games

    def start(self) -> list[Finished]:
        """Deal a game into every slot and play each to the learner's first decision."""
        for slot in range(self.size):
            self._deal(slot)
        return self._advance(list(range(self.size)))

    def active(self) -> np.ndarray:
        return np.array([g is not None for g in self.games], dtype=bool)

    def _deal(self, slot: int) -> None:
        deal = self.schedule(self.rng)
        self.deals[slot] = deal
        if deal is None:
            self.games[slot] = None
            self.heuristics[slot] = None
            return
        self.games[slot] = Game.new(deal.players, self.level, seed=deal.seed)
        heuristic = None
        if deal.opponent == HEURISTIC:
            heuristic = HeuristicAgent(int(self.rng.integers(2**63 - 1)))
        self.heuristics[slot] = heuristic

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observation and mask in every slot (idle slots: zeros)."""
        for slot, game in enumerate(self.games):
            if game is None:
                self.obs[slot] = 0.0
                self.mask[slot] = False
            else:
                seat = self.deals[slot].seat
                encode_observation(game, seat, self.obs[slot])
                self.mask[slot] = action_mask(game, seat).astype(bool)
        return self.obs, self.mask

    def step(self, actions: Sequence[int]) -> list[Finished]:
        """Play the learner's action in every active slot, then on to its next decision (in a new game if needed)."""
        slots = []
        for slot, game in enumerate(self.games):
            if game is not None:
                game.apply(int(actions[slot]))
                self.decisions += 1
                slots.append(slot)
        return self._advance(slots)

    def _advance(self, slots: list[int]) -> list[Finished]:
        finished: list[Finished] = []
        pending = list(slots)
        while pending:
            waiting: dict[str, list[int]] = {}
            for slot in pending:
                name = self._play_until_asked(slot, finished)
                if name is not None:
                    waiting.setdefault(name, []).append(slot)
            for name, group in waiting.items():
                self._answer(name, group)
            pending = [slot for names in waiting.values() for slot in names]
        return finished

    def _play_until_asked(self, slot: int, finished: list[Finished]) -> str | None:
        """Play the slot's game on until the learner decides (``None``) or a snapshot must (its name)."""
        rng = self.rng
        while True:
            game, deal = self.games[slot], self.deals[slot]
            if game is None:
                return None
            if game.is_over:
                finished.append(self._result(slot))
                self._deal(slot)
                continue
            legal = game.legal_action_list()
            player = game.current_player
            if len(legal) == 1:
                game.apply(legal[0])
            elif player == deal.seat:
                return None
            elif deal.opponent == RANDOM:
                game.apply(legal[int(rng.integers(len(legal)))])
            elif deal.opponent == HEURISTIC:
                game.apply(int(self.heuristics[slot].act(game.determinize(player, rng), player, list(legal))))
            else:
                return deal.opponent
            self.decisions += 1

    def _answer(self, name: str, slots: list[int]) -> None:
        """One forward pass of snapshot ``name`` for its decision in each of ``slots``; sampled actions applied."""
        import torch

        from agents.network import masked_logits

        obs = np.zeros((len(slots), OBSERVATION_SIZE), dtype=np.float32)
        mask = np.zeros((len(slots), NUM_ACTIONS), dtype=bool)
        for k, slot in enumerate(slots):
            game = self.games[slot]
            encode_observation(game, game.current_player, obs[k])
            mask[k] = action_mask(game, game.current_player).astype(bool)
        with torch.inference_mode():
            logits, _ = self.snapshots[name](torch.from_numpy(obs))
            probabilities = torch.softmax(masked_logits(logits, torch.from_numpy(mask)), dim=1).double().numpy()
        for k, slot in enumerate(slots):
            p = probabilities[k] / probabilities[k].sum()
            self.games[slot].apply(int(self.rng.choice(NUM_ACTIONS, p=p)))
            self.decisions += 1

    def _result(self, slot: int) -> Finished:
        game, deal = self.games[slot], self.deals[slot]
        scores = [int(s) for s in game.scores()]
        winners = game.winners()
        return Finished(
            slot=slot,
            players=deal.players,
            seat=deal.seat,
            opponent=deal.opponent,
            margin=final_margins(scores)[deal.seat],
            score=scores[deal.seat],
            win=1.0 / len(winners) if deal.seat in winners else 0.0,
        )

    # ------------------------------------------------------------------ checkpoints

    def state_dict(self) -> dict:
        """Everything needed to continue exactly: plain Python values only (a ``weights_only`` torch file holds it)."""
        heuristics = []
        for agent in self.heuristics:
            if agent is None:
                heuristics.append(None)
            else:
                plan = agent._plan
                heuristics.append(
                    {
                        "rng": agent.rng.bit_generator.state,
                        "plan": None if plan is None else [plan[0], list(plan[1]), list(plan[2])],
                    }
                )
        return {
            "rng": self.rng.bit_generator.state,
            "games": [None if g is None else g.to_dict() for g in self.games],
            "deals": [None if d is None else [d.players, d.seat, d.opponent, d.seed] for d in self.deals],
            "heuristics": heuristics,
            "decisions": self.decisions,
        }

    def load_state_dict(self, state: dict) -> None:
        if len(state["games"]) != self.size:
            raise ValueError(f"the saved games are {len(state['games'])}; this run has {self.size} slots")
        self.rng.bit_generator.state = state["rng"]
        self.games = [None if g is None else Game.from_dict(g) for g in state["games"]]
        self.deals = [None if d is None else Deal(*d) for d in state["deals"]]
        self.heuristics = []
        for saved in state["heuristics"]:
            if saved is None:
                self.heuristics.append(None)
                continue
            agent = HeuristicAgent(0)
            agent.rng.bit_generator.state = saved["rng"]
            plan = saved["plan"]
            agent._plan = None if plan is None else (plan[0], tuple(plan[1]), tuple(plan[2]))
            self.heuristics.append(agent)
        self.decisions = int(state["decisions"])
