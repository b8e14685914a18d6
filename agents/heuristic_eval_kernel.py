"""The heuristic's position evaluation (``agents/heuristic_eval.py``) compiled on the array state, so that the
heuristic's seats in batched self-play need not leave the array state (``heuristic_kernel.py`` searches with it).

``evaluate_row(s, i, seat)`` and ``margins_row(s, i, seat, out)`` read row ``i`` of the array state's fields (the
kernels' struct, ``seasons_env.vector.kernels.structs.kernel_arrays``) and give the same floats as
``heuristic_eval.evaluate`` and ``margins`` on the ``Game`` of that row, to the last bit: every value is computed
with the same operations in the same order as the Python formulas (ints where Python has ints, Python's
``round``, its tuple ordering in the sorts), which ``tests/test_heuristic_eval_kernel.py`` checks on positions
of every phase, level and player count. The Python module's caches are not needed here: they only avoid
recomputing equal values.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine.data import MAX_BONUSES
from seasons_env.vector.kernels.api import (
    BONUS_PENALTY,
    can_transmute,
    hand_size,
    leech_toll,
    reserve_limit,
    reserve_total,
    spendable,
    transmute_bonus,
)

from .heuristic_cards_kernel import (
    ABILITY_OPTION,
    AFTER_YEAR1,
    AFTER_YEAR2,
    AMSUG,
    AMULET_OF_WATER,
    BONUS_LEFT,
    CARD_OF,
    CRYSTAL_COST,
    ENERGY_COST,
    ENERGY_PER_ROUND,
    FORCED_SHARE,
    FUTURE_SPECIAL,
    GAIN_COUNT,
    GAIN_ENERGY,
    GAIN_FROM_TYPE,
    GAIN_ONTO,
    GAUGE_PER_ROUND,
    GAUGE_WEIGHT,
    HAND_DELAY0,
    HAND_DELAY1,
    HAND_FLOOR,
    HAND_OF_FORTUNE,
    HIGH,
    IN_PLAY_SPECIAL,
    INCOME,
    INFLOW_ROOM,
    IS_ITEM,
    LIBRARY_DELAY0,
    LIBRARY_DELAY1,
    OPPONENT_CARD,
    OPPONENT_CARD_ENERGY,
    OPPONENT_MEAN,
    OPPONENT_SLOT,
    OPPONENT_WEIGHT,
    PER_OPPONENT,
    POTION_OF_LIFE,
    POTION_SLOT,
    PRESTIGE,
    SHORTAGE,
    SHORTAGE_MAX,
    SLOT_VALUE,
    SUMMON,
    SUMMON_SPECIAL,
    SYLLAS,
    TOKEN_COST,
    TOKENS_PER_TURN,
    TRANSMUTE_RATE,
    card_future,
    copies_of,
    hand_cards,
    in_play_value,
    library_set,
    row_clock,
    row_token_values,
    stored_on,
    sum4,
    summon_value,
    threats,
)
from .kernel_cache import group_kernel

#: The compiled heuristic's kernel decorator (``kernel_cache.py``).
kernel = group_kernel("heuristic")


@kernel
def _before(x, y):
    """Is row ``x`` after row ``y`` in Python's tuple order (so first in a ``reverse=True`` sort)?"""
    for k in range(x.shape[0]):
        if x[k] != y[k]:
            return x[k] > y[k]
    return False


@kernel
def _sort_rows_descending(rows, size):
    """The first ``size`` rows sorted as Python's ``sorted(..., reverse=True)`` sorts tuples (equal rows are the
    same values, so stability cannot show)."""
    for k in range(1, size):
        row = rows[k].copy()
        j = k - 1
        while j >= 0 and _before(row, rows[j]):
            rows[j + 1] = rows[j]
            j -= 1
        rows[j + 1] = row


# ---------------------------------------------------------------------------- a seat's value


