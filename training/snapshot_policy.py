"""League snapshots' masked policies compiled for the few rows they answer at a time in self-play.

Between two learner decisions, self-play answers each snapshot's waiting games in rounds, a handful of rows a
call (about 2.5 on average with 128 games and a league of 8 snapshots). At that size torch's cost is its fixed
cost: a dozen operations of tens of microseconds each on this machine, and small matrix products that read the whole
weight matrix for every call (about 0.4-0.8 ms a call, a third of a league run's time). ``SnapshotPolicy`` computes
the same probabilities in one compiled call that skips the zeros: an observation is about 7% non-zero and half of
a trunk layer's outputs are cut by its ReLU, so each row reads only the weight rows of its non-zero inputs.

The probabilities are those of ``seasons_agents.network.FrozenPolicy`` (the network with its card terms folded),
softmaxed over the legal actions, to float rounding: the layer norms and the softmax are computed in float64 here, the
products in float32 as torch does. Illegal actions get probability exactly 0. The kernels are the agents' compiled
forward pass (``seasons_agents.policy_kernel``), built here from the torch network's folded layers.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from seasons_agents.network import FrozenPolicy, PolicyValueNet
from seasons_agents.policy_kernel import PolicyKernel


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
            return tensor.detach().cpu().numpy().astype(np.float32)  # any device; a copy

        layers = [
            (array(linear.weight.T), array(linear.bias), array(norm.weight), array(norm.bias))
            for linear, norm in zip(linears, norms, strict=True)
        ]
        self.observation_size = frozen.observation_size
        self._kernel = PolicyKernel(
            layers,
            array(frozen.policy.weight.T),
            array(frozen.policy.bias),
            array(frozen.value.weight[0]),
            float(frozen.value.bias[0]),
            frozen.observation_size,
            float(norms[0].eps),
        )

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked policy ``[rows, actions]`` (float64, rows summing to 1) of float32 observations
        ``[rows, ≥ observation_size]`` and boolean masks ``[rows, actions]``, each row with a legal action."""
        try:
            return self._kernel.probabilities(observations, masks)
        except ValueError as error:
            raise ValueError(f"snapshot policy: {str(error).removeprefix('policy kernel: ')}") from None
