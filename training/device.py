"""Where training's torch work runs: ``device=cpu`` (the default), ``cuda`` or ``auto`` (cuda when there is one).

Learning (PPO updates, cloning) and the learner's batched inference in self-play and evaluation run on the chosen
device; the league's frozen snapshots decide through compiled numpy forward passes on the CPU whatever the device.
Everything saved (models, checkpoints, optimizer state) is moved to the CPU first, so a run trained on a GPU loads
on a machine without one.
"""

from __future__ import annotations

import torch

from .config import DEVICES


def check_device_name(name: object, what: str = "device") -> str:
    """``name`` if it is one of ``DEVICES``, else a ``ValueError`` naming ``what``."""
    if not isinstance(name, str) or name not in DEVICES:
        raise ValueError(f"{what}: must be one of {', '.join(DEVICES)}; got {name!r}")
    return name


def resolve_device(name: str, what: str = "device") -> torch.device:
    """The torch device of a ``device`` setting: ``auto`` is cuda when ``torch.cuda.is_available()``, else cpu;
    ``cuda`` without a usable GPU is a ``ValueError`` saying so (raised before any work)."""
    check_device_name(name, what)
    available = torch.cuda.is_available()
    if name == "auto":
        return torch.device("cuda" if available else "cpu")
    if name == "cuda" and not available:
        raise ValueError(
            f"{what}: cuda was asked for, but torch sees no CUDA GPU here (torch {torch.__version__}, "
            f"torch.cuda.is_available() is False); use {what}=cpu or {what}=auto"
        )
    return torch.device(name)


def on_cpu(value: object) -> object:
    """``value`` (tensors, and dicts, lists and tuples of them) with every tensor moved to the CPU: what is saved."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {key: on_cpu(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(item) for item in value)
    return value
