"""The legal-action mask kernel: ``legal_action_list`` for every game of an array state at once (issue 11, stage 2).

``write_legal_masks(state, out)`` writes, for each selected row ``i``, the mask of
``unpack(state, i).legal_action_list()`` (bool ``[B, NUM_ACTIONS]``; a finished game's row all False). Rows are
grouped by the kind of the decision asked (the top step row), and each kind in ``KERNEL_KINDS`` is answered for
its whole group with array operations that reproduce that kind's option function in the engine
(``flow.py``, ``payment.py``, ``cards_basic.py``, ``cards_archmage.py``, ``state.py``): the turn menu with every
summon cost, cost reduction and activation condition, the dice, the draft and the library split, token choices.
Python loops run over kinds, energy types and the cards that have an activation; never over games.

A row whose decision no kernel answers (a rare kind such as ``payment``, or a turn whose player holds an
untapped card with an activation the kernel does not know) takes the reference path, ``unpack(state, i)`` then
its legal actions, so the result is always exact; ``fallback=False`` raises instead, naming the row and its kind
(the tests use it to show which kinds the kernels answer). ``kernel_rows`` says which rows a call would answer
by kernel. Action ids come only from ``engine/actions.py``'s encode functions and ranges.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import (
    ACTIVATION_CARDS,
    CARD_OF,
    CARDS,
    GAUGE_MAX,
    IS_ITEM,
    MAX_BONUSES,
    NUM_CARDS,
    NUM_INSTANCES,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    WATER,
    Card,
    instance_of,
)
from seasons_env.engine.state import AMULET_INSTANCES, TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED

from .arrays import STORING_INSTANCES, ArrayState, unpack
from .step_codes import ARG_COLUMNS, NO_VALUE

NUM_ACTIONS = A.NUM_ACTIONS
_NUM_KINDS = len(steps.KINDS)
_CARD_COLUMNS = np.arange(NUM_CARDS)  # column c - 1 of a card range holds card c
_ENERGIES = np.arange(4)


def _arg(kind: str, name: str) -> int:
    """The step-row column of argument ``name`` of step kind ``kind`` (its first column for a tuple)."""
    for col in ARG_COLUMNS[steps.kind(kind)]:
        if col.name == name:
            return col.start
    raise RuntimeError(f"step {kind!r} has no argument {name!r}; the mask kernel reads it")


def _arg_width(kind: str, name: str) -> int:
    return next(col.width for col in ARG_COLUMNS[steps.kind(kind)] if col.name == name)


#: ``[players][card, 5]``: each card's summon cost (water, earth, fire, air, crystals) by number of players.
COSTS = {
    n: np.array([(0,) * 5] + [CARDS[c].cost[n] for c in range(1, NUM_CARDS + 1)], dtype=np.int64) for n in (2, 3, 4)
}
_COST_TOTAL = {n: cost[1:, :4].sum(axis=1) for n, cost in COSTS.items()}  # [cards]: energy in the cost
_ELEMENTAL_AMULET_COLUMN = int(Card.ELEMENTAL_AMULET) - 1
_IS_FAMILIAR = np.array([not IS_ITEM[c] for c in range(1, NUM_CARDS + 1)], dtype=np.bool_)  # [cards]
_IS_FAMILIAR_INSTANCE = np.array([not IS_ITEM[CARD_OF[i]] for i in range(NUM_INSTANCES)], dtype=np.bool_)
_AMULETS = np.array(AMULET_INSTANCES, dtype=np.intp)
_AMULET_ROWS = np.array([STORING_INSTANCES.index(inst) for inst in AMULET_INSTANCES], dtype=np.intp)
_STORED_ROW_OF = {inst: k for k, inst in enumerate(STORING_INSTANCES)}


def _copies(card: int) -> tuple[int, int]:
    return instance_of(card, 0), instance_of(card, 1)


_MALICE = _copies(Card.DIE_OF_MALICE)
_LEECHES = _copies(Card.ARCANO_LEECH)
_HANDS_OF_FORTUNE = _copies(Card.HAND_OF_FORTUNE)
_GRIMOIRES = _copies(Card.BESPELLED_GRIMOIRE)


class _Rows:
    """The rows of one decision kind: ``g`` (rows of the state), the deciding seat ``p``, the step rows ``top``,
    and the reads several kinds share, computed on first use."""

    def __init__(self, state: ArrayState, g: np.ndarray, top: np.ndarray) -> None:
        self.state, self.g, self.top = state, g, top
        self.p = top[:, 1].astype(np.intp)
        self.k = g.size
        self._held: np.ndarray | None = None
        self._owner: np.ndarray | None = None

    @property
    def owner(self) -> np.ndarray:
        """``[k, NUM_INSTANCES]`` int8: the seat each card instance is in play in front of; -1 if none."""
        if self._owner is None:
            s, k = self.state, self.k
            in_play = s.in_play[self.g]  # [k, P, 15]
            used = np.arange(in_play.shape[2]) < s.in_play_count[self.g][:, :, None]
            width = NUM_INSTANCES + 1  # slots past a seat's count write into a spare column, dropped at the end
            target = np.arange(k)[:, None, None] * width + np.where(used, in_play, NUM_INSTANCES)
            owner = np.full((k, width), -1, dtype=np.int8)
            owner.reshape(-1)[target] = np.arange(s.num_players, dtype=np.int8)[None, :, None]
            self._owner = owner[:, :NUM_INSTANCES]
        return self._owner

    @property
    def held(self) -> np.ndarray:
        """``[k, NUM_INSTANCES]`` bool: the instance is in play in front of the deciding seat."""
        if self._held is None:
            self._held = self.owner == self.p[:, None].astype(np.int8)
        return self._held

    def seat(self, field: np.ndarray) -> np.ndarray:
        """The deciding seat's entry of a ``[B, P, ...]`` field."""
        return field[self.g, self.p]

    def column(self, kind: str, name: str) -> np.ndarray:
        return self.top[:, _arg(kind, name)].astype(np.intp)

    @property
    def reserve(self) -> np.ndarray:
        return self.seat(self.state.reserve).astype(np.int64)

    def amulet_tokens(self) -> np.ndarray:
        """``[k, 2, 4]``: the tokens on each Amulet of Water the deciding seat has in play (zeros otherwise)."""
        s = self.state
        present = s.stored_present[self.g][:, _AMULET_ROWS] & self.held[:, _AMULETS]  # [k, 2]
        return np.where(present[:, :, None], s.stored[self.g][:, _AMULET_ROWS], 0).astype(np.int64)

    def spendable(self) -> np.ndarray:
        """``[k, 4]``: reserve plus Amulet of Water tokens (``State.spendable``)."""
        return self.reserve + self.amulet_tokens().sum(axis=1)

    def count_held(self, copies: tuple[int, int]) -> np.ndarray:
        return self.held[:, copies[0]].astype(np.int64) + self.held[:, copies[1]]

    def has_room(self) -> np.ndarray:
        return self.seat(self.state.gauge) > self.seat(self.state.in_play_count)


