"""Data sets of an agent's decisions for behaviour cloning: ``python -m seasons_training generate``.

Every seat of every game is played by the teacher agent (the heuristic by default), each decision on a view
determinized for its seat as in ``seasons_agents.base.play_game``. Each decision with more than one legal action
becomes one row: the deciding seat's observation (``seasons_env.encoding``), its action mask, the action the
teacher chose, the seat, the number of players, the game's index and the seat's final margin (its score
minus the best other score). Game ``g`` uses the seed ``seed * 1_000_003 + g``, so a data set is the same
whatever the number of worker processes. The file is a compressed ``.npz`` written atomically.
"""

from __future__ import annotations

import functools
import math
import zipfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from seasons_env import Game
from seasons_env.common.parallel import run_here_and_in_workers
from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_env.files import replace_atomically
from seasons_env.registry import make_agent

from .data_config import FIELDS, DataConfig, concatenate, final_margins, game_seed
from .errors import BadFileError


def record_game(args: tuple[DataConfig, int]) -> dict[str, np.ndarray]:
    """Play game ``index`` with the teacher in every seat; its decision rows (top-level for worker processes)."""
    config, index = args
    players = config.num_players[index % len(config.num_players)]
    seed = game_seed(config.seed, index)
    agents = [make_agent(config.teacher, seed * 8 + k, "teacher") for k in range(players)]
    student_seat, student = -1, None
    if config.student is not None:
        from seasons_agents.learned import PolicyAgent

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


def generate(
    config: DataConfig,
    workers: int = 1,
    progress: bool = True,
    batched: bool = True,
) -> dict[str, np.ndarray]:
    """Play ``config.games`` games and gather their decision rows, in game order. ``batched=False`` plays them one
    by one on the reference engine even where the batched core could (the same rows, and nothing to compile)."""
    from tqdm import tqdm

    from .data_compiled import blocks, compiled_teacher, record_block

    if batched and compiled_teacher(config):  # the heuristic: the same rows, on the batched core a block at a time
        jobs = [(config, *block) for block in blocks(config.games)]
        play, sizes = record_block, [count for _, _, count in jobs]
    else:
        jobs = [(config, g) for g in range(config.games)]
        play, sizes = record_game, [1] * len(jobs)
    bar = tqdm(total=config.games, unit="game", disable=not progress, desc="generate")
    parts: list = [None] * len(jobs)
    # This process and workers - 1 others, no more than jobs; the parts come as they finish, kept in the jobs' order.
    played = run_here_and_in_workers(functools.partial(_numbered, play), enumerate(jobs), min(workers, len(jobs)))
    try:
        for k, part in played:
            parts[k] = part
            bar.update(sizes[k])
    finally:
        played.close()
        bar.close()
    return concatenate(parts)


def _numbered(play: Callable, numbered: tuple[int, tuple]) -> tuple[int, dict[str, np.ndarray]]:
    """``play`` of a numbered job, with its number (a top-level function: the worker processes run it)."""
    k, job = numbered
    return k, play(job)


def save_dataset(data: dict[str, np.ndarray], path: Path | str, config: DataConfig) -> None:
    """Write the rows and the settings that made them to a compressed ``.npz`` atomically."""
    import json

    meta = json.dumps(asdict(config))

    def write(temporary: Path) -> None:  # np.savez_compressed's archive, at the fastest compression level
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL) as sink:
            for name, array in {**data, "config": np.asarray(meta)}.items():
                with sink.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)

    replace_atomically(path, write)


#: zlib's level for data sets: the observations are mostly zeros, and level 1 writes them about twice as fast as
#: numpy's default (6) into files about three times as large (still a thirtieth of the rows' memory).
COMPRESS_LEVEL = 1
#: Each field's kinds of dtype (numpy's ``dtype.kind``): floats, booleans, signed or unsigned integers.
FIELD_KINDS = {"obs": "f", "mask": "b", "action": "iu", "seat": "iu", "players": "iu", "game": "iu", "margin": "f"}
#: Rows checked at once for finite values (a bounded temporary, whatever the data set's size).
_CHUNK = 1 << 16
#: The largest magnitude of an observation's value: they are small counts and scaled amounts (crystals / 100,
#: cards in play, ...), and a value far beyond them only makes training's numbers overflow.
OBSERVATION_BOUND = 1000.0


