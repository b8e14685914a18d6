"""Golden playthroughs: seeded random games written out decision by decision, which must not change by accident.

For each seeded game (every level at 2, 3 and 4 players, and three more),
``tests/golden/<level>-<n>p-seed<seed>.txt`` holds, for every decision: the acting seat and the decision asked, a
short state summary (year, season, each seat's crystals, energy, gauge, hand and cards in play), the legal actions
with their labels, the action taken (random, from ``default_rng(seed + 10_000)``), and short digests of the whole
position (``to_dict()``), of every seat's observation and of every seat's action mask; the game's end (scores,
winners, the final digests) closes the file. A decision's observation digests cover the values of observation
version 2 (``DECISION_OBSERVATION_VERSION``); the file's last line digests every value of every observation, so a
slice appended by a later version changes that line and the header, not every decision's line.
A change to any of them must come with a version bump (the environment's, ``ENV_VERSION`` in the ids, and the
state format, observation layout or action table if one of them changed): each file's first lines name the versions
it was made with.

A difference fails with the first differing line, the decision it belongs to and the lines around it. Regenerate
after a deliberate, versioned change (deterministic: the same files every time) with::

    python tests/test_golden.py            # writes tests/golden/*.txt (or into a folder given as its argument)

which plays the games on this checkout's ``seasons_env``, whichever one is installed.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

if __name__ == "__main__":  # run as a script: the games of this checkout's rules, not of an installed seasons_env
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from random_play import random_game  # beside this file: on the path under pytest and as a script

from seasons_env import ACTION_TABLE_VERSION, ENV_VERSION
from seasons_env.encoding import (
    OBSERVATION_SIZE,
    OBSERVATION_SIZES,
    OBSERVATION_VERSION,
    action_mask,
    encode_observation,
)
from seasons_env.engine import STATE_VERSION, Game, steps
from seasons_env.engine.actions import describe_action
from seasons_env.engine.data import SEASONS

GOLDEN = Path(__file__).with_name("golden")
GAMES = [
    (level, players, seed)
    for level in ("apprentice", "magician", "archmage")
    for players, seed in ((2, 1), (3, 2), (4, 3))
] + [("archmage", 2, 17), ("archmage", 3, 29), ("magician", 4, 41)]
#: Lines shown before and after the first differing line.
CONTEXT = 6
#: Each decision's observation digests cover this version's values (a prefix of every later layout); the last line
#: of a file covers them all.
DECISION_OBSERVATION_VERSION = 2
#: How many leading values of an observation a decision's digest covers.
DECISION_VALUES = OBSERVATION_SIZES.get(DECISION_OBSERVATION_VERSION, OBSERVATION_SIZE)


def versions() -> str:
    return (
        f"environment {ENV_VERSION}, state {STATE_VERSION}, observation {OBSERVATION_VERSION}, "
        f"action table {ACTION_TABLE_VERSION}"
    )


def golden_path(level: str, players: int, seed: int) -> Path:
    return GOLDEN / f"{level}-{players}p-seed{seed}.txt"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def _digests(game: Game, every_value: Any) -> str:
    """Short digests of the position, of each seat's observation (its first ``DECISION_VALUES`` values; all of them
    go into ``every_value``) and of all seats' masks."""
    position = _digest(json.dumps(game.to_dict(), sort_keys=True).encode())
    seen = [encode_observation(game, seat) for seat in range(game.num_players)]
    for observation in seen:
        every_value.update(observation.tobytes())
    observations = " ".join(_digest(observation[:DECISION_VALUES].tobytes()) for observation in seen)
    masks = _digest(b"".join(action_mask(game, seat).astype(np.int8).tobytes() for seat in range(game.num_players)))
    return f"digest: position {position} | observations {observations} | masks {masks}"


def _summary(game: Game) -> str:
    seats = " | ".join(
        f"s{p} {game.crystals[p]}c {'/'.join(map(str, game.reserve[p]))} g{game.gauge[p]} "
        f"hand {len(game.hand[p])} play {len(game.in_play[p])}"
        for p in range(game.num_players)
    )
    return f"year {game.year} {SEASONS[game.season]} | {seats}"


def playthrough_text(level: str, players: int, seed: int) -> str:
    """The golden playthrough of one seeded random game."""
    lines = [
        f"# golden playthrough: {level}, {players} players, game seed {seed}, random actions seed {seed + 10_000}",
        f"# versions: {versions()}",
        "# summary per seat: crystals, energy water/earth/fire/air, summoning gauge, cards in hand, cards in play",
    ]

    decision = 0
    every_value = hashlib.sha256()

    def record(game: Game, action: int) -> None:
        nonlocal decision
        decision += 1
        seat, kind = game.current_player, steps.KINDS[game.pending_task()[0]]
        legal = "; ".join(f"{a} {describe_action(a)}" for a in game.legal_action_list())
        lines.extend(
            [
                f"decision {decision}: seat {seat} {kind} | {_summary(game)}",
                f"  legal: {legal}",
                f"  action: {action} {describe_action(action)}",
                f"  {_digests(game, every_value)}",
            ]
        )

    game, decisions = random_game(players, level, seed, on_action=record)
    lines.extend(
        [
            f"end after {decisions} decisions | {_summary(game)}",
            f"  scores {game.scores()} winners {game.winners()}",
            f"  {_digests(game, every_value)}",
            f"observations, every value of every decision: {every_value.hexdigest()[:16]}",
        ]
    )
    return "\n".join(lines) + "\n"


