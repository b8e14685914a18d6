"""The compiled heuristic's tables and single-card values: ``heuristic_cards.py`` and the clock and token values
of ``heuristic_eval.py`` on row ``i`` of the array state, for ``heuristic_eval_kernel.py`` (the seat's value)
and ``heuristic_kernel.py`` (the search).

Every table here is built at import time from ``values.py`` and ``heuristic_cards.py`` (the heuristic's one
source of card values and per-card rules), never retyped, and every function computes the same floats as its
Python counterpart with the same operations in the same order (``tests/test_heuristic_eval_kernel.py``).
The compiled heuristic's kernels are cached in a folder of their own (``kernel_cache.py``), whose name carries a hash
of every file they import: numba sees a change in the file of the function it compiles only.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import steps
from seasons_env.engine.data import NUM_CARDS
from seasons_env.vector.kernels.api import (
    CARD_OF_INSTANCE,
    DIE_PIPS,
    DIE_TRANSMUTE,
    IS_ITEM_CARD,
    PRESTIGE_OF,
    STORED_ROW,
    TRANSMUTE_RATES,
    column,
    reserve_limit,
    reserve_total,
)

from . import heuristic_cards as hc
from .kernel_cache import group_kernel
from .values import END_SPACE, expected_rounds
from .values import token_values as token_value_table

#: The compiled heuristic's kernels (this module's, ``heuristic_eval_kernel``'s and ``heuristic_kernel``'s) are
#: cached in a folder of their own (``kernel_cache.py``).
kernel = group_kernel("heuristic")

# ---------------------------------------------------------------------------- tables (from the Python modules)

N_CARDS = NUM_CARDS + 1
# the rules kernels' card tables, under this module's names
CARD_OF, PRESTIGE, IS_ITEM = CARD_OF_INSTANCE, PRESTIGE_OF, IS_ITEM_CARD
TRANSMUTE_RATE = TRANSMUTE_RATES
INCOME = np.array(hc.INCOME, dtype=np.float64)
SUMMON = np.array(hc.SUMMON, dtype=np.float64)
GAUGE_WEIGHT = np.array(hc.GAUGE_WEIGHT, dtype=np.float64)
POTION_SLOT = np.array(hc.POTION_SLOT, dtype=np.float64)
PER_OPPONENT = np.array([c in hc.PER_OPPONENT for c in range(N_CARDS)], dtype=np.bool_)
IN_PLAY_SPECIAL = np.array([c in hc.IN_PLAY_SPECIAL for c in range(N_CARDS)], dtype=np.bool_)
FUTURE_SPECIAL = np.array([c in hc.FUTURE_SPECIAL for c in range(N_CARDS)], dtype=np.bool_)
SUMMON_SPECIAL = np.array([c in hc.SUMMON_SPECIAL for c in range(N_CARDS)], dtype=np.bool_)
IS_FAMILIAR = np.array(hc.IS_FAMILIAR, dtype=np.bool_)
#: ``[players, card]``: crystals of the cost, and energy tokens in all.
CRYSTAL_COST = np.zeros((5, N_CARDS), dtype=np.int64)
ENERGY_COST = np.zeros((5, N_CARDS), dtype=np.int64)
#: ``[players, card, type]``: tokens of each type the card costs (the Python ``COST_TERMS``: types in order,
#: those it needs only; a 0 here is a type it does not need).
TOKEN_COST = np.zeros((5, N_CARDS, 4), dtype=np.int64)
for _n in (2, 3, 4):
    for _c in range(N_CARDS):
        CRYSTAL_COST[_n, _c] = hc.COST[_n][_c][4]
        ENERGY_COST[_n, _c] = hc.ENERGY_COST[_n][_c]
        for _t, _k in hc.COST_TERMS[_n][_c]:
            TOKEN_COST[_n, _c, _t] = _k
#: ``[purses, lanterns, space, type]``: ``values.continuation``'s table for 0-2 Purses of Io and 0-2 Lanterns.
CONTINUATION = np.zeros((3, 3, END_SPACE + 4, 4), dtype=np.float64)
END_OF = np.zeros(3, dtype=np.float64)
for _lanterns in range(3):
    _end = hc.END_VALUE + hc.LANTERN_VALUE * _lanterns  # a Python float: token_values caches by its arguments,
    END_OF[_lanterns] = _end  # and a numpy float there would leave numpy floats in the Python player's tables
    for _purses in range(3):
        CONTINUATION[_purses, _lanterns] = np.array(token_value_table(_purses, _end))
ROUNDS = np.array([expected_rounds(k) for k in range(41)], dtype=np.float64)
AFTER_YEAR1 = expected_rounds(END_SPACE - 12)
AFTER_YEAR2 = expected_rounds(END_SPACE - 24)
HELM_CHANCE = np.array(hc.HELM_CHANCE, dtype=np.float64)
CHEST_IN_PLAY = np.array(hc.CHEST_IN_PLAY, dtype=np.float64)
CHEST_IN_HAND = np.array(hc.CHEST_IN_HAND, dtype=np.float64)

MOVE_MARKER = steps.kind("move_marker")
TURN_START = steps.kind("turn_start")
GAIN_ENERGY = steps.kind("gain_energy")
SYLLAS = steps.kind("syllas_sacrifice")
AMSUG = steps.kind("amsug_return")
GAIN_COUNT = column("gain_energy", "count")
GAIN_ONTO = column("gain_energy", "onto")
GAIN_FROM_TYPE = column("gain_energy", "from_type")

# Weights as module constants (numba freezes them).
OPPONENT_WEIGHT = hc.OPPONENT_WEIGHT
OPPONENT_MEAN = hc.OPPONENT_MEAN
GAUGE_PER_ROUND = hc.GAUGE_PER_ROUND
TOKENS_PER_TURN = hc.TOKENS_PER_TURN
ENERGY_PER_ROUND = hc.ENERGY_PER_ROUND
OPPONENT_CARD_ENERGY = hc.OPPONENT_CARD_ENERGY
HAND_DELAY0, HAND_DELAY1 = hc.HAND_DELAY
LIBRARY_DELAY0, LIBRARY_DELAY1 = hc.LIBRARY_DELAY
HAND_FLOOR = hc.HAND_FLOOR
SLOT_VALUE = hc.SLOT_VALUE
OPPONENT_CARD = hc.OPPONENT_CARD
OPPONENT_SLOT = hc.OPPONENT_SLOT
LIFE_HORIZON = hc.LIFE_HORIZON
POTION_STORE = hc.POTION_STORE
CAULDRON_DONE = hc.CAULDRON_DONE
HELM_BONUS = hc.HELM_BONUS
CHEST_BONUS = hc.CHEST_BONUS
WONDROUS_FULL = hc.WONDROUS_FULL
WONDROUS_SHORT = hc.WONDROUS_SHORT
SOUL_ROUND = hc.SOUL_ROUND
ABILITY_OPTION = hc.ABILITY_OPTION
BONUS_LEFT = hc.BONUS_LEFT
INFLOW_ROOM = hc.INFLOW_ROOM
FORCED_SHARE = hc.FORCED_SHARE
KAIRN_USE = hc.KAIRN_USE
TRANSMUTE_CHANCE = hc.TRANSMUTE_CHANCE
SHORTAGE = hc.SHORTAGE
SHORTAGE_MAX = hc.SHORTAGE_MAX
LANTERN_VALUE = hc.LANTERN_VALUE
SCEPTER_CRYSTALS = hc.SCEPTER_CRYSTALS
STAFF_CRYSTALS = hc.STAFF_CRYSTALS
FIGRIM_CRYSTALS = hc.FIGRIM_CRYSTALS
WONDROUS_CRYSTALS = hc.WONDROUS_CRYSTALS
WONDROUS_MIN_TOKENS = hc.WONDROUS_MIN_TOKENS
KAIRN_CRYSTALS = hc.KAIRN_CRYSTALS
LIFE_CRYSTALS = hc.LIFE_CRYSTALS
KNOWLEDGE_TOKENS = hc.KNOWLEDGE_TOKENS
CAULDRON_TOKENS = hc.CAULDRON_TOKENS
TITUS_CRYSTALS = hc.TITUS_CRYSTALS

AMULET_OF_WATER = hc.AMULET_OF_WATER
STAFF_OF_SPRING = hc.STAFF_OF_SPRING
PURSE_OF_IO = hc.PURSE_OF_IO
FIGRIM = hc.FIGRIM
WONDROUS_CHEST = hc.WONDROUS_CHEST
KAIRN = hc.KAIRN
RAGFIELDS_HELM = hc.RAGFIELDS_HELM
HAND_OF_FORTUNE = hc.HAND_OF_FORTUNE
LEWIS = hc.LEWIS
PENDANT = hc.PENDANT
POTION_OF_POWER = hc.POTION_OF_POWER
POTION_OF_DREAMS = hc.POTION_OF_DREAMS
POTION_OF_KNOWLEDGE = hc.POTION_OF_KNOWLEDGE
POTION_OF_LIFE = hc.POTION_OF_LIFE
HOURGLASS = hc.HOURGLASS
SCEPTER = hc.SCEPTER
VASE = hc.VASE
GLUTTON_CAULDRON = hc.GLUTTON_CAULDRON
TITUS = hc.TITUS
IDOL = hc.IDOL
LANTERN = hc.LANTERN
SEALED_CHEST = hc.SEALED_CHEST
DAMNED_SOUL = hc.DAMNED_SOUL
HIGH = 99  # the tokens left over for an opponent: every type unlimited (the Python [99] * 4)


# ---------------------------------------------------------------------------- the clock


@kernel
def copies_of(cards, count, card):
    """Copies of ``card`` among the first ``count`` entries of ``cards``."""
    k = 0
    for j in range(count):
        if cards[j] == card:
            k += 1
    return k


@kernel
def row_clock(s, i):
    """The Python ``Clock`` of row ``i``: ``(abs, next_start, in_round, rounds_after, round_ends,
    season_changes, cards [P, 17], card counts [P], turn_pending [P])``."""
    n = s.crystals.shape[1]
    a = (np.int64(s.year[i]) - 1) * 12 + np.int64(s.position[i]) - 1
    capacity = s.in_play.shape[2]
    cards = np.zeros((n, capacity), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for p in range(n):
        counts[p] = s.in_play_count[i, p]
        for j in range(counts[p]):
            cards[p, j] = CARD_OF[s.in_play[i, p, j]]
    in_round = False
    turn_pending = np.zeros(n, dtype=np.bool_)
    for k in range(s.stack_depth[i]):
        kind = s.stack[i, k, 0]
        if kind == MOVE_MARKER:
            in_round = True
        elif kind == TURN_START:
            turn_pending[s.stack[i, k, 1]] = True
    if in_round:
        if s.year[i] <= 3:
            total = 0
            untaken = 0
            season = s.dice_season[i]
            for r in range(s.rolled_count[i]):
                if s.rolled[i, r, 2] < 0:
                    total += DIE_PIPS[season, s.rolled[i, r, 0], s.rolled[i, r, 1]]
                    untaken += 1
            step = total / untaken if untaken else 0.0
            next_start = a + step
        else:
            next_start = float(END_SPACE)
    else:
        next_start = float(a)
    if next_start < END_SPACE:
        spaces = int(np.rint(END_SPACE - next_start))  # Python's round: halves to even
        rounds_after = ROUNDS[max(0, min(spaces, 40))]
    else:
        rounds_after = 0.0
    round_ends = rounds_after + (1.0 if in_round else 0.0)
    season_changes = max(0, 11 - a // 3) if a < END_SPACE else 0
    return a, next_start, in_round, rounds_after, round_ends, season_changes, cards, counts, turn_pending


@kernel
def row_token_values(s, i, p, next_start, rounds_after, cards, count, turn_pending):
    """``heuristic_eval.token_values`` of ``p``: what one token of each type is worth once its turn is over."""
    purses = copies_of(cards, count, PURSE_OF_IO)
    lanterns = copies_of(cards, count, LANTERN)
    start = int(next_start)
    later = np.full(4, END_OF[lanterns]) if start >= END_SPACE else CONTINUATION[purses, lanterns, start].copy()
    floor = 0.0
    if copies_of(cards, count, POTION_OF_LIFE) and (rounds_after > 0 or turn_pending[p] or s.turn_player[i] == p):
        floor = (LIFE_CRYSTALS + purses) * min(1.0, max(0.0, 1.0 - (rounds_after - 1.0) / LIFE_HORIZON))
    values = np.empty(4)
    if not turn_pending[p]:
        for t in range(4):
            values[t] = max(later[t], floor) if floor else later[t]
    else:
        q = TRANSMUTE_CHANCE
        season = s.dice_season[i]
        for r in range(s.rolled_count[i]):  # the die the player took this round, if any
            if s.rolled[i, r, 2] == p:
                q = 1.0 if DIE_TRANSMUTE[season, s.rolled[i, r, 0], s.rolled[i, r, 1]] else 0.1
                break
        rates_row = (np.int64(s.position[i]) - 1) // 3
        for t in range(4):
            rate = TRANSMUTE_RATE[rates_row, t] + purses
            values[t] = max(floor, q * max(float(rate), later[t]) + (1.0 - q) * later[t])
    return values


# ---------------------------------------------------------------------------- row reads


@kernel
def stored_on(s, i, inst):
    """The tokens stored on instance ``inst`` and whether it has a token record (``Game.stored.get``)."""
    row = STORED_ROW[inst]
    out = np.zeros(4, dtype=np.int64)
    if row < 0 or not s.stored_present[i, row]:
        return out, False
    for t in range(4):
        out[t] = s.stored[i, row, t]
    return out, True


@kernel
def hand_cards(s, i, p):
    """The hand of ``p`` as the Python sorted tuple of card ids."""
    size = 0
    for c in range(1, N_CARDS):
        size += s.hand[i, p, c]
    out = np.zeros(size, dtype=np.int64)
    k = 0
    for c in range(1, N_CARDS):
        for _ in range(s.hand[i, p, c]):
            out[k] = c
            k += 1
    return out


@kernel
def library_set(s, i, p, year_index):
    """The library set of year ``2 + year_index`` of ``p``, in order."""
    size = 0
    for k in range(s.library.shape[3]):
        if s.library[i, p, year_index, k] != 0:
            size += 1
    out = np.zeros(size, dtype=np.int64)
    j = 0
    for k in range(s.library.shape[3]):
        c = s.library[i, p, year_index, k]
        if c != 0:
            out[j] = c
            j += 1
    return out


@kernel
def sum4(values):
    """Python's ``sum`` of four floats (from 0, left to right)."""
    return 0.0 + values[0] + values[1] + values[2] + values[3]


