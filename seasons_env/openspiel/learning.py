"""OpenSpiel's learners on ``python_seasons``: a short actor-critic run through ``rl_environment`` against random.

OpenSpiel's ``rl_environment.Environment`` serves the game to OpenSpiel's PyTorch learners unchanged: each step
gives every seat its observation (the environments' observation vector, as the game provides no information
state) and the legal actions. ``train_against_random`` trains OpenSpiel's ``PolicyGradient`` (its advantage
actor-critic loss, ``a2c``) in seat 0 against a uniformly random seat 1; ``win_rate_against_random`` plays the
trained policy greedily (its most probable legal action) against random. Needs torch (the ``train`` extra).

OpenSpiel's policy-gradient learner samples its actions from numpy's global generator, so a run seeds it (and
torch's) from ``seed``: the same seed gives the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python import rl_environment

from . import game as _game  # noqa: F401  (registers python_seasons)


@dataclass(frozen=True)
class LearnerSettings:
    """The run ``train_against_random`` makes (defaults: about 300 games, under half a minute on one core)."""

    level: str = "apprentice"
    episodes: int = 300
    hidden: tuple[int, ...] = (64,)
    batch_size: int = 16
    pi_learning_rate: float = 0.01
    critic_learning_rate: float = 0.01
    entropy_cost: float = 0.01


def _environment(level: str, seed: int) -> rl_environment.Environment:
    game = pyspiel.load_game(f"python_seasons(players=2,level={level})")
    return rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))


def new_learner(settings: LearnerSettings, seed: int = 0):
    """An untrained OpenSpiel ``PolicyGradient`` (a2c) learner for seat 0 of a 2-player game."""
    import torch
    from open_spiel.python.pytorch import policy_gradient

    torch.manual_seed(seed)
    env = _environment(settings.level, seed)
    return policy_gradient.PolicyGradient(
        0,
        env.observation_spec()["info_state"][0],
        env.action_spec()["num_actions"],
        loss_str="a2c",
        hidden_layers_sizes=list(settings.hidden),
        batch_size=settings.batch_size,
        critic_learning_rate=settings.critic_learning_rate,
        pi_learning_rate=settings.pi_learning_rate,
        entropy_cost=settings.entropy_cost,
        num_critic_before_pi=1,
        optimizer_str="adam",
    )


def _play(env: rl_environment.Environment, learner, games: int, rng: np.random.RandomState, train: bool) -> int:
    """Games won by seat 0 (the learner; greedy unless training) against a random seat 1."""
    wins = 0
    for _ in range(games):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            if player == 0:
                output = learner.step(time_step, is_evaluation=not train)
                action = output.action if train else int(np.argmax(output.probs))
            else:
                action = int(rng.choice(time_step.observations["legal_actions"][player]))
            time_step = env.step([action])
        if train:
            learner.step(time_step)  # the final step: the learner sees the game's reward
        wins += time_step.rewards[0] > 0
    return wins


def train_against_random(settings: LearnerSettings | None = None, seed: int = 0):
    """A learner trained for ``settings.episodes`` games in seat 0 against random; returns it."""
    settings = settings or LearnerSettings()
    learner = new_learner(settings, seed)
    np.random.seed(seed)  # the learner's own action sampling (see the module's docstring)
    _play(_environment(settings.level, seed), learner, settings.episodes, np.random.RandomState(seed + 1), True)
    return learner


def win_rate_against_random(learner, level: str = "apprentice", games: int = 100, seed: int = 1000) -> float:
    """The share of ``games`` the learner, playing greedily, wins against random (new games: other seeds)."""
    wins = _play(_environment(level, seed), learner, games, np.random.RandomState(seed + 1), False)
    return wins / games
