"""The Gymnasium single-agent view and Stable-Baselines3 / sb3-contrib."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import seasons_env
from seasons_agents.heuristic import HeuristicAgent
from seasons_env import Game, IllegalActionError, registry
from seasons_env.encoding import encode_observation
from seasons_env.engine import actions as A
from seasons_env.gym_env import SeasonsGymEnv

#: Both rules engines the environment steps (the kernels' compiled path: tests/test_single_game.py).
ENGINES = ["reference", "kernels"]

torch.set_num_threads(1)


def test_registered_and_made_by_id() -> None:
    env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=3, level="magician")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (seasons_env.NUM_ACTIONS,) and info["action_mask"].any()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("engine", ENGINES)
def test_gymnasium_check_env(engine: str) -> None:
    """Gymnasium's checker passes without a warning (it warned of the unbounded Box(-inf, inf) before)."""
    gymnasium_check_env(SeasonsGymEnv(num_players=2, engine=engine), skip_render_check=True)


@pytest.mark.parametrize(("num_players", "level"), [(2, "archmage"), (3, "magician"), (4, "apprentice")])
def test_random_games_never_leave_the_observation_box(num_players: int, level: str) -> None:
    """Every seat's observation at every position of random games lies in the bounded observation space, and
    every feature's bound is finite."""
    from random_play import random_game

    from seasons_env.encoding import OBSERVATION_HIGH, OBSERVATION_LOW, encode_observation

    space = SeasonsGymEnv(num_players=num_players, level=level).observation_space
    assert (
        np.isfinite(space.high).all()
        and (space.low == OBSERVATION_LOW).all()
        and (space.high == OBSERVATION_HIGH).all()
    )
    largest = np.zeros_like(OBSERVATION_HIGH)

    def observe(game: Game) -> None:
        for seat in range(num_players):
            obs = encode_observation(game, seat)
            assert space.contains(obs), [i for i in np.flatnonzero((obs < space.low) | (obs > space.high))]
            np.maximum(largest, obs, out=largest)

    for seed in range(3):
        random_game(num_players, level, seed, on_step=observe)
    assert largest.max() > 1  # counts were seen: the check is not of an empty vector


def test_crystals_beyond_the_documented_bound_are_shown_at_the_bound() -> None:
    from seasons_env.encoding import CRYSTAL_SCALE, OBSERVATION_HIGH, SELF_SCALARS, encode_observation
    from seasons_env.engine.serialization import MAX_CRYSTALS

    game = Game.new(2, "archmage", seed=1)
    game.crystals[0] = 10 * MAX_CRYSTALS
    obs = encode_observation(game, 0)
    assert obs[SELF_SCALARS] == OBSERVATION_HIGH[SELF_SCALARS] == MAX_CRYSTALS / CRYSTAL_SCALE


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("engine", ENGINES)
def test_sb3_check_env(engine: str) -> None:
    sb3_check_env(SeasonsGymEnv(num_players=4, level="apprentice", engine=engine))


@pytest.mark.parametrize("engine", ENGINES)
def test_episode_with_masks_ends_with_the_final_reward(engine: str) -> None:
    env = SeasonsGymEnv(num_players=3, level="archmage", agent_seat="random", reward="rank", engine=engine)
    rng = np.random.default_rng(0)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            assert env.game.current_player == env.seat
            mask = env.action_masks()
            assert np.array_equal(np.flatnonzero(mask), env.game.legal_action_list())
            _, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated and (done or reward == 0.0)
        assert env.game.is_over and "scores" in info and -1.0 <= reward <= 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_callable_opponents_are_asked_with_their_own_observation(engine: str) -> None:
    seen = []

    def first_legal(observation: dict) -> int:
        seen.append(observation["observation"].shape)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SeasonsGymEnv(num_players=2, opponents=first_legal, engine=engine)
    env.reset(seed=1)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert seen and all(shape == env.observation_space.shape for shape in seen)


