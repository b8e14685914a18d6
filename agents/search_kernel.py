"""Policy-ISMCTS compiled: the whole search of one decision in compiled calls over the rules kernels.

The algorithm is ``PolicyISMCTSAgent``'s (``policy_ismcts.py``): one tree shared by every determinization, children
keyed by ``player * NUM_ACTIONS + action``, availability counts, PUCT selection ``Q + c * P * sqrt(avail) /
(1 + visits)`` with an unvisited child's ``Q`` the parent's mean, expansion by the highest prior; the prior is the
network's masked softmax for the player to move from that player's observation; a leaf is scored by the value head
for every player (``VALUE_SCALE * atanh(v)``, then a logistic of its change since the root over ``scale``), a finished
game by its win shares; single-option decisions are applied without a node.

Here the position is a row of an ``ArrayState``: each iteration redraws the hidden cards with
``hidden_kernels.determinize_row`` into a work row, steps it with ``machine.apply_row`` (no observation written) and
writes an observation (``observe_rows.observe_row``) only where the network is asked, the network being the compiled
forward pass (``policy_kernel.py``). The tree lives in two preallocated arrays that grow by doubling: ``links[node]``
(key, visits, avail, first child, next sibling, expanded) and ``stats[node]`` (prior, reward). Every prior the search
has given a node's actions is an entry of its child list; an entry becomes a child of the tree (``expanded``) when
selection first takes it.

Randomness: every draw (each determinization's chance key and card order) comes from the search's own counter-based
stream (SplitMix64, as ``engine/chance.py``), whose key is the ``seed`` the caller passes, so the same seed gives the
same search whatever ran before. ``CompiledSearch`` is the Python side.

The walk's pieces (the stream, the determinization, the tree's storage, the path and its backup, the win shares, the
root's statistics) and the Python side's ``RowSearch`` are shared with the compiled ISMCTS (``ismcts_kernel.py``),
which differs in selection, expansion and the leaf's evaluation.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.chance import key_of_seed
from seasons_env.engine.machine import Game
from seasons_env.interrupts import deliver_held, held_signals
from seasons_env.vector.arrays import ArrayState, pack
from seasons_env.vector.kernels.api import (
    OVER,
    STEP_WIDTH,
    STOPPED,
    apply_row,
    determinize_row,
    hidden_pool_size,
    kernel_arrays,
    observe_row,
    run,
)

from .kernel_cache import group_kernel
from .policy_format import VALUE_SCALE
from .policy_kernel import PolicyKernel, forward_row, value_row

#: The compiled searches' kernel decorator (``kernel_cache.py``), shared with ``policy_kernel.py``.
kernel = group_kernel("search")
#: Its kernels compiled only inside their callers: a layer between a kernel Python calls and a kernel that links the
#: rules' or the evaluation's code is optimised and turned into machine code once, in its caller, not once more itself.
inline_kernel = group_kernel("search", inline=True)
#: Its kernels whose 64-bit arithmetic wraps around on purpose (``seasons_env.vector.kernels.wrapping_kernel``).
wrapping_kernel = group_kernel("search", wrapping=True)

#: ``links`` columns.
KEY, VISITS, AVAIL, FIRST, NEXT, EXPANDED = range(6)
#: ``stats`` columns.
PRIOR, REWARD = range(2)
#: ``counters``: nodes used, the stream's key and counter, iterations run.
USED, STREAM_KEY, STREAM_COUNTER, DONE = range(4)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@wrapping_kernel
def _word(counters):
    """The stream's next 64-bit word (``chance.word``)."""
    key = np.uint64(counters[STREAM_KEY])
    counter = np.uint64(counters[STREAM_COUNTER])
    counters[STREAM_COUNTER] += 1
    z = key + (counter + np.uint64(1)) * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel
def draw_below(counters, n):
    """A uniform int in ``0..n-1`` (Lemire's multiply-shift on the word's two halves, as ``state_ops.below``)."""
    w = _word(counters)
    nn = np.uint64(n)
    high = w >> np.uint64(32)
    low = w & np.uint64(0xFFFFFFFF)
    return np.int64((high * nn + ((low * nn) >> np.uint64(32))) >> np.uint64(32))


