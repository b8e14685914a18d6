"""The cards' rule amounts are written once (``seasons_env/engine/card_constants.py``) and read by both engines:
every amount is used by the reference engine's rules and by the compiled kernels' (or, for the heuristic's own
use, by the heuristic's card module), so none is left as a second, retyped literal on one side."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seasons_env.engine import card_constants

ROOT = Path(__file__).resolve().parents[1]
ENGINE = [ROOT / "seasons_env" / "engine" / name for name in ("cards_basic.py", "cards_archmage.py", "payment.py")]
KERNELS = sorted((ROOT / "seasons_env" / "vector" / "kernels").glob("*_kernels.py"))
HEURISTIC = [ROOT / "agents" / "heuristic_cards.py"]
AMOUNTS = [name for name in vars(card_constants) if name.isupper()]


def _names_used(paths: list[Path]) -> set[str]:
    """Every name and attribute read in ``paths`` (``K.KAIRN_CRYSTALS`` and ``KAIRN_CRYSTALS`` alike)."""
    used: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
    return used


def test_the_table_holds_amounts() -> None:
    assert "KAIRN_CRYSTALS" in AMOUNTS and card_constants.KAIRN_CRYSTALS > 0
    assert all(isinstance(getattr(card_constants, name), int) for name in AMOUNTS)


def test_every_amount_is_read_by_both_engines() -> None:
    engine, kernels = _names_used(ENGINE), _names_used(KERNELS)
    assert [name for name in AMOUNTS if name not in engine] == []
    assert [name for name in AMOUNTS if name not in kernels] == []


def test_the_heuristic_reads_the_amounts_it_values() -> None:
    used = _names_used(HEURISTIC)
    for name in ("KAIRN_CRYSTALS", "SCEPTER_CRYSTALS", "STAFF_OF_SPRING_CRYSTALS", "POTION_OF_LIFE_CRYSTALS"):
        assert name in used, name


#: Amounts changed, and the scenario tests that read them (the cards' own, and those that summon them on the way).
CHANGED = {"KAIRN_CRYSTALS": card_constants.KAIRN_CRYSTALS + 1, "AMULET_OF_EARTH_CRYSTALS": 10}
SCENARIOS = ("test_cards_basic.py", "test_cards_advanced.py", "test_rules_basic.py", "test_rulings.py")


@pytest.mark.slow
def test_a_changed_amount_needs_no_test_edit() -> None:
    """The rules scenarios pass on both engines with Kairn's and the Amulet of Earth's crystals changed (as an edit of
    ``card_constants.py`` would; ``changed_amounts.py``), the kernels run as Python: the tests write the amounts as
    the named constants."""
    assert all(card_constants.__dict__[name] != value for name, value in CHANGED.items())
    command = [sys.executable, "-m", "pytest", "-p", "changed_amounts", "-q", "-n", "0", "-p", "no:cacheprovider"]
    command += ["--kernels=python", *SCENARIOS, "-k", "kairn or amulet_of_earth or staff or chalice or leech"]
    amounts = ",".join(f"{name}={value}" for name, value in CHANGED.items())
    env = {**os.environ, "SEASONS_TEST_AMOUNTS": amounts, "SEASONS_KERNELS": "python", "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    for name, value in CHANGED.items():  # the kernels read the changed value too, not only the reference engine
        assert f"amount {name}={value}: read by" in done.stdout and "other values in []" in done.stdout, done.stdout
    assert " passed" in done.stdout and " failed" not in done.stdout
