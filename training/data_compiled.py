"""The heuristic's data sets played on the batched core: ``data.record_game``'s rows, many games at a time.

A block of games is held as the rows of one ``VectorGame`` per player count (rules kernels). Every seat is the
compiled heuristic (``agents/heuristic_compiled.py``): each decision's view is written by
``VectorGame.determinize_into`` with the same draws from the game's view generator as ``Game.determinize`` takes, and
answered by ``HeuristicRows.act`` with the same actions and draws as ``HeuristicAgent.act``; the observation is the
kernels' (the same values as ``encode_observation``). So a block gives exactly the rows ``record_game`` gives for its
games, in game order (``tests/test_data.py`` compares them), several times faster. DAgger's student plays its seat
through one forward pass over all the games waiting on it (``PolicyAgent.forward``): the greedy ``PolicyAgent``'s
action, up to the float rounding of a batched pass.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine.actions import NUM_ACTIONS

from .data import DataConfig, final_margins, game_seed

#: Games a block plays at once (the rows of its batch); a worker process plays a block at a time.
BLOCK_GAMES = 32
#: Seeds of the heuristic agents of a game (``seed * 8 + seat``) and of its student (``seed * 8 + 7``), as in
#: ``record_game``.
_AGENT_SEEDS = 8


def compiled_teacher(config: DataConfig) -> bool:
    """Whether ``config``'s games are played on the batched core: its teacher is the heuristic."""
    return config.teacher == "heuristic"


def blocks(games: int, size: int = BLOCK_GAMES) -> list[tuple[int, int]]:
    """``(first game, count)`` of each block of ``games`` games, in order."""
    return [(first, min(size, games - first)) for first in range(0, games, size)]


class _Slot:
    """One game under way in a batch row: its index, generators, agents and rows so far."""

    def __init__(self, config: DataConfig, index: int, players: int, student: object | None) -> None:
        from seasons_agents.heuristic import HeuristicAgent

        seed = game_seed(config.seed, index)
        self.index, self.seed = index, seed
        self.agents = [HeuristicAgent(seed * _AGENT_SEEDS + k) for k in range(players)]
        self.view_rng = np.random.default_rng([seed, 0x51EE])
        self.student_seat = index % players if student is not None else -1
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[int] = []
        self.seats: list[int] = []


def record_block(args: tuple[DataConfig, int, int]) -> dict[str, np.ndarray]:
    """The rows of games ``first .. first + count - 1`` (top-level for worker processes), in game order."""
    config, first, count = args
    student = None
    if config.student is not None:
        from seasons_agents.learned import PolicyAgent

        student = PolicyAgent(0, model=config.student)  # greedy: its generator is never drawn from
    parts: dict[int, dict[str, np.ndarray]] = {}
    indices = list(range(first, first + count))
    for players in sorted(set(config.num_players)):
        mine = [g for g in indices if config.num_players[g % len(config.num_players)] == players]
        if mine:
            parts.update(_play(config, players, mine, student))
    from .data import concatenate

    return concatenate([parts[g] for g in indices])


def _play(config: DataConfig, players: int, games: list[int], student: object | None) -> dict[int, dict]:
    """Play ``games`` (all of ``players`` players) together, one batch row each; their rows by game index."""
    from seasons_agents.heuristic_compiled import HeuristicRows
    from seasons_env.vector import VectorGame

    size = len(games)
    batch = VectorGame(size, num_players=players, level=config.level, autoreset=False)
    slots = [_Slot(config, g, players, student) for g in games]
    batch.new_games(np.arange(size), [slot.seed for slot in slots])
    rows = HeuristicRows(players)
    done: dict[int, dict] = {}
    while len(done) < size:
        over = batch.is_over.copy()
        masks = batch.legal_mask()
        current = batch.current_player
        actions = np.argmax(masks, axis=1)  # the forced moves' only action
        deciding = np.flatnonzero(~over & (masks.sum(axis=1) > 1))
        if deciding.size:
            observations = batch.observe(deciding, current[deciding])
            students = [j for j, i in enumerate(deciding.tolist()) if current[i] == slots[i].student_seat]
            if students:
                logits, _ = student.forward(observations[students])
                logits = np.where(masks[deciding[students]], logits, -np.inf)
                actions[deciding[students]] = np.argmax(logits, axis=1)
            for j, i in enumerate(deciding.tolist()):
                slot, seat = slots[i], int(current[i])
                legal = np.flatnonzero(masks[i])
                batch.determinize_into(i, seat, slot.view_rng, rows.view_state, 0)
                label = rows.act(slot.agents[seat], seat, legal)
                if seat != slot.student_seat:
                    actions[i] = label
                slot.obs.append(observations[j])
                slot.masks.append(masks[i])
                slot.actions.append(label)
                slot.seats.append(seat)
        info = batch.apply(actions, where=~over)
        scores = batch.scores()
        for i in np.flatnonzero(info.finished).tolist():
            done[slots[i].index] = _rows(slots[i], players, scores[i])
            slots[i].obs = slots[i].masks = []  # free the rows of a game as soon as they are packed
    return done


def _rows(slot: _Slot, players: int, scores: np.ndarray) -> dict[str, np.ndarray]:
    from seasons_env.encoding import OBSERVATION_SIZE

    margins = final_margins([int(s) for s in scores])
    rows = len(slot.actions)
    return {
        "obs": np.asarray(slot.obs, dtype=np.float32).reshape(rows, OBSERVATION_SIZE),
        "mask": np.asarray(slot.masks, dtype=bool).reshape(rows, NUM_ACTIONS),
        "action": np.asarray(slot.actions, dtype=np.int16),
        "seat": np.asarray(slot.seats, dtype=np.int8),
        "players": np.full(rows, players, dtype=np.int8),
        "game": np.full(rows, slot.index, dtype=np.int32),
        "margin": np.asarray([margins[s] for s in slot.seats], dtype=np.float32),
    }