def test_illegal_actions_lose_or_raise() -> None:
    env = SeasonsGymEnv()
    assert env.illegal == "lose"
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(A.END_TURN)
    assert reward == -1.0 and terminated and info["illegal_action"]
    lose = SeasonsGymEnv(illegal="lose")
    lose.reset(seed=0)
    assert lose.step(A.END_TURN)[1:3] == (-1.0, True)
    with pytest.warns(DeprecationWarning, match="'penalize' is deprecated .* use 'lose'"):
        assert SeasonsGymEnv(illegal="penalize").illegal == "lose"
    with pytest.raises(ValueError, match="illegal must be one of lose, raise; got 'forfeit'"):
        SeasonsGymEnv(illegal="forfeit")
    strict = SeasonsGymEnv(illegal="raise")
    strict.reset(seed=0)
    before = strict.game.to_dict()
    with pytest.raises(IllegalActionError):
        strict.step(A.END_TURN)
    assert strict.game.to_dict() == before


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"opponents": [None, None]}, "opponents"),
        ({"opponents": ["random", 3]}, r"opponents\[1\]"),
        ({"agent_seat": 2}, "agent_seat"),
        ({"num_players": 1}, "num_players"),
        ({"reward": "gold"}, "reward"),
        ({"engine": "fast"}, "engine must be one of 'auto', 'reference', 'kernels'; got 'fast'"),
    ],
)
def test_bad_configuration_names_the_field(kwargs: dict, field: str) -> None:
    config = {"num_players": 2, **kwargs} if "num_players" not in kwargs else kwargs
    if field == r"opponents\[1\]":
        config["num_players"] = 3
    with pytest.raises(ValueError, match=field):
        SeasonsGymEnv(**config)


@pytest.mark.parametrize("engine", ENGINES)
def test_same_seed_same_episode(engine: str) -> None:
    def episode(seed: int) -> list[bytes]:
        env = SeasonsGymEnv(num_players=3, agent_seat="random", engine=engine)
        obs, _ = env.reset(seed=seed)
        frames = [obs.tobytes()]
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            frames.append(obs.tobytes())
        return frames

    assert episode(7) == episode(7)


def test_maskable_ppo_learns_and_evaluates() -> None:
    env = Monitor(SeasonsGymEnv(num_players=2, level="apprentice"))
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, verbose=0)
    model.learn(total_timesteps=512)
    rewards, lengths = evaluate_policy(model, env, n_eval_episodes=4, return_episode_rewards=True)
    assert len(rewards) == 4 and all(r in (-1.0, 1.0) for r in rewards) and min(lengths) > 10


@pytest.mark.parametrize("engine", ENGINES)
def test_agents_can_be_opponents(engine: str) -> None:
    from seasons_agents.random_agent import RandomAgent

    seats: set[int] = set()

    class Recorder(RandomAgent):
        def act(self, view, seat, legal):
            assert view is not env.game and view.hand[seat] == env.game.hand[seat]
            seats.add(seat)
            return super().act(view, seat, legal)

    env = SeasonsGymEnv(num_players=3, opponents=[Recorder(1), "random"], engine=engine)
    env.reset(seed=2)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert seats == {1}


# -- actions of any integral type (issue 9, item 12)

INTEGRAL_FORMS = {
    "int": int,
    "numpy int64": np.int64,
    "numpy uint16": np.uint16,
    "0-d array": np.array,  # what MaskablePPO.predict returns for one observation
    "one-element array": lambda a: np.array([a]),
    "one-element int32 array": lambda a: np.array([[a]], dtype=np.int32),
}


