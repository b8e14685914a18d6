"""Gumbel root selection with sequential halving (``seasons_agents.gumbel_search``): the schedule of the budget, the
root forced through one child, the halving over the compiled policy-ISMCTS (budget, seeds, the action kept), the agent
and expert iteration's rows with it; expert iteration's extra iterations where the search and the network disagree;
bad settings named."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
import torch

from seasons_agents.gumbel_search import gumbel_search_row, halving_schedule, improved_logits
from seasons_agents.learned import shipped_model_path
from seasons_agents.network import NetworkConfig, PolicyValueNet, save_policy
from seasons_agents.policy_ismcts import PolicyISMCTSAgent, compiled_search
from seasons_env import Game
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector.arrays import pack
from seasons_env.vector.kernels.api import kernel_arrays
from seasons_training.config import make_config
from seasons_training.expert import SearchJob, search_game

torch.set_num_threads(1)


@pytest.mark.parametrize(("considered", "iterations"), [(16, 200), (16, 64), (5, 37), (2, 10), (3, 10), (16, 20)])
def test_the_halving_schedule_halves_the_actions_and_spends_the_budget(considered: int, iterations: int) -> None:
    schedule = halving_schedule(considered, iterations)
    actions = [a for a, _ in schedule]
    assert actions[0] == considered and all(each >= 1 for _, each in schedule)
    assert all(later == -(-earlier // 2) for earlier, later in itertools.pairwise(actions))
    spent = sum(a * each for a, each in schedule)
    assert spent <= iterations
    if iterations >= 2 * considered:  # enough for every phase: all of them, the budget spent to within rounding
        assert len(schedule) == int(np.ceil(np.log2(considered))) and actions[-1] == 2
        assert iterations - actions[-1] < spent
    assert halving_schedule(1, 9) == [(1, 9)]


def test_a_bad_schedule_is_named() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        halving_schedule(0, 10)


def test_improved_logits_shift_the_prior_by_the_rescaled_completed_values() -> None:
    logits = np.array([0.0, 0.0, np.log(2.0)])
    unvisited = improved_logits(logits, np.zeros(3), np.zeros(3))
    assert np.allclose(unvisited - unvisited[0], logits)  # nothing visited: the prior's logits, shifted alike
    shifted = improved_logits(logits, np.array([10, 10, 0]), np.array([6.0, 4.0, 0.0]))
    assert np.allclose(shifted, [6.0, 0.0, np.log(2.0) + 6.0 * (0.5 - 0.4) / 0.2])


def _position(num_players: int = 2, steps: int = 30, seed: int = 3) -> Game:
    """A position of a random game at a decision of several legal actions."""
    rng = np.random.default_rng(seed)
    game = Game.new(num_players, "archmage", seed=seed)
    for _ in range(steps):
        game.apply(int(rng.choice(game.legal_action_list())))
    while len(game.legal_action_list()) < 4:
        game.apply(int(rng.choice(game.legal_action_list())))
    return game


def _gumbel(game: Game, seed: int, iterations: int, considered: int = 16):
    seat = game.current_player
    legal = game.legal_action_list()
    state = pack([game.determinize(seat, np.random.default_rng(0))])
    search = compiled_search(shipped_model_path())
    return legal, gumbel_search_row(search, kernel_arrays(state), seat, legal, seed, iterations, 1.5, 8.0, considered)


def test_one_considered_action_takes_every_iteration_of_the_root() -> None:
    """The root forced through one child: PUCT alone would spread 48 iterations over several actions."""
    legal, found = _gumbel(_position(), seed=5, iterations=48, considered=1)
    assert found.iterations == 48 and found.visits.sum() == 48
    assert np.count_nonzero(found.visits) == 1 and found.visits[found.action] == 48 and found.action in legal


@pytest.mark.parametrize("num_players", [2, 4])
def test_sequential_halving_visits_the_considered_actions_and_keeps_the_best_scored(num_players: int) -> None:
    game = _position(num_players)
    legal, found = _gumbel(game, seed=11, iterations=120)
    considered = min(16, len(legal))
    assert found.iterations == sum(a * each for a, each in halving_schedule(considered, 120))
    assert (
        found.visits.sum() == found.iterations
        and (found.visits[np.setdiff1d(np.arange(NUM_ACTIONS), legal)] == 0).all()
    )
    assert np.count_nonzero(found.visits) >= considered  # every considered action had its first phase
    assert found.action in legal and found.visits[found.action] == found.visits.max()  # a finalist
    assert found.logits.shape == (NUM_ACTIONS,) and np.isfinite(found.logits[legal]).all()
    again = _gumbel(game, seed=11, iterations=120)[1]
    assert again.action == found.action and np.array_equal(again.visits, found.visits)  # seeded
    others = [_gumbel(game, seed=s, iterations=120)[1] for s in range(12, 17)]
    # the Gumbel draws differ by seed: other actions kept in some phase, or another finalist played
    assert any(o.action != found.action or not np.array_equal(o.visits, found.visits) for o in others)


def test_a_gumbel_agent_plays_legal_actions_to_the_end_and_bad_settings_are_named() -> None:
    agent = PolicyISMCTSAgent(seed=1, iterations=24, root="gumbel")
    game = Game.new(2, "apprentice", seed=9)
    rng = np.random.default_rng(9)
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_action_list()
        action = agent.act(game.determinize(seat, rng), seat, legal)
        assert action in legal
        game.apply(action)
    assert agent.last_iterations > 0 and "root='gumbel'" in repr(agent)
    with pytest.raises(ValueError, match="root must be one of puct, gumbel"):
        PolicyISMCTSAgent(root="halving")
    with pytest.raises(ValueError, match="engine='kernels'"):
        PolicyISMCTSAgent(root="gumbel", engine="reference")
    with pytest.raises(ValueError, match="considered must be at least 1"):
        PolicyISMCTSAgent(root="gumbel", considered=0)


def test_expert_rows_with_the_gumbel_root_play_the_halving_s_choice(tmp_path) -> None:
    torch.manual_seed(0)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    job = SearchJob(str(model), 2, "apprentice", 5, 0, 12, 1.5, sample_moves=3, root="gumbel", considered=4)
    rows = search_game(replace(job, policy_target="completed-q"))
    assert len(rows["seat"]) > 50 and np.allclose(rows["target"].sum(axis=1), 1.0, atol=1e-5)
    assert (rows["target"][~rows["mask"]] == 0).all()
    again = search_game(replace(job, policy_target="completed-q"))
    assert all(np.array_equal(rows[k], again[k]) for k in rows)
    puct = search_game(replace(job, root="puct"))
    assert not np.array_equal(rows["seat"], puct["seat"]) or not np.array_equal(rows["obs"], puct["obs"])


def test_bad_gumbel_settings_of_a_training_run_are_named() -> None:
    with pytest.raises(ValueError, match="expert_root: must be one of puct, gumbel"):
        make_config("expert-smoke", ["expert_root=best"])
    with pytest.raises(ValueError, match="expert_search='kernels'"):
        make_config("expert-smoke", ["expert_root=gumbel", "expert_search=reference"])
    with pytest.raises(ValueError, match="search_considered: must be at least 1"):
        make_config("expert-smoke", ["search_considered=0"])
    assert make_config("expert-smoke", ["expert_root=gumbel"]).expert_root == "gumbel"


def test_extra_iterations_go_only_to_decisions_where_the_search_disagrees_with_the_network() -> None:
    """``search_extra_iterations``: the same tree searched longer where the most visited action is not the network's
    top legal one; with none, the search is ``run_row``'s."""
    from seasons_training.expert_compiled import _puct_search

    search = compiled_search(shipped_model_path())
    job = SearchJob("", 2, "archmage", 0, 0, 8, 1.5, sample_moves=0, extra_iterations=24)
    rng = np.random.default_rng(4)
    game = Game.new(2, "archmage", seed=4)
    spent = set()
    while not game.is_over and len(spent) < 2:
        seat, legal = game.current_player, np.asarray(game.legal_action_list())
        if len(legal) > 2:
            state = pack([game.determinize(seat, rng)])
            root = kernel_arrays(state)
            logits = search.policy.forward(search_observation(root, seat))[0][0]
            visits, _ = _puct_search(search, root, seat, 17, job, legal, logits)
            disagrees = np.argmax(visits[legal]) != np.argmax(logits[legal])
            assert visits.sum() == (8 + 24 if disagrees else 8)
            spent.add(bool(disagrees))
            plain = _puct_search(search, root, seat, 17, replace(job, extra_iterations=0), legal, logits)
            assert all(
                np.array_equal(a, b) for a, b in zip(plain, search.run_row(root, seat, 17, 8, 1.5, 8.0), strict=False)
            )
        game.apply(int(rng.choice(game.legal_action_list())))
    assert spent == {True, False}  # both kinds of decision met
    with pytest.raises(
        ValueError, match="search_extra_iterations: needs expert_search='kernels' and expert_root='puct'"
    ):
        make_config("expert-smoke", ["search_extra_iterations=8", "expert_root=gumbel"])
    with pytest.raises(ValueError, match="search_extra_iterations: must be at least 0"):
        make_config("expert-smoke", ["search_extra_iterations=-1"])


