"""The policy network's forward pass compiled (numba): logits and value of one observation in one call, for the
compiled searches (``search_kernel.py``) and self-play's league snapshots (``seasons_training.snapshot_policy``).

``PolicyKernel`` holds the network with its card terms folded into the layers (``NumpyPolicy``'s folded weights, or a
torch ``FrozenPolicy``'s): the first trunk layer as one weight row per observation entry, the hidden layers, their
layer norms, the policy head and the value head, in float32. A row's products skip the zeros: an observation is about
7% non-zero and a trunk layer's ReLU cuts about half its outputs, so each row reads only the weight rows of its
non-zero inputs. The layer norms, the value's ``tanh`` and the softmax are computed in float64, the products in
float32 (as torch does): the logits and values equal ``NumpyPolicy``'s (float64 throughout) to float32 rounding
(``tests/test_policy_kernel.py``).

``net`` is the tuple every kernel here takes: ``(first, biases, hidden, gammas, betas, policy, policy_bias,
value_weight, value_bias, eps)``.

The kernels of this module and of ``search_kernel.py`` are cached in their own folder (``kernel_cache.py``), named by
the rules kernels' folder and a hash of the files they import: numba notices a change only in the file of the function
it compiles, not in a function it calls from another file.
"""

from __future__ import annotations

import numpy as np

from .kernel_cache import group_kernel
from .policy_format import LAYER_NORM_EPS
from .policy_numpy import NumpyPolicy

#: The kernel decorator of this module and ``search_kernel.py`` (``kernel_cache.py``).
kernel = group_kernel("search")


@kernel
def layer_norm_relu(h, gamma, beta, eps):
    """``relu(layer_norm(h))`` in place, the statistics in float64."""
    mean = 0.0
    for k in range(h.shape[0]):
        mean += h[k]
    mean /= h.shape[0]
    variance = 0.0
    for k in range(h.shape[0]):
        variance += (h[k] - mean) ** 2
    variance /= h.shape[0]
    scale = 1.0 / np.sqrt(variance + eps)
    for k in range(h.shape[0]):
        value = (h[k] - mean) * scale * gamma[k] + beta[k]
        h[k] = value if value > 0.0 else 0.0


@kernel
def add_product(x, weight, out):
    """``out += x @ weight`` over the non-zero entries of ``x`` (``weight``: one row an input)."""
    for j in range(weight.shape[0]):
        v = x[j]
        if v != 0.0:
            row = weight[j]
            for k in range(out.shape[0]):
                out[k] += v * row[k]


@kernel
def trunk_row(obs, net, h, g):
    """The trunk's last layer for one observation, into ``h`` (``g``: scratch of the same size)."""
    first, biases, hidden, gammas, betas, _, _, _, _, eps = net
    h[:] = biases[0]
    add_product(obs[: first.shape[0]], first, h)
    layer_norm_relu(h, gammas[0], betas[0], eps)
    for layer in range(hidden.shape[0]):
        g[:] = biases[layer + 1]
        add_product(h, hidden[layer], g)
        layer_norm_relu(g, gammas[layer + 1], betas[layer + 1], eps)
        h[:] = g


@kernel
def forward_row(obs, net, h, g, logits):
    """The policy logits of one observation into ``logits`` (float32 ``[actions]``); returns its value (float64,
    ``tanh`` of the value head)."""
    _, _, _, _, _, policy, policy_bias, value_weight, value_bias, _ = net
    trunk_row(obs, net, h, g)
    logits[:] = policy_bias
    add_product(h, policy, logits)
    total = value_bias
    for k in range(h.shape[0]):
        total += np.float64(h[k]) * value_weight[k]
    return np.tanh(total)


@kernel
def value_row(obs, net, h, g):
    """The value of one observation (the trunk and the value head only)."""
    _, _, _, _, _, _, _, value_weight, value_bias, _ = net
    trunk_row(obs, net, h, g)
    total = value_bias
    for k in range(h.shape[0]):
        total += np.float64(h[k]) * value_weight[k]
    return np.tanh(total)


@kernel
def forward_rows(observations, net, logits, values):
    """``forward_row`` of every row: logits ``[rows, actions]`` and values ``[rows]``."""
    width = net[0].shape[1]
    h = np.empty(width, dtype=np.float32)
    g = np.empty(width, dtype=np.float32)
    for r in range(observations.shape[0]):
        values[r] = forward_row(observations[r], net, h, g, logits[r])


