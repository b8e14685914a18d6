"""The masked actor-critic network of the RLlib route, in plain torch, and its exported form.

``MaskedActorCritic`` is what ``seasons_env.rllib.MaskedPPOModule`` trains: an actor MLP whose logits of
illegal actions are pushed to ``MASKED_LOGIT`` (probability 0 after the softmax) and a separate critic MLP.
It needs only torch, so a trained network plays (``seasons_agents.rllib_agent.RLlibPolicyAgent``) without Ray.

Exported form (``export_network`` / ``load_network``): a folder holding ``network.json`` (the format, the
sizes and the versions of the observation and action table the network was trained on) and
``weights.pt`` (the state dict, read back with ``torch.load(weights_only=True)``, which never unpickles
code). Both are written atomically; everything read back is checked before use: the sizes in ``network.json``
within ``MAX_LAYERS`` and ``MAX_WIDTH`` and against the stored weights' shapes before anything is built, and the
weights free of NaN and infinite values.
"""

from __future__ import annotations

import io
import json
import reprlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..encoders.encoding import (
    OBSERVATION_SIZES,
    OBSERVATION_VERSION,
    RELEASED_OBSERVATION_LAYOUTS,
    observation_layout_digest,
)
from ..engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS
from ..storage.files import write_atomic

EXPORT_FORMAT = "seasons-masked-mlp"
EXPORT_FORMAT_VERSION = 1
#: The most hidden layers, and the widest layer, an exported network may describe: far above anything trained here,
#: and low enough that a description read from a file cannot ask for gigabytes.
MAX_LAYERS = 64
MAX_WIDTH = 16384
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


def network_versions() -> dict[str, int | str]:
    """The versions a trained network depends on: the observation layout (its version and its digest,
    ``encoding.observation_layout_digest``) and the action table."""
    return {
        "observation_version": OBSERVATION_VERSION,
        "action_table_version": ACTION_TABLE_VERSION,
        "observation_layout": observation_layout_digest(OBSERVATION_VERSION),
    }


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


def _positive_int(description: dict, key: str, where: Path, limit: int) -> int:
    value = description.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
        raise ValueError(f"{where}: {key!r} must be an integer in 1..{limit}; got {reprlib.repr(value)}")
    return value


def weight_shapes(build: Callable[[], nn.Module]) -> dict[str, tuple]:
    """The shape of each weight of the module ``build()`` makes, found without allocating any (it is built on
    torch's ``meta`` device, which holds shapes only): what a file's description of a network asks for."""
    with torch.device("meta"):
        module = build()
    return {name: tuple(tensor.shape) for name, tensor in module.state_dict().items()}


def weights_problem(weights: object, shapes: dict[str, tuple], described_by: str) -> str | None:
    """What keeps ``weights`` (read from a file) from being the weights of a network of ``shapes``
    (``weight_shapes``), or None: not a dict of tensors, a missing or unexpected name, a tensor that is not dense
    floating point, another shape, more values than the storages hold (views that repeat a value), or a NaN or
    infinite value."""
    if not isinstance(weights, dict) or not all(isinstance(value, torch.Tensor) for value in weights.values()):
        return "not a dict of tensors"
    missing = [name for name in shapes if name not in weights]
    unexpected = [str(name)[:60] for name in weights if name not in shapes]  # a name from a file: cut short
    if missing or unexpected:
        return (
            f"they do not fit {described_by}: missing {', '.join(missing[:5]) or 'none'}; "
            f"unexpected {', '.join(unexpected[:5]) or 'none'}"
        )
    stored, storages = 0, {}
    for name, shape in shapes.items():
        tensor = weights[name]
        if tensor.layout != torch.strided or not tensor.is_floating_point():
            return f"{name} must be a dense floating-point tensor; got {tensor.dtype} ({tensor.layout})"
        if tuple(tensor.shape) != shape:
            return f"{name} has shape {tuple(tensor.shape)}; {described_by} needs {shape}"
        # every value a weight holds is read from the file: stride-0 views of a few bytes cannot ask for gigabytes
        storage = tensor.untyped_storage()
        stored += tensor.numel() * tensor.element_size()
        storages[storage.data_ptr()] = storage.nbytes()
        if tensor.numel() * tensor.element_size() > storage.nbytes() or stored > sum(storages.values()):
            return f"{name} holds more values than the file stores"
    for name in shapes:
        if not bool(torch.isfinite(weights[name]).all()):
            return f"{name} holds NaN or infinite values"
    return None


