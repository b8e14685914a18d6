"""The heuristic's position evaluation (``agents/heuristic_eval.py``) compiled on the array state: the first part
of the heuristic player compiled for the batched core (issue 12), so that a league's heuristic seats need not
leave the array state.

``evaluate_row(s, i, seat)`` and ``margins_row(s, i, seat, out)`` read row ``i`` of the array state's fields (the
kernels' struct, ``seasons_env.vector.kernels.structs.kernel_arrays``) and give the same floats as
``heuristic_eval.evaluate`` and ``margins`` on the ``Game`` of that row, to the last bit: every value is computed
with the same operations in the same order as the Python formulas (ints where Python has ints, Python's
``round``, its tuple ordering in the sorts), which ``tests/test_heuristic_eval_kernel.py`` checks on positions
of every phase, level and player count. The Python module's caches are not needed here: they only avoid
recomputing equal values.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba
import numpy as np

from seasons_env.engine import steps
from seasons_env.engine.data import MAX_BONUSES, NUM_CARDS
from seasons_env.vector.kernels import CACHE_DIR, kernel
from seasons_env.vector.kernels.state_ops import (
    can_transmute,
    hand_size,
    leech_toll,
    reserve_limit,
    reserve_total,
    spendable,
    transmute_bonus,
)
from seasons_env.vector.kernels.tables import (
    BONUS_PENALTY,
    CARD_OF_INSTANCE,
    DIE_PIPS,
    DIE_TRANSMUTE,
    IS_ITEM_CARD,
    PRESTIGE_OF,
    STORED_ROW,
    TRANSMUTE_RATES,
    column,
)

from . import heuristic_cards as hc
from .values import END_SPACE, expected_rounds
from .values import token_values as token_value_table


def kernel_cache_dir() -> Path:
    """The rules kernels' cache folder (named by the engine's sources) with a hash of the heuristic's sources
    appended: numba notices a change in the file of the function it compiles only, not in the weights and tables
    frozen from ``values.py`` and ``heuristic_cards.py`` or in the engine kernels compiled in."""
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update((Path(__file__).parent / name).read_bytes())
    return CACHE_DIR.parent / f"{CACHE_DIR.name}-heuristic-{digest.hexdigest()[:16]}"


_SOURCES = ("heuristic_eval_kernel.py", "heuristic_kernel.py", "heuristic_cards.py", "values.py")
# numba reads its cache folder when a function is decorated: this module's functions get their own, and the
# folder is set back once they are all decorated (the end of the module).
_ENGINE_CACHE_DIR = numba.config.CACHE_DIR
numba.config.CACHE_DIR = str(kernel_cache_dir())

# ---------------------------------------------------------------------------- tables (from the Python modules)

_N_CARDS = NUM_CARDS + 1
# the rules kernels' card tables, under this module's names
_CARD_OF, _PRESTIGE, _IS_ITEM = CARD_OF_INSTANCE, PRESTIGE_OF, IS_ITEM_CARD
_BONUS_PENALTY, _TRANSMUTE_RATE = BONUS_PENALTY, TRANSMUTE_RATES
_INCOME = np.array(hc.INCOME, dtype=np.float64)
_SUMMON = np.array(hc.SUMMON, dtype=np.float64)
_GAUGE_WEIGHT = np.array(hc.GAUGE_WEIGHT, dtype=np.float64)
_POTION_SLOT = np.array(hc.POTION_SLOT, dtype=np.float64)
_PER_OPPONENT = np.array([c in hc.PER_OPPONENT for c in range(_N_CARDS)], dtype=np.bool_)
_IN_PLAY_SPECIAL = np.array([c in hc.IN_PLAY_SPECIAL for c in range(_N_CARDS)], dtype=np.bool_)
_FUTURE_SPECIAL = np.array([c in hc.FUTURE_SPECIAL for c in range(_N_CARDS)], dtype=np.bool_)
_SUMMON_SPECIAL = np.array([c in hc.SUMMON_SPECIAL for c in range(_N_CARDS)], dtype=np.bool_)
_IS_FAMILIAR = np.array(hc.IS_FAMILIAR, dtype=np.bool_)
#: ``[players, card]``: crystals of the cost, and energy tokens in all.
_CRYSTAL_COST = np.zeros((5, _N_CARDS), dtype=np.int64)
_ENERGY_COST = np.zeros((5, _N_CARDS), dtype=np.int64)
#: ``[players, card, type]``: tokens of each type the card costs (the Python ``COST_TERMS``: types in order,
#: those it needs only; a 0 here is a type it does not need).
_TOKEN_COST = np.zeros((5, _N_CARDS, 4), dtype=np.int64)
for _n in (2, 3, 4):
    for _c in range(_N_CARDS):
        _CRYSTAL_COST[_n, _c] = hc.COST[_n][_c][4]
        _ENERGY_COST[_n, _c] = hc.ENERGY_COST[_n][_c]
        for _t, _k in hc.COST_TERMS[_n][_c]:
            _TOKEN_COST[_n, _c, _t] = _k
#: ``[purses, lanterns, space, type]``: ``values.continuation``'s table for 0-2 Purses of Io and 0-2 Lanterns.
_CONTINUATION = np.zeros((3, 3, END_SPACE + 4, 4), dtype=np.float64)
_END_OF = np.zeros(3, dtype=np.float64)
for _lanterns in range(3):
    _end = hc.END_VALUE + hc.LANTERN_VALUE * _lanterns  # a Python float: token_values caches by its arguments,
    _END_OF[_lanterns] = _end  # and a numpy float there would leave numpy floats in the Python player's tables
    for _purses in range(3):
        _CONTINUATION[_purses, _lanterns] = np.array(token_value_table(_purses, _end))
_ROUNDS = np.array([expected_rounds(k) for k in range(41)], dtype=np.float64)
_AFTER_YEAR1 = expected_rounds(END_SPACE - 12)
_AFTER_YEAR2 = expected_rounds(END_SPACE - 24)
_HELM_CHANCE = np.array(hc.HELM_CHANCE, dtype=np.float64)
_CHEST_IN_PLAY = np.array(hc.CHEST_IN_PLAY, dtype=np.float64)
_CHEST_IN_HAND = np.array(hc.CHEST_IN_HAND, dtype=np.float64)

_MOVE_MARKER = steps.kind("move_marker")
_TURN_START = steps.kind("turn_start")
_GAIN_ENERGY = steps.kind("gain_energy")
_SYLLAS = steps.kind("syllas_sacrifice")
_AMSUG = steps.kind("amsug_return")
_GAIN_COUNT = column("gain_energy", "count")
_GAIN_ONTO = column("gain_energy", "onto")
_GAIN_FROM_TYPE = column("gain_energy", "from_type")

# Weights as module constants (numba freezes them).
_OPPONENT_WEIGHT = hc.OPPONENT_WEIGHT
_OPPONENT_MEAN = hc.OPPONENT_MEAN
_GAUGE_PER_ROUND = hc.GAUGE_PER_ROUND
_TOKENS_PER_TURN = hc.TOKENS_PER_TURN
_ENERGY_PER_ROUND = hc.ENERGY_PER_ROUND
_OPPONENT_CARD_ENERGY = hc.OPPONENT_CARD_ENERGY
_HAND_DELAY0, _HAND_DELAY1 = hc.HAND_DELAY
_LIBRARY_DELAY0, _LIBRARY_DELAY1 = hc.LIBRARY_DELAY
_HAND_FLOOR = hc.HAND_FLOOR
_SLOT_VALUE = hc.SLOT_VALUE
_OPPONENT_CARD = hc.OPPONENT_CARD
_OPPONENT_SLOT = hc.OPPONENT_SLOT
_LIFE_HORIZON = hc.LIFE_HORIZON
_POTION_STORE = hc.POTION_STORE
_CAULDRON_DONE = hc.CAULDRON_DONE
_HELM_BONUS = hc.HELM_BONUS
_CHEST_BONUS = hc.CHEST_BONUS
_WONDROUS_FULL = hc.WONDROUS_FULL
_WONDROUS_SHORT = hc.WONDROUS_SHORT
_SOUL_ROUND = hc.SOUL_ROUND
_ABILITY_OPTION = hc.ABILITY_OPTION
_BONUS_LEFT = hc.BONUS_LEFT
_INFLOW_ROOM = hc.INFLOW_ROOM
_FORCED_SHARE = hc.FORCED_SHARE
_KAIRN_USE = hc.KAIRN_USE
_TRANSMUTE_CHANCE = hc.TRANSMUTE_CHANCE
_SHORTAGE = hc.SHORTAGE
_SHORTAGE_MAX = hc.SHORTAGE_MAX
_LANTERN_VALUE = hc.LANTERN_VALUE

_AMULET_OF_WATER = hc.AMULET_OF_WATER
_STAFF_OF_SPRING = hc.STAFF_OF_SPRING
_PURSE_OF_IO = hc.PURSE_OF_IO
_FIGRIM = hc.FIGRIM
_WONDROUS_CHEST = hc.WONDROUS_CHEST
_KAIRN = hc.KAIRN
_RAGFIELDS_HELM = hc.RAGFIELDS_HELM
_HAND_OF_FORTUNE = hc.HAND_OF_FORTUNE
_LEWIS = hc.LEWIS
_PENDANT = hc.PENDANT
_POTION_OF_POWER = hc.POTION_OF_POWER
_POTION_OF_DREAMS = hc.POTION_OF_DREAMS
_POTION_OF_KNOWLEDGE = hc.POTION_OF_KNOWLEDGE
_POTION_OF_LIFE = hc.POTION_OF_LIFE
_HOURGLASS = hc.HOURGLASS
_SCEPTER = hc.SCEPTER
_VASE = hc.VASE
_GLUTTON_CAULDRON = hc.GLUTTON_CAULDRON
_TITUS = hc.TITUS
_IDOL = hc.IDOL
_LANTERN = hc.LANTERN
_SEALED_CHEST = hc.SEALED_CHEST
_DAMNED_SOUL = hc.DAMNED_SOUL
_END_SPACE = END_SPACE
_MAX_BONUSES = MAX_BONUSES
_HIGH = 99  # the tokens left over for an opponent: every type unlimited (the Python [99] * 4)


# ---------------------------------------------------------------------------- the clock


@kernel
def _count(cards, count, card):
    """Copies of ``card`` among the first ``count`` entries of ``cards``."""
    k = 0
    for j in range(count):
        if cards[j] == card:
            k += 1
    return k


@kernel
def _clock(s, i):
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
            cards[p, j] = _CARD_OF[s.in_play[i, p, j]]
    in_round = False
    turn_pending = np.zeros(n, dtype=np.bool_)
    for k in range(s.stack_depth[i]):
        kind = s.stack[i, k, 0]
        if kind == _MOVE_MARKER:
            in_round = True
        elif kind == _TURN_START:
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
            next_start = float(_END_SPACE)
    else:
        next_start = float(a)
    if next_start < _END_SPACE:
        spaces = int(np.rint(_END_SPACE - next_start))  # Python's round: halves to even
        rounds_after = _ROUNDS[max(0, min(spaces, 40))]
    else:
        rounds_after = 0.0
    round_ends = rounds_after + (1.0 if in_round else 0.0)
    season_changes = max(0, 11 - a // 3) if a < _END_SPACE else 0
    return a, next_start, in_round, rounds_after, round_ends, season_changes, cards, counts, turn_pending


@kernel
def _token_values(s, i, p, next_start, rounds_after, cards, count, turn_pending):
    """``heuristic_eval.token_values`` of ``p``: what one token of each type is worth once its turn is over."""
    purses = _count(cards, count, _PURSE_OF_IO)
    lanterns = _count(cards, count, _LANTERN)
    start = int(next_start)
    later = np.full(4, _END_OF[lanterns]) if start >= _END_SPACE else _CONTINUATION[purses, lanterns, start].copy()
    floor = 0.0
    if _count(cards, count, _POTION_OF_LIFE) and (rounds_after > 0 or turn_pending[p] or s.turn_player[i] == p):
        floor = (4.0 + purses) * min(1.0, max(0.0, 1.0 - (rounds_after - 1.0) / _LIFE_HORIZON))
    values = np.empty(4)
    if not turn_pending[p]:
        for t in range(4):
            values[t] = max(later[t], floor) if floor else later[t]
    else:
        q = _TRANSMUTE_CHANCE
        season = s.dice_season[i]
        for r in range(s.rolled_count[i]):  # the die the player took this round, if any
            if s.rolled[i, r, 2] == p:
                q = 1.0 if DIE_TRANSMUTE[season, s.rolled[i, r, 0], s.rolled[i, r, 1]] else 0.1
                break
        rates_row = (np.int64(s.position[i]) - 1) // 3
        for t in range(4):
            rate = _TRANSMUTE_RATE[rates_row, t] + purses
            values[t] = max(floor, q * max(float(rate), later[t]) + (1.0 - q) * later[t])
    return values


# ---------------------------------------------------------------------------- row reads


@kernel
def _stored_of(s, i, inst):
    """The tokens stored on instance ``inst`` and whether it has a token record (``Game.stored.get``)."""
    row = STORED_ROW[inst]
    out = np.zeros(4, dtype=np.int64)
    if row < 0 or not s.stored_present[i, row]:
        return out, False
    for t in range(4):
        out[t] = s.stored[i, row, t]
    return out, True


@kernel
def _hand_cards(s, i, p):
    """The hand of ``p`` as the Python sorted tuple of card ids."""
    size = 0
    for c in range(1, _N_CARDS):
        size += s.hand[i, p, c]
    out = np.zeros(size, dtype=np.int64)
    k = 0
    for c in range(1, _N_CARDS):
        for _ in range(s.hand[i, p, c]):
            out[k] = c
            k += 1
    return out


@kernel
def _library_set(s, i, p, year_index):
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
def _sum4(values):
    """Python's ``sum`` of four floats (from 0, left to right)."""
    return 0.0 + values[0] + values[1] + values[2] + values[3]


