"""Scenario tests for the advanced (Archmage) cards 31–50.

One test per card effect of RULES.md section 8 (cards 31–50), one per clarification bullet of the Russian
rulebook (``../shared/rules/seasons_rulebook_ru.txt``, cards 31/50 to 50/50; a comment ``ru 35.4`` cites card 35's
fourth bullet), the interactions between these cards, and cards leaving play (RULES.md section 6).
"""

from __future__ import annotations

import pytest
from scenario import act, labels, scenario

from seasons_env import describe_action
from seasons_env.engine import actions as A
from seasons_env.engine.card_constants import (
    AMULET_OF_EARTH_CRYSTALS,
    BALANCE_OF_ISHTAR_CRYSTALS,
    BALANCE_OF_ISHTAR_TOKENS,
    CRYSTAL_ORB_CRYSTALS,
    CRYSTAL_ORB_TOKENS,
    CURSED_TREATISE_CRYSTALS,
    CURSED_TREATISE_GAUGE,
    CURSED_TREATISE_TOKENS,
    DAMNED_SOUL_CRYSTALS,
    DAMNED_SOUL_LOSS,
    DEMON_OF_ARGOS_GAUGE,
    DIE_OF_MALICE_CRYSTALS,
    DRAGON_SKULL_CARDS,
    DRAGON_SKULL_CRYSTALS,
    ELEMENTAL_AMULET_CRYSTALS,
    ELEMENTAL_AMULET_GAUGE,
    ELEMENTAL_AMULET_TOKENS,
    GLUTTON_CAULDRON_CRYSTALS,
    GLUTTON_CAULDRON_TOKENS,
    IDOL_CRYSTALS,
    KAIRN_CRYSTALS,
    KAIRN_TOKENS,
    LANTERN_PRESTIGE,
    NECROTIC_KRISS_TOKENS,
    POTION_OF_KNOWLEDGE_TOKENS,
    POTION_OF_LIFE_CRYSTALS,
    RAGFIELDS_HELM_PRESTIGE,
    SEALED_CHEST_PRESTIGE,
    SID_NIGHTSHADE_CRYSTALS,
    STAFF_OF_SPRING_CRYSTALS,
    TITUS_CRYSTALS,
    TREE_OF_LIGHT_CRYSTALS,
    TREE_OF_LIGHT_DISCARD,
    TREE_OF_LIGHT_TOKENS,
)
from seasons_env.engine.data import CARD_NAMES, CARD_OF, DICE, Card

pytestmark = pytest.mark.rules_scenario  # each test runs on both engines (conftest.py)

AMULET_OF_AIR, AMULET_OF_FIRE, AMULET_OF_EARTH, AMULET_OF_WATER = (
    Card.AMULET_OF_AIR,
    Card.AMULET_OF_FIRE,
    Card.AMULET_OF_EARTH,
    Card.AMULET_OF_WATER,
)
BALANCE_OF_ISHTAR, STAFF_OF_SPRING, PURSE_OF_IO = Card.BALANCE_OF_ISHTAR, Card.STAFF_OF_SPRING, Card.PURSE_OF_IO
DIVINE_CHALICE, SYLLAS, WONDROUS_CHEST = Card.DIVINE_CHALICE, Card.SYLLAS_THE_FAITHFUL, Card.WONDROUS_CHEST
BEGGARS_HORN, DIE_OF_MALICE, KAIRN = Card.BEGGARS_HORN, Card.DIE_OF_MALICE, Card.KAIRN_THE_DESTROYER
AMSUG, GRIMOIRE, RAGFIELDS_HELM = Card.AMSUG_LONGNECK, Card.BESPELLED_GRIMOIRE, Card.RAGFIELDS_HELM
HAND_OF_FORTUNE, LEWIS, RUNIC_CUBE = Card.HAND_OF_FORTUNE, Card.LEWIS_GREYFACE, Card.RUNIC_CUBE_OF_EOLIS
POTION_OF_POWER, POTION_OF_DREAMS = Card.POTION_OF_POWER, Card.POTION_OF_DREAMS
POTION_OF_KNOWLEDGE, POTION_OF_LIFE, YJANGS_VASE = (
    Card.POTION_OF_KNOWLEDGE,
    Card.POTION_OF_LIFE,
    Card.YJANGS_FORGOTTEN_VASE,
)
ELEMENTAL_AMULET, TREE_OF_LIGHT, ARCANO_LEECH = Card.ELEMENTAL_AMULET, Card.TREE_OF_LIGHT, Card.ARCANO_LEECH
CRYSTAL_ORB, GLUTTON_CAULDRON, VAMPIRIC_CROWN = Card.CRYSTAL_ORB, Card.GLUTTON_CAULDRON, Card.VAMPIRIC_CROWN
DRAGON_SKULL, DEMON_OF_ARGOS, TITUS = Card.DRAGON_SKULL, Card.DEMON_OF_ARGOS, Card.TITUS_DEEPGAZE
AIR_ELEMENTAL, THIEVING_FAIRIES, CURSED_TREATISE = (
    Card.AIR_ELEMENTAL,
    Card.THIEVING_FAIRIES,
    Card.CURSED_TREATISE_OF_ARUS,
)
IDOL, NECROTIC_KRISS, LANTERN = Card.IDOL_OF_THE_FAMILIAR, Card.NECROTIC_KRISS, Card.LANTERN_OF_XIDIT
SEALED_CHEST, MIRROR, PENDANT = Card.SEALED_CHEST_OF_URM, Card.MIRROR_OF_THE_SEASONS, Card.PENDANT_OF_RAGNOR
SID, DAMNED_SOUL = Card.SID_NIGHTSHADE, Card.DAMNED_SOUL_OF_ONYS

# The labels of the actions whose text carries an amount (Tree of Light's and Crystal Orb's).
TREE_BUY, TREE_TRANSMUTE = describe_action(A.TREE_BUY_ENERGY), describe_action(A.TREE_TRANSMUTE)
ORB_MILL, ORB_PLAY = describe_action(A.ORB_MILL), describe_action(A.ORB_PLAY)
# Cards to fill Dragon Skull's sacrifice with, in instance order: before the Skull (not Purse of Io), after it.
BEFORE_SKULL = (AMULET_OF_AIR, RUNIC_CUBE, POTION_OF_POWER, YJANGS_VASE)
AFTER_SKULL = (TITUS, IDOL, LANTERN, SEALED_CHEST)
AFTER_TREATISE = (IDOL, LANTERN, SEALED_CHEST)

ALL_FOUR = {"water": 1, "earth": 1, "fire": 1, "air": 1}
# The last round of the game: autumn of year 3, space 12; the leftover die (autumn die 1, face 1) has 1 pip.
LAST_ROUND = {"year": 3, "position": 12, "rolled": [{"die": 0, "face": 0, "taken_by": None}]}


def instance(card: int, copy: int = 0) -> int:
    return 2 * (card - 1) + copy


def cards_in_play(game, player: int = 0) -> list[int]:
    return sorted(CARD_OF[i] for i in game.in_play[player])


def end_turns(game):
    """End every remaining turn of the round (the round's end then runs)."""
    while game.pending_decision == "turn":
        act(game, "end turn")
    return game


def activate_label(card_name: str, copy: int = 1) -> str:
    return f"activate {card_name} (copy {copy})"


def in_play_label(card: int, copy: int = 1) -> str:
    return f"choose in play: {CARD_NAMES[card]} (copy {copy})"


def save_unheld_type(game, label: str):
    """Answer Hand of Fortune when it would save a type the player does not hold anyway (every such option
    leads to the same payment, so the engine may or may not ask)."""
    while game.pending_decision == "hand_of_fortune":
        act(game, label)
    return game


# ============================================================================ 31 Elemental Amulet


def test_elemental_amulet_offers_every_set_of_distinct_types_held() -> None:
    # ru 31.1: several ways to summon it; the cost is a set of distinct types the player holds.
    game = scenario(players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"water": 2, "air": 1}, "summoning_gauge": 1}])
    act(game, "summon Elemental Amulet")
    assert game.pending_decision == "elemental_amulet_set"
    assert labels(game) == [
        "Elemental Amulet: pay water",
        "Elemental Amulet: pay air",
        "Elemental Amulet: pay water + air",
    ]


def test_elemental_amulet_water_gains_tokens_of_choice() -> None:
    # ru 31.2
    game = scenario(
        players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1}],
        draw_pile=[RUNIC_CUBE],
    )
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay water", "choose energy: earth")
    act(game, *["choose energy: fire"] * (ELEMENTAL_AMULET_TOKENS - 1))
    assert game.reserve[0] == (0, 1, ELEMENTAL_AMULET_TOKENS - 1, 1) and game.pending_decision == "turn"
    assert game.crystals[0] == 0 and game.gauge[0] == 1 and game.hand[0] == () and game.draw_pile == [RUNIC_CUBE]


def test_elemental_amulet_earth_gives_five_crystals() -> None:
    # ru 31.3
    game = scenario(players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"earth": 1, "air": 1}, "summoning_gauge": 1}])
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay earth")
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.reserve[0] == (0, 0, 0, 1) and game.gauge[0] == 1
    assert cards_in_play(game) == [ELEMENTAL_AMULET] and game.pending_decision == "turn"


def test_elemental_amulet_fire_draws_a_card_that_must_be_kept() -> None:
    # ru 31.4: the card goes to the hand; no keep-or-discard decision.
    game = scenario(
        players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"fire": 1, "air": 1}, "summoning_gauge": 1}],
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE],
    )
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay fire")
    assert game.hand[0] == (RUNIC_CUBE,) and game.draw_pile == [AMULET_OF_AIR] and game.discard_pile == []
    assert game.pending_decision == "turn" and game.reserve[0] == (0, 0, 0, 1)


def test_elemental_amulet_air_raises_the_gauge_by_one() -> None:
    # ru 31.5
    game = scenario(players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"air": 1, "fire": 1}, "summoning_gauge": 1}])
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay air")
    assert game.gauge[0] == 1 + ELEMENTAL_AMULET_GAUGE and game.reserve[0] == (0, 0, 1, 0) and game.crystals[0] == 0


def test_elemental_amulet_paying_four_types_gives_four_effects() -> None:
    # ru 31.6
    game = scenario(
        players=[{"hand": [ELEMENTAL_AMULET], "reserve": ALL_FOUR, "summoning_gauge": 1}], draw_pile=[RUNIC_CUBE]
    )
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay water + earth + fire + air")
    act(game, "choose energy: air")  # after air, the other tokens can only be air: forced
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 1 + ELEMENTAL_AMULET_GAUGE
    assert game.hand[0] == (RUNIC_CUBE,) and game.reserve[0] == (0, 0, 0, ELEMENTAL_AMULET_TOKENS)


def test_elemental_amulet_never_takes_two_tokens_of_one_type() -> None:
    # ru 31.7: with only water, the one possible set is {water}: exactly one water is paid.
    game = scenario(players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"water": 3}, "summoning_gauge": 1}])
    act(game, "summon Elemental Amulet")
    assert game.pending_decision == "gain_energy"  # the set {water} was forced
    assert game.reserve[0] == (2, 0, 0, 0)
    act(game, *["choose energy: earth"] * ELEMENTAL_AMULET_TOKENS)
    assert game.reserve[0] == (2, ELEMENTAL_AMULET_TOKENS, 0, 0) and game.crystals[0] == 0 and game.gauge[0] == 1


