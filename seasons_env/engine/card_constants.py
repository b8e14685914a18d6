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
AMULET_OF_FIRE_DRAWN = 4  # on summon: draw 4 cards, keep 1
AMULET_OF_EARTH_CRYSTALS = 9  # on summon: gain 9 crystals
AMULET_OF_WATER_TOKENS = 4  # on summon: 4 tokens of choice stored on the amulet
BALANCE_OF_ISHTAR_TOKENS = 3  # activation: discard 3 identical tokens ...
BALANCE_OF_ISHTAR_CRYSTALS = 9  # ... to gain 9 crystals (plus the transmute bonus per token discarded)
STAFF_OF_SPRING_CRYSTALS = 3  # after each other card summoned from hand: gain 3 crystals
DIVINE_CHALICE_DRAWN = 4  # on summon: draw 4 cards, put 1 into play for free
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
