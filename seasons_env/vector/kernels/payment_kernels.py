"""The kernels of ``engine/payment.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements: every kind its engine counterpart registers.

Token sources are numbered as in the action table: 0 the reserve, 1 and 2 the Amulet of Water copies (a source
counts only while its copy is in the player's play, ``State.amulet_sources``).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.card_constants import STAFF_OF_SPRING_CRYSTALS
from seasons_env.engine.data import Card

from . import hooks, kernel
from .state_ops import (
    add_to_play,
    add_token,
    count_in_play,
    from_limbo,
    gain_tokens_of_choice,
    hand_remove,
    instance_in_play,
    num_players,
    push,
    remove_token,
    reserve_limit,
    reserve_total,
    spend_token,
    spendable,
    store_token,
    to_limbo,
    tokens_at,
    transfer_crystals,
)
from .tables import AMULET_OF_WATER_INSTANCES, CARD_OF_INSTANCE, COSTS, STORED_ROW

GAIN_ENERGY = steps.kind("gain_energy")
OVERFLOW = steps.kind("overflow")
EXCHANGE_DISCARD = steps.kind("exchange_discard")
ELEMENTAL_CHOICE = steps.kind("elemental_amulet_set")
PAYMENT = steps.kind("payment")
WAIVE_COST = steps.kind("hand_of_fortune")
PAY_SOURCE = steps.kind("pay_source")
DISCARD_TOKENS = steps.kind("discard_tokens")
ENTER_PLAY = steps.kind("enter_play")
AFTER_SUMMON = steps.kind("after_summon")
_ARCANO_LEECH = int(Card.ARCANO_LEECH)
_ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
_HAND_OF_FORTUNE = int(Card.HAND_OF_FORTUNE)
_STAFF_OF_SPRING = int(Card.STAFF_OF_SPRING)
_YJANGS_FORGOTTEN_VASE = int(Card.YJANGS_FORGOTTEN_VASE)
_NUM_SOURCES = A.NUM_SOURCES

# Action ids, built and read through actions.py's pairs (the kernels cannot call them).
#: ``CHOOSE_ENERGY_ACTION[energy]``, ``PAY_ACTION[source, energy]``, ``ELEMENTAL_SET_ACTION[mask]`` (mask 1..15).
CHOOSE_ENERGY_ACTION = np.array(A.CHOOSE_ENERGY_ACTIONS, dtype=np.int64)
PAY_ACTION = np.array(A.PAY_ACTIONS, dtype=np.int64)
ELEMENTAL_SET_ACTION = np.array([-1, *(A.elemental_set_action(mask) for mask in range(1, 16))], dtype=np.int64)
#: By action id: the energy a choose-energy or pay action names, the source a pay action names, the mask an
#: Elemental Amulet action names (-1 for other actions).
ENERGY_OF_ACTION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
SOURCE_OF_ACTION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
MASK_OF_ACTION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _action in A.CHOOSE_ENERGY_ACTIONS:
    ENERGY_OF_ACTION[_action] = A.energy_of_choice(_action)
for _actions in A.PAY_ACTIONS:
    for _action in _actions:
        SOURCE_OF_ACTION[_action], ENERGY_OF_ACTION[_action] = A.payment_of_action(_action)
for _mask in range(1, 16):
    MASK_OF_ACTION[A.elemental_set_action(_mask)] = _mask

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements: every kind ``engine/payment.py``
#: registers (generated from the engine's registry, so a kind added there fails here until it is ported).
KINDS_HANDLED: tuple[str, ...] = steps.kinds_registered_by("seasons_env.engine.payment")


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``)."""
    if kind == PAYMENT:
        run_payment(s, i, task)
    elif kind == ENTER_PLAY:
        run_enter_play(s, i, task)
    elif kind == AFTER_SUMMON:
        run_after_summon(s, i, task)
    else:
        raise ValueError("run_step: a step kind this module does not handle")


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    p = task[1]
    if kind == GAIN_ENERGY:
        count = 0
        for t in range(task[4], 4):
            out[count] = CHOOSE_ENERGY_ACTION[t]
            count += 1
        return count
    if kind == OVERFLOW:
        excess = reserve_total(s, i, p) - reserve_limit(s, i, p)
        if excess <= 0:
            return 0
        return reserve_energy_options(s, i, p, task[2], excess, out)
    if kind == EXCHANGE_DISCARD:
        return reserve_energy_options(s, i, p, task[3], task[2], out)
    if kind == ELEMENTAL_CHOICE:
        return elemental_options(s, i, p, out)
    if kind == WAIVE_COST:
        return waiver_options(s, i, p, task[2:6], task[6], task[7], out)
    if kind == PAY_SOURCE:
        return pay_source_options(s, i, p, task[2:6], task[6], out)
    if kind == DISCARD_TOKENS:
        return discard_tokens_options(s, i, p, task[2], task[3], out)
    raise ValueError("options: a step kind this module does not handle")


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    if i >= 0:  # always: none of this module's decisions is private, so the machine never asks
        raise ValueError("private: a step kind this module does not handle")
    return False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    p = task[1]
    if kind == GAIN_ENERGY:
        _resolve_gain_energy(s, i, task, action)
    elif kind == OVERFLOW:
        energy = ENERGY_OF_ACTION[action]
        remove_token(s, i, p, energy, 1)
        if reserve_total(s, i, p) > reserve_limit(s, i, p):
            push(s, i, OVERFLOW, p, energy)
    elif kind == EXCHANGE_DISCARD:
        energy = ENERGY_OF_ACTION[action]
        remove_token(s, i, p, energy, 1)
        if task[2] > 1:
            push(s, i, EXCHANGE_DISCARD, p, task[2] - 1, energy)
    elif kind == ELEMENTAL_CHOICE:
        _resolve_elemental(s, i, p, action)
    elif kind == WAIVE_COST:
        t = ENERGY_OF_ACTION[action]
        _push_waived(s, i, p, task[2:6], t, task[6] - 1)
    elif kind == PAY_SOURCE:
        _resolve_pay_source(s, i, p, task[2:6], action)
    elif kind == DISCARD_TOKENS:
        spend_token(s, i, p, SOURCE_OF_ACTION[action], ENERGY_OF_ACTION[action])
        if task[2] > 1:
            push(s, i, DISCARD_TOKENS, p, task[2] - 1, action)
    else:
        raise ValueError("resolve: a step kind this module does not handle")