def test_elemental_amulet_with_hand_of_fortune_one_token_two_effects() -> None:
    # ru 31.8: k = 1 Hand of Fortune, set S of size 2 costs max(1, 2 - 1) = 1 token of a type in S.
    game = scenario(
        players=[
            {"hand": [ELEMENTAL_AMULET], "reserve": {"earth": 1}, "summoning_gauge": 2, "in_play": [HAND_OF_FORTUNE]}
        ]
    )
    act(game, "summon Elemental Amulet")
    assert labels(game) == [
        "Elemental Amulet: pay earth",
        "Elemental Amulet: pay water + earth",
        "Elemental Amulet: pay earth + fire",
        "Elemental Amulet: pay earth + air",
    ]
    act(game, "Elemental Amulet: pay earth + air")
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 2 + ELEMENTAL_AMULET_GAUGE
    assert game.reserve[0] == (0, 0, 0, 0)


def test_elemental_amulet_with_hand_of_fortune_player_chooses_the_token_saved() -> None:
    game = scenario(
        players=[
            {
                "hand": [ELEMENTAL_AMULET],
                "reserve": {"water": 1, "earth": 1},
                "summoning_gauge": 2,
                "in_play": [HAND_OF_FORTUNE],
            }
        ]
    )
    act(game, "summon Elemental Amulet", "Elemental Amulet: pay water + earth")
    assert game.pending_decision == "hand_of_fortune"
    assert labels(game) == ["choose energy: water", "choose energy: earth"]
    act(game, "choose energy: earth")  # earth is saved: water is paid
    assert game.reserve[0] == (0, 1, 0, 0) and game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS
    act(game, *["choose energy: fire"] * ELEMENTAL_AMULET_TOKENS)
    assert game.reserve[0] == (0, 1, ELEMENTAL_AMULET_TOKENS, 0)


def test_elemental_amulet_with_two_hands_of_fortune_four_effects_for_two_tokens() -> None:
    # k = 2: |S| = 4 costs max(1, 4 - 2) = 2 tokens of types in S.
    game = scenario(
        players=[
            {
                "hand": [ELEMENTAL_AMULET],
                "reserve": {"water": 1, "earth": 1},
                "summoning_gauge": 3,
                "in_play": [{"card": HAND_OF_FORTUNE, "copy": 0}, {"card": HAND_OF_FORTUNE, "copy": 1}],
            }
        ],
        draw_pile=[RUNIC_CUBE],
    )
    act(game, "summon Elemental Amulet")
    assert "Elemental Amulet: pay water + earth + fire + air" in labels(game)
    act(game, "Elemental Amulet: pay water + earth + fire + air")
    save_unheld_type(game, "choose energy: air")  # the Hands save fire and air; water and earth are paid
    assert game.reserve[0] == (0, 0, 0, 0) and game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS
    assert game.gauge[0] == 3 + ELEMENTAL_AMULET_GAUGE and game.hand[0] == (RUNIC_CUBE,)
    act(game, "choose energy: air")  # after air, the other tokens can only be air: forced
    assert game.reserve[0] == (0, 0, 0, ELEMENTAL_AMULET_TOKENS)


def test_elemental_amulet_with_two_hands_of_fortune_three_types_need_one_token_of_those_types() -> None:
    game = scenario(
        players=[
            {
                "hand": [ELEMENTAL_AMULET],
                "reserve": {"water": 1},
                "summoning_gauge": 3,
                "in_play": [{"card": HAND_OF_FORTUNE, "copy": 0}, {"card": HAND_OF_FORTUNE, "copy": 1}],
            }
        ],
    )
    act(game, "summon Elemental Amulet")
    options = labels(game)
    assert "Elemental Amulet: pay water + earth + air" in options
    assert "Elemental Amulet: pay earth + fire + air" not in options  # no water in it: the token cannot pay
    assert "Elemental Amulet: pay water + earth + fire + air" not in options  # needs 2 tokens
    act(game, "Elemental Amulet: pay water + earth + air")
    save_unheld_type(game, "choose energy: earth")  # the Hands save earth and air; the water token pays
    assert game.pending_decision == "gain_energy" and game.reserve[0] == (0, 0, 0, 0)
    act(game, *["choose energy: fire"] * ELEMENTAL_AMULET_TOKENS)
    assert game.reserve[0] == (0, 0, ELEMENTAL_AMULET_TOKENS, 0) and game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS
    assert game.gauge[0] == 3 + ELEMENTAL_AMULET_GAUGE


def test_elemental_amulet_needs_a_token_even_with_hand_of_fortune() -> None:
    game = scenario(players=[{"hand": [ELEMENTAL_AMULET], "summoning_gauge": 2, "in_play": [HAND_OF_FORTUNE]}])
    assert "summon Elemental Amulet" not in labels(game)


def test_elemental_amulet_from_divine_chalice_has_all_four_effects() -> None:
    # ru 31.9 (Divine Chalice)
    game = scenario(
        players=[{"hand": [DIVINE_CHALICE], "reserve": ALL_FOUR, "summoning_gauge": 2}],
        draw_pile=[RUNIC_CUBE, AMULET_OF_AIR, AMULET_OF_FIRE, AMULET_OF_EARTH, ELEMENTAL_AMULET],
    )
    act(game, "summon Divine Chalice", "choose card: Elemental Amulet")
    act(game, *["choose energy: fire"] * ELEMENTAL_AMULET_TOKENS)
    assert cards_in_play(game) == [DIVINE_CHALICE, ELEMENTAL_AMULET]
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 2 + ELEMENTAL_AMULET_GAUGE
    assert game.hand[0] == (RUNIC_CUBE,) and game.reserve[0] == (0, 0, ELEMENTAL_AMULET_TOKENS, 0)
    assert sorted(game.discard_pile) == [AMULET_OF_AIR, AMULET_OF_FIRE, AMULET_OF_EARTH]


def test_elemental_amulet_from_crystal_orb_has_all_four_effects() -> None:
    # ru 31.9 (Crystal Orb): the Orb's tokens discarded for the Orb, none for the Amulet itself.
    game = scenario(
        players=[
            {"reserve": {"water": CRYSTAL_ORB_TOKENS, "earth": 1}, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]}
        ],
        draw_pile=[RUNIC_CUBE, ELEMENTAL_AMULET],
    )
    act(game, activate_label("Crystal Orb"))  # without crystals, looking is the only option
    act(game, ORB_PLAY)
    # In (source, type) order the waters but the last are forced; the last token may be water or earth.
    assert game.pending_decision == "discard_tokens" and game.reserve[0] == (1, 1, 0, 0)
    act(game, "pay water from reserve")
    act(game, "choose energy: air")  # after air, the other tokens can only be air: forced
    assert cards_in_play(game) == [ELEMENTAL_AMULET, CRYSTAL_ORB]
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 2 + ELEMENTAL_AMULET_GAUGE
    assert game.hand[0] == (RUNIC_CUBE,) and game.reserve[0] == (0, 1, 0, ELEMENTAL_AMULET_TOKENS)


def test_elemental_amulet_from_potion_of_dreams_has_all_four_effects() -> None:
    # ru 31.9 (Potion of Dreams): the reserve is discarded first, then the Amulet's tokens arrive.
    game = scenario(
        players=[
            {"hand": [ELEMENTAL_AMULET], "reserve": {"earth": 3}, "summoning_gauge": 1, "in_play": [POTION_OF_DREAMS]}
        ],
        draw_pile=[RUNIC_CUBE],
    )
    act(game, activate_label("Potion of Dreams"))  # the only card in hand is chosen by force
    act(game, *["choose energy: water"] * ELEMENTAL_AMULET_TOKENS)
    assert cards_in_play(game) == [ELEMENTAL_AMULET] and game.discard_pile == [POTION_OF_DREAMS]
    assert game.crystals[0] == ELEMENTAL_AMULET_CRYSTALS and game.gauge[0] == 1 + ELEMENTAL_AMULET_GAUGE
    assert game.hand[0] == (RUNIC_CUBE,) and game.reserve[0] == (ELEMENTAL_AMULET_TOKENS, 0, 0, 0)


def test_elemental_amulet_from_divine_chalice_without_room_is_discarded() -> None:
    # RULES.md 6 ruling: the Chalice's chosen card is discarded when there is no room; no effect resolves.
    game = scenario(
        players=[{"hand": [DIVINE_CHALICE], "reserve": ALL_FOUR, "summoning_gauge": 1}],
        draw_pile=[RUNIC_CUBE, AMULET_OF_AIR, AMULET_OF_FIRE, AMULET_OF_EARTH, ELEMENTAL_AMULET],
    )
    act(game, "summon Divine Chalice", "choose card: Elemental Amulet")
    assert cards_in_play(game) == [DIVINE_CHALICE] and ELEMENTAL_AMULET in game.discard_pile
    assert game.crystals[0] == 0 and game.gauge[0] == 1 and game.hand[0] == () and game.reserve[0] == (0, 0, 0, 0)


# ============================================================================ 32 Tree of Light


def test_tree_of_light_pay_crystals_for_a_token() -> None:
    # ru 32.1 (first option)
    crystals = TREE_OF_LIGHT_CRYSTALS + 2
    game = scenario(
        players=[{"crystals": crystals, "reserve": {"water": TREE_OF_LIGHT_DISCARD}, "in_play": [TREE_OF_LIGHT]}]
    )
    act(game, activate_label("Tree of Light"))
    assert labels(game) == [TREE_BUY, TREE_TRANSMUTE]
    act(game, TREE_BUY, *["choose energy: fire"] * TREE_OF_LIGHT_TOKENS)
    assert game.crystals[0] == 2 and game.reserve[0] == (TREE_OF_LIGHT_DISCARD, 0, TREE_OF_LIGHT_TOKENS, 0)


def test_tree_of_light_discard_tokens_for_the_transmute_ability() -> None:
    # ru 32.1 (second option). Winter: water 1 crystal, earth 3. The waters but the last are forced.
    crystals = TREE_OF_LIGHT_CRYSTALS + 2
    reserve = {"water": TREE_OF_LIGHT_DISCARD, "earth": 1}
    game = scenario(players=[{"crystals": crystals, "reserve": reserve, "in_play": [TREE_OF_LIGHT]}])
    assert "transmute earth from reserve" not in labels(game)
    act(game, activate_label("Tree of Light"), TREE_TRANSMUTE, "pay water from reserve")
    assert game.reserve[0] == (0, 1, 0, 0) and game.crystals[0] == crystals
    act(game, "transmute earth from reserve")
    assert game.reserve[0] == (0, 0, 0, 0) and game.crystals[0] == crystals + 3


def test_tree_of_light_one_option_per_activation() -> None:
    # ru 32.2: after one option the Tree is tapped; the other option is not available this round.
    game = scenario(
        players=[{"crystals": TREE_OF_LIGHT_CRYSTALS + 3, "reserve": {"water": 1}, "in_play": [TREE_OF_LIGHT]}]
    )
    act(game, activate_label("Tree of Light"), TREE_BUY, "choose energy: air")  # the other tokens: air, forced
    assert game.crystals[0] == 3 and game.reserve[0] == (1, 0, 0, TREE_OF_LIGHT_TOKENS)
    assert game.pending_decision == "turn"
    assert activate_label("Tree of Light") not in labels(game)
    assert not any(label.startswith("transmute") for label in labels(game))


