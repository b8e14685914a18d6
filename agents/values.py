"""What the heuristic player knows, as data: card values, die-action values, token values, evaluation weights.

Everything is in crystal-equivalents (1 = one point of final score). ``agents/heuristic.py`` reads these
tables; what it keeps beside its formulas are the games' own numbers (a card's yield: 3 crystals a summon
for Staff of Spring, 4 per token for Potion of Life) and the shapes of its few estimates (how a wait or a
shortage is spread over the rounds left).

* ``CARDS``: one row per card (1..50): draft value, when the card pays off (which library set it belongs
  to), its net summoning-gauge requirement, the value of its on-summon effect, its value per round in play
  and its library-split preferences. ``DRAFT_GAUGE``/``DRAFT`` and ``SPLIT`` tune the draft and the split.
* ``DIE``: die-action values (energy, crystal, gauge, transmute, draw, pips) for the faces an opponent may
  take, and the weight of a drawn card; the seat's own face and the pace the leftover die sets are valued by
  the evaluation.
* ``TOKENS``: how a token's worth is derived (season rates, chance of a transmute, end value), and
  ``token_values(...)``, the resulting table of token values by season (by space of the wheel).
* ``EVAL``: the weights of the position evaluation.

The evaluation copies ``EVAL`` and ``TOKENS`` into constants when ``agents/heuristic_cards.py`` is imported
(it reads them in every evaluation): change them before that import, not during play.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from seasons_env.engine import card_constants as K
from seasons_env.engine.data import HAND_PENALTY, NUM_YEARS, TRANSMUTE_RATE

EARLY, MID, LATE = 0, 1, 2
"""When a card pays off: its library set (0 = the hand of year 1, 1 = year 2, 2 = year 3)."""


class CardValue(NamedTuple):
    """One card's row.

    ``draft``: value of owning the card (score points, for the margin over the opponent), the draft's base
    score; fitted on heuristic-vs-heuristic archmage games with random drafts (a ridge regression of the final
    margin on the cards each side held), so it says what the card is worth *to this player*.
    ``when``: ``EARLY``, ``MID`` or ``LATE``, when the card pays off: the year whose library set suits it best.
    ``gauge``: net summoning-gauge slots the card needs over the game (1 for most cards; less for cards that
    raise the gauge or leave play by themselves). The draft keeps the total over 9 cards near ``DRAFT_GAUGE``.
    ``summon``: typical value of its on-summon effect (for a potion: of its activation), prestige and cost
    excluded; the evaluation uses it for cards still in hand, and replaces it by the exact value for a few
    cards whose effect depends on the position (Scepter of Greatness, Pendant of Ragnor, Lewis Greyface).
    ``income``: value per round left while the card is in play (activations, end-of-round and season
    effects), for the cards whose value in play is not computed from the position by the evaluation.
    ``split``: how much better the card does in the hand (year 1), the year-2 set and the year-3 set, from the
    same kind of fit with random library splits, shrunk toward ``when``; ``when`` is its best year.
    """

    draft: float
    when: int
    gauge: float
    summon: float
    income: float
    split: tuple[float, float, float]


CARDS: dict[int, CardValue] = {
    1: CardValue(9.5, MID, -1.0, 0.0, 0.0, (0.0, 0.3, -0.3)),  # Amulet of Air: gauge +2
    2: CardValue(10.2, EARLY, 1.0, 6.0, 0.0, (0.3, 0.1, -0.5)),  # Amulet of Fire: best of 4 cards
    3: CardValue(11.5, LATE, 1.0, 9.0, 0.0, (-0.2, -0.2, 0.3)),  # Amulet of Earth: +9
    4: CardValue(14.3, MID, 1.0, 8.0, 0.0, (-0.5, 1.5, -1.0)),  # Amulet of Water: 4 tokens
    5: CardValue(9.7, MID, 1.0, 0.0, 1.5, (-0.7, 0.4, 0.3)),  # Balance of Ishtar: 3 identical tokens -> 9
    6: CardValue(12.6, EARLY, 1.0, 0.0, 0.0, (1.6, 1.1, -2.7)),  # Staff of Spring: +3 per later summon (computed)
    7: CardValue(11.9, LATE, 1.0, 2.0, 0.0, (-1.4, -0.0, 1.4)),  # Temporal Boots: free, 8 prestige
    8: CardValue(10.4, EARLY, 1.0, 0.0, 0.8, (1.2, -1.1, -0.1)),  # Purse of Io: +1 per token transmuted
    9: CardValue(11.2, EARLY, 1.0, 9.0, 0.0, (0.3, 0.3, -0.6)),  # Divine Chalice: a free card
    10: CardValue(8.0, MID, 1.0, 7.0, 0.0, (0.7, 1.2, -1.9)),  # Syllas the Faithful: each opponent sacrifices a card
    11: CardValue(12.6, EARLY, 1.0, 0.0, 0.0, (1.1, -0.6, -0.4)),  # Figrim: 1 per opponent per season (computed)
    12: CardValue(10.7, LATE, 1.0, 5.0, 0.0, (-1.0, 0.2, 0.8)),  # Naria the Prophetess
    13: CardValue(14.7, EARLY, 1.0, 0.0, 0.0, (3.4, 0.8, -4.2)),  # Wondrous Chest: +3 a round with 4+ tokens (computed)
    14: CardValue(9.7, LATE, 1.0, 0.0, 0.8, (0.0, -0.5, 0.4)),  # Beggar's Horn
    15: CardValue(15.6, MID, 1.0, 0.0, 2.3, (-0.2, 1.0, -0.9)),  # Die of Malice: +2 and a reroll each round
    16: CardValue(9.1, EARLY, 1.0, 0.0, 0.0, (0.6, 0.4, -1.1)),  # Kairn the Destroyer: 1 token -> opponents lose 4
    17: CardValue(8.9, EARLY, 1.0, 2.0, 0.0, (0.7, -0.8, 0.2)),  # Amsug Longneck
    18: CardValue(14.3, EARLY, 1.0, 4.0, 0.3, (1.1, 1.0, -2.1)),  # Bespelled Grimoire: 2 tokens, limit 10
    19: CardValue(8.6, LATE, 1.0, 0.0, 0.0, (-0.5, -0.7, 1.2)),  # Ragfield's Helm: +20 with the most cards (computed)
    20: CardValue(13.4, MID, 1.0, 0.0, 0.8, (1.1, 1.4, -2.6)),  # Hand of Fortune
    21: CardValue(9.9, LATE, 1.0, 5.0, 0.0, (-1.0, -0.7, 1.8)),  # Lewis Greyface (computed)
    22: CardValue(11.9, LATE, 1.0, 0.0, 0.0, (-0.6, -1.2, 1.8)),  # Runic Cube of Eolis: 30 prestige for 20 crystals
    23: CardValue(7.8, EARLY, -2.0, 6.0, 0.0, (0.6, 0.2, -0.8)),  # Potion of Power: a card and gauge +2, frees its slot
    24: CardValue(8.6, LATE, 0.0, 5.0, 0.0, (-0.2, -0.0, 0.2)),  # Potion of Dreams
    25: CardValue(8.9, LATE, 0.0, 9.0, 0.0, (-0.7, -0.6, 1.3)),  # Potion of Knowledge: 5 tokens
    26: CardValue(4.7, LATE, 0.0, 12.0, 0.0, (-1.1, 0.2, 1.0)),  # Potion of Life: 4 per token
    27: CardValue(7.7, EARLY, 1.0, 0.0, 0.0, (2.7, 0.1, -2.8)),  # Hourglass of Time: a token per season (computed)
    28: CardValue(8.2, LATE, 1.0, 9.0, 0.0, (-0.8, -1.1, 1.9)),  # Scepter of Greatness: 3 per other item (computed)
    29: CardValue(12.6, MID, 1.0, 20.0, 0.0, (0.2, 0.8, -1.0)),  # Olaf's Blessed Statue: +20
    30: CardValue(13.0, EARLY, 1.0, 0.0, 0.0, (2.8, 0.2, -3.0)),  # Vase: a token per later summon (computed)
    31: CardValue(9.4, LATE, 0.5, 8.0, 0.0, (-0.5, -0.2, 0.7)),  # Elemental Amulet
    32: CardValue(10.5, MID, 1.0, 0.0, 1.0, (-0.3, 0.5, -0.1)),  # Tree of Light
    33: CardValue(14.9, EARLY, 1.0, 0.0, 0.5, (0.6, 0.0, -0.6)),  # Arcano Leech (per opponent)
    34: CardValue(8.5, EARLY, 1.0, 0.0, 0.4, (0.3, -0.2, -0.1)),  # Crystal Orb
    35: CardValue(7.6, EARLY, 0.3, 0.0, 0.0, (1.1, -0.5, -0.6)),  # Glutton Cauldron (computed)
    36: CardValue(8.6, LATE, 1.0, 6.0, 0.0, (-1.3, -0.2, 1.6)),  # Vampiric Crown
    37: CardValue(6.2, LATE, 1.0, 4.0, 0.0, (-1.1, -1.0, 2.1)),  # Dragon Skull
    38: CardValue(6.9, MID, 1.0, 3.0, 0.0, (-0.7, 0.5, 0.2)),  # Demon of Argos: 16 prestige
    39: CardValue(11.1, MID, 1.0, 0.0, 0.0, (-0.5, 0.3, 0.2)),  # Titus Deepgaze: 1 per opponent per round (computed)
    40: CardValue(7.8, LATE, 1.0, 3.0, 0.0, (-0.0, -0.9, 1.0)),  # Air Elemental: 12 prestige
    41: CardValue(13.6, MID, 1.0, 0.0, 0.6, (-0.6, 0.5, 0.0)),  # Thieving Fairies (per opponent)
    42: CardValue(12.0, MID, 0.0, 14.0, 0.0, (-0.0, 0.4, -0.4)),  # Cursed Treatise of Arus: +10, 2 tokens, gauge +1
    43: CardValue(8.2, EARLY, 1.0, 10.0, 0.0, (0.1, 0.1, -0.2)),  # Idol of the Familiar (activation computed)
    44: CardValue(8.4, EARLY, 1.0, 0.0, 0.5, (0.1, -0.1, -0.0)),  # Necrotic Kriss
    45: CardValue(2.9, LATE, 1.0, 0.0, 0.0, (-0.3, -0.7, 1.0)),  # Lantern of Xidit: 24 prestige, 3 per token at the end
    46: CardValue(4.2, LATE, 1.0, 0.0, 0.0, (-0.4, -2.1, 2.6)),  # Sealed Chest of Urm: +20 with no familiar (computed)
    47: CardValue(10.7, LATE, 1.0, 0.0, 0.5, (-1.6, 0.4, 1.2)),  # Mirror of the Seasons
    48: CardValue(7.9, LATE, 1.0, 4.0, 0.0, (-0.9, -1.3, 2.2)),  # Pendant of Ragnor (computed)
    49: CardValue(9.8, LATE, 1.0, 4.0, 0.0, (-1.8, 0.5, 1.3)),  # Sid Nightshade
    50: CardValue(10.6, LATE, 1.0, 12.0, 0.0, (-1.2, 0.2, 1.0)),  # Damned Soul: +10 and a water, -3 a round (computed)
}

DRAFT_GAUGE = 7.5
"""Target total of ``CardValue.gauge`` over the 9 drafted cards."""

DRAFT = {
    "gauge_over": 3.0,  # penalty per gauge slot a pick would demand beyond the budget
    "familiar_with_chest": -4.0,  # a familiar when a Sealed Chest of Urm is already picked (and vice versa)
}
"""Adjustments of the draft's per-card score (``CardValue.draft``). Taking a card also keeps it from the
next player: the fitted values are margins over the opponent, so that is already in them."""

SPLIT = {
    "cost_year1": -0.6,  # per token of energy cost in the year-1 hand beyond 6 in all
    "cheap_year1": 2.0,  # the year-1 hand should hold a card costing at most 2 tokens
}
"""Library split: the plan maximizes the cards' ``split`` preferences plus these terms for the year-1 hand."""