# ---------------------------------------------------------------------------- tokens gained and discarded


@kernel
def _resolve_gain_energy(s, i, task, action):
    p, count, onto = task[1], task[2], task[3]
    energy = ENERGY_OF_ACTION[action]
    if onto < 0:
        add_token(s, i, p, energy, 1)
    elif STORED_ROW[onto] >= 0 and s.stored_present[i, STORED_ROW[onto]]:  # ``onto in game.stored``
        store_token(s, i, onto, energy)
    if count > 1:
        push(s, i, GAIN_ENERGY, p, count - 1, onto, energy)


@kernel
def reserve_energy_options(s, i, player, first, count, out):
    """Reserve types from ``first`` on that can start discarding ``count`` tokens in non-decreasing type order."""
    found = 0
    for t in range(first, 4):
        rest = 0
        for u in range(t, 4):
            rest += np.int64(s.reserve[i, player, u])
        if s.reserve[i, player, t] and rest >= count:
            out[found] = CHOOSE_ENERGY_ACTION[t]
            found += 1
    return found


# ---------------------------------------------------------------------------- Elemental Amulet


@kernel
def elemental_options(s, i, player, out):
    available = spendable(s, i, player)
    hands = count_in_play(s, i, player, _HAND_OF_FORTUNE)
    found = 0
    for mask in range(1, 16):
        size = 0
        owned = 0
        for t in range(4):
            if mask >> t & 1:
                size += 1
                if available[t]:
                    owned += 1
        if owned >= max(1, size - hands):
            out[found] = ELEMENTAL_SET_ACTION[mask]
            found += 1
    return found


@kernel
def _resolve_elemental(s, i, player, action):
    mask = MASK_OF_ACTION[action]
    size = 0
    for t in range(4):
        size += mask >> t & 1
    waivers = min(count_in_play(s, i, player, _HAND_OF_FORTUNE), size - 1)
    # The payment runs first, then the amulet enters (pushed last-first).
    push(s, i, ENTER_PLAY, player, _ELEMENTAL_AMULET, 1, mask)
    push(s, i, PAYMENT, player, mask & 1, mask >> 1 & 1, mask >> 2 & 1, mask >> 3 & 1, waivers, 0)


