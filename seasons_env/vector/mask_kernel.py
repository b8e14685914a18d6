"""The legal-action mask kernel: ``legal_action_list`` for every game of an array state at once (issue 11, stage 2).

``write_legal_masks(state, out)`` writes, for each selected row ``i``, the mask of
``unpack(state, i).legal_action_list()`` (bool ``[B, NUM_ACTIONS]``; a finished game's row all False). Rows are
grouped by the kind of the decision asked (the top step row), and each kind in ``KERNEL_KINDS`` is answered for
its whole group with array operations that reproduce that kind's option function in the engine
(``flow.py``, ``payment.py``, ``cards_basic.py``, ``cards_archmage.py``, ``state.py``): the turn menu with every
summon cost, cost reduction and activation condition, the dice, the draft and the library split, token choices.
Python loops run over kinds, energy types and the cards that have an activation; never over games.

Every decision kind has a kernel. A row none answers (a top step that is no decision, or a turn whose player holds
an untapped card with an activation missing from ``ACTIVATION_CONDITIONS``, as a new card would be) takes the
reference path, ``unpack(state, i)`` then its legal actions, so the result is always exact; ``fallback=False``
raises instead, naming the row and its kind (the tests use it to show that the kernels answer the kinds they
claim). ``kernel_rows`` says which rows a call answers by kernel. Action ids come only from
``engine/actions.py``'s encode functions and ranges. The kernels of the other kinds are in ``mask_kinds.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import (
    ACTIVATION_CARDS,
    CARDS,
    GAUGE_MAX,
    MAX_BONUSES,
    NUM_CARDS,
    NUM_INSTANCES,
    WATER,
    Card,
)
from seasons_env.engine.state import AMULET_INSTANCES, TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED

from .arrays import ArrayState, unpack
from .mask_kinds import (
    HANDS_OF_FORTUNE,
    IS_FAMILIAR,
    IS_FAMILIAR_INSTANCE,
    KIND_KERNELS,
    LEECHES,
    NUM_ACTIONS,
    Rows,
    copies,
    owners,
    same_tokens,
    span,
)

_NUM_KINDS = len(steps.KINDS)
_REFERENCE = -2  # the kind code of rows the reference engine answers (-1: a finished game)

#: ``[players][card, 5]``: each card's summon cost (water, earth, fire, air, crystals) by number of players.
COSTS = {
    n: np.array([(0,) * 5] + [CARDS[c].cost[n] for c in range(1, NUM_CARDS + 1)], dtype=np.int64) for n in (2, 3, 4)
}
_COST_TOTAL = {n: cost[1:, :4].sum(axis=1) for n, cost in COSTS.items()}  # [cards]: energy in the cost
_COST_ENERGY16 = {
    n: np.ascontiguousarray(cost[1:, :4].T).astype(np.int16) for n, cost in COSTS.items()
}  # [type, cards]
_ELEMENTAL_AMULET_COLUMN = int(Card.ELEMENTAL_AMULET) - 1
_SUMMONS = span([A.summon_action(c) for c in range(1, NUM_CARDS + 1)])
_TRANSMUTES = [span([A.transmute_action(source, t) for t in range(4)]) for source in range(A.NUM_SOURCES)]

# ---------------------------------------------------------------------------- the turn menu


def _activation_conditions() -> dict[int, Callable[[Rows, dict[str, np.ndarray]], np.ndarray | bool]]:
    """Per card with an activation, its ``can_activate`` over rows (``x``: the deciding seat's shared reads)."""
    return {
        Card.BALANCE_OF_ISHTAR: lambda r, x: x["spendable"].max(axis=1) >= 3,
        Card.DIE_OF_MALICE: lambda r, x: False,  # activated in its own window before the die actions only
        Card.KAIRN_THE_DESTROYER: lambda r, x: x["spendable_total"] >= 1,
        Card.POTION_OF_POWER: lambda r, x: True,
        Card.POTION_OF_DREAMS: lambda r, x: x["hand_any"] & (x["gauge"] >= x["in_play"]),
        Card.POTION_OF_KNOWLEDGE: lambda r, x: True,
        Card.POTION_OF_LIFE: lambda r, x: True,
        Card.TREE_OF_LIGHT: lambda r, x: (x["crystals"] >= 3) | (x["spendable_total"] > 0),
        Card.CRYSTAL_ORB: lambda r, x: x["pile_cards"] > 0,
        Card.GLUTTON_CAULDRON: lambda r, x: x["reserve_total"] > 0,
        Card.DRAGON_SKULL: lambda r, x: x["in_play"] >= 3,
        Card.IDOL_OF_THE_FAMILIAR: lambda r, x: True,
        Card.NECROTIC_KRISS: lambda r, x: (
            (x["hand"] & IS_FAMILIAR).any(axis=1) | (r.held & IS_FAMILIAR_INSTANCE).any(axis=1)
        ),
        Card.MIRROR_OF_THE_SEASONS: lambda r, x: (x["crystals"] >= 1) & (x["reserve_total"] > 0),
        Card.DAMNED_SOUL_OF_ONYS: lambda r, x: x["spendable"][:, WATER] > 0,
    }


ACTIVATION_CONDITIONS = _activation_conditions()
# the cards with a condition, their copies' instances and activate actions, in ACTIVATION_CONDITIONS' order
_CONDITION_CARDS = np.array(list(ACTIVATION_CONDITIONS), dtype=np.intp)
_CONDITION_LOW = np.array([copies(c)[0] for c in ACTIVATION_CONDITIONS], dtype=np.intp)
_CONDITION_HIGH = np.array([copies(c)[1] for c in ACTIVATION_CONDITIONS], dtype=np.intp)
_CONDITION_LOW_ACTIONS = np.array([A.activate_action(i) for i in _CONDITION_LOW.tolist()], dtype=np.intp)
_CONDITION_HIGH_ACTIONS = np.array([A.activate_action(i) for i in _CONDITION_HIGH.tolist()], dtype=np.intp)
#: The activatable cards the kernel has no condition for: a turn with an untapped one in play falls back.
_UNKNOWN_ACTIVATIONS = np.zeros(NUM_INSTANCES, dtype=np.bool_)
for _card in ACTIVATION_CARDS:
    if _card not in ACTIVATION_CONDITIONS:
        _UNKNOWN_ACTIVATIONS[list(copies(_card))] = True


def _turn(r: Rows, mask: np.ndarray) -> None:
    """``flow._opt_turn``: end turn, bonuses, summons from hand, activations, transmutations."""
    s, n = r.state, r.state.num_players
    reserve, crystals = r.reserve, r.seat(s.crystals).astype(np.int64)
    gauge, in_play = r.seat(s.gauge).astype(np.int64), r.seat(s.in_play_count).astype(np.int64)
    hand = r.seat(s.hand)[:, 1:] > 0  # [k, cards]
    amulets = r.amulet_tokens()
    spendable = reserve + amulets.sum(axis=1)
    flags = s.turn_flags[r.g]
    mask[:, A.END_TURN] = True
    bonuses_left = r.seat(s.bonuses_used) < MAX_BONUSES
    mask[:, A.BONUS_EXCHANGE] = bonuses_left & (reserve.sum(axis=1) >= 2)
    mask[:, A.BONUS_TRANSMUTE] = bonuses_left & ((flags & TRANSMUTE_BONUS_USED) == 0)
    mask[:, A.BONUS_GAUGE] = bonuses_left & (gauge < GAUGE_MAX)
    # summons (State.summonable_from_hand): room, crystals after the Arcano Leech tolls, energy after Hand of
    # Fortune's waivers (one per copy, never the whole cost), Elemental Amulet with any token type held
    owner = r.owner
    opponents_leeches = sum(((owner[:, inst] >= 0) & ~r.held[:, inst]).astype(np.int64) for inst in LEECHES)
    budget = crystals - opponents_leeches
    cost = COSTS[n][1:]
    total = _COST_TOTAL[n]
    short = _COST_ENERGY16[n][None] - spendable.astype(np.int16)[:, :, None]  # [k, type, cards]
    deficit = np.maximum(short, 0).sum(axis=1)  # [k, cards]
    hands = r.count_held(HANDS_OF_FORTUNE)
    waivable = np.where(total > 1, np.minimum(hands[:, None], total - 1), 0)
    affordable = (budget[:, None] >= cost[:, 4]) & (deficit <= waivable)
    affordable[:, _ELEMENTAL_AMULET_COLUMN] = (budget >= cost[_ELEMENTAL_AMULET_COLUMN, 4]) & (spendable > 0).any(
        axis=1
    )
    room = gauge > in_play
    mask[:, _SUMMONS] = hand & affordable & room[:, None]
    # activations: untapped copies whose condition holds; two copies in the same state are one option, the lower
    reads = {
        "spendable": spendable,
        "spendable_total": spendable.sum(axis=1),
        "reserve_total": reserve.sum(axis=1),
        "crystals": crystals,
        "gauge": gauge,
        "in_play": in_play,
        "hand": hand,
        "hand_any": hand.any(axis=1),
        "pile_cards": s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g],
    }
    tapped = s.tapped[r.g]
    untapped = r.held & ~tapped
    same = same_tokens(r)
    holds = np.empty((r.k, len(_CONDITION_CARDS)), dtype=np.bool_)
    for j, condition in enumerate(ACTIVATION_CONDITIONS.values()):
        holds[:, j] = condition(r, reads)
    low = untapped[:, _CONDITION_LOW] & holds
    mask[:, _CONDITION_LOW_ACTIONS] = low
    mask[:, _CONDITION_HIGH_ACTIONS] = untapped[:, _CONDITION_HIGH] & holds & ~(low & same[:, _CONDITION_CARDS - 1])
    # transmutations from the reserve and from each Amulet of Water in play
    can = (flags & TRANSMUTE_ABILITY) != 0
    mask[:, _TRANSMUTES[0]] = can[:, None] & (reserve > 0)
    for k in range(len(AMULET_INSTANCES)):
        mask[:, _TRANSMUTES[k + 1]] = can[:, None] & (amulets[:, k] > 0)


