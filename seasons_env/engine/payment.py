"""Tokens, summoning and payment: gaining and discarding energy, the reserve limit, and paying for cards.

A summon from hand pays the Arcano Leech tolls and the crystal cost, then the energy cost through the
``payment`` step (Hand of Fortune's savings first, then the tokens from the reserve or an Amulet of Water,
asking only the choices that change something), then the card enters play and its on-summon effect resolves.
Each step kind is registered beside its functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import actions as A
from . import card_constants as K
from . import steps
from .behaviour import BEHAVIOUR
from .data import CARD_OF, Card
from .state import ZERO4, State

Task = tuple

# ---------------------------------------------------------------------------- tokens gained and discarded


ENERGY_OPTIONS_FROM = [list(A.CHOOSE_ENERGY_ACTIONS[first:]) for first in range(4)]


def _opt_gain_energy(game: State, task: tuple) -> list[int]:
    return ENERGY_OPTIONS_FROM[task[4]]


def _res_gain_energy(game: State, task: tuple, action: int) -> None:
    _, p, count, onto, _ = task
    energy = A.energy_of_choice(action)
    if onto < 0:
        game.add_token(p, energy)
    elif onto in game.stored:
        game.store_token(onto, energy)
    if count > 1:
        game.push((GAIN_ENERGY, p, count - 1, onto, energy))


GAIN_ENERGY = steps.decision(
    "gain_energy",
    _opt_gain_energy,
    _res_gain_energy,
    ("count", "onto", "from_type"),
    doc="choose the type of a token gained",
)


def _reserve_energy_options(game: State, player: int, first: int = 0, count: int = 1) -> list[int]:
    """Reserve types from ``first`` on that can start discarding ``count`` tokens in non-decreasing type order."""
    r = game.reserve[player]
    options = []
    for t in range(first, 4):
        if r[t] and sum(r[t:]) >= count:
            options.append(A.CHOOSE_ENERGY_ACTIONS[t])
    return options


def _opt_overflow(game: State, task: tuple) -> list[int]:
    p = task[1]
    excess = sum(game.reserve[p]) - game.reserve_limit(p)
    if excess <= 0:
        return []
    return _reserve_energy_options(game, p, task[2], excess)


def _res_overflow(game: State, task: tuple, action: int) -> None:
    p = task[1]
    energy = A.energy_of_choice(action)
    game.remove_token(p, energy)
    if sum(game.reserve[p]) > game.reserve_limit(p):
        game.push((OVERFLOW, p, energy))


OVERFLOW = steps.decision(
    "overflow", _opt_overflow, _res_overflow, ("from_type",), doc="discard a token down to the reserve limit"
)


def _opt_exchange_discard(game: State, task: tuple) -> list[int]:
    return _reserve_energy_options(game, task[1], task[3], task[2])


def _res_exchange_discard(game: State, task: tuple, action: int) -> None:
    _, p, count, _ = task
    energy = A.energy_of_choice(action)
    game.remove_token(p, energy)
    if count > 1:
        game.push((EXCHANGE_DISCARD, p, count - 1, energy))


EXCHANGE_DISCARD = steps.decision(
    "exchange_discard",
    _opt_exchange_discard,
    _res_exchange_discard,
    ("count", "from_type"),
    doc="exchange bonus: give back a reserve token",
)


# ---------------------------------------------------------------------------- summoning from hand


def begin_summon_from_hand(game: State, player: int, card: int) -> None:
    """Summon from hand: Arcano Leech tolls, the crystal cost, then the energy cost, then the card enters."""
    game.hand_remove(player, card)
    game.limbo.append(card)
    for q in game.opponents(player):
        for _ in range(game.count_in_play(q, Card.ARCANO_LEECH)):
            game.transfer_crystals(player, q, 1)
    cost = game.summon_cost(player, card)
    game.crystals[player] -= cost[4]
    if card == Card.ELEMENTAL_AMULET:
        game.push((ELEMENTAL_CHOICE, player))
        return
    need = cost[:4]
    total = sum(need)
    hands = game.count_in_play(player, Card.HAND_OF_FORTUNE)
    waivers = min(hands, total - 1) if total > 1 else 0
    game.push((PAYMENT, player, need, waivers, 0), (ENTER_PLAY, player, card, 1, 0))


def _opt_elemental(game: State, task: tuple) -> list[int]:
    p = task[1]
    available = game.spendable(p)
    hands = game.count_in_play(p, Card.HAND_OF_FORTUNE)
    options = []
    for mask in range(1, 16):
        types = [t for t in range(4) if mask >> t & 1]
        owned = sum(1 for t in types if available[t])
        if owned >= max(1, len(types) - hands):
            options.append(A.elemental_set_action(mask))
    return options


def _res_elemental(game: State, task: tuple, action: int) -> None:
    p, mask = task[1], A.mask_of_elemental_set(action)
    need = tuple(mask >> t & 1 for t in range(4))
    size = sum(need)
    waivers = min(game.count_in_play(p, Card.HAND_OF_FORTUNE), size - 1)
    game.push((PAYMENT, p, need, waivers, 0), (ENTER_PLAY, p, Card.ELEMENTAL_AMULET, 1, mask))


ELEMENTAL_CHOICE = steps.decision(
    "elemental_amulet_set", _opt_elemental, _res_elemental, doc="choose the energy types paid for Elemental Amulet"
)


# ---------------------------------------------------------------------------- paying an energy cost


def _run_payment(game: State, task: tuple) -> None:
    """Pay an energy cost: Hand of Fortune's savings first, then the tokens, asking only real choices."""
    _, p, need, waivers, first = task
    if waivers and sum(need) > 1:
        options = _waiver_options(game, p, need, waivers, first)
        if len(options) == 1:
            t = A.energy_of_choice(options[0])
            game.push((PAYMENT, p, tuple(n - (i == t) for i, n in enumerate(need)), waivers - 1, t))
        else:
            game.push((WAIVE_COST, p, need, waivers, first))
        return
    remaining = list(need)
    for t in range(4):
        if remaining[t]:
            _pay_forced(game, p, remaining, t, 0)
    if any(remaining):
        game.push((PAY_SOURCE, p, tuple(remaining), 0))


