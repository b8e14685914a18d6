"""``hidden.py`` for one row of an array state: a seat's view with everything it cannot see redrawn.

``determinize_row(s, i, player, view, j, key, order)`` writes into row ``j`` of ``view`` the row ``pack`` would
write for ``Game.determinize(player, rng)`` of row ``i``'s game, given the two draws that function takes from
``rng``: the new chance stream's ``key`` (``key_of_seed(rng.integers(2**63))``) and the permutation ``order``
(``rng.permutation(hidden_pool_size(s, i, player))``). The pool of unseen cards is gathered in the same order,
sorted, shuffled by ``order`` and dealt back into the same places, so the view equals the reference engine's
(``tests/test_vector_hidden_kernels.py``).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine.hidden import KRISS_STEP, ORB_SEEN_STEP, PRIVATE_CARD_STEPS

from ..state.step_codes import ARG_COLUMNS
from . import kernel
from .row_copy import copy_row
from .tables import CARD_OF_INSTANCE, IS_ITEM_CARD, NO_VALUE, NUM_KINDS, STEP_WIDTH

#: ``PRIVATE_STEP[kind]``: a decision whose cards in limbo only its decider has seen.
PRIVATE_STEP = np.zeros(NUM_KINDS, dtype=np.bool_)
#: ``CARD_COLUMN[kind, column]``: the column holds a card of the step's ``card`` or ``cards`` argument (-1 ends
#: a list of cards).
CARD_COLUMN = np.zeros((NUM_KINDS, STEP_WIDTH), dtype=np.bool_)
for _kind in PRIVATE_CARD_STEPS:
    PRIVATE_STEP[_kind] = True
    for _col in ARG_COLUMNS[_kind]:
        if _col.name in ("card", "cards"):
            CARD_COLUMN[_kind, _col.start : _col.start + _col.width] = True
_ORB_SEEN_STEP = ORB_SEEN_STEP
_KRISS_STEP = KRISS_STEP
_ORB_SEEN_CARD = next(c.start for c in ARG_COLUMNS[ORB_SEEN_STEP] if c.name == "card")


@kernel
def _private_steps(s, i, player):
    """Stack rows (bottom first) of private card decisions of other seats."""
    rows = np.empty(s.stack_depth[i], dtype=np.int64)
    count = 0
    for k in range(s.stack_depth[i]):
        kind = s.stack[i, k, 0]
        if PRIVATE_STEP[kind] and s.stack[i, k, 1] != player:
            rows[count] = k
            count += 1
    return rows[:count]


@kernel
def _keeps_top(s, i, player):
    """Crystal Orb showed ``player`` the draw pile's top card, which stays on top."""
    return s.orb_seen[i, 0] == player and s.draw_count[i] > 0


@kernel
def hidden_pool_size(s, i, player):
    """How many cards ``player`` cannot see in row ``i`` (the size of the permutation ``determinize_row`` reads)."""
    n = s.crystals.shape[1]
    size = 0
    for q in range(n):
        if q == player:
            continue
        for c in range(s.hand.shape[2]):
            size += s.hand[i, q, c] + s.draft_pack[i, q, c]
        for y in range(2):
            for k in range(s.library.shape[3]):
                if s.library[i, q, y, k] != 0:
                    size += 1
    size += np.int64(s.draw_count[i]) - (1 if _keeps_top(s, i, player) else 0)
    size += np.int64(s.discard_count[i])
    for k in _private_steps(s, i, player):
        kind = s.stack[i, k, 0]
        for col in range(STEP_WIDTH):
            if CARD_COLUMN[kind, col] and s.stack[i, k, col] != NO_VALUE:
                size += 1
    return size


@kernel
def _sort(values):
    for k in range(1, values.shape[0]):
        v = values[k]
        j = k - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v


@kernel
def _gather(counts, i, q, pool, size):
    """Append seat ``q``'s cards of a per-card count zone (hand, draft pack) to ``pool`` in card order; the new
    size."""
    for c in range(counts.shape[2]):
        for _ in range(counts[i, q, c]):
            pool[size] = c
            size += 1
    return size


@kernel
def _keep_kriss_familiar(s, i, player, slots, count, shuffled):
    """``hidden._keep_kriss_familiar``: another seat choosing its Necrotic Kriss's target keeps a familiar in hand
    when it has none in play (the first familiar of the redraw trades places with the first card of that hand)."""
    at = 0
    for k in range(count):
        zone, q, size = slots[k, 0], slots[k, 1], slots[k, 2]
        deciding = False
        for m in range(s.stack_depth[i]):
            if s.stack[i, m, 0] == _KRISS_STEP and s.stack[i, m, 1] == q and q != player:
                deciding = True
        familiar_in_play = False
        for m in range(s.in_play_count[i, q]):
            if not IS_ITEM_CARD[CARD_OF_INSTANCE[s.in_play[i, q, m]]]:
                familiar_in_play = True
        if zone == 0 and deciding and not familiar_in_play:
            dealt = False
            for m in range(at, at + size):
                if not IS_ITEM_CARD[shuffled[m]]:
                    dealt = True
            if not dealt:
                for m in range(shuffled.shape[0]):
                    if not IS_ITEM_CARD[shuffled[m]]:
                        card = shuffled[m]
                        shuffled[m] = shuffled[at]
                        shuffled[at] = card
                        break
        at += size