@kernel
def probabilities_rows(observations, masks, net, out):
    """The masked softmax of each row's logits over its legal actions (float64; exactly 0 on illegal actions)."""
    width = net[0].shape[1]
    h = np.empty(width, dtype=np.float32)
    g = np.empty(width, dtype=np.float32)
    logits = np.empty(masks.shape[1], dtype=np.float32)
    for r in range(observations.shape[0]):
        forward_row(observations[r], net, h, g, logits)
        best = -np.inf
        for a in range(logits.shape[0]):
            if masks[r, a] and logits[a] > best:
                best = logits[a]
        total = 0.0
        for a in range(logits.shape[0]):
            p = np.exp(np.float64(logits[a]) - best) if masks[r, a] else 0.0
            out[r, a] = p
            total += p
        for a in range(logits.shape[0]):
            out[r, a] /= total


def _float32(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float32)


class PolicyKernel:
    """A network's folded weights as the compiled kernels take them (``net``; see the module). Build it with
    ``from_numpy`` (a ``NumpyPolicy``, no torch needed) or from the layers' arrays."""

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
        policy_weight: np.ndarray,
        policy_bias: np.ndarray,
        value_weight: np.ndarray,
        value_bias: float,
        observation_size: int,
        eps: float = LAYER_NORM_EPS,
    ) -> None:
        """``layers``: each trunk layer's (weight ``[inputs, hidden]``, bias, norm gain, norm shift); the policy head's
        weight ``[hidden, actions]`` and bias; the value head's weight ``[hidden]`` and bias."""
        if not layers:
            raise ValueError("policy kernel: the trunk needs at least one layer")
        first = _float32(layers[0][0])
        width = first.shape[1]
        if any(w.shape != (width, width) for w, _, _, _ in layers[1:]) or policy_weight.shape[0] != width:
            raise ValueError(f"policy kernel: every hidden layer and head must take {width} inputs")
        hidden = [_float32(w) for w, _, _, _ in layers[1:]]
        self.observation_size = int(observation_size)
        self.num_actions = int(policy_weight.shape[1])
        self.net = (
            first,
            np.stack([_float32(b) for _, b, _, _ in layers]),
            np.stack(hidden) if hidden else np.zeros((0, width, width), dtype=np.float32),
            np.stack([_float32(gain) for _, _, gain, _ in layers]),
            np.stack([_float32(shift) for _, _, _, shift in layers]),
            _float32(policy_weight),
            _float32(policy_bias),
            np.ascontiguousarray(value_weight, dtype=np.float64).reshape(width),
            float(value_bias),
            float(eps),
        )

    @classmethod
    def from_numpy(cls, policy: NumpyPolicy) -> PolicyKernel:
        """The kernels' copy of a ``NumpyPolicy`` (its folded float64 weights rounded to float32)."""
        return cls(
            list(policy.layers),
            policy.policy_weight,
            policy.policy_bias,
            policy.value_weight,
            policy.value_bias,
            policy.observation_size,
        )

    def _check(self, observations: np.ndarray) -> np.ndarray:
        if observations.ndim != 2 or observations.shape[1] < self.observation_size:
            raise ValueError(
                f"policy kernel: observations of at least {self.observation_size} values; got {observations.shape}"
            )
        return np.ascontiguousarray(observations, dtype=np.float32)

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``[rows, actions]`` (float32) and values ``[rows]`` (float64) of observations ``[rows, ≥ size]``."""
        observations = self._check(observations)
        logits = np.empty((observations.shape[0], self.num_actions), dtype=np.float32)
        values = np.empty(observations.shape[0], dtype=np.float64)
        forward_rows(observations, self.net, logits, values)
        return logits, values

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked policy ``[rows, actions]`` (float64, rows summing to 1) of float32 observations and boolean
        masks ``[rows, actions]``, each row with a legal action."""
        observations = self._check(observations)
        if masks.shape != (observations.shape[0], self.num_actions):
            raise ValueError(f"policy kernel: masks of {self.num_actions} actions a row; got {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("policy kernel: a row without a legal action")
        out = np.empty(masks.shape, dtype=np.float64)
        probabilities_rows(observations, np.ascontiguousarray(masks, dtype=np.bool_), self.net, out)
        return out
