"""The card-behaviour protocol and its registry: the hooks the rules dispatch to.

Each card's behaviour is one ``Behaviour`` subclass in ``cards.py``, registered with ``@card(Card.X)``. The
rules (``flow.py``, ``payment.py``, ``state.py``) call the hooks through ``BEHAVIOUR`` without importing
``cards.py``, which keeps the engine's imports one-way: cards build on the rules, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import State


class Behaviour:
    """Default: a card with no effect (Runic Cube of Eolis, and the passive cards the rules read)."""

    card = 0
    stores_tokens = False

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


#: Card id -> its behaviour; filled by ``cards.py`` (imported by ``seasons_env.engine``).
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
