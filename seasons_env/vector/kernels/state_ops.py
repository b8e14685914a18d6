"""``state.py`` and ``chance.py`` for one row of an array state: the reads and rule-free mutators every kernel uses.

Every function takes the array state's fields as one tuple ``s`` (``batch.kernel_arrays``: the ``ArrayState``
arrays in ``LAYOUT`` order, by name) and the row ``i``, and reads or writes that row only. Each mirrors the
``State`` method of the same name (``engine/state.py``) exactly, including what it leaves in unused slots (0, or
-1 where the layout fills with -1), so that a row written by kernels equals the row ``pack`` writes for the game
the reference engine reaches.

Steps are pushed one at a time with ``push`` (the last pushed runs first): to schedule steps that run in the
order A, B, C, push C, then B, then A.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import steps
from seasons_env.engine.chance import GAMMA
from seasons_env.engine.data import Card

from . import inline_kernel, kernel, wrapping_kernel
from .tables import (
    AMULET_OF_WATER_INSTANCES,
    BONUS_PENALTY,
    CARD_OF_INSTANCE,
    CHOOSE_IN_PLAY_ACTION,
    GAUGE_MAX,
    HAND_PENALTY,
    INSTANCE_OF_CHOICE,
    NO_VALUE,
    NUM_YEARS,
    PRESTIGE_OF,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    STEP_WIDTH,
    STORED_ROW,
)

_GAMMA = np.uint64(GAMMA)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)

GAIN_ENERGY = steps.kind("gain_energy")
ENTER_PLAY = steps.kind("enter_play")
SEASON_CHANGE = steps.kind("season_change")
JOIN_LIBRARY = steps.kind("join_library")
NEXT_ROUND = steps.kind("next_round")
GAME_END = steps.kind("game_end")
OVERFLOW = steps.kind("overflow")

TRANSMUTE_ABILITY = 1
TRANSMUTE_BONUS_USED = 2

_GRIMOIRE0 = 2 * (int(Card.BESPELLED_GRIMOIRE) - 1)
_PURSE0 = 2 * (int(Card.PURSE_OF_IO) - 1)
_LEECH0 = 2 * (int(Card.ARCANO_LEECH) - 1)
_HAND_OF_FORTUNE0 = 2 * (int(Card.HAND_OF_FORTUNE) - 1)
_CURSED_TREATISE = int(Card.CURSED_TREATISE_OF_ARUS)
_BESPELLED_GRIMOIRE = int(Card.BESPELLED_GRIMOIRE)
_THIEVING_FAIRIES = int(Card.THIEVING_FAIRIES)
_PURSE_OF_IO = int(Card.PURSE_OF_IO)  # card ids as plain ints: numba cannot call int() on an IntEnum
_ARCANO_LEECH = int(Card.ARCANO_LEECH)


# ---------------------------------------------------------------------------- chance (engine/chance.py)


@wrapping_kernel
def below(s, i, n):
    """``Chance.below(n)``: a uniform int in ``0..n-1`` from the row's stream; advances its counter."""
    z = s.chance_key[i] + (s.chance_counter[i] + np.uint64(1)) * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    w = z ^ (z >> np.uint64(31))
    s.chance_counter[i] += np.uint64(1)
    nn = np.uint64(n)
    high = w >> np.uint64(32)
    low = w & _LOW32
    return np.int64((high * nn + ((low * nn) >> np.uint64(32))) >> np.uint64(32))


@kernel
def permutation(s, i, size):
    """``Chance.permutation(size)``: Fisher-Yates from the last place down, one ``below`` per place."""
    order = np.arange(size)
    for place in range(size - 1, 0, -1):
        other = below(s, i, place + 1)
        order[place], order[other] = order[other], order[place]
    return order


@kernel
def sample(s, i, size, count):
    """``Chance.sample(size, count)``: ``count`` distinct values of ``0..size-1``, sorted."""
    order = np.arange(size)
    for place in range(count):
        other = place + below(s, i, size - place)
        order[place], order[other] = order[other], order[place]
    return np.sort(order[:count])


