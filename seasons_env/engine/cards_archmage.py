"""Card behaviours of the Archmage cards (31-50): one class per card, with the decisions it asks.

As in ``cards_basic.py``: the rules dispatch to each card's hooks, and a card that asks a choice registers its
decision step beside its class.
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
    cards_in_hand,
    in_play_options,
    other_items,
    several_cards_in_hand,
    thieving_fairies,
)
from .data import AIR, CARD_OF, EARTH, FIRE, IS_ITEM, PRESTIGE, WATER, Card
from .payment import DISCARD_TOKENS, ENTER_PLAY
from .state import TRANSMUTE_ABILITY

if TYPE_CHECKING:
    from .state import State

Task = tuple


# ---------------------------------------------------------------------------- cards 31-50


@card(Card.ELEMENTAL_AMULET)
class ElementalAmulet(Behaviour):
    def on_summon(self, game, player, instance, effects):
        if effects >> EARTH & 1:
            game.gain_crystals(player, K.ELEMENTAL_AMULET_CRYSTALS)
        if effects >> FIRE & 1:
            drawn = game.draw()
            if drawn is not None:
                game.hand_add(player, drawn)
        if effects >> AIR & 1:
            game.add_gauge(player, K.ELEMENTAL_AMULET_GAUGE)
        if effects >> WATER & 1:
            game.gain_tokens_of_choice(player, K.ELEMENTAL_AMULET_TOKENS)


def _opt_tree(game: State, task: Task) -> list[int]:
    p = task[1]
    options = []
    if game.crystals[p] >= K.TREE_OF_LIGHT_CRYSTALS:
        options.append(A.TREE_BUY_ENERGY)
    if sum(game.spendable(p)):
        options.append(A.TREE_TRANSMUTE)
    return options


def _res_tree(game: State, task: Task, action: int) -> None:
    p = task[1]
    if action == A.TREE_BUY_ENERGY:
        game.crystals[p] -= K.TREE_OF_LIGHT_CRYSTALS
        thieving_fairies(game, p)  # after the cost (RULES.md 8.41)
        game.gain_tokens_of_choice(p, K.TREE_OF_LIGHT_TOKENS)
    else:
        thieving_fairies(game, p)  # the token discarded moves no crystal
        game.turn_flags |= TRANSMUTE_ABILITY
        game.push((DISCARD_TOKENS, p, K.TREE_OF_LIGHT_DISCARD, 0))


TREE_CHOICE = steps.decision("tree_of_light", _opt_tree, _res_tree, doc="Tree of Light: its option")


@card(Card.TREE_OF_LIGHT)
class TreeOfLight(Behaviour):
    crystal_cost = True

    def can_activate(self, game, player, instance):
        return game.crystals[player] >= K.TREE_OF_LIGHT_CRYSTALS or sum(game.spendable(player)) > 0

    def activate(self, game, player, instance):
        game.push((TREE_CHOICE, player))


@card(Card.ARCANO_LEECH)
class ArcanoLeech(Behaviour):
    """Read by the engine before a summon from hand (``State.leech_toll``)."""


def _top_card_available(game: State) -> bool:
    return bool(game.draw_pile or game.discard_pile)


def _opt_orb(game: State, task: Task) -> list[int]:
    options = []
    if _top_card_available(game):
        options.append(A.ORB_LOOK)
        if game.crystals[task[1]] >= K.CRYSTAL_ORB_CRYSTALS:
            options.append(A.ORB_MILL)
    return options


def _peek(game: State) -> int:
    """The top card of the draw pile, reshuffling the discard pile into it first if it is empty."""
    top = game.draw()
    game.draw_pile.append(top)
    return top


def _res_orb(game: State, task: Task, action: int) -> None:
    p = task[1]
    if action == A.ORB_MILL:
        game.crystals[p] -= K.CRYSTAL_ORB_CRYSTALS
        thieving_fairies(game, p)  # after the cost (RULES.md 8.41)
        game.discard(game.draw())
        return
    thieving_fairies(game, p)  # looking costs nothing
    top = _peek(game)
    game.orb_seen = (p, top)
    game.push((ORB_DECIDE, p, top))


def _opt_orb_decide(game: State, task: Task) -> list[int]:
    p = task[1]
    options = [A.ORB_LEAVE]
    if game.has_room(p) and sum(game.spendable(p)) >= K.CRYSTAL_ORB_TOKENS:
        options.append(A.ORB_PLAY)
    return options


def _res_orb_decide(game: State, task: Task, action: int) -> None:
    p = task[1]
    if action == A.ORB_PLAY:
        card_ = game.draw()
        game.limbo.append(card_)
        game.push((DISCARD_TOKENS, p, K.CRYSTAL_ORB_TOKENS, 0), (ENTER_PLAY, p, card_, 0, 0b1111))


ORB_CHOICE = steps.decision(
    "crystal_orb", _opt_orb, _res_orb, doc=f"Crystal Orb: look, or pay {K.CRYSTAL_ORB_CRYSTALS} to discard the top"
)
ORB_DECIDE = steps.decision(
    "crystal_orb_seen", _opt_orb_decide, _res_orb_decide, ("card",), doc="Crystal Orb: leave or play the top card"
)


@card(Card.CRYSTAL_ORB)
class CrystalOrb(Behaviour):
    crystal_cost = True

    def can_activate(self, game, player, instance):
        return _top_card_available(game)

    def activate(self, game, player, instance):
        game.push((ORB_CHOICE, player))


def _res_cauldron(game: State, task: Task, action: int) -> None:
    _, p, instance = task
    t = A.energy_of_choice(action)
    game.remove_token(p, t)
    game.store_token(instance, t)
    stored = game.stored[instance]
    if sum(stored) >= K.GLUTTON_CAULDRON_TOKENS:
        game.sacrifice(p, instance)
        game.add_tokens(p, stored)
        game.gain_crystals(p, K.GLUTTON_CAULDRON_CRYSTALS)


def _opt_cauldron(game: State, task: Task) -> list[int]:
    _, p, instance = task
    if instance not in game.in_play[p]:  # never so in play; a position from a file may say otherwise
        return []
    return [A.CHOOSE_ENERGY_ACTIONS[t] for t in range(4) if game.reserve[p][t]]


CAULDRON_FEED = steps.decision(
    "glutton_cauldron",
    _opt_cauldron,
    _res_cauldron,
    ("instance",),
    doc="Glutton Cauldron: the reserve token moved onto it",
)


@card(Card.GLUTTON_CAULDRON)
class GluttonCauldron(Behaviour):
    stores_tokens = True

    def can_activate(self, game, player, instance):
        return sum(game.reserve[player]) > 0

    def activate(self, game, player, instance):
        game.push((CAULDRON_FEED, player, instance))


def _crown_gain(game: State, player: int, card_: int) -> None:
    game.gain_tokens_of_choice(player, max(0, PRESTIGE[card_]))


def _opt_crown(game: State, task: Task) -> list[int]:
    p = task[1]
    options = []
    if _top_card_available(game):
        options.append(A.CROWN_DRAW)
    if game.hand[p]:
        options.append(A.CROWN_DISCARD)
    return options


def _res_crown(game: State, task: Task, action: int) -> None:
    p = task[1]
    if action == A.CROWN_DRAW:
        drawn = game.draw()
        game.hand_add(p, drawn)
        _crown_gain(game, p, drawn)
    else:
        game.push((CROWN_DISCARD_PICK, p))


def _res_crown_discard(game: State, task: Task, action: int) -> None:
    p, chosen = task[1], A.card_of_choice(action)
    game.hand_remove(p, chosen)
    game.discard(chosen)
    _crown_gain(game, p, chosen)


CROWN_CHOICE = steps.decision("vampiric_crown", _opt_crown, _res_crown, doc="Vampiric Crown: draw or discard")
CROWN_DISCARD_PICK = steps.decision(
    "vampiric_crown_discard",
    lambda game, task: card_options(game.hand[task[1]]),
    _res_crown_discard,
    doc="Vampiric Crown: the card discarded from hand",
    private=several_cards_in_hand,
)


@card(Card.VAMPIRIC_CROWN)
class VampiricCrown(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.push((CROWN_CHOICE, player))


def _opt_skull(game: State, task: Task) -> list[int]:
    # The three are chosen in increasing instance order (the order cannot matter): each option must leave
    # enough later cards to complete the three.
    _, p, remaining, after = task
    later = sorted(i for i in game.in_play[p] if i > after)
    allowed = set(later[: len(later) - remaining + 1])
    return in_play_options(game, p, allowed.__contains__)


def _res_skull(game: State, task: Task, action: int) -> None:
    _, p, remaining, _ = task
    instance = A.instance_of_choice(action)
    game.sacrifice(p, instance)
    if remaining > 1:
        game.push((SKULL_SACRIFICE, p, remaining - 1, instance))
    else:
        game.gain_crystals(p, K.DRAGON_SKULL_CRYSTALS)


SKULL_SACRIFICE = steps.decision(
    "dragon_skull",
    _opt_skull,
    _res_skull,
    ("remaining", "after"),
    doc="Dragon Skull: a card of yours to sacrifice (in increasing instance order)",
)


@card(Card.DRAGON_SKULL)
class DragonSkull(Behaviour):
    def can_activate(self, game, player, instance):
        return len(game.in_play[player]) >= K.DRAGON_SKULL_CARDS

    def activate(self, game, player, instance):
        game.push((SKULL_SACRIFICE, player, K.DRAGON_SKULL_CARDS, -1))


@card(Card.DEMON_OF_ARGOS)
class DemonOfArgos(Behaviour):
    def on_summon(self, game, player, instance, effects):
        for q in game.opponents(player):
            game.add_gauge(q, -K.DEMON_OF_ARGOS_GAUGE)
            drawn = game.draw()
            if drawn is not None:
                game.hand_add(q, drawn)


@card(Card.TITUS_DEEPGAZE)
class TitusDeepgaze(Behaviour):
    def end_of_round(self, game, player, copies, reserve):
        titus = [i for i in game.in_play[player] if CARD_OF[i] == self.card]
        for instance in titus:
            unpaid = False
            for q in game.opponents(player):
                if game.transfer_crystals(q, player, K.TITUS_CRYSTALS) == 0:
                    unpaid = True
            if unpaid:
                game.sacrifice(player, instance)


@card(Card.AIR_ELEMENTAL)
class AirElemental(Behaviour):
    def on_summon(self, game, player, instance, effects):
        for q in game.opponents(player):
            game.reserve[q] = (0, 0, 0, sum(game.reserve[q]))


@card(Card.THIEVING_FAIRIES)
class ThievingFairies(Behaviour):
    """Read by the engine at every activation (``activate``)."""


@card(Card.CURSED_TREATISE_OF_ARUS)
class CursedTreatiseOfArus(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.add_gauge(player, K.CURSED_TREATISE_GAUGE)
        game.gain_crystals(player, K.CURSED_TREATISE_CRYSTALS)
        game.gain_tokens_of_choice(player, K.CURSED_TREATISE_TOKENS)

    def on_leave(self, game, player, instance, sacrificed):
        if sacrificed:
            game.reserve[player] = (0, 0, 0, 0)


@card(Card.IDOL_OF_THE_FAMILIAR)
class IdolOfTheFamiliar(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_crystals(player, K.IDOL_CRYSTALS)

    def can_activate(self, game, player, instance):
        return True

    def activate(self, game, player, instance):
        game.gain_crystals(player, sum(1 for i in game.in_play[player] if not IS_ITEM[CARD_OF[i]]))


def _opt_kriss(game: State, task: Task) -> list[int]:
    p = task[1]
    from_hand = card_options(c for c in game.hand[p] if not IS_ITEM[c])
    in_play = in_play_options(game, p, lambda inst: not IS_ITEM[CARD_OF[inst]])
    return from_hand + in_play


def _res_kriss(game: State, task: Task, action: int) -> None:
    p = task[1]
    if A.is_in_play_choice(action):
        game.sacrifice(p, A.instance_of_choice(action))
    else:
        chosen = A.card_of_choice(action)
        game.hand_remove(p, chosen)
        game.discard(chosen)
    game.gain_tokens_of_choice(p, K.NECROTIC_KRISS_TOKENS)


KRISS_TARGET = steps.decision(
    "necrotic_kriss",
    _opt_kriss,
    _res_kriss,
    doc="Necrotic Kriss: a familiar to discard from hand or sacrifice",
    private=cards_in_hand,
)


@card(Card.NECROTIC_KRISS)
class NecroticKriss(Behaviour):
    activation_reads_hand = True  # offered only with a familiar in hand or in play

    def can_activate(self, game, player, instance):
        return any(not IS_ITEM[c] for c in game.hand[player]) or any(
            not IS_ITEM[CARD_OF[i]] for i in game.in_play[player]
        )

    def activate(self, game, player, instance):
        game.push((KRISS_TARGET, player))


@card(Card.LANTERN_OF_XIDIT)
class LanternOfXidit(Behaviour):
    def end_of_game(self, game, player, copies):
        return K.LANTERN_PRESTIGE * sum(game.reserve[player]) * copies


@card(Card.SEALED_CHEST_OF_URM)
class SealedChestOfUrm(Behaviour):
    def end_of_game(self, game, player, copies):
        if all(IS_ITEM[CARD_OF[i]] for i in game.in_play[player]):
            return K.SEALED_CHEST_PRESTIGE * copies
        return 0


def _opt_mirror_from(game: State, task: Task) -> list[int]:
    return [A.CHOOSE_ENERGY_ACTIONS[t] for t in range(4) if game.reserve[task[1]][t]]


def _res_mirror_from(game: State, task: Task, action: int) -> None:
    game.push((MIRROR_COUNT, task[1], A.energy_of_choice(action)))


def _opt_mirror_count(game: State, task: Task) -> list[int]:
    _, p, t = task
    most = min(game.reserve[p][t], game.crystals[p], A.MAX_NUMBER)
    return [A.choose_number_action(x) for x in range(1, most + 1)]


def _res_mirror_count(game: State, task: Task, action: int) -> None:
    _, p, t = task
    game.push((MIRROR_TO, p, t, A.number_of_choice(action)))


def _res_mirror_to(game: State, task: Task, action: int) -> None:
    _, p, source, count = task
    target = A.energy_of_choice(action)
    game.crystals[p] -= count
    thieving_fairies(game, p)  # after the cost (RULES.md 8.41)
    game.remove_token(p, source, count)
    game.add_token(p, target, count)


MIRROR_FROM = steps.decision("mirror_from", _opt_mirror_from, _res_mirror_from, doc="Mirror: the type given up")
MIRROR_COUNT = steps.decision(
    "mirror_count", _opt_mirror_count, _res_mirror_count, ("energy",), doc="Mirror of the Seasons: X"
)


def _opt_mirror_to(game: State, task: Task) -> list[int]:
    _, p, source, count = task
    if game.reserve[p][source] < count or game.crystals[p] < count:  # never so in play (X was chosen to fit)
        return []
    return [A.CHOOSE_ENERGY_ACTIONS[t] for t in range(4) if t != source]


MIRROR_TO = steps.decision(
    "mirror_to",
    _opt_mirror_to,
    _res_mirror_to,
    ("energy", "count"),
    doc="Mirror of the Seasons: the type received",
)


@card(Card.MIRROR_OF_THE_SEASONS)
class MirrorOfTheSeasons(Behaviour):
    crystal_cost = True

    def can_activate(self, game, player, instance):
        return game.crystals[player] >= 1 and sum(game.reserve[player]) > 0

    def activate(self, game, player, instance):
        game.push((MIRROR_FROM, player))


@card(Card.PENDANT_OF_RAGNOR)
class PendantOfRagnor(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_tokens_of_choice(player, other_items(game, player, instance))


@card(Card.SID_NIGHTSHADE)
class SidNightshade(Behaviour):
    def on_summon(self, game, player, instance, effects):
        mine = game.crystals[player]
        if all(mine > game.crystals[q] for q in game.opponents(player)):
            for q in game.opponents(player):
                game.transfer_crystals(q, player, K.SID_NIGHTSHADE_CRYSTALS)


def _opt_soul_water(game: State, task: Task) -> list[int]:
    _, p, instance = task
    if instance not in game.in_play[p]:  # never so in play; a position from a file may say otherwise
        return []
    return [A.pay_action(s, WATER) for s in (0, *game.amulet_sources(p)) if game.tokens_at(p, s)[WATER]]


def _res_soul_water(game: State, task: Task, action: int) -> None:
    _, p, instance = task
    game.spend_token(p, A.payment_of_action(action)[0], WATER)
    left = (p + 1) % game.num_players
    game.in_play[p] = tuple(i for i in game.in_play[p] if i != instance)
    game.in_play[left] = (*game.in_play[left], instance)
    game.tapped &= ~(1 << instance)


SOUL_PASS = steps.decision(
    "damned_soul_water",
    _opt_soul_water,
    _res_soul_water,
    ("instance",),
    doc="Damned Soul of Onys: the water token paid to pass it on",
)


@card(Card.DAMNED_SOUL_OF_ONYS)
class DamnedSoulOfOnys(Behaviour):
    def on_summon(self, game, player, instance, effects):
        game.gain_crystals(player, K.DAMNED_SOUL_CRYSTALS)
        game.add_token(player, WATER)

    def can_activate(self, game, player, instance):
        return game.spendable(player)[WATER] > 0

    def activate(self, game, player, instance):
        game.push((SOUL_PASS, player, instance))

    def end_of_round(self, game, player, copies, reserve):
        game.lose_crystals(player, K.DAMNED_SOUL_LOSS * copies)
