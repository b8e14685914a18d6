"""A hand-written player: a position evaluation, one-ply lookahead in play, and rules where one ply is blind.

* ``evaluate(game, seat)``: the seat's projected final score minus its best opponent's (with 3-4 players, a
  blend of the best and the mean opponent), in score points. It reads only public facts and the seat's own
  hand and library sets, so a search may call it on any determinization. It handles every position: in the
  middle of a turn with sub-decisions pending, between turns, after the seat's last turn, and the end of the
  game (the real margin). ``margins(game, seat)`` gives every player's margin as ``seat`` can judge it
  (its own value with its private cards, the others' from public facts), for a search.

  The projection: crystals; tokens at what the best transmutation left in the game is worth
  (``values.token_values``), the last places of the reserve discounted and the excess over the limit lost;
  the transmute ability held in the turn; cards in play at prestige plus what they still yield (per round,
  per season change, per later summon, at the end of the game); the cards waiting in hand and libraries,
  best first, each taking the tokens it needs from the reserve and then filling the summoning room and the
  energy the rounds left will bring (a card never summoned costs 5); what opponents' Figrim, Titus and Kairn
  will take; minus the bonus penalty. Opponents are valued the same way from public facts (their hands by
  size only).
* ``HeuristicAgent``: in play it tries each legal action on a clone of its view, lets its own sub-decisions
  that follow resolve greedily, and keeps the action whose position evaluates best (ending the turn is
  valued as the turn ends, before the next player's die). Where one ply is blind it looks further or uses a
  rule: a gauge or exchange bonus is worth the summon it makes possible now, an activation is also tried
  with the summon it pays for; the die choice applies each face to a copy, lets the next chooser answer with
  the face the die table ranks first for them (which fixes the leftover die, hence the pace) and evaluates;
  Die of Malice compares the face with the mean reroll; the draft takes the best card value under a gauge
  budget; the library split follows the cards' split preferences; Naria gives away the least valuable cards.
  Its knowledge is data in ``agents/values.py``: the card and die-action tables, token values and the
  evaluation's weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from seasons_env import Game
from seasons_env.engine import Card, steps
from seasons_env.engine import actions as A
from seasons_env.engine.data import (
    BONUS_PENALTIES,
    CARD_OF,
    CARDS,
    DICE,
    IS_ITEM,
    MAX_BONUSES,
    NUM_CARDS,
    PRESTIGE,
    TRANSMUTE_RATE,
)

from .base import SeededAgent
from .values import (
    CARDS as CARD_VALUES,
)
from .values import (
    DIE,
    DRAFT,
    DRAFT_GAUGE,
    END_SPACE,
    EVAL,
    SPLIT,
    TOKENS,
    continuation,
    expected_rounds,
)

_MOVE_MARKER = steps.kind("move_marker")
_TURN_START = steps.kind("turn_start")
_TURN = steps.kind("turn")
_CHOOSE_DIE = steps.kind("choose_die")
_GAIN_ENERGY = steps.kind("gain_energy")
_SYLLAS = steps.kind("syllas_sacrifice")
_AMSUG = steps.kind("amsug_return")
_DRAFT_PICK = steps.kind("draft_pick")
_LIBRARY = steps.kind("library_split")
_MALICE = steps.kind("die_of_malice_window")
_DRAW_SYMBOL = steps.kind("draw_symbol")
_NARIA_GIVE = steps.kind("naria_give")

#: Decisions the settling of a lookahead never answers: they open a new phase of the seat's play.
_BOUNDARY = frozenset((_TURN, _CHOOSE_DIE, _DRAFT_PICK, _LIBRARY, _MALICE, _DRAW_SYMBOL))

_POTION_SLOTS = {
    Card.POTION_OF_POWER: 3.0,
    Card.POTION_OF_DREAMS: 1.0,
    Card.POTION_OF_KNOWLEDGE: 1.0,
    Card.POTION_OF_LIFE: 1.0,
}
_INCOME = tuple([0.0] + [CARD_VALUES[c].income for c in range(1, NUM_CARDS + 1)])
_PER_OPPONENT = frozenset((Card.ARCANO_LEECH, Card.THIEVING_FAIRIES))
_COST = {n: tuple([(0, 0, 0, 0, 0)] + [CARDS[c].cost[n] for c in range(1, NUM_CARDS + 1)]) for n in (2, 3, 4)}
_ENERGY_COST = {n: tuple(sum(cost[:4]) for cost in _COST[n]) for n in (2, 3, 4)}


# ---------------------------------------------------------------------------- the clock


class _Clock:
    """Where the game stands in time, read once per evaluation."""

    __slots__ = (
        "abs",
        "cards",
        "in_round",
        "next_start",
        "round_ends",
        "rounds_after",
        "season_changes",
        "turn_pending",
    )

    def __init__(self, game: Game) -> None:
        self.abs = a = (game.year - 1) * 12 + game.position - 1
        self.cards = [tuple(CARD_OF[i] for i in held) for held in game.in_play]  # card ids in play, by seat
        in_round = False
        pending = [False] * game.num_players
        for task in game.pending_steps():
            kind = task[0]
            if kind == _MOVE_MARKER:
                in_round = True
            elif kind == _TURN_START:
                pending[task[1]] = True
        self.in_round = in_round
        self.turn_pending = pending
        if in_round:
            untaken = [DICE[game.dice_season][d][f].pips for d, f, o in game.rolled if o < 0]
            step = sum(untaken) / len(untaken) if untaken else 0.0
            nxt = a + step if game.year <= 3 else END_SPACE
        else:
            nxt = a
        self.next_start = nxt
        self.rounds_after = expected_rounds(round(END_SPACE - nxt)) if nxt < END_SPACE else 0.0
        self.round_ends = self.rounds_after + (1.0 if in_round else 0.0)
        self.season_changes = max(0, 11 - a // 3) if a < END_SPACE else 0


def _token_values(game: Game, p: int, clock: _Clock) -> list[float]:
    """What one token of each type is worth to ``p`` once its current turn is over (future transmutations)."""
    purses = clock.cards[p].count(Card.PURSE_OF_IO)
    end = TOKENS["end_value"] + TOKENS["lantern"] * clock.cards[p].count(Card.LANTERN_OF_XIDIT)
    later = continuation(purses, end, clock.next_start)
    floor = 0.0
    if clock.cards[p].count(Card.POTION_OF_LIFE) and (
        clock.rounds_after > 0 or clock.turn_pending[p] or game.turn_player == p
    ):
        # Drunk at the end on a full reserve: a token held now is worth its 4 crystals only near the end
        # (earlier, tokens spent meanwhile are replaced by new ones; the potion's value for them is its own).
        floor = (4.0 + purses) * min(1.0, max(0.0, 1.0 - (clock.rounds_after - 1.0) / EVAL["life_horizon"]))
    if not clock.turn_pending[p]:
        return [max(x, floor) for x in later] if floor else list(later)
    q = TOKENS["transmute_chance"]
    held_die = game.die_taken(p)
    if held_die is not None:
        q = 1.0 if DICE[game.dice_season][held_die[0]][held_die[1]].transmute else 0.1
    rates = TRANSMUTE_RATE[game.season]
    return [max(floor, q * max(rates[t] + purses, later[t]) + (1.0 - q) * later[t]) for t in range(4)]


# ---------------------------------------------------------------------------- the evaluation


def evaluate(game: Game, seat: int) -> float:
    """Position value for ``seat``: its projected score minus the opponents' (score points)."""
    return margins(game, seat)[seat]


