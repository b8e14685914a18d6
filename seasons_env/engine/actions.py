"""The fixed, versioned action table.

Every decision of the game is answered by an int from one table. An action's meaning is context-free (its
label never depends on the position); which actions are legal, and what a generic one such as
``choose energy: fire`` applies to, is set by the pending decision. Bump ``ACTION_TABLE_VERSION`` whenever
an id changes meaning.
"""

from __future__ import annotations

from . import card_constants as K
from .data import ACTIVATION_CARDS, CARD_NAMES, ENERGIES, NUM_CARDS, NUM_INSTANCES, card_of, instance_of

ACTION_TABLE_VERSION = 1

#: Token sources: the reserve, or one of the two copies of Amulet of Water.
SOURCES: tuple[str, ...] = ("reserve", "Amulet of Water (copy 1)", "Amulet of Water (copy 2)")
NUM_SOURCES = len(SOURCES)
#: Temporal Boots moves, in table order.
SEASON_MOVES: tuple[int, ...] = (-3, -2, -1, 1, 2, 3)
MAX_NUMBER = 10

SINGLES = (
    "END_TURN",
    "USE_DIE",
    "DRAW_CARD",
    "BONUS_DRAW",
    "KEEP_CARD",
    "DISCARD_CARD",
    "BONUS_EXCHANGE",
    "BONUS_TRANSMUTE",
    "BONUS_GAUGE",
    "TREE_BUY_ENERGY",
    "TREE_TRANSMUTE",
    "ORB_LOOK",
    "ORB_MILL",
    "ORB_LEAVE",
    "ORB_PLAY",
    "CROWN_DRAW",
    "CROWN_DISCARD",
)
_SINGLE_LABELS = {
    "END_TURN": "end turn",
    "USE_DIE": "use the season die as rolled",
    "DRAW_CARD": "draw the die's card",
    "BONUS_DRAW": "bonus: draw 2 cards, keep 1",
    "KEEP_CARD": "keep the drawn card",
    "DISCARD_CARD": "discard the drawn card",
    "BONUS_EXCHANGE": "bonus: exchange 2 reserve tokens",
    "BONUS_TRANSMUTE": "bonus: transmute with +1 crystal per token",
    "BONUS_GAUGE": "bonus: summoning gauge +1",
    "TREE_BUY_ENERGY": f"Tree of Light: pay {K.TREE_OF_LIGHT_CRYSTALS} crystals for {K.TREE_OF_LIGHT_TOKENS} energy",
    "TREE_TRANSMUTE": f"Tree of Light: discard {K.TREE_OF_LIGHT_DISCARD} energy to transmute",
    "ORB_LOOK": "Crystal Orb: look at the top card",
    "ORB_MILL": f"Crystal Orb: pay {K.CRYSTAL_ORB_CRYSTALS} crystals to discard the top card",
    "ORB_LEAVE": "Crystal Orb: leave the top card",
    "ORB_PLAY": f"Crystal Orb: discard {K.CRYSTAL_ORB_TOKENS} energy to put the top card into play",
    "CROWN_DRAW": "Vampiric Crown: draw a card",
    "CROWN_DISCARD": "Vampiric Crown: discard a card from hand",
}

# Ranges, in table order: (name, size).
_RANGES = (
    ("TAKE_DIE", 5),
    ("SUMMON", NUM_CARDS),
    ("ACTIVATE", 2 * len(ACTIVATION_CARDS)),
    ("TRANSMUTE", NUM_SOURCES * 4),
    ("PAY", NUM_SOURCES * 4),
    ("CHOOSE_ENERGY", 4),
    ("CHOOSE_CARD", NUM_CARDS),
    ("CHOOSE_IN_PLAY", NUM_INSTANCES),
    ("CHOOSE_OPPONENT", 3),
    ("MOVE_SEASON", len(SEASON_MOVES)),
    ("CHOOSE_NUMBER", MAX_NUMBER),
    ("ELEMENTAL_SET", 15),
)

