"""The policy-value network of the learned agents, built on the observation's named slices (torch, CPU).

* **Cards.** One embedding per card (``card_dim`` values) is shared by every zone of the observation that
  counts cards (hand, libraries, in play, tapped, draft pack, draft seen, Crystal Orb, the decision's
  offered cards, and each opponent's cards in play and tapped): a zone is the sum of the embeddings of the
  cards in it (counts times embeddings), so what the network learns about a card in one zone carries to the
  others. The pooled zones are joined to the flat observation (which keeps the exact counts and every
  scalar) and go through an MLP trunk (``hidden`` wide, ``layers`` deep, LayerNorm and ReLU).
* **Policy.** Logits over the 314 actions of the action table: a linear head, plus for the actions that
  name a card (summon, activate, choose a card, choose a card in play) a pointer term, the trunk's query
  for that action group dotted with the card's embedding. Illegal actions are masked to -inf before any
  softmax, so a masked policy never picks one.
* **Value.** ``tanh`` of a linear head: the seat's expected final margin (its score minus the best other
  score) divided by ``VALUE_SCALE``, squashed (``margin_target``).

Checkpoints (``save_policy``/``load_policy``) hold the configuration, the weights, the versions of the observation
layout and action table they were trained on and the digest of that observation layout; a file's archive and pickle
pass ``policy_file.checked_archive`` (bounded sizes, memo and nesting) and are then read with
``torch.load(weights_only=True)`` (no code in a file is ever run) and checked field by field: the layout digest
against this code's, the configuration within ``NETWORK_LIMITS`` and against the stored weights' shapes before
anything is built, and the weights free of NaN and infinite values.
"""

from __future__ import annotations

import copy
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seasons_env.encoding import OBSERVATION_SIZES, OBSERVATION_VERSION, observation_layout_digest
from seasons_env.engine import actions as A
from seasons_env.engine.data import NUM_CARDS
from seasons_env.files import replace_atomically
from seasons_env.masked_mlp import weight_shapes, weights_problem

from .policy_file import checked_archive

# The checkpoint format and the network's reading of the observation live where the numpy forward reads them too;
# their names stay importable from here.
from .policy_format import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    VALUE_SCALE,
    ZONE_STARTS,
    CheckpointError,
    NetworkConfig,
    check_payload,
    pointer_places,
    shown_text,
    unwrap_checkpoint,
)

#: The logit of an illegal action.
MASKED = -1e9


