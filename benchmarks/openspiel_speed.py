"""python_seasons beside OpenSpiel's C++ games, in one run: pyspiel.random_sim_test and a Python play loop.

    python benchmarks/openspiel_speed.py            # the figures in docs/openspiel.md
    python benchmarks/openspiel_speed.py --quick    # a smoke run

For each game: the seconds of ``pyspiel.random_sim_test`` a game (with serialization, as the tests run it), and
a Python loop of random moves (chance outcomes sampled from ``chance_outcomes()``, the others uniform over
``legal_actions()``, as OpenSpiel's Python tools play) in moves per second and games per second. The engine's own
loop (``Game.apply`` without pyspiel) shows what the adapter adds; the clone line times ``state.clone()`` (the
engine's clone underneath) against a generic deep copy of the position.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402

import seasons_env.openspiel  # noqa: E402, F401  (registers python_seasons)
from seasons_env import Game  # noqa: E402

#: OpenSpiel's own C++ card and board games of some length, for scale.
CPP_GAMES = ("kuhn_poker", "tic_tac_toe", "connect_four", "hearts", "gin_rummy", "chess")
SEASONS_GAMES = (
    "python_seasons(players=2,level=apprentice)",
    "python_seasons(players=2,level=archmage)",
    "python_seasons(players=4,level=archmage)",
)


def play_loop(game: pyspiel.Game, games: int, seed: int) -> tuple[int, float]:
    """Moves made and seconds taken by ``games`` random games through pyspiel's Python API."""
    rng = np.random.default_rng(seed)
    moves = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                action = outcomes[int(rng.choice(len(outcomes), p=probabilities))]
            else:
                legal = state.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
            state.apply_action(action)
            moves += 1
    return moves, time.perf_counter() - start


def engine_loop(players: int, level: str, games: int, seed: int) -> tuple[int, float]:
    """The same random games on the engine directly."""
    rng = np.random.default_rng(seed)
    moves = 0
    start = time.perf_counter()
    for k in range(games):
        game = Game.new(players, level, seed=k)
        while not game.is_over:
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
            moves += 1
    return moves, time.perf_counter() - start


def clone_microseconds(repeats: int) -> tuple[float, float, float]:
    """Microseconds a ``state.clone()``, an engine ``Game.clone()`` and a generic deep copy of the position's data,
    100 moves into a 4-player Archmage game."""
    state = pyspiel.load_game("python_seasons(players=4,level=archmage)").new_initial_state_for_seed(1)
    for _ in range(100):
        state.apply_action(state.legal_actions()[0])
    timings = []
    for copy_once in (state.clone, state.position.clone, lambda: copy.deepcopy(state.position.to_dict())):
        start = time.perf_counter()
        for _ in range(repeats):
            copy_once()
        timings.append((time.perf_counter() - start) / repeats * 1e6)
    return timings[0], timings[1], timings[2]


def sim_test_seconds(game: pyspiel.Game, sims: int) -> float:
    start = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    return (time.perf_counter() - start) / sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games each (a smoke run)")
    parser.add_argument("--games", type=int, default=20, help="games of the play loop for each game (default 20)")
    parser.add_argument("--sims", type=int, default=5, help="random_sim_test games for each game (default 5)")
    args = parser.parse_args()
    games, sims = (2, 1) if args.quick else (args.games, args.sims)
    print(f"open-spiel {version('open-spiel')}: {games} play-loop games and {sims} random_sim_test games each")
    print(f"{'game':45} {'sim_test s/game':>15} {'moves/game':>10} {'moves/s':>10} {'games/s':>9}")
    for name in (*SEASONS_GAMES, *CPP_GAMES):
        game = pyspiel.load_game(name)
        per_sim = sim_test_seconds(game, sims)
        moves, seconds = play_loop(game, games, seed=1)
        print(f"{name:45} {per_sim:15.4f} {moves / games:10.1f} {moves / seconds:10,.0f} {games / seconds:9.2f}")
    for players, level in ((2, "apprentice"), (2, "archmage"), (4, "archmage")):
        moves, seconds = engine_loop(players, level, games, seed=1)
        label = f"engine only: Game.apply, {players} players {level}"
        print(f"{label:45} {'':15} {moves / games:10.1f} {moves / seconds:10,.0f} {games / seconds:9.2f}")
    state_us, engine_us, generic_us = clone_microseconds(200 if args.quick else 5000)
    print(
        f"clone, 4 players archmage after 100 moves: state.clone() {state_us:.1f} us, engine Game.clone() "
        f"{engine_us:.1f} us, copy.deepcopy(to_dict()) {generic_us:.0f} us"
    )


if __name__ == "__main__":
    main()