# ---------------------------------------------------------------------------- single cards (heuristic_cards.py)


@kernel
def _summon_value(s, i, p, c, tv, items, waiting, n):
    if c == _SCEPTER:
        return 3.0 * (items + 0.5 * max(0, waiting - 1))
    if c == _PENDANT:
        return (items + 0.5 * max(0, waiting - 1)) * _sum4(tv) / 4.0
    if c == _LEWIS:
        best = -1
        for k in range(1, n):
            q = (p + k) % n
            best = max(best, reserve_total(s, i, q))
        return best * _sum4(tv) / 4.0
    return _SUMMON[c]


@kernel
def _card_future(p, c, tv, rounds, waiting, n, rounds_after, season_changes, cards, count):
    k = (n - 1) if _PER_OPPONENT[c] else 1
    income = _INCOME[c] * rounds * k
    if c in (_STAFF_OF_SPRING, _VASE):
        per = 3.0 if c == _STAFF_OF_SPRING else _sum4(tv) / 4.0
        return income + per * min(float(waiting - 1), 0.6 * rounds)
    if c == _FIGRIM:
        return income + 2.0 * (n - 1) * season_changes * min(1.0, rounds / max(rounds_after, 1.0))
    if c == _TITUS:
        return income + 2.0 * (n - 1) * rounds
    if c == _HOURGLASS:
        return income + season_changes * _sum4(tv) / 4.0 * min(1.0, rounds / max(rounds_after, 1.0))
    if c == _WONDROUS_CHEST:
        return income + 3.0 * rounds * _WONDROUS_SHORT
    if c == _RAGFIELDS_HELM:
        return income + 0.4 * _HELM_BONUS
    if c == _SEALED_CHEST:
        familiars = False
        for j in range(count[p]):
            if _IS_FAMILIAR[cards[p, j]]:
                familiars = True
        return income + _CHEST_IN_HAND[0 if familiars else 1] * _CHEST_BONUS
    if c == _GLUTTON_CAULDRON:
        return income + _CAULDRON_DONE * min(1.0, rounds / 8.0)
    if c == _IDOL:
        return income + rounds * 1.0
    if c == _LANTERN:
        return income + _LANTERN_VALUE * 3.0
    if c == _KAIRN:
        return income + _KAIRN_USE * (4.0 * (n - 1) - min(tv[0], tv[1], tv[2], tv[3])) * rounds
    if c == _DAMNED_SOUL:
        return income - 5.0
    return income