DIE = {
    # An opponent's face, valued from public facts (their hand is hidden): the next chooser is expected to take
    # the face these values rank first, which also decides the leftover die and so the pace.
    "energy": 2.5,  # per token that fits in the reserve
    "crystal": 1.0,  # per crystal
    "gauge": 3.0,  # the star
    "transmute": 1.0,  # the transmute symbol
    "transmute_token": 0.5,  # ... and per token already held
    "draw_card": 2.0,  # the card symbol
    # The seat's own face is valued by the evaluation once its symbols are applied; the pace the leftover die
    # sets is in that evaluation (the rounds and seasons left). Only the drawn card is added, at this weight:
    "draw": 1.0,
    # Die of Malice: a reroll is worth the mean face plus its 2 crystals, less the crystal an opponent's
    # Thieving Fairies take; reroll only when that beats the face by a margin.
    "malice_crystals": float(K.DIE_OF_MALICE_CRYSTALS),
    "malice_fairy": 2.0,
    "malice_margin": 0.5,
}
"""Die choice: the table for an opponent's face, the weight of a drawn card for the seat's own face."""

TOKENS = {
    "transmute_chance": 0.45,  # chance of holding the transmute ability in a given future turn
    "end_value": 0.0,  # a token at the end of the game (Lantern of Xidit adds 3 per copy)
    "lantern": float(K.LANTERN_PRESTIGE),
    "shortage": 2.0,  # extra cost per token a hand card needs that the reserve lacks
    "shortage_max": 5.0,  # ... at most, when the card's value per token of its cost is higher
}
"""Token values: a token is worth the expected best transmutation left in the game (``token_values``)."""

