"""The heuristic's knowledge in the form its evaluation reads fastest, and the values of single cards.

Card ids are plain ints (reading an ``IntEnum`` member costs several times a global), the weights of
``values.EVAL`` and ``values.TOKENS`` are module constants, and per-card facts are tuples indexed by card id.
The functions value one card of a player (on summon, over the rounds left, in play; a potion waiting; the
opponents' cards that take crystals) for ``agents/heuristic_eval.py``, with the same operations in the same
order as the plain formulas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seasons_env import Game
from seasons_env.engine import Card
from seasons_env.engine import card_constants as K
from seasons_env.engine.data import CARDS, IS_ITEM, NUM_CARDS, PRESTIGE

from .values import CARDS as CARD_VALUES
from .values import EVAL, TOKENS

if TYPE_CHECKING:
    from .heuristic_eval import Clock

# Card ids as plain ints (reading an IntEnum member costs several times a global).
AMULET_OF_WATER = int(Card.AMULET_OF_WATER)
STAFF_OF_SPRING = int(Card.STAFF_OF_SPRING)
PURSE_OF_IO = int(Card.PURSE_OF_IO)
FIGRIM = int(Card.FIGRIM_THE_AVARICIOUS)
WONDROUS_CHEST = int(Card.WONDROUS_CHEST)
KAIRN = int(Card.KAIRN_THE_DESTROYER)
GRIMOIRE = int(Card.BESPELLED_GRIMOIRE)
RAGFIELDS_HELM = int(Card.RAGFIELDS_HELM)
HAND_OF_FORTUNE = int(Card.HAND_OF_FORTUNE)
ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
LEWIS = int(Card.LEWIS_GREYFACE)
POTION_OF_POWER = int(Card.POTION_OF_POWER)
POTION_OF_DREAMS = int(Card.POTION_OF_DREAMS)
POTION_OF_KNOWLEDGE = int(Card.POTION_OF_KNOWLEDGE)
POTION_OF_LIFE = int(Card.POTION_OF_LIFE)
HOURGLASS = int(Card.HOURGLASS_OF_TIME)
SCEPTER = int(Card.SCEPTER_OF_GREATNESS)
VASE = int(Card.YJANGS_FORGOTTEN_VASE)
ARCANO_LEECH = int(Card.ARCANO_LEECH)
GLUTTON_CAULDRON = int(Card.GLUTTON_CAULDRON)
TITUS = int(Card.TITUS_DEEPGAZE)
THIEVING_FAIRIES = int(Card.THIEVING_FAIRIES)
IDOL = int(Card.IDOL_OF_THE_FAMILIAR)
LANTERN = int(Card.LANTERN_OF_XIDIT)
SEALED_CHEST = int(Card.SEALED_CHEST_OF_URM)
PENDANT = int(Card.PENDANT_OF_RAGNOR)
DAMNED_SOUL = int(Card.DAMNED_SOUL_OF_ONYS)

POTION_SLOTS = {POTION_OF_POWER: 3.0, POTION_OF_DREAMS: 1.0, POTION_OF_KNOWLEDGE: 1.0, POTION_OF_LIFE: 1.0}
POTION_SLOT = tuple(POTION_SLOTS.get(c, 0.0) for c in range(NUM_CARDS + 1))
INCOME = tuple([0.0] + [CARD_VALUES[c].income for c in range(1, NUM_CARDS + 1)])
SUMMON = tuple([0.0] + [CARD_VALUES[c].summon for c in range(1, NUM_CARDS + 1)])
GAUGE_WEIGHT = tuple([0.0] + [CARD_VALUES[c].gauge for c in range(1, NUM_CARDS + 1)])
PER_OPPONENT = frozenset((ARCANO_LEECH, THIEVING_FAIRIES))
COST = {n: tuple([(0, 0, 0, 0, 0)] + [CARDS[c].cost[n] for c in range(1, NUM_CARDS + 1)]) for n in (2, 3, 4)}
ENERGY_COST = {n: tuple(sum(cost[:4]) for cost in COST[n]) for n in (2, 3, 4)}
# (type, count) of the tokens a card costs, the types it needs only, in type order.
COST_TERMS = {n: tuple(tuple((t, k) for t, k in enumerate(cost[:4]) if k) for cost in COST[n]) for n in (2, 3, 4)}
OPPONENTS = {n: tuple(tuple((p + k) % n for k in range(1, n)) for p in range(n)) for n in (2, 3, 4)}
IS_FAMILIAR = tuple(not item for item in IS_ITEM)
# Cards whose value in play or in hand is computed from the position (the others: prestige, income, summon).
IN_PLAY_SPECIAL = frozenset(
    {AMULET_OF_WATER, STAFF_OF_SPRING, VASE, FIGRIM, WONDROUS_CHEST, RAGFIELDS_HELM, HOURGLASS}
    | {GLUTTON_CAULDRON, TITUS, IDOL, SEALED_CHEST, DAMNED_SOUL, KAIRN, *POTION_SLOTS}
)
FUTURE_SPECIAL = frozenset(
    {STAFF_OF_SPRING, VASE, FIGRIM, TITUS, HOURGLASS, WONDROUS_CHEST, RAGFIELDS_HELM, SEALED_CHEST}
    | {GLUTTON_CAULDRON, IDOL, LANTERN, KAIRN, DAMNED_SOUL}
)
SUMMON_SPECIAL = frozenset((SCEPTER, PENDANT, LEWIS))
THREAT_CARDS = frozenset((FIGRIM, TITUS, KAIRN))

OPPONENT_WEIGHT = EVAL["opponent_weight"]
OPPONENT_MEAN = EVAL["opponent_mean"]
GAUGE_PER_ROUND = EVAL["gauge_per_round"]
TOKENS_PER_TURN = EVAL["tokens_per_turn"]
ENERGY_PER_ROUND = EVAL["energy_per_round"]
OPPONENT_CARD_ENERGY = EVAL["opponent_card_energy"]
HAND_DELAY = EVAL["hand_delay"]
LIBRARY_DELAY = EVAL["library_delay"]
HAND_FLOOR = EVAL["hand_floor"]
SLOT_VALUE = EVAL["slot_value"]
OPPONENT_CARD = EVAL["opponent_card"]
OPPONENT_SLOT = EVAL["opponent_slot"]
LIFE_HORIZON = EVAL["life_horizon"]
POTION_STORE = EVAL["potion_store"]
CAULDRON_DONE = EVAL["cauldron_done"]
HELM_BONUS = EVAL["helm_bonus"]
HELM_CHANCE = EVAL["helm_chance_by_lead"]
CHEST_BONUS = EVAL["chest_bonus"]
CHEST_IN_PLAY = EVAL["chest_chance_in_play"]
CHEST_IN_HAND = EVAL["chest_chance_in_hand"]
WONDROUS_FULL = EVAL["wondrous_chest_full"]
WONDROUS_SHORT = EVAL["wondrous_chest_short"]
SOUL_ROUND = EVAL["soul_round"]
ABILITY_OPTION = EVAL["ability_option"]
BONUS_LEFT = EVAL["bonus_left"]
INFLOW_ROOM = EVAL["inflow_room"]
FORCED_SHARE = EVAL["forced_share"]
KAIRN_USE = EVAL["kairn_use"]
TRANSMUTE_CHANCE = TOKENS["transmute_chance"]
END_VALUE = TOKENS["end_value"]
LANTERN_VALUE = TOKENS["lantern"]
SHORTAGE = TOKENS["shortage"]
SHORTAGE_MAX = TOKENS["shortage_max"]

# The cards' rule amounts (``seasons_env.engine.card_constants``, read by both engines too), as the formulas
# below use them: floats where they multiply floats.
SCEPTER_CRYSTALS = float(K.SCEPTER_CRYSTALS)
STAFF_CRYSTALS = float(K.STAFF_OF_SPRING_CRYSTALS)
FIGRIM_CRYSTALS = K.FIGRIM_CRYSTALS
WONDROUS_CRYSTALS = float(K.WONDROUS_CHEST_CRYSTALS)
WONDROUS_MIN_TOKENS = K.WONDROUS_CHEST_MIN_TOKENS
KAIRN_CRYSTALS = float(K.KAIRN_CRYSTALS)
LIFE_CRYSTALS = float(K.POTION_OF_LIFE_CRYSTALS)
KNOWLEDGE_TOKENS = float(K.POTION_OF_KNOWLEDGE_TOKENS)
CAULDRON_TOKENS = float(K.GLUTTON_CAULDRON_TOKENS)
TITUS_CRYSTALS = K.TITUS_CRYSTALS


def summon_value(game: Game, p: int, c: int, tv: list[float], items: int, waiting: int) -> float:
    """Value of a hand card's on-summon effect (for a potion: of its activation)."""
    if c == SCEPTER:
        return SCEPTER_CRYSTALS * (items + 0.5 * max(0, waiting - 1))
    if c == PENDANT:
        return (items + 0.5 * max(0, waiting - 1)) * sum(tv) / 4.0
    if c == LEWIS:
        best = max(sum(game.reserve[q]) for q in game.opponents(p))
        return best * sum(tv) / 4.0
    return SUMMON[c]


