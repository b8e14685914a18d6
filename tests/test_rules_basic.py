"""Scenario tests for the basic rules of RULES.md sections 1-7 (transmutation, bonuses, limits, rounds, scoring)."""

from __future__ import annotations

import pytest
from scenario import act, labels, refuse, scenario

from seasons_env import IllegalActionError
from seasons_env.engine import actions as A
from seasons_env.engine.card_constants import AMULET_OF_EARTH_CRYSTALS, KAIRN_CRYSTALS, KAIRN_TOKENS

pytestmark = pytest.mark.rules_scenario  # each test runs on both engines (conftest.py)

ENERGY_NAMES = ("water", "earth", "fire", "air")
ALL_DICE = {s: [0, 1, 2] for s in ("winter", "spring", "summer", "autumn")}
AUTUMN_LEFTOVER_1 = {"die": 0, "face": 0}  # autumn die 1, face 1: 1 pip
WINTER_LEFTOVER_1 = {"die": 2, "face": 0}  # winter die 3, face 1: 1 pip
WINTER_DRAW = {"die": 0, "face": 4}  # winter die 1, face 5: draw a card
WINTER_FIRE_STAR_TRANSMUTE = {"die": 0, "face": 0}  # winter die 1, face 1: 1 fire, transmute, gauge +1
WINTER_TWO_WATER = {"die": 1, "face": 0}  # winter die 2, face 1: 2 water, gauge +1


def at_die(die: dict, **kwargs):
    """Player 0 at the start of their turn, holding ``die``; player 1 took another die; one is left."""
    return scenario(
        pending=[{"step": "turn_start", "player": 0}],
        rolled=[{**die, "taken_by": 0}, {"die": 3, "face": 4, "taken_by": 1}, {"die": 2, "face": 3}],
        **kwargs,
    )


def game_end(players, num_players: int = 2):
    """Year 3, space 12, the last player's turn: ending it ends the game (the leftover die crosses 12)."""
    return scenario(
        num_players=num_players,
        players=players,
        turn_player=num_players - 1,
        year=3,
        position=12,
        rolled=[AUTUMN_LEFTOVER_1],
    )


# ---------------------------------------------------------------- transmutation

RATES = {  # RULES.md section 1: crystals per token by season
    1: {"water": 1, "air": 1, "fire": 2, "earth": 3},  # winter
    4: {"earth": 1, "water": 1, "air": 2, "fire": 3},  # spring
    7: {"fire": 1, "earth": 1, "water": 2, "air": 3},  # summer
    10: {"air": 1, "fire": 1, "earth": 2, "water": 3},  # autumn
}


@pytest.mark.parametrize("position", [1, 4, 7, 10, 3, 6, 9, 12])
@pytest.mark.parametrize("energy", ENERGY_NAMES)
def test_transmutation_rate_by_season(position: int, energy: str) -> None:
    rate = RATES[position - (position - 1) % 3]
    game = scenario(players=[{"reserve": {energy: 1}}], position=position, turn={"transmute_ability": True})
    act(game, f"transmute {energy} from reserve")
    assert game.crystals[0] == rate[energy] and game.reserve[0] == (0, 0, 0, 0)


def test_rulebook_example_winter_transmutation_of_1_fire_and_2_earth_gives_8() -> None:
    game = scenario(players=[{"reserve": {"fire": 1, "earth": 2}}], position=2, turn={"transmute_ability": True})
    act(game, "transmute fire from reserve", "transmute earth from reserve", "transmute earth from reserve")
    assert game.crystals[0] == 8


def test_transmutation_rate_is_the_season_at_the_moment_of_transmuting() -> None:
    game = scenario(
        players=[{"reserve": {"fire": 2}, "hand": [7], "summoning_gauge": 1}],
        position=3,
        turn={"transmute_ability": True},
    )
    act(game, "transmute fire from reserve")  # winter: 2
    act(game, "summon Temporal Boots", "move the season marker forward 1")
    act(game, "transmute fire from reserve")  # spring: 3
    assert game.crystals[0] == 2 + 3