# ---------------------------------------------------------------------------- the step stack


@inline_kernel
def push(s, i, kind, player, a0=NO_VALUE, a1=NO_VALUE, a2=NO_VALUE, a3=NO_VALUE, a4=NO_VALUE, a5=NO_VALUE):
    """Schedule one step ``(kind, player, a0, ...)`` to run next; the argument columns are ``tables.column``'s."""
    d = s.stack_depth[i]
    if d >= s.stack.shape[1]:
        raise ValueError("the pending steps of a row passed the array state's stack capacity")
    row = s.stack[i, d]
    row[0] = kind
    row[1] = player
    row[2] = a0
    row[3] = a1
    row[4] = a2
    row[5] = a3
    row[6] = a4
    row[7] = a5
    s.stack_depth[i] = d + 1


@kernel
def push_row(s, i, task):
    """Schedule a step given as a whole step row (``task``: ``STEP_WIDTH`` ints)."""
    d = s.stack_depth[i]
    if d >= s.stack.shape[1]:
        raise ValueError("the pending steps of a row passed the array state's stack capacity")
    for k in range(STEP_WIDTH):
        s.stack[i, d, k] = task[k]
    s.stack_depth[i] = d + 1


@kernel
def pop(s, i, task):
    """Remove the step on top into ``task`` (int64 ``[STEP_WIDTH]``); its row is cleared to -1."""
    d = s.stack_depth[i] - 1
    for k in range(STEP_WIDTH):
        task[k] = s.stack[i, d, k]
        s.stack[i, d, k] = NO_VALUE
    s.stack_depth[i] = d


@kernel
def num_players(s):
    return s.crystals.shape[1]


# ---------------------------------------------------------------------------- reads


@kernel
def season(s, i):
    return (s.position[i] - 1) // 3


@kernel
def count_in_play(s, i, player, card):
    lo = 2 * (card - 1)
    found = 0
    for k in range(s.in_play_count[i, player]):
        inst = s.in_play[i, player, k]
        if inst == lo or inst == lo + 1:
            found += 1
    return found


@kernel
def instance_in_play(s, i, player, instance):
    for k in range(s.in_play_count[i, player]):
        if s.in_play[i, player, k] == instance:
            return True
    return False


@kernel
def reserve_limit(s, i, player):
    return RESERVE_LIMIT_GRIMOIRE if count_in_play(s, i, player, _BESPELLED_GRIMOIRE) else RESERVE_LIMIT


@kernel
def reserve_total(s, i, player):
    r = s.reserve[i, player]
    return np.int64(r[0]) + np.int64(r[1]) + np.int64(r[2]) + np.int64(r[3])


@kernel
def tokens_at(s, i, player, source, energy):
    """Tokens of one type at a source: 0 the reserve, 1 and 2 the Amulet of Water copies."""
    if source == 0:
        return np.int64(s.reserve[i, player, energy])
    row = STORED_ROW[AMULET_OF_WATER_INSTANCES[source - 1]]
    return np.int64(s.stored[i, row, energy]) if s.stored_present[i, row] else np.int64(0)


@kernel
def spendable(s, i, player):
    """Tokens the player may spend by type (int64 ``[4]``): reserve plus its Amulet of Water tokens."""
    total = np.zeros(4, dtype=np.int64)
    for t in range(4):
        total[t] = s.reserve[i, player, t]
    for k in range(2):
        inst = AMULET_OF_WATER_INSTANCES[k]
        if instance_in_play(s, i, player, inst):
            row = STORED_ROW[inst]
            if s.stored_present[i, row]:
                for t in range(4):
                    total[t] += s.stored[i, row, t]
    return total


@kernel
def has_room(s, i, player):
    return s.gauge[i, player] > s.in_play_count[i, player]


@kernel
def can_transmute(s, i, player):
    return s.turn_player[i] == player and (s.turn_flags[i] & TRANSMUTE_ABILITY) != 0


