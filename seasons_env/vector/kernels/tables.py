"""The engine's facts as constants the kernels compile in: card costs, prestige, dice faces, action ids, step
kinds and where each step argument sits in a step row. Everything here is derived from ``seasons_env.engine`` at
import time (never retyped), so the kernels and the reference engine read the same numbers."""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import (
    BONUS_PENALTIES,
    CARD_OF,
    CARDS,
    DICE,
    DICE_PER_SEASON,
    FACES_PER_DIE,
    GAUGE_MAX,
    HAND_PENALTY,
    IS_ITEM,
    NUM_CARDS,
    NUM_INSTANCES,
    NUM_YEARS,
    PRESTIGE,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    TRANSMUTE_RATE,
)
from seasons_env.engine.state import AMULET_INSTANCES

from ..state.arrays import STORING_INSTANCES
from ..state.step_codes import ARG_COLUMNS, NO_VALUE, STEP_WIDTH

# ---------------------------------------------------------------------------- card and dice facts

#: ``COSTS[num_players, card]``: (water, earth, fire, air, crystals) to summon; rows 0 and 1 unused.
COSTS = np.zeros((5, NUM_CARDS + 1, 5), dtype=np.int64)
for _n in (2, 3, 4):
    for _c in range(1, NUM_CARDS + 1):
        COSTS[_n, _c] = CARDS[_c].cost[_n]
PRESTIGE_OF = np.array(PRESTIGE, dtype=np.int64)  # by card id
IS_ITEM_CARD = np.array(IS_ITEM, dtype=np.bool_)  # by card id
CARD_OF_INSTANCE = np.array(CARD_OF, dtype=np.intp)  # by instance
BONUS_PENALTY = np.array(BONUS_PENALTIES, dtype=np.int64)  # by bonuses used
TRANSMUTE_RATES = np.array(TRANSMUTE_RATE, dtype=np.int64)  # [season, energy]: crystals per token

#: ``[season, die, face, ...]``: each face's tokens (4 types), crystals, and flags.
DIE_ENERGY = np.array([[[f.energy for f in die] for die in season] for season in DICE], dtype=np.int64)
DIE_CRYSTALS = np.array([[[f.crystals for f in die] for die in season] for season in DICE], dtype=np.int64)
DIE_PIPS = np.array([[[f.pips for f in die] for die in season] for season in DICE], dtype=np.int64)
DIE_TRANSMUTE = np.array([[[f.transmute for f in die] for die in season] for season in DICE], dtype=np.bool_)
DIE_GAUGE = np.array([[[f.gauge for f in die] for die in season] for season in DICE], dtype=np.bool_)
DIE_DRAW = np.array([[[f.draw for f in die] for die in season] for season in DICE], dtype=np.bool_)

#: ``STORED_ROW[instance]``: its row in the array state's ``stored`` (-1: the card stores no tokens).
STORED_ROW = np.full(NUM_INSTANCES, -1, dtype=np.int64)
for _k, _inst in enumerate(STORING_INSTANCES):
    STORED_ROW[_inst] = _k
#: The two Amulet of Water instances: token sources 1 and 2 (source 0 is the reserve).
AMULET_OF_WATER_INSTANCES = np.array(AMULET_INSTANCES, dtype=np.int64)

# ---------------------------------------------------------------------------- actions (engine/actions.py)

#: ``ACTIVATE_ACTION[instance]``: its activation's action id (-1: the card has no activation).
ACTIVATE_ACTION = np.full(NUM_INSTANCES, -1, dtype=np.int64)
for _inst in range(NUM_INSTANCES):
    if A.has_activate_action(_inst):
        ACTIVATE_ACTION[_inst] = A.activate_action(_inst)
# Decoders indexed by action id (actions.py's pairs, tabled: tests/test_actions.py allows no range arithmetic).
#: ``INSTANCE_OF_ACTIVATION[action]``: the instance an activation action names (-1: not an activation).
INSTANCE_OF_ACTIVATION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _inst in A.ACTIVATABLE_INSTANCES:
    INSTANCE_OF_ACTIVATION[A.activate_action(_inst)] = _inst