def margins(game: Game, seat: int) -> list[float]:
    """Every player's projected score minus its opponents', as ``seat`` can judge it: ``seat``'s own value
    reads its hand and libraries, every other player's reads public facts only. ``margins(g, s)[s]`` is
    ``evaluate(g, s)``; once the game is over these are the real margins."""
    if game.final_scores is not None:
        values = [float(x) for x in game.final_scores]
    else:
        clock = _Clock(game)
        values = [_seat_value(game, p, clock, p == seat) for p in range(game.num_players)]
        _pending_adjustments(game, clock, values)
    weight = EVAL["opponent_weight"]
    n = game.num_players
    return [values[p] - weight * _blend([values[q] for q in range(n) if q != p]) for p in range(n)]


def _blend(others: list[float]) -> float:
    if len(others) == 1:
        return others[0]
    m = EVAL["opponent_mean"]
    return (1.0 - m) * max(others) + m * sum(others) / len(others)


def _seat_value(game: Game, p: int, clock: _Clock, private: bool) -> float:
    """Projected final score of ``p``; ``private``: its hand and libraries may be read (it is the evaluating
    seat), else they count by size only."""
    n = game.num_players
    in_play = game.in_play[p]
    tv = _token_values(game, p, clock)
    avg_tv = sum(tv) / 4.0
    value = float(game.crystals[p]) - BONUS_PENALTIES[game.bonuses_used[p]]
    value += EVAL["bonus_left"] * (MAX_BONUSES - game.bonuses_used[p]) * min(1.0, clock.rounds_after / 4.0)

    # Tokens: the best ones are kept for a good season; those in the last places of the reserve will have to
    # make room for the next tokens soon; over the limit, only the best ones stay.
    reserve = game.reserve[p]
    limit = game.reserve_limit(p)
    total = reserve[0] + reserve[1] + reserve[2] + reserve[3]
    keep = limit if clock.cards[p].count(Card.POTION_OF_LIFE) else limit - EVAL["inflow_room"]
    held: list[tuple[float, int]] = []
    if total:
        for t in range(4):
            held.extend([(tv[t], t)] * reserve[t])
        if total > keep:
            held.sort(reverse=True)
            forced = EVAL["forced_share"]
            held = [(v if k < keep else v * forced, t) for k, (v, t) in enumerate(held[:limit])]
        for v, _ in held:
            value += v
    # Cards waiting to be summoned, and the room for them.
    free = game.gauge[p] - len(in_play)
    for i in in_play:
        slots = _POTION_SLOTS.get(CARD_OF[i])
        if slots:
            free += slots
    capacity = free + EVAL["gauge_per_round"] * clock.rounds_after
    # Turns not begun yet (each brings a die); the turn under way can still spend what the seat holds.
    turns = clock.rounds_after + (1.0 if clock.turn_pending[p] else 0.0)
    energy = sum(game.spendable(p)) + EVAL["energy_per_round"] * turns
    if turns <= 0.0 and game.turn_player != p:  # no turn left: nothing more will be summoned
        capacity = energy = 0.0
    spare = None  # tokens not set aside for the cards waiting in hand (all of them for an opponent)
    if private:
        hand_value, expected_summons, spare = _waiting_cards(game, p, clock, tv, capacity, energy, turns)
    else:
        waiting = len(game.hand[p]) + len(game.library[p][0]) + len(game.library[p][1])
        playable = min(max(0.0, capacity), energy / EVAL["opponent_card_energy"])
        share = min(1.0, playable / waiting) if waiting else 0.0
        per_card = share * EVAL["opponent_card"] + (1.0 - share) * EVAL["hand_floor"]
        hand_value = waiting * per_card + max(0.0, min(free, 3) - waiting) * EVAL["opponent_slot"]
        expected_summons = min(float(waiting), playable)
    value += hand_value

    # The transmute ability held in the turn: what transmuting the tokens worth it now would add (a token set
    # aside for a card in hand also costs its shortage).
    if game.can_transmute(p):
        rates = TRANSMUTE_RATE[game.season]
        extra = game.transmute_bonus(p)
        free_left = list(spare) if spare is not None else [99] * 4
        gain = 0.0
        for v, t in sorted(held):
            if free_left[t] > 0:
                free_left[t] -= 1
                gain += max(0.0, rates[t] + extra - v)
            else:
                gain += max(0.0, rates[t] + extra - v - TOKENS["shortage"])
        for i in in_play:
            stored = game.stored.get(i) if CARD_OF[i] == Card.AMULET_OF_WATER else None
            if stored:
                gain += sum(stored[t] * max(0.0, rates[t] + extra - tv[t]) for t in range(4))
        value += gain if gain > 0 else EVAL["ability_option"]

    # Cards in play.
    for i in in_play:
        value += _in_play_value(game, p, i, clock, tv, avg_tv, expected_summons, n, private)

    # What opponents' cards will take from this player.
    return value - _threats(game, p, clock)


