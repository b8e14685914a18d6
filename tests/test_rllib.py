"""RLlib route (issue 14): environments, env check, masked PPO, evaluation, checkpoints, a two-node cluster.

Select these with ``pytest -m rllib``; they run in the default command too. Ray is started small (2 CPUs,
an 80 MB object store) and always shut down by the fixtures; the two-node test stops the nodes it started.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra (pip install seasons-env[rllib]) is not installed")

import ray
import torch
from limits import bounded
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from seasons_agents.base import play_game
from seasons_agents.random_agent import RandomAgent
from seasons_agents.rllib_agent import RLlibPolicyAgent
from seasons_env import IllegalActionError
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.masked_mlp import MaskedActorCritic, export_network, load_network
from seasons_env.rllib import (
    MULTI_AGENT_ENV,
    SHARED_MODULE,
    SINGLE_AGENT_ENV,
    ArenaEvaluation,
    MaskedPPOModule,
    SeasonsMultiAgentEnv,
    SeasonsSingleAgentEnv,
    default_ppo_config,
    evaluate_network,
    export_module,
    wilson_interval,
)

pytestmark = pytest.mark.rllib

OBJECT_STORE_BYTES = 80 * 1024 * 1024
SMALL = {"num_envs_per_env_runner": 16, "rollout_fragment_length": 16, "minibatch_size": 128, "num_epochs": 1}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(
        address="local",
        num_cpus=2,
        object_store_memory=OBJECT_STORE_BYTES,
        include_dashboard=False,
        log_to_driver=False,
    )
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture
def algorithm_factory(local_ray):
    built: list[Algorithm] = []

    def build(config):
        algorithm = config.build_algo()
        built.append(algorithm)
        return algorithm

    yield build
    for algorithm in built:
        algorithm.stop()


# ---------------------------------------------------------------------------- environments


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rllib_env_check_passes_and_unmasked_samples_are_penalized(num_players):
    env = SeasonsMultiAgentEnv({"num_players": num_players})
    check_multiagent_environments(env)  # RLlib's own check: it steps with an unmasked action_space.sample()

    observations, _ = env.reset(seed=5)
    (agent,) = observations
    mask = observations[agent]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    observations, rewards, terminateds, truncateds, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and not truncateds["__all__"]
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert infos[agent] == {"illegal_action": True}
    assert set(observations) == set(env.possible_agents)


def test_rllib_env_check_fails_when_illegal_actions_raise():
    # why "lose" is the default: RLlib's check samples unmasked actions. It resets with seed 42 but samples from
    # unseeded action spaces, which now and then drew a legal action (a few percent of runs): seeded here.
    env = SeasonsMultiAgentEnv({"illegal": "raise"})
    for agent in env.possible_agents:
        env.get_action_space(agent).seed(0)
    with pytest.raises(ValueError, match="step"):
        check_multiagent_environments(env)


def test_multi_agent_env_plays_a_whole_game_with_masked_actions():
    env = SeasonsMultiAgentEnv({"num_players": 3, "level": "magician", "reward": "rank", "observation_key": "obs"})
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=11)
    steps = 0
    while True:
        (agent,) = observations
        assert env.observation_spaces[agent].contains(observations[agent])
        legal = np.flatnonzero(observations[agent]["action_mask"])
        observations, rewards, terminateds, _, infos = env.step({agent: int(rng.choice(legal))})
        steps += 1
        if terminateds["__all__"]:
            break
        assert rewards == {agent: 0.0}
    assert sorted(rewards.values()) == [-1.0, 0.0, 1.0]
    assert all("winners" in infos[a] for a in env.possible_agents)
    assert steps > 50
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


def test_multi_agent_env_rejects_actions_for_the_wrong_agent():
    env = SeasonsMultiAgentEnv()
    observations, _ = env.reset(seed=1)
    (agent,) = observations
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"for '{agent}'"):
        env.step({other: 0})


def test_single_agent_env_passes_gymnasium_check_and_follows_the_illegal_policy():
    from gymnasium.utils.env_checker import check_env

    env = SeasonsSingleAgentEnv({"opponents": "heuristic", "mask_key": "legal"})
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=3)
    assert set(observation) == {"observations", "legal"} and "action_mask" not in info
    illegal = int(np.flatnonzero(observation["legal"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)

    strict = SeasonsSingleAgentEnv({"illegal": "raise"})
    observation, _ = strict.reset(seed=3)
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"player": 2}, r"unknown key.*player"),
        ({"num_players": 5}, "num_players"),
        ({"players": 2, "num_players": 2}, "give 'num_players' only"),
        ({"level": "expert"}, "level"),
        ({"reward": "money"}, "reward"),
        ({"illegal": "ignore"}, "illegal"),
        ({"observation_key": "x", "mask_key": "x"}, "must differ"),
        ({"seed": -1}, "seed"),
    ],
)
def test_env_config_errors_name_the_key(config, message):
    with pytest.raises(ValueError, match=message):
        SeasonsMultiAgentEnv(config)


def test_players_is_the_deprecated_name_of_num_players_in_env_config_and_keywords():
    """``players`` (the env config key and the keyword of default_ppo_config, evaluate_network and
    ArenaEvaluation before the rename) still works for one release, with a DeprecationWarning naming
    ``num_players``; giving both is an error; the new name gives no warning."""
    with pytest.warns(DeprecationWarning, match="env_config: 'players' is deprecated.*use 'num_players'"):
        env = SeasonsMultiAgentEnv({"players": 3, "level": "apprentice"})
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    with pytest.warns(DeprecationWarning, match="env_config: 'players' is deprecated"):
        single = SeasonsSingleAgentEnv({"players": 4})
    assert single.game_env.num_players == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(SeasonsMultiAgentEnv({"num_players": 3}).possible_agents) == 3
        config = default_ppo_config(num_players=3, evaluation_interval=None)
    assert config.env_config["num_players"] == 3 and "players" not in config.env_config
    with pytest.warns(DeprecationWarning, match="default_ppo_config: 'players' is deprecated.*'num_players'"):
        config = default_ppo_config(players=4, evaluation_interval=2, evaluation_games=1)
    assert config.env_config["num_players"] == 4
    assert config.custom_evaluation_function.num_players == 4
    with pytest.raises(ValueError, match="give num_players= only"):
        default_ppo_config(3, players=3)
    with pytest.warns(DeprecationWarning, match="ArenaEvaluation: 'players' is deprecated"):
        assert ArenaEvaluation(1, players=3).num_players == 3
    with pytest.raises(ValueError, match="give num_players= only"):
        evaluate_network(None, "random", 1, 2, players=2)  # refused before the network is used


def test_env_config_single_agent_only_keys():
    with pytest.raises(ValueError, match=r"unknown key.*opponents"):
        SeasonsMultiAgentEnv({"opponents": "random"})
    with pytest.raises(ValueError, match=r"unknown agent.*grandmaster"):
        SeasonsSingleAgentEnv({"opponents": "grandmaster"})


def test_envs_are_registered_by_name():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    assert isinstance(_global_registry.get(ENV_CREATOR, MULTI_AGENT_ENV)({}), SeasonsMultiAgentEnv)
    assert isinstance(_global_registry.get(ENV_CREATOR, SINGLE_AGENT_ENV)({}), SeasonsSingleAgentEnv)


# ---------------------------------------------------------------------------- the network and its export


def test_masked_logits_never_pick_an_illegal_action():
    torch.manual_seed(0)
    network = MaskedActorCritic(8, 5, hidden=(4,))
    observation = torch.randn(3, 8)
    mask = torch.tensor([[0, 1, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], dtype=torch.int8)
    probabilities = torch.softmax(network.masked_logits(observation, mask), dim=-1)
    assert torch.all(probabilities[0, [0, 2, 3]] == 0) and torch.all(probabilities[1, 1:] == 0)
    assert torch.all(probabilities[2] > 0)  # an all-zero mask (a finished game) is left unmasked


def test_wilson_interval_is_scipys():
    """The RLlib route reports the intervals of ``seasons_env.statistics`` (the arena's): scipy's Wilson interval."""
    from scipy.stats import binomtest

    assert wilson_interval(0, 0) == (0.0, 1.0)
    for wins, games in [(0, 10), (3, 10), (10, 10), (57, 100)]:
        interval = binomtest(wins, games).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(wins, games) == pytest.approx((interval.low, interval.high), abs=1e-12)


def test_exported_network_loads_and_rejects_other_versions(tmp_path):
    network = MaskedActorCritic(OBSERVATION_SIZE, 314, hidden=(16, 8))
    export_network(network, tmp_path / "policy")
    loaded = load_network(tmp_path / "policy")
    for key, value in network.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)
    export_network(network, tmp_path / "old", versions={"observation_version": 0, "action_table_version": 1})
    with pytest.raises(ValueError, match="trained on versions"):
        load_network(tmp_path / "old")
    (tmp_path / "policy" / "network.json").write_text('{"format": "seasons-masked-mlp", "format_version": 1}')
    with pytest.raises(ValueError, match="versions"):
        load_network(tmp_path / "policy")
    with pytest.raises(ValueError, match=r"no network\.json"):
        load_network(tmp_path)
    export_network(network, tmp_path / "damaged")
    (tmp_path / "damaged" / "weights.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="does not hold this network's weights"):
        load_network(tmp_path / "damaged")
    export_network(MaskedActorCritic(OBSERVATION_SIZE, 314, hidden=(16,)), tmp_path / "other")
    (tmp_path / "other" / "network.json").write_bytes((tmp_path / "damaged" / "network.json").read_bytes())
    with pytest.raises(ValueError, match="does not hold this network's weights"):
        load_network(tmp_path / "other")  # the description says (16, 8); the weights are of (16,)


def test_an_exported_network_s_sizes_are_checked_against_its_weights_before_anything_is_built(tmp_path):
    """A network.json asking for a huge network is refused before any of it is allocated (with under 1 GiB of
    address space to spare: hidden [16000, 16000] would need 2 GB), as are NaN or infinite weights."""
    folder = export_network(MaskedActorCritic(OBSERVATION_SIZE, 314, hidden=(16, 8)), tmp_path / "policy")
    description = json.loads((folder / "network.json").read_text())

    def refused(match: str, **changes) -> None:
        (folder / "network.json").write_text(json.dumps({**description, **changes}))
        with bounded(), pytest.raises(ValueError, match=match):
            load_network(folder)

    refused(r"actor\.0\.weight has shape \(16, \d+\); network\.json needs \(16000, \d+\)", hidden=[16000, 16000])
    refused(r"'hidden' must be a list of 1 to 64 layer sizes in 1\.\.16384", hidden=[16] * 100000)
    refused(r"'observation_size' must be an integer in 1\.\.", observation_size=10**12)
    refused(r"'observation_size' is 1000; observation version", observation_size=1000)
    refused(r"'num_actions' is 10; the action table has 314", num_actions=10)
    (folder / "network.json").write_text(json.dumps(description))
    weights = torch.load(folder / "weights.pt", weights_only=True)
    weights["policy_head.bias"][5] = float("nan")
    torch.save(weights, folder / "weights.pt")
    with pytest.raises(
        ValueError, match=r"weights\.pt does not hold this network's weights: policy_head\.bias holds NaN"
    ):
        load_network(folder)


# ---------------------------------------------------------------------------- training


def record_samples(store: list):
    """An ``on_sample_end`` callback keeping every sampled episode chunk's actions per agent."""

    def on_sample_end(*, samples, **kwargs):
        for episode in samples:
            store.append({agent: list(map(int, actions)) for agent, actions in sorted(episode.get_actions().items())})

    return on_sample_end


def test_one_ppo_iteration_without_remote_runners_evaluates_and_exports(algorithm_factory, tmp_path):
    samples: list[dict] = []
    config = default_ppo_config(evaluation_interval=1, evaluation_games=2, seed=1, **SMALL)
    config.callbacks(on_sample_end=record_samples(samples))
    algorithm = algorithm_factory(config)
    result = algorithm.train()

    assert result["env_runners"]["num_env_steps_sampled"] == 16 * 16
    assert len(samples) == 16 and all(set(chunk) for chunk in samples)  # 16 games, every one stepped
    for opponents in ("random", "heuristic"):
        row = result["evaluation"][f"vs_{opponents}"]
        assert row["games"] == 2
        assert 0.0 <= row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"] <= 1.0
        assert (row["win_rate_low"], row["win_rate_high"]) == pytest.approx(
            wilson_interval(round(row["win_rate"] * 2), 2)
        )
    module = algorithm.get_module(SHARED_MODULE)
    assert isinstance(module, MaskedPPOModule)

    agent = RLlibPolicyAgent.load(export_module(module, tmp_path / "policy"))
    record = play_game(
        [agent, RandomAgent(0)], seed=4, agent_seed=4
    )  # play_game applies every action: an illegal one raises
    assert record.seats == ["rllib", "random"] and record.decisions_per_seat[0] > 20
    # the arena knows it by name: rllib:PATH (seasons_env.registry, filled by agents/registry.py)
    from seasons_env.registry import make_agent

    assert isinstance(make_agent(f"rllib:{tmp_path / 'policy'}", 0), RLlibPolicyAgent)


def test_single_agent_ppo_iteration(algorithm_factory):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    config = (
        PPOConfig()
        .environment(SINGLE_AGENT_ENV, env_config={"opponents": "heuristic", "level": "apprentice"})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=32)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": [32]}))
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
    )
    result = algorithm_factory(config).train()
    assert result["env_runners"]["num_env_steps_sampled"] == 128


