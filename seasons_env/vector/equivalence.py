"""The differential check of ``VectorGame`` against the reference engine (``tests/test_vector.py`` and
``benchmarks/vector_equivalence.py`` both run it).

Reference games ``Game.new(num_players, level, seed=game_seed(seed, i, episode))`` are stepped alongside the batch
with the same seeded random actions, and restarted when the batch restarts a game (``autoreset=True``). Before
every step, for every game, the batch's current player, termination, legal mask, observation, scores and winners
must equal what the reference engine gives (``encode_observation``, ``action_mask``, ``Game.scores``, …), and at
regular steps ``batch.game(i)`` must equal the reference game, generator included. The first difference is
reported with its position: level, players, game index, episode, step and the field.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encoding import OBSERVATION_SIZE, action_mask, encode_observation
from ..engine import Game
from ..engine.actions import NUM_ACTIONS
from .core import VectorGame, game_seed
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
                diff = _first_state_difference(batch.game(i).to_dict(), refs[i].to_dict())
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


def _first_state_difference(got: dict, want: dict) -> str:
    for key in sorted(set(got) | set(want)):
        if got.get(key) != want.get(key):
            return f"field {key!r}: {got.get(key)!r} != {want.get(key)!r}"
    return "no field differs"
