"""Information sets: a copy of a position with everything one seat cannot see redrawn at random.

Search agents (``agents/ismcts.py``) and the agents' views (``agents/base.py``) use ``Game.determinize``,
which calls ``determinize`` here, so that an agent may read and search its view without cheating.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from . import steps
from .chance import Chance
from .data import CARD_OF, IS_ITEM
from .state import State

S = TypeVar("S", bound=State)

#: Decision steps whose cards (drawn into limbo) only their decider has seen.
PRIVATE_CARD_STEPS = frozenset(
    steps.kind(name) for name in ("keep_or_discard", "keep_one", "divine_chalice", "naria_keep", "naria_give")
)
#: Crystal Orb's look: its card is the draw pile's top card, not a limbo card.
ORB_SEEN_STEP = steps.kind("crystal_orb_seen")
#: Necrotic Kriss's target: every seat saw it activated, so its player holds a familiar (in hand or in play).
KRISS_STEP = steps.kind("necrotic_kriss")


def determinize(state: S, player: int, rng: np.random.Generator) -> S:
    """A copy in which everything ``player`` cannot see is redrawn at random, consistently with what it saw.

    Opponents' hands, library sets and draft packs, the draw pile's order, the discard pile and the
    cards other players are privately choosing among are pooled and dealt back into the same places
    (same sizes); the top card a Crystal Orb showed ``player`` stays on top; other seats' memories of the draft
    (``draft_seen``) are emptied. The copy also gets a new
    random generator from ``rng``, so that future dice and shuffles are not the real ones. The caller
    (``Game.determinize``) recomputes the legal options of the pending decision. Everything
    ``player`` may know — its observation — is unchanged (``tests/test_determinize.py``).

    The redraw is uniform over the unseen cards, but for one fact every seat knows: a player choosing its
    Necrotic Kriss's target holds a familiar, so one with none in play keeps one in hand (``_keep_kriss_familiar``).
    It does not use what ``player`` inferred from the packs it saw during the draft (``draft_seen``) about which
    cards its opponents kept. Every sample is a position the observation allows (``Game.from_dict`` reads it
    back), but not always one the draft history allows.
    """
    if not 0 <= player < state.num_players:
        raise ValueError(f"player must be a seat 0..{state.num_players - 1}; got {player!r}")
    game = state.clone()
    game.set_chance(Chance.from_seed(int(rng.integers(2**63))))
    # What other seats saw in the draft is their memory, not this seat's: in 3-4 player games it names cards
    # this seat never saw (and that sit in their hands). The view keeps none of it.
    game.draft_seen = [seen if q == player else 0 for q, seen in enumerate(game.draft_seen)]
    pool: list[int] = []  # every card the seat cannot see
    slots: list[tuple[str, int, int]] = []  # the hidden zones to deal them back into: (zone, seat, size)
    for q in range(state.num_players):
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
        for c in steps.task_cards(game.stack[k]):
            limbo.remove(c)
            pool.append(c)
    pool.sort()  # the redraw depends on which cards are unseen, never on where they really are
    order = rng.permutation(len(pool)).tolist()  # Python ints index a list faster than numpy's
    shuffled = list(map(pool.__getitem__, order))
    _keep_kriss_familiar(game, player, slots, shuffled)
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
        cards = take(len(steps.task_cards(task)))
        limbo.extend(cards)
        game.stack[k] = steps.with_task_cards(task, cards)
    game.limbo = limbo
    if game.orb_seen and game.orb_seen[0] != player:  # another seat's look: it saw the (new) top card
        game.orb_seen = (game.orb_seen[0], game.draw_pile[-1]) if game.draw_pile else ()
    for k, task in enumerate(game.stack):
        if task[0] == ORB_SEEN_STEP and task[1] != player and game.draw_pile:
            game.stack[k] = (task[0], task[1], game.draw_pile[-1])
    return game


def _keep_kriss_familiar(state: State, player: int, slots: list[tuple[str, int, int]], shuffled: list[int]) -> None:
    """Another seat choosing its Necrotic Kriss's target activated it holding a familiar: with none in play, where the
    redraw deals its hand none, the first familiar of the redraw trades places with the first card dealt to that
    hand (the batched kernels do the same: ``vector/kernels/hidden_kernels.py``)."""
    deciding = {task[1] for task in state.stack if task[0] == KRISS_STEP and task[1] != player}
    at = 0
    for zone, q, size in slots:
        if (
            zone == "hand"
            and q in deciding
            and all(IS_ITEM[CARD_OF[i]] for i in state.in_play[q])
            and all(IS_ITEM[c] for c in shuffled[at : at + size])
        ):
            familiar = next((k for k, c in enumerate(shuffled) if not IS_ITEM[c]), None)
            if familiar is not None:
                shuffled[at], shuffled[familiar] = shuffled[familiar], shuffled[at]
        at += size
