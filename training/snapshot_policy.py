"""League snapshots' masked policies compiled for the few rows they answer at a time in self-play.

Between two learner decisions, self-play answers each snapshot's waiting games in rounds, a handful of rows a
call (about 2.5 on average with 128 games and a league of 8 snapshots). At that size torch's cost is its fixed
cost: a dozen operations of tens of microseconds each on this machine, and small matrix products that read the whole
weight matrix for every call (about 0.4-0.8 ms a call, a third of a league run's time). ``SnapshotPolicy`` computes
the same probabilities in one compiled call that skips the zeros: an observation is about 7% non-zero and half of
a trunk layer's outputs are cut by its ReLU, so each row reads only the weight rows of its non-zero inputs.

The probabilities are those of ``seasons_agents.network.FrozenPolicy`` (the network with its card terms folded),
softmaxed over the legal actions, to float rounding: the layer norms and the softmax are computed in float64 here, the
products in float32 as torch does. Illegal actions get probability exactly 0.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from seasons_agents.network import FrozenPolicy, PolicyValueNet
from seasons_env.vector.kernels import kernel


@kernel
def _layer_norm_relu(h: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> None:
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
def _add_product(x: np.ndarray, weight: np.ndarray, out: np.ndarray) -> None:
    """``out += x @ weight`` over the non-zero entries of ``x`` (``weight``: one row an input)."""
    for j in range(weight.shape[0]):
        v = x[j]
        if v != 0.0:
            row = weight[j]
            for k in range(out.shape[0]):
                out[k] += v * row[k]


@kernel
def _probabilities(observations, masks, first, biases, hidden, gammas, betas, eps, policy, policy_bias, out):
    hidden_size = first.shape[1]
    h = np.empty(hidden_size, dtype=np.float32)
    g = np.empty(hidden_size, dtype=np.float32)
    logits = np.empty(policy.shape[1], dtype=np.float32)
    for r in range(observations.shape[0]):
        h[:] = biases[0]
        _add_product(observations[r, : first.shape[0]], first, h)
        _layer_norm_relu(h, gammas[0], betas[0], eps)
        for layer in range(hidden.shape[0]):
            g[:] = biases[layer + 1]
            _add_product(h, hidden[layer], g)
            _layer_norm_relu(g, gammas[layer + 1], betas[layer + 1], eps)
            h[:] = g
        logits[:] = policy_bias
        _add_product(h, policy, logits)
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


class SnapshotPolicy:
    """A frozen network's masked policy: ``probabilities(observations, masks)`` for a batch of rows (see the
    module's notes). Built from a ``PolicyValueNet`` or a ``FrozenPolicy``; a copy, so later changes to the network
    do not reach it."""

    def __init__(self, net: PolicyValueNet | FrozenPolicy) -> None:
        frozen = net if isinstance(net, FrozenPolicy) else FrozenPolicy(net)
        linears = [m for m in frozen.trunk if isinstance(m, nn.Linear)]
        norms = [m for m in frozen.trunk if isinstance(m, nn.LayerNorm)]
        if len(linears) != len(norms) or not linears or len({m.eps for m in norms}) != 1:
            raise ValueError("snapshot policy: the trunk must be (Linear, LayerNorm, ReLU) layers with one eps")

        def array(tensor: torch.Tensor) -> np.ndarray:
            return np.ascontiguousarray(tensor.detach().cpu().numpy(), dtype=np.float32)  # any device

        self.observation_size = frozen.observation_size
        self._first = array(linears[0].weight.T)  # [observation, hidden]: one row an input
        hidden = [array(m.weight.T) for m in linears[1:]]
        width = self._first.shape[1]
        self._hidden = np.stack(hidden) if hidden else np.zeros((0, width, width), dtype=np.float32)
        self._biases = np.stack([array(m.bias) for m in linears])
        self._gammas = np.stack([array(m.weight) for m in norms])
        self._betas = np.stack([array(m.bias) for m in norms])
        self._eps = float(norms[0].eps)
        self._policy = array(frozen.policy.weight.T)
        self._policy_bias = array(frozen.policy.bias)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked policy ``[rows, actions]`` (float64, rows summing to 1) of float32 observations
        ``[rows, ≥ observation_size]`` and boolean masks ``[rows, actions]``, each row with a legal action."""
        if observations.shape[1] < self.observation_size or masks.shape[1] != self._policy.shape[1]:
            raise ValueError(
                f"snapshot policy: observations of at least {self.observation_size} values and masks of "
                f"{self._policy.shape[1]} actions; got {observations.shape} and {masks.shape}"
            )
        if not masks.any(axis=1).all():
            raise ValueError("snapshot policy: a row without a legal action")
        out = np.empty(masks.shape, dtype=np.float64)
        _probabilities(
            np.ascontiguousarray(observations, dtype=np.float32),
            np.ascontiguousarray(masks, dtype=np.bool_),
            self._first,
            self._biases,
            self._hidden,
            self._gammas,
            self._betas,
            self._eps,
            self._policy,
            self._policy_bias,
            out,
        )
        return out


def _compile_snapshot_policy() -> None:
    """The compiled policy on one observation of a new game (what self-play's league opponents call)."""
    from seasons_env.vector import VectorGame

    vector = VectorGame(1, num_players=2, seed=0, engine="kernels")
    SnapshotPolicy(PolicyValueNet()).probabilities(vector.observations(), vector.legal_mask())


def compile_steps() -> list:
    """This package's step of ``seasons compile`` (the ``seasons_env.compile`` entry point)."""
    from seasons_env.compiling import CompileStep

    summary = "the league snapshots' compiled policy (seasons train)"
    return [CompileStep("snapshot-policy", summary, _compile_snapshot_policy)]
