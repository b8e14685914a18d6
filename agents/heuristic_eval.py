"""The heuristic player's position evaluation (``agents/heuristic.py`` describes it; ``evaluate`` and
``margins`` are re-exported there).

Written for speed (a one-ply decision evaluates about eight positions, most of them alike): the tables it
reads are in ``agents/heuristic_cards.py`` (with the values of single cards), the facts one evaluation reads
several times (cards in play by seat, pending steps, the time left, token values) are read once into a
``Clock``, and the values a decision's candidate positions share are cached, each by every fact it reads: a
whole evaluation, an opponent's public value, the order of the seat's waiting cards, token values and the
clock's time fields (``clear_caches`` empties them). Every float is computed with the same operations in the
same order as the plain formulas, so the values are the same to the last bit (``tests/test_heuristic_decisions.py``
pins them, and compares values from warm caches with fresh ones).
"""

from __future__ import annotations

from typing import ClassVar

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.data import (
    BONUS_PENALTIES,
    CARD_OF,
    DICE,
    IS_ITEM,
    MAX_BONUSES,
    NUM_CARDS,
    PRESTIGE,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    TRANSMUTE_RATE,
    season_of,
)

from .heuristic_cards import (
    ABILITY_OPTION,
    AMULET_OF_WATER,
    ARCANO_LEECH,
    BONUS_LEFT,
    COST,
    COST_TERMS,
    END_VALUE,
    ENERGY_COST,
    ENERGY_PER_ROUND,
    FORCED_SHARE,
    FUTURE_SPECIAL,
    GAUGE_PER_ROUND,
    GAUGE_WEIGHT,
    GRIMOIRE,
    HAND_DELAY,
    HAND_FLOOR,
    HAND_OF_FORTUNE,
    IN_PLAY_SPECIAL,
    INCOME,
    INFLOW_ROOM,
    LANTERN,
    LANTERN_VALUE,
    LEWIS,
    LIBRARY_DELAY,
    LIFE_CRYSTALS,
    LIFE_HORIZON,
    OPPONENT_CARD,
    OPPONENT_CARD_ENERGY,
    OPPONENT_MEAN,
    OPPONENT_SLOT,
    OPPONENT_WEIGHT,
    OPPONENTS,
    PER_OPPONENT,
    POTION_OF_LIFE,
    POTION_SLOT,
    PURSE_OF_IO,
    SHORTAGE,
    SHORTAGE_MAX,
    SLOT_VALUE,
    SUMMON,
    SUMMON_SPECIAL,
    TOKENS_PER_TURN,
    TRANSMUTE_CHANCE,
    card_future,
    in_play_value,
    summon_value,
    threats,
)
from .values import END_SPACE, continuation, expected_rounds

_MOVE_MARKER = steps.kind("move_marker")
_TURN_START = steps.kind("turn_start")
_GAIN_ENERGY = steps.kind("gain_energy")
_SYLLAS = steps.kind("syllas_sacrifice")
_AMSUG = steps.kind("amsug_return")

_AFTER_YEAR1 = expected_rounds(END_SPACE - 12)  # rounds once the year-2 library set is in hand
_AFTER_YEAR2 = expected_rounds(END_SPACE - 24)


# ---------------------------------------------------------------------------- the clock

_CACHE_LIMIT = 1 << 12  # entries of each cache (emptied when full: hits come from the last few decisions)


class _Cache(dict):
    """A cache of values by every fact they read, emptied when it holds ``_CACHE_LIMIT`` entries (its hits come
    from the last few decisions)."""

    caches: ClassVar[list[_Cache]] = []  # every cache, for clear_caches

    def __init__(self) -> None:
        super().__init__()
        _Cache.caches.append(self)

    def remember(self, key: object, value: object) -> object:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[key] = value
        return value


_CARDS_OF = _Cache()  # instances in play -> their card ids


