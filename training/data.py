"""Data sets of an agent's decisions for behaviour cloning: ``python -m training generate``.

Every seat of every game is played by the teacher agent (the heuristic by default), each decision on a view
determinized for its seat as in ``agents.base.play_game``. Each decision with more than one legal action
becomes one row: the deciding seat's observation (``seasons_env.encoding``), its action mask, the action the
teacher chose, the seat, the number of players, the game's index and the seat's final margin (its score
minus the best other score). Game ``g`` uses the seed ``seed * 1_000_003 + g``, so a data set is the same
whatever the number of worker processes. The file is a compressed ``.npz`` written atomically.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from seasons_env import Game
from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.engine import LEVELS, check_choice, check_num_players
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.files import replace_atomically
from seasons_env.registry import make_agent, parse_agent_spec

FIELDS = ("obs", "mask", "action", "seat", "players", "game", "margin")


@dataclass(frozen=True)
class DataConfig:
    games: int = 100
    players: tuple[int, ...] = (2,)  # game g has players[g % len(players)] players
    level: str = "archmage"
    teacher: str = "heuristic"
    seed: int = 0
    # DAgger: a model file whose policy plays one seat of each game (seat g % players of game g); the teacher
    # still labels every decision, the student's included, so the data covers the positions the student reaches.
    student: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"games must be a positive integer; got {self.games!r}")
        if not self.players:
            raise ValueError("players must name at least one player count (2-4)")
        for n in self.players:
            check_num_players(n, "players")
        check_choice("level", self.level, LEVELS)
        parse_agent_spec(self.teacher, "teacher")  # ValueError naming the spec and the known agents
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {self.seed!r}")
        if self.student is not None:
            from agents.learned import load_cached

            load_cached(self.student)  # an unreadable model fails here, naming the file


def final_margins(scores: Sequence[int]) -> list[int]:
    """Each seat's score minus the best score among the other seats."""
    return [s - max(scores[:p] + scores[p + 1 :]) for p, s in enumerate(scores)]


def game_seed(seed: int, game: int) -> int:
    return seed * 1_000_003 + game


def record_game(args: tuple[DataConfig, int]) -> dict[str, np.ndarray]:
    """Play game ``index`` with the teacher in every seat; its decision rows (top-level for worker processes)."""
    config, index = args
    players = config.players[index % len(config.players)]
    seed = game_seed(config.seed, index)
    agents = [make_agent(config.teacher, seed * 8 + k, "teacher") for k in range(players)]
    student_seat, student = -1, None
    if config.student is not None:
        from agents.learned import PolicyAgent

        student_seat, student = index % players, PolicyAgent(seed * 8 + 7, model=config.student)
    game = Game.new(players, config.level, seed=seed)
    view_rng = np.random.default_rng([seed, 0x51EE])
    observations, masks, actions, seats = [], [], [], []
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_action_list()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        view = game.determinize(seat, view_rng)
        action = int(agents[seat].act(view, seat, list(legal)))
        observations.append(encode_observation(game, seat))
        masks.append(action_mask(game, seat).astype(bool))
        actions.append(action)
        seats.append(seat)
        game.apply(action if seat != student_seat else int(student.act(game, seat, list(legal))))
    margins = final_margins([int(s) for s in game.scores()])
    rows = len(actions)
    return {
        "obs": np.asarray(observations, dtype=np.float32).reshape(rows, OBSERVATION_SIZE),
        "mask": np.asarray(masks, dtype=bool).reshape(rows, NUM_ACTIONS),
        "action": np.asarray(actions, dtype=np.int16),
        "seat": np.asarray(seats, dtype=np.int8),
        "players": np.full(rows, players, dtype=np.int8),
        "game": np.full(rows, index, dtype=np.int32),
        "margin": np.asarray([margins[s] for s in seats], dtype=np.float32),
    }


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}


def generate(
    config: DataConfig, workers: int = 1, progress: bool = True, on_game: Callable[[], None] | None = None
) -> dict[str, np.ndarray]:
    """Play ``config.games`` games and gather their decision rows, in game order."""
    from tqdm import tqdm

    jobs = [(config, g) for g in range(config.games)]
    bar = tqdm(total=config.games, unit="game", disable=not progress, desc="generate")
    parts = []
    workers = min(workers, config.games)  # no more processes than games
    if workers <= 1:
        results = map(record_game, jobs)
        for part in results:
            parts.append(part)
            bar.update()
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(record_game, jobs, chunksize=4):
                parts.append(part)
                bar.update()
    bar.close()
    return concatenate(parts)


def save_dataset(data: dict[str, np.ndarray], path: Path | str, config: DataConfig) -> None:
    """Write the rows and the settings that made them to a compressed ``.npz`` atomically."""
    import json

    meta = json.dumps({**asdict(config), "players": list(config.players)})

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as sink:
            np.savez_compressed(sink, **data, config=np.asarray(meta))

    replace_atomically(path, write)


def load_dataset(path: Path | str) -> dict[str, np.ndarray]:
    """Read a data set written by ``save_dataset``, checking every field's shape and range."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such data set")
    try:
        with np.load(path, allow_pickle=False) as archive:
            data = {name: archive[name] for name in FIELDS if name in archive.files}
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a data set written by 'python -m training generate' ({error})") from None
    missing = [name for name in FIELDS if name not in data]
    if missing:
        raise ValueError(f"{path}: missing field(s) {', '.join(missing)}")
    rows = len(data["action"])
    if data["obs"].shape != (rows, OBSERVATION_SIZE) or data["mask"].shape != (rows, NUM_ACTIONS):
        raise ValueError(
            f"{path}: obs must be ({rows}, {OBSERVATION_SIZE}) and mask ({rows}, {NUM_ACTIONS}); got "
            f"{data['obs'].shape} and {data['mask'].shape}"
        )
    for name in FIELDS[2:]:
        if data[name].shape != (rows,):
            raise ValueError(f"{path}: {name} must have {rows} values; got shape {data[name].shape}")
    actions = data["action"].astype(np.int64)
    if rows and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
        raise ValueError(f"{path}: action ids must be in 0..{NUM_ACTIONS - 1}")
    if rows and not data["mask"][np.arange(rows), actions].all():
        raise ValueError(f"{path}: some rows' action is not legal under their mask")
    return data