def test_transmutation_needs_the_transmute_ability() -> None:
    game = scenario(players=[{"reserve": {"fire": 1}}])
    assert not [x for x in labels(game) if x.startswith("transmute")]


def test_transmute_die_gives_the_ability_for_the_turn_with_energy_and_gauge() -> None:
    game = at_die(WINTER_FIRE_STAR_TRANSMUTE, players=[{"reserve": {"earth": 1}, "summoning_gauge": 2}])
    assert game.reserve[0] == (0, 1, 1, 0) and game.gauge[0] == 3
    act(game, "transmute fire from reserve", "transmute earth from reserve")
    assert game.crystals[0] == 2 + 3


def test_transmute_ability_ends_with_the_turn() -> None:
    game = scenario(
        players=[{"reserve": {"fire": 1}}, {"reserve": {"fire": 1}}], turn={"transmute_ability": True}, turn_player=0
    )
    act(game, "end turn")
    assert game.current_player == 1 and "transmute fire from reserve" not in labels(game)


# ---------------------------------------------------------------- bonuses


def test_bonus_exchange_gives_back_2_reserve_tokens_for_2_of_choice() -> None:
    game = scenario(players=[{"reserve": {"water": 2, "earth": 1}}])
    act(game, "bonus: exchange 2 reserve tokens")
    # Given back in type order: a first water is forced (earth alone is 1 token), then water or earth.
    assert game.pending_decision == "exchange_discard" and game.reserve[0] == (1, 1, 0, 0)
    assert labels(game) == ["choose energy: water", "choose energy: earth"]
    act(game, "choose energy: water")  # given back
    act(game, "choose energy: fire", "choose energy: air")  # taken
    assert game.reserve[0] == (0, 1, 1, 1) and game.bonuses_used[0] == 1


def test_bonus_transmute_gives_the_ability_and_1_more_per_token() -> None:
    game = scenario(players=[{"reserve": {"water": 1, "earth": 1}}], position=1)
    act(game, "bonus: transmute with +1 crystal per token")
    act(game, "transmute water from reserve", "transmute earth from reserve")
    assert game.crystals[0] == (1 + 1) + (3 + 1) and game.bonuses_used[0] == 1


def test_bonus_transmute_adds_to_a_die_transmutation_for_the_whole_turn() -> None:
    game = at_die(WINTER_FIRE_STAR_TRANSMUTE, players=[{"reserve": {"water": 1}}])
    act(game, "transmute fire from reserve")
    assert game.crystals[0] == 2
    act(game, "bonus: transmute with +1 crystal per token", "transmute water from reserve")
    assert game.crystals[0] == 2 + 2


def test_bonus_gauge_plus_1() -> None:
    game = scenario(players=[{"summoning_gauge": 4}])
    act(game, "bonus: summoning gauge +1")
    assert game.gauge[0] == 5 and game.bonuses_used[0] == 1


def test_bonus_draw_only_at_the_dies_draw_two_drawn_one_kept() -> None:
    assert "bonus: draw 2 cards, keep 1" not in labels(scenario(players=[{}], draw_pile=[1, 2, 3]))
    game = at_die(WINTER_DRAW, draw_pile=[1, 22, 3])
    assert labels(game) == ["draw the die's card", "bonus: draw 2 cards, keep 1"]
    act(game, "bonus: draw 2 cards, keep 1", "choose card: Runic Cube of Eolis")
    assert game.hand[0] == (22,) and game.discard_pile == [3] and game.draw_pile == [1] and game.bonuses_used[0] == 1


def test_die_draw_without_bonus_keep_or_discard() -> None:
    game = at_die(WINTER_DRAW, draw_pile=[1, 22])
    act(game, "draw the die's card")
    assert labels(game) == ["keep the drawn card", "discard the drawn card"]
    act(game, "discard the drawn card")
    assert game.hand[0] == () and game.discard_pile == [22] and game.bonuses_used[0] == 0


