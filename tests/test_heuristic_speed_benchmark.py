"""benchmarks/heuristic_speed.py runs (--quick) and prints its figures; --compare runs two checkouts. No timing
is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "heuristic_speed.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_heuristic_speed_quick_prints_its_figures() -> None:
    result = run("--quick", "--profile")
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in ("reference: copy.deepcopy(to_dict())", "us/decision", "per ref", "cpu us", "actions sha256"):
        assert figure in result.stdout, f"{figure!r} missing:\n{result.stdout}"
    rows = [line.split() for line in result.stdout.splitlines()]
    assert any(row[:1] == ["heuristic"] for row in rows) and any(row[:1] == ["random"] for row in rows)
    assert "Ordered by: internal time" in result.stdout  # the cProfile breakdown


def test_heuristic_speed_compare_runs_both_checkouts_alike() -> None:
    result = run("--compare", str(ROOT), "--rounds", "1", "--quick")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "this/other" in result.stdout and "same actions in every run: yes" in result.stdout


def test_heuristic_speed_rejects_a_folder_that_is_not_a_checkout(tmp_path: Path) -> None:
    result = run("--compare", str(tmp_path))
    assert result.returncode != 0 and "not a checkout" in result.stderr