def test_tree_of_light_offers_only_the_options_it_can_pay() -> None:
    crystals = TREE_OF_LIGHT_CRYSTALS - 1
    game = scenario(
        players=[{"crystals": crystals, "reserve": {"air": TREE_OF_LIGHT_DISCARD}, "in_play": [TREE_OF_LIGHT]}]
    )
    act(game, activate_label("Tree of Light"))  # only the transmute option: forced, then the air tokens forced
    assert game.reserve[0] == (0, 0, 0, 0) and game.crystals[0] == crystals and game.pending_decision == "turn"
    game = scenario(players=[{"crystals": crystals, "in_play": [TREE_OF_LIGHT]}])
    assert activate_label("Tree of Light") not in labels(game)


# ============================================================================ 33 Arcano Leech


def test_arcano_leech_cost_depends_on_the_number_of_players() -> None:
    # ru 33.1: 2 / 5 / 8 crystals for 2 / 3 / 4 players.
    for num_players, cost in ((2, 2), (3, 5), (4, 8)):
        game = scenario(num_players, players=[{"hand": [ARCANO_LEECH], "crystals": cost - 1, "summoning_gauge": 1}])
        assert "summon Arcano Leech" not in labels(game)
        game = scenario(num_players, players=[{"hand": [ARCANO_LEECH], "crystals": cost, "summoning_gauge": 1}])
        act(game, "summon Arcano Leech")
        assert game.crystals[0] == 0 and cards_in_play(game) == [ARCANO_LEECH]


def test_arcano_leech_summoner_gives_one_crystal_before_summoning_from_hand() -> None:
    # ru 33.2
    game = scenario(
        players=[
            {"hand": [AMULET_OF_EARTH], "crystals": 3, "reserve": {"earth": 2}, "summoning_gauge": 1},
            {"in_play": [ARCANO_LEECH]},
        ],
    )
    act(game, "summon Amulet of Earth")
    assert game.crystals == [3 - 1 + AMULET_OF_EARTH_CRYSTALS, 1]


def test_arcano_leech_blocks_a_summon_without_a_crystal() -> None:
    # ru 33.3
    game = scenario(
        players=[
            {"hand": [AMULET_OF_EARTH, ELEMENTAL_AMULET], "reserve": {"earth": 2}, "summoning_gauge": 1},
            {"in_play": [ARCANO_LEECH]},
        ],
    )
    assert not any(label.startswith("summon") for label in labels(game))


def test_arcano_leech_toll_comes_on_top_of_a_crystal_cost() -> None:
    # Balance of Ishtar costs 2 crystals: with one Leech the player needs 3.
    leech = {"in_play": [ARCANO_LEECH]}
    game = scenario(players=[{"hand": [BALANCE_OF_ISHTAR], "crystals": 2, "summoning_gauge": 1}, leech])
    assert "summon Balance of Ishtar" not in labels(game)
    game = scenario(players=[{"hand": [BALANCE_OF_ISHTAR], "crystals": 3, "summoning_gauge": 1}, leech])
    act(game, "summon Balance of Ishtar")
    assert game.crystals == [0, 1] and cards_in_play(game) == [BALANCE_OF_ISHTAR]


def test_arcano_leech_each_leech_of_each_opponent_takes_a_crystal() -> None:
    game = scenario(
        3,
        players=[
            {"hand": [ELEMENTAL_AMULET], "crystals": 4, "reserve": {"air": 1}, "summoning_gauge": 1},
            {"in_play": [{"card": ARCANO_LEECH, "copy": 0}]},
            {"in_play": [{"card": ARCANO_LEECH, "copy": 1}]},
        ],
    )
    act(game, "summon Elemental Amulet")
    assert game.crystals == [2, 1, 1] and game.gauge[0] == 1 + ELEMENTAL_AMULET_GAUGE


def test_arcano_leech_gets_nothing_from_potion_of_dreams() -> None:
    # ru 33.4 (Potion of Dreams)
    game = scenario(
        players=[
            {"hand": [AMULET_OF_EARTH], "crystals": 4, "summoning_gauge": 1, "in_play": [POTION_OF_DREAMS]},
            {"in_play": [ARCANO_LEECH]},
        ],
    )
    act(game, activate_label("Potion of Dreams"))
    assert cards_in_play(game) == [AMULET_OF_EARTH] and game.crystals == [4 + AMULET_OF_EARTH_CRYSTALS, 0]


def test_arcano_leech_gets_nothing_from_crystal_orb() -> None:
    # ru 33.4 (Crystal Orb)
    game = scenario(
        players=[
            {"crystals": 4, "reserve": {"fire": CRYSTAL_ORB_TOKENS}, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]},
            {"in_play": [ARCANO_LEECH]},
        ],
        draw_pile=[AMULET_OF_EARTH],
    )
    act(game, activate_label("Crystal Orb"))
    if game.pending_decision == "crystal_orb":  # with the crystals to discard the top card, looking is asked
        act(game, "Crystal Orb: look at the top card")
    act(game, ORB_PLAY)
    assert cards_in_play(game) == [AMULET_OF_EARTH, CRYSTAL_ORB] and game.crystals == [4 + AMULET_OF_EARTH_CRYSTALS, 0]


def test_arcano_leech_gets_one_crystal_for_divine_chalice_and_none_for_its_card() -> None:
    # ru 33.4 (Divine Chalice): the Chalice is summoned from hand, its card is put into play for free.
    game = scenario(
        players=[
            {"hand": [DIVINE_CHALICE], "crystals": 4, "reserve": ALL_FOUR, "summoning_gauge": 2},
            {"in_play": [ARCANO_LEECH]},
        ],
        draw_pile=[AMULET_OF_AIR, AMULET_OF_FIRE, RUNIC_CUBE, AMULET_OF_EARTH],
    )
    act(game, "summon Divine Chalice", "choose card: Amulet of Earth")
    assert cards_in_play(game) == [AMULET_OF_EARTH, DIVINE_CHALICE]
    assert game.crystals == [4 - 1 + AMULET_OF_EARTH_CRYSTALS, 1]


def test_arcano_leech_of_the_summoner_takes_nothing() -> None:
    game = scenario(
        players=[{"hand": [ELEMENTAL_AMULET], "reserve": {"air": 1}, "summoning_gauge": 2, "in_play": [ARCANO_LEECH]}]
    )
    act(game, "summon Elemental Amulet")
    assert game.crystals == [0, 0] and game.gauge[0] == 2 + ELEMENTAL_AMULET_GAUGE


def test_arcano_leech_has_no_activation() -> None:
    # ru 33.5 ("only one of the two effects per activation") is a stray copy of note 32.2: the Leech is passive.
    game = scenario(players=[{"crystals": 5, "reserve": ALL_FOUR, "in_play": [ARCANO_LEECH]}])
    assert not any(label.startswith("activate") for label in labels(game))


# ============================================================================ 34 Crystal Orb


def test_crystal_orb_look_and_leave_keeps_the_top_card_known_to_its_owner_only() -> None:
    # ru 34.1 (look, then leave). The Orb's owner is seat 1, in its own turn.
    game = scenario(
        players=[
            {},
            {
                "crystals": CRYSTAL_ORB_CRYSTALS,
                "reserve": {"water": CRYSTAL_ORB_TOKENS},
                "summoning_gauge": 2,
                "in_play": [CRYSTAL_ORB],
            },
        ],
        turn_player=1,
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE],
    )
    act(game, activate_label("Crystal Orb"))
    assert labels(game) == ["Crystal Orb: look at the top card", ORB_MILL]
    act(game, "Crystal Orb: look at the top card")
    assert game.orb_seen == (1, RUNIC_CUBE)
    assert game.to_dict()["orb_seen"] == {"player": 1, "card": RUNIC_CUBE}
    act(game, "Crystal Orb: leave the top card")
    assert game.draw_pile == [AMULET_OF_AIR, RUNIC_CUBE] and game.reserve[1] == (CRYSTAL_ORB_TOKENS, 0, 0, 0)
    assert game.crystals[1] == CRYSTAL_ORB_CRYSTALS and game.orb_seen == (1, RUNIC_CUBE)
    assert game.pending_decision == "turn"


def test_crystal_orb_look_then_discard_tokens_to_play_the_card_for_free() -> None:
    # ru 34.1 (look, then play): the card's own cost (Amulet of Earth: 2 earth) is not paid.
    air = CRYSTAL_ORB_TOKENS - 1
    game = scenario(
        players=[{"reserve": {"earth": 2, "air": air}, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]}],
        draw_pile=[AMULET_OF_AIR, AMULET_OF_EARTH],
    )
    act(game, activate_label("Crystal Orb"))  # without crystals, looking is forced
    assert labels(game) == ["Crystal Orb: leave the top card", ORB_PLAY]
    act(game, ORB_PLAY)
    # In (source, type) order: an earth first is forced (the air alone are one short), then earth or air.
    assert labels(game) == ["pay earth from reserve", "pay air from reserve"] and game.reserve[0] == (0, 1, 0, air)
    act(game, "pay air from reserve")  # then the other air are forced
    assert game.reserve[0] == (0, 1, 0, 0) and game.crystals[0] == AMULET_OF_EARTH_CRYSTALS
    assert cards_in_play(game) == [AMULET_OF_EARTH, CRYSTAL_ORB] and game.draw_pile == [AMULET_OF_AIR]
    assert game.orb_seen == ()


def test_crystal_orb_play_needs_gauge_room() -> None:
    # ru 34.1 "if the gauge allows": without room the only choice, leaving the card, is forced.
    game = scenario(
        players=[{"reserve": {"earth": 5}, "summoning_gauge": 1, "in_play": [CRYSTAL_ORB]}],
        draw_pile=[AMULET_OF_EARTH],
    )
    act(game, activate_label("Crystal Orb"))  # under 3 crystals, looking is forced
    assert game.pending_decision == "turn" and game.draw_pile == [AMULET_OF_EARTH]
    assert game.orb_seen == (0, AMULET_OF_EARTH) and game.reserve[0] == (0, 5, 0, 0)


def test_crystal_orb_play_needs_its_tokens() -> None:
    game = scenario(
        players=[{"reserve": {"earth": CRYSTAL_ORB_TOKENS - 1}, "summoning_gauge": 3, "in_play": [CRYSTAL_ORB]}],
        draw_pile=[AMULET_OF_EARTH],
    )
    act(game, activate_label("Crystal Orb"))  # under 3 crystals, looking is forced
    assert (
        game.pending_decision == "turn" and game.draw_pile == [AMULET_OF_EARTH] and cards_in_play(game) == [CRYSTAL_ORB]
    )


def test_crystal_orb_pay_crystals_to_discard_the_top_card() -> None:
    # ru 34.1 (second option)
    game = scenario(
        players=[{"crystals": CRYSTAL_ORB_CRYSTALS + 1, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]}],
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE],
    )
    act(game, activate_label("Crystal Orb"), ORB_MILL)
    assert game.crystals[0] == 1 and game.draw_pile == [AMULET_OF_AIR] and game.discard_pile == [RUNIC_CUBE]
    assert game.hand[0] == () and game.pending_decision == "turn"