@kernel
def used_transmute_bonus(s, i, player):
    return s.turn_player[i] == player and (s.turn_flags[i] & TRANSMUTE_BONUS_USED) != 0


@kernel
def transmute_bonus(s, i, player):
    extra = count_in_play(s, i, player, _PURSE_OF_IO)
    if used_transmute_bonus(s, i, player):
        extra += 1
    return extra


@kernel
def leech_toll(s, i, player):
    n = num_players(s)
    toll = 0
    for k in range(1, n):
        toll += count_in_play(s, i, (player + k) % n, _ARCANO_LEECH)
    return toll


@kernel
def hand_size(s, i, player):
    total = 0
    for c in range(1, s.hand.shape[2]):
        total += s.hand[i, player, c]
    return total


@kernel
def score(s, i, player):
    """The player's score if the game ended now (before end-of-game effects)."""
    total = np.int64(s.crystals[i, player])
    for k in range(s.in_play_count[i, player]):
        total += PRESTIGE_OF[CARD_OF_INSTANCE[s.in_play[i, player, k]]]
    total -= HAND_PENALTY * hand_size(s, i, player)
    total -= BONUS_PENALTY[s.bonuses_used[i, player]]
    return total


# ---------------------------------------------------------------------------- mutators


@kernel
def request_overflow_check(s, i):
    s.overflow_check[i] = True


@kernel
def gain_crystals(s, i, player, amount):
    s.crystals[i, player] += amount


@kernel
def lose_crystals(s, i, player, amount):
    lost = min(amount, np.int64(s.crystals[i, player]))
    s.crystals[i, player] -= lost
    return lost


@kernel
def transfer_crystals(s, i, giver, receiver, amount):
    moved = lose_crystals(s, i, giver, amount)
    s.crystals[i, receiver] += moved
    return moved


@kernel
def add_gauge(s, i, player, amount):
    s.gauge[i, player] = max(0, min(GAUGE_MAX, np.int64(s.gauge[i, player]) + amount))


@kernel
def add_token(s, i, player, energy, amount):
    s.reserve[i, player, energy] += amount
    s.overflow_check[i] = True


@kernel
def add_tokens(s, i, player, water, earth, fire, air):
    s.reserve[i, player, 0] += water
    s.reserve[i, player, 1] += earth
    s.reserve[i, player, 2] += fire
    s.reserve[i, player, 3] += air
    s.overflow_check[i] = True


@kernel
def remove_token(s, i, player, energy, amount):
    if s.reserve[i, player, energy] < amount:
        raise ValueError("a kernel removed a token the reserve does not hold")
    s.reserve[i, player, energy] -= amount


@kernel
def gain_tokens_of_choice(s, i, player, count, onto):
    """Schedule ``count`` decisions 'gain 1 token of your choice' (onto the reserve, -1, or a card instance)."""
    if count > 0:
        push(s, i, GAIN_ENERGY, player, count, onto, 0)


@kernel
def spend_token(s, i, player, source, energy):
    if source == 0:
        remove_token(s, i, player, energy, 1)
        return
    row = STORED_ROW[AMULET_OF_WATER_INSTANCES[source - 1]]
    if not s.stored_present[i, row] or s.stored[i, row, energy] <= 0:
        raise ValueError("a kernel spent a token the Amulet of Water does not hold")
    s.stored[i, row, energy] -= 1


@kernel
def store_token(s, i, instance, energy):
    row = STORED_ROW[instance]
    s.stored_present[i, row] = True
    s.stored[i, row, energy] += 1


@inline_kernel
def hand_add(s, i, player, card):
    s.hand[i, player, card] += 1


@kernel
def hand_remove(s, i, player, card):
    if s.hand[i, player, card] == 0:
        raise ValueError("a kernel removed a card the hand does not hold")
    s.hand[i, player, card] -= 1


@kernel
def discard(s, i, card):
    s.discard_pile[i, s.discard_count[i]] = card
    s.discard_count[i] += 1


