"""The observation of a row, compiled: ``encode_observation`` over one row of the array state.

``observe_row(s, i, observer, out)`` writes exactly ``encode_observation(unpack(state, i), observer)`` (the same
float32 values in the same ``LAYOUT``, ``encoders/encoding.py``), function for function: ``_public_scalars``,
``_player_stored`` and ``_encode_context`` have their kernels here. The tables it reads (die faces, each decision
kind's one-hot column and argument columns, the token stores shown) are built here at import from the engine's data
and the encoder's layout, so the writer follows them; the rules kernels' ``tables.py`` does not import the encoder,
so an edit of the observation recompiles only this writer and the kernels that call it.
"""

from __future__ import annotations

import numpy as np

from seasons_env.encoders import encoding as E
from seasons_env.engine import steps
from seasons_env.engine.data import DICE, DICE_PER_SEASON, NUM_CARDS
from seasons_env.engine.state import TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED

from ..state.arrays import STORING_INSTANCES
from ..state.step_codes import ARG_COLUMNS, NO_VALUE
from . import kernel
from .row_copy import copy_into
from .state_ops import reserve_limit
from .tables import CARD_OF_INSTANCE

# ---------------------------------------------------------------------------- tables
# What the writer gathers from, built from the encoder's layout and the step rows' argument columns (here, not in
# ``tables.py``, so that an edit of the observation's layout recompiles this writer and its callers only).

_NUM_STEP_KINDS = len(steps.KINDS)
_NO_COLUMN = -1

#: Column of the observation's decision one-hot for each step kind; -1 for a kind that is not a decision.
DECISION_COLUMN = np.full(_NUM_STEP_KINDS, _NO_COLUMN, dtype=np.intp)
for _kind, _k in E.DECISION_INDEX.items():
    DECISION_COLUMN[_kind] = _k


def _die_table() -> np.ndarray:
    """``[season, die, face, DIE_FEATURES]``: a rolled die's row of the ``dice`` slice, but ``untaken``/``taken_by``
    (the reference encoder's ``FACE_FEATURES``)."""
    faces = max(len(faces) for dice in DICE for faces in dice)
    table = np.zeros((len(DICE), DICE_PER_SEASON, faces, E.DIE_FEATURES), dtype=np.float32)
    for season, dice in enumerate(E.FACE_FEATURES):
        for die, die_faces in enumerate(dice):
            for f, features in enumerate(die_faces):
                table[season, die, f, : E.DIE_UNTAKEN] = features
    return table


DIE_TABLE = _die_table()
if DICE_PER_SEASON > 7:  # the game dice are read as a uint8 bit mask whose bit 7 takes the padding
    raise RuntimeError(f"the observation kernel reads at most 7 dice per season; the data has {DICE_PER_SEASON}")

# The token stores the observation shows, in its order, as rows of the array state's ``stored``.
_SHOWN_STORES = E.SHOWN_STORES
SHOWN_STORED_ROW = np.array([STORING_INSTANCES.index(inst) for inst in _SHOWN_STORES], dtype=np.intp)
SHOWN_STORE_INSTANCES = np.array(_SHOWN_STORES, dtype=np.intp)


def _context_columns() -> dict[str, np.ndarray]:
    """Per step kind, the step-row column of each argument the context shows (-1: the kind has none).

    ``encode_observation`` shows ``cards`` (counts), ``card`` / ``instance`` (the card one-hot), ``need`` (four
    energies) or ``energy`` (a type one-hot), a count (``count``, ``remaining``, ``waivers`` or ``year``, or 1 for
    ``keep_or_discard``) and the first of the ``recipients``. Other arguments are not shown."""
    roles = {
        "cards": "cards",
        "card": "card",
        "instance": "instance",
        "need": "need",
        "energy": "energy",
        "count": "count",
        "remaining": "count",
        "waivers": "count",
        "year": "count",
        "recipients": "recipients",
    }
    table = {role: np.full(_NUM_STEP_KINDS, _NO_COLUMN, dtype=np.intp) for role in (*roles.values(), "cards_width")}
    for kind, columns in enumerate(ARG_COLUMNS):
        for col in columns:
            role = roles.get(col.name)
            if role is None:
                continue
            clash = "card" if role == "instance" else "instance" if role == "card" else None
            if table[role][kind] != _NO_COLUMN or (clash is not None and table[clash][kind] != _NO_COLUMN):
                raise RuntimeError(f"step {steps.KINDS[kind]!r}: two arguments fill the context's {role!r}")
            table[role][kind] = col.start
            if role == "cards":
                table["cards_width"][kind] = col.width
    if ((table["need"] != _NO_COLUMN) & (table["energy"] != _NO_COLUMN)).any():
        raise RuntimeError("a step kind has both `need` and `energy`: the context's energy would be ambiguous")
    return table


