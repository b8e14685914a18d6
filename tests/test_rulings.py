"""One scenario test per ruling of docs/rulings.md."""

from __future__ import annotations

import pytest
from scenario import act, labels, scenario

from seasons_env.engine import actions as A
from seasons_env.engine.card_constants import (
    AMULET_OF_EARTH_CRYSTALS,
    BALANCE_OF_ISHTAR_CRYSTALS,
    BALANCE_OF_ISHTAR_TOKENS,
    CRYSTAL_ORB_CRYSTALS,
    DRAGON_SKULL_CARDS,
    DRAGON_SKULL_CRYSTALS,
    ELEMENTAL_AMULET_CRYSTALS,
    ELEMENTAL_AMULET_GAUGE,
    ELEMENTAL_AMULET_TOKENS,
    FIGRIM_CRYSTALS,
    POTION_OF_KNOWLEDGE_TOKENS,
    POTION_OF_LIFE_CRYSTALS,
    POTION_OF_POWER_GAUGE,
    SCEPTER_CRYSTALS,
    TITUS_CRYSTALS,
)

pytestmark = pytest.mark.rules_scenario  # each test runs on both engines (conftest.py)

WINTER_DRAW = {"die": 0, "face": 4}  # winter die 1, face 5: draw a card, 2 pips
WINTER_SIX_CRYSTALS = {"die": 3, "face": 4}  # winter die 4, face 5: 6 crystals, 2 pips


def start_of_turn(**kwargs):
    """Player 0 about to take the die actions of ``die``."""
    die = kwargs.pop("die", WINTER_SIX_CRYSTALS)
    kwargs.setdefault("game_dice", {s: [0, 1, 3] for s in ("winter", "spring", "summer", "autumn")})
    return scenario(
        pending=[{"step": "turn_start", "player": 0}],
        rolled=[{**die, "taken_by": 0}, {"die": 1, "face": 0}],
        **kwargs,
    )


# ---- decisions