@kernel
def _potion_value(s, i, p, c, rounds_after, tv, avg_tv, private, cards, count):
    """``heuristic_cards.potion_value``: what a potion waiting in play is worth."""
    store = _POTION_STORE
    if c == _POTION_OF_LIFE:
        if rounds_after < 1.0:
            return 0.0
        limit = reserve_limit(s, i, p)
        ramp = min(1.0, max(0.0, 1.0 - (rounds_after - 1.0) / _LIFE_HORIZON))
        room = max(0.0, limit - ramp * reserve_total(s, i, p))
        coming = min(room, _ENERGY_PER_ROUND * rounds_after)
        return store * coming * max(0.0, 4 + _count(cards[p], count[p], _PURSE_OF_IO) - avg_tv)
    if c == _POTION_OF_KNOWLEDGE:
        return store * 5.0 * avg_tv
    if c == _POTION_OF_POWER:
        return store * 4.0
    if c == _POTION_OF_DREAMS:
        if not private:  # an opponent's hand is hidden: a typical card for it, if it holds any
            for h in range(1, _N_CARDS):
                if s.hand[i, p, h]:
                    return store * 0.5 * _OPPONENT_CARD
            return 0.0
        best = 0.0
        first = True
        for h in range(1, _N_CARDS):
            if s.hand[i, p, h]:
                v = _PRESTIGE[h] + _SUMMON[h]
                if first or v > best:
                    best = v
                    first = False
        return store * 0.5 * best
    return 0.0