@kernel
def _waiting_cards(s, i, p, n, clock, tv, capacity, energy, turns, spend):
    """``heuristic_eval.waiting_order`` and ``_waiting_cards``: the value of the seat's hand and library sets,
    the expected number of summons and the tokens left over once the best cards have taken theirs."""
    a, _, _, rounds_after, _, season_changes, cards, count, _ = clock
    hands = copies_of(cards[p], count[p], HAND_OF_FORTUNE)
    hand = hand_cards(s, i, p)
    lib2 = library_set(s, i, p, 0)
    lib3 = library_set(s, i, p, 1)
    leech = leech_toll(s, i, p)
    items_in_play = 0
    for j in range(count[p]):
        if IS_ITEM[cards[p, j]]:
            items_in_play += 1
    waiting = hand.shape[0] + lib2.shape[0] + lib3.shape[0]
    # (net value before its tokens, card, cost of waiting, rounds) per card, as waiting_order builds them
    order = np.zeros((waiting, 4))
    k = 0
    for group in range(3):
        if group == 0:
            group_cards = hand
            rounds = turns
            delay0, delay1 = HAND_DELAY0, HAND_DELAY1
        else:
            if lib2.shape[0] == 0 and lib3.shape[0] == 0:
                break
            if group == 1:
                group_cards = lib2
                after = AFTER_YEAR1 if a < 12 else turns
            else:
                group_cards = lib3
                after = AFTER_YEAR2 if a < 24 else turns
            rounds = min(turns, after)
            delay0, delay1 = LIBRARY_DELAY0, LIBRARY_DELAY1
        for c in group_cards:
            terms = 0.0  # Python's sum of a list (from int 0): the first term is exact
            for t in range(4):
                if TOKEN_COST[n, c, t]:
                    terms += TOKEN_COST[n, c, t] * tv[t]
            price = (CRYSTAL_COST[n, c] + leech) + terms
            energy_cost = ENERGY_COST[n, c]
            if hands and energy_cost > 1:
                price -= min(hands, energy_cost - 1) * 2.0
            if FUTURE_SPECIAL[c]:
                future = card_future(p, c, tv, rounds, waiting, n, rounds_after, season_changes, cards, count)
            elif PER_OPPONENT[c]:
                future = INCOME[c] * rounds * (n - 1)
            else:
                future = INCOME[c] * rounds
            if SUMMON_SPECIAL[c]:
                gross = PRESTIGE[c] + summon_value(s, i, p, c, tv, items_in_play, waiting, n) + future
            else:
                gross = PRESTIGE[c] + SUMMON[c] + future
            wait = delay0 + delay1 * max(future, 0.0) / max(rounds, 1.0)
            order[k, 0] = gross - price
            order[k, 1] = c
            order[k, 2] = wait
            order[k, 3] = rounds
            k += 1
    _sort_rows_descending(order, waiting)
    # The tokens held go to the best cards first; what a card still lacks has to be found in time.
    left = spend.copy()
    entries = np.zeros((waiting, 5))  # (net value, cost of waiting, gauge weight, energy, card)
    for k in range(waiting):
        net = order[k, 0]
        c = int(order[k, 1])
        rounds = order[k, 3]
        cost = ENERGY_COST[n, c]
        short = 0
        for t in range(4):
            need = TOKEN_COST[n, c, t]
            if need:
                have = left[t]
                use = need if need < have else have
                left[t] = have - use
                short += need - use
        if short:
            if hands and cost > 1:
                short = max(0, short - min(hands, cost - 1))
            if short > TOKENS_PER_TURN * rounds:
                net = HAND_FLOOR
            elif short:
                per_token = net / cost if cost else 0.0
                net -= short * max(SHORTAGE, min(SHORTAGE_MAX, per_token))
        entries[k, 0] = net
        entries[k, 1] = order[k, 2]
        entries[k, 2] = GAUGE_WEIGHT[c]
        entries[k, 3] = cost
        entries[k, 4] = c
    _sort_rows_descending(entries, waiting)
    room = capacity
    total = 0.0
    summons = 0.0
    floor = HAND_FLOOR
    for k in range(waiting):
        net, wait, weight, cost = entries[k, 0], entries[k, 1], entries[k, 2], entries[k, 3]
        share = min(room, 1.0, energy / cost if cost else 1.0)
        if share <= 0.0:
            total += floor
            continue
        total += share * (max(net, floor) - wait) + (1.0 - share) * floor
        summons += share
        room -= weight if weight > 0 else weight * share
        energy -= cost * share
    if room > 0:
        total += min(room, 2.0) * SLOT_VALUE
    return total, summons, left


