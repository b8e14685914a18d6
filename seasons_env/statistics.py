"""The statistics every evaluation reports: Wilson 95% intervals of win rates, and openskill ratings of agents
from game results. The arena (``seasons_agents.arena``), training's evaluations (``seasons_training``), the RLlib
route (``seasons_env.rllib``) and the benchmarks all use these, so one win rate gets one interval everywhere."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``wins`` may count ties as halves)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # Exact at the ends (no wins: low is 0; all wins: high is 1), which rounding would miss by 1e-17.
    low = 0.0 if wins <= 0 else min(p, centre - half)
    high = 1.0 if wins >= n else max(p, centre + half)
    return low, high


def rate(records: Iterable[dict], agents: Sequence[str]) -> dict[str, dict]:
    """openskill Plackett-Luce ratings from game results, in the order the games were played.

    A game in which one agent holds several seats is not a rating event (a 4-player arena of two or three agents
    repeats them in every lineup). Each agent's ``games`` counts the games its rating rests on; an agent with none
    has no rating (``mu``, ``sigma``, ``low``, ``high`` and ``ordinal`` are None), not the model's prior."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    rated = dict.fromkeys(agents, 0)
    for record in sorted(records, key=lambda r: r["game_index"]):
        seats = record["seats"]
        if len(set(seats)) != len(seats):
            continue
        teams = [[ratings[name]] for name in seats]
        ranks = [-score for score in record["scores"]]
        for name, (new,) in zip(seats, model.rate(teams, ranks=ranks), strict=True):
            ratings[name] = new
            rated[name] += 1
    result = {}
    for name, r in ratings.items():
        result[name] = {"games": rated[name], **dict.fromkeys(("mu", "sigma", "low", "high", "ordinal"))}
        if rated[name]:
            low, high = r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma
            result[name].update(mu=r.mu, sigma=r.sigma, low=low, high=high, ordinal=r.ordinal())
    return result
