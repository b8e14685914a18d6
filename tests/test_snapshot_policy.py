"""The league snapshots' compiled masked policy (training/snapshot_policy.py) against the network it was built from."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from seasons_agents.network import FrozenPolicy, NetworkConfig, PolicyValueNet, masked_policy
from seasons_env import Game
from seasons_env.encoding import action_mask, encode_observation
from seasons_training.snapshot_policy import SnapshotPolicy

torch.set_num_threads(1)


def positions() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    observations, masks = [], []
    for seed in range(3):
        game = Game.new(2 + seed, "archmage", seed=20 + seed)
        while not game.is_over and len(observations) < 200 * (seed + 1):
            player = game.current_player
            observations.append(encode_observation(game, player))
            masks.append(action_mask(game, player).astype(bool))
            game.apply(int(rng.choice(np.flatnonzero(masks[-1]))))
    return np.stack(observations), np.stack(masks)


@pytest.mark.parametrize(("observation_version", "layers"), [(1, 1), (2, 2), (2, 3)])
def test_the_compiled_policy_is_the_network_s_masked_softmax(observation_version: int, layers: int) -> None:
    """Every row of real 2-4 player positions, every weight random (so that the card terms, every trunk layer's
    norm and the ReLU's zeros all show): the network's masked probabilities to float rounding, illegal actions
    exactly 0, each row summing to 1; a network of the earlier layout reads its prefix of today's observation."""
    torch.manual_seed(layers)
    net = PolicyValueNet(NetworkConfig(card_dim=6, hidden=40, layers=layers), observation_version)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0.0, 0.3)
    observations, masks = positions()
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(observations))
        expected = masked_policy(logits, torch.from_numpy(masks))[1].double().numpy()
    assert (expected.max(axis=1) < 0.99).mean() > 0.5  # the policies are spread, not one-hot
    for source in (net, FrozenPolicy(net)):
        got = SnapshotPolicy(source).probabilities(observations, masks)
        assert got.dtype == np.float64 and got.shape == masks.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
        assert (got[~masks] == 0.0).all() and np.allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        assert (got.argmax(axis=1) == expected.argmax(axis=1)).mean() > 0.99


def test_the_compiled_policy_is_a_copy_and_names_bad_input() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1))
    observations, masks = positions()
    policy = SnapshotPolicy(net)
    before = policy.probabilities(observations[:20], masks[:20])
    with torch.no_grad():
        net.policy.bias += torch.linspace(-3.0, 3.0, net.policy.bias.shape[0])
    assert np.array_equal(policy.probabilities(observations[:20], masks[:20]), before)
    assert not np.allclose(SnapshotPolicy(net).probabilities(observations[:20], masks[:20]), before)
    with pytest.raises(ValueError, match="masks of 314 actions"):
        policy.probabilities(observations[:2], masks[:2, :300])
    with pytest.raises(ValueError, match="observations of at least"):
        policy.probabilities(observations[:2, :100], masks[:2])
    no_legal = masks[:2].copy()
    no_legal[1] = False
    with pytest.raises(ValueError, match="a row without a legal action"):
        policy.probabilities(observations[:2], no_legal)