def test_at_most_3_bonuses_a_game() -> None:
    game = scenario(
        players=[{"bonuses_used": 2, "reserve": {"water": 2, "earth": 2}, "hand": [3], "summoning_gauge": 3}]
    )
    act(game, "bonus: summoning gauge +1")
    assert game.bonuses_used[0] == 3 and game.current_player == 0
    assert labels(game) == ["end turn", "summon Amulet of Earth"]
    game = at_die(WINTER_DRAW, players=[{"bonuses_used": 3}], draw_pile=[1, 22])
    assert game.pending_decision == "keep_or_discard"


@pytest.mark.parametrize(("used", "penalty"), [(0, 0), (1, 5), (2, 12), (3, 20)])
def test_bonus_penalty_at_the_end(used: int, penalty: int) -> None:
    game = game_end([{"crystals": 30, "bonuses_used": used}, {}])
    act(game, "end turn")
    assert game.is_over and game.scores()[0] == 30 - penalty


# ---------------------------------------------------------------- limits


def test_energy_overflow_discards_down_to_7_by_choice_before_anything_else() -> None:
    game = at_die(WINTER_TWO_WATER, players=[{"reserve": {"earth": 3, "air": 3}}])
    assert game.pending_decision == "overflow" and game.current_player == 0
    assert labels(game) == ["choose energy: water", "choose energy: earth", "choose energy: air"]
    act(game, "choose energy: air")
    assert game.reserve[0] == (2, 3, 0, 2) and game.pending_decision == "turn"


def test_overflow_of_the_player_who_was_given_tokens_is_asked_of_that_player() -> None:
    game = scenario(
        players=[
            {"hand": [21], "reserve": {"fire": 1, "air": 1, "water": 3}, "summoning_gauge": 1},
            {"reserve": {"earth": 3, "fire": 2}},
        ]
    )
    act(game, "summon Lewis Greyface")  # 3 water + 3 earth + 2 fire = 8
    assert game.pending_decision == "overflow" and game.current_player == 0
    act(game, "choose energy: earth")
    assert game.reserve == [(3, 2, 2, 0), (0, 3, 2, 0)]


def test_cannot_summon_when_cards_in_play_reach_the_gauge() -> None:
    full = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": [22, 29], "summoning_gauge": 2}])
    assert "summon Amulet of Earth" not in labels(full)
    room = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": [22, 29], "summoning_gauge": 3}])
    act(room, "summon Amulet of Earth")
    assert len(room.in_play[0]) == 3 and room.crystals[0] == AMULET_OF_EARTH_CRYSTALS
    assert "summon Amulet of Earth" not in labels(scenario(players=[{"hand": [3], "reserve": {"earth": 2}}]))


def test_cannot_summon_without_the_cost() -> None:
    game = scenario(
        players=[{"hand": [3, 22], "reserve": {"earth": 1, "fire": 3}, "crystals": 19, "summoning_gauge": 3}]
    )
    assert [x for x in labels(game) if x.startswith("summon")] == []


def test_summoning_gauge_maximum_is_15() -> None:
    game = scenario(players=[{"hand": [1], "reserve": {"air": 2}, "summoning_gauge": 14}])
    act(game, "summon Amulet of Air")
    assert game.gauge[0] == 15
    game = scenario(players=[{"summoning_gauge": 15, "in_play": [23]}])
    assert "bonus: summoning gauge +1" not in labels(game)
    act(game, "activate Potion of Power (copy 1)")
    assert game.gauge[0] == 15


def test_gauge_below_cards_in_play_sacrifices_nothing() -> None:
    game = scenario(players=[{"in_play": [22, 29, 3], "summoning_gauge": 1, "hand": [1], "reserve": {"air": 2}}])
    assert len(game.in_play[0]) == 3 and "summon Amulet of Air" not in labels(game)


