"""The engine's shape: every card and step kind implemented once. The rules every package keeps (no import cycle, no
oversized module, no import below code, public names only across modules) are tests/test_structure.py's."""

from __future__ import annotations

from seasons_env.engine import data, steps
from seasons_env.engine.behaviour import BEHAVIOUR


def test_every_card_has_one_behaviour_and_every_step_kind_its_rules() -> None:
    assert sorted(BEHAVIOUR) == list(data.ALL_CARDS)
    assert all(spec is not None and spec.kind == k for k, spec in enumerate(steps.STEP_KINDS))
    assert [s.name for s in steps.STEP_KINDS] == list(steps.KINDS)


def test_card_names_match_the_data_file() -> None:
    for card in data.Card:
        assert data.CARD_NAMES[card].replace("'", "").upper().replace(" ", "_") == card.name
    assert len(data.Card) == data.NUM_CARDS
