"""A player driven by a trained policy-value network (``agents/network.py``), on the CPU.

``PolicyAgent()`` loads the newest model shipped with the package (``agents/models/``, ``SHIPPED_MODELS`` below);
``PolicyAgent(model=PATH)`` loads another one: a file written by ``seasons_agents.network.save_policy`` or a
training checkpoint of ``seasons train`` (its current policy). It encodes the seat's observation, masks every
illegal action and plays the most probable legal one (``greedy=True``, the default) or samples from the
masked policy at ``temperature`` with its own seeded generator. It never returns an illegal action.

The network runs on torch where torch is installed (the ``train`` extra), and otherwise in numpy
(``agents/policy_numpy.py``: the same actions; the file is read without torch and without running anything in
it); ``backend="torch"`` or ``"numpy"`` chooses.

Arena and environment names (registered in ``agents/registry.py``): ``"learned"`` is the newest shipped model,
``"learned:v1"`` (``learned:VERSION``) a given shipped model (``SHIPPED_MODELS``: older ones stay, so that
comparisons stay reproducible), ``"learned:PATH"`` the model at ``PATH``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from seasons_env import Game
from seasons_env.common.agent_specs import is_code_spec
from seasons_env.encoding import OBSERVATION_SIZE, encode_observation
from seasons_env.files import file_sha256

from .base import SeededAgent

#: The arena name of the shipped model, and the prefix of ``learned:PATH``.
LEARNED = "learned"
#: The arena name of the search over a shipped model, ``SEARCH_MODEL`` (``policy-ismcts[:ITERATIONS]``,
#: agents/policy_ismcts.py).
POLICY_SEARCH = "policy-ismcts"
#: The arena names of the searches over ``SEARCH_MODEL``: ``policy-ismcts`` and its Gumbel-root variant.
MODEL_SEARCHES = (POLICY_SEARCH, "policy-gumbel")
#: The models shipped with the package, oldest first: version -> its file in ``agents/models``. ``learned`` is the
#: newest (the last row), ``learned:VERSION`` any of them. A new model is its file there and one row here.
SHIPPED_MODELS: dict[str, str] = {
    "v1": "learned.pt",  # behaviour cloning, DAgger and self-play PPO (docs/results.md)
    "v2": "learned-v2.pt",  # v1 improved by expert iteration (docs/training.md#expert-iteration)
    "v3": "learned-v3.pt",  # v2 after 6 rounds with a deeper teacher (docs/training.md#how-learnedv3-was-made)
}
#: The shipped model ``policy-ismcts`` and ``policy-gumbel`` search over unless given another: chosen on its own,
#: not the newest by default, because a search's strength is measured apart from its network's (over v3 it
#: measured no stronger than over v2: docs/results.md#search-on-top-of-the-networks-2026-12-02-night) and the
#: benchmark's frozen panel (agents/bench.py) names this search by its model file.
SEARCH_MODEL = "v2"
#: What ``learned:ARGUMENT`` takes as a version rather than a file (``learned:./v2`` is the file ``v2``).
VERSION_PATTERN = re.compile(r"v[0-9]+")


def newest_version() -> str:
    """The version ``learned`` names: the last row of ``SHIPPED_MODELS``."""
    return list(SHIPPED_MODELS)[-1]


def shipped_model_path(version: str | None = None) -> Path:
    """Where shipped model ``version`` (the newest when None) lies; ``ValueError`` listing the versions for an
    unknown one."""
    version = newest_version() if version is None else version
    if version not in SHIPPED_MODELS:
        raise ValueError(
            f"no shipped model {version!r}; the shipped models are {', '.join(SHIPPED_MODELS)} "
            f"('learned' is the newest, {newest_version()})"
        )
    return Path(str(resources.files("seasons_agents") / "models" / SHIPPED_MODELS[version]))


def learned_model_path(argument: str | None) -> Path:
    """The model file of the spec ``learned[:ARGUMENT]``: the newest shipped model (no argument), a shipped version
    (``v1``: ``ValueError`` for an unknown one) or a file's path (``~`` expanded)."""
    if argument is None or VERSION_PATTERN.fullmatch(argument):
        return shipped_model_path(argument)
    return Path(argument).expanduser()


#: The forward passes of the network: torch's (the training dependency) and numpy's (agents/policy_numpy.py).
BACKENDS = ("torch", "numpy")