#: ``SEASON_MOVE_OF_ACTION[action]``: the signed move of a Temporal Boots action (0: not a move).
SEASON_MOVE_OF_ACTION = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
for _move in A.SEASON_MOVES:
    SEASON_MOVE_OF_ACTION[A.move_season_action(_move)] = _move
#: ``CHOOSE_IN_PLAY_ACTION[instance]`` and its inverse ``INSTANCE_OF_CHOICE[action]`` (-1: not such a choice).
CHOOSE_IN_PLAY_ACTION = np.array([A.choose_in_play_action(i) for i in range(NUM_INSTANCES)], dtype=np.int64)
INSTANCE_OF_CHOICE = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _inst in range(NUM_INSTANCES):
    INSTANCE_OF_CHOICE[A.choose_in_play_action(_inst)] = _inst

# Action ids as lookup tables built by actions.py's encode/decode pairs (kernels cannot call them): encoders by
# parameter, decoders by action id (-1, or 0 for a card, where the action is of another range).
CHOOSE_CARD_ACTION = np.array([0, *(A.choose_card_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
SUMMON_ACTION = np.array([0, *(A.summon_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
TAKE_DIE_ACTION = np.array([A.take_die_action(d) for d in range(DICE_PER_SEASON)], dtype=np.int64)
TRANSMUTE_ACTION = np.array(A.TRANSMUTE_ACTIONS, dtype=np.int64)  # [source, energy]
CARD_OF_CHOICE = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
CARD_OF_SUMMON = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
for _c in range(1, NUM_CARDS + 1):
    CARD_OF_CHOICE[A.choose_card_action(_c)] = _c
    CARD_OF_SUMMON[A.summon_action(_c)] = _c
DIE_OF_ACTION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _d in range(DICE_PER_SEASON):
    DIE_OF_ACTION[A.take_die_action(_d)] = _d
TRANSMUTE_SOURCE = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
TRANSMUTE_ENERGY = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _source in range(A.NUM_SOURCES):
    for _t in range(4):
        TRANSMUTE_SOURCE[A.transmute_action(_source, _t)] = _source
        TRANSMUTE_ENERGY[A.transmute_action(_source, _t)] = _t

# ---------------------------------------------------------------------------- steps

#: ``IS_DECISION[kind]``: the kind waits for a player's choice (else it runs by itself).
IS_DECISION = np.array([steps.spec(k).is_decision for k in range(len(steps.KINDS))], dtype=np.bool_)
#: ``HAS_PRIVATE[kind]``: the decision is asked even with one option when its options may hang on hidden cards.
HAS_PRIVATE = np.array([steps.spec(k).private is not None for k in range(len(steps.KINDS))], dtype=np.bool_)
NUM_KINDS = len(steps.KINDS)


def column(kind_name: str, arg_name: str) -> int:
    """The first column of argument ``arg_name`` of step kind ``kind_name`` in a step row (``step_codes.py``)."""
    for col in ARG_COLUMNS[steps.kind(kind_name)]:
        if col.name == arg_name:
            return col.start
    raise KeyError(f"step {kind_name!r} has no argument {arg_name!r}; it has {steps.spec(steps.kind(kind_name)).args}")


def width(kind_name: str, arg_name: str) -> int:
    """How many columns argument ``arg_name`` of step kind ``kind_name`` takes (1 for an int)."""
    for col in ARG_COLUMNS[steps.kind(kind_name)]:
        if col.name == arg_name:
            return col.width
    raise KeyError(f"step {kind_name!r} has no argument {arg_name!r}")


__all__ = [
    "DICE_PER_SEASON",
    "FACES_PER_DIE",
    "GAUGE_MAX",
    "HAND_PENALTY",
    "NO_VALUE",
    "NUM_CARDS",
    "NUM_INSTANCES",
    "NUM_YEARS",
    "RESERVE_LIMIT",
    "RESERVE_LIMIT_GRIMOIRE",
    "STEP_WIDTH",
]