class Clock:
    """Where the game stands in time, and the facts an evaluation reads several times, read once."""

    __slots__ = (
        "abs",
        "base",
        "cards",
        "in_round",
        "next_start",
        "pending",
        "round_ends",
        "rounds_after",
        "season_changes",
        "token_values",
        "turn_pending",
    )

    def __init__(self, game: Game) -> None:
        self.abs = a = (game.year - 1) * 12 + game.position - 1
        cards_of = _CARDS_OF
        cards = []  # card ids in play, by seat
        for held in game.in_play:
            ids = cards_of.get(held)
            if ids is None:
                ids = cards_of.remember(held, tuple(map(CARD_OF.__getitem__, held)))
            cards.append(ids)
        self.cards = cards
        self.pending = pending_steps = game.pending_steps()
        self.token_values: list = [None] * game.num_players
        in_round = False
        pending = [False] * game.num_players
        for task in pending_steps:
            kind = task[0]
            if kind == _MOVE_MARKER:
                in_round = True
            elif kind == _TURN_START:
                pending[task[1]] = True
        self.in_round = in_round
        self.turn_pending = pending
        key = (a, in_round, game.rolled, game.dice_season, game.num_players)
        known = _TIMES.get(key)
        if known is None:
            if in_round:
                faces = DICE[game.dice_season]
                untaken = [faces[d][f].pips for d, f, o in game.rolled if o < 0]
                step = sum(untaken) / len(untaken) if untaken else 0.0
                nxt = a + step if game.year <= 3 else END_SPACE
            else:
                nxt = a
            rounds_after = expected_rounds(round(END_SPACE - nxt)) if nxt < END_SPACE else 0.0
            known = (
                nxt,
                rounds_after,
                rounds_after + (1.0 if in_round else 0.0),
                max(0, 11 - a // 3) if a < END_SPACE else 0,
                _base_values(game.num_players, rounds_after),
            )
            _TIMES.remember(key, known)
        self.next_start, self.rounds_after, self.round_ends, self.season_changes, self.base = known


_TIMES = _Cache()  # (space, in a round, dice, dice season, players) -> the clock's time fields


def token_values(game: Game, p: int, clock: Clock) -> list[float]:
    """What one token of each type is worth to ``p`` once its current turn is over (future transmutations).
    Read once per clock: the list returned is shared, never to be changed."""
    known = clock.token_values[p]
    if known is not None:
        return known
    cards = clock.cards[p]
    pending = clock.turn_pending[p]
    key = (p, cards, clock.next_start, pending, game.turn_player == p, game.rolled, game.dice_season, game.position)
    values = _TOKEN_VALUES.get(key)
    if values is None:
        values = _token_values(game, p, clock, cards, pending)
        _TOKEN_VALUES.remember(key, values)
    clock.token_values[p] = values
    return values


_TOKEN_VALUES = _Cache()


def _token_values(game: Game, p: int, clock: Clock, cards: tuple[int, ...], pending: bool) -> list[float]:
    """``token_values`` computed (``cards``: ``p``'s cards in play; ``pending``: its turn is still to come)."""
    purses = cards.count(PURSE_OF_IO)
    end = END_VALUE + LANTERN_VALUE * cards.count(LANTERN)
    later = continuation(purses, end, clock.next_start)
    floor = 0.0
    if POTION_OF_LIFE in cards and (clock.rounds_after > 0 or clock.turn_pending[p] or game.turn_player == p):
        # Drunk at the end on a full reserve: a token held now is worth its 4 crystals only near the end
        # (earlier, tokens spent meanwhile are replaced by new ones; the potion's value for them is its own).
        floor = (LIFE_CRYSTALS + purses) * min(1.0, max(0.0, 1.0 - (clock.rounds_after - 1.0) / LIFE_HORIZON))
    if not pending:
        values = [max(x, floor) for x in later] if floor else list(later)
    else:
        q = TRANSMUTE_CHANCE
        for d, f, o in game.rolled:  # the die the player took this round, if any (Game.die_taken)
            if o == p:
                q = 1.0 if DICE[game.dice_season][d][f].transmute else 0.1
                break
        rates = TRANSMUTE_RATE[season_of(game.position)]
        values = [max(floor, q * max(rates[t] + purses, later[t]) + (1.0 - q) * later[t]) for t in range(4)]
    return values


# ---------------------------------------------------------------------------- the evaluation


def evaluate(game: Game, seat: int) -> float:
    """Position value for ``seat``: its projected score minus the opponents' (score points)."""
    if game.final_scores is not None:
        values = [float(x) for x in game.final_scores]
    else:
        # A decision's lookahead meets some positions more than once (the same choice reached two ways, the
        # die kept and rerolled): they are valued once, by everything the evaluation may read for ``seat``.
        library = game.library
        key = (
            seat,
            game.year,
            game.position,
            game.turn_player,
            game.turn_flags,
            game.rolled,
            game.dice_season,
            tuple(game.crystals),
            tuple(game.gauge),
            tuple(game.bonuses_used),
            tuple(game.reserve),
            tuple(game.in_play),
            tuple(game.stored.items()),
            tuple(game.stack),
            game.hand[seat],
            library[seat],
            tuple([len(held) for held in game.hand]),
            tuple([len(year2) + 100 * len(year3) for year2, year3 in library]),
        )
        known = _EVALUATIONS.get(key)
        if known is not None:
            return known
        values = _values(game, seat)
    if len(values) == 2:  # _blend of the one opponent is its value
        value = values[seat] - OPPONENT_WEIGHT * values[1 - seat]
    else:
        value = values[seat] - OPPONENT_WEIGHT * _blend([values[q] for q in range(len(values)) if q != seat])
    if game.final_scores is None:
        _EVALUATIONS.remember(key, value)
    return value


_EVALUATIONS = _Cache()


def clear_caches() -> None:
    """Forget every cached value (the values do not change: a test compares them with and without caches)."""
    for cache in _Cache.caches:
        cache.clear()


def margins(game: Game, seat: int) -> list[float]:
    """Every player's projected score minus its opponents', as ``seat`` can judge it: ``seat``'s own value
    reads its hand and libraries, every other player's reads public facts only. ``margins(g, s)[s]`` is
    ``evaluate(g, s)``; once the game is over these are the real margins."""
    values = _values(game, seat)
    n = len(values)
    return [values[p] - OPPONENT_WEIGHT * _blend([values[q] for q in range(n) if q != p]) for p in range(n)]


def _values(game: Game, seat: int) -> list[float]:
    """Every player's projected final score (the real ones once the game is over)."""
    if game.final_scores is not None:
        return [float(x) for x in game.final_scores]
    clock = Clock(game)
    values = []
    for p in range(len(clock.cards)):
        values.append(_seat_value(game, p, clock, True) if p == seat else _public_value(game, p, clock))
    _pending_adjustments(game, clock, values)
    return values


_PUBLIC_VALUES = _Cache()


def _public_value(game: Game, p: int, clock: Clock) -> float:
    """``_seat_value`` of a player judged from public facts, cached by every fact it reads: the candidate
    positions of a decision mostly differ in the deciding seat's own side only."""
    in_play = game.in_play
    stored = game.stored
    library = game.library[p]
    key = (
        p,
        clock.abs,
        clock.next_start,
        clock.in_round,
        clock.turn_pending[p],
        game.turn_player,
        game.turn_flags,
        game.rolled,
        game.dice_season,
        game.crystals[p],
        game.bonuses_used[p],
        game.reserve[p],
        game.gauge[p],
        tuple(in_play),
        tuple([stored.get(i) for i in in_play[p]]) if stored else (),
        len(game.hand[p]),
        len(library[0]),
        len(library[1]),
    )
    value = _PUBLIC_VALUES.get(key)
    if value is None:
        value = _PUBLIC_VALUES.remember(key, _seat_value(game, p, clock, False))
    return value


def _blend(others: list[float]) -> float:
    if len(others) == 1:
        return others[0]
    m = OPPONENT_MEAN
    return (1.0 - m) * max(others) + m * sum(others) / len(others)


def _seat_value(game: Game, p: int, clock: Clock, private: bool) -> float:
    """Projected final score of ``p``; ``private``: its hand and libraries may be read (it is the evaluating
    seat), else they count by size only."""
    n = game.num_players
    in_play = game.in_play[p]
    cards = clock.cards[p]
    rounds_after = clock.rounds_after
    tv = token_values(game, p, clock)
    avg_tv = sum(tv) / 4.0
    used = game.bonuses_used[p]
    value = float(game.crystals[p]) - BONUS_PENALTIES[used]
    value += BONUS_LEFT * (MAX_BONUSES - used) * min(1.0, rounds_after / 4.0)

    # Tokens: the best ones are kept for a good season; those in the last places of the reserve will have to
    # make room for the next tokens soon; over the limit, only the best ones stay.
    reserve = game.reserve[p]
    limit = RESERVE_LIMIT_GRIMOIRE if GRIMOIRE in cards else RESERVE_LIMIT
    total = reserve[0] + reserve[1] + reserve[2] + reserve[3]
    keep = limit if POTION_OF_LIFE in cards else limit - INFLOW_ROOM
    transmuting = game.turn_player == p and game.can_transmute(p)
    held: list[tuple[float, int]] = []
    if total:
        if total > keep or transmuting:
            for t in range(4):
                held.extend([(tv[t], t)] * reserve[t])
            if total > keep:
                held.sort(reverse=True)
                forced = FORCED_SHARE
                held = [(v if k < keep else v * forced, t) for k, (v, t) in enumerate(held[:limit])]
            for v, _ in held:
                value += v
        else:  # the same sum, in the same order, without the list
            for t in range(4):
                v = tv[t]
                for _ in range(reserve[t]):
                    value += v
    # Cards waiting to be summoned, and the room for them.
    free = game.gauge[p] - len(in_play)
    for c in cards:
        slots = POTION_SLOT[c]
        if slots:
            free += slots
    capacity = free + GAUGE_PER_ROUND * rounds_after
    # Turns not begun yet (each brings a die); the turn under way can still spend what the seat holds.
    turns = rounds_after + (1.0 if clock.turn_pending[p] else 0.0)
    spend = game.spendable(p) if AMULET_OF_WATER in cards else list(reserve)
    energy = sum(spend) + ENERGY_PER_ROUND * turns
    if turns <= 0.0 and game.turn_player != p:  # no turn left: nothing more will be summoned
        capacity = energy = 0.0
    spare = None  # tokens not set aside for the cards waiting in hand (all of them for an opponent)
    if private:
        hand_value, expected_summons, spare = _waiting_cards(game, p, clock, tv, capacity, energy, turns, spend)
    else:
        waiting = len(game.hand[p]) + len(game.library[p][0]) + len(game.library[p][1])
        playable = min(max(0.0, capacity), energy / OPPONENT_CARD_ENERGY)
        share = min(1.0, playable / waiting) if waiting else 0.0
        per_card = share * OPPONENT_CARD + (1.0 - share) * HAND_FLOOR
        hand_value = waiting * per_card + max(0.0, min(free, 3) - waiting) * OPPONENT_SLOT
        expected_summons = min(float(waiting), playable)
    value += hand_value

    # The transmute ability held in the turn: what transmuting the tokens worth it now would add (a token set
    # aside for a card in hand also costs its shortage).
    if transmuting:
        rates = TRANSMUTE_RATE[game.season]
        extra = game.transmute_bonus(p)
        free_left = list(spare) if spare is not None else [99] * 4
        gain = 0.0
        for v, t in sorted(held):
            if free_left[t] > 0:
                free_left[t] -= 1
                gain += max(0.0, rates[t] + extra - v)
            else:
                gain += max(0.0, rates[t] + extra - v - SHORTAGE)
        for i in in_play:
            stored = game.stored.get(i) if CARD_OF[i] == AMULET_OF_WATER else None
            if stored:
                gain += sum(stored[t] * max(0.0, rates[t] + extra - tv[t]) for t in range(4))
        value += gain if gain > 0 else ABILITY_OPTION

    # Cards in play: prestige and income, and what the position adds for some.
    base = clock.base
    for i in in_play:
        c = CARD_OF[i]
        if c in IN_PLAY_SPECIAL:
            value += in_play_value(game, p, i, c, base[c], clock, tv, avg_tv, expected_summons, n, private)
        else:
            value += base[c]

    # What opponents' cards will take from this player.
    return value - threats(game, p, clock)


_BASE_VALUES = _Cache()


def _base_values(n: int, rounds_after: float) -> tuple[float, ...]:
    """Each card's prestige plus its income over the rounds left, by card id (per player count and rounds)."""
    key = (n, rounds_after)
    table = _BASE_VALUES.get(key)
    if table is None:
        table = _BASE_VALUES[key] = tuple(
            PRESTIGE[c] + INCOME[c] * rounds_after * ((n - 1) if c in PER_OPPONENT else 1) for c in range(NUM_CARDS + 1)
        )
    return table


_WAITING_ORDERS = _Cache()


def waiting_order(game: Game, p: int, clock: Clock, tv: list[float], turns: float, hands: int) -> list[tuple]:
    """The seat's hand and library cards, best first: ``(net value before its tokens, card, cost of waiting,
    rounds, (type, count) of its token cost, its energy cost, its gauge weight)``. Cached by everything it
    reads (the candidate positions of one decision mostly share it); the list returned is shared, never to be
    changed."""
    hand = game.hand[p]
    lib2, lib3 = game.library[p]
    cards = clock.cards
    key = (p, hand, lib2, lib3, tuple(tv), turns, clock.abs, clock.rounds_after, tuple(cards))
    if LEWIS in hand or LEWIS in lib2 or LEWIS in lib3:
        key += (tuple(game.reserve),)
    known = _WAITING_ORDERS.get(key)
    if known is not None:
        return known
    n = game.num_players
    leech = 0
    for q in OPPONENTS[n][p]:
        leech += cards[q].count(ARCANO_LEECH)
    items_in_play = sum(1 for c in cards[p] if IS_ITEM[c])
    groups = ((hand, turns, HAND_DELAY),)
    if lib2 or lib3:
        after2 = _AFTER_YEAR1 if clock.abs < 12 else turns
        after3 = _AFTER_YEAR2 if clock.abs < 24 else turns
        groups += ((lib2, min(turns, after2), LIBRARY_DELAY), (lib3, min(turns, after3), LIBRARY_DELAY))
    waiting = len(hand) + len(lib2) + len(lib3)
    cost_of, terms_of, energy_of = COST[n], COST_TERMS[n], ENERGY_COST[n]
    cards_in_order: list[tuple[float, int, float, float]] = []
    for group, rounds, delay in groups:
        for c in group:
            price = cost_of[c][4] + leech + sum([k * tv[t] for t, k in terms_of[c]])
            if hands and energy_of[c] > 1:
                price -= min(hands, energy_of[c] - 1) * 2.0
            if c in FUTURE_SPECIAL:
                future = card_future(game, p, c, clock, tv, rounds, waiting)
            elif c in PER_OPPONENT:
                future = INCOME[c] * rounds * (n - 1)
            else:
                future = INCOME[c] * rounds
            if c in SUMMON_SPECIAL:
                gross = PRESTIGE[c] + summon_value(game, p, c, tv, items_in_play, waiting) + future
            else:
                gross = PRESTIGE[c] + SUMMON[c] + future
            wait = delay[0] + delay[1] * max(future, 0.0) / max(rounds, 1.0)
            cards_in_order.append((gross - price, c, wait, rounds))
    cards_in_order.sort(reverse=True)
    # What the token allocation reads of each card, along (equal for equal cards, so the order is the same).
    order = [
        (net, c, wait, rounds, terms_of[c], energy_of[c], GAUGE_WEIGHT[c]) for net, c, wait, rounds in cards_in_order
    ]
    _WAITING_ORDERS.remember(key, order)
    return order


def _waiting_cards(
    game: Game,
    p: int,
    clock: Clock,
    tv: list[float],
    capacity: float,
    energy: float,
    turns: float,
    spend: list[int],
) -> tuple[float, float, list[int]]:
    """Value of the seat's hand and library sets: the best cards fill the room and the time there is.

    Returns the value, the expected number of summons and the tokens left over once the best cards have
    taken the tokens they need."""
    hands = clock.cards[p].count(HAND_OF_FORTUNE)
    cards_in_order = waiting_order(game, p, clock, tv, turns, hands)
    entries: list[tuple[float, float, float, int, int]] = []  # (net value, cost of waiting, gauge weight, energy, card)
    # The tokens held go to the best cards first; what a card still lacks has to be found in time.
    left = list(spend)
    floor = HAND_FLOOR
    for net, c, wait, rounds, terms, cost, weight in cards_in_order:
        short = 0
        for t, need in terms:
            have = left[t]
            use = need if need < have else have
            left[t] = have - use
            short += need - use
        if short:
            if hands and cost > 1:
                short = max(0, short - min(hands, cost - 1))
            if short > TOKENS_PER_TURN * rounds:
                net = floor
            elif short:
                # A missing token costs at least the shortage, and for a valuable card its share of the card.
                per_token = net / cost if cost else 0.0
                net -= short * max(SHORTAGE, min(SHORTAGE_MAX, per_token))
        entries.append((net, wait, weight, cost, c))
    entries.sort(reverse=True)
    room = capacity
    total = 0.0
    summons = 0.0
    for net, wait, weight, cost, _ in entries:
        share = min(room, 1.0, energy / cost if cost else 1.0)
        if share <= 0.0:
            total += floor
            continue
        total += share * (max(net, floor) - wait) + (1.0 - share) * floor
        summons += share
        room -= weight if weight > 0 else weight * share
        energy -= cost * share
    if room > 0:
        total += min(room, 2.0) * SLOT_VALUE
    return total, summons, left


def _pending_adjustments(game: Game, clock: Clock, values: list[float]) -> None:
    """Decisions still pending that the static terms do not see (tokens to gain, cards to sacrifice)."""
    for task in clock.pending:
        kind = task[0]
        if kind == _GAIN_ENERGY:
            p, count = task[1], task[2]
            tv = token_values(game, p, clock)
            if task[3] < 0:
                count = min(count, max(0, game.reserve_limit(p) - sum(game.reserve[p])))
            values[p] += count * max(tv[task[4] :])  # the types still open to it (asked in type order)
        elif kind == _SYLLAS:
            q = task[1]
            if game.in_play[q]:
                values[q] -= 2.0 + min(PRESTIGE[CARD_OF[i]] for i in game.in_play[q])
        elif kind == _AMSUG:
            q = task[1]
            if any(IS_ITEM[CARD_OF[i]] for i in game.in_play[q]):
                values[q] -= 3.0
