"""The cards' rule amounts are written once (``seasons_env/engine/card_constants.py``) and read by both engines:
every amount is used by the reference engine's rules and by the compiled kernels' (or, for the heuristic's own
use, by the heuristic's card module), so none is left as a second, retyped literal on one side."""

from __future__ import annotations

import ast
from pathlib import Path

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
