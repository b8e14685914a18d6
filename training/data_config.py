"""What a data set of decisions holds (``FIELDS``) and which games it plays (``DataConfig``), shared by the data
stage's two ways of playing them: game by game (``data.py``) and on the batched core (``data_compiled.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import InitVar, dataclass

import numpy as np

from seasons_env.deprecation import renamed_argument
from seasons_env.engine import LEVELS, check_choice, check_num_players
from seasons_env.registry import parse_agent_spec

FIELDS = ("obs", "mask", "action", "seat", "players", "game", "margin")


@dataclass(frozen=True)
class DataConfig:
    """The games of a data set. ``players`` is the deprecated name of ``num_players`` (a ``DeprecationWarning``;
    giving both is a ``ValueError``)."""

    games: int = 100
    # game g has num_players[g % len(num_players)] players (None: 2)
    num_players: tuple[int, ...] | None = None
    level: str = "archmage"
    teacher: str = "heuristic"
    seed: int = 0
    # DAgger: a model file whose policy plays one seat of each game (seat g % players of game g); the teacher
    # still labels every decision, the student's included, so the data covers the positions the student reaches.
    student: str | None = None
    players: InitVar[tuple[int, ...] | None] = None

    def __post_init__(self, players: tuple[int, ...] | None) -> None:
        counts = renamed_argument(self.num_players, players, "players", "num_players", "DataConfig", (2,))
        object.__setattr__(self, "num_players", tuple(counts))
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"games must be a positive integer; got {self.games!r}")
        if not self.num_players:
            raise ValueError("num_players must name at least one player count (2-4)")
        for n in self.num_players:
            check_num_players(n, "num_players")
        check_choice("level", self.level, LEVELS)
        parse_agent_spec(self.teacher, "teacher")  # ValueError naming the spec and the known agents
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {self.seed!r}")
        if self.student is not None:
            from seasons_agents.learned import load_cached

            load_cached(self.student)  # an unreadable model fails here, naming the file


def final_margins(scores: Sequence[int]) -> list[int]:
    """Each seat's score minus the best score among the other seats."""
    return [s - max(scores[:p] + scores[p + 1 :]) for p, s in enumerate(scores)]


def game_seed(seed: int, game: int) -> int:
    return seed * 1_000_003 + game


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}
