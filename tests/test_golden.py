"""Golden streams: seeded games whose positions, observations and masks must not change by accident.

For each seeded random game (every level and player count) the test hashes the ``to_dict()`` of every position,
and the observation and action mask of every seat at every position. A change to any of them must come with a
version bump (state format, observation layout or action table): the stored hashes name the versions they were
made with, and a hash that changes while the versions stay the same fails here.

Regenerate after a deliberate, versioned change with ``python tests/test_golden.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from random_play import random_game

from seasons_env import ACTION_TABLE_VERSION
from seasons_env.encoding import OBSERVATION_VERSION, action_mask, encode_observation
from seasons_env.engine import STATE_VERSION

GOLDEN = Path(__file__).with_name("golden") / "streams.json"
GAMES = [
    (level, players, seed)
    for level in ("apprentice", "magician", "archmage")
    for players, seed in ((2, 1), (3, 2), (4, 3))
] + [("archmage", 2, 17), ("archmage", 3, 29), ("magician", 4, 41)]


def versions() -> dict[str, int]:
    return {"state": STATE_VERSION, "observation": OBSERVATION_VERSION, "action_table": ACTION_TABLE_VERSION}


def stream_hashes(level: str, players: int, seed: int) -> dict[str, str]:
    positions, observations, masks = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()

    def record(game) -> None:
        positions.update(json.dumps(game.to_dict(), sort_keys=True).encode())
        for seat in range(players):
            observations.update(encode_observation(game, seat).tobytes())
            masks.update(action_mask(game, seat).astype(np.int8).tobytes())

    _, decisions = random_game(players, level, seed, on_step=record)
    return {
        "decisions": decisions,
        "positions": positions.hexdigest(),
        "observations": observations.hexdigest(),
        "masks": masks.hexdigest(),
    }


def _key(level: str, players: int, seed: int) -> str:
    return f"{level}/{players}p/seed{seed}"


@pytest.mark.parametrize(("level", "players", "seed"), GAMES, ids=[_key(*g) for g in GAMES])
def test_seeded_game_streams_are_unchanged(level: str, players: int, seed: int) -> None:
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    expected = stored["games"][_key(level, players, seed)]
    actual = stream_hashes(level, players, seed)
    changed = [name for name in actual if actual[name] != expected[name]]
    if not changed:
        return
    bumped = {name for name, v in versions().items() if stored["versions"][name] != v}
    assert not bumped, (
        f"versions {sorted(bumped)} were bumped: regenerate the golden streams with `python tests/test_golden.py`"
    )
    raise AssertionError(
        f"{_key(level, players, seed)}: {', '.join(changed)} changed without a version bump of the state format, "
        "the observation layout or the action table (trained models and saved positions depend on them)"
    )


def main() -> None:
    data = {"versions": versions(), "games": {_key(*g): stream_hashes(*g) for g in GAMES}}
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({len(GAMES)} games)")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
