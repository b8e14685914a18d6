"""A benchmark with a fixed scale: any agent against a frozen reference panel on fixed public deals.

The protocol (``protocol()``): the agent plays each panel agent in turn, that agent in every other seat, seats
rotated, at 2, 3 and 4 players, on deals drawn from a public seed per player count (``DEAL_SEED``). Each game gives
one pairwise result of the agent against each other seat (``seasons_env.statistics.pairwise_results``), and the
agent's rating is the Bradley-Terry rating (Elo points) that best explains them against the panel's ratings, which
are frozen: measured once on a large round robin of the panel (``benchmarks/bench_calibrate.py``), stored in the
package (``bench/*.json``), with ``random`` at 0. So two runs, on two machines, rate on one scale.

A frozen scale holds only for the protocol it was measured under: the rules (position format) and action versions,
the panel's specs and model files, the deals' seed. Not the observation version: observations only append slices,
and a panel model reads the prefix of the layout it was made for, checked against its file when it loads
(``policy_format``), so a new observation version leaves the panel's play as it was. ``benchmark_version()`` names
the frozen scale whose protocol is this installation's (``seasons-bench-1``) and refuses, naming what differs, when
there is none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from seasons_env.records import current_versions
from seasons_env.statistics import bootstrap_interval, fit_rating, pairwise_results, wilson_interval

from .learned import model_digests

#: The reference panel, weakest to strongest as measured; shipped models are named by version, so a newer
#: ``learned`` does not silently change the panel.
PANEL = ("random", "heuristic", "ismcts", "learned:v1", "learned:v2", "policy-ismcts")
#: The panel agent whose rating is 0 at every player count.
ANCHOR = "random"
PLAYER_COUNTS = (2, 3, 4)
#: Deals of the bench at N players come from the arena seed ``DEAL_SEED + N`` (public: anyone can rebuild them).
DEAL_SEED = 470_000
#: Games against each panel agent at each player count (a multiple of 12, so that every seat rotation completes).
SAMPLES = {"quick": 12, "full": 120}
#: Virtual ties against each panel agent met: a finite rating for an agent that wins (or loses) every game.
PRIOR_DRAWS = 1
BOOTSTRAP_SAMPLES = 1000


class BenchVersionError(ValueError):
    """No frozen scale matches this installation's protocol: the message names what differs."""


def protocol(level: str = "archmage") -> dict:
    """What a frozen scale is valid for: versions of the rules and action table, the panel and its model files (by
    SHA-256), the player counts, the level and the deals' seed."""
    return {
        "versions": current_versions(),
        "panel": list(PANEL),
        "models": model_digests(PANEL),
        "player_counts": list(PLAYER_COUNTS),
        "level": level,
        "deal_seed": DEAL_SEED,
    }


def frozen_scales(folder: Path | None = None) -> dict[str, dict]:
    """Every frozen scale shipped in the package's ``bench`` folder (or ``folder``), by name."""
    if folder is None:
        base = resources.files("seasons_agents") / "bench"
        files = [f for f in base.iterdir() if f.name.endswith(".json")] if base.is_dir() else []
    else:
        files = sorted(Path(folder).glob("*.json"))
    scales = {}
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        scales[data["name"]] = data
    return scales


def _differences(mine: dict, theirs: dict) -> list[str]:
    found = []
    for key in mine:
        if key == "versions":
            found += [
                f"{name} version {theirs['versions'].get(name)} -> {value}"
                for name, value in mine["versions"].items()
                if theirs["versions"].get(name) != value
            ]
        elif mine[key] != theirs.get(key):
            found.append(key)
    return found


def benchmark_version(level: str = "archmage", folder: Path | None = None) -> tuple[str, dict]:
    """The name and data of the frozen scale whose protocol is this installation's; ``BenchVersionError`` naming
    the nearest scale's differences when none is."""
    mine = protocol(level)
    scales = frozen_scales(folder)
    for name, data in sorted(scales.items()):
        if data["protocol"] == mine:
            return name, data
    if not scales:
        raise BenchVersionError("no frozen scale is installed (benchmarks/bench_calibrate.py measures one)")
    nearest = min(scales.values(), key=lambda data: len(_differences(mine, data["protocol"])))
    raise BenchVersionError(
        f"no frozen scale was measured under this installation's protocol at level {level}: {nearest['name']} "
        f"differs in {', '.join(_differences(mine, nearest['protocol']))}; the panel must be measured again "
        "(benchmarks/bench_calibrate.py)"
    )


