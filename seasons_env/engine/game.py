"""The rules engine: one ``Game`` object per position, advanced by ``apply(action)``.

The position is a handful of flat fields of ints and tuples (per-player lists indexed by seat), plus a
stack of pending steps (see ``steps.py``). ``apply`` resolves the decision on top of the stack and then runs
automatic steps until the next decision that has more than one legal option; a decision with exactly one
option is applied by the engine, and one with none is skipped (it had nothing to choose from).

Only ``Game``'s own seeded ``numpy.random.Generator`` supplies chance (dice, shuffles). Clones share the
generator copy-on-write, so ``clone()`` is cheap and still never lets a clone disturb its original.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from . import actions as A
from . import steps
from .data import (
    APPRENTICE_DECKS,
    BONUS_PENALTIES,
    CARD_OF,
    CARDS,
    DICE,
    DICE_PER_SEASON,
    ENERGIES,
    FACES_PER_DIE,
    GAUGE_MAX,
    HAND_PENALTY,
    MAX_BONUSES,
    PRESTIGE,
    RESERVE_LIMIT,
    RESERVE_LIMIT_GRIMOIRE,
    SEASONS,
    TRANSMUTE_RATE,
    season_of,
)

LEVELS = ("apprentice", "magician", "archmage")
STATE_FORMAT = "seasons-env/state"
STATE_VERSION = 1
HAND_SIZE = 9
LIBRARY_SET_SIZE = 3
NUM_YEARS = 3

# Card ids the engine itself reads (their passive effects); their behaviour classes live in cards.py.
AMULET_OF_WATER = 4
STAFF_OF_SPRING = 6
PURSE_OF_IO = 8
DIE_OF_MALICE = 15
BESPELLED_GRIMOIRE = 18
HAND_OF_FORTUNE = 20
YJANGS_VASE = 30
ELEMENTAL_AMULET = 31
ARCANO_LEECH = 33
THIEVING_FAIRIES = 41
AMULET_INSTANCES = (2 * (AMULET_OF_WATER - 1), 2 * (AMULET_OF_WATER - 1) + 1)

# Turn flags (bits of Game.turn_flags), reset at each turn's start.
TRANSMUTE_ABILITY = 1
TRANSMUTE_BONUS_USED = 2

ZERO4 = (0, 0, 0, 0)


class IllegalActionError(ValueError):
    """An action that the pending decision does not allow. The game is left unchanged."""


class Game:
    """A position of Seasons and the rules that advance it. See ``docs/state_format.md``."""

    __slots__ = (
        "_legal",
        "_overflow_check",
        "_rng_box",
        "bonuses_used",
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

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, num_players: int = 2, level: str = "magician", seed: int | None = None) -> Game:
        """A new game at its first decision (the draft, or at the Apprentice level the library split)."""
        num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise ValueError(f"seed must be a non-negative int or None; got {seed!r}")
        game = cls._blank(num_players, level, np.random.default_rng(seed))
        rng = game._rng()
        game.game_dice = tuple(
            tuple(sorted(int(d) for d in rng.choice(DICE_PER_SEASON, num_players + 1, replace=False))) for _ in SEASONS
        )
        card_ids = range(1, 51) if level == "archmage" else range(1, 31)
        if level == "apprentice":
            pile = [c for c in card_ids for _ in range(2)]
            for p in range(num_players):
                deck = APPRENTICE_DECKS[p]
                for c in deck:
                    pile.remove(c)
                game.hand[p] = tuple(sorted(deck))
            game.draw_pile = [pile[i] for i in rng.permutation(len(pile))]
            game.stack = [(START_ROUND, 0), *game._library_steps()[::-1]]
        else:
            deck = [c for c in card_ids for _ in range(2)]
            deck = [deck[i] for i in rng.permutation(len(deck))]
            for p in range(num_players):
                game.draft_pack[p] = tuple(sorted(deck[HAND_SIZE * p : HAND_SIZE * (p + 1)]))
            game.draw_pile = deck[HAND_SIZE * num_players :]
            draft: list[tuple] = []
            for _ in range(HAND_SIZE):
                draft.extend((DRAFT_PICK, p) for p in range(num_players))
                draft.append((DRAFT_PASS, 0))
            game.stack = [(START_ROUND, 0), *game._library_steps()[::-1], *draft[::-1]]
        game._run()
        return game

    @classmethod
    def _blank(cls, num_players: int, level: str, rng: np.random.Generator) -> Game:
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
        game._rng_box = [rng, False]
        game._legal = []
        game._overflow_check = False
        return game

    def _library_steps(self) -> list[tuple]:
        tasks = []
        for p in range(self.num_players):
            tasks.extend((LIBRARY_SPLIT, p, 2) for _ in range(LIBRARY_SET_SIZE))
            tasks.extend((LIBRARY_SPLIT, p, 3) for _ in range(LIBRARY_SET_SIZE))
        return tasks

    def clone(self) -> Game:
        """An independent copy; it shares the generator copy-on-write."""
        other = Game.__new__(Game)
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
        box = self._rng_box
        box[1] = True
        other._rng_box = [box[0], True]
        other._legal = self._legal
        other._overflow_check = self._overflow_check
        return other

    __copy__ = clone

    def __deepcopy__(self, memo: dict) -> Game:
        return self.clone()

    def __getstate__(self) -> dict:
        return self.to_dict()

    def __setstate__(self, state: dict) -> None:
        restored = Game.from_dict(state)
        for name in Game.__slots__:
            setattr(self, name, getattr(restored, name))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None  # mutable

    def _rng(self) -> np.random.Generator:
        box = self._rng_box
        if box[1]:  # shared with a clone: take a private copy before drawing
            shared = box[0].bit_generator
            private = type(shared)(0)  # a fixed seed avoids asking the OS for entropy; the state is replaced
            private.state = shared.state
            box[0] = np.random.Generator(private)
            box[1] = False
        return box[0]

    # ------------------------------------------------------------------ public API

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

    @property
    def pending_decision(self) -> str | None:
        """Name of the decision being asked, ``None`` once the game is over."""
        return steps.STEP_KINDS[self.stack[-1][0]].name if self.stack else None

    def pending_task(self) -> tuple | None:
        """The pending decision step ``(kind, player, *args)``."""
        return self.stack[-1] if self.stack else None

    def legal_actions(self) -> np.ndarray:
        """Sorted int64 array of the legal action ids (empty once the game is over)."""
        return np.array(self._legal, dtype=np.int64)

    def legal_action_list(self) -> list[int]:
        """The legal action ids as a sorted Python list (the engine's own copy; do not mutate)."""
        return self._legal

    def apply(self, action: int) -> None:
        """Resolve the pending decision with ``action``; raises ``IllegalActionError`` if it is not legal."""
        if self.final_scores is not None:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise IllegalActionError(f"action must be an int id from the action table, got {action!r}")
        a = int(action)
        if a not in self._legal:
            task = self.stack[-1]
            legal = ", ".join(f"{x} ({A.describe_action(x)})" for x in self._legal)
            label = A.describe_action(a) if 0 <= a < A.NUM_ACTIONS else "not in the action table"
            raise IllegalActionError(
                f"action {action!r} ({label}) is not legal for decision "
                f"{steps.STEP_KINDS[task[0]].name!r} of player {task[1]}; legal: {legal}"
            )
        task = self.stack.pop()
        steps.RESOLVE[task[0]](self, task, a)
        self._run()

    def scores(self) -> list[int]:
        """Final scores once the game is over; before that, the score if it ended now (before end-of-game effects)."""
        if self.final_scores is not None:
            return list(self.final_scores)
        return [self._score(p) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        """Winning seats (several on a shared win); empty while the game runs."""
        if self.final_scores is None:
            return []
        scores = self.final_scores
        best = max(scores)
        tied = [p for p in range(self.num_players) if scores[p] == best]
        most = max(len(self.in_play[p]) for p in tied)
        return [p for p in tied if len(self.in_play[p]) == most]

    # ------------------------------------------------------------------ the machine

    def push(self, *tasks: tuple) -> None:
        """Schedule steps to run next, in the order given (the first listed runs first)."""
        self.stack.extend(reversed(tasks))

    def _run(self) -> None:
        stack = self.stack
        options_of = steps.OPTIONS
        while stack:
            if self._overflow_check:
                self._overflow_check = False
                self._push_overflows()
            task = stack[-1]
            kind = task[0]
            options = options_of[kind]
            if options is None:
                stack.pop()
                steps.RUN[kind](self, task)
                continue
            legal = options(self, task)
            if len(legal) > 1:
                self._legal = legal
                return
            stack.pop()
            if legal:
                steps.RESOLVE[kind](self, task, legal[0])
        self._legal = []
        if self.final_scores is None:
            raise RuntimeError(
                "the pending steps ran out before the game ended: a from_dict position must list the rest of its "
                "round in 'pending' (end with a 'move_marker' step)"
            )

    def _push_overflows(self) -> None:
        for p in range(self.num_players):
            if sum(self.reserve[p]) > self.reserve_limit(p) and not any(
                t[0] == OVERFLOW and t[1] == p for t in self.stack
            ):
                self.stack.append((OVERFLOW, p, 0))

    # ------------------------------------------------------------------ helpers for card behaviours

    def opponents(self, player: int) -> list[int]:
        """Other seats in turn order, starting from the player's left."""
        n = self.num_players
        return [(player + k) % n for k in range(1, n)]

    def turn_order(self) -> list[int]:
        """All seats in turn order from the first player."""
        n = self.num_players
        return [(self.first_player + k) % n for k in range(n)]

    def count_in_play(self, player: int, card: int) -> int:
        lo = 2 * (card - 1)
        return sum(1 for i in self.in_play[player] if i == lo or i == lo + 1)

    def owner_of(self, instance: int) -> int:
        for p in range(self.num_players):
            if instance in self.in_play[p]:
                return p
        return -1

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

    def reserve_limit(self, player: int) -> int:
        return RESERVE_LIMIT_GRIMOIRE if self.count_in_play(player, BESPELLED_GRIMOIRE) else RESERVE_LIMIT

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
            self.draw_pile = [pile[i] for i in self._rng().permutation(len(pile))]
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

    def has_room(self, player: int) -> bool:
        """Can the player put one more card into play (gauge above the cards in play)?"""
        return self.gauge[player] > len(self.in_play[player])

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

    def transmute_bonus(self, player: int) -> int:
        """Extra crystals per token transmuted: Purse of Io copies, +1 with the transmute bonus this turn."""
        extra = self.count_in_play(player, PURSE_OF_IO)
        if self.turn_flags & TRANSMUTE_BONUS_USED and player == self.turn_player:
            extra += 1
        return extra

    def move_marker(self, steps_: int, by_boots: bool) -> None:
        """Move the season marker (negative = backward) and schedule what the move triggers.

        Temporal Boots change the year at once (RULES.md 8.7); at the end of a round the year advances only
        after the season-change effects (RULES.md 4.5), in the ``join_library`` step.
        """
        old_year, old_season = self.year, self.season
        absolute = (self.year - 1) * 12 + (self.position - 1) + steps_
        if absolute < 0:
            raise AssertionError("the marker cannot go back before year 1 space 1")
        new_year, self.position = absolute // 12 + 1, absolute % 12 + 1
        changed = (old_year, old_season) != (new_year, self.season)
        if by_boots or new_year > NUM_YEARS:
            self.year = new_year
        tasks: list[tuple] = []
        if changed and old_year <= NUM_YEARS and new_year <= NUM_YEARS:
            tasks.extend((SEASON_CHANGE, p, int(by_boots)) for p in self.turn_order())
        if old_year < new_year <= NUM_YEARS:
            tasks.append((JOIN_LIBRARY, 0, new_year))
        if not by_boots:
            tasks.append((GAME_END, 0) if new_year > NUM_YEARS else (NEXT_ROUND, 0))
        self.push(*tasks)

    # ------------------------------------------------------------------ rules reads

    def summon_cost(self, player: int, card: int) -> tuple[int, int, int, int, int]:
        return CARDS[card].cost[self.num_players]

    def leech_toll(self, player: int) -> int:
        """Crystals the player must give to opponents' Arcano Leeches before summoning from hand."""
        return sum(self.count_in_play(q, ARCANO_LEECH) for q in self.opponents(player))

    def can_summon_from_hand(self, player: int, card: int) -> bool:
        """Room, the Arcano Leech tolls, the crystal cost and the energy cost (after Hand of Fortune)."""
        return card in self.summonable_from_hand(player, (card,))

    def summonable_from_hand(self, player: int, cards: Sequence[int]) -> list[int]:
        """The cards of ``cards`` the player can summon from hand now (the reads shared by all of them once)."""
        if not self.has_room(player):
            return []
        budget = self.crystals[player] - self.leech_toll(player)
        available = self.spendable(player)
        hands = self.count_in_play(player, HAND_OF_FORTUNE)
        held_types = sum(1 for t in range(4) if available[t])
        n = self.num_players
        out = []
        for card in cards:
            cost = CARDS[card].cost[n]
            if budget < cost[4]:
                continue
            if card == ELEMENTAL_AMULET:
                if held_types:
                    out.append(card)
                continue
            total = cost[0] + cost[1] + cost[2] + cost[3]
            deficit = sum(cost[t] - available[t] for t in range(4) if cost[t] > available[t])
            if deficit == 0 or deficit <= (min(hands, total - 1) if total > 1 else 0):
                out.append(card)
        return out

    def _score(self, player: int) -> int:
        return (
            self.crystals[player]
            + sum(PRESTIGE[CARD_OF[i]] for i in self.in_play[player])
            - HAND_PENALTY * len(self.hand[player])
            - BONUS_PENALTIES[self.bonuses_used[player]]
        )

    # ------------------------------------------------------------------ serialization

    def to_dict(self) -> dict:
        """The whole position as JSON-safe data (``docs/state_format.md``)."""
        players = []
        for p in range(self.num_players):
            players.append(
                {
                    "crystals": self.crystals[p],
                    "reserve": _energy_dict(self.reserve[p]),
                    "summoning_gauge": self.gauge[p],
                    "bonuses_used": self.bonuses_used[p],
                    "hand": list(self.hand[p]),
                    "library": {"year2": list(self.library[p][0]), "year3": list(self.library[p][1])},
                    "in_play": [
                        {
                            "card": CARD_OF[i],
                            "copy": i % 2,
                            "tapped": bool(self.tapped >> i & 1),
                            "tokens": _energy_dict(self.stored[i]) if i in self.stored else None,
                        }
                        for i in self.in_play[p]
                    ],
                    "draft_pack": list(self.draft_pack[p]),
                    "draft_seen": [c for c in range(1, len(CARDS) + 1) if self.draft_seen[p] >> c & 1],
                }
            )
        box_state = self._rng_box[0].bit_generator.state
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "num_players": self.num_players,
            "level": self.level,
            "year": self.year,
            "position": self.position,
            "first_player": self.first_player,
            "turn_player": None if self.turn_player < 0 else self.turn_player,
            "turn": {
                "transmute_ability": bool(self.turn_flags & TRANSMUTE_ABILITY),
                "transmute_bonus_used": bool(self.turn_flags & TRANSMUTE_BONUS_USED),
            },
            "game_dice": {SEASONS[s]: list(d) for s, d in enumerate(self.game_dice)},
            "dice_season": SEASONS[self.dice_season],
            "rolled": [{"die": d, "face": f, "taken_by": o if o >= 0 else None} for d, f, o in self.rolled],
            "players": players,
            "draw_pile": list(self.draw_pile),
            "discard_pile": list(self.discard_pile),
            "limbo": list(self.limbo),
            "deferred_tokens": [list(x) for x in self.deferred_tokens],
            "orb_seen": {"player": self.orb_seen[0], "card": self.orb_seen[1]} if self.orb_seen else None,
            "pending": [_task_to_dict(t) for t in reversed(self.stack)],
            "final_scores": list(self.final_scores) if self.final_scores is not None else None,
            "rng": {
                "bit_generator": box_state["bit_generator"],
                "state": str(box_state["state"]["state"]),
                "inc": str(box_state["state"]["inc"]),
                "has_uint32": box_state["has_uint32"],
                "uinteger": box_state["uinteger"],
            },
        }

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """Rebuild a position from ``to_dict`` data. Every key but ``num_players`` is optional (see the docs)."""
        if not isinstance(d, dict):
            raise ValueError(f"state must be a dict, got {type(d).__name__}")
        if d.get("format", STATE_FORMAT) != STATE_FORMAT or d.get("version", STATE_VERSION) != STATE_VERSION:
            raise ValueError(f"state: unsupported format/version {d.get('format')!r}/{d.get('version')!r}")
        if "num_players" not in d:
            raise ValueError("state: field 'num_players' is required")
        n = check_num_players(d["num_players"], "state: field 'num_players'")
        level = d.get("level", "magician")
        if level not in LEVELS:
            raise ValueError(f"state: field 'level' must be one of {LEVELS}; got {level!r}")
        rng_data = d.get("rng")
        if rng_data is None:
            rng = np.random.default_rng(0)
        else:
            bit_generator = getattr(np.random, rng_data.get("bit_generator", "PCG64"))()
            bit_generator.state = {
                "bit_generator": rng_data.get("bit_generator", "PCG64"),
                "state": {"state": int(rng_data["state"]), "inc": int(rng_data["inc"])},
                "has_uint32": int(rng_data.get("has_uint32", 0)),
                "uinteger": int(rng_data.get("uinteger", 0)),
            }
            rng = np.random.Generator(bit_generator)
        game = cls._blank(n, level, rng)
        game.year = _field_int(d, "year", 1, 1, NUM_YEARS + 1)
        game.position = _field_int(d, "position", 1, 1, 12)
        game.first_player = _field_int(d, "first_player", 0, 0, n - 1)
        turn_player = d.get("turn_player")
        game.turn_player = -1 if turn_player is None else _field_int(d, "turn_player", -1, -1, n - 1)
        turn = d.get("turn", {})
        game.turn_flags = (TRANSMUTE_ABILITY if turn.get("transmute_ability") else 0) | (
            TRANSMUTE_BONUS_USED if turn.get("transmute_bonus_used") else 0
        )
        if "game_dice" in d:
            game.game_dice = tuple(tuple(int(x) for x in d["game_dice"][s]) for s in SEASONS)
            for s, dice in enumerate(game.game_dice):
                if len(dice) != n + 1 or any(not 0 <= x < DICE_PER_SEASON for x in dice):
                    raise ValueError(f"state: game_dice.{SEASONS[s]} must list {n + 1} dice of 0..4; got {dice}")
        rolled = []
        for k, r in enumerate(d.get("rolled", [])):
            die, face, owner = int(r["die"]), int(r["face"]), r.get("taken_by")
            if not (0 <= die < DICE_PER_SEASON and 0 <= face < FACES_PER_DIE):
                raise ValueError(f"state: rolled[{k}] has die {die} / face {face} out of range")
            rolled.append((die, face, -1 if owner is None else int(owner)))
        game.rolled = tuple(rolled)
        dice_season = d.get("dice_season", SEASONS[season_of(game.position)])
        if dice_season not in SEASONS:
            raise ValueError(f"state: field 'dice_season' must be one of {SEASONS}; got {dice_season!r}")
        game.dice_season = SEASONS.index(dice_season)
        players = d.get("players", [{}] * n)
        if len(players) != n:
            raise ValueError(f"state: field 'players' must have {n} entries; got {len(players)}")
        for p, pd in enumerate(players):
            game.crystals[p] = _field_int(pd, "crystals", 0, 0, None, f"players[{p}].")
            game.reserve[p] = _energy_tuple(pd.get("reserve", {}), f"players[{p}].reserve")
            game.gauge[p] = _field_int(pd, "summoning_gauge", 0, 0, GAUGE_MAX, f"players[{p}].")
            game.bonuses_used[p] = _field_int(pd, "bonuses_used", 0, 0, MAX_BONUSES, f"players[{p}].")
            game.hand[p] = tuple(sorted(_cards(pd.get("hand", []), f"players[{p}].hand")))
            library = pd.get("library", {})
            game.library[p] = (
                tuple(sorted(_cards(library.get("year2", []), f"players[{p}].library.year2"))),
                tuple(sorted(_cards(library.get("year3", []), f"players[{p}].library.year3"))),
            )
            game.draft_pack[p] = tuple(sorted(_cards(pd.get("draft_pack", []), f"players[{p}].draft_pack")))
            for c in _cards(pd.get("draft_seen", []), f"players[{p}].draft_seen"):
                game.draft_seen[p] |= 1 << c
            instances = []
            for k, entry in enumerate(pd.get("in_play", [])):
                if isinstance(entry, int):
                    entry = {"card": entry}
                card = _cards([entry["card"]], f"players[{p}].in_play[{k}]")[0]
                copy_ = entry.get("copy")
                if copy_ is None:
                    copy_ = 0 if 2 * (card - 1) not in _all_instances(game, instances) else 1
                inst = 2 * (card - 1) + int(copy_)
                if inst in _all_instances(game, instances):
                    raise ValueError(f"state: players[{p}].in_play[{k}]: copy {copy_} of card {card} already in play")
                instances.append(inst)
                if entry.get("tapped"):
                    game.tapped |= 1 << inst
                if entry.get("tokens") is not None:
                    game.stored[inst] = _energy_tuple(entry["tokens"], f"players[{p}].in_play[{k}].tokens")
                elif card == AMULET_OF_WATER or card in BEHAVIOUR_STORES:
                    game.stored[inst] = ZERO4
            game.in_play[p] = tuple(instances)
        game.draw_pile = _cards(d.get("draw_pile", []), "draw_pile")
        game.discard_pile = _cards(d.get("discard_pile", []), "discard_pile")
        game.limbo = _cards(d.get("limbo", []), "limbo")
        game.deferred_tokens = tuple(tuple(int(v) for v in x) for x in d.get("deferred_tokens", []))
        orb_seen = d.get("orb_seen")
        game.orb_seen = () if orb_seen is None else (int(orb_seen["player"]), int(orb_seen["card"]))
        game.stack = [_task_from_dict(t, n, k) for k, t in enumerate(d.get("pending", []))][::-1]
        scores = d.get("final_scores")
        game.final_scores = tuple(int(s) for s in scores) if scores is not None else None
        if game.final_scores is None and not game.stack:
            raise ValueError("state: field 'pending' is empty but the game is not over (final_scores is null)")
        game._overflow_check = True
        game._run()
        return game

    # ------------------------------------------------------------------ information sets

    def determinize(self, player: int, rng: np.random.Generator) -> Game:
        """A copy in which everything ``player`` cannot see is redrawn at random, consistently with what it saw.

        Opponents' hands, library sets and draft packs, the draw pile's order, the discard pile and the
        cards other players are privately choosing among are pooled and dealt back into the same places
        (same sizes); the top card a Crystal Orb showed ``player`` stays on top. The copy also gets a new
        random generator from ``rng``, so that future dice and shuffles are not the real ones. Everything
        ``player`` may know — its observation — is unchanged (``tests/test_determinize.py``).

        The redraw is uniform over the unseen cards: it does not use what ``player`` inferred from the packs it
        saw during the draft (``draft_seen``) about which cards its opponents kept. Every sample is a position
        the observation allows, but not always one the draft history allows.
        """
        if not 0 <= player < self.num_players:
            raise ValueError(f"player must be a seat 0..{self.num_players - 1}; got {player!r}")
        game = self.clone()
        game._rng_box = [np.random.Generator(np.random.PCG64(int(rng.integers(2**63)))), False]
        # Slots to refill, each a (getter, setter) over a sequence of cards.
        pool: list[int] = []
        slots: list[tuple[str, int, int]] = []  # (zone, index, size)
        for q in range(self.num_players):
            if q == player:
                continue
            for zone, cards in (
                ("hand", game.hand[q]),
                ("library2", game.library[q][0]),
                ("library3", game.library[q][1]),
                ("pack", game.draft_pack[q]),
            ):
                if cards:
                    pool.extend(cards)
                    slots.append((zone, q, len(cards)))
        keep_top = bool(game.orb_seen) and game.orb_seen[0] == player and bool(game.draw_pile)
        draw = game.draw_pile[:-1] if keep_top else game.draw_pile
        pool.extend(draw)
        pool.extend(game.discard_pile)
        private = [k for k, task in enumerate(game.stack) if task[0] in PRIVATE_CARD_STEPS and task[1] != player]
        limbo = list(game.limbo)
        for k in private:
            for c in _task_cards(game.stack[k]):
                limbo.remove(c)
                pool.append(c)
        pool.sort()  # the redraw depends on which cards are unseen, never on where they really are
        order = rng.permutation(len(pool))
        shuffled = [pool[i] for i in order]
        at = 0

        def take(size: int) -> list[int]:
            nonlocal at
            at += size
            return shuffled[at - size : at]

        for zone, q, size in slots:
            cards = tuple(sorted(take(size)))
            if zone == "hand":
                game.hand[q] = cards
            elif zone == "pack":
                game.draft_pack[q] = cards
            else:
                year2, year3 = game.library[q]
                game.library[q] = (cards, year3) if zone == "library2" else (year2, cards)
        new_draw = take(len(draw))
        if keep_top:
            new_draw.append(game.draw_pile[-1])
        game.draw_pile = new_draw
        game.discard_pile = take(len(game.discard_pile))
        for k in private:
            task = game.stack[k]
            cards = take(len(_task_cards(task)))
            limbo.extend(cards)
            game.stack[k] = _with_task_cards(task, cards)
        game.limbo = limbo
        if game.orb_seen and game.orb_seen[0] != player:  # another seat's look: it saw the (new) top card
            game.orb_seen = (game.orb_seen[0], game.draw_pile[-1]) if game.draw_pile else ()
        for k, task in enumerate(game.stack):
            if task[0] == ORB_SEEN_STEP and task[1] != player and game.draw_pile:
                game.stack[k] = (task[0], task[1], game.draw_pile[-1])
        game._run_options()
        return game

    def _run_options(self) -> None:
        """Recompute the legal options of the pending decision (after cards were redrawn)."""
        if self.stack:
            self._legal = steps.OPTIONS[self.stack[-1][0]](self, self.stack[-1])

    def __repr__(self) -> str:
        status = "over" if self.is_over else f"{self.pending_decision} by player {self.current_player}"
        return (
            f"<Game {self.num_players}p {self.level} year {self.year} "
            f"{SEASONS[self.season]} (space {self.position}): {status}>"
        )


# ---------------------------------------------------------------------------- serialization helpers


def check_choice(field: str, value: object, choices: Sequence[str | None]) -> None:
    """Raise a ``ValueError`` naming ``field`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        shown = ", ".join("None" if c is None else str(c) for c in choices)
        raise ValueError(f"{field} must be one of {shown}; got {value!r}")


def check_num_players(value: object, what: str = "num_players") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in (2, 3, 4):
        raise ValueError(f"{what} must be 2, 3 or 4; got {value!r}")
    return int(value)


def _field_int(d: dict, key: str, default: int, lo: int, hi: int | None, prefix: str = "") -> int:
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"state: field '{prefix}{key}' must be an int; got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"state: field '{prefix}{key}' must be in {lo}..{hi if hi is not None else ''}; got {value}")
    return int(value)


def _energy_dict(tokens: Sequence[int]) -> dict[str, int]:
    return {e: int(tokens[i]) for i, e in enumerate(ENERGIES)}


def _energy_tuple(value: dict, what: str) -> tuple[int, int, int, int]:
    if not isinstance(value, dict) or set(value) - set(ENERGIES):
        raise ValueError(f"state: {what} must map energy names {ENERGIES} to counts; got {value!r}")
    tokens = tuple(int(value.get(e, 0)) for e in ENERGIES)
    if min(tokens) < 0:
        raise ValueError(f"state: {what} has a negative count: {value!r}")
    return tokens


def _cards(values: Iterable, what: str) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 1 <= v <= len(CARDS):
            raise ValueError(f"state: {what} must list card ids 1..{len(CARDS)}; got {v!r}")
        out.append(int(v))
    return out


def _all_instances(game: Game, pending: list[int]) -> set[int]:
    return {i for t in game.in_play for i in t} | set(pending)


def _to_json(value: object) -> object:
    return [_to_json(v) for v in value] if isinstance(value, tuple) else value


def _from_json(value: object) -> object:
    return tuple(_from_json(v) for v in value) if isinstance(value, list) else int(value)


def _task_to_dict(task: tuple) -> dict:
    spec = steps.STEP_KINDS[task[0]]
    out = {"step": spec.name, "player": task[1]}
    for name, value in zip(spec.args, task[2:], strict=True):
        out[name] = _to_json(value)
    return out


def _task_from_dict(entry: dict, n: int, k: int) -> tuple:
    name = entry.get("step")
    spec = steps.STEP_BY_NAME.get(name)
    if spec is None:
        raise ValueError(f"state: pending[{k}].step {name!r} is not a known step")
    player = entry.get("player", 0)
    if not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"state: pending[{k}].player must be a seat 0..{n - 1}; got {player!r}")
    missing = [a for a in spec.args if a not in entry]
    if missing:
        raise ValueError(f"state: pending[{k}] ({name}) lacks {', '.join(missing)}")
    return (spec.kind, player, *(_from_json(entry[a]) for a in spec.args))


def _task_cards(task: tuple) -> list[int]:
    """Cards held in limbo by a private decision step (its ``card`` or ``cards`` argument)."""
    spec = steps.STEP_KINDS[task[0]]
    out: list[int] = []
    for name, value in zip(spec.args, task[2:], strict=True):
        if name == "cards":
            out.extend(value)
        elif name == "card":
            out.append(value)
    return out


def _with_task_cards(task: tuple, cards: list[int]) -> tuple:
    spec = steps.STEP_KINDS[task[0]]
    args = list(task[2:])
    at = 0
    for k, name in enumerate(spec.args):
        if name == "cards":
            args[k] = tuple(cards[at : at + len(args[k])])
            at += len(args[k])
        elif name == "card":
            args[k] = cards[at]
            at += 1
    return (task[0], task[1], *args)


# ---------------------------------------------------------------------------- generic steps


def _opt_draft_pick(game: Game, task: tuple) -> list[int]:
    return [A.CHOOSE_CARD0 + c - 1 for c in sorted(set(game.draft_pack[task[1]]))]


def _res_draft_pick(game: Game, task: tuple, action: int) -> None:
    p, card = task[1], A.card_of_choice(action)
    pack = list(game.draft_pack[p])
    pack.remove(card)
    game.draft_pack[p] = tuple(pack)
    game.hand_add(p, card)


def _run_draft_pass(game: Game, task: tuple) -> None:
    packs = game.draft_pack
    n = game.num_players
    for p in range(n):  # what each player saw and passed on (bit c for card c)
        for c in packs[p]:
            game.draft_seen[p] |= 1 << c
    game.draft_pack = [packs[(p - 1) % n] for p in range(n)]


def _opt_library(game: Game, task: tuple) -> list[int]:
    return [A.CHOOSE_CARD0 + c - 1 for c in sorted(set(game.hand[task[1]]))]


def _res_library(game: Game, task: tuple, action: int) -> None:
    p, year, card = task[1], task[2], action - A.CHOOSE_CARD0 + 1
    game.hand_remove(p, card)
    year2, year3 = game.library[p]
    if year == 2:
        year2 = tuple(sorted((*year2, card)))
    else:
        year3 = tuple(sorted((*year3, card)))
    game.library[p] = (year2, year3)


def _run_start_round(game: Game, task: tuple) -> None:
    game.tapped = 0
    rng = game._rng()
    game.dice_season = game.season
    dice = game.game_dice[game.season]
    faces = rng.integers(FACES_PER_DIE, size=len(dice))
    game.rolled = tuple((d, int(f), -1) for d, f in zip(dice, faces, strict=True))
    order = game.turn_order()
    game.push(
        *((CHOOSE_DIE, p) for p in order),
        *((TURN_START, p) for p in order),
        *((ROUND_END_EFFECTS, p) for p in order),
        (MOVE_MARKER, 0),
    )


def _opt_choose_die(game: Game, task: tuple) -> list[int]:
    return [A.TAKE_DIE0 + d for d, _, owner in game.rolled if owner < 0]


def _res_choose_die(game: Game, task: tuple, action: int) -> None:
    die = action - A.TAKE_DIE0
    game.rolled = tuple((d, f, task[1] if d == die else o) for d, f, o in game.rolled)


def die_of(game: Game, player: int) -> tuple[int, int] | None:
    """``(die, face)`` the player took this round."""
    for d, f, o in game.rolled:
        if o == player:
            return d, f
    return None


def _run_turn_start(game: Game, task: tuple) -> None:
    p = task[1]
    game.turn_player = p
    game.turn_flags = 0
    if _untapped_malice(game, p):
        game.push((MALICE_WINDOW, p), (DIE_ACTIONS, p), (TURN, p))
    else:
        game.push((DIE_ACTIONS, p), (TURN, p))


def _untapped_malice(game: Game, player: int) -> list[int]:
    lo = 2 * (DIE_OF_MALICE - 1)
    return [i for i in game.in_play[player] if (i == lo or i == lo + 1) and not game.tapped >> i & 1]


def _opt_malice(game: Game, task: tuple) -> list[int]:
    return [A.USE_DIE] + [A.ACTIVATE_OF_INSTANCE[i] for i in sorted(_untapped_malice(game, task[1]))]


def _res_malice(game: Game, task: tuple, action: int) -> None:
    if action != A.USE_DIE:
        game.push(task)
        activate(game, task[1], A.ACTIVATABLE_INSTANCES[action - A.ACTIVATE0])


def _run_die_actions(game: Game, task: tuple) -> None:
    p = task[1]
    taken = die_of(game, p)
    if taken is None:
        return
    d, f = taken
    face = DICE[game.dice_season][d][f]
    if any(face.energy):
        game.add_tokens(p, face.energy)
    game.crystals[p] += face.crystals
    if face.gauge:
        game.add_gauge(p, 1)
    if face.transmute:
        game.turn_flags |= TRANSMUTE_ABILITY
    if face.draw:
        if game.bonuses_used[p] < MAX_BONUSES and len(game.draw_pile) + len(game.discard_pile) >= 2:
            game.push((DRAW_SYMBOL, p))
        else:
            _draw_for_die(game, p)


def _draw_for_die(game: Game, player: int) -> None:
    drawn = game.draw_into_limbo(1)
    if drawn:
        game.push((KEEP_OR_DISCARD, player, drawn[0]))


def _opt_draw_symbol(game: Game, task: tuple) -> list[int]:
    return [A.DRAW_CARD, A.BONUS_DRAW]


def _res_draw_symbol(game: Game, task: tuple, action: int) -> None:
    p = task[1]
    if action == A.DRAW_CARD:
        _draw_for_die(game, p)
        return
    game.bonuses_used[p] += 1
    drawn = game.draw_into_limbo(2)
    if drawn:
        game.push((KEEP_ONE, p, drawn))


def _opt_keep_or_discard(game: Game, task: tuple) -> list[int]:
    return [A.KEEP_CARD, A.DISCARD_CARD]


def _res_keep_or_discard(game: Game, task: tuple, action: int) -> None:
    card = game.from_limbo(task[2])
    if action == A.KEEP_CARD:
        game.hand_add(task[1], card)
    else:
        game.discard(card)


def _opt_choose_from(game: Game, task: tuple) -> list[int]:
    return [A.CHOOSE_CARD0 + c - 1 for c in sorted(set(task[2]))]


def _res_keep_one(game: Game, task: tuple, action: int) -> None:
    p, cards, keep = task[1], list(task[2]), action - A.CHOOSE_CARD0 + 1
    cards.remove(keep)
    game.hand_add(p, game.from_limbo(keep))
    for c in cards:
        game.discard(game.from_limbo(c))


# Choices whose order cannot change the outcome (several tokens gained, discarded or paid, several cards
# sacrificed) are asked in a fixed order: each step records the smallest option the next choice may take,
# so every outcome is reached by exactly one sequence of decisions (docs/rulings.md, D3).
ENERGY_OPTIONS_FROM = [[A.CHOOSE_ENERGY0 + t for t in range(first, 4)] for first in range(4)]


def _opt_gain_energy(game: Game, task: tuple) -> list[int]:
    return ENERGY_OPTIONS_FROM[task[4]]


def _res_gain_energy(game: Game, task: tuple, action: int) -> None:
    _, p, count, onto, _ = task
    energy = action - A.CHOOSE_ENERGY0
    if onto < 0:
        game.add_token(p, energy)
    elif onto in game.stored:
        game.store_token(onto, energy)
    if count > 1:
        game.push((GAIN_ENERGY, p, count - 1, onto, energy))


def _reserve_energy_options(game: Game, player: int, first: int = 0, count: int = 1) -> list[int]:
    """Reserve types from ``first`` on that can start discarding ``count`` tokens in non-decreasing type order."""
    r = game.reserve[player]
    options = []
    for t in range(first, 4):
        if r[t] and sum(r[t:]) >= count:
            options.append(A.CHOOSE_ENERGY0 + t)
    return options


def _opt_overflow(game: Game, task: tuple) -> list[int]:
    p = task[1]
    excess = sum(game.reserve[p]) - game.reserve_limit(p)
    if excess <= 0:
        return []
    return _reserve_energy_options(game, p, task[2], excess)


def _res_overflow(game: Game, task: tuple, action: int) -> None:
    p = task[1]
    energy = action - A.CHOOSE_ENERGY0
    game.remove_token(p, energy)
    if sum(game.reserve[p]) > game.reserve_limit(p):
        game.push((OVERFLOW, p, energy))


def _opt_exchange_discard(game: Game, task: tuple) -> list[int]:
    return _reserve_energy_options(game, task[1], task[3], task[2])


def _res_exchange_discard(game: Game, task: tuple, action: int) -> None:
    _, p, count, _ = task
    energy = action - A.CHOOSE_ENERGY0
    game.remove_token(p, energy)
    if count > 1:
        game.push((EXCHANGE_DISCARD, p, count - 1, energy))


# --- the turn menu


def _opt_turn(game: Game, task: tuple) -> list[int]:
    p = task[1]
    options = [A.END_TURN]
    bonuses_left = game.bonuses_used[p] < MAX_BONUSES
    if bonuses_left:
        if sum(game.reserve[p]) >= 2:
            options.append(A.BONUS_EXCHANGE)
        if not game.turn_flags & TRANSMUTE_BONUS_USED:
            options.append(A.BONUS_TRANSMUTE)
        if game.gauge[p] < GAUGE_MAX:
            options.append(A.BONUS_GAUGE)
    if game.hand[p]:
        summon0 = A.SUMMON0 - 1
        options.extend(summon0 + c for c in game.summonable_from_hand(p, sorted(set(game.hand[p]))))
    tapped = game.tapped
    for inst in sorted(game.in_play[p]):
        if not tapped >> inst & 1:
            action = A.ACTIVATE_OF_INSTANCE.get(inst)
            if action is not None and BEHAVIOUR[CARD_OF[inst]].can_activate(game, p, inst):
                options.append(action)
    if game.turn_flags & TRANSMUTE_ABILITY:
        r = game.reserve[p]
        options.extend(A.TRANSMUTE0 + t for t in range(4) if r[t])
        for source in game.amulet_sources(p):
            stored = game.tokens_at(p, source)
            options.extend(A.TRANSMUTE0 + 4 * source + t for t in range(4) if stored[t])
    return options


def _res_turn(game: Game, task: tuple, action: int) -> None:
    p = task[1]
    if action == A.END_TURN:
        _end_turn(game, p)
        return
    game.push(task)  # the turn goes on after this action
    if action >= A.TRANSMUTE0 and action < A.TRANSMUTE0 + 12:
        source, energy = divmod(action - A.TRANSMUTE0, 4)
        game.spend_token(p, source, energy)
        game.crystals[p] += TRANSMUTE_RATE[game.season][energy] + game.transmute_bonus(p)
    elif A.SUMMON0 <= action < A.SUMMON0 + 50:
        begin_summon_from_hand(game, p, action - A.SUMMON0 + 1)
    elif A.ACTIVATE0 <= action < A.TRANSMUTE0:
        activate(game, p, A.ACTIVATABLE_INSTANCES[action - A.ACTIVATE0])
    elif action == A.BONUS_EXCHANGE:
        game.bonuses_used[p] += 1
        game.push((EXCHANGE_DISCARD, p, 2, 0), (GAIN_ENERGY, p, 2, -1, 0))
    elif action == A.BONUS_TRANSMUTE:
        game.bonuses_used[p] += 1
        game.turn_flags |= TRANSMUTE_ABILITY | TRANSMUTE_BONUS_USED
    elif action == A.BONUS_GAUGE:
        game.bonuses_used[p] += 1
        game.add_gauge(p, 1)
    else:  # pragma: no cover - options and resolution are written together
        raise AssertionError(f"turn action {action} has no resolution")


def _end_turn(game: Game, player: int) -> None:
    game.turn_flags = 0
    game.turn_player = -1  # between turns nobody's turn is under way (the observation's turn slice is empty)
    deferred, game.deferred_tokens = game.deferred_tokens, ()
    game.push(*((GAIN_ENERGY, q, count, -1, 0) for q, count in deferred))


def activate(game: Game, player: int, instance: int) -> None:
    """Activate a card: it taps, opponents' Thieving Fairies take their due, then its effect resolves."""
    game.tapped |= 1 << instance
    for q in game.opponents(player):
        fairies = game.count_in_play(q, THIEVING_FAIRIES)
        for _ in range(fairies):
            game.transfer_crystals(player, q, 1)
            game.crystals[q] += 1
    BEHAVIOUR[CARD_OF[instance]].activate(game, player, instance)


# --- summoning


def begin_summon_from_hand(game: Game, player: int, card: int) -> None:
    """Summon from hand: Arcano Leech tolls, the crystal cost, then the energy cost, then the card enters."""
    game.hand_remove(player, card)
    game.limbo.append(card)
    for q in game.opponents(player):
        for _ in range(game.count_in_play(q, ARCANO_LEECH)):
            game.transfer_crystals(player, q, 1)
    cost = game.summon_cost(player, card)
    game.crystals[player] -= cost[4]
    if card == ELEMENTAL_AMULET:
        game.push((ELEMENTAL_CHOICE, player))
        return
    need = cost[:4]
    total = sum(need)
    hands = game.count_in_play(player, HAND_OF_FORTUNE)
    waivers = min(hands, total - 1) if total > 1 else 0
    game.push((PAYMENT, player, need, waivers, 0), (ENTER_PLAY, player, card, 1, 0))


def _opt_elemental(game: Game, task: tuple) -> list[int]:
    p = task[1]
    available = game.spendable(p)
    hands = game.count_in_play(p, HAND_OF_FORTUNE)
    options = []
    for mask in range(1, 16):
        types = [t for t in range(4) if mask >> t & 1]
        owned = sum(1 for t in types if available[t])
        if owned >= max(1, len(types) - hands):
            options.append(A.ELEMENTAL_SET0 + mask - 1)
    return options


def _res_elemental(game: Game, task: tuple, action: int) -> None:
    p, mask = task[1], action - A.ELEMENTAL_SET0 + 1
    need = tuple(mask >> t & 1 for t in range(4))
    size = sum(need)
    waivers = min(game.count_in_play(p, HAND_OF_FORTUNE), size - 1)
    game.push((PAYMENT, p, need, waivers, 0), (ENTER_PLAY, p, ELEMENTAL_AMULET, 1, mask))


def _deficit(need: Sequence[int], available: Sequence[int]) -> int:
    return sum(max(0, need[t] - available[t]) for t in range(4))


def _run_payment(game: Game, task: tuple) -> None:
    """Pay an energy cost: Hand of Fortune's savings first, then the tokens, asking only real choices."""
    _, p, need, waivers, first = task
    if waivers and sum(need) > 1:
        options = _waiver_options(game, p, need, waivers, first)
        if len(options) == 1:
            t = options[0] - A.CHOOSE_ENERGY0
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


def _pay_forced(game: Game, player: int, remaining: list[int], energy: int, first_source: int) -> None:
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


def _waiver_options(game: Game, player: int, need: Sequence[int], waivers: int, first: int) -> list[int]:
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
        options.append(A.CHOOSE_ENERGY0 + t)
    return options


def _opt_waive(game: Game, task: tuple) -> list[int]:
    return _waiver_options(game, task[1], task[2], task[3], task[4])


def _res_waive(game: Game, task: tuple, action: int) -> None:
    _, p, need, waivers, _ = task
    t = action - A.CHOOSE_ENERGY0
    game.push((PAYMENT, p, tuple(n - (i == t) for i, n in enumerate(need)), waivers - 1, t))


def _opt_pay_source(game: Game, task: tuple) -> list[int]:
    """The lowest type still owed, from sources at or after the last one used for it."""
    _, p, need, first_source = task
    t = next(i for i in range(4) if need[i])
    held = [(s, game.tokens_at(p, s)[t]) for s in (0, *game.amulet_sources(p)) if s >= first_source]
    return [A.PAY0 + 4 * s + t for k, (s, n) in enumerate(held) if n and sum(m for _, m in held[k:]) >= need[t]]


def _res_pay_source(game: Game, task: tuple, action: int) -> None:
    p, need = task[1], task[2]
    source, t = divmod(action - A.PAY0, 4)
    game.spend_token(p, source, t)
    remaining = list(need)
    remaining[t] -= 1
    if remaining[t]:
        _pay_forced(game, p, remaining, t, source)
    if any(remaining):
        game.push((PAY_SOURCE, p, tuple(remaining), source if remaining[t] else 0))


def _opt_discard_tokens(game: Game, task: tuple) -> list[int]:
    """Discard ``count`` tokens of any types (Kairn, Tree of Light, Crystal Orb), in (source, type) order."""
    _, p, count, first = task
    held = [(A.PAY0 + 4 * s + t, n) for s in (0, *game.amulet_sources(p)) for t, n in enumerate(game.tokens_at(p, s))]
    options = []
    for k, (action, n) in enumerate(held):
        if n and action >= first and sum(m for _, m in held[k:]) >= count:
            options.append(action)
    return options


def _res_discard_tokens(game: Game, task: tuple, action: int) -> None:
    _, p, count, _ = task
    source, t = divmod(action - A.PAY0, 4)
    game.spend_token(p, source, t)
    if count > 1:
        game.push((DISCARD_TOKENS, p, count - 1, action))


def _run_enter_play(game: Game, task: tuple) -> None:
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


def _run_after_summon(game: Game, task: tuple) -> None:
    """Staff of Spring and Yjang's Forgotten Vase, for a card summoned from hand (not themselves)."""
    _, p, instance = task
    staffs = sum(1 for i in game.in_play[p] if CARD_OF[i] == STAFF_OF_SPRING and i != instance)
    vases = sum(1 for i in game.in_play[p] if CARD_OF[i] == YJANGS_VASE and i != instance)
    game.crystals[p] += 3 * staffs
    game.gain_tokens_of_choice(p, vases)


# --- end of round, seasons, years, end of game

ROUND_EFFECT_ORDER = (39, 50, 13, 14)  # Titus Deepgaze, Damned Soul of Onys, Wondrous Chest, Beggar's Horn


def _run_round_end_effects(game: Game, task: tuple) -> None:
    p = task[1]
    held = [CARD_OF[i] for i in game.in_play[p]]
    # Conditions are read once for the player (several copies add up); effects run in ROUND_EFFECT_ORDER.
    effects = [(card, held.count(card)) for card in ROUND_EFFECT_ORDER if card in held]
    snapshot = game.reserve[p]
    for card, copies in effects:
        BEHAVIOUR[card].end_of_round(game, p, copies, snapshot)


def _run_move_marker(game: Game, task: tuple) -> None:
    if game.year > NUM_YEARS:  # Temporal Boots carried the marker past the end: the leftover die moves nothing
        game.push((GAME_END, 0))
        return
    leftover = [(d, f) for d, f, o in game.rolled if o < 0]
    pips = DICE[game.dice_season][leftover[0][0]][leftover[0][1]].pips if leftover else 0
    game.move_marker(pips, by_boots=False)


def _run_season_change(game: Game, task: tuple) -> None:
    _, p, by_boots = task
    held = [CARD_OF[i] for i in game.in_play[p]]
    for card in sorted(set(held)):
        BEHAVIOUR[card].season_change(game, p, held.count(card), bool(by_boots))


def _run_join_library(game: Game, task: tuple) -> None:
    game.year = task[2]
    index = task[2] - 2
    for p in game.turn_order():
        sets = list(game.library[p])
        if sets[index]:
            game.hand[p] = tuple(sorted((*game.hand[p], *sets[index])))
            sets[index] = ()
            game.library[p] = tuple(sets)


def _run_next_round(game: Game, task: tuple) -> None:
    game.first_player = (game.first_player + 1) % game.num_players
    game.turn_player = -1
    game.push((START_ROUND, 0))


def _run_game_end(game: Game, task: tuple) -> None:
    bonuses = []
    for p in range(game.num_players):
        held = [CARD_OF[i] for i in game.in_play[p]]
        bonuses.append(sum(BEHAVIOUR[c].end_of_game(game, p, held.count(c)) for c in sorted(set(held))))
    for p, extra in enumerate(bonuses):
        game.crystals[p] += extra
    game.final_scores = tuple(game._score(p) for p in range(game.num_players))
    game.stack.clear()
    game.turn_player = -1


# ---------------------------------------------------------------------------- registration

DRAFT_PICK = steps.decision("draft_pick", _opt_draft_pick, _res_draft_pick, doc="pick a card from the pack held")
DRAFT_PASS = steps.automatic("draft_pass", _run_draft_pass, doc="every pack passes to the left")
LIBRARY_SPLIT = steps.decision(
    "library_split", _opt_library, _res_library, ("year",), doc="put a card of the hand into the library set of a year"
)
START_ROUND = steps.automatic("start_round", _run_start_round, doc="straighten cards, roll the season's dice")
CHOOSE_DIE = steps.decision("choose_die", _opt_choose_die, _res_choose_die, doc="take one of the rolled dice")
TURN_START = steps.automatic("turn_start", _run_turn_start, doc="a player's turn begins")
MALICE_WINDOW = steps.decision(
    "die_of_malice_window", _opt_malice, _res_malice, doc="activate Die of Malice before the die actions, or not"
)
DIE_ACTIONS = steps.automatic("die_actions", _run_die_actions, doc="the mandatory actions of the die taken")
DRAW_SYMBOL = steps.decision(
    "draw_symbol", _opt_draw_symbol, _res_draw_symbol, doc="the die's draw: draw 1, or use the draw bonus"
)
KEEP_OR_DISCARD = steps.decision(
    "keep_or_discard", _opt_keep_or_discard, _res_keep_or_discard, ("card",), doc="keep or discard the drawn card"
)
KEEP_ONE = steps.decision(
    "keep_one", _opt_choose_from, _res_keep_one, ("cards",), doc="keep one of the drawn cards, discard the rest"
)
TURN = steps.decision("turn", _opt_turn, _res_turn, doc="the free actions of a turn, until it ends")
GAIN_ENERGY = steps.decision(
    "gain_energy",
    _opt_gain_energy,
    _res_gain_energy,
    ("count", "onto", "from_type"),
    doc="choose the type of a token gained",
)
OVERFLOW = steps.decision(
    "overflow", _opt_overflow, _res_overflow, ("from_type",), doc="discard a token down to the reserve limit"
)
EXCHANGE_DISCARD = steps.decision(
    "exchange_discard",
    _opt_exchange_discard,
    _res_exchange_discard,
    ("count", "from_type"),
    doc="exchange bonus: give back a reserve token",
)
ELEMENTAL_CHOICE = steps.decision(
    "elemental_amulet_set", _opt_elemental, _res_elemental, doc="choose the energy types paid for Elemental Amulet"
)
PAYMENT = steps.automatic("payment", _run_payment, ("need", "waivers", "from_type"), doc="pay an energy cost")
WAIVE_COST = steps.decision(
    "hand_of_fortune",
    _opt_waive,
    _res_waive,
    ("need", "waivers", "from_type"),
    doc="choose the token Hand of Fortune saves",
)
PAY_SOURCE = steps.decision(
    "pay_source",
    _opt_pay_source,
    _res_pay_source,
    ("need", "from_source"),
    doc="pay a token from the reserve or Amulet of Water",
)
DISCARD_TOKENS = steps.decision(
    "discard_tokens",
    _opt_discard_tokens,
    _res_discard_tokens,
    ("count", "from_action"),
    doc="discard tokens to pay a card's cost",
)
ENTER_PLAY = steps.automatic(
    "enter_play", _run_enter_play, ("card", "from_hand", "effects"), doc="a card enters play; its effect resolves"
)
AFTER_SUMMON = steps.automatic("after_summon", _run_after_summon, ("instance",), doc="Staff of Spring, Vase")
ROUND_END_EFFECTS = steps.automatic("round_end_effects", _run_round_end_effects, doc="a player's end-of-round cards")
MOVE_MARKER = steps.automatic("move_marker", _run_move_marker, doc="the leftover die moves the season marker")
SEASON_CHANGE = steps.automatic(
    "season_change", _run_season_change, ("by_boots",), doc="a player's season-change cards"
)
JOIN_LIBRARY = steps.automatic(
    "join_library", _run_join_library, ("year",), doc="the year advances; its library sets join the hands"
)
NEXT_ROUND = steps.automatic("next_round", _run_next_round, doc="the first player passes to the left")
GAME_END = steps.automatic("game_end", _run_game_end, doc="end-of-game cards, then scoring")

# Card behaviours register their own steps; import them last so the generic kinds come first.
from .cards import BEHAVIOUR, BEHAVIOUR_STORES, CHALICE_PICK, NARIA_GIVE, NARIA_KEEP, ORB_DECIDE  # noqa: E402

#: Decision steps whose cards (drawn into limbo) only their decider has seen.
PRIVATE_CARD_STEPS = frozenset({KEEP_OR_DISCARD, KEEP_ONE, CHALICE_PICK, NARIA_KEEP, NARIA_GIVE})
#: Crystal Orb's look: its card is the draw pile's top card, not a limbo card.
ORB_SEEN_STEP = ORB_DECIDE

__all__ = ["LEVELS", "Game", "IllegalActionError"]
