"""Expert iteration's auxiliary score target (``expert_score_coef``, KataGo's): the rows carry each seat's final
score, a round with the target trains a head on the trunk beside the network and ships the network alone, and games
written before the field existed are refused by such a round, by name (``test_training_expert``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from expert_rounds import retrained

from seasons_agents.network import NetworkConfig, PolicyValueNet, load_policy, save_policy
from seasons_agents.policy_numpy import load_numpy_policy
from seasons_training.config import make_config
from seasons_training.expert import SearchJob, search_game

torch.set_num_threads(1)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_each_row_carries_its_seats_final_score(tmp_path, engine: str) -> None:
    torch.manual_seed(0)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    rows = search_game(SearchJob(str(model), 2, "apprentice", 7, 0, 6, exploration=1.5, sample_moves=3, engine=engine))
    by_seat = {seat: set(rows["score"][rows["seat"] == seat].tolist()) for seat in (0, 1)}
    assert all(len(scores) == 1 for scores in by_seat.values()), by_seat  # one final score a seat
    score = {seat: scores.pop() for seat, scores in by_seat.items()}
    # a two-player margin is the seat's score less the other's
    for seat in (0, 1):
        assert np.all(rows["margin"][rows["seat"] == seat] == score[seat] - score[1 - seat])


def test_a_round_with_the_score_target_trains_the_trunk_and_ships_the_network_alone(tmp_path) -> None:
    """The same round's games trained with and without the target: the networks differ, the round reports the
    head's loss, and the saved model is a plain model file (both readers load it; no head in it)."""
    runs = retrained(tmp_path, {"without": {}, "with": {"expert_score_coef": 1.0}})
    assert "score_loss" not in runs["without"].training
    assert 0 < runs["with"].training["score_loss"] < 10
    models = {name: run.folder / "expert" / "model-0001.pt" for name, run in runs.items()}
    without, with_score = (load_policy(models[name])[0].state_dict() for name in ("without", "with"))
    assert without.keys() == with_score.keys()
    assert any(not torch.equal(without[k], with_score[k]) for k in without)
    load_numpy_policy(models["with"])
    with pytest.raises(ValueError, match="expert_score_coef: must be at least 0"):
        make_config("expert-smoke", ["expert_score_coef=-0.5"])