@kernel
def draw(s, i):
    """Top card of the draw pile (reshuffling the discard pile when empty), or 0 if both are empty."""
    if s.draw_count[i] == 0:
        size = np.int64(s.discard_count[i])
        if size == 0:
            return 0
        order = permutation(s, i, size)
        pile = s.discard_pile[i, :size].copy()
        for k in range(size):
            s.draw_pile[i, k] = pile[order[k]]
            s.discard_pile[i, k] = 0
        s.draw_count[i] = size
        s.discard_count[i] = 0
    s.orb_seen[i, 0] = NO_VALUE  # what a Crystal Orb showed is no longer the top card
    s.orb_seen[i, 1] = NO_VALUE
    top = s.draw_count[i] - 1
    card = np.int64(s.draw_pile[i, top])
    s.draw_pile[i, top] = 0
    s.draw_count[i] = top
    return card


@kernel
def draw_into_limbo(s, i, count):
    """Draw up to ``count`` cards into limbo; returns how many (they are the last entries of ``limbo``)."""
    drawn = 0
    for _ in range(count):
        card = draw(s, i)
        if card == 0:
            break
        to_limbo(s, i, card)
        drawn += 1
    return drawn


@kernel
def to_limbo(s, i, card):
    """Put ``card`` at the end of limbo."""
    if s.limbo_count[i] >= s.limbo.shape[1]:
        raise ValueError("the cards in limbo of a row passed the array state's capacity")
    s.limbo[i, s.limbo_count[i]] = card
    s.limbo_count[i] += 1


@kernel
def from_limbo(s, i, card):
    """Take the first ``card`` out of limbo (the later cards move down one place)."""
    count = s.limbo_count[i]
    for k in range(count):
        if s.limbo[i, k] == card:
            for m in range(k, count - 1):
                s.limbo[i, m] = s.limbo[i, m + 1]
            s.limbo[i, count - 1] = 0
            s.limbo_count[i] = count - 1
            return card
    raise ValueError("a kernel took a card out of limbo that is not there")


@kernel
def put_into_play_free(s, i, player, card):
    """A card in limbo goes into play for free; without room it is discarded (Divine Chalice)."""
    if has_room(s, i, player):
        push(s, i, ENTER_PLAY, player, card, 0, 0b1111)
    else:
        discard(s, i, from_limbo(s, i, card))


@kernel
def add_to_play(s, i, player, instance):
    """Append ``instance`` to the player's cards in play (``enter_play`` does the rest)."""
    if s.in_play_count[i, player] >= s.in_play.shape[2]:
        raise ValueError("the cards in play of a seat passed the array state's capacity")
    s.in_play[i, player, s.in_play_count[i, player]] = instance
    s.in_play_count[i, player] += 1


@kernel
def leave_play(s, i, player, instance, to_hand):
    """A card leaves play: sacrificed (to the discard pile) or returned to its owner's hand; its own leaving
    effect (``on_leave``: only Bespelled Grimoire and Cursed Treatise of Arus have one) follows."""
    count = s.in_play_count[i, player]
    at = -1
    for k in range(count):
        if s.in_play[i, player, k] == instance:
            at = k
            break
    if at < 0:
        raise ValueError("a kernel took a card out of play that is not in play")
    for m in range(at, count - 1):
        s.in_play[i, player, m] = s.in_play[i, player, m + 1]
    s.in_play[i, player, count - 1] = 0
    s.in_play_count[i, player] = count - 1
    s.tapped[i, instance] = False
    row = STORED_ROW[instance]
    if row >= 0:
        s.stored_present[i, row] = False
        for t in range(4):
            s.stored[i, row, t] = 0
    card = CARD_OF_INSTANCE[instance]
    if to_hand:
        hand_add(s, i, player, card)
    else:
        discard(s, i, card)
    if card == _BESPELLED_GRIMOIRE:
        request_overflow_check(s, i)  # the limit may drop back to 7
    elif card == _CURSED_TREATISE and not to_hand:
        for t in range(4):
            s.reserve[i, player, t] = 0


@kernel
def sacrifice(s, i, player, instance):
    leave_play(s, i, player, instance, False)