def card_future(game: Game, p: int, c: int, clock: Clock, tv: list[float], rounds: float, waiting: int) -> float:
    """Value a card adds in play over ``rounds`` rounds, for a card still in hand (rough)."""
    n = game.num_players
    income = INCOME[c] * rounds * ((n - 1) if c in PER_OPPONENT else 1)
    if c in (STAFF_OF_SPRING, VASE):
        per = STAFF_CRYSTALS if c == STAFF_OF_SPRING else sum(tv) / 4.0
        return income + per * min(waiting - 1, 0.6 * rounds)
    if c == FIGRIM:
        return income + 2.0 * (n - 1) * clock.season_changes * min(1.0, rounds / max(clock.rounds_after, 1.0))
    if c == TITUS:
        return income + 2.0 * (n - 1) * rounds
    if c == HOURGLASS:
        return income + clock.season_changes * sum(tv) / 4.0 * min(1.0, rounds / max(clock.rounds_after, 1.0))
    if c == WONDROUS_CHEST:
        return income + WONDROUS_CRYSTALS * rounds * WONDROUS_SHORT
    if c == RAGFIELDS_HELM:
        return income + 0.4 * HELM_BONUS
    if c == SEALED_CHEST:
        familiars = any(IS_FAMILIAR[x] for x in clock.cards[p])
        return income + CHEST_IN_HAND[0 if familiars else 1] * CHEST_BONUS
    if c == GLUTTON_CAULDRON:
        return income + CAULDRON_DONE * min(1.0, rounds / 8.0)
    if c == IDOL:
        return income + rounds * 1.0
    if c == LANTERN:
        return income + LANTERN_VALUE * 3.0
    if c == KAIRN:
        return income + KAIRN_USE * (KAIRN_CRYSTALS * (n - 1) - min(tv)) * rounds
    if c == DAMNED_SOUL:
        return income - 5.0
    return income


