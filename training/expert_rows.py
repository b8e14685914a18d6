"""The rows of expert iteration's searched games (``expert/round-R/games-C.npz``): their fields, written and read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from seasons_env.files import replace_atomically

from .errors import BadFileError

#: A chunk's arrays, a row each searched decision (``expert_targets.game_rows`` makes them).
FIELDS = ("obs", "mask", "target", "seat", "players", "game", "margin", "win", "search_margin", "score")
#: Fields a chunk written before they existed may lack: NaN there (a round that needs them refuses such rows).
LATER_FIELDS = ("search_margin", "score")


def save_rows(rows: dict[str, np.ndarray], path: Path) -> None:
    """Write a chunk of rows (compressed, replacing ``path`` atomically)."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as sink:
            np.savez_compressed(sink, **rows)

    replace_atomically(path, write)


def load_rows(path: Path) -> dict[str, np.ndarray]:
    """A chunk of searched rows written by the stage (its SHA-256 was checked against ``expert.json`` first)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            rows = {name: archive[name] for name in FIELDS if name in archive.files or name not in LATER_FIELDS}
    except (OSError, ValueError, KeyError) as error:
        raise BadFileError(f"{path}: not a chunk of searched games ({error})") from None
    for name in LATER_FIELDS:
        rows.setdefault(name, np.full(len(rows["seat"]), np.nan, dtype=np.float32))
    return rows


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The chunks' rows as one set of arrays."""
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}
