"""Scenario tests for the basic cards 1-30, each checking the effect RULES.md section 8 gives the card."""

from __future__ import annotations

import pytest
from scenario import act, labels, scenario

from seasons_env.engine.card_constants import (
    AMULET_OF_AIR_GAUGE,
    AMULET_OF_EARTH_CRYSTALS,
    AMULET_OF_FIRE_DRAWN,
    AMULET_OF_WATER_TOKENS,
    BALANCE_OF_ISHTAR_CRYSTALS,
    BALANCE_OF_ISHTAR_TOKENS,
    BEGGARS_HORN_MAX_TOKENS,
    BESPELLED_GRIMOIRE_TOKENS,
    DIE_OF_MALICE_CRYSTALS,
    DIVINE_CHALICE_DRAWN,
    FIGRIM_CRYSTALS,
    KAIRN_CRYSTALS,
    KAIRN_TOKENS,
    OLAFS_STATUE_CRYSTALS,
    POTION_OF_KNOWLEDGE_TOKENS,
    POTION_OF_LIFE_CRYSTALS,
    POTION_OF_POWER_GAUGE,
    RAGFIELDS_HELM_PRESTIGE,
    SCEPTER_CRYSTALS,
    STAFF_OF_SPRING_CRYSTALS,
    WONDROUS_CHEST_CRYSTALS,
    WONDROUS_CHEST_MIN_TOKENS,
)
from seasons_env.engine.data import CARD_NAMES, DICE

pytestmark = pytest.mark.rules_scenario  # each test runs on both engines (conftest.py)

# Reserve tuples are (water, earth, fire, air).
ALL4 = {"water": 1, "earth": 1, "fire": 1, "air": 1}
# Winter die index 2, face 0: 1 pip (2 water, gauge). A leftover die that moves the marker 1 space.
LEFTOVER_1 = {"die": 2, "face": 0}
# Autumn die index 0, face 0: 1 pip.
AUTUMN_LEFTOVER_1 = {"die": 0, "face": 0}
# Cards for a draw of n cards: the first n (the card a test keeps first).
DRAWS = (29, 1, 3, 5, 6, 8, 13, 14, 15)


def tokens_on(game, player: int, card: int, copy: int = 0) -> dict:
    """Tokens stored on a card in play, as the state format shows them."""
    for entry in game.to_dict()["players"][player]["in_play"]:
        if entry["card"] == card and entry["copy"] == copy:
            return {k: v for k, v in entry["tokens"].items() if v}
    raise AssertionError(f"card {card} copy {copy} is not in play for player {player}")


def cards_in_play(game, player: int) -> list[int]:
    return sorted(entry["card"] for entry in game.to_dict()["players"][player]["in_play"])


def end_of_round(players, **fields):
    """Player 1's turn, last of the round: ending it runs the end of the round."""
    return scenario(players=players, turn_player=1, **fields)


# ---------------------------------------------------------------- 1-4: the amulets


def test_amulet_of_air_raises_the_gauge() -> None:
    game = scenario(players=[{"hand": [1], "reserve": {"air": 2}, "summoning_gauge": 1}])
    act(game, "summon Amulet of Air")
    assert game.gauge[0] == 1 + AMULET_OF_AIR_GAUGE
    assert game.reserve[0] == (0, 0, 0, 0) and cards_in_play(game, 0) == [1]


def choices(cards) -> list[str]:
    return [f"choose card: {CARD_NAMES[card]}" for card in sorted(cards)]


def test_amulet_of_fire_draws_cards_keeps_1_discards_the_rest() -> None:
    drawn = DRAWS[:AMULET_OF_FIRE_DRAWN]
    game = scenario(players=[{"hand": [2], "reserve": {"fire": 2}, "summoning_gauge": 1}], draw_pile=[22, *drawn])
    act(game, "summon Amulet of Fire")
    assert labels(game) == choices(drawn)
    act(game, "choose card: Olaf's Blessed Statue")
    assert game.hand[0] == (29,) and sorted(game.discard_pile) == sorted(drawn[1:]) and game.draw_pile == [22]


def test_amulet_of_earth_gives_crystals() -> None:
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "crystals": 1, "summoning_gauge": 1}])
    act(game, "summon Amulet of Earth")
    assert game.crystals[0] == 1 + AMULET_OF_EARTH_CRYSTALS and game.reserve[0] == (0, 0, 0, 0)


def test_amulet_of_water_puts_chosen_tokens_on_the_card_not_the_reserve() -> None:
    game = scenario(players=[{"hand": [4], "reserve": {"water": 2, "air": 1}, "summoning_gauge": 1}])
    act(game, "summon Amulet of Water")
    fire = AMULET_OF_WATER_TOKENS - 2
    act(game, "choose energy: earth", *["choose energy: fire"] * fire, "choose energy: air")
    assert game.reserve[0] == (0, 0, 0, 1)
    assert tokens_on(game, 0, 4) == {"earth": 1, "fire": fire, "air": 1}


def test_amulet_of_water_tokens_pay_summoning_costs() -> None:
    amulet = {"card": 4, "tokens": {"earth": 2, "fire": 1}}
    game = scenario(players=[{"hand": [3], "in_play": [amulet], "summoning_gauge": 2}])
    assert "summon Amulet of Earth" in labels(game)
    act(game, "summon Amulet of Earth")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS and tokens_on(game, 0, 4) == {"fire": 1}


def test_amulet_of_water_tokens_pay_alongside_reserve_tokens_by_choice() -> None:
    amulet = {"card": 4, "tokens": {"earth": 2}}
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 1}, "in_play": [amulet], "summoning_gauge": 2}])
    act(game, "summon Amulet of Earth")
    assert labels(game) == ["pay earth from reserve", "pay earth from Amulet of Water (copy 1)"]
    act(game, "pay earth from reserve")
    assert game.reserve[0] == (0, 0, 0, 0) and tokens_on(game, 0, 4) == {"earth": 1}
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS


def test_amulet_of_water_tokens_can_be_transmuted() -> None:
    amulet = {"card": 4, "tokens": {"earth": 1}}
    game = scenario(players=[{"in_play": [amulet]}], position=2, turn={"transmute_ability": True})
    act(game, "transmute earth from Amulet of Water (copy 1)")
    assert game.crystals[0] == 3 and tokens_on(game, 0, 4) == {}


def test_amulet_of_water_tokens_do_not_count_for_wondrous_chest() -> None:
    amulet = {"card": 4, "tokens": {"water": 4}}
    game = end_of_round([{"reserve": {"fire": WONDROUS_CHEST_MIN_TOKENS - 1}, "in_play": [amulet, 13]}, {}])
    act(game, "end turn")
    assert game.crystals[0] == 0