@pytest.mark.parametrize("form", INTEGRAL_FORMS)
@pytest.mark.parametrize("engine", ENGINES)
def test_step_accepts_any_integral_scalar(form: str, engine: str) -> None:
    reference, env = SeasonsGymEnv(num_players=3), SeasonsGymEnv(num_players=3, engine=engine)
    reference.reset(seed=4)
    env.reset(seed=4)
    for _ in range(5):
        action = reference.game.legal_action_list()[-1]
        expected = reference.step(action)
        obs, reward, terminated, _, info = env.step(INTEGRAL_FORMS[form](action))
        assert "illegal_action" not in info and not terminated and reward == 0.0
        assert obs.tobytes() == expected[0].tobytes() and env.game.to_dict() == reference.game.to_dict()


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (2.5, TypeError, "got float 2.5"),
        (2.0, TypeError, "got float 2.0"),
        (np.float32(3.0), TypeError, "got float32"),
        ("3", TypeError, "got str '3'"),
        (True, TypeError, "got bool True"),
        (np.bool_(True), TypeError, "got bool"),
        (None, TypeError, "got NoneType None"),
        (np.array(2.0), TypeError, "array of dtype float64"),
        (np.array([1, 2]), ValueError, r"array of shape \(2,\)"),
        (np.array([], dtype=np.int64), ValueError, r"array of shape \(0,\)"),
    ],
)
def test_step_rejects_non_integral_actions(action: object, error: type, message: str) -> None:
    env = SeasonsGymEnv()  # illegal="lose": a wrong type is still an error, not a move
    env.reset(seed=0)
    before = env.game.to_dict()
    with pytest.raises(error, match=f"action must be .*{message}"):
        env.step(action)
    assert env.game.to_dict() == before
    _, _, terminated, _, info = env.step(env.game.legal_action_list()[0])  # the episode goes on
    assert "illegal_action" not in info and not terminated


# -- opponents: names, agents, callables and SB3 models (issue 9, item 14)


def _play_out(env: SeasonsGymEnv, seed: int) -> list[bytes]:
    """One episode with the learner's first legal action each time; the observations seen."""
    obs, _ = env.reset(seed=seed)
    frames = [obs.tobytes()]
    done = False
    while not done:
        obs, _, done, _, info = env.step(env.game.legal_action_list()[0])
        frames.append(obs.tobytes())
    assert "illegal_action" not in info and env.game.is_over
    return frames


def test_opponents_by_agent_name_one_agent_per_seat() -> None:
    from seasons_agents.heuristic import HeuristicAgent

    env = SeasonsGymEnv(num_players=3, level="apprentice", opponents="heuristic")
    policies = [opponent.policy for opponent in env.opponents]
    assert all(isinstance(policy, HeuristicAgent) for policy in policies) and policies[0] is not policies[1]
    # the agents are reseeded from the environment's seed: the same seed gives the same episode
    again = SeasonsGymEnv(num_players=3, level="apprentice", opponents="heuristic")
    assert _play_out(env, 3) == _play_out(again, 3)
    mixed = SeasonsGymEnv(num_players=3, level="apprentice", opponents=["random", "heuristic"])
    assert [opponent.kind for opponent in mixed.opponents] == ["random", "agent"]
    _play_out(mixed, 0)


def test_unknown_agent_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"opponents\[1\]: unknown agent 'wizard'; known agents: .*heuristic.*ismcts"):
        SeasonsGymEnv(num_players=3, opponents=["random", "wizard"])


def test_agent_names_come_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_agents", {})  # as if no package had registered any agent
    monkeypatch.setattr(registry, "_loaded", True)
    with pytest.raises(ValueError, match="opponents: unknown agent 'heuristic'; known agents: none registered"):
        SeasonsGymEnv(opponents="heuristic")
    SeasonsGymEnv(opponents="random").reset(seed=0)  # the built-in opponent needs nothing
    registry.register_agent("heuristic", HeuristicAgent)
    assert isinstance(SeasonsGymEnv(opponents="heuristic").opponents[0].policy, HeuristicAgent)


