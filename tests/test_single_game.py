"""One game on the compiled kernels (``seasons_env.vector.single.CompiledGame``, issue 34 item 1), and the
environments' ``engine="kernels"``: the same games as the reference engine, decision for decision.

Differential: ``CompiledGame`` beside ``Game``, and each environment on both engines side by side, over seeded
random games of 2, 3 and 4 players at every level: the same observations (every seat's), masks, rewards, infos and
final positions. Hidden information: a seat's observation on the kernels cannot tell a position from one with every
card it cannot see dealt differently (the paired states of ``test_hidden_information.py``).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from test_hidden_information import redeal

import seasons_env
from seasons_env import Game, IllegalActionError
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.engine import actions as A
from seasons_env.gym_env import SeasonsGymEnv
from seasons_env.simulate import random_play
from seasons_env.vector.single import CompiledGame

CONFIGS = [(n, level) for n in (2, 3, 4) for level in ("apprentice", "magician", "archmage")]


def _same_position(compiled: CompiledGame, game: Game) -> None:
    assert compiled.current_player == game.current_player and compiled.is_over == game.is_over
    assert compiled.legal_action_list() == game.legal_action_list()
    assert compiled.pending_decision == game.pending_decision
    for seat in range(game.num_players):
        assert compiled.observation(seat).tobytes() == encode_observation(game, seat).tobytes()
        assert compiled.legal_mask(seat).tobytes() == action_mask(game, seat).tobytes()


@pytest.mark.parametrize(("num_players", "level"), CONFIGS)
def test_compiled_game_plays_the_reference_games(num_players: int, level: str) -> None:
    for seed in (0, 1):
        compiled, game = CompiledGame.new(num_players, level, seed), Game.new(num_players, level, seed=seed)
        rng = np.random.default_rng(seed)
        _same_position(compiled, game)
        while not game.is_over:
            action = int(rng.choice(game.legal_action_list()))
            game.apply(action)
            compiled.apply(action)
            _same_position(compiled, game)
        assert compiled.scores() == game.scores() and compiled.winners() == game.winners()
        assert compiled.to_game().to_dict() == game.to_dict()


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    compiled = CompiledGame.new(3, "archmage", 4)
    before, observation = compiled.to_game().to_dict(), compiled.observation(0)
    for action in (A.END_TURN, -1, A.NUM_ACTIONS, 10**6):
        with pytest.raises(IllegalActionError, match="is not legal for decision 'draft_pick' of player 0"):
            compiled.apply(action)
    for action in (2.0, True, "3"):
        with pytest.raises(IllegalActionError, match="action must be an int"):
            compiled.apply(action)
    assert compiled.to_game().to_dict() == before and compiled.observation(0).tobytes() == observation.tobytes()
    compiled.apply(np.int64(compiled.legal_action_list()[0]))  # a numpy integer is an action id too
    while not compiled.is_over:
        compiled.apply(compiled.legal_action_list()[0])
    with pytest.raises(IllegalActionError, match="the game is over"):
        compiled.apply(0)


def test_observations_are_fresh_arrays() -> None:
    """The step writes into buffers it reuses; what a caller is given is its own copy."""
    compiled = CompiledGame.new(2, "magician", 0)
    first, mask = compiled.observation(0), compiled.legal_mask(0)
    kept = first.copy(), mask.copy()
    compiled.apply(compiled.legal_action_list()[0])
    assert first.tobytes() == kept[0].tobytes() and mask.tobytes() == kept[1].tobytes()


@pytest.mark.parametrize("how", ["clone", "deepcopy", "pickle"])
def test_copies_continue_as_the_game_does(how: str) -> None:
    compiled = CompiledGame.new(4, "archmage", 9)
    for action in range(40):
        compiled.apply(compiled.legal_action_list()[action % len(compiled.legal_action_list())])
    other = {"clone": CompiledGame.clone, "deepcopy": copy.deepcopy, "pickle": lambda g: pickle.loads(pickle.dumps(g))}[
        how
    ](compiled)
    rng = np.random.default_rng(3)
    while not compiled.is_over:
        action = int(rng.choice(compiled.legal_action_list()))
        compiled.apply(action)
        other.apply(action)
        assert (
            other.observation(other.current_player % 4).tobytes()
            == compiled.observation(compiled.current_player % 4).tobytes()
        )
    assert other.to_game().to_dict() == compiled.to_game().to_dict()


@pytest.mark.parametrize(("num_players", "level"), [(2, "magician"), (3, "archmage"), (4, "archmage")])
def test_no_seat_tells_paired_states_apart_on_the_kernels(num_players: int, level: str) -> None:
    rng = np.random.default_rng(num_players)
    compared = 0
    for seed in range(3):
        game = Game.new(num_players, level, seed=seed)
        for decision, _ in enumerate(random_play(game, np.random.default_rng(seed))):
            if decision % 9:
                continue
            observer = int(rng.integers(num_players))
            other = redeal(game, observer, rng)
            if other is None:
                continue
            mine, theirs = CompiledGame.from_game(game), CompiledGame.from_game(other)
            assert mine.observation(observer).tobytes() == theirs.observation(observer).tobytes()
            assert mine.legal_mask(observer).tobytes() == theirs.legal_mask(observer).tobytes()
            compared += 1
    assert compared > 20


def _aec_step(env, rng: np.random.Generator) -> tuple:
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
    return obs, reward, termination, truncation, info, action


@pytest.mark.parametrize(("num_players", "level"), CONFIGS)
def test_pettingzoo_engines_play_the_same_games(num_players: int, level: str) -> None:
    reward = ("win", "score", "rank")[num_players - 2]
    reference = seasons_env.env(num_players=num_players, level=level, reward=reward)
    kernels = seasons_env.env(num_players=num_players, level=level, reward=reward, engine="kernels")
    for seed in (11, 12):
        reference.reset(seed=seed)
        kernels.reset(seed=seed)
        steps = 0
        while reference.agents:
            assert kernels.agents == reference.agents and kernels.agent_selection == reference.agent_selection
            if steps % 7 == 0:  # now and then, every seat's observation (not only the acting one's)
                for agent in reference.agents:
                    expected, got = reference.observe(agent), kernels.observe(agent)
                    assert got["observation"].tobytes() == expected["observation"].tobytes()
                    assert got["action_mask"].tobytes() == expected["action_mask"].tobytes()
            expected = _aec_step(reference, np.random.default_rng(steps))
            got = _aec_step(kernels, np.random.default_rng(steps))
            assert got[0]["observation"].tobytes() == expected[0]["observation"].tobytes()
            assert got[0]["action_mask"].tobytes() == expected[0]["action_mask"].tobytes()
            assert got[1:4] == expected[1:4] and got[4].keys() == expected[4].keys()
            assert str(got[4]) == str(expected[4])  # scores and winners at the end
            steps += 1
        assert not kernels.agents
        assert kernels.unwrapped.state() == reference.unwrapped.state()


@pytest.mark.parametrize(("num_players", "level"), CONFIGS[::2])
def test_gymnasium_engines_play_the_same_episodes(num_players: int, level: str) -> None:
    def episode(engine: str) -> list:
        env = SeasonsGymEnv(num_players=num_players, level=level, agent_seat="random", reward="score", engine=engine)
        record = []
        obs, info = env.reset(seed=num_players * 10 + len(level))
        record.append((obs.tobytes(), info["action_mask"].tobytes(), env.seat))
        rng = np.random.default_rng(5)
        done = False
        while not done:
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            record.append((obs.tobytes(), info["action_mask"].tobytes(), reward, done, truncated, str(info)))
        record.append(env.game.to_dict())
        return record

    assert episode("kernels") == episode("reference")
