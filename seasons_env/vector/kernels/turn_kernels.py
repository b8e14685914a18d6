"""The turn menu's kernels (``engine/flow.py``'s ``_opt_turn``, ``_res_turn``, ``activate``, ``_end_turn`` and
``State.summonable_from_hand``), for ``flow_kernels.py``: its options, whether they hang on the hand, and its
resolutions (summon, activate, transmute, bonuses, end of turn)."""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import MAX_BONUSES, Card

from . import hooks, kernel
from .payment_kernels import begin_summon_from_hand
from .state_ops import (
    add_gauge,
    count_in_play,
    hand_size,
    has_room,
    instance_in_play,
    leech_toll,
    num_players,
    push,
    push_row,
    reserve_total,
    same_stored,
    season,
    spend_token,
    thieving_fairies,
    transmute_bonus,
)
from .tables import (
    ACTIVATE_ACTION,
    AMULET_OF_WATER_INSTANCES,
    CARD_OF_INSTANCE,
    CARD_OF_SUMMON,
    COSTS,
    GAUGE_MAX,
    INSTANCE_OF_ACTIVATION,
    NO_VALUE,
    NUM_CARDS,
    STORED_ROW,
    SUMMON_ACTION,
    TRANSMUTE_ACTION,
    TRANSMUTE_ENERGY,
    TRANSMUTE_RATES,
    TRANSMUTE_SOURCE,
)

GAIN_ENERGY = steps.kind("gain_energy")
EXCHANGE_DISCARD = steps.kind("exchange_discard")

_ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
_HAND_OF_FORTUNE = int(Card.HAND_OF_FORTUNE)
_TRANSMUTE_ABILITY = 1
_TRANSMUTE_BONUS_USED = 2


# ---------------------------------------------------------------------------- the turn menu


@kernel
def summonable_from_hand(s, i, player, out, count):
    """``State.summonable_from_hand`` for the whole hand: append a SUMMON action (ascending) to ``out`` from
    index ``count`` for each card of the hand the player can summon now; returns the new count."""
    if not has_room(s, i, player):
        return count
    budget = np.int64(s.crystals[i, player]) - leech_toll(s, i, player)
    have0 = np.int64(s.reserve[i, player, 0])
    have1 = np.int64(s.reserve[i, player, 1])
    have2 = np.int64(s.reserve[i, player, 2])
    have3 = np.int64(s.reserve[i, player, 3])
    for k in range(2):
        inst = AMULET_OF_WATER_INSTANCES[k]
        row = STORED_ROW[inst]
        if s.stored_present[i, row] and instance_in_play(s, i, player, inst):
            have0 += s.stored[i, row, 0]
            have1 += s.stored[i, row, 1]
            have2 += s.stored[i, row, 2]
            have3 += s.stored[i, row, 3]
    held_types = (have0 > 0) + (have1 > 0) + (have2 > 0) + (have3 > 0)
    hands = count_in_play(s, i, player, _HAND_OF_FORTUNE)
    n = num_players(s)
    for card in range(1, NUM_CARDS + 1):
        if not s.hand[i, player, card]:
            continue
        if budget < COSTS[n, card, 4]:
            continue
        if card == _ELEMENTAL_AMULET:
            if held_types:
                out[count] = SUMMON_ACTION[card]
                count += 1
            continue
        need0, need1, need2, need3 = COSTS[n, card, 0], COSTS[n, card, 1], COSTS[n, card, 2], COSTS[n, card, 3]
        total = need0 + need1 + need2 + need3
        deficit = max(need0 - have0, 0) + max(need1 - have1, 0) + max(need2 - have2, 0) + max(need3 - have3, 0)
        if deficit == 0 or deficit <= (min(hands, total - 1) if total > 1 else 0):
            out[count] = SUMMON_ACTION[card]
            count += 1
    return count


