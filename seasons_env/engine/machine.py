"""``Game``: a position and the machine that advances it, the engine's public API.

``apply(action)`` checks the action against the legal options of the decision on top of the step stack, pops
it, resolves it, then runs automatic steps until the next decision with at least two options. A decision with
one option is resolved by the engine and one with none is skipped. Whenever tokens enter a reserve, the limit
is checked before anything else runs and each player over it is asked to discard (``overflow``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import actions as A
from . import flow, hidden, serialization, steps
from .chance import Chance
from .data import (
    APPRENTICE_DECKS,
    DICE,
    DICE_PER_SEASON,
    GAUGE_MAX,
    HAND_SIZE,
    LEVEL_CARDS,
    LEVELS,
    SEASONS,
)
from .state import State, check_choice, check_num_players

OVERFLOW = steps.kind("overflow")
START_ROUND = steps.kind("start_round")
DRAFT_PICK = steps.kind("draft_pick")
DRAFT_PASS = steps.kind("draft_pass")


class IllegalActionError(ValueError):
    """An action that the pending decision does not allow. The game is left unchanged."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision being asked: its kind's name, the seat that decides, and the step's named arguments.

    ``args`` holds what ``docs/state_format.md`` lists for the kind (e.g. ``{"year": 2}`` for
    ``library_split``, ``{"cards": (12, 40)}`` for ``keep_one``); a seat sees another seat's private
    arguments only in a position determinized for it."""

    kind: str
    player: int
    args: dict[str, Any]


class Game(State):
    """A position of Seasons and the rules that advance it. See ``docs/state_format.md``."""

    __slots__ = ()

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, num_players: int = 2, level: str = "magician", seed: int | None = None) -> Game:
        """A new game at its first decision (the draft, or at the Apprentice level the library split)."""
        num_players = check_num_players(num_players)
        check_choice("level", level, LEVELS)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise ValueError(f"seed must be a non-negative int or None; got {seed!r}")
        game, pile = cls.opening(num_players, level, Chance.from_seed(seed))
        chance = game.chance
        game.game_dice = tuple(tuple(chance.sample(DICE_PER_SEASON, num_players + 1)) for _ in SEASONS)
        pile = [pile[i] for i in chance.permutation(len(pile))]
        dealt = 0 if level == "apprentice" else HAND_SIZE
        if dealt:
            for p in range(num_players):
                game.draft_pack[p] = tuple(sorted(pile[dealt * p : dealt * (p + 1)]))
        game.draw_pile = pile[dealt * num_players :]
        game._run()
        return game

    @classmethod
    def opening(cls, num_players: int, level: str, chance: Chance) -> tuple[Game, list[int]]:
        """A new game before any draw, and the cards to shuffle, in their order before the shuffle.

        Everything here is the same in every game of a player count and level: the pending steps (the draft, the
        library split, the first round), the Apprentice level's fixed hands. ``new`` then draws the season dice,
        shuffles the cards and deals them (``HAND_SIZE`` to each draft pack, except at the Apprentice level; the
        rest is the draw pile); the batched kernels (``vector/kernels/new_game.py``) make the same draws."""
        game = cls.blank(num_players, level, chance)
        pile = [c for c in LEVEL_CARDS[level] for _ in range(2)]
        draft: list[tuple] = []
        if level == "apprentice":
            for p in range(num_players):
                deck = APPRENTICE_DECKS[p]
                for c in deck:
                    pile.remove(c)
                game.hand[p] = tuple(sorted(deck))
        else:
            for _ in range(HAND_SIZE):
                draft.extend((DRAFT_PICK, p) for p in range(num_players))
                draft.append((DRAFT_PASS, 0))
        game.stack = [(START_ROUND, 0), *flow.library_steps(game)[::-1], *draft[::-1]]
        return game, pile

    def __getstate__(self) -> dict:
        return self.to_dict()

    def __setstate__(self, state: dict) -> None:
        restored = Game.from_dict(state)
        for name in State.__slots__:
            setattr(self, name, getattr(restored, name))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None  # mutable

    # ------------------------------------------------------------------ the decision asked

    @property
    def pending_decision(self) -> str | None:
        """Name of the decision being asked, ``None`` once the game is over."""
        return steps.spec(self.stack[-1][0]).name if self.stack else None

    @property
    def pending(self) -> Decision | None:
        """The decision being asked (kind, deciding seat, named arguments); ``None`` once the game is over."""
        if not self.stack:
            return None
        task = self.stack[-1]
        spec = steps.spec(task[0])
        return Decision(spec.name, task[1], dict(zip(spec.args, task[2:], strict=True)))

    def pending_task(self) -> tuple | None:
        """The pending decision step ``(kind, player, *args)``."""
        return self.stack[-1] if self.stack else None

    def pending_steps(self) -> list[tuple]:
        """Every pending step, the decision asked first: ``(kind id, player, *args)`` tuples (what is still
        scheduled this round). ``steps.KINDS[kind]`` names a kind and ``steps.kind(name)`` gives its id."""
        return self.stack[::-1]

    def legal_actions(self) -> np.ndarray:
        """Sorted int64 array of the legal action ids (empty once the game is over)."""
        return np.array(self._legal, dtype=np.int64)

    def legal_action_list(self) -> list[int]:
        """The legal action ids as a sorted Python list (a fresh copy: changing it changes nothing)."""
        return self._legal[:]

    def apply(self, action: int) -> None:
        """Resolve the pending decision with ``action``; raises ``IllegalActionError`` if it is not legal."""
        if self.final_scores is not None:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        if type(action) is not int and (isinstance(action, bool) or not isinstance(action, numbers.Integral)):
            raise IllegalActionError(f"action must be an int id from the action table, got {action!r}")
        a = int(action)
        if a not in self._legal:
            task = self.stack[-1]
            legal = ", ".join(f"{x} ({A.describe_action(x)})" for x in self._legal)
            label = A.describe_action(a) if 0 <= a < A.NUM_ACTIONS else "not in the action table"
            raise IllegalActionError(
                f"action {action!r} ({label}) is not legal for decision "
                f"{steps.spec(task[0]).name!r} of player {task[1]}; legal: {legal}"
            )
        task = self.stack.pop()
        steps.RESOLVE[task[0]](self, task, a)
        self._run()

    def scores(self) -> list[int]:
        """Final scores once the game is over; before that, the score if it ended now (before end-of-game effects)."""
        if self.final_scores is not None:
            return list(self.final_scores)
        return [self.score(p) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        """Winning seats (several on a shared win); empty while the game runs."""
        if self.final_scores is None:
            return []
        scores = self.final_scores
        best = max(scores)
        tied = [p for p in range(self.num_players) if scores[p] == best]
        most = max(len(self.in_play[p]) for p in tied)
        return [p for p in tied if len(self.in_play[p]) == most]

    # ------------------------------------------------------------------ what-ifs for agents

    def die_taken(self, player: int) -> tuple[int, int] | None:
        """``(die, face)`` the player took this round, or ``None``."""
        return flow.die_of(self, player)

    def preview_die(self, player: int, die: int, face: int) -> Game:
        """A copy in which ``player`` holds ``die`` showing ``face`` and has received its tokens, crystals and
        gauge (its immediate gains: the reserve limit, a draw and a transmutation are not applied)."""
        g = self.clone()
        g.rolled = tuple((d, face if d == die else f, player if d == die else o) for d, f, o in self.rolled)
        gains = DICE[g.dice_season][die][face]
        if any(gains.energy):
            r = g.reserve[player]
            g.reserve[player] = tuple(r[t] + gains.energy[t] for t in range(4))
        g.crystals[player] += gains.crystals
        if gains.gauge:
            g.gauge[player] = min(GAUGE_MAX, g.gauge[player] + 1)
        return g

    def preview_turn_end(self) -> Game:
        """A copy as the current turn ends, before what the end triggers (deferred tokens, the next turn)."""
        g = self.clone()
        g.turn_flags = 0
        g.turn_player = -1
        return g

    # ------------------------------------------------------------------ the machine

    def _run(self) -> None:
        stack = self.stack
        options_of = steps.OPTIONS
        private_of = steps.PRIVATE
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
            if len(legal) > 1 or (legal and private_of[kind] is not None and private_of[kind](self, task)):
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

    def _refresh_options(self) -> None:
        """Recompute the legal options of the pending decision (after cards were redrawn)."""
        if self.stack:
            self._legal = steps.OPTIONS[self.stack[-1][0]](self, self.stack[-1])

    # ------------------------------------------------------------------ serialization and information sets

    def to_dict(self) -> dict:
        """The whole position as JSON-safe data (``docs/state_format.md``)."""
        return serialization.to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """Rebuild a position from ``to_dict`` data. Every key but ``num_players`` is optional (see the docs)."""
        game = serialization.from_dict(cls, d)
        game._run()
        return game

    def determinize(self, player: int, rng: np.random.Generator) -> Game:
        """A copy in which everything ``player`` cannot see is redrawn at random (``hidden.determinize``)."""
        game = hidden.determinize(self, player, rng)
        game._refresh_options()
        return game

    def __repr__(self) -> str:
        status = "over" if self.is_over else f"{self.pending_decision} by player {self.current_player}"
        return (
            f"<Game {self.num_players}p {self.level} year {self.year} "
            f"{SEASONS[self.season]} (space {self.position}): {status}>"
        )