# ---------------------------------------------------------------------------- paying an energy cost


@kernel
def _source_open(s, i, player, source):
    """Source 0 (the reserve) always; an Amulet of Water copy while it is in the player's play."""
    return source == 0 or instance_in_play(s, i, player, AMULET_OF_WATER_INSTANCES[source - 1])


@kernel
def run_payment(s, i, task):
    """Pay an energy cost: Hand of Fortune's savings first, then the tokens, asking only real choices."""
    p, waivers, first = task[1], task[6], task[7]
    need = task[2:6]
    if waivers and need[0] + need[1] + need[2] + need[3] > 1:
        out = np.empty(4, dtype=np.int64)
        found = waiver_options(s, i, p, need, waivers, first, out)
        if found == 1:
            _push_waived(s, i, p, need, ENERGY_OF_ACTION[out[0]], waivers - 1)
        else:
            push(s, i, WAIVE_COST, p, need[0], need[1], need[2], need[3], waivers, first)
        return
    remaining = need.copy()
    for t in range(4):
        if remaining[t]:
            pay_forced(s, i, p, remaining, t, 0)
    if remaining[0] or remaining[1] or remaining[2] or remaining[3]:
        push(s, i, PAY_SOURCE, p, remaining[0], remaining[1], remaining[2], remaining[3], 0)


@kernel
def _push_waived(s, i, player, need, saved, waivers):
    """The payment of ``need`` less one token of type ``saved``, with ``waivers`` savings left."""
    after = need.copy()
    after[saved] -= 1
    push(s, i, PAYMENT, player, after[0], after[1], after[2], after[3], waivers, saved)


@kernel
def pay_forced(s, i, player, remaining, energy, first_source):
    """Pay tokens of one type from sources ``first_source`` on when there is no choice left (``remaining``: int64
    ``[4]``, updated)."""
    holding = 0
    held = 0
    for source in range(first_source, _NUM_SOURCES):
        if _source_open(s, i, player, source):
            n = tokens_at(s, i, player, source, energy)
            if n:
                holding += 1
                held += n
    if holding == 1 or held == remaining[energy]:
        for source in range(first_source, _NUM_SOURCES):
            if not _source_open(s, i, player, source):
                continue
            while remaining[energy] and tokens_at(s, i, player, source, energy):
                spend_token(s, i, player, source, energy)
                remaining[energy] -= 1
        if remaining[energy]:
            raise ValueError("a payment kernel could not pay a cost")


@kernel
def waiver_options(s, i, player, need, waivers, first, out):
    """Types Hand of Fortune may save next, in non-decreasing type order, keeping the cost payable."""
    available = spendable(s, i, player)
    found = 0
    after = np.empty(4, dtype=np.int64)
    for t in range(first, 4):
        if not need[t]:
            continue
        for u in range(4):
            after[u] = need[u] - (1 if u == t else 0)
        blocked = False
        missing = 0
        for u in range(4):
            if after[u] > available[u]:
                if u < t:  # a type that must still be saved could no longer be
                    blocked = True
                missing += after[u] - available[u]
        if blocked:
            continue
        later = 0
        for u in range(t, 4):
            later += after[u]
        if missing > waivers - 1 or later < waivers - 1:
            continue
        out[found] = CHOOSE_ENERGY_ACTION[t]
        found += 1
    return found


@kernel
def pay_source_options(s, i, player, need, first_source, out):
    """The lowest type still owed, from sources at or after the last one used for it."""
    t = 0
    while not need[t]:
        t += 1
    found = 0
    for source in range(first_source, _NUM_SOURCES):
        if not _source_open(s, i, player, source) or not tokens_at(s, i, player, source, t):
            continue
        rest = 0
        for other in range(source, _NUM_SOURCES):
            if _source_open(s, i, player, other):
                rest += tokens_at(s, i, player, other, t)
        if rest >= need[t]:
            out[found] = PAY_ACTION[source, t]
            found += 1
    return found