def _waiting_cards(
    game: Game,
    p: int,
    clock: _Clock,
    tv: list[float],
    capacity: float,
    energy: float,
    turns: float,
) -> tuple[float, float, list[int]]:
    """Value of the seat's hand and library sets: the best cards fill the room and the time there is.

    Returns the value, the expected number of summons and the tokens left over once the best cards have
    taken the tokens they need."""
    n = game.num_players
    spend = game.spendable(p)
    hands = clock.cards[p].count(Card.HAND_OF_FORTUNE)
    leech = game.leech_toll(p)
    items_in_play = sum(1 for i in game.in_play[p] if IS_ITEM[CARD_OF[i]])
    entries: list[tuple[float, float, float, int, int]] = []  # (net value, cost of waiting, gauge weight, energy, card)
    groups = ((game.hand[p], turns, EVAL["hand_delay"]),)
    lib2, lib3 = game.library[p]
    if lib2 or lib3:
        after2 = expected_rounds(END_SPACE - 12) if clock.abs < 12 else turns
        after3 = expected_rounds(END_SPACE - 24) if clock.abs < 24 else turns
        groups += ((lib2, min(turns, after2), EVAL["library_delay"]), (lib3, min(turns, after3), EVAL["library_delay"]))
    waiting = len(game.hand[p]) + len(lib2) + len(lib3)
    cards_in_order: list[tuple[float, int, float, float]] = []  # (net value before its tokens, card, wait, rounds)
    for cards, rounds, delay in groups:
        for c in cards:
            cost = _COST[n][c]
            price = cost[4] + leech + sum(cost[t] * tv[t] for t in range(4) if cost[t])
            if hands and _ENERGY_COST[n][c] > 1:
                price -= min(hands, _ENERGY_COST[n][c] - 1) * 2.0
            future = _card_future(game, p, c, clock, tv, rounds, waiting)
            gross = PRESTIGE[c] + _summon_value(game, p, c, tv, items_in_play, waiting) + future
            wait = delay[0] + delay[1] * max(future, 0.0) / max(rounds, 1.0)
            cards_in_order.append((gross - price, c, wait, rounds))
    cards_in_order.sort(reverse=True)
    # The tokens held go to the best cards first; what a card still lacks has to be found in time.
    left = list(spend)
    floor = EVAL["hand_floor"]
    for net, c, wait, rounds in cards_in_order:
        cost = _COST[n][c]
        short = 0
        for t in range(4):
            need = cost[t]
            if need:
                use = min(need, left[t])
                left[t] -= use
                short += need - use
        if hands and short and _ENERGY_COST[n][c] > 1:
            short = max(0, short - min(hands, _ENERGY_COST[n][c] - 1))
        if short > EVAL["tokens_per_turn"] * rounds:
            net = floor
        elif short:
            # A missing token costs at least the shortage, and for a valuable card its share of the card.
            per_token = net / _ENERGY_COST[n][c] if _ENERGY_COST[n][c] else 0.0
            net -= short * max(TOKENS["shortage"], min(TOKENS["shortage_max"], per_token))
        entries.append((net, wait, CARD_VALUES[c].gauge, _ENERGY_COST[n][c], c))
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
        total += min(room, 2.0) * EVAL["slot_value"]
    return total, summons, left