@kernel
def turn_options(s, i, player, out):
    out[0] = A.END_TURN
    count = 1
    if s.bonuses_used[i, player] < MAX_BONUSES:
        if reserve_total(s, i, player) >= 2:
            out[count] = A.BONUS_EXCHANGE
            count += 1
        if not s.turn_flags[i] & _TRANSMUTE_BONUS_USED:
            out[count] = A.BONUS_TRANSMUTE
            count += 1
        if s.gauge[i, player] < GAUGE_MAX:
            out[count] = A.BONUS_GAUGE
            count += 1
    count = summonable_from_hand(s, i, player, out, count)
    # Activations by instance, ascending (the activation ids ascend with the instances); copies in the same
    # state (untapped, same stored tokens) are one option (docs/rulings.md D2).
    held = s.in_play_count[i, player]
    first = count
    last = -1
    for _ in range(held):
        inst = 1 << 30  # the smallest instance above the last one visited
        for k in range(held):
            other = np.int64(s.in_play[i, player, k])
            if last < other < inst:
                inst = other
        last = inst
        action = ACTIVATE_ACTION[inst]
        if action < 0 or s.tapped[i, inst]:
            continue
        card = CARD_OF_INSTANCE[inst]
        offered = False
        for k in range(first, count):
            other = INSTANCE_OF_ACTIVATION[out[k]]
            if CARD_OF_INSTANCE[other] == card and same_stored(s, i, other, inst):
                offered = True
                break
        if not offered and hooks.can_activate(s, i, player, inst):
            out[count] = action
            count += 1
    if s.turn_flags[i] & _TRANSMUTE_ABILITY:
        for t in range(4):
            if s.reserve[i, player, t]:
                out[count] = TRANSMUTE_ACTION[0, t]
                count += 1
        for k in range(2):
            inst = AMULET_OF_WATER_INSTANCES[k]
            if instance_in_play(s, i, player, inst):
                row = STORED_ROW[inst]
                if s.stored_present[i, row]:
                    for t in range(4):
                        if s.stored[i, row, t]:
                            out[count] = TRANSMUTE_ACTION[k + 1, t]
                            count += 1
    return count


@kernel
def turn_hangs_on_hand(s, i, player):
    if hand_size(s, i, player) == 0:
        return False
    if has_room(s, i, player):
        return True
    for k in range(s.in_play_count[i, player]):
        inst = s.in_play[i, player, k]
        if hooks.ACTIVATION_READS_HAND[CARD_OF_INSTANCE[inst]] and not s.tapped[i, inst]:
            return True
    return False


@kernel
def activate(s, i, player, instance):
    """Activate a card (``flow.activate``): it taps, the opponents' Thieving Fairies take their due unless its
    cost may be crystals (the card pays them itself), then its effect resolves."""
    s.tapped[i, instance] = True
    if not hooks.CRYSTAL_COST[CARD_OF_INSTANCE[instance]]:
        thieving_fairies(s, i, player)
    hooks.activate(s, i, player, instance)


@kernel
def end_turn(s, i, player):
    """``flow._end_turn``: the turn's flags clear, and the Hourglass tokens deferred to now are gained."""
    s.turn_flags[i] = 0
    s.turn_player[i] = -1
    deferred = np.int64(s.deferred_count[i])
    for k in range(deferred - 1, -1, -1):
        push(s, i, GAIN_ENERGY, s.deferred_tokens[i, k, 0], s.deferred_tokens[i, k, 1], -1, 0)
    for k in range(deferred):
        s.deferred_tokens[i, k, 0] = NO_VALUE
        s.deferred_tokens[i, k, 1] = NO_VALUE
    s.deferred_count[i] = 0


@kernel
def resolve_turn(s, i, player, task, action):
    if action == A.END_TURN:
        end_turn(s, i, player)
        return
    push_row(s, i, task)  # the turn goes on after this action
    if TRANSMUTE_SOURCE[action] >= 0:
        source = TRANSMUTE_SOURCE[action]
        energy = TRANSMUTE_ENERGY[action]
        spend_token(s, i, player, source, energy)
        s.crystals[i, player] += TRANSMUTE_RATES[season(s, i), energy] + transmute_bonus(s, i, player)
    elif CARD_OF_SUMMON[action]:
        begin_summon_from_hand(s, i, player, CARD_OF_SUMMON[action])
    elif INSTANCE_OF_ACTIVATION[action] >= 0:
        activate(s, i, player, INSTANCE_OF_ACTIVATION[action])
    elif action == A.BONUS_EXCHANGE:
        s.bonuses_used[i, player] += 1
        push(s, i, GAIN_ENERGY, player, 2, -1, 0)
        push(s, i, EXCHANGE_DISCARD, player, 2, 0)
    elif action == A.BONUS_TRANSMUTE:
        s.bonuses_used[i, player] += 1
        s.turn_flags[i] |= _TRANSMUTE_ABILITY | _TRANSMUTE_BONUS_USED
    elif action == A.BONUS_GAUGE:
        s.bonuses_used[i, player] += 1
        add_gauge(s, i, player, 1)
    else:
        raise ValueError("turn: an action without a resolution")