def test_the_library_does_not_import_agents() -> None:
    code = (
        "import sys, seasons_env, seasons_env.gym_env, seasons_env.pettingzoo_env\n"
        "seasons_env.gym_env.SeasonsGymEnv(opponents='random').reset(seed=0)\n"
        "assert 'agents' not in sys.modules, 'agents imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


class FirstLegalModel:
    """An SB3-style model: ``predict`` answers the first legal action as a 0-d array, and records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple, bool]] = []

    def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
        self.calls.append((observation.shape, deterministic))
        return np.array(np.flatnonzero(action_masks)[0]), state


class UnmaskedModel:
    """An SB3-style model whose ``predict`` takes no masks (as plain PPO)."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        return np.array(int(observation.sum() * 1000) % 7), state


def test_sb3_style_models_as_opponents() -> None:
    model = FirstLegalModel()
    env = SeasonsGymEnv(num_players=3, opponents=[model, "random"])
    _play_out(env, 1)
    assert model.calls and all(call == (env.observation_space.shape, True) for call in model.calls)
    unmasked = SeasonsGymEnv(opponents=UnmaskedModel())
    assert not unmasked.opponents[0].takes_masks


def test_a_maskable_ppo_model_as_opponent() -> None:
    model = MaskablePPO("MlpPolicy", SeasonsGymEnv(level="apprentice"), n_steps=64, seed=0)
    env = SeasonsGymEnv(num_players=3, level="apprentice", opponents=model)
    assert [opponent.kind for opponent in env.opponents] == ["model", "model"]
    _play_out(env, 2)


def test_a_model_for_another_observation_is_refused() -> None:
    model = FirstLegalModel()
    model.observation_space = gymnasium.spaces.Box(0, 1, (4,))
    with pytest.raises(ValueError, match=r"opponents\[0\]: the model reads observations of shape \(4,\)"):
        SeasonsGymEnv(num_players=3, opponents=[model, None])


@pytest.mark.parametrize("opponents", [3, {"seat": "heuristic"}, ["random", 2.5]])
def test_bad_opponents_list_what_is_accepted(opponents: object) -> None:
    with pytest.raises(ValueError, match=r"opponents(\[1\])? must be an opponent; .*An opponent is None or 'random'"):
        SeasonsGymEnv(num_players=3, opponents=opponents)


# -- no half-applied turn, and reset after the end (issue 9, item 15)


def _failing_after(calls: int, answer: object) -> Callable[[dict], object]:
    """A callable opponent that plays the first legal action ``calls`` times, then answers ``answer``."""
    count = [0]

    def policy(observation: dict) -> object:
        count[0] += 1
        if count[0] > calls:
            if isinstance(answer, Exception):
                raise answer
            return answer
        return int(np.flatnonzero(observation["action_mask"])[0])

    return policy


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (A.END_TURN, IllegalActionError, r"opponents\[1\] \(policy\) playing seat 2 chose action .* not legal"),
        (999, IllegalActionError, r"chose action 999 \(not in the action table\)"),
        (2.5, IllegalActionError, r"returned 2.5, which is not an action id"),
        (RuntimeError("policy crashed"), RuntimeError, "policy crashed"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_opponent_leaves_the_step_undone(answer: object, error: type, message: str, engine: str) -> None:
    env = SeasonsGymEnv(num_players=3, opponents=["random", _failing_after(6, answer)], engine=engine)
    env.reset(seed=5)
    while True:
        before = (env.game.to_dict(), env.np_random.bit_generator.state, env.seat)
        action = env.game.legal_action_list()[-1]
        try:
            env.step(action)
        except error as failure:
            if isinstance(answer, int | float):
                assert type(failure).__name__ == "OpponentActionError"
            assert re.search(message, str(failure))
            break
    assert (env.game.to_dict(), env.np_random.bit_generator.state, env.seat) == before
    assert np.flatnonzero(env.action_masks()).tolist() == env.game.legal_action_list()


def test_step_after_the_episode_ended_requires_reset() -> None:
    env = SeasonsGymEnv()
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(A.END_TURN)  # illegal: the episode ends with -1
    assert terminated and reward == -1.0
    before = env.game.to_dict()
    with pytest.raises(RuntimeError, match=r"after the episode ended.*call reset\(\)"):
        env.step(env.game.legal_action_list()[0])
    assert env.game.to_dict() == before
    _play_out(env, 0)  # a finished game: the same
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        SeasonsGymEnv().step(0)


def test_a_closed_environment_refuses_step_and_reset() -> None:
    env = SeasonsGymEnv()
    env.reset(seed=0)
    legal = env.game.legal_action_list()
    before = env.game.to_dict()
    env.close()
    with pytest.raises(RuntimeError, match=r"step\(\) called after close\(\): this environment is closed"):
        env.step(legal[0])
    assert env.game.to_dict() == before
    with pytest.raises(RuntimeError, match=r"reset\(\) called after close\(\)"):
        env.reset(seed=1)
    assert env.game.to_dict() == before
    env.close()  # closing twice is harmless


# -- reset(options={"state": ...}) (issue 9, item 16)


def _position(seed: int, decisions: int) -> Game:
    game = Game.new(2, "archmage", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game


def test_reset_starts_from_a_given_state() -> None:
    game = _position(seed=1, decisions=60)
    state = game.to_dict()
    env = SeasonsGymEnv(num_players=2, agent_seat=game.current_player)
    obs, info = env.reset(seed=0, options={"state": state})
    assert env.game.to_dict() == state and info["seat"] == game.current_player
    assert obs.tobytes() == encode_observation(game, game.current_player).tobytes()
    # the other seat learning: the opponent plays from the given position until the learner decides
    other = SeasonsGymEnv(num_players=2, agent_seat=1 - game.current_player)
    other.reset(seed=0, options={"state": state})
    assert other.game.current_player == other.seat and other.game.to_dict() != state
    assert (other.game.year, other.game.position) >= (game.year, game.position)
    assert not state.get("final_scores")
    _, _, terminated, _, _ = other.step(other.game.legal_action_list()[0])
    assert not terminated or other.game.is_over


def _position_the_opponent_finishes() -> dict:
    """A position where seat 1, playing its first legal actions, ends the game before seat 0 decides."""
    game = _position(seed=2, decisions=0)
    rng = np.random.default_rng(2)
    while not game.is_over:
        if game.current_player == 1:
            trial = game.clone()
            while not trial.is_over and trial.current_player == 1:
                trial.apply(trial.legal_action_list()[0])
            if trial.is_over:
                return game.to_dict()
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no such position in this game")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sate": {}}, r"options: unknown key\(s\) 'sate'; accepted: 'state'"),
        ([("state", None)], "options must be a dict or None; got list"),
        ({"state": Game.new(3, "archmage", seed=0).to_dict()}, "options\\['state'\\] is a 3-player archmage"),
        ({"state": Game.new(2, "magician", seed=0).to_dict()}, "options\\['state'\\] is a 2-player magician"),
        ({"state": {"num_players": 7}}, "options\\['state'\\] is not a valid position: .*num_players"),
        ({"state": "state.json"}, "options\\['state'\\] is not a valid position"),
    ],
)
def test_bad_reset_options_are_refused(options: object, message: str) -> None:
    env = SeasonsGymEnv(num_players=2)
    env.reset(seed=0)
    before = env.game.to_dict()
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert env.game.to_dict() == before