def in_play_value(
    game: Game,
    p: int,
    i: int,
    c: int,
    value: float,
    clock: Clock,
    tv: list[float],
    avg_tv: float,
    expected_summons: float,
    n: int,
    private: bool,
) -> float:
    """Card instance ``i`` (card ``c``) in ``p``'s play area: its ``value`` (prestige and income) plus what the
    position adds."""
    if c == AMULET_OF_WATER:
        stored = game.stored.get(i)
        if stored:
            value += stored[0] * tv[0] + stored[1] * tv[1] + stored[2] * tv[2] + stored[3] * tv[3]
    elif c == STAFF_OF_SPRING:
        value += STAFF_CRYSTALS * expected_summons
    elif c == VASE:
        value += avg_tv * expected_summons
    elif c == FIGRIM:
        value += FIGRIM_CRYSTALS * (n - 1) * clock.season_changes
    elif c == WONDROUS_CHEST:
        full = sum(game.reserve[p]) >= WONDROUS_MIN_TOKENS
        chance = WONDROUS_FULL if full else WONDROUS_SHORT
        value += WONDROUS_CRYSTALS * (chance + WONDROUS_SHORT * max(0.0, clock.round_ends - 1.0))
    elif c == RAGFIELDS_HELM:
        mine = len(game.in_play[p])
        lead = mine - max(len(game.in_play[q]) for q in OPPONENTS[n][p])
        chance = HELM_CHANCE[max(-2, min(2, lead)) + 2]
        if clock.rounds_after < 1.0 and lead <= 0:
            chance = 0.0 if lead < 0 else 0.1
        value += chance * HELM_BONUS
    elif c == HOURGLASS:
        value += clock.season_changes * avg_tv
    elif c == GLUTTON_CAULDRON:
        stored = game.stored.get(i, (0, 0, 0, 0))
        s = sum(stored)
        rounds = clock.rounds_after + (1.0 if clock.turn_pending[p] else 0.0)
        chance = min(1.0, rounds / max(1.0, CAULDRON_TOKENS - s))
        value += chance * (CAULDRON_DONE + s * avg_tv)
    elif c == TITUS:
        value += TITUS_CRYSTALS * (n - 1) * clock.round_ends
    elif c == IDOL:
        familiars = sum(1 for x in clock.cards[p] if IS_FAMILIAR[x])
        value += familiars * clock.rounds_after
    elif c == SEALED_CHEST:
        familiars = any(IS_FAMILIAR[x] for x in clock.cards[p])
        value += CHEST_IN_PLAY[0 if familiars else 1] * CHEST_BONUS
    elif c == DAMNED_SOUL:
        value -= SOUL_ROUND * min(clock.round_ends, 2.0)
    elif c == KAIRN:
        value -= KAIRN_USE * clock.rounds_after * min(tv)  # a token a use; the opponents' loss is a threat
    elif c in POTION_SLOTS:
        value += potion_value(game, p, c, clock, tv, avg_tv, private)
    return value


