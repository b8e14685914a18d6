"""The heuristic player's decisions compiled on the array state: ``HeuristicAgent.act`` for a position
held as a row of an ``ArrayState`` (a seat's determinized view), the same action to the last tie.

``decide(view, seat, legal, scratch, scratch_legal, randoms)`` answers every decision the heuristic answers by
search or by a table: the one-ply lookahead of play (each legal action tried on a copy of the row, the seat's own
sub-decisions that follow settled greedily, gauge and exchange bonuses and activations judged by the summon they
make possible, the end of the turn valued as it ends), the die choice (each face previewed, the next chooser's
answer from the die table, a drawn card's expected worth), the Die of Malice window, the draft (``randoms``: the
agent generator's draws that break its ties), the draw symbol and Naria's gifts. The library split is a search
over plans that the agent keeps from one placement to the next: it stays in Python (``heuristic_compiled.py``).

The rows of ``scratch`` (``SCRATCH_ROWS`` of them, the view's player count) hold the copies the lookahead
plays on; the rules kernels (``seasons_env.vector.kernels.machine.apply_row``) play them, and the evaluation is
``heuristic_eval_kernel.evaluate_row``. Every float is computed as the Python player computes it
(``agents/heuristic.py``), which ``tests/test_heuristic_kernel.py`` checks decision by decision.

Compile time. ``_play`` is the one kernel here that holds the rules' code (``apply_row``); the layers between it and
``decide`` (the lookahead, the settling, the die and Malice choices, the draw's worth) are ``inline_kernel``:
numba copies them into ``decide``, so the rules' code linked under them is optimised and turned into machine code
once, in ``decide``, rather than once more in every layer (each layer took 3 to 7 CPU seconds of that; the
heuristic's compile from an empty cache went from 65 to 36 CPU seconds, the decisions and their speed unchanged:
docs/results.md, "Compile times").
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import GAUGE_MAX
from seasons_env.vector.kernels.api import (
    CARD_OF_CHOICE,
    CARD_OF_SUMMON,
    COSTS,
    DIE_CRYSTALS,
    DIE_DRAW,
    DIE_ENERGY,
    DIE_GAUGE,
    DIE_OF_ACTION,
    DIE_TRANSMUTE,
    INSTANCE_OF_ACTIVATION,
    IS_ITEM_CARD,
    NUM_CARDS,
    STEP_WIDTH,
    SUMMON_ACTION,
    apply_row,
    copy_row,
    count_in_play,
    hand_add,
    has_room,
    leech_toll,
    reserve_limit,
    reserve_total,
    spendable,
)

from . import heuristic_cards as hc
from .heuristic import BOUNDARY as BOUNDARY_KINDS
from .heuristic import END_TURN_TIE_BONUS
from .heuristic_eval_kernel import evaluate_row
from .kernel_cache import group_kernel
from .values import CARDS as CARD_VALUES
from .values import DIE, DRAFT, DRAFT_GAUGE

#: The compiled heuristic's kernel decorator (``kernel_cache.py``).
kernel = group_kernel("heuristic")
#: The layers between ``decide`` and ``_play``, compiled inside ``decide`` (the module docstring, "Compile time").
inline_kernel = group_kernel("heuristic", inline=True)

#: Rows of the scratch state a decision plays its lookahead on.
SCRATCH_ROWS = 8

_TURN, _CHOOSE_DIE, _GAIN_ENERGY, _DRAFT_PICK, _LIBRARY, _MALICE, _DRAW_SYMBOL, _NARIA_GIVE = map(
    steps.kind,
    (
        "turn",
        "choose_die",
        "gain_energy",
        "draft_pick",
        "library_split",
        "die_of_malice_window",
        "draw_symbol",
        "naria_give",
    ),
)
#: Decisions the settling of a lookahead never answers (the Python player's set, as a mask by kind).
_BOUNDARY = np.zeros(len(steps.KINDS), dtype=np.bool_)
_BOUNDARY[sorted(BOUNDARY_KINDS)] = True

_END_TURN = A.END_TURN
_USE_DIE = A.USE_DIE
_DRAW_CARD = A.DRAW_CARD
_BONUS_GAUGE = A.BONUS_GAUGE
_BONUS_EXCHANGE = A.BONUS_EXCHANGE
_NUM_ACTIONS = A.NUM_ACTIONS
_CARD_IDS = NUM_CARDS + 1  # card ids run 1..NUM_CARDS
_ELEMENTAL_AMULET = hc.ELEMENTAL_AMULET
_HAND_OF_FORTUNE = hc.HAND_OF_FORTUNE
_THIEVING_FAIRIES = hc.THIEVING_FAIRIES
_SEALED_CHEST = hc.SEALED_CHEST
_GAUGE_MAX = GAUGE_MAX

_DIE_ENERGY_WEIGHT = DIE["energy"]
_DIE_CRYSTAL = DIE["crystal"]
_DIE_GAUGE_WEIGHT = DIE["gauge"]
_DIE_TRANSMUTE_WEIGHT = DIE["transmute"]
_DIE_TRANSMUTE_TOKEN = DIE["transmute_token"]
_DIE_DRAW_CARD = DIE["draw_card"]
_DIE_DRAW = DIE["draw"]
_MALICE_CRYSTALS = DIE["malice_crystals"]
_MALICE_FAIRY = DIE["malice_fairy"]
_MALICE_MARGIN = DIE["malice_margin"]
_DRAFT_GAUGE = DRAFT_GAUGE
_GAUGE_OVER = DRAFT["gauge_over"]
_FAMILIAR_WITH_CHEST = DRAFT["familiar_with_chest"]
_DRAFT_VALUE = np.array([0.0] + [CARD_VALUES[c].draft for c in range(1, _CARD_IDS)], dtype=np.float64)
_DRAFT_WEIGHT = np.array([0.0] + [CARD_VALUES[c].gauge for c in range(1, _CARD_IDS)], dtype=np.float64)


# ---------------------------------------------------------------------------- rows


@kernel
def _play(t, tl, row, action, task, out):
    """``Game.apply`` on a scratch row (the action is legal there)."""
    apply_row(t, row, action, task, out, tl)


@kernel
def _legal_of(tl, row, into):
    """The legal actions of a scratch row, ascending (``Game.legal_action_list``), into ``into``; their count."""
    count = 0
    for a in range(_NUM_ACTIONS):
        if tl[row, a]:
            into[count] = a
            count += 1
    return count


@kernel
def _top(t, row):
    """``(kind, player)`` of the decision pending in a row (-1, -1 once the game is over)."""
    depth = t.stack_depth[row]
    if t.over[row] or depth == 0:
        return -1, -1
    return np.int64(t.stack[row, depth - 1, 0]), np.int64(t.stack[row, depth - 1, 1])


# ---------------------------------------------------------------------------- the one-ply lookahead


@inline_kernel
def _settle(t, tl, row, seat, free, task, out):
    """``heuristic.settle``: let the seat's own sub-decisions that follow resolve greedily. Plays on rows ``row``,
    ``free`` and ``free + 1``; returns the row reached, its value and whether that value was computed."""
    rows = np.array([row, free, free + 1])  # the current row, then two spare rows
    value = 0.0
    has_value = False
    candidates = np.empty(_NUM_ACTIONS, dtype=np.int64)
    budget = 24
    while budget > 0 and not t.over[rows[0]]:
        kind, player = _top(t, rows[0])
        if player != seat or _BOUNDARY[kind]:
            break
        count = _legal_of(tl, rows[0], candidates)
        best_value = -np.inf
        best = -1  # index in rows of the copy holding the best choice so far
        for k in range(count):
            spare = 2 if best == 1 else 1
            copy_row(t, rows[0], t, rows[spare])
            _play(t, tl, rows[spare], candidates[k], task, out)
            v = evaluate_row(t, rows[spare], seat)
            if v > best_value:
                best_value = v
                best = spare
        if best < 0:
            _play(t, tl, rows[0], candidates[0], task, out)
            has_value = False
        else:
            reached = rows[best]
            rows[best] = rows[0]
            rows[0] = reached
            value = best_value
            has_value = True
        budget -= 1
    return rows[0], value, has_value


@inline_kernel
def _enabled_summon_value(t, tl, row, seat, before, free, task, out):
    """``heuristic._enabled_summon_value``: the best position a summon not legal ``before`` (a mask) reaches.
    Reads ``row``; plays on ``free`` to ``free + 2``."""
    kind, player = _top(t, row)
    if kind != _TURN or player != seat:
        return -np.inf
    best = -np.inf
    candidates = np.empty(_NUM_ACTIONS, dtype=np.int64)
    count = _legal_of(tl, row, candidates)
    for k in range(count):
        a = candidates[k]
        if CARD_OF_SUMMON[a] > 0 and not before[a]:
            copy_row(t, row, t, free)
            _play(t, tl, free, a, task, out)
            reached, value, has_value = _settle(t, tl, free, seat, free + 1, task, out)
            best = max(best, value if has_value else evaluate_row(t, reached, seat))
    return best


@kernel
def _may_enable_summon(t, row, seat, bonus, before):
    """``heuristic._may_enable_summon``: can the gauge or exchange bonus make a summon legal that is not?"""
    n = t.crystals.shape[1]
    if has_room(t, row, seat) == (bonus == _BONUS_GAUGE):
        return False
    budget = np.int64(t.crystals[row, seat]) - leech_toll(t, row, seat)
    available = spendable(t, row, seat)
    hands = count_in_play(t, row, seat, _HAND_OF_FORTUNE)
    for c in range(1, _CARD_IDS):
        if t.hand[row, seat, c] == 0:
            continue
        if before[SUMMON_ACTION[c]] or budget < COSTS[n, c, 4]:
            continue
        if bonus == _BONUS_GAUGE or c == _ELEMENTAL_AMULET:
            return True
        total = 0
        deficit = 0
        for e in range(4):
            need = COSTS[n, c, e]
            total += need
            if need > available[e]:
                deficit += need - available[e]
        if deficit <= (min(hands, total - 1) if total > 1 else 0) + 2:
            return True
    return False


@inline_kernel
def _one_ply(t, tl, seat, legal, count, task, out):
    """``HeuristicAgent._one_ply`` on the view in scratch row 0: the legal action whose position evaluates best."""
    kind, _ = _top(t, 0)
    in_turn = kind == _TURN
    before = np.zeros(_NUM_ACTIONS, dtype=np.bool_)
    for k in range(count):
        before[legal[k]] = True
    best_action = legal[0]
    best_value = -np.inf
    for k in range(count):
        a = legal[k]
        bonus = in_turn and (a in (_BONUS_GAUGE, _BONUS_EXCHANGE))
        if in_turn and a == _END_TURN:
            # The position as the turn ends, before the next player's die
            copy_row(t, 0, t, 1)
            t.turn_flags[1] = 0
            t.turn_player[1] = -1
            value = evaluate_row(t, 1, seat) + END_TURN_TIE_BONUS
        elif bonus and not _may_enable_summon(t, 0, seat, a, before):
            value = -np.inf
        else:
            copy_row(t, 0, t, 1)
            _play(t, tl, 1, a, task, out)
            reached = 1
            value = 0.0
            has_value = False
            if kind != _GAIN_ENERGY:  # the tokens still to choose are valued as pending by the evaluation
                reached, value, has_value = _settle(t, tl, 1, seat, 2, task, out)
            if bonus:
                value = _enabled_summon_value(t, tl, reached, seat, before, 4, task, out)
            else:
                if not has_value:
                    value = evaluate_row(t, reached, seat)
                if in_turn and INSTANCE_OF_ACTIVATION[a] >= 0:
                    # An activation may pay for a summon (tokens, gauge, a freed slot): look one summon further.
                    value = max(value, _enabled_summon_value(t, tl, reached, seat, before, 4, task, out))
        if k == 0 or value > best_value:
            best_value = value
            best_action = a
    return best_action


# ---------------------------------------------------------------------------- dice


@kernel
def _preview_die(t, row, player, die, face):
    """``Game.preview_die`` in place: ``player`` holds ``die`` showing ``face`` with its tokens, crystals, gauge."""
    for r in range(t.rolled_count[row]):
        if t.rolled[row, r, 0] == die:
            t.rolled[row, r, 1] = face
            t.rolled[row, r, 2] = player
    season = t.dice_season[row]
    for e in range(4):
        t.reserve[row, player, e] += DIE_ENERGY[season, die, face, e]
    t.crystals[row, player] += DIE_CRYSTALS[season, die, face]
    if DIE_GAUGE[season, die, face]:
        t.gauge[row, player] = min(_GAUGE_MAX, np.int64(t.gauge[row, player]) + 1)


@kernel
def _table_face_value(t, row, p, die, face):
    """``heuristic._table_face_value``: a face's worth to ``p`` from the die table and public facts."""
    season = t.dice_season[row]
    held = reserve_total(t, row, p)
    limit = reserve_limit(t, row, p)
    room = max(0, limit - held)
    energy = DIE_ENERGY[season, die, face, 0] + DIE_ENERGY[season, die, face, 1]
    energy += DIE_ENERGY[season, die, face, 2] + DIE_ENERGY[season, die, face, 3]
    value = _DIE_ENERGY_WEIGHT * min(room, energy) + _DIE_CRYSTAL * DIE_CRYSTALS[season, die, face]
    if DIE_GAUGE[season, die, face]:
        value += _DIE_GAUGE_WEIGHT
    if DIE_DRAW[season, die, face]:
        value += _DIE_DRAW_CARD
    if DIE_TRANSMUTE[season, die, face]:
        value += _DIE_TRANSMUTE_WEIGHT + _DIE_TRANSMUTE_TOKEN * held
    return value


