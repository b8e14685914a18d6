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

Checkpoints (``save_policy``/``load_policy``) hold the configuration, the weights and the versions of the
observation layout and action table they were trained on; they are read with ``torch.load(weights_only=True)``
(no code in a file is ever run) and checked field by field: the configuration within ``NETWORK_LIMITS`` and against
the stored weights' shapes before anything is built, and the weights free of NaN and infinite values.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seasons_env.encoding import (
    LAYOUT,
    OBSERVATION_SIZE,
    OBSERVATION_SIZES,
    OBSERVATION_VERSION,
    OPP_FEATURES,
    OPP_IN_PLAY,
    OPP_TAPPED,
)
from seasons_env.engine import actions as A
from seasons_env.engine.data import NUM_CARDS, card_of
from seasons_env.files import replace_atomically
from seasons_env.masked_mlp import weight_shapes, weights_problem

CHECKPOINT_FORMAT = "seasons-policy"
CHECKPOINT_VERSION = 1
#: Margins are divided by this before ``tanh`` to make the value target.
VALUE_SCALE = 40.0
#: The logit of an illegal action.
MASKED = -1e9

#: Observation slices that count cards (one value per card id 1..50).
CARD_ZONES = (
    "context_cards",
    "context_card",
    "self_hand",
    "self_library_year2",
    "self_library_year3",
    "self_in_play",
    "self_tapped",
    "self_draft_pack",
    "self_draft_seen",
    "self_orb_seen",
)


def _zone_starts() -> list[int]:
    starts = [LAYOUT[name].start for name in CARD_ZONES]
    opponents = LAYOUT["opponents"].start
    for slot in range(3):
        at = opponents + slot * OPP_FEATURES
        starts += [at + OPP_IN_PLAY, at + OPP_TAPPED]
    for start in starts:
        assert start + NUM_CARDS <= OBSERVATION_SIZE
    return starts


ZONE_STARTS = tuple(_zone_starts())


def _action_cards() -> tuple[np.ndarray, np.ndarray]:
    """For each action id: the pointer group (0 = none, 1 summon, 2 activate, 3 choose card, 4 choose in play)
    and the card id it names (0 = none)."""
    group = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    card = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    for c in range(1, NUM_CARDS + 1):
        group[A.summon_action(c)], card[A.summon_action(c)] = 1, c
        group[A.choose_card_action(c)], card[A.choose_card_action(c)] = 3, c
    for instance in A.ACTIVATABLE_INSTANCES:
        action = A.activate_action(instance)
        group[action], card[action] = 2, card_of(instance)
    for instance in range(2 * NUM_CARDS):
        action = A.choose_in_play_action(instance)
        group[action], card[action] = 4, card_of(instance)
    return group, card


#: The largest value of each ``NetworkConfig`` field: far above anything trained here (the shipped model is 2 x 256
#: with 32-value cards), and low enough that a configuration read from a file cannot ask for gigabytes.
NETWORK_LIMITS = {"card_dim": 1024, "hidden": 16384, "layers": 64}


