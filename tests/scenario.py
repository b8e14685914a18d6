"""Building test positions with ``Game.from_dict`` and driving them by action labels, on the engine under test.

A rules-scenario test module (``pytestmark = pytest.mark.rules_scenario``: ``test_cards_basic.py``,
``test_cards_advanced.py``, ``test_rules_basic.py``, ``test_rulings.py``) runs each test twice (``conftest.py``):
``[reference]`` on the reference engine, and ``[kernels]``, where the helpers below go through a one-game
``VectorGame(engine="kernels")``:

- ``scenario`` runs the position's first pending steps (the reserve limit, automatic steps such as the start of a
  turn) in the kernels, as ``Game.from_dict`` runs them on the reference engine;
- ``act`` applies each action in the kernels; ``labels`` reads the kernels' legal mask; ``refuse`` offers the
  kernels an illegal action.

Before and after every action, the kernels' position (``to_dict``: every field, the chance stream and the pending
steps), legal mask and observation must equal the reference engine's, and no step may have fallen back on the
reference engine; the test's ``game`` then holds the kernels' position, so its assertions read what the kernels
computed. A rules change made in one engine only therefore fails the test on the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from seasons_env import Game, IllegalActionError, describe_action
from seasons_env.engine import actions as A
from seasons_env.engine import serialization
from seasons_env.engine.state import State

#: The engines a rules-scenario test runs on (its test ids end in ``[reference]`` or ``[kernels]``).
ENGINES = ("reference", "kernels")
_engine = "reference"
#: Under the kernels, each scenario game's batch, by ``id(game)``: (the game, its ``OnKernels``, its position when
#: the batch last wrote it). A test's game keeps one batch from its start to its end, unless the test changes it.
_runs: dict[int, tuple[Game, OnKernels, dict]] = {}


@contextmanager
def engine_under_test(engine: str) -> Iterator[None]:
    """Route the helpers of this module through ``engine`` (one of ``ENGINES``) inside the block."""
    global _engine
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}; got {engine!r}")
    previous, _engine = _engine, engine
    _runs.clear()
    try:
        yield
    finally:
        _engine = previous
        _runs.clear()


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
    game = Game.from_dict(state)
    if _engine == "kernels":
        # The kernels start from the position as read, its first pending steps not yet run.
        _follow(game, OnKernels(game, start=serialization.from_dict(Game, state)))
    return game


class OnKernels:
    """A position in a one-game ``VectorGame`` on the kernels, and on the reference engine alongside: after every
    action the batch's position, legal mask and observation must equal the reference game's."""

    def __init__(self, game: Game, start: Game | None = None) -> None:
        """``game``: the reference position; ``start``: the same position with its first pending steps not yet
        run (``serialization.from_dict``), for the kernels to run them (by default they start from ``game``)."""
        from seasons_env.vector import VectorGame

        self.reference = game.clone()
        # From a position, the kernels run to the next decision themselves and write its legal actions.
        self.batch = VectorGame.from_games([game if start is None else start], autoreset=False, engine="kernels")
        self._check("the start")

    @property
    def game(self) -> Game:
        """The batch's game (a copy)."""
        return self.batch.game(0)

    def labels(self) -> list[str]:
        """Labels of the actions legal in the batch."""
        return [describe_action(a) for a in np.flatnonzero(self.batch.legal_mask()[0]).tolist()]

    def act(self, *choices: str | int) -> OnKernels:
        """Apply actions given by id or by exact label (legal in the batch) to both, comparing them after each."""
        for choice in choices:
            if isinstance(choice, int):
                action = choice
            else:
                matches = [a for a, label in zip(self._legal(), self.labels(), strict=True) if label == choice]
                if not matches:
                    raise AssertionError(f"{choice!r} is not legal in the kernels; legal: {self.labels()}")
                action = matches[0]
            self.batch.apply(np.array([action], dtype=np.int64))
            self.reference.apply(action)
            self._check(f"after {choice!r}")
        return self

    def refuse(self, action: int) -> None:
        """``action`` is illegal in the batch: refused with ``IllegalActionError``, nothing changed (a finished
        game's batch has no legal action and ignores any)."""
        if self.batch.is_over[0]:
            assert not self.batch.legal_mask()[0].any(), "a finished game has legal actions in the kernels"
            return
        with pytest.raises(IllegalActionError):
            self.batch.apply(np.array([action], dtype=np.int64))
        self._check(f"after refusing {action}")

    def _legal(self) -> list[int]:
        return np.flatnonzero(self.batch.legal_mask()[0]).tolist()

    def _check(self, where: str) -> None:
        from seasons_env.vector.differential import compare_batch

        got, want = self.batch.game(0).to_dict(), self.reference.to_dict()
        assert got == want, f"{where}: the kernels' position differs from the reference's: {_difference(got, want)}"
        divergence = compare_batch(self.batch, [self.reference], where)
        assert divergence is None, divergence


def _difference(got: object, want: object, path: str = "") -> str:
    """The first field that differs between two ``to_dict`` trees, with both values."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want), key=str):
            if got.get(key) != want.get(key):
                return _difference(got.get(key), want.get(key), f"{path}.{key}" if path else str(key))
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for k, (a, b) in enumerate(zip(got, want, strict=True)):
            if a != b:
                return _difference(a, b, f"{path}[{k}]")
    return f"{path}: kernels {got!r:.300} != reference {want!r:.300}"


def _on_kernels(game: Game) -> OnKernels:
    """The batch of ``game``: the one it was last written from, or a new one if the test changed ``game`` since."""
    known = _runs.get(id(game))
    if known is not None and known[0] is game and game.to_dict() == known[2]:
        return known[1]
    return OnKernels(game)


def _follow(game: Game, run: OnKernels) -> None:
    """Make ``game`` hold the kernels' position (a copy no one else holds), remembering its batch."""
    other = run.game
    for name in State.__slots__:
        setattr(game, name, getattr(other, name))
    _runs[id(game)] = (game, run, game.to_dict())


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
    """Labels of the legal actions (on the engine under test)."""
    if _engine == "kernels":
        return _on_kernels(game).labels()
    return [describe_action(a) for a in game.legal_action_list()]


def act(game: Game, *choices: str | int) -> Game:
    """Apply actions given by id or by exact label (see ``describe_action``), on the engine under test."""
    if _engine == "kernels":
        _follow(game, _on_kernels(game).act(*choices))
        return game
    for choice in choices:
        game.apply(action_of(game, choice))
    return game


def refuse(game: Game, action: int) -> None:
    """``action`` is illegal in ``game`` on the engine under test: it raises ``IllegalActionError`` and changes
    nothing."""
    if _engine == "kernels":
        _on_kernels(game).refuse(action)
        return
    before = game.to_dict()
    with pytest.raises(IllegalActionError):
        game.apply(action)
    assert game.to_dict() == before


__all__ = [
    "ENGINES",
    "A",
    "OnKernels",
    "act",
    "action_of",
    "engine_under_test",
    "labels",
    "refuse",
    "rest_of_round",
    "scenario",
]