def test_amulet_of_water_tokens_do_not_count_for_beggars_horn() -> None:
    amulet = {"card": 4, "tokens": {"water": 4}}
    game = end_of_round([{"reserve": {"fire": BEGGARS_HORN_MAX_TOKENS}, "in_play": [amulet, 14]}, {}])
    act(game, "end turn")
    assert game.pending_decision == "gain_energy" and game.current_player == 0
    act(game, "choose energy: air")
    assert game.reserve[0] == (0, 0, BEGGARS_HORN_MAX_TOKENS, 1) and tokens_on(game, 0, 4) == {"water": 4}


def test_amulet_of_water_tokens_are_not_copied_by_lewis_greyface() -> None:
    amulet = {"card": 4, "tokens": {"air": 4}}
    game = scenario(
        players=[
            {"hand": [21], "reserve": {"fire": 1, "air": 1}, "summoning_gauge": 1},
            {"reserve": {"earth": 2}, "in_play": [amulet]},
        ]
    )
    act(game, "summon Lewis Greyface")
    assert game.reserve[0] == (0, 2, 0, 0)


def test_amulet_of_water_tokens_survive_potion_of_dreams() -> None:
    amulet = {"card": 4, "tokens": {"fire": 2}}
    game = scenario(players=[{"hand": [3], "reserve": {"water": 3}, "in_play": [amulet, 24], "summoning_gauge": 2}])
    act(game, "activate Potion of Dreams (copy 1)")
    assert game.reserve[0] == (0, 0, 0, 0) and tokens_on(game, 0, 4) == {"fire": 2}


def test_amulet_of_water_tokens_are_not_converted_by_potion_of_life() -> None:
    amulet = {"card": 4, "tokens": {"fire": 2}}
    game = scenario(players=[{"reserve": {"water": 1}, "in_play": [amulet, 26]}])
    act(game, "activate Potion of Life (copy 1)")
    assert game.crystals[0] == POTION_OF_LIFE_CRYSTALS and tokens_on(game, 0, 4) == {"fire": 2}


# ---------------------------------------------------------------- 5 Balance of Ishtar


def test_balance_of_ishtar_turns_identical_tokens_into_crystals_without_transmute_ability() -> None:
    game = scenario(players=[{"reserve": {"fire": BALANCE_OF_ISHTAR_TOKENS, "water": 2}, "in_play": [5]}], position=7)
    act(game, "activate Balance of Ishtar (copy 1)")
    assert game.crystals[0] == BALANCE_OF_ISHTAR_CRYSTALS and game.reserve[0] == (2, 0, 0, 0)
    assert "activate Balance of Ishtar (copy 1)" not in labels(game)  # tapped until next round


def test_balance_of_ishtar_needs_enough_identical_tokens() -> None:
    short = BALANCE_OF_ISHTAR_TOKENS - 1
    game = scenario(players=[{"reserve": {"fire": short, "water": short, "air": short}, "in_play": [5]}])
    assert "activate Balance of Ishtar (copy 1)" not in labels(game)


def test_balance_of_ishtar_asks_which_type() -> None:
    needed = BALANCE_OF_ISHTAR_TOKENS
    # the Bespelled Grimoire raises the reserve limit so that both types fit
    game = scenario(players=[{"reserve": {"fire": needed, "earth": needed + 1}, "in_play": [5, 18]}])
    act(game, "activate Balance of Ishtar (copy 1)")
    assert labels(game) == ["choose energy: earth", "choose energy: fire"]
    act(game, "choose energy: earth")
    assert game.reserve[0] == (0, 1, needed, 0) and game.crystals[0] == BALANCE_OF_ISHTAR_CRYSTALS


def test_balance_of_ishtar_with_purse_of_io_gives_1_more_per_token() -> None:
    game = scenario(players=[{"reserve": {"air": BALANCE_OF_ISHTAR_TOKENS}, "in_play": [5, 8]}])
    act(game, "activate Balance of Ishtar (copy 1)")
    assert game.crystals[0] == BALANCE_OF_ISHTAR_CRYSTALS + BALANCE_OF_ISHTAR_TOKENS


def test_balance_of_ishtar_with_transmute_bonus_gives_1_more_per_token() -> None:
    game = scenario(players=[{"reserve": {"air": BALANCE_OF_ISHTAR_TOKENS}, "in_play": [5]}])
    act(game, "bonus: transmute with +1 crystal per token", "activate Balance of Ishtar (copy 1)")
    assert game.crystals[0] == BALANCE_OF_ISHTAR_CRYSTALS + BALANCE_OF_ISHTAR_TOKENS


# ---------------------------------------------------------------- 6 Staff of Spring


def test_staff_of_spring_does_not_trigger_on_its_own_summoning() -> None:
    game = scenario(players=[{"hand": [6], "reserve": {"earth": 3}, "summoning_gauge": 1}])
    act(game, "summon Staff of Spring")
    assert game.crystals[0] == 0 and cards_in_play(game, 0) == [6]


def test_staff_of_spring_gives_crystals_per_summon_from_hand() -> None:
    game = scenario(players=[{"hand": [3, 1], "reserve": {"earth": 2, "air": 2}, "in_play": [6], "summoning_gauge": 3}])
    act(game, "summon Amulet of Earth")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS + STAFF_OF_SPRING_CRYSTALS
    act(game, "summon Amulet of Air")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS + 2 * STAFF_OF_SPRING_CRYSTALS


def test_two_staffs_of_spring_add_up() -> None:
    staffs = [{"card": 6, "copy": 0}, {"card": 6, "copy": 1}]
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": staffs, "summoning_gauge": 3}])
    act(game, "summon Amulet of Earth")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS + 2 * STAFF_OF_SPRING_CRYSTALS


def test_second_staff_triggers_the_first_but_not_itself() -> None:
    game = scenario(players=[{"hand": [6], "reserve": {"earth": 3}, "in_play": [6], "summoning_gauge": 2}])
    act(game, "summon Staff of Spring")
    assert game.crystals[0] == STAFF_OF_SPRING_CRYSTALS


def test_staff_of_spring_ignores_divine_chalice_free_summon() -> None:
    game = scenario(
        players=[{"hand": [9], "reserve": ALL4, "in_play": [6], "summoning_gauge": 3}], draw_pile=[22, 22, 1, 3]
    )
    act(game, "summon Divine Chalice")  # from hand: the Staff's crystals
    act(game, "choose card: Amulet of Earth")  # free: the Amulet's only
    assert game.crystals[0] == STAFF_OF_SPRING_CRYSTALS + AMULET_OF_EARTH_CRYSTALS


def test_staff_of_spring_ignores_potion_of_dreams_free_summon() -> None:
    game = scenario(players=[{"hand": [3], "in_play": [6, 24], "summoning_gauge": 2}])
    act(game, "activate Potion of Dreams (copy 1)")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS and cards_in_play(game, 0) == [3, 6]


