"""Building test positions with ``Game.from_dict`` and driving them by action labels."""

from __future__ import annotations

import numpy as np

from seasons_env import Game, describe_action
from seasons_env.engine import actions as A


def rest_of_round(num_players: int, turn_player: int = 0, first_player: int = 0) -> list[dict]:
    """Pending steps after ``turn_player``'s turn: the later players' turns, end of round, marker move."""
    order = [(first_player + k) % num_players for k in range(num_players)]
    later = order[order.index(turn_player) + 1 :]
    return (
        [{"step": "turn_start", "player": q} for q in later]
        + [{"step": "round_end_effects", "player": q} for q in order]
        + [{"step": "move_marker", "player": 0}]
    )


def scenario(
    num_players: int = 2,
    players: list[dict] | None = None,
    pending: list[dict] | None = None,
    turn_player: int = 0,
    level: str = "archmage",
    **fields,
) -> Game:
    """A position in ``turn_player``'s main turn (or at ``pending``), the rest of the round following.

    ``players`` entries use the ``to_dict`` player format; missing players and fields take their defaults.
    """
    players = list(players or [])
    players += [{} for _ in range(num_players - len(players))]
    first_player = fields.pop("first_player", 0)
    if pending is None:
        pending = [{"step": "turn", "player": turn_player}]
    state = {
        "num_players": num_players,
        "level": level,
        "players": players,
        "turn_player": turn_player,
        "first_player": first_player,
        "pending": pending + rest_of_round(num_players, turn_player, first_player),
        **fields,
    }
    return Game.from_dict(state)


class OnEngine:
    """A scenario position driven by action labels in a ``VectorGame`` of one engine (``"kernels"`` or
    ``"reference"``), and on the reference engine alongside: after every action the batch's position, legal mask
    and observation must equal the reference game's, so a rules test run through it holds on both engines."""

    def __init__(self, game: Game, engine: str) -> None:
        from seasons_env.vector import VectorGame

        self.reference = game.clone()
        self.batch = VectorGame.from_games([game], autoreset=False, engine=engine)
        self._check("the start")

    @property
    def game(self) -> Game:
        """The batch's game (a copy)."""
        return self.batch.game(0)

    def act(self, *choices: str | int) -> OnEngine:
        """Apply actions given by id or by exact label to both, comparing them after each."""
        for choice in choices:
            action = action_of(self.reference, choice)
            self.reference.apply(action)
            self.batch.apply(np.array([action], dtype=np.int64))
            self._check(f"after {choice!r}")
        return self

    def _check(self, where: str) -> None:
        from seasons_env.vector.differential import compare_batch

        got, want = self.batch.game(0).to_dict(), self.reference.to_dict()
        differ = [key for key in want if got.get(key) != want[key]]
        assert not differ, f"{where}: the batch's {differ} differ from the reference engine's"
        divergence = compare_batch(self.batch, [self.reference], where)
        assert divergence is None, divergence


def action_of(game: Game, choice: str | int) -> int:
    """The action id of ``choice`` (an id, or the exact label of a legal action) in ``game``."""
    if isinstance(choice, int):
        return choice
    matches = [a for a in game.legal_action_list() if describe_action(a) == choice]
    if not matches:
        raise AssertionError(
            f"{choice!r} is not legal for {game.pending_decision!r} of player {game.current_player}; "
            f"legal: {labels(game)}"
        )
    return matches[0]


def labels(game: Game) -> list[str]:
    """Labels of the legal actions."""
    return [describe_action(a) for a in game.legal_action_list()]


def act(game: Game, *choices: str | int) -> Game:
    """Apply actions given by id or by exact label (see ``describe_action``)."""
    for choice in choices:
        game.apply(action_of(game, choice))
    return game


__all__ = ["A", "OnEngine", "act", "action_of", "labels", "rest_of_round", "scenario"]
