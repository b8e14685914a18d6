"""The learned agents' network in numpy, and policy files read without torch: the learned agent plays where torch
is not installed (``pip install seasons-env``), with the actions the torch network gives.

**Reading a policy file.** A file written by ``torch.save`` is a zip archive: ``data.pkl``, a pickle of the
payload in which each tensor is a call to rebuild it from a storage, and one member per storage (``data/0``,
...) holding its raw little-endian values. ``read_policy_file`` unpickles ``data.pkl`` with an unpickler that
knows three names only (the tensor rebuild, a storage's element type, ``OrderedDict``) and maps them to numpy:
any other name in the file (code, a class) is refused before anything is built, as torch's ``weights_only``
loader does. The archive and its pickle pass ``policy_file.checked_archive`` first (both backends do this). Storages
are read from the archive with their sizes and every view's bounds checked: no tensor has more values than its storage,
and all of them together no more than the file's bytes (two stride-0 views of one value cannot ask for gigabytes).
Weights that are NaN or infinite are refused.

**The forward pass.** ``NumpyPolicy`` computes ``PolicyValueNet.forward`` in float64 with the card terms folded
into the layer weights (as ``FrozenPolicy`` does): the same logits as the torch network to float32 rounding (its
own error), so the greedy agent picks the same actions (``tests/test_learned_numpy.py``).
"""

from __future__ import annotations

import io
import math
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

from seasons_env.encoding import OBSERVATION_SIZES
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.engine.data import NUM_CARDS

from .policy_file import checked_archive
from .policy_format import (
    LAYER_NORM_EPS,
    ZONE_STARTS,
    CheckpointError,
    NetworkConfig,
    check_payload,
    pointer_places,
    shown,
    shown_text,
    unwrap_checkpoint,
)

#: The element types of the storages a policy file may hold (torch's storage class names).
STORAGE_TYPES = {
    "FloatStorage": np.dtype("<f4"),
    "DoubleStorage": np.dtype("<f8"),
    "HalfStorage": np.dtype("<f2"),
    "LongStorage": np.dtype("<i8"),
    "IntStorage": np.dtype("<i4"),
    "ShortStorage": np.dtype("<i2"),
    "CharStorage": np.dtype("i1"),
    "ByteStorage": np.dtype("u1"),
    "BoolStorage": np.dtype("?"),
}


class _StorageType:
    """The element type a storage is tagged with in the pickle (not callable: the pickle may only name it)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype


def _rebuild_tensor(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None) -> np.ndarray:
    """A tensor as torch's ``_rebuild_tensor_v2`` pickles it: a checked view of its storage (the unpickler copies it
    within its budget: ``_PolicyUnpickler._tensor``)."""
    if not isinstance(storage, np.ndarray) or storage.ndim != 1:
        raise pickle.UnpicklingError("a tensor's storage is not a storage")
    integers = (isinstance(offset, int), all(isinstance(n, int) for n in (*size, *stride)))
    if not all(integers) or not isinstance(size, tuple) or not isinstance(stride, tuple) or len(size) != len(stride):
        raise pickle.UnpicklingError("a tensor's shape or strides are not tuples of integers")
    if offset < 0 or any(n < 0 for n in size) or any(s < 0 for s in stride):
        raise pickle.UnpicklingError("a tensor's shape, strides or offset are negative")
    if hooks not in (None, OrderedDict()) or not isinstance(requires_grad, bool):
        raise pickle.UnpicklingError("a tensor carries hooks")
    if math.prod(size) > storage.size:  # checked before any allocation: stride-0 views could ask for anything
        raise pickle.UnpicklingError(f"a tensor has more values than its storage ({math.prod(size)} > {storage.size})")
    if 0 in size:
        return np.zeros(size, dtype=storage.dtype)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    if last >= storage.size:
        raise pickle.UnpicklingError("a tensor reaches past the end of its storage")
    strides = tuple(s * storage.itemsize for s in stride)
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size, strides=strides)


class _PolicyUnpickler(pickle.Unpickler):
    """Builds plain containers, numbers, strings and tensors (as numpy arrays), nothing else."""

    def __init__(self, data: bytes, archive: zipfile.ZipFile, folder: str, budget: int) -> None:
        super().__init__(io.BytesIO(data))
        self.archive = archive
        self.folder = folder
        self.storages: dict[str, np.ndarray] = {}
        #: the bytes the tensors built may still take: every value a tensor holds was read from the file
        self.budget = budget

    def _tensor(self, *arguments) -> np.ndarray:
        view = _rebuild_tensor(*arguments)
        self.budget -= view.nbytes
        if self.budget < 0:
            raise pickle.UnpicklingError("its tensors hold more values than the file's bytes")
        return view.copy()

    def find_class(self, module: str, name: str):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self._tensor
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if module == "torch" and name in STORAGE_TYPES:
            return _StorageType(STORAGE_TYPES[name])
        raise pickle.UnpicklingError(f"{module}.{name} is not something a policy file holds")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {shown(pid)}")
        _, kind, key, _location, count = pid
        if not isinstance(kind, _StorageType) or not isinstance(key, str) or not isinstance(count, int):
            raise pickle.UnpicklingError(f"malformed storage reference {shown(pid)}")
        if key not in self.storages:
            member = f"{self.folder}/data/{key}"
            try:
                info = self.archive.getinfo(member)
            except KeyError:
                raise pickle.UnpicklingError(f"storage {shown(key)} is missing from the archive") from None
            if count < 0 or info.file_size != count * kind.dtype.itemsize:
                raise pickle.UnpicklingError(f"storage {shown(key)} holds {info.file_size} bytes, not {count} values")
            self.storages[key] = np.frombuffer(self.archive.read(member), dtype=kind.dtype)
        storage = self.storages[key]
        if storage.dtype != kind.dtype:
            raise pickle.UnpicklingError(f"storage {shown(key)} is read as two element types")
        return storage


def read_policy_file(path: Path | str) -> object:
    """The payload of a file written by ``torch.save``, its tensors as numpy arrays, read without torch and
    without running anything from the file; ``CheckpointError`` naming the file if it cannot be read so."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such model file")
    try:
        archive, folder, data = checked_archive(path)
        with archive:
            return _PolicyUnpickler(data, archive, folder, path.stat().st_size).load()
    except Exception as error:  # a damaged or foreign file: say which, never run anything from it
        raise CheckpointError(
            f"{path}: cannot be read as a policy checkpoint ({type(error).__name__}: {shown_text(str(error))})"
        ) from None