# ---------------------------------------------------------------------------- single cards (heuristic_cards.py)


@kernel
def summon_value(s, i, p, c, tv, items, waiting, n):
    if c == SCEPTER:
        return SCEPTER_CRYSTALS * (items + 0.5 * max(0, waiting - 1))
    if c == PENDANT:
        return (items + 0.5 * max(0, waiting - 1)) * sum4(tv) / 4.0
    if c == LEWIS:
        best = -1
        for k in range(1, n):
            q = (p + k) % n
            best = max(best, reserve_total(s, i, q))
        return best * sum4(tv) / 4.0
    return SUMMON[c]


@kernel
def card_future(p, c, tv, rounds, waiting, n, rounds_after, season_changes, cards, count):
    k = (n - 1) if PER_OPPONENT[c] else 1
    income = INCOME[c] * rounds * k
    if c in (STAFF_OF_SPRING, VASE):
        per = STAFF_CRYSTALS if c == STAFF_OF_SPRING else sum4(tv) / 4.0
        return income + per * min(float(waiting - 1), 0.6 * rounds)
    if c == FIGRIM:
        return income + 2.0 * (n - 1) * season_changes * min(1.0, rounds / max(rounds_after, 1.0))
    if c == TITUS:
        return income + 2.0 * (n - 1) * rounds
    if c == HOURGLASS:
        return income + season_changes * sum4(tv) / 4.0 * min(1.0, rounds / max(rounds_after, 1.0))
    if c == WONDROUS_CHEST:
        return income + WONDROUS_CRYSTALS * rounds * WONDROUS_SHORT
    if c == RAGFIELDS_HELM:
        return income + 0.4 * HELM_BONUS
    if c == SEALED_CHEST:
        familiars = False
        for j in range(count[p]):
            if IS_FAMILIAR[cards[p, j]]:
                familiars = True
        return income + CHEST_IN_HAND[0 if familiars else 1] * CHEST_BONUS
    if c == GLUTTON_CAULDRON:
        return income + CAULDRON_DONE * min(1.0, rounds / 8.0)
    if c == IDOL:
        return income + rounds * 1.0
    if c == LANTERN:
        return income + LANTERN_VALUE * 3.0
    if c == KAIRN:
        return income + KAIRN_USE * (KAIRN_CRYSTALS * (n - 1) - min(tv[0], tv[1], tv[2], tv[3])) * rounds
    if c == DAMNED_SOUL:
        return income - 5.0
    return income


