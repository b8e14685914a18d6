"""Card and dice facts, loaded once from the package's copy of ``seasons_data.json``.

Everything here is immutable and indexed for the hot path: energies are ints 0..3 in the data file's order
(water, earth, fire, air), seasons ints 0..3 (winter, spring, summer, autumn), cards are ids 1..50 and a
physical card in play is an *instance* ``2 * (card - 1) + copy`` (0..99).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources

DATA_FILE = "seasons_data.json"


def load_raw_data() -> dict:
    """The packaged data file, parsed."""
    text = resources.files("seasons_env").joinpath("data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


RAW = load_raw_data()

ENERGIES: tuple[str, ...] = tuple(RAW["energies"])
SEASONS: tuple[str, ...] = tuple(RAW["seasons"])
WATER, EARTH, FIRE, AIR = range(4)
SEASON_INDEX = {name: i for i, name in enumerate(SEASONS)}

RESERVE_LIMIT: int = RAW["reserve_max"]
RESERVE_LIMIT_GRIMOIRE: int = RAW["reserve_max_with_bespelled_grimoire"]
GAUGE_MAX: int = RAW["gauge_max"]
MAX_BONUSES: int = RAW["max_bonuses"]
BONUS_PENALTIES: tuple[int, ...] = (0, *RAW["bonus_penalties"])
HAND_PENALTY: int = RAW["hand_penalty_per_card"]
#: The three difficulty levels, easiest first, and the cards each is played with (two copies of each card).
LEVELS: tuple[str, ...] = ("apprentice", "magician", "archmage")
HAND_SIZE = 9  # cards dealt to each player for the draft (or preset at the Apprentice level)
LIBRARY_SET_SIZE = 3  # cards in each of the library sets of years 2 and 3
NUM_YEARS = 3
APPRENTICE_DECKS: tuple[tuple[int, ...], ...] = tuple(tuple(deck) for deck in RAW["apprentice_decks"])

NUM_CARDS = len(RAW["cards"])
NUM_INSTANCES = 2 * NUM_CARDS
BASIC_CARDS: tuple[int, ...] = tuple(c["id"] for c in RAW["cards"] if c["level"] == "basic")
ALL_CARDS: tuple[int, ...] = tuple(c["id"] for c in RAW["cards"])
ARCHMAGE_CARDS: tuple[int, ...] = tuple(c["id"] for c in RAW["cards"] if c["level"] != "basic")
LEVEL_CARDS: dict[str, tuple[int, ...]] = {"apprentice": BASIC_CARDS, "magician": BASIC_CARDS, "archmage": ALL_CARDS}


class Card(IntEnum):
    """Card ids by name (``Card.HAND_OF_FORTUNE == 20``); ``test_data`` checks them against the data file."""

    AMULET_OF_AIR = 1
    AMULET_OF_FIRE = 2
    AMULET_OF_EARTH = 3
    AMULET_OF_WATER = 4
    BALANCE_OF_ISHTAR = 5
    STAFF_OF_SPRING = 6
    TEMPORAL_BOOTS = 7
    PURSE_OF_IO = 8
    DIVINE_CHALICE = 9
    SYLLAS_THE_FAITHFUL = 10
    FIGRIM_THE_AVARICIOUS = 11
    NARIA_THE_PROPHETESS = 12
    WONDROUS_CHEST = 13
    BEGGARS_HORN = 14
    DIE_OF_MALICE = 15
    KAIRN_THE_DESTROYER = 16
    AMSUG_LONGNECK = 17
    BESPELLED_GRIMOIRE = 18
    RAGFIELDS_HELM = 19
    HAND_OF_FORTUNE = 20
    LEWIS_GREYFACE = 21
    RUNIC_CUBE_OF_EOLIS = 22
    POTION_OF_POWER = 23
    POTION_OF_DREAMS = 24
    POTION_OF_KNOWLEDGE = 25
    POTION_OF_LIFE = 26
    HOURGLASS_OF_TIME = 27
    SCEPTER_OF_GREATNESS = 28
    OLAFS_BLESSED_STATUE = 29
    YJANGS_FORGOTTEN_VASE = 30
    ELEMENTAL_AMULET = 31
    TREE_OF_LIGHT = 32
    ARCANO_LEECH = 33
    CRYSTAL_ORB = 34
    GLUTTON_CAULDRON = 35
    VAMPIRIC_CROWN = 36
    DRAGON_SKULL = 37
    DEMON_OF_ARGOS = 38
    TITUS_DEEPGAZE = 39
    AIR_ELEMENTAL = 40
    THIEVING_FAIRIES = 41
    CURSED_TREATISE_OF_ARUS = 42
    IDOL_OF_THE_FAMILIAR = 43
    NECROTIC_KRISS = 44
    LANTERN_OF_XIDIT = 45
    SEALED_CHEST_OF_URM = 46
    MIRROR_OF_THE_SEASONS = 47
    PENDANT_OF_RAGNOR = 48
    SID_NIGHTSHADE = 49
    DAMNED_SOUL_OF_ONYS = 50


#: TRANSMUTE_RATE[season][energy] -> crystals per token.
TRANSMUTE_RATE: tuple[tuple[int, ...], ...] = tuple(
    tuple(RAW["transmutation"][season][energy] for energy in ENERGIES) for season in SEASONS
)


@dataclass(frozen=True, slots=True)
class CardFacts:
    """Printed facts of one card. ``cost[n]`` is ``(water, earth, fire, air, crystals)`` for n players."""

    id: int
    name: str
    level: str
    is_item: bool
    prestige: int
    timing: tuple[str, ...]
    cost: dict[int, tuple[int, int, int, int, int]]
    effect: str

    @property
    def has_activation(self) -> bool:
        return "activation" in self.timing


def _cost_tuple(cost: dict) -> tuple[int, int, int, int, int]:
    return (*(cost.get(e, 0) for e in ENERGIES), cost.get("crystals", 0))


CARDS: dict[int, CardFacts] = {
    c["id"]: CardFacts(
        id=c["id"],
        name=c["name"],
        level=c["level"],
        is_item=c["type"] == "item",
        prestige=c["prestige"],
        timing=tuple(c["timing"]),
        cost={int(n): _cost_tuple(v) for n, v in c["cost"].items()},
        effect=c["effect"],
    )
    for c in RAW["cards"]
}
CARD_NAMES: dict[int, str] = {cid: facts.name for cid, facts in CARDS.items()}
CARD_BY_NAME: dict[str, int] = {facts.name: cid for cid, facts in CARDS.items()}
#: Indexed by card id (index 0 unused) for the hot path.
PRESTIGE: tuple[int, ...] = (0, *(CARDS[c].prestige for c in ALL_CARDS))
IS_ITEM: tuple[bool, ...] = (False, *(CARDS[c].is_item for c in ALL_CARDS))
ACTIVATION_CARDS: tuple[int, ...] = tuple(c for c in ALL_CARDS if CARDS[c].has_activation)


def card_of(instance: int) -> int:
    """Card id of a physical card instance."""
    return instance // 2 + 1


def instance_of(card: int, copy: int) -> int:
    """Physical instance id of copy 0 or 1 of a card."""
    return 2 * (card - 1) + copy


CARD_OF: tuple[int, ...] = tuple(card_of(i) for i in range(NUM_INSTANCES))


@dataclass(frozen=True, slots=True)
class DieFace:
    pips: int
    energy: tuple[int, int, int, int]
    crystals: int
    transmute: bool
    gauge: bool
    draw: bool


#: DICE[season][die][face]
DICE: tuple[tuple[tuple[DieFace, ...], ...], ...] = tuple(
    tuple(
        tuple(
            DieFace(
                pips=face["pips"],
                energy=tuple(face["energy"].get(e, 0) for e in ENERGIES),
                crystals=face["crystals"],
                transmute=face["transmute"],
                gauge=face["gauge"],
                draw=face["draw"],
            )
            for face in die
        )
        for die in RAW["dice"][season]
    )
    for season in SEASONS
)
DICE_PER_SEASON = len(DICE[0])
FACES_PER_DIE = len(DICE[0][0])


def season_of(position: int) -> int:
    """Season (0..3) of a space 1..12 of the season wheel."""
    return (position - 1) // 3