def test_crystal_orb_card_ignores_leech_staff_of_spring_and_vase() -> None:
    # ru 34.2
    game = scenario(
        players=[
            {
                "crystals": 1,
                "reserve": {"fire": CRYSTAL_ORB_TOKENS},
                "summoning_gauge": 4,
                "in_play": [CRYSTAL_ORB, STAFF_OF_SPRING, YJANGS_VASE],
            },
            {"in_play": [ARCANO_LEECH]},
        ],
        draw_pile=[AMULET_OF_EARTH],
    )
    act(game, activate_label("Crystal Orb"))  # with 1 crystal, looking is forced
    act(game, ORB_PLAY)
    assert game.crystals == [1 + AMULET_OF_EARTH_CRYSTALS, 0] and game.reserve[0] == (0, 0, 0, 0)
    assert game.pending_decision == "turn"  # no Vase token to choose


def test_crystal_orb_one_option_per_activation() -> None:
    # ru 34.3: after looking, the Orb is tapped: no discarding of the top card this round.
    game = scenario(
        players=[{"crystals": 9, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]}],
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE],
    )
    act(game, activate_label("Crystal Orb"), "Crystal Orb: look at the top card")
    assert game.pending_decision == "turn" and activate_label("Crystal Orb") not in labels(game)
    assert game.crystals[0] == 9 and game.discard_pile == []


def test_crystal_orb_seen_card_is_forgotten_once_drawn() -> None:
    # Ruling C3: the look is recorded for the Orb's owner until the top card changes (here seat 1 draws it).
    game = scenario(
        players=[{"summoning_gauge": 2, "in_play": [CRYSTAL_ORB]}, {"in_play": [POTION_OF_POWER]}],
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE],
    )
    act(game, activate_label("Crystal Orb"), "end turn")  # looking and leaving are forced
    assert game.orb_seen == (0, RUNIC_CUBE) and game.current_player == 1
    act(game, activate_label("Potion of Power"))
    assert game.hand[1] == (RUNIC_CUBE,) and game.orb_seen == ()


# ============================================================================ 35 Glutton Cauldron


def test_glutton_cauldron_costs_nothing() -> None:
    # ru 35.1
    game = scenario(players=[{"hand": [GLUTTON_CAULDRON], "summoning_gauge": 1}])
    act(game, "summon Glutton Cauldron")
    assert cards_in_play(game) == [GLUTTON_CAULDRON] and game.crystals[0] == 0 and game.reserve[0] == (0, 0, 0, 0)
    assert game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 0, 0)


def test_glutton_cauldron_moves_one_reserve_token_once_per_round() -> None:
    # ru 35.2: one token per activation; an activation taps it until the next round.
    game = scenario(players=[{"reserve": {"water": 2, "fire": 1}, "in_play": [GLUTTON_CAULDRON]}])
    act(game, activate_label("Glutton Cauldron"))
    assert labels(game) == ["choose energy: water", "choose energy: fire"]
    act(game, "choose energy: fire")
    assert game.reserve[0] == (2, 0, 0, 0) and game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 1, 0)
    assert activate_label("Glutton Cauldron") not in labels(game)


def test_glutton_cauldron_tokens_cannot_be_spent_or_transmuted() -> None:
    # ru 35.2: not part of the reserve. Amulet of Fire costs 2 fire; the Cauldron holds one short of its sacrifice.
    game = scenario(
        players=[
            {
                "hand": [AMULET_OF_FIRE],
                "reserve": {"fire": 1},
                "summoning_gauge": 3,
                "in_play": [{"card": GLUTTON_CAULDRON, "tokens": {"fire": GLUTTON_CAULDRON_TOKENS - 1}}],
            }
        ],
        turn={"transmute_ability": True},
    )
    options = labels(game)
    assert "summon Amulet of Fire" not in options
    assert [label for label in options if label.startswith("transmute")] == ["transmute fire from reserve"]


def test_glutton_cauldron_last_token_sacrifices_it_for_crystals_and_its_tokens() -> None:
    # ru 35.3
    earth = GLUTTON_CAULDRON_TOKENS - 4
    game = scenario(
        players=[
            {
                "crystals": 2,
                "reserve": {"air": 1},
                "in_play": [{"card": GLUTTON_CAULDRON, "tokens": {"water": 3, "earth": earth}}],
            }
        ],
    )
    act(game, activate_label("Glutton Cauldron"))  # the air token is the only one: forced
    assert game.crystals[0] == 2 + GLUTTON_CAULDRON_CRYSTALS and game.reserve[0] == (3, earth, 0, 1)
    assert cards_in_play(game) == [] and game.discard_pile == [GLUTTON_CAULDRON]
    assert instance(GLUTTON_CAULDRON) not in game.stored


def test_glutton_cauldron_tokens_ignored_by_potion_of_life() -> None:
    # ru 35.4 (Potion of Life; Air Elemental, Lantern and Cursed Treatise are tested with their cards)
    game = scenario(
        players=[
            {"reserve": {"water": 2}, "in_play": [POTION_OF_LIFE, {"card": GLUTTON_CAULDRON, "tokens": {"fire": 5}}]}
        ],
    )
    act(game, activate_label("Potion of Life"))
    assert game.crystals[0] == 2 * POTION_OF_LIFE_CRYSTALS and game.reserve[0] == (0, 0, 0, 0)
    assert game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 5, 0)


def test_glutton_cauldron_tokens_ignored_by_potion_of_dreams() -> None:
    # ru 35.4 (Potion of Dreams discards the reserve only)
    game = scenario(
        players=[
            {
                "hand": [RUNIC_CUBE],
                "reserve": {"water": 2},
                "summoning_gauge": 2,
                "in_play": [POTION_OF_DREAMS, {"card": GLUTTON_CAULDRON, "tokens": {"fire": 5}}],
            }
        ],
    )
    act(game, activate_label("Potion of Dreams"))
    assert cards_in_play(game) == [RUNIC_CUBE, GLUTTON_CAULDRON] and game.reserve[0] == (0, 0, 0, 0)
    assert game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 5, 0)


def test_glutton_cauldron_tokens_ignored_by_lewis_greyface() -> None:
    # ru 35.4 (Lewis Greyface copies the reserve only)
    game = scenario(
        players=[
            {"hand": [LEWIS], "reserve": {"fire": 1, "air": 1}, "summoning_gauge": 1},
            {"reserve": {"water": 1}, "in_play": [{"card": GLUTTON_CAULDRON, "tokens": {"earth": 5}}]},
        ],
    )
    act(game, "summon Lewis Greyface")
    assert game.reserve[0] == (1, 0, 0, 0)


def test_glutton_cauldron_tokens_ignored_by_wondrous_chest_and_beggars_horn() -> None:
    # ru 35.4: at the end of the round 0 reserve tokens and 6 on the Cauldron: the Horn gives 1, the Chest nothing.
    game = scenario(
        players=[
            {
                "reserve": {"water": 1},
                "in_play": [WONDROUS_CHEST, BEGGARS_HORN, {"card": GLUTTON_CAULDRON, "tokens": {"fire": 5}}],
            }
        ],
    )
    act(game, activate_label("Glutton Cauldron"))  # 0 reserve tokens, 6 on the Cauldron
    end_turns(game)
    assert game.pending_decision == "gain_energy" and game.current_player == 0
    act(game, "choose energy: air")
    assert game.crystals[0] == 0 and game.reserve[0] == (0, 0, 0, 1)


def test_glutton_cauldron_completion_obeys_the_reserve_limit() -> None:
    # ru 35.5: 5 reserve tokens + the Cauldron's: all but 7 must be discarded at once.
    game = scenario(
        players=[
            {
                "reserve": {"water": 3, "earth": 3},
                "in_play": [{"card": GLUTTON_CAULDRON, "tokens": {"fire": GLUTTON_CAULDRON_TOKENS - 1}}],
            }
        ],
    )
    act(game, activate_label("Glutton Cauldron"), "choose energy: water")
    assert game.pending_decision == "overflow" and sum(game.reserve[0]) == 5 + GLUTTON_CAULDRON_TOKENS
    assert game.crystals[0] == GLUTTON_CAULDRON_CRYSTALS
    act(game, "choose energy: fire")  # in non-decreasing type order the other discards are then fire: forced
    assert game.reserve[0] == (3, 3, 1, 0) and game.pending_decision == "turn"


def test_glutton_cauldron_sacrificed_by_another_cause_loses_its_tokens() -> None:
    # RULES.md 6 "Leaving play": only completion sends the Cauldron's tokens to the reserve.
    game = scenario(
        players=[
            {"hand": [SYLLAS], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"reserve": {"air": 1}, "in_play": [{"card": GLUTTON_CAULDRON, "tokens": {"water": 6}}]},
        ],
    )
    act(game, "summon Syllas the Faithful")
    assert game.in_play[1] == () and game.reserve[1] == (0, 0, 0, 1) and game.crystals[1] == 0
    assert instance(GLUTTON_CAULDRON) not in game.stored and game.discard_pile == [GLUTTON_CAULDRON]


# ============================================================================ 36 Vampiric Crown

CROWN_PLAYER = {"hand": [VAMPIRIC_CROWN, AMULET_OF_AIR], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1}


def test_vampiric_crown_draw_gains_tokens_equal_to_the_prestige() -> None:
    # ru 36.1 (draw): Elemental Amulet has 2 prestige.
    game = scenario(players=[CROWN_PLAYER], draw_pile=[RUNIC_CUBE, ELEMENTAL_AMULET])
    act(game, "summon Vampiric Crown")
    assert labels(game) == ["Vampiric Crown: draw a card", "Vampiric Crown: discard a card from hand"]
    act(game, "Vampiric Crown: draw a card", "choose energy: earth", "choose energy: fire")
    assert game.hand[0] == (AMULET_OF_AIR, ELEMENTAL_AMULET) and game.reserve[0] == (0, 1, 1, 0)
    assert game.pending_decision == "turn"


def test_vampiric_crown_discard_from_hand_gains_tokens_equal_to_the_prestige() -> None:
    # ru 36.1 (discard): Titus Deepgaze has 4 prestige.
    game = scenario(players=[{**CROWN_PLAYER, "hand": [VAMPIRIC_CROWN, TITUS, RUNIC_CUBE]}], draw_pile=[AMULET_OF_AIR])
    act(game, "summon Vampiric Crown", "Vampiric Crown: discard a card from hand")
    assert labels(game) == ["choose card: Runic Cube of Eolis", "choose card: Titus Deepgaze"]
    act(game, "choose card: Titus Deepgaze", *["choose energy: water"] * 4)
    assert game.hand[0] == (RUNIC_CUBE,) and game.discard_pile == [TITUS] and game.reserve[0] == (4, 0, 0, 0)
    assert game.draw_pile == [AMULET_OF_AIR]


def test_vampiric_crown_drawn_card_must_be_kept() -> None:
    # ru 36.2: no keep-or-discard choice after the draw.
    game = scenario(players=[CROWN_PLAYER], draw_pile=[RUNIC_CUBE, DAMNED_SOUL])
    act(game, "summon Vampiric Crown", "Vampiric Crown: draw a card")
    assert game.hand[0] == (AMULET_OF_AIR, DAMNED_SOUL) and game.discard_pile == []
    assert game.pending_decision == "turn"


