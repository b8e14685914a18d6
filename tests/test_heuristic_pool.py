"""The heuristic seats' decisions answered in worker processes (``training.heuristic_pool``): the same games as
in one process, failures raised in the parent, workers that end with ``close``."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from seasons_env import Game
from seasons_env.vector import VectorGame
from seasons_env.vector.arrays import game_of_row_bytes
from training.config import make_config
from training.heuristic_pool import HeuristicPool, Request, decide
from training.selfplay import Deal, SelfPlayGames


def heuristic_schedule(players: tuple[int, ...]):
    def schedule(rng: np.random.Generator) -> Deal:
        n = players[int(rng.integers(len(players)))]
        opponent = "heuristic" if rng.random() < 0.8 else "random"
        return Deal(n, int(rng.integers(n)), opponent, int(rng.integers(2**40)))

    return schedule


def play(workers: int, steps: int) -> tuple[list, list, int, dict, int]:
    """``steps`` learner steps of random legal actions in 6 games, mostly against the heuristic."""
    with HeuristicPool(workers) as pool:
        vec = SelfPlayGames(6, "apprentice", heuristic_schedule((2, 3)), {}, seed=11, heuristic_pool=pool)
        records = vec.start()
        rng = np.random.default_rng(4)
        observed = []
        for _ in range(steps):
            obs, mask = vec.observe()
            observed.append((obs.copy(), mask.copy()))
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask], dtype=np.int64)
            records += vec.step(actions)
        started = len(pool._processes)
    return observed, records, vec.decisions, vec.state_dict(), started


def test_worker_processes_play_the_same_games_as_one_process() -> None:
    """Observations, masks, results, decision counts and the heuristic agents' saved states are equal with 0, 1
    and 2 workers: an answer depends on its request only, never on which process computed it."""
    alone = play(0, 60)
    assert alone[4] == 0
    assert len(alone[1]) >= 2 and "heuristic" in {r.opponent for r in alone[1]}  # games finished
    for workers in (1, 2):
        observed, records, decisions, state, started = play(workers, 60)
        assert started == workers  # the workers did answer
        assert records == alone[1] and decisions == alone[2] and state == alone[3]
        for (obs, mask), (obs_0, mask_0) in zip(observed, alone[0], strict=True):
            assert np.array_equal(obs, obs_0) and np.array_equal(mask, mask_0)


@pytest.mark.parametrize("engine", ["reference", "kernels"])
def test_a_row_rebuilds_the_game_and_its_decision(engine: str) -> None:
    """``VectorGame.row_bytes`` rebuilt by ``game_of_row_bytes`` is the batch's game (legal actions and generator
    included); ``decide`` answers as the agent does on that game determinized with the agent's generator, and
    gives back the agent's state after it."""
    for players in (2, 3, 4):
        batch = VectorGame(3, num_players=players, level="magician", seed=5, engine=engine)
        rng = np.random.default_rng(players)
        for _ in range(40 * players):
            batch.apply(np.array([rng.choice(np.flatnonzero(m)) for m in batch.legal_mask_of(np.arange(3))]))
        rows = batch.row_bytes(np.arange(3))
        for index, row in enumerate(rows):
            game = game_of_row_bytes(row, players)
            assert game.to_dict() == batch.game(index).to_dict()
            assert game.legal_action_list() == batch.game(index).legal_action_list()
            seat = game.current_player
            agent, twin = HeuristicAgent(seed=index), HeuristicAgent(seed=index)
            action, after = decide(Request(agent.state_dict(), row, players, seat, game.legal_action_list()))
            expected = twin.act(batch.game(index).determinize(seat, twin.rng), seat, game.legal_action_list())
            assert action == expected and after == twin.state_dict()
    with pytest.raises(ValueError, match="a 2-player row is"):
        game_of_row_bytes(rows[0], 2)


def requests(count: int) -> list[Request]:
    game = Game.new(2, "apprentice", seed=3)
    batch = VectorGame.from_games([game] * count, autoreset=False)
    return [
        Request(HeuristicAgent(seed=k).state_dict(), row, 2, game.current_player, game.legal_action_list())
        for k, row in enumerate(batch.row_bytes(np.arange(count)))
    ]


def test_a_failure_in_a_worker_is_raised_here_with_its_traceback() -> None:
    pool = HeuristicPool(1)
    broken = requests(2)
    broken[1].row = broken[1].row[:-1]  # the worker's share: the second request
    with pytest.raises(RuntimeError, match=r"(?s)a heuristic worker failed.*ValueError: a 2-player row is"):
        pool.decide(broken)
    assert pool._processes == []  # closed after the failure
    assert len(pool.decide(requests(3))) == 3  # and started again when used


def test_close_ends_the_workers() -> None:
    pool = HeuristicPool(2)
    assert len(pool.decide(requests(4))) == 4
    processes = list(pool._processes)
    assert len(processes) == 2 and all(p.poll() is None for p in processes)
    pool.close()
    assert pool._processes == [] and all(p.poll() == 0 for p in processes)


def test_bad_worker_counts_are_named() -> None:
    with pytest.raises(ValueError, match="heuristic workers must be an int >= 0; got -1"):
        HeuristicPool(-1)
    with pytest.raises(ValueError, match="heuristic_workers: must be at least 0"):
        make_config("smoke", ["heuristic_workers=-1"])