END_TURN = 0
USE_DIE = 1
DRAW_CARD = 2
BONUS_DRAW = 3
KEEP_CARD = 4
DISCARD_CARD = 5
BONUS_EXCHANGE = 6
BONUS_TRANSMUTE = 7
BONUS_GAUGE = 8
TREE_BUY_ENERGY = 9
TREE_TRANSMUTE = 10
ORB_LOOK = 11
ORB_MILL = 12
ORB_LEAVE = 13
ORB_PLAY = 14
CROWN_DRAW = 15
CROWN_DISCARD = 16
assert len(SINGLES) == CROWN_DISCARD + 1

_offset = len(SINGLES)
_RANGE_START: dict[str, int] = {}
for _name, _size in _RANGES:
    _RANGE_START[_name] = _offset
    _offset += _size
NUM_ACTIONS: int = _offset

TAKE_DIE0 = _RANGE_START["TAKE_DIE"]
SUMMON0 = _RANGE_START["SUMMON"]
ACTIVATE0 = _RANGE_START["ACTIVATE"]
TRANSMUTE0 = _RANGE_START["TRANSMUTE"]
PAY0 = _RANGE_START["PAY"]
CHOOSE_ENERGY0 = _RANGE_START["CHOOSE_ENERGY"]
CHOOSE_CARD0 = _RANGE_START["CHOOSE_CARD"]
CHOOSE_IN_PLAY0 = _RANGE_START["CHOOSE_IN_PLAY"]
CHOOSE_OPPONENT0 = _RANGE_START["CHOOSE_OPPONENT"]
MOVE_SEASON0 = _RANGE_START["MOVE_SEASON"]
CHOOSE_NUMBER0 = _RANGE_START["CHOOSE_NUMBER"]
ELEMENTAL_SET0 = _RANGE_START["ELEMENTAL_SET"]

#: ACTIVATE action index <-> physical instance, for the cards that have an activation.
ACTIVATABLE_INSTANCES: tuple[int, ...] = tuple(instance_of(c, copy) for c in ACTIVATION_CARDS for copy in (0, 1))
_ACTIVATE_OF_INSTANCE: dict[int, int] = {inst: ACTIVATE0 + k for k, inst in enumerate(ACTIVATABLE_INSTANCES)}

# One encode/decode pair per range. ``<range>_action(...)`` gives an action id; its inverse reads the parameter
# back from an id of that range (it does not check the range: the engine decodes only legal actions).


def take_die_action(die: int) -> int:
    return TAKE_DIE0 + die


def die_of_action(action: int) -> int:
    return action - TAKE_DIE0


def summon_action(card: int) -> int:
    return SUMMON0 + card - 1


def card_of_summon(action: int) -> int:
    return action - SUMMON0 + 1


def is_summon(action: int) -> bool:
    return SUMMON0 <= action < SUMMON0 + NUM_CARDS


def activate_action(instance: int) -> int:
    """The action activating ``instance``, or ``KeyError`` for a card without an activation."""
    return _ACTIVATE_OF_INSTANCE[instance]


def has_activate_action(instance: int) -> bool:
    return instance in _ACTIVATE_OF_INSTANCE


def instance_of_activation(action: int) -> int:
    return ACTIVATABLE_INSTANCES[action - ACTIVATE0]


def is_activation(action: int) -> bool:
    return ACTIVATE0 <= action < TRANSMUTE0


def transmute_action(source: int, energy: int) -> int:
    return TRANSMUTE0 + 4 * source + energy


def transmute_of_action(action: int) -> tuple[int, int]:
    """``(source, energy)`` of a transmute action."""
    return divmod(action - TRANSMUTE0, 4)


def is_transmute(action: int) -> bool:
    return TRANSMUTE0 <= action < PAY0


def pay_action(source: int, energy: int) -> int:
    return PAY0 + 4 * source + energy


def payment_of_action(action: int) -> tuple[int, int]:
    """``(source, energy)`` of a pay action."""
    return divmod(action - PAY0, 4)


def choose_energy_action(energy: int) -> int:
    return CHOOSE_ENERGY0 + energy


def energy_of_choice(action: int) -> int:
    return action - CHOOSE_ENERGY0


def choose_card_action(card: int) -> int:
    return CHOOSE_CARD0 + card - 1


def card_of_choice(action: int) -> int:
    return action - CHOOSE_CARD0 + 1


def choose_in_play_action(instance: int) -> int:
    return CHOOSE_IN_PLAY0 + instance


