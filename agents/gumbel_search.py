"""Gumbel root selection with sequential halving (Danihelka et al., "Policy improvement by planning with Gumbel",
ICLR 2022) over the compiled policy-ISMCTS (``search_kernel.py``).

At the root, instead of PUCT:

1. Draw a Gumbel variable ``g(a)`` for each legal action (from the search's seed) and consider the ``considered``
   actions of highest ``g(a) + logits(a)`` (the network's prior logits for the deciding seat): sampling without
   replacement from the prior.
2. Split the budget of iterations over ``ceil(log2(considered))`` phases. In each, every action still considered gets
   the same share of the phase's iterations, each iteration forced through that root child (``root_action`` of
   ``search_kernel.search_iterations``; PUCT chooses below it, in the same shared tree); then the half of highest
   ``g(a) + logits(a) + sigma(q(a))`` stays. The last phase takes what is left of the budget.
3. Play the remaining action of highest ``g(a) + logits(a) + sigma(q(a))``.

``q`` is the completed value: a visited child's mean reward (the search's rewards are in [0, 1]), an unvisited one's
the mixed value of the root; the completed values rescaled to [0, 1] by their range and ``sigma(q) = (VISIT_INIT +
max visits) * Q_SCALE * q`` (the paper's constants, as DeepMind's mctx has them). ``improved_logits`` is the same
transform without the Gumbel variables: the policy target that expert iteration trains on
(``expert_policy_target="completed-q"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.interrupts import held_signals

#: The actions sampled at the root (the paper's m; its Go and chess agents used 16).
CONSIDERED = 16
#: ``sigma``'s constants: ``(VISIT_INIT + max visits) * Q_SCALE`` logits for the completed values' whole range.
VISIT_INIT = 50.0
Q_SCALE = 0.1


def improved_logits(
    prior_logits: np.ndarray,
    visits: np.ndarray,
    rewards: np.ndarray,
    q_scale: float = Q_SCALE,
    visit_init: float = VISIT_INIT,
) -> np.ndarray:
    """``logits + sigma(completed Q)`` over some actions (each argument indexed alike, float64 result): an action's Q
    is its summed ``rewards`` over its ``visits``; an unvisited action's is the mixed value ``v_mix`` (the root's own
    value, 0.5 by the rewards' centring, mixed with the prior-weighted Q of the visited ones); the completed Qs are
    rescaled to [0, 1] by their range. Every action unvisited: the logits themselves."""
    prior_logits = np.asarray(prior_logits, dtype=np.float64)
    prior = np.exp(prior_logits - prior_logits.max())
    prior /= prior.sum()
    n = np.asarray(visits, dtype=np.float64)
    visited = n > 0
    q = np.where(visited, np.asarray(rewards, dtype=np.float64) / np.maximum(n, 1.0), 0.0)
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
    return prior_logits + (visit_init + n.max()) * q_scale * completed


def halving_schedule(considered: int, iterations: int) -> list[tuple[int, int]]:
    """The phases of sequential halving as ``(actions, iterations each)``: ``considered`` actions halved (rounded
    up) after each of ``ceil(log2(considered))`` phases, each phase's share of ``iterations`` split evenly (at least one
    each), the last phase taking what the others left; never more than ``iterations`` in all (a budget too small for
    every phase ends the halving early). One action: every iteration to it."""
    if considered < 1 or iterations < 1:
        raise ValueError(f"considered and iterations must be at least 1; got {considered!r}, {iterations!r}")
    phases = max(1, math.ceil(math.log2(considered)))
    schedule, actions, used = [], considered, 0
    for phase in range(phases):
        left = iterations - used
        each = left // actions if phase == phases - 1 else max(1, iterations // (phases * actions))
        each = min(each, left // actions)
        if each < 1:
            break
        schedule.append((actions, each))
        used += actions * each
        actions = math.ceil(actions / 2)
    return schedule


@dataclass(frozen=True)
class GumbelResult:
    """A search's root: visits and summed rewards of the seat's children by action (``[NUM_ACTIONS]``), the
    iterations run, the action chosen and the network's prior logits at the root (``[NUM_ACTIONS]``)."""

    visits: np.ndarray
    rewards: np.ndarray
    iterations: int
    action: int
    logits: np.ndarray


def gumbel_search_row(
    search,
    root: object,
    seat: int,
    legal: Sequence[int],
    seed: int,
    iterations: int,
    exploration: float,
    scale: float,
    considered: int = CONSIDERED,
    q_scale: float = Q_SCALE,
) -> GumbelResult:
    """Search row 0 of ``root`` (the kernels' struct of the seat's view, at its decision among ``legal``) with
    Gumbel root selection and sequential halving (the module; ``q_scale`` sigma's scale), the stream of ``seed`` for
    the determinizations and the Gumbel variables; PUCT with ``exploration`` below the root. Ctrl-C and SIGTERM are
    held while the kernels run and acted on between calls, as ``RowSearch.run_row``. ``search``: a
    ``search_kernel.CompiledSearch`` (imported with the kernels only when a search runs, so that this module's
    constants are light to import)."""
    from seasons_env.vector.kernels.api import observe_row

    from .search_kernel import DONE

    legal = np.asarray(legal, dtype=np.int64)
    if len(legal) == 0:
        raise ValueError("gumbel_search_row: the root has no legal action")
    if considered < 1:
        raise ValueError(f"considered must be at least 1; got {considered!r}")
    with held_signals():
        observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        observe_row(root, 0, seat, observation)
        logits = search.policy.forward(observation[None])[0][0].astype(np.float64)
        gumbel = np.random.default_rng(seed).gumbel(size=len(legal))
        noisy = gumbel + logits[legal]
        count = min(considered, len(legal), iterations)
        kept = np.argsort(-noisy, kind="stable")[:count]  # indices into legal
        work, baseline, tree = search.start_tree(root, seat, seed, iterations)
        for actions, each in halving_schedule(count, iterations):  # never empty: 1 <= count <= iterations
            kept = kept[:actions]
            for k in kept:
                settings = (exploration, scale, baseline, int(legal[k]))
                tree = search.run_budget(root, seat, each, 0, settings, tree, work)
            visits, rewards = search.root_statistics(seat, tree)
            score = noisy + improved_logits(logits[legal], visits[legal], rewards[legal], q_scale) - logits[legal]
            kept = kept[np.argsort(-score[kept], kind="stable")]
        return GumbelResult(visits, rewards, int(tree[0][DONE]), int(legal[kept[0]]), logits.astype(np.float32))
