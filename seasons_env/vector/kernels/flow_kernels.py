"""The kernels of ``engine/flow.py``: its step kinds (automatic steps, decisions' options and resolutions)
for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements: every kind its engine counterpart registers.

Each function mirrors the engine function of the same role in ``flow.py`` (``_run_<kind>``, ``_opt_<kind>``,
``_res_<kind>``, ``activate``, ``_end_turn``) and ``State.summonable_from_hand``; steps the engine pushes as
``push(a, b, c)`` are pushed here last-first (c, then b, then a).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import DICE_PER_SEASON, LIBRARY_SET_SIZE, MAX_BONUSES
from seasons_env.engine.flow import MALICE_INSTANCES, ROUND_EFFECT_ORDER

from . import hooks, kernel
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
    insert_sorted,
    move_marker,
    num_players,
    push,
    push_row,
    score,
    season,
)
from .tables import (
    ACTIVATE_ACTION,
    CARD_OF_CHOICE,
    CARD_OF_INSTANCE,
    CHOOSE_CARD_ACTION,
    DIE_CRYSTALS,
    DIE_DRAW,
    DIE_ENERGY,
    DIE_GAUGE,
    DIE_OF_ACTION,
    DIE_PIPS,
    DIE_TRANSMUTE,
    FACES_PER_DIE,
    INSTANCE_OF_ACTIVATION,
    NO_VALUE,
    NUM_CARDS,
    NUM_YEARS,
    STEP_WIDTH,
    TAKE_DIE_ACTION,
    column,
    width,
)
from .turn_kernels import activate, resolve_turn, turn_hangs_on_hand, turn_options

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
_TRANSMUTE_ABILITY = 1

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements: every kind ``engine/flow.py``
#: registers (generated from the engine's registry, so a kind added there fails here until it is ported).
KINDS_HANDLED: tuple[str, ...] = steps.kinds_registered_by("seasons_env.engine.flow")


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
            out[count] = CHOOSE_CARD_ACTION[c]
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
            # the rolled dice may come in any order
            count = insert_sorted(out, count, TAKE_DIE_ACTION[s.rolled[i, k, 0]])
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
        action = CHOOSE_CARD_ACTION[task[_CARDS_COLUMN + k]]
        duplicate = False
        for m in range(count):
            if out[m] == action:
                duplicate = True
        if not duplicate:
            count = insert_sorted(out, count, action)
    return count


@kernel
def _resolve_keep_one(s, i, player, task, action):
    keep = CARD_OF_CHOICE[action]
    size = _keep_one_size(task)
    hand_add(s, i, player, from_limbo(s, i, keep))
    kept = False
    for k in range(size):
        card = task[_CARDS_COLUMN + k]
        if card == keep and not kept:
            kept = True  # the first copy is the one kept
            continue
        discard(s, i, from_limbo(s, i, card))


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
        return turn_options(s, i, player, out)
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
        return turn_hangs_on_hand(s, i, player)
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
        resolve_turn(s, i, player, task, action)
    elif kind == CHOOSE_DIE:
        die = DIE_OF_ACTION[action]
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
        card = CARD_OF_CHOICE[action]
        if s.draft_pack[i, player, card] == 0:
            raise ValueError("draft_pick: the card is not in the pack held")
        s.draft_pack[i, player, card] -= 1
        hand_add(s, i, player, card)
    elif kind == LIBRARY_SPLIT:
        _library_split(s, i, player, task[_YEAR_COLUMN], CARD_OF_CHOICE[action])
    else:
        raise ValueError("resolve: a step kind this module does not handle")