CONTEXT_COLUMNS = _context_columns()
CONTEXT_COUNT_ONE = np.zeros(_NUM_STEP_KINDS, dtype=np.bool_)
CONTEXT_COUNT_ONE[steps.kind("keep_or_discard")] = True


_TRANSMUTE_ABILITY, _TRANSMUTE_BONUS_USED = int(TRANSMUTE_ABILITY), int(TRANSMUTE_BONUS_USED)
_CTX_CARDS_COLUMN, _CTX_CARDS_WIDTH = CONTEXT_COLUMNS["cards"], CONTEXT_COLUMNS["cards_width"]
_CTX_CARD_COLUMN, _CTX_INSTANCE_COLUMN = CONTEXT_COLUMNS["card"], CONTEXT_COLUMNS["instance"]
_CTX_NEED_COLUMN, _CTX_ENERGY_COLUMN = CONTEXT_COLUMNS["need"], CONTEXT_COLUMNS["energy"]
_CTX_COUNT_COLUMN, _CTX_RECIPIENTS_COLUMN = CONTEXT_COLUMNS["count"], CONTEXT_COLUMNS["recipients"]
_NUM_SHOWN_STORES = len(SHOWN_STORE_INSTANCES)


@kernel
def _public_scalars(s, i, p, out, at):
    """Crystals/100, gauge/15, cards in play, reserve limit/10, hand size, library set sizes, from ``out[at]``."""
    out[at] = s.crystals[i, p] / E.CRYSTAL_SCALE
    out[at + 1] = s.gauge[i, p] / E.GAUGE_SCALE
    out[at + 2] = s.in_play_count[i, p]
    out[at + 3] = reserve_limit(s, i, p) / E.RESERVE_LIMIT_SCALE
    hand = 0
    for c in range(1, NUM_CARDS + 1):
        hand += s.hand[i, p, c]
    out[at + 4] = hand
    for year in range(2):
        size = 0
        for k in range(s.library.shape[3]):
            if s.library[i, p, year, k] != 0:
                size += 1
        out[at + 5 + year] = size


@kernel
def _player_stored(s, i, p, out, at):
    """Tokens on the seat's Amulets of Water and Glutton Cauldrons in play, each store's four from ``at + 4k``."""
    for k in range(_NUM_SHOWN_STORES):
        inst = SHOWN_STORE_INSTANCES[k]
        held = False
        for j in range(s.in_play_count[i, p]):
            if s.in_play[i, p, j] == inst:
                held = True
        row = SHOWN_STORED_ROW[k]
        if held and s.stored_present[i, row]:
            for t in range(4):
                out[at + 4 * k + t] = s.stored[i, row, t]


@kernel
def _in_play(s, i, p, out, in_play_at, tapped_at):
    """Counts per card of the seat's cards in play, and of those tapped."""
    for j in range(s.in_play_count[i, p]):
        inst = s.in_play[i, p, j]
        c = CARD_OF_INSTANCE[inst]
        out[in_play_at + c - 1] += 1.0
        if s.tapped[i, inst]:
            out[tapped_at + c - 1] += 1.0


