"""Train a play policy with sb3-contrib's MaskablePPO on the Gymnasium view, then evaluate it.

    python -m seasons_training.train_maskable_ppo --timesteps 200000 --opponents heuristic --out results/ppo

The learning seat rotates (``agent_seat="random"``); the other seats are played by ``--opponents``
(``random`` or ``heuristic``). Training runs ``--envs`` games at once through the batched SB3 adapter
``seasons_env.vector.SeasonsVecEnv`` (``--vec batched``, the default; one object, opponents answered in one call
per step for all games waiting on them), or through SB3's ``DummyVecEnv`` of single ``SeasonsGymEnv`` (``--vec
dummy``, the earlier route). ``--n-steps`` is the rollout length summed over the environments. Progress is
logged to stdout; at the end the model is saved to ``OUT/model.zip`` and evaluated against random and heuristic
opponents, with Wilson 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from seasons_env.deprecation import renamed_keywords
from seasons_training.report import evaluation_line


@renamed_keywords
def make_env(level: str, num_players: int, opponents: str, reward: str, seed: int):
    """One Gymnasium environment, monitored: the learner in a random seat, ``opponents`` in the others. ``players``
    is the deprecated name of ``num_players``."""
    from stable_baselines3.common.monitor import Monitor

    from seasons_env.gym_env import SeasonsGymEnv

    if opponents == "heuristic":
        from seasons_agents.heuristic import HeuristicAgent

        policy = [HeuristicAgent(seed + k) for k in range(num_players - 1)]
    else:
        policy = "random"
    return Monitor(
        SeasonsGymEnv(num_players=num_players, level=level, opponents=policy, agent_seat="random", reward=reward)
    )


@renamed_keywords
def make_training_env(vec: str, envs: int, level: str, num_players: int, opponents: str, reward: str, seed: int):
    """The vectorised training environment: the batched adapter, or a DummyVecEnv of single environments.
    ``players`` is the deprecated name of ``num_players``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    if vec == "batched":
        from seasons_env.vector import SeasonsVecEnv

        return VecMonitor(
            SeasonsVecEnv(envs, num_players, level, opponents, agent_seat="random", reward=reward, seed=seed)
        )
    return DummyVecEnv(
        [lambda k=k: make_env(level, num_players, opponents, reward, seed + 100 * k) for k in range(envs)]
    )


@renamed_keywords
def evaluate(model, level: str, num_players: int, opponents: str, episodes: int, seed: int) -> dict:
    """``episodes`` games of ``model`` (deterministic) against ``opponents``: win rate with a Wilson 95% interval,
    mean score. ``players`` is the deprecated name of ``num_players``."""
    from seasons_env.statistics import wilson_interval

    env = make_env(level, num_players, opponents, "win", seed)
    wins = 0
    scores = []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        info = {}
        while not done:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.unwrapped.action_masks())
            obs, _, done, _, info = env.step(int(action))
        seat = env.unwrapped.seat
        wins += seat in info.get("winners", [])
        scores.append(info.get("scores", [0] * num_players)[seat])
    low, high = wilson_interval(wins, episodes)
    return {
        "opponents": opponents,
        "episodes": episodes,
        "win_rate": wins / episodes,
        "low": low,
        "high": high,
        "mean_score": sum(scores) / len(scores),
    }


def argument_parser() -> argparse.ArgumentParser:
    """The script's command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="archmage", choices=["apprentice", "magician", "archmage"])
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--opponents", default="random", choices=["random", "heuristic"])
    parser.add_argument("--reward", default="win", choices=["win", "score", "rank"])
    parser.add_argument("--timesteps", type=int, default=100_000)
    parser.add_argument("--n-steps", type=int, default=2048, help="rollout length, summed over the environments")
    parser.add_argument("--envs", type=int, default=16, help="games stepped together (default 16)")
    parser.add_argument("--vec", default="batched", choices=["batched", "dummy"], help="how the games are stepped")
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results") / "maskable_ppo")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser()
    args = parser.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)  # this is a 2-core machine; more threads only contend
    if args.envs < 1 or args.n_steps < args.envs:
        parser.error(f"--envs must be at least 1 and at most --n-steps ({args.n_steps}); got {args.envs}")
    env = make_training_env(args.vec, args.envs, args.level, args.players, args.opponents, args.reward, args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps // args.envs,
        batch_size=min(256, args.n_steps // args.envs * args.envs),
        gamma=1.0,  # the reward comes once, at the end of the game
        seed=args.seed,
        verbose=1,
    )
    model.learn(total_timesteps=args.timesteps)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "model.zip")
    results = {
        "config": {k: str(v) for k, v in vars(args).items()},
        "evaluation": [
            evaluate(model, args.level, args.players, opponents, args.eval_episodes, args.seed + 10_000)
            for opponents in ("random", "heuristic")
        ],
    }
    (args.out / "evaluation.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    for row in results["evaluation"]:
        print(evaluation_line(row))
    print(f"model and evaluation written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
