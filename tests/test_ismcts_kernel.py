"""The compiled ISMCTS (``seasons_agents.ismcts_kernel``, ``ISMCTSAgent(engine="kernels")``): its leaf rewards are the
reference search's to the last bit, its searches are seeded, legal and agree with the reference search's, its budget
and early stop are the reference agent's, and the draft and library split go to the heuristic."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seasons_agents import HeuristicAgent, RandomAgent, play_game
from seasons_agents.heuristic import margins
from seasons_agents.heuristic_eval_kernel import margins_row
from seasons_agents.ismcts import ISMCTSAgent, most_visited
from seasons_agents.ismcts_kernel import compiled_ismcts, leaf_rewards_of_row
from seasons_env import Game
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector.arrays import pack
from seasons_env.vector.kernels import PYTHON_KERNELS
from seasons_env.vector.kernels.structs import kernel_arrays


def _positions(num_players: int, seed: int, every: int, finished: bool = False) -> list[Game]:
    """Every ``every``-th position of a random game (its last, finished one too when ``finished``)."""
    rng = np.random.default_rng(seed)
    game, found, step = Game.new(num_players, "archmage", seed=seed), [], 0
    while not game.is_over:
        if step % every == 0:
            found.append(game.clone())
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
        step += 1
    return [*found, game] if finished else found


def _turn_view(seed: int, skip: int, num_players: int = 2) -> tuple[Game, int, list[int]]:
    """A determinized view at a turn decision with a choice after ``skip`` random decisions."""
    rng = np.random.default_rng(seed)
    game = Game.new(num_players, "archmage", seed=seed)
    for _ in range(skip):
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    while len(game.legal_action_list()) < 2 or game.pending_decision in ("draft_pick", "library_split"):
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    seat = game.current_player
    return game.determinize(seat, rng), seat, game.legal_action_list()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_leaf_rewards_are_the_reference_search_s_to_the_last_bit(num_players: int) -> None:
    """At determinized positions of every phase (a finished game too), for every seat: the compiled baseline is
    ``margins`` and the compiled rewards are ``ISMCTSAgent._rewards``'s, float for float."""
    reference = ISMCTSAgent(seed=0, engine="reference", scale=5.0)
    rng = np.random.default_rng(num_players)
    distinct = set()
    positions = _positions(num_players, seed=10 + num_players, every=19, finished=True)
    for root, leaf in itertools.pairwise(positions):  # a leaf some decisions after its root
        for seat in range(num_players):
            views = [game.determinize(seat, rng) if not game.is_over else game for game in (root, leaf)]
            states = [pack([view]) for view in views]
            arrays = [kernel_arrays(state) for state in states]
            baseline = np.empty(num_players)
            margins_row(arrays[0], 0, seat, baseline)
            assert baseline.tolist() == margins(views[0], seat)
            compiled = np.empty(num_players)
            leaf_rewards_of_row(arrays[1], views[1].is_over, seat, baseline, 5.0, compiled)
            expected = reference._rewards(views[1], seat, baseline.tolist())
            assert compiled.tolist() == expected
            distinct.update(round(r, 6) for r in expected)
            del states
    assert len(positions) > 8 and len(distinct) > 10  # the positions differ to the evaluation


