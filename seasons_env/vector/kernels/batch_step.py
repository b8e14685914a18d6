"""A batch's whole step as one compiled call per block of rows: what ``VectorGame.apply`` does to each game.

``step_block`` takes rows ``lo..hi-1`` of a batch: a running game is given its action (checked legal beforehand by
``first_illegal``: the mask is known), resolved and run to its next decision; a finished one is restarted (its next
episode: the opening copied in, its chance key made from the batch seed, its index and episode as ``game_seed``
makes it, dealt and run to its first decision). Then the row's records are written as ``VectorGame._refresh``
writes them: the legal mask, the current player, the over flag, the final scores, cards in play and winners of a
finished game and the step's results (stepped, restarted, finished, final scores, winners); the row's observation
is marked stale, to be encoded when read (``VectorGame.observations``). A row depends on nothing outside it, so
blocks of rows run on several threads at once (``row_blocks.py``) give the same games whatever their number.

``game_key`` is ``chance.key_of_seed(core.game_seed(seed, index, episode))`` compiled: numpy's ``SeedSequence``
mixing of the entropy words ``(seed, index, episode)`` and two ``generate_state`` words, then SplitMix64's
finalizer (``tests/test_vector_threads.py`` checks it against both for many seeds).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine.chance import MIX_M1, MIX_M2, SEED_DOMAIN

from . import kernel, wrapping_kernel
from .machine import OVER, STOPPED, apply_row
from .new_game import deal_row
from .row_copy import copy_into, copy_row
from .tables import STEP_WIDTH

# numpy's SeedSequence constants (its pool of 4 words, hashmix and mix).
_POOL = 4
_MASK32 = np.uint64(0xFFFFFFFF)
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_MULT_L, _MIX_MULT_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
_KEY_M1, _KEY_M2, _KEY_DOMAIN = np.uint64(MIX_M1), np.uint64(MIX_M2), np.uint64(SEED_DOMAIN)


def entropy_words(value: int) -> np.ndarray:
    """uint64 ``[k]``: the 32-bit words SeedSequence reads from a non-negative int, lowest first (``[0]`` for 0)."""
    words = [0] if value == 0 else []
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return np.array(words, dtype=np.uint64)


@wrapping_kernel
def _hashmix(value, hash_const):
    """SeedSequence's hashmix of ``value`` with ``hash_const[0]`` (advanced): 32-bit words held in uint64."""
    value ^= hash_const[0]
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> _XSHIFT)


@wrapping_kernel
def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _XSHIFT)


@wrapping_kernel
def game_key(seed_words, index, episode):
    """The chance key of ``Game.new(seed=game_seed(seed, index, episode))``; ``seed_words`` is
    ``entropy_words(seed)``."""
    entropy = np.empty(seed_words.shape[0] + 4, dtype=np.uint64)
    n = seed_words.shape[0]
    for k in range(n):  # not a slice assignment: see ``row_copy.copy_into``
        entropy[k] = seed_words[k]
    for value in (np.uint64(index), np.uint64(episode)):
        entropy[n] = value & _MASK32
        n += 1
        if value >> np.uint64(32):
            entropy[n] = value >> np.uint64(32)
            n += 1
    hash_const = np.empty(1, dtype=np.uint64)
    hash_const[0] = _INIT_A
    pool = np.empty(_POOL, dtype=np.uint64)
    for k in range(_POOL):
        pool[k] = _hashmix(entropy[k] if k < n else np.uint64(0), hash_const)
    for source in range(_POOL):
        for target in range(_POOL):
            if source != target:
                pool[target] = _mix(pool[target], _hashmix(pool[source], hash_const))
    for source in range(_POOL, n):
        for target in range(_POOL):
            pool[target] = _mix(pool[target], _hashmix(entropy[source], hash_const))
    # generate_state(2, uint32), then game_seed's 63 bits and key_of_seed
    const = _INIT_B
    words = np.empty(2, dtype=np.uint64)
    for k in range(2):
        value = pool[k] ^ const
        const = (const * _MULT_B) & _MASK32
        value = (value * const) & _MASK32
        words[k] = value ^ (value >> _XSHIFT)
    z = ((words[0] << np.uint64(31)) | (words[1] >> np.uint64(1))) ^ _KEY_DOMAIN
    z = (z ^ (z >> np.uint64(30))) * _KEY_M1
    z = (z ^ (z >> np.uint64(27))) * _KEY_M2
    return z ^ (z >> np.uint64(31))


@kernel
def first_illegal(actions, where, over, mask):
    """The first game (in index order) given an action it may not take, and how many were: a game is given one when
    it runs and is selected (``where[i]``, every game if ``where`` is empty); -1 and 0 when every action is legal."""
    first = -1
    count = 0
    for i in range(actions.shape[0]):
        if over[i] or (where.shape[0] > 0 and not where[i]):
            continue
        action = actions[i]
        if action < 0 or action >= A.NUM_ACTIONS or not mask[i, action]:
            if first < 0:
                first = i
            count += 1
    return first, count


@kernel
def _winners_row(scores, cards, out):
    """The engine's tie-break (``Game.winners``): the best score, then the most cards in play among those."""
    best = scores.max()
    most = -1
    for p in range(scores.shape[0]):
        if scores[p] == best and cards[p] > most:
            most = cards[p]
    for p in range(scores.shape[0]):
        out[p] = scores[p] == best and cards[p] == most


@kernel
def step_block(
    s,
    lo,
    hi,
    actions,
    where,
    autoreset,
    seed_words,
    opening,
    pile,
    dealt,
    legal,
    status,
    episode,
    mask,
    current,
    last_player,
    over,
    final_scores,
    final_cards,
    winners,
    obs_stale,
    stepped,
    restarted,
    finished,
    info_scores,
    info_winners,
):
    """Step rows ``lo..hi-1`` as the module docstring says. ``episode`` .. ``obs_stale`` are ``VectorGame``'s arrays
    of the same names; ``stepped`` .. ``info_winners`` the ``StepInfo`` being built, all False / zero before the
    call. Arrays are passed one by one, not in a struct or tuple: each call then holds its own references to them,
    none shared between the threads."""
    task = np.empty(STEP_WIDTH, dtype=np.int64)
    out = np.empty(A.NUM_ACTIONS, dtype=np.int64)
    for i in range(lo, hi):
        if where.shape[0] > 0 and not where[i]:
            continue
        if over[i]:
            if not autoreset:
                continue
            restarted[i] = True
            episode[i] += 1
            copy_row(opening, 0, s, i)
            s.chance_key[i] = game_key(seed_words, i, episode[i])
            code = deal_row(s, i, pile, dealt, task, out, legal)
        else:
            stepped[i] = True
            last_player[i] = current[i]
            code = apply_row(s, i, actions[i], task, out, legal)
        status[i] = code
        copy_into(mask[i], legal[i])
        done = code == OVER
        over[i] = done
        if code == STOPPED:
            current[i] = np.int64(s.stack[i, s.stack_depth[i] - 1, 1])
            last_player[i] = current[i]
            final_scores[i] = 0
            final_cards[i] = 0
            winners[i] = False
        else:
            current[i] = -1
            for p in range(final_scores.shape[1]):
                final_scores[i, p] = s.final_scores[i, p]
                final_cards[i, p] = s.in_play_count[i, p]
            _winners_row(final_scores[i], final_cards[i], winners[i])
            if stepped[i]:
                finished[i] = True
                copy_into(info_scores[i], final_scores[i])
                copy_into(info_winners[i], winners[i])
        obs_stale[i] = True