def test_vampiric_crown_card_is_identified_by_name() -> None:
    # ru 36.3 (the card is shown): the discarded card is named by the decision and lands on the discard pile.
    game = scenario(players=[{**CROWN_PLAYER, "hand": [VAMPIRIC_CROWN, ELEMENTAL_AMULET, AMULET_OF_AIR]}])
    act(game, "summon Vampiric Crown")  # nothing to draw: discarding is forced
    assert game.pending_decision == "vampiric_crown_discard"
    act(game, "choose card: Elemental Amulet", "choose energy: air")  # the second air is forced
    assert game.discard_pile == [ELEMENTAL_AMULET] and game.hand[0] == (AMULET_OF_AIR,)
    assert game.reserve[0] == (0, 0, 0, 2)


def test_vampiric_crown_zero_or_negative_prestige_gives_no_energy() -> None:
    # ru 36.4: Damned Soul of Onys (-5) drawn, Glutton Cauldron (0) discarded.
    game = scenario(players=[CROWN_PLAYER], draw_pile=[DAMNED_SOUL])
    act(game, "summon Vampiric Crown", "Vampiric Crown: draw a card")
    assert game.reserve[0] == (0, 0, 0, 0) and game.pending_decision == "turn"
    game = scenario(players=[{**CROWN_PLAYER, "hand": [VAMPIRIC_CROWN, GLUTTON_CAULDRON]}], draw_pile=[RUNIC_CUBE])
    act(game, "summon Vampiric Crown", "Vampiric Crown: discard a card from hand")
    assert game.discard_pile == [GLUTTON_CAULDRON] and game.reserve[0] == (0, 0, 0, 0)
    assert game.pending_decision == "turn"


# ============================================================================ 37 Dragon Skull


def test_dragon_skull_sacrifices_cards_itself_included_for_crystals() -> None:
    # ru 37.1
    later = AFTER_SKULL[: DRAGON_SKULL_CARDS - 2]
    game = scenario(players=[{"crystals": 1, "in_play": [DRAGON_SKULL, AMULET_OF_AIR, RUNIC_CUBE, *later]}])
    act(game, activate_label("Dragon Skull"))
    # The cards are chosen in increasing instance order: Amulet of Air, then Dragon Skull, then the later cards.
    act(game, in_play_label(AMULET_OF_AIR))
    assert game.crystals[0] == 1 and game.pending_decision == "dragon_skull"
    assert labels(game) == [in_play_label(RUNIC_CUBE), in_play_label(DRAGON_SKULL)]
    act(game, in_play_label(DRAGON_SKULL))  # the later cards, just enough, are then forced
    assert game.crystals[0] == 1 + DRAGON_SKULL_CRYSTALS and cards_in_play(game) == [RUNIC_CUBE]
    assert sorted(game.discard_pile) == sorted([AMULET_OF_AIR, DRAGON_SKULL, *later])


def test_dragon_skull_is_not_raised_by_purse_of_io() -> None:
    # ru 37.2
    earlier = BEFORE_SKULL[: DRAGON_SKULL_CARDS - 1]
    game = scenario(players=[{"in_play": [DRAGON_SKULL, PURSE_OF_IO, *earlier]}])
    act(game, activate_label("Dragon Skull"))
    act(game, in_play_label(AMULET_OF_AIR), in_play_label(RUNIC_CUBE))
    # the cards after the Runic Cube in instance order, the Skull last, are just enough: forced
    assert game.crystals[0] == DRAGON_SKULL_CRYSTALS and cards_in_play(game) == [PURSE_OF_IO]


def test_dragon_skull_needs_its_cards_in_play() -> None:
    game = scenario(players=[{"in_play": [DRAGON_SKULL, *BEFORE_SKULL[: DRAGON_SKULL_CARDS - 2]]}])
    assert activate_label("Dragon Skull") not in labels(game)


# ============================================================================ 38 Demon of Argos

DEMON_PLAYER = {"hand": [DEMON_OF_ARGOS], "reserve": ALL_FOUR, "summoning_gauge": 1}


def test_demon_of_argos_each_opponent_in_turn_order_loses_a_gauge_point_and_draws() -> None:
    # ru 38.1: seat 1 draws first, then seat 2; a gauge of 0 stays 0.
    game = scenario(
        3,
        players=[DEMON_PLAYER, {"summoning_gauge": 4}, {"summoning_gauge": 0}],
        draw_pile=[AMULET_OF_AIR, RUNIC_CUBE, TITUS],
    )
    act(game, "summon Demon of Argos")
    assert game.gauge == [1, 4 - DEMON_OF_ARGOS_GAUGE, 0]
    assert game.hand[1] == (TITUS,) and game.hand[2] == (RUNIC_CUBE,) and game.draw_pile == [AMULET_OF_AIR]


def test_demon_of_argos_drawn_cards_must_be_kept() -> None:
    # ru 38.2: no keep-or-discard choice for the opponent.
    game = scenario(players=[DEMON_PLAYER, {"summoning_gauge": 2}], draw_pile=[DAMNED_SOUL])
    act(game, "summon Demon of Argos")
    assert game.hand[1] == (DAMNED_SOUL,) and game.discard_pile == []
    assert game.current_player == 0 and game.pending_decision == "turn"


def test_demon_of_argos_over_gauge_opponent_sacrifices_nothing() -> None:
    # ru 38.3
    game = scenario(
        players=[DEMON_PLAYER, {"summoning_gauge": 2, "in_play": [AMULET_OF_AIR, RUNIC_CUBE]}],
        draw_pile=[TITUS],
    )
    act(game, "summon Demon of Argos")
    assert game.gauge[1] == 2 - DEMON_OF_ARGOS_GAUGE and cards_in_play(game, 1) == [AMULET_OF_AIR, RUNIC_CUBE]
    assert game.discard_pile == [] and game.pending_decision == "turn"


# ============================================================================ 39 Titus Deepgaze


def test_titus_deepgaze_cost_depends_on_the_number_of_players() -> None:
    # ru 39.1: 1 / 2 / 3 fire for 2 / 3 / 4 players.
    for num_players, fire in ((2, 1), (3, 2), (4, 3)):
        game = scenario(num_players, players=[{"hand": [TITUS], "reserve": {"fire": fire - 1}, "summoning_gauge": 1}])
        assert "summon Titus Deepgaze" not in labels(game)
        game = scenario(num_players, players=[{"hand": [TITUS], "reserve": {"fire": fire}, "summoning_gauge": 1}])
        act(game, "summon Titus Deepgaze")
        assert game.reserve[0] == (0, 0, 0, 0) and cards_in_play(game) == [TITUS]


def test_titus_deepgaze_each_opponent_gives_one_crystal_at_the_end_of_the_round() -> None:
    # ru 39.2
    game = scenario(3, players=[{"crystals": 2, "in_play": [TITUS]}, {"crystals": 5}, {"crystals": TITUS_CRYSTALS}])
    act(game, "end turn")
    assert game.crystals == [2, 5, TITUS_CRYSTALS]  # nothing during the turns
    end_turns(game)
    assert game.crystals == [2 + 2 * TITUS_CRYSTALS, 5 - TITUS_CRYSTALS, 0] and cards_in_play(game) == [TITUS]


def test_titus_deepgaze_each_copy_collects_and_is_checked_on_its_own() -> None:
    # Ruling C4: the second copy finds the opponent empty and is sacrificed; the first stays.
    game = scenario(
        players=[{"in_play": [{"card": TITUS, "copy": 0}, {"card": TITUS, "copy": 1}]}, {"crystals": TITUS_CRYSTALS}],
    )
    end_turns(game)
    assert (
        game.crystals == [TITUS_CRYSTALS, 0]
        and game.in_play[0] == (instance(TITUS, 0),)
        and game.discard_pile == [TITUS]
    )


def test_titus_deepgaze_is_sacrificed_when_an_opponent_cannot_pay() -> None:
    # ru 39.3: the opponent without crystals pays nothing, the others pay, and Titus goes at this round's end.
    game = scenario(3, players=[{"in_play": [TITUS, RUNIC_CUBE]}, {"crystals": 0}, {"crystals": TITUS_CRYSTALS + 2}])
    end_turns(game)
    assert game.crystals == [TITUS_CRYSTALS, 0, 2]
    assert cards_in_play(game) == [RUNIC_CUBE] and game.discard_pile == [TITUS]


# ============================================================================ 40 Air Elemental


def test_air_elemental_turns_every_opponent_reserve_token_into_air() -> None:
    # ru 40.1
    game = scenario(
        3,
        players=[
            {"hand": [AIR_ELEMENTAL], "reserve": {"air": 3, "water": 2}, "summoning_gauge": 1},
            {"reserve": {"water": 1, "earth": 2}},
            {"reserve": {"fire": 3, "air": 1}},
        ],
    )
    act(game, "summon Air Elemental")
    assert game.reserve == [(2, 0, 0, 0), (0, 0, 0, 3), (0, 0, 0, 4)]


def test_air_elemental_spares_amulet_of_water_and_cauldron_but_not_grimoire_tokens() -> None:
    # ru 40.2: the 9 reserve tokens (2 of them over the limit of 7, thanks to the Grimoire) all become air.
    game = scenario(
        players=[
            {"hand": [AIR_ELEMENTAL], "reserve": {"air": 3}, "summoning_gauge": 1},
            {
                "reserve": {"water": 3, "earth": 3, "fire": 3},
                "in_play": [
                    GRIMOIRE,
                    {"card": AMULET_OF_WATER, "tokens": {"fire": 2}},
                    {"card": GLUTTON_CAULDRON, "tokens": {"earth": 4}},
                ],
            },
        ],
    )
    act(game, "summon Air Elemental")
    assert game.reserve[1] == (0, 0, 0, 9)
    assert game.stored[instance(AMULET_OF_WATER)] == (0, 0, 2, 0)
    assert game.stored[instance(GLUTTON_CAULDRON)] == (0, 4, 0, 0)


# ============================================================================ 41 Thieving Fairies


def test_thieving_fairies_cost_depends_on_the_number_of_players() -> None:
    # ru 41.1: 0 / 3 / 6 crystals for 2 / 3 / 4 players.
    for num_players, cost in ((2, 0), (3, 3), (4, 6)):
        if cost:
            game = scenario(
                num_players, players=[{"hand": [THIEVING_FAIRIES], "crystals": cost - 1, "summoning_gauge": 1}]
            )
            assert "summon Thieving Fairies" not in labels(game)
        game = scenario(num_players, players=[{"hand": [THIEVING_FAIRIES], "crystals": cost, "summoning_gauge": 1}])
        act(game, "summon Thieving Fairies")
        assert game.crystals[0] == 0 and cards_in_play(game) == [THIEVING_FAIRIES]


def test_thieving_fairies_opponent_activation_gives_the_owner_two_and_costs_the_opponent_one() -> None:
    # ru 41.2: the Idol has no familiar to count, so only the Fairies move crystals.
    game = scenario(players=[{"crystals": 5, "in_play": [IDOL]}, {"crystals": 3, "in_play": [THIEVING_FAIRIES]}])
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [4, 5]


