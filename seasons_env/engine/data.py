"""Card and dice facts, loaded once from the package's copy of ``seasons_data.json``.

Everything here is immutable and indexed for the hot path: energies are ints 0..3 in the data file's order
(water, earth, fire, air), seasons ints 0..3 (winter, spring, summer, autumn), cards are ids 1..50 and a
physical card in play is an *instance* ``2 * (card - 1) + copy`` (0..99).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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
ENERGY_INDEX = {name: i for i, name in enumerate(ENERGIES)}
SEASON_INDEX = {name: i for i, name in enumerate(SEASONS)}

RESERVE_LIMIT: int = RAW["reserve_max"]
RESERVE_LIMIT_GRIMOIRE: int = RAW["reserve_max_with_bespelled_grimoire"]
GAUGE_MAX: int = RAW["gauge_max"]
MAX_BONUSES: int = RAW["max_bonuses"]
BONUS_PENALTIES: tuple[int, ...] = (0, *RAW["bonus_penalties"])
HAND_PENALTY: int = RAW["hand_penalty_per_card"]
APPRENTICE_DECKS: tuple[tuple[int, ...], ...] = tuple(tuple(deck) for deck in RAW["apprentice_decks"])

NUM_CARDS = len(RAW["cards"])
NUM_INSTANCES = 2 * NUM_CARDS
BASIC_CARDS: tuple[int, ...] = tuple(c["id"] for c in RAW["cards"] if c["level"] == "basic")
ALL_CARDS: tuple[int, ...] = tuple(c["id"] for c in RAW["cards"])

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
    def is_familiar(self) -> bool:
        return not self.is_item

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
