"""The differential checks: the compiled engine stepped beside the reference engine, the first difference reported.

Two levels, one module:

- ``compare_batch`` / ``run_differential`` check a ``VectorGame`` (either backend) against reference games
  ``Game.new(num_players, level, seed=game_seed(seed, i, episode))`` stepped with the same seeded random actions and
  restarted when the batch restarts a game (``autoreset=True``). Before every step, for every game, the batch's
  current player, termination, legal mask, observation, scores and winners must equal what the reference engine
  gives (``encode_observation``, ``action_mask``, ``Game.scores``, ...), and at regular steps ``batch.game(i)`` must
  equal the reference game, generator included. The first difference is reported with its position: level,
  players, game index, episode, step and the field (``tests/test_vector.py``, ``benchmarks/vector_equivalence.py``).
- ``compare_random_play`` / ``compare_play_from`` step a ``RulesBatch`` (the compiled rules, no observation layer)
  and reference games side by side: at every step each row (unpacked) must equal the reference game (``to_dict``:
  every field, chance stream and pending steps included), and so must its legal actions, current player and end.
  The first divergence raises ``KernelDivergence`` with the game, the step, the action and the fields that differ
  (``tests/test_vector_rules_kernels.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..encoders.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from ..engine import Game
from ..engine.actions import NUM_ACTIONS
from .core import VectorGame, game_seed
from .kernels.batch import RulesBatch
from .policies import sample_legal

#: Far above any real game; a batch that has not finished this many steps in is a bug.
MAX_STEPS = 20_000


@dataclass(frozen=True)
class DifferentialReport:
    games: int
    steps: int
    decisions: int
    episodes_finished: int
    game_checks: int
    divergence: str | None


def _reference_arrays(refs: list[Game]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    b = len(refs)
    observations = np.zeros((b, OBSERVATION_SIZE), dtype=np.float32)
    masks = np.zeros((b, NUM_ACTIONS), dtype=np.bool_)
    current = np.full(b, -1, dtype=np.int64)
    over = np.zeros(b, dtype=np.bool_)
    for i, game in enumerate(refs):
        if game.is_over:
            over[i] = True
            continue
        current[i] = game.current_player
        encode_observation(game, current[i], observations[i])
        masks[i] = action_mask(game, current[i]).astype(np.bool_)
    return observations, masks, current, over


def compare_batch(batch: VectorGame, refs: list[Game], where: str = "") -> str | None:
    """The first difference between ``batch`` and the reference games ``refs`` (same length), or None.

    Finished games are compared on termination, scores and winners (their observation seat is the batch's
    convention: the last decider's, checked in the tests)."""
    observations, masks, current, over = _reference_arrays(refs)
    got_obs, got_masks, got_current, got_over = (
        batch.observations(),
        batch.legal_mask(),
        batch.current_player,
        batch.is_over,
    )
    scores, winners = batch.scores(), batch.winners
    for i, game in enumerate(refs):
        checks = [
            ("is_over", bool(got_over[i]), bool(over[i])),
            ("current_player", int(got_current[i]), int(current[i])),
            ("scores", scores[i].tolist(), game.scores()),
            ("winners", np.flatnonzero(winners[i]).tolist(), game.winners()),
        ]
        for field, got, want in checks:
            if got != want:
                return f"{where} game {i}: {field} is {got}, reference {want}"
        if over[i]:
            continue
        if not np.array_equal(got_masks[i], masks[i]):
            extra = np.flatnonzero(got_masks[i] & ~masks[i]).tolist()
            missing = np.flatnonzero(masks[i] & ~got_masks[i]).tolist()
            return f"{where} game {i}: legal mask differs (extra {extra}, missing {missing})"
        if not np.array_equal(got_obs[i], observations[i]):
            at = np.flatnonzero(got_obs[i] != observations[i]).tolist()
            return (
                f"{where} game {i}: observation differs at indices {at[:10]} "
                f"(got {got_obs[i][at[:10]].tolist()}, reference {observations[i][at[:10]].tolist()})"
            )
    return None


def run_differential(
    level: str,
    num_players: int,
    games: int,
    seed: int = 0,
    game_check_every: int = 10,
    episodes: int = 1,
    engine: str = "kernels",
) -> DifferentialReport:
    """Random play on a batch of ``games`` and on reference games alongside, until every game has finished
    ``episodes`` episodes (and been restarted into the next); the report's ``divergence`` is the first
    difference found, or None. ``engine``: the batch's backend (``VectorGame(engine=...)``)."""
    batch = VectorGame(games, num_players, level, seed=seed, autoreset=True, engine=engine)
    refs = [Game.new(num_players, level, seed=game_seed(seed, i, 0)) for i in range(games)]
    episode = [0] * games
    finished = np.zeros(games, dtype=np.int64)
    rng = np.random.default_rng((seed, 0xD1FF))
    decisions = checks = 0
    step = 0
    for step in range(1, MAX_STEPS + 1):
        where = f"{num_players}-player {level} seed {seed} step {step}:"
        divergence = compare_batch(batch, refs, where)
        if divergence is not None:
            return DifferentialReport(games, step, decisions, int(finished.sum()), checks, divergence)
        if step % game_check_every == 0:
            i = step // game_check_every % games
            if batch.game(i) != refs[i]:
                diff = _difference(batch.game(i).to_dict(), refs[i].to_dict())
                return DifferentialReport(
                    games, step, decisions, int(finished.sum()), checks, f"{where} game {i}: game(i) differs: {diff}"
                )
            checks += 1
        if (finished >= episodes).all():
            break
        masks = batch.legal_mask()
        running = masks.any(axis=1)
        actions = np.zeros(games, dtype=np.int64)
        actions[running] = sample_legal(masks[running], rng)
        info = batch.apply(actions)
        for i, ref in enumerate(refs):
            if ref.is_over:
                episode[i] += 1
                refs[i] = Game.new(num_players, level, seed=game_seed(seed, i, episode[i]))
                if not info.restarted[i]:
                    return DifferentialReport(
                        games, step, decisions, int(finished.sum()), checks, f"{where} game {i}: not restarted"
                    )
                continue
            ref.apply(int(actions[i]))
            decisions += 1
            if bool(info.finished[i]) != ref.is_over:
                return DifferentialReport(
                    games, step, decisions, int(finished.sum()), checks, f"{where} game {i}: finished flag differs"
                )
            if ref.is_over:
                finished[i] += 1
                if info.final_scores[i].tolist() != ref.scores():
                    return DifferentialReport(
                        games, step, decisions, int(finished.sum()), checks, f"{where} game {i}: final scores differ"
                    )
    else:
        return DifferentialReport(games, step, decisions, int(finished.sum()), checks, f"not over in {MAX_STEPS} steps")
    return DifferentialReport(games, step, decisions, int(finished.sum()), checks, None)


class KernelDivergence(AssertionError):
    """A row of the kernel batch differs from the reference game."""


@dataclass
class Comparison:
    games: int
    decisions: int


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
    return Comparison(len(references), decisions)


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


def _difference(row: dict, reference: dict, path: str = "") -> str:
    """The first field (by path, nested dictionaries followed) where ``row`` and ``reference`` differ."""
    if isinstance(row, dict) and isinstance(reference, dict):
        for key in sorted(set(row) | set(reference), key=str):
            if row.get(key) != reference.get(key):
                return _difference(row.get(key), reference.get(key), f"{path}.{key}" if path else str(key))
    return f"{path}: kernels {row!r:.300} != reference {reference!r:.300}"