@kernel
def _in_play_value(s, i, p, inst, c, value, clock, tv, avg_tv, expected_summons, n, private):
    """``heuristic_cards.in_play_value``: instance ``inst`` (card ``c``) in ``p``'s play area."""
    _, _, _, rounds_after, round_ends, season_changes, cards, count, turn_pending = clock
    if c == _AMULET_OF_WATER:
        stored, present = _stored_of(s, i, inst)
        if present:
            value += stored[0] * tv[0] + stored[1] * tv[1] + stored[2] * tv[2] + stored[3] * tv[3]
    elif c == _STAFF_OF_SPRING:
        value += 3.0 * expected_summons
    elif c == _VASE:
        value += avg_tv * expected_summons
    elif c == _FIGRIM:
        value += (n - 1) * season_changes
    elif c == _WONDROUS_CHEST:
        chance = _WONDROUS_FULL if reserve_total(s, i, p) >= 4 else _WONDROUS_SHORT
        value += 3.0 * (chance + _WONDROUS_SHORT * max(0.0, round_ends - 1.0))
    elif c == _RAGFIELDS_HELM:
        most = 0
        for k in range(1, n):
            most = max(most, count[(p + k) % n])
        lead = count[p] - most
        chance = _HELM_CHANCE[max(-2, min(2, lead)) + 2]
        if rounds_after < 1.0 and lead <= 0:
            chance = 0.0 if lead < 0 else 0.1
        value += chance * _HELM_BONUS
    elif c == _HOURGLASS:
        value += season_changes * avg_tv
    elif c == _GLUTTON_CAULDRON:
        stored, _ = _stored_of(s, i, inst)
        total = stored[0] + stored[1] + stored[2] + stored[3]
        rounds = rounds_after + (1.0 if turn_pending[p] else 0.0)
        chance = min(1.0, rounds / max(1.0, 7.0 - total))
        value += chance * (_CAULDRON_DONE + total * avg_tv)
    elif c == _TITUS:
        value += (n - 1) * round_ends
    elif c == _IDOL:
        familiars = 0
        for j in range(count[p]):
            if _IS_FAMILIAR[cards[p, j]]:
                familiars += 1
        value += familiars * rounds_after
    elif c == _SEALED_CHEST:
        familiars = False
        for j in range(count[p]):
            if _IS_FAMILIAR[cards[p, j]]:
                familiars = True
        value += _CHEST_IN_PLAY[0 if familiars else 1] * _CHEST_BONUS
    elif c == _DAMNED_SOUL:
        value -= _SOUL_ROUND * min(round_ends, 2.0)
    elif c == _KAIRN:
        value -= _KAIRN_USE * rounds_after * min(tv[0], tv[1], tv[2], tv[3])
    elif _POTION_SLOT[c]:
        value += _potion_value(s, i, p, c, rounds_after, tv, avg_tv, private, cards, count)
    return value


