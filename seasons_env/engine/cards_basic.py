"""Card behaviours of the basic cards (1-30, every level): one class per card, with the decisions it asks.

The rules dispatch to these hooks (on summon, activation, leaving play, end of round, season change, end of
game; ``behaviour.py``). Passive effects that change a rule the engine applies everywhere (Hand of Fortune,
Purse of Io, Staff of Spring, Yjang's Vase, Arcano Leech, Thieving Fairies, Bespelled Grimoire's limit) are
read by the rules where they apply (``state.py``, ``payment.py``, ``flow.py``), which name them with ``Card``.
A card that asks a choice registers its decision step beside its class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import actions as A
from . import card_constants as K
from . import steps
from .behaviour import (
    Behaviour,
    card,
    card_options,
    in_play_options,
    other_items,
    sacrifice_self,
    several_cards_held,
    several_cards_in_hand,
)
from .data import CARD_OF, FACES_PER_DIE, IS_ITEM, Card
from .flow import KEEP_ONE
from .payment import DISCARD_TOKENS, PAYMENT

if TYPE_CHECKING:
    from .state import State

Task = tuple


# ---------------------------------------------------------------------------- cards 1-30


@card(Card.AMULET_OF_AIR)
class AmuletOfAir(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.add_gauge(player, K.AMULET_OF_AIR_GAUGE)


@card(Card.AMULET_OF_FIRE)
class AmuletOfFire(Behaviour):
    def on_summon(self, game, player, instance, effects):
        drawn = game.draw_into_limbo(K.AMULET_OF_FIRE_DRAWN)
        if drawn:
            game.push((KEEP_ONE, player, drawn))


@card(Card.AMULET_OF_EARTH)
class AmuletOfEarth(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_crystals(player, K.AMULET_OF_EARTH_CRYSTALS)


@card(Card.AMULET_OF_WATER)
class AmuletOfWater(Behaviour):
    stores_tokens = True

    def on_summon(self, game, player, instance, effects):
        game.gain_tokens_of_choice(player, K.AMULET_OF_WATER_TOKENS, onto=instance)


def _opt_balance(game: State, task: Task) -> list[int]:
    available = game.spendable(task[1])
    return [A.CHOOSE_ENERGY_ACTIONS[t] for t in range(4) if available[t] >= K.BALANCE_OF_ISHTAR_TOKENS]


def _res_balance(game: State, task: Task, action: int) -> None:
    p, t = task[1], A.energy_of_choice(action)
    tokens = K.BALANCE_OF_ISHTAR_TOKENS
    game.gain_crystals(p, K.BALANCE_OF_ISHTAR_CRYSTALS + tokens * game.transmute_bonus(p))
    game.push((PAYMENT, p, tuple(tokens * (i == t) for i in range(4)), 0, 0))


BALANCE_TYPE = steps.decision(
    "balance_of_ishtar", _opt_balance, _res_balance, doc=f"type of the {K.BALANCE_OF_ISHTAR_TOKENS} identical tokens"
)


@card(Card.BALANCE_OF_ISHTAR)
class BalanceOfIshtar(Behaviour):
    def can_activate(self, game, player, instance):
        return max(game.spendable(player)) >= K.BALANCE_OF_ISHTAR_TOKENS

    def activate(self, game, player, instance):
        game.push((BALANCE_TYPE, player))


@card(Card.STAFF_OF_SPRING)
class StaffOfSpring(Behaviour):
    """Read by the engine after a summon from hand (``_run_after_summon``)."""


def _opt_boots(game: State, task: Task) -> list[int]:
    absolute = (game.year - 1) * 12 + game.position - 1
    return [A.move_season_action(s) for s in A.SEASON_MOVES if absolute + s >= 0]


def _res_boots(game: State, task: Task, action: int) -> None:
    game.move_marker(A.season_move_of_action(action), by_boots=True)


BOOTS_MOVE = steps.decision("temporal_boots", _opt_boots, _res_boots, doc="move the season marker 1-3 spaces")


@card(Card.TEMPORAL_BOOTS)
class TemporalBoots(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.push((BOOTS_MOVE, player))


@card(Card.PURSE_OF_IO)
class PurseOfIo(Behaviour):
    """Read by the engine at every transmutation (``State.transmute_bonus``)."""


def _res_chalice(game: State, task: Task, action: int) -> None:
    p, cards, chosen = task[1], list(task[2]), A.card_of_choice(action)
    cards.remove(chosen)
    for c in cards:
        game.discard(game.from_limbo(c))
    game.put_into_play_free(p, chosen)


CHALICE_PICK = steps.decision(
    "divine_chalice",
    lambda game, task: card_options(task[2]),
    _res_chalice,
    ("cards",),
    doc="the drawn card to put into play for free",
    private=several_cards_held,
)


@card(Card.DIVINE_CHALICE)
class DivineChalice(Behaviour):
    def on_summon(self, game, player, instance, effects):
        drawn = game.draw_into_limbo(K.DIVINE_CHALICE_DRAWN)
        if drawn:
            game.push((CHALICE_PICK, player, drawn))


def _res_sacrifice_choice(game: State, task: Task, action: int) -> None:
    game.sacrifice(task[1], A.instance_of_choice(action))


SYLLAS_SACRIFICE = steps.decision(
    "syllas_sacrifice",
    lambda game, task: in_play_options(game, task[1]),
    _res_sacrifice_choice,
    doc="Syllas the Faithful: sacrifice one of your cards in play",
)


@card(Card.SYLLAS_THE_FAITHFUL)
class SyllasTheFaithful(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.push(*((SYLLAS_SACRIFICE, q) for q in game.opponents(player)))


@card(Card.FIGRIM_THE_AVARICIOUS)
class FigrimTheAvaricious(Behaviour):
    def season_change(self, game, player, copies, by_boots):
        for _ in range(copies):
            for q in game.opponents(player):
                game.transfer_crystals(q, player, K.FIGRIM_CRYSTALS)


def _res_naria_keep(game: State, task: Task, action: int) -> None:
    p, cards, keep = task[1], list(task[2]), A.card_of_choice(action)
    cards.remove(keep)
    game.hand_add(p, game.from_limbo(keep))
    if cards:
        game.push((NARIA_GIVE, p, tuple(cards), tuple(game.opponents(p))))


def _res_naria_give(game: State, task: Task, action: int) -> None:
    _, p, cards, recipients = task
    cards = list(cards)
    given = A.card_of_choice(action)
    cards.remove(given)
    game.hand_add(recipients[0], game.from_limbo(given))
    if cards and len(recipients) > 1:
        game.push((NARIA_GIVE, p, tuple(cards), recipients[1:]))
    else:
        for c in cards:  # cannot happen: Naria draws one card per player
            game.discard(game.from_limbo(c))


NARIA_KEEP = steps.decision(
    "naria_keep",
    lambda game, task: card_options(task[2]),
    _res_naria_keep,
    ("cards",),
    doc="Naria the Prophetess: the drawn card you keep",
    private=several_cards_held,
)
NARIA_GIVE = steps.decision(
    "naria_give",
    lambda game, task: card_options(task[2]),
    _res_naria_give,
    ("cards", "recipients"),
    doc="Naria the Prophetess: the card given to the first listed opponent",
    private=several_cards_held,
)


@card(Card.NARIA_THE_PROPHETESS)
class NariaTheProphetess(Behaviour):
    def on_summon(self, game, player, instance, effects):
        drawn = game.draw_into_limbo(game.num_players)
        if drawn:
            game.push((NARIA_KEEP, player, drawn))


@card(Card.WONDROUS_CHEST)
class WondrousChest(Behaviour):
    def end_of_round(self, game, player, copies, reserve):
        if sum(reserve) >= K.WONDROUS_CHEST_MIN_TOKENS:
            game.gain_crystals(player, K.WONDROUS_CHEST_CRYSTALS * copies)


@card(Card.BEGGARS_HORN)
class BeggarsHorn(Behaviour):
    def end_of_round(self, game, player, copies, reserve):
        if sum(reserve) <= K.BEGGARS_HORN_MAX_TOKENS:
            game.gain_tokens_of_choice(player, copies)


@card(Card.DIE_OF_MALICE)
class DieOfMalice(Behaviour):
    """Activated only in the window before the die actions (``die_of_malice_window``)."""

    def activate(self, game, player, instance):
        game.gain_crystals(player, K.DIE_OF_MALICE_CRYSTALS)
        face = game.chance.below(FACES_PER_DIE)
        game.rolled = tuple((d, face if o == player else f, o) for d, f, o in game.rolled)


def _run_kairn(game: State, task: Task) -> None:
    for q in game.opponents(task[1]):
        game.lose_crystals(q, K.KAIRN_CRYSTALS)


KAIRN_EFFECT = steps.automatic(
    "kairn_effect", _run_kairn, doc=f"Kairn the Destroyer: every opponent loses {K.KAIRN_CRYSTALS} crystals"
)


@card(Card.KAIRN_THE_DESTROYER)
class KairnTheDestroyer(Behaviour):
    def can_activate(self, game, player, instance):
        return sum(game.spendable(player)) >= K.KAIRN_TOKENS

    def activate(self, game, player, instance):
        game.push((DISCARD_TOKENS, player, K.KAIRN_TOKENS, 0), (KAIRN_EFFECT, player))


def _res_return_item(game: State, task: Task, action: int) -> None:
    game.leave_play(task[1], A.instance_of_choice(action), to_hand=True)


AMSUG_RETURN = steps.decision(
    "amsug_return",
    lambda game, task: in_play_options(game, task[1], lambda inst: IS_ITEM[CARD_OF[inst]]),
    _res_return_item,
    doc="Amsug Longneck: return one of your magic items to hand",
)


@card(Card.AMSUG_LONGNECK)
class AmsugLongneck(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.push((AMSUG_RETURN, player), *((AMSUG_RETURN, q) for q in game.opponents(player)))


@card(Card.BESPELLED_GRIMOIRE)
class BespelledGrimoire(Behaviour):
    """Reserve limit 10 while in play (``State.reserve_limit``)."""

    def on_summon(self, game, player, instance, effects):
        game.gain_tokens_of_choice(player, K.BESPELLED_GRIMOIRE_TOKENS)

    def on_leave(self, game, player, instance, sacrificed):
        game.request_overflow_check()  # the limit may drop back to 7


@card(Card.RAGFIELDS_HELM)
class RagfieldsHelm(Behaviour):
    def end_of_game(self, game, player, copies):
        mine = len(game.in_play[player])
        if all(mine > len(game.in_play[q]) for q in game.opponents(player)):
            return K.RAGFIELDS_HELM_PRESTIGE * copies
        return 0


@card(Card.HAND_OF_FORTUNE)
class HandOfFortune(Behaviour):
    """Read by the engine when a summoning cost is paid (``begin_summon_from_hand``)."""


def _res_lewis(game: State, task: Task, action: int) -> None:
    p = task[1]
    target = (p + A.opponent_offset_of_choice(action)) % game.num_players
    game.add_tokens(p, game.reserve[target])


LEWIS_TARGET = steps.decision(
    "lewis_greyface",
    lambda game, task: [A.choose_opponent_action(offset) for offset in range(1, game.num_players)],
    _res_lewis,
    doc="Lewis Greyface: the opponent whose reserve you copy",
)


@card(Card.LEWIS_GREYFACE)
class LewisGreyface(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.push((LEWIS_TARGET, player))


@card(Card.RUNIC_CUBE_OF_EOLIS)
class RunicCubeOfEolis(Behaviour):
    pass


@card(Card.POTION_OF_POWER)
class PotionOfPower(Behaviour):
    def can_activate(self, game, player, instance):
        return True

    def activate(self, game, player, instance):
        sacrifice_self(game, player, instance)
        drawn = game.draw()
        if drawn is not None:
            game.hand_add(player, drawn)
        game.add_gauge(player, K.POTION_OF_POWER_GAUGE)


def _res_dreams(game: State, task: Task, action: int) -> None:
    p, chosen = task[1], A.card_of_choice(action)
    game.hand_remove(p, chosen)
    game.limbo.append(chosen)
    game.put_into_play_free(p, chosen)


DREAMS_PICK = steps.decision(
    "potion_of_dreams",
    lambda game, task: card_options(game.hand[task[1]]),
    _res_dreams,
    doc="Potion of Dreams: the card from hand to put into play for free",
    private=several_cards_in_hand,
)


@card(Card.POTION_OF_DREAMS)
class PotionOfDreams(Behaviour):
    def can_activate(self, game, player, instance):
        # Offered only with a card in hand and room, counting the slot the potion frees.
        return bool(game.hand[player]) and game.gauge[player] >= len(game.in_play[player])

    def activate(self, game, player, instance):
        sacrifice_self(game, player, instance)
        game.reserve[player] = (0, 0, 0, 0)
        game.push((DREAMS_PICK, player))


@card(Card.POTION_OF_KNOWLEDGE)
class PotionOfKnowledge(Behaviour):
    def can_activate(self, game, player, instance):
        return True

    def activate(self, game, player, instance):
        sacrifice_self(game, player, instance)
        game.gain_tokens_of_choice(player, K.POTION_OF_KNOWLEDGE_TOKENS)


@card(Card.POTION_OF_LIFE)
class PotionOfLife(Behaviour):
    def can_activate(self, game, player, instance):
        return True

    def activate(self, game, player, instance):
        sacrifice_self(game, player, instance)
        tokens = sum(game.reserve[player])
        game.reserve[player] = (0, 0, 0, 0)
        # Purse of Io counts; the transmute bonus does not (RULES.md 8.26).
        game.gain_crystals(player, tokens * (K.POTION_OF_LIFE_CRYSTALS + game.count_in_play(player, Card.PURSE_OF_IO)))


@card(Card.HOURGLASS_OF_TIME)
class HourglassOfTime(Behaviour):
    def season_change(self, game, player, copies, by_boots):
        if by_boots:  # Ruling (RULES.md 8.7): tokens from a Boots season change arrive at the end of the turn
            game.deferred_tokens = (*game.deferred_tokens, (player, copies))
        else:
            game.gain_tokens_of_choice(player, copies)


@card(Card.SCEPTER_OF_GREATNESS)
class ScepterOfGreatness(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_crystals(player, K.SCEPTER_CRYSTALS * other_items(game, player, instance))


@card(Card.OLAFS_BLESSED_STATUE)
class OlafsBlessedStatue(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_crystals(player, K.OLAFS_STATUE_CRYSTALS)


@card(Card.YJANGS_FORGOTTEN_VASE)
class YjangsForgottenVase(Behaviour):
    """Read by the engine after a summon from hand (``_run_after_summon``)."""