def _summon_value(game: Game, p: int, c: int, tv: list[float], items: int, waiting: int) -> float:
    """Value of a hand card's on-summon effect (for a potion: of its activation)."""
    if c == Card.SCEPTER_OF_GREATNESS:
        return 3.0 * (items + 0.5 * max(0, waiting - 1))
    if c == Card.PENDANT_OF_RAGNOR:
        return (items + 0.5 * max(0, waiting - 1)) * sum(tv) / 4.0
    if c == Card.LEWIS_GREYFACE:
        best = max(sum(game.reserve[q]) for q in game.opponents(p))
        return best * sum(tv) / 4.0
    return CARD_VALUES[c].summon


def _card_future(game: Game, p: int, c: int, clock: _Clock, tv: list[float], rounds: float, waiting: int) -> float:
    """Value a card adds in play over ``rounds`` rounds, for a card still in hand (rough)."""
    n = game.num_players
    income = _INCOME[c] * rounds * ((n - 1) if c in _PER_OPPONENT else 1)
    if c in (Card.STAFF_OF_SPRING, Card.YJANGS_FORGOTTEN_VASE):
        per = 3.0 if c == Card.STAFF_OF_SPRING else sum(tv) / 4.0
        return income + per * min(waiting - 1, 0.6 * rounds)
    if c == Card.FIGRIM_THE_AVARICIOUS:
        return income + 2.0 * (n - 1) * clock.season_changes * min(1.0, rounds / max(clock.rounds_after, 1.0))
    if c == Card.TITUS_DEEPGAZE:
        return income + 2.0 * (n - 1) * rounds
    if c == Card.HOURGLASS_OF_TIME:
        return income + clock.season_changes * sum(tv) / 4.0 * min(1.0, rounds / max(clock.rounds_after, 1.0))
    if c == Card.WONDROUS_CHEST:
        return income + 3.0 * rounds * EVAL["wondrous_chest_short"]
    if c == Card.RAGFIELDS_HELM:
        return income + 0.4 * EVAL["helm_bonus"]
    if c == Card.SEALED_CHEST_OF_URM:
        familiars = any(not IS_ITEM[CARD_OF[i]] for i in game.in_play[p])
        return income + EVAL["chest_chance_in_hand"][0 if familiars else 1] * EVAL["chest_bonus"]
    if c == Card.GLUTTON_CAULDRON:
        return income + EVAL["cauldron_done"] * min(1.0, rounds / 8.0)
    if c == Card.IDOL_OF_THE_FAMILIAR:
        return income + rounds * 1.0
    if c == Card.LANTERN_OF_XIDIT:
        return income + TOKENS["lantern"] * 3.0
    if c == Card.KAIRN_THE_DESTROYER:
        return income + EVAL["kairn_use"] * (4.0 * (n - 1) - min(tv)) * rounds
    if c == Card.DAMNED_SOUL_OF_ONYS:
        return income - 5.0
    return income


