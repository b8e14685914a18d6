"""OpenSpiel's ISMCTS bot on python_seasons against random and the heuristic, and Elo beside the arena's ratings.

    python benchmarks/openspiel_bots.py            # the figures in docs/openspiel.md (about half an hour)
    python benchmarks/openspiel_bots.py --quick    # a smoke run

Two-player games through OpenSpiel's ``evaluate_bots``, seats alternating: OpenSpiel's ``ISMCTSBot`` (random
rollouts, ``--simulations`` a decision, each in a determinization drawn by ``seasons_env.openspiel.resampler``)
against OpenSpiel's uniform random bot and against the project's heuristic (an ``AgentBot``), and the heuristic
against random. Win rates carry Wilson 95% intervals (a tie counts half). The same games then rate the three
bots twice: OpenSpiel's Elo (``pyspiel.elo.compute_ratings_from_match_records``) and the arena's openskill
ratings (``seasons_env.statistics.rate``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

import seasons_env.openspiel as sos  # noqa: E402
from seasons_env.statistics import rate, wilson_interval  # noqa: E402


def make_bot(name: str, game: sos.SeasonsGame, seat: int, seed: int, simulations: int) -> pyspiel.Bot:
    if name == "ismcts":
        return sos.ismcts_bot(game, simulations, seed=seed)
    if name == "random":
        return uniform_random.UniformRandomBot(seat, np.random.RandomState(seed))
    return sos.make_agent_bot(name, seed)


def match(pair: tuple[str, str], games: int, level: str, simulations: int, first_index: int) -> list[dict]:
    """``games`` games of ``pair[0]`` against ``pair[1]``, seats alternating; one record a game."""
    game = pyspiel.load_game(f"python_seasons(players=2,level={level})")
    records = []
    for k in range(games):
        index = first_index + k
        seats = pair if k % 2 == 0 else pair[::-1]
        bots = [make_bot(name, game, seat, index * 2 + seat, simulations) for seat, name in enumerate(seats)]
        start = time.perf_counter()
        state = game.new_initial_state_for_seed(index)
        evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(index))
        scores = state.position.scores()
        records.append(
            {
                "game_index": index,
                "seats": list(seats),
                "scores": scores,
                "winners": state.position.winners(),
                "seconds": time.perf_counter() - start,
            }
        )
    return records


def win_share(records: list[dict], name: str) -> tuple[float, int]:
    """Wins of ``name`` (a shared win counts half) and games."""
    wins = 0.0
    for record in records:
        seat = record["seats"].index(name)
        if seat in record["winners"]:
            wins += 1.0 / len(record["winners"])
    return wins, len(records)


def elo_records(records: list[dict]) -> list:
    elo = pyspiel.elo
    matches = []
    for record in records:
        first, second = record["seats"]
        winners = record["winners"]
        outcome = elo.DRAW if len(winners) == 2 else elo.FIRST_PLAYER_WIN if winners == [0] else elo.FIRST_PLAYER_LOSS
        matches.append(elo.MatchRecord(first, second, outcome))
    return matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two games a pairing, 5 simulations (a smoke run)")
    parser.add_argument("--games", type=int, default=40, help="games a pairing (default 40)")
    parser.add_argument("--simulations", type=int, default=30, help="ISMCTS simulations a decision (default 30)")
    parser.add_argument("--level", default="magician", help="the level of every game (default magician)")
    args = parser.parse_args()
    games, simulations = (2, 5) if args.quick else (args.games, args.simulations)
    pairs = (("ismcts", "random"), ("ismcts", "heuristic"), ("heuristic", "random"))
    print(
        f"python_seasons, 2 players, {args.level}: {games} games a pairing, seats alternating; ISMCTS "
        f"{simulations} simulations a decision, one random rollout a leaf"
    )
    print(f"{'pairing':24} {'games':>5} {'first wins':>10} {'95% interval':>15} {'s/game':>7}")
    all_records = []
    for k, pair in enumerate(pairs):
        records = match(pair, games, args.level, simulations, first_index=k * 10_000)
        all_records += records
        wins, n = win_share(records, pair[0])
        low, high = wilson_interval(wins, n)
        seconds = sum(r["seconds"] for r in records) / n
        print(f"{pair[0] + ' vs ' + pair[1]:24} {n:5} {wins / n:10.1%} {f'{low:.1%}-{high:.1%}':>15} {seconds:7.1f}")
    elo = pyspiel.elo.compute_ratings_from_match_records(elo_records(all_records))
    skill = rate(all_records, ["random", "heuristic", "ismcts"])
    print(f"\n{'bot':10} {'OpenSpiel Elo':>13} {'arena mu':>9} {'arena 95% interval':>19}")
    for name in sorted(elo, key=elo.get, reverse=True):
        r = skill[name]
        interval = f"{r['low']:.2f} to {r['high']:.2f}"
        print(f"{name:10} {elo[name]:13.0f} {r['mu']:9.2f} {interval:>19}")


if __name__ == "__main__":
    main()
