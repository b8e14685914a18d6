"""Seasons as an OpenSpiel game (seasons_env.openspiel): OpenSpiel's own conformance test and playthrough, clones,
serialization, the observer against the environments, and OpenSpiel's bots and learners on the game."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install seasons-env[openspiel])")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

import seasons_env.openspiel as sos  # noqa: E402
from seasons_env import LEVELS, NUM_ACTIONS, Game, describe_action  # noqa: E402
from seasons_env.encoding import LAYOUT, encode_observation  # noqa: E402
from seasons_env.openspiel import playthrough  # noqa: E402
from seasons_env.rendering import render_text  # noqa: E402
from seasons_env.rewards import final_rewards  # noqa: E402

PLAYTHROUGH = Path(__file__).parent / "playthroughs" / "python_seasons.txt"


def load(players: int = 2, level: str = "apprentice", reward: str = "win") -> sos.SeasonsGame:
    return pyspiel.load_game(f"python_seasons(players={players},level={level},reward={reward})")


def random_states(game: sos.SeasonsGame, seed: int, every: int = 1):
    """Every ``every``-th state of a random game (chance nodes included), to the end."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    k = 0
    while True:
        if k % every == 0 or state.is_terminal():
            yield state
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        k += 1


# ---------------------------------------------------------------------------- the game and OpenSpiel's tests


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_passes_with_serialization(players, level):
    game = load(players, level)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_load_game_by_string_gives_the_game_info_of_the_engine():
    game = pyspiel.load_game("python_seasons(players=3,level=archmage)")
    assert isinstance(game, sos.SeasonsGame)
    assert game.num_players() == 3
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 256
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.observation_tensor_size() == len(encode_observation(Game.new(3, "archmage", seed=0), 0))
    ranked = load(4, "magician", "rank")
    assert ranked.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert ranked.utility_sum() == 0.0
    default = pyspiel.load_game("python_seasons")
    assert default.get_parameters() == {"players": 2, "level": "archmage", "reward": "win"}


@pytest.mark.parametrize(
    "params, message",
    [
        ("players=5", "players must be 2, 3 or 4"),
        ("level=wizard", "level must be one of"),
        ("reward=score", "reward must be one of win, rank"),
        ("seed=3", "Unknown parameter 'seed'"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(f"python_seasons({params})")


def test_the_game_class_checks_its_parameters_too():
    with pytest.raises(ValueError, match="unknown parameters"):
        sos.SeasonsGame({"seed": 3})
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        sos.SeasonsGame({"players": True})


def test_committed_playthrough_matches_the_code():
    """Regenerate after a deliberate change: python -m seasons_env.openspiel.playthrough <the file>."""
    assert playthrough.main([str(PLAYTHROUGH), "--check"]) == 0


def test_the_seed_chance_nodes_make_the_engine_game_of_that_seed():
    game = load(3, "magician")
    state = game.new_initial_state()
    seed = 0x01020304
    for k in range(sos.SEED_BYTES):
        assert state.is_chance_node() and state.position is None
        assert {p for _, p in state.chance_outcomes()} == {1 / 256}
        state.apply_action(seed >> (8 * k) & 0xFF)
    assert state.position == Game.new(3, "magician", seed=seed)
    assert game.new_initial_state_for_seed(seed).position == state.position
    with pytest.raises(ValueError, match="a game seed is an int"):
        game.new_initial_state_for_seed(sos.NUM_SEEDS)


def test_moves_are_the_engines_and_returns_are_the_environments_rewards():
    for reward in ("win", "rank"):
        game = load(3, "magician", reward)
        for state in random_states(game, seed=4):
            if state.is_chance_node():
                continue
            if state.is_terminal():
                assert state.returns() == final_rewards(state.position, reward)
                assert state.legal_actions() == []
                break
            assert state.returns() == [0.0, 0.0, 0.0]
            assert state.current_player() == state.position.current_player
            assert state.legal_actions() == state.position.legal_action_list()
            others = [p for p in range(3) if p != state.current_player()]
            assert all(state.legal_actions(p) == [] for p in others)
            action = state.legal_actions()[0]
            assert state.action_to_string(action) == describe_action(action)


# ---------------------------------------------------------------------------- clones and serialization


def test_a_clone_is_independent_of_its_original():
    game = load(2, "archmage")
    state = game.new_initial_state_for_seed(11)
    for _ in range(30):
        state.apply_action(state.legal_actions()[-1])
    before = (str(state), state.history(), state.position.to_dict())
    clone = state.clone()
    assert type(clone) is sos.SeasonsState and clone.position is not state.position
    assert clone.history() == state.history() and str(clone) == str(state)
    while not clone.is_terminal():
        clone.apply_action(clone.legal_actions()[0])
    assert (str(state), state.history(), state.position.to_dict()) == before
    # the chance stream is copied too: both go on with the same dice
    again = state.clone()
    while not again.is_terminal():
        again.apply_action(again.legal_actions()[0])
    assert again.position == clone.position


def test_serialization_round_trips_at_every_kind_of_state():
    game = load(3, "archmage")
    seen = 0
    for state in random_states(game, seed=2, every=37):
        text = state.serialize()
        json.loads(text)  # the engine's position format, as JSON
        restored = game.deserialize_state(text)
        assert str(restored) == str(state)
        assert restored.serialize() == text
        assert restored.current_player() == state.current_player()
        if not state.is_chance_node():
            assert restored.observation_tensor(0) == state.observation_tensor(0)
        # pyspiel's own formats (they pickle the state's attributes; the engine pickles as to_dict)
        new_game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert str(new_game) == str(game) and str(copy) == str(state) and copy.history() == state.history()
        assert str(pickle.loads(pickle.dumps(state))) == str(state)
        assert str(pickle.loads(pickle.dumps(game))) == str(game)
        seen += 1
    assert seen > 5
    # a state in the middle of drawing the seed
    partial = game.new_initial_state()
    partial.apply_action(9)
    assert game.deserialize_state(partial.serialize()).seed_bytes == (9,)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "a serialized state is JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),  # issue 44 item 12: was a RecursionError
        ('{"position": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"state": null}', "keys 'position', 'seed_bytes'"),
        ('{"position": null, "seed_bytes": [1, 2, 3, 4]}', "'seed_bytes' lists"),
        ('{"position": null, "seed_bytes": [300]}', "'seed_bytes' lists"),
        ('{"position": {"num_players": 2, "level": "magician"}}', "pending is empty but the game is not over"),
        (json.dumps({"position": Game.new(2, "magician", seed=0).to_dict()}), "this game is 2-player archmage"),
    ],
)
def test_bad_serialized_states_are_refused_with_the_reason(text, message):
    with pytest.raises(ValueError, match=message):
        load(2, "archmage").deserialize_state(text)


# ---------------------------------------------------------------------------- the observer


def test_the_observer_gives_the_environments_observation_and_the_seats_text_board():
    pytest.importorskip("pettingzoo", reason="the environments need the rl extra")
    from seasons_env import raw_env

    env = raw_env(num_players=3, level="archmage")
    env.reset(seed=21)
    game = load(3, "archmage")
    state = game.new_initial_state_for_seed(21)
    observer = make_observation(game)
    assert list(observer.dict) == [part.name for part in LAYOUT.slices]
    rng = np.random.default_rng(0)
    steps = 0
    while not state.is_terminal() and steps < 120:
        for seat in range(3):
            expected = env.observe(f"player_{seat}")["observation"]
            assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32), expected)
            observer.set_from(state, seat)
            assert np.array_equal(observer.tensor, expected)
            assert state.observation_string(seat) == render_text(env.game, viewer=seat)
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply_action(action)
        env.step(action)
        steps += 1
    assert steps == 120