def default_backend() -> str:
    """``"torch"`` where torch can be imported, ``"numpy"`` otherwise."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return "numpy"
    return "torch"


@functools.lru_cache(maxsize=8)
def _cached_policy(path: str, modified: float, size: int, backend: str):  # keyed by the file's identity
    if backend == "numpy":
        from .policy_numpy import load_numpy_policy

        return load_numpy_policy(path)
    from .network import load_policy

    return load_policy(path)


def load_cached(path: Path | str, backend: str | None = None):
    """The network of a policy file and its ``info``, loaded once per process while the file is unchanged (arena
    games reuse it): a ``PolicyValueNet`` (``backend="torch"``) or a ``NumpyPolicy`` (``"numpy"``); by default
    torch's where torch imports."""
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
    path = Path(path).resolve()
    if not path.is_file():  # named before torch is imported to choose the backend: two seconds for a mistyped path
        from .policy_format import CheckpointError

        raise CheckpointError(f"{path}: no such model file")
    backend = backend or default_backend()
    stat = path.stat()
    return _cached_policy(str(path), stat.st_mtime, stat.st_size, backend)


@functools.lru_cache(maxsize=32)
def _digest(path: str, modified: float, size: int) -> str:
    return file_sha256(path)


def model_digests(names: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of the model file behind each learned agent name among ``names`` (``learned[:PATH]``, a bare model
    file, ``policy-ismcts[:ITERATIONS]`` and ``policy-gumbel[:ITERATIONS]``), and of the Python file of each
    ``file.py:Class`` agent; the arena keeps them in its records, so that games of another model or code under the same
    name are never counted together."""
    digests = {}
    for name in names:
        if name == LEARNED:
            path = shipped_model_path()
        elif name.partition(":")[0] in MODEL_SEARCHES:
            path = shipped_model_path(SEARCH_MODEL)
        elif name.startswith(LEARNED + ":"):
            try:
                path = learned_model_path(name[len(LEARNED) + 1 :])
            except ValueError:  # an unknown version: no file, no digest (the spec's check names it)
                continue
        elif name.lower().endswith(".pt"):  # a bare model file: learned:FILE
            path = Path(name).expanduser()
        elif is_code_spec(name) and name.rpartition(":")[0].endswith(".py"):  # an agent's code is the agent
            path = Path(name.rpartition(":")[0]).expanduser()
        else:
            continue
        path = path.resolve()
        if path.is_file():
            stat = path.stat()
            digests[name] = _digest(str(path), stat.st_mtime, stat.st_size)
    return digests


class PolicyAgent(SeededAgent):
    """Plays the masked policy of a trained network; ``value(view, seat)`` reads its value head."""

    name = LEARNED

    def __init__(
        self,
        seed: int | None = None,
        model: Path | str | None = None,
        greedy: bool = True,
        temperature: float = 1.0,
        threads: int | None = 1,
        name: str | None = None,
        backend: str | None = None,
    ) -> None:
        super().__init__(seed)
        backend = backend or default_backend()
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
        self.backend = backend
        if not temperature > 0:
            raise ValueError(f"temperature must be positive; got {temperature!r}")
        if backend == "torch":
            try:
                import torch
            except ImportError as error:
                raise ImportError(
                    f"the learned agent's torch backend needs torch, which could not be imported ({error}); "
                    "install it with: pip install 'seasons-env[train]', or leave the backend to the default (numpy "
                    "without torch)"
                ) from error
            if threads is not None:
                # one thread per process: several agents or arena workers share a 2-core machine
                torch.set_num_threads(threads)
        self.model_path = Path(model) if model is not None else shipped_model_path()
        self.net, self.info = load_cached(self.model_path, backend)
        self.greedy = greedy
        self.temperature = float(temperature)
        if name is not None:
            self.name = name
        self._obs = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)

    def __repr__(self) -> str:
        return f"PolicyAgent(model={str(self.model_path)!r}, greedy={self.greedy}, backend={self.backend!r})"

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The network's logits ``[rows, 314]`` and values ``[rows]`` for float32 observations ``[rows, size]``."""
        if self.backend == "numpy":
            return self.net(obs)
        import torch

        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(obs))
        return logits.numpy(), values.numpy()

    def _forward(self, view: Game, seat: int):
        encode_observation(view, seat, self._obs[0])
        logits, values = self.forward(self._obs)
        return logits[0], float(values[0])

    def policy(self, view: Game, seat: int, legal: Sequence[int]) -> tuple[np.ndarray, float]:
        """The masked policy's probabilities over ``legal`` (in that order) and the value of the position."""
        logits, value = self._forward(view, seat)
        chosen = logits[np.asarray(legal, dtype=np.int64)].astype(np.float64) / self.temperature
        chosen = np.exp(chosen - chosen.max())
        return chosen / chosen.sum(), value

    def value(self, view: Game, seat: int) -> float:
        """The network's value of the position for ``seat``: about tanh(expected final margin / 40)."""
        return self._forward(view, seat)[1]

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        legal = [int(a) for a in legal]
        if len(legal) == 1:
            return legal[0]
        if self.greedy:
            logits, _ = self._forward(view, seat)
            return legal[int(np.argmax(logits[legal]))]
        probabilities, _ = self.policy(view, seat, legal)
        return legal[int(self.rng.choice(len(legal), p=probabilities))]
