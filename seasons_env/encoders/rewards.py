"""End-of-game rewards: every seat's reward under a reward scheme, for one game or many at once.

One place for what the environments pay at the end of a game (the PettingZoo and Gymnasium environments, the
batched adapters): ``"win"`` +1 for the winners (the engine's tie-break on cards in play included) and -1 for the
others; ``"score"`` the margin over the best other seat, in hundreds of points; ``"rank"`` +1 for first, -1 for last,
linear between, tied seats (same score and cards in play) sharing the mean of their places.
"""

from __future__ import annotations

import numpy as np

from ..engine import Game

REWARDS = ("win", "score", "rank")


def _rank_table(n: int) -> np.ndarray:
    """``[k, j]``: the reward of a seat sharing places ``k..j`` (0 = first) of ``n``, the mean of their values."""
    values = [1.0 - 2.0 * k / (n - 1) for k in range(n)]
    table = np.zeros((n, n))
    for k in range(n):
        for j in range(k, n):
            table[k, j] = sum(values[k : j + 1]) / (j + 1 - k)
    return table


_RANK = {n: _rank_table(n) for n in (2, 3, 4)}


def final_rewards_of(scores: np.ndarray, cards_in_play: np.ndarray, reward: str) -> np.ndarray:
    """float64 ``[k, P]``: every seat's reward in ``k`` finished games with final ``scores`` ``[k, P]`` and
    ``cards_in_play`` ``[k, P]`` (the tie-break)."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
    scores = np.asarray(scores, dtype=np.int64)
    cards = np.asarray(cards_in_play, dtype=np.int64)
    if scores.ndim != 2 or scores.shape != cards.shape or scores.shape[1] not in _RANK:
        raise ValueError(f"scores and cards_in_play must both be [k, 2..4]; got {scores.shape} and {cards.shape}")
    n = scores.shape[1]
    if reward == "win":
        tied = scores == scores.max(axis=1, keepdims=True)
        most = np.where(tied, cards, -1)
        return np.where(tied & (most == most.max(axis=1, keepdims=True)), 1.0, -1.0)
    if reward == "score":
        others = np.where(np.eye(n, dtype=np.bool_), np.iinfo(np.int64).min, scores[:, None, :]).max(axis=2)
        return (scores - others) / 100.0
    # seat p's places: after every seat ranked strictly above it, through every seat tied with it
    s_p, s_q = scores[:, :, None], scores[:, None, :]
    c_p, c_q = cards[:, :, None], cards[:, None, :]
    above = ((s_q > s_p) | ((s_q == s_p) & (c_q > c_p))).sum(axis=2)
    tied = ((s_q == s_p) & (c_q == c_p)).sum(axis=2)
    return _RANK[n][above, above + tied - 1]


def final_rewards(game: Game, reward: str) -> list[float]:
    """End-of-game reward of every seat of a finished ``game`` under a reward scheme."""
    cards = [len(cards) for cards in game.in_play]
    return final_rewards_of(np.array([game.scores()]), np.array([cards]), reward)[0].tolist()