# ---------------------------------------------------------------- 7 Temporal Boots


def boots_game(year: int, position: int, **kwargs):
    players = kwargs.pop("players", None) or [{"hand": [7], "summoning_gauge": 1}, {}]
    return scenario(players=players, year=year, position=position, **kwargs)


def test_temporal_boots_cost_nothing_and_offer_all_six_moves() -> None:
    game = boots_game(2, 5)
    act(game, "summon Temporal Boots")
    assert labels(game) == [
        "move the season marker backward 3",
        "move the season marker backward 2",
        "move the season marker backward 1",
        "move the season marker forward 1",
        "move the season marker forward 2",
        "move the season marker forward 3",
    ]
    act(game, "move the season marker forward 3")
    assert (game.year, game.position, game.season) == (2, 8, 2) and cards_in_play(game, 0) == [7]


def test_temporal_boots_backward_within_a_year() -> None:
    game = boots_game(1, 5)
    act(game, "summon Temporal Boots", "move the season marker backward 3")
    assert (game.year, game.position) == (1, 2)


def test_temporal_boots_cannot_go_back_before_year_1_space_1() -> None:
    game = boots_game(1, 2)
    act(game, "summon Temporal Boots")
    assert labels(game) == [
        "move the season marker backward 1",
        "move the season marker forward 1",
        "move the season marker forward 2",
        "move the season marker forward 3",
    ]
    game = boots_game(1, 1)
    act(game, "summon Temporal Boots")
    assert [x for x in labels(game) if "backward" in x] == []


def test_temporal_boots_backward_from_winter_of_year_2_into_autumn_of_year_1() -> None:
    # The year-2 set was taken at the start of year 2 (it is in the hand now): it stays in hand, and going
    # back to year 1 does not return it to the library.
    p0 = {"hand": [7, 3, 22], "summoning_gauge": 1, "library": {"year3": [1, 2, 5]}}
    game = boots_game(2, 2, players=[p0, {}])
    act(game, "summon Temporal Boots", "move the season marker backward 3")
    assert (game.year, game.position, game.season) == (1, 11, 3)
    assert game.hand[0] == (3, 22) and game.library[0] == ((), (1, 2, 5))


def test_temporal_boots_back_into_year_1_then_the_leftover_die_into_year_2_adds_no_set_again() -> None:
    p0 = {"hand": [7, 3], "summoning_gauge": 1, "library": {"year3": [1, 2, 5]}}
    game = boots_game(2, 1, players=[p0, {}], dice_season="winter", rolled=[{"die": 1, "face": 0}])
    act(game, "summon Temporal Boots", "move the season marker backward 1")  # year 1, space 12
    assert (game.year, game.position) == (1, 12)
    act(game, "end turn", "end turn")  # the leftover die (3 pips) crosses 12 again
    assert (game.year, game.position) == (2, 3)
    assert game.hand[0] == (3,) and game.library[0] == ((), (1, 2, 5))


def test_temporal_boots_forward_across_12_in_year_1_changes_year_and_adds_set_at_once() -> None:
    p0 = {"hand": [7], "summoning_gauge": 1, "library": {"year2": [1, 3, 22], "year3": [2, 5, 6]}}
    p1 = {"library": {"year2": [10, 11, 12], "year3": [13, 14, 15]}}
    game = boots_game(1, 11, players=[p0, p1])
    act(game, "summon Temporal Boots", "move the season marker forward 3")
    assert (game.year, game.position) == (2, 2)
    assert game.hand == [(1, 3, 22), (10, 11, 12)]
    assert game.library == [((), (2, 5, 6)), ((), (13, 14, 15))]
    assert game.current_player == 0 and game.pending_decision == "turn"  # still player 0's turn


def test_temporal_boots_forward_across_12_in_year_2_adds_the_year_3_set() -> None:
    p0 = {"hand": [7], "summoning_gauge": 1, "library": {"year3": [2, 5, 6]}}
    game = boots_game(2, 12, players=[p0, {}])
    act(game, "summon Temporal Boots", "move the season marker forward 1")
    assert (game.year, game.position) == (3, 1) and game.hand[0] == (2, 5, 6) and game.library[0] == ((), ())


def test_temporal_boots_forward_across_12_in_year_3_ends_the_game_at_the_end_of_the_round() -> None:
    game = boots_game(3, 11, rolled=[AUTUMN_LEFTOVER_1], players=[{"hand": [7], "summoning_gauge": 1}, {}])
    act(game, "summon Temporal Boots", "move the season marker forward 2")
    assert game.position == 1 and not game.is_over
    act(game, "end turn")
    assert not game.is_over and game.current_player == 1 and game.pending_decision == "turn"  # player 1 still plays
    act(game, "end turn")
    assert game.is_over and game.position == 1  # the leftover die (1 pip) moved nothing


def test_temporal_boots_season_change_triggers_figrim_at_once() -> None:
    p0 = {"hand": [7], "summoning_gauge": 2, "in_play": [11]}
    game = boots_game(1, 3, players=[p0, {"crystals": 5}])
    act(game, "summon Temporal Boots", "move the season marker forward 1")
    assert game.season == 1 and game.crystals == [FIGRIM_CRYSTALS, 5 - FIGRIM_CRYSTALS]
    assert game.current_player == 0 and game.pending_decision == "turn"


def test_temporal_boots_backward_season_change_triggers_figrim() -> None:
    p0 = {"hand": [7], "summoning_gauge": 2, "in_play": [11]}
    game = boots_game(2, 1, players=[p0, {"crystals": 5}])
    act(game, "summon Temporal Boots", "move the season marker backward 1")
    assert (game.year, game.position) == (1, 12) and game.crystals == [FIGRIM_CRYSTALS, 5 - FIGRIM_CRYSTALS]


def test_temporal_boots_without_season_change_triggers_nothing() -> None:
    p0 = {"hand": [7], "summoning_gauge": 3, "in_play": [11, 27]}
    game = boots_game(1, 4, players=[p0, {"crystals": 5}])
    act(game, "summon Temporal Boots", "move the season marker forward 2")
    assert game.crystals == [0, 5] and game.pending_decision == "turn"
    act(game, "end turn")
    assert game.reserve[0] == (0, 0, 0, 0) and game.current_player == 1


def test_temporal_boots_hourglass_tokens_arrive_at_the_end_of_the_turn() -> None:
    p0 = {"hand": [7, 3], "reserve": {"earth": 2}, "summoning_gauge": 3, "in_play": [27]}
    game = boots_game(1, 3, players=[p0, {}])
    act(game, "summon Temporal Boots", "move the season marker forward 1")
    assert game.pending_decision == "turn" and game.reserve[0] == (0, 2, 0, 0)  # nothing yet
    act(game, "summon Amulet of Earth")  # the turn goes on
    act(game, "end turn")
    assert game.pending_decision == "gain_energy" and game.current_player == 0
    act(game, "choose energy: fire")
    assert game.reserve[0] == (0, 0, 1, 0) and game.current_player == 1


