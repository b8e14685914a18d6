"""The mask kernel's rows and its kernels for every decision kind but the turn menu (``mask_kernel.py``).

``Rows`` holds the rows of one decision kind and the reads several kinds share (the seat holding each card
instance, the decider's spendable tokens); each kernel writes the options of all its rows into a zeroed bool
block ``[k, NUM_ACTIONS]``, reproducing the kind's option function in the engine (named in each docstring or
beside it). ``KIND_KERNELS`` maps kind ids to them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import (
    CARD_OF,
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
from seasons_env.engine.state import AMULET_INSTANCES

from .arrays import STORING_INSTANCES, ArrayState
from .step_codes import ARG_COLUMNS, NO_VALUE

NUM_ACTIONS = A.NUM_ACTIONS
ENERGIES = np.arange(4)


def span(actions: list[int]) -> slice:
    """The action columns ``actions`` (ids from ``actions.py``'s encode functions) as one slice; a ``RuntimeError``
    at import if they are not evenly spaced, so that a change of the action table cannot go unnoticed."""
    step = actions[1] - actions[0] if len(actions) > 1 else 1
    if step <= 0 or any(b - a != step for a, b in pairwise(actions)):
        raise RuntimeError(f"the mask kernel writes actions {actions[:3]}... as one slice; they are not evenly spaced")
    return slice(actions[0], actions[-1] + 1, step)


#: Action columns of the ranges the kernels write whole, in the order of their parameter.
CARD_CHOICES = span([A.choose_card_action(c) for c in range(1, NUM_CARDS + 1)])
ENERGY_CHOICES = span([A.choose_energy_action(t) for t in range(4)])
NUMBER_CHOICES = span([A.choose_number_action(x) for x in range(1, A.MAX_NUMBER + 1)])
LOWER_COPY_CHOICES = span([A.choose_in_play_action(i) for i in range(0, NUM_INSTANCES, 2)])
UPPER_COPY_CHOICES = span([A.choose_in_play_action(i) for i in range(1, NUM_INSTANCES, 2)])
ELEMENTAL_SETS = span([A.elemental_set_action(mask) for mask in range(1, 16)])
#: ``[source, type]`` -> the pay action; ``[die]`` -> the take-die action; ``[card id]`` -> the choose-card action.
PAY_ACTIONS = np.array([[A.pay_action(s, t) for t in range(4)] for s in range(A.NUM_SOURCES)], dtype=np.intp)
PAY_CHOICES = span(PAY_ACTIONS.reshape(-1).tolist())
TAKE_DIE_ACTIONS = np.array([A.take_die_action(d) for d in range(5)], dtype=np.intp)
CARD_ACTIONS = np.array([0, *(A.choose_card_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.intp)


def _arg(kind: str, name: str) -> int:
    """The step-row column of argument ``name`` of step kind ``kind`` (its first column for a tuple)."""
    for col in ARG_COLUMNS[steps.kind(kind)]:
        if col.name == name:
            return col.start
    raise RuntimeError(f"step {kind!r} has no argument {name!r}; the mask kernel reads it")


def _arg_width(kind: str, name: str) -> int:
    return next(col.width for col in ARG_COLUMNS[steps.kind(kind)] if col.name == name)


IS_FAMILIAR = np.array([not IS_ITEM[c] for c in range(1, NUM_CARDS + 1)], dtype=np.bool_)  # [cards]
IS_FAMILIAR_INSTANCE = np.array([not IS_ITEM[CARD_OF[i]] for i in range(NUM_INSTANCES)], dtype=np.bool_)
_AMULETS = np.array(AMULET_INSTANCES, dtype=np.intp)
_AMULET_ROWS = np.array([STORING_INSTANCES.index(inst) for inst in AMULET_INSTANCES], dtype=np.intp)
_STORED_ROW_OF = {inst: k for k, inst in enumerate(STORING_INSTANCES)}


def copies(card: int) -> tuple[int, int]:
    return instance_of(card, 0), instance_of(card, 1)


_MALICE = copies(Card.DIE_OF_MALICE)
LEECHES = copies(Card.ARCANO_LEECH)
HANDS_OF_FORTUNE = copies(Card.HAND_OF_FORTUNE)
_GRIMOIRES = copies(Card.BESPELLED_GRIMOIRE)


def owners(state: ArrayState, g: np.ndarray) -> np.ndarray:
    """``[len(g), NUM_INSTANCES]`` int8: the seat each card instance is in play in front of in rows ``g``; -1 if
    none."""
    in_play = state.in_play[g]  # [k, P, 15]
    used = np.arange(in_play.shape[2]) < state.in_play_count[g][:, :, None]
    width = NUM_INSTANCES + 1  # slots past a seat's count write into a spare column, dropped at the end
    target = np.arange(g.size)[:, None, None] * width + np.where(used, in_play, NUM_INSTANCES)
    owner = np.full((g.size, width), -1, dtype=np.int8)
    owner.reshape(-1)[target] = np.arange(state.num_players, dtype=np.int8)[None, :, None]
    return owner[:, :NUM_INSTANCES]


class Rows:
    """The rows of one decision kind: ``g`` (rows of the state), the deciding seat ``p``, the step rows ``top``,
    and the reads several kinds share, computed on first use."""

    def __init__(self, state: ArrayState, g: np.ndarray, top: np.ndarray, owner: np.ndarray | None = None) -> None:
        self.state, self.g, self.top = state, g, top
        self.p = top[:, 1].astype(np.intp)
        self.k = g.size
        self._held: np.ndarray | None = None
        self._owner = owner

    @property
    def owner(self) -> np.ndarray:
        """``[k, NUM_INSTANCES]`` int8: the seat each card instance is in play in front of; -1 if none."""
        if self._owner is None:
            self._owner = owners(self.state, self.g)
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
    return (reserve > 0) & (ENERGIES >= first[:, None]) & (from_here >= count[:, None])


# ---------------------------------------------------------------------------- the kernels, one per decision kind
# Each takes the rows of its kind and writes their options into a zeroed bool block ``[k, NUM_ACTIONS]``.


def _draft_pick(r: Rows, mask: np.ndarray) -> None:
    mask[:, CARD_CHOICES] = r.seat(r.state.draft_pack)[:, 1:] > 0


def _cards_in_hand(r: Rows, mask: np.ndarray) -> None:
    mask[:, CARD_CHOICES] = r.seat(r.state.hand)[:, 1:] > 0


def _choose_die(r: Rows, mask: np.ndarray) -> None:
    rolled = r.state.rolled[r.g].astype(np.intp)  # [k, 5, (die, face, taken by)]
    used = np.arange(rolled.shape[1]) < r.state.rolled_count[r.g][:, None]
    owner = rolled[:, :, 2]
    has_die = (used & (owner == r.p[:, None])).any(axis=1)
    free = used & (owner < 0) & ~has_die[:, None]
    row, slot = np.nonzero(free)
    mask[row, TAKE_DIE_ACTIONS[rolled[row, slot, 0]]] = True


def _choose_energy_from(first: np.ndarray, mask: np.ndarray) -> None:
    mask[:, ENERGY_CHOICES] = ENERGIES >= first[:, None]


def _gain_energy(r: Rows, mask: np.ndarray) -> None:
    _choose_energy_from(r.column("gain_energy", "from_type"), mask)


def _overflow(r: Rows, mask: np.ndarray) -> None:
    reserve = r.reserve
    limit = np.where(r.count_held(_GRIMOIRES) > 0, RESERVE_LIMIT_GRIMOIRE, RESERVE_LIMIT)
    excess = reserve.sum(axis=1) - limit
    options = _reserve_type_options(reserve, r.column("overflow", "from_type"), excess) & (excess > 0)[:, None]
    mask[:, ENERGY_CHOICES] = options


def _exchange_discard(r: Rows, mask: np.ndarray) -> None:
    first, count = r.column("exchange_discard", "from_type"), r.column("exchange_discard", "count")
    mask[:, ENERGY_CHOICES] = _reserve_type_options(r.reserve, first, count)


def _malice_window(r: Rows, mask: np.ndarray) -> None:
    mask[:, A.USE_DIE] = True
    tapped = r.state.tapped[r.g]
    untapped = [r.held[:, inst] & ~tapped[:, inst] for inst in _MALICE]
    mask[:, A.activate_action(_MALICE[0])] = untapped[0]  # two untapped copies are one option: the lower
    mask[:, A.activate_action(_MALICE[1])] = untapped[1] & ~untapped[0]


def _draw_symbol(r: Rows, mask: np.ndarray) -> None:
    s = r.state
    mask[:, A.DRAW_CARD] = True
    cards = s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g]
    mask[:, A.BONUS_DRAW] = (r.seat(s.bonuses_used) < MAX_BONUSES) & (cards >= 2)


def _keep_or_discard(r: Rows, mask: np.ndarray) -> None:
    mask[:, A.KEEP_CARD] = True
    mask[:, A.DISCARD_CARD] = True


def _cards_argument(kind: str) -> Callable[[Rows, np.ndarray], None]:
    """CHOOSE_CARD over the cards listed in the step's ``cards`` argument."""
    start, width = _arg(kind, "cards"), _arg_width(kind, "cards")

    def kernel(r: Rows, mask: np.ndarray) -> None:
        cards = r.top[:, start : start + width].astype(np.intp)
        row, j = np.nonzero(cards != NO_VALUE)
        mask[row, CARD_ACTIONS[cards[row, j]]] = True

    return kernel


def _reserve_types(r: Rows, mask: np.ndarray) -> None:
    mask[:, ENERGY_CHOICES] = r.reserve > 0


def _glutton_cauldron(r: Rows, mask: np.ndarray) -> None:
    instance = r.column("glutton_cauldron", "instance")
    there = r.held[np.arange(r.k), instance]
    mask[:, ENERGY_CHOICES] = (r.reserve > 0) & there[:, None]


def _mirror_count(r: Rows, mask: np.ndarray) -> None:
    energy = r.column("mirror_count", "energy")
    most = np.minimum(np.minimum(r.reserve[np.arange(r.k), energy], r.seat(r.state.crystals)), A.MAX_NUMBER)
    numbers = np.arange(1, A.MAX_NUMBER + 1)
    mask[:, NUMBER_CHOICES] = numbers <= most[:, None]


def _mirror_to(r: Rows, mask: np.ndarray) -> None:
    source, count = r.column("mirror_to", "energy"), r.column("mirror_to", "count")
    fits = (r.reserve[np.arange(r.k), source] >= count) & (r.seat(r.state.crystals) >= count)
    mask[:, ENERGY_CHOICES] = fits[:, None] & (ENERGIES != source[:, None])


def _tree_of_light(r: Rows, mask: np.ndarray) -> None:
    mask[:, A.TREE_BUY_ENERGY] = r.seat(r.state.crystals) >= 3
    mask[:, A.TREE_TRANSMUTE] = r.spendable().sum(axis=1) > 0


def _crystal_orb(r: Rows, mask: np.ndarray) -> None:
    s = r.state
    top_card = (s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g]) > 0
    mask[:, A.ORB_LOOK] = top_card
    mask[:, A.ORB_MILL] = top_card & (r.seat(s.crystals) >= 3)