@kernel
def _context(s, i, top, observer, n, out):
    """``_encode_context``: what the decision on top (row ``top`` of the stack) shows its decider."""
    kind = np.int64(s.stack[i, top, 0])
    col = _CTX_CARDS_COLUMN[kind]
    if col >= 0:
        for j in range(_CTX_CARDS_WIDTH[kind]):
            card = np.int64(s.stack[i, top, col + j])
            if card != NO_VALUE:
                out[E.CTX_CARDS + card - 1] += 1.0
    col = _CTX_CARD_COLUMN[kind]
    if col >= 0:
        out[E.CTX_CARD + np.int64(s.stack[i, top, col]) - 1] = 1.0
    col = _CTX_INSTANCE_COLUMN[kind]
    if col >= 0:
        out[E.CTX_CARD + CARD_OF_INSTANCE[np.int64(s.stack[i, top, col])] - 1] = 1.0
    col = _CTX_NEED_COLUMN[kind]
    if col >= 0:
        for t in range(4):
            out[E.CTX_ENERGY + t] = s.stack[i, top, col + t]
    col = _CTX_ENERGY_COLUMN[kind]
    if col >= 0:
        out[E.CTX_ENERGY + np.int64(s.stack[i, top, col])] = 1.0
    col = _CTX_COUNT_COLUMN[kind]
    if col >= 0:
        out[E.CTX_COUNT] = s.stack[i, top, col]
    if CONTEXT_COUNT_ONE[kind]:
        out[E.CTX_COUNT] = 1.0
    col = _CTX_RECIPIENTS_COLUMN[kind]
    if col >= 0:
        out[E.CTX_SEAT + (np.int64(s.stack[i, top, col]) - observer) % n] = 1.0


@kernel
def _dice(s, i, observer, n, out):
    """The ``dice`` slice: each rolled die's face features, then who took it (relative seat)."""
    season = s.dice_season[i]
    for j in range(s.rolled_count[i]):
        die = np.int64(s.rolled[i, j, 0])
        face = np.int64(s.rolled[i, j, 1])
        owner = np.int64(s.rolled[i, j, 2])
        at = E.DICE_SLICE + die * E.DIE_FEATURES
        for f in range(E.DIE_FEATURES):
            out[at + f] = DIE_TABLE[season, die, face, f]
        if owner < 0:
            out[at + E.DIE_UNTAKEN] = 1.0
        else:
            out[at + E.DIE_TAKEN_BY + (owner - observer) % n] = 1.0


