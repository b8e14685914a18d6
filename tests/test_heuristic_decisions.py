"""The heuristic player's decisions and evaluations are pinned: speeding it up must not change one of them.

The digests were recorded with the heuristic as it was before it was optimised (issue 12). A change that is
meant to alter the heuristic's play regenerates them with ``PYTHONPATH=. python tests/test_heuristic_decisions.py``
and says so in its commit; a speed-up must leave them alone.

* ``games``: the action sequence of seeded games at every level with 2, 3 and 4 players, the heuristic in
  every seat, and 2- and 3-player games of the heuristic against random players (through ``play_game``,
  which gives each decision a fresh determinized view; re-recorded, the heuristic unchanged, when the agents'
  seeds moved to a stream of their own, ``agent_seed``, apart from the deal's seed).
* ``evaluations``: the exact ``repr`` of ``margins(game, seat)`` for every seat in positions of random games,
  so a floating-point change is caught even where it would not flip a decision.
* ``selfplay``: heuristic seats answered inside ``seasons_training.selfplay.SelfPlayGames`` against a random learner
  (re-recorded, the heuristic unchanged, when ``SelfPlayGames`` moved onto ``VectorGame`` batches: its games
  draw their random numbers in another order; and when positions went to state format 3: the trace holds the
  games' positions, whose ``version`` changed and nothing else).
* ``split_plans``: library split plans for random hands (recorded with the code before it was optimised too).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from random_play import random_positions

from seasons_agents import RandomAgent, play_game
from seasons_agents.heuristic import HeuristicAgent, margins
from seasons_env import LEVELS

PINNED = {
    "games": "8f8f43c17d9137d06bcc67bc81a3571f6425488b4586bcec0f1292dafe6c769d",
    "evaluations": "16264cd28e811bd2decd7e22c4d62273aa56693beb0f83f88418e90d97d512ec",
    "selfplay": "65316a452ed138f64814e095b90bca40f702a70e81c0c0ba886bd81107e707bd",
    "split_plans": "d055402921d94fd15c9a4e057525f4b7842e13bfb0ffd3837f5cbfaca43558c2",
}


def game_actions() -> dict[str, list[int]]:
    """Action sequences of the seeded heuristic games, by a name saying who played."""
    out: dict[str, list[int]] = {}
    for level in LEVELS:
        for n in (2, 3, 4):
            seed = 100 + 10 * n + len(level)
            record = play_game([HeuristicAgent() for _ in range(n)], level, seed=seed, agent_seed=seed)
            out[f"heuristic-x{n}-{level}-{seed}"] = record.actions
    for n, level, seed in ((2, "archmage", 7), (2, "magician", 8), (3, "archmage", 9)):
        for seat in range(n):
            agents = [HeuristicAgent() if k == seat else RandomAgent() for k in range(n)]
            record = play_game(agents, level, seed=seed, agent_seed=seed)
            out[f"heuristic-seat{seat}-vs-random-{n}-{level}-{seed}"] = record.actions
    return out


def evaluations() -> list[str]:
    """``repr`` of every seat's margins in every 5th position of random games (2-4 players, archmage)."""
    out = []
    for n in (2, 3, 4):
        for seed in range(2):
            for game in random_positions(n, "archmage", seed, every=5):
                out.extend(repr(margins(game, seat)) for seat in range(n))
    return out


def selfplay_decisions() -> list:
    """Finished games' results, the games' states and the decision count after self-play steps with heuristic
    seats (2-4 players, a random learner)."""
    from seasons_training.selfplay import HEURISTIC, Deal, SelfPlayGames

    def schedule(rng: np.random.Generator) -> Deal:
        players = int(rng.integers(2, 5))
        return Deal(players, int(rng.integers(players)), HEURISTIC, int(rng.integers(2**31)))

    games = SelfPlayGames(3, "archmage", schedule, {}, seed=5)
    games.start()
    learner = np.random.default_rng(6)
    trace: list = []
    for _ in range(150):
        _, mask = games.observe()
        actions = [int(learner.choice(np.flatnonzero(row))) if row.any() else 0 for row in mask]
        for done in games.step(actions):
            trace.extend((done.players, done.seat, done.margin, done.score))
    trace.extend(games.game(slot).to_dict() for slot in range(games.size))
    trace.append(games.decisions)
    return trace