@inline_kernel
def _draw_value(t, row, seat, free):
    """``heuristic._draw_value``: the expected gain of drawing a card (kept only if it helps), over a few cards of
    the unseen pile. Reads ``row``; plays on ``free``."""
    draw_count = np.int64(t.draw_count[row])
    if draw_count:
        first, size, from_draw = max(0, draw_count - 4), min(4, draw_count), True
    else:
        first, size, from_draw = 0, min(4, np.int64(t.discard_count[row])), False
    if size == 0:
        return 0.0
    base = evaluate_row(t, row, seat)
    total = 0.0
    for k in range(first, first + size):
        c = t.draw_pile[row, k] if from_draw else t.discard_pile[row, k]
        copy_row(t, row, t, free)
        hand_add(t, free, seat, c)
        total += max(0.0, evaluate_row(t, free, seat) - base)
    return total / size


@inline_kernel
def _face_value(t, seat, die, face, next_chooser):
    """``HeuristicAgent._face_value`` for the view in scratch row 0 (plays on rows 1 and 2)."""
    copy_row(t, 0, t, 1)
    _preview_die(t, 1, seat, die, face)
    if next_chooser >= 0:
        best_value = -np.inf
        best_die, best_face = -1, -1
        for r in range(t.rolled_count[1]):
            if t.rolled[1, r, 2] < 0:
                d, f = np.int64(t.rolled[1, r, 0]), np.int64(t.rolled[1, r, 1])
                v = _table_face_value(t, 1, next_chooser, d, f)
                if best_die < 0 or v > best_value:
                    best_value, best_die, best_face = v, d, f
        _preview_die(t, 1, next_chooser, best_die, best_face)
    value = evaluate_row(t, 1, seat)
    if DIE_DRAW[t.dice_season[1], die, face]:
        value += _DIE_DRAW * _draw_value(t, 1, seat, 2)
    return value