def _in_play_value(
    game: Game,
    p: int,
    i: int,
    clock: _Clock,
    tv: list[float],
    avg_tv: float,
    expected_summons: float,
    n: int,
    private: bool,
) -> float:
    c = CARD_OF[i]
    value = PRESTIGE[c] + _INCOME[c] * clock.rounds_after * ((n - 1) if c in _PER_OPPONENT else 1)
    if c == Card.AMULET_OF_WATER:
        stored = game.stored.get(i)
        if stored:
            value += stored[0] * tv[0] + stored[1] * tv[1] + stored[2] * tv[2] + stored[3] * tv[3]
    elif c == Card.STAFF_OF_SPRING:
        value += 3.0 * expected_summons
    elif c == Card.YJANGS_FORGOTTEN_VASE:
        value += avg_tv * expected_summons
    elif c == Card.FIGRIM_THE_AVARICIOUS:
        value += (n - 1) * clock.season_changes
    elif c == Card.WONDROUS_CHEST:
        full = sum(game.reserve[p]) >= 4
        chance = EVAL["wondrous_chest_full"] if full else EVAL["wondrous_chest_short"]
        value += 3.0 * (chance + EVAL["wondrous_chest_short"] * max(0.0, clock.round_ends - 1.0))
    elif c == Card.RAGFIELDS_HELM:
        mine = len(game.in_play[p])
        lead = mine - max(len(game.in_play[q]) for q in game.opponents(p))
        chance = EVAL["helm_chance_by_lead"][max(-2, min(2, lead)) + 2]
        if clock.rounds_after < 1.0 and lead <= 0:
            chance = 0.0 if lead < 0 else 0.1
        value += chance * EVAL["helm_bonus"]
    elif c == Card.HOURGLASS_OF_TIME:
        value += clock.season_changes * avg_tv
    elif c == Card.GLUTTON_CAULDRON:
        stored = game.stored.get(i, (0, 0, 0, 0))
        s = sum(stored)
        rounds = clock.rounds_after + (1.0 if clock.turn_pending[p] else 0.0)
        chance = min(1.0, rounds / max(1.0, 7.0 - s))
        value += chance * (EVAL["cauldron_done"] + s * avg_tv)
    elif c == Card.TITUS_DEEPGAZE:
        value += (n - 1) * clock.round_ends
    elif c == Card.IDOL_OF_THE_FAMILIAR:
        familiars = sum(1 for j in game.in_play[p] if not IS_ITEM[CARD_OF[j]])
        value += familiars * clock.rounds_after
    elif c == Card.SEALED_CHEST_OF_URM:
        familiars = any(not IS_ITEM[CARD_OF[j]] for j in game.in_play[p])
        value += EVAL["chest_chance_in_play"][0 if familiars else 1] * EVAL["chest_bonus"]
    elif c == Card.DAMNED_SOUL_OF_ONYS:
        value -= EVAL["soul_round"] * min(clock.round_ends, 2.0)
    elif c == Card.KAIRN_THE_DESTROYER:
        value -= EVAL["kairn_use"] * clock.rounds_after * min(tv)  # a token a use; the opponents' loss is a threat
    elif c in _POTION_SLOTS:
        value += _potion_value(game, p, c, clock, tv, avg_tv, private)
    return value


