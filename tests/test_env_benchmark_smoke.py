"""benchmarks/env_speed.py runs (``--quick``) and prints its figures. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FIGURES = [
    "turns/s",
    "us/turn",
    "games/s",
    "turns/game",
    "seasons env(reference) archmage",
    "seasons raw_env(reference) archmage",
    "seasons env(kernels) archmage",
    "openspiel gin_rummy (C++)",
    "one game: Game (reference)",
    "one game: CompiledGame",
    "one game: VectorGame(1) kernels",
    'seasons env(engine="kernels") / OpenSpiel gin_rummy',
    "one game: VectorGame(1) kernels / Game, decisions/s",
    "texas_holdem_v4",
    "connect_four_v3",
    "seasons env(reference) / texas_holdem_v4",
    "wrapper overhead: env(reference) / raw_env(reference), time per turn",
    "seasons env(reference) / connect_four_v3",
    "goal: seasons env(reference) >= 15,000 turns/s",
]


def test_env_speed_quick() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "env_speed.py"), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in FIGURES:
        assert figure in result.stdout, f"{figure!r} missing from the output of env_speed.py:\n{result.stdout}"
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("seasons ")]
    for label in ("env(reference)", "raw_env(reference)", "env(kernels)"):
        players = {row[3] for row in rows if row[1] == label}
        assert players == {"2", "3", "4"}, f"seasons {label} rows for 2, 3 and 4 players:\n{result.stdout}"
