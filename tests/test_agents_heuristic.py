"""The heuristic player: legal moves everywhere, reproducible, an evaluation blind to hidden facts, and strong."""

from __future__ import annotations

import math

import numpy as np
import pytest
from random_play import random_positions
from scenario import scenario

from seasons_agents import RandomAgent, play_game
from seasons_agents.heuristic import HeuristicAgent, evaluate, margins
from seasons_env import Game


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heuristic_returns_a_legal_action_in_random_positions(num_players: int, level: str) -> None:
    agent = HeuristicAgent(seed=num_players)
    rng = np.random.default_rng([num_players, len(level)])
    asked = 0
    for seed in range(3):
        for game in random_positions(num_players, level, seed, every=2):
            seat = game.current_player
            legal = list(game.legal_action_list())
            action = agent.act(game.determinize(seat, rng), seat, legal)
            assert action in legal, (game.pending_decision, action, legal)
            asked += 1
    assert asked > 150


def test_heuristic_plays_whole_games_at_every_level_and_player_count() -> None:
    for level in ("apprentice", "magician", "archmage"):
        for n in (2, 3, 4):
            record = play_game([HeuristicAgent() for _ in range(n)], level, seed=n, agent_seed=n)
            assert len(record.scores) == n and record.winners


def test_seeded_heuristic_games_are_reproducible() -> None:
    def run(agents: list) -> dict:
        out = play_game(agents, "archmage", seed=11, agent_seed=11).to_dict()
        out.pop("seconds_per_seat")
        return out

    first = [HeuristicAgent(1), RandomAgent(2), HeuristicAgent(3)]
    reference = run(first)
    assert run([HeuristicAgent(1), RandomAgent(2), HeuristicAgent(3)]) == reference  # fresh agents, same seeds
    for seed, agent in zip((1, 2, 3), first, strict=True):
        agent.reset(seed)
    assert run(first) == reference  # the same agents once reset to their seeds


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_evaluate_reads_only_what_the_seat_may_know(num_players: int) -> None:
    # Redrawing everything the seat cannot see (opponents' hands and libraries, the piles) changes no margin.
    checked = 0
    for game_seed in range(3):
        for game in random_positions(num_players, "archmage", game_seed, every=7):
            for seat in range(num_players):
                a = game.determinize(seat, np.random.default_rng(1))
                b = game.determinize(seat, np.random.default_rng(2))
                values = margins(a, seat)
                assert all(math.isfinite(v) for v in values)
                assert values == pytest.approx(margins(b, seat))
                assert values[seat] == evaluate(a, seat)
                checked += 1
    assert checked >= 50 * num_players


def test_evaluate_ignores_an_opponents_hand_behind_potion_of_dreams() -> None:
    # Potion of Dreams is worth the best card its owner could put into play: for an opponent that card is
    # hidden, so which card it holds must not matter (only that it holds one).
    def value(opponent_hand: list[int]) -> float:
        game = scenario(players=[{"in_play": [3]}, {"in_play": [24], "hand": opponent_hand, "summoning_gauge": 2}])
        return evaluate(game, 0)

    assert value([29]) == value([45]) == value([7]) != value([])


def test_evaluate_is_the_final_margin_once_the_game_is_over() -> None:
    record_game = Game.new(2, "magician", seed=3)
    agent = HeuristicAgent(seed=0)
    rng = np.random.default_rng(0)
    while not record_game.is_over:
        seat = record_game.current_player
        legal = list(record_game.legal_action_list())
        record_game.apply(agent.act(record_game.determinize(seat, rng), seat, legal))
    scores = record_game.scores()
    assert evaluate(record_game, 0) == scores[0] - scores[1]
    assert agent.evaluate(record_game, 1) == scores[1] - scores[0]


def test_heuristic_beats_random_with_seats_rotated() -> None:
    wins = 0
    for seed in range(20):
        heuristic_seat = seed % 2
        agents = [HeuristicAgent(), RandomAgent()]
        if heuristic_seat:
            agents.reverse()
        record = play_game(agents, "archmage", seed=seed, agent_seed=seed)
        wins += heuristic_seat in record.winners
    assert wins >= 18
