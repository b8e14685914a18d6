"""Behaviour cloning: fit ``seasons_agents.network.PolicyValueNet`` to a teacher's decisions
(``python -m seasons_training clone``).

The policy learns the teacher's action by cross-entropy over the legal actions only (the logits are masked);
the value head learns ``tanh(final margin / VALUE_SCALE)`` of the deciding seat by mean squared error. The
games are split into training and validation sets (every ``holdout``-th game is held out, so no position of a
held-out game is seen in training); the learning rate follows a cosine schedule. The model with the best
validation accuracy is saved.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from seasons_agents.network import NetworkConfig

from .config import DEVICES, MAX_SEED
from .data import load_dataset
from .errors import TrainingDiverged


@dataclass(frozen=True)
class CloneConfig:
    epochs: int = 6
    batch_size: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-5
    value_weight: float = 0.5
    holdout: int = 20  # every holdout-th game is for validation
    seed: int = 0
    threads: int = 2
    network: NetworkConfig = field(default_factory=NetworkConfig)
    device: str = "cpu"  # "cpu", "cuda" or "auto" (training/device.py); the rows stay in CPU memory

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size", "holdout", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"clone config: {name} must be a positive integer; got {value!r}")
        for name in ("lr", "value_weight"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < math.inf:
                raise ValueError(f"clone config: {name} must be a positive finite number; got {value!r}")
        decay = self.weight_decay
        if not isinstance(decay, (int, float)) or isinstance(decay, bool) or not 0 <= decay < math.inf:
            raise ValueError(f"clone config: weight_decay must be a finite number >= 0; got {decay!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"clone config: seed must be an integer in 0..{MAX_SEED}; got {self.seed!r}")
        if self.device not in DEVICES:
            raise ValueError(f"clone config: device must be one of {', '.join(DEVICES)}; got {self.device!r}")


def split_by_game(games: np.ndarray, holdout: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the training and validation sets: games whose index is a multiple of ``holdout`` are held out."""
    held = games % holdout == 0
    if holdout == 1 or held.all():
        held = np.zeros_like(held)
    return np.flatnonzero(~held), np.flatnonzero(held)


def clone(
    data_paths: list[Path],
    out: Path,
    config: CloneConfig,
    init: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Train on the rows of ``data_paths`` (concatenated); write the best network to ``out``; return the history."""
    import torch
    import torch.nn.functional as F

    from seasons_agents.network import PolicyValueNet, load_policy, margin_target, masked_policy, save_policy

    from .device import resolve_device

    device = resolve_device(config.device, "clone config: device")  # before any work
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    parts = [load_dataset(path) for path in data_paths]
    offset, games = 0, []
    for part in parts:  # game indices made distinct across files
        games.append(part["game"].astype(np.int64) + offset)
        offset = int(games[-1].max()) + 1 if len(games[-1]) else offset
    # one file's arrays are used as they are: no second copy of 4.8 KB a row
    rows = {k: parts[0][k] if len(parts) == 1 else np.concatenate([p[k] for p in parts]) for k in ("obs", "mask")}
    obs, mask = torch.from_numpy(rows.pop("obs")), torch.from_numpy(rows.pop("mask"))
    action = torch.from_numpy(np.concatenate([p["action"] for p in parts]).astype(np.int64))
    value = torch.from_numpy(margin_target(np.concatenate([p["margin"] for p in parts])).astype(np.float32))
    del parts, rows  # the tensors hold the rows now
    train_rows, valid_rows = split_by_game(np.concatenate(games), config.holdout)
    if init is not None:
        net, _ = load_policy(init)
        net.train()
    else:
        net = PolicyValueNet(config.network)
    net.to(device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    steps_per_epoch = math.ceil(len(train_rows) / config.batch_size)
    total = max(1, steps_per_epoch * config.epochs)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / total))
    )
    rng = np.random.default_rng(config.seed)
    history: list[dict] = []
    best = -1.0
    start = time.perf_counter()
    for epoch in range(config.epochs):
        net.train()
        order = torch.from_numpy(rng.permutation(train_rows))
        loss_sum, seen = 0.0, 0
        for k in range(0, len(order), config.batch_size):
            rows = order[k : k + config.batch_size]
            batch_obs, batch_mask, batch_action, batch_value = (t[rows].to(device) for t in (obs, mask, action, value))
            logits, v = net.forward_folded(batch_obs)  # the same function, cheaper on a large batch
            log_probabilities = masked_policy(logits, batch_mask)[0]  # cross-entropy over the legal actions
            loss = F.nll_loss(log_probabilities, batch_action) + config.value_weight * F.mse_loss(v, batch_value)
            if not bool(torch.isfinite(loss)):  # nothing of this epoch is saved; an earlier best epoch's file stays
                raise TrainingDiverged(
                    f"cloning diverged in epoch {epoch + 1}: the loss became {float(loss)}; nothing more is written "
                    f"to {out} (try a lower lr)"
                )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            loss_sum += float(loss.detach()) * len(rows)
            seen += len(rows)
        accuracy, value_error = evaluate_rows(net, obs, mask, action, value, valid_rows)
        row = {
            "epoch": epoch + 1,
            "train_loss": loss_sum / max(seen, 1),
            "valid_accuracy": accuracy,
            "valid_value_mse": value_error,
            "seconds": time.perf_counter() - start,
        }
        history.append(row)
        log(
            f"epoch {epoch + 1}/{config.epochs}: loss {row['train_loss']:.4f}, validation accuracy {accuracy:.4f}, "
            f"value mse {value_error:.4f} ({row['seconds']:.0f} s)"
        )
        if accuracy > best or not len(valid_rows):
            best = accuracy
            info = {"trained_by": "behaviour cloning", "rows": len(train_rows), "history": list(history)}
            info["clone_config"] = {**asdict(config), "network": asdict(config.network)}
            save_policy(net, out, info)
    return {
        "history": history,
        "best_valid_accuracy": best,
        "train_rows": len(train_rows),
        "valid_rows": len(valid_rows),
    }


def evaluate_rows(net, obs, mask, action, value, rows: np.ndarray, batch: int = 4096) -> tuple[float, float]:
    """Accuracy of the masked argmax against ``action`` and the value's mean squared error, over ``rows``."""
    import torch

    from seasons_agents.network import masked_logits

    if not len(rows):
        return float("nan"), float("nan")
    net.eval()
    device = next(net.parameters()).device  # the rows are on the CPU, the network where it learns
    hits, error = 0, 0.0
    with torch.inference_mode():
        for k in range(0, len(rows), batch):
            index = torch.from_numpy(rows[k : k + batch])
            logits, v = net.forward_folded(obs[index].to(device))
            hits += int((masked_logits(logits, mask[index].to(device)).argmax(1) == action[index].to(device)).sum())
            error += float(((v - value[index].to(device)) ** 2).sum())
    return hits / len(rows), error / len(rows)
