"""The batched-core benchmarks run on tiny budgets and print their figures. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from seasons_env.vector.kernels.row_blocks import usable_cores

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "figures"),
    [
        (
            ["--seconds", "0.05", "--batches", "1,16", "--skip-ppo", "--skip-compile", "--level", "apprentice"],
            ["decisions/s with observation + mask", "kernels", "stage 1", "reference", "ratio", "16", "goal"],
        ),
        (
            ["--profile", "--profile-steps", "3"],
            ["us/decision", "observation encoding", "legal options", "engine apply", "batch plumbing", "total"],
        ),
    ],
)
def test_vector_speed_prints_its_figures(args: list[str], figures: list[str]) -> None:
    result = _run("vector_speed.py", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in figures:
        assert figure in result.stdout, f"{figure!r} missing:\n{result.stdout}"


def test_vector_threads_prints_its_scaling_table() -> None:
    result = _run("vector_threads.py", "--seconds", "0.1", "--batches", "32", "--players", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in ("load average before", "1 thr", "2 thr", "2/1", "goal", "pick share", "by apply"):
        assert figure in result.stdout, f"{figure!r} missing:\n{result.stdout}"
    assert "separate " not in result.stdout
    both = _run(
        "vector_threads.py", "--seconds", "0.1", "--batches", "256", "--players", "2", "--observations", "both",
        "--pool", "both",
    )  # fmt: skip
    assert both.returncode == 0, both.stdout + both.stderr
    rows = [line.split() for line in both.stdout.splitlines() if line.startswith("      2    256 ")]
    ways = [(row[2], next(word for word in row if word in ("compiled", "python"))) for row in rows]
    assert ways == [("by", "compiled"), ("by", "python"), ("separate", "compiled"), ("separate", "python")], both.stdout
    split = _run("vector_threads.py", "--split", "--batches", "32", "--players", "2", "--steps", "40")
    assert split.returncode == 0, split.stdout + split.stderr
    assert "bound on 2 threads" in split.stdout and "pick" in split.stdout, split.stdout
    timeline = _run(
        "vector_threads.py", "--timeline", "--batches", "32,256", "--players", "2", "--pool", "both", "--steps", "40"
    )
    assert timeline.returncode == 0, timeline.stdout + timeline.stderr
    rows = [line.split() for line in timeline.stdout.splitlines() if line.startswith("      2 ")]
    assert [row[1:3] for row in rows] == [["32", "compiled"], ["32", "python"], ["256", "compiled"], ["256", "python"]]
    assert rows[0][5:] == ["-"] * 4 and rows[1][5:] == ["-"] * 4, timeline.stdout  # 32 games: the caller alone
    assert all(float(value) > 0 for value in rows[3][3:]), timeline.stdout  # the threads took chunks at 256 games
    compiled = rows[2][3:]  # the pool's thread's chunks are not timed in its compiled loop (a core each)
    assert float(compiled[2]) > 0 and (compiled[3] == "-") == (usable_cores() >= 2), timeline.stdout
    machine = _run("vector_threads.py", "--machine", "--seconds", "0.4", "--batches", "32", "--players", "2")
    assert machine.returncode == 0, machine.stdout + machine.stderr
    assert "a hand-off between two threads" in machine.stdout and "2 processes" in machine.stdout, machine.stdout
    assert "the same by spinning in compiled code" in machine.stdout, machine.stdout
    assert any(line.split()[:2] == ["2", "32"] for line in machine.stdout.splitlines()), machine.stdout
    refused = _run("vector_threads.py", "--threads", "2,1")
    assert refused.returncode == 2 and "--threads must start with 1" in refused.stderr
    refused = _run("vector_threads.py", "--timeline", "--steps", "2")
    assert refused.returncode == 2 and "--steps must be at least 4" in refused.stderr


def test_vector_equivalence_reports_every_case() -> None:
    result = _run("vector_equivalence.py", "--games", "9", "--batch", "1", "--check-every", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("identical") == 9
    assert "9 games" in result.stdout and "no divergence" in result.stdout
