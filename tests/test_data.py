"""The packaged card and dice facts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from seasons_env.engine import data

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "seasons_data.json"


@pytest.mark.skipif(not SHARED.exists(), reason="../shared is not beside this checkout")
def test_packaged_data_equals_the_shared_spec() -> None:
    assert data.RAW == json.loads(SHARED.read_text(encoding="utf-8"))


def test_fifty_cards_thirty_basic() -> None:
    assert sorted(data.CARDS) == list(range(1, 51))
    assert data.BASIC_CARDS == tuple(range(1, 31))
    assert all(set(c.cost) == {2, 3, 4} for c in data.CARDS.values())


def test_twenty_dice_of_six_faces_with_two_of_each_pip_count() -> None:
    faces = [face for season in data.DICE for die in season for face in die]
    assert len(data.DICE) == 4 and all(len(season) == 5 for season in data.DICE) and len(faces) == 120
    for season in data.DICE:
        for die in season:
            assert Counter(f.pips for f in die) == {1: 2, 2: 2, 3: 2}


def test_transmutation_table_matches_the_rules() -> None:
    winter = data.TRANSMUTE_RATE[data.SEASON_INDEX["winter"]]
    assert winter[data.WATER] == winter[data.AIR] == 1 and winter[data.FIRE] == 2 and winter[data.EARTH] == 3
    assert data.TRANSMUTE_RATE[data.SEASON_INDEX["autumn"]][data.WATER] == 3


def test_apprentice_decks_use_each_card_at_most_twice() -> None:
    counts = Counter(c for deck in data.APPRENTICE_DECKS for c in deck)
    assert max(counts.values()) <= 2 and all(c <= 30 for c in counts)
    assert all(len(deck) == 9 for deck in data.APPRENTICE_DECKS)
