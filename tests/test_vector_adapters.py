"""The batched adapters of seasons_env.vector: Gymnasium VectorEnv, SB3 VecEnv (MaskablePPO), BatchedSeasons.

Gymnasium has no checker for vector environments; ``gymnasium.utils.env_checker``'s space checks are applied to
the single spaces, its ``data_equivalence`` to reset and step determinism, and Gymnasium's own vector wrapper
(``RecordEpisodeStatistics``, which reads ``metadata["autoreset_mode"]``) is run over whole episodes.
"""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_action_space, check_observation_space, data_equivalence
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import seasons_env
from seasons_env import IllegalActionError
from seasons_env.encoding import OBSERVATION_SIZE, encode_observation
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector import BatchedSeasons, SeasonsVecEnv, SeasonsVectorEnv
from seasons_env.vector.driver import OpponentActionError
from seasons_env.vector.policies import sample_legal


def _masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return sample_legal(masks, rng)


def _run_until_termination(env: SeasonsVectorEnv, rng: np.random.Generator, limit: int = 3000) -> tuple:
    for _ in range(limit):
        result = env.step(_masked_random(env.action_masks(), rng))
        if result[2].any():
            return result
    raise AssertionError(f"no episode ended in {limit} steps")


def test_make_vec_builds_the_batched_env_with_next_step_autoreset() -> None:
    envs = gymnasium.make_vec(
        seasons_env.GYM_ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", num_players=3
    )
    assert isinstance(envs, SeasonsVectorEnv) and envs.num_envs == 3 and envs.num_players == 3
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    check_observation_space(envs.single_observation_space)
    check_action_space(envs.single_action_space)
    assert envs.single_observation_space.shape == (OBSERVATION_SIZE,)
    assert envs.action_space.shape == (3,) and envs.single_action_space.n == NUM_ACTIONS
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (3, NUM_ACTIONS) and infos["_action_mask"].all()