def test_crystals_never_go_below_0() -> None:
    game = scenario(players=[{"reserve": {"water": KAIRN_TOKENS}, "in_play": [16]}, {"crystals": KAIRN_CRYSTALS - 1}])
    act(game, "activate Kairn the Destroyer (copy 1)")
    assert game.crystals == [0, 0]


# ---------------------------------------------------------------- the round


def test_end_of_round_order_effects_marker_season_year_first_player() -> None:
    # First player is seat 1; seat 0 plays last. Both hold Beggar's Horn and Hourglass; the marker crosses 12.
    players = [
        {"in_play": [14, 27], "library": {"year2": [1, 2, 3]}},
        {"in_play": [{"card": 14, "copy": 1}, {"card": 27, "copy": 1}], "library": {"year2": [4, 5, 6]}},
    ]
    game = scenario(
        players=players,
        first_player=1,
        turn_player=0,
        position=12,
        game_dice=ALL_DICE,
        dice_season="autumn",
        rolled=[AUTUMN_LEFTOVER_1],
        draw_pile=[19, 19, 22, 22, 28, 28, 29, 29, 30, 30],
    )
    act(game, "end turn")
    # 1. end-of-round effects, from the first player: Beggar's Horn of seat 1, then of seat 0
    assert (game.pending_decision, game.current_player, game.position) == ("gain_energy", 1, 12)
    act(game, "choose energy: water")
    assert (game.pending_decision, game.current_player, game.position) == ("gain_energy", 0, 12)
    act(game, "choose energy: water")
    # 2-3. the marker moves, then season-change effects (Hourglass), seat 1 first; the library waits
    assert (game.pending_decision, game.current_player, game.position) == ("gain_energy", 1, 1)
    assert game.hand == [(), ()]
    act(game, "choose energy: fire")
    assert (game.pending_decision, game.current_player) == ("gain_energy", 0)
    act(game, "choose energy: fire")
    # 4. the year advances, the sets join the hands; 5. seat 0 is the new first player and chooses a die first
    assert game.year == 2 and game.hand == [(1, 2, 3), (4, 5, 6)] and game.library == [((), ()), ((), ())]
    assert game.reserve == [(1, 0, 1, 0), (1, 0, 1, 0)]
    assert game.first_player == 0 and game.pending_decision == "choose_die" and game.current_player == 0
    assert game.dice_season == 0 and len(game.rolled) == 3


def test_year_advances_only_after_season_change_effects() -> None:
    # RULES.md 4.5: the marker moves (2), season-change effects (3), then the year advances (4).
    game = scenario(players=[{"in_play": [27]}, {}], turn_player=1, position=12, rolled=[AUTUMN_LEFTOVER_1])
    act(game, "end turn")
    assert game.pending_decision == "gain_energy" and game.position == 1
    assert game.year == 1 and game.to_dict()["year"] == 1
    act(game, "choose energy: fire")
    assert game.year == 2


def test_first_player_passes_to_the_left_and_dice_are_taken_in_turn_order() -> None:
    game = scenario(
        num_players=3, first_player=2, turn_player=1, game_dice={s: [0, 1, 2, 3] for s in ALL_DICE}, rolled=[]
    )
    act(game, "end turn")
    assert game.first_player == 0 and game.pending_decision == "choose_die"
    assert [game.current_player, len(labels(game))] == [0, 4]
    act(game, labels(game)[0])
    assert [game.current_player, len(labels(game))] == [1, 3]
    act(game, labels(game)[0])
    assert [game.current_player, len(labels(game))] == [2, 2]
    act(game, labels(game)[0])
    assert sum(1 for r in game.rolled if r[2] < 0) == 1  # one die is left
    assert game.turn_player == 0


def test_tapped_cards_straighten_at_the_start_of_the_round() -> None:
    game = scenario(players=[{"in_play": [{"card": 16, "tapped": True}], "reserve": {"water": 1}}, {}], turn_player=1)
    act(game, "end turn")
    assert game.to_dict()["players"][0]["in_play"][0]["tapped"] is False