EVAL = {
    "opponent_weight": 1.0,  # weight of the best opponent's value (2 players: zero-sum)
    "opponent_mean": 0.5,  # 3-4 players: blend of the best opponent's and the opponents' mean value
    "gauge_per_round": 0.3,  # summoning slots a player gains per round from dice (kept low: a slot is scarce)
    "tokens_per_turn": 2.5,  # at most this many missing tokens of a card's cost can be found per turn
    "energy_per_round": 1.8,  # tokens a player gains per round (the energy budget for summoning costs)
    "opponent_card_energy": 2.5,  # tokens an opponent's unknown card costs
    "hand_delay": (1.0, 1.5),  # a hand card waiting to be summoned loses a fixed part and rounds of its income
    "library_delay": (2.0, 1.5),  # the same for a card still in a library set
    "hand_floor": -float(HAND_PENALTY),  # a card never summoned costs its penalty at the end
    "slot_value": 1.0,  # a free slot with no card waiting for it
    "opponent_card": 7.0,  # an opponent's card in hand or library, when it can still be played
    "opponent_slot": 1.5,  # an opponent's free slot
    "life_horizon": 3.0,  # rounds before the end from which tokens count at Potion of Life's rate
    "potion_store": 0.8,  # share of a potion's best later value that counts while it waits in play
    "cauldron_done": float(K.GLUTTON_CAULDRON_CRYSTALS),
    "helm_bonus": float(K.RAGFIELDS_HELM_PRESTIGE),
    "helm_chance_by_lead": (0.05, 0.15, 0.35, 0.7, 0.9),  # chance of the Helm's bonus, lead in cards -2..+2
    "chest_bonus": float(K.SEALED_CHEST_PRESTIGE),
    "chest_chance_in_play": (0.1, 0.9),  # Sealed Chest of Urm's bonus, with / without a familiar in play
    "chest_chance_in_hand": (0.15, 0.7),  # ... for a Chest still in hand
    "wondrous_chest_full": 0.8,  # chance of 4+ tokens at a round's end when the reserve holds 4+ now
    "wondrous_chest_short": 0.4,
    "soul_round": float(K.DAMNED_SOUL_LOSS),
    "ability_option": 0.3,  # holding the transmute ability with nothing worth transmuting
    "bonus_left": 4.0,  # an unused bonus (it can still become a gauge or a transmutation)
    "inflow_room": 2,  # places of the reserve left for the tokens coming next
    "forced_share": 0.5,  # worth of a token in those places (it will be spent or lost soon), as a share
    "kairn_use": 0.5,  # chance a Kairn is used in a round (a token for 4 crystals from each opponent)
}
"""Weights of the position evaluation (``seasons_agents.heuristic.evaluate``)."""


