"""A whole row of an array state copied into a row of another (or the same) state of the same player count: what
a search plays its copies of a position on (``hidden_kernels.determinize_row``, the compiled heuristic's
lookahead). Every field of ``LAYOUT`` is listed; ``tests/test_vector_hidden_kernels.py`` compares every field of
the rows it writes.

A row of a field with more than one dimension is copied by ``copy_into``, element by element, not by a slice
assignment (``target.hand[j] = s.hand[i]``): numba compiles into every slice assignment of one array into another a
check of their shapes whose error message formats them, and that formatting took about 3 CPU seconds to compile in
each process that compiled a batch's kernels."""

from __future__ import annotations

from . import kernel


@kernel
def copy_into(target, source):
    """Copy ``source`` into ``target``, two C-contiguous arrays of the same shape (rows of two fields, say);
    ValueError if their sizes differ (the message is not formatted: see the module docstring)."""
    if target.size != source.size:
        raise ValueError("copy_into: the two arrays differ in size")
    flat_target = target.reshape(target.size)
    flat_source = source.reshape(source.size)
    for k in range(flat_source.size):
        flat_target[k] = flat_source[k]


@kernel
def copy_row(s, i, target, j):
    """Copy row ``i`` of ``s`` into row ``j`` of ``target`` (the same player count): every field of ``LAYOUT``."""
    target.level[j] = s.level[i]
    target.year[j] = s.year[i]
    target.position[j] = s.position[i]
    target.first_player[j] = s.first_player[i]
    target.turn_player[j] = s.turn_player[i]
    target.turn_flags[j] = s.turn_flags[i]
    target.dice_season[j] = s.dice_season[i]
    copy_into(target.game_dice[j], s.game_dice[i])
    copy_into(target.rolled[j], s.rolled[i])
    target.rolled_count[j] = s.rolled_count[i]
    copy_into(target.crystals[j], s.crystals[i])
    copy_into(target.reserve[j], s.reserve[i])
    copy_into(target.gauge[j], s.gauge[i])
    copy_into(target.bonuses_used[j], s.bonuses_used[i])
    copy_into(target.hand[j], s.hand[i])
    copy_into(target.library[j], s.library[i])
    copy_into(target.in_play[j], s.in_play[i])
    copy_into(target.in_play_count[j], s.in_play_count[i])
    copy_into(target.tapped[j], s.tapped[i])
    copy_into(target.stored[j], s.stored[i])
    copy_into(target.stored_present[j], s.stored_present[i])
    copy_into(target.draft_pack[j], s.draft_pack[i])
    copy_into(target.draft_seen[j], s.draft_seen[i])
    copy_into(target.draw_pile[j], s.draw_pile[i])
    target.draw_count[j] = s.draw_count[i]
    copy_into(target.discard_pile[j], s.discard_pile[i])
    target.discard_count[j] = s.discard_count[i]
    copy_into(target.limbo[j], s.limbo[i])
    target.limbo_count[j] = s.limbo_count[i]
    copy_into(target.deferred_tokens[j], s.deferred_tokens[i])
    target.deferred_count[j] = s.deferred_count[i]
    copy_into(target.orb_seen[j], s.orb_seen[i])
    copy_into(target.stack[j], s.stack[i])
    target.stack_depth[j] = s.stack_depth[i]
    target.over[j] = s.over[i]
    copy_into(target.final_scores[j], s.final_scores[i])
    target.chance_key[j] = s.chance_key[i]
    target.chance_counter[j] = s.chance_counter[i]
    target.overflow_check[j] = s.overflow_check[i]
