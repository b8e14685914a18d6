"""Expert iteration's games searched by the compiled policy-ISMCTS (``expert_search = "kernels"``).

The same game as ``expert._game_steps`` plays, held as one row of the rules kernels (``RulesBatch``) instead of a
reference ``Game``: a searched decision's view is the deciding seat's determinization of that row
(``hidden_kernels.determinize_row``, from the draws ``Game.determinize`` takes from the game's generator), searched
by ``CompiledSearch.run_row`` (one compiled call; its seed drawn from the agent's generator, seeded by the game's
seed), and its row's observation is the kernels' ``observe_row`` (the same values as ``encode_observation``). Nothing
of a search is packed from or unpacked to Python objects; the game is unpacked once, at its end, for its scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.chance import key_of_seed

from .data import final_margins


def visit_target_of_visits(visits: np.ndarray, legal: Sequence[int]) -> np.ndarray:
    """The policy target of a root's visits by action (``[NUM_ACTIONS]``): each legal action's visits over their sum,
    zero on every other action (uniform over ``legal`` if none was visited); ``expert.visit_target`` of a tree."""
    legal = np.asarray(legal, dtype=np.int64)
    target = np.zeros(NUM_ACTIONS, dtype=np.float32)
    chosen = visits[legal].astype(np.float64)
    if chosen.sum() <= 0:
        chosen[:] = 1.0
    target[legal] = chosen / chosen.sum()
    return target


#: The policy targets a searched decision can train on (``expert_policy_target``).
POLICY_TARGETS = ("visits", "completed-q")


def completed_q_target(
    logits: np.ndarray,
    visits: np.ndarray,
    rewards: np.ndarray,
    legal: Sequence[int],
    value_scale: float = 0.1,
    visit_init: float = 50.0,
) -> np.ndarray:
    """The improved policy of Gumbel MuZero (Danihelka et al., ICLR 2022) over ``legal`` (``[NUM_ACTIONS]``, zero
    elsewhere): ``softmax(logits + sigma(completed Q))``, the network's prior logits at the root shifted by each
    action's value. An action's Q is its children's mean reward (the search's logistic, in [0, 1]); an unvisited
    action's is the mixed value ``v_mix`` (the root's own value, 0.5 by the rewards' centring, mixed with the
    prior-weighted Q of the visited ones); the completed Qs are rescaled to [0, 1] by their range, and
    ``sigma(q) = (visit_init + max visits) * value_scale * q`` (the paper's constants, as DeepMind's mctx has them).
    Unlike the visit counts it still moves the policy where the search agrees with the prior. Every action unvisited:
    the prior itself."""
    legal = np.asarray(legal, dtype=np.int64)
    prior_logits = logits[legal].astype(np.float64)
    prior = np.exp(prior_logits - prior_logits.max())
    prior /= prior.sum()
    n = visits[legal].astype(np.float64)
    visited = n > 0
    q = np.where(visited, rewards[legal] / np.maximum(n, 1.0), 0.0)
    total = n.sum()
    if visited.any():
        weighted = float((prior[visited] * q[visited]).sum() / prior[visited].sum())
        v_mix = (0.5 + total * weighted) / (1.0 + total)
    else:
        v_mix = 0.5
    completed = np.where(visited, q, v_mix)
    low, high = completed.min(), completed.max()
    if high > low:
        completed = (completed - low) / (high - low)
    shifted = prior_logits + (visit_init + n.max()) * value_scale * completed
    improved = np.exp(shifted - shifted.max())
    target = np.zeros(NUM_ACTIONS, dtype=np.float32)
    target[legal] = improved / improved.sum()
    return target


def policy_target(kind: str, logits: np.ndarray | None, visits, rewards, legal, visit_target: np.ndarray) -> np.ndarray:
    """The row's policy target: the visit distribution ``visit_target`` (``"visits"``), or the completed-Q improved
    policy from the root's ``logits`` (``"completed-q"``)."""
    if kind == "visits":
        return visit_target
    return completed_q_target(logits, visits, rewards, legal)


def search_margin(
    visits: np.ndarray, rewards: np.ndarray, legal: Sequence[int], baseline: float, scale: float
) -> float:
    """The search's value of its root for the deciding seat, as a final margin: the mean reward of the seat's root
    children (``visits``, summed ``rewards`` by action) turned back through the rewards' logistic (``scale``, centred
    on the network's margin ``baseline`` at the root). A finished game's reward is a win share rather than a logistic
    of the margin, so near the end this is an approximation; the mean is clipped to [0.001, 0.999] (at most
    ``scale * 6.9`` points from the baseline). The network's own ``baseline`` if nothing was visited."""
    legal = np.asarray(legal, dtype=np.int64)
    count = float(visits[legal].sum())
    if count <= 0:
        return float(baseline)
    mean = min(0.999, max(0.001, float(rewards[legal].sum()) / count))
    return float(baseline + scale * np.log(mean / (1.0 - mean)))


