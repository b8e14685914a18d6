"""End-of-game rewards (``seasons_env.rewards``): the schemes on hand-made results, and the batched rewards of
``VectorGame`` against the reference games."""

from __future__ import annotations

import numpy as np
import pytest

from seasons_env.rewards import final_rewards, final_rewards_of
from seasons_env.vector import VectorGame
from seasons_env.vector.policies import sample_legal


def test_rank_shares_places_among_seats_tied_on_score_and_cards() -> None:
    scores = np.array([[10, 10, 5, 10], [10, 10, 5, 10], [7, 7, 7, 7]])
    cards = np.array([[2, 2, 1, 1], [3, 2, 1, 9], [0, 0, 0, 0]])
    rank = final_rewards_of(scores, cards, "rank")
    # places 0-1 shared (mean of 1 and 1/3), then place 2 (-1/3), then last (-1)
    assert rank[0].tolist() == pytest.approx([2 / 3, 2 / 3, -1.0, -1 / 3])
    assert rank[1].tolist() == pytest.approx([1 / 3, -1 / 3, -1.0, 1.0])
    assert rank[2].tolist() == pytest.approx([0.0, 0.0, 0.0, 0.0])
    win = final_rewards_of(scores, cards, "win")
    assert win.tolist() == [[1.0, 1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    assert final_rewards_of(scores, cards, "score")[0].tolist() == pytest.approx([0.0, 0.0, -0.05, 0.0])


def test_a_bad_scheme_or_shape_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="reward must be one of win, score, rank; got 'points'"):
        final_rewards_of(np.zeros((1, 2)), np.zeros((1, 2)), "points")
    with pytest.raises(ValueError, match=r"must both be \[k, 2..4\]"):
        final_rewards_of(np.zeros((1, 2)), np.zeros((1, 3)), "win")


@pytest.mark.parametrize("engine", ["kernels", "reference"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_vector_final_rewards_equal_the_reference_games(engine: str, num_players: int) -> None:
    batch = VectorGame(16, num_players, "magician", seed=3, autoreset=False, engine=engine)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="final_rewards needs finished games; game 0 is still running"):
        batch.final_rewards(np.array([0]), "win")
    while not batch.is_over.all():
        batch.apply(sample_legal(batch.legal_mask(), rng), where=~batch.is_over)
    for reward in ("win", "score", "rank"):
        got = batch.final_rewards(np.arange(16), reward)
        expected = [final_rewards(batch.game(i), reward) for i in range(16)]
        assert got.tolist() == expected
