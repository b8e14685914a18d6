"""The card-behaviour protocol and its registry: the hooks the rules dispatch to.

Each card's behaviour is one ``Behaviour`` subclass in ``cards_basic.py`` or ``cards_archmage.py``,
registered with ``@card(Card.X)``. The rules (``flow.py``, ``payment.py``, ``state.py``) call the hooks
through ``BEHAVIOUR`` without importing the card modules, which keeps the engine's imports one-way: cards build
on the rules, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from . import actions as A
from .data import CARD_OF, IS_ITEM, Card

if TYPE_CHECKING:
    from .state import State


class Behaviour:
    """Default: a card with no effect (Runic Cube of Eolis, and the passive cards the rules read)."""

    card = 0
    stores_tokens = False
    #: Whether ``can_activate`` reads which cards are in the hand (not only how many): the turn menu is then
    #: asked even with one option while the card is untapped and the hand not empty (``turn_hangs_on_hand``).
    activation_reads_hand = False
    #: The activation may cost crystals, chosen and paid in one of the card's decisions (Tree of Light, Crystal Orb,
    #: Mirror of the Seasons): the card gives the opponents' Thieving Fairies their due itself once that cost is
    #: paid (``thieving_fairies``). Every other activation cost (tokens, cards) leaves the crystals as they are, so
    #: the rules give the Fairies their due as the card is activated.
    crystal_cost = False

    def on_summon(self, game: State, player: int, instance: int, effects: int) -> None:
        """Resolve the on-summon effect; ``effects`` is Elemental Amulet's set of paid types (a bit mask)."""

    def can_activate(self, game: State, player: int, instance: int) -> bool:
        return False

    def activate(self, game: State, player: int, instance: int) -> None:
        raise AssertionError(f"card {self.card} has no activation")

    def on_leave(self, game: State, player: int, instance: int, sacrificed: bool) -> None:
        pass

    def end_of_round(self, game: State, player: int, copies: int, reserve: tuple) -> None:
        pass

    def season_change(self, game: State, player: int, copies: int, by_boots: bool) -> None:
        pass

    def end_of_game(self, game: State, player: int, copies: int) -> int:
        """Crystals the card gives at the end of the game."""
        return 0


#: Card id -> its behaviour; filled by the card modules (``seasons_env.engine`` imports them).
BEHAVIOUR: dict[int, Behaviour] = {}


def card(card_id: int) -> Callable[[type[Behaviour]], type[Behaviour]]:
    """Class decorator: register the behaviour of card ``card_id``."""

    def register(cls: type[Behaviour]) -> type[Behaviour]:
        if card_id in BEHAVIOUR:
            raise ValueError(f"card {card_id} has two behaviours")
        instance = cls()
        instance.card = int(card_id)
        BEHAVIOUR[int(card_id)] = instance
        return cls

    return register


# ---------------------------------------------------------------------------- helpers shared by card behaviours


def card_options(cards: Iterable[int]) -> list[int]:
    """CHOOSE_CARD options over ``cards``, one per distinct card."""
    return [A.choose_card_action(c) for c in sorted(set(cards))]


def in_play_options(game: State, player: int, accept: Callable[[int], bool] | None = None) -> list[int]:
    """CHOOSE_IN_PLAY options over the player's cards, one per distinguishable card (same card, same
    tapped state and stored tokens count once)."""
    seen = set()
    options = []
    for inst in sorted(game.in_play[player]):
        if accept is not None and not accept(inst):
            continue
        key = (CARD_OF[inst], game.tapped >> inst & 1, game.stored.get(inst))
        if key not in seen:
            seen.add(key)
            options.append(A.choose_in_play_action(inst))
    return options


def other_items(game: State, player: int, instance: int) -> int:
    """Items the player has in play besides ``instance`` (Scepter of Greatness, Pendant of Ragnor)."""
    return sum(1 for i in game.in_play[player] if i != instance and IS_ITEM[CARD_OF[i]])


def sacrifice_self(game: State, player: int, instance: int) -> None:
    game.sacrifice(player, instance)


# Whether a decision's options may hang on cards only its player sees (``steps.StepKind.private``): such a
# decision is asked even with one legal option. Sizes of hands and of drawn sets are public; contents are not.


def several_cards_held(game: State, task: tuple) -> bool:
    """The decision chooses among its own drawn cards (its ``cards`` argument), and there are several."""
    return len(task[2]) > 1


def several_cards_in_hand(game: State, task: tuple) -> bool:
    """The decision chooses among the decider's hand cards, and there are several."""
    return len(game.hand[task[1]]) > 1


def cards_in_hand(game: State, task: tuple) -> bool:
    """Some option may come from the decider's hand (it holds a card)."""
    return bool(game.hand[task[1]])


def turn_hangs_on_hand(game: State, task: tuple) -> bool:
    """The turn menu's options may hang on the hand's contents: a hand card could be summoned (there is room
    in play), or an untapped card's activation depends on which cards are in the hand."""
    p = task[1]
    if not game.hand[p]:
        return False
    if game.has_room(p):
        return True
    tapped = game.tapped
    return any(BEHAVIOUR[CARD_OF[i]].activation_reads_hand and not tapped >> i & 1 for i in game.in_play[p])


def thieving_fairies(game: State, player: int) -> None:
    """An activation by ``player``, its cost paid: each opponent's Thieving Fairies take 1 crystal from ``player``
    if one remains, and their owner gains 1 more (RULES.md 8.41)."""
    for q in game.opponents(player):
        for _ in range(game.count_in_play(q, Card.THIEVING_FAIRIES)):
            game.transfer_crystals(player, q, 1)
            game.gain_crystals(q, 1)
