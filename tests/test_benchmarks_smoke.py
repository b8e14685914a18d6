"""The benchmark scripts run (``--quick``) and print their figures. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from installed import installed_environment

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("script", "figures"),
    [
        (
            "engine_speed.py",
            [
                "reference: copy.deepcopy(to_dict())",
                "(legal_actions)",
                "(legal_action_list)",
                "decisions/s",
                "games/s",
                "clones/s",
                "from_dict/s",
                "invariant_violations/s",
                "per ref",
                "goals (2 players)",
                "apprentice",
                "magician",
                "archmage",
            ],
        ),
        ("memory.py", ["serialized state size", "bytes", "RSS growth", "peak RSS growth", "goal < 10 MB"]),
    ],
)
def test_benchmark_quick(script: str, figures: list[str], tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--quick"],
        cwd=tmp_path,  # outside the checkout: the benchmark imports the installed package
        env=installed_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in figures:
        assert figure in result.stdout, f"{figure!r} missing from the output of {script}:\n{result.stdout}"
    for players in ("2", "3", "4"):
        if script == "engine_speed.py":
            assert any(line.split()[:1] == [players] for line in result.stdout.splitlines())


def _run_benchmark(script: str, args: list[str]) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=tempfile.mkdtemp(prefix="seasons-benchmark-"),  # outside the checkout: the installed package is imported
        env=installed_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_agent_strength_quick(tmp_path) -> None:
    """The agent-strength benchmark's head-to-head and mirror figures (ISMCTS games left out: they are slow)."""
    args = ["--quick", "--skip-ismcts", "--workers", "1", "--no-progress", "--out", str(tmp_path / "strength")]
    result = _run_benchmark("agent_strength.py", args)
    figures = ("heuristic vs random:", "Wilson 95%", "goal >= 97%", "decisions/s heuristic", "heuristic vs heuristic")
    for figure in figures:
        assert figure in result.stdout, f"{figure!r} missing from the output:\n{result.stdout}"
    assert (tmp_path / "agent_strength_quick" / "heuristic-vs-random-archmage" / "results.json").exists()


def test_learned_multiplayer_rotates_the_learned_seat_round_the_table() -> None:
    """One learned seat against a table of random players at 3 and 4 players: whole rotations, the equal share."""
    args = ["--games", "3", "--opponent", "random", "--level", "apprentice", "--workers", "1"]
    result = _run_benchmark("learned_multiplayer.py", args)
    assert "3-player apprentice, learned vs 2 x random:" in result.stdout
    assert "over 3 games (an equal agent: 33.3%)" in result.stdout
    assert "4-player apprentice, learned vs 3 x random:" in result.stdout
    assert "over 4 games (an equal agent: 25.0%)" in result.stdout  # rounded up to a whole rotation
    assert "ahead of an opponent seat" in result.stdout


def test_learned_multiplayer_refuses_an_agent_it_cannot_make(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "learned_multiplayer.py"), "--agent", "learned:nope.pt"],
        cwd=tmp_path,
        env=installed_environment(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--agent: agent 'learned:nope.pt'" in result.stderr
    assert "Traceback" not in result.stderr


def test_compile_profile_names_the_steps_when_asked_for_one_it_does_not_know() -> None:
    """``compile_profile.py --only STEP`` profiles one step of ``seasons compile``; a name that is not a step is
    refused in one line that lists the steps, before anything compiles."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compile_profile.py"), "--only", "no-such-step"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    message = done.stderr.strip().splitlines()
    assert len(message) == 1 and "'no-such-step'" in message[0], message
    for step in ("rules", "one-game", "heuristic", "ismcts-search", "policy-search", "snapshot-policy"):
        assert step in message[0]
