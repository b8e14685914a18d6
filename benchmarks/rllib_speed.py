"""Training throughput of the RLlib route beside the SB3 MaskablePPO route, measured in one sitting.

    python benchmarks/rllib_speed.py                 # about 6 minutes
    python benchmarks/rllib_speed.py --seconds 20    # a shorter, noisier run

Env steps per second *including learning*: wall time of whole training iterations (sampling, then PPO's
epochs over the batch), after one warm-up iteration. RLlib: ``default_ppo_config`` (two-player Archmage
self-play, one shared masked module, 16 environments per env runner, 64 steps each per round, 4 epochs of
512-step minibatches) with 0 (sampling in the driver), 1 and 2 remote env runners. SB3: the MaskablePPO
route of ``training/train_maskable_ppo.py`` (one environment, random opponents, ``n_steps`` 2048).

An RLlib env step is one decision of one seat, every one taken by the learning module (self-play); an SB3 env
step is one decision of the learning seat, the opponents' decisions being made inside the environment.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def rllib_rate(num_env_runners: int, seconds: float, seed: int) -> tuple[float, int]:
    """Env steps/s over whole iterations after a warm-up one, and the steps measured."""
    import ray

    from seasons_env.rllib import default_ppo_config

    ray.init(address="local", num_cpus=2, object_store_memory=200 * 1024 * 1024, log_to_driver=False)
    try:
        config = default_ppo_config(num_env_runners=num_env_runners, evaluation_interval=None, seed=seed)
        algorithm = config.build_algo()
        try:
            algorithm.train()  # warm-up: the first iteration builds the connectors and the optimizer
            steps = 0
            started = time.perf_counter()
            while time.perf_counter() - started < seconds:
                steps += int(algorithm.train()["env_runners"]["num_env_steps_sampled"])
            return steps / (time.perf_counter() - started), steps
        finally:
            algorithm.stop()
    finally:
        ray.shutdown()


def sb3_rate(seconds: float, seed: int) -> tuple[float, int]:
    """The MaskablePPO route's env steps/s over whole rollouts-plus-updates after a warm-up one."""
    from sb3_contrib import MaskablePPO

    from seasons_training.train_maskable_ppo import make_env

    env = make_env("archmage", 2, "random", "win", seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=2048, batch_size=256, gamma=1.0, seed=seed, verbose=0)
    model.learn(total_timesteps=2048)  # warm-up
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        model.learn(total_timesteps=2048, reset_num_timesteps=False)
        steps += 2048
    return steps / (time.perf_counter() - started), steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured time per configuration")
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2], help="remote env runner counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(1)  # this is a 2-core machine; more threads only contend
    rows = []
    for runners in args.runners:
        rate, steps = rllib_rate(runners, args.seconds, args.seed)
        label = f"RLlib PPO self-play, {runners} env runner{'s' if runners != 1 else ''} x 16 envs"
        rows.append((label, rate, steps))
        print(f"{label}: {rate:,.0f} env steps/s ({steps:,} steps)", flush=True)
    rate, steps = sb3_rate(args.seconds, args.seed)
    rows.append(("SB3 MaskablePPO, 1 env, random opponents", rate, steps))
    print(f"{rows[-1][0]}: {rate:,.0f} env steps/s ({steps:,} steps)", flush=True)

    print("\n| route | env steps/s (learning included) | steps measured |\n|---|---:|---:|")
    for label, rate, steps in rows:
        print(f"| {label} | {rate:,.0f} | {steps:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
