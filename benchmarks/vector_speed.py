"""Batched speed: decisions per second of ``seasons_env.vector.VectorGame`` beside the reference engine.

    python benchmarks/vector_speed.py              # batch 1, 64, 1,024, 4,096; 2 and 4 players; MaskablePPO
    python benchmarks/vector_speed.py --quick      # batch 1, 64, 1,024; shorter budgets; a smaller PPO run
    python benchmarks/vector_speed.py --profile    # cProfile of the batched stepping: where a decision's time goes

Both sides do the same work for every game at every step: the current player's observation
(``encode_observation`` layout) and legal mask, then a uniformly random legal action applied, finished games
restarting with a new seed. Both start from the same positions, spread over a game's whole course
(``staggered_games``) so that a short run samples every phase. The batched side is ``observations(out=buf)``,
``legal_mask(out=buf)``, one vectorised random pick over the masks and ``apply``; the reference side loops over
B ``Game`` objects with ``encode_observation`` + ``action_mask`` + ``Game.apply``. A decision is one game taking
one action. Each cell's budget is split into rounds alternating between the two sides, so a drift of the shared
machine's speed hits both alike; compare the ratios, not the absolute figures, between machines.

The MaskablePPO part trains the same small model (2 players, archmage, random opponents, ``n_steps * num_envs``
= 2,048 steps per rollout) through the batched ``SeasonsVecEnv`` and through the current route of
``training/train_maskable_ppo.py`` (``SeasonsGymEnv`` in ``DummyVecEnv``, and in ``SubprocVecEnv``), and
prints environment steps per second including learning.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.engine import Game, steps
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.vector import VectorGame, game_seed
from seasons_env.vector.policies import sample_legal

GOAL_RATIO = 10.0  # batched / reference at batch 1,024
ROUNDS = 3


def staggered_games(batch_size: int, players: int, level: str, seed: int) -> list[Game]:
    """Games at random depths (0 to ~a whole game of random play), so that a short measurement samples every phase
    of a game (a batch of new games would spend it all in the draft)."""
    rng = np.random.default_rng((seed, 0x57A6))
    games = []
    for i in range(batch_size):
        game = Game.new(players, level, seed=game_seed(seed, i, 0))
        for _ in range(int(rng.integers(0, 100 * players))):
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
            if game.is_over:
                game = Game.new(players, level, seed=game_seed(seed, i, 0))
        games.append(game)
    return games


class BatchedSide:
    def __init__(self, games: list[Game], seed: int, engine: str = "kernels") -> None:
        batch_size = len(games)
        self.batch = VectorGame.from_games(games, seed=seed, autoreset=True, engine=engine)
        self.obs = np.empty((batch_size, OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.empty((batch_size, NUM_ACTIONS), dtype=np.bool_)
        self.actions = np.zeros(batch_size, dtype=np.int64)
        self.rng = np.random.default_rng(seed)

    def step(self) -> int:
        batch = self.batch
        batch.observations(out=self.obs)
        masks = batch.legal_mask(out=self.masks)
        running = masks.any(axis=1)
        self.actions[running] = sample_legal(masks[running], self.rng)
        return int(batch.apply(self.actions).stepped.sum())


class ReferenceSide:
    def __init__(self, games: list[Game], seed: int) -> None:
        batch_size = len(games)
        self.players, self.level, self.seed = games[0].num_players, games[0].level, seed
        self.games = [game.clone() for game in games]
        self.episodes = [0] * batch_size
        self.obs = np.empty((batch_size, OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.empty((batch_size, NUM_ACTIONS), dtype=np.int8)
        self.rng = np.random.default_rng(seed)

    def step(self) -> int:
        decisions = 0
        random = self.rng.random
        for i, game in enumerate(self.games):
            if game.is_over:
                self.episodes[i] += 1
                self.games[i] = Game.new(self.players, self.level, seed=game_seed(self.seed, i, self.episodes[i]))
                continue
            seat = game.current_player
            encode_observation(game, seat, self.obs[i])
            action_mask(game, seat, self.masks[i])
            legal = game.legal_action_list()
            game.apply(legal[int(random() * len(legal))])
            decisions += 1
        return decisions


def measure(batch_size: int, players: int, level: str, seconds: float) -> list[float]:
    """Decisions per second of the kernel-backed batch, the reference-backed batch (stage 1) and the reference
    loop, the budget split into alternating rounds."""
    games = staggered_games(batch_size, players, level, 1)
    sides = [BatchedSide(games, 1, "kernels"), BatchedSide(games, 1, "reference"), ReferenceSide(games, 1)]
    for side in sides:
        side.step()  # warm up (and compile or load the kernels)
    totals = [[0, 0.0] for _ in sides]
    for _ in range(ROUNDS):
        for k, side in enumerate(sides):
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / (len(sides) * ROUNDS):
                totals[k][0] += side.step()
            totals[k][1] += elapsed
    return [count / spent for count, spent in totals]


def speed_table(batches: list[int], seconds: float, level: str) -> None:
    print(f"decisions/s with observation + mask for every game at every step ({level}, random legal actions)")
    print(f"{'players':>7} {'batch':>6} {'kernels':>10} {'stage 1':>10} {'reference':>10} {'ratio':>6}")
    for players in (2, 4):
        for batch_size in batches:
            kernels, stage1, reference = measure(batch_size, players, level, seconds)
            print(
                f"{players:>7} {batch_size:>6} {kernels:>10,.0f} {stage1:>10,.0f} {reference:>10,.0f} "
                f"{kernels / reference:>6.2f}"
            )
    print("kernels: VectorGame(engine='kernels'); stage 1: VectorGame(engine='reference'); reference: a loop over")
    print("Game objects; ratio: kernels / reference")
    print(f"goal: >= {GOAL_RATIO:.0f}x at batch 1,024")


def compile_time() -> None:
    """Seconds to import and first use the kernels in a fresh process: with an empty disk cache (numba compiles
    everything) and then with the cache it left (loading only)."""
    import subprocess
    import tempfile

    probe = (
        "import time; start = time.perf_counter(); import numpy as np; "
        "from seasons_env.vector import VectorGame; "
        "batch = VectorGame(4, 2, 'archmage', engine='kernels'); batch.observations(); "
        "batch.apply(np.array([np.flatnonzero(m)[0] for m in batch.legal_mask()])); "
        "print(time.perf_counter() - start)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SEASONS_KERNEL_CACHE": cache}
        for label in ("empty cache (compiling)", "warm cache (loading)"):
            result = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
            print(f"kernels, first use in a new process, {label}: {float(result.stdout.strip()):.1f} s")


def profile(batch_size: int, players: int, level: str, steps_to_run: int) -> None:
    """Where a stage-1 (reference-backed) batched decision's time goes, by cProfile (which inflates Python call
    costs: read the shares)."""
    side = BatchedSide(staggered_games(batch_size, players, level, 2), 2, "reference")
    side.step()
    profiler = cProfile.Profile()
    decisions = 0
    profiler.enable()
    for _ in range(steps_to_run):
        decisions += side.step()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    by_name: dict[tuple[str, str], float] = {}
    for (filename, _, name), (_, _, _, cumulative, _) in stats.items():
        key = (Path(filename).name, name)
        by_name[key] = by_name.get(key, 0.0) + cumulative
    option_codes = {
        (f.__code__.co_filename, f.__code__.co_firstlineno, f.__code__.co_name) for f in steps.OPTIONS if f is not None
    }
    options = sum(stats[key][3] for key in option_codes if key in stats)
    total = by_name[("vector_speed.py", "step")]
    apply_ = by_name[("machine.py", "apply")]
    parts = [
        ("engine apply: resolve + automatic steps", apply_ - options),
        ("  of which legal options (steps.OPTIONS)", options),
        ("observation encoding (encode_observation)", by_name[("encoding.py", "encode_observation")]),
        ("mask and per-game arrays (VectorGame._refresh)", by_name[("core.py", "_refresh")]),
        ("new games on autoreset (Game.new)", by_name.get(("machine.py", "new"), 0.0)),
        ("random pick over the masks (sample_legal)", by_name[("policies.py", "sample_legal")]),
    ]
    counted = apply_ + sum(t for _, t in parts[2:])
    parts.append(("batch plumbing: checks, copies, bookkeeping", total - counted))
    print(f"profile: {decisions:,} decisions, {players} players, {level}, batch {batch_size} (cProfile)")
    print(f"{'':<48} {'us/decision':>11} {'share':>6}")
    for label, seconds in parts:
        print(f"{label:<48} {1e6 * seconds / decisions:>11.1f} {seconds / total:>6.1%}")
    print(f"{'total':<48} {1e6 * total / decisions:>11.1f}")
    print("functions with the most own time:")
    own = sorted(stats.items(), key=lambda item: -item[1][2])[:8]
    for (filename, line, name), (_, calls, tottime, _, _) in own:
        where = f"{Path(filename).name}:{line} {name}"
        print(f"  {where:<58} {1e6 * tottime / decisions:>6.1f} us/decision  {calls / decisions:>5.1f} calls/decision")


def ppo_throughput(timesteps: int) -> None:
    """Environment steps per second of MaskablePPO training, batched VecEnv against the current route."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from seasons_env.gym_env import SeasonsGymEnv
    from seasons_env.vector import SeasonsVecEnv

    torch.set_num_threads(1)

    def single() -> SeasonsGymEnv:
        return SeasonsGymEnv(num_players=2, level="archmage", agent_seat="random")

    routes = [
        ("SeasonsVecEnv (batched), 16 envs", lambda: SeasonsVecEnv(16, 2, "archmage", agent_seat="random"), 16),
        ("DummyVecEnv(SeasonsGymEnv), 1 env (the script today)", lambda: DummyVecEnv([single]), 1),
        ("DummyVecEnv(SeasonsGymEnv), 16 envs", lambda: DummyVecEnv([single] * 16), 16),
        ("SubprocVecEnv(SeasonsGymEnv), 2 envs", lambda: SubprocVecEnv([single] * 2), 2),
    ]
    print(f"MaskablePPO training throughput (2 players, archmage, random opponents, {timesteps:,} steps, 1 thread)")
    print(f"{'route':<56} {'env steps/s':>11} {'no learning':>11}")
    for label, make, count in routes:
        env = VecMonitor(make())
        model = MaskablePPO("MlpPolicy", env, n_steps=2048 // count, batch_size=256, gamma=1.0, seed=0)
        start = time.perf_counter()
        model.learn(total_timesteps=timesteps)
        learning = model.num_timesteps / (time.perf_counter() - start)
        rollout = _rollout_rate(env, min(timesteps, 4096), count)
        env.close()
        print(f"{label:<56} {learning:>11,.0f} {rollout:>11,.0f}")
    print("(no learning: the same envs stepped with random masked actions, as collecting a rollout costs without PPO)")


def _rollout_rate(env, steps: int, count: int) -> float:
    from sb3_contrib.common.maskable.utils import get_action_masks

    rng = np.random.default_rng(0)
    env.reset()
    start = time.perf_counter()
    done = 0
    while done < steps:
        env.step(sample_legal(get_action_masks(env), rng))
        done += count
    return done / (time.perf_counter() - start)


def batch_sizes(parser: argparse.ArgumentParser, text: str | None, quick: bool) -> list[int]:
    """``--batches`` as a list of positive ints (the default: 1, 64, 1,024 and, unless ``quick``, 4,096)."""
    if text is None:
        return [1, 64, 1024] if quick else [1, 64, 1024, 4096]
    try:
        batches = [int(size) for size in text.split(",")]
    except ValueError:
        batches = [0]
    if min(batches) < 1:
        parser.error(f"--batches must be comma-separated positive ints; got {text!r}")
    return batches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="batch up to 1,024, short budgets, small PPO run")
    parser.add_argument("--seconds", type=float, default=None, help="budget per cell (default 6, quick 1.5)")
    parser.add_argument("--level", default="archmage", choices=["apprentice", "magician", "archmage"])
    parser.add_argument("--profile", action="store_true", help="only the cProfile breakdown (batch 128, 400 steps)")
    parser.add_argument("--batches", default=None, help="comma-separated batch sizes (default 1,64,1024,4096)")
    parser.add_argument("--profile-steps", type=int, default=400, help="batched steps profiled (default 400)")
    parser.add_argument("--skip-ppo", action="store_true", help="leave out the MaskablePPO throughput")
    parser.add_argument("--skip-compile", action="store_true", help="leave out the kernels' compile time")
    args = parser.parse_args(argv)
    if args.profile:
        for players in (2, 4):
            profile(128, players, args.level, args.profile_steps)
            print()
        return 0
    seconds = args.seconds if args.seconds is not None else (1.5 if args.quick else 6.0)
    batches = batch_sizes(parser, args.batches, args.quick)
    if not args.skip_compile:
        compile_time()
        print()
    speed_table(batches, seconds, args.level)
    if not args.skip_ppo:
        print()
        ppo_throughput(2048 if args.quick else 8192)
    return 0


if __name__ == "__main__":
    sys.exit(main())