@kernel
def determinize_row(s, i, player, view, j, key, order):
    """``hidden.determinize`` of row ``i`` for ``player`` into row ``j`` of ``view`` (see the module)."""
    n = s.crystals.shape[1]
    copy_row(s, i, view, j)
    view.chance_key[j] = key
    view.chance_counter[j] = np.uint64(0)
    for q in range(n):
        if q != player:
            view.draft_seen[j, q] = np.uint64(0)
    pool = np.empty(order.shape[0], dtype=np.int64)
    size = 0
    # the hidden zones, in the order the reference gathers them: (zone 0-3, seat, size); the zone 0 hand,
    # 1 and 2 the library sets of years 2 and 3, 3 the draft pack
    slots = np.zeros((4 * n, 3), dtype=np.int64)
    count = 0
    for q in range(n):
        if q == player:
            continue
        start = size
        size = _gather(s.hand, i, q, pool, size)
        if size > start:
            slots[count, 0], slots[count, 1], slots[count, 2] = 0, q, size - start
            count += 1
        for y in range(2):
            start = size
            for k in range(s.library.shape[3]):
                c = s.library[i, q, y, k]
                if c != 0:
                    pool[size] = c
                    size += 1
            if size > start:
                slots[count, 0], slots[count, 1], slots[count, 2] = 1 + y, q, size - start
                count += 1
        start = size
        size = _gather(s.draft_pack, i, q, pool, size)
        if size > start:
            slots[count, 0], slots[count, 1], slots[count, 2] = 3, q, size - start
            count += 1
    keep_top = _keeps_top(s, i, player)
    draw_size = np.int64(s.draw_count[i]) - (1 if keep_top else 0)
    for k in range(draw_size):
        pool[size] = s.draw_pile[i, k]
        size += 1
    discard_size = np.int64(s.discard_count[i])
    for k in range(discard_size):
        pool[size] = s.discard_pile[i, k]
        size += 1
    # cards other seats are privately choosing among leave limbo for the pool
    limbo = np.empty(s.limbo.shape[1], dtype=np.int64)
    limbo_size = np.int64(s.limbo_count[i])
    for k in range(limbo_size):
        limbo[k] = s.limbo[i, k]
    private = _private_steps(s, i, player)
    for k in private:
        kind = s.stack[i, k, 0]
        for col in range(STEP_WIDTH):
            c = s.stack[i, k, col]
            if CARD_COLUMN[kind, col] and c != NO_VALUE:
                for m in range(limbo_size):  # list.remove: the first copy
                    if limbo[m] == c:
                        for r in range(m, limbo_size - 1):
                            limbo[r] = limbo[r + 1]
                        limbo_size -= 1
                        break
                pool[size] = c
                size += 1
    _sort(pool)  # the redraw depends on which cards are unseen, never on where they really are
    shuffled = pool[order]
    _keep_kriss_familiar(s, i, player, slots, count, shuffled)
    at = 0
    for k in range(count):
        zone, q, zone_size = slots[k, 0], slots[k, 1], slots[k, 2]
        cards = shuffled[at : at + zone_size].copy()
        at += zone_size
        _sort(cards)
        if zone == 0 or zone == 3:
            counts = view.hand if zone == 0 else view.draft_pack
            counts[j, q, :] = 0
            for c in cards:
                counts[j, q, c] += 1
        else:
            for m in range(zone_size):
                view.library[j, q, zone - 1, m] = cards[m]
    for k in range(draw_size):
        view.draw_pile[j, k] = shuffled[at + k]
    at += draw_size
    for k in range(discard_size):
        view.discard_pile[j, k] = shuffled[at + k]
    at += discard_size
    for k in private:
        kind = view.stack[j, k, 0]
        for col in range(STEP_WIDTH):
            if CARD_COLUMN[kind, col] and view.stack[j, k, col] != NO_VALUE:
                view.stack[j, k, col] = shuffled[at]
                limbo[limbo_size] = shuffled[at]
                limbo_size += 1
                at += 1
    for k in range(limbo_size):
        view.limbo[j, k] = limbo[k]
    top = view.draw_pile[j, view.draw_count[j] - 1] if view.draw_count[j] > 0 else NO_VALUE
    if view.orb_seen[j, 0] != NO_VALUE and view.orb_seen[j, 0] != player:  # another seat's look: the new top
        if top != NO_VALUE:
            view.orb_seen[j, 1] = top
        else:
            view.orb_seen[j, 0] = NO_VALUE
            view.orb_seen[j, 1] = NO_VALUE
    for k in range(view.stack_depth[j]):
        if view.stack[j, k, 0] == _ORB_SEEN_STEP and view.stack[j, k, 1] != player and top != NO_VALUE:
            view.stack[j, k, _ORB_SEEN_CARD] = top