@kernel
def _permutation(counters, size):
    order = np.arange(size)
    for place in range(size - 1, 0, -1):
        other = draw_below(counters, place + 1)
        order[place], order[other] = order[other], order[place]
    return order


@kernel
def _margin(value):
    """``VALUE_SCALE * atanh(v)``, ``v`` clipped to +-0.999: the expected final margin in score points."""
    v = min(0.999, max(-0.999, value))
    return VALUE_SCALE * np.arctanh(v)


@kernel
def margins_row(s, i, net, obs, h, g, out):
    """Every player's expected final margin by the value head, each from its own observation of row ``i``."""
    for p in range(out.shape[0]):
        observe_row(s, i, p, obs)
        out[p] = _margin(value_row(obs, net, h, g))


@kernel
def logistic(x):
    return 1.0 / (1.0 + np.exp(-max(-50.0, min(50.0, x))))


@kernel
def grow_tree(links, stats, needed):
    """The tree's arrays with room for ``needed`` nodes (doubled until they fit); the same arrays if they do."""
    size = links.shape[0]
    if needed <= size:
        return links, stats
    while size < needed:
        size *= 2
    new_links = np.zeros((size, links.shape[1]), dtype=np.int64)
    new_stats = np.zeros((size, stats.shape[1]), dtype=np.float64)
    new_links[: links.shape[0]] = links
    new_stats[: stats.shape[0]] = stats
    return new_links, new_stats


@kernel
def win_shares(s, status, shares):
    """Each player's share of the win of row 0 if the game is over (``status``), the winners splitting 1 (the best
    final score, ties broken by the most cards in play; ``Game.winners``); False (shares untouched) if it is not."""
    if status != OVER:
        return False
    n = shares.shape[0]
    best = s.final_scores[0, 0]
    for p in range(n):
        best = max(best, s.final_scores[0, p])
    most = -1
    for p in range(n):
        if s.final_scores[0, p] == best:
            most = max(most, np.int64(s.in_play_count[0, p]))
    winners = 0
    for p in range(n):
        if s.final_scores[0, p] == best and s.in_play_count[0, p] == most:
            winners += 1
    for p in range(n):
        won = s.final_scores[0, p] == best and s.in_play_count[0, p] == most
        shares[p] = 1.0 / winners if won else 0.0
    return True


@inline_kernel
def _rewards(s, status, net, baseline, scale, obs, h, g, margins, rewards):
    """Each player's reward for the position reached: the win shares of a finished game, else the logistic of its
    value-head margin's change since the root."""
    if win_shares(s, status, rewards):
        return
    margins_row(s, 0, net, obs, h, g, margins)
    for p in range(rewards.shape[0]):
        rewards[p] = logistic((margins[p] - baseline[p]) / scale)


# The walk's pieces, shared with the compiled ISMCTS (``ismcts_kernel.py``).


@inline_kernel
def determinize_work(root, seat, work, counters):
    """Row 0 of ``work``: row 0 of ``root`` with the hidden cards ``seat`` cannot see redrawn from the stream."""
    key = _word(counters)
    order = _permutation(counters, hidden_pool_size(root, 0, seat))
    determinize_row(root, 0, seat, work, 0, key, order)


@kernel
def legal_actions(legal, actions):
    """The legal actions of row 0 (``legal[0]``) ascending into ``actions``; how many."""
    size = 0
    for a in range(NUM_ACTIONS):
        if legal[0, a]:
            actions[size] = a
            size += 1
    return size


@kernel
def player_to_move(work):
    """The player who decides row 0's pending step."""
    return np.int64(work.stack[0, work.stack_depth[0] - 1, 1])


@kernel
def map_children(links, node, base, slot, clear):
    """``slot[a]``: the child of ``node`` keyed ``base + a`` (the node's entries for one player's actions, by action),
    or -1 again for each of them when ``clear`` (the map emptied for the next node)."""
    child = links[node, FIRST]
    while child >= 0:
        k = links[child, KEY] - base
        if 0 <= k < NUM_ACTIONS:
            slot[k] = -1 if clear else child
        child = links[child, NEXT]