def _turn_unsupported(r: Rows) -> np.ndarray:
    """Turn rows the kernel leaves to the reference: an untapped card whose activation it does not know (none
    while ``ACTIVATION_CONDITIONS`` lists every card with an activation)."""
    if not _UNKNOWN_ACTIVATIONS.any():
        return np.zeros(r.k, dtype=np.bool_)
    return (r.held & ~r.state.tapped[r.g] & _UNKNOWN_ACTIVATIONS).any(axis=1)


#: Kind id -> its kernel: writes the options of every row of that kind into a zeroed ``[k, NUM_ACTIONS]`` block.
KERNELS: dict[int, Callable[[Rows, np.ndarray], None]] = {steps.kind("turn"): _turn, **KIND_KERNELS}
#: The decision kinds the kernels answer (a turn only without an untapped card of unknown activation).
KERNEL_KINDS: frozenset[str] = frozenset(steps.KINDS[kind] for kind in KERNELS)
_SUPPORTED: dict[int, Callable[[Rows], np.ndarray]] = {steps.kind("turn"): _turn_unsupported}
_HAS_KERNEL = np.zeros(_NUM_KINDS, dtype=np.bool_)
_HAS_KERNEL[list(KERNELS)] = True


def _check_rows(state: ArrayState, rows: np.ndarray | None) -> np.ndarray:
    batch = state.batch_size
    if rows is None:
        return np.arange(batch, dtype=np.intp)
    rows = np.asarray(rows)
    if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
        raise ValueError(f"rows must be a 1-d array of row indices; got {rows.dtype} {rows.shape}")
    rows = rows.astype(np.intp)
    if rows.size and (rows.min() < 0 or rows.max() >= batch):
        raise ValueError(f"rows must be in 0..{batch - 1}; got {rows.min()}..{rows.max()}")
    return rows


