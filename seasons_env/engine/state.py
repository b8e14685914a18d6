"""The position: its fields, its copies and the mutators the rules and the cards change it with.

A position is a handful of flat fields (per-seat lists indexed by seat, of ints and tuples, so that a shallow
copy is a deep one) plus the stack of pending steps (``steps.py``). ``State`` holds them and the small,
rule-free operations every rule uses (gain crystals, add tokens, draw a card, a card leaves play, ...). The
rules that read and advance a position live above it: ``flow.py`` and ``payment.py``, the cards in
``cards_basic.py`` and ``cards_archmage.py``, and ``machine.Game``, which adds the run loop and the public API.

Chance comes only from the position's own counter-based stream (``chance``, ``chance.py``): a key and a draw
count, copied by ``clone()``, so a clone never disturbs its original and draws the same dice.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from . import steps
from .behaviour import BEHAVIOUR
from .chance import Chance, LegacyChance
from .data import (
    BONUS_PENALTIES,
    CARD_OF,
    CARDS,
    ENERGIES,
    GAUGE_MAX,
    HAND_PENALTY,
    NUM_YEARS,
    PRESTIGE,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    SEASONS,
    Card,
    instance_of,
    season_of,
)

# Turn flags (bits of State.turn_flags), reset at each turn's start.
TRANSMUTE_ABILITY = 1
TRANSMUTE_BONUS_USED = 2

#: The two physical copies of Amulet of Water: token sources 1 and 2 besides the reserve (source 0).
AMULET_INSTANCES = (instance_of(Card.AMULET_OF_WATER, 0), instance_of(Card.AMULET_OF_WATER, 1))
# First instances (copy 0; copy 1 is the next id) of cards read on every turn menu, as plain ints.
_LEECH0 = instance_of(Card.ARCANO_LEECH, 0)
_HAND_OF_FORTUNE0 = instance_of(Card.HAND_OF_FORTUNE, 0)
_ELEMENTAL_AMULET = int(Card.ELEMENTAL_AMULET)
#: Summoning costs by player count, indexed by card id (``CARDS[card].cost[n]``).
_COSTS = {n: (None, *(CARDS[c].cost[n] for c in range(1, len(CARDS) + 1))) for n in (2, 3, 4)}
ZERO4 = (0, 0, 0, 0)

GAIN_ENERGY = steps.kind("gain_energy")
ENTER_PLAY = steps.kind("enter_play")
SEASON_CHANGE = steps.kind("season_change")
JOIN_LIBRARY = steps.kind("join_library")
NEXT_ROUND = steps.kind("next_round")
GAME_END = steps.kind("game_end")


def check_choice(field: str, value: object, choices: Sequence[str | None]) -> None:
    """Raise a ``ValueError`` naming ``field`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        shown = ", ".join("None" if c is None else str(c) for c in choices)
        raise ValueError(f"{field} must be one of {shown}; got {value!r}")


def check_num_players(value: object, what: str = "num_players") -> int:
    """``value`` as an int if it is 2, 3 or 4 (not a bool); else a ``ValueError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in (2, 3, 4):
        raise ValueError(f"{what} must be 2, 3 or 4; got {value!r}")
    return int(value)


class State:
    """The fields of a position of Seasons and its rule-free mutators (``docs/state_format.md``)."""

    __slots__ = (
        "_legal",
        "_overflow_check",
        "bonuses_used",
        "chance",
        "crystals",
        "deferred_tokens",
        "dice_season",
        "discard_pile",
        "draft_pack",
        "draft_seen",
        "draw_pile",
        "final_scores",
        "first_player",
        "game_dice",
        "gauge",
        "hand",
        "in_play",
        "level",
        "library",
        "limbo",
        "num_players",
        "orb_seen",
        "position",
        "reserve",
        "rolled",
        "stack",
        "stored",
        "tapped",
        "turn_flags",
        "turn_player",
        "year",
    )

    @classmethod
    def blank(cls, num_players: int, level: str, chance: Chance | LegacyChance) -> State:
        """A position with every zone empty and no pending step (``Game.new`` and ``from_dict`` fill it)."""
        game = cls.__new__(cls)
        n = num_players
        game.num_players = n
        game.level = level
        game.year = 1
        game.position = 1
        game.first_player = 0
        game.turn_player = -1
        game.turn_flags = 0
        game.game_dice = tuple(tuple(range(n + 1)) for _ in SEASONS)
        game.rolled = ()
        game.dice_season = 0
        game.crystals = [0] * n
        game.gauge = [0] * n
        game.bonuses_used = [0] * n
        game.reserve = [ZERO4] * n
        game.hand = [()] * n
        game.library = [((), ())] * n
        game.in_play = [()] * n
        game.draft_pack = [()] * n
        game.draft_seen = [0] * n
        game.tapped = 0
        game.stored = {}
        game.draw_pile = []
        game.discard_pile = []
        game.limbo = []
        game.deferred_tokens = ()
        game.orb_seen = ()
        game.stack = []
        game.final_scores = None
        game.chance = chance
        game._legal = []
        game._overflow_check = False
        return game

    def clone(self) -> State:
        """An independent copy (its chance stream too: the same draws come next in both)."""
        other = type(self).__new__(type(self))
        other.num_players = self.num_players
        other.level = self.level
        other.year = self.year
        other.position = self.position
        other.first_player = self.first_player
        other.turn_player = self.turn_player
        other.turn_flags = self.turn_flags
        other.game_dice = self.game_dice
        other.rolled = self.rolled
        other.dice_season = self.dice_season
        other.crystals = self.crystals[:]
        other.gauge = self.gauge[:]
        other.bonuses_used = self.bonuses_used[:]
        other.reserve = self.reserve[:]
        other.hand = self.hand[:]
        other.library = self.library[:]
        other.in_play = self.in_play[:]
        other.draft_pack = self.draft_pack[:]
        other.draft_seen = self.draft_seen[:]
        other.tapped = self.tapped
        other.stored = self.stored.copy()
        other.draw_pile = self.draw_pile[:]
        other.discard_pile = self.discard_pile[:]
        other.limbo = self.limbo[:]
        other.deferred_tokens = self.deferred_tokens
        other.orb_seen = self.orb_seen
        other.stack = self.stack[:]
        other.final_scores = self.final_scores
        other.chance = self.chance.copy()
        other._legal = self._legal
        other._overflow_check = self._overflow_check
        return other

    __copy__ = clone

    def __deepcopy__(self, memo: dict) -> State:
        return self.clone()

    def set_chance(self, chance: Chance | LegacyChance) -> None:
        """Give the position a chance stream of its own (future dice and shuffles come from it)."""
        self.chance = chance

    # ------------------------------------------------------------------ reads
    @property
    def is_over(self) -> bool:
        return self.final_scores is not None

    @property
    def current_player(self) -> int:
        """Seat that must decide now; -1 once the game is over."""
        return self.stack[-1][1] if self.stack else -1

    @property
    def season(self) -> int:
        return season_of(self.position)

    def opponents(self, player: int) -> list[int]:
        """Other seats in turn order, starting from the player's left."""
        n = self.num_players
        return [(player + k) % n for k in range(1, n)]

    def turn_order(self) -> list[int]:
        """All seats in turn order from the first player."""
        n = self.num_players
        return [(self.first_player + k) % n for k in range(n)]

    def count_in_play(self, player: int, card: int) -> int:
        lo = 2 * (card - 1)  # a card's two copies are instances lo and lo + 1; an instance is in play once at most
        held = self.in_play[player]
        return (lo in held) + (lo + 1 in held)

    def reserve_limit(self, player: int) -> int:
        return RESERVE_LIMIT_GRIMOIRE if self.count_in_play(player, Card.BESPELLED_GRIMOIRE) else RESERVE_LIMIT

    def amulet_sources(self, player: int) -> list[int]:
        """Action source indices (1, 2) of the player's Amulets of Water in play."""
        return [k + 1 for k, inst in enumerate(AMULET_INSTANCES) if inst in self.in_play[player]]

    def tokens_at(self, player: int, source: int) -> tuple[int, int, int, int]:
        if source == 0:
            return self.reserve[player]
        return self.stored.get(AMULET_INSTANCES[source - 1], ZERO4)

    def spendable(self, player: int) -> list[int]:
        """Tokens the player may spend by type: reserve plus Amulet of Water tokens."""
        total = list(self.reserve[player])
        for inst in AMULET_INSTANCES:
            if inst in self.in_play[player]:
                stored = self.stored.get(inst, ZERO4)
                for t in range(4):
                    total[t] += stored[t]
        return total

    def has_room(self, player: int) -> bool:
        """Can the player put one more card into play (gauge above the cards in play)?"""
        return self.gauge[player] > len(self.in_play[player])

    def can_transmute(self, player: int) -> bool:
        """Is it ``player``'s turn, with the ability to transmute (from its die, a bonus or Tree of Light)?"""
        return self.turn_player == player and bool(self.turn_flags & TRANSMUTE_ABILITY)

    def used_transmute_bonus(self, player: int) -> bool:
        """Is it ``player``'s turn, after it used the transmute bonus (+1 crystal per token this turn)?"""
        return self.turn_player == player and bool(self.turn_flags & TRANSMUTE_BONUS_USED)

    def transmute_bonus(self, player: int) -> int:
        """Extra crystals per token transmuted: Purse of Io copies, +1 with the transmute bonus this turn."""
        extra = self.count_in_play(player, Card.PURSE_OF_IO)
        if self.used_transmute_bonus(player):
            extra += 1
        return extra

    # ------------------------------------------------------------------ rules reads

    def summon_cost(self, player: int, card: int) -> tuple[int, int, int, int, int]:
        return CARDS[card].cost[self.num_players]

    def leech_toll(self, player: int) -> int:
        """Crystals the player must give to opponents' Arcano Leeches before summoning from hand."""
        n = self.num_players
        toll = 0
        for k in range(1, n):
            held = self.in_play[(player + k) % n]
            toll += (_LEECH0 in held) + (_LEECH0 + 1 in held)
        return toll

    def summonable_from_hand(self, player: int, cards: Sequence[int]) -> list[int]:
        """The cards of ``cards`` the player can summon from hand now (the reads shared by all of them once)."""
        if not self.has_room(player):
            return []
        budget = self.crystals[player] - self.leech_toll(player)
        available = self.spendable(player)
        held = self.in_play[player]
        hands = (_HAND_OF_FORTUNE0 in held) + (_HAND_OF_FORTUNE0 + 1 in held)
        held_types = 4 - available.count(0)
        costs = _COSTS[self.num_players]
        out = []
        for card in cards:
            cost = costs[card]
            if budget < cost[4]:
                continue
            if card == _ELEMENTAL_AMULET:
                if held_types:
                    out.append(card)
                continue
            total = cost[0] + cost[1] + cost[2] + cost[3]
            deficit = 0
            for need, have in zip(cost[:4], available, strict=True):
                if need > have:
                    deficit += need - have
            if deficit == 0 or deficit <= (min(hands, total - 1) if total > 1 else 0):
                out.append(card)
        return out

    def score(self, player: int) -> int:
        """The player's score if the game ended now (before end-of-game effects)."""
        return (
            self.crystals[player]
            + sum(PRESTIGE[CARD_OF[i]] for i in self.in_play[player])
            - HAND_PENALTY * len(self.hand[player])
            - BONUS_PENALTIES[self.bonuses_used[player]]
        )

    # ------------------------------------------------------------------ mutators

    def push(self, *tasks: tuple) -> None:
        """Schedule steps to run next, in the order given (the first listed runs first)."""
        self.stack.extend(reversed(tasks))

    def request_overflow_check(self) -> None:
        """Tokens entered a reserve: the reserve limit is applied before any other step runs."""
        self._overflow_check = True

    def gain_crystals(self, player: int, amount: int) -> None:
        self.crystals[player] += amount

    def lose_crystals(self, player: int, amount: int) -> int:
        """Take up to ``amount`` crystals (never below 0); returns how many were taken."""
        lost = min(amount, self.crystals[player])
        self.crystals[player] -= lost
        return lost

    def transfer_crystals(self, giver: int, receiver: int, amount: int) -> int:
        moved = self.lose_crystals(giver, amount)
        self.crystals[receiver] += moved
        return moved

    def add_gauge(self, player: int, amount: int) -> None:
        self.gauge[player] = max(0, min(GAUGE_MAX, self.gauge[player] + amount))

    def add_tokens(self, player: int, tokens: Sequence[int]) -> None:
        """Tokens into the reserve; the overflow rule is applied before anything else happens."""
        r = self.reserve[player]
        self.reserve[player] = (r[0] + tokens[0], r[1] + tokens[1], r[2] + tokens[2], r[3] + tokens[3])
        self._overflow_check = True

    def add_token(self, player: int, energy: int, amount: int = 1) -> None:
        r = list(self.reserve[player])
        r[energy] += amount
        self.reserve[player] = tuple(r)
        self._overflow_check = True

    def remove_token(self, player: int, energy: int, amount: int = 1) -> None:
        r = list(self.reserve[player])
        if r[energy] < amount:
            raise AssertionError(f"player {player} has {r[energy]} {ENERGIES[energy]}, cannot remove {amount}")
        r[energy] -= amount
        self.reserve[player] = tuple(r)

    def gain_tokens_of_choice(self, player: int, count: int, onto: int = -1) -> None:
        """Schedule ``count`` decisions 'gain 1 token of your choice' (onto the reserve, or a card instance)."""
        if count > 0:
            self.push((GAIN_ENERGY, player, count, onto, 0))

    def spend_token(self, player: int, source: int, energy: int) -> None:
        if source == 0:
            self.remove_token(player, energy)
            return
        inst = AMULET_INSTANCES[source - 1]
        stored = list(self.stored[inst])
        if stored[energy] <= 0:
            raise AssertionError("no such token on Amulet of Water")
        stored[energy] -= 1
        self.stored[inst] = tuple(stored)

    def store_token(self, instance: int, energy: int) -> None:
        stored = list(self.stored.get(instance, ZERO4))
        stored[energy] += 1
        self.stored[instance] = tuple(stored)

    def hand_add(self, player: int, card: int) -> None:
        self.hand[player] = tuple(sorted((*self.hand[player], card)))

    def hand_remove(self, player: int, card: int) -> None:
        hand = list(self.hand[player])
        hand.remove(card)
        self.hand[player] = tuple(hand)

    def draw(self) -> int | None:
        """Top card of the draw pile (reshuffling the discard pile when empty), or None if both are empty."""
        if not self.draw_pile:
            if not self.discard_pile:
                return None
            pile = self.discard_pile
            self.draw_pile = [pile[i] for i in self.chance.permutation(len(pile))]
            self.discard_pile = []
        self.orb_seen = ()  # what a Crystal Orb showed is no longer the top card
        return self.draw_pile.pop()

    def draw_into_limbo(self, count: int) -> tuple[int, ...]:
        """Draw up to ``count`` cards that await a choice (they are out of every zone until then)."""
        drawn = []
        for _ in range(count):
            card = self.draw()
            if card is None:
                break
            drawn.append(card)
        self.limbo.extend(drawn)
        return tuple(drawn)

    def from_limbo(self, card: int) -> int:
        self.limbo.remove(card)
        return card

    def discard(self, card: int) -> None:
        self.discard_pile.append(card)

    def put_into_play_free(self, player: int, card: int) -> None:
        """Put a card (already in limbo) into play for free; without room it is discarded (Divine Chalice)."""
        if self.has_room(player):
            self.push((ENTER_PLAY, player, card, 0, 0b1111))
        else:
            self.discard(self.from_limbo(card))

    def leave_play(self, player: int, instance: int, to_hand: bool = False) -> None:
        """A card leaves play: sacrificed (to the discard pile) or returned to its owner's hand."""
        in_play = list(self.in_play[player])
        in_play.remove(instance)
        self.in_play[player] = tuple(in_play)
        self.tapped &= ~(1 << instance)
        self.stored.pop(instance, None)
        card = CARD_OF[instance]
        if to_hand:
            self.hand_add(player, card)
        else:
            self.discard(card)
        BEHAVIOUR[card].on_leave(self, player, instance, not to_hand)

    def sacrifice(self, player: int, instance: int) -> None:
        self.leave_play(player, instance, to_hand=False)

    def move_marker(self, spaces: int, by_boots: bool) -> None:
        """Move the season marker (negative = backward) and schedule what the move triggers.

        Temporal Boots change the year at once (RULES.md 8.7); at the end of a round the year advances only
        after the season-change effects (RULES.md 4.5), in the ``join_library`` step. Every season the Boots
        change triggers season-change effects, past the end of year 3 too (ruling C1); the end-of-round move
        that crosses 12 in year 3 ends the game at the crossing, without them (RULES.md 4.5.3).
        """
        old_year, old_season = self.year, self.season
        absolute = (self.year - 1) * 12 + (self.position - 1) + spaces
        if absolute < 0:
            raise AssertionError("the marker cannot go back before year 1 space 1")
        new_year, self.position = absolute // 12 + 1, absolute % 12 + 1
        changed = (old_year, old_season) != (new_year, self.season)
        if by_boots or new_year > NUM_YEARS:
            self.year = new_year
        tasks: list[tuple] = []
        if changed and (by_boots or new_year <= NUM_YEARS):
            tasks.extend((SEASON_CHANGE, p, int(by_boots)) for p in self.turn_order())
        if old_year < new_year <= NUM_YEARS:
            tasks.append((JOIN_LIBRARY, 0, new_year))
        if not by_boots:
            tasks.append((GAME_END, 0) if new_year > NUM_YEARS else (NEXT_ROUND, 0))
        self.push(*tasks)