def games_per_count(sample: str) -> int:
    """The games of a bench run at one player count."""
    if sample not in SAMPLES:
        raise ValueError(f"sample must be one of {', '.join(SAMPLES)}; got {sample!r}")
    return SAMPLES[sample] * len(PANEL)


def rate_agent(records_by_count: dict[int, Sequence[dict]], agent: str, panel_ratings: dict[str, dict]) -> dict:
    """The agent's rating on the frozen scale from its games (by player count), with a 95% bootstrap interval over
    games, overall and at each player count; and its results against each panel agent."""

    def comparisons(records: Sequence[dict], count: int) -> list[list[tuple[float, float]]]:
        ratings = panel_ratings[str(count)]
        return [[(ratings[name]["rating"], result) for name, result in pairwise_results(r, agent)] for r in records]

    def estimate(games: Sequence[list[tuple[float, float]]], priors: list[float]) -> float:
        flat = [pair for game in games for pair in game]
        return fit_rating([r for r, _ in flat], [s for _, s in flat], priors)

    def rated(games: list[list[tuple[float, float]]], counts: Sequence[int]) -> dict:
        met = [name for name in PANEL if name != agent]
        priors = [panel_ratings[str(c)][name]["rating"] for c in counts for name in met] * PRIOR_DRAWS
        low, high = bootstrap_interval(games, lambda g: estimate(g, priors), BOOTSTRAP_SAMPLES)
        return {"rating": estimate(games, priors), "low": low, "high": high, "games": len(games)}

    by_count = {count: comparisons(records, count) for count, records in records_by_count.items()}
    report = {
        "overall": rated([g for games in by_count.values() for g in games], list(by_count)),
        "by_players": {str(count): rated(games, [count]) for count, games in by_count.items()},
        "opponents": {},
    }
    for name in (p for p in PANEL if p != agent):
        rows = {}
        for count, records in records_by_count.items():
            mine = [r for r in records if name in r["seats"]]
            results = [s for r in mine for other, s in pairwise_results(r, agent) if other == name]
            if not mine:
                continue
            won = sum(results)
            low, high = wilson_interval(won, len(results))
            seat = [r["seats"].index(agent) for r in mine]
            rows[str(count)] = {
                "games": len(mine),
                "win_rate": won / len(results),
                "low": low,
                "high": high,
                "mean_score": sum(r["scores"][k] for r, k in zip(mine, seat, strict=True)) / len(mine),
                "panel_mean_score": sum(
                    sum(s for j, s in enumerate(r["scores"]) if j != k) / (len(r["scores"]) - 1)
                    for r, k in zip(mine, seat, strict=True)
                )
                / len(mine),
            }
        report["opponents"][name] = rows
    return report


def panel_comparisons(records: Sequence[dict]) -> list[list[tuple[str, str, float]]]:
    """Each game's pairwise results between distinct agents, each pair once: (a, b, result of a against b)."""
    games = []
    for record in records:
        found = []
        for name in sorted(set(record["seats"])):
            found += [(name, other, s) for other, s in pairwise_results(record, name) if name < other]
        games.append(found)
    return games


def calibrate(records_by_count: dict[int, Sequence[dict]], samples: int = BOOTSTRAP_SAMPLES) -> dict[str, dict]:
    """The panel's ratings at each player count from its round robin (``ANCHOR`` at 0), each with a 95% bootstrap
    interval over games: the ``ratings`` of a frozen scale."""
    import numpy as np

    from seasons_env.statistics import fit_ratings

    scale = {}
    for count, records in sorted(records_by_count.items()):
        games = panel_comparisons(records)
        flat = [c for game in games for c in game]
        point = fit_ratings(flat, ANCHOR, PRIOR_DRAWS)
        rng = np.random.default_rng(count)
        draws = {name: [] for name in point}
        for _ in range(samples):
            picked = [c for k in rng.integers(0, len(games), len(games)) for c in games[k]]
            fitted = fit_ratings(picked, ANCHOR, PRIOR_DRAWS)
            for name in draws:
                draws[name].append(fitted.get(name, 0.0))
        scale[str(count)] = {
            name: {
                "rating": point[name],
                "low": float(np.percentile(draws[name], 2.5)),
                "high": float(np.percentile(draws[name], 97.5)),
                "games": sum(1 for r in records if name in r["seats"]),
            }
            for name in sorted(point, key=point.get)
        }
    return scale