def test_reset_refuses_finished_games_and_games_the_opponents_finish() -> None:
    finished = _position(seed=3, decisions=0)
    rng = np.random.default_rng(3)
    while not finished.is_over:
        finished.apply(finished.legal_action_list()[int(rng.integers(len(finished.legal_action_list())))])
    env = SeasonsGymEnv(num_players=2)
    with pytest.raises(ValueError, match="options\\['state'\\] is a finished game"):
        env.reset(options={"state": finished.to_dict()})

    def first_legal(observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SeasonsGymEnv(num_players=2, agent_seat=0, opponents=first_legal)
    with pytest.raises(ValueError, match=r"the opponents finish this game before the learner \(seat 0\) decides"):
        env.reset(options={"state": _position_the_opponent_finishes()})
    with pytest.raises(RuntimeError, match=r"failed reset\(\)"):
        env.step(0)


# -- MaskablePPO on vectorized environments made by id


def test_maskable_ppo_on_a_vectorized_env_made_by_id() -> None:
    def make() -> gymnasium.Env:
        env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=2, level="apprentice", opponents="random")
        return ActionMasker(env, lambda e: e.unwrapped.action_masks())

    vec_env = DummyVecEnv([make, make])
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    # the raw output of predict (a 0-d array) is a valid action for step
    env = make()
    obs, _ = env.reset(seed=0)
    done, info = False, {}
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, _, done, _, info = env.step(action)
    assert "illegal_action" not in info and "scores" in info
