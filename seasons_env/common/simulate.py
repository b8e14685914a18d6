"""Random play: whole games with a uniformly random legal action at every decision, and their statistics.

``random_play`` is the one random-play loop (``seasons simulate``, the memory benchmark and the tests' random
games all use it); ``play_random_game`` plays one seeded game with it, ``summarize`` turns a list of its
results into the summary the command writes as JSON, and ``format_summary`` into the text it prints.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from ..engine import Game

#: Far above any real game (a 4-player Archmage game takes a few hundred decisions); reaching it is a bug.
MAX_DECISIONS = 20_000

#: Second word of the policy generator's seed, so its stream differs from the game's own (seeded with ``seed``).
_POLICY_STREAM = 0x5EA50


def random_play(game: Game, rng: np.random.Generator, max_decisions: int = MAX_DECISIONS) -> Iterator[int]:
    """Play ``game`` to its end with a uniformly random legal action at every decision.

    Yields each chosen action just before it is applied, so the caller sees every position before its
    action (and may stop early); the game is the caller's, advanced in place. Raises ``RuntimeError`` if
    the game has not ended after ``max_decisions`` decisions (a game that never ends is a bug).
    """
    decisions = 0
    while not game.is_over:
        legal = game.legal_action_list()
        action = legal[int(rng.integers(len(legal)))]
        yield action
        game.apply(action)
        decisions += 1
        if decisions > max_decisions:
            raise RuntimeError(f"{game.num_players}-player {game.level} game did not end in {max_decisions} decisions")


def play_random_game(num_players: int, level: str, seed: int) -> dict:
    """Play one game to its end, picking a uniformly random legal action at each decision.

    The game is ``Game.new(num_players, level, seed=seed)``; the actions come from a numpy Generator seeded from
    ``seed`` too, so the same arguments always give the same game. Returns ``{"seed", "scores", "winners",
    "decisions"}``: final scores by seat, the winning seats (several on a shared win) and the number of decisions
    taken (steps that resolve by themselves are not counted; see docs/rulings.md D1).
    """
    game = Game.new(num_players, level, seed=seed)
    try:
        decisions = sum(1 for _ in random_play(game, np.random.default_rng([seed, _POLICY_STREAM])))
    except RuntimeError as error:
        raise RuntimeError(f"seed {seed}: {error}") from None
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


def _stat_row(label: str, stats: dict, digits: int = 1) -> str:
    return (
        f"  {label:<20} mean {stats['mean']:>8.{digits}f}   std {stats['std']:>7.{digits}f}"
        f"   min {stats['min']:>6.0f}   max {stats['max']:>6.0f}"
    )


def format_summary(summary: dict) -> str:
    """The readable report of a ``simulate`` summary."""
    games = summary["games"]
    first, last = summary["seeds"]
    lines = [
        f"{games} random games, {summary['players']} players, level {summary['level']}, seeds {first}..{last}",
        _stat_row("decisions per game", summary["decisions_per_game"]),
        _stat_row("winner score", summary["winner_score"]),
        _stat_row("all scores", summary["all_scores"]),
    ]
    for p, stats in enumerate(summary["score_by_seat"]):
        lines.append(_stat_row(f"score of seat {p}", stats))
    lines.append("  win rate by seat (shared wins count for every winner):")
    for p, (wins, rate) in enumerate(zip(summary["wins_by_seat"], summary["win_rate_by_seat"], strict=True)):
        lines.append(f"    seat {p}: {rate:6.1%}  ({wins}/{games})")
    lines.append(f"  shared wins: {summary['shared_win_rate']:.1%}  ({summary['shared_wins']}/{games})")
    if "wall_seconds" in summary:
        workers = summary["workers"]
        lines.append(
            f"  wall time {summary['wall_seconds']:.2f} s with {workers} worker{'s' if workers > 1 else ''}: "
            f"{summary['games_per_second']:,.1f} games/s, {summary['decisions_per_second']:,.0f} decisions/s"
        )
    return "\n".join(lines)