@kernel
def new_entry(links, stats, counters, node, key, expanded):
    """A new child of ``node`` keyed ``key`` (the arrays have room for it: ``grow_tree``); its index."""
    entry = counters[USED]
    counters[USED] += 1
    links[entry, KEY] = key
    links[entry, VISITS] = 0
    links[entry, AVAIL] = 1
    links[entry, FIRST] = -1
    links[entry, EXPANDED] = expanded
    stats[entry, REWARD] = 0.0
    links[entry, NEXT] = links[node, FIRST]
    links[node, FIRST] = entry
    return entry


@kernel
def push_path(path_nodes, path_players, depth, node, player):
    """The path with ``(node, player)`` at ``depth`` (the arrays doubled when full)."""
    if depth == path_nodes.shape[0]:
        path_nodes = np.concatenate((path_nodes, np.empty(depth, dtype=np.int64)))
        path_players = np.concatenate((path_players, np.empty(depth, dtype=np.int64)))
    path_nodes[depth], path_players[depth] = node, player
    return path_nodes, path_players


@kernel
def backup(links, stats, counters, path_nodes, path_players, depth, rewards):
    """One iteration's result: a visit of the root and of every node of the path, each node getting the reward of
    the player who chose it."""
    links[0, VISITS] += 1
    for k in range(depth):
        links[path_nodes[k], VISITS] += 1
        stats[path_nodes[k], REWARD] += rewards[path_players[k]]
    counters[DONE] += 1


@kernel
def search_iterations(root, seat, net, count, exploration, scale, baseline, counters, links, stats, work, root_action):
    """Run ``count`` iterations of the search from row 0 of ``root`` (the seat's view, at its decision) on the tree
    (``links``, ``stats``, ``counters``; see the module), row 0 of ``work`` being played on; returns the tree's arrays
    (grown if they had to) and how many iterations ran. ``root_action`` (-1: none) is the root's child every iteration
    takes where it is legal, PUCT choosing below it (Gumbel's sequential halving, ``gumbel_search.py``)."""
    n = baseline.shape[0]
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(NUM_ACTIONS, dtype=np.int64)
    legal = np.zeros((1, NUM_ACTIONS), dtype=np.bool_)
    actions = np.empty(NUM_ACTIONS, dtype=np.int64)
    slot = np.full(NUM_ACTIONS, -1, dtype=np.int64)
    width = net[0].shape[1]
    h = np.empty(width, dtype=np.float32)
    g = np.empty(width, dtype=np.float32)
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    logits = np.empty(NUM_ACTIONS, dtype=np.float32)
    prior = np.empty(NUM_ACTIONS, dtype=np.float64)
    margins = np.empty(n, dtype=np.float64)
    rewards = np.empty(n, dtype=np.float64)
    path_nodes = np.empty(16, dtype=np.int64)
    path_players = np.empty(16, dtype=np.int64)
    for _ in range(count):
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
            map_children(links, node, base, slot, False)  # the node's entries for this player's actions, by action
            missing = False
            for m in range(size):
                if slot[actions[m]] < 0:
                    missing = True
            if missing:  # the network's prior over the actions legal here (as dict.update: known ones replaced)
                observe_row(work, 0, player, obs)
                forward_row(obs, net, h, g, logits)
                best = -np.inf
                for m in range(size):
                    best = max(best, np.float64(logits[actions[m]]))
                total = 0.0
                for m in range(size):
                    prior[m] = np.exp(np.float64(logits[actions[m]]) - best)
                    total += prior[m]
                links, stats = grow_tree(links, stats, counters[USED] + size)
                for m in range(size):
                    a = actions[m]
                    entry = slot[a]
                    if entry < 0:
                        entry = slot[a] = new_entry(links, stats, counters, node, base + a, 0)
                    stats[entry, PRIOR] = prior[m] / total
            visits = links[node, VISITS]
            parent_mean = stats[node, REWARD] / visits if visits else 0.5
            chosen, chosen_value = -1, -np.inf
            for m in range(size):
                entry = slot[actions[m]]
                p = stats[entry, PRIOR]
                if links[entry, EXPANDED]:
                    links[entry, AVAIL] += 1
                    v = links[entry, VISITS]
                    value = stats[entry, REWARD] / v + exploration * p * np.sqrt(links[entry, AVAIL]) / (1 + v)
                else:
                    value = parent_mean + exploration * p * np.sqrt(visits + 1)
                if value > chosen_value:
                    chosen, chosen_value = entry, value
            if root_action >= 0 and depth == 0 and player == seat and slot[root_action] >= 0:
                chosen = slot[root_action]
            map_children(links, node, base, slot, True)  # entries of actions not legal here emptied too
            path_nodes, path_players = push_path(path_nodes, path_players, depth, chosen, player)
            depth += 1
            status = apply_row(work, 0, links[chosen, KEY] - base, task, out, legal)
            if not links[chosen, EXPANDED]:
                links[chosen, EXPANDED] = 1
                break
            node = chosen
        _rewards(work, status, net, baseline, scale, obs, h, g, margins, rewards)
        backup(links, stats, counters, path_nodes, path_players, depth, rewards)
    return links, stats, count