@kernel
def observe_row(s, i, observer, out):
    """Write ``encode_observation(game of row i, observer)`` into ``out`` (float32 ``[OBSERVATION_SIZE]``)."""
    out[:] = 0.0
    n = s.crystals.shape[1]
    depth = np.int64(s.stack_depth[i])
    if depth > 0:
        top = depth - 1
        kind = np.int64(s.stack[i, top, 0])
        decider = np.int64(s.stack[i, top, 1])
        out[E.DECISION + DECISION_COLUMN[kind]] = 1.0
        out[E.DECIDER + (decider - observer) % n] = 1.0
        if decider == observer:
            _context(s, i, top, observer, n, out)
    out[E.YEAR + min(np.int64(s.year[i]), 4) - 1] = 1.0
    position = np.int64(s.position[i])
    out[E.POSITION + position - 1] = 1.0
    out[E.SEASON + (position - 1) // 3] = 1.0
    out[E.DICE_SEASON + np.int64(s.dice_season[i])] = 1.0
    out[E.FIRST + (np.int64(s.first_player[i]) - observer) % n] = 1.0
    turn_player = np.int64(s.turn_player[i])
    if turn_player >= 0:
        out[E.TURN + (turn_player - observer) % n] = 1.0
    _dice(s, i, observer, n, out)
    can_transmute = (s.turn_flags[i] & _TRANSMUTE_ABILITY) != 0
    used_bonus = (s.turn_flags[i] & _TRANSMUTE_BONUS_USED) != 0
    # the observer's own facts
    p = observer
    _public_scalars(s, i, p, out, E.SELF_SCALARS)
    out[E.SELF_SCALARS + 7] = 1.0 if turn_player == p and can_transmute else 0.0
    out[E.SELF_SCALARS + 8] = 1.0 if turn_player == p and used_bonus else 0.0
    out[E.SELF_BONUSES + np.int64(s.bonuses_used[i, p])] = 1.0
    for t in range(4):
        out[E.SELF_RESERVE + t] = s.reserve[i, p, t]
    _player_stored(s, i, p, out, E.SELF_STORED)
    for c in range(1, NUM_CARDS + 1):
        out[E.SELF_HAND + c - 1] = s.hand[i, p, c]
        out[E.SELF_PACK + c - 1] = s.draft_pack[i, p, c]
    for k in range(s.library.shape[3]):
        c = np.int64(s.library[i, p, 0, k])
        if c != 0:
            out[E.SELF_LIBRARY2 + c - 1] += 1.0
        c = np.int64(s.library[i, p, 1, k])
        if c != 0:
            out[E.SELF_LIBRARY3 + c - 1] += 1.0
    _in_play(s, i, p, out, E.SELF_IN_PLAY, E.SELF_TAPPED)
    seen = s.draft_seen[i, p]
    for c in range(1, NUM_CARDS + 1):
        if (seen >> np.uint64(c)) & np.uint64(1):
            out[E.SELF_SEEN + c - 1] = 1.0
    if s.orb_seen[i, 0] == p:
        out[E.SELF_ORB + np.int64(s.orb_seen[i, 1]) - 1] = 1.0
    # opponents: public facts only
    for k in range(1, n):
        q = (p + k) % n
        at = E.OPPONENTS + (k - 1) * E.OPP_FEATURES
        out[at + E.OPP_PRESENT] = 1.0
        _public_scalars(s, i, q, out, at + E.OPP_SCALARS)
        out[at + E.OPP_BONUSES + np.int64(s.bonuses_used[i, q])] = 1.0
        for t in range(4):
            out[at + E.OPP_RESERVE + t] = s.reserve[i, q, t]
        _player_stored(s, i, q, out, at + E.OPP_STORED)
        _in_play(s, i, q, out, at + E.OPP_IN_PLAY, at + E.OPP_TAPPED)
        out[E.OPPONENTS_TURN + 2 * (k - 1)] = 1.0 if turn_player == q and can_transmute else 0.0
        out[E.OPPONENTS_TURN + 2 * (k - 1) + 1] = 1.0 if turn_player == q and used_bonus else 0.0
    # public facts appended in version 2
    out[E.PILES] = s.draw_count[i] / E.PILE_SCALE
    out[E.PILES + 1] = s.discard_count[i] / E.PILE_SCALE
    for season in range(s.game_dice.shape[1]):
        for j in range(s.game_dice.shape[2]):
            die = np.int64(s.game_dice[i, season, j])
            if die >= 0:
                out[E.GAME_DICE + season * DICE_PER_SEASON + die] = 1.0
    for j in range(s.deferred_count[i]):
        seat = np.int64(s.deferred_tokens[i, j, 0])
        out[E.DEFERRED + (seat - observer) % n] += s.deferred_tokens[i, j, 1]


@kernel
def observe_rows(s, rows, seats, out):
    """``observe_row(s, rows[k], seats[k], out[k])`` for every k: the observations of some rows, packed."""
    for k in range(rows.shape[0]):
        observe_row(s, rows[k], seats[k], out[k])


@kernel
def observe_rows_in_place(s, rows, seats, out):
    """``observe_row(s, rows[k], seats[k], out[rows[k]])`` for every k: into a ``[B, OBSERVATION_SIZE]`` buffer."""
    for k in range(rows.shape[0]):
        observe_row(s, rows[k], seats[k], out[rows[k]])


@kernel
def observe_block(s, lo, hi, over, last_player, current, out, mask, masks_out):
    """After a step of rows ``lo..hi-1`` (``batch_step.step_block``): each row's observation into ``out[i]``, for
    the seat ``backends.observing_seats`` names (its current player; once over, the seat that made its last
    decision), and, unless ``masks_out`` has no rows, its legal mask ``mask[i]`` into ``masks_out[i]``. One call
    without the interpreter lock where the seats, the observations and the masks' copy were three."""
    copy_masks = masks_out.shape[0] > 0
    for i in range(lo, hi):
        observe_row(s, i, last_player[i] if over[i] else current[i], out[i])
        if copy_masks:
            copy_into(masks_out[i], mask[i])
