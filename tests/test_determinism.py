"""Same seed and actions give the same game; clones and serialized copies continue identically."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import random_game

from seasons_env import Game


def _trajectory(num_players: int, level: str, seed: int) -> list[str]:
    states = []
    random_game(num_players, level, seed, on_step=lambda g: states.append(json.dumps(g.to_dict(), sort_keys=True)))
    return states


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
def test_same_seed_and_actions_give_the_same_game_byte_for_byte(level: str) -> None:
    assert _trajectory(3, level, 11) == _trajectory(3, level, 11)


def test_different_seeds_give_different_games() -> None:
    assert Game.new(2, "magician", seed=1).to_dict() != Game.new(2, "magician", seed=2).to_dict()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.sampled_from([2, 3, 4]),
    level=st.sampled_from(["apprentice", "magician", "archmage"]),
    cut=st.integers(0, 400),
)
def test_clone_and_from_dict_continue_identically(seed: int, num_players: int, level: str, cut: int) -> None:
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(cut):
        if game.is_over:
            break
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    snapshot = json.dumps(game.to_dict(), sort_keys=True)
    clone = game.clone()
    restored = Game.from_dict(json.loads(snapshot))
    pickled = pickle.loads(pickle.dumps(game))
    deep = copy.deepcopy(game)
    copies = [clone, restored, pickled, deep]
    assert all(json.dumps(c.to_dict(), sort_keys=True) == snapshot for c in copies)
    follow = np.random.default_rng(seed + 1)
    while not game.is_over:
        legal = game.legal_action_list()
        action = legal[int(follow.integers(len(legal)))]
        for g in (game, *copies):
            assert g.legal_action_list() == legal
            g.apply(action)
    final = game.to_dict()
    assert all(c.to_dict() == final for c in copies)


def test_mutating_a_clone_never_touches_the_original() -> None:
    game = Game.new(2, "archmage", seed=4)
    rng = np.random.default_rng(0)
    for _ in range(150):
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    before = json.dumps(game.to_dict(), sort_keys=True)
    clone = game.clone()
    while not clone.is_over:  # plays to the end, rolling dice and shuffling from the shared generator
        legal = clone.legal_action_list()
        clone.apply(legal[int(rng.integers(len(legal)))])
    assert json.dumps(game.to_dict(), sort_keys=True) == before
    # the original still draws the same chance as an untouched twin
    twin = Game.from_dict(json.loads(before))
    while not game.is_over:
        legal = game.legal_action_list()
        assert twin.legal_action_list() == legal
        action = legal[int(rng.integers(len(legal)))]
        game.apply(action)
        twin.apply(action)
    assert game.to_dict() == twin.to_dict()


def test_serialized_state_is_small() -> None:
    """The serialized state of a 4-player Archmage game stays under 8 KB at every step."""
    largest = 0

    def measure(game: Game) -> None:
        nonlocal largest
        largest = max(largest, len(json.dumps(game.to_dict(), separators=(",", ":"))))

    random_game(4, "archmage", seed=2, on_step=measure)
    assert 1000 < largest < 8192