def _member_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[tuple[int, ...], np.dtype]:
    """A ``.npy`` member's shape and dtype, read from its header alone; ``ValueError`` unless its header describes
    exactly the bytes the member holds (so that reading it allocates no more than the data it has)."""
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError(f"an .npy format version {version} this code does not read")
        header = member.tell()
    if dtype.hasobject:
        raise ValueError("it holds Python objects")
    needed = math.prod(shape) * dtype.itemsize
    if needed != info.file_size - header:
        raise ValueError(
            f"its header describes {needed} bytes ({shape} of {dtype}); it holds {info.file_size - header}"
        )
    return tuple(shape), dtype


def _read_fields(path: Path) -> dict[str, np.ndarray]:
    """The arrays of ``FIELDS`` in the ``.npz`` at ``path``: every header, dtype and shape is checked before any
    data is read (``BadFileError`` naming the field otherwise)."""
    if not zipfile.is_zipfile(path):
        raise BadFileError(
            f"{path}: not a data set written by 'python -m seasons_training generate' (a .npz archive of arrays; "
            "this file is not a zip archive: empty, truncated, or an .npy or other file)"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()}
            missing = [name for name in FIELDS if f"{name}.npy" not in members]
            if missing:
                raise BadFileError(f"{path}: missing field(s) {', '.join(missing)}")
            headers = {}
            for name in FIELDS:
                try:
                    headers[name] = _member_header(archive, members[f"{name}.npy"])
                except ValueError as error:
                    raise BadFileError(f"{path}: field {name}: {error}") from None
            rows = headers["action"][0][0] if len(headers["action"][0]) == 1 else -1
            for name, (shape, dtype) in headers.items():
                expected = {"obs": (rows, OBSERVATION_SIZE), "mask": (rows, NUM_ACTIONS)}.get(name, (rows,))
                if shape != expected or rows < 0:
                    raise BadFileError(f"{path}: field {name} must have shape {expected}; got {shape}")
                if dtype.kind not in FIELD_KINDS[name]:
                    kinds = {"f": "floating point", "b": "bool", "iu": "integer"}[FIELD_KINDS[name]]
                    raise BadFileError(f"{path}: field {name} must be {kinds}; got {dtype}")
            if rows == 0:
                raise BadFileError(f"{path}: the data set holds no rows")
            data = {}
            for name in FIELDS:
                with archive.open(members[f"{name}.npy"]) as member:
                    data[name] = np.lib.format.read_array(member, allow_pickle=False)
    except BadFileError:
        raise
    except Exception as error:  # a damaged archive (bad CRC, truncated member, ...): say which file
        raise BadFileError(
            f"{path}: not a data set written by 'python -m seasons_training generate' ({type(error).__name__}: {error})"
        ) from None
    return data


def load_dataset(path: Path | str) -> dict[str, np.ndarray]:
    """Read a data set written by ``save_dataset``, checking every field's presence, dtype, shape, finiteness and
    range (``BadFileError`` naming the file and the field); observations are given as float32."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such data set")
    data = _read_fields(path)
    rows = len(data["action"])
    data["obs"] = data["obs"].astype(np.float32, copy=False)
    data["margin"] = data["margin"].astype(np.float32, copy=False)
    for name in ("obs", "margin"):
        for start in range(0, rows, _CHUNK):
            if not np.isfinite(data[name][start : start + _CHUNK]).all():
                raise BadFileError(f"{path}: field {name} holds NaN or infinite values (from row {start})")
    for start in range(0, rows, _CHUNK):
        if np.abs(data["obs"][start : start + _CHUNK]).max() > OBSERVATION_BOUND:
            raise BadFileError(f"{path}: field obs holds values beyond +-{OBSERVATION_BOUND:g} (from row {start})")
    players, seats, games = (data[name].astype(np.int64) for name in ("players", "seat", "game"))
    if players.min() < 2 or players.max() > 4:
        raise BadFileError(f"{path}: field players must be 2, 3 or 4; got {players.min()}..{players.max()}")
    if seats.min() < 0 or (seats >= players).any():
        raise BadFileError(f"{path}: field seat must be a seat of the game's players (0..players-1)")
    if games.min() < 0 or games.max() > np.iinfo(np.int32).max:
        raise BadFileError(f"{path}: field game must be a game index in 0..{np.iinfo(np.int32).max}")
    actions = data["action"].astype(np.int64)
    if actions.min() < 0 or actions.max() >= NUM_ACTIONS:
        raise BadFileError(f"{path}: field action must hold action ids in 0..{NUM_ACTIONS - 1}")
    if not data["mask"][np.arange(rows), actions].all():
        raise BadFileError(f"{path}: field action: some rows' action is not legal under their mask")
    return data