def potion_value(game: Game, p: int, c: int, clock: Clock, tv: list[float], avg_tv: float, private: bool) -> float:
    """What a potion waiting in play is worth (its best later use, discounted); ``private`` as in _seat_value."""
    store = POTION_STORE
    if c == POTION_OF_LIFE:  # near the end the tokens held are worth 4 each (see token_values); the others count
        if clock.rounds_after < 1.0:
            return 0.0
        limit = game.reserve_limit(p)
        ramp = min(1.0, max(0.0, 1.0 - (clock.rounds_after - 1.0) / LIFE_HORIZON))
        room = max(0.0, limit - ramp * sum(game.reserve[p]))
        coming = min(room, ENERGY_PER_ROUND * clock.rounds_after)
        return store * coming * max(0.0, LIFE_CRYSTALS + clock.cards[p].count(PURSE_OF_IO) - avg_tv)
    if c == POTION_OF_KNOWLEDGE:
        return store * KNOWLEDGE_TOKENS * avg_tv
    if c == POTION_OF_POWER:
        return store * 4.0
    if c == POTION_OF_DREAMS:
        if not private:  # an opponent's hand is hidden: a typical card for it, if it holds any
            return store * 0.5 * OPPONENT_CARD if game.hand[p] else 0.0
        best = max((PRESTIGE[h] + SUMMON[h] for h in game.hand[p]), default=0.0)
        return store * 0.5 * best
    return 0.0


def threats(game: Game, p: int, clock: Clock) -> float:
    """Crystals the opponents' cards will take from ``p`` (Figrim, Titus, Kairn)."""
    lost = 0.0
    for q in OPPONENTS[game.num_players][p]:
        cards = clock.cards[q]
        if THREAT_CARDS.isdisjoint(cards):
            continue
        for c in cards:
            if c == FIGRIM:
                lost += FIGRIM_CRYSTALS * clock.season_changes
            elif c == TITUS:
                lost += TITUS_CRYSTALS * clock.round_ends
            elif c == KAIRN:
                lost += KAIRN_USE * KAIRN_CRYSTALS * clock.rounds_after
    return min(lost, game.crystals[p] + 2.0 * clock.rounds_after)