@kernel
def _threats(s, i, p, n, clock):
    """``heuristic_cards.threats``: crystals the opponents' Figrim, Titus and Kairn will take from ``p``."""
    _, _, _, rounds_after, round_ends, season_changes, cards, count, _ = clock
    lost = 0.0
    for k in range(1, n):
        q = (p + k) % n
        for j in range(count[q]):
            c = cards[q, j]
            if c == _FIGRIM:
                lost += season_changes
            elif c == _TITUS:
                lost += round_ends
            elif c == _KAIRN:
                lost += _KAIRN_USE * 4.0 * rounds_after
    return min(lost, s.crystals[i, p] + 2.0 * rounds_after)


# ---------------------------------------------------------------------------- sorts in Python's tuple order


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
    """``heuristic_eval._waiting_order`` and ``_waiting_cards``: the value of the seat's hand and library sets,
    the expected number of summons and the tokens left over once the best cards have taken theirs."""
    a, _, _, rounds_after, _, season_changes, cards, count, _ = clock
    hands = _count(cards[p], count[p], _HAND_OF_FORTUNE)
    hand = _hand_cards(s, i, p)
    lib2 = _library_set(s, i, p, 0)
    lib3 = _library_set(s, i, p, 1)
    leech = leech_toll(s, i, p)
    items_in_play = 0
    for j in range(count[p]):
        if _IS_ITEM[cards[p, j]]:
            items_in_play += 1
    waiting = hand.shape[0] + lib2.shape[0] + lib3.shape[0]
    # (net value before its tokens, card, cost of waiting, rounds) per card, as _waiting_order builds them
    order = np.zeros((waiting, 4))
    k = 0
    for group in range(3):
        if group == 0:
            group_cards = hand
            rounds = turns
            delay0, delay1 = _HAND_DELAY0, _HAND_DELAY1
        else:
            if lib2.shape[0] == 0 and lib3.shape[0] == 0:
                break
            if group == 1:
                group_cards = lib2
                after = _AFTER_YEAR1 if a < 12 else turns
            else:
                group_cards = lib3
                after = _AFTER_YEAR2 if a < 24 else turns
            rounds = min(turns, after)
            delay0, delay1 = _LIBRARY_DELAY0, _LIBRARY_DELAY1
        for c in group_cards:
            terms = 0.0  # Python's sum of a list (from int 0): the first term is exact
            for t in range(4):
                if _TOKEN_COST[n, c, t]:
                    terms += _TOKEN_COST[n, c, t] * tv[t]
            price = (_CRYSTAL_COST[n, c] + leech) + terms
            energy_cost = _ENERGY_COST[n, c]
            if hands and energy_cost > 1:
                price -= min(hands, energy_cost - 1) * 2.0
            if _FUTURE_SPECIAL[c]:
                future = _card_future(p, c, tv, rounds, waiting, n, rounds_after, season_changes, cards, count)
            elif _PER_OPPONENT[c]:
                future = _INCOME[c] * rounds * (n - 1)
            else:
                future = _INCOME[c] * rounds
            if _SUMMON_SPECIAL[c]:
                gross = _PRESTIGE[c] + _summon_value(s, i, p, c, tv, items_in_play, waiting, n) + future
            else:
                gross = _PRESTIGE[c] + _SUMMON[c] + future
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
        cost = _ENERGY_COST[n, c]
        short = 0
        for t in range(4):
            need = _TOKEN_COST[n, c, t]
            if need:
                have = left[t]
                use = need if need < have else have
                left[t] = have - use
                short += need - use
        if short:
            if hands and cost > 1:
                short = max(0, short - min(hands, cost - 1))
            if short > _TOKENS_PER_TURN * rounds:
                net = _HAND_FLOOR
            elif short:
                per_token = net / cost if cost else 0.0
                net -= short * max(_SHORTAGE, min(_SHORTAGE_MAX, per_token))
        entries[k, 0] = net
        entries[k, 1] = order[k, 2]
        entries[k, 2] = _GAUGE_WEIGHT[c]
        entries[k, 3] = cost
        entries[k, 4] = c
    _sort_rows_descending(entries, waiting)
    room = capacity
    total = 0.0
    summons = 0.0
    floor = _HAND_FLOOR
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
        total += min(room, 2.0) * _SLOT_VALUE
    return total, summons, left