@inline_kernel
def _choose_die(t, seat, legal, count):
    """``HeuristicAgent._choose_die``: the die whose face is worth most once the next chooser has answered."""
    depth = t.stack_depth[0]
    nxt = -1
    if depth >= 2 and t.stack[0, depth - 2, 0] == _CHOOSE_DIE and count > 2:
        nxt = np.int64(t.stack[0, depth - 2, 1])
    best, best_value = legal[0], -np.inf
    for k in range(count):
        die = DIE_OF_ACTION[legal[k]]
        face = -1
        for r in range(t.rolled_count[0]):
            if t.rolled[0, r, 0] == die:
                face = np.int64(t.rolled[0, r, 1])
                break
        v = _face_value(t, seat, die, face, nxt)
        if v > best_value:
            best, best_value = legal[k], v
    return best


@inline_kernel
def _malice(t, seat, legal, count):
    """``HeuristicAgent._malice``: reroll the Die of Malice when the mean face beats the face by a margin."""
    die, face = -1, -1
    for r in range(t.rolled_count[0]):
        if t.rolled[0, r, 2] == seat:
            die, face = np.int64(t.rolled[0, r, 0]), np.int64(t.rolled[0, r, 1])
            break
    keep = _face_value(t, seat, die, face, -1)
    total = 0.0
    for f in range(6):
        total += _face_value(t, seat, die, f, -1)
    reroll = total / 6.0 + _MALICE_CRYSTALS
    n = t.crystals.shape[1]
    fairies = 0
    for k in range(1, n):
        fairies += count_in_play(t, 0, (seat + k) % n, _THIEVING_FAIRIES)
    reroll -= _MALICE_FAIRY * fairies
    if reroll > keep + _MALICE_MARGIN:
        for k in range(count):
            if legal[k] != _USE_DIE:
                return legal[k]
    return _USE_DIE