def test_compiled_searches_are_seeded_and_visit_only_legal_root_actions() -> None:
    """At decisions of 2-4 player games: every iteration visits one legal root action; the same seed gives the same
    visits and rewards, another seed others somewhere."""
    search = compiled_ismcts()
    differed = checked = 0
    rng = np.random.default_rng(1)
    for num_players in (2, 3, 4):
        for game in _positions(num_players, seed=20 + num_players, every=29)[1:]:
            legal = game.legal_action_list()
            if len(legal) < 2:
                continue
            seat = game.current_player
            view = game.determinize(seat, rng)
            visits, rewards, ran = search.run(view, seat, 11, 48, 0.4, 5.0)
            assert ran <= 48 and visits.sum() == ran
            assert (visits[np.setdiff1d(np.arange(NUM_ACTIONS), legal)] == 0).all()
            assert ((rewards >= 0) & (rewards <= visits)).all()
            again = search.run(view, seat, 11, 48, 0.4, 5.0)
            assert np.array_equal(visits, again[0]) and np.array_equal(rewards, again[1])
            differed += not np.array_equal(rewards, search.run(view, seat, 12, 48, 0.4, 5.0)[1])
            checked += 1
    assert checked >= 12 and differed >= checked // 2


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
def test_a_compiled_ismcts_agent_plays_legal_actions_to_the_end(num_players: int, level: str) -> None:
    """Every seat played by the compiled search (the draft and split searched too), each from its own determinized
    view: every action is legal in the real game, and the game ends."""
    game = Game.new(num_players, level, seed=num_players)
    agent = ISMCTSAgent(seed=num_players, iterations=4, search_prelude=True)
    assert agent.engine == "kernels"
    rng = np.random.default_rng(num_players)
    searched = 0
    while not game.is_over:
        seat, legal = game.current_player, game.legal_action_list()
        action = agent.act(game.determinize(seat, rng), seat, legal)
        assert action in legal
        searched += agent.last_iterations > 0
        game.apply(action)
    assert game.winners() and searched > 20


def test_same_seed_same_game_with_the_compiled_search() -> None:
    def game(seed: int) -> tuple:
        agents = [ISMCTSAgent(iterations=40, engine="kernels"), RandomAgent()]
        record = play_game(agents, level="magician", seed=seed, agent_seed=seed)
        return record.scores, record.winners, record.decisions, record.decks

    assert game(3) == game(3)


def test_the_compiled_search_agrees_with_the_reference_search() -> None:
    """The same algorithm: over turn decisions of 2- and 3-player games at 400 iterations, the two engines' root
    visit shares are close (total variation distance), their most visited actions mostly agree and so do the seat's
    mean rewards at the root (which opponents choosing for themselves keep down); their determinizations differ, so
    the visits do not match exactly."""
    distances, gaps, agree, total = [], [], 0, 0
    for k, (num_players, skip) in enumerate([(2, 30), (2, 60), (2, 90), (2, 120), (3, 40), (3, 80), (3, 130)]):
        view, seat, legal = _turn_view(50 + k, skip, num_players)
        shares, means, picks = [], [], []
        for engine in ("kernels", "reference"):
            agent = ISMCTSAgent(seed=k, iterations=400, engine=engine)
            root = agent.search(view.clone(), seat)
            share = np.zeros(NUM_ACTIONS)
            reward = 0.0
            for key, child in root.children.items():
                if key // NUM_ACTIONS == seat:
                    share[key % NUM_ACTIONS] = child.visits
                    reward += child.reward
            shares.append(share / share.sum())
            means.append(reward / share.sum())
            picks.append(most_visited(root, seat, legal))
        distances.append(0.5 * np.abs(shares[0] - shares[1]).sum())
        gaps.append(means[0] - means[1])
        agree += picks[0] == picks[1]
        total += 1
    assert np.mean(distances) < 0.15 and agree >= total - 2, (distances, agree)
    assert abs(np.mean(gaps)) < 0.02 and np.abs(gaps).max() < 0.05, gaps


def test_the_compiled_search_stops_once_the_choice_is_settled() -> None:
    """With an iteration budget the search stops, at a multiple of 16 iterations, as soon as the most visited root
    action leads the next by more than the iterations left (not 16 iterations earlier); a budget in seconds does not
    stop early."""
    view, seat, _ = _turn_view(1, 40)
    search = compiled_ismcts()
    budget = 3000
    visits, _, ran = search.run(view, seat, 5, budget, 0.4, 5.0)
    assert 16 <= ran < budget and ran % 16 == 0
    top = np.sort(visits)[::-1]
    assert top[0] - top[1] > budget - ran
    before, _, ran_before = search.run(view, seat, 5, ran - 16, 0.4, 5.0)  # the same first iterations
    assert ran_before == ran - 16
    top = np.sort(before)[::-1]
    assert top[0] - top[1] <= budget - ran_before
    agent = ISMCTSAgent(seed=0, iterations=budget)
    agent.search(view, seat)
    assert agent.last_iterations < budget
    timed = ISMCTSAgent(seed=0, seconds=0.3)
    root = timed.search(view, seat)
    # a timed search never settles early; compiled, 0.3 s holds more iterations than the settled search ran
    assert timed.last_iterations % 8 == 0 and (PYTHON_KERNELS or timed.last_iterations > ran)
    assert sum(child.visits for child in root.children.values()) == timed.last_iterations == root.visits