@kernel
def _seat_value(s, i, p, n, clock, private):
    """``heuristic_eval._seat_value``: the projected final score of ``p`` (``private``: its hand and libraries
    may be read, else they count by size only)."""
    _, next_start, _, rounds_after, _, _, cards, count, turn_pending = clock
    tv = _token_values(s, i, p, next_start, rounds_after, cards[p], count[p], turn_pending)
    avg_tv = _sum4(tv) / 4.0
    used = s.bonuses_used[i, p]
    value = float(s.crystals[i, p]) - _BONUS_PENALTY[used]
    value += _BONUS_LEFT * (_MAX_BONUSES - used) * min(1.0, rounds_after / 4.0)

    # Tokens: the best are kept; the last places of the reserve are discounted; past the limit they are lost.
    limit = reserve_limit(s, i, p)
    total = reserve_total(s, i, p)
    keep = limit if _count(cards[p], count[p], _POTION_OF_LIFE) else limit - _INFLOW_ROOM
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
                    held[k, 0] = held[k, 0] * _FORCED_SHARE
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
        slots = _POTION_SLOT[cards[p, j]]
        if slots:
            free += slots
    capacity = free + _GAUGE_PER_ROUND * rounds_after
    turns = rounds_after + (1.0 if turn_pending[p] else 0.0)
    if _count(cards[p], count[p], _AMULET_OF_WATER):
        spend = spendable(s, i, p)
    else:
        spend = np.zeros(4, dtype=np.int64)
        for t in range(4):
            spend[t] = s.reserve[i, p, t]
    energy = (spend[0] + spend[1] + spend[2] + spend[3]) + _ENERGY_PER_ROUND * turns
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
        playable = min(max(0.0, capacity), energy / _OPPONENT_CARD_ENERGY)
        share = min(1.0, playable / waiting) if waiting else 0.0
        per_card = share * _OPPONENT_CARD + (1.0 - share) * _HAND_FLOOR
        hand_value = waiting * per_card + max(0.0, min(free, 3.0) - waiting) * _OPPONENT_SLOT
        expected_summons = min(float(waiting), playable)
        spare = np.full(4, _HIGH, dtype=np.int64)
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
                gain += max(0.0, _TRANSMUTE_RATE[rates_row, t] + extra - v)
            else:
                gain += max(0.0, _TRANSMUTE_RATE[rates_row, t] + extra - v - _SHORTAGE)
        for j in range(count[p]):
            inst = s.in_play[i, p, j]
            if _CARD_OF[inst] == _AMULET_OF_WATER:
                stored, present = _stored_of(s, i, inst)
                if present:
                    amulet = 0.0
                    for t in range(4):
                        amulet += stored[t] * max(0.0, _TRANSMUTE_RATE[rates_row, t] + extra - tv[t])
                    gain += amulet
        value += gain if gain > 0 else _ABILITY_OPTION

    # Cards in play: prestige and income, and what the position adds for some.
    for j in range(count[p]):
        inst = s.in_play[i, p, j]
        c = _CARD_OF[inst]
        base = _PRESTIGE[c] + _INCOME[c] * rounds_after * ((n - 1) if _PER_OPPONENT[c] else 1)
        if _IN_PLAY_SPECIAL[c]:
            value += _in_play_value(s, i, p, inst, c, base, clock, tv, avg_tv, expected_summons, n, private)
        else:
            value += base
    return value - _threats(s, i, p, n, clock)