def search_observation(root, seat: int) -> np.ndarray:
    """The seat's observation of row 0 of a kernels' struct, as a batch of one."""
    from seasons_env.encoding import OBSERVATION_SIZE
    from seasons_env.vector.kernels.api import observe_row

    observation = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)
    observe_row(root, 0, seat, observation[0])
    return observation


def test_the_q_scale_sets_how_far_the_completed_q_target_moves_from_the_prior() -> None:
    from seasons_training.expert_targets import completed_q_target

    logits = np.zeros(NUM_ACTIONS, dtype=np.float32)
    logits[[1, 2]] = (0.0, np.log(3.0))
    visits, rewards = np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS)
    visits[[1, 2]], rewards[[1, 2]] = (10, 10), (6.0, 4.0)  # action 1 the better: 60 * scale more logits
    assert np.allclose(completed_q_target(logits, visits, rewards, [1, 2], q_scale=0.0)[[1, 2]], [0.25, 0.75])
    for scale in (0.01, 0.1):
        shifted = np.array([60 * scale, np.log(3.0)])
        expected = np.exp(shifted) / np.exp(shifted).sum()
        assert np.allclose(completed_q_target(logits, visits, rewards, [1, 2], q_scale=scale)[[1, 2]], expected)
    assert make_config("expert-smoke", ["search_q_scale=0.03"]).search_q_scale == 0.03
    with pytest.raises(ValueError, match="search_q_scale: must be at least 0"):
        make_config("expert-smoke", ["search_q_scale=-0.1"])
