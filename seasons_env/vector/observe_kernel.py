"""The observation kernel: ``encode_observation`` for every game of an array state at once (issue 11, stage 2).

``write_observations(state, seats, out)`` writes, for each selected row ``i``, exactly
``encode_observation(unpack(state, i), seats[i])``: the same float32 values in the same ``LAYOUT``
(``seasons_env/encoding.py``), with whole-batch numpy operations. Python loops run only over small fixed things
(the seats of a game, the dice of a season, the slots of a zone, the step argument kinds); never over games.

Every table the kernel gathers from (die faces, the card of an instance, each decision kind's argument columns)
is built at import from the engine's own data and ``step_codes.ARG_COLUMNS``, so it follows them.
"""

from __future__ import annotations

import numpy as np

from seasons_env import encoding as E
from seasons_env.engine import Card, steps
from seasons_env.engine.data import (
    CARD_OF,
    DICE,
    DICE_PER_SEASON,
    NUM_CARDS,
    NUM_INSTANCES,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
)
from seasons_env.engine.state import AMULET_INSTANCES, TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED

from .arrays import STORING_INSTANCES, ArrayState
from .step_codes import ARG_COLUMNS, NO_VALUE, STEP_WIDTH

_NUM_KINDS = len(steps.KINDS)
_NONE = -1

#: The card id of each instance (``CARD_OF`` as an array).
CARD_OF_INSTANCE = np.array(CARD_OF, dtype=np.intp)
#: Column of the observation's decision one-hot for each step kind; -1 for a kind that is not a decision.
DECISION_COLUMN = np.full(_NUM_KINDS, _NONE, dtype=np.intp)
for _kind, _k in E.DECISION_INDEX.items():
    DECISION_COLUMN[_kind] = _k


def _die_table() -> np.ndarray:
    """``[season, die, face, DIE_FEATURES]``: a rolled die's row of the ``dice`` slice, but ``untaken``/``taken_by``."""
    faces = max(len(faces) for dice in DICE for faces in dice)
    table = np.zeros((len(DICE), DICE_PER_SEASON, faces, E.DIE_FEATURES), dtype=np.float32)
    for season, dice in enumerate(DICE):
        for die, die_faces in enumerate(dice):
            for f, face in enumerate(die_faces):
                row = table[season, die, f]
                row[E.DIE_ROLLED] = 1.0
                row[E.DIE_PIPS + face.pips - 1] = 1.0
                row[E.DIE_ENERGY : E.DIE_ENERGY + 4] = face.energy
                row[E.DIE_CRYSTALS] = face.crystals / 10.0
                row[E.DIE_TRANSMUTE] = face.transmute
                row[E.DIE_GAUGE] = face.gauge
                row[E.DIE_DRAW] = face.draw
    return table


DIE_TABLE = _die_table()
if DICE_PER_SEASON > 7:  # the game dice are read as a uint8 bit mask whose bit 7 takes the padding
    raise RuntimeError(f"the observation kernel reads at most 7 dice per season; the data has {DICE_PER_SEASON}")

# The token stores the observation shows, in its order, as rows of the array state's ``stored``.
_SHOWN_STORES = AMULET_INSTANCES + E.CAULDRON_INSTANCES
SHOWN_STORED_ROW = np.array([STORING_INSTANCES.index(inst) for inst in _SHOWN_STORES], dtype=np.intp)
SHOWN_STORE_INSTANCES = np.array(_SHOWN_STORES, dtype=np.intp)
#: Where the stored tokens of relative seat k start in the observation.
_STORED_AT = np.array(
    [E.SELF_STORED, *(E.OPPONENTS + k * E.OPP_FEATURES + E.OPP_STORED for k in range(E.MAX_SEATS - 1))], dtype=np.intp
)
_CARD_IDS = np.arange(1, NUM_CARDS + 1, dtype=np.uint8)


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
    table = {role: np.full(_NUM_KINDS, _NONE, dtype=np.intp) for role in (*roles.values(), "cards_width")}
    for kind, columns in enumerate(ARG_COLUMNS):
        for col in columns:
            role = roles.get(col.name)
            if role is None:
                continue
            clash = "card" if role == "instance" else "instance" if role == "card" else None
            if table[role][kind] != _NONE or (clash is not None and table[clash][kind] != _NONE):
                raise RuntimeError(f"step {steps.KINDS[kind]!r}: two arguments fill the context's {role!r}")
            table[role][kind] = col.start
            if role == "cards":
                table["cards_width"][kind] = col.width
    if ((table["need"] != _NONE) & (table["energy"] != _NONE)).any():
        raise RuntimeError("a step kind has both `need` and `energy`: the context's energy would be ambiguous")
    return table


