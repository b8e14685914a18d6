"""Self-play collection speed: learner decisions per second of ``seasons_training.selfplay.SelfPlayGames``, no learning.

The learner acts with a small network (one forward pass per step, sampled from the masked policy) in ``--envs``
games against one opponent kind (``random`` or a snapshot of the same small network). ``--compare FILE`` also
times another implementation of ``SelfPlayGames`` (a copy of ``training/selfplay.py`` from another revision, e.g.
``git show main:training/selfplay.py > /tmp/old_selfplay.py``) in the same run, the variants alternating round by
round so that both see the same machine load. ``--engines`` lists the ``VectorGame`` engines to time.

    python benchmarks/selfplay_speed.py --compare /tmp/old_selfplay.py --engines reference,kernels
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seasons_agents.network import NetworkConfig, PolicyValueNet, masked_logits  # noqa: E402
from seasons_training import selfplay  # noqa: E402


def load_other(path: Path):
    """``path`` loaded as a module of the ``training`` package (its relative imports resolve there)."""
    spec = importlib.util.spec_from_file_location("seasons_training._compared_selfplay", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "training"
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def run(module, engine: str | None, opponent: str, net, args) -> tuple[float, float, float]:
    """(learner decisions/s, all decisions/s, learner decisions per CPU second of this process) over
    ``args.steps`` learner steps after the deal. On a shared machine the CPU-time rate is the steadier one."""
    players = tuple(int(p) for p in args.players.split(","))

    def schedule(rng: np.random.Generator):
        n = players[int(rng.integers(len(players)))]
        return module.Deal(n, int(rng.integers(n)), opponent, int(rng.integers(2**62)))

    extra = {} if engine is None else {"engine": engine}
    vec = module.SelfPlayGames(args.envs, args.level, schedule, {"snapshot:0": net}, seed=args.seed, **extra)
    vec.start()
    learner = 0
    decisions = vec.decisions
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(args.steps):
        obs, mask = vec.observe()
        with torch.inference_mode():
            logits, _ = net(torch.from_numpy(obs))
            logits = masked_logits(logits, torch.from_numpy(mask))
            logits[~torch.from_numpy(mask).any(1)] = 0.0  # idle slots (none while the schedule deals)
            actions = torch.distributions.Categorical(logits=logits).sample().numpy()
        learner += int(vec.active().sum())
        vec.step(actions)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return learner / seconds, (vec.decisions - decisions) / seconds, learner / cpu_seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100, help="learner steps per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", default="2")
    parser.add_argument("--level", default="archmage")
    parser.add_argument("--opponents", default="random,snapshot:0")
    parser.add_argument("--engines", default="reference")
    parser.add_argument("--compare", type=Path, help="another selfplay.py to time alongside")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = PolicyValueNet(NetworkConfig(card_dim=8, hidden=64, layers=1)).eval()
    variants = [(f"this ({engine})", selfplay, engine) for engine in args.engines.split(",")]
    if args.compare is not None:
        variants.insert(0, (f"{args.compare.name}", load_other(args.compare), None))
    for opponent in args.opponents.split(","):
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in variants}
        for round_ in range(args.rounds):
            for name, module, engine in variants if round_ % 2 == 0 else variants[::-1]:
                results[name].append(run(module, engine, opponent, net, args))
        print(f"opponent {opponent}, {args.envs} games of {args.players} players, {args.level}:")
        for name, rows in results.items():
            learner = statistics.median(r[0] for r in rows)
            total = statistics.median(r[1] for r in rows)
            cpu = statistics.median(r[2] for r in rows)
            spread = ", ".join(f"{r[0]:.0f}" for r in rows)
            print(
                f"  {name:22s} {learner:7.0f} learner decisions/s ({spread}); {total:7.0f} decisions/s in all; "
                f"{cpu:7.0f} learner decisions per CPU second"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
