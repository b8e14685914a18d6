"""ISMCTSAgent: legal, reproducible, budgeted, and better than random, on both engines (the compiled one has more tests
in ``test_ismcts_kernel.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from random_play import random_positions

from seasons_agents import RandomAgent, play_game
from seasons_agents.ismcts import ISMCTSAgent
from seasons_env import Game


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_returns_only_legal_actions(num_players: int, level: str) -> None:
    agent = ISMCTSAgent(seed=num_players, iterations=20, search_prelude=True, engine="reference")
    rng = np.random.default_rng(num_players)
    searched = 0
    for position in random_positions(num_players, level, seed=3, every=23):
        seat = position.current_player
        legal = list(position.legal_action_list())
        before = position.to_dict()
        view = position.determinize(seat, rng)
        action = agent.act(view, seat, legal)
        assert isinstance(action, int) and action in legal
        assert position.to_dict() == before
        searched += agent.last_iterations > 0
    assert searched > 3


def test_heuristic_rollouts_and_more_players() -> None:
    agent = ISMCTSAgent(seed=2, iterations=15, rollout_depth=6, epsilon=0.2)
    rng = np.random.default_rng(5)
    for num_players in (2, 4):
        searched = 0
        for position in random_positions(num_players, "archmage", seed=8, every=41):
            seat = position.current_player
            legal = list(position.legal_action_list())
            assert agent.act(position.determinize(seat, rng), seat, legal) in legal
            searched += agent.last_iterations > 0
        assert searched >= 3


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_prelude_is_delegated_unless_asked(engine: str) -> None:
    game = Game.new(2, "archmage", seed=5)
    assert game.pending_decision == "draft_pick"
    legal = list(game.legal_action_list())
    agent = ISMCTSAgent(seed=1, iterations=30, engine=engine)
    assert agent.act(game.determinize(0, np.random.default_rng(0)), 0, legal) in legal
    assert agent.last_iterations == 0
    searching = ISMCTSAgent(seed=1, iterations=30, search_prelude=True, engine=engine)
    assert searching.act(game.determinize(0, np.random.default_rng(0)), 0, legal) in legal
    assert searching.last_iterations > 0


def test_single_option_is_returned_without_search() -> None:
    # The engine resolves forced decisions itself; an agent handed one option must still answer at once.
    position = next(p for p in random_positions(2, "magician", seed=1, every=1) if p.pending_decision == "turn")
    seat = position.current_player
    only = position.legal_action_list()[-1]
    agent = ISMCTSAgent(seed=0, iterations=50)
    assert agent.act(position.determinize(seat, np.random.default_rng(0)), seat, [only]) == only
    assert agent.last_iterations == 0


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_same_seed_same_game(engine: str) -> None:
    def game(seed: int) -> tuple:
        record = play_game(
            [ISMCTSAgent(iterations=12, engine=engine), RandomAgent()], level="magician", seed=seed, agent_seed=seed
        )
        return record.scores, record.winners, record.decisions, record.decks

    assert game(11) == game(11)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_same_seed_same_choices(engine: str) -> None:
    position = next(p for p in random_positions(3, "archmage", seed=2, every=1) if p.pending_decision == "turn")
    seat = position.current_player
    legal = list(position.legal_action_list())
    view = position.determinize(seat, np.random.default_rng(0))
    first = ISMCTSAgent(seed=4, iterations=40, engine=engine)
    second = ISMCTSAgent(seed=4, iterations=40, engine=engine)
    assert [first.act(view, seat, legal) for _ in range(3)] == [second.act(view, seat, legal) for _ in range(3)]
    assert first.last_iterations == second.last_iterations


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_a_saved_state_makes_the_same_choices(engine: str) -> None:
    """``state_dict`` mid-game (a library-split plan under way in its heuristic policy), loaded into an agent of
    another seed: the same choices from then on, in the split and in searches."""
    game = Game.new(2, "archmage", seed=5)
    rng = np.random.default_rng(0)
    agent, twin = ISMCTSAgent(seed=1, iterations=10, engine=engine), ISMCTSAgent(seed=99, iterations=10, engine=engine)
    saved = False
    while not game.is_over and game.year < 2:
        seat, legal = game.current_player, game.legal_action_list()
        view = game.determinize(seat, rng)
        if not saved and game.pending_decision == "library_split" and agent.policy.state_dict()["plan"]:
            twin.load_state_dict(agent.state_dict())
            saved = True
        action = agent.act(view.clone(), seat, legal)
        if saved:
            assert twin.act(view, seat, legal) == action and twin.state_dict() == agent.state_dict()
        game.apply(action)
    assert saved and game.year == 2


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_budget_in_seconds(engine: str) -> None:
    position = next(p for p in random_positions(2, "archmage", seed=6, every=1) if p.pending_decision == "turn")
    seat = position.current_player
    legal = list(position.legal_action_list())
    agent = ISMCTSAgent(seed=0, seconds=0.2, engine=engine)
    action = agent.act(position.determinize(seat, np.random.default_rng(1)), seat, legal)
    assert action in legal
    assert agent.last_iterations > 0


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError):
        ISMCTSAgent(iterations=0)
    with pytest.raises(ValueError):
        ISMCTSAgent(seconds=0)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_beats_random(engine: str) -> None:
    wins = 0
    for seed in range(5):
        seat = seed % 2
        agents = [RandomAgent(), RandomAgent()]
        agents[seat] = ISMCTSAgent(iterations=25, engine=engine)
        record = play_game(agents, level="archmage", seed=seed, agent_seed=seed)
        wins += record.winners == [seat]
    assert wins >= 4
