"""Expert iteration's games searched by the compiled policy-ISMCTS (``expert_search = "kernels"``).

The same game as ``expert._game_steps`` plays, held as one row of the rules kernels (``RulesBatch``) instead of a
reference ``Game``: a searched decision's view is the deciding seat's determinization of that row
(``hidden_kernels.determinize_row``, from the draws ``Game.determinize`` takes from the game's generator), searched
by ``CompiledSearch.run_row`` (one compiled call; its seed drawn from the agent's generator, seeded by the game's
seed), and its row's observation is the kernels' ``observe_row`` (the same values as ``encode_observation``). Nothing
of a search is packed from or unpacked to Python objects; the game is unpacked once, at its end, for its scores.

With ``job.full_share`` below 1 (playout-cap randomisation), a decision is searched in full and kept as a row with
that chance, drawn from a generator of its own (so the setting changes nothing else of the game's draws), and the
others are searched with ``job.fast_iterations`` and only played.
"""

from __future__ import annotations

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.chance import key_of_seed

from .expert_rows import oracle_features
from .expert_targets import game_rows, played_action, policy_target, search_margin, visit_target_of_visits


def search_game_compiled(job) -> dict[str, np.ndarray]:
    """The rows of ``job``'s game (a ``expert.SearchJob``), every seat searched by the compiled search."""
    from seasons_agents.gumbel_search import gumbel_search_row
    from seasons_agents.policy_ismcts import DEFAULT_SCALE, compiled_search
    from seasons_env.vector.arrays import ArrayState
    from seasons_env.vector.kernels.api import RulesBatch, determinize_row, hidden_pool_size, kernel_arrays, observe_row

    search = compiled_search(job.model)
    rng = np.random.default_rng([job.seed, 0x5EA2C])  # the game's draws (its views, its sampled moves)
    agent_rng = np.random.default_rng(job.seed)  # the searches' seeds
    cap_rng = np.random.default_rng([job.seed, 0xCA9])  # which decisions are searched in full
    batch = RulesBatch(ArrayState.empty(1, job.players), np.zeros((1, NUM_ACTIONS), dtype=np.bool_))
    batch.new_games(np.zeros(1, dtype=np.int64), job.level, [job.seed])
    view = ArrayState.empty(1, job.players)
    view_arrays = kernel_arrays(view)
    searched = [0] * job.players
    observations, masks, targets, seats, margins, oracles = [], [], [], [], [], []
    own = np.empty((job.players, OBSERVATION_SIZE), dtype=np.float32)  # every seat's observation: the oracle's cards
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
        if job.full_share < 1.0 and cap_rng.random() >= job.full_share:  # a fast search, played and not kept
            fast = search.run_row(view_arrays, seat, seed, job.fast_iterations, job.exploration, DEFAULT_SCALE)[0]
            sample = searched[seat] < job.sample_moves
            batch.apply(np.array([played_action(visit_target_of_visits(fast, legal), sample, rng)]))
            searched[seat] += 1
            continue
        for p in range(job.players):
            observe_row(batch.arrays, 0, p, own[p])
        observation = own[seat].copy()
        if job.root == "gumbel":  # the seat's prior at the root from its view: the seat's observation's logits
            gumbel = gumbel_search_row(
                search,
                view_arrays,
                seat,
                legal,
                seed,
                job.iterations,
                job.exploration,
                DEFAULT_SCALE,
                job.considered,
                job.q_scale,
            )
            found, logits = (gumbel.visits, gumbel.rewards), gumbel.logits
        else:
            wanted = job.policy_target != "visits" or job.extra_iterations > 0
            logits = search.policy.forward(observation[None])[0][0] if wanted else None
            found = _puct_search(search, view_arrays, seat, seed, job, legal, logits)
        visits = visit_target_of_visits(found[0], legal)
        margins.append(search_margin(found[0], found[1], legal, search.last_baseline[seat], DEFAULT_SCALE))
        observations.append(observation)
        masks.append(batch.legal[0].copy())
        targets.append(policy_target(job.policy_target, logits, found[0], found[1], legal, visits, job.q_scale))
        seats.append(seat)
        oracles.append(oracle_features(own, seat))
        if job.root == "gumbel":
            action = gumbel.action  # the Gumbel variables already make the games vary
        else:
            action = played_action(visits, searched[seat] < job.sample_moves, rng)  # the search's choice, either way
        searched[seat] += 1
        batch.apply(np.array([action]))
    game = batch.game(0)
    scores = [int(s) for s in game.scores()]
    return game_rows(job, observations, masks, targets, seats, margins, scores, game.winners(), oracles)


def _puct_search(search, root, seat: int, seed: int, job, legal: np.ndarray, logits) -> tuple[np.ndarray, np.ndarray]:
    """The root's visits and summed rewards by action of the compiled PUCT search (``CompiledSearch.run_row``), with
    ``job.extra_iterations`` more on the same tree when its most visited legal action is not the network's top one
    (``logits``, the seat's prior logits at the root)."""
    from seasons_agents.policy_ismcts import DEFAULT_SCALE
    from seasons_env.interrupts import held_signals

    with held_signals():
        work, baseline, tree = search.start_tree(root, seat, seed, job.iterations + job.extra_iterations)
        settings = (job.exploration, DEFAULT_SCALE, baseline)
        tree = search.run_budget(root, seat, job.iterations, job.iterations, settings, tree, work)
        visits, rewards = search.root_statistics(seat, tree)
        if job.extra_iterations and np.argmax(visits[legal]) != np.argmax(logits[legal]):
            tree = search.run_budget(root, seat, job.extra_iterations, 0, settings, tree, work)
            visits, rewards = search.root_statistics(seat, tree)
    return visits, rewards
