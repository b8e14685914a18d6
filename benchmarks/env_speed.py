"""Environment speed: agent-turns per second of the PettingZoo AEC loop, Seasons beside PettingZoo's classic games.

    python benchmarks/env_speed.py                 # 2 s per figure, about 20 s in all
    python benchmarks/env_speed.py --seconds 5     # steadier figures
    python benchmarks/env_speed.py --quick         # a few seconds; the figures are then very rough

Every environment runs the same standard AEC loop, with the observation and the action mask computed at every step:

    obs, reward, termination, truncation, info = env.last()
    if termination or truncation: env.step(None)   # dead steps at the end of a game; env.reset() once all are done
    else: env.step(random legal action of obs["action_mask"])

A "turn" is one live step (an agent acting); the dead steps and the resets are run and timed but not counted, so
turns/s is the rate at which an agent can be fed decisions, game ends and new games included. The random player
picks ``legal[int(random() * len(legal))]`` over ``np.flatnonzero(mask)`` with a seeded ``random.Random``.

Measured: ``seasons_env.env()`` (PettingZoo's order-enforcing wrapper) on the reference engine
(``engine="reference"``) and on the compiled kernels (``engine="kernels"``; the default ``engine="auto"`` takes them
where they are compiled), and ``seasons_env.raw_env(engine="reference")``, for 2, 3 and 4 players; PettingZoo's
``texas_holdem_v4`` and ``connect_four_v3`` (they need ``rlcard`` and ``pygame``); and OpenSpiel's C++
``gin_rummy`` (``pyspiel``) driven by the same loop through a thin adapter: ``last()`` returns a copy of the acting
player's observation tensor (written by C++ into OpenSpiel's numpy observation buffer, its fastest way) and its
legal-action mask (set from ``legal_actions``), ``step`` applies the action and then the chance outcomes (the
deals and draws, drawn uniformly) up to the next decision. Each figure's time budget is split into rounds that
alternate between the environments, so a slow drift of the machine's speed affects them all alike. Absolute figures
are noisy on a shared machine; the ratios between environments of one run are the figures to compare between machines.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame (imported by connect_four) greets on import

import numpy as np

from seasons_env import LEVELS

PLAYER_COUNTS = (2, 3, 4)
ROUNDS = 4  # each figure's budget is split into this many interleaved rounds
GOAL_TURNS = 15_000  # turns/s of seasons_env.env(reference), 2 players
GOAL_VS_TEXAS = 1.0  # seasons env(reference) turns/s / texas_holdem_v4 turns/s: more than this
GOAL_OVERHEAD = 1.3  # env(reference) time per turn / raw_env(reference) time per turn: at most this
GOAL_VS_GIN_RUMMY = 1.0  # seasons env(engine="kernels") turns/s / OpenSpiel gin_rummy turns/s: at least this
GOAL_BATCH_ONE = 2.0  # VectorGame(1) decisions/s / the reference Game's decisions/s, same loop: at least this


@dataclass
class Runner:
    """One environment kept running across rounds (a game in progress carries over to the next round)."""

    label: str
    players: int
    env: object
    seed: int
    turns: int = 0
    games: int = 0
    elapsed: float = 0.0
    game_turns: int = 0  # turns of the game in progress
    completed_turns: int = 0  # turns of the games completed

    def clear(self) -> None:
        """Forget the figures (after the warm-up); the game in progress goes on."""
        self.turns = self.games = self.completed_turns = 0
        self.elapsed = 0.0

    def __post_init__(self) -> None:
        self.env.reset(seed=self.seed)
        self.rand = random.Random(self.seed).random

    def run(self, seconds: float, batch: int = 100) -> None:
        """The AEC loop, in batches of ``batch`` steps, until ``seconds`` have passed (at least one batch)."""
        env = self.env
        last, step, rand, flatnonzero = env.last, env.step, self.rand, np.flatnonzero
        turns = games = completed = 0
        game_turns = self.game_turns
        start = time.perf_counter()
        while True:
            for _ in range(batch):
                obs, _reward, termination, truncation, _info = last()
                if termination or truncation:
                    step(None)
                    if not env.agents:
                        env.reset()
                        games += 1
                        completed += game_turns
                        game_turns = 0
                    continue
                legal = flatnonzero(obs["action_mask"])
                step(int(legal[int(rand() * len(legal))]))
                turns += 1
                game_turns += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        self.turns += turns
        self.games += games
        self.completed_turns += completed
        self.game_turns = game_turns
        self.elapsed += elapsed

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.elapsed

    @property
    def us_per_turn(self) -> float:
        return 1e6 * self.elapsed / self.turns


class OpenSpielLoop:
    """An OpenSpiel game behind the calls of the AEC loop (``reset``, ``last``, ``step``, ``agents``), so that it is
    driven exactly as the PettingZoo environments are: at every decision the acting player's observation tensor and
    legal-action mask, as numpy arrays."""

    def __init__(self, name: str) -> None:
        import pyspiel
        from open_spiel.python.observation import make_observation

        self.game = pyspiel.load_game(name)
        self.observation = make_observation(self.game)  # C++ writes the tensor into this numpy buffer
        self.num_actions = self.game.num_distinct_actions()
        self.state = None
        self.agents: list[int] = []
        self.rand = random.Random(0).random

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rand = random.Random(seed).random
        self.state = self.game.new_initial_state()
        self.agents = list(range(self.game.num_players()))
        self._chance()

    def _chance(self) -> None:
        state = self.state
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(self.rand() * len(outcomes))][0])

    def last(self) -> tuple:
        state = self.state
        if state.is_terminal():
            return None, 0.0, True, False, {}
        player = state.current_player()
        self.observation.set_from(state, player)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[state.legal_actions(player)] = 1
        return {"observation": self.observation.tensor.copy(), "action_mask": mask}, 0.0, False, False, {}

    def step(self, action: int | None) -> None:
        if action is None:  # the game is over: one dead step ends it
            self.agents = []
            return
        self.state.apply_action(action)
        self._chance()


class OneGameLoop:
    """One Seasons game without an environment behind the calls of the AEC loop: a reference ``Game``
    (``encode_observation`` and ``action_mask`` of the decider), a ``CompiledGame`` (``observation`` and
    ``legal_mask``), or a ``VectorGame`` of one game (``observations()`` and ``legal_mask()``), so that the engines
    are timed doing the same work (the observation and mask of every decision) without the environment's
    bookkeeping."""

    def __init__(self, kind: str, num_players: int, level: str) -> None:
        self.kind, self.num_players, self.level = kind, num_players, level
        self.agents: list[int] = []
        self.episode = 0

    def reset(self, seed: int | None = None) -> None:
        from seasons_env import Game
        from seasons_env.vector import VectorGame
        from seasons_env.vector.single import CompiledGame

        self.episode = self.episode + 1 if seed is None else int(seed)
        n, level, seed = self.num_players, self.level, self.episode
        if self.kind == "game":
            self.game = Game.new(n, level, seed=seed)
        elif self.kind == "compiled":
            self.game = CompiledGame.new(n, level, seed)
        else:
            self.game = VectorGame(1, n, level, seed=seed, autoreset=False, engine=self.kind.split(":")[1])
        self.agents = list(range(n))

    def last(self) -> tuple:
        from seasons_env.encoding import action_mask, encode_observation

        game = self.game
        if self.kind == "game":
            if game.is_over:
                return None, 0.0, True, False, {}
            p = game.current_player
            obs = {"observation": encode_observation(game, p), "action_mask": action_mask(game, p)}
            return obs, 0.0, False, False, {}
        if self.kind == "compiled":
            if game.is_over:
                return None, 0.0, True, False, {}
            p = game.current_player
            return {"observation": game.observation(p), "action_mask": game.legal_mask(p)}, 0.0, False, False, {}
        if game.is_over[0]:
            return None, 0.0, True, False, {}
        return {"observation": game.observations()[0], "action_mask": game.legal_mask()[0]}, 0.0, False, False, {}

    def step(self, action: int | None) -> None:
        if action is None:
            self.agents = []
        elif self.kind.startswith("vector"):
            self.game.apply(np.array([action]))
        else:
            self.game.apply(action)


def make_factories(level: str, players: list[int]) -> list[tuple[str, int, Callable[[], object]]]:
    """(label, players, constructor) of every environment measured."""
    import seasons_env

    try:
        from pettingzoo.classic import connect_four_v3, texas_holdem_v4
    except ImportError as exc:  # DependencyNotInstalled or ModuleNotFoundError
        raise SystemExit(
            f"env_speed.py compares against PettingZoo's texas_holdem_v4 and connect_four_v3, which need rlcard and "
            f"pygame: pip install rlcard pygame ({exc})"
        ) from exc

    try:
        import pyspiel  # noqa: F401
    except ImportError as exc:
        raise SystemExit(
            f"env_speed.py compares against OpenSpiel's gin_rummy: pip install open_spiel ({exc})"
        ) from None

    factories: list[tuple[str, int, Callable[[], object]]] = []
    seasons_envs = (  # label, constructor, engine
        ("env(reference)", seasons_env.env, "reference"),
        ("raw_env(reference)", seasons_env.raw_env, "reference"),
        ("env(kernels)", seasons_env.env, "kernels"),
    )
    for n in players:
        for label, make, engine in seasons_envs:
            factories.append(
                (
                    f"seasons {label} {level}",
                    n,
                    lambda n=n, make=make, engine=engine: make(num_players=n, level=level, engine=engine),
                )
            )
    factories.append(("texas_holdem_v4", 2, texas_holdem_v4.env))
    factories.append(("connect_four_v3", 2, connect_four_v3.env))
    factories.append(("openspiel gin_rummy (C++)", 2, lambda: OpenSpielLoop("gin_rummy")))
    for kind, label in ONE_GAME.items():
        factories.append((label, 2, lambda kind=kind: OneGameLoop(kind, 2, level)))
    return factories


#: The one-game rows (no environment): what each engine does for one game, observation and mask included.
ONE_GAME = {
    "game": "one game: Game (reference)",
    "compiled": "one game: CompiledGame",
    "vector:kernels": "one game: VectorGame(1) kernels",
}


def fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget of each figure (default 2.0)")
    parser.add_argument("--level", choices=LEVELS, default="archmage", help="Seasons level (default archmage)")
    parser.add_argument("--quick", action="store_true", help="tiny time budgets: finishes in a few seconds")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    seconds = 0.02 if args.quick else args.seconds

    import pettingzoo

    factories = make_factories(args.level, list(PLAYER_COUNTS))
    quick = " (--quick: rough figures)" if args.quick else ""
    print(f"env speed: {seconds:g} s per figure in {ROUNDS} interleaved rounds{quick}")
    versions = f"numpy {np.__version__}, pettingzoo {pettingzoo.__version__}"
    print(f"python {sys.version.split()[0]} on {sys.platform}, {versions}")

    runners = [Runner(label, n, make(), seed=k) for k, (label, n, make) in enumerate(factories)]
    for runner in runners:  # warm-up: first-call costs, caches; not counted
        runner.run(min(seconds, 0.2) / 4)
        runner.clear()
    for _ in range(ROUNDS):
        for runner in runners:
            runner.run(seconds / ROUNDS)

    print()
    header = f"{'environment':<30}  {'players':>7}  {'turns/s':>9}  {'us/turn':>8}  {'games/s':>8}  {'turns/game':>10}"
    print(header)
    print("-" * len(header))
    for r in runners:
        games_per_s = r.games / r.elapsed
        per_game = f"{r.completed_turns / r.games:,.1f}" if r.games else "-"
        print(
            f"{r.label:<30}  {r.players:>7}  {fmt(r.turns_per_s):>9}  {r.us_per_turn:>8.1f}"
            f"  {games_per_s:>8.2f}  {per_game:>10}"
        )
    print()
    print("turns/s: live agent steps (env.last() + env.step(action)) per second, dead steps and resets included in")
    print("the time; games/s and turns/game count the games completed during the measurement.")

    by_key = {(r.label.split()[1] if r.label.startswith("seasons") else r.label, r.players): r for r in runners}
    wrapped, raw = by_key[("env(reference)", 2)], by_key[("raw_env(reference)", 2)]
    texas, connect4 = by_key[("texas_holdem_v4", 2)], by_key[("connect_four_v3", 2)]
    kernels, gin = by_key[("env(kernels)", 2)], by_key[("openspiel gin_rummy (C++)", 2)]
    one_game = {kind: by_key[(label, 2)] for kind, label in ONE_GAME.items()}
    batch_one = one_game["vector:kernels"].turns_per_s / one_game["game"].turns_per_s
    vs_texas = wrapped.turns_per_s / texas.turns_per_s
    overhead = wrapped.us_per_turn / raw.us_per_turn
    vs_connect4 = wrapped.turns_per_s / connect4.turns_per_s
    kernels_vs_gin = kernels.turns_per_s / gin.turns_per_s

    print()
    print(f"ratios (seasons {args.level}, 2 players)")
    rows = [
        (
            "seasons env(reference) / texas_holdem_v4, turns/s",
            vs_texas,
            f"goal > {GOAL_VS_TEXAS:g}",
            vs_texas > GOAL_VS_TEXAS,
        ),
        (
            "wrapper overhead: env(reference) / raw_env(reference), time per turn",
            overhead,
            f"goal <= {GOAL_OVERHEAD:g}",
            overhead <= GOAL_OVERHEAD,
        ),
        ("seasons env(reference) / connect_four_v3, turns/s", vs_connect4, "", None),
        ("seasons env(reference) / OpenSpiel gin_rummy, turns/s", wrapped.turns_per_s / gin.turns_per_s, "", None),
        (
            'seasons env(engine="kernels") / OpenSpiel gin_rummy',
            kernels_vs_gin,
            f"goal >= {GOAL_VS_GIN_RUMMY:g}",
            kernels_vs_gin >= GOAL_VS_GIN_RUMMY,
        ),
        (
            'seasons env(engine="kernels") / env(reference), turns/s',
            kernels.turns_per_s / wrapped.turns_per_s,
            "",
            None,
        ),
        (
            "one game: CompiledGame / Game, decisions/s",
            one_game["compiled"].turns_per_s / one_game["game"].turns_per_s,
            "",
            None,
        ),
        (
            "one game: VectorGame(1) kernels / Game, decisions/s",
            batch_one,
            f"goal >= {GOAL_BATCH_ONE:g}",
            batch_one >= GOAL_BATCH_ONE,
        ),
    ]
    for name, value, goal, ok in rows:
        print(f"  {name:<52}  {value:>6.2f}  {goal:<11}  {'' if ok is None else verdict(ok)}".rstrip())
    for n in PLAYER_COUNTS[1:]:
        ratio = by_key[("env(reference)", n)].us_per_turn / by_key[("raw_env(reference)", n)].us_per_turn
        print(f"  {f'({n} players) wrapper overhead: env(reference) / raw_env(reference)':<52}  {ratio:>6.2f}")
        ratio = by_key[("env(kernels)", n)].turns_per_s / by_key[("env(reference)", n)].turns_per_s
        print(f"  {f'({n} players) env(engine=kernels) / env(reference), turns/s':<52}  {ratio:>6.2f}")
    print()
    print(
        f"goal: seasons env(reference) >= {GOAL_TURNS:,} turns/s (2 players, {args.level}): {fmt(wrapped.turns_per_s)}"
        f"  {verdict(wrapped.turns_per_s >= GOAL_TURNS)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