def _crystal_orb_seen(r: Rows, mask: np.ndarray) -> None:
    mask[:, A.ORB_LEAVE] = True
    mask[:, A.ORB_PLAY] = r.has_room() & (r.spendable().sum(axis=1) >= 4)


def _discard_tokens(r: Rows, mask: np.ndarray) -> None:
    """PAY (source, type) over the reserve and the Amulets of Water, in action order (``_opt_discard_tokens``)."""
    tokens = np.concatenate([r.reserve[:, None, :], r.amulet_tokens()], axis=1).reshape(r.k, -1)  # [k, 12]
    from_here = np.cumsum(tokens[:, ::-1], axis=1)[:, ::-1]
    first, count = r.column("discard_tokens", "from_action"), r.column("discard_tokens", "count")
    actions = PAY_ACTIONS.reshape(-1)  # in (source, type) order, as the tokens
    options = (tokens > 0) & (actions >= first[:, None]) & (from_here >= count[:, None])
    mask[:, PAY_CHOICES] = options


def _balance_of_ishtar(r: Rows, mask: np.ndarray) -> None:
    mask[:, ENERGY_CHOICES] = r.spendable() >= 3


def _temporal_boots(r: Rows, mask: np.ndarray) -> None:
    s = r.state
    absolute = (s.year[r.g].astype(np.int64) - 1) * 12 + s.position[r.g] - 1
    for move in A.SEASON_MOVES:
        mask[:, A.move_season_action(move)] = absolute + move >= 0


