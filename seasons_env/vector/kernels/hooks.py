"""The card hooks the rules kernels call (``engine/behaviour.py``'s ``Behaviour``), dispatched by card id to
``cards_basic_kernels.py`` (cards 1-30) or ``cards_archmage_kernels.py`` (31-50), and the cards' static facts
read from the reference behaviours (``stores_tokens``, ``activation_reads_hand``, ``crystal_cost``)."""

from __future__ import annotations

import numpy as np

from seasons_env.engine.behaviour import BEHAVIOUR
from seasons_env.engine.data import NUM_CARDS

from . import cards_archmage_kernels as archmage
from . import cards_basic_kernels as basic
from . import inline_kernel

_LAST_BASIC = 30
ACTIVATION_READS_HAND = np.array(
    [False, *(BEHAVIOUR[c].activation_reads_hand for c in range(1, NUM_CARDS + 1))], dtype=np.bool_
)
CRYSTAL_COST = np.array([False, *(BEHAVIOUR[c].crystal_cost for c in range(1, NUM_CARDS + 1))], dtype=np.bool_)
STORES_TOKENS = np.array([False, *(BEHAVIOUR[c].stores_tokens for c in range(1, NUM_CARDS + 1))], dtype=np.bool_)


@inline_kernel
def on_summon(s, i, player, instance, effects):
    if instance // 2 + 1 <= _LAST_BASIC:
        basic.on_summon(s, i, player, instance, effects)
    else:
        archmage.on_summon(s, i, player, instance, effects)


@inline_kernel
def can_activate(s, i, player, instance):
    if instance // 2 + 1 <= _LAST_BASIC:
        return basic.can_activate(s, i, player, instance)
    return archmage.can_activate(s, i, player, instance)


@inline_kernel
def activate(s, i, player, instance):
    if instance // 2 + 1 <= _LAST_BASIC:
        basic.activate(s, i, player, instance)
    else:
        archmage.activate(s, i, player, instance)


@inline_kernel
def end_of_round(s, i, player, card, copies, reserve):
    if card <= _LAST_BASIC:
        basic.end_of_round(s, i, player, card, copies, reserve)
    else:
        archmage.end_of_round(s, i, player, card, copies, reserve)


@inline_kernel
def season_change(s, i, player, card, copies, by_boots):
    if card <= _LAST_BASIC:
        basic.season_change(s, i, player, card, copies, by_boots)
    else:
        archmage.season_change(s, i, player, card, copies, by_boots)


@inline_kernel
def end_of_game(s, i, player, card, copies):
    if card <= _LAST_BASIC:
        return basic.end_of_game(s, i, player, card, copies)
    return archmage.end_of_game(s, i, player, card, copies)