def test_temporal_boots_opponents_hourglass_tokens_arrive_at_the_end_of_the_turn() -> None:
    p1 = {"in_play": [27]}
    game = boots_game(1, 3, players=[{"hand": [7], "summoning_gauge": 1}, p1])
    act(game, "summon Temporal Boots", "move the season marker forward 1")
    assert game.current_player == 0 and game.pending_decision == "turn"
    act(game, "end turn")
    assert game.current_player == 1 and game.pending_decision == "gain_energy"
    act(game, "choose energy: water")
    assert game.reserve[1] == (1, 0, 0, 0) and game.pending_decision == "turn"


# ---------------------------------------------------------------- 8 Purse of Io


def test_purse_of_io_adds_1_per_token_transmuted() -> None:
    game = scenario(
        players=[{"reserve": {"water": 1, "earth": 1}, "in_play": [8]}], position=1, turn={"transmute_ability": True}
    )
    act(game, "transmute water from reserve")
    assert game.crystals[0] == 1 + 1
    act(game, "transmute earth from reserve")
    assert game.crystals[0] == 2 + 3 + 1


def test_two_purses_of_io_add_up() -> None:
    purses = [{"card": 8, "copy": 0}, {"card": 8, "copy": 1}]
    game = scenario(players=[{"reserve": {"fire": 1}, "in_play": purses}], position=7, turn={"transmute_ability": True})
    act(game, "transmute fire from reserve")
    assert game.crystals[0] == 1 + 2


def test_purse_of_io_and_transmute_bonus_add_up() -> None:
    game = scenario(players=[{"reserve": {"fire": 1}, "in_play": [8]}], position=7)
    act(game, "bonus: transmute with +1 crystal per token", "transmute fire from reserve")
    assert game.crystals[0] == 1 + 1 + 1


def test_purse_of_io_adds_to_potion_of_life() -> None:
    game = scenario(players=[{"reserve": {"water": 2, "air": 1}, "in_play": [8, 26]}])
    act(game, "activate Potion of Life (copy 1)")
    assert game.crystals[0] == 3 * (POTION_OF_LIFE_CRYSTALS + 1)


# ---------------------------------------------------------------- 9 Divine Chalice


def test_divine_chalice_puts_one_of_the_drawn_cards_into_play_for_free() -> None:
    drawn = (22, *DRAWS[: DIVINE_CHALICE_DRAWN - 1])
    game = scenario(players=[{"hand": [9], "reserve": ALL4, "summoning_gauge": 2}], draw_pile=[2, *drawn])
    act(game, "summon Divine Chalice")
    assert labels(game) == choices(drawn)
    act(game, "choose card: Runic Cube of Eolis")  # costs 20 crystals from hand: free here
    assert cards_in_play(game, 0) == [9, 22] and game.crystals[0] == 0
    assert sorted(game.discard_pile) == sorted(drawn[1:]) and game.draw_pile == [2] and game.hand[0] == ()


def test_divine_chalice_free_card_triggers_its_on_summon_effect() -> None:
    game = scenario(players=[{"hand": [9], "reserve": ALL4, "summoning_gauge": 2}], draw_pile=[19, 22, 22, 29])
    act(game, "summon Divine Chalice", "choose card: Olaf's Blessed Statue")
    assert game.crystals[0] == OLAFS_STATUE_CRYSTALS


def test_divine_chalice_card_is_discarded_without_gauge_room() -> None:
    game = scenario(players=[{"hand": [9], "reserve": ALL4, "summoning_gauge": 1}], draw_pile=[1, 22, 29, 3, 5])
    act(game, "summon Divine Chalice", "choose card: Olaf's Blessed Statue")
    assert cards_in_play(game, 0) == [9] and game.crystals[0] == 0
    assert sorted(game.discard_pile) == [3, 5, 22, 29]


def test_divine_chalice_free_card_triggers_no_vase() -> None:
    game = scenario(
        players=[{"hand": [9], "reserve": ALL4, "in_play": [30], "summoning_gauge": 3}], draw_pile=[19, 22, 22, 3]
    )
    act(game, "summon Divine Chalice", "choose card: Amulet of Earth")
    assert game.pending_decision == "gain_energy"  # the Vase, once: for the Chalice summoned from hand
    act(game, "choose energy: air")
    assert game.reserve[0] == (0, 0, 0, 1) and game.pending_decision == "turn"
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS


# ---------------------------------------------------------------- 10 Syllas the Faithful