def test_only_the_seats_own_observation_is_provided():
    game = load()
    assert game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)) is None
    public = pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    assert game.make_py_observer(public) is None
    assert game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False)) is not None
    with pytest.raises(ValueError, match="takes no parameters"):
        game.make_py_observer(None, {"x": 1})


# ---------------------------------------------------------------------------- bots


def test_the_resampler_keeps_the_deciders_observation_and_redraws_the_rest():
    game = load(3, "archmage")
    state = game.new_initial_state_for_seed(5)
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
    resample = sos.resampler(1)
    player = state.current_player()
    samples = [resample(state, player) for _ in range(5)]
    for sample in samples:
        assert sample.observation_string(player) == state.observation_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
    others = {tuple(map(tuple, s.position.hand)) for s in samples}
    assert len(others) > 1  # the other seats' cards were redrawn


def test_openspiels_ismcts_bot_completes_a_game_through_evaluate_bots():
    game = load(2, "apprentice")
    bots = [sos.ismcts_bot(game, 8, seed=3), uniform_random.UniformRandomBot(1, np.random.RandomState(4))]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state_for_seed(8), bots, np.random.RandomState(0))
    assert sorted(returns) in ([-1.0, 1.0], [1.0, 1.0])


def test_wrapped_project_agents_complete_a_game_through_evaluate_bots():
    pytest.importorskip("torch", reason="the learned agents need torch (the train extra)")
    import torch

    torch.set_num_threads(1)
    game = load(3, "magician")
    specs = ["heuristic", "learned", "policy-ismcts:4"]
    bots = [sos.make_agent_bot(spec, seed) for seed, spec in enumerate(specs)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state_for_seed(3), bots, np.random.RandomState(0))
    assert len(returns) == 3 and set(returns) <= {-1.0, 1.0} and 1.0 in returns


def test_agent_bot_refuses_what_is_not_an_agent():
    with pytest.raises(TypeError, match="act"):
        sos.AgentBot(object())
    with pytest.raises(ValueError, match="unknown agent"):
        sos.make_agent_bot("nobody")
    before_the_deal = load().new_initial_state()
    with pytest.raises(ValueError, match="no seat decides"):
        sos.make_agent_bot("random", 0).step(before_the_deal)
    with pytest.raises(ValueError, match="nothing to resample"):
        sos.resampler(0)(before_the_deal, 0)
    with pytest.raises(TypeError, match="python_seasons game"):
        sos.ismcts_bot(pyspiel.load_game("kuhn_poker"), 5)


# ---------------------------------------------------------------------------- a learner


def test_a_short_seeded_actor_critic_run_through_rl_environment_beats_random():
    """OpenSpiel's PolicyGradient (a2c) trained 300 games against random, then played greedily on new games."""
    pytest.importorskip("torch", reason="OpenSpiel's learners here are its PyTorch ones (the train extra)")
    import torch

    from seasons_agents.arena import wilson_interval
    from seasons_env.openspiel import learning

    torch.set_num_threads(1)
    settings = learning.LearnerSettings()
    untrained = learning.win_rate_against_random(learning.new_learner(settings, seed=0), games=30)
    trained = learning.win_rate_against_random(learning.train_against_random(settings, seed=0), games=60)
    low, _ = wilson_interval(trained * 60, 60)
    assert low > 0.5, (trained, low)
    assert trained > untrained + 0.3, (trained, untrained)
