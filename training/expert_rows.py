"""The rows of expert iteration's searched games (``expert/round-R/games-C.npz``): their fields, written and read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from seasons_env.encoding import MAX_SEATS, SELF_HAND, SELF_LIBRARY2, SELF_LIBRARY3, SELF_PACK
from seasons_env.engine.data import NUM_CARDS
from seasons_env.files import replace_atomically

from .errors import BadFileError

#: Where each seat's own hidden cards sit in its observation: hand, library sets of years 2 and 3, draft pack.
PRIVATE_STARTS = (SELF_HAND, SELF_LIBRARY2, SELF_LIBRARY3, SELF_PACK)
#: The oracle features of a row: the private slices of each other seat in turn order after the decider, a missing
#: seat (fewer than four players) zero.
ORACLE_SIZE = (MAX_SEATS - 1) * len(PRIVATE_STARTS) * NUM_CARDS
#: A chunk's arrays, a row each searched decision (``expert_targets.game_rows`` makes them).
FIELDS = ("obs", "mask", "target", "seat", "players", "game", "margin", "win", "search_margin", "score", "oracle")
#: Fields a chunk written before they existed lacks (NaN there when read), each with the setting that trains on it,
#: what a round refusing such rows names, and its values a row (1: one value, no second axis).
LATER_FIELDS = {
    "search_margin": ("expert_value_mix", "the search's root values", 1),
    "score": ("expert_score_coef", "the seats' final scores", 1),
    "oracle": ("expert_oracle_mix", "the other seats' hidden cards", ORACLE_SIZE),
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
    for name, (_, _, width) in LATER_FIELDS.items():
        shape = len(rows["seat"]) if width == 1 else (len(rows["seat"]), width)
        rows.setdefault(name, np.full(shape, np.nan, dtype=np.float32 if width == 1 else np.float16))
    return rows


def refuse_missing_targets(rows: dict[str, np.ndarray], config, record: Path, rounds: str) -> None:
    """``BadFileError`` naming the run's ``record`` when a setting of ``config`` above 0 trains on a field that some
    of ``rows`` (the games of ``rounds``) were written without, by an older version."""
    for field, (setting, what, _) in LATER_FIELDS.items():
        if getattr(config, setting) > 0 and np.isnan(rows[field]).any():
            raise BadFileError(
                f"{record}: {setting} is {getattr(config, setting)}, but games of rounds {rounds} were written "
                f"without {what} (an older version): set {setting}=0 or start a new run"
            )


def concatenate(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The chunks' rows as one set of arrays."""
    return {name: np.concatenate([part[name] for part in parts]) for name in FIELDS}


def oracle_features(observations: Sequence[np.ndarray], seat: int) -> np.ndarray:
    """The hidden cards of the seats other than ``seat`` (``observations[p]``: seat ``p``'s own observation), as
    ``float16`` counts (exact: a card has at most a few copies) of ``ORACLE_SIZE`` values."""
    players = len(observations)
    out = np.zeros((MAX_SEATS - 1, len(PRIVATE_STARTS), NUM_CARDS), dtype=np.float16)
    for k in range(1, players):
        own = observations[(seat + k) % players]
        for j, start in enumerate(PRIVATE_STARTS):
            out[k - 1, j] = own[start : start + NUM_CARDS]
    return out.reshape(ORACLE_SIZE)