@kernel
def _resolve_pay_source(s, i, player, need, action):
    source = SOURCE_OF_ACTION[action]
    t = ENERGY_OF_ACTION[action]
    spend_token(s, i, player, source, t)
    remaining = need.copy()
    remaining[t] -= 1
    if remaining[t]:
        pay_forced(s, i, player, remaining, t, source)
    if remaining[0] or remaining[1] or remaining[2] or remaining[3]:
        push(
            s,
            i,
            PAY_SOURCE,
            player,
            remaining[0],
            remaining[1],
            remaining[2],
            remaining[3],
            source if remaining[t] else 0,
        )


@kernel
def discard_tokens_options(s, i, player, count, first, out):
    """Discard ``count`` tokens of any types (Kairn, Tree of Light, Crystal Orb), in (source, type) order."""
    held = np.zeros((_NUM_SOURCES, 4), dtype=np.int64)
    for source in range(_NUM_SOURCES):
        if _source_open(s, i, player, source):
            for t in range(4):
                held[source, t] = tokens_at(s, i, player, source, t)
    found = 0
    rest = held.sum()  # tokens held from (source, t) on, in (source, type) order
    for source in range(_NUM_SOURCES):
        for t in range(4):
            if held[source, t] and PAY_ACTION[source, t] >= first and rest >= count:
                out[found] = PAY_ACTION[source, t]
                found += 1
            rest -= held[source, t]
    return found


# ---------------------------------------------------------------------------- entering play


@kernel
def enter_play_placed(s, i, task):
    """``enter_play`` up to its card's on-summon effect: the card leaves limbo for the player's play (the first
    copy not in anyone's play), its stored tokens start at zero, and Staff of Spring and the Vase are scheduled
    if it came from hand; returns its instance."""
    p, card, from_hand = task[1], task[2], task[3]
    from_limbo(s, i, card)
    lo = 2 * (card - 1)
    taken = False
    for q in range(num_players(s)):
        for k in range(s.in_play_count[i, q]):
            if s.in_play[i, q, k] == lo:
                taken = True
    instance = lo + 1 if taken else lo
    add_to_play(s, i, p, instance)
    if hooks.STORES_TOKENS[card]:
        row = STORED_ROW[instance]
        s.stored_present[i, row] = True
        for t in range(4):
            s.stored[i, row, t] = 0
    if from_hand:
        push(s, i, AFTER_SUMMON, p, instance)
    return instance


@kernel
def run_enter_play(s, i, task):
    instance = enter_play_placed(s, i, task)
    hooks.on_summon(s, i, task[1], instance, task[4])


@kernel
def run_after_summon(s, i, task):
    """Staff of Spring and Yjang's Forgotten Vase, for a card summoned from hand (not themselves)."""
    p, instance = task[1], task[2]
    staffs = 0
    vases = 0
    for k in range(s.in_play_count[i, p]):
        other = s.in_play[i, p, k]
        if other == instance:
            continue
        card = CARD_OF_INSTANCE[other]
        if card == _STAFF_OF_SPRING:
            staffs += 1
        elif card == _YJANGS_FORGOTTEN_VASE:
            vases += 1
    s.crystals[i, p] += STAFF_OF_SPRING_CRYSTALS * staffs
    gain_tokens_of_choice(s, i, p, vases, -1)


# ---------------------------------------------------------------------------- summoning from hand


@kernel
def begin_summon_from_hand(s, i, player, card):
    """Summon from hand: Arcano Leech tolls, the crystal cost, then the energy cost, then the card enters."""
    hand_remove(s, i, player, card)
    to_limbo(s, i, card)
    n = num_players(s)
    for k in range(1, n):
        q = (player + k) % n
        for _ in range(count_in_play(s, i, q, _ARCANO_LEECH)):
            transfer_crystals(s, i, player, q, 1)
    cost = COSTS[n, card]
    s.crystals[i, player] -= cost[4]
    if card == _ELEMENTAL_AMULET:
        push(s, i, ELEMENTAL_CHOICE, player)
        return
    total = cost[0] + cost[1] + cost[2] + cost[3]
    hands = count_in_play(s, i, player, _HAND_OF_FORTUNE)
    waivers = min(hands, total - 1) if total > 1 else 0
    # The payment runs first, then the card enters (pushed last-first). Step columns: see tables.column.
    push(s, i, ENTER_PLAY, player, card, 1, 0)
    push(s, i, PAYMENT, player, cost[0], cost[1], cost[2], cost[3], waivers, 0)