class PolicyValueNet(nn.Module):
    """Masked policy logits and a value from a batch of observations (``[batch, OBSERVATION_SIZE]``).

    ``observation_version`` is the layout the network reads (the current one by default). Layouts only grow by
    appended slices (``encoding.OBSERVATION_SIZES``), so a network trained on an earlier version reads the first
    ``OBSERVATION_SIZES[version]`` values of today's observation and plays on unchanged."""

    def __init__(self, config: NetworkConfig | None = None, observation_version: int = OBSERVATION_VERSION) -> None:
        super().__init__()
        if observation_version not in OBSERVATION_SIZES:
            raise ValueError(
                f"observation_version must be one of {sorted(OBSERVATION_SIZES)}; got {observation_version!r}"
            )
        self.observation_version = observation_version
        self.observation_size = OBSERVATION_SIZES[observation_version]
        self.config = config = config or NetworkConfig()
        d = config.card_dim
        # in place: on torch's meta device (weight_shapes) an out-of-place product with a number imports
        # torch._dynamo, about 1.5 s of every process that loads a model; the values are the same
        self.cards = nn.Parameter(torch.randn(NUM_CARDS, d).mul_(0.1))
        zones = len(ZONE_STARTS)
        index = torch.tensor([[s + k for k in range(NUM_CARDS)] for s in ZONE_STARTS], dtype=torch.long)
        self.register_buffer("zone_index", index, persistent=False)  # [zones, 50]
        trunk: list[nn.Module] = []
        width = self.observation_size + zones * d
        for _ in range(config.layers):
            trunk += [nn.Linear(width, config.hidden), nn.LayerNorm(config.hidden), nn.ReLU()]
            width = config.hidden
        self.trunk = nn.Sequential(*trunk)
        self.policy = nn.Linear(config.hidden, A.NUM_ACTIONS)
        self.pointer = nn.Linear(config.hidden, 4 * d)
        named, places = pointer_places()  # the actions that name a card, and where their term sits in the table
        self.register_buffer("pointer_actions", torch.from_numpy(named), persistent=False)
        self.register_buffer("pointer_index", torch.from_numpy(places), persistent=False)
        self.value = nn.Linear(config.hidden, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked logits ``[batch, 314]`` and values ``[batch]`` in (-1, 1)."""
        batch = obs.shape[0]
        d = self.config.card_dim
        h = self.trunk(self.trunk_input(obs))
        logits = self.policy(h)
        queries = self.pointer(h).reshape(batch, 4, d)
        # table[b, g, c] = query of group g . embedding of card c (c = 0 is "no card": zero)
        cards = torch.cat([self.cards.new_zeros(1, d), self.cards], dim=0)
        table = torch.einsum("bgd,cd->bgc", queries, cards)
        pointer = table.reshape(batch, -1).index_select(1, self.pointer_index)
        logits = logits.index_add(1, self.pointer_actions, pointer)
        return logits, torch.tanh(self.value(h)).squeeze(1)

    def trunk_input(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's input ``[batch, observation_size + zones * card_dim]``: the observation (a network of an
        earlier layout reads its prefix) and its card zones pooled by the embeddings."""
        obs = obs[:, : self.observation_size]
        pooled = torch.matmul(obs[:, self.zone_index], self.cards)  # [batch, zones, d]
        return torch.cat([obs, pooled.reshape(obs.shape[0], -1)], dim=1)

    def folded_weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The card terms folded into the layers they feed (differentiable): the first trunk layer's weight on
        the observation ``[hidden, observation_size]`` and the policy head's weight and bias.

        Both card terms are linear. The pooled zones (counts times embeddings) fold into the first layer's
        weights on the counts' columns; the pointer terms (the query of the action's group dotted with its
        card's embedding) fold into the policy head's rows of the actions that name a card."""
        d = self.config.card_dim
        size = self.observation_size
        first = self.trunk[0]
        hidden = first.weight.shape[0]
        # pooled[z*d + k] = sum_c obs[start_z + c] * cards[c, k]: zone z's columns gain its pooled weights times
        # the embeddings (the zones' columns do not overlap)
        pooled_weight = first.weight[:, size:].reshape(hidden, len(ZONE_STARTS), d).transpose(0, 1)  # [Z, H, d]
        per_zone = torch.matmul(pooled_weight, self.cards.T)  # [Z, H, 50]
        columns = per_zone.transpose(0, 1).reshape(hidden, -1)  # [H, Z * 50], in zone_index's order
        weight = first.weight[:, :size].index_add(1, self.zone_index.reshape(-1), columns)
        # logits[a] += (Wq[g] h + bq[g]) . cards[c] for each action a naming card c in pointer group g: one table
        # of every group and card (card 0 is "no card": zero), read at the named actions' places
        cards = torch.cat([self.cards.new_zeros(1, d), self.cards], dim=0)  # [51, d]
        table = torch.matmul(cards, self.pointer.weight.reshape(4, d, -1))  # [4, 51, H]
        table_bias = torch.matmul(self.pointer.bias.reshape(4, d), cards.T)  # [4, 51]
        named = self.pointer_actions
        policy_weight = self.policy.weight.index_add(0, named, table.reshape(-1, hidden)[self.pointer_index])
        policy_bias = self.policy.bias.index_add(0, named, table_bias.reshape(-1)[self.pointer_index])
        return weight, policy_weight, policy_bias

    def forward_folded(self, obs: torch.Tensor, features: bool = False) -> tuple[torch.Tensor, ...]:
        """``forward`` computed through ``folded_weights``: the same logits and values up to float rounding,
        differentiable, and cheaper on large batches (folding costs the same whatever the batch; the gather, the
        pooling product and the pointer table it replaces grow with it). Training's updates use it. With
        ``features``, also the trunk's output ``[batch, hidden]`` (what an auxiliary head in training reads)."""
        weight, policy_weight, policy_bias = self.folded_weights()
        h = F.linear(obs[:, : self.observation_size], weight, self.trunk[0].bias)
        for module in list(self.trunk)[1:]:
            h = module(h)
        logits, value = F.linear(h, policy_weight, policy_bias), torch.tanh(self.value(h)).squeeze(1)
        return (logits, value, h) if features else (logits, value)


class FrozenPolicy(nn.Module):
    """A ``PolicyValueNet``'s forward folded into plain layers, for a network that no longer changes (a league
    snapshot): the same logits and values up to float rounding (the shipped model's logits within 2e-5 on real
    positions), in fewer and larger operations.

    The card terms are folded once (``PolicyValueNet.folded_weights``): the gather, the batched matrix product and
    the einsum the full network runs per call are gone, which is most of a forward pass on the few rows a snapshot
    answers at a time in self-play."""

    def __init__(self, net: PolicyValueNet) -> None:
        super().__init__()
        self.observation_size = net.observation_size
        with torch.no_grad():
            weight, policy_weight, policy_bias = net.folded_weights()
            layers: list[nn.Module] = [_linear(weight, net.trunk[0].bias)]
            layers += [copy.deepcopy(module) for module in list(net.trunk)[1:]]
            self.trunk = nn.Sequential(*layers)
            self.policy = _linear(policy_weight, policy_bias)
            self.value = copy.deepcopy(net.value)
        self.eval()
        self.requires_grad_(False)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked logits ``[batch, 314]`` and values ``[batch]``, as the network folded would give them."""
        h = self.trunk(obs[:, : self.observation_size])
        return self.policy(h), torch.tanh(self.value(h)).squeeze(1)


def _linear(weight: torch.Tensor, bias: torch.Tensor) -> nn.Linear:
    """A linear layer holding ``weight`` and ``bias`` (not initialised first: torch's generator is left alone)."""
    layer = torch.nn.utils.skip_init(nn.Linear, weight.shape[1], weight.shape[0], device=weight.device)
    layer.weight.data.copy_(weight)
    layer.bias.data.copy_(bias)
    return layer


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (``mask`` false) at -1e9: they get zero probability (and no NaN in entropies)."""
    return logits.masked_fill(~mask, MASKED)


#: Logits this far under the best legal one are raised to it before exponentiating (probability e**-80, about
#: 1.8e-35, instead of less): see ``masked_policy``.
EXP_FLOOR = -80.0


def masked_policy(logits: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The masked policy's log-probabilities and probabilities ``[batch, actions]``: a softmax over the legal
    actions (``mask`` true). Illegal actions have probability exactly 0 and log-probability ``MASKED``, so
    ``-(probabilities * log_probabilities).sum(1)`` is the entropy, finite and with finite gradients.

    The same as ``log_softmax(masked_logits(logits, mask))`` to float rounding, but no exponential of a number that
    underflows is ever taken: an illegal action's (``MASKED`` less the best logit) does, and on this machine's CPUs
    such an exponential costs about sixteen ordinary ones, which made the masked softmaxes of PPO's updates a sixth
    of their time. The illegal entries are set to zero after exponentiating, and a legal logit more than
    ``-EXP_FLOOR`` under the best one counts as exactly that far under it (a probability change under 1e-34)."""
    best = logits.masked_fill(~mask, MASKED).amax(dim=1, keepdim=True).detach()  # a shift: the softmax ignores it
    # legal entries are at most 0 here; an illegal one may be any number: capped, its exponential stays finite
    shifted = (logits - best).clamp(min=EXP_FLOOR, max=0.0)
    weights = shifted.exp().masked_fill(~mask, 0.0)
    total = weights.sum(dim=1, keepdim=True)
    return (shifted - total.log()).masked_fill(~mask, MASKED), weights / total


def margin_target(margin: np.ndarray | torch.Tensor) -> np.ndarray | torch.Tensor:
    """The value target for a final margin (score minus the best other score)."""
    if isinstance(margin, torch.Tensor):
        return torch.tanh(margin / VALUE_SCALE)
    return np.tanh(np.asarray(margin, dtype=np.float32) / VALUE_SCALE)


# ---------------------------------------------------------------------------- checkpoints


def policy_payload(net: PolicyValueNet, extra: dict | None = None) -> dict:
    """What ``save_policy`` writes (also embedded in training checkpoints)."""
    from seasons_env.engine.actions import ACTION_TABLE_VERSION

    return {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "observation_version": net.observation_version,
        "observation_layout": observation_layout_digest(net.observation_version),
        "action_table_version": ACTION_TABLE_VERSION,
        "config": asdict(net.config),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},  # CPU-loadable
        "info": dict(extra or {}),
    }


def save_atomic_torch(obj: object, path: Path | str) -> None:
    """``torch.save`` to ``path`` all at once (``seasons_env.files.replace_atomically``)."""
    replace_atomically(path, lambda temporary: torch.save(obj, temporary))


def save_policy(net: PolicyValueNet, path: Path | str, info: dict | None = None) -> None:
    """Write the network (configuration, weights, versions and ``info``) to ``path`` atomically."""
    save_atomic_torch(policy_payload(net, info), path)


def policy_from_payload(payload: object, where: str) -> tuple[PolicyValueNet, dict]:
    """The network a checked payload describes, and its ``info``; ``CheckpointError`` naming ``where`` otherwise."""
    config, observation_version, state, info = check_payload(payload, where)
    # the configuration is only believed once the stored weights have its shapes: nothing is built before
    shapes = weight_shapes(lambda: PolicyValueNet(config, observation_version))
    problem = weights_problem(state, shapes, f"the config {asdict(config)}")
    if problem:
        raise CheckpointError(f"{where}: state_dict: {problem}")
    net = PolicyValueNet(config, observation_version)
    net.load_state_dict(state, strict=True)
    net.eval()
    return net, info


def load_policy(path: Path | str) -> tuple[PolicyValueNet, dict]:
    """Load a network saved by ``save_policy`` (or the ``policy`` of a training checkpoint)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such model file")
    try:
        checked_archive(path)[0].close()  # what torch.load will read, bounded first
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a damaged or foreign file: say which, never run anything from it
        raise CheckpointError(
            f"{path}: cannot be read as a policy checkpoint ({type(error).__name__}: {shown_text(str(error))})"
        ) from None
    return policy_from_payload(unwrap_checkpoint(payload), str(path))
