"""The generated reference tables in docs/ match the code."""

from __future__ import annotations

from pathlib import Path

from seasons_env import docgen

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_generated_docs_are_up_to_date() -> None:
    for path, expected in docgen.expected_files(DOCS).items():
        assert path.read_text(encoding="utf-8") == expected, f"{path.name} is stale: run python -m seasons_env.docgen"


def test_every_decision_and_action_is_documented() -> None:
    actions = (DOCS / "actions.md").read_text(encoding="utf-8")
    state_format = (DOCS / "state_format.md").read_text(encoding="utf-8")
    assert "| 313 | Elemental Amulet: pay water + earth + fire + air |" in actions
    assert "| `turn` | decision |" in state_format and "| `payment` | automatic |" in state_format