def first_difference(expected: str, actual: str, name: str) -> str | None:
    """None if the texts are equal; else where they first differ: the line, the decision it belongs to, context."""
    old, new = expected.splitlines(), actual.splitlines()
    if old == new:
        return None
    at = next((k for k, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    decision = next((line for line in reversed(new[: at + 1]) if not line.startswith((" ", "#"))), "the header")
    diff = difflib.unified_diff(
        old[max(0, at - CONTEXT) : at + CONTEXT + 1],
        new[max(0, at - CONTEXT) : at + CONTEXT + 1],
        f"{name} (committed)",
        f"{name} (now)",
        n=CONTEXT,
        lineterm="",
    )
    return f"{name}: first difference at line {at + 1}, in {decision.split(' | ')[0]!r}:\n" + "\n".join(diff)


@pytest.mark.parametrize(("level", "players", "seed"), GAMES, ids=[golden_path(*g).stem for g in GAMES])
def test_seeded_game_playthroughs_are_unchanged(level: str, players: int, seed: int) -> None:
    path = golden_path(level, players, seed)
    committed = path.read_text(encoding="utf-8")
    difference = first_difference(committed, playthrough_text(level, players, seed), path.name)
    if difference is None:
        return
    bumped = f"# versions: {versions()}" not in committed.splitlines()[:3]
    hint = (
        "the versions were bumped: regenerate the goldens with `python tests/test_golden.py`"
        if bumped
        else "changed without a version bump of the environment (seasons_env.ENV_VERSION), with the state format, the "
        "observation layout or the action table if one of them changed (trained models and saved positions depend "
        "on them)"
    )
    raise AssertionError(f"{difference}\n{hint}")


def test_a_difference_is_reported_at_its_first_decision() -> None:
    text = playthrough_text("apprentice", 2, 1)
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("decision ") and i > 40)
    changed = [*lines[: k + 2], "  action: 0 changed", *lines[k + 3 :]]
    report = first_difference(text, "\n".join(changed) + "\n", "x.txt")
    assert report is not None and report.startswith(
        f"x.txt: first difference at line {k + 3}, in '{lines[k].split(' | ')[0]}'"
    )
    assert "-" + lines[k + 2] in report and "+  action: 0 changed" in report
    assert first_difference(text, text, "x.txt") is None


def test_a_slice_appended_by_a_later_version_changes_only_the_last_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """An appended slice (the way the observation grows) leaves every decision's line as it was: regenerating the
    goldens after it changes the versions and the last line of each file, which a reviewer can read."""
    before = playthrough_text("apprentice", 2, 1).splitlines()
    real = encode_observation
    longer = lambda game, seat: np.append(real(game, seat), np.float32(game.year))  # noqa: E731
    monkeypatch.setitem(globals(), "encode_observation", longer)
    after = playthrough_text("apprentice", 2, 1).splitlines()
    assert len(after) == len(before)
    assert [k for k, (old, new) in enumerate(zip(before, after, strict=True)) if old != new] == [len(before) - 1]


def test_the_script_regenerates_with_the_checkouts_rules(tmp_path: Path) -> None:
    """``python tests/test_golden.py FOLDER`` plays the games on this checkout's package even when another
    ``seasons_env`` comes first on the path (an installed release), and writes exactly the committed goldens."""
    decoy = tmp_path / "installed" / "seasons_env"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text('raise ImportError("an installed seasons_env, not the checkout\'s")\n')
    out = tmp_path / "out"
    environment = {**os.environ, "PYTHONPATH": str(decoy.parent)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), str(out)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"with the rules of {Path(__file__).resolve().parents[1] / 'seasons_env'}" in done.stdout
    written = sorted(path.name for path in out.glob("*.txt"))
    assert written == sorted(path.name for path in GOLDEN.glob("*.txt")) and len(written) == len(GAMES)
    for name in written:
        assert (out / name).read_text(encoding="utf-8") == (GOLDEN / name).read_text(encoding="utf-8"), name


def main(folder: Path = GOLDEN, games: list[tuple[str, int, int]] = GAMES) -> None:
    """Write the playthroughs of ``games`` into ``folder`` (the goldens by default), replacing the files there."""
    import seasons_env

    folder.mkdir(exist_ok=True)
    for stale in folder.glob("*.txt"):
        stale.unlink()
    total = 0
    for game in games:
        text = playthrough_text(*game)
        (folder / golden_path(*game).name).write_text(text, encoding="utf-8")
        total += len(text.encode())
    source = Path(seasons_env.__file__).parent
    print(f"wrote {len(games)} playthroughs to {folder} ({total / 1e6:.2f} MB) with the rules of {source}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else GOLDEN)  # another folder: to compare without overwriting