def test_the_leftover_die_moves_the_marker_by_its_pips() -> None:
    game = scenario(
        players=[{}, {}], turn_player=1, position=2, rolled=[{"die": 1, "face": 0}], game_dice=ALL_DICE
    )  # winter die 2, face 1: 3 pips
    act(game, "end turn")
    assert (game.year, game.position, game.season) == (1, 5, 1)


# ---------------------------------------------------------------- end of the game and scoring


def test_rulebook_score_example_123() -> None:
    in_play = [22, {"card": 10, "copy": 0}, {"card": 10, "copy": 1}, 9]  # 30 + 14 + 14 + 10 = 68 prestige
    game = game_end([{"crystals": 72, "in_play": in_play, "bonuses_used": 2, "hand": [3]}, {}])
    act(game, "end turn")
    assert game.is_over and game.scores() == [123, 0] and game.winners() == [0]


def test_game_ends_when_the_marker_crosses_12_in_year_3_only() -> None:
    game = scenario(players=[{}, {}], turn_player=1, year=2, position=12, rolled=[AUTUMN_LEFTOVER_1])
    act(game, "end turn")
    assert not game.is_over and (game.year, game.position) == (3, 1)
    game = scenario(players=[{}, {}], turn_player=1, year=3, position=11, rolled=[AUTUMN_LEFTOVER_1])
    act(game, "end turn")
    assert not game.is_over and (game.year, game.position) == (3, 12)
    game = game_end([{}, {}])
    act(game, "end turn")
    assert game.is_over and game.pending_decision is None and game.current_player == -1


def test_energy_scores_nothing_and_hand_cards_cost_5() -> None:
    game = game_end([{"crystals": 20, "reserve": {"fire": 5}, "hand": [1, 22]}, {"crystals": 3}])
    act(game, "end turn")
    assert game.scores() == [10, 3]


def test_no_season_change_effects_when_the_game_ends_at_the_crossing() -> None:
    game = game_end([{"in_play": [11]}, {"crystals": 5}])
    act(game, "end turn")
    assert game.is_over and game.scores() == [7, 5]


def test_tie_goes_to_more_cards_in_play() -> None:
    game = game_end([{"crystals": 12}, {"in_play": [1, 3]}])
    act(game, "end turn")
    assert game.scores() == [12, 12] and game.winners() == [1]


def test_tie_with_equal_cards_in_play_is_shared() -> None:
    game = game_end([{"crystals": 6, "in_play": [3]}, {"in_play": [1, 7], "crystals": 4}, {"crystals": 20}], 3)
    act(game, "end turn")
    assert game.scores() == [12, 18, 20] and game.winners() == [2]
    game = game_end([{"crystals": 6, "in_play": [3]}, {"crystals": 6, "in_play": [1]}])
    act(game, "end turn")
    assert game.scores() == [12, 12] and game.winners() == [0, 1]


# ---------------------------------------------------------------- illegal actions


def test_illegal_action_raises_and_leaves_the_state_unchanged() -> None:
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 1}, "summoning_gauge": 1}])
    before = game.to_dict()
    for action in (A.summon_action(3), A.summon_action(22), A.choose_energy_action(0), A.NUM_ACTIONS, -1):
        refuse(game, action)
    with pytest.raises(IllegalActionError):  # Game.apply takes action ids only
        game.apply("end turn")  # type: ignore[arg-type]
    assert game.to_dict() == before


def test_illegal_action_in_an_out_of_turn_decision_leaves_the_state_unchanged() -> None:
    game = scenario(players=[{"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1}, {"in_play": [22, 3]}])
    act(game, "summon Syllas the Faithful")
    assert game.current_player == 1
    refuse(game, A.END_TURN)
    refuse(game, A.choose_in_play_action(2 * (10 - 1)))  # Syllas is player 0's card, not player 1's


def test_no_action_is_legal_once_the_game_is_over() -> None:
    game = game_end([{}, {}])
    act(game, "end turn")
    refuse(game, A.END_TURN)
    assert labels(game) == []