# ---------------------------------------------------------------------------- tables of the prelude and cards


@kernel
def _draft(t, seat, legal, count, randoms):
    """``HeuristicAgent._draft``: the pick of best value under the gauge budget (``randoms[k]``: the generator's
    draw that breaks ties for ``legal[k]``)."""
    gauge_used = 0.0
    has_chest = False
    familiars = 0
    for c in range(1, _CARD_IDS):
        for _ in range(t.hand[0, seat, c]):
            gauge_used += _DRAFT_WEIGHT[c]
            if c == _SEALED_CHEST:
                has_chest = True
            if not IS_ITEM_CARD[c]:
                familiars += 1
    best, best_score = legal[0], -np.inf
    for k in range(count):
        c = CARD_OF_CHOICE[legal[k]]
        score = _DRAFT_VALUE[c]
        over = gauge_used + _DRAFT_WEIGHT[c] - _DRAFT_GAUGE
        if over > 0:
            score -= _GAUGE_OVER * min(over, max(_DRAFT_WEIGHT[c], 0.0))
        if (has_chest and not IS_ITEM_CARD[c]) or (c == _SEALED_CHEST and familiars >= 2):
            score += _FAMILIAR_WITH_CHEST
        score = score + 1e-3 * randoms[k]
        if k == 0 or score > best_score:
            best, best_score = legal[k], score
    return best