@kernel
def _seat_value(s, i, p, n, clock, private):
    """``heuristic_eval._seat_value``: the projected final score of ``p`` (``private``: its hand and libraries
    may be read, else they count by size only)."""
    _, next_start, _, rounds_after, _, _, cards, count, turn_pending = clock
    tv = row_token_values(s, i, p, next_start, rounds_after, cards[p], count[p], turn_pending)
    avg_tv = sum4(tv) / 4.0
    used = s.bonuses_used[i, p]
    value = float(s.crystals[i, p]) - BONUS_PENALTY[used]
    value += BONUS_LEFT * (MAX_BONUSES - used) * min(1.0, rounds_after / 4.0)

    # Tokens: the best are kept; the last places of the reserve are discounted; past the limit they are lost.
    limit = reserve_limit(s, i, p)
    total = reserve_total(s, i, p)
    keep = limit if copies_of(cards[p], count[p], POTION_OF_LIFE) else limit - INFLOW_ROOM
    transmuting = can_transmute(s, i, p)
    held = np.zeros((max(total, 1), 2))  # (value, type) of each token, as the Python list of tuples
    held_size = 0
    if total:
        if total > keep or transmuting:
            for t in range(4):
                for _ in range(s.reserve[i, p, t]):
                    held[held_size, 0] = tv[t]
                    held[held_size, 1] = t
                    held_size += 1
            if total > keep:
                _sort_rows_descending(held, held_size)
                held_size = min(held_size, limit)
                for k in range(keep, held_size):
                    held[k, 0] = held[k, 0] * FORCED_SHARE
            for k in range(held_size):
                value += held[k, 0]
        else:
            for t in range(4):
                v = tv[t]
                for _ in range(s.reserve[i, p, t]):
                    value += v
    # Cards waiting to be summoned, and the room for them.
    free = float(np.int64(s.gauge[i, p]) - count[p])
    for j in range(count[p]):
        slots = POTION_SLOT[cards[p, j]]
        if slots:
            free += slots
    capacity = free + GAUGE_PER_ROUND * rounds_after
    turns = rounds_after + (1.0 if turn_pending[p] else 0.0)
    if copies_of(cards[p], count[p], AMULET_OF_WATER):
        spend = spendable(s, i, p)
    else:
        spend = np.zeros(4, dtype=np.int64)
        for t in range(4):
            spend[t] = s.reserve[i, p, t]
    energy = (spend[0] + spend[1] + spend[2] + spend[3]) + ENERGY_PER_ROUND * turns
    if turns <= 0.0 and s.turn_player[i] != p:  # no turn left: nothing more will be summoned
        capacity = 0.0
        energy = 0.0
    if private:
        hand_value, expected_summons, spare = _waiting_cards(s, i, p, n, clock, tv, capacity, energy, turns, spend)
    else:
        waiting = np.int64(hand_size(s, i, p))
        for y in range(2):
            for k in range(s.library.shape[3]):
                if s.library[i, p, y, k] != 0:
                    waiting += 1
        playable = min(max(0.0, capacity), energy / OPPONENT_CARD_ENERGY)
        share = min(1.0, playable / waiting) if waiting else 0.0
        per_card = share * OPPONENT_CARD + (1.0 - share) * HAND_FLOOR
        hand_value = waiting * per_card + max(0.0, min(free, 3.0) - waiting) * OPPONENT_SLOT
        expected_summons = min(float(waiting), playable)
        spare = np.full(4, HIGH, dtype=np.int64)
    value += hand_value

    # The transmute ability held in the turn: what transmuting the tokens worth it now would add.
    if transmuting:
        rates_row = (np.int64(s.position[i]) - 1) // 3
        extra = transmute_bonus(s, i, p)
        free_left = spare.copy()
        # sorted(held): ascending, the reverse of the descending order
        ascending = held[:held_size].copy()
        _sort_rows_descending(ascending, held_size)
        gain = 0.0
        for k in range(held_size - 1, -1, -1):
            v = ascending[k, 0]
            t = int(ascending[k, 1])
            if free_left[t] > 0:
                free_left[t] -= 1
                gain += max(0.0, TRANSMUTE_RATE[rates_row, t] + extra - v)
            else:
                gain += max(0.0, TRANSMUTE_RATE[rates_row, t] + extra - v - SHORTAGE)
        for j in range(count[p]):
            inst = s.in_play[i, p, j]
            if CARD_OF[inst] == AMULET_OF_WATER:
                stored, present = stored_on(s, i, inst)
                if present:
                    amulet = 0.0
                    for t in range(4):
                        amulet += stored[t] * max(0.0, TRANSMUTE_RATE[rates_row, t] + extra - tv[t])
                    gain += amulet
        value += gain if gain > 0 else ABILITY_OPTION

    # Cards in play: prestige and income, and what the position adds for some.
    for j in range(count[p]):
        inst = s.in_play[i, p, j]
        c = CARD_OF[inst]
        base = PRESTIGE[c] + INCOME[c] * rounds_after * ((n - 1) if PER_OPPONENT[c] else 1)
        if IN_PLAY_SPECIAL[c]:
            value += in_play_value(s, i, p, inst, c, base, clock, tv, avg_tv, expected_summons, n, private)
        else:
            value += base
    return value - threats(s, i, p, n, clock)


