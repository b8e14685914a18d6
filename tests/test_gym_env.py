"""The Gymnasium single-agent view and Stable-Baselines3 / sb3-contrib."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.monitor import Monitor

import seasons_env
from seasons_env import IllegalActionError
from seasons_env.engine import actions as A
from seasons_env.gym_env import SeasonsGymEnv

torch.set_num_threads(1)


def test_registered_and_made_by_id() -> None:
    env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=3, level="magician")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (seasons_env.NUM_ACTIONS,) and info["action_mask"].any()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_check_env() -> None:
    gymnasium_check_env(SeasonsGymEnv(num_players=2))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sb3_check_env() -> None:
    sb3_check_env(SeasonsGymEnv(num_players=4, level="apprentice"))


def test_episode_with_masks_ends_with_the_final_reward() -> None:
    env = SeasonsGymEnv(num_players=3, level="archmage", agent_seat="random", reward="rank")
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


def test_callable_opponents_are_asked_with_their_own_observation() -> None:
    seen = []

    def first_legal(observation: dict) -> int:
        seen.append(observation["observation"].shape)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SeasonsGymEnv(num_players=2, opponents=first_legal)
    env.reset(seed=1)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert seen and all(shape == env.observation_space.shape for shape in seen)


def test_illegal_actions_penalize_or_raise() -> None:
    env = SeasonsGymEnv()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(A.END_TURN)
    assert reward == -1.0 and terminated and info["illegal_action"]
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
    ],
)
def test_bad_configuration_names_the_field(kwargs: dict, field: str) -> None:
    config = {"num_players": 2, **kwargs} if "num_players" not in kwargs else kwargs
    if field == r"opponents\[1\]":
        config["num_players"] = 3
    with pytest.raises(ValueError, match=field):
        SeasonsGymEnv(**config)


def test_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[bytes]:
        env = SeasonsGymEnv(num_players=3, agent_seat="random")
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


def test_agents_can_be_opponents() -> None:
    from agents.random_agent import RandomAgent

    seats: set[int] = set()

    class Recorder(RandomAgent):
        def act(self, view, seat, legal):
            assert view is not env.game and view.hand[seat] == env.game.hand[seat]
            seats.add(seat)
            return super().act(view, seat, legal)

    env = SeasonsGymEnv(num_players=3, opponents=[Recorder(1), "random"])
    env.reset(seed=2)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert seats == {1}