def _plan(state: ArrayState, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(top step rows, kinds, kernel)`` of rows ``g``: kind -1 for a row with no pending decision (a finished
    game), ``kernel`` false for a row the reference must answer."""
    depth = state.stack_depth[g].astype(np.intp)
    pending = (depth > 0) & ~state.over[g]
    top = state.stack[g, np.maximum(depth - 1, 0)]
    kind = np.where(pending, top[:, 0].astype(np.intp), -1)
    kernel = ~pending | _HAS_KERNEL[np.maximum(kind, 0)]
    for k, unsupported in _SUPPORTED.items():
        at = np.flatnonzero(kind == k)
        if at.size:
            kernel[at[unsupported(Rows(state, g[at], top[at]))]] = False
    return top, kind, kernel


def kernel_rows(state: ArrayState, rows: np.ndarray | None = None) -> np.ndarray:
    """bool ``[len(rows)]`` (all rows if ``None``): whether ``write_legal_masks`` answers each row by kernel
    (finished games included) rather than through the reference engine."""
    g = _check_rows(state, rows)
    return _plan(state, g)[2]


def write_legal_masks(
    state: ArrayState, out: np.ndarray, rows: np.ndarray | None = None, *, fallback: bool = True
) -> np.ndarray:
    """Write the legal-action mask of every row ``i`` of ``rows`` (all rows if ``None``) into ``out[i]``: exactly
    the actions of ``unpack(state, i).legal_action_list()``, all False for a finished game; other rows of ``out``
    are left as they are. ``out``: bool ``[B, NUM_ACTIONS]``. ``fallback=False`` raises a ``ValueError`` for a
    row no kernel answers instead of asking the reference engine. Returns ``out``."""
    batch = state.batch_size
    if not isinstance(out, np.ndarray) or out.dtype != np.bool_ or out.shape != (batch, NUM_ACTIONS):
        got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ValueError(f"out must be a bool array of shape ({batch}, {NUM_ACTIONS}); got {got}")
    g = _check_rows(state, rows)
    if g.size == 0:
        return out
    top, kind, kernel = _plan(state, g)
    if not fallback and not kernel.all():
        bad = int(np.flatnonzero(~kernel)[0])
        raise ValueError(
            f"row {int(g[bad])}: no mask kernel answers its decision {steps.KINDS[kind[bad]]!r} "
            f"({int((~kernel).sum())} such row(s)); fallback=False"
        )
    # rows sorted by kind (reference rows and finished games first), so that each kernel writes one slice
    code = np.where(kernel, kind, _REFERENCE)
    order = np.argsort(code, kind="stable")
    code = code[order]
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    ends = np.r_[starts[1:], code.size]
    owner = owners(state, g[order]) if code[-1] >= 0 else None
    masks = np.zeros((g.size, NUM_ACTIONS), dtype=np.bool_)
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        k = int(code[start])
        at = order[start:end]
        if k >= 0:
            KERNELS[k](Rows(state, g[at], top[at], owner[start:end]), masks[start:end])
        elif k == _REFERENCE:
            for j, row in enumerate(g[at].tolist()):
                masks[start + j, unpack(state, row).legal_action_list()] = True
        # else: finished games, no legal action
    out[g[order]] = masks
    return out