def load_network(folder: str | Path, expected_versions: dict[str, int] | None = None) -> MaskedActorCritic:
    """The network exported to ``folder``, on CPU in eval mode; every field is checked (``ValueError``).

    The network must have been trained on ``expected_versions`` (default: this code's ``network_versions()``).
    The description's sizes are checked against their limits and the stored weights' shapes (and the weights for
    NaN and infinite values) before the network is built."""
    folder = Path(folder)
    if expected_versions is None:
        expected_versions = network_versions()
    where = folder / "network.json"
    if not where.is_file():
        raise ValueError(f"{folder} is not an exported network: it has no network.json")
    try:
        description = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as error:
        raise ValueError(f"{where} is not valid JSON: {error}") from None
    if not isinstance(description, dict) or description.get("format") != EXPORT_FORMAT:
        raise ValueError(f"{where}: 'format' must be {EXPORT_FORMAT!r}")
    if description.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValueError(
            f"{where}: 'format_version' is {reprlib.repr(description.get('format_version'))}; this code reads "
            f"{EXPORT_FORMAT_VERSION}"
        )
    versions = description.get("versions")
    if isinstance(versions, dict) and "observation_layout" not in versions:
        # exported before networks recorded their layout: made for its observation version's layout as released
        released = versions.get("observation_version")
        if type(released) is int and released in RELEASED_OBSERVATION_LAYOUTS:
            versions = {**versions, "observation_layout": RELEASED_OBSERVATION_LAYOUTS[released]}
    if versions != expected_versions:
        raise ValueError(
            f"{where}: the network was trained on versions {reprlib.repr(versions)}; this code has "
            f"{expected_versions!r} (its observations or action ids mean something else now)"
        )
    hidden = description.get("hidden")
    if (
        not isinstance(hidden, list)
        or not 1 <= len(hidden) <= MAX_LAYERS
        or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in hidden)
    ):
        raise ValueError(
            f"{where}: 'hidden' must be a list of 1 to {MAX_LAYERS} layer sizes in 1..{MAX_WIDTH}; "
            f"got {reprlib.repr(hidden)}"
        )
    observation_size = _positive_int(description, "observation_size", where, max(OBSERVATION_SIZES.values()))
    num_actions = _positive_int(description, "num_actions", where, NUM_ACTIONS)
    # the versions say what the sizes are: a network of this code's versions reads their observation and actions
    if OBSERVATION_SIZES.get(versions.get("observation_version"), observation_size) != observation_size:
        raise ValueError(
            f"{where}: 'observation_size' is {observation_size}; observation version "
            f"{versions['observation_version']} has {OBSERVATION_SIZES[versions['observation_version']]}"
        )
    if versions.get("action_table_version") == ACTION_TABLE_VERSION and num_actions != NUM_ACTIONS:
        raise ValueError(f"{where}: 'num_actions' is {num_actions}; the action table has {NUM_ACTIONS}")
    path = folder / "weights.pt"
    try:
        weights = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a damaged or foreign file: say which, never run anything from it
        raise ValueError(f"{path} does not hold this network's weights: {type(error).__name__}: {error}") from None
    shapes = weight_shapes(lambda: MaskedActorCritic(observation_size, num_actions, hidden))
    problem = weights_problem(weights, shapes, "network.json")
    if problem:
        raise ValueError(f"{path} does not hold this network's weights: {problem}")
    network = MaskedActorCritic(observation_size, num_actions, hidden)
    network.load_state_dict(weights)
    return network.eval()