def _potion_value(game: Game, p: int, c: int, clock: _Clock, tv: list[float], avg_tv: float, private: bool) -> float:
    """What a potion waiting in play is worth (its best later use, discounted); ``private`` as in _seat_value."""
    store = EVAL["potion_store"]
    if (
        c == Card.POTION_OF_LIFE
    ):  # near the end the tokens held are worth 4 each (see _token_values); the others count here
        if clock.rounds_after < 1.0:
            return 0.0
        limit = game.reserve_limit(p)
        ramp = min(1.0, max(0.0, 1.0 - (clock.rounds_after - 1.0) / EVAL["life_horizon"]))
        room = max(0.0, limit - ramp * sum(game.reserve[p]))
        coming = min(room, EVAL["energy_per_round"] * clock.rounds_after)
        return store * coming * max(0.0, 4 + clock.cards[p].count(Card.PURSE_OF_IO) - avg_tv)
    if c == Card.POTION_OF_KNOWLEDGE:
        return store * 5.0 * avg_tv
    if c == Card.POTION_OF_POWER:
        return store * 4.0
    if c == Card.POTION_OF_DREAMS:
        if not private:  # an opponent's hand is hidden: a typical card for it, if it holds any
            return store * 0.5 * EVAL["opponent_card"] if game.hand[p] else 0.0
        best = max((PRESTIGE[h] + CARD_VALUES[h].summon for h in game.hand[p]), default=0.0)
        return store * 0.5 * best
    return 0.0


def _threats(game: Game, p: int, clock: _Clock) -> float:
    """Crystals the opponents' cards will take from ``p`` (Figrim, Titus, Kairn)."""
    lost = 0.0
    for q in game.opponents(p):
        for i in game.in_play[q]:
            c = CARD_OF[i]
            if c == Card.FIGRIM_THE_AVARICIOUS:
                lost += clock.season_changes
            elif c == Card.TITUS_DEEPGAZE:
                lost += clock.round_ends
            elif c == Card.KAIRN_THE_DESTROYER:
                lost += EVAL["kairn_use"] * 4.0 * clock.rounds_after
    return min(lost, game.crystals[p] + 2.0 * clock.rounds_after)


def _pending_adjustments(game: Game, clock: _Clock, values: list[float]) -> None:
    """Decisions still pending that the static terms do not see (tokens to gain, cards to sacrifice)."""
    for task in game.pending_steps():
        kind = task[0]
        if kind == _GAIN_ENERGY:
            p, count = task[1], task[2]
            tv = _token_values(game, p, clock)
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


# ---------------------------------------------------------------------------- the player


