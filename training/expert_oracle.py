"""An oracle critic for expert iteration's value targets (``expert_oracle_mix``): oracle guiding as in Suphx (Li et
al., 2020), used for the targets only, so the acting network and its inputs stay as they are.

The acting network judges a position from one seat's observation, so its value target (the game's final margin,
mixed with the search's root value by ``expert_value_mix``) carries the noise of everything that seat cannot see: the
other seats' hands, library sets and draft packs, and the dice still to come. The critic reads the same observation
and, beside it, the hidden cards (``oracle_features``: the other seats' private slices of their own observations,
recorded with each searched decision as the row's ``oracle`` field). It starts as a copy of the round's network
with one more input layer into the first trunk layer, zero at first, so that it starts as the
network's own value and learns what the hidden cards add.

Cross-fitting keeps the critic from handing the network its own training targets back: the window's games are split
in two folds by game number; a critic trained on one fold's rows predicts the other's, and each row's target becomes
``(1 - mix) * target + mix * critic``. Only the critics' predictions leave this module; no critic is saved.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .expert_rows import ORACLE_SIZE

#: The critic's oracle layer learns from zero; this many times ``expert_lr`` lets it catch up with the copied trunk.
ORACLE_LR_FACTOR = 10.0
FOLDS = 2


class OracleCritic(nn.Module):
    """A copy of the network whose value also reads the oracle features, added into the first trunk layer by a
    layer of their own, zero at first (so that it starts as the network's value)."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = copy.deepcopy(net)
        self.oracle = nn.Linear(ORACLE_SIZE, net.config.hidden)
        nn.init.zeros_(self.oracle.weight)
        nn.init.zeros_(self.oracle.bias)

    def forward(self, obs: torch.Tensor, oracle: torch.Tensor) -> torch.Tensor:
        """Values ``[batch]`` in (-1, 1), as the network's value head gives them."""
        trunk = self.net.trunk
        h = trunk[1:](trunk[0](self.net.trunk_input(obs)) + self.oracle(oracle))
        return torch.tanh(self.net.value(h)).squeeze(1)


def folds_of(games: np.ndarray) -> np.ndarray:
    """Each row's fold: whole games go together (a game's rows share their result)."""
    return (games.astype(np.int64) % FOLDS).astype(np.int8)


def cross_fitted_values(
    net: nn.Module,
    rows: dict[str, np.ndarray],
    target: np.ndarray,
    config,
    seed: Sequence[int],
    fresh: np.ndarray | None = None,
    device: str = "cpu",
) -> tuple[np.ndarray, dict[str, float]]:
    """Each row's value by a critic that never trained on its game, and the figures of the critics' fit.

    ``target`` is the value target the network trains on (``[rows]``, in (-1, 1)); every critic trains on its
    fold's targets for ``config.expert_epochs`` passes in minibatches of ``config.expert_batch`` (Adam at
    ``config.expert_lr``, the oracle layer at ``ORACLE_LR_FACTOR`` times that), its draws from ``seed``. The figures
    are squared errors to ``target`` over the ``fresh`` rows (every row when not given; the round's new games, which
    the network never trained on): the network's (``network_loss``) and the critics' (``critic_loss``)."""
    obs = torch.from_numpy(rows["obs"]).to(device)
    oracle = torch.from_numpy(rows["oracle"].astype(np.float32)).to(device)
    goal = torch.from_numpy(target.astype(np.float32)).to(device)
    fold = folds_of(rows["game"])
    predicted = np.empty(len(target), dtype=np.float32)
    started = np.empty(len(target), dtype=np.float32)
    for k in range(FOLDS):
        train = np.flatnonzero(fold != k)
        held = np.flatnonzero(fold == k)
        critic = OracleCritic(net).to(device)
        critic.train()
        generator = torch.Generator().manual_seed(int(np.random.SeedSequence([*seed, k]).generate_state(1)[0]))
        base = [p for name, p in critic.named_parameters() if not name.startswith("oracle.")]
        optimizer = torch.optim.Adam(
            [
                {"params": base, "lr": config.expert_lr},
                {"params": list(critic.oracle.parameters()), "lr": config.expert_lr * ORACLE_LR_FACTOR},
            ],
            eps=1e-5,
        )
        started[held] = _predict(critic, obs, oracle, held)
        for _ in range(config.expert_epochs):
            order = torch.from_numpy(train[torch.randperm(len(train), generator=generator).numpy()]).to(device)
            for start in range(0, len(order), config.expert_batch):
                batch = order[start : start + config.expert_batch]
                loss = F.mse_loss(critic(obs[batch], oracle[batch]), goal[batch])
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(critic.parameters(), config.max_grad_norm)
                optimizer.step()
        predicted[held] = _predict(critic, obs, oracle, held)
    judged = slice(None) if fresh is None else fresh
    figures = {
        "network_loss": float(np.mean((started[judged] - target[judged]) ** 2)),
        "critic_loss": float(np.mean((predicted[judged] - target[judged]) ** 2)),
    }
    return predicted, figures


def _predict(critic: OracleCritic, obs: torch.Tensor, oracle: torch.Tensor, rows: np.ndarray) -> np.ndarray:
    """The critic's values of ``rows``, in batches, without gradients."""
    out = []
    critic.eval()
    with torch.no_grad():
        for start in range(0, len(rows), 4096):
            index = torch.from_numpy(rows[start : start + 4096])
            out.append(critic(obs[index], oracle[index]).cpu().numpy())
    critic.train()
    return np.concatenate(out) if out else np.empty(0, dtype=np.float32)