CONTEXT_COLUMNS = _context_columns()
CONTEXT_COUNT_ONE = np.zeros(_NUM_KINDS, dtype=np.bool_)
CONTEXT_COUNT_ONE[steps.kind("keep_or_discard")] = True


def write_observations(
    state: ArrayState, seats: np.ndarray, out: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """Write ``encode_observation(unpack(state, i), seats[i])`` into ``out[i]`` for every row ``i`` of ``rows``
    (all rows if ``None``); other rows of ``out`` are left as they are. ``seats``: ``[B]`` observer seat per row;
    ``out``: float32 ``[B, OBSERVATION_SIZE]``. Returns ``out``."""
    batch = state.batch_size
    n = state.num_players
    seats = np.asarray(seats)
    if seats.shape != (batch,) or seats.dtype.kind not in "iu":
        raise ValueError(f"seats must be ints of shape ({batch},); got {seats.dtype} {seats.shape}")
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (batch, E.OBSERVATION_SIZE):
        got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ValueError(f"out must be a float32 array of shape ({batch}, {E.OBSERVATION_SIZE}); got {got}")
    if rows is None:
        if batch and (seats.min() < 0 or seats.max() >= n):
            raise ValueError(f"seats must be seats 0..{n - 1}; got {seats.min()}..{seats.max()}")
        out.fill(0.0)
        _write(state, slice(None), seats, out)
        return out
    rows = np.asarray(rows)
    if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
        raise ValueError(f"rows must be a 1-d array of row indices; got {rows.dtype} {rows.shape}")
    rows = rows.astype(np.intp)
    if rows.size == 0:
        return out
    if rows.min() < 0 or rows.max() >= batch:
        raise ValueError(f"rows must be in 0..{batch - 1}; got {rows.min()}..{rows.max()}")
    observers = seats[rows]
    if observers.min() < 0 or observers.max() >= n:
        raise ValueError(f"seats of the rows must be seats 0..{n - 1}; got {observers.min()}..{observers.max()}")
    selected = np.zeros((rows.size, E.OBSERVATION_SIZE), dtype=np.float32)
    _write(state, rows, observers, selected)
    out[rows] = selected
    return out


def _write(state: ArrayState, sel: slice | np.ndarray, observer: np.ndarray, obs: np.ndarray) -> None:
    """Fill the zeroed ``obs`` (one row per selected game) for the games ``state.*[sel]`` seen by ``observer``."""
    m = obs.shape[0]
    if m == 0:
        return
    n = state.num_players
    r = np.arange(m)
    observer = observer.astype(np.intp)
    seat_at = (observer[:, None] + np.arange(n)) % n  # [m, n]: the seat k places to the observer's left

    def rel(seat: np.ndarray) -> np.ndarray:
        return (seat.astype(np.intp) - observer) % n

    def by_rel(per_seat: np.ndarray) -> np.ndarray:
        """``[m, P, ...]`` per seat -> ``[m, n, ...]`` per relative seat (0 = the observer)."""
        return per_seat[r[:, None], seat_at]

    # the opponents' rows ([m, n - 1, OPP_FEATURES] views into obs) and their turn flags ([m, n - 1, 2])
    opponents = obs[:, E.OPPONENTS : E.OPPONENTS + (E.MAX_SEATS - 1) * E.OPP_FEATURES]
    opponents = opponents.reshape(m, E.MAX_SEATS - 1, E.OPP_FEATURES)[:, : n - 1]
    opponents_turn = obs[:, E.OPPONENTS_TURN : E.OPPONENTS_TURN + 2 * (E.MAX_SEATS - 1)]
    opponents_turn = opponents_turn.reshape(m, E.MAX_SEATS - 1, 2)[:, : n - 1]

    # the decision asked: kind, decider, and the context shown to the decider only
    depth = state.stack_depth[sel].astype(np.intp)
    pending = depth > 0
    if pending.any():
        top = state.stack[sel][r, np.maximum(depth - 1, 0)].astype(np.intp)
        kind = np.where(pending, top[:, 0], 0)
        column = DECISION_COLUMN[kind]
        if (pending & (column < 0)).any():
            bad = int(np.flatnonzero(pending & (column < 0))[0])
            raise ValueError(f"row {bad}: the top pending step ({steps.KINDS[kind[bad]]}) is not a decision")
        p = np.flatnonzero(pending)
        obs[p, E.DECISION + column[p]] = 1.0
        obs[p, E.DECIDER + rel(top[:, 1])[p]] = 1.0
        shown = np.flatnonzero(pending & (top[:, 1] == observer))
        if shown.size:
            _write_context(obs, shown, top[shown], kind[shown], observer[shown], n)
    # the round
    position = state.position[sel].astype(np.intp)
    dice_season = state.dice_season[sel].astype(np.intp)
    obs[r, E.YEAR + np.minimum(state.year[sel], 4).astype(np.intp) - 1] = 1.0
    obs[r, E.POSITION + position - 1] = 1.0
    obs[r, E.SEASON + (position - 1) // 3] = 1.0
    obs[r, E.DICE_SEASON + dice_season] = 1.0
    obs[r, E.FIRST + rel(state.first_player[sel])] = 1.0
    turn_player = state.turn_player[sel]
    in_turn = turn_player >= 0
    turn_rel = rel(turn_player)
    obs[r[in_turn], E.TURN + turn_rel[in_turn]] = 1.0
    _write_dice(state, sel, obs, observer, n, dice_season)
    # every seat's public facts, per relative seat; the observer's in the self slices, the others' in `opponents`
    turn_flags = state.turn_flags[sel]
    its_turn = in_turn[:, None] & (turn_rel[:, None] == np.arange(n))  # [m, n]
    can_transmute = its_turn & ((turn_flags & TRANSMUTE_ABILITY) != 0)[:, None]
    used_bonus = its_turn & ((turn_flags & TRANSMUTE_BONUS_USED) != 0)[:, None]
    obs[:, E.SELF_SCALARS + 7] = can_transmute[:, 0]
    obs[:, E.SELF_SCALARS + 8] = used_bonus[:, 0]
    opponents_turn[:, :, 0] = can_transmute[:, 1:]
    opponents_turn[:, :, 1] = used_bonus[:, 1:]
    owner = _owners(state, sel, observer, m, n)  # [m, instances]: relative seat holding it in play, -1: none
    seats = np.arange(n, dtype=np.int8)[None, :, None]
    copy0, copy1 = owner[:, None, 0::2] == seats, owner[:, None, 1::2] == seats  # [m, n, cards]
    tapped = state.tapped[sel]
    in_play = copy0.view(np.uint8) + copy1.view(np.uint8)
    tapped = (copy0 & tapped[:, None, 0::2]).view(np.uint8) + (copy1 & tapped[:, None, 1::2]).view(np.uint8)
    obs[:, E.SELF_IN_PLAY : E.SELF_IN_PLAY + NUM_CARDS] = in_play[:, 0]
    obs[:, E.SELF_TAPPED : E.SELF_TAPPED + NUM_CARDS] = tapped[:, 0]
    opponents[:, :, E.OPP_IN_PLAY : E.OPP_IN_PLAY + NUM_CARDS] = in_play[:, 1:]
    opponents[:, :, E.OPP_TAPPED : E.OPP_TAPPED + NUM_CARDS] = tapped[:, 1:]
    scalars = np.empty((m, n, 7))
    scalars[:, :, 0] = by_rel(state.crystals[sel]) / E.CRYSTAL_SCALE
    scalars[:, :, 1] = by_rel(state.gauge[sel]) / E.GAUGE_SCALE
    scalars[:, :, 2] = by_rel(state.in_play_count[sel])
    grimoire = in_play[:, :, Card.BESPELLED_GRIMOIRE - 1] > 0
    scalars[:, :, 3] = np.where(grimoire, RESERVE_LIMIT_GRIMOIRE, RESERVE_LIMIT) / E.RESERVE_LIMIT_SCALE
    scalars[:, :, 4] = by_rel(np.einsum("bpc->bp", state.hand[sel]))
    scalars[:, :, 5:7] = by_rel(np.einsum("bpyc->bpy", (state.library[sel] != 0).view(np.uint8)))
    obs[:, E.SELF_SCALARS : E.SELF_SCALARS + 7] = scalars[:, 0]
    opponents[:, :, E.OPP_SCALARS : E.OPP_SCALARS + 7] = scalars[:, 1:]
    bonuses = by_rel(state.bonuses_used[sel]).astype(np.intp)
    obs[r, E.SELF_BONUSES + bonuses[:, 0]] = 1.0
    opponents[r[:, None], np.arange(n - 1), E.OPP_BONUSES + bonuses[:, 1:]] = 1.0
    reserves = by_rel(state.reserve[sel])
    obs[:, E.SELF_RESERVE : E.SELF_RESERVE + 4] = reserves[:, 0]
    opponents[:, :, E.OPP_RESERVE : E.OPP_RESERVE + 4] = reserves[:, 1:]
    opponents[:, :, E.OPP_PRESENT] = 1.0
    # tokens on Amulets of Water and Glutton Cauldrons, in the slot of the seat holding each in play
    store_owner = np.where(state.stored_present[sel][:, SHOWN_STORED_ROW], owner[:, SHOWN_STORE_INSTANCES], _NONE)
    g, store = np.nonzero(store_owner >= 0)
    if g.size:
        at = _STORED_AT[store_owner[g, store]] + 4 * store
        obs[g[:, None], at[:, None] + np.arange(4)] = state.stored[sel][g, SHOWN_STORED_ROW[store]]
    # the observer's private facts: hand, library sets, draft pack, cards seen in the draft, the Orb's look
    obs[:, E.SELF_HAND : E.SELF_HAND + NUM_CARDS] = state.hand[sel][r, observer, 1:]
    library = state.library[sel][r, observer]  # [m, 2 sets, 3 slots]
    library_counts = np.einsum("bysc->byc", (library[:, :, :, None] == _CARD_IDS).view(np.uint8))
    obs[:, E.SELF_LIBRARY2 : E.SELF_LIBRARY2 + NUM_CARDS] = library_counts[:, 0]
    obs[:, E.SELF_LIBRARY3 : E.SELF_LIBRARY3 + NUM_CARDS] = library_counts[:, 1]
    obs[:, E.SELF_PACK : E.SELF_PACK + NUM_CARDS] = state.draft_pack[sel][r, observer, 1:]
    seen = state.draft_seen[sel][r, observer].astype("<u8")
    seen_bits = np.unpackbits(seen.view(np.uint8).reshape(m, 8), axis=1, bitorder="little")
    obs[:, E.SELF_SEEN : E.SELF_SEEN + NUM_CARDS] = seen_bits[:, 1 : NUM_CARDS + 1]
    orb = state.orb_seen[sel].astype(np.intp)
    looked = np.flatnonzero(orb[:, 0] == observer)
    obs[looked, E.SELF_ORB + orb[looked, 1] - 1] = 1.0
    # public facts appended in version 2
    obs[:, E.PILES] = state.draw_count[sel] / E.PILE_SCALE
    obs[:, E.PILES + 1] = state.discard_count[sel] / E.PILE_SCALE
    # each season's dice as a bit mask (die d: bit d; the -1 padding, as uint8 255, lands on bit 7), then its bits
    game_dice = state.game_dice[sel].view(np.uint8)  # [m, season, slot]
    bits = np.left_shift(np.uint8(1), np.minimum(game_dice, 7))
    mask = bits[:, :, 0].copy()
    for j in range(1, game_dice.shape[2]):
        mask |= bits[:, :, j]
    chosen = np.unpackbits(mask[:, :, None], axis=2, bitorder="little")[:, :, :DICE_PER_SEASON]
    obs[:, E.GAME_DICE : E.GAME_DICE + chosen.shape[1] * DICE_PER_SEASON] = chosen.reshape(m, -1)
    deferred = state.deferred_tokens[sel].astype(np.intp)
    deferred_count = state.deferred_count[sel]
    for j in range(deferred.shape[1]):
        due = np.flatnonzero(deferred_count > j)
        if due.size == 0:
            break
        obs[due, E.DEFERRED + rel(deferred[:, j, 0])[due]] += deferred[due, j, 1]


def _write_dice(
    state: ArrayState, sel: slice | np.ndarray, obs: np.ndarray, observer: np.ndarray, n: int, dice_season: np.ndarray
) -> None:
    """The ``dice`` slice: each rolled die's row of ``DIE_TABLE``, then who took it (relative seat)."""
    rolled = state.rolled[sel].astype(np.intp)  # [m, 5, (die, face, owner)]
    count = state.rolled_count[sel]
    dice = obs[:, E.DICE_SLICE : E.DICE_SLICE + DICE_PER_SEASON * E.DIE_FEATURES].reshape(
        obs.shape[0], DICE_PER_SEASON, E.DIE_FEATURES
    )
    g, slot = np.nonzero(np.arange(DICE_PER_SEASON) < count[:, None])  # every rolled die of every row at once
    die, face, owner = rolled[g, slot, 0], rolled[g, slot, 1], rolled[g, slot, 2]
    dice[g, die] = DIE_TABLE[dice_season[g], die, face]
    untaken = owner < 0
    dice[g[untaken], die[untaken], E.DIE_UNTAKEN] = 1.0
    taken = ~untaken
    seat = (owner[taken] - observer[g[taken]]) % n
    dice[g[taken], die[taken], E.DIE_TAKEN_BY + seat] = 1.0


def _owners(state: ArrayState, sel: slice | np.ndarray, observer: np.ndarray, m: int, n: int) -> np.ndarray:
    """``[m, NUM_INSTANCES]`` int8: the seat, relative to the observer, each card instance is in play in front of;
    -1 if none."""
    in_play = state.in_play[sel]  # [m, P, 15]
    used = np.arange(in_play.shape[2]) < state.in_play_count[sel][:, :, None]
    # slots past a seat's count write into a spare column (NUM_INSTANCES), dropped at the end
    width = NUM_INSTANCES + 1
    target = np.arange(m)[:, None, None] * width + np.where(used, in_play, NUM_INSTANCES)
    owner = np.full((m, width), _NONE, dtype=np.int8)
    seat_of = ((np.arange(n) - observer[:, None]) % n).astype(np.int8)  # [m, P]: relative seat of each seat
    owner.reshape(-1)[target] = seat_of[:, :, None]
    return owner[:, :NUM_INSTANCES]


def _write_context(
    obs: np.ndarray, g: np.ndarray, top: np.ndarray, kind: np.ndarray, observer: np.ndarray, n: int
) -> None:
    """The context slices for rows ``g`` of ``obs`` whose observer decides: ``top`` is each one's step row."""
    col = CONTEXT_COLUMNS["cards"][kind]
    has = np.flatnonzero(col >= 0)
    if has.size:
        width = CONTEXT_COLUMNS["cards_width"][kind[has]]
        for j in range(int(width.max())):
            card = np.where(j < width, top[has, np.minimum(col[has] + j, STEP_WIDTH - 1)], NO_VALUE)
            listed = card != NO_VALUE  # one column at a time: a list may name a card twice
            obs[g[has[listed]], E.CTX_CARDS + card[listed] - 1] += 1.0
    for role in ("card", "instance"):
        col = CONTEXT_COLUMNS[role][kind]
        has = np.flatnonzero(col >= 0)
        if has.size:
            value = top[has, col[has]]
            card = value if role == "card" else CARD_OF_INSTANCE[value]
            obs[g[has], E.CTX_CARD + card - 1] = 1.0
    col = CONTEXT_COLUMNS["need"][kind]
    has = np.flatnonzero(col >= 0)
    if has.size:
        energies = np.arange(4)
        obs[g[has, None], E.CTX_ENERGY + energies] = top[has[:, None], col[has, None] + energies]
    col = CONTEXT_COLUMNS["energy"][kind]
    has = np.flatnonzero(col >= 0)
    if has.size:
        obs[g[has], E.CTX_ENERGY + top[has, col[has]]] = 1.0
    col = CONTEXT_COLUMNS["count"][kind]
    has = np.flatnonzero(col >= 0)
    if has.size:
        obs[g[has], E.CTX_COUNT] = top[has, col[has]]
    one = np.flatnonzero(CONTEXT_COUNT_ONE[kind])
    obs[g[one], E.CTX_COUNT] = 1.0
    col = CONTEXT_COLUMNS["recipients"][kind]
    has = np.flatnonzero(col >= 0)
    if has.size:
        seat = top[has, col[has]]
        obs[g[has], E.CTX_SEAT + (seat - observer[has]) % n] = 1.0
