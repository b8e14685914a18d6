"""The kernels of ``engine/flow.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements; the machine runs any other kind of this
module's engine counterpart on the reference engine (exact, slower).

Each function mirrors the engine function of the same role in ``flow.py`` (``_run_<kind>``, ``_opt_<kind>``,
``_res_<kind>``, ``activate``, ``_end_turn``) and ``State.summonable_from_hand``; steps the engine pushes as
``push(a, b, c)`` are pushed here last-first (c, then b, then a).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import DICE_PER_SEASON, LIBRARY_SET_SIZE, MAX_BONUSES, Card
from seasons_env.engine.flow import MALICE_INSTANCES, ROUND_EFFECT_ORDER

from . import hooks, kernel
from .payment_kernels import begin_summon_from_hand
from .state_ops import (
    add_gauge,
    add_tokens,
    below,
    count_in_play,
    discard,
    draw_into_limbo,
    from_limbo,
    hand_add,
    hand_remove,
    hand_size,
    has_room,
    instance_in_play,
    leech_toll,
    move_marker,
    num_players,
    push,
    push_row,
    reserve_total,
    score,
    season,
    spend_token,
    thieving_fairies,
    transmute_bonus,
)
from .tables import (
    ACTIVATE_ACTION,
    AMULET_OF_WATER_INSTANCES,
    CARD_OF_INSTANCE,
    COSTS,
    DIE_CRYSTALS,
    DIE_DRAW,
    DIE_ENERGY,
    DIE_GAUGE,
    DIE_PIPS,
    DIE_TRANSMUTE,
    FACES_PER_DIE,
    GAUGE_MAX,
    INSTANCE_OF_ACTIVATION,
    NO_VALUE,
    NUM_CARDS,
    NUM_YEARS,
    STEP_WIDTH,
    STORED_ROW,
    TRANSMUTE_RATES,
    column,
    width,
)

DRAFT_PICK = steps.kind("draft_pick")
DRAFT_PASS = steps.kind("draft_pass")
LIBRARY_SPLIT = steps.kind("library_split")
START_ROUND = steps.kind("start_round")
CHOOSE_DIE = steps.kind("choose_die")
TURN_START = steps.kind("turn_start")
MALICE_WINDOW = steps.kind("die_of_malice_window")
DIE_ACTIONS = steps.kind("die_actions")
DRAW_SYMBOL = steps.kind("draw_symbol")
KEEP_OR_DISCARD = steps.kind("keep_or_discard")
KEEP_ONE = steps.kind("keep_one")
TURN = steps.kind("turn")
ROUND_END_EFFECTS = steps.kind("round_end_effects")
MOVE_MARKER = steps.kind("move_marker")
SEASON_CHANGE = steps.kind("season_change")
JOIN_LIBRARY = steps.kind("join_library")
NEXT_ROUND = steps.kind("next_round")
GAME_END = steps.kind("game_end")
GAIN_ENERGY = steps.kind("gain_energy")
EXCHANGE_DISCARD = steps.kind("exchange_discard")

_YEAR_COLUMN = 2  # library_split's and join_library's ``year`` (checked below against tables.column)
_CARD_COLUMN = 2  # keep_or_discard's ``card``
_CARDS_COLUMN = 2  # keep_one's ``cards``
_CARDS_WIDTH = 4
_BY_BOOTS_COLUMN = 2  # season_change's ``by_boots``
if (
    column("library_split", "year") != _YEAR_COLUMN
    or column("join_library", "year") != _YEAR_COLUMN
    or column("keep_or_discard", "card") != _CARD_COLUMN
    or column("keep_one", "cards") != _CARDS_COLUMN
    or width("keep_one", "cards") != _CARDS_WIDTH
    or column("season_change", "by_boots") != _BY_BOOTS_COLUMN
    or column("gain_energy", "count") != 2
    or column("exchange_discard", "count") != 2
):
    raise RuntimeError("flow_kernels: a step argument moved; update the column constants")

_MALICE0, _MALICE1 = MALICE_INSTANCES
_ROUND_EFFECT_CARDS = np.array([int(c) for c in ROUND_EFFECT_ORDER], dtype=np.int64)
_ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
_HAND_OF_FORTUNE = int(Card.HAND_OF_FORTUNE)
_TRANSMUTE_ABILITY = 1
_TRANSMUTE_BONUS_USED = 2

# Action ids as lookup tables built by actions.py's encode/decode pairs (kernels cannot call them): encoders by
# parameter, decoders by action id (-1, or 0 for a card, where the action is of another range).
_CHOOSE_CARD_ACTION = np.array([0, *(A.choose_card_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
_SUMMON_ACTION = np.array([0, *(A.summon_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
_TAKE_DIE_ACTION = np.array([A.take_die_action(d) for d in range(DICE_PER_SEASON)], dtype=np.int64)
_TRANSMUTE_ACTION = np.array(A.TRANSMUTE_ACTIONS, dtype=np.int64)  # [source, energy]
_CARD_OF_CHOICE = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
_CARD_OF_SUMMON = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
for _c in range(1, NUM_CARDS + 1):
    _CARD_OF_CHOICE[A.choose_card_action(_c)] = _c
    _CARD_OF_SUMMON[A.summon_action(_c)] = _c
_DIE_OF_ACTION = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _d in range(DICE_PER_SEASON):
    _DIE_OF_ACTION[A.take_die_action(_d)] = _d
_TRANSMUTE_SOURCE = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
_TRANSMUTE_ENERGY = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
for _source in range(A.NUM_SOURCES):
    for _t in range(4):
        _TRANSMUTE_SOURCE[A.transmute_action(_source, _t)] = _source
        _TRANSMUTE_ENERGY[A.transmute_action(_source, _t)] = _t

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements.
KINDS_HANDLED: tuple[str, ...] = (
    "draft_pick",
    "draft_pass",
    "library_split",
    "start_round",
    "choose_die",
    "turn_start",
    "die_of_malice_window",
    "die_actions",
    "draw_symbol",
    "keep_or_discard",
    "keep_one",
    "turn",
    "round_end_effects",
    "move_marker",
    "season_change",
    "join_library",
    "next_round",
    "game_end",
)


# ---------------------------------------------------------------------------- the draft and the library split


@kernel
def _draft_pass(s, i):
    n = num_players(s)
    for p in range(n):  # what each player saw and passed on (bit c for card c)
        seen = s.draft_seen[i, p]
        for c in range(1, NUM_CARDS + 1):
            if s.draft_pack[i, p, c]:
                seen |= np.uint64(1) << np.uint64(c)
        s.draft_seen[i, p] = seen
    last = s.draft_pack[i, n - 1].copy()  # pack p goes to p + 1
    for p in range(n - 1, 0, -1):
        for c in range(NUM_CARDS + 1):
            s.draft_pack[i, p, c] = s.draft_pack[i, p - 1, c]
    for c in range(NUM_CARDS + 1):
        s.draft_pack[i, 0, c] = last[c]


@kernel
def _cards_of_counts(counts, out):
    """A CHOOSE_CARD action for each card id with a copy in ``counts`` (ascending); returns how many."""
    count = 0
    for c in range(1, NUM_CARDS + 1):
        if counts[c]:
            out[count] = _CHOOSE_CARD_ACTION[c]
            count += 1
    return count


@kernel
def _library_split(s, i, player, year, card):
    hand_remove(s, i, player, card)
    row = s.library[i, player, year - 2]
    size = 0
    while size < LIBRARY_SET_SIZE and row[size] != 0:
        size += 1
    if size >= LIBRARY_SET_SIZE:
        raise ValueError("library_split: the library set of the year is full")
    k = size  # insert in order (the set is kept sorted)
    while k > 0 and row[k - 1] > card:
        row[k] = row[k - 1]
        k -= 1
    row[k] = card


# ---------------------------------------------------------------------------- a round: dice and turns


@kernel
def _start_round(s, i):
    for inst in range(s.tapped.shape[1]):
        s.tapped[i, inst] = False
    now = season(s, i)
    s.dice_season[i] = now
    count = 0
    for k in range(DICE_PER_SEASON):
        d = s.game_dice[i, now, k]
        if d == NO_VALUE:
            continue
        s.rolled[i, count, 0] = d
        s.rolled[i, count, 1] = below(s, i, FACES_PER_DIE)
        s.rolled[i, count, 2] = NO_VALUE
        count += 1
    for k in range(count, DICE_PER_SEASON):
        for col in range(3):
            s.rolled[i, k, col] = NO_VALUE
    s.rolled_count[i] = count
    n = num_players(s)
    first = np.int64(s.first_player[i])
    push(s, i, MOVE_MARKER, 0)
    for k in range(n - 1, -1, -1):
        push(s, i, ROUND_END_EFFECTS, (first + k) % n)
    for k in range(n - 1, -1, -1):
        push(s, i, TURN_START, (first + k) % n)
    for k in range(n - 1, -1, -1):
        push(s, i, CHOOSE_DIE, (first + k) % n)


@kernel
def _choose_die_options(s, i, player, out):
    taken = s.rolled_count[i]
    for k in range(taken):
        if s.rolled[i, k, 2] == player:
            return 0
    count = 0
    for k in range(taken):
        if s.rolled[i, k, 2] < 0:
            action = _TAKE_DIE_ACTION[s.rolled[i, k, 0]]
            at = count  # insertion sort: the rolled dice may come in any order
            while at > 0 and out[at - 1] > action:
                out[at] = out[at - 1]
                at -= 1
            out[at] = action
            count += 1
    return count


@kernel
def _untapped_malice(s, i, player):
    """The lowest untapped Die of Malice instance the player has in play, or -1."""
    found = -1
    for k in range(s.in_play_count[i, player]):
        inst = np.int64(s.in_play[i, player, k])
        if (inst == _MALICE0 or inst == _MALICE1) and not s.tapped[i, inst] and (found < 0 or inst < found):  # noqa: SIM109
            found = inst
    return found


@kernel
def _turn_start(s, i, player):
    s.turn_player[i] = player
    s.turn_flags[i] = 0
    push(s, i, TURN, player)
    push(s, i, DIE_ACTIONS, player)
    if _untapped_malice(s, i, player) >= 0:
        push(s, i, MALICE_WINDOW, player)


@kernel
def _draw_for_die(s, i, player):
    if draw_into_limbo(s, i, 1):
        push(s, i, KEEP_OR_DISCARD, player, s.limbo[i, s.limbo_count[i] - 1])


@kernel
def _bonus_draw_possible(s, i, player):
    return s.bonuses_used[i, player] < MAX_BONUSES and np.int64(s.draw_count[i]) + np.int64(s.discard_count[i]) >= 2


@kernel
def _die_actions(s, i, player):
    die = -1
    face = -1
    for k in range(s.rolled_count[i]):
        if s.rolled[i, k, 2] == player:
            die = np.int64(s.rolled[i, k, 0])
            face = np.int64(s.rolled[i, k, 1])
            break
    if die < 0:
        return
    dice_season = np.int64(s.dice_season[i])
    energy = DIE_ENERGY[dice_season, die, face]
    if energy[0] or energy[1] or energy[2] or energy[3]:
        add_tokens(s, i, player, energy[0], energy[1], energy[2], energy[3])
    s.crystals[i, player] += DIE_CRYSTALS[dice_season, die, face]
    if DIE_GAUGE[dice_season, die, face]:
        add_gauge(s, i, player, 1)
    if DIE_TRANSMUTE[dice_season, die, face]:
        s.turn_flags[i] |= _TRANSMUTE_ABILITY
    if DIE_DRAW[dice_season, die, face]:
        if _bonus_draw_possible(s, i, player):
            push(s, i, DRAW_SYMBOL, player)
        else:
            _draw_for_die(s, i, player)


@kernel
def _resolve_draw_symbol(s, i, player, action):
    if action == A.DRAW_CARD:
        _draw_for_die(s, i, player)
        return
    s.bonuses_used[i, player] += 1
    drawn = draw_into_limbo(s, i, 2)
    if drawn == 2:
        top = s.limbo_count[i]
        push(s, i, KEEP_ONE, player, s.limbo[i, top - 2], s.limbo[i, top - 1])
    elif drawn == 1:
        push(s, i, KEEP_ONE, player, s.limbo[i, s.limbo_count[i] - 1])


@kernel
def _keep_one_size(task):
    size = 0
    while size < _CARDS_WIDTH and task[_CARDS_COLUMN + size] != NO_VALUE:
        size += 1
    return size


@kernel
def _keep_one_options(task, out):
    size = _keep_one_size(task)
    count = 0
    for k in range(size):
        action = _CHOOSE_CARD_ACTION[task[_CARDS_COLUMN + k]]
        at = count
        duplicate = False
        for m in range(count):
            if out[m] == action:
                duplicate = True
        if duplicate:
            continue
        while at > 0 and out[at - 1] > action:
            out[at] = out[at - 1]
            at -= 1
        out[at] = action
        count += 1
    return count


@kernel
def _resolve_keep_one(s, i, player, task, action):
    keep = _CARD_OF_CHOICE[action]
    size = _keep_one_size(task)
    hand_add(s, i, player, from_limbo(s, i, keep))
    kept = False
    for k in range(size):
        card = task[_CARDS_COLUMN + k]
        if card == keep and not kept:
            kept = True  # the first copy is the one kept
            continue
        discard(s, i, from_limbo(s, i, card))


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
                out[count] = _SUMMON_ACTION[card]
                count += 1
            continue
        need0, need1, need2, need3 = COSTS[n, card, 0], COSTS[n, card, 1], COSTS[n, card, 2], COSTS[n, card, 3]
        total = need0 + need1 + need2 + need3
        deficit = max(need0 - have0, 0) + max(need1 - have1, 0) + max(need2 - have2, 0) + max(need3 - have3, 0)
        if deficit == 0 or deficit <= (min(hands, total - 1) if total > 1 else 0):
            out[count] = _SUMMON_ACTION[card]
            count += 1
    return count


@kernel
def _same_tokens(s, i, a, b):
    """Do instances ``a`` and ``b`` hold the same stored tokens (``stored.get``: none, or the same four counts)?"""
    row_a, row_b = STORED_ROW[a], STORED_ROW[b]
    present_a = row_a >= 0 and s.stored_present[i, row_a]
    present_b = row_b >= 0 and s.stored_present[i, row_b]
    if present_a != present_b:
        return False
    if not present_a:
        return True
    for t in range(4):
        if s.stored[i, row_a, t] != s.stored[i, row_b, t]:
            return False
    return True


@kernel
def _turn_options(s, i, player, out):
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
            if CARD_OF_INSTANCE[other] == card and _same_tokens(s, i, other, inst):
                offered = True
                break
        if not offered and hooks.can_activate(s, i, player, inst):
            out[count] = action
            count += 1
    if s.turn_flags[i] & _TRANSMUTE_ABILITY:
        for t in range(4):
            if s.reserve[i, player, t]:
                out[count] = _TRANSMUTE_ACTION[0, t]
                count += 1
        for k in range(2):
            inst = AMULET_OF_WATER_INSTANCES[k]
            if instance_in_play(s, i, player, inst):
                row = STORED_ROW[inst]
                if s.stored_present[i, row]:
                    for t in range(4):
                        if s.stored[i, row, t]:
                            out[count] = _TRANSMUTE_ACTION[k + 1, t]
                            count += 1
    return count


@kernel
def _turn_hangs_on_hand(s, i, player):
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
def _resolve_turn(s, i, player, task, action):
    if action == A.END_TURN:
        end_turn(s, i, player)
        return
    push_row(s, i, task)  # the turn goes on after this action
    if _TRANSMUTE_SOURCE[action] >= 0:
        source = _TRANSMUTE_SOURCE[action]
        energy = _TRANSMUTE_ENERGY[action]
        spend_token(s, i, player, source, energy)
        s.crystals[i, player] += TRANSMUTE_RATES[season(s, i), energy] + transmute_bonus(s, i, player)
    elif _CARD_OF_SUMMON[action]:
        begin_summon_from_hand(s, i, player, _CARD_OF_SUMMON[action])
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


# ---------------------------------------------------------------------------- end of round, seasons, years, end


@kernel
def _held_counts(s, i, player):
    """Copies of each card id the player has in play (int64 ``[NUM_CARDS + 1]``), read before any effect runs."""
    counts = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    for k in range(s.in_play_count[i, player]):
        counts[CARD_OF_INSTANCE[s.in_play[i, player, k]]] += 1
    return counts


@kernel
def _round_end_effects(s, i, player):
    # Conditions are read once for the player (several copies add up); effects run in ROUND_EFFECT_ORDER.
    copies = np.zeros(_ROUND_EFFECT_CARDS.shape[0], dtype=np.int64)
    any_effect = False
    for k in range(_ROUND_EFFECT_CARDS.shape[0]):
        copies[k] = count_in_play(s, i, player, _ROUND_EFFECT_CARDS[k])
        any_effect = any_effect or copies[k] > 0
    if not any_effect:
        return
    snapshot = np.empty(4, dtype=np.int64)
    for t in range(4):
        snapshot[t] = s.reserve[i, player, t]
    for k in range(_ROUND_EFFECT_CARDS.shape[0]):
        if copies[k]:
            hooks.end_of_round(s, i, player, _ROUND_EFFECT_CARDS[k], copies[k], snapshot)


@kernel
def _move_marker(s, i):
    if s.year[i] > NUM_YEARS:  # Temporal Boots carried the marker past the end: the leftover die moves nothing
        push(s, i, GAME_END, 0)
        return
    pips = 0
    for k in range(s.rolled_count[i]):
        if s.rolled[i, k, 2] < 0:
            pips = DIE_PIPS[s.dice_season[i], s.rolled[i, k, 0], s.rolled[i, k, 1]]
            break
    move_marker(s, i, pips, False)


@kernel
def _season_change(s, i, player, by_boots):
    counts = _held_counts(s, i, player)
    for card in range(1, NUM_CARDS + 1):
        if counts[card]:
            hooks.season_change(s, i, player, card, counts[card], by_boots)


@kernel
def _join_library(s, i, year):
    s.year[i] = year
    index = year - 2
    for p in range(num_players(s)):  # each seat's set joins its own hand: the order does not matter
        for k in range(LIBRARY_SET_SIZE):
            card = s.library[i, p, index, k]
            if card:
                hand_add(s, i, p, card)
                s.library[i, p, index, k] = 0


@kernel
def _game_end(s, i):
    n = num_players(s)
    bonuses = np.zeros(n, dtype=np.int64)
    for p in range(n):
        counts = _held_counts(s, i, p)
        for card in range(1, NUM_CARDS + 1):
            if counts[card]:
                bonuses[p] += hooks.end_of_game(s, i, p, card, counts[card])
    for p in range(n):
        s.crystals[i, p] += bonuses[p]
    for p in range(n):
        s.final_scores[i, p] = score(s, i, p)
    for d in range(s.stack_depth[i]):
        for k in range(STEP_WIDTH):
            s.stack[i, d, k] = NO_VALUE
    s.stack_depth[i] = 0
    s.over[i] = True
    s.turn_player[i] = -1


# ---------------------------------------------------------------------------- dispatch


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``)."""
    player = task[1]
    if kind == TURN_START:
        _turn_start(s, i, player)
    elif kind == DIE_ACTIONS:
        _die_actions(s, i, player)
    elif kind == ROUND_END_EFFECTS:
        _round_end_effects(s, i, player)
    elif kind == START_ROUND:
        _start_round(s, i)
    elif kind == MOVE_MARKER:
        _move_marker(s, i)
    elif kind == SEASON_CHANGE:
        _season_change(s, i, player, task[_BY_BOOTS_COLUMN] != 0)
    elif kind == NEXT_ROUND:
        s.first_player[i] = (np.int64(s.first_player[i]) + 1) % num_players(s)
        s.turn_player[i] = -1
        push(s, i, START_ROUND, 0)
    elif kind == JOIN_LIBRARY:
        _join_library(s, i, task[_YEAR_COLUMN])
    elif kind == DRAFT_PASS:
        _draft_pass(s, i)
    elif kind == GAME_END:
        _game_end(s, i)
    else:
        raise ValueError("run_step: a step kind this module does not handle")


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    player = task[1]
    if kind == TURN:
        return _turn_options(s, i, player, out)
    if kind == CHOOSE_DIE:
        return _choose_die_options(s, i, player, out)
    if kind == MALICE_WINDOW:
        out[0] = A.USE_DIE
        inst = _untapped_malice(s, i, player)
        if inst < 0:
            return 1
        out[1] = ACTIVATE_ACTION[inst]
        return 2
    if kind == KEEP_OR_DISCARD:
        out[0] = A.KEEP_CARD
        out[1] = A.DISCARD_CARD
        return 2
    if kind == DRAW_SYMBOL:
        out[0] = A.DRAW_CARD
        if _bonus_draw_possible(s, i, player):
            out[1] = A.BONUS_DRAW
            return 2
        return 1
    if kind == KEEP_ONE:
        return _keep_one_options(task, out)
    if kind == DRAFT_PICK:
        return _cards_of_counts(s.draft_pack[i, player], out)
    if kind == LIBRARY_SPLIT:
        return _cards_of_counts(s.hand[i, player], out)
    raise ValueError("options: a step kind this module does not handle")


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    player = task[1]
    if kind == TURN:
        return _turn_hangs_on_hand(s, i, player)
    if kind == KEEP_ONE:
        return _keep_one_size(task) > 1
    if kind == DRAFT_PICK:
        total = 0
        for c in range(1, NUM_CARDS + 1):
            total += s.draft_pack[i, player, c]
        return total > 1
    if kind == LIBRARY_SPLIT:
        return hand_size(s, i, player) > 1
    return False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    player = task[1]
    if kind == TURN:
        _resolve_turn(s, i, player, task, action)
    elif kind == CHOOSE_DIE:
        die = _DIE_OF_ACTION[action]
        for k in range(s.rolled_count[i]):
            if s.rolled[i, k, 0] == die:
                s.rolled[i, k, 2] = player
    elif kind == MALICE_WINDOW:
        if action != A.USE_DIE:
            push_row(s, i, task)
            activate(s, i, player, INSTANCE_OF_ACTIVATION[action])
    elif kind == KEEP_OR_DISCARD:
        card = from_limbo(s, i, task[_CARD_COLUMN])
        if action == A.KEEP_CARD:
            hand_add(s, i, player, card)
        else:
            discard(s, i, card)
    elif kind == DRAW_SYMBOL:
        _resolve_draw_symbol(s, i, player, action)
    elif kind == KEEP_ONE:
        _resolve_keep_one(s, i, player, task, action)
    elif kind == DRAFT_PICK:
        card = _CARD_OF_CHOICE[action]
        if s.draft_pack[i, player, card] == 0:
            raise ValueError("draft_pick: the card is not in the pack held")
        s.draft_pack[i, player, card] -= 1
        hand_add(s, i, player, card)
    elif kind == LIBRARY_SPLIT:
        _library_split(s, i, player, task[_YEAR_COLUMN], _CARD_OF_CHOICE[action])
    else:
        raise ValueError("resolve: a step kind this module does not handle")