class HeuristicAgent(SeededAgent):
    """One-ply lookahead over a hand-written evaluation, with rules for the draft, split and dice.

    Deterministic given its seed (``reset``); the generator only breaks ties in the draft."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._plan: tuple | None = None  # (seat, year-2 set, year-3 set) of the library split under way

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    def evaluate(self, game: Game, seat: int) -> float:
        """Position value for ``seat`` (see the module-level ``evaluate``)."""
        return evaluate(game, seat)

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """One of ``legal`` for the decision pending in ``view`` (a determinized copy: it may be changed)."""
        if len(legal) == 1:
            return int(legal[0])
        kind = view.pending_task()[0]
        if kind == _DRAFT_PICK:
            return self._draft(view, seat, legal)
        if kind == _LIBRARY:
            return self._split(view, seat, legal)
        if kind == _CHOOSE_DIE:
            return self._choose_die(view, seat, legal)
        if kind == _MALICE:
            return self._malice(view, seat, legal)
        if kind == _DRAW_SYMBOL:
            return A.DRAW_CARD if A.DRAW_CARD in legal else int(legal[0])
        if kind == _NARIA_GIVE:
            return min(legal, key=lambda a: CARD_VALUES[A.card_of_choice(a)].draft)
        return self._one_ply(view, seat, legal)

    # ------------------------------------------------------------------ one ply

    def _one_ply(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        values = action_values(view, seat, legal)
        return max(legal, key=lambda a: values[a])

    # ------------------------------------------------------------------ dice

    def _face_value(self, view: Game, seat: int, die: int, face: int, next_chooser: int = -1) -> float:
        """Evaluation once ``seat`` holds this die and face (its symbols applied) and ``next_chooser``, if any,
        has taken the die the table values most for them, which also sets the leftover die and so the pace."""
        g = view.preview_die(seat, die, face)
        if next_chooser >= 0:
            rest = [(d, f) for d, f, o in g.rolled if o < 0]
            d2, f2 = max(rest, key=lambda df: _table_face_value(g, next_chooser, df[0], df[1]))
            g = g.preview_die(next_chooser, d2, f2)
        value = evaluate(g, seat)
        if DICE[g.dice_season][die][face].draw:
            value += DIE["draw"] * _draw_value(g, seat)
        return value

    def _choose_die(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """The die whose face is worth most once the next chooser has answered."""
        pending = view.pending_steps()
        # The next chooser answers only when a die will still be left over after its choice.
        nxt = pending[1][1] if len(pending) >= 2 and pending[1][0] == _CHOOSE_DIE and len(legal) > 2 else -1
        best, best_value = int(legal[0]), float("-inf")
        for a in legal:
            die = A.die_of_action(a)
            face = next(f for d, f, _ in view.rolled if d == die)
            v = self._face_value(view, seat, die, face, nxt)
            if v > best_value:
                best, best_value = int(a), v
        return best

    def _malice(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        die, face = view.die_taken(seat)
        keep = self._face_value(view, seat, die, face)
        reroll = sum(self._face_value(view, seat, die, f) for f in range(6)) / 6.0 + DIE["malice_crystals"]
        fairies = sum(view.count_in_play(q, Card.THIEVING_FAIRIES) for q in view.opponents(seat))
        reroll -= DIE["malice_fairy"] * fairies
        if reroll > keep + DIE["malice_margin"]:
            return next(int(a) for a in legal if a != A.USE_DIE)
        return A.USE_DIE

    # ------------------------------------------------------------------ prelude

    def _draft(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """The pick with the best value for this player, keeping the gauge the picks demand near the budget."""
        picked = view.hand[seat]
        gauge_used = sum(CARD_VALUES[c].gauge for c in picked)
        has_chest = Card.SEALED_CHEST_OF_URM in picked
        familiars = sum(1 for c in picked if not IS_ITEM[c])

        def score(a: int) -> float:
            c = A.card_of_choice(a)
            row = CARD_VALUES[c]
            s = row.draft
            over = gauge_used + row.gauge - DRAFT_GAUGE  # the summoning gauge the picks would demand past the budget
            if over > 0:
                s -= DRAFT["gauge_over"] * min(over, max(row.gauge, 0.0))
            if (has_chest and not IS_ITEM[c]) or (c == Card.SEALED_CHEST_OF_URM and familiars >= 2):
                s += DRAFT["familiar_with_chest"]
            return s + 1e-3 * self.rng.random()

        return int(max(legal, key=score))

    def _split(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """Library split: the plan (year-2 set, year-3 set) that best fits when each card pays off."""
        year = view.pending.args["year"]
        hand = view.hand[seat]
        lib2, lib3 = view.library[seat]
        plan = self._plan
        if plan is None or plan[0] != seat or not _plan_fits(plan, hand, lib2, lib3):
            plan = self._plan = (seat, *_split_plan(list(hand), 3 - len(lib2), 3 - len(lib3), view.num_players))
        wanted = [c for c in plan[year - 1] if c in hand]
        if not wanted:
            return int(legal[0])
        return A.choose_card_action(wanted[0])


def _plan_fits(plan: tuple, hand: Sequence[int], lib2: Sequence[int], lib3: Sequence[int]) -> bool:
    """Is the split plan still the one being carried out (its sets hold what the libraries hold)?"""
    _, set2, set3 = plan
    rest2, rest3 = list(set2), list(set3)
    for c in lib2:
        if c not in rest2:
            return False
        rest2.remove(c)
    for c in lib3:
        if c not in rest3:
            return False
        rest3.remove(c)
    pool = list(hand)
    for c in rest2 + rest3:
        if c not in pool:
            return False
        pool.remove(c)
    return True


def _split_plan(hand: list[int], need2: int, need3: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The cards of ``hand`` for the year-2 and the year-3 sets (``need2`` and ``need3`` of them)."""
    best_plan, best_score = ((), ()), float("-inf")
    index = range(len(hand))
    fit = [CARD_VALUES[c].split for c in hand]
    for set2 in combinations(index, need2):
        rest = [k for k in index if k not in set2]
        for set3 in combinations(rest, need3):
            keep = [k for k in rest if k not in set3]
            s = sum(fit[k][1] for k in set2) + sum(fit[k][2] for k in set3) + sum(fit[k][0] for k in keep)
            energy = sum(_ENERGY_COST[n][hand[k]] for k in keep)
            s += SPLIT["cost_year1"] * max(0, energy - 6)
            if any(_ENERGY_COST[n][hand[k]] <= 2 and _COST[n][hand[k]][4] <= 3 for k in keep):
                s += SPLIT["cheap_year1"]
            if s > best_score:
                best_plan, best_score = (tuple(hand[k] for k in set2), tuple(hand[k] for k in set3)), s
    return best_plan


