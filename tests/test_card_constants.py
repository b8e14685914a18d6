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

from seasons_env import describe_action
from seasons_env.engine import actions as A
from seasons_env.engine import card_constants, serialization
from seasons_env.engine.consistency import MAX_STORED
from seasons_env.engine.data import Card

ROOT = Path(__file__).resolve().parents[1]
ENGINE = [ROOT / "seasons_env" / "engine" / name for name in ("cards_basic.py", "cards_archmage.py", "payment.py")]
KERNELS = sorted((ROOT / "seasons_env" / "vector" / "kernels").glob("*_kernels.py"))
HEURISTIC = [ROOT / "agents" / "heuristic_cards.py"]
AMOUNTS = [name for name, value in vars(card_constants).items() if name.isupper() and isinstance(value, int)]


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
    assert [name for name in vars(card_constants) if name.isupper() and name not in AMOUNTS] == ["LAYOUT_BOUNDS"]
    assert set(card_constants.LAYOUT_BOUNDS) <= set(AMOUNTS)


def test_the_layout_bounds_fit_their_layouts() -> None:
    """A draw waits in one step whose width is a layout size (the step rows, the position format); the amounts
    that fill it are named in ``LAYOUT_BOUNDS`` and fit it (the engine refuses a larger one at import)."""
    assert serialization.STEP_ARGS["keep_one"]["cards"].max_len == serialization.DRAWN_CARDS
    assert serialization.STEP_ARGS["divine_chalice"]["cards"].max_len == serialization.DRAWN_CARDS
    assert all(getattr(card_constants, name) <= serialization.DRAWN_CARDS for name in card_constants.LAYOUT_BOUNDS)


def test_the_rules_around_the_cards_read_the_amounts() -> None:
    """Action labels, step bounds and stored-token limits follow the amounts rather than retyping them."""
    assert str(card_constants.CRYSTAL_ORB_TOKENS) in describe_action(A.ORB_PLAY)
    assert str(card_constants.CRYSTAL_ORB_CRYSTALS) in describe_action(A.ORB_MILL)
    assert str(card_constants.TREE_OF_LIGHT_CRYSTALS) in describe_action(A.TREE_BUY_ENERGY)
    assert MAX_STORED[Card.AMULET_OF_WATER] == card_constants.AMULET_OF_WATER_TOKENS
    assert MAX_STORED[Card.GLUTTON_CAULDRON] == card_constants.GLUTTON_CAULDRON_TOKENS - 1
    assert serialization.STEP_ARGS["dragon_skull"]["remaining"].hi == card_constants.DRAGON_SKULL_CARDS


def test_every_amount_is_read_by_both_engines() -> None:
    engine, kernels = _names_used(ENGINE), _names_used(KERNELS)
    assert [name for name in AMOUNTS if name not in engine] == []
    assert [name for name in AMOUNTS if name not in kernels] == []


def test_the_heuristic_reads_the_amounts_it_values() -> None:
    used = _names_used(HEURISTIC)
    for name in ("KAIRN_CRYSTALS", "SCEPTER_CRYSTALS", "STAFF_OF_SPRING_CRYSTALS", "POTION_OF_LIFE_CRYSTALS"):
        assert name in used, name


#: Every amount changed by one, but the layout bounds (``card_constants.LAYOUT_BOUNDS``), as an edit of
#: ``card_constants.py`` would change it; the scenario tests of the rules and the kernels' differential card tests
#: (the suite's only run of these with the kernels as Python; ``test_kernels_as_python.py`` runs the others).
CHANGED = {name: getattr(card_constants, name) + 1 for name in AMOUNTS if name not in card_constants.LAYOUT_BOUNDS}
TESTS = (
    "test_cards_basic.py",
    "test_cards_advanced.py",
    "test_rules_basic.py",
    "test_rulings.py",
    "test_scenario_engines.py",
    "test_vector_cards_basic_kernels.py",
    "test_vector_cards_archmage_kernels.py",
    "test_vector_payment_kernels.py",
)


@pytest.mark.slow
def test_a_changed_amount_needs_no_test_edit() -> None:
    """The rules scenarios and the kernels' card tests pass on both engines with every amount changed (as an edit
    of ``card_constants.py`` would; ``changed_amounts.py``), the kernels run as Python: the tests, the rules around
    the cards and the heuristic's tables read the amounts. Several minutes."""
    command = [sys.executable, "-m", "pytest", "-p", "changed_amounts", "-q", "-n", "0", "-p", "no:cacheprovider"]
    command += ["--kernels=python", *TESTS]
    amounts = ",".join(f"{name}={value}" for name, value in CHANGED.items())
    env = {**os.environ, "SEASONS_TEST_AMOUNTS": amounts, "SEASONS_KERNELS": "python", "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    for name, value in CHANGED.items():  # the kernels read the changed value too, not only the reference engine
        assert f"amount {name}={value}: read by" in done.stdout, done.stdout[-5000:]
    assert done.stdout.count("other values in []") == len(CHANGED), done.stdout[-5000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