def expected_rounds(spaces: int) -> float:
    """Expected number of rounds before the marker passes ``spaces`` more spaces (1-3 pips a round)."""
    return _ROUNDS[max(0, min(spaces, 40))]


def _rounds_table() -> tuple[float, ...]:
    table = [0.0] * 41
    for d in range(1, 41):
        table[d] = 1.0 + sum(table[max(0, d - k)] for k in (1, 2, 3)) / 3.0
    return tuple(table)


_ROUNDS = _rounds_table()

END_SPACE = NUM_YEARS * 12
"""Absolute spaces of the wheel over the game (3 years of 12); the game ends when the marker reaches 36."""


@lru_cache(maxsize=64)
def token_values(extra_rate: int = 0, end_value: float = 0.0) -> tuple[tuple[float, float, float, float], ...]:
    """Token worth at the start of a round by absolute space 0..39 (36+ is the end): ``table[space][type]``.

    A token is held until a turn with the transmute ability (chance ``transmute_chance`` each round) in a
    season whose rate (+``extra_rate``, Purse of Io) beats what waiting is worth: the value of optimal
    stopping over the rounds left, with the marker moving 1-3 spaces a round.
    """
    q = TOKENS["transmute_chance"]
    table: list[tuple[float, float, float, float]] = [(end_value,) * 4 for _ in range(END_SPACE + 4)]
    for space in range(END_SPACE - 1, -1, -1):
        season = (space % 12) // 3
        row = []
        for t in range(4):
            later = sum(table[space + k][t] for k in (1, 2, 3)) / 3.0
            rate = TRANSMUTE_RATE[season][t] + extra_rate
            row.append(q * max(rate, later) + (1.0 - q) * later)
        table[space] = tuple(row)
    return tuple(table)


def continuation(extra_rate: int, end_value: float, space: float) -> tuple[float, float, float, float]:
    """Token worth when the next round starts at absolute ``space`` (>= 36: the game is over)."""
    table = token_values(extra_rate, end_value)
    s = int(space)
    if s >= END_SPACE:
        return (end_value,) * 4
    return table[s]