def test_a_compiled_search_with_a_time_budget_runs_iterations_until_the_clock_says_stop() -> None:
    view, seat, legal = _turn_view(2, 70)
    agent = ISMCTSAgent(seed=0, seconds=0.05, engine="kernels")
    assert agent.act(view, seat, legal) in legal
    assert agent.last_iterations >= 8 and agent.last_iterations % 8 == 0


def test_the_prelude_goes_to_the_heuristic_unless_searched() -> None:
    """The draft picks and the library split are the heuristic policy's choices (the same as a heuristic agent with
    the policy's state), with no search; with ``search_prelude`` they are searched."""
    game = Game.new(2, "archmage", seed=5)
    rng = np.random.default_rng(0)
    agent = ISMCTSAgent(seed=1, iterations=30, engine="kernels")
    twin = HeuristicAgent(0)
    twin.load_state_dict(agent.policy.state_dict())
    delegated = 0
    while game.pending_decision in ("draft_pick", "library_split"):
        seat, legal = game.current_player, game.legal_action_list()
        view = game.determinize(seat, rng)
        action = agent.act(view.clone(), seat, legal)
        if len(legal) > 1:
            assert action == twin.act(view, seat, legal) and agent.last_iterations == 0
            delegated += 1
        game.apply(action)
    assert delegated >= 8
    searching = ISMCTSAgent(seed=1, iterations=30, engine="kernels", search_prelude=True)
    start = Game.new(2, "archmage", seed=5)
    searching.act(start.determinize(0, rng), 0, start.legal_action_list())
    assert searching.last_iterations > 0


def test_engines_are_chosen_and_checked() -> None:
    assert ISMCTSAgent().engine == "kernels"
    assert ISMCTSAgent(rollout_depth=3).engine == "reference"
    assert ISMCTSAgent(evaluator=margins).engine == "reference"
    with pytest.raises(ValueError, match="engine must be one of kernels, reference"):
        ISMCTSAgent(engine="gpu")
    with pytest.raises(ValueError, match="no rollouts"):
        ISMCTSAgent(engine="kernels", rollout_depth=3)
    with pytest.raises(ValueError, match="evaluator needs engine='reference'"):
        ISMCTSAgent(engine="kernels", evaluator=margins)


def test_compiled_searches_in_threads_at_once_are_those_made_one_after_another() -> None:
    """One compiled ISMCTS serves every agent and thread (the arena, the web server) and its kernels release the
    interpreter lock: searches running in threads at once each play on their own rows, so each gives its seed's
    visits."""
    from concurrent.futures import ThreadPoolExecutor

    search = compiled_ismcts()
    jobs = [_turn_view(60 + k, 30 + 20 * k, 2 + k % 3)[:2] for k in range(4)]
    alone = [search.run(view, seat, k, 200, 0.4, 5.0) for k, (view, seat) in enumerate(jobs)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda k: search.run(*jobs[k % 4], k % 4, 200, 0.4, 5.0), range(12)))
    for k, found in enumerate(together):
        assert np.array_equal(found[0], alone[k % 4][0]) and np.array_equal(found[1], alone[k % 4][1])


def test_the_speed_benchmark_prints_both_engines_and_their_ratio(capsys) -> None:
    """``benchmarks/ismcts_speed.py`` at a tiny size: the speed figures of both engines and the strength line."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "ismcts_speed.py"
    spec = importlib.util.spec_from_file_location("ismcts_speed", path)
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    assert benchmark.main(["--iterations", "20", "--positions", "2"]) == 0
    assert benchmark.main(["--iterations", "3", "--games", "1"]) == 0
    out = capsys.readouterr().out
    for figure in ("kernels:", "reference:", "iterations/s", "compiled/reference at 20 iterations", "over 1 games"):
        assert figure in out, out