@kernel
def move_marker(s, i, spaces, by_boots):
    """Move the season marker (negative = backward) and schedule what the move triggers (``State.move_marker``)."""
    old_year = np.int64(s.year[i])
    old_season = season(s, i)
    absolute = (old_year - 1) * 12 + (np.int64(s.position[i]) - 1) + spaces
    if absolute < 0:
        raise ValueError("the marker cannot go back before year 1 space 1")
    new_year = absolute // 12 + 1
    s.position[i] = absolute % 12 + 1
    changed = old_year != new_year or old_season != season(s, i)
    if by_boots or new_year > NUM_YEARS:
        s.year[i] = new_year
    # The steps run in the order: season changes (turn order), the new year's library, the next round or the end.
    if not by_boots:
        push(s, i, GAME_END if new_year > NUM_YEARS else NEXT_ROUND, 0)
    if old_year < new_year <= NUM_YEARS:
        push(s, i, JOIN_LIBRARY, 0, new_year)
    if changed and (by_boots or new_year <= NUM_YEARS):  # ruling C1: every Boots season change counts
        n = num_players(s)
        for k in range(n - 1, -1, -1):
            push(s, i, SEASON_CHANGE, (s.first_player[i] + k) % n, 1 if by_boots else 0)


@kernel
def push_overflows(s, i):
    """``Game._push_overflows``: an ``overflow`` decision for each seat over its reserve limit without one."""
    n = num_players(s)
    for p in range(n):
        if reserve_total(s, i, p) > reserve_limit(s, i, p):
            pending = False
            for d in range(s.stack_depth[i]):
                if s.stack[i, d, 0] == OVERFLOW and s.stack[i, d, 1] == p:
                    pending = True
                    break
            if not pending:
                push(s, i, OVERFLOW, p, 0)


# ---------------------------------------------------------------------------- helpers cards share (behaviour.py)


@kernel
def same_stored(s, i, a, b):
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
def in_play_options(s, i, player, accept, out, count):
    """``behaviour.in_play_options``: append to ``out`` (from index ``count``) a CHOOSE_IN_PLAY action for each
    distinguishable card of the player's in play (same card, tapped state and stored tokens count once) whose
    instance ``accept`` (bool ``[NUM_INSTANCES]``) allows, by instance; returns the new count."""
    held = np.sort(s.in_play[i, player, : s.in_play_count[i, player]].astype(np.int64))
    first = count
    for inst in held:
        if not accept[inst]:
            continue
        seen = False
        for k in range(first, count):
            other = INSTANCE_OF_CHOICE[out[k]]
            if (
                CARD_OF_INSTANCE[other] == CARD_OF_INSTANCE[inst]
                and s.tapped[i, other] == s.tapped[i, inst]
                and same_stored(s, i, other, inst)
            ):
                seen = True
                break
        if not seen:
            out[count] = CHOOSE_IN_PLAY_ACTION[inst]
            count += 1
    return count


@kernel
def thieving_fairies(s, i, player):
    """An activation by ``player``, its cost paid: each opponent's Thieving Fairies take 1 crystal from ``player``
    if one remains, and their owner gains 1 more (RULES.md 8.41)."""
    n = num_players(s)
    for k in range(1, n):
        q = (player + k) % n
        for _ in range(count_in_play(s, i, q, _THIEVING_FAIRIES)):
            transfer_crystals(s, i, player, q, 1)
            gain_crystals(s, i, q, 1)


@kernel
def scores_rows(s, rows, out):
    """``out[k, p]``: the score of seat ``p`` in row ``rows[k]`` if the game ended now (``State.score``)."""
    for k in range(rows.shape[0]):
        for p in range(num_players(s)):
            out[k, p] = score(s, rows[k], p)


@kernel
def insert_sorted(out, count, action):
    """Insert ``action`` into the sorted ``out[:count]`` (options are returned sorted); returns the new count."""
    at = count
    while at > 0 and out[at - 1] > action:
        out[at] = out[at - 1]
        at -= 1
    out[at] = action
    return count + 1
