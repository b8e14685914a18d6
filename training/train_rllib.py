"""Self-play PPO on Ray RLlib (``seasons_env.rllib.default_ppo_config``), then the same evaluation as the SB3 route.

    python -m seasons_training.train_rllib --preset smoke                 # CI-sized: a minute
    python -m seasons_training.train_rllib --preset quick --out results/rllib_quick
    python -m seasons_training.train_rllib --preset full --address auto   # on a running cluster (docs/distributed.md)

One masked module plays every seat (self-play). Presets set the budget (``--timesteps``, env steps sampled),
the env runners and the evaluation; every option given on the command line overrides its preset. Progress is
printed once an iteration; every ``--checkpoint-every`` iterations (and at the end) an RLlib checkpoint is saved
to ``OUT/checkpoint-<iteration>`` and named in ``OUT/latest_checkpoint``; ``--resume`` continues from it with
the checkpoint's settings (the command line then sets only the budget, ``--timesteps``, and the final evaluation).
At the end the network is exported to ``OUT/policy`` (``seasons_agents.rllib_agent.RLlibPolicyAgent.load`` plays it
in the arena) and evaluated greedily against random and heuristic opponents with Wilson 95% intervals, written
to ``OUT/evaluation.json`` in the SB3 route's format (``training/train_maskable_ppo.py``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from seasons_env.files import write_atomic
from seasons_training.report import evaluation_line

PRESETS: dict[str, dict] = {
    # CI: two small iterations and a handful of evaluation games
    "smoke": {
        "timesteps": 512,
        "num_env_runners": 0,
        "num_envs": 16,
        "rollout": 16,
        "minibatch": 128,
        "epochs": 1,
        "eval_interval": 1,
        "eval_games": 4,
        "final_eval_games": 4,
        "checkpoint_every": 1,
    },
    # about half an hour on a 2-core machine, where sampling in the driver is fastest (benchmarks/rllib_speed.py)
    "quick": {
        "timesteps": 1_500_000,
        "num_env_runners": 0,
        "num_envs": 16,
        "rollout": 128,
        "minibatch": 512,
        "epochs": 4,
        "eval_interval": 100,
        "eval_games": 50,
        "final_eval_games": 200,
        "checkpoint_every": 50,
    },
    # a night on a 2-core machine, or far less on a cluster (add runners with --num-env-runners)
    "full": {
        "timesteps": 30_000_000,
        "num_env_runners": 0,
        "num_envs": 16,
        "rollout": 256,
        "minibatch": 1024,
        "epochs": 4,
        "eval_interval": 200,
        "eval_games": 100,
        "final_eval_games": 1000,
        "checkpoint_every": 100,
    },
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="smoke", choices=sorted(PRESETS))
    parser.add_argument("--level", default="archmage", choices=["apprentice", "magician", "archmage"])
    # --players: the option's old name, still accepted
    parser.add_argument("--num-players", "--players", dest="num_players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--reward", default="win", choices=["win", "score", "rank"])
    parser.add_argument("--timesteps", type=int, help="env steps to sample in all (preset)")
    parser.add_argument("--num-env-runners", type=int, help="remote env runners; 0 samples in the driver (preset)")
    parser.add_argument("--num-envs", type=int, help="environments per env runner (preset)")
    parser.add_argument("--rollout", type=int, help="steps of each environment per sampling round (preset)")
    parser.add_argument("--minibatch", type=int, help="SGD minibatch size (preset)")
    parser.add_argument("--epochs", type=int, help="passes over each batch (preset)")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy coefficient")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="hidden layer sizes")
    parser.add_argument("--eval-interval", type=int, help="iterations between evaluations during training (preset)")
    parser.add_argument("--eval-games", type=int, help="games per opponent in those evaluations (preset)")
    parser.add_argument("--final-eval-games", type=int, help="games per opponent in the final evaluation (preset)")
    parser.add_argument("--checkpoint-every", type=int, help="iterations between checkpoints (preset)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--address",
        help="Ray cluster to join ('auto' or host:port); default: a local Ray (or the caller's, if running)",
    )
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/latest_checkpoint")
    parser.add_argument("--out", type=Path, default=Path("results") / "rllib")
    args = parser.parse_args(argv)
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    # Ray reads a relative path as a URI without a scheme (pyarrow's "URI has empty scheme"): every path it is given
    # is absolute, from here on.
    args.out = args.out.expanduser().resolve()
    for key in ("timesteps", "num_envs", "rollout", "minibatch", "epochs", "eval_interval", "checkpoint_every"):
        if getattr(args, key) < 1:
            parser.error(f"--{key.replace('_', '-')} must be at least 1; got {getattr(args, key)}")
    for key in ("num_env_runners", "eval_games", "final_eval_games"):
        if getattr(args, key) < 0:
            parser.error(f"--{key.replace('_', '-')} must not be negative; got {getattr(args, key)}")
    return args


def save_checkpoint(algorithm, out: Path) -> Path:
    """A new ``checkpoint-<iteration>`` folder, then the pointer to it replaced atomically, then older ones removed:
    a kill at any moment leaves ``latest_checkpoint`` naming a whole checkpoint. The folder is absolute (Ray takes a
    relative one for a URI and fails)."""
    out = Path(out).expanduser().resolve()
    folder = out / f"checkpoint-{algorithm.iteration:06d}"
    if folder.exists():
        shutil.rmtree(folder)
    algorithm.save_to_path(folder)
    write_atomic(out / "latest_checkpoint", folder.name.encode("utf-8"))
    for old in out.glob("checkpoint-*"):
        if old.is_dir() and old.name != folder.name:
            shutil.rmtree(old)
    return folder


def latest_checkpoint(out: Path) -> Path:
    """The absolute folder of the checkpoint ``OUT/latest_checkpoint`` names (``SystemExit`` saying what is wrong)."""
    out = Path(out).expanduser().resolve()
    pointer = out / "latest_checkpoint"
    if not pointer.is_file():
        raise SystemExit(f"--resume: {pointer} does not exist (no checkpoint was saved in {out})")
    name = pointer.read_text(encoding="utf-8").strip()
    if not name.startswith("checkpoint-") or "/" in name or "\\" in name or not (out / name).is_dir():
        raise SystemExit(f"--resume: {pointer} names {name!r}, which is not a checkpoint folder in {out}")
    return out / name


def progress_line(result: dict, evaluated: bool) -> str:
    """One iteration: env steps so far, this iteration's env steps per second (learning included), and the
    evaluation if this iteration ran one (RLlib's result keeps the evaluation keys between evaluations)."""
    steps = int(result.get("num_env_steps_sampled_lifetime", 0))
    this_iteration = result.get("env_runners", {}).get("num_env_steps_sampled", 0)
    line = (
        f"iteration {result['training_iteration']}: {steps:,} env steps, "
        f"{this_iteration / max(result.get('time_this_iter_s', 0.0), 1e-9):,.0f} steps/s"
    )
    for name, row in sorted(result.get("evaluation", {}).items() if evaluated else ()):
        if name.startswith("vs_") and isinstance(row, dict) and row.get("win_rate") is not None:
            line += (
                f"; {name.replace('_', ' ')} {row['win_rate']:.1%} "
                f"[{row['win_rate_low']:.1%}, {row['win_rate_high']:.1%}]"
            )
    return line


def train(args: argparse.Namespace) -> dict:
    """Train as ``args`` say (see ``parse_args``); returns what ``OUT/evaluation.json`` holds."""
    import ray
    import torch
    from ray.rllib.algorithms.algorithm import Algorithm

    from seasons_env.rllib import SHARED_MODULE, default_ppo_config, evaluate_network, export_module

    torch.set_num_threads(1)  # this is a 2-core machine; more threads only contend
    args.out.mkdir(parents=True, exist_ok=True)
    own_ray = not ray.is_initialized()  # a caller that started Ray keeps it (and its settings)
    if own_ray and args.address:
        ray.init(address=args.address)
    elif own_ray:
        ray.init(address="local", num_cpus=args.num_cpus, object_store_memory=200 * 1024 * 1024)
    try:
        if args.resume:
            algorithm = Algorithm.from_checkpoint(latest_checkpoint(args.out))
            print(f"resumed from {latest_checkpoint(args.out)} at iteration {algorithm.iteration}")
        else:
            config = default_ppo_config(
                args.num_players,
                args.level,
                args.reward,
                num_env_runners=args.num_env_runners,
                num_envs_per_env_runner=args.num_envs,
                rollout_fragment_length=args.rollout,
                minibatch_size=args.minibatch,
                num_epochs=args.epochs,
                lr=args.lr,
                entropy_coeff=args.entropy,
                hidden=args.hidden,
                seed=args.seed,
                evaluation_interval=args.eval_interval if args.eval_games else None,
                evaluation_games=max(args.eval_games, 1),
            )
            algorithm = config.build_algo()
        try:
            started = time.perf_counter()
            steps = 0
            while steps < args.timesteps:
                result = algorithm.train()
                steps = int(result.get("num_env_steps_sampled_lifetime", 0))
                interval = algorithm.config.evaluation_interval  # the checkpoint's, after --resume
                evaluated = bool(interval) and algorithm.iteration % interval == 0
                print(progress_line(result, evaluated), flush=True)
                if algorithm.iteration % args.checkpoint_every == 0:
                    save_checkpoint(algorithm, args.out)
            seconds = time.perf_counter() - started
            checkpoint = save_checkpoint(algorithm, args.out)
            policy = export_module(algorithm.get_module(SHARED_MODULE), args.out / "policy")
            network = algorithm.get_module(SHARED_MODULE).network
        finally:
            algorithm.stop()
    finally:
        if own_ray:
            ray.shutdown()
    evaluation = []
    for opponents in ("random", "heuristic"):
        row = evaluate_network(
            network, opponents, args.final_eval_games, args.num_players, args.level, args.seed + 10_000
        )
        del row["env_steps"]
        evaluation.append(row)
    results = {
        "config": {k: str(v) for k, v in vars(args).items()},
        "training": {"env_steps": steps, "seconds": seconds, "checkpoint": str(checkpoint), "policy": str(policy)},
        "evaluation": evaluation,
    }
    write_atomic(args.out / "evaluation.json", (json.dumps(results, indent=2) + "\n").encode("utf-8"))
    return results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = train(args)
    for row in results["evaluation"]:
        print(evaluation_line(row))
    print(f"checkpoint, policy and evaluation written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