@kernel
def _pending_adjustments(s, i, n, clock, values):
    """``heuristic_eval._pending_adjustments``: tokens still to gain, cards still to sacrifice."""
    _, next_start, _, rounds_after, _, _, cards, count, turn_pending = clock
    for k in range(s.stack_depth[i] - 1, -1, -1):  # the decision asked first, as Game.pending_steps
        kind = s.stack[i, k, 0]
        q = s.stack[i, k, 1]
        if kind == _GAIN_ENERGY:
            tv = _token_values(s, i, q, next_start, rounds_after, cards[q], count[q], turn_pending)
            gained = np.int64(s.stack[i, k, _GAIN_COUNT])
            if s.stack[i, k, _GAIN_ONTO] < 0:
                gained = min(gained, max(0, reserve_limit(s, i, q) - reserve_total(s, i, q)))
            best = tv[s.stack[i, k, _GAIN_FROM_TYPE]]
            for t in range(s.stack[i, k, _GAIN_FROM_TYPE] + 1, 4):
                best = max(best, tv[t])
            values[q] += gained * best
        elif kind == _SYLLAS:
            if count[q]:
                lowest = _PRESTIGE[cards[q, 0]]
                for j in range(1, count[q]):
                    lowest = min(lowest, _PRESTIGE[cards[q, j]])
                values[q] -= 2.0 + lowest
        elif kind == _AMSUG:
            for j in range(count[q]):
                if _IS_ITEM[cards[q, j]]:
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
    clock = _clock(s, i)
    for p in range(n):
        values[p] = _seat_value(s, i, p, n, clock, p == seat)
    _pending_adjustments(s, i, n, clock, values)
    return values


@kernel
def _margin(values, p):
    """``values[p]`` less the opponents' blend (``heuristic_eval._blend``)."""
    n = values.shape[0]
    if n == 2:
        return values[p] - _OPPONENT_WEIGHT * values[1 - p]
    best = -np.inf
    total = 0.0
    for q in range(n):
        if q != p:
            best = max(best, values[q])
            total += values[q]
    blend = (1.0 - _OPPONENT_MEAN) * best + _OPPONENT_MEAN * total / (n - 1)
    return values[p] - _OPPONENT_WEIGHT * blend


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


numba.config.CACHE_DIR = _ENGINE_CACHE_DIR
