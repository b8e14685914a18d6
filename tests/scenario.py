"""Building test positions with ``Game.from_dict`` and driving them by action labels."""

from __future__ import annotations

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


def labels(game: Game) -> list[str]:
    """Labels of the legal actions."""
    return [describe_action(a) for a in game.legal_action_list()]


def act(game: Game, *choices: str | int) -> Game:
    """Apply actions given by id or by exact label (see ``describe_action``)."""
    for choice in choices:
        if isinstance(choice, str):
            matches = [a for a in game.legal_action_list() if describe_action(a) == choice]
            if not matches:
                raise AssertionError(
                    f"{choice!r} is not legal for {game.pending_decision!r} of player {game.current_player}; "
                    f"legal: {labels(game)}"
                )
            choice = matches[0]
        game.apply(choice)
    return game


__all__ = ["A", "act", "labels", "rest_of_round", "scenario"]
