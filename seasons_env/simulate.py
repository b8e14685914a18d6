"""Random play: whole games with a uniformly random legal action at every decision, and their statistics.

``play_random_game`` is the loop behind ``seasons simulate`` (and the memory benchmark); ``summarize`` turns a
list of its results into the summary the command prints and writes as JSON.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .engine import Game

#: Far above any real game (a 4-player Archmage game takes a few hundred decisions); reaching it is a bug.
MAX_DECISIONS = 20_000

#: Second word of the policy generator's seed, so its stream differs from the game's own (seeded with ``seed``).
_POLICY_STREAM = 0x5EA50


def play_random_game(num_players: int, level: str, seed: int) -> dict:
    """Play one game to its end, picking a uniformly random legal action at each decision.

    The game is ``Game.new(num_players, level, seed=seed)``; the actions come from a numpy Generator seeded from
    ``seed`` too, so the same arguments always give the same game. Returns ``{"seed", "scores", "winners",
    "decisions"}``: final scores by seat, the winning seats (several on a shared win) and the number of decisions
    taken (steps with a single legal option resolve by themselves and are not counted).
    """
    game = Game.new(num_players, level, seed=seed)
    integers = np.random.default_rng([seed, _POLICY_STREAM]).integers
    decisions = 0
    while not game.is_over:
        legal = game.legal_action_list()
        game.apply(legal[integers(len(legal))])
        decisions += 1
        if decisions > MAX_DECISIONS:
            raise RuntimeError(
                f"{num_players}-player {level} game seed {seed} did not end in {MAX_DECISIONS} decisions"
            )
    return {"seed": seed, "scores": game.scores(), "winners": game.winners(), "decisions": decisions}


def _stats(values: Sequence[float]) -> dict:
    """Mean, sample standard deviation (0 for a single value), min and max."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return {"mean": math.nan, "std": math.nan, "min": math.nan, "max": math.nan}
    std = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    return {"mean": float(arr.mean()), "std": std, "min": float(arr.min()), "max": float(arr.max())}


def summarize(results: Sequence[dict], num_players: int, level: str, seed: int) -> dict:
    """The statistics of ``play_random_game`` results (JSON-safe).

    ``win_rate_by_seat`` counts a seat as winning every game it wins, shared wins included, so the rates add up
    to more than 1 when some wins are shared; ``shared_wins`` is the share of games won by several seats.
    """
    games = len(results)
    winner_scores = [r["scores"][r["winners"][0]] for r in results]
    all_scores = [s for r in results for s in r["scores"]]
    wins = [0] * num_players
    shared = 0
    for r in results:
        for p in r["winners"]:
            wins[p] += 1
        shared += len(r["winners"]) > 1
    return {
        "games": games,
        "players": num_players,
        "level": level,
        "seeds": [seed, seed + games - 1],
        "decisions_per_game": _stats([r["decisions"] for r in results]),
        "decisions_total": sum(r["decisions"] for r in results),
        "winner_score": _stats(winner_scores),
        "all_scores": _stats(all_scores),
        "score_by_seat": [_stats([r["scores"][p] for r in results]) for p in range(num_players)],
        "wins_by_seat": wins,
        "win_rate_by_seat": [w / games if games else math.nan for w in wins],
        "shared_wins": shared,
        "shared_win_rate": shared / games if games else math.nan,
    }