@kernel
def _pending_adjustments(s, i, n, clock, values):
    """``heuristic_eval._pending_adjustments``: tokens still to gain, cards still to sacrifice."""
    _, next_start, _, rounds_after, _, _, cards, count, turn_pending = clock
    for k in range(s.stack_depth[i] - 1, -1, -1):  # the decision asked first, as Game.pending_steps
        kind = s.stack[i, k, 0]
        q = s.stack[i, k, 1]
        if kind == GAIN_ENERGY:
            tv = row_token_values(s, i, q, next_start, rounds_after, cards[q], count[q], turn_pending)
            gained = np.int64(s.stack[i, k, GAIN_COUNT])
            if s.stack[i, k, GAIN_ONTO] < 0:
                gained = min(gained, max(0, reserve_limit(s, i, q) - reserve_total(s, i, q)))
            best = tv[s.stack[i, k, GAIN_FROM_TYPE]]
            for t in range(s.stack[i, k, GAIN_FROM_TYPE] + 1, 4):
                best = max(best, tv[t])
            values[q] += gained * best
        elif kind == SYLLAS:
            if count[q]:
                lowest = PRESTIGE[cards[q, 0]]
                for j in range(1, count[q]):
                    lowest = min(lowest, PRESTIGE[cards[q, j]])
                values[q] -= 2.0 + lowest
        elif kind == AMSUG:
            for j in range(count[q]):
                if IS_ITEM[cards[q, j]]:
                    values[q] -= 3.0
                    break


@kernel
def seat_values(s, i, seat):
    """``heuristic_eval._values``: every player's projected final score as ``seat`` judges it (the real scores
    once the game is over)."""
    n = s.crystals.shape[1]
    values = np.zeros(n)
    if s.over[i]:
        for p in range(n):
            values[p] = float(s.final_scores[i, p])
        return values
    clock = row_clock(s, i)
    for p in range(n):
        values[p] = _seat_value(s, i, p, n, clock, p == seat)
    _pending_adjustments(s, i, n, clock, values)
    return values


@kernel
def _margin(values, p):
    """``values[p]`` less the opponents' blend (``heuristic_eval._blend``)."""
    n = values.shape[0]
    if n == 2:
        return values[p] - OPPONENT_WEIGHT * values[1 - p]
    best = -np.inf
    total = 0.0
    for q in range(n):
        if q != p:
            best = max(best, values[q])
            total += values[q]
    blend = (1.0 - OPPONENT_MEAN) * best + OPPONENT_MEAN * total / (n - 1)
    return values[p] - OPPONENT_WEIGHT * blend


@kernel
def evaluate_row(s, i, seat):
    """``heuristic_eval.evaluate`` of row ``i`` for ``seat``: its projected score minus the opponents'."""
    return _margin(seat_values(s, i, seat), seat)


@kernel
def margins_row(s, i, seat, out):
    """``heuristic_eval.margins`` of row ``i`` as ``seat`` judges it, written into ``out[:P]``."""
    values = seat_values(s, i, seat)
    for p in range(values.shape[0]):
        out[p] = _margin(values, p)