def test_make_vec_default_mode_is_the_batched_env_and_sync_still_works() -> None:
    # Gymnasium prefers the spec's vector_entry_point when no mode is given; "sync" keeps SyncVectorEnv.
    assert isinstance(gymnasium.make_vec(seasons_env.GYM_ENV_ID, num_envs=2), SeasonsVectorEnv)
    sync = gymnasium.make_vec(seasons_env.GYM_ENV_ID, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    obs, _ = sync.reset(seed=0)
    assert obs.shape == (2, OBSERVATION_SIZE)


def test_reset_and_step_are_deterministic_and_observe_the_learner() -> None:
    runs = []
    for _ in range(2):
        env = SeasonsVectorEnv(num_envs=4, num_players=3, agent_seat="random")
        trace = [env.reset(seed=7)]
        rng = np.random.default_rng(1)
        for _ in range(30):
            trace.append(env.step(_masked_random(env.action_masks(), rng)))
            seats = trace[-1][4]["seat"]
            current = env.batch.current_player
            running = ~trace[-1][2]
            assert np.array_equal(current[running], seats[running])  # the learner decides in every running game
            for i in np.flatnonzero(running)[:2]:
                game = env.batch.game(int(i))
                assert np.array_equal(trace[-1][0][i], encode_observation(game, int(seats[i])))
        runs.append(trace)
    assert data_equivalence(runs[0], runs[1])


def test_random_learner_seats_vary_and_follow_the_seed() -> None:
    env = SeasonsVectorEnv(num_envs=16, num_players=4, agent_seat="random")
    _, infos = env.reset(seed=3)
    seats = infos["seat"]
    assert len(set(seats.tolist())) > 1
    _, again = env.reset(seed=3)
    assert np.array_equal(again["seat"], seats)


def test_episode_end_then_next_step_autoreset() -> None:
    env = SeasonsVectorEnv(num_envs=3, num_players=2, level="apprentice")
    env.reset(seed=2)
    rng = np.random.default_rng(3)
    obs, rewards, terminated, truncated, infos = _run_until_termination(env, rng)
    i = int(np.flatnonzero(terminated)[0])
    final = env.batch.game(i)
    assert final.is_over and rewards[i] in (-1.0, 1.0) and not truncated.any()
    assert infos["_final_scores"][i] and infos["final_scores"][i].tolist() == final.scores()
    assert (rewards[i] == 1.0) == (0 in final.winners())
    assert np.array_equal(obs[i], encode_observation(final, 0))  # the learner's terminal observation
    assert env.action_masks()[i].all()  # the next action is ignored
    episode = env.batch.episode[i]
    obs, rewards, terminated, _, infos = env.step(_masked_random(env.action_masks(), rng))
    assert not terminated[i] and rewards[i] == 0.0 and env.batch.episode[i] == episode + 1
    assert np.array_equal(obs[i], encode_observation(env.batch.game(i), 0))


def test_record_episode_statistics_counts_whole_episodes() -> None:
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(SeasonsVectorEnv(num_envs=2, level="apprentice"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        _, _, terminated, _, infos = env.step(_masked_random(env.unwrapped.action_masks(), rng))
        if terminated.any():
            assert infos["episode"]["l"][terminated].min() > 10
            return
    raise AssertionError("no episode ended")


def test_reset_mask_restarts_only_some_games() -> None:
    env = SeasonsVectorEnv(num_envs=3)
    env.reset(seed=0)
    before = [env.batch.game(i) for i in range(3)]
    env.reset(options={"reset_mask": np.array([False, True, False])})
    assert env.batch.episode.tolist() == [0, 1, 0]
    assert env.batch.game(0) == before[0] and env.batch.game(1) != before[1]
    with pytest.raises(ValueError, match="unknown key"):
        env.reset(options={"state": {}})


def test_illegal_action_penalized_or_raised() -> None:
    env = SeasonsVectorEnv(num_envs=2)
    env.reset(seed=0)
    masks = env.action_masks()
    actions = _masked_random(masks, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    _, rewards, terminated, _, infos = env.step(actions)
    assert terminated.tolist() == [False, True] and rewards[1] == -1.0 and infos["illegal_action"][1]
    strict = SeasonsVectorEnv(num_envs=2, illegal="raise")
    strict.reset(seed=0)
    before = strict.batch.game(0)
    bad = np.array([int(np.flatnonzero(~strict.action_masks()[0])[0]), 0])
    with pytest.raises(IllegalActionError, match="game 0: decision"):
        strict.step(bad)
    assert strict.batch.game(0) == before
    with pytest.raises(ValueError, match=r"integer array of shape \(2,\)"):
        strict.step(np.zeros(3, dtype=np.int64))


def test_batched_opponent_is_called_once_for_all_waiting_games() -> None:
    calls = []

    def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape == (masks.shape[0], OBSERVATION_SIZE) and masks.dtype == np.bool_
        calls.append(masks.shape[0])
        return np.argmax(masks, axis=1)

    env = SeasonsVectorEnv(num_envs=8, num_players=3, opponents=first_legal)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(_masked_random(env.action_masks(), rng))
    assert max(calls) > 1  # several games answered in one call
    assert (env.batch.current_player[~env.batch.is_over] == 0).all()


def _step_until_opponent_fails(env: SeasonsVectorEnv) -> None:
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        env.step(_masked_random(env.action_masks(), rng))


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (lambda observations, masks: np.full(len(masks), -1), r"illegal action: action -1 \(not in the action table\)"),
        (lambda observations, masks: np.zeros(len(masks) + 1, dtype=int), r"must return \d+ integer action ids"),
        (lambda observations, masks: np.zeros(len(masks)), "got dtype float64"),
    ],
)
def test_opponent_failure_raises_and_requires_reset(policy, message: str) -> None:
    env = SeasonsVectorEnv(num_envs=2, opponents=policy)
    with pytest.raises(OpponentActionError, match=message):
        _step_until_opponent_fails(env)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(2, dtype=np.int64))
    env.reset(seed=1)  # a reset recovers


def test_opponent_specs_are_checked() -> None:
    with pytest.raises(ValueError, match="opponent policy"):
        SeasonsVectorEnv(num_envs=2, opponents=3.5)
    with pytest.raises(ValueError, match="AgentPolicy"):
        from seasons_agents.heuristic import HeuristicAgent

        SeasonsVectorEnv(num_envs=2, opponents=HeuristicAgent(0))


def test_heuristic_opponents_play_each_game_with_their_own_agent() -> None:
    env = SeasonsVectorEnv(num_envs=3, num_players=3, opponents="heuristic")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(15):
        env.step(_masked_random(env.action_masks(), rng))
    agents = env.learner.groups[0][0]._agents
    assert len({id(agent) for _, agent in agents.values()}) == len(agents) >= 3


def test_self_play_reports_the_acting_seat_and_every_seats_reward() -> None:
    env = SeasonsVectorEnv(num_envs=4, num_players=3, self_play=True, level="apprentice")
    _, infos = env.reset(seed=0)
    assert np.array_equal(infos["seat"], env.batch.current_player)
    rng = np.random.default_rng(1)
    seats_seen = set()
    for _ in range(3000):
        _, _, terminated, _, infos = env.step(_masked_random(env.action_masks(), rng))
        running = ~terminated
        assert np.array_equal(infos["seat"][running], env.batch.current_player[running])
        seats_seen |= set(infos["seat"].tolist())
        if terminated.any():
            i = int(np.flatnonzero(terminated)[0])
            assert sorted(infos["final_rewards"][i].tolist()).count(1.0) >= 1
            break
    assert seats_seen == {0, 1, 2}
    with pytest.raises(ValueError, match="self_play=True"):
        SeasonsVectorEnv(num_envs=2, self_play=True, opponents="random")


def test_sb3_vecenv_contract_same_step_reset() -> None:
    env = SeasonsVecEnv(num_envs=3, level="apprentice", seed=4)
    assert isinstance(env, VecEnv) and env.num_envs == 3
    obs = env.reset()
    assert obs.shape == (3, OBSERVATION_SIZE) and obs.dtype == np.float32
    assert env.has_attr("action_masks") and len(env.env_method("action_masks")) == 3
    assert env.get_attr("render_mode") == [None, None, None] and env.env_is_wrapped(VecMonitor) == [False] * 3
    rng = np.random.default_rng(0)
    for _ in range(3000):
        obs, rewards, dones, infos = env.step(_masked_random(env.action_masks(), rng))
        assert len(infos) == 3 and rewards.dtype == np.float32
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert infos[i]["terminal_observation"].shape == (OBSERVATION_SIZE,)
            assert not np.array_equal(infos[i]["terminal_observation"], obs[i])  # obs is the new game's
            assert env.batch.episode[i] == 1 and not env.batch.is_over[i]
            assert infos[i]["TimeLimit.truncated"] is False and rewards[i] in (-1.0, 1.0)
            break
    else:
        raise AssertionError("no episode ended")
    env.seed(9)
    first = env.reset()
    env.seed(9)
    assert np.array_equal(env.reset(), first)


def test_maskable_ppo_trains_on_the_batched_vecenv_and_plays_as_a_frozen_opponent() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    torch.set_num_threads(1)
    env = VecMonitor(SeasonsVecEnv(num_envs=4, level="apprentice", agent_seat="random", seed=0))
    assert get_action_masks(env).shape == (4, NUM_ACTIONS)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, gamma=1.0, seed=0)
    model.learn(total_timesteps=320)
    assert model.num_timesteps >= 320
    # the trained model as a batched opponent: one predict() for all the games waiting on it
    frozen = SeasonsVectorEnv(num_envs=3, opponents=model)
    frozen.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        frozen.step(_masked_random(frozen.action_masks(), rng))
    assert (frozen.batch.current_player[~frozen.batch.is_over] == 0).all()