def played_action(target: np.ndarray, sample: bool, rng: np.random.Generator) -> int:
    """The action a searched decision plays: drawn from the visit distribution ``target`` when ``sample`` (a seat's
    first ``search_sample_moves`` decisions, for variety), else the most visited (the first of equals)."""
    if sample:
        chances = target.astype(np.float64)
        return int(rng.choice(NUM_ACTIONS, p=chances / chances.sum()))
    return int(np.argmax(target))


def game_rows(
    job, observations, masks, targets, seats, search_margins, scores: Sequence[int], winners
) -> dict[str, np.ndarray]:
    """A finished game's searched decisions as rows (``expert.FIELDS``): each decision's observation, mask, visit
    target, seat and the search's value of it as a margin (``search_margin``), with the game's settings and, for its
    seat, the final margin and win share."""
    margins = final_margins(list(scores))
    rows = len(seats)
    return {
        "obs": np.asarray(observations, dtype=np.float32).reshape(rows, OBSERVATION_SIZE),
        "mask": np.asarray(masks, dtype=bool).reshape(rows, NUM_ACTIONS),
        "target": np.asarray(targets, dtype=np.float32).reshape(rows, NUM_ACTIONS),
        "seat": np.asarray(seats, dtype=np.int8),
        "players": np.full(rows, job.players, dtype=np.int8),
        "game": np.full(rows, job.game, dtype=np.int32),
        "margin": np.asarray([margins[s] for s in seats], dtype=np.float32),
        "win": np.asarray([1.0 / len(winners) if s in winners else 0.0 for s in seats], dtype=np.float32),
        "search_margin": np.asarray(search_margins, dtype=np.float32),
    }


def search_game_compiled(job) -> dict[str, np.ndarray]:
    """The rows of ``job``'s game (a ``expert.SearchJob``), every seat searched by the compiled search."""
    from seasons_agents.policy_ismcts import DEFAULT_SCALE, compiled_search
    from seasons_env.vector.arrays import ArrayState
    from seasons_env.vector.kernels.api import RulesBatch, determinize_row, hidden_pool_size, kernel_arrays, observe_row

    search = compiled_search(job.model)
    rng = np.random.default_rng([job.seed, 0x5EA2C])  # the game's draws (its views, its sampled moves)
    agent_rng = np.random.default_rng(job.seed)  # the searches' seeds
    batch = RulesBatch(ArrayState.empty(1, job.players), np.zeros((1, NUM_ACTIONS), dtype=np.bool_))
    batch.new_games(np.zeros(1, dtype=np.int64), job.level, [job.seed])
    view = ArrayState.empty(1, job.players)
    view_arrays = kernel_arrays(view)
    searched = [0] * job.players
    observations, masks, targets, seats, margins = [], [], [], [], []
    while not batch.state.over[0]:
        legal = np.flatnonzero(batch.legal[0])
        if len(legal) == 1:
            batch.apply(legal[:1])
            continue
        seat = int(batch.current_player[0])
        # Game.determinize's draws, in its order: the view's chance seed, then the hidden cards' permutation
        key = np.uint64(key_of_seed(int(rng.integers(2**63))))
        order = rng.permutation(hidden_pool_size(batch.arrays, 0, seat))
        determinize_row(batch.arrays, 0, seat, view_arrays, 0, key, order)
        seed = int(agent_rng.integers(2**63))
        found = search.run_row(view_arrays, seat, seed, job.iterations, job.exploration, DEFAULT_SCALE)
        visits = visit_target_of_visits(found[0], legal)
        margins.append(search_margin(found[0], found[1], legal, search.last_baseline[seat], DEFAULT_SCALE))
        observation = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        observe_row(batch.arrays, 0, seat, observation)
        logits = search.policy.forward(observation[None])[0][0] if job.policy_target != "visits" else None
        observations.append(observation)
        masks.append(batch.legal[0].copy())
        targets.append(policy_target(job.policy_target, logits, found[0], found[1], legal, visits))
        seats.append(seat)
        action = played_action(visits, searched[seat] < job.sample_moves, rng)  # the search's choice, either way
        searched[seat] += 1
        batch.apply(np.array([action]))
    game = batch.game(0)
    scores = [int(s) for s in game.scores()]
    return game_rows(job, observations, masks, targets, seats, margins, scores, game.winners())
