"""Step a ``RulesBatch`` and reference games side by side and report the first difference (tests, benchmarks).

``compare_random_play`` plays seeded random games through both engines at once (``compare_play_from``: given
positions, optionally opening with given actions): at every step, each game's row
(unpacked) must equal the reference game (``to_dict``: every field, chance stream and pending steps included),
and so must its legal actions, current player and end. The first divergence raises ``KernelDivergence`` with the
game, the step, the action and the fields that differ.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seasons_env.engine.machine import Game

from .batch import RulesBatch


class KernelDivergence(AssertionError):
    """A row of the kernel batch differs from the reference game."""


@dataclass
class Comparison:
    games: int
    decisions: int
    #: Steps run on the reference engine, by kind (the kinds without kernels).
    reference_steps: Counter


def _difference(row: dict, reference: dict, path: str = "") -> str:
    if isinstance(row, dict) and isinstance(reference, dict):
        for key in sorted(set(row) | set(reference), key=str):
            if row.get(key) != reference.get(key):
                return _difference(row.get(key), reference.get(key), f"{path}.{key}" if path else str(key))
    return f"{path}: kernels {row!r:.300} != reference {reference!r:.300}"


def compare_random_play(num_players: int, level: str, games: int, seed: int, check_every: int = 1) -> Comparison:
    """Play ``games`` random games (game k seeded ``seed + k``, actions from ``default_rng([seed, 1])``) through the
    kernels and the reference engine; compare every ``check_every`` steps and at the end."""
    references = [Game.new(num_players, level, seed=seed + k) for k in range(games)]
    return compare_play_from(references, seed, check_every)


def compare_play_from(
    references: Sequence[Game], seed: int, check_every: int = 1, openings: Sequence[Sequence[int]] = ()
) -> Comparison:
    """Play the positions ``references`` (one player count; changed in place) to their end through the kernels and
    the reference engine: game k first plays the actions ``openings[k]`` (when given), then random legal actions
    from ``default_rng([seed, 1])``; compare every ``check_every`` steps and at the end."""
    references = list(references)
    batch = RulesBatch.from_games(references)
    rng = np.random.default_rng([seed, 1])
    decisions = 0
    step = 0
    while not batch.is_over.all():
        rows = np.flatnonzero(~batch.is_over)
        choices = [np.flatnonzero(batch.legal[i]) for i in rows]
        actions = np.array([c[rng.integers(len(c))] for c in choices], dtype=np.int64)
        for k, i in enumerate(rows.tolist()):
            if i < len(openings) and step < len(openings[i]):
                actions[k] = openings[i][step]
        batch.apply(actions, rows)
        step += 1
        decisions += len(rows)
        for i, action in zip(rows.tolist(), actions.tolist(), strict=True):
            references[i].apply(action)
            if step % check_every == 0 or references[i].is_over:
                _check(batch, references[i], i, step, action)
    return Comparison(len(references), decisions, batch.reference_steps)


def _check(batch: RulesBatch, reference: Game, i: int, step: int, action: int) -> None:
    row = batch.game(i)
    where = f"game {i} (seed offset {i}), step {step}, after action {action}"
    if row.to_dict() != reference.to_dict():
        raise KernelDivergence(f"{where}: {_difference(row.to_dict(), reference.to_dict())}")
    legal = np.flatnonzero(batch.legal[i]).tolist()
    if legal != reference.legal_action_list():
        raise KernelDivergence(f"{where}: legal actions {legal} != reference {reference.legal_action_list()}")
    if int(batch.current_player[i]) != reference.current_player or bool(batch.is_over[i]) != reference.is_over:
        raise KernelDivergence(f"{where}: current player or end differs")