@kernel
def root_margins(root, net, out):
    """``margins_row`` of row 0 with its own scratch (the search's baseline)."""
    width = net[0].shape[1]
    h = np.empty(width, dtype=np.float32)
    g = np.empty(width, dtype=np.float32)
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    margins_row(root, 0, net, obs, h, g, out)


@kernel
def root_children(seat, links, stats, visits, rewards):
    """The root's children of ``seat`` (expanded entries): their visits and summed rewards by action."""
    base = seat * NUM_ACTIONS
    child = links[0, FIRST]
    while child >= 0:
        a = links[child, KEY] - base
        if links[child, EXPANDED] and 0 <= a < NUM_ACTIONS:
            visits[a] = links[child, VISITS]
            rewards[a] = stats[child, REWARD]
        child = links[child, NEXT]


#: Iterations per compiled call when the budget is in seconds (the clock is read between calls).
_TIMED_CALL = 8
#: Iterations per compiled call with a budget of iterations (signals are acted on between calls: a few hundredths
#: of a second apart). The first call runs ``_BUDGET_OFFSET`` more, so that no call ends at a multiple of 16
#: iterations, where the compiled ISMCTS checks whether its choice is settled (``ismcts_kernel.SETTLE_EVERY``): a call
#: that stops early then returns fewer iterations than asked, and the calls together make the same search as one call.
_BUDGET_CALL = 256
_BUDGET_OFFSET = 8


