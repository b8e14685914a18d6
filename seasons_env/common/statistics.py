"""The statistics every evaluation reports: Wilson 95% intervals of win rates, and openskill ratings of agents
from game results. The arena (``seasons_agents.arena``), training's evaluations (``seasons_training``), the RLlib
route (``seasons_env.rllib``) and the benchmarks all use these, so one win rate gets one interval everywhere."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

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


#: Bradley-Terry ratings are on the Elo scale: a lead of 400 points is 10-to-1 odds in a pairwise comparison.
ELO_POINTS = 400.0
_NATURAL = math.log(10) / ELO_POINTS  # Elo points to natural-log odds


def pairwise_results(record: dict, focus: str) -> list[tuple[str, float]]:
    """What one game says of ``focus`` against each other seat: (that seat's agent, 1 for a win, 0.5 for a tie,
    0 for a loss). A seat ahead on points beats a seat behind; at equal points the game's winners (its tie-break)
    decide, and two winners or two equal non-winners tie."""
    seats, scores, winners = record["seats"], record["scores"], set(record["winners"])
    results = []
    for mine in (k for k, name in enumerate(seats) if name == focus):
        for other, name in enumerate(seats):
            if name == focus:
                continue
            if scores[mine] != scores[other]:
                results.append((name, 1.0 if scores[mine] > scores[other] else 0.0))
            else:
                a, b = mine in winners, other in winners
                results.append((name, 0.5 if a == b else (1.0 if a else 0.0)))
    return results


def fit_rating(opponents: Sequence[float], results: Sequence[float], prior_draws: Sequence[float] = ()) -> float:
    """The Bradley-Terry rating (Elo points) that best explains ``results`` (1, 0.5 or 0 each) against opponents of
    the given fixed ratings: the maximum-likelihood estimate, with one virtual tie against each rating of
    ``prior_draws`` so that an agent that wins (or loses) every comparison still gets a finite rating."""
    import numpy as np

    against = np.asarray([*opponents, *prior_draws], dtype=np.float64) * _NATURAL
    scored = np.asarray([*results, *[0.5] * len(prior_draws)], dtype=np.float64)
    if against.size == 0:
        raise ValueError("a rating needs at least one result or prior draw")
    theta = float(np.average(against))
    for _ in range(100):  # Newton's method on a concave log-likelihood: a few steps in practice
        expected = 1.0 / (1.0 + np.exp(against - theta))
        gradient = float(np.sum(scored - expected))
        curvature = float(np.sum(expected * (1.0 - expected)))
        step = gradient / max(curvature, 1e-12)
        theta += max(-2.0, min(2.0, step))  # damped: far from the optimum the quadratic model overshoots
        if abs(step) < 1e-10:
            break
    return theta / _NATURAL


def fit_ratings(
    comparisons: Sequence[tuple[str, str, float]], anchor: str, prior_draws: float = 1.0
) -> dict[str, float]:
    """Joint Bradley-Terry ratings (Elo points) of every agent in ``comparisons`` ((a, b, result of a against b)),
    with ``anchor`` fixed at 0 and ``prior_draws`` virtual ties between every pair that met (finite ratings for an
    agent that always wins or always loses)."""
    import numpy as np

    names = sorted({name for a, b, _ in comparisons for name in (a, b)})
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} has no comparisons")
    index = {name: k for k, name in enumerate(names)}
    first = np.asarray([index[a] for a, _, _ in comparisons])
    second = np.asarray([index[b] for _, b, _ in comparisons])
    scored = np.asarray([s for _, _, s in comparisons], dtype=np.float64)
    pairs = sorted({(min(i, j), max(i, j)) for i, j in zip(first.tolist(), second.tolist(), strict=True)})
    if prior_draws > 0 and pairs:
        extra = np.asarray(pairs)
        first, second = np.concatenate([first, extra[:, 0]]), np.concatenate([second, extra[:, 1]])
        weights = np.concatenate([np.ones(len(scored)), np.full(len(pairs), prior_draws)])
        scored = np.concatenate([scored, np.full(len(pairs), 0.5)])
    else:
        weights = np.ones(len(scored))
    theta = np.zeros(len(names))
    free = np.asarray([k for k in range(len(names)) if k != index[anchor]])
    for _ in range(200):
        expected = 1.0 / (1.0 + np.exp(theta[second] - theta[first]))
        residual = weights * (scored - expected)
        gradient = np.bincount(first, residual, len(names)) - np.bincount(second, residual, len(names))
        w = weights * expected * (1.0 - expected)
        hessian = np.zeros((len(names), len(names)))
        np.add.at(hessian, (first, first), w)
        np.add.at(hessian, (second, second), w)
        np.add.at(hessian, (first, second), -w)
        np.add.at(hessian, (second, first), -w)
        step = np.linalg.solve(hessian[np.ix_(free, free)], gradient[free])
        theta[free] += np.clip(step, -2.0, 2.0)
        if np.max(np.abs(step)) < 1e-10:
            break
    return {name: float(theta[index[name]] / _NATURAL) for name in names}


def bootstrap_interval(
    groups: Sequence[object], estimate: Callable[[Sequence[object]], float], samples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of ``estimate`` over ``groups`` resampled with replacement (the groups
    are games: the comparisons of one game are not independent, so they are resampled together). Seeded: the same
    data give the same interval."""
    import numpy as np

    if not groups:
        raise ValueError("a bootstrap needs at least one game")
    rng = np.random.default_rng(seed)
    values = [estimate([groups[k] for k in rng.integers(0, len(groups), len(groups))]) for _ in range(samples)]
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)