def test_syllas_each_opponent_sacrifices_a_card_of_their_own_choice() -> None:
    game = scenario(
        num_players=3,
        players=[
            {"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 2, "in_play": [3]},
            {"in_play": [22, 1]},
            {"in_play": [29, 5]},
        ],
    )
    act(game, "summon Syllas the Faithful")
    assert game.current_player == 1 and game.pending_decision == "syllas_sacrifice"
    assert labels(game) == ["choose in play: Amulet of Air (copy 1)", "choose in play: Runic Cube of Eolis (copy 1)"]
    act(game, "choose in play: Amulet of Air (copy 1)")
    assert game.current_player == 2
    assert labels(game) == [
        "choose in play: Balance of Ishtar (copy 1)",
        "choose in play: Olaf's Blessed Statue (copy 1)",
    ]
    act(game, "choose in play: Olaf's Blessed Statue (copy 1)")
    assert cards_in_play(game, 0) == [3, 10] and cards_in_play(game, 1) == [22] and cards_in_play(game, 2) == [5]
    assert sorted(game.discard_pile) == [1, 29] and game.current_player == 0


# ---------------------------------------------------------------- 11 Figrim the Avaricious


def test_figrim_collects_from_each_opponent_with_a_crystal_at_season_change() -> None:
    game = scenario(
        num_players=3,
        players=[{"in_play": [11]}, {"crystals": 5}, {"crystals": 0}],
        turn_player=2,
        position=3,
        rolled=[LEFTOVER_1],
    )
    act(game, "end turn")
    assert game.position == 4 and game.crystals == [FIGRIM_CRYSTALS, 5 - FIGRIM_CRYSTALS, 0]


def test_figrim_does_nothing_without_season_change() -> None:
    game = end_of_round([{"in_play": [11]}, {"crystals": 5}], position=2, rolled=[LEFTOVER_1])
    act(game, "end turn")
    assert game.position == 3 and game.crystals == [0, 5]


def test_two_figrims_add_up() -> None:
    figrims = [{"card": 11, "copy": 0}, {"card": 11, "copy": 1}]
    game = end_of_round([{"in_play": figrims}, {"crystals": 5}], position=9, rolled=[{"die": 0, "face": 0}])
    act(game, "end turn")
    assert game.season == 3 and game.crystals == [2 * FIGRIM_CRYSTALS, 5 - 2 * FIGRIM_CRYSTALS]


def test_figrims_collect_in_turn_order_from_the_first_player() -> None:
    players = [{"in_play": [11]}, {"in_play": [{"card": 11, "copy": 1}], "crystals": 1}]
    game = end_of_round(players, position=3, rolled=[LEFTOVER_1])
    act(game, "end turn")  # seat 0 collects seat 1's crystal, then seat 1 collects it back
    assert game.crystals == [0, 1]
    game = scenario(players=players, first_player=1, turn_player=0, position=3, rolled=[LEFTOVER_1])
    act(game, "end turn")  # seat 1 first finds nothing, then seat 0 collects
    assert game.crystals == [1, 0]


# ---------------------------------------------------------------- 12 Naria the Prophetess


def test_naria_draws_one_per_player_keeps_one_and_the_owner_gives_the_rest() -> None:
    game = scenario(
        num_players=3,
        players=[{"hand": [12], "crystals": 3, "summoning_gauge": 1}],
        draw_pile=[22, 1, 3, 29],
    )
    act(game, "summon Naria the Prophetess")
    assert game.current_player == 0 and labels(game) == [
        "choose card: Amulet of Air",
        "choose card: Amulet of Earth",
        "choose card: Olaf's Blessed Statue",
    ]
    act(game, "choose card: Amulet of Earth")  # keep
    assert game.current_player == 0 and labels(game) == [
        "choose card: Amulet of Air",
        "choose card: Olaf's Blessed Statue",
    ]
    act(game, "choose card: Olaf's Blessed Statue")  # to player 1; Amulet of Air goes to player 2
    assert game.hand == [(3,), (29,), (1,)] and game.draw_pile == [22] and game.crystals[0] == 0


def test_naria_in_two_players_draws_two() -> None:
    game = scenario(players=[{"hand": [12], "crystals": 3, "summoning_gauge": 1}], draw_pile=[22, 1, 3])
    act(game, "summon Naria the Prophetess", "choose card: Amulet of Air")
    assert game.hand == [(1,), (3,)] and game.draw_pile == [22]


# ---------------------------------------------------------------- 13 Wondrous Chest, 14 Beggar's Horn


def test_wondrous_chest_gives_its_crystals_with_enough_reserve_tokens_at_end_of_round() -> None:
    game = end_of_round([{"reserve": {"water": 2, "fire": WONDROUS_CHEST_MIN_TOKENS - 2}, "in_play": [13]}, {}])
    act(game, "end turn")
    assert game.crystals[0] == WONDROUS_CHEST_CRYSTALS


def test_wondrous_chest_gives_nothing_with_a_token_too_few() -> None:
    game = end_of_round([{"reserve": {"water": 2, "fire": WONDROUS_CHEST_MIN_TOKENS - 3}, "in_play": [13]}, {}])
    act(game, "end turn")
    assert game.crystals[0] == 0


def test_wondrous_chest_only_at_end_of_round_not_during_the_turn() -> None:
    game = scenario(players=[{"reserve": {"water": WONDROUS_CHEST_MIN_TOKENS}, "in_play": [13]}, {}])
    act(game, "end turn")
    assert game.crystals[0] == 0 and game.current_player == 1


def test_two_wondrous_chests_add_up() -> None:
    chests = [{"card": 13, "copy": 0}, {"card": 13, "copy": 1}]
    game = end_of_round([{"reserve": {"air": 7}, "in_play": chests}, {}])
    act(game, "end turn")
    assert game.crystals[0] == 2 * WONDROUS_CHEST_CRYSTALS


def test_beggars_horn_gives_a_token_with_few_reserve_tokens() -> None:
    most = BEGGARS_HORN_MAX_TOKENS
    for reserve, expected in (({}, (0, 0, 0, 1)), ({"fire": most}, (0, 0, most, 1))):
        game = end_of_round([{"reserve": reserve, "in_play": [14]}, {}])
        act(game, "end turn")
        assert game.pending_decision == "gain_energy" and game.current_player == 0
        act(game, "choose energy: air")
        assert game.reserve[0] == expected


def test_beggars_horn_gives_nothing_with_a_token_too_many() -> None:
    game = end_of_round([{"reserve": {"fire": BEGGARS_HORN_MAX_TOKENS + 1}, "in_play": [14]}, {}])
    act(game, "end turn")
    assert game.reserve[0] == (0, 0, BEGGARS_HORN_MAX_TOKENS + 1, 0) and game.pending_decision != "gain_energy"


# ---------------------------------------------------------------- 15 Die of Malice


def malice_game(in_play, die=None):
    die = die or {"die": 3, "face": 4}  # winter die 4, face 5: 6 crystals
    return scenario(
        players=[{"in_play": in_play}, {}],
        pending=[{"step": "turn_start", "player": 0}],
        rolled=[{**die, "taken_by": 0}, {"die": 1, "face": 0, "taken_by": 1}, {"die": 0, "face": 0}],
    )


def test_die_of_malice_window_comes_before_the_die_actions() -> None:
    game = malice_game([15])
    assert game.pending_decision == "die_of_malice_window"
    assert labels(game) == ["use the season die as rolled", "activate Die of Malice (copy 1)"]
    assert game.crystals[0] == 0  # the die's 6 crystals are not taken yet
    act(game, "use the season die as rolled")
    assert game.crystals[0] == 6 and game.pending_decision == "turn"
    assert "activate Die of Malice (copy 1)" not in labels(game)  # only in the window


def test_die_of_malice_rerolls_the_same_die_and_gives_crystals() -> None:
    game = malice_game([15])
    act(game, "activate Die of Malice (copy 1)")
    die, face, _ = next(r for r in game.rolled if r[2] == 0)
    assert die == 3 and 0 <= face < 6
    new = DICE[0][3][face]
    assert game.crystals[0] == DIE_OF_MALICE_CRYSTALS + new.crystals
    assert game.reserve[0] == new.energy and game.gauge[0] == int(new.gauge)
    assert game.pending_decision == "turn" and game.to_dict()["turn"]["transmute_ability"] == new.transmute


def test_two_dice_of_malice_one_after_the_other() -> None:
    game = malice_game([{"card": 15, "copy": 0}, {"card": 15, "copy": 1}])
    act(game, "activate Die of Malice (copy 1)")
    assert game.pending_decision == "die_of_malice_window" and game.crystals[0] == DIE_OF_MALICE_CRYSTALS
    assert labels(game) == ["use the season die as rolled", "activate Die of Malice (copy 2)"]
    act(game, "activate Die of Malice (copy 2)")
    face = next(r for r in game.rolled if r[2] == 0)[1]
    assert game.crystals[0] == 2 * DIE_OF_MALICE_CRYSTALS + DICE[0][3][face].crystals
    assert game.pending_decision == "turn"


def test_die_of_malice_not_offered_in_the_main_turn() -> None:
    game = scenario(players=[{"in_play": [15]}])
    assert labels(game) == ["end turn", "bonus: transmute with +1 crystal per token", "bonus: summoning gauge +1"]


# ---------------------------------------------------------------- 16 Kairn the Destroyer


def test_kairn_discards_a_token_and_each_opponent_loses_crystals() -> None:
    game = scenario(
        num_players=3,
        players=[
            {"reserve": {"water": KAIRN_TOKENS, "fire": 1}, "in_play": [16], "crystals": 2},
            {"crystals": 10},
            {"crystals": 3},
        ],
    )
    act(game, "activate Kairn the Destroyer (copy 1)")
    assert labels(game) == ["pay water from reserve", "pay fire from reserve"]
    act(game, "pay fire from reserve")
    assert game.reserve[0] == (1, 0, 0, 0) and game.crystals == [2, 10 - KAIRN_CRYSTALS, max(3 - KAIRN_CRYSTALS, 0)]
    assert "activate Kairn the Destroyer (copy 1)" not in labels(game)


def test_kairn_needs_a_token() -> None:
    game = scenario(players=[{"in_play": [16]}, {"crystals": 10}])
    assert "activate Kairn the Destroyer (copy 1)" not in labels(game)


# ---------------------------------------------------------------- 17 Amsug Longneck


def test_amsug_each_player_owner_first_returns_an_item_of_their_choice() -> None:
    game = scenario(
        num_players=3,
        players=[
            {"hand": [17], "reserve": {"water": 1, "air": 1}, "in_play": [3, 1], "summoning_gauge": 3},
            {"in_play": [10, 22, 29]},
            {"in_play": [11]},  # familiars only: no effect
        ],
    )
    act(game, "summon Amsug Longneck")
    assert game.current_player == 0 and labels(game) == [
        "choose in play: Amulet of Air (copy 1)",
        "choose in play: Amulet of Earth (copy 1)",
    ]
    act(game, "choose in play: Amulet of Earth (copy 1)")
    assert game.current_player == 1 and labels(game) == [
        "choose in play: Runic Cube of Eolis (copy 1)",
        "choose in play: Olaf's Blessed Statue (copy 1)",
    ]
    act(game, "choose in play: Runic Cube of Eolis (copy 1)")
    assert game.hand == [(3,), (22,), ()]
    assert cards_in_play(game, 0) == [1, 17] and cards_in_play(game, 1) == [10, 29] and cards_in_play(game, 2) == [11]
    assert game.current_player == 0 and game.pending_decision == "turn" and game.discard_pile == []


# ---------------------------------------------------------------- 18 Bespelled Grimoire


def test_bespelled_grimoire_gains_tokens_and_raises_the_limit_to_10() -> None:
    game = scenario(players=[{"hand": [18, 25], "reserve": {"water": 1, "earth": 1, "fire": 5}, "summoning_gauge": 1}])
    act(game, "summon Bespelled Grimoire", "choose energy: air")  # after air, the second token is air: forced
    assert game.reserve[0] == (0, 0, 5, BESPELLED_GRIMOIRE_TOKENS)
    assert game.pending_decision == "turn" and game.reserve_limit(0) == 10


def test_bespelled_grimoire_limit_is_10() -> None:
    game = scenario(players=[{"reserve": {"fire": 9}, "in_play": [18, 25]}])
    # Water first, so the later tokens are still a choice (after air, every later token would be air: forced).
    act(game, "activate Potion of Knowledge (copy 1)", "choose energy: water")
    assert sum(game.reserve[0]) == 10 and game.pending_decision == "gain_energy"
    act(game, "choose energy: air")
    assert game.pending_decision == "overflow"
    act(game, "choose energy: fire")  # back to 10; the next air (forced) passes the limit again
    assert game.pending_decision == "overflow" and game.reserve[0] == (1, 0, 8, 2)
    act(game, *["choose energy: fire"] * (POTION_OF_KNOWLEDGE_TOKENS - 2))  # a discard after each later token
    assert sum(game.reserve[0]) == 10 and game.pending_decision == "turn"


def test_second_bespelled_grimoire_does_not_raise_the_limit() -> None:
    grimoires = [{"card": 18, "copy": 0}, {"card": 18, "copy": 1}]
    game = scenario(players=[{"reserve": {"fire": 10}, "in_play": [*grimoires, 25]}])
    act(game, "activate Potion of Knowledge (copy 1)", "choose energy: air")  # the other tokens: air, forced
    assert game.pending_decision == "overflow" and game.current_player == 0 and game.reserve[0] == (0, 0, 10, 1)
    act(game, *["choose energy: air"] * POTION_OF_KNOWLEDGE_TOKENS)  # one discard after each token gained
    assert game.reserve[0] == (0, 0, 10, 0)


def test_bespelled_grimoire_leaving_play_drops_the_limit_and_overflows() -> None:
    p0 = {"hand": [17], "reserve": {"water": 1, "air": 1, "earth": 8}, "in_play": [18], "summoning_gauge": 2}
    game = scenario(players=[p0, {}])
    act(game, "summon Amsug Longneck")  # 8 earth left; Amsug returns the Grimoire, the only item
    assert game.hand[0] == (18,) and game.reserve[0] == (0, 7, 0, 0)  # one type held: the discard is forced
    assert game.current_player == 0 and game.pending_decision == "turn"


def test_bespelled_grimoire_sacrificed_makes_its_owner_discard_down_to_7() -> None:
    game = scenario(
        players=[
            {"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"reserve": {"water": 5, "air": 4}, "in_play": [18]},
        ]
    )
    act(game, "summon Syllas the Faithful")  # player 1's only card is sacrificed
    assert game.current_player == 1 and game.pending_decision == "overflow"
    act(game, "choose energy: water", "choose energy: air")
    assert game.reserve[1] == (4, 0, 0, 3) and game.current_player == 0 and game.pending_decision == "turn"


def test_bespelled_grimoire_overflow_comes_before_the_next_players_choice() -> None:
    p0 = {"hand": [17], "reserve": {"water": 1, "air": 1, "earth": 5, "fire": 3}, "in_play": [18], "summoning_gauge": 2}
    game = scenario(players=[p0, {"in_play": [1, 3]}])
    act(game, "summon Amsug Longneck")  # 8 left; the Grimoire (the only item) goes back to hand
    assert game.hand[0] == (18,) and game.pending_decision == "overflow" and game.current_player == 0
    act(game, "choose energy: fire")
    assert game.reserve[0] == (0, 5, 2, 0) and game.pending_decision == "amsug_return" and game.current_player == 1


# ---------------------------------------------------------------- 19 Ragfield's Helm


def final_round(players, **fields):
    """Year 3, space 12: ending player 1's turn ends the game (the leftover die crosses 12)."""
    return end_of_round(players, year=3, position=12, rolled=[AUTUMN_LEFTOVER_1], **fields)


def test_ragfields_helm_gives_prestige_for_strictly_most_cards_in_play() -> None:
    game = final_round([{"in_play": [19, 7, 15]}, {"in_play": [1, 3]}])
    act(game, "end turn")
    assert game.is_over and game.scores() == [10 + 8 + 8 + RAGFIELDS_HELM_PRESTIGE, 12]


def test_ragfields_helm_gives_nothing_on_a_tie_for_most() -> None:
    game = final_round([{"in_play": [19, 7]}, {"in_play": [1, 3]}])
    act(game, "end turn")
    assert game.is_over and game.scores() == [18, 12]


def test_two_ragfields_helms_add_up() -> None:
    helms = [{"card": 19, "copy": 0}, {"card": 19, "copy": 1}]
    game = final_round([{"in_play": helms}, {"in_play": [1]}])
    act(game, "end turn")
    assert game.scores() == [20 + 2 * RAGFIELDS_HELM_PRESTIGE, 6]


# ---------------------------------------------------------------- 20 Hand of Fortune


def test_hand_of_fortune_lowers_the_energy_cost_by_one_token_of_the_players_choice() -> None:
    game = scenario(
        players=[{"hand": [9], "reserve": ALL4, "in_play": [20], "summoning_gauge": 3}], draw_pile=[19, 19, 22, 22]
    )
    act(game, "summon Divine Chalice")
    assert game.pending_decision == "hand_of_fortune" and labels(game) == [
        "choose energy: water",
        "choose energy: earth",
        "choose energy: fire",
        "choose energy: air",
    ]
    act(game, "choose energy: air")
    assert game.reserve[0] == (0, 0, 0, 1)


def test_hand_of_fortune_lets_a_player_summon_one_token_short() -> None:
    game = scenario(players=[{"hand": [10], "reserve": {"fire": 2}, "in_play": [20], "summoning_gauge": 2}])
    assert "summon Syllas the Faithful" in labels(game)
    act(game, "summon Syllas the Faithful")
    assert game.reserve[0] == (0, 0, 0, 0) and cards_in_play(game, 0) == [10, 20]


def test_hand_of_fortune_never_lowers_below_one_token() -> None:
    hands = [{"card": 20, "copy": 0}, {"card": 20, "copy": 1}]
    game = scenario(players=[{"hand": [1], "reserve": {"air": 2}, "in_play": hands, "summoning_gauge": 3}])
    act(game, "summon Amulet of Air")
    assert game.reserve[0] == (0, 0, 0, 1)


def test_hand_of_fortune_never_lowers_crystals() -> None:
    game = scenario(players=[{"hand": [22], "crystals": 19, "in_play": [20], "summoning_gauge": 2}])
    assert "summon Runic Cube of Eolis" not in labels(game)
    game = scenario(players=[{"hand": [11], "crystals": 3, "in_play": [20], "summoning_gauge": 2}])
    act(game, "summon Figrim the Avaricious")
    assert game.crystals[0] == 0


def test_two_hands_of_fortune_add_up() -> None:
    hands = [{"card": 20, "copy": 0}, {"card": 20, "copy": 1}]
    game = scenario(
        players=[{"hand": [9], "reserve": {"water": 1, "earth": 1}, "in_play": hands, "summoning_gauge": 3}],
        draw_pile=[19, 19, 22, 22],
    )
    assert "summon Divine Chalice" in labels(game)
    act(game, "summon Divine Chalice")  # fire and air are both saved, in type order: both forced
    assert game.reserve[0] == (0, 0, 0, 0) and 9 in cards_in_play(game, 0)


def test_hand_of_fortune_does_not_lower_activation_costs() -> None:
    game = scenario(players=[{"reserve": {"fire": 2, "water": 2}, "in_play": [20, 5]}])
    assert "activate Balance of Ishtar (copy 1)" not in labels(game)
    game = scenario(players=[{"in_play": [20, 16]}, {"crystals": 5}])
    assert "activate Kairn the Destroyer (copy 1)" not in labels(game)


def test_hand_of_fortune_with_the_whole_cost_in_reserve_still_saves_a_token() -> None:
    game = scenario(players=[{"hand": [10], "reserve": {"fire": 3}, "in_play": [20], "summoning_gauge": 2}])
    act(game, "summon Syllas the Faithful")
    assert game.reserve[0] == (0, 0, 1, 0)


# ---------------------------------------------------------------- 21 Lewis Greyface


def test_lewis_copies_the_chosen_opponents_reserve() -> None:
    game = scenario(
        num_players=3,
        players=[
            {"hand": [21], "reserve": {"fire": 1, "air": 1, "water": 1}, "summoning_gauge": 1},
            {"reserve": {"water": 2}},
            {"reserve": {"earth": 1, "fire": 2}, "in_play": [{"card": 4, "tokens": {"air": 3}}]},
        ],
    )
    act(game, "summon Lewis Greyface")
    assert game.current_player == 0 and labels(game) == [
        "choose opponent: 1 seat(s) to the left",
        "choose opponent: 2 seat(s) to the left",
    ]
    act(game, "choose opponent: 2 seat(s) to the left")
    assert game.reserve == [(1, 1, 2, 0), (2, 0, 0, 0), (0, 1, 2, 0)]


def test_lewis_copy_can_overflow() -> None:
    game = scenario(
        players=[
            {"hand": [21], "reserve": {"fire": 1, "air": 1, "water": 3}, "summoning_gauge": 1},
            {"reserve": {"earth": 6}},
        ]
    )
    act(game, "summon Lewis Greyface")
    assert game.pending_decision == "overflow" and game.current_player == 0
    act(game, "choose energy: water", "choose energy: water")
    assert game.reserve[0] == (1, 6, 0, 0)


# ---------------------------------------------------------------- 22 Runic Cube of Eolis


def test_runic_cube_has_no_effect_and_scores_30() -> None:
    game = scenario(
        players=[{"hand": [22], "crystals": 25, "summoning_gauge": 1}, {}],
        year=3,
        position=12,
        rolled=[AUTUMN_LEFTOVER_1],
    )
    act(game, "summon Runic Cube of Eolis")
    assert game.crystals[0] == 5 and game.pending_decision == "turn" and game.reserve[0] == (0, 0, 0, 0)
    act(game, "end turn", "end turn")
    assert game.is_over and game.scores() == [35, 0]


# ---------------------------------------------------------------- 23-26: the potions


def test_potion_of_power_draws_a_kept_card_and_raises_the_gauge() -> None:
    game = scenario(players=[{"in_play": [23], "summoning_gauge": 1}], draw_pile=[3, 22])
    act(game, "activate Potion of Power (copy 1)")
    assert game.hand[0] == (22,) and game.gauge[0] == 1 + POTION_OF_POWER_GAUGE and cards_in_play(game, 0) == []
    assert game.discard_pile == [23] and game.pending_decision == "turn"


def test_potion_of_dreams_discards_the_reserve_and_puts_a_hand_card_into_play_free() -> None:
    game = scenario(
        players=[{"hand": [22, 3], "reserve": {"water": 2, "fire": 3}, "in_play": [24], "summoning_gauge": 1}]
    )
    act(game, "activate Potion of Dreams (copy 1)")
    assert game.reserve[0] == (0, 0, 0, 0) and game.discard_pile == [24]
    assert labels(game) == ["choose card: Amulet of Earth", "choose card: Runic Cube of Eolis"]
    act(game, "choose card: Runic Cube of Eolis")
    assert cards_in_play(game, 0) == [22] and game.hand[0] == (3,) and game.crystals[0] == 0


def test_potion_of_dreams_usable_with_no_tokens() -> None:
    game = scenario(players=[{"hand": [29], "in_play": [24], "summoning_gauge": 1}])
    act(game, "activate Potion of Dreams (copy 1)")
    assert cards_in_play(game, 0) == [29] and game.crystals[0] == OLAFS_STATUE_CRYSTALS


def test_potion_of_dreams_offered_only_with_room_counting_its_own_slot() -> None:
    full = scenario(players=[{"hand": [3], "in_play": [24, 22], "summoning_gauge": 2}])
    assert "activate Potion of Dreams (copy 1)" in labels(full)
    over = scenario(players=[{"hand": [3], "in_play": [24, 22], "summoning_gauge": 1}])
    assert "activate Potion of Dreams (copy 1)" not in labels(over)


def test_potion_of_dreams_free_card_triggers_no_vase() -> None:
    game = scenario(players=[{"hand": [3], "in_play": [24, 30], "summoning_gauge": 2}])
    act(game, "activate Potion of Dreams (copy 1)")
    assert game.pending_decision == "turn" and game.reserve[0] == (0, 0, 0, 0)
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS


def test_potion_of_knowledge_gains_tokens_of_choice() -> None:
    game = scenario(players=[{"in_play": [25]}])
    act(game, "activate Potion of Knowledge (copy 1)")
    water = POTION_OF_KNOWLEDGE_TOKENS - 2
    act(game, *["choose energy: water"] * water, *["choose energy: earth"] * 2)
    assert game.reserve[0] == (water, 2, 0, 0) and cards_in_play(game, 0) == [] and game.discard_pile == [25]


def test_potion_of_life_turns_each_reserve_token_into_crystals() -> None:
    game = scenario(players=[{"reserve": {"water": 1, "earth": 2, "air": 3}, "in_play": [26], "crystals": 1}])
    act(game, "activate Potion of Life (copy 1)")
    assert game.crystals[0] == 1 + 6 * POTION_OF_LIFE_CRYSTALS
    assert game.reserve[0] == (0, 0, 0, 0) and game.discard_pile == [26]


def test_potion_of_life_grants_no_transmute_ability() -> None:
    amulet = {"card": 4, "tokens": {"earth": 2}}
    game = scenario(players=[{"reserve": {"water": 1}, "in_play": [26, amulet]}])
    act(game, "activate Potion of Life (copy 1)")
    assert not [x for x in labels(game) if x.startswith("transmute")]


# ---------------------------------------------------------------- 27 Hourglass of Time


def test_hourglass_gains_a_token_at_each_season_change() -> None:
    game = end_of_round([{"in_play": [27]}, {}], position=3, rolled=[LEFTOVER_1])
    act(game, "end turn")
    assert game.position == 4 and game.pending_decision == "gain_energy" and game.current_player == 0
    act(game, "choose energy: fire")
    assert game.reserve[0] == (0, 0, 1, 0)


def test_hourglass_gives_nothing_without_season_change() -> None:
    game = end_of_round([{"in_play": [27]}, {}], position=1, rolled=[LEFTOVER_1])
    act(game, "end turn")
    assert game.position == 2 and game.pending_decision == "choose_die" and game.reserve[0] == (0, 0, 0, 0)


def test_two_hourglasses_add_up() -> None:
    glasses = [{"card": 27, "copy": 0}, {"card": 27, "copy": 1}]
    game = end_of_round([{"in_play": glasses}, {}], position=3, rolled=[LEFTOVER_1])
    act(game, "end turn", "choose energy: fire", "choose energy: air")
    assert game.reserve[0] == (0, 0, 1, 1)


# ---------------------------------------------------------------- 28-30


def test_scepter_of_greatness_gives_crystals_per_other_magic_item() -> None:
    game = scenario(players=[{"hand": [28], "reserve": ALL4, "in_play": [3, 1, 10, 11], "summoning_gauge": 5}])
    act(game, "summon Scepter of Greatness")
    assert game.crystals[0] == 2 * SCEPTER_CRYSTALS


def test_olafs_statue_gives_crystals() -> None:
    game = scenario(players=[{"hand": [29], "reserve": {"water": 3}, "summoning_gauge": 1}])
    act(game, "summon Olaf's Blessed Statue")
    assert game.crystals[0] == OLAFS_STATUE_CRYSTALS and game.reserve[0] == (0, 0, 0, 0)


def test_yjangs_vase_does_not_trigger_on_its_own_summoning() -> None:
    game = scenario(players=[{"hand": [30], "reserve": {"water": 1, "earth": 1, "fire": 1}, "summoning_gauge": 1}])
    act(game, "summon Yjang's Forgotten Vase")
    assert game.pending_decision == "turn" and game.reserve[0] == (0, 0, 0, 0)


def test_yjangs_vase_gives_a_token_of_choice_per_summon_from_hand() -> None:
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": [30], "summoning_gauge": 2}])
    act(game, "summon Amulet of Earth")
    assert game.pending_decision == "gain_energy" and game.current_player == 0
    act(game, "choose energy: water")
    assert game.reserve[0] == (1, 0, 0, 0) and game.crystals[0] == AMULET_OF_EARTH_CRYSTALS


def test_two_vases_and_a_staff_add_up() -> None:
    in_play = [{"card": 30, "copy": 0}, {"card": 30, "copy": 1}, 6]
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": in_play, "summoning_gauge": 4}])
    act(game, "summon Amulet of Earth", "choose energy: water", "choose energy: air")
    assert game.reserve[0] == (1, 0, 0, 1) and game.crystals[0] == AMULET_OF_EARTH_CRYSTALS + STAFF_OF_SPRING_CRYSTALS