def instance_of_choice(action: int) -> int:
    return action - CHOOSE_IN_PLAY0


def is_in_play_choice(action: int) -> bool:
    return CHOOSE_IN_PLAY0 <= action < CHOOSE_OPPONENT0


def choose_opponent_action(offset: int) -> int:
    """``offset`` seats to the left of the decider (1..3)."""
    return CHOOSE_OPPONENT0 + offset - 1


def opponent_offset_of_choice(action: int) -> int:
    return action - CHOOSE_OPPONENT0 + 1


def move_season_action(steps: int) -> int:
    return MOVE_SEASON0 + SEASON_MOVES.index(steps)


def season_move_of_action(action: int) -> int:
    """The signed number of seasons a Temporal Boots action moves the marker."""
    return SEASON_MOVES[action - MOVE_SEASON0]


def choose_number_action(number: int) -> int:
    return CHOOSE_NUMBER0 + number - 1


def number_of_choice(action: int) -> int:
    return action - CHOOSE_NUMBER0 + 1


def elemental_set_action(mask: int) -> int:
    """``mask``: bit i set for energy i (water 1, earth 2, fire 4, air 8)."""
    return ELEMENTAL_SET0 + mask - 1


def mask_of_elemental_set(action: int) -> int:
    return action - ELEMENTAL_SET0 + 1


#: Option lists the engine builds often, precomputed (a tuple index is cheaper than a call in hot paths).
CHOOSE_ENERGY_ACTIONS: tuple[int, ...] = tuple(choose_energy_action(t) for t in range(4))
PAY_ACTIONS: tuple[tuple[int, ...], ...] = tuple(tuple(pay_action(s, t) for t in range(4)) for s in range(NUM_SOURCES))
TRANSMUTE_ACTIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(transmute_action(s, t) for t in range(4)) for s in range(NUM_SOURCES)
)


def _instance_label(instance: int) -> str:
    return f"{CARD_NAMES[card_of(instance)]} (copy {instance % 2 + 1})"


def decode(action: int) -> tuple[str, int]:
    """``(group name, parameter)`` of an action id; the parameter is -1 for single actions."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside the action table (0..{NUM_ACTIONS - 1})")
    if action < len(SINGLES):
        return SINGLES[action], -1
    for name, _size in reversed(_RANGES):
        start = _RANGE_START[name]
        if action >= start:
            return name, action - start
    raise AssertionError("unreachable")


def describe_action(action: int) -> str:
    """Stable human-readable label of an action id."""
    name, k = decode(int(action))
    if k < 0:
        return _SINGLE_LABELS[name]
    if name == "TAKE_DIE":
        return f"take season die {k + 1}"
    if name == "SUMMON":
        return f"summon {CARD_NAMES[k + 1]}"
    if name == "ACTIVATE":
        return f"activate {_instance_label(ACTIVATABLE_INSTANCES[k])}"
    if name == "TRANSMUTE":
        return f"transmute {ENERGIES[k % 4]} from {SOURCES[k // 4]}"
    if name == "PAY":
        return f"pay {ENERGIES[k % 4]} from {SOURCES[k // 4]}"
    if name == "CHOOSE_ENERGY":
        return f"choose energy: {ENERGIES[k]}"
    if name == "CHOOSE_CARD":
        return f"choose card: {CARD_NAMES[k + 1]}"
    if name == "CHOOSE_IN_PLAY":
        return f"choose in play: {_instance_label(k)}"
    if name == "CHOOSE_OPPONENT":
        return f"choose opponent: {k + 1} seat(s) to the left"
    if name == "MOVE_SEASON":
        steps = SEASON_MOVES[k]
        return f"move the season marker {'forward' if steps > 0 else 'backward'} {abs(steps)}"
    if name == "CHOOSE_NUMBER":
        return f"choose number: {k + 1}"
    if name == "ELEMENTAL_SET":
        mask = k + 1
        return "Elemental Amulet: pay " + " + ".join(e for i, e in enumerate(ENERGIES) if mask >> i & 1)
    raise AssertionError(name)


ACTION_LABELS: tuple[str, ...] = tuple(describe_action(a) for a in range(NUM_ACTIONS))