def _pay_forced(game: State, player: int, remaining: list[int], energy: int, first_source: int) -> None:
    """Pay tokens of one type from sources ``first_source`` on when there is no choice left."""
    sources = [s for s in (0, *game.amulet_sources(player)) if s >= first_source]
    holding = [s for s in sources if game.tokens_at(player, s)[energy]]
    if len(holding) == 1 or sum(game.tokens_at(player, s)[energy] for s in holding) == remaining[energy]:
        for s in holding:
            while remaining[energy] and game.tokens_at(player, s)[energy]:
                game.spend_token(player, s, energy)
                remaining[energy] -= 1
        if remaining[energy]:
            raise AssertionError(f"player {player} cannot pay {remaining}")


def _waiver_options(game: State, player: int, need: Sequence[int], waivers: int, first: int) -> list[int]:
    """Types Hand of Fortune may save next, in non-decreasing type order, keeping the cost payable."""
    available = game.spendable(player)
    options = []
    for t in range(first, 4):
        if not need[t]:
            continue
        after = [n - (i == t) for i, n in enumerate(need)]
        short = [u for u in range(4) if after[u] > available[u]]
        if any(u < t for u in short):  # a type that must still be saved could no longer be
            continue
        if sum(after[u] - available[u] for u in short) > waivers - 1 or sum(after[t:]) < waivers - 1:
            continue
        options.append(A.CHOOSE_ENERGY_ACTIONS[t])
    return options


PAYMENT = steps.automatic("payment", _run_payment, ("need", "waivers", "from_type"), doc="pay an energy cost")


def _opt_waive(game: State, task: tuple) -> list[int]:
    return _waiver_options(game, task[1], task[2], task[3], task[4])


def _res_waive(game: State, task: tuple, action: int) -> None:
    _, p, need, waivers, _ = task
    t = A.energy_of_choice(action)
    game.push((PAYMENT, p, tuple(n - (i == t) for i, n in enumerate(need)), waivers - 1, t))