def action_values(view: Game, seat: int, legal: Sequence[int]) -> dict[int, float]:
    """One-ply value of each legal action: the evaluation once the seat's own sub-decisions have settled."""
    values = {}
    kind = view.pending_task()[0]
    in_turn = kind == _TURN
    for a in legal:
        if in_turn and a == A.END_TURN:
            # The position as the turn ends, before the next player's die adds to their side; on a tie,
            # stop rather than spend.
            values[a] = evaluate(view.preview_turn_end(), seat) + 1e-6
            continue
        g = view.clone()
        g.apply(a)
        if kind != _GAIN_ENERGY:  # the tokens still to choose are valued as pending by the evaluation
            _settle(g, seat)
        if in_turn and (a == A.BONUS_GAUGE or a == A.BONUS_EXCHANGE):
            # A gauge or exchange bonus is worth only the summon it makes possible now.
            values[a] = _enabled_summon_value(g, seat, legal)
        elif in_turn and A.is_activation(a):
            # An activation may pay for a summon (tokens, gauge, a freed slot): look one summon further.
            values[a] = max(evaluate(g, seat), _enabled_summon_value(g, seat, legal))
        else:
            values[a] = evaluate(g, seat)
    return values


def _settle(game: Game, seat: int, budget: int = 24) -> None:
    """Let the seat's own sub-decisions that follow an action resolve greedily (static one-ply)."""
    while budget > 0 and game.final_scores is None:
        task = game.pending_task()
        if task[1] != seat or task[0] in _BOUNDARY:
            return
        legal = game.legal_action_list()
        best, best_value = legal[0], float("-inf")
        for a in legal:
            g = game.clone()
            g.apply(a)
            v = evaluate(g, seat)
            if v > best_value:
                best, best_value = a, v
        game.apply(best)
        budget -= 1


def _enabled_summon_value(game: Game, seat: int, before: Sequence[int]) -> float:
    """The best position reached by a summon that was not possible ``before`` (two plies)."""
    if game.final_scores is not None or game.pending_task()[:2] != (_TURN, seat):
        return float("-inf")
    best = float("-inf")
    for a in game.legal_action_list():
        if A.is_summon(a) and a not in before:
            g = game.clone()
            g.apply(a)
            _settle(g, seat)
            best = max(best, evaluate(g, seat))
    return best


def _table_face_value(game: Game, p: int, die: int, face: int) -> float:
    """A face's worth to ``p`` from the die-action table and public facts only (for opponents' choices)."""
    spec = DICE[game.dice_season][die][face]
    room = max(0, game.reserve_limit(p) - sum(game.reserve[p]))
    value = DIE["energy"] * min(room, sum(spec.energy)) + DIE["crystal"] * spec.crystals
    if spec.gauge:
        value += DIE["gauge"]
    if spec.draw:
        value += DIE["draw_card"]
    if spec.transmute:
        value += DIE["transmute"] + DIE["transmute_token"] * sum(game.reserve[p])
    return value


def _draw_value(game: Game, seat: int) -> float:
    """Expected gain of drawing a card (kept only if it helps), over a few cards of the unseen pile."""
    pile = game.draw_pile[-4:] or game.discard_pile[:4]
    if not pile:
        return 0.0
    base = evaluate(game, seat)
    total = 0.0
    for c in pile:
        g = game.clone()
        g.hand_add(seat, c)
        total += max(0.0, evaluate(g, seat) - base)
    return total / len(pile)


__all__ = ["HeuristicAgent", "evaluate", "margins"]