class RowSearch(ABC):
    """The Python side of a compiled search over the rules kernels: the rows it plays on (one set a thread: the kernels
    release the interpreter lock), the tree's arrays, the budget and the root's statistics. A search is a kernel that
    runs iterations on the tree (``_iterations``) and the root's baseline (``_baseline``)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def last_baseline(self) -> np.ndarray:
        """Every player's margin at the root of this thread's last ``run_row`` (the rewards' centre), empty before
        one: with the root's mean reward it gives the search's value of the root as a margin."""
        return getattr(self._local, "baseline", np.zeros(0))

    def _work_row(self, num_players: int):
        rows = getattr(self._local, "rows", None)
        if rows is None:
            rows = self._local.rows = {}
        if num_players not in rows:
            state = ArrayState.empty(1, num_players)
            rows[num_players] = (state, kernel_arrays(state))
        return rows[num_players][1]

    @abstractmethod
    def _baseline(self, root: object, seat: int, out: np.ndarray) -> None:
        """Every player's margin at the root, the rewards' centre, into ``out``."""

    @abstractmethod
    def _iterations(self, root: object, seat: int, count: int, limit: int, settings: tuple, tree: tuple, work: object):
        """Run ``count`` iterations (``limit``: the search's iteration budget when it may stop early, else 0) on
        ``tree`` (``counters, links, stats``); returns the tree's ``links, stats`` and how many ran."""

    def run(
        self,
        view: Game,
        seat: int,
        seed: int,
        iterations: int,
        exploration: float,
        scale: float,
        seconds: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Search ``view`` (``seat``'s view, at its decision) with the stream of ``seed``: ``iterations`` iterations,
        or as many as fit in ``seconds`` when given. Returns the root's children of ``seat`` by action (visits
        int64 ``[NUM_ACTIONS]``, summed rewards float64) and the iterations run."""
        with held_signals():  # kernel_arrays is a compiled call too
            state = pack([view])  # kept referenced while the kernels read it: the struct does not own its arrays
            found = self.run_row(kernel_arrays(state), seat, seed, iterations, exploration, scale, seconds)
            del state
        return found

    def run_row(
        self,
        root: object,
        seat: int,
        seed: int,
        iterations: int,
        exploration: float,
        scale: float,
        seconds: float | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """``run`` from row 0 of ``root`` (the kernels' struct of an array state holding the seat's view; the caller
        keeps its arrays referenced).

        Ctrl-C and SIGTERM are held while the kernels run (``seasons_env.interrupts``) and acted on between calls of
        at most ``_BUDGET_CALL`` iterations: a signal's handler raising inside compiled code breaks it."""
        with held_signals():
            work, baseline, tree = self.start_tree(root, seat, seed, iterations)
            settings = (exploration, scale, baseline)
            if seconds is None:
                tree = self.run_budget(root, seat, iterations, iterations, settings, tree, work)
            else:
                deadline = time.perf_counter() + seconds
                while True:
                    links, stats, _ = self._iterations(root, seat, _TIMED_CALL, 0, settings, tree, work)
                    tree = (tree[0], links, stats)
                    if time.perf_counter() >= deadline:
                        break
                    deliver_held()
            visits, rewards = self.root_statistics(seat, tree)
            return visits, rewards, int(tree[0][DONE])

    def start_tree(self, root: object, seat: int, seed: int, iterations: int) -> tuple[object, np.ndarray, tuple]:
        """A new search from row 0 of ``root`` with the stream of ``seed``: this thread's work row, every player's
        margin at the root (the rewards' centre) and an empty tree ``(counters, links, stats)`` sized for
        ``iterations``."""
        num_players = root.crystals.shape[1]
        work = self._work_row(num_players)
        baseline = np.empty(num_players, dtype=np.float64)
        self._baseline(root, seat, baseline)
        self._local.baseline = baseline
        counters = np.zeros(4, dtype=np.int64)
        counters[USED] = 1
        counters[STREAM_KEY] = np.uint64(key_of_seed(seed)).view(np.int64)
        capacity = 16 * max(4, min(iterations, 4096))  # grown when a search needs more
        links = np.zeros((capacity, 6), dtype=np.int64)
        stats = np.zeros((capacity, 2), dtype=np.float64)
        links[0, FIRST] = -1
        return work, baseline, (counters, links, stats)

    def run_budget(
        self, root: object, seat: int, count: int, limit: int, settings: tuple, tree: tuple, work: object
    ) -> tuple:
        """``count`` more iterations on ``tree`` (fewer if the search stops early, ``limit`` being its budget), in
        calls of at most ``_BUDGET_CALL`` with held signals delivered between them (the caller holds them); the
        tree, its arrays grown if they had to."""
        counters, links, stats = tree
        done = 0
        while done < count:
            step = min(count - done, _BUDGET_CALL if done else _BUDGET_CALL + _BUDGET_OFFSET)
            links, stats, ran = self._iterations(root, seat, step, limit, settings, (counters, links, stats), work)
            if ran < step:  # the search stopped early: the choice is settled
                break
            done += ran
            deliver_held()
        return counters, links, stats

    @staticmethod
    def root_statistics(seat: int, tree: tuple) -> tuple[np.ndarray, np.ndarray]:
        """The root's children of ``seat`` by action: visits (int64 ``[NUM_ACTIONS]``) and summed rewards."""
        _, links, stats = tree
        visits = np.zeros(NUM_ACTIONS, dtype=np.int64)
        rewards = np.zeros(NUM_ACTIONS, dtype=np.float64)
        root_children(seat, links, stats, visits, rewards)
        return visits, rewards


class CompiledSearch(RowSearch):
    """The compiled policy-ISMCTS of one network: ``run`` searches one decision (see the module)."""

    def __init__(self, policy: PolicyKernel) -> None:
        super().__init__()
        self.policy = policy

    def _baseline(self, root: object, seat: int, out: np.ndarray) -> None:
        root_margins(root, self.policy.net, out)

    def _iterations(self, root: object, seat: int, count: int, limit: int, settings: tuple, tree: tuple, work: object):
        exploration, scale, baseline = settings[:3]
        counters, links, stats = tree
        net = self.policy.net
        root_action = settings[3] if len(settings) > 3 else -1
        return search_iterations(
            root, seat, net, count, exploration, scale, baseline, counters, links, stats, work, root_action
        )