def _necrotic_kriss(r: Rows, mask: np.ndarray) -> None:
    mask[:, CARD_CHOICES] = (r.seat(r.state.hand)[:, 1:] > 0) & IS_FAMILIAR
    _in_play_choices(r, mask, IS_FAMILIAR_INSTANCE)


def _in_play_choices(r: Rows, mask: np.ndarray, accept: np.ndarray) -> None:
    """CHOOSE_IN_PLAY over the deciding seat's accepted instances, one per distinguishable card
    (``behaviour.in_play_options``: the higher copy only if the lower is not in the same state)."""
    held = r.held & accept
    lower, upper = held[:, 0::2], held[:, 1::2]  # [k, cards]
    tapped = r.state.tapped[r.g]
    same = lower & (tapped[:, 0::2] == tapped[:, 1::2]) & same_tokens(r)
    mask[:, LOWER_COPY_CHOICES] = lower
    mask[:, UPPER_COPY_CHOICES] = upper & ~same


def same_tokens(r: Rows) -> np.ndarray:
    """``[k, cards]``: a card's two copies hold the same token record (both none for a card storing none)."""
    same = np.ones((r.k, NUM_CARDS), dtype=np.bool_)
    s = r.state
    for card in sorted({CARD_OF[i] for i in STORING_INSTANCES}):
        low, high = (_STORED_ROW_OF[inst] for inst in copies(card))
        present = s.stored_present[r.g]
        tokens = s.stored[r.g]
        same[:, card - 1] = (present[:, low] == present[:, high]) & (
            ~present[:, low] | (tokens[:, low] == tokens[:, high]).all(axis=1)
        )
    return same


