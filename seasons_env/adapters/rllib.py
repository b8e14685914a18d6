"""Ray RLlib support: environments, a masking RLModule and a self-play PPO configuration.

Needs the ``rllib`` extra (``pip install seasons-env[rllib]``). Importing this module registers two
environments with ``ray.tune.register_env``, so a config names them and remote workers build them from the
installed package:

- ``"seasons_multi_agent"`` (``SeasonsMultiAgentEnv``): every seat is an agent (``player_0`` …), turn by
  turn: each step returns the observation of the one agent that decides next (the same agent for every
  step of a multi-step turn), and at the end every agent's last observation and final reward.
- ``"seasons_single_agent"`` (``SeasonsSingleAgentEnv``): one learning seat, the others played by
  ``opponents`` (the Gymnasium environment's opponents: ``"random"``, an agent name such as
  ``"heuristic"``, or a list with one per other seat).

Env config keys (RLlib's ``env_config`` dict; any other key is a ``ValueError`` naming it):
``num_players`` (2–4, default 2; ``players``, its old name, is still accepted for one release with a
``DeprecationWarning``), ``level`` (default ``"archmage"``), ``reward`` (``"win"``, ``"score"`` or
``"rank"``), ``illegal`` (``"lose"``, the default, or ``"raise"``), ``observation_key`` (default
``"observations"``) and ``mask_key`` (default ``"action_mask"``); the single-agent environment also takes
``opponents`` (default ``"random"``) and ``agent_seat`` (a seat or ``"random"``, the default).

Observations are ``{observation_key: float32 vector, mask_key: int8 mask of the legal actions}``, the keys
RLlib's masking modules read. Illegal actions follow the environments' documented ``illegal`` policy: with
``"lose"`` an illegal action ends the game with -1 for the offender and 0 for the others (``info``
holds ``illegal_action``). That is what RLlib's environment check meets when it steps with an unmasked
``action_space.sample()``; a masked policy never plays one.

``MaskedPPOModule`` is the project's masking RLModule (``seasons_env.masked_mlp.MaskedActorCritic``
inside), and ``default_ppo_config(...)`` a working self-play setup: one module (``"shared"``) for every
seat, 16 environments per env runner, greedy evaluation against the random and heuristic agents every
``evaluation_interval`` iterations with Wilson 95% intervals in ``result["evaluation"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EVALUATION_RESULTS, NUM_EPISODES
from ray.tune.registry import register_env

from ..common.deprecation import renamed, renamed_argument
from ..common.statistics import wilson_interval
from ..encoders.encoding import OBSERVATION_HIGH, OBSERVATION_LOW
from ..encoders.rewards import REWARDS
from ..engine import LEVELS, check_choice, check_num_players
from ..engine.actions import NUM_ACTIONS
from ..vector.environment import illegal_policy
from .gym_env import SeasonsGymEnv
from .masked_mlp import MaskedActorCritic, export_network, greedy_action
from .pettingzoo_env import raw_env

MULTI_AGENT_ENV = "seasons_multi_agent"
SINGLE_AGENT_ENV = "seasons_single_agent"
SHARED_MODULE = "shared"
EVALUATION_OPPONENTS = ("random", "heuristic")

COMMON_KEYS = ("num_players", "level", "reward", "illegal", "observation_key", "mask_key", "seed")
SINGLE_AGENT_KEYS = (*COMMON_KEYS, "opponents", "agent_seat")


def _settings(config: Mapping | None, accepted: Sequence[str]) -> dict[str, Any]:
    """The env config with defaults filled in, every value checked (``ValueError`` naming the key)."""
    config = renamed(config or {}, "env_config", stacklevel=4)
    unknown = sorted(str(key) for key in config if key not in accepted)
    if unknown:
        raise ValueError(f"env_config: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(accepted)}")
    settings = {
        "num_players": config.get("num_players", 2),
        "level": config.get("level", "archmage"),
        "reward": config.get("reward", "win"),
        "illegal": config.get("illegal", "lose"),
        "observation_key": config.get("observation_key", "observations"),
        "mask_key": config.get("mask_key", "action_mask"),
        "seed": config.get("seed"),
    }
    check_num_players(settings["num_players"], "env_config['num_players']")
    check_choice("env_config['level']", settings["level"], LEVELS)
    check_choice("env_config['reward']", settings["reward"], REWARDS)
    settings["illegal"] = illegal_policy(settings["illegal"], "env_config['illegal']")
    for key in ("observation_key", "mask_key"):
        if not isinstance(settings[key], str) or not settings[key]:
            raise ValueError(f"env_config[{key!r}] must be a non-empty string; got {settings[key]!r}")
    if settings["observation_key"] == settings["mask_key"]:
        raise ValueError(f"env_config: observation_key and mask_key must differ; both are {settings['mask_key']!r}")
    seed = settings["seed"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"env_config['seed'] must be None or a non-negative integer; got {seed!r}")
    if "opponents" in accepted:
        settings["opponents"] = config.get("opponents", "random")
        settings["agent_seat"] = config.get("agent_seat", "random")
    return settings


def observation_space(observation_key: str = "observations", mask_key: str = "action_mask") -> spaces.Dict:
    """One agent's observation space: the observation vector and the mask of legal actions."""
    return spaces.Dict(
        {
            observation_key: spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32),
            mask_key: spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


class SeasonsMultiAgentEnv(MultiAgentEnv):
    """Every seat an agent, turn by turn (the PettingZoo environment underneath; see the module docstring)."""

    def __init__(self, config: Mapping | None = None) -> None:
        super().__init__()
        settings = _settings(config, COMMON_KEYS)
        self._observation_key = settings["observation_key"]
        self._mask_key = settings["mask_key"]
        self.game_env = raw_env(
            num_players=settings["num_players"],
            level=settings["level"],
            reward=settings["reward"],
            illegal=settings["illegal"],
            seed=settings["seed"],
        )
        self.possible_agents = list(self.game_env.possible_agents)
        self.agents = list(self.possible_agents)
        self._game_over = True  # no game until reset()
        space = observation_space(self._observation_key, self._mask_key)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        observed = self.game_env.observe(agent)
        return {self._observation_key: observed["observation"], self._mask_key: observed["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new game (``options={"state": ...}`` for a given position); the first agent to decide observes."""
        self.game_env.reset(seed=seed, options=options)
        self._game_over = False
        agent = self.game_env.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        env = self.game_env
        if self._game_over:
            raise RuntimeError("step() called outside a game (before reset() or after the game ended); call reset()")
        agent = env.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(
                f"action_dict must hold exactly one action, for {agent!r} (the agent to decide); "
                f"got keys {sorted(map(str, action_dict))}"
            )
        env.step(action_dict[agent])
        if all(env.terminations.values()):
            self._game_over = True
            everyone = self.possible_agents
            return (
                {a: self._observe(a) for a in everyone},
                {a: float(env.rewards[a]) for a in everyone},
                {"__all__": True, **dict.fromkeys(everyone, True)},
                {"__all__": False},
                {a: dict(env.infos[a]) for a in everyone},
            )
        following = env.agent_selection
        return {following: self._observe(following)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}

    @property
    def game(self):
        """The engine's ``Game`` being played."""
        return self.game_env.game


class SeasonsSingleAgentEnv(gym.Env):
    """One learning seat against ``opponents`` (the Gymnasium environment underneath), dict observations."""

    metadata = SeasonsGymEnv.metadata

    def __init__(self, config: Mapping | None = None) -> None:
        settings = _settings(config, SINGLE_AGENT_KEYS)
        if settings["seed"] is not None:
            raise ValueError("env_config['seed']: the single-agent environment is seeded by reset(seed=...)")
        self._observation_key = settings["observation_key"]
        self._mask_key = settings["mask_key"]
        self.game_env = SeasonsGymEnv(
            num_players=settings["num_players"],
            level=settings["level"],
            opponents=settings["opponents"],
            agent_seat=settings["agent_seat"],
            reward=settings["reward"],
            illegal=settings["illegal"],
        )
        self.observation_space = observation_space(self._observation_key, self._mask_key)
        self.action_space = spaces.Discrete(NUM_ACTIONS)

    def _observation(self, vector: np.ndarray, info: dict) -> dict[str, np.ndarray]:
        return {self._observation_key: vector, self._mask_key: info.pop("action_mask")}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        vector, info = self.game_env.reset(seed=seed, options=options)
        return self._observation(vector, info), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        vector, reward, terminated, truncated, info = self.game_env.step(action)
        return self._observation(vector, info), reward, terminated, truncated, info

    @property
    def seat(self) -> int:
        """The learning seat of this episode."""
        return self.game_env.seat

    @property
    def game(self):
        return self.game_env.game


register_env(MULTI_AGENT_ENV, SeasonsMultiAgentEnv)
register_env(SINGLE_AGENT_ENV, SeasonsSingleAgentEnv)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """PPO's actor-critic over the dict observation, illegal actions masked out of the logits.

    ``model_config``: ``hidden`` (layer sizes, default ``[256, 256]``), ``observation_key`` and ``mask_key``
    (as in the environment's config). Works for the multi-agent and the single-agent environment.
    """

    def setup(self) -> None:
        config = dict(self.model_config or {})
        self.observation_key = config.get("observation_key", "observations")
        self.mask_key = config.get("mask_key", "action_mask")
        if not isinstance(self.observation_space, spaces.Dict) or {self.observation_key, self.mask_key} - set(
            self.observation_space.spaces
        ):
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space with keys {self.observation_key!r} and "
                f"{self.mask_key!r} (model_config's observation_key and mask_key); got {self.observation_space}"
            )
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"MaskedPPOModule needs a Discrete action space; got {self.action_space}")
        size = int(np.prod(self.observation_space[self.observation_key].shape))
        self.network = MaskedActorCritic(size, int(self.action_space.n), tuple(config.get("hidden", (256, 256))))

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        observation = batch[Columns.OBS]
        logits = self.network.masked_logits(observation[self.observation_key], observation[self.mask_key])
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        observation = batch[Columns.OBS]
        features = self.network.critic(observation[self.observation_key])
        logits = self.network.masked_logits(observation[self.observation_key], observation[self.mask_key])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.network.critic(batch[Columns.OBS][self.observation_key])
        return self.network.value_head(embeddings).squeeze(-1)


# ---------------------------------------------------------------------------- evaluation


def evaluate_network(
    network: MaskedActorCritic,
    opponents: str,
    games: int,
    num_players: int | None = None,
    level: str = "archmage",
    seed: int = 0,
    *,
    players: int | None = None,
) -> dict[str, Any]:
    """Greedy play of ``network`` in ``games`` games of ``num_players`` players (default 2) against ``opponents``
    (the Gymnasium environment's opponents, seat drawn at random), as the SB3 route evaluates: win rate, Wilson
    interval, mean score. ``players`` is the deprecated name of ``num_players``."""
    num_players = renamed_argument(num_players, players, "players", "num_players", "evaluate_network", 2)
    env = SeasonsGymEnv(num_players=num_players, level=level, opponents=opponents, agent_seat="random")
    wins = 0
    scores: list[int] = []
    steps = 0
    for game_index in range(games):
        vector, info = env.reset(seed=seed + game_index)
        done = False
        while not done:
            vector, _, done, _, info = env.step(greedy_action(network, vector, info["action_mask"]))
            steps += 1
        wins += env.seat in info.get("winners", [])
        scores.append(info.get("scores", [0] * num_players)[env.seat])
    low, high = wilson_interval(wins, games)
    return {
        "opponents": opponents,
        "episodes": games,
        "win_rate": wins / games if games else 0.0,
        "low": low,
        "high": high,
        "mean_score": sum(scores) / len(scores) if scores else 0.0,
        "env_steps": steps,
    }


class ArenaEvaluation:
    """RLlib's ``custom_evaluation_function``: the shared module's greedy play against each opponent.

    Logs, under ``result["evaluation"]["vs_<opponent>"]``: ``win_rate``, ``win_rate_low``, ``win_rate_high``
    (Wilson 95%), ``mean_score`` and ``games``. Runs in the driver on the learner's current weights.
    """

    def __init__(
        self,
        games: int,
        opponents: Sequence[str] = EVALUATION_OPPONENTS,
        num_players: int | None = None,
        level: str = "archmage",
        seed: int = 0,
        module_id: str = SHARED_MODULE,
        *,
        players: int | None = None,
    ) -> None:
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ValueError(f"evaluation games must be a positive integer; got {games!r}")
        self.games = games
        self.opponents = tuple(opponents)
        self.num_players = renamed_argument(num_players, players, "players", "num_players", "ArenaEvaluation", 2)
        self.level = level
        self.seed = seed
        self.module_id = module_id

    def __call__(self, algorithm: Any, eval_env_runner_group: Any = None) -> tuple[dict, int, int]:
        network = algorithm.get_module(self.module_id).network
        results: dict[str, dict] = {}
        steps = 0
        for opponents in self.opponents:
            row = evaluate_network(network, opponents, self.games, self.num_players, self.level, self.seed)
            steps += row["env_steps"]
            results[f"vs_{opponents}"] = {
                "win_rate": row["win_rate"],
                "win_rate_low": row["low"],
                "win_rate_high": row["high"],
                "mean_score": row["mean_score"],
                "games": row["episodes"],
            }
            for name, value in results[f"vs_{opponents}"].items():
                algorithm.metrics.log_value((EVALUATION_RESULTS, f"vs_{opponents}", name), value, reduce="item")
        episodes = self.games * len(self.opponents)
        algorithm.metrics.log_value((EVALUATION_RESULTS, ENV_RUNNER_RESULTS, NUM_EPISODES), episodes, reduce="item")
        return results, steps, steps


# ---------------------------------------------------------------------------- configuration


def default_ppo_config(
    num_players: int | None = None,
    level: str = "archmage",
    reward: str = "win",
    *,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 16,
    rollout_fragment_length: int = 64,
    train_batch_size: int | None = None,
    minibatch_size: int = 512,
    num_epochs: int = 4,
    lr: float = 3e-4,
    entropy_coeff: float = 0.01,
    hidden: Sequence[int] = (256, 256),
    seed: int | None = None,
    evaluation_interval: int | None = 10,
    evaluation_games: int = 100,
    evaluation_opponents: Sequence[str] = EVALUATION_OPPONENTS,
    custom_resources_per_env_runner: dict[str, float] | None = None,
    observation_key: str = "observations",
    mask_key: str = "action_mask",
    players: int | None = None,
) -> PPOConfig:
    """A PPO configuration for multi-agent self-play: one masked module (``"shared"``) plays every seat.

    Batch: ``train_batch_size`` defaults to one round of sampling, ``rollout_fragment_length`` steps of
    each of ``num_envs_per_env_runner`` environments on each env runner (at least one when there are no
    remote runners: the local one samples). Evaluation (``evaluation_interval`` iterations apart, None for
    none): ``evaluation_games`` greedy games against each of ``evaluation_opponents``. Change anything
    further with RLlib's own config methods on the result. ``num_players`` defaults to 2; ``players`` is its
    deprecated name (a ``DeprecationWarning``; giving both is a ``ValueError``).
    """
    num_players = renamed_argument(num_players, players, "players", "num_players", "default_ppo_config", 2)
    env_config = {
        "num_players": num_players,
        "level": level,
        "reward": reward,
        "observation_key": observation_key,
        "mask_key": mask_key,
    }
    _settings(env_config, COMMON_KEYS)  # fail here, not on a remote worker
    if num_envs_per_env_runner < 1:
        raise ValueError(f"num_envs_per_env_runner must be at least 1; got {num_envs_per_env_runner!r}")
    if train_batch_size is None:
        train_batch_size = rollout_fragment_length * num_envs_per_env_runner * max(1, num_env_runners)
    model_config = {"hidden": list(hidden), "observation_key": observation_key, "mask_key": mask_key}
    config = (
        PPOConfig()
        .environment(MULTI_AGENT_ENV, env_config=env_config)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            rollout_fragment_length=rollout_fragment_length,
            num_cpus_per_env_runner=1,
            custom_resources_per_env_runner=dict(custom_resources_per_env_runner or {}),
        )
        .multi_agent(
            policies={SHARED_MODULE},
            policy_mapping_fn=shared_module_for,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={SHARED_MODULE: RLModuleSpec(module_class=MaskedPPOModule, model_config=model_config)}
            )
        )
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=min(minibatch_size, train_batch_size),
            num_epochs=num_epochs,
            lr=lr,
            gamma=1.0,  # the reward comes once, at the end of the game
            lambda_=0.95,
            entropy_coeff=entropy_coeff,
        )
        .learners(num_learners=0)
        .debugging(seed=seed)
    )
    if evaluation_interval is not None:
        config.evaluation(
            evaluation_interval=evaluation_interval,
            custom_evaluation_function=ArenaEvaluation(
                evaluation_games, evaluation_opponents, num_players, level, seed=10_000 + (seed or 0)
            ),
        )
    return config


def shared_module_for(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping of self-play: every seat plays the one shared module."""
    return SHARED_MODULE


def export_module(module: MaskedPPOModule, folder: str | Path) -> Path:
    """Write a trained ``MaskedPPOModule``'s network in the exported form (``seasons_env.masked_mlp``), which
    ``seasons_agents.rllib_agent.RLlibPolicyAgent.load`` plays in the arena without Ray."""
    if not isinstance(module, MaskedPPOModule):
        raise TypeError(f"module must be a MaskedPPOModule; got {type(module).__name__}")
    return export_network(module.network, folder)