@kernel
def potion_value(s, i, p, c, rounds_after, tv, avg_tv, private, cards, count):
    """``heuristic_cards.potion_value``: what a potion waiting in play is worth."""
    store = POTION_STORE
    if c == POTION_OF_LIFE:
        if rounds_after < 1.0:
            return 0.0
        limit = reserve_limit(s, i, p)
        ramp = min(1.0, max(0.0, 1.0 - (rounds_after - 1.0) / LIFE_HORIZON))
        room = max(0.0, limit - ramp * reserve_total(s, i, p))
        coming = min(room, ENERGY_PER_ROUND * rounds_after)
        return store * coming * max(0.0, LIFE_CRYSTALS + copies_of(cards[p], count[p], PURSE_OF_IO) - avg_tv)
    if c == POTION_OF_KNOWLEDGE:
        return store * KNOWLEDGE_TOKENS * avg_tv
    if c == POTION_OF_POWER:
        return store * 4.0
    if c == POTION_OF_DREAMS:
        if not private:  # an opponent's hand is hidden: a typical card for it, if it holds any
            for h in range(1, N_CARDS):
                if s.hand[i, p, h]:
                    return store * 0.5 * OPPONENT_CARD
            return 0.0
        best = 0.0
        first = True
        for h in range(1, N_CARDS):
            if s.hand[i, p, h]:
                v = PRESTIGE[h] + SUMMON[h]
                if first or v > best:
                    best = v
                    first = False
        return store * 0.5 * best
    return 0.0