def test_thieving_fairies_ignore_on_summon_and_permanent_effects() -> None:
    # ru 41.3: a summon (instant effect) and a Staff of Spring (permanent) trigger nothing.
    game = scenario(
        players=[
            {
                "hand": [AMULET_OF_EARTH],
                "crystals": 5,
                "reserve": {"earth": 2},
                "summoning_gauge": 2,
                "in_play": [STAFF_OF_SPRING],
            },
            {"crystals": 3, "in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, "summon Amulet of Earth")
    assert game.crystals == [5 + AMULET_OF_EARTH_CRYSTALS + STAFF_OF_SPRING_CRYSTALS, 3]


def test_thieving_fairies_one_crystal_stolen_one_from_the_supply() -> None:
    # ru 41.4: the opponent's last crystal goes to the owner, who also takes 1 from the supply.
    game = scenario(players=[{"crystals": 1, "in_play": [IDOL]}, {"in_play": [THIEVING_FAIRIES]}])
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [0, 2]


def test_thieving_fairies_opponent_without_crystals_gives_the_owner_only_one() -> None:
    # ru 41.5
    game = scenario(players=[{"in_play": [IDOL]}, {"crystals": 3, "in_play": [THIEVING_FAIRIES]}])
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [0, 4]


def test_thieving_fairies_ignore_their_owners_own_activations() -> None:
    game = scenario(players=[{"crystals": 2, "in_play": [IDOL, THIEVING_FAIRIES]}, {"crystals": 2}])
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [3, 2]  # the Idol counts the Fairies, a familiar


def test_thieving_fairies_trigger_on_a_potion() -> None:
    game = scenario(
        players=[{"crystals": 2, "in_play": [POTION_OF_KNOWLEDGE]}, {"in_play": [THIEVING_FAIRIES]}],
    )
    act(game, activate_label("Potion of Knowledge"), *["choose energy: fire"] * POTION_OF_KNOWLEDGE_TOKENS)
    assert game.crystals == [1, 2] and game.reserve[0] == (0, 0, POTION_OF_KNOWLEDGE_TOKENS, 0)


def test_thieving_fairies_trigger_on_glutton_cauldron() -> None:
    game = scenario(
        players=[
            {"crystals": 2, "reserve": {"fire": 1}, "in_play": [GLUTTON_CAULDRON]},
            {"in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, activate_label("Glutton Cauldron"))
    assert game.crystals == [1, 2] and game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 1, 0)


def test_thieving_fairies_trigger_on_die_of_malice() -> None:
    # The Die of Malice window at the start of the turn; the die actions then use the new face.
    game = scenario(
        pending=[{"step": "turn_start", "player": 0}],
        rolled=[{"die": 0, "face": 0, "taken_by": 0}],
        players=[{"crystals": 2, "in_play": [DIE_OF_MALICE]}, {"in_play": [THIEVING_FAIRIES]}],
    )
    assert game.pending_decision == "die_of_malice_window"
    act(game, activate_label("Die of Malice"))
    [(die, face, _)] = game.rolled
    assert game.crystals == [2 - 1 + DIE_OF_MALICE_CRYSTALS + DICE[0][die][face].crystals, 2]


def test_thieving_fairies_trigger_on_damned_soul_of_onys() -> None:
    game = scenario(
        players=[
            {"crystals": 2, "reserve": {"water": 1}, "in_play": [DAMNED_SOUL]},
            {"in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, activate_label("Damned Soul of Onys"))
    assert game.crystals == [1, 2] and cards_in_play(game, 1) == [THIEVING_FAIRIES, DAMNED_SOUL]


def test_thieving_fairies_several_copies_and_several_owners_add_up() -> None:
    game = scenario(
        3,
        players=[
            {"crystals": 2, "in_play": [IDOL]},
            {"in_play": [{"card": THIEVING_FAIRIES, "copy": 0}]},
            {"in_play": [{"card": THIEVING_FAIRIES, "copy": 1}]},
        ],
    )
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [0, 2, 2]


# The activated card's own cost is paid first, then the Fairies take their crystal if one remains, then the
# effect resolves (RULES.md 8.41): the Fairies never make an affordable activation unaffordable.


def test_thieving_fairies_let_the_mirror_be_paid_with_the_last_crystal() -> None:
    game = scenario(
        players=[{"crystals": 1, "reserve": {"water": 2}, "in_play": [MIRROR]}, {"in_play": [THIEVING_FAIRIES]}],
    )
    act(game, activate_label("Mirror of the Seasons"))  # water is the only type and 1 the only X
    assert game.pending_decision == "mirror_to" and game.pending.args == {"energy": 0, "count": 1}
    act(game, "choose energy: fire")
    assert game.crystals == [0, 1] and game.reserve[0] == (1, 0, 1, 0)


def test_thieving_fairies_take_a_crystal_left_after_the_mirror_is_paid() -> None:
    game = scenario(
        players=[{"crystals": 3, "reserve": {"earth": 3}, "in_play": [MIRROR]}, {"in_play": [THIEVING_FAIRIES]}],
    )
    act(game, activate_label("Mirror of the Seasons"))
    assert labels(game) == ["choose number: 1", "choose number: 2", "choose number: 3"]  # all 3 crystals may pay
    act(game, "choose number: 2", "choose energy: air")
    assert game.crystals == [0, 2] and game.reserve[0] == (0, 1, 0, 2)


def test_thieving_fairies_let_the_tree_of_light_be_paid_with_exactly_its_crystals() -> None:
    game = scenario(
        players=[{"crystals": TREE_OF_LIGHT_CRYSTALS, "in_play": [TREE_OF_LIGHT]}, {"in_play": [THIEVING_FAIRIES]}]
    )
    act(game, activate_label("Tree of Light"))  # buying the token is its only option
    assert game.pending_decision == "gain_energy"
    act(game, "choose energy: air")  # after air, the other tokens can only be air: forced
    assert game.crystals == [0, 1] and game.reserve[0] == (0, 0, 0, TREE_OF_LIGHT_TOKENS)


def test_thieving_fairies_and_the_tree_of_light_transmute_option() -> None:
    game = scenario(
        players=[
            {"reserve": {"fire": TREE_OF_LIGHT_DISCARD + 1}, "in_play": [TREE_OF_LIGHT]},
            {"crystals": 1, "in_play": [THIEVING_FAIRIES]},
        ],
        position=7,  # summer: fire transmutes for 1 crystal
    )
    act(game, activate_label("Tree of Light"))  # discarding a token is its only option, and fire the only type
    assert game.crystals == [0, 2] and game.reserve[0] == (0, 0, 1, 0)
    act(game, "transmute fire from reserve")
    assert game.crystals == [1, 2]


def test_thieving_fairies_let_the_crystal_orb_discard_with_exactly_its_crystals() -> None:
    game = scenario(
        players=[{"crystals": CRYSTAL_ORB_CRYSTALS, "in_play": [CRYSTAL_ORB]}, {"in_play": [THIEVING_FAIRIES]}],
        draw_pile=[RUNIC_CUBE, LANTERN],
    )
    act(game, activate_label("Crystal Orb"))
    assert labels(game) == ["Crystal Orb: look at the top card", ORB_MILL]
    act(game, ORB_MILL)
    assert game.crystals == [0, 1] and game.discard_pile == [LANTERN] and game.draw_pile == [RUNIC_CUBE]


def test_thieving_fairies_and_the_crystal_orb_playing_the_top_card_for_tokens() -> None:
    game = scenario(
        players=[
            {"crystals": 1, "reserve": {"air": CRYSTAL_ORB_TOKENS}, "summoning_gauge": 2, "in_play": [CRYSTAL_ORB]},
            {"in_play": [THIEVING_FAIRIES]},
        ],
        draw_pile=[LANTERN],
    )
    act(game, activate_label("Crystal Orb"))  # with 1 crystal, looking is the only option
    assert game.pending_decision == "crystal_orb_seen" and game.crystals == [0, 2]  # looking costs nothing
    act(game, ORB_PLAY)
    assert cards_in_play(game) == [CRYSTAL_ORB, LANTERN] and game.reserve[0] == (0, 0, 0, 0)


def test_thieving_fairies_after_the_balance_of_ishtar_tokens_before_its_crystals() -> None:
    game = scenario(
        players=[
            {"reserve": {"earth": BALANCE_OF_ISHTAR_TOKENS}, "in_play": [BALANCE_OF_ISHTAR]},
            {"in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, activate_label("Balance of Ishtar"))
    assert game.crystals == [BALANCE_OF_ISHTAR_CRYSTALS, 1]  # nothing was left to take before the Balance's crystals
    assert game.reserve[0] == (0, 0, 0, 0)


def test_thieving_fairies_after_kairns_token_before_its_effect() -> None:
    game = scenario(
        players=[
            {"reserve": {"air": KAIRN_TOKENS}, "in_play": [KAIRN]},
            {"crystals": 5, "in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, activate_label("Kairn the Destroyer"))
    assert game.crystals == [0, 5 + 1 - KAIRN_CRYSTALS] and game.reserve[0] == (0, 0, 0, 0)


def test_thieving_fairies_after_the_damned_souls_water_token() -> None:
    game = scenario(
        players=[{"reserve": {"water": 1}, "in_play": [DAMNED_SOUL]}, {"in_play": [THIEVING_FAIRIES]}],
    )
    act(game, activate_label("Damned Soul of Onys"))
    assert game.crystals == [0, 1] and cards_in_play(game, 1) == [THIEVING_FAIRIES, DAMNED_SOUL]


def test_thieving_fairies_after_the_potion_of_dreams_discards_the_reserve() -> None:
    game = scenario(
        players=[
            {"reserve": {"fire": 3}, "hand": [LANTERN], "summoning_gauge": 1, "in_play": [POTION_OF_DREAMS]},
            {"in_play": [THIEVING_FAIRIES]},
        ],
    )
    act(game, activate_label("Potion of Dreams"))  # the Lantern is the only card in hand
    assert game.crystals == [0, 1] and game.reserve[0] == (0, 0, 0, 0) and cards_in_play(game) == [LANTERN]


# ============================================================================ 42 Cursed Treatise of Arus


def test_cursed_treatise_gives_tokens_gauge_and_crystals() -> None:
    # ru 42.1
    game = scenario(players=[{"hand": [CURSED_TREATISE], "reserve": {"water": 1}, "summoning_gauge": 1}])
    act(game, "summon Cursed Treatise of Arus", "choose energy: earth")
    if CURSED_TREATISE_TOKENS > 1:
        act(game, "choose energy: air")  # after air, the other tokens can only be air: forced
    assert game.crystals[0] == CURSED_TREATISE_CRYSTALS and game.gauge[0] == 1 + CURSED_TREATISE_GAUGE
    assert game.reserve[0] == (0, 1, 0, CURSED_TREATISE_TOKENS - 1) and game.pending_decision == "turn"


def test_cursed_treatise_sacrificed_by_dragon_skull_discards_the_reserve() -> None:
    # ru 42.2
    game = scenario(
        players=[
            {
                "reserve": {"water": 2, "fire": 3},
                "in_play": [DRAGON_SKULL, CURSED_TREATISE, *BEFORE_SKULL[: DRAGON_SKULL_CARDS - 2]],
            }
        ]
    )
    act(game, activate_label("Dragon Skull"))  # exactly the Skull's number of cards in play: every one is forced
    assert game.crystals[0] == DRAGON_SKULL_CRYSTALS and cards_in_play(game) == [] and game.reserve[0] == (0, 0, 0, 0)


def test_cursed_treatise_sacrificed_discards_grimoire_tokens_too() -> None:
    # ru 42.3: the Grimoire's tokens (here the 2 over 7) are reserve tokens.
    game = scenario(
        players=[
            {"hand": [SYLLAS], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"reserve": {"water": 4, "earth": 5}, "in_play": [GRIMOIRE, CURSED_TREATISE]},
        ],
    )
    act(game, "summon Syllas the Faithful", "choose in play: Cursed Treatise of Arus (copy 1)")
    assert game.reserve[1] == (0, 0, 0, 0) and cards_in_play(game, 1) == [GRIMOIRE]


def test_cursed_treatise_spares_amulet_of_water_and_cauldron_tokens() -> None:
    # ru 42.4
    game = scenario(
        players=[
            {
                "reserve": {"air": 2},
                "in_play": [
                    DRAGON_SKULL,
                    CURSED_TREATISE,
                    RUNIC_CUBE,
                    {"card": AMULET_OF_WATER, "tokens": {"water": 2}},
                    {"card": GLUTTON_CAULDRON, "tokens": {"fire": 3}},
                    *AFTER_TREATISE[: DRAGON_SKULL_CARDS - 3],
                ],
            }
        ],
    )
    # In increasing instance order: Runic Cube, Dragon Skull, then the Treatise and the later cards (forced).
    act(game, activate_label("Dragon Skull"), in_play_label(RUNIC_CUBE), in_play_label(DRAGON_SKULL))
    assert game.reserve[0] == (0, 0, 0, 0)
    assert game.stored[instance(AMULET_OF_WATER)] == (2, 0, 0, 0)
    assert game.stored[instance(GLUTTON_CAULDRON)] == (0, 0, 3, 0)


def test_cursed_treatise_scores_minus_ten() -> None:
    # ru 42.5
    game = scenario(players=[{"crystals": 30, "in_play": [CURSED_TREATISE, RUNIC_CUBE]}], **LAST_ROUND)
    end_turns(game)
    assert game.is_over and game.final_scores[0] == 30 - 10 + 30


def test_cursed_treatise_returned_to_hand_by_amsug_keeps_the_reserve() -> None:
    game = scenario(
        players=[
            {"hand": [AMSUG], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1},
            {"reserve": {"fire": 4}, "in_play": [CURSED_TREATISE]},
        ],
    )
    act(game, "summon Amsug Longneck")
    assert game.hand[1] == (CURSED_TREATISE,) and game.in_play[1] == () and game.reserve[1] == (0, 0, 4, 0)


# ============================================================================ 43 Idol of the Familiar


def test_idol_of_the_familiar_activation_gives_one_crystal_per_own_familiar() -> None:
    # ru 43.1: two own familiars count; items and the opponent's familiars do not.
    game = scenario(
        players=[
            {"crystals": 1, "in_play": [IDOL, TITUS, SID, AMULET_OF_AIR]},
            {"in_play": [{"card": TITUS, "copy": 1}, SYLLAS]},
        ],
    )
    act(game, activate_label("Idol of the Familiar"))
    assert game.crystals == [3, 0]
    assert activate_label("Idol of the Familiar") not in labels(game)


def test_idol_of_the_familiar_gives_crystals_on_summon() -> None:
    # ru 43.2
    game = scenario(players=[{"hand": [IDOL], "reserve": ALL_FOUR, "summoning_gauge": 2, "in_play": [TITUS]}])
    act(game, "summon Idol of the Familiar")
    assert game.crystals[0] == IDOL_CRYSTALS and game.reserve[0] == (0, 0, 0, 0)


# ============================================================================ 44 Necrotic Kriss


def test_necrotic_kriss_discards_a_familiar_from_hand_for_tokens() -> None:
    # ru 44.1 (from hand); items are not offered.
    game = scenario(
        players=[{"hand": [AMULET_OF_AIR, TITUS, SID], "in_play": [NECROTIC_KRISS, RUNIC_CUBE, SYLLAS]}],
    )
    act(game, activate_label("Necrotic Kriss"))
    assert labels(game) == [
        "choose card: Titus Deepgaze",
        "choose card: Sid Nightshade",
        "choose in play: Syllas the Faithful (copy 1)",
    ]
    act(game, "choose card: Titus Deepgaze", *["choose energy: earth"] * NECROTIC_KRISS_TOKENS)
    assert game.hand[0] == (AMULET_OF_AIR, SID) and game.discard_pile == [TITUS]
    assert game.reserve[0] == (0, NECROTIC_KRISS_TOKENS, 0, 0)
    assert cards_in_play(game) == [SYLLAS, RUNIC_CUBE, NECROTIC_KRISS]


def test_necrotic_kriss_sacrifices_a_familiar_in_play_for_tokens() -> None:
    # ru 44.1 (in play)
    game = scenario(players=[{"hand": [AMULET_OF_AIR], "in_play": [NECROTIC_KRISS, SYLLAS]}])
    act(game, activate_label("Necrotic Kriss"))
    # Syllas is the only target, but the choice is asked: with a card in hand, whether it has one option or
    # several hangs on the hand, which the others do not see (issue 15: forced moves were a timing channel)
    assert game.pending_decision == "necrotic_kriss" and labels(game) == [
        "choose in play: Syllas the Faithful (copy 1)"
    ]
    act(game, "choose in play: Syllas the Faithful (copy 1)", *["choose energy: water"] * NECROTIC_KRISS_TOKENS)
    assert cards_in_play(game) == [NECROTIC_KRISS] and game.discard_pile == [SYLLAS]
    assert game.reserve[0] == (NECROTIC_KRISS_TOKENS, 0, 0, 0) and game.hand[0] == (AMULET_OF_AIR,)


def test_necrotic_kriss_needs_a_familiar() -> None:
    game = scenario(players=[{"hand": [AMULET_OF_AIR], "in_play": [NECROTIC_KRISS, RUNIC_CUBE]}])
    assert activate_label("Necrotic Kriss") not in labels(game)


# ============================================================================ 45 Lantern of Xidit


def test_lantern_of_xidit_crystals_per_reserve_token_at_the_end() -> None:
    # ru 45.1: 4 tokens, each worth the Lantern's amount; Lantern prestige 24.
    game = scenario(players=[{"crystals": 1, "reserve": {"water": 1, "air": 3}, "in_play": [LANTERN]}], **LAST_ROUND)
    end_turns(game)
    crystals = 1 + 4 * LANTERN_PRESTIGE
    assert game.is_over and game.crystals[0] == crystals and game.final_scores[0] == crystals + 24


def test_lantern_of_xidit_counts_grimoire_tokens_not_amulet_or_cauldron_tokens() -> None:
    # ru 45.2: 9 reserve tokens (Grimoire) count; 2 on Amulet of Water and 3 on the Cauldron do not.
    game = scenario(
        players=[
            {
                "reserve": {"water": 9},
                "in_play": [
                    LANTERN,
                    GRIMOIRE,
                    {"card": AMULET_OF_WATER, "tokens": {"fire": 2}},
                    {"card": GLUTTON_CAULDRON, "tokens": {"earth": 3}},
                ],
            }
        ],
        **LAST_ROUND,
    )
    end_turns(game)
    assert game.is_over and game.crystals[0] == 9 * LANTERN_PRESTIGE


# ============================================================================ 46 Sealed Chest of Urm


def test_sealed_chest_of_urm_crystals_without_familiars_in_play() -> None:
    # ru 46.1
    game = scenario(
        players=[{"in_play": [SEALED_CHEST, RUNIC_CUBE]}, {"in_play": [{"card": SEALED_CHEST, "copy": 1}, SYLLAS]}],
        **LAST_ROUND,
    )
    end_turns(game)
    assert game.is_over and game.crystals == [SEALED_CHEST_PRESTIGE, 0]


def test_sealed_chest_of_urm_ignores_familiars_in_hand() -> None:
    # ru 46.2
    game = scenario(players=[{"hand": [TITUS], "in_play": [SEALED_CHEST]}], **LAST_ROUND)
    end_turns(game)
    assert game.is_over and game.crystals[0] == SEALED_CHEST_PRESTIGE
    assert game.final_scores[0] == SEALED_CHEST_PRESTIGE + 10 - 5


# ============================================================================ 19 Ragfield's Helm (end of game)


def test_ragfields_helm_crystals_for_strictly_most_cards_in_play() -> None:
    game = scenario(
        3,
        players=[
            {"in_play": [RAGFIELDS_HELM, RUNIC_CUBE, AMULET_OF_AIR]},
            {"in_play": [SYLLAS, TITUS]},
            {"crystals": 1},
        ],
        **LAST_ROUND,
    )
    end_turns(game)
    assert game.is_over and game.crystals[0] == RAGFIELDS_HELM_PRESTIGE


def test_ragfields_helm_nothing_on_a_tie_for_most_cards() -> None:
    game = scenario(
        players=[{"in_play": [RAGFIELDS_HELM, RUNIC_CUBE]}, {"in_play": [SYLLAS, AMULET_OF_AIR]}], **LAST_ROUND
    )
    end_turns(game)
    assert game.is_over and game.crystals == [0, 0]


# ============================================================================ 47 Mirror of the Seasons


def test_mirror_of_the_seasons_pays_x_crystals_to_change_x_identical_tokens() -> None:
    # ru 47.1
    game = scenario(players=[{"crystals": 5, "reserve": {"water": 3, "earth": 1}, "in_play": [MIRROR]}])
    act(game, activate_label("Mirror of the Seasons"), "choose energy: water")
    assert labels(game) == ["choose number: 1", "choose number: 2", "choose number: 3"]
    act(game, "choose number: 3")
    assert labels(game) == ["choose energy: earth", "choose energy: fire", "choose energy: air"]
    act(game, "choose energy: fire")
    assert game.crystals[0] == 2 and game.reserve[0] == (0, 1, 3, 0)


def test_mirror_of_the_seasons_x_is_at_most_the_crystals() -> None:
    # ru 47.2: X is the number of crystals spent, so 2 crystals allow at most 2 tokens.
    game = scenario(players=[{"crystals": 2, "reserve": {"earth": 4}, "in_play": [MIRROR]}])
    act(game, activate_label("Mirror of the Seasons"))  # earth is the only type: forced
    assert labels(game) == ["choose number: 1", "choose number: 2"]
    act(game, "choose number: 2", "choose energy: air")
    assert game.crystals[0] == 0 and game.reserve[0] == (0, 2, 0, 2)


def test_mirror_of_the_seasons_x_is_at_least_one() -> None:
    # ru 47.3: without a crystal (X = 0) the Mirror cannot be activated.
    game = scenario(players=[{"reserve": {"earth": 4}, "in_play": [MIRROR]}])
    assert activate_label("Mirror of the Seasons") not in labels(game)
    game = scenario(players=[{"crystals": 1, "reserve": {"earth": 4}, "in_play": [MIRROR]}])
    act(game, activate_label("Mirror of the Seasons"))  # type and X = 1 forced
    assert game.pending_decision == "mirror_to"
    act(game, "choose energy: water")
    assert game.crystals[0] == 0 and game.reserve[0] == (1, 3, 0, 0)


# ============================================================================ 48 Pendant of Ragnor


def test_pendant_of_ragnor_one_token_per_other_magic_item() -> None:
    # ru 48.1: two other items; familiars and the opponent's items do not count.
    game = scenario(
        players=[
            {
                "hand": [PENDANT],
                "reserve": {"water": 1, "fire": 1, "air": 1},
                "summoning_gauge": 4,
                "in_play": [AMULET_OF_AIR, RUNIC_CUBE, TITUS],
            },
            {"in_play": [SEALED_CHEST]},
        ],
    )
    act(game, "summon Pendant of Ragnor", "choose energy: earth", "choose energy: earth")
    assert game.reserve[0] == (0, 2, 0, 0) and game.pending_decision == "turn"


# ============================================================================ 49 Sid Nightshade


def test_sid_nightshade_cost_depends_on_the_number_of_players() -> None:
    # ru 49.1: 1 / 2 / 3 earth for 2 / 3 / 4 players.
    for num_players, earth in ((2, 1), (3, 2), (4, 3)):
        game = scenario(num_players, players=[{"hand": [SID], "reserve": {"earth": earth - 1}, "summoning_gauge": 1}])
        assert "summon Sid Nightshade" not in labels(game)
        game = scenario(num_players, players=[{"hand": [SID], "reserve": {"earth": earth}, "summoning_gauge": 1}])
        act(game, "summon Sid Nightshade")
        assert game.reserve[0] == (0, 0, 0, 0) and cards_in_play(game) == [SID]


SID_PLAYER = {"hand": [SID], "reserve": {"earth": 2}, "summoning_gauge": 1}


def test_sid_nightshade_steals_from_each_opponent_with_the_lead() -> None:
    # ru 49.2
    game = scenario(3, players=[{**SID_PLAYER, "crystals": 20}, {"crystals": 10}, {"crystals": 8}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [
        20 + 2 * SID_NIGHTSHADE_CRYSTALS,
        10 - SID_NIGHTSHADE_CRYSTALS,
        8 - SID_NIGHTSHADE_CRYSTALS,
    ]


def test_sid_nightshade_does_nothing_on_a_tie_for_the_lead() -> None:
    # ru 49.3
    game = scenario(3, players=[{**SID_PLAYER, "crystals": 10}, {"crystals": 10}, {"crystals": 2}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [10, 10, 2]


def test_sid_nightshade_takes_what_an_opponent_has() -> None:
    # ru 49.4
    short, rich = SID_NIGHTSHADE_CRYSTALS - 2, SID_NIGHTSHADE_CRYSTALS + 4
    game = scenario(3, players=[{**SID_PLAYER, "crystals": rich + 1}, {"crystals": short}, {"crystals": rich}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [rich + 1 + short + SID_NIGHTSHADE_CRYSTALS, 0, 4]


def test_sid_nightshade_takes_nothing_from_an_opponent_without_crystals() -> None:
    # ru 49.5
    game = scenario(3, players=[{**SID_PLAYER, "crystals": 1}, {"crystals": 0}, {"crystals": 0}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [1, 0, 0]
    game = scenario(3, players=[{**SID_PLAYER, "crystals": 4}, {"crystals": 0}, {"crystals": 2}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [6, 0, 0]


def test_sid_nightshade_lead_is_read_after_the_arcano_leech_toll() -> None:
    # RULES.md 6: the Leech's crystal is given before the card enters play: 11 vs 10 becomes 10 vs 11.
    game = scenario(players=[{**SID_PLAYER, "crystals": 11}, {"crystals": 10, "in_play": [ARCANO_LEECH]}])
    act(game, "summon Sid Nightshade")
    assert game.crystals == [10, 11]


# ============================================================================ 50 Damned Soul of Onys


def test_damned_soul_gives_its_summoner_crystals_and_one_water() -> None:
    # ru 50.1
    game = scenario(players=[{"hand": [DAMNED_SOUL], "reserve": {"water": 1, "air": 2}, "summoning_gauge": 1}])
    act(game, "summon Damned Soul of Onys")
    assert game.crystals[0] == DAMNED_SOUL_CRYSTALS and game.reserve[0] == (1, 0, 0, 2)
    assert cards_in_play(game) == [DAMNED_SOUL]


def test_damned_soul_passed_on_gives_the_receiver_nothing() -> None:
    # ru 50.2: only the summoner gains the crystals and the water.
    game = scenario(players=[{"hand": [DAMNED_SOUL], "reserve": {"water": 1}, "summoning_gauge": 1}, {}])
    act(game, "summon Damned Soul of Onys", activate_label("Damned Soul of Onys"))
    assert game.crystals == [DAMNED_SOUL_CRYSTALS, 0] and game.reserve == [(0, 0, 0, 0), (0, 0, 0, 0)]
    assert game.in_play[0] == () and cards_in_play(game, 1) == [DAMNED_SOUL]


def test_damned_soul_pass_to_the_left_for_one_water_even_over_the_gauge() -> None:
    # ru 50.3: the receiver (gauge 0, nothing in play) becomes its holder and may pass it on in their turn.
    game = scenario(
        3,
        players=[{"reserve": {"water": 2, "fire": 1}, "in_play": [DAMNED_SOUL]}, {}, {"reserve": {"water": 1}}],
    )
    act(game, activate_label("Damned Soul of Onys"))
    assert game.reserve[0] == (1, 0, 1, 0) and cards_in_play(game, 1) == [DAMNED_SOUL] and game.gauge[1] == 0
    assert activate_label("Damned Soul of Onys") not in labels(game)


def test_damned_soul_changes_hands_several_times_a_round_arriving_untapped() -> None:
    # ru 50.4: seat 0 passes it to seat 1, who passes it to seat 2 in the same round.
    game = scenario(
        3,
        players=[{"reserve": {"water": 1}, "in_play": [DAMNED_SOUL]}, {"reserve": {"water": 1}}, {"crystals": 5}],
    )
    act(game, activate_label("Damned Soul of Onys"))
    assert game.to_dict()["players"][1]["in_play"][0]["tapped"] is False
    act(game, "end turn")
    assert game.current_player == 1 and activate_label("Damned Soul of Onys") in labels(game)
    act(game, activate_label("Damned Soul of Onys"))
    assert game.in_play[1] == () and cards_in_play(game, 2) == [DAMNED_SOUL] and game.reserve[1] == (0, 0, 0, 0)
    end_turns(game)
    assert game.crystals == [0, 0, 5 - DAMNED_SOUL_LOSS]  # only the last holder loses crystals at the round's end


def test_damned_soul_holder_loses_crystals_at_the_end_of_the_round() -> None:
    # ru 50.5
    game = scenario(players=[{"crystals": 7, "in_play": [DAMNED_SOUL]}, {"crystals": 7}])
    end_turns(game)
    assert game.crystals == [7 - DAMNED_SOUL_LOSS, 7]
    game = scenario(players=[{"crystals": DAMNED_SOUL_LOSS - 1, "in_play": [DAMNED_SOUL]}])
    end_turns(game)
    assert game.crystals[0] == 0


def test_damned_soul_minus_five_prestige_counts_for_its_holder_at_the_end() -> None:
    game = scenario(
        players=[{"crystals": 10, "reserve": {"water": 1}, "in_play": [DAMNED_SOUL]}, {"crystals": 10}],
        **LAST_ROUND,
    )
    act(game, activate_label("Damned Soul of Onys"))
    end_turns(game)
    assert game.is_over and game.final_scores == (10, 10 - DAMNED_SOUL_LOSS - 5)


def test_end_of_round_titus_collects_before_an_opponents_damned_soul() -> None:
    # RULES.md 4.5.1: player by player from the first player; seat 0's Titus takes seat 1's crystal first.
    crystals = TITUS_CRYSTALS + DAMNED_SOUL_LOSS - 1  # the Soul first would leave Titus short
    game = scenario(players=[{"in_play": [TITUS]}, {"crystals": crystals, "in_play": [DAMNED_SOUL]}])
    end_turns(game)
    assert game.crystals == [TITUS_CRYSTALS, 0] and cards_in_play(game) == [TITUS]


def test_end_of_round_titus_collects_before_its_owners_damned_soul() -> None:
    # RULES.md 4.5.1: for one player, Titus Deepgaze before Damned Soul of Onys.
    game = scenario(players=[{"crystals": 2, "in_play": [TITUS, DAMNED_SOUL]}, {"crystals": 1}])
    end_turns(game)
    assert game.crystals == [0, 0] and cards_in_play(game) == [TITUS, DAMNED_SOUL]


# ============================================================================ cards leaving play


def test_amsug_returning_amulet_of_water_loses_its_tokens() -> None:
    game = scenario(
        players=[
            {"hand": [AMSUG], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1},
            {"in_play": [{"card": AMULET_OF_WATER, "tokens": {"fire": 3}}]},
        ],
    )
    act(game, "summon Amsug Longneck")
    assert game.hand[1] == (AMULET_OF_WATER,) and game.in_play[1] == ()
    assert instance(AMULET_OF_WATER) not in game.stored and game.reserve[1] == (0, 0, 0, 0)


def test_syllas_sacrificing_amulet_of_water_sends_its_tokens_to_the_supply() -> None:
    game = scenario(
        players=[
            {"hand": [SYLLAS], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"reserve": {"earth": 1}, "in_play": [{"card": AMULET_OF_WATER, "tokens": {"water": 4}}]},
        ],
    )
    act(game, "summon Syllas the Faithful")
    assert game.in_play[1] == () and game.reserve[1] == (0, 1, 0, 0) and game.discard_pile == [AMULET_OF_WATER]
    assert instance(AMULET_OF_WATER) not in game.stored


def test_grimoire_leaving_play_lowers_the_limit_and_triggers_overflow() -> None:
    game = scenario(
        players=[
            {"hand": [SYLLAS], "reserve": {"fire": 3}, "summoning_gauge": 1},
            {"reserve": {"water": 5, "earth": 4}, "in_play": [GRIMOIRE]},
        ],
    )
    act(game, "summon Syllas the Faithful")
    assert game.pending_decision == "overflow" and game.current_player == 1
    act(game, "choose energy: earth")  # in non-decreasing type order the second discard is earth: forced
    assert game.reserve[1] == (5, 2, 0, 0) and game.current_player == 0 and game.pending_decision == "turn"


def test_grimoire_returned_to_hand_by_amsug_triggers_overflow() -> None:
    game = scenario(
        players=[
            {"hand": [AMSUG], "reserve": {"water": 1, "air": 1}, "summoning_gauge": 1},
            {"reserve": {"fire": 8}, "in_play": [GRIMOIRE]},
        ],
    )
    act(game, "summon Amsug Longneck")  # seat 0 has no item; seat 1's Grimoire is forced; 8 fire: forced discard
    assert game.hand[1] == (GRIMOIRE,) and game.reserve[1] == (0, 0, 7, 0) and game.pending_decision == "turn"


def test_syllas_forcing_a_cursed_treatise_sacrifice_discards_that_players_reserve() -> None:
    game = scenario(
        3,
        players=[
            {"hand": [SYLLAS], "reserve": {"fire": 3, "water": 2}, "summoning_gauge": 1},
            {"reserve": {"water": 3, "air": 2}, "in_play": [CURSED_TREATISE, RUNIC_CUBE]},
            {"reserve": {"earth": 2}, "in_play": [RUNIC_CUBE]},
        ],
    )
    act(game, "summon Syllas the Faithful", "choose in play: Cursed Treatise of Arus (copy 1)")
    assert game.reserve == [(2, 0, 0, 0), (0, 0, 0, 0), (0, 2, 0, 0)]
    assert cards_in_play(game, 1) == [RUNIC_CUBE] and cards_in_play(game, 2) == []