def test_batched_pettingzoo_style_loop() -> None:
    env = BatchedSeasons(batch_size=4, num_players=3, level="apprentice", seed=0)
    state = env.reset()
    assert state.observations.shape == (4, OBSERVATION_SIZE) and state.masks.shape == (4, NUM_ACTIONS)
    assert np.array_equal(state.current_player, env.batch.current_player)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        masks = np.where(state.terminations[:, None], True, state.masks)
        previous = state
        state = env.step(_masked_random(masks, rng))
        assert not state.restarted[~previous.terminations].any()
        if state.terminations.any():
            i = int(np.flatnonzero(state.terminations)[0])
            assert state.rewards[i].tolist().count(1.0) >= 1 and state.final_scores[i].any()
            assert state.current_player[i] == -1 and not state.masks[i].any()
            assert not state.rewards[~state.terminations].any()
            state = env.step(_masked_random(np.where(state.terminations[:, None], True, state.masks), rng))
            assert state.restarted[i] and state.current_player[i] >= 0
            return
    raise AssertionError("no game ended")


def test_sb3_wrappers_and_self_play_training() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecCheckNan, VecNormalize

    torch.set_num_threads(1)
    env = VecNormalize(VecCheckNan(SeasonsVecEnv(num_envs=4, num_players=3, self_play=True, seed=1)), norm_reward=False)
    obs = env.reset()
    assert obs.shape == (4, OBSERVATION_SIZE)
    masks = get_action_masks(env)
    assert masks.shape == (4, NUM_ACTIONS) and np.array_equal(masks, env.unwrapped.action_masks())
    _, _, _, infos = env.step(_masked_random(masks, np.random.default_rng(0)))
    assert [info["seat"] for info in infos] == env.unwrapped.batch.current_player.tolist()
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, gamma=1.0, seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def _copied(env: object, how: str) -> object:
    return copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_the_gymnasium_vector_env_copies_and_pickles_and_steps_on_identically(how: str) -> None:
    """Gymnasium's async vector env, SB3 and Ray pickle environments: the copy, its batch's arrays and its
    opponents' generator included, continues exactly as the original, through episode ends and autoresets."""
    env = SeasonsVectorEnv(num_envs=3, level="apprentice")
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(10):
        env.step(_masked_random(env.action_masks(), rng))
    twin = _copied(env, how)
    ended = 0
    for _ in range(300):
        actions = _masked_random(env.action_masks(), rng)
        step, twin_step = env.step(actions), twin.step(actions)
        data_equivalence(step, twin_step)
        ended += int(step[2].sum())
    assert ended > 0
    assert [twin.batch.game(i) for i in range(3)] == [env.batch.game(i) for i in range(3)]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_the_sb3_vecenv_and_batched_loop_copy_and_pickle_and_step_on_identically(how: str) -> None:
    env = SeasonsVecEnv(num_envs=3, level="apprentice", seed=4)
    env.reset()
    rng = np.random.default_rng(3)
    twin = _copied(env, how)
    ended = 0
    for _ in range(300):
        actions = _masked_random(env.action_masks(), rng)
        obs, rewards, dones, infos = env.step(actions)
        twin_obs, twin_rewards, twin_dones, twin_infos = twin.step(actions)
        assert np.array_equal(obs, twin_obs) and np.array_equal(rewards, twin_rewards)
        assert np.array_equal(dones, twin_dones)
        data_equivalence(infos, twin_infos)
        ended += int(dones.sum())
    assert ended > 0
    loop = BatchedSeasons(batch_size=2, num_players=3, level="apprentice", seed=0)
    state = loop.reset()
    twin_loop = _copied(loop, how)
    for _ in range(300):
        actions = _masked_random(np.where(state.terminations[:, None], True, state.masks), rng)
        state, twin_state = loop.step(actions), twin_loop.step(actions)
        for name in ("observations", "masks", "current_player", "rewards", "terminations", "restarted"):
            assert np.array_equal(getattr(state, name), getattr(twin_state, name)), name


def test_a_vector_env_with_agent_opponents_pickles_and_steps_on_identically() -> None:
    """Opponents named by the registry (one agent per game and seat) pickle with the environment, their agents'
    state and generators included."""
    env = SeasonsVectorEnv(num_envs=2, num_players=3, opponents="heuristic")
    env.reset(seed=3)
    rng = np.random.default_rng(4)
    for _ in range(5):
        env.step(_masked_random(env.action_masks(), rng))
    twin = pickle.loads(pickle.dumps(env))
    for _ in range(15):
        actions = _masked_random(env.action_masks(), rng)
        data_equivalence(env.step(actions), twin.step(actions))
    assert [twin.batch.game(i) for i in range(2)] == [env.batch.game(i) for i in range(2)]
