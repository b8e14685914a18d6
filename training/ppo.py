"""Self-play PPO from a cloned start: the last stage of ``seasons train`` / ``python -m seasons_training train``.

The learner (``seasons_agents.network.PolicyValueNet``) plays ``envs`` games at once (``seasons_training.selfplay``),
one seat in each, seats at random, player counts drawn from ``num_players``; every other seat is played by an opponent
of the league, sampled by prioritised fictitious self-play: each opponent's weight is ``max(floor, (1 - p) ** power)``
where ``p`` is the learner's recent win rate against it, so the opponents it beats least are met most. The league holds
the fixed opponents (``opponents``: random, heuristic, and ISMCTS when named, at ``ismcts_iterations`` a decision and in
at most ``ismcts_share`` of the games, as its decisions cost about as much as twenty of the heuristic's) and frozen
snapshots of the learner (the starting network, then one every ``snapshot_every`` decisions, the oldest leaving past
``league_size``). The reward comes at the end of a game: ``tanh(final margin / 40)``. PPO with GAE (gamma 1), clipped
ratios, masked logits (an illegal action has probability 0), linear learning-rate and entropy schedules.

The run folder holds ``config.json``, ``checkpoint.pt`` (policy, optimizer, league with its statistics, the games in
progress, every generator's state, the step count and the history; written atomically every ``checkpoint_every``
decisions and when the run is stopped by SIGTERM or Ctrl-C, once the rollout under way and its update are done),
``policy.pt`` (the latest policy, for ``learned:PATH``), ``tb/`` (TensorBoard), ``history.jsonl`` (evaluations) and
``curve.png``. ``--resume`` continues from the checkpoint exactly: a run stopped and resumed ends with the same
weights as one that was never stopped. The starting network is evaluated before the first update, so the curve
starts there; every evaluation carries ``wall_time``, the seconds since the run started, counting the warm-start
stages before PPO (``seasons_training.pipeline``) and the evaluations and checkpoints; the time between a stop and its
resume is not counted.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from seasons_agents.network import (
    FrozenPolicy,
    NetworkConfig,
    PolicyValueNet,
    load_policy,
    margin_target,
    masked_logits,
    masked_policy,
    policy_from_payload,
    policy_payload,
    save_atomic_torch,
)
from seasons_env.deprecation import renamed_keywords
from seasons_env.files import replace_atomically, write_atomic
from seasons_env.statistics import wilson_interval
from seasons_env.vector.backends import DEFAULT_ENGINE

from .config import TrainConfig, config_json, init_model_file
from .device import on_cpu, resolve_device
from .errors import BadFileError, TrainingDiverged, reading
from .league import League
from .resume_checks import check_optimizer, count_field, history_rows, seconds_field
from .selfplay import HEURISTIC, RANDOM, Deal, SelfPlayGames
from .stages import warm_model_path

CHECKPOINT = "checkpoint.pt"
CHECKPOINT_FORMAT = "seasons-train-checkpoint"
POLICY = "policy.pt"
#: The fields of a checkpoint (``Trainer.checkpoint_state``) that a resume needs; ``wall_seconds`` and
#: ``ppo_started_at`` may be absent (checkpoints of runs before the wall-time accounting).
CHECKPOINT_FIELDS = (
    "config",
    "policy",
    "optimizer",
    "league",
    "games",
    "rng",
    "torch_rng",
    "steps",
    "updates",
    "seconds",
    "history",
)


class Stop(Exception):
    """SIGTERM or Ctrl-C: save and leave."""


def initial_network(config: TrainConfig, folder: Path) -> PolicyValueNet:
    if config.init == "warm":
        path = warm_model_path(config, folder)
        if not path.is_file():
            raise ValueError(
                f"init: 'warm' starts from {path}, which the warm-start stages write; run them with "
                "'seasons train' (seasons_training.pipeline.TrainingRun), or set init to a model file"
            )
        return load_policy(path)[0]
    if config.init == "":
        torch.manual_seed(config.seed)
        return PolicyValueNet(NetworkConfig(card_dim=config.card_dim, hidden=config.hidden, layers=config.layers))
    return load_policy(init_model_file(config.init))[0]


@renamed_keywords
def evaluate(
    net: PolicyValueNet,
    opponent: str,
    games: int,
    num_players: int,
    level: str,
    seed: int,
    slots: int = 32,
    engine: str = DEFAULT_ENGINE,
) -> dict:
    """``games`` games of the greedy policy against ``opponent`` (random or heuristic) in every other seat, the
    learner's seat rotated over each deal; win rate (ties shared) with a Wilson 95% interval, mean scores.
    ``players`` is the deprecated name of ``num_players``."""
    counter = iter(range(games))

    def schedule(rng: np.random.Generator) -> Deal | None:
        k = next(counter, None)
        if k is None:
            return None
        return Deal(num_players, k % num_players, opponent, seed * 1_000_003 + k // num_players)

    vec = SelfPlayGames(min(slots, games), level, schedule, {}, seed, engine)
    results = vec.start()
    net.eval()
    device = next(net.parameters()).device  # the learner's device (training/device.py)
    while vec.active().any():
        obs, mask = vec.observe()
        with torch.inference_mode():
            logits, _ = net(torch.from_numpy(obs).to(device))
        actions = masked_logits(logits, torch.from_numpy(mask).to(device)).argmax(1).cpu().numpy()
        results += vec.step(actions)
    wins = sum(r.win for r in results)
    low, high = wilson_interval(wins, len(results))
    return {
        "opponent": opponent,
        "games": len(results),
        "players": num_players,
        "win_rate": wins / max(len(results), 1),
        "low": low,
        "high": high,
        "mean_score": float(np.mean([r.score for r in results])) if results else float("nan"),
        "mean_margin": float(np.mean([r.margin for r in results])) if results else float("nan"),
    }


class Trainer:
    """One training run in ``folder``: ``Trainer(folder, config).run()``, or ``Trainer.resume(folder).run()``."""

    def __init__(
        self, folder: Path, config: TrainConfig, log: Callable[[str], None] = print, wall_start: float = 0.0
    ) -> None:
        """``wall_start``: the seconds the run spent before PPO (the warm-start stages)."""
        self.folder = Path(folder)
        self.config = config
        self.log = log
        torch.set_num_threads(config.threads)
        self.device = resolve_device(config.device)
        self.net = initial_network(config, self.folder).to(self.device)
        self.net.train()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, eps=1e-5)
        self.league = League(config)
        self.league.add_snapshot(self.net)
        self.rng = np.random.default_rng([config.seed, 1])
        self.steps = 0
        self.updates = 0
        self.seconds = 0.0
        self.ppo_started_at = self.wall_seconds = float(wall_start)
        self._clock: tuple[float, float] | None = None
        self.history: list[dict] = []
        self.saved_steps: int | None = None  # the steps of the checkpoint on disk
        self.vec = self._games()
        self.vec.start()
        torch.manual_seed(config.seed)
        self._stop = False
        self.stop_signal: int | None = None  # the signal that stopped the run

    # ------------------------------------------------------------------ the schedule of games

    def _games(self) -> SelfPlayGames:
        c = self.config
        return SelfPlayGames(
            c.envs,
            c.level,
            self._deal,
            self.league.players,
            c.seed,
            c.engine,
            ismcts_iterations=c.ismcts_iterations,
            threads=c.game_threads,
        )

    def _deal(self, rng: np.random.Generator) -> Deal:
        players = int(self.config.num_players[int(rng.integers(len(self.config.num_players)))])
        return Deal(players, int(rng.integers(players)), self.league.sample(rng), int(rng.integers(2**62)))

    # ------------------------------------------------------------------ checkpoints

    def checkpoint_state(self) -> dict:
        return {
            "format": CHECKPOINT_FORMAT,
            "version": 1,
            "config": self.config.to_dict(),
            "policy": policy_payload(
                self.net, {"trained_by": "self-play PPO", "steps": self.steps, "init": self.config.init}
            ),
            "optimizer": on_cpu(self.optimizer.state_dict()),  # CPU-loadable whatever the device
            "league": self.league.state_dict(),
            "games": self.vec.state_dict(),
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "steps": self.steps,
            "updates": self.updates,
            "seconds": self.seconds,
            "wall_seconds": self.wall_time(),
            "ppo_started_at": self.ppo_started_at,
            "history": list(self.history),
        }

    def wall_time(self) -> float:
        """Seconds since the run started: the warm-start stages, then this trainer's runs (see the module)."""
        if self._clock is None:
            return self.wall_seconds
        base, started = self._clock
        return base + time.perf_counter() - started

    def save(self, state: dict | None = None) -> None:
        state = state if state is not None else self.checkpoint_state()
        save_atomic_torch(state, self.folder / CHECKPOINT)
        save_atomic_torch(state["policy"], self.folder / POLICY)
        self.saved_steps = state["steps"]

    def _diverged(self, what: str) -> TrainingDiverged:
        """The error that stops a run whose loss or weights stopped being finite: nothing more is saved."""
        if self.saved_steps is None:
            kept = "no checkpoint had been written yet"
        else:
            kept = f"{self.folder / CHECKPOINT} and {POLICY} keep the last good state, step {self.saved_steps}"
        return TrainingDiverged(
            f"training diverged at step {self.steps} (update {self.updates + 1}): {what}; the run stops and saves "
            f"nothing more ({kept}). Try a lower lr or max_grad_norm in a new run."
        )

    @classmethod
    def resume(cls, folder: Path, log: Callable[[str], None] = print, steps: int | None = None) -> Trainer:
        """The run whose checkpoint is in ``folder``. Every field is checked before anything of the process changes
        (``BadFileError`` naming the file and the field): a damaged checkpoint is refused whole."""
        path = Path(folder) / CHECKPOINT
        where = str(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no checkpoint to resume from")
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as error:  # a damaged or foreign file: say which, never run anything from it
            raise BadFileError(
                f"{path}: cannot be read as a training checkpoint ({type(error).__name__}: {error})"
            ) from None
        if (
            not isinstance(state, dict)
            or not isinstance(state.get("format"), str)
            or state["format"] != CHECKPOINT_FORMAT
        ):
            raise BadFileError(f"{path}: not a training checkpoint of 'seasons train'")
        missing = [key for key in CHECKPOINT_FIELDS if key not in state]
        if missing:
            raise BadFileError(f"{path}: missing field(s) {', '.join(missing)}")
        try:
            config = TrainConfig.from_dict(state["config"], f"{path}: config")
        except ValueError as error:  # the message names the file and the field
            raise BadFileError(str(error)) from None
        if steps is not None:
            config = TrainConfig.from_dict({**config.to_dict(), "steps": steps}, "--steps")
        self = cls.__new__(cls)
        self.folder, self.config, self.log, self._stop = Path(folder), config, log, False
        self.stop_signal = None
        self.steps, self.updates = count_field(state, "steps", where), count_field(state, "updates", where)
        self.saved_steps = self.steps
        self.seconds = seconds_field(state, "seconds", where)
        # checkpoints of runs before the wall-time accounting: their PPO seconds
        self.wall_seconds = seconds_field(state, "wall_seconds", where, self.seconds)
        self.ppo_started_at = seconds_field(state, "ppo_started_at", where, 0.0)
        self._clock = None
        self.history = history_rows(state["history"], where, (RANDOM, HEURISTIC))
        self.device = resolve_device(config.device, f"{path}: config: device")
        self.net = policy_from_payload(state["policy"], f"{path}: policy")[0].to(self.device)
        self.net.train()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, eps=1e-5)
        with reading(where, "optimizer"):
            self.optimizer.load_state_dict(state["optimizer"])
        check_optimizer(self.optimizer, where)
        self.league = League(config)
        with reading(where, "league"):
            self.league.load_state_dict(state["league"], where)
        self.rng = np.random.default_rng()
        with reading(where, "rng"):
            self.rng.bit_generator.state = state["rng"]
        self.vec = self._games()
        with reading(where, "games"):
            self.vec.load_state_dict(state["games"])
        torch_rng = state["torch_rng"]
        if not isinstance(torch_rng, torch.Tensor) or torch_rng.dtype != torch.uint8:
            raise BadFileError(f"{path}: torch_rng must be the byte tensor of torch.get_rng_state()")
        with reading(where, "torch_rng"):
            generator = torch.Generator()
            generator.set_state(torch_rng)  # checked on a generator of its own: the process's is set last
        torch.set_num_threads(config.threads)
        torch.set_rng_state(torch_rng)
        return self

    # ------------------------------------------------------------------ the loop

    def _on_signal(self, signum: int, frame: object) -> None:
        self._stop = True
        self.stop_signal = self.stop_signal or signum

    def run(self, progress: bool = True) -> dict:
        c = self.config
        # first: a stop from now on is a flag the loop sees (TensorBoard's import alone takes a second or two)
        previous = signal.signal(signal.SIGTERM, self._on_signal), signal.signal(signal.SIGINT, self._on_signal)
        self._clock = (self.wall_seconds, time.perf_counter())
        writer, bar, stopped = None, None, False
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(self.folder / "config.json", config_json(c).encode())
            self._write_history()
            from torch.utils.tensorboard import SummaryWriter
            from tqdm import tqdm

            writer = SummaryWriter(str(self.folder / "tb"), purge_step=self.steps)
            bar = tqdm(total=c.steps, initial=min(self.steps, c.steps), unit="step", disable=not progress, desc="train")
            if self.steps == 0 and not self.history:  # the starting network: where the curve starts
                self._evaluate(writer)
            while self.steps < c.steps:
                if self._stop:
                    stopped = True
                    break
                started = time.perf_counter()
                decisions_before = self.vec.decisions
                # a stop that comes now lets this rollout and its update finish (about a second at the presets'
                # sizes), so a stopped run loses no work and no copy of the games is kept against a stop
                batch, finished = self._collect()
                stats = self._update(batch)
                if not all(bool(torch.isfinite(p).all()) for p in self.net.parameters()):
                    raise self._diverged("the weights hold NaN or infinite values after the update")
                self.updates += 1
                before = self.steps
                self.steps += len(batch["actions"])
                self.seconds += time.perf_counter() - started
                self._log_update(writer, stats, finished, batch, time.perf_counter() - started, decisions_before)
                if self.steps // c.snapshot_every > before // c.snapshot_every:
                    self.league.add_snapshot(self.net)
                in_use = {d.opponent for d in self.vec.deals if d is not None}
                self.league.forget_unused(in_use)
                if self.steps // c.eval_every > before // c.eval_every or self.steps >= c.steps:
                    self._evaluate(writer)
                if self.steps // c.checkpoint_every > before // c.checkpoint_every or self.steps >= c.steps:
                    self.save()
                bar.update(self.steps - before)
        finally:
            signal.signal(signal.SIGTERM, previous[0])
            signal.signal(signal.SIGINT, previous[1])
            for closing in (bar, writer):
                if closing is not None:
                    closing.close()
            self.wall_seconds, self._clock = self.wall_time(), None
        if stopped:
            self.save()
            self.log(f"stopped at step {self.steps}; checkpoint written to {self.folder / CHECKPOINT}")
        return {"steps": self.steps, "stopped": stopped, "history": self.history, "signal": self.stop_signal}

    def _collect(self) -> tuple[dict, list]:
        c = self.config
        n, t = c.envs, c.rollout
        obs = np.zeros((t, n, self.vec.obs.shape[1]), dtype=np.float32)
        masks = np.zeros((t, n, self.vec.mask.shape[1]), dtype=bool)
        actions = np.zeros((t, n), dtype=np.int64)
        logps = np.zeros((t, n), dtype=np.float32)
        values = np.zeros((t + 1, n), dtype=np.float32)
        rewards = np.zeros((t, n), dtype=np.float32)
        dones = np.zeros((t, n), dtype=np.float32)
        finished_all = []
        # the weights do not change until the update: folded, a faster forward
        player = FrozenPolicy(self.net).to(self.device)
        device = self.device
        for k in range(t):
            o, m = self.vec.observe()
            obs[k], masks[k] = o, m
            with torch.inference_mode():
                logits, value = player(torch.from_numpy(o).to(device))
                log_probabilities, probabilities = masked_policy(logits, torch.from_numpy(m).to(device))
                # drawn on the CPU with torch's CPU generator (the one checkpoints save), whatever the device
                a = torch.multinomial(probabilities.cpu(), 1).squeeze(1)
                logps[k] = log_probabilities.cpu().gather(1, a.unsqueeze(1)).squeeze(1).numpy()
            actions[k], values[k] = a.numpy(), value.cpu().numpy()
            for result in self.vec.step(actions[k]):
                rewards[k, result.slot] = float(margin_target(np.float32(result.margin)))
                dones[k, result.slot] = 1.0
                self.league.record(result.opponent, result.win)
                finished_all.append(result)
        with torch.inference_mode():
            values[t] = player(torch.from_numpy(self.vec.observe()[0]).to(device))[1].cpu().numpy()
        advantages = np.zeros((t, n), dtype=np.float32)
        last = np.zeros(n, dtype=np.float32)
        for k in reversed(range(t)):  # GAE with gamma 1; a game that ended at step k does not see the next one
            alive = 1.0 - dones[k]
            delta = rewards[k] + values[k + 1] * alive - values[k]
            last = delta + c.gae_lambda * alive * last
            advantages[k] = last
        returns = advantages + values[:t]
        batch = {
            "obs": obs.reshape(t * n, -1),
            "masks": masks.reshape(t * n, -1),
            "actions": actions.reshape(-1),
            "logps": logps.reshape(-1),
            "advantages": advantages.reshape(-1),
            "returns": returns.reshape(-1),
        }
        return batch, finished_all

    def _schedule(self, start: float, end: float) -> float:
        fraction = min(1.0, self.steps / self.config.steps)
        return start + (end - start) * fraction

    def _update(self, batch: dict) -> dict:
        c = self.config
        lr = self._schedule(c.lr, c.lr_final)
        entropy_coef = self._schedule(c.entropy, c.entropy_final)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.net.train()
        tensors = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
        size = len(batch["actions"])
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_fraction": 0.0, "approx_kl": 0.0}
        count = 0
        for _ in range(c.epochs):
            order = torch.from_numpy(self.rng.permutation(size)).to(self.device)
            for start in range(0, size, c.minibatch):
                rows = order[start : start + c.minibatch]
                logits, value = self.net.forward_folded(tensors["obs"][rows])  # the same function, cheaper
                log_probabilities, probabilities = masked_policy(logits, tensors["masks"][rows])
                logp = log_probabilities.gather(1, tensors["actions"][rows].unsqueeze(1)).squeeze(1)
                advantage = tensors["advantages"][rows]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8) if len(rows) > 1 else advantage
                ratio = torch.exp(logp - tensors["logps"][rows])
                policy_loss = -torch.min(ratio * advantage, ratio.clamp(1 - c.clip, 1 + c.clip) * advantage).mean()
                value_loss = F.mse_loss(value, tensors["returns"][rows])
                entropy = -(probabilities * log_probabilities).sum(dim=1).mean()
                loss = policy_loss + c.value_coef * value_loss - entropy_coef * entropy
                if not bool(torch.isfinite(loss)):
                    raise self._diverged(f"the loss became {float(loss)}")
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                if not bool(torch.isfinite(norm)):
                    raise self._diverged(f"the gradient's norm became {float(norm)}")
                self.optimizer.step()
                with torch.no_grad():
                    sums["policy_loss"] += float(policy_loss)
                    sums["value_loss"] += float(value_loss)
                    sums["entropy"] += float(entropy)
                    sums["clip_fraction"] += float(((ratio - 1).abs() > c.clip).float().mean())
                    sums["approx_kl"] += float(((ratio - 1) - torch.log(ratio)).mean())
                count += 1
        return {**{k: v / max(count, 1) for k, v in sums.items()}, "lr": lr, "entropy_coef": entropy_coef}

    def _log_update(self, writer, stats: dict, finished: list, batch: dict, seconds: float, decisions: int) -> None:
        for key, value in stats.items():
            writer.add_scalar(f"train/{key}", value, self.steps)
        writer.add_scalar("speed/learner_steps_per_s", len(batch["actions"]) / seconds, self.steps)
        writer.add_scalar("speed/decisions_per_s", (self.vec.decisions - decisions) / seconds, self.steps)
        for name in self.league.pool:
            writer.add_scalar(f"league/win_rate/{name}", self.league.win_rate(name), self.steps)
        if finished:
            writer.add_scalar("games/mean_margin", float(np.mean([r.margin for r in finished])), self.steps)
            writer.add_scalar("games/win_rate", float(np.mean([r.win for r in finished])), self.steps)

    def _evaluate(self, writer) -> None:
        c = self.config
        if c.eval_games == 0:
            return
        row = {"steps": self.steps, "seconds": self.seconds, "wall_time": self.wall_time(), "updates": self.updates}
        row["steps_per_s"] = self.steps / max(self.seconds, 1e-9)  # learner decisions a second, learning included
        row["league"] = {name: round(self.league.win_rate(name), 4) for name in self.league.pool}
        for opponent in (RANDOM, HEURISTIC):
            result = evaluate(self.net, opponent, c.eval_games, c.eval_players, c.level, c.seed + 7919, engine=c.engine)
            row[opponent] = result
            writer.add_scalar(f"eval/win_rate_vs_{opponent}", result["win_rate"], self.steps)
            writer.add_scalar(f"eval/mean_score_vs_{opponent}", result["mean_score"], self.steps)
            self.log(
                f"step {self.steps}: vs {opponent} {result['win_rate']:.1%} [{result['low']:.1%}, "
                f"{result['high']:.1%}] over {result['games']} games, mean score {result['mean_score']:.1f}"
            )
        self.history.append(row)
        self._write_history()
        self.plot()  # the curve so far: a long run shows it while it runs, and a stopped one keeps it
        self.net.train()

    def _write_history(self) -> None:
        """``history.jsonl`` rewritten whole from the history (the checkpoint's, on a resume: no row of the
        steps a stop lost stays in it)."""
        write_atomic(self.folder / "history.jsonl", "".join(json.dumps(row) + "\n" for row in self.history).encode())

    def plot(self) -> Path | None:
        """``curve.png``: win rate (Wilson 95% intervals) against random and heuristic by the wall time since the
        run started (the warm-start stages included; a dotted line where PPO started). Redrawn after every
        evaluation."""
        if not self.history:
            return None
        from matplotlib.figure import Figure  # no pyplot: the caller's matplotlib backend is left alone

        figure = Figure(figsize=(7, 4), dpi=100)
        axes = figure.add_subplot()
        hours = [row.get("wall_time", row["seconds"]) / 3600 for row in self.history]
        for opponent in (RANDOM, HEURISTIC):
            rates = [row[opponent]["win_rate"] for row in self.history]
            low = [row[opponent]["win_rate"] - row[opponent]["low"] for row in self.history]
            high = [row[opponent]["high"] - row[opponent]["win_rate"] for row in self.history]
            axes.errorbar(hours, rates, yerr=[low, high], marker="o", capsize=3, label=f"vs {opponent}")
        if self.ppo_started_at > 0:
            axes.axvline(self.ppo_started_at / 3600, color="grey", linestyle=":", label="PPO starts")
        axes.set_xlabel("wall time since the run started (hours; data sets and cloning included)")
        axes.set_ylabel("win rate (95% Wilson interval)")
        axes.set_ylim(0, 1)
        axes.set_xlim(left=0)  # the run's start: the warm-start stages take the left of the picture
        axes.grid(alpha=0.3)
        axes.legend()
        axes.set_title(f"{self.config.eval_players}-player {self.config.level}, greedy policy")
        path = self.folder / "curve.png"
        replace_atomically(path, lambda temporary: figure.savefig(temporary, format="png"))
        return path