def _reserve_type_options(reserve: np.ndarray, first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``[k, 4]``: the types ``t >= first`` held that can start discarding ``count`` tokens in non-decreasing type
    order (``payment._reserve_energy_options``)."""
    from_here = np.cumsum(reserve[:, ::-1], axis=1)[:, ::-1]  # tokens of type t and above
    return (reserve > 0) & (_ENERGIES >= first[:, None]) & (from_here >= count[:, None])


# ---------------------------------------------------------------------------- the kernels, one per decision kind
# Each takes the rows of its kind and writes their options into a zeroed bool block ``[k, NUM_ACTIONS]``.


def _draft_pick(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_CARD0 : A.CHOOSE_CARD0 + NUM_CARDS] = r.seat(r.state.draft_pack)[:, 1:] > 0


def _cards_in_hand(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_CARD0 : A.CHOOSE_CARD0 + NUM_CARDS] = r.seat(r.state.hand)[:, 1:] > 0


def _choose_die(r: _Rows, mask: np.ndarray) -> None:
    rolled = r.state.rolled[r.g].astype(np.intp)  # [k, 5, (die, face, taken by)]
    used = np.arange(rolled.shape[1]) < r.state.rolled_count[r.g][:, None]
    owner = rolled[:, :, 2]
    has_die = (used & (owner == r.p[:, None])).any(axis=1)
    free = used & (owner < 0) & ~has_die[:, None]
    row, slot = np.nonzero(free)
    mask[row, A.take_die_action(0) + rolled[row, slot, 0]] = True


def _choose_energy_from(first: np.ndarray, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = _ENERGIES >= first[:, None]


def _gain_energy(r: _Rows, mask: np.ndarray) -> None:
    _choose_energy_from(r.column("gain_energy", "from_type"), mask)


def _overflow(r: _Rows, mask: np.ndarray) -> None:
    reserve = r.reserve
    limit = np.where(r.count_held(_GRIMOIRES) > 0, RESERVE_LIMIT_GRIMOIRE, RESERVE_LIMIT)
    excess = reserve.sum(axis=1) - limit
    options = _reserve_type_options(reserve, r.column("overflow", "from_type"), excess) & (excess > 0)[:, None]
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = options


def _exchange_discard(r: _Rows, mask: np.ndarray) -> None:
    first, count = r.column("exchange_discard", "from_type"), r.column("exchange_discard", "count")
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = _reserve_type_options(r.reserve, first, count)


def _malice_window(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.USE_DIE] = True
    tapped = r.state.tapped[r.g]
    untapped = [r.held[:, inst] & ~tapped[:, inst] for inst in _MALICE]
    mask[:, A.activate_action(_MALICE[0])] = untapped[0]  # two untapped copies are one option: the lower
    mask[:, A.activate_action(_MALICE[1])] = untapped[1] & ~untapped[0]


def _draw_symbol(r: _Rows, mask: np.ndarray) -> None:
    s = r.state
    mask[:, A.DRAW_CARD] = True
    cards = s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g]
    mask[:, A.BONUS_DRAW] = (r.seat(s.bonuses_used) < MAX_BONUSES) & (cards >= 2)


def _keep_or_discard(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.KEEP_CARD] = True
    mask[:, A.DISCARD_CARD] = True


def _cards_argument(kind: str) -> Callable[[_Rows, np.ndarray], None]:
    """CHOOSE_CARD over the cards listed in the step's ``cards`` argument."""
    start, width = _arg(kind, "cards"), _arg_width(kind, "cards")

    def kernel(r: _Rows, mask: np.ndarray) -> None:
        cards = r.top[:, start : start + width].astype(np.intp)
        row, j = np.nonzero(cards != NO_VALUE)
        mask[row, A.choose_card_action(1) + cards[row, j] - 1] = True

    return kernel


def _reserve_types(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = r.reserve > 0


def _glutton_cauldron(r: _Rows, mask: np.ndarray) -> None:
    instance = r.column("glutton_cauldron", "instance")
    there = r.held[np.arange(r.k), instance]
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = (r.reserve > 0) & there[:, None]


def _mirror_count(r: _Rows, mask: np.ndarray) -> None:
    energy = r.column("mirror_count", "energy")
    most = np.minimum(np.minimum(r.reserve[np.arange(r.k), energy], r.seat(r.state.crystals)), A.MAX_NUMBER)
    numbers = np.arange(1, A.MAX_NUMBER + 1)
    mask[:, A.choose_number_action(1) : A.choose_number_action(1) + A.MAX_NUMBER] = numbers <= most[:, None]


def _mirror_to(r: _Rows, mask: np.ndarray) -> None:
    source, count = r.column("mirror_to", "energy"), r.column("mirror_to", "count")
    fits = (r.reserve[np.arange(r.k), source] >= count) & (r.seat(r.state.crystals) >= count)
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = fits[:, None] & (_ENERGIES != source[:, None])


def _tree_of_light(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.TREE_BUY_ENERGY] = r.seat(r.state.crystals) >= 3
    mask[:, A.TREE_TRANSMUTE] = r.spendable().sum(axis=1) > 0


def _crystal_orb(r: _Rows, mask: np.ndarray) -> None:
    s = r.state
    top_card = (s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g]) > 0
    mask[:, A.ORB_LOOK] = top_card
    mask[:, A.ORB_MILL] = top_card & (r.seat(s.crystals) >= 3)


def _crystal_orb_seen(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.ORB_LEAVE] = True
    mask[:, A.ORB_PLAY] = r.has_room() & (r.spendable().sum(axis=1) >= 4)


def _discard_tokens(r: _Rows, mask: np.ndarray) -> None:
    """PAY (source, type) over the reserve and the Amulets of Water, in action order (``_opt_discard_tokens``)."""
    tokens = np.concatenate([r.reserve[:, None, :], r.amulet_tokens()], axis=1).reshape(r.k, -1)  # [k, 12]
    from_here = np.cumsum(tokens[:, ::-1], axis=1)[:, ::-1]
    first, count = r.column("discard_tokens", "from_action"), r.column("discard_tokens", "count")
    actions = A.pay_action(0, 0) + np.arange(tokens.shape[1])
    options = (tokens > 0) & (actions >= first[:, None]) & (from_here >= count[:, None])
    mask[:, actions[0] : actions[-1] + 1] = options


def _balance_of_ishtar(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_ENERGY0 : A.CHOOSE_ENERGY0 + 4] = r.spendable() >= 3


def _temporal_boots(r: _Rows, mask: np.ndarray) -> None:
    s = r.state
    absolute = (s.year[r.g].astype(np.int64) - 1) * 12 + s.position[r.g] - 1
    for move in A.SEASON_MOVES:
        mask[:, A.move_season_action(move)] = absolute + move >= 0


def _necrotic_kriss(r: _Rows, mask: np.ndarray) -> None:
    mask[:, A.CHOOSE_CARD0 : A.CHOOSE_CARD0 + NUM_CARDS] = (r.seat(r.state.hand)[:, 1:] > 0) & _IS_FAMILIAR
    _in_play_choices(r, mask, _IS_FAMILIAR_INSTANCE)


def _in_play_choices(r: _Rows, mask: np.ndarray, accept: np.ndarray) -> None:
    """CHOOSE_IN_PLAY over the deciding seat's accepted instances, one per distinguishable card
    (``behaviour.in_play_options``: the higher copy only if the lower is not in the same state)."""
    held = r.held & accept
    lower, upper = held[:, 0::2], held[:, 1::2]  # [k, cards]
    tapped = r.state.tapped[r.g]
    same = lower & (tapped[:, 0::2] == tapped[:, 1::2]) & _same_tokens(r)
    mask[:, A.CHOOSE_IN_PLAY0 : A.CHOOSE_IN_PLAY0 + NUM_INSTANCES : 2] = lower
    mask[:, A.CHOOSE_IN_PLAY0 + 1 : A.CHOOSE_IN_PLAY0 + NUM_INSTANCES : 2] = upper & ~same


def _same_tokens(r: _Rows) -> np.ndarray:
    """``[k, cards]``: a card's two copies hold the same token record (both none for a card storing none)."""
    same = np.ones((r.k, NUM_CARDS), dtype=np.bool_)
    s = r.state
    for card in sorted({CARD_OF[i] for i in STORING_INSTANCES}):
        low, high = (_STORED_ROW_OF[inst] for inst in _copies(card))
        present = s.stored_present[r.g]
        tokens = s.stored[r.g]
        same[:, card - 1] = (present[:, low] == present[:, high]) & (
            ~present[:, low] | (tokens[:, low] == tokens[:, high]).all(axis=1)
        )
    return same


# ---------------------------------------------------------------------------- the turn menu


def _activation_conditions() -> dict[int, Callable[[_Rows, dict[str, np.ndarray]], np.ndarray | bool]]:
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
            (x["hand"] & _IS_FAMILIAR).any(axis=1) | (r.held & _IS_FAMILIAR_INSTANCE).any(axis=1)
        ),
        Card.MIRROR_OF_THE_SEASONS: lambda r, x: (x["crystals"] >= 1) & (x["reserve_total"] > 0),
        Card.DAMNED_SOUL_OF_ONYS: lambda r, x: x["spendable"][:, WATER] > 0,
    }


