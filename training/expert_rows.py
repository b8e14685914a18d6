"""The rows of expert iteration's searched games (``expert/round-R/games-C.npz``): their fields, written and read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from seasons_env.files import replace_atomically

from .errors import BadFileError

#: A chunk's arrays, a row each searched decision (``expert_targets.game_rows`` makes them).
FIELDS = ("obs", "mask", "target", "seat", "players", "game", "margin", "win", "search_margin", "score")
#: Fields a chunk written before they existed lacks (NaN there when read), each with the setting that trains on it
#: and what a round refusing such rows names.
LATER_FIELDS = {
    "search_margin": ("expert_value_mix", "the search's root values"),
    "score": ("expert_score_coef", "the seats' final scores"),
}


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


def refuse_missing_targets(rows: dict[str, np.ndarray], config, record: Path, rounds: str) -> None:
    """``BadFileError`` naming the run's ``record`` when a setting of ``config`` above 0 trains on a field that some
    of ``rows`` (the games of ``rounds``) were written without, by an older version."""
    for field, (setting, what) in LATER_FIELDS.items():
        if getattr(config, setting) > 0 and np.isnan(rows[field]).any():
            raise BadFileError(
                f"{record}: {setting} is {getattr(config, setting)}, but games of rounds {rounds} were written "
                f"without {what} (an older version): set {setting}=0 or start a new run"
            )


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The chunks' rows as one set of arrays."""
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}