def test_ruling_D1_forced_choices_are_applied_and_empty_ones_skipped() -> None:
    # Syllas: player 1 holds one card (forced), so the engine sacrifices it without asking.
    game = scenario(
        players=[{"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1}, {"in_play": [22]}],
    )
    act(game, "summon Syllas the Faithful")
    assert game.in_play[1] == () and game.discard_pile == [22]
    assert game.current_player == 0 and game.pending_decision == "turn"
    # Syllas against a player with nothing in play: nothing asked.
    game = scenario(players=[{"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1}, {}])
    act(game, "summon Syllas the Faithful")
    assert game.current_player == 0 and game.pending_decision == "turn"


def test_ruling_D2_identical_options_count_once() -> None:
    game = scenario(players=[{"hand": [3, 3], "reserve": {"earth": 4}, "summoning_gauge": 2}])
    assert labels(game).count("summon Amulet of Earth") == 1
    game = scenario(
        players=[
            {"hand": [10], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"in_play": [{"card": 22, "copy": 0}, {"card": 22, "copy": 1}, 3]},
        ]
    )
    act(game, "summon Syllas the Faithful")
    assert game.current_player == 1
    assert labels(game) == ["choose in play: Amulet of Earth (copy 1)", "choose in play: Runic Cube of Eolis (copy 1)"]


def test_ruling_D2_identical_untapped_copies_give_one_activation() -> None:
    game = scenario(players=[{"in_play": [{"card": 25, "copy": 0}, {"card": 25, "copy": 1}]}])
    assert [x for x in labels(game) if x.startswith("activate")] == ["activate Potion of Knowledge (copy 1)"]
    act(game, "activate Potion of Knowledge (copy 1)", *["choose energy: water"] * POTION_OF_KNOWLEDGE_TOKENS)
    assert [x for x in labels(game) if x.startswith("activate")] == ["activate Potion of Knowledge (copy 2)"]


def test_ruling_D2_copies_in_different_states_are_different_activations() -> None:
    cauldrons = [
        {"card": 35, "copy": 0, "tokens": {"fire": 1}},
        {"card": 35, "copy": 1, "tokens": {"fire": 2}},
    ]
    game = scenario(players=[{"reserve": {"air": 1}, "in_play": cauldrons}])
    assert [x for x in labels(game) if x.startswith("activate")] == [
        "activate Glutton Cauldron (copy 1)",
        "activate Glutton Cauldron (copy 2)",
    ]
    cauldrons[1]["tokens"] = {"fire": 1}
    game = scenario(players=[{"reserve": {"air": 1}, "in_play": cauldrons}])
    assert [x for x in labels(game) if x.startswith("activate")] == ["activate Glutton Cauldron (copy 1)"]


def test_ruling_D2_the_die_of_malice_window_lists_identical_copies_once() -> None:
    game = scenario(
        pending=[{"step": "turn_start", "player": 0}],
        rolled=[{"die": 0, "face": 0, "taken_by": 0}],
        players=[{"in_play": [{"card": 15, "copy": 0}, {"card": 15, "copy": 1}]}],
    )
    assert game.pending_decision == "die_of_malice_window"
    assert labels(game) == ["use the season die as rolled", "activate Die of Malice (copy 1)"]
    act(game, "activate Die of Malice (copy 1)")
    assert labels(game) == ["use the season die as rolled", "activate Die of Malice (copy 2)"]


def test_ruling_D3_overflow_is_asked_between_token_choices() -> None:
    # the reserve reaches its limit of 7 three tokens before the Potion's last
    fire = 10 - POTION_OF_KNOWLEDGE_TOKENS
    game = scenario(players=[{"hand": [25], "reserve": {"water": 2, "fire": fire}, "summoning_gauge": 1}])
    act(game, "summon Potion of Knowledge")  # pays 2 water: the fire left
    act(game, "activate Potion of Knowledge (copy 1)")
    act(game, "choose energy: earth", *["choose energy: fire"] * (POTION_OF_KNOWLEDGE_TOKENS - 4))  # 7: the limit
    act(game, "choose energy: fire")  # 8: overflow now, before the next choice
    assert game.pending_decision == "overflow"
    assert labels(game) == ["choose energy: earth", "choose energy: fire"]
    act(game, "choose energy: fire")
    assert game.pending_decision == "gain_energy" and sum(game.reserve[0]) == 7
    act(game, "choose energy: air")  # the last but one token: over the limit again
    act(game, "choose energy: air")  # discard it
    # the last token can only be air (types are chosen in order): the engine gains it, overflow follows
    assert game.pending_decision == "overflow" and game.reserve[0] == (0, 1, 6, 1)
    act(game, "choose energy: earth")
    assert game.reserve[0] == (0, 0, 6, 1) and game.pending_decision == "turn"


def test_ruling_D3_order_free_choices_are_asked_in_one_order() -> None:
    game = scenario(players=[{"in_play": [25]}])
    act(game, "activate Potion of Knowledge (copy 1)", "choose energy: earth", "choose energy: fire")
    assert labels(game) == ["choose energy: fire", "choose energy: air"]  # no water or earth after fire
    act(game, *["choose energy: fire"] * (POTION_OF_KNOWLEDGE_TOKENS - 3))
    assert labels(game) == ["choose energy: fire", "choose energy: air"]  # the last token
    # Dragon Skull's sacrifices come in increasing instance order (Titus, Idol, Lantern: after the Skull)
    later = [39, 43, 45][: DRAGON_SKULL_CARDS - 3]
    game = scenario(players=[{"in_play": [37, 3, 22, 29, *later]}])
    act(game, "activate Dragon Skull (copy 1)")
    assert labels(game) == ["choose in play: Amulet of Earth (copy 1)", "choose in play: Runic Cube of Eolis (copy 1)"]
    act(game, "choose in play: Runic Cube of Eolis (copy 1)")  # then only Olaf's Statue, the Skull, ... are later
    assert game.in_play[0] == (4,) and game.crystals[0] == DRAGON_SKULL_CRYSTALS
    assert sorted(game.discard_pile) == sorted([22, 29, 37, *later])


def test_ruling_D4_library_split_is_three_then_three() -> None:
    game = scenario(
        pending=[{"step": "library_split", "player": 0, "year": 2}] * 3
        + [{"step": "library_split", "player": 0, "year": 3}] * 3
        + [{"step": "turn", "player": 0}],
        players=[{"hand": [1, 2, 3, 4, 5, 6, 7, 8, 9]}],
    )
    act(game, "choose card: Amulet of Air", "choose card: Amulet of Fire", "choose card: Amulet of Earth")
    act(game, "choose card: Amulet of Water", "choose card: Balance of Ishtar", "choose card: Staff of Spring")
    assert game.library[0] == ((1, 2, 3), (4, 5, 6)) and game.hand[0] == (7, 8, 9)


# ---- bonuses and the die


def test_ruling_B1_draw_bonus_is_chosen_before_seeing_the_card() -> None:
    game = start_of_turn(die=WINTER_DRAW, draw_pile=[5, 6, 7])
    assert game.pending_decision == "draw_symbol" and labels(game) == [
        "draw the die's card",
        "bonus: draw 2 cards, keep 1",
    ]
    act(game, "bonus: draw 2 cards, keep 1")
    assert game.bonuses_used[0] == 1 and labels(game) == ["choose card: Staff of Spring", "choose card: Temporal Boots"]
    act(game, "choose card: Temporal Boots")
    assert game.hand[0] == (7,) and game.discard_pile == [6] and game.draw_pile == [5]


def test_ruling_B1_draw_bonus_needs_two_cards() -> None:
    game = start_of_turn(die=WINTER_DRAW, draw_pile=[5])
    assert game.pending_decision == "keep_or_discard"


def test_ruling_B2_exchange_needs_two_reserve_tokens_and_gives_back_first() -> None:
    game = scenario(players=[{"reserve": {"water": 1}, "in_play": [{"card": 4, "tokens": {"fire": 3}}]}])
    assert "bonus: exchange 2 reserve tokens" not in labels(game)
    game = scenario(players=[{"reserve": {"water": 1, "fire": 1}}])
    act(game, "bonus: exchange 2 reserve tokens")  # the two tokens given back are forced here
    assert game.pending_decision == "gain_energy" and game.reserve[0] == (0, 0, 0, 0)
    act(game, "choose energy: earth", "choose energy: earth")
    assert game.reserve[0] == (0, 2, 0, 0) and game.bonuses_used[0] == 1


def test_ruling_B3_no_empty_bonuses() -> None:
    game = scenario(players=[{"summoning_gauge": 15, "reserve": {"water": 1}}])
    assert "bonus: summoning gauge +1" not in labels(game)
    act(game, "bonus: transmute with +1 crystal per token")
    assert game.current_player == 0 and "bonus: transmute with +1 crystal per token" not in labels(game)


def test_ruling_B4_dice_keep_the_season_they_were_rolled_in() -> None:
    # Player 0 summons Temporal Boots and moves the marker from winter into spring; player 1's winter die
    # still gives its winter face, and the leftover winter die moves the marker by its own pips.
    game = scenario(
        players=[{"hand": [7], "summoning_gauge": 1}, {}],
        position=3,
        dice_season="winter",
        rolled=[{"die": 0, "face": 0, "taken_by": 0}, {"die": 3, "face": 4, "taken_by": 1}, {"die": 1, "face": 0}],
    )
    act(game, "summon Temporal Boots", "move the season marker forward 1", "end turn")
    assert game.season == 1 and game.crystals[1] == 6  # winter die 4 face 5: 6 crystals
    act(game, "end turn")
    assert game.position == 4 + 3  # winter die 2 face 1 has 3 pips


# ---- tokens


def test_ruling_T1_amulet_of_water_tokens_pay_costs_but_not_reserve_effects() -> None:
    amulet = {"card": 4, "tokens": {"water": BALANCE_OF_ISHTAR_TOKENS}}
    game = scenario(players=[{"in_play": [amulet, 5, 16, 35, 47], "crystals": 5, "summoning_gauge": 5}])
    present = labels(game)
    assert "activate Balance of Ishtar (copy 1)" in present  # a transmutation: pays with Amulet tokens
    assert "activate Kairn the Destroyer (copy 1)" in present  # a cost
    assert "activate Glutton Cauldron (copy 1)" not in present  # moves a reserve token
    assert "activate Mirror of the Seasons (copy 1)" not in present  # changes reserve tokens
    act(game, "activate Balance of Ishtar (copy 1)")
    assert game.crystals[0] == 5 + BALANCE_OF_ISHTAR_CRYSTALS and game.stored[6] == (0, 0, 0, 0)


def test_ruling_T2_hand_of_fortune_always_lowers_the_cost() -> None:
    game = scenario(players=[{"hand": [3], "reserve": {"earth": 2}, "in_play": [20], "summoning_gauge": 2}])
    act(game, "summon Amulet of Earth")
    assert game.reserve[0] == (0, 1, 0, 0)


@pytest.mark.parametrize(("reserve", "horns", "expected_gain"), [(1, 2, 2), (2, 2, 0), (0, 1, 1)])
def test_ruling_T3_end_of_round_conditions_read_once(reserve: int, horns: int, expected_gain: int) -> None:
    in_play = [{"card": 14, "copy": c} for c in range(horns)]
    game = scenario(players=[{"reserve": {"water": reserve}, "in_play": in_play}, {}], turn_player=1)
    act(game, "end turn")
    for _ in range(expected_gain):
        act(game, "choose energy: fire")
    assert game.reserve[0] == (reserve, 0, expected_gain, 0)


# ---- cards


def test_ruling_C1_boots_past_12_in_year_3_is_a_season_change() -> None:
    # Year 3, space 11: P0 summons the Boots and moves forward 2, across 12 (autumn -> winter of "year 4").
    p0 = {"hand": [7], "summoning_gauge": 2, "crystals": 5, "in_play": [27]}  # Hourglass of Time
    p1 = {"in_play": [11]}  # Figrim the Avaricious
    game = scenario(players=[p0, p1], year=3, position=11, rolled=[{"die": 0, "face": 0}])
    act(game, "summon Temporal Boots", "move the season marker forward 2")
    assert (game.year, game.position) == (4, 1) and not game.is_over
    assert game.crystals == [5 - FIGRIM_CRYSTALS, FIGRIM_CRYSTALS]  # Figrim collected at once
    assert game.deferred_tokens == ((0, 1),) and game.reserve[0] == (0, 0, 0, 0)  # the Hourglass token waits
    act(game, "end turn")
    assert game.pending_decision == "gain_energy" and game.current_player == 0  # it arrives now
    act(game, "choose energy: fire")
    assert game.reserve[0] == (0, 0, 1, 0) and not game.is_over and game.current_player == 1
    act(game, "end turn")  # the round ends: the game with it, the leftover die moving nothing
    assert game.is_over and (game.year, game.position) == (4, 1)
    assert game.crystals == [5 - FIGRIM_CRYSTALS, FIGRIM_CRYSTALS]


def test_ruling_C1_boots_past_the_end_and_back_are_two_season_changes() -> None:
    boots = {"hand": [7, 7], "summoning_gauge": 2, "crystals": 5}
    p1 = {"in_play": [11]}  # Figrim the Avaricious
    game = scenario(players=[boots, p1], year=3, position=11, rolled=[{"die": 0, "face": 0}])
    act(game, "summon Temporal Boots", "move the season marker forward 3")
    once, twice = [5 - FIGRIM_CRYSTALS, FIGRIM_CRYSTALS], [5 - 2 * FIGRIM_CRYSTALS, 2 * FIGRIM_CRYSTALS]
    assert (game.year, game.position) == (4, 2) and game.crystals == once  # autumn -> winter
    act(game, "summon Temporal Boots", "move the season marker backward 2")
    assert (game.year, game.position) == (3, 12) and game.crystals == twice  # winter -> autumn
    act(game, "end turn", "end turn")
    # The leftover die (3 pips) crossed 12 in year 3 after all: the game ends at that crossing, Figrim idle.
    assert game.is_over and game.crystals == twice


def test_ruling_C2_naria_with_too_few_cards() -> None:
    game = scenario(
        num_players=3,
        players=[{"hand": [12], "crystals": 3, "summoning_gauge": 1}],
        draw_pile=[1, 2],
    )
    act(game, "summon Naria the Prophetess", "choose card: Amulet of Fire")
    assert game.hand == [(2,), (1,), ()]


def test_ruling_C3_crystal_orb_reshuffles_and_remembers() -> None:
    game = scenario(players=[{"in_play": [34], "crystals": CRYSTAL_ORB_CRYSTALS}], discard_pile=[22])
    act(game, "activate Crystal Orb (copy 1)", "Crystal Orb: look at the top card")
    # with no room and no tokens, leaving the card is the only option: the engine applies it (D1)
    assert game.orb_seen == (0, 22) and game.draw_pile == [22] and game.discard_pile == []
    assert game.pending_decision == "turn"
    game = scenario(players=[{"in_play": [34]}])
    assert "activate Crystal Orb (copy 1)" not in labels(game)


def test_ruling_C4_each_titus_collects_and_is_checked_alone() -> None:
    titus = [{"card": 39, "copy": 0}, {"card": 39, "copy": 1}]
    game = scenario(players=[{"in_play": titus}, {"crystals": TITUS_CRYSTALS}], turn_player=1)
    act(game, "end turn")
    assert game.crystals == [TITUS_CRYSTALS, 0] and len(game.in_play[0]) == 1  # the second Titus found nothing


def test_ruling_C5_draws_from_empty_piles_draw_nothing() -> None:
    game = scenario(players=[{"in_play": [23], "summoning_gauge": 3}])
    act(game, "activate Potion of Power (copy 1)")
    # the sacrificed potion is the only card left: the discard pile is reshuffled and it is drawn
    assert game.hand[0] == (23,) and game.gauge[0] == 3 + POTION_OF_POWER_GAUGE and game.discard_pile == []
    game = scenario(players=[{"hand": [36], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1}])
    act(game, "summon Vampiric Crown")
    assert game.pending_decision == "turn" and game.reserve[0] == (0, 0, 0, 0)


def test_ruling_C6_scepter_and_pendant_count_other_items() -> None:
    cost = {"water": 2, "earth": 1, "fire": 2, "air": 2}
    game = scenario(players=[{"hand": [28, 48], "reserve": cost, "in_play": [22, 10], "summoning_gauge": 5}])
    act(game, "summon Scepter of Greatness")
    assert game.crystals[0] == SCEPTER_CRYSTALS  # the Runic Cube only: not Syllas (a familiar), not itself
    act(game, "summon Pendant of Ragnor", "choose energy: air")  # the second token can only be air too
    assert game.reserve[0] == (0, 0, 0, 2)  # Runic Cube and Scepter


def test_ruling_C7_elemental_amulet_effect_order() -> None:
    game = scenario(players=[{"hand": [31], "reserve": {"water": 1, "earth": 1, "air": 1}, "summoning_gauge": 1}])
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay water + earth + air")
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 1 + ELEMENTAL_AMULET_GAUGE
    assert game.pending_decision == "gain_energy"
    act(game, *["choose energy: fire"] * ELEMENTAL_AMULET_TOKENS)
    assert game.reserve[0] == (0, 0, ELEMENTAL_AMULET_TOKENS, 0)


def test_ruling_C8_chalice_draws_what_the_piles_hold() -> None:
    game = scenario(
        players=[{"hand": [9], "reserve": dict.fromkeys(("water", "earth", "fire", "air"), 1), "summoning_gauge": 2}],
        draw_pile=[3, 22],
    )
    act(game, "summon Divine Chalice")
    assert labels(game) == ["choose card: Amulet of Earth", "choose card: Runic Cube of Eolis"]
    act(game, "choose card: Amulet of Earth")
    assert game.crystals[0] == AMULET_OF_EARTH_CRYSTALS and game.discard_pile == [22]


def test_ruling_C9_potion_of_dreams_needs_a_card_in_hand() -> None:
    empty = scenario(players=[{"in_play": [24], "summoning_gauge": 1, "reserve": {"water": 2}}])
    assert not [x for x in labels(empty) if "Potion of Dreams" in x]
    holding = scenario(players=[{"hand": [3], "in_play": [24], "summoning_gauge": 1, "reserve": {"water": 2}}])
    assert "activate Potion of Dreams (copy 1)" in labels(holding)


def test_ruling_C10_transmute_bonus_does_not_raise_potion_of_life() -> None:
    game = scenario(players=[{"reserve": {"water": 1, "earth": 2}, "in_play": [26]}])
    act(game, "bonus: transmute with +1 crystal per token", "activate Potion of Life (copy 1)")
    assert (
        game.crystals[0] == 3 * POTION_OF_LIFE_CRYSTALS
        and game.reserve[0] == (0, 0, 0, 0)
        and game.bonuses_used[0] == 1
    )
    # The bonus still adds its +1 to a real transmutation in the same turn (the contrast the ruling draws).
    game = scenario(players=[{"reserve": {"water": 1}, "in_play": [26]}])
    act(game, "bonus: transmute with +1 crystal per token", "transmute water from reserve")
    assert game.crystals[0] == 2  # winter water: 1 crystal, +1 from the bonus


def test_action_ids_in_rulings_are_real() -> None:
    assert A.describe_action(A.summon_action(7)) == "summon Temporal Boots"