ACTIVATION_CONDITIONS = _activation_conditions()
#: The activatable cards the kernel has no condition for: a turn with an untapped one in play falls back.
_UNKNOWN_ACTIVATIONS = np.zeros(NUM_INSTANCES, dtype=np.bool_)
for _card in ACTIVATION_CARDS:
    if _card not in ACTIVATION_CONDITIONS:
        _UNKNOWN_ACTIVATIONS[list(_copies(_card))] = True


def _turn(r: _Rows, mask: np.ndarray) -> None:
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
    opponents_leeches = sum(((owner[:, inst] >= 0) & ~r.held[:, inst]).astype(np.int64) for inst in _LEECHES)
    budget = crystals - opponents_leeches
    cost = COSTS[n][1:]
    total = _COST_TOTAL[n]
    deficit = np.maximum(cost[None, :, :4] - spendable[:, None, :], 0).sum(axis=2)  # [k, cards]
    hands = r.count_held(_HANDS_OF_FORTUNE)
    waivable = np.where(total > 1, np.minimum(hands[:, None], total - 1), 0)
    affordable = (budget[:, None] >= cost[:, 4]) & (deficit <= waivable)
    affordable[:, _ELEMENTAL_AMULET_COLUMN] = (budget >= cost[_ELEMENTAL_AMULET_COLUMN, 4]) & (spendable > 0).any(
        axis=1
    )
    room = gauge > in_play
    mask[:, A.SUMMON0 : A.SUMMON0 + NUM_CARDS] = hand & affordable & room[:, None]
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
    same = _same_tokens(r)
    for card, condition in ACTIVATION_CONDITIONS.items():
        low, high = _copies(card)
        holds = np.broadcast_to(condition(r, reads), (r.k,))
        mask[:, A.activate_action(low)] = untapped[:, low] & holds
        mask[:, A.activate_action(high)] = untapped[:, high] & holds & ~(untapped[:, low] & same[:, card - 1])
    # transmutations from the reserve and from each Amulet of Water in play
    can = (flags & TRANSMUTE_ABILITY) != 0
    mask[:, A.transmute_action(0, 0) : A.transmute_action(0, 0) + 4] = can[:, None] & (reserve > 0)
    for k in range(len(AMULET_INSTANCES)):
        start = A.transmute_action(k + 1, 0)
        mask[:, start : start + 4] = can[:, None] & (amulets[:, k] > 0)