def split_plans() -> list:
    """Library split plans for 40 random hands of 6-9 cards (2-4 players), with the year sets still needed."""
    from seasons_agents.heuristic import _split_plan

    rng = np.random.default_rng(2024)
    out = []
    for k in range(40):
        n = int(rng.integers(2, 5))
        size = int(rng.integers(6, 10))
        hand = [int(c) for c in rng.choice(np.arange(1, 51), size=size, replace=False)]
        need2 = min(3, size - 3) if k % 3 else int(rng.integers(0, 4))
        need3 = min(3, size - need2)
        out.append([hand, need2, need3, n, [list(x) for x in _split_plan(hand, need2, need3, n)]])
    return out


def digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def current() -> dict[str, str]:
    return {part: digest(compute()) for part, compute in PARTS.items()}


PARTS = {"games": game_actions, "evaluations": evaluations, "selfplay": selfplay_decisions, "split_plans": split_plans}


@pytest.mark.parametrize("part", sorted(PINNED))
def test_heuristic_decisions_are_pinned(part: str) -> None:
    assert digest(PARTS[part]()) == PINNED[part], f"the heuristic's {part} changed"


if __name__ == "__main__":
    print(json.dumps(current(), indent=4))


def test_a_bonus_that_cannot_enable_a_summon_is_worth_minus_infinity_as_when_tried() -> None:
    # action_values skips trying a gauge or exchange bonus that cannot make a new summon legal; trying it (the
    # bonus applied, its steps settled, the new summons looked for) must give the same -inf.
    from seasons_agents.heuristic import _enabled_summon_value, _may_enable_summon, settle
    from seasons_env.engine import actions as A
    from seasons_env.engine import steps

    turn = steps.kind("turn")
    skipped = tried = 0
    for n, level in ((2, "archmage"), (3, "archmage"), (4, "archmage"), (2, "magician"), (3, "magician")):
        for seed in range(5):
            for game in random_positions(n, level, seed, every=1):
                task = game.pending_task()
                if task is None or task[0] != turn:
                    continue
                seat, legal = task[1], game.legal_action_list()
                for bonus in (A.BONUS_GAUGE, A.BONUS_EXCHANGE):
                    if bonus not in legal:
                        continue
                    g = game.clone()
                    g.apply(bonus)
                    g, _ = settle(g, seat)
                    value = _enabled_summon_value(g, seat, legal)
                    if _may_enable_summon(game, seat, bonus, legal):
                        tried += 1
                    else:
                        skipped += 1
                        assert value == float("-inf"), (game, bonus)
    assert skipped > 40 and tried > 100, (skipped, tried)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_cached_evaluations_equal_fresh_ones(num_players: int) -> None:
    # The evaluation caches values by the facts they read: for positions one action apart (a decision's
    # candidates, where cached values are reused the most) a value from warm caches equals one computed afresh,
    # for every seat, to the last bit; so does the value of a position rebuilt from its to_dict().
    from seasons_agents.heuristic_eval import clear_caches, evaluate
    from seasons_env import Game

    checked = 0
    for game in random_positions(num_players, "archmage", 7, every=3):
        children = [game]
        for action in game.legal_action_list():
            child = game.clone()
            child.apply(action)
            children.append(child)
        warm = [[repr(evaluate(child, seat)) for seat in range(num_players)] for child in children]
        for child, values in zip(children, warm, strict=True):
            clear_caches()
            assert [repr(evaluate(child, seat)) for seat in range(num_players)] == values
            checked += 1
        clear_caches()
        rebuilt = Game.from_dict(game.to_dict())
        assert [repr(evaluate(rebuilt, seat)) for seat in range(num_players)] == warm[0]
    assert checked > 200
