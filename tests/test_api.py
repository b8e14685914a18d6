"""The public API: construction, errors, the action table, serialization errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from random_play import random_game
from scenario import act, scenario

import seasons_env
from seasons_env import ACTION_TABLE_VERSION, NUM_ACTIONS, Game, IllegalActionError, describe_action
from seasons_env.engine import actions as A


@pytest.mark.parametrize("bad", [4.5, 1, 5, "2", True, None])
def test_bad_player_count_is_a_value_error_naming_the_field(bad) -> None:
    with pytest.raises(ValueError, match="num_players"):
        Game.new(bad)


def test_unknown_level_is_a_value_error_naming_the_levels() -> None:
    with pytest.raises(ValueError, match="level must be one of apprentice, magician, archmage"):
        Game.new(2, level="wizard")


@pytest.mark.parametrize("bad", [-1, 1.5, "7"])
def test_bad_seed_is_a_value_error(bad) -> None:
    with pytest.raises(ValueError, match="seed"):
        Game.new(2, seed=bad)


def test_new_magician_game_starts_with_the_draft() -> None:
    game = Game.new(3, "magician", seed=0)
    assert game.pending_decision == "draft_pick" and game.current_player == 0
    assert all(len(pack) == 9 for pack in game.draft_pack)
    assert len(game.draw_pile) == 60 - 27
    legal = game.legal_actions()
    assert legal.dtype == np.int64 and list(legal) == sorted(set(legal.tolist()))
    assert all(describe_action(a).startswith("choose card: ") for a in legal)


def test_apprentice_game_deals_the_preset_decks_and_starts_at_the_library_split() -> None:
    game = Game.new(4, "apprentice", seed=0)
    data = json.loads((seasons_env.engine.data.resources.files("seasons_env") / "data/seasons_data.json").read_text())
    assert [list(h) for h in game.hand] == [sorted(d) for d in data["apprentice_decks"]]
    assert game.pending_decision == "library_split"
    assert len(game.draw_pile) == 60 - 36


def test_illegal_action_names_decision_and_options_and_changes_nothing() -> None:
    game = Game.new(2, "magician", seed=1)
    before = game.to_dict()
    illegal = A.summon_action(1)
    with pytest.raises(IllegalActionError) as info:
        game.apply(illegal)
    message = str(info.value)
    assert "'draft_pick' of player 0" in message and "summon Amulet of Air" in message
    assert describe_action(game.legal_action_list()[0]) in message
    assert game.to_dict() == before


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 2.0, "3", None, True])
def test_actions_outside_the_table_or_not_ints_are_rejected(bad) -> None:
    game = Game.new(2, "magician", seed=1)
    before = game.to_dict()
    with pytest.raises(IllegalActionError):
        game.apply(bad)
    assert game.to_dict() == before


def test_numpy_integer_actions_are_accepted() -> None:
    game = Game.new(2, "magician", seed=1)
    game.apply(game.legal_actions()[0])
    assert game.pending_decision == "draft_pick" and game.current_player == 1


def test_finished_game_rejects_actions() -> None:
    game, _ = random_game(2, "apprentice", seed=0)
    assert game.is_over and game.current_player == -1 and len(game.legal_actions()) == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(0)


def test_action_table_labels_are_distinct_and_stable() -> None:
    labels = [describe_action(a) for a in range(NUM_ACTIONS)]
    assert len(set(labels)) == NUM_ACTIONS == 314
    assert ACTION_TABLE_VERSION == 1
    # a few fixed ids: changing any of them needs a new ACTION_TABLE_VERSION
    assert describe_action(0) == "end turn"
    assert describe_action(A.summon_action(22)) == "summon Runic Cube of Eolis"
    assert describe_action(A.transmute_action(1, 2)) == "transmute fire from Amulet of Water (copy 1)"
    assert describe_action(A.elemental_set_action(0b1001)) == "Elemental Amulet: pay water + air"
    assert describe_action(A.move_season_action(-2)) == "move the season marker backward 2"
    with pytest.raises(ValueError, match="outside the action table"):
        describe_action(NUM_ACTIONS)


def test_winners_tie_break_by_cards_in_play_then_shared() -> None:
    game = scenario(
        players=[{"crystals": 10, "in_play": [22]}, {"crystals": 40}],
        turn_player=1,
        year=3,
        position=12,
        rolled=[{"die": 0, "face": 0}],
    )
    act(game, "end turn")  # the leftover die crosses 12 in year 3: the game ends
    assert game.is_over and game.scores() == [40, 40] and game.winners() == [0]


def test_from_dict_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="num_players"):
        Game.from_dict({"players": []})
    with pytest.raises(ValueError, match=r"players\[0\].summoning_gauge"):
        Game.from_dict({"num_players": 2, "players": [{"summoning_gauge": 16}, {}], "pending": [{"step": "turn"}]})
    with pytest.raises(ValueError, match=r"players\[1\].hand"):
        Game.from_dict({"num_players": 2, "players": [{}, {"hand": [51]}], "pending": [{"step": "turn"}]})
    with pytest.raises(ValueError, match="pending"):
        Game.from_dict({"num_players": 2})
    with pytest.raises(ValueError, match="not a known step"):
        Game.from_dict({"num_players": 2, "pending": [{"step": "dance"}]})
    with pytest.raises(ValueError, match="reserve"):
        Game.from_dict({"num_players": 2, "players": [{"reserve": {"mud": 1}}, {}], "pending": [{"step": "turn"}]})


def test_repr_names_the_position() -> None:
    assert "draft_pick by player 0" in repr(Game.new(2, seed=0))
