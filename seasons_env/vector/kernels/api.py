"""The compiled kernels' public API: what code outside the library (the compiled agents in ``seasons_agents``, the
expert data of ``seasons_training``) uses to play positions held as kernel rows, write observations and cache kernels
of its own. Import these names from here, never from a kernel submodule (``tests/test_structure.py`` checks it), so
that the kernel modules can be split, merged or renamed without touching their users. ``docs/vector.md``, "The
kernels' public API", shows how they fit together.

- Decorating and caching kernels of one's own: ``kernel_in(folder)`` (the ``kernel`` decorator for kernels cached in
  ``folder``), ``cache_folder`` (a folder in the cache named by a hash of the import closure of one's kernel modules:
  every file they import, in their package and in ``LIBRARY``, the ``seasons_env`` folder), ``CACHE_TOP`` (the
  folder every kernel cache folder is made in) and ``import_closure``.
- Rows and the run loop: ``kernel_arrays`` (an ``ArrayState``'s arrays as the struct every kernel takes), ``RulesBatch``
  (the rules kernels driven from Python over a batch of rows), ``apply_row`` (one action on one row, run to the next
  decision), ``run`` (a row's pending steps, run to the next decision or the end) and its outcomes ``STOPPED`` (a
  decision, its legal actions written) and ``OVER`` (the game ended), ``copy_row`` (one row into another),
  ``observe_row`` (a seat's observation and mask of a row), ``determinize_row`` and ``hidden_pool_size`` (a seat's
  hidden information dealt again).
- Reading a row (``state_ops``): ``can_transmute``, ``count_in_play``, ``hand_add``, ``hand_size``, ``has_room``,
  ``leech_toll``, ``reserve_limit``, ``reserve_total``, ``spendable``, ``transmute_bonus``.
- The engine's facts as arrays (``tables``): ``column`` (where a step kind's argument sits in a step row),
  ``STEP_WIDTH`` (the width of a pending step's row), ``NUM_CARDS``, ``CARD_OF_INSTANCE``, ``CARD_OF_CHOICE``,
  ``CARD_OF_SUMMON``, ``INSTANCE_OF_ACTIVATION``, ``SUMMON_ACTION``, ``COSTS``, ``PRESTIGE_OF``, ``IS_ITEM_CARD``,
  ``STORED_ROW``, ``TRANSMUTE_RATES``, ``BONUS_PENALTY`` and the dice faces ``DIE_OF_ACTION``, ``DIE_PIPS``,
  ``DIE_CRYSTALS``, ``DIE_DRAW``, ``DIE_ENERGY``, ``DIE_GAUGE``, ``DIE_TRANSMUTE``.
"""

from __future__ import annotations

from . import CACHE_TOP, LIBRARY, cache_folder, kernel_in
from .batch import RulesBatch
from .cache_keys import import_closure
from .hidden_kernels import determinize_row, hidden_pool_size
from .machine import OVER, STOPPED, apply_row, run
from .observe_rows import observe_row
from .row_copy import copy_row
from .state_ops import (
    can_transmute,
    count_in_play,
    hand_add,
    hand_size,
    has_room,
    leech_toll,
    reserve_limit,
    reserve_total,
    spendable,
    transmute_bonus,
)
from .structs import kernel_arrays
from .tables import (
    BONUS_PENALTY,
    CARD_OF_CHOICE,
    CARD_OF_INSTANCE,
    CARD_OF_SUMMON,
    COSTS,
    DIE_CRYSTALS,
    DIE_DRAW,
    DIE_ENERGY,
    DIE_GAUGE,
    DIE_OF_ACTION,
    DIE_PIPS,
    DIE_TRANSMUTE,
    INSTANCE_OF_ACTIVATION,
    IS_ITEM_CARD,
    NUM_CARDS,
    PRESTIGE_OF,
    STEP_WIDTH,
    STORED_ROW,
    SUMMON_ACTION,
    TRANSMUTE_RATES,
    column,
)

__all__ = [
    "BONUS_PENALTY",
    "CACHE_TOP",
    "CARD_OF_CHOICE",
    "CARD_OF_INSTANCE",
    "CARD_OF_SUMMON",
    "COSTS",
    "DIE_CRYSTALS",
    "DIE_DRAW",
    "DIE_ENERGY",
    "DIE_GAUGE",
    "DIE_OF_ACTION",
    "DIE_PIPS",
    "DIE_TRANSMUTE",
    "INSTANCE_OF_ACTIVATION",
    "IS_ITEM_CARD",
    "LIBRARY",
    "NUM_CARDS",
    "OVER",
    "PRESTIGE_OF",
    "STEP_WIDTH",
    "STOPPED",
    "STORED_ROW",
    "SUMMON_ACTION",
    "TRANSMUTE_RATES",
    "RulesBatch",
    "apply_row",
    "cache_folder",
    "can_transmute",
    "column",
    "copy_row",
    "count_in_play",
    "determinize_row",
    "hand_add",
    "hand_size",
    "has_room",
    "hidden_pool_size",
    "import_closure",
    "kernel_arrays",
    "kernel_in",
    "leech_toll",
    "observe_row",
    "reserve_limit",
    "reserve_total",
    "run",
    "spendable",
    "transmute_bonus",
]
