"""benchmarks/paired_arenas.py: two agents' win shares on the same deals against one opponent, and their paired
difference; folders that are not arena results are refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "paired_arenas.py"


def _arena(folder: Path, agent: str, wins: list[tuple[int, int, list[int]]]) -> Path:
    """An arena folder's games.jsonl: ``(deal seed, the agent's seat, winners)`` per game against the heuristic."""
    folder.mkdir()
    with (folder / "games.jsonl").open("w", encoding="utf-8") as out:
        for seed, seat, winners in wins:
            seats = [agent, "heuristic"] if seat == 0 else ["heuristic", agent]
            config = {"agents": [agent, "heuristic"]}
            out.write(json.dumps({"seed": seed, "seats": seats, "winners": winners, "config": config}) + "\n")
    return folder


def _run(cwd: Path, *args: object) -> subprocess.CompletedProcess:
    """The script run from ``cwd`` (a test's temporary folder, not the checkout)."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd
    )


def test_the_paired_difference_counts_only_deals_both_folders_played(tmp_path) -> None:
    # deals 1-3, both seatings: the first agent wins 4.5 of 6 (one shared win), the second 3 of 6; deal 9 is not shared
    first = _arena(
        tmp_path / "a",
        "gumbel",
        [(1, 0, [0]), (1, 1, [1]), (2, 0, [0]), (2, 1, [1]), (3, 0, [0, 1]), (3, 1, [0]), (9, 0, [1])],
    )
    second = _arena(
        tmp_path / "b", "puct", [(1, 0, [0]), (1, 1, [0]), (2, 0, [1]), (2, 1, [1]), (3, 0, [0]), (3, 1, [0])]
    )
    done = _run(tmp_path, first, second, "--resamples", 200)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("gumbel: 75.0% [") and lines[0].endswith("of 6 games")
    assert lines[1].startswith("puct: 50.0% [") and lines[1].endswith("of 6 games")
    assert lines[2].startswith("gumbel - puct: +25.0 points [") and lines[2].endswith("(3 deals resampled)")


def test_folders_that_are_not_arena_results_are_named(tmp_path) -> None:
    first = _arena(tmp_path / "a", "gumbel", [(1, 0, [0])])
    missing = _run(tmp_path, first, tmp_path)
    assert missing.returncode == 2 and "no games.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "games.jsonl").write_text("{not json\n", encoding="utf-8")
    broken = _run(tmp_path, first, tmp_path / "bad")
    assert broken.returncode == 2 and "line 1: not an arena game record" in broken.stderr
    other = _arena(tmp_path / "c", "puct", [(2, 0, [0])])
    disjoint = _run(tmp_path, first, other)
    assert disjoint.returncode == 2 and "share no deal" in disjoint.stderr