@kernel
def in_play_value(s, i, p, inst, c, value, clock, tv, avg_tv, expected_summons, n, private):
    """``heuristic_cards.in_play_value``: instance ``inst`` (card ``c``) in ``p``'s play area."""
    _, _, _, rounds_after, round_ends, season_changes, cards, count, turn_pending = clock
    if c == AMULET_OF_WATER:
        stored, present = stored_on(s, i, inst)
        if present:
            value += stored[0] * tv[0] + stored[1] * tv[1] + stored[2] * tv[2] + stored[3] * tv[3]
    elif c == STAFF_OF_SPRING:
        value += STAFF_CRYSTALS * expected_summons
    elif c == VASE:
        value += avg_tv * expected_summons
    elif c == FIGRIM:
        value += FIGRIM_CRYSTALS * (n - 1) * season_changes
    elif c == WONDROUS_CHEST:
        chance = WONDROUS_FULL if reserve_total(s, i, p) >= WONDROUS_MIN_TOKENS else WONDROUS_SHORT
        value += WONDROUS_CRYSTALS * (chance + WONDROUS_SHORT * max(0.0, round_ends - 1.0))
    elif c == RAGFIELDS_HELM:
        most = 0
        for k in range(1, n):
            most = max(most, count[(p + k) % n])
        lead = count[p] - most
        chance = HELM_CHANCE[max(-2, min(2, lead)) + 2]
        if rounds_after < 1.0 and lead <= 0:
            chance = 0.0 if lead < 0 else 0.1
        value += chance * HELM_BONUS
    elif c == HOURGLASS:
        value += season_changes * avg_tv
    elif c == GLUTTON_CAULDRON:
        stored, _ = stored_on(s, i, inst)
        total = stored[0] + stored[1] + stored[2] + stored[3]
        rounds = rounds_after + (1.0 if turn_pending[p] else 0.0)
        chance = min(1.0, rounds / max(1.0, CAULDRON_TOKENS - total))
        value += chance * (CAULDRON_DONE + total * avg_tv)
    elif c == TITUS:
        value += TITUS_CRYSTALS * (n - 1) * round_ends
    elif c == IDOL:
        familiars = 0
        for j in range(count[p]):
            if IS_FAMILIAR[cards[p, j]]:
                familiars += 1
        value += familiars * rounds_after
    elif c == SEALED_CHEST:
        familiars = False
        for j in range(count[p]):
            if IS_FAMILIAR[cards[p, j]]:
                familiars = True
        value += CHEST_IN_PLAY[0 if familiars else 1] * CHEST_BONUS
    elif c == DAMNED_SOUL:
        value -= SOUL_ROUND * min(round_ends, 2.0)
    elif c == KAIRN:
        value -= KAIRN_USE * rounds_after * min(tv[0], tv[1], tv[2], tv[3])
    elif POTION_SLOT[c]:
        value += potion_value(s, i, p, c, rounds_after, tv, avg_tv, private, cards, count)
    return value


@kernel
def threats(s, i, p, n, clock):
    """``heuristic_cards.threats``: crystals the opponents' Figrim, Titus and Kairn will take from ``p``."""
    _, _, _, rounds_after, round_ends, season_changes, cards, count, _ = clock
    lost = 0.0
    for k in range(1, n):
        q = (p + k) % n
        for j in range(count[q]):
            c = cards[q, j]
            if c == FIGRIM:
                lost += FIGRIM_CRYSTALS * season_changes
            elif c == TITUS:
                lost += TITUS_CRYSTALS * round_ends
            elif c == KAIRN:
                lost += KAIRN_USE * KAIRN_CRYSTALS * rounds_after
    return min(lost, s.crystals[i, p] + 2.0 * rounds_after)
