"""The agent protocol and the game runner that gives every seat only what it may know."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from seasons_env import Game
from seasons_env.engine.data import CARD_OF


@runtime_checkable
class Agent(Protocol):
    """A player. ``act`` receives a *view* of the game for ``seat``: a ``Game`` in which everything the seat
    cannot see (opponents' hands and libraries, the deck order, future dice) has been redrawn at random by
    ``Game.determinize``, so an agent may read any of it, clone it and search in it without cheating. It
    returns one of ``legal`` (the legal action ids, sorted)."""

    name: str

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int: ...


class SeededAgent:
    """Base for agents with their own random generator: ``reset(seed)`` makes them reproducible."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; with a seed, the agent's own randomness restarts from it."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @staticmethod
    def generator_from_state(state: object, who: str) -> np.random.Generator:
        """A generator continuing from a saved ``bit_generator.state`` (a checkpoint's: checked, and a bad one
        is a ``ValueError`` naming ``who``)."""
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = state
        except (TypeError, ValueError, KeyError) as error:
            raise ValueError(f"{who}'s rng state is not a PCG64 state: {error}") from None
        return rng

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


@dataclass
class GameRecord:
    """What one game produced: enough to rate agents and to study cards afterwards."""

    seed: int
    num_players: int
    level: str
    seats: list[str]
    scores: list[int]
    winners: list[int]
    decisions: int
    decks: list[list[int]] = field(default_factory=list)  # each seat's 9 cards after the draft (or preset deck)
    played: list[list[int]] = field(default_factory=list)  # cards that entered the seat's play area
    seconds_per_seat: list[float] = field(default_factory=list)
    decisions_per_seat: list[int] = field(default_factory=list)
    # Every action id in the order played: ``Game.new(num_players, level, seed)`` then ``apply`` of each one
    # replays the game exactly.
    actions: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def agent_streams(agent_seed: int, num_players: int) -> tuple[list[int], np.random.Generator]:
    """The agents' side of a game from ``agent_seed``: each seat's ``reset`` seed, and the generator that redraws
    the hidden cards of their views. A stream apart from the game's seed, so nothing an agent is given (its seed,
    its views) says anything about the deal."""
    sequence = np.random.SeedSequence(agent_seed)
    seats, views = sequence.spawn(num_players), sequence.spawn(1)[0]
    return [int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in seats], np.random.default_rng(views)


def play_game(
    agents: Sequence[Agent],
    level: str = "archmage",
    seed: int = 0,
    max_decisions: int = 50_000,
    agent_seed: int | None = None,
) -> GameRecord:
    """Play one game, seat ``i`` played by ``agents[i]``. Each decision gets a fresh determinized view.

    The game is ``Game.new(len(agents), level, seed)``; the agents' randomness (their ``reset`` seeds and the
    redraws in their views) comes from ``agent_seed`` (``agent_streams``), never from ``seed``, so an agent
    cannot rebuild the deal from what it is given. ``None`` draws ``agent_seed`` from the operating system; give
    one to replay the agents' decisions too."""
    game = Game.new(len(agents), level, seed=seed)
    if agent_seed is None:
        agent_seed = secrets.randbits(63)
    seat_seeds, view_rng = agent_streams(agent_seed, len(agents))
    for agent, agent_seed_k in zip(agents, seat_seeds, strict=True):
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seed=agent_seed_k)
    n = len(agents)
    seconds = [0.0] * n
    counts = [0] * n
    decks: list[list[int]] = []
    actions: list[int] = []
    played: list[set[int]] = [set() for _ in range(n)]  # instances that entered each seat's play area
    decisions = 0
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_action_list()
        view = game.determinize(seat, view_rng)
        start = time.perf_counter()
        action = agents[seat].act(view, seat, list(legal))
        seconds[seat] += time.perf_counter() - start
        counts[seat] += 1
        if not decks and game.pending_decision == "library_split":
            decks = [sorted((*game.hand[p], *game.library[p][0], *game.library[p][1])) for p in range(n)]
        game.apply(action)
        actions.append(int(action))
        for p in range(n):
            played[p].update(game.in_play[p])
        decisions += 1
        if decisions > max_decisions:
            raise RuntimeError(f"game with seed {seed} passed {max_decisions} decisions")
    return GameRecord(
        seed=int(seed),
        num_players=n,
        level=level,
        seats=[a.name for a in agents],
        scores=[int(s) for s in game.scores()],
        winners=list(game.winners()),
        decisions=decisions,
        decks=decks,
        played=[sorted(CARD_OF[i] for i in instances) for instances in played],
        seconds_per_seat=seconds,
        decisions_per_seat=counts,
        actions=actions,
    )
