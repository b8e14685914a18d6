"""Property: a mutated model file, run folder or data set handed to its loader is either refused with an error naming
the file, or loads as an object that works; never a crash of another kind, and never more than a bounded amount of
memory and time (``tests/limits.py``: under 1 GiB of address space to spare, a minute at most per load).

Mutations reach every field of the files as saved (a key deleted, a value replaced by a hostile one: huge or negative
integers, NaN, strings, tensors of other shapes and dtypes, NaN or infinite weights, and in policy files values that
are shared exponentially or nested thousands deep) and the bytes of the files (bits flipped, the file cut short).
Crafted policy files (``tests/hostile_models.py``: a shared DAG, deep nesting, a huge memo index, stride-0 views, a
deflated gigabyte, a 5 MB ``format``, NaN weights) are refused by both backends within the same bounds, and a refusal
that is only the bounds tripping (a ``MemoryError``, ``TimeoutError`` or ``RecursionError`` turned into a message)
counts as a failure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from dataset_rows import synthetic_rows
from hostile_models import DAG_PICKLE, DEEP_PICKLE, KINDS, MARKER, MARKER_PICKLE, rewrite_pickle, write_hostile_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limits import bounded

from seasons_agents.network import CheckpointError, NetworkConfig, PolicyValueNet, load_policy, policy_payload
from seasons_agents.policy_numpy import load_numpy_policy
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.masked_mlp import MaskedActorCritic, export_network, load_network
from seasons_training.clone import CloneConfig, clone
from seasons_training.config import make_config
from seasons_training.data import load_dataset
from seasons_training.errors import BadFileError
from seasons_training.pipeline import TrainingRun
from seasons_training.ppo import CHECKPOINT, Trainer

torch.set_num_threads(1)

EXAMPLES = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # the same examples in every run: CI never meets a new one by chance
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

# ---------------------------------------------------------------------------- mutations

HOSTILE_INTS = st.sampled_from([0, -1, 2, 7, 10**6, 10**12, 2**63, 2**64, -(2**70)])
HOSTILE_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, 1e300, 0.5])


@st.composite
def hostile_tensors(draw) -> torch.Tensor:
    shape = draw(st.lists(st.integers(0, 6), max_size=3))
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool, torch.float16]))
    tensor = torch.zeros(shape, dtype=torch.float64).uniform_(-2, 2)
    if tensor.numel() and draw(st.booleans()):
        tensor.view(-1)[draw(st.integers(0, tensor.numel() - 1))] = draw(st.sampled_from([math.nan, math.inf]))
    return tensor.to(dtype)


HOSTILE = st.one_of(
    HOSTILE_INTS,
    HOSTILE_FLOATS,
    st.none(),
    st.booleans(),
    st.text(max_size=4),
    st.lists(HOSTILE_INTS, max_size=3),
    st.dictionaries(st.text(max_size=3), HOSTILE_INTS, max_size=2),
    hostile_tensors(),
)


def _poisoned(tensor: torch.Tensor, draw) -> torch.Tensor:
    """The same tensor with one value NaN or infinite, its dtype changed, or cut short."""
    kind = draw(st.sampled_from(["nan", "dtype", "shape"]))
    if kind == "nan" and tensor.is_floating_point() and tensor.numel():
        tensor = tensor.clone()
        tensor.view(-1)[draw(st.integers(0, tensor.numel() - 1))] = draw(st.sampled_from([math.nan, -math.inf]))
        return tensor
    if kind == "dtype":
        return tensor.to(draw(st.sampled_from([torch.int64, torch.float64, torch.bool, torch.uint8])))
    return tensor.reshape(-1)[: draw(st.integers(0, max(tensor.numel() - 1, 0)))]


def mutate(value: object, draw, depth: int = 0) -> object:
    """``value`` (nested dicts, lists and tensors, as a file holds them) with one thing in it changed."""
    if isinstance(value, dict) and value and depth < 6 and draw(st.integers(0, 4)):
        key = draw(st.sampled_from(sorted(value, key=str)))
        if not draw(st.integers(0, 5)):
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: mutate(value[key], draw, depth + 1)}
    if isinstance(value, list) and value and depth < 6 and draw(st.integers(0, 4)):
        index = draw(st.integers(0, len(value) - 1))
        return [*value[:index], mutate(value[index], draw, depth + 1), *value[index + 1 :]]
    if isinstance(value, torch.Tensor) and draw(st.booleans()):
        return _poisoned(value, draw)
    return draw(HOSTILE)


def mutate_bytes(content: bytes, draw) -> bytes:
    """``content`` cut short, or with a few bytes changed."""
    if draw(st.booleans()):
        return content[: draw(st.integers(0, len(content) - 1))]
    changed = bytearray(content)
    for _ in range(draw(st.integers(1, 4))):
        changed[draw(st.integers(0, len(changed) - 1))] = draw(st.integers(0, 255))
    return bytes(changed)


#: What a loader's message says when only the test's bounds stopped it (the error turned into a refusal).
TRIPPED = ("MemoryError", "TimeoutError", "RecursionError", "still running after")


def refused_or_working(load, path: Path, errors: tuple[type[Exception], ...], works) -> None:
    """``load()`` refuses with one of ``errors`` naming ``path`` in a short line (not because a bound tripped), or
    what it returns passes ``works``."""
    with bounded():
        try:
            loaded = load()
        except errors as error:
            message = str(error)
            assert str(path) in message, message[:1000]
            short = len(message) < 1000 and "\n" not in message
            assert short and not any(tripped in message for tripped in TRIPPED), message[:1000]
            return
        works(loaded)


# ---------------------------------------------------------------------------- model files


def _tiny_net() -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(NetworkConfig(card_dim=4, hidden=8, layers=1))


def _plays(loaded: tuple[PolicyValueNet, dict]) -> None:
    logits, value = loaded[0](torch.zeros(2, OBSERVATION_SIZE))
    if isinstance(logits, np.ndarray):  # the numpy backend's
        logits, value = torch.from_numpy(logits), torch.from_numpy(value)
    assert logits.shape == (2, NUM_ACTIONS) and torch.isfinite(logits).all() and torch.isfinite(value).all()


#: The model file loaders: the torch backend's and the numpy backend's.
POLICY_LOADERS = {"torch": load_policy, "numpy": load_numpy_policy}
#: Values a pickle holds in a few bytes that cost exponentially or recursively to print, compare or hash.
SHARED_OR_DEEP = st.sampled_from(["dag", "deep"])


def _save_with_shared_or_deep(payload: dict, path: Path, draw) -> None:
    """``payload`` with one field (``format``, ``config``, ``info`` or a weight's name) a 2**60-value DAG or 5,000-deep
    lists, written into the pickle as opcodes (the test itself could not even hash such a name)."""
    field = draw(st.sampled_from(["format", "config", "info", "weight name"]))
    if field == "weight name":
        payload = {**payload, "state_dict": {**payload["state_dict"], MARKER: torch.zeros(1)}}
    else:
        payload = {**payload, field: MARKER}
    torch.save(payload, path)
    rewrite_pickle(path, MARKER_PICKLE, DAG_PICKLE if draw(SHARED_OR_DEEP) == "dag" else DEEP_PICKLE)


@EXAMPLES
@given(data=st.data())
def test_a_mutated_policy_file_is_refused_or_plays(tmp_path_factory, data) -> None:
    path = tmp_path_factory.mktemp("model") / "policy.pt"
    payload = policy_payload(_tiny_net(), {"note": "x"})
    kind = data.draw(st.sampled_from(["size", "field", "bytes", "shared or deep"]))
    if kind == "size":  # the configuration's sizes: what a loader that trusts them allocates
        field = data.draw(st.sampled_from(sorted(payload["config"])))
        torch.save({**payload, "config": {**payload["config"], field: data.draw(HOSTILE_INTS)}}, path)
    elif kind == "field":
        torch.save(mutate(payload, data.draw), path)
    elif kind == "shared or deep":
        _save_with_shared_or_deep(payload, path, data.draw)
    else:
        torch.save(payload, path)
        path.write_bytes(mutate_bytes(path.read_bytes(), data.draw))
    for load in POLICY_LOADERS.values():
        refused_or_working(lambda load=load: load(path), path, (CheckpointError,), _plays)


#: What each crafted file's refusal names.
CRAFTED_FAULTS = {
    "dag": "more than 4,194,304 values",
    "dag_format": "more than 4,194,304 values",
    "deep": "nests more than 100 deep",
    "deep_format": "nests more than 100 deep",
    "memo": "memo index 134217728 out of sequence",
    "stride0": "more values than",
    "deflate": "is compressed",
    "long_format": "format is 'xxx",
    "nan": "value.bias holds NaN or infinite values",
}


@pytest.fixture(scope="module")
def crafted_models(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("crafted")
    return {kind: write_hostile_model(kind, folder / f"{kind}.pt") for kind in KINDS}


@pytest.mark.parametrize("backend", sorted(POLICY_LOADERS))
@pytest.mark.parametrize("kind", KINDS)
def test_a_crafted_policy_file_is_refused_in_a_line_within_the_bounds(crafted_models, kind: str, backend: str) -> None:
    path = crafted_models[kind]

    def plays(loaded) -> None:
        raise AssertionError(f"the crafted {kind} file loaded")

    refused_or_working(lambda: POLICY_LOADERS[backend](path), path, (CheckpointError,), plays)
    with pytest.raises(CheckpointError) as refusal:
        POLICY_LOADERS[backend](path)
    assert CRAFTED_FAULTS[kind] in str(refusal.value) and len(str(refusal.value)) < 300, str(refusal.value)[:1000]


def _rllib_plays(network: MaskedActorCritic) -> None:
    logits = network.masked_logits(torch.zeros(1, OBSERVATION_SIZE), torch.ones(1, NUM_ACTIONS))
    assert logits.shape == (1, NUM_ACTIONS) and torch.isfinite(logits).all()


@EXAMPLES
@given(data=st.data())
def test_a_mutated_exported_network_is_refused_or_plays(tmp_path_factory, data) -> None:
    folder = export_network(MaskedActorCritic(OBSERVATION_SIZE, NUM_ACTIONS, (8, 4)), tmp_path_factory.mktemp("rl"))
    target = data.draw(st.sampled_from(["size", "network.json", "weights.pt", "bytes"]))
    if target == "size":  # the description's sizes: what a loader that trusts them allocates
        description = json.loads((folder / "network.json").read_text())
        field = data.draw(st.sampled_from(["observation_size", "num_actions", "hidden"]))
        size = data.draw(st.lists(HOSTILE_INTS, min_size=1, max_size=3) if field == "hidden" else HOSTILE_INTS)
        (folder / "network.json").write_text(json.dumps({**description, field: size}))
    elif target == "network.json":
        description = json.loads((folder / "network.json").read_text())
        (folder / "network.json").write_text(json.dumps(mutate(description, data.draw), default=str))
    elif target == "weights.pt":
        torch.save(mutate(torch.load(folder / "weights.pt", weights_only=True), data.draw), folder / "weights.pt")
    else:
        name = data.draw(st.sampled_from(["network.json", "weights.pt"]))
        (folder / name).write_bytes(mutate_bytes((folder / name).read_bytes(), data.draw))
    refused_or_working(lambda: load_network(folder), folder, (ValueError,), _rllib_plays)


# ---------------------------------------------------------------------------- run folders


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory) -> Path:
    """A run folder: its PPO checkpoint with its games in progress, config.json and stages.json."""
    folder = tmp_path_factory.mktemp("run")
    config = make_config("smoke", ["init=", "eval_games=0", "envs=2", "rollout=4"])
    trainer = Trainer(folder, config, log=lambda _: None)
    trainer.save()
    (folder / "config.json").write_text(json.dumps(config.to_dict()))
    stages = {"format": "seasons-train-stages", "version": 1, "stages": {}}
    (folder / "stages.json").write_text(json.dumps(stages))
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def _resumes(run: TrainingRun) -> None:
    trainer = run.trainer
    _plays((trainer.net, {}))
    weights = trainer.league.weights()
    assert np.isfinite(weights).all() and abs(weights.sum() - 1) < 1e-9
    observations, mask = trainer.vec.observe()
    assert np.isfinite(observations).all() and mask.any(axis=1).all()
    trainer.checkpoint_state()


@EXAMPLES
@given(data=st.data())
def test_a_mutated_run_folder_is_refused_or_resumes(tmp_path_factory, saved_run, data) -> None:
    folder = tmp_path_factory.mktemp("resume")
    for name, content in _files(saved_run).items():
        (folder / name).write_bytes(content)
    target = data.draw(st.sampled_from([CHECKPOINT, CHECKPOINT, "stages.json", "bytes"]))
    if target == CHECKPOINT:
        torch.save(mutate(torch.load(folder / CHECKPOINT, weights_only=True), data.draw), folder / CHECKPOINT)
    elif target == "stages.json":
        stages = json.loads((folder / "stages.json").read_text())
        (folder / "stages.json").write_text(json.dumps(mutate(stages, data.draw), default=str))
    else:
        name = data.draw(st.sampled_from([CHECKPOINT, "stages.json"]))
        (folder / name).write_bytes(mutate_bytes((folder / name).read_bytes(), data.draw))
    before = _files(folder)

    def resume() -> TrainingRun:
        return TrainingRun.resume(folder, log=lambda _: None)

    refused_or_working(resume, folder, (BadFileError, CheckpointError), _resumes)
    assert _files(folder) == before  # nothing written either way


@EXAMPLES
@given(data=st.data())
def test_a_mutated_run_configuration_is_refused_or_resumes(tmp_path_factory, saved_run, data) -> None:
    """A run folder stopped before PPO (no checkpoint): its config.json and stages.json."""
    folder = tmp_path_factory.mktemp("config")
    saved = {name: (saved_run / name).read_bytes() for name in ("config.json", "stages.json")}
    for name, content in saved.items():
        (folder / name).write_bytes(content)
    name = data.draw(st.sampled_from(sorted(saved)))
    if data.draw(st.booleans()):
        (folder / name).write_text(json.dumps(mutate(json.loads(saved[name]), data.draw), default=str))
    else:
        (folder / name).write_bytes(mutate_bytes(saved[name], data.draw))

    def configured(run: TrainingRun) -> None:
        assert run.trainer is None and run.config.steps >= 1

    refused_or_working(lambda: TrainingRun.resume(folder, log=lambda _: None), folder, (BadFileError,), configured)


# ---------------------------------------------------------------------------- data sets


def _hostile_array(value: np.ndarray, draw) -> object:
    kind = draw(st.sampled_from(["dtype", "shape", "value", "scalar", "delete"]))
    if kind == "delete":
        return None
    if kind == "dtype":
        return value.astype(draw(st.sampled_from([np.float64, np.float16, np.int64, np.uint8, np.bool_, np.int8])))
    if kind == "shape":
        return value.reshape(-1)[: draw(st.integers(0, value.size))]
    if kind == "scalar":
        return np.asarray(draw(st.one_of(HOSTILE_INTS.filter(lambda n: abs(n) < 2**63), HOSTILE_FLOATS)))
    changed = value.copy()
    flat = changed.reshape(-1)
    hostile = {"f": [np.nan, np.inf, -1e30], "b": [False], "i": [-7, 2**7 - 1, 0], "u": [0, 255]}[value.dtype.kind]
    flat[draw(st.integers(0, flat.size - 1))] = draw(st.sampled_from(hostile))
    return changed


def _trains(data: dict[str, np.ndarray], folder: Path) -> None:
    config = CloneConfig(epochs=1, batch_size=16, threads=1, network=NetworkConfig(card_dim=2, hidden=4, layers=1))
    clone([_data_path(folder)], folder / "m.pt", config, log=lambda _: None)
    _plays(load_policy(folder / "m.pt"))


def _data_path(folder: Path) -> Path:
    return folder / "d.npz"


@EXAMPLES
@given(data=st.data())
def test_a_mutated_data_set_is_refused_or_trains(tmp_path_factory, data) -> None:
    folder = tmp_path_factory.mktemp("data")
    path = _data_path(folder)
    arrays = synthetic_rows(24, rows_per_game=4)
    if data.draw(st.booleans()):
        name = data.draw(st.sampled_from(sorted(arrays)))
        replaced = _hostile_array(arrays[name], data.draw)
        arrays = {k: v for k, v in arrays.items() if k != name}
        if replaced is not None:
            arrays[name] = replaced
        with open(path, "wb") as sink:
            np.savez_compressed(sink, **arrays)
    else:
        with open(path, "wb") as sink:
            np.savez(sink, **arrays)  # uncompressed: changed bytes reach the arrays' headers and values
        path.write_bytes(mutate_bytes(path.read_bytes(), data.draw))
    refused_or_working(lambda: load_dataset(path), path, (BadFileError,), lambda loaded: _trains(loaded, folder))
