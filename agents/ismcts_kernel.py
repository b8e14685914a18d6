"""ISMCTS compiled: ``ISMCTSAgent``'s search (``ismcts.py``) of one decision in compiled calls over the rules kernels.

The algorithm is the reference search's: one tree shared by every determinization, children keyed by ``player *
NUM_ACTIONS + action``, availability counts, UCB1 over the children legal in the iteration's determinization with
``ln(availability)`` for the parent's visits (``mean + c * sqrt(ln(avail) / visits)``), expansion of a random untried
legal action (uniform, from the search's stream), single-option decisions applied without a node; the leaf is scored
by the heuristic's ``margins`` as the searching seat judges it (``heuristic_eval_kernel.margins_row``, the same floats
as the Python evaluation), each a logistic of its change since the root over ``scale``, a finished game counting its
win shares for half the reward; with an iteration budget the search stops once the most visited root action cannot
be caught with the iterations left (checked every 16 iterations, as the reference search does).

The walk's pieces come from the compiled policy-ISMCTS (``search_kernel.py``): the counter-based stream, the
determinization into a work row, the tree's arrays (every entry here is a node: expanded when created), the path and
its backup, the win shares, the root's statistics and the Python side (``RowSearch``). Rollouts are not compiled:
``ISMCTSAgent`` runs a search with rollouts on the reference engine.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector.kernels.api import OVER, STEP_WIDTH, STOPPED, apply_row, run

from .heuristic_eval_kernel import margins_row
from .kernel_cache import group_kernel
from .search_kernel import (
    AVAIL,
    DONE,
    FIRST,
    KEY,
    NEXT,
    REWARD,
    USED,
    VISITS,
    RowSearch,
    backup,
    determinize_work,
    draw_below,
    grow_tree,
    legal_actions,
    logistic,
    map_children,
    new_entry,
    player_to_move,
    push_path,
    win_shares,
)

#: The early stop is checked every this many iterations (``ismcts.run_iterations``).
SETTLE_EVERY = 16


#: This module's kernel decorator (``kernel_cache.py``).
kernel = group_kernel("ismcts")
#: Compiled only inside its callers (``search_kernel.inline_kernel``).
inline_kernel = group_kernel("ismcts", inline=True)


@inline_kernel
def leaf_rewards(s, status, seat, baseline, scale, margins, shares, rewards):
    """``ISMCTSAgent._rewards`` of row 0: each player's logistic of its heuristic margin's change since the root (as
    ``seat`` judges it), a finished game (``status == OVER``) counting its win shares for half the reward."""
    margins_row(s, 0, seat, margins)
    n = rewards.shape[0]
    for p in range(n):
        rewards[p] = logistic((margins[p] - baseline[p]) / scale)
    if win_shares(s, status, shares):
        for p in range(n):
            rewards[p] = 0.5 * shares[p] + 0.5 * rewards[p]


@kernel
def _settled(links, remaining):
    """True when no other child of the root can catch the most visited one with ``remaining`` iterations
    (``ISMCTSAgent._decided``)."""
    first = second = -1
    child = links[0, FIRST]
    while child >= 0:
        v = links[child, VISITS]
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
        child = links[child, NEXT]
    return second >= 0 and first - second > remaining


@kernel
def ismcts_iterations(root, seat, count, limit, exploration, scale, baseline, counters, links, stats, work):
    """Run ``count`` iterations of the search from row 0 of ``root`` (the seat's view, at its decision) on the tree
    (``links``, ``stats``, ``counters``; ``search_kernel``), row 0 of ``work`` being played on, stopping early once the
    choice is settled when ``limit`` (the search's iteration budget) is positive; returns the tree's arrays (grown if
    they had to) and how many iterations ran."""
    n = baseline.shape[0]
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(NUM_ACTIONS, dtype=np.int64)
    legal = np.zeros((1, NUM_ACTIONS), dtype=np.bool_)
    actions = np.empty(NUM_ACTIONS, dtype=np.int64)
    untried = np.empty(NUM_ACTIONS, dtype=np.int64)
    slot = np.full(NUM_ACTIONS, -1, dtype=np.int64)
    margins = np.empty(n, dtype=np.float64)
    shares = np.empty(n, dtype=np.float64)
    rewards = np.empty(n, dtype=np.float64)
    path_nodes = np.empty(16, dtype=np.int64)
    path_players = np.empty(16, dtype=np.int64)
    ran = 0
    while ran < count:
        determinize_work(root, seat, work, counters)
        status = run(work, 0, task, out, legal)  # the decision's options in this determinization
        node = 0
        depth = 0
        while status == STOPPED:
            size = legal_actions(legal, actions)
            if size == 1:
                status = apply_row(work, 0, actions[0], task, out, legal)
                continue
            player = player_to_move(work)
            base = player * NUM_ACTIONS
            map_children(links, node, base, slot, False)
            untried_count = 0
            chosen, chosen_value = -1, -np.inf
            for m in range(size):  # UCB1 over the legal children, each counted available
                entry = slot[actions[m]]
                if entry < 0:
                    untried[untried_count] = actions[m]
                    untried_count += 1
                    continue
                links[entry, AVAIL] += 1
                if untried_count == 0:
                    v = links[entry, VISITS]
                    value = stats[entry, REWARD] / v + exploration * np.sqrt(np.log(links[entry, AVAIL]) / v)
                    if value > chosen_value:
                        chosen, chosen_value = entry, value
            map_children(links, node, base, slot, True)
            if untried_count > 0:  # expand a random untried action
                action = untried[draw_below(counters, untried_count)]
                links, stats = grow_tree(links, stats, counters[USED] + 1)
                chosen = new_entry(links, stats, counters, node, base + action, 1)
            path_nodes, path_players = push_path(path_nodes, path_players, depth, chosen, player)
            depth += 1
            status = apply_row(work, 0, links[chosen, KEY] - base, task, out, legal)
            if untried_count > 0:
                break
            node = chosen
        leaf_rewards(work, status, seat, baseline, scale, margins, shares, rewards)
        backup(links, stats, counters, path_nodes, path_players, depth, rewards)
        ran += 1
        done = counters[DONE]
        if limit > 0 and done % SETTLE_EVERY == 0 and _settled(links, limit - done):
            break
    return links, stats, ran


@kernel
def leaf_rewards_of_row(s, over, seat, baseline, scale, rewards):
    """``leaf_rewards`` of row 0 with its own scratch (the tests compare it with the reference search's rewards)."""
    n = rewards.shape[0]
    leaf_rewards(s, OVER if over else STOPPED, seat, baseline, scale, np.empty(n), np.empty(n), rewards)


class CompiledISMCTS(RowSearch):
    """The compiled ISMCTS: ``run(view, seat, seed, iterations, exploration, scale, seconds)`` searches one decision
    (``search_kernel.RowSearch.run``; see the module)."""

    def _baseline(self, root: object, seat: int, out: np.ndarray) -> None:
        margins_row(root, 0, seat, out)  # row 0's margins as ``seat`` judges them: the search's baseline

    def _iterations(self, root: object, seat: int, count: int, limit: int, settings: tuple, tree: tuple, work: object):
        exploration, scale, baseline = settings
        counters, links, stats = tree
        return ismcts_iterations(root, seat, count, limit, exploration, scale, baseline, counters, links, stats, work)


_SEARCH: list[CompiledISMCTS] = []


def compiled_ismcts() -> CompiledISMCTS:
    """The process's compiled ISMCTS (it holds no settings: one serves every agent and thread)."""
    if not _SEARCH:
        _SEARCH.append(CompiledISMCTS())
    return _SEARCH[0]
