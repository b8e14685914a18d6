"""A batch's step on several threads, each thread's part one compiled call: ``VectorGame.apply`` with ``threads``.

``step_chunks`` runs one thread's part of a step: the chunks of rows it owns (``row_blocks.ChunkLayout``), in order,
then those no thread has claimed yet, each chunk stepped by ``batch_step.step_block`` and, if asked, observed by
``observe_rows.observe_block``. A chunk is claimed by one thread only (``row_blocks.claim``: its stamp raised to the
call's ticket in one atomic step), so a thread slowed by another process runs fewer. The step's results (stepped,
restarted, finished, final scores, winners) go to buffers the batch keeps, each chunk's rows cleared first.

``serve_steps`` is a pool thread's loop: it runs a call's chunks, marks the call done and spins for the next in
compiled code, so that from one step to the next it neither returns to Python nor waits for the interpreter lock the
calling thread holds (a thread that did started its first chunk 35 to 50 microseconds after the call, a step of
1,024 games taking about 800 on two threads). It returns to Python when no call comes within its spins or the next
is of another kind (``row_blocks.CompiledCall``).
"""

from __future__ import annotations

import numpy as np

from . import kernel
from .batch_step import step_block
from .observe_rows import observe_block
from .row_blocks import (
    LINE,
    ChunkLayout,
    CompiledCall,
    claim,
    load_acquire,
    next_generation,
    spin_until,
    store_release,
)


@kernel
def step_chunks(
    k,
    ticket,
    claims,
    bounds,
    shares,
    s,
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
    observations,
    masks_out,
):
    """Thread ``k``'s part of the call stamped ``ticket`` (module docstring): ``step_block``'s arguments, with
    ``stepped`` .. ``info_winners`` buffers cleared here chunk by chunk; ``observations`` (``masks_out``) with no
    rows: none written (not copied)."""
    workers = shares.shape[0] - 1
    observe = observations.shape[0] > 0
    for j in range(workers):
        owner = (k + j) % workers
        first, end = shares[owner], shares[owner + 1]
        for n in range(end - first):
            c = first + n if j == 0 and k < workers else end - 1 - n  # its own in order, the others' from their end
            if claim(claims, c * LINE, ticket) >= ticket:
                continue
            lo, hi = bounds[c], bounds[c + 1]
            for i in range(lo, hi):
                stepped[i] = False
                restarted[i] = False
                finished[i] = False
                for p in range(info_scores.shape[1]):
                    info_scores[i, p] = 0
                    info_winners[i, p] = False
            step_block(
                s, lo, hi, actions, where, autoreset, seed_words, opening, pile, dealt, legal, status, episode,
                mask, current, last_player, over, final_scores, final_cards, winners, obs_stale, stepped, restarted,
                finished, info_scores, info_winners,
            )  # fmt: skip
            if observe:
                observe_block(s, lo, hi, over, last_player, current, observations, mask, masks_out)


@kernel
def serve_steps(
    flags,
    k,
    generation_index,
    generation,
    done,
    spin_checks,
    ticket,
    claims,
    bounds,
    shares,
    s,
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
    observations,
    masks_out,
):
    """Pool thread ``k``'s loop (``row_blocks.CompiledCall.serve``): each call after ``done`` while the calls are of
    ``generation``; the last call run."""
    while True:
        wanted = done + 1
        if not spin_until(flags, 0, wanted, spin_checks):
            return done
        if load_acquire(flags, generation_index) != generation:
            return done
        step_chunks(
            k, load_acquire(ticket, 0), claims, bounds, shares, s, actions, where, autoreset, seed_words, opening,
            pile, dealt, legal, status, episode, mask, current, last_player, over, final_scores, final_cards, winners,
            obs_stale, stepped, restarted, finished, info_scores, info_winners, observations, masks_out,
        )  # fmt: skip
        done = wanted
        store_release(flags, LINE * k, done)


#: How many times longer than a thread of the pool spins for a plain call a compiled loop spins for its next call.
SERVE_SPINS = 4


class ThreadedStep(CompiledCall):
    """A batch's step on its threads with one set of arrays (``step_chunks``' after ``opening``, which is one per
    thread: ``openings``); a new one, of a new generation, whenever any array changes."""

    def __init__(self, layout: ChunkLayout, openings: list, arrays: tuple) -> None:
        self.generation = next_generation()
        self.layout = layout
        # each thread's arguments after its ticket: the chunks, its struct, the step's arrays with its opening
        self._arguments = [
            (layout.claims, layout.bounds, layout.shares, struct, *arrays[:4], openings[k], *arrays[4:])
            for k, struct in enumerate(layout.structs)
        ]

    def __call__(self, k: int) -> None:
        step_chunks(k, int(self.layout.ticket[0]), *self._arguments[k])

    def serve(self, k: int, flags: np.ndarray, generation_index: int, done: int, spin_checks: int) -> int:
        if k >= len(self._arguments):  # a pool with more threads than this call has chunks
            return done
        return serve_steps(
            flags, k, generation_index, self.generation, done, spin_checks * SERVE_SPINS, self.layout.ticket,
            *self._arguments[k],
        )  # fmt: skip