def _amsug_return(r: Rows, mask: np.ndarray) -> None:
    _in_play_choices(r, mask, ~IS_FAMILIAR_INSTANCE)


def _syllas_sacrifice(r: Rows, mask: np.ndarray) -> None:
    _in_play_choices(r, mask, True)


def _dragon_skull(r: Rows, mask: np.ndarray) -> None:
    """The cards after ``after`` (instance order) that leave enough later ones to complete ``remaining``."""
    remaining, after = r.column("dragon_skull", "remaining"), r.column("dragon_skull", "after")
    later = r.held & (np.arange(NUM_INSTANCES) > after[:, None])
    rank = np.cumsum(later, axis=1) - 1  # the place of each later card among them
    allowed = later & (rank < later.sum(axis=1, keepdims=True) - remaining[:, None] + 1)
    _in_play_choices(r, mask, allowed)


def _lewis_greyface(r: Rows, mask: np.ndarray) -> None:
    n = r.state.num_players
    mask[:, [A.choose_opponent_action(offset) for offset in range(1, n)]] = True


def _vampiric_crown(r: Rows, mask: np.ndarray) -> None:
    s = r.state
    mask[:, A.CROWN_DRAW] = (s.draw_count[r.g].astype(np.int64) + s.discard_count[r.g]) > 0
    mask[:, A.CROWN_DISCARD] = (r.seat(s.hand)[:, 1:] > 0).any(axis=1)


#: ``[15, 4]``: the energy types of each Elemental Amulet set (mask 1..15, bit t for type t).
_SET_TYPES = np.array([[mask >> t & 1 for t in range(4)] for mask in range(1, 16)], dtype=np.int64)


