"""The targets of expert iteration's searched decisions, whichever search made them: the policy target (the root's
visit distribution, or Gumbel MuZero's completed-Q improved policy), the search's value of the root as a margin, the
value target mixing it with the game's result, the action a searched decision plays, and a finished game's rows
(``expert.FIELDS``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seasons_agents.gumbel_search import Q_SCALE, improved_logits
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS

from .data import final_margins
from .expert_rows import ORACLE_SIZE


def visit_target_of_visits(visits: np.ndarray, legal: Sequence[int]) -> np.ndarray:
    """The policy target of a root's visits by action (``[NUM_ACTIONS]``): each legal action's visits over their sum,
    zero on every other action (uniform over ``legal`` if none was visited); ``visit_target`` of a tree."""
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
    logits: np.ndarray, visits: np.ndarray, rewards: np.ndarray, legal: Sequence[int], q_scale: float = Q_SCALE
) -> np.ndarray:
    """The improved policy of Gumbel MuZero (Danihelka et al., ICLR 2022) over ``legal`` (``[NUM_ACTIONS]``, zero
    elsewhere): ``softmax(logits + sigma(completed Q))``, the network's prior logits at the root shifted by each
    action's completed value (``seasons_agents.gumbel_search.improved_logits``, ``q_scale`` its scale). Unlike the
    visit counts it still moves the policy where the search agrees with the prior. Every action unvisited: the prior
    itself."""
    legal = np.asarray(legal, dtype=np.int64)
    shifted = improved_logits(logits[legal], visits[legal], rewards[legal], q_scale)
    improved = np.exp(shifted - shifted.max())
    target = np.zeros(NUM_ACTIONS, dtype=np.float32)
    target[legal] = improved / improved.sum()
    return target


def policy_target(
    kind: str, logits: np.ndarray | None, visits, rewards, legal, visit_target: np.ndarray, q_scale: float = Q_SCALE
) -> np.ndarray:
    """The row's policy target: the visit distribution ``visit_target`` (``"visits"``), or the completed-Q improved
    policy from the root's ``logits`` (``"completed-q"``)."""
    if kind == "visits":
        return visit_target
    return completed_q_target(logits, visits, rewards, legal, q_scale)


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
    job, observations, masks, targets, seats, search_margins, scores: Sequence[int], winners, oracles
) -> dict[str, np.ndarray]:
    """A finished game's searched decisions as rows (``expert_rows.FIELDS``): each decision's observation, mask, visit
    target, seat and the search's value of it as a margin (``search_margin``), with the game's settings and, for its
    seat, the final margin, win share and final score, and the other seats' hidden cards at the decision
    (``expert_rows.oracle_features``)."""
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
        "score": np.asarray([scores[s] for s in seats], dtype=np.float32),
        "oracle": np.asarray(oracles, dtype=np.float16).reshape(rows, ORACLE_SIZE),
    }


def tempered(target: np.ndarray, temperature: float) -> np.ndarray:
    """Policy targets (``[rows, NUM_ACTIONS]``, each summing to 1) raised to ``1 / temperature`` and renormalised by
    row: below 1 the search's preferred actions gain weight, at 1 the targets as they are; a zero stays zero."""
    if temperature == 1.0:
        return target
    # each row scaled by its largest entry first, so that a small temperature cannot underflow the whole row
    powered = np.power(target.astype(np.float64) / target.max(axis=1, keepdims=True), 1.0 / temperature)
    return (powered / powered.sum(axis=1, keepdims=True)).astype(np.float32)


def value_target(margin: np.ndarray, search_margin: np.ndarray, mix: float) -> np.ndarray:
    """The value head's target of each row (float32): ``margin_target`` of the game's final ``margin``, mixed with
    that of the search's root value ``search_margin`` in the share ``mix`` (``expert_value_mix``; 0: the final margin
    alone, ``search_margin`` unread)."""
    from seasons_agents.network import margin_target

    target = margin_target(margin).astype(np.float32)
    if mix == 0:
        return target
    return ((1.0 - mix) * target + mix * margin_target(search_margin)).astype(np.float32)


def visit_target(root, seat: int, legal: Sequence[int]) -> np.ndarray:
    """The root's visit distribution over the actions (``[NUM_ACTIONS]`` float32): the visits of each legal action
    of ``seat`` over their sum, zero on every other action (uniform over ``legal`` if none was visited)."""
    return visit_target_of_visits(root_children(root, seat, legal)[0], legal)


def root_children(root, seat: int, legal: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """A reference search root's children of ``seat`` (keyed ``seat * NUM_ACTIONS + a``) as the compiled search
    returns them: visits and summed rewards by action."""
    base = seat * NUM_ACTIONS
    visits, rewards = np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS, dtype=np.float64)
    for a in legal:
        child = root.children.get(base + a)
        if child is not None:
            visits[a], rewards[a] = child.visits, child.reward
    return visits, rewards
