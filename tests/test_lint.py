"""The code base stays ruff clean (lint and format)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command: list[str]) -> None:
    ruff = shutil.which("ruff")
    assert ruff is not None, "ruff is part of the [test] extra: pip install -c constraints.txt -e '.[test]'"
    result = subprocess.run([ruff, *command], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_pinned_to_the_version_the_code_is_checked_with() -> None:
    """A new ruff release may add checks: constraints.txt pins the version this code base is clean under."""
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    pins = re.findall(r"^ruff\s*([=<>!~]=?)\s*([0-9][0-9.]*)\s*$", constraints, flags=re.MULTILINE)
    assert [operator for operator, _ in pins] == ["=="], f"pin ruff exactly in constraints.txt; found {pins}"
    ruff = shutil.which("ruff")
    assert ruff is not None
    installed = subprocess.run([ruff, "--version"], capture_output=True, text=True, check=True).stdout.split()[-1]
    assert installed == pins[0][1], f"ruff {installed} is installed, constraints.txt pins {pins[0][1]}"


def test_readme_says_the_tests_compare_the_data_with_the_shared_spec() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    data_test = (ROOT / "tests" / "test_data.py").read_text(encoding="utf-8")
    assert '"shared" / "spec" / "seasons_data.json"' in data_test  # what the README sentence describes
    assert re.search(
        r"compare the card data\s+shipped in the package with `\.\./shared/spec/seasons_data\.json`", readme
    )