@dataclass(frozen=True)
class NetworkConfig:
    """The shape of a ``PolicyValueNet``."""

    card_dim: int = 32
    hidden: int = 512
    layers: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value, limit = getattr(self, f.name), NETWORK_LIMITS[f.name]
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
                raise ValueError(f"network config: {f.name} must be an integer in 1..{limit}; got {value!r}")


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
        self.cards = nn.Parameter(torch.randn(NUM_CARDS, d) * 0.1)
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
        group, card = _action_cards()
        named = np.flatnonzero(group)  # the actions that name a card, and where their term sits in the table
        self.register_buffer("pointer_actions", torch.from_numpy(named), persistent=False)
        self.register_buffer(
            "pointer_index", torch.from_numpy((group[named] - 1) * (NUM_CARDS + 1) + card[named]), persistent=False
        )
        self.value = nn.Linear(config.hidden, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked logits ``[batch, 314]`` and values ``[batch]`` in (-1, 1)."""
        batch = obs.shape[0]
        d = self.config.card_dim
        obs = obs[:, : self.observation_size]  # a network of an earlier layout reads its prefix
        counts = obs[:, self.zone_index]  # [batch, zones, 50]
        pooled = torch.matmul(counts, self.cards).reshape(batch, -1)  # [batch, zones * d]
        h = self.trunk(torch.cat([obs, pooled], dim=1))
        logits = self.policy(h)
        queries = self.pointer(h).reshape(batch, 4, d)
        # table[b, g, c] = query of group g . embedding of card c (c = 0 is "no card": zero)
        cards = torch.cat([torch.zeros(1, d, dtype=self.cards.dtype), self.cards], dim=0)
        table = torch.einsum("bgd,cd->bgc", queries, cards)
        pointer = table.reshape(batch, -1).index_select(1, self.pointer_index)
        logits = logits.index_add(1, self.pointer_actions, pointer)
        return logits, torch.tanh(self.value(h)).squeeze(1)

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
        cards = torch.cat([torch.zeros(1, d, dtype=self.cards.dtype), self.cards], dim=0)  # [51, d]
        table = torch.matmul(cards, self.pointer.weight.reshape(4, d, -1))  # [4, 51, H]
        table_bias = torch.matmul(self.pointer.bias.reshape(4, d), cards.T)  # [4, 51]
        named = self.pointer_actions
        policy_weight = self.policy.weight.index_add(0, named, table.reshape(-1, hidden)[self.pointer_index])
        policy_bias = self.policy.bias.index_add(0, named, table_bias.reshape(-1)[self.pointer_index])
        return weight, policy_weight, policy_bias

    def forward_folded(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward`` computed through ``folded_weights``: the same logits and values up to float rounding,
        differentiable, and cheaper on large batches (folding costs the same whatever the batch; the gather, the
        pooling product and the pointer table it replaces grow with it). Training's updates use it."""
        weight, policy_weight, policy_bias = self.folded_weights()
        h = F.linear(obs[:, : self.observation_size], weight, self.trunk[0].bias)
        for module in list(self.trunk)[1:]:
            h = module(h)
        return F.linear(h, policy_weight, policy_bias), torch.tanh(self.value(h)).squeeze(1)


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
    layer = torch.nn.utils.skip_init(nn.Linear, weight.shape[1], weight.shape[0])
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


class CheckpointError(ValueError):
    """A policy file that cannot be loaded: the message names the file and the fault."""


def policy_payload(net: PolicyValueNet, extra: dict | None = None) -> dict:
    """What ``save_policy`` writes (also embedded in training checkpoints)."""
    from seasons_env.engine.actions import ACTION_TABLE_VERSION

    return {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "observation_version": net.observation_version,
        "action_table_version": ACTION_TABLE_VERSION,
        "config": asdict(net.config),
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "info": dict(extra or {}),
    }


def save_atomic_torch(obj: object, path: Path | str) -> None:
    """``torch.save`` to ``path`` all at once (``seasons_env.files.replace_atomically``)."""
    replace_atomically(path, lambda temporary: torch.save(obj, temporary))


def save_policy(net: PolicyValueNet, path: Path | str, info: dict | None = None) -> None:
    """Write the network (configuration, weights, versions and ``info``) to ``path`` atomically."""
    save_atomic_torch(policy_payload(net, info), path)


def _same(value: object, expected: object) -> bool:
    """``value == expected`` for a value read from a file, which may be a tensor (whose ``==`` is no bool)."""
    return type(value) is type(expected) and value == expected


def policy_from_payload(payload: object, where: str) -> tuple[PolicyValueNet, dict]:
    """The network a checked payload describes, and its ``info``; ``CheckpointError`` naming ``where`` otherwise."""
    from seasons_env.engine.actions import ACTION_TABLE_VERSION

    def fault(problem: str) -> CheckpointError:
        return CheckpointError(f"{where}: {problem}")

    if not isinstance(payload, dict):
        raise fault(f"not a policy checkpoint (a {type(payload).__name__}, not a dict)")
    if not _same(payload.get("format"), CHECKPOINT_FORMAT):
        raise fault(f"not a policy checkpoint: format is {payload.get('format')!r}, expected {CHECKPOINT_FORMAT!r}")
    if not _same(payload.get("version"), CHECKPOINT_VERSION):
        raise fault(f"checkpoint version {payload.get('version')!r}; this code reads version {CHECKPOINT_VERSION}")
    if not _same(payload.get("action_table_version"), ACTION_TABLE_VERSION):
        raise fault(
            f"trained for action_table_version {payload.get('action_table_version')!r}; this code has "
            f"{ACTION_TABLE_VERSION} (retrain the model)"
        )
    observation_version = payload.get("observation_version")
    if (
        type(observation_version) is not int or observation_version not in OBSERVATION_SIZES
    ):  # earlier layouts are prefixes of today's: they still read
        raise fault(
            f"trained for observation_version {observation_version!r}; this code reads versions "
            f"{sorted(OBSERVATION_SIZES)} (retrain the model)"
        )
    config = payload.get("config")
    if not isinstance(config, dict) or set(config) != {f.name for f in fields(NetworkConfig)}:
        raise fault(f"config must be a dict with keys {sorted(f.name for f in fields(NetworkConfig))}; got {config!r}")
    try:
        config = NetworkConfig(**config)
    except ValueError as error:
        raise fault(str(error)) from None
    state = payload.get("state_dict")
    # the configuration is only believed once the stored weights have its shapes: nothing is built before
    shapes = weight_shapes(lambda: PolicyValueNet(config, observation_version))
    problem = weights_problem(state, shapes, f"the config {asdict(config)}")
    if problem:
        raise fault(f"state_dict: {problem}")
    net = PolicyValueNet(config, observation_version)
    net.load_state_dict(state, strict=True)
    info = payload.get("info", {})
    if not isinstance(info, dict):
        raise fault(f"info must be a dict; got {type(info).__name__}")
    net.eval()
    return net, info


def load_policy(path: Path | str) -> tuple[PolicyValueNet, dict]:
    """Load a network saved by ``save_policy`` (or the ``policy`` of a training checkpoint)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such model file")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a damaged or foreign file: say which, never run anything from it
        raise CheckpointError(
            f"{path}: cannot be read as a policy checkpoint ({type(error).__name__}: {error})"
        ) from None
    if isinstance(payload, dict) and "policy" in payload and not _same(payload.get("format"), CHECKPOINT_FORMAT):
        payload = payload["policy"]  # a training checkpoint: its policy
    return policy_from_payload(payload, str(path))
