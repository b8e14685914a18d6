"""The masked actor-critic network of the RLlib route, in plain torch, and its exported form.

``MaskedActorCritic`` is what ``seasons_env.rllib.MaskedPPOModule`` trains: an actor MLP whose logits of
illegal actions are pushed to ``MASKED_LOGIT`` (probability 0 after the softmax) and a separate critic MLP.
It needs only torch, so a trained network plays (``agents.rllib_agent.RLlibPolicyAgent``) without Ray.

Exported form (``export_network`` / ``load_network``): a folder holding ``network.json`` (the format, the
sizes and the versions of the observation and action table the network was trained on) and
``weights.pt`` (the state dict, read back with ``torch.load(weights_only=True)``, which never unpickles
code). Both are written atomically; everything read back is checked before use.
"""

from __future__ import annotations

import io
import json
import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .encoding import OBSERVATION_VERSION
from .engine.actions import ACTION_TABLE_VERSION
from .files import write_atomic

EXPORT_FORMAT = "seasons-masked-mlp"
EXPORT_FORMAT_VERSION = 1
# exp(-1e9) is exactly 0 in float32, and the value stays finite (no inf - inf = nan in PPO's ratios)
MASKED_LOGIT = -1e9


def _mlp(size_in: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(size_in, size), nn.Tanh()]
        size_in = size
    return nn.Sequential(*layers)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the actions that ``mask`` marks 0 set to ``MASKED_LOGIT``.

    A row whose mask is all zeros (the observation of a finished game, which RLlib only reads for the value)
    is left as it is, so that no distribution is ever built over nothing.
    """
    legal = mask > 0
    legal = legal | ~legal.any(dim=-1, keepdim=True)
    return logits.masked_fill(~legal, MASKED_LOGIT)


class MaskedActorCritic(nn.Module):
    """Actor and critic MLPs over the flat observation vector (tanh hidden layers, as RLlib's default)."""

    def __init__(self, observation_size: int, num_actions: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        hidden = tuple(int(size) for size in hidden)
        if not hidden or any(size < 1 for size in hidden):
            raise ValueError(f"hidden must be one or more positive layer sizes; got {hidden!r}")
        self.observation_size = int(observation_size)
        self.num_actions = int(num_actions)
        self.hidden = hidden
        self.actor = _mlp(self.observation_size, hidden)
        self.policy_head = nn.Linear(hidden[-1], self.num_actions)
        self.critic = _mlp(self.observation_size, hidden)
        self.value_head = nn.Linear(hidden[-1], 1)

    def masked_logits(self, observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return mask_logits(self.policy_head(self.actor(observation)), mask)

    def value(self, observation: torch.Tensor) -> torch.Tensor:
        return self.value_head(self.critic(observation)).squeeze(-1)


def greedy_action(network: MaskedActorCritic, observation: np.ndarray, mask: np.ndarray) -> int:
    """The most probable legal action of ``network`` (what the arena agent and the evaluations play)."""
    with torch.no_grad():
        logits = network.masked_logits(torch.as_tensor(observation)[None], torch.as_tensor(mask)[None])
    return int(torch.argmax(logits[0]))


def network_versions() -> dict[str, int]:
    """The versions a trained network depends on: the observation layout and the action table."""
    return {"observation_version": OBSERVATION_VERSION, "action_table_version": ACTION_TABLE_VERSION}


def export_network(network: MaskedActorCritic, folder: str | Path, versions: dict[str, int] | None = None) -> Path:
    """Write ``network`` to ``folder`` (created if needed) in the exported form; returns the folder.

    ``versions`` defaults to this code's ``network_versions()`` (what the network was trained on)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save({key: value.detach().cpu() for key, value in network.state_dict().items()}, buffer)
    write_atomic(folder / "weights.pt", buffer.getvalue())
    description = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "observation_size": network.observation_size,
        "num_actions": network.num_actions,
        "hidden": list(network.hidden),
        "versions": dict(network_versions() if versions is None else versions),
    }
    write_atomic(folder / "network.json", (json.dumps(description, indent=2) + "\n").encode("utf-8"))
    return folder


def _positive_int(description: dict, key: str, where: Path) -> int:
    value = description.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: {key!r} must be a positive integer; got {value!r}")
    return value


def load_network(folder: str | Path, expected_versions: dict[str, int] | None = None) -> MaskedActorCritic:
    """The network exported to ``folder``, on CPU in eval mode; every field is checked (``ValueError``).

    The network must have been trained on ``expected_versions`` (default: this code's ``network_versions()``)."""
    folder = Path(folder)
    if expected_versions is None:
        expected_versions = network_versions()
    where = folder / "network.json"
    if not where.is_file():
        raise ValueError(f"{folder} is not an exported network: it has no network.json")
    try:
        description = json.loads(where.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{where} is not valid JSON: {error}") from error
    if not isinstance(description, dict) or description.get("format") != EXPORT_FORMAT:
        raise ValueError(f"{where}: 'format' must be {EXPORT_FORMAT!r}")
    if description.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValueError(
            f"{where}: 'format_version' is {description.get('format_version')!r}; this code reads "
            f"{EXPORT_FORMAT_VERSION}"
        )
    versions = description.get("versions")
    if versions != expected_versions:
        raise ValueError(
            f"{where}: the network was trained on versions {versions!r}; this code has {expected_versions!r} "
            "(its observations or action ids mean something else now)"
        )
    hidden = description.get("hidden")
    if not isinstance(hidden, list) or not hidden or not all(isinstance(h, int) and h > 0 for h in hidden):
        raise ValueError(f"{where}: 'hidden' must be a list of positive layer sizes; got {hidden!r}")
    network = MaskedActorCritic(
        _positive_int(description, "observation_size", where), _positive_int(description, "num_actions", where), hidden
    )
    try:
        weights = torch.load(folder / "weights.pt", map_location="cpu", weights_only=True)
        network.load_state_dict(weights)
    except (OSError, EOFError, pickle.UnpicklingError, RuntimeError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"{folder / 'weights.pt'} does not hold this network's weights: {error}") from error
    return network.eval()
