"""The checks of a training checkpoint's fields when a run resumes (``seasons_training.ppo.Trainer.resume``): each
error is a ``BadFileError`` naming the file (``where``) and the field."""

from __future__ import annotations

import json

import numpy as np
import torch

from .errors import BadFileError


def is_stat(value: object) -> bool:
    """A league statistic: decayed ``[wins, games]``, finite, ``0 <= wins <= games``."""
    if not isinstance(value, list) or len(value) != 2:
        return False
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) for x in value):
        return False
    return 0 <= value[0] <= value[1]


def history_rows(history: object, where: str, opponents: tuple[str, ...]) -> list[dict]:
    """A checkpoint's evaluations, checked as ``Trainer.plot`` and ``history.jsonl`` use them (each row holds the
    results against ``opponents``)."""
    rows = history if isinstance(history, list) else None
    for row in rows or []:
        try:
            json.dumps(row, allow_nan=False)
            ok = isinstance(row, dict) and all(
                isinstance(row[key], (int, float)) and not isinstance(row[key], bool) for key in ("steps", "seconds")
            )
            ok = ok and all(
                isinstance(row[name][key], (int, float)) and not isinstance(row[name][key], bool)
                for name in opponents
                for key in ("win_rate", "low", "high")
            )
        except (TypeError, ValueError, KeyError):
            ok = False
        if not ok:
            rows = None
            break
    if rows is None:
        raise BadFileError(f"{where}: history must be a list of evaluation rows as 'seasons train' writes them")
    return list(rows)


def check_optimizer(optimizer: torch.optim.Optimizer, where: str) -> None:
    """The restored optimizer's per-weight tensors fit the weights and are finite (Adam's load does not check)."""
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            for key, value in optimizer.state.get(parameter, {}).items():
                if not isinstance(value, torch.Tensor) or not value.is_floating_point():
                    raise BadFileError(f"{where}: optimizer: {key} must be a floating-point tensor")
                if value.dim() and value.shape != parameter.shape:
                    raise BadFileError(
                        f"{where}: optimizer: {key} has shape {tuple(value.shape)}; its weight has "
                        f"{tuple(parameter.shape)}"
                    )
                if not bool(torch.isfinite(value).all()):
                    raise BadFileError(f"{where}: optimizer: {key} holds NaN or infinite values")


def count_field(state: dict, key: str, where: str) -> int:
    """``state[key]``, an integer at least 0."""
    value = state[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadFileError(f"{where}: {key} must be an integer at least 0; got {value!r}")
    return value


def seconds_field(state: dict, key: str, where: str, default: float | None = None) -> float:
    """``state[key]`` (``default`` if absent), a finite number of seconds at least 0."""
    value = state.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise BadFileError(f"{where}: {key} must be a number of seconds at least 0; got {value!r}")
    return float(value)