WAIVE_COST = steps.decision(
    "hand_of_fortune",
    _opt_waive,
    _res_waive,
    ("need", "waivers", "from_type"),
    doc="choose the token Hand of Fortune saves",
)


def _opt_pay_source(game: State, task: tuple) -> list[int]:
    """The lowest type still owed, from sources at or after the last one used for it."""
    _, p, need, first_source = task
    t = next(i for i in range(4) if need[i])
    held = [(s, game.tokens_at(p, s)[t]) for s in (0, *game.amulet_sources(p)) if s >= first_source]
    return [A.PAY_ACTIONS[s][t] for k, (s, n) in enumerate(held) if n and sum(m for _, m in held[k:]) >= need[t]]


def _res_pay_source(game: State, task: tuple, action: int) -> None:
    p, need = task[1], task[2]
    source, t = A.payment_of_action(action)
    game.spend_token(p, source, t)
    remaining = list(need)
    remaining[t] -= 1
    if remaining[t]:
        _pay_forced(game, p, remaining, t, source)
    if any(remaining):
        game.push((PAY_SOURCE, p, tuple(remaining), source if remaining[t] else 0))


PAY_SOURCE = steps.decision(
    "pay_source",
    _opt_pay_source,
    _res_pay_source,
    ("need", "from_source"),
    doc="pay a token from the reserve or Amulet of Water",
)


def _opt_discard_tokens(game: State, task: tuple) -> list[int]:
    """Discard ``count`` tokens of any types (Kairn, Tree of Light, Crystal Orb), in (source, type) order."""
    _, p, count, first = task
    held = [(A.PAY_ACTIONS[s][t], n) for s in (0, *game.amulet_sources(p)) for t, n in enumerate(game.tokens_at(p, s))]
    options = []
    for k, (action, n) in enumerate(held):
        if n and action >= first and sum(m for _, m in held[k:]) >= count:
            options.append(action)
    return options


def _res_discard_tokens(game: State, task: tuple, action: int) -> None:
    _, p, count, _ = task
    source, t = A.payment_of_action(action)
    game.spend_token(p, source, t)
    if count > 1:
        game.push((DISCARD_TOKENS, p, count - 1, action))


DISCARD_TOKENS = steps.decision(
    "discard_tokens",
    _opt_discard_tokens,
    _res_discard_tokens,
    ("count", "from_action"),
    doc="discard tokens to pay a card's cost",
)


# ---------------------------------------------------------------------------- entering play


def _run_enter_play(game: State, task: tuple) -> None:
    _, p, card, from_hand, effects = task
    game.from_limbo(card)
    lo = 2 * (card - 1)
    in_play_anywhere = {i for held in game.in_play for i in held}
    instance = lo if lo not in in_play_anywhere else lo + 1
    game.in_play[p] = (*game.in_play[p], instance)
    behaviour = BEHAVIOUR[card]
    if behaviour.stores_tokens:
        game.stored[instance] = ZERO4
    if from_hand:
        game.push((AFTER_SUMMON, p, instance))
    behaviour.on_summon(game, p, instance, effects)


ENTER_PLAY = steps.automatic(
    "enter_play", _run_enter_play, ("card", "from_hand", "effects"), doc="a card enters play; its effect resolves"
)


def _run_after_summon(game: State, task: tuple) -> None:
    """Staff of Spring and Yjang's Forgotten Vase, for a card summoned from hand (not themselves)."""
    _, p, instance = task
    staffs = sum(1 for i in game.in_play[p] if CARD_OF[i] == Card.STAFF_OF_SPRING and i != instance)
    vases = sum(1 for i in game.in_play[p] if CARD_OF[i] == Card.YJANGS_FORGOTTEN_VASE and i != instance)
    game.crystals[p] += K.STAFF_OF_SPRING_CRYSTALS * staffs
    game.gain_tokens_of_choice(p, vases)


AFTER_SUMMON = steps.automatic("after_summon", _run_after_summon, ("instance",), doc="Staff of Spring, Vase")
