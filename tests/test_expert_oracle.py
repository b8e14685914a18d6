"""Expert iteration's oracle critic (``expert_oracle_mix``): the rows carry the other seats' hidden cards, a critic
that reads them beside the observation fits the value target better, each row's critic value comes from a critic that
never trained on the row's game, and a round with the critic ships a plain network."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from expert_rounds import one_round, retrained, written_without

from seasons_agents.network import NetworkConfig, PolicyValueNet, load_policy, save_policy
from seasons_agents.policy_numpy import load_numpy_policy
from seasons_env.encoding import OPP_FEATURES, OPP_SCALARS, OPPONENTS
from seasons_env.engine.data import NUM_CARDS
from seasons_training.config import make_config
from seasons_training.expert import SearchJob, search_game
from seasons_training.expert_oracle import cross_fitted_values
from seasons_training.expert_rows import ORACLE_SIZE, PRIVATE_STARTS

torch.set_num_threads(1)

HAND, LIBRARY2, LIBRARY3 = 4, 5, 6  # an opponent's public scalars: hand size, library set sizes (encoding.py)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_each_rows_oracle_holds_the_cards_its_opponents_hide(tmp_path, engine: str) -> None:
    """The oracle's hand and library slices of the k-th seat after the decider hold as many cards as the decider's
    observation says that opponent holds (its public sizes), so each slice is that seat's; a fourth seat of a
    3-player game is zero."""
    torch.manual_seed(0)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    job = SearchJob(str(model), 3, "apprentice", 11, 0, 6, exploration=1.5, sample_moves=3, engine=engine)
    rows = search_game(job)
    oracle = rows["oracle"].astype(np.float32).reshape(len(rows["seat"]), 3, len(PRIVATE_STARTS), NUM_CARDS)
    assert rows["oracle"].shape[1] == ORACLE_SIZE
    assert np.all(oracle[:, 2] == 0)
    for k in (0, 1):  # opponents 1 and 2 to the left
        scalars = rows["obs"][:, OPPONENTS + k * OPP_FEATURES + OPP_SCALARS :][:, :7]
        for part, column in ((0, HAND), (1, LIBRARY2), (2, LIBRARY3)):
            assert np.array_equal(oracle[:, k, part].sum(axis=1), scalars[:, column]), (k, part)
    assert oracle[:, :2, 0].sum() > 0 and oracle[:, :2, 1].sum() > 0  # hands and libraries were seen


def _rows(count: int, seed: int) -> dict[str, np.ndarray]:
    """Rows of no game in particular: zero observations, random hidden cards, two rows a game."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((count, PolicyValueNet().observation_size), dtype=np.float32)
    oracle = (rng.random((count, ORACLE_SIZE)) < 0.05).astype(np.float16)
    return {"obs": obs, "oracle": oracle, "game": np.arange(count, dtype=np.int32) // 2}


def test_the_critic_learns_what_the_hidden_cards_say() -> None:
    """A target that only the hidden cards tell (one card in the next seat's hand, or not): the critics' error on the
    games they did not train on falls far below the target's variance, all a critic blind to them could reach."""
    torch.manual_seed(0)
    rows = _rows(4000, 1)
    rows["oracle"][:, 0] = np.random.default_rng(5).random(4000) < 0.5
    target = np.where(rows["oracle"][:, 0] > 0, 0.6, -0.6).astype(np.float32)
    config = replace(make_config("expert-smoke"), expert_epochs=3, expert_batch=32, expert_lr=1e-3)
    net = PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1))
    critic, figures = cross_fitted_values(net, rows, target, config, (0,))
    assert critic.shape == target.shape
    assert figures["critic_loss"] < 0.25 * target.var() < figures["network_loss"], figures


def test_no_row_is_judged_by_a_critic_that_trained_on_its_game() -> None:
    """Rows alike but for their games' targets (even games +0.9, odd -0.9): a critic that had trained on a row's game
    would give it its own fold's sign; each fold's critic trained on the other fold gives the other sign."""
    torch.manual_seed(0)
    rows = _rows(1200, 2)
    rows["oracle"][:] = 0
    even = rows["game"] % 2 == 0
    target = np.where(even, 0.9, -0.9).astype(np.float32)
    config = replace(make_config("expert-smoke"), expert_epochs=3, expert_batch=64, expert_lr=1e-3)
    net = PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1))
    critic, _ = cross_fitted_values(net, rows, target, config, (0,))
    assert critic[even].max() < 0 < critic[~even].min()


def test_a_round_with_the_critic_changes_the_value_targets_and_ships_a_plain_network(tmp_path) -> None:
    runs = retrained(tmp_path, {"without": {}, "with": {"expert_oracle_mix": 0.5}})
    assert "critic_loss" not in runs["without"].training
    assert {"critic_loss", "network_loss"} <= runs["with"].training.keys()
    models = {name: run.folder / "expert" / "model-0001.pt" for name, run in runs.items()}
    without, with_critic = (load_policy(models[name])[0].state_dict() for name in ("without", "with"))
    assert without.keys() == with_critic.keys()
    assert any(not torch.equal(without[k], with_critic[k]) for k in without)
    load_numpy_policy(models["with"])
    for bad in ("-0.1", "1.5"):
        with pytest.raises(ValueError, match="expert_oracle_mix: must be from 0 to 1"):
            make_config("expert-smoke", [f"expert_oracle_mix={bad}"])


def test_the_benchmark_compares_critics_on_a_runs_games_and_refuses_games_without_the_hidden_cards(tmp_path) -> None:
    """benchmarks/oracle_critic.py on a round's games prints the network's, the blind and the oracle critics' errors
    and their paired difference; on games written without the hidden cards (an older version) it says so, no
    traceback. (A round with the critic refuses such games by name: ``test_training_expert``.)"""
    folder = tmp_path / "run"
    one_round(folder)
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "oracle_critic.py"
    games, model = str(folder / "expert" / "round-0001" / "games-*.npz"), str(folder / "expert" / "model-0000.pt")
    printed = subprocess.run(
        [sys.executable, str(script), games, model, "--resamples", "50"], capture_output=True, text=True, check=True
    ).stdout
    for line in ("network: value error", "blind critic: value error", "oracle critic: value error", "oracle minus"):
        assert line in printed, printed
    written_without(folder, "oracle")
    refused = subprocess.run([sys.executable, str(script), games, model], capture_output=True, text=True)
    assert refused.returncode == 2 and "written without" in refused.stderr and "Traceback" not in refused.stderr