def _turn_unsupported(r: _Rows) -> np.ndarray:
    """Turn rows the kernel leaves to the reference: an untapped card whose activation it does not know."""
    return (r.held & ~r.state.tapped[r.g] & _UNKNOWN_ACTIVATIONS).any(axis=1)


#: Kind id -> its kernel: writes the options of every row of that kind into a zeroed ``[k, NUM_ACTIONS]`` block.
KERNELS: dict[int, Callable[[_Rows, np.ndarray], None]] = {
    steps.kind(name): kernel
    for name, kernel in (
        ("turn", _turn),
        ("choose_die", _choose_die),
        ("draft_pick", _draft_pick),
        ("library_split", _cards_in_hand),
        ("overflow", _overflow),
        ("gain_energy", _gain_energy),
        ("die_of_malice_window", _malice_window),
        ("keep_or_discard", _keep_or_discard),
        ("mirror_to", _mirror_to),
        ("tree_of_light", _tree_of_light),
        ("glutton_cauldron", _glutton_cauldron),
        ("discard_tokens", _discard_tokens),
        ("mirror_from", _reserve_types),
        ("mirror_count", _mirror_count),
        ("naria_keep", _cards_argument("naria_keep")),
        ("keep_one", _cards_argument("keep_one")),
        ("divine_chalice", _cards_argument("divine_chalice")),
        ("draw_symbol", _draw_symbol),
        ("crystal_orb", _crystal_orb),
        ("crystal_orb_seen", _crystal_orb_seen),
        ("exchange_discard", _exchange_discard),
        ("necrotic_kriss", _necrotic_kriss),
        ("potion_of_dreams", _cards_in_hand),
        ("vampiric_crown_discard", _cards_in_hand),
        ("temporal_boots", _temporal_boots),
        ("balance_of_ishtar", _balance_of_ishtar),
    )
}
#: The decision kinds the kernels answer (a turn only without an untapped card of unknown activation).
KERNEL_KINDS: frozenset[str] = frozenset(steps.KINDS[kind] for kind in KERNELS)
_SUPPORTED: dict[int, Callable[[_Rows], np.ndarray]] = {steps.kind("turn"): _turn_unsupported}
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
            kernel[at[unsupported(_Rows(state, g[at], top[at]))]] = False
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
    masks = np.zeros((g.size, NUM_ACTIONS), dtype=np.bool_)
    for k in np.unique(kind[kernel]):
        if k < 0:
            continue  # a finished game: no legal action
        at = np.flatnonzero((kind == k) & kernel)
        block = np.zeros((at.size, NUM_ACTIONS), dtype=np.bool_)
        KERNELS[int(k)](_Rows(state, g[at], top[at]), block)
        masks[at] = block
    for at in np.flatnonzero(~kernel):
        masks[at, unpack(state, int(g[at])).legal_action_list()] = True
    if rows is None:
        out[...] = masks
    else:
        out[g] = masks
    return out