@kernel
def decide(view, i, seat, legal, scratch, scratch_legal, randoms):
    """``HeuristicAgent.act`` for the view in row ``i`` of ``view`` (``seat``'s determinized position): one of
    ``legal`` (int64, ascending). The library split is the caller's (returns -1 for it); ``randoms`` holds a
    draw of the agent's generator per legal action (read only at a draft pick)."""
    count = legal.shape[0]
    if count == 1:
        return legal[0]
    copy_row(view, i, scratch, 0)
    kind, _ = _top(scratch, 0)
    if kind == _DRAFT_PICK:
        return _draft(scratch, seat, legal, count, randoms)
    if kind == _LIBRARY:
        return -1
    if kind == _CHOOSE_DIE:
        return _choose_die(scratch, seat, legal, count)
    if kind == _MALICE:
        return _malice(scratch, seat, legal, count)
    if kind == _DRAW_SYMBOL:
        for k in range(count):
            if legal[k] == _DRAW_CARD:
                return _DRAW_CARD
        return legal[0]
    if kind == _NARIA_GIVE:
        best, best_value = legal[0], np.inf
        for k in range(count):
            v = _DRAFT_VALUE[CARD_OF_CHOICE[legal[k]]]
            if v < best_value:
                best, best_value = legal[k], v
        return best
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(_NUM_ACTIONS, dtype=np.int64)
    return _one_ply(scratch, scratch_legal, seat, legal, count, task, out)
