"""The cards' rule amounts: how many crystals, tokens, gauge spaces or cards each card's effect moves, and the
thresholds its conditions test. The one place these numbers are written: the reference engine
(``cards_basic.py``, ``cards_archmage.py``, ``payment.py``), the compiled kernels
(``vector/kernels/*_kernels.py``, which freeze them at compile time; this file is part of their cache key) and the
heuristic player (``agents/heuristic_cards.py`` and its compiled twin) all import them from here. The card data
(``data/seasons_data.json``) holds the printed facts (costs, kinds, prestige, timing, text); this module holds
the numbers in the effect text that the rules code acts on. Changing a card's amount here changes it everywhere.

Names are ``<CARD>_<WHAT>``; amounts are per copy unless the name says otherwise.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------- basic cards (1-30)

AMULET_OF_AIR_GAUGE = 2  # on summon: the summoning gauge grows by 2
AMULET_OF_FIRE_DRAWN = 4  # on summon: draw 4 cards, keep 1 (a layout bound: LAYOUT_BOUNDS)
AMULET_OF_EARTH_CRYSTALS = 9  # on summon: gain 9 crystals
AMULET_OF_WATER_TOKENS = 4  # on summon: 4 tokens of choice stored on the amulet
BALANCE_OF_ISHTAR_TOKENS = 3  # activation: discard 3 identical tokens ...
BALANCE_OF_ISHTAR_CRYSTALS = 9  # ... to gain 9 crystals (plus the transmute bonus per token discarded)
STAFF_OF_SPRING_CRYSTALS = 3  # after each other card summoned from hand: gain 3 crystals
DIVINE_CHALICE_DRAWN = 4  # on summon: draw 4 cards, put 1 into play for free (a layout bound: LAYOUT_BOUNDS)
FIGRIM_CRYSTALS = 1  # each season change: each opponent gives 1 crystal
WONDROUS_CHEST_MIN_TOKENS = 4  # end of round with at least 4 tokens in reserve ...
WONDROUS_CHEST_CRYSTALS = 3  # ... gain 3 crystals
BEGGARS_HORN_MAX_TOKENS = 1  # end of round with at most 1 token in reserve: gain 1 token of choice
DIE_OF_MALICE_CRYSTALS = 2  # activation: gain 2 crystals and reroll
KAIRN_TOKENS = 1  # activation: discard 1 token ...
KAIRN_CRYSTALS = 4  # ... every opponent loses 4 crystals
BESPELLED_GRIMOIRE_TOKENS = 2  # on summon: 2 tokens of choice (its reserve limit is in the card data)
RAGFIELDS_HELM_PRESTIGE = 20  # end of game, more cards in play than every opponent: 20 prestige
POTION_OF_POWER_GAUGE = 2  # activation: draw a card, the gauge grows by 2
POTION_OF_KNOWLEDGE_TOKENS = 5  # activation: 5 tokens of choice
POTION_OF_LIFE_CRYSTALS = 4  # activation: each token in reserve transmuted for 4 crystals (plus Purses of Io)
SCEPTER_CRYSTALS = 3  # on summon: 3 crystals per other magic item in play
OLAFS_STATUE_CRYSTALS = 20  # on summon: gain 20 crystals

# ---------------------------------------------------------------------------- Archmage cards (31-50)

ELEMENTAL_AMULET_CRYSTALS = 5  # on summon, earth paid: gain 5 crystals
ELEMENTAL_AMULET_GAUGE = 1  # air paid: the gauge grows by 1
ELEMENTAL_AMULET_TOKENS = 2  # water paid: 2 tokens of choice (fire paid: draw a card)
TREE_OF_LIGHT_CRYSTALS = 3  # activation: pay 3 crystals for 1 token of choice ...
TREE_OF_LIGHT_TOKENS = 1
TREE_OF_LIGHT_DISCARD = 1  # ... or discard 1 token to transmute this turn
CRYSTAL_ORB_CRYSTALS = 3  # activation: pay 3 crystals to discard the top card ...
CRYSTAL_ORB_TOKENS = 4  # ... or look at it and play it for 4 tokens of any types
GLUTTON_CAULDRON_TOKENS = 7  # once 7 tokens are stored on it: sacrificed ...
GLUTTON_CAULDRON_CRYSTALS = 15  # ... the tokens to the reserve and 15 crystals
DRAGON_SKULL_CARDS = 3  # activation: sacrifice 3 cards in play ...
DRAGON_SKULL_CRYSTALS = 15  # ... for 15 crystals
NECROTIC_KRISS_TOKENS = 4  # activation: discard or sacrifice a familiar for 4 tokens of choice
SID_NIGHTSHADE_CRYSTALS = 5  # on summon, with the most crystals: each opponent gives 5 crystals
DEMON_OF_ARGOS_GAUGE = 1  # on summon: each opponent's gauge shrinks by 1
TITUS_CRYSTALS = 1  # each round: each opponent gives 1 crystal (or sacrifices a card)
CURSED_TREATISE_GAUGE = 1  # on summon: the gauge grows by 1,
CURSED_TREATISE_CRYSTALS = 10  # 10 crystals
CURSED_TREATISE_TOKENS = 2  # and 2 tokens of choice
IDOL_CRYSTALS = 10  # on summon: gain 10 crystals (activation: 1 per familiar in play)
DAMNED_SOUL_CRYSTALS = 10  # on summon: gain 10 crystals and a water token
DAMNED_SOUL_LOSS = 3  # end of each round: lose 3 crystals
LANTERN_PRESTIGE = 3  # end of game: 3 prestige per token in reserve
SEALED_CHEST_PRESTIGE = 20  # end of game, no familiar in play: 20 prestige

# ---------------------------------------------------------------------------- amounts that bound a layout

#: Amounts that are also layout sizes: the drawn cards wait in one pending step whose columns in the step rows
#: (``vector/step_codes.py``) and whose bound in the position format are ``serialization.DRAWN_CARDS`` (4). A
#: smaller draw fits; a larger one is a change of both layouts (the engine refuses it at import).
LAYOUT_BOUNDS = ("AMULET_OF_FIRE_DRAWN", "DIVINE_CHALICE_DRAWN")