def _elemental_amulet_set(r: Rows, mask: np.ndarray) -> None:
    """Sets whose types held, with one Hand of Fortune waiver per copy, cover the set (``_opt_elemental``)."""
    owned = (r.spendable() > 0).astype(np.int64) @ _SET_TYPES.T  # [k, 15]
    needed = np.maximum(1, _SET_TYPES.sum(axis=1) - r.count_held(HANDS_OF_FORTUNE)[:, None])
    mask[:, ELEMENTAL_SETS] = owned >= needed


def _hand_of_fortune(r: Rows, mask: np.ndarray) -> None:
    """The types Hand of Fortune may save next, keeping the cost payable (``payment._waiver_options``)."""
    start = _arg("hand_of_fortune", "need")
    need = r.top[:, start : start + 4].astype(np.int64)
    waivers, first = r.column("hand_of_fortune", "waivers"), r.column("hand_of_fortune", "from_type")
    available = r.spendable()
    after = need[:, None, :] - np.eye(4, dtype=np.int64)  # [k, t saved, u]: the need once t is saved
    short = after > available[:, None, :]
    earlier_short = (short & (ENERGIES[None, :] < ENERGIES[:, None])).any(axis=2)  # a short type u < t
    shortfall = np.where(short, after - available[:, None, :], 0).sum(axis=2)
    later_need = np.where(ENERGIES[None, :] >= ENERGIES[:, None], after, 0).sum(axis=2)  # sum(after[t:])
    options = (
        (ENERGIES >= first[:, None])
        & (need > 0)
        & ~earlier_short
        & (shortfall <= waivers[:, None] - 1)
        & (later_need >= waivers[:, None] - 1)
    )
    mask[:, ENERGY_CHOICES] = options


def _pay_source(r: Rows, mask: np.ndarray) -> None:
    """The lowest type still owed, from the sources at or after ``from_source`` (``_opt_pay_source``)."""
    start = _arg("pay_source", "need")
    need = r.top[:, start : start + 4].astype(np.int64)
    first_source = r.column("pay_source", "from_source")
    owed = np.argmax(need > 0, axis=1)  # the lowest type owed (a pay_source step always owes one)
    rows = np.arange(r.k)
    tokens = np.concatenate([r.reserve[:, None, :], r.amulet_tokens()], axis=1)[rows, :, owed]  # [k, sources]
    tokens = np.where(np.arange(tokens.shape[1]) >= first_source[:, None], tokens, 0)
    from_here = np.cumsum(tokens[:, ::-1], axis=1)[:, ::-1]
    options = (tokens > 0) & (from_here >= need[rows, owed][:, None])
    row, source = np.nonzero(options)
    mask[row, PAY_ACTIONS[source, owed[row]]] = True


def _damned_soul_water(r: Rows, mask: np.ndarray) -> None:
    instance = r.column("damned_soul_water", "instance")
    there = r.held[np.arange(r.k), instance]
    water = np.concatenate([r.reserve[:, None, WATER], r.amulet_tokens()[:, :, WATER]], axis=1) > 0  # [k, sources]
    for source in range(water.shape[1]):
        mask[:, A.pay_action(source, WATER)] = there & water[:, source]


#: Kind id -> its kernel, for every decision kind but ``turn`` (``mask_kernel.py``).
KIND_KERNELS: dict[int, Callable[[Rows, np.ndarray], None]] = {
    steps.kind(name): kernel
    for name, kernel in (
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
        ("naria_give", _cards_argument("naria_give")),
        ("amsug_return", _amsug_return),
        ("syllas_sacrifice", _syllas_sacrifice),
        ("dragon_skull", _dragon_skull),
        ("lewis_greyface", _lewis_greyface),
        ("vampiric_crown", _vampiric_crown),
        ("elemental_amulet_set", _elemental_amulet_set),
        ("hand_of_fortune", _hand_of_fortune),
        ("pay_source", _pay_source),
        ("damned_soul_water", _damned_soul_water),
    )
}