def test_seeded_run_reproduces_its_first_iteration(algorithm_factory):
    runs = []
    for _ in range(2):
        samples: list[dict] = []
        config = default_ppo_config(evaluation_interval=None, seed=7, **SMALL)
        config.callbacks(on_sample_end=record_samples(samples))
        algorithm_factory(config).train()
        runs.append(samples)
    assert runs[0] == runs[1]
    other: list[dict] = []
    config = default_ppo_config(evaluation_interval=None, seed=8, **SMALL)
    config.callbacks(on_sample_end=record_samples(other))
    algorithm_factory(config).train()
    assert other != runs[0]


def test_training_script_smoke_preset_trains_checkpoints_resumes_and_evaluates(local_ray, tmp_path, capsys):
    from seasons_training import train_rllib

    args = ["--preset", "smoke", "--timesteps", "256", "--final-eval-games", "2", "--out", str(tmp_path)]
    assert train_rllib.main([*args, "--eval-interval", "2"]) == 0  # the checkpoint keeps the interval
    assert (tmp_path / "latest_checkpoint").read_text() == "checkpoint-000001"
    results = json.loads((tmp_path / "evaluation.json").read_text())
    assert [row["opponents"] for row in results["evaluation"]] == ["random", "heuristic"]
    assert all(  # the SB3 route's rows
        set(row) == {"opponents", "episodes", "win_rate", "low", "high", "mean_score"} and row["episodes"] == 2
        for row in results["evaluation"]
    )
    output = capsys.readouterr().out
    assert "iteration 1: 256 env steps" in output and "vs heuristic: win rate" in output
    assert "iteration 1: 256 env steps, " in output and "; vs random" not in output  # no evaluation in iteration 1
    assert RLlibPolicyAgent.load(tmp_path / "policy").name == "rllib"

    # resumed with evaluation every 2 iterations: iteration 2 evaluates, iteration 3 does not
    assert train_rllib.main([*args[:3], "768", *args[4:], "--resume"]) == 0
    output = capsys.readouterr().out
    assert "resumed from" in output
    lines = {line.split(":")[0]: line for line in output.splitlines() if line.startswith("iteration ")}
    assert "vs random" in lines["iteration 2"] and "vs random" not in lines["iteration 3"]
    assert (tmp_path / "latest_checkpoint").read_text() == "checkpoint-000003"
    assert sorted(p.name for p in tmp_path.glob("checkpoint-*")) == ["checkpoint-000003"]
    assert ray.is_initialized()  # the caller's Ray is left running


def test_training_script_takes_a_relative_out_and_resumes_from_it(local_ray, tmp_path, monkeypatch, capsys):
    """``--out runs/rllib-smoke`` as the tutorial writes it: Ray is given absolute paths (a relative one failed after
    iteration 1 with pyarrow's "URI has empty scheme", and --resume then found no checkpoint)."""
    from seasons_training import train_rllib

    monkeypatch.chdir(tmp_path)
    args = ["--preset", "smoke", "--timesteps", "256", "--final-eval-games", "1", "--out", "runs/rllib-smoke"]
    assert train_rllib.main(args) == 0
    out = tmp_path / "runs" / "rllib-smoke"
    assert (out / "latest_checkpoint").read_text() == "checkpoint-000001" and (out / "checkpoint-000001").is_dir()
    assert train_rllib.main([*args[:3], "512", *args[4:], "--resume"]) == 0
    assert f"resumed from {out / 'checkpoint-000001'}" in capsys.readouterr().out
    assert (out / "latest_checkpoint").read_text() == "checkpoint-000002"
    assert RLlibPolicyAgent.load(out / "policy").name == "rllib"
