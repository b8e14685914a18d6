"""The compiled policy-ISMCTS (``seasons_agents.search_kernel``) and the network's compiled forward pass
(``seasons_agents.policy_kernel``): the forward pass against ``NumpyPolicy`` on real observations, the search's visit
targets (distributions over the legal actions, the same for the same seed), and full games played with it."""

from __future__ import annotations

import numpy as np
import pytest

from seasons_agents.learned import load_cached, shipped_model_path
from seasons_agents.policy_ismcts import PolicyISMCTSAgent, compiled_search
from seasons_agents.policy_kernel import PolicyKernel
from seasons_env import Game
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_training.expert_targets import visit_target


def _positions(count: int) -> tuple[list[Game], np.ndarray, np.ndarray]:
    """Positions of random 2-4 player archmage games, each with the deciding seat's observation and mask."""
    rng = np.random.default_rng(7)
    games, observations, masks = [], [], []
    for k in range(3):
        game = Game.new(2 + k, "archmage", seed=40 + k)
        while not game.is_over and len(games) < count * (k + 1):
            seat = game.current_player
            games.append(game.clone())
            observations.append(encode_observation(game, seat))
            masks.append(action_mask(game, seat).astype(bool))
            game.apply(int(rng.choice(game.legal_action_list())))
    return games, np.stack(observations), np.stack(masks)


@pytest.fixture(scope="module")
def shipped():
    return load_cached(shipped_model_path(), "numpy")[0]


def test_the_compiled_forward_pass_is_the_numpy_network_s(shipped) -> None:
    """Logits and values of the shipped network on real 2-4 player positions equal ``NumpyPolicy``'s (float64) to
    float32 rounding; the masked probabilities are its softmax over the legal actions, 0 elsewhere."""
    _, observations, masks = _positions(150)
    kernel = PolicyKernel.from_numpy(shipped)
    logits, values = kernel.forward(observations)
    expected_logits, expected_values = shipped(observations)
    assert np.ptp(expected_values) > 0.1 and np.ptp(expected_logits) > 1.0  # the positions differ to the network
    np.testing.assert_allclose(logits, expected_logits, rtol=0, atol=2e-4 * np.abs(expected_logits).max())
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-5)
    probabilities = kernel.probabilities(observations, masks)
    masked = np.where(masks, expected_logits, -np.inf)
    expected = np.exp(masked - masked.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(probabilities, expected, rtol=1e-3, atol=1e-6)
    assert (probabilities[~masks] == 0).all()
    with pytest.raises(ValueError, match="observations of at least"):
        kernel.forward(observations[:, :100])


def _search(view: Game, seat: int, seed: int, iterations: int = 24):
    return compiled_search(shipped_model_path()).run(view, seat, seed, iterations, 1.5, 8.0)


def test_compiled_visit_targets_are_distributions_over_the_legal_actions_and_seeded() -> None:
    """At decisions of 2-4 player games (the draft, the library split, turns): every iteration is a visit of one
    legal root action, never of another; the same seed gives the same visits, another seed other visits somewhere."""
    games, _, _ = _positions(40)
    rng = np.random.default_rng(3)
    differed = 0
    for game in games[::9]:
        legal = game.legal_action_list()
        if len(legal) < 2:
            continue
        seat = game.current_player
        view = game.determinize(seat, rng)
        visits, rewards, ran = _search(view, seat, seed=11)
        assert ran == 24 and visits.sum() == 24 and (visits[np.setdiff1d(np.arange(NUM_ACTIONS), legal)] == 0).all()
        assert ((rewards >= 0) & (rewards <= visits)).all()  # rewards are in [0, 1] per visit
        again = _search(view, seat, seed=11)
        assert np.array_equal(visits, again[0]) and np.array_equal(rewards, again[1])
        differed += not np.array_equal(rewards, _search(view, seat, seed=12)[1])
        agent = PolicyISMCTSAgent(seed=1, iterations=24)
        target = visit_target(agent.search(view, seat), seat, legal)
        assert np.isclose(target.sum(), 1.0) and (target[~action_mask(game, seat).astype(bool)] == 0).all()
    assert differed > 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
def test_a_compiled_policy_ismcts_agent_plays_legal_actions_to_the_end(num_players: int, level: str) -> None:
    """Every seat played by the compiled search (few iterations) from its own determinized view: each action is
    legal in the real game, and the game ends."""
    game = Game.new(num_players, level, seed=num_players)
    agent = PolicyISMCTSAgent(seed=num_players, iterations=3)
    rng = np.random.default_rng(num_players)
    while not game.is_over:
        seat, legal = game.current_player, game.legal_action_list()
        action = agent.act(game.determinize(seat, rng), seat, legal)
        assert action in legal
        game.apply(action)
    assert game.winners()


def test_the_compiled_search_agrees_with_the_reference_search_where_the_choice_is_clear() -> None:
    """Both engines search the same algorithm: over several decisions of a game, their most visited root actions
    agree on most decisions (their determinizations differ, so their visits do not match exactly)."""
    game = Game.new(2, "archmage", seed=1)
    rng = np.random.default_rng(0)
    agree = total = 0
    for step in range(60):
        legal = game.legal_action_list()
        if len(legal) > 1 and step % 4 == 0:
            seat = game.current_player
            view = game.determinize(seat, rng)
            picks = [
                PolicyISMCTSAgent(seed=0, iterations=32, engine=engine, backend="numpy").act(view, seat, legal)
                for engine in ("kernels", "reference")
            ]
            agree += picks[0] == picks[1]
            total += 1
        game.apply(legal[int(rng.integers(len(legal)))])
    assert total >= 8 and agree >= 0.7 * total


def test_a_bad_engine_is_named() -> None:
    with pytest.raises(ValueError, match="engine must be one of kernels, reference"):
        PolicyISMCTSAgent(engine="gpu")


def test_a_compiled_search_with_a_time_budget_runs_iterations_until_the_clock_says_stop() -> None:
    game = Game.new(2, "archmage", seed=3)
    seat = game.current_player
    agent = PolicyISMCTSAgent(seed=0, seconds=0.05)
    root = agent.search(game.determinize(seat, np.random.default_rng(0)), seat)
    assert agent.last_iterations >= 8 and agent.last_iterations % 8 == 0
    assert sum(child.visits for child in root.children.values()) == agent.last_iterations == root.visits


def test_compiled_searches_in_threads_at_once_are_those_made_one_after_another() -> None:
    """The kernels release the interpreter lock and one network's compiled search is shared (the arena, the web
    server): searches running in threads at once each play on their own rows, so each gives its seed's visits."""
    from concurrent.futures import ThreadPoolExecutor

    games, _, _ = _positions(30)
    rng = np.random.default_rng(5)
    jobs = [(game.determinize(game.current_player, rng), game.current_player) for game in games[::6]]
    alone = [_search(view, seat, seed=k, iterations=48) for k, (view, seat) in enumerate(jobs)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda k: _search(*jobs[k], seed=k, iterations=48), list(range(len(jobs))) * 3))
    for k, found in enumerate(together):
        assert np.array_equal(found[0], alone[k % len(jobs)][0]) and np.array_equal(found[1], alone[k % len(jobs)][1])