class NumpyPolicy:
    """``PolicyValueNet``'s forward in numpy: ``policy(obs)`` gives logits ``[rows, 314]`` and values ``[rows]``
    for observations ``[rows, OBSERVATION_SIZE]`` (or a prefix as long as the network's layout)."""

    def __init__(self, config: NetworkConfig, observation_version: int, state: dict[str, np.ndarray]) -> None:
        self.config = config
        self.observation_version = observation_version
        self.observation_size = size = OBSERVATION_SIZES[observation_version]
        d, hidden, layers = config.card_dim, config.hidden, config.layers
        zones = len(ZONE_STARTS)
        shapes = {"cards": (NUM_CARDS, d), "policy.weight": (NUM_ACTIONS, hidden), "policy.bias": (NUM_ACTIONS,)}
        shapes |= {"pointer.weight": (4 * d, hidden), "pointer.bias": (4 * d,)}
        shapes |= {"value.weight": (1, hidden), "value.bias": (1,)}
        width = size + zones * d
        for layer in range(layers):
            shapes |= {f"trunk.{3 * layer}.weight": (hidden, width), f"trunk.{3 * layer}.bias": (hidden,)}
            shapes |= {f"trunk.{3 * layer + 1}.weight": (hidden,), f"trunk.{3 * layer + 1}.bias": (hidden,)}
            width = hidden
        if set(state) != set(shapes):
            missing = sorted(set(shapes) - set(state))
            unexpected = [shown(name) for name in state if name not in shapes]
            raise ValueError(f"weights do not fit the network: missing {missing[:5]}, unexpected {unexpected[:5]}")
        w = {}
        for name, shape in shapes.items():
            value = state[name]
            if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype.kind != "f":
                got = f"{value.dtype} {value.shape}" if isinstance(value, np.ndarray) else type(value).__name__
                raise ValueError(f"weights do not fit the network: {name} must be floats {shape}; got {got}")
            if not np.isfinite(value).all():
                raise ValueError(f"state_dict: {name} holds NaN or infinite values")
            w[name] = value.astype(np.float64)
        # The card terms folded into the layers they feed (PolicyValueNet.folded_weights): each zone's pooled
        # weights times the embeddings land on its count columns; each named action's row of the policy head gains
        # its group's query weights dotted with its card's embedding.
        first = w["trunk.0.weight"]
        weight = first[:, :size].copy()
        pooled = first[:, size:].reshape(hidden, zones, d)
        for z, start in enumerate(ZONE_STARTS):
            weight[:, start : start + NUM_CARDS] += pooled[:, z, :] @ w["cards"].T
        cards = np.vstack([np.zeros((1, d)), w["cards"]])  # card 0 is "no card"
        table = np.einsum("cd,gdh->gch", cards, w["pointer.weight"].reshape(4, d, hidden)).reshape(-1, hidden)
        table_bias = (w["pointer.bias"].reshape(4, d) @ cards.T).reshape(-1)
        named, places = pointer_places()
        self.policy_weight = w["policy.weight"].copy()
        self.policy_bias = w["policy.bias"].copy()
        np.add.at(self.policy_weight, named, table[places])
        np.add.at(self.policy_bias, named, table_bias[places])
        self.layers = []  # (weight transposed, bias, norm gain, norm shift) of each trunk layer
        for layer in range(layers):
            linear = weight if layer == 0 else w[f"trunk.{3 * layer}.weight"]
            norm = f"trunk.{3 * layer + 1}"
            bias = w[f"trunk.{3 * layer}.bias"]
            self.layers.append((np.ascontiguousarray(linear.T), bias, w[f"{norm}.weight"], w[f"{norm}.bias"]))
        self.policy_weight = np.ascontiguousarray(self.policy_weight.T)
        self.value_weight = w["value.weight"][0]
        self.value_bias = float(w["value.bias"][0])

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.asarray(obs, dtype=np.float64)[:, : self.observation_size]
        for weight, bias, gain, shift in self.layers:
            h = h @ weight + bias
            mean = h.mean(axis=1, keepdims=True)
            variance = ((h - mean) ** 2).mean(axis=1, keepdims=True)
            h = np.maximum((h - mean) / np.sqrt(variance + LAYER_NORM_EPS) * gain + shift, 0.0)
        logits = h @ self.policy_weight + self.policy_bias
        return logits, np.tanh(h @ self.value_weight + self.value_bias)


def load_numpy_policy(path: Path | str) -> tuple[NumpyPolicy, dict]:
    """The network of a policy file (or of a training checkpoint's policy) in numpy, and its ``info``."""
    payload = unwrap_checkpoint(read_policy_file(path))
    config, observation_version, state, info = check_payload(payload, str(path))
    try:
        return NumpyPolicy(config, observation_version, state), info
    except ValueError as error:
        raise CheckpointError(f"{path}: {error}") from None
