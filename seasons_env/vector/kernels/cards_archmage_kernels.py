"""The kernels of ``engine/cards_archmage.py``: the hooks of cards 31-50 and the decisions they ask (options and
resolutions) for one row of an array state. See ``machine.py`` for the dispatch and ``state_ops.py`` for the shared
operations.

``KINDS_HANDLED`` names the step kinds this module implements: every kind its engine counterpart registers.
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import card_constants as K
from seasons_env.engine import steps
from seasons_env.engine.data import AIR, ARCHMAGE_CARDS, EARTH, FIRE, NUM_CARDS, NUM_INSTANCES, WATER, Card

from . import kernel
from . import state_ops as ops
from .tables import AMULET_OF_WATER_INSTANCES, CARD_OF_INSTANCE, IS_ITEM_CARD, NO_VALUE, PRESTIGE_OF, STORED_ROW, column

TREE_CHOICE = steps.kind("tree_of_light")
ORB_CHOICE = steps.kind("crystal_orb")
ORB_DECIDE = steps.kind("crystal_orb_seen")
CAULDRON_FEED = steps.kind("glutton_cauldron")
CROWN_CHOICE = steps.kind("vampiric_crown")
CROWN_DISCARD_PICK = steps.kind("vampiric_crown_discard")
SKULL_SACRIFICE = steps.kind("dragon_skull")
KRISS_TARGET = steps.kind("necrotic_kriss")
MIRROR_FROM = steps.kind("mirror_from")
MIRROR_COUNT = steps.kind("mirror_count")
MIRROR_TO = steps.kind("mirror_to")
SOUL_PASS = steps.kind("damned_soul_water")
DISCARD_TOKENS = steps.kind("discard_tokens")
ENTER_PLAY = steps.kind("enter_play")

# Argument columns of the step rows this module reads.
_CAULDRON_INSTANCE = column("glutton_cauldron", "instance")
_SKULL_REMAINING = column("dragon_skull", "remaining")
_SKULL_AFTER = column("dragon_skull", "after")
_MIRROR_COUNT_ENERGY = column("mirror_count", "energy")
_MIRROR_TO_ENERGY = column("mirror_to", "energy")
_MIRROR_TO_COUNT = column("mirror_to", "count")
_SOUL_INSTANCE = column("damned_soul_water", "instance")

# Action ids, built and read through ``actions.py``'s pairs, as tables the kernels index.
ENERGY_ACTION = np.array(A.CHOOSE_ENERGY_ACTIONS, dtype=np.int64)  # by energy type
CARD_ACTION = np.array([-1, *(A.choose_card_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
NUMBER_ACTION = np.array([-1, *(A.choose_number_action(x) for x in range(1, A.MAX_NUMBER + 1))], dtype=np.int64)
PAY_WATER_ACTION = np.array([A.pay_action(source, WATER) for source in range(A.NUM_SOURCES)], dtype=np.int64)


def _inverse(action_of_value: dict[int, int]) -> np.ndarray:
    """``[action]``: the value an action names (-1 for actions of other groups)."""
    table = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)
    for value, action in action_of_value.items():
        table[action] = value
    return table


ENERGY_OF_CHOICE = _inverse({t: A.choose_energy_action(t) for t in range(4)})
CARD_OF_CHOICE = _inverse({c: A.choose_card_action(c) for c in range(1, NUM_CARDS + 1)})
INSTANCE_OF_CHOICE = _inverse({inst: A.choose_in_play_action(inst) for inst in range(NUM_INSTANCES)})
NUMBER_OF_CHOICE = _inverse({x: A.choose_number_action(x) for x in range(1, A.MAX_NUMBER + 1)})
SOURCE_OF_WATER_PAYMENT = _inverse({source: A.pay_action(source, WATER) for source in range(A.NUM_SOURCES)})
ALL_ENERGY = 0b1111

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements: every kind ``engine/cards_archmage.py``
#: registers (generated from the engine's registry, so a kind added there fails here until it is ported).
KINDS_HANDLED: tuple[str, ...] = steps.kinds_registered_by("seasons_env.engine.cards_archmage")
#: Card ids whose hooks this module implements.
CARDS_HANDLED: tuple[int, ...] = ARCHMAGE_CARDS  # from the card data

#: ``NOT_ITEM_INSTANCE[instance]``: the instance is a familiar (Necrotic Kriss's targets, Idol of the Familiar).
NOT_ITEM_INSTANCE = np.array([not IS_ITEM_CARD[CARD_OF_INSTANCE[k]] for k in range(NUM_INSTANCES)], dtype=np.bool_)


# ---------------------------------------------------------------------------- helpers


@kernel
def _top_card_available(s, i):
    return s.draw_count[i] > 0 or s.discard_count[i] > 0


@kernel
def _energy_options(s, i, player, out):
    """A CHOOSE_ENERGY option for each type the player's reserve holds."""
    count = 0
    for t in range(4):
        if s.reserve[i, player, t] > 0:
            out[count] = ENERGY_ACTION[t]
            count += 1
    return count


@kernel
def _hand_options(s, i, player, familiars_only, out, count):
    """``behaviour.card_options`` over the player's hand (only its familiars if ``familiars_only``), appended to
    ``out`` from index ``count``; returns the new count."""
    for c in range(1, s.hand.shape[2]):
        if s.hand[i, player, c] > 0 and not (familiars_only and IS_ITEM_CARD[c]):
            out[count] = CARD_ACTION[c]
            count += 1
    return count


# ---------------------------------------------------------------------------- decisions: options


@kernel
def _opt_tree(s, i, p, out):
    count = 0
    if s.crystals[i, p] >= K.TREE_OF_LIGHT_CRYSTALS:
        out[count] = A.TREE_BUY_ENERGY
        count += 1
    if ops.spendable(s, i, p).sum() > 0:
        out[count] = A.TREE_TRANSMUTE
        count += 1
    return count


@kernel
def _opt_orb(s, i, p, out):
    count = 0
    if _top_card_available(s, i):
        out[count] = A.ORB_LOOK
        count += 1
        if s.crystals[i, p] >= K.CRYSTAL_ORB_CRYSTALS:
            out[count] = A.ORB_MILL
            count += 1
    return count


@kernel
def _opt_orb_decide(s, i, p, out):
    out[0] = A.ORB_LEAVE
    if ops.has_room(s, i, p) and ops.spendable(s, i, p).sum() >= K.CRYSTAL_ORB_TOKENS:
        out[1] = A.ORB_PLAY
        return 2
    return 1


@kernel
def _opt_crown(s, i, p, out):
    count = 0
    if _top_card_available(s, i):
        out[count] = A.CROWN_DRAW
        count += 1
    if ops.hand_size(s, i, p) > 0:
        out[count] = A.CROWN_DISCARD
        count += 1
    return count


@kernel
def _opt_skull(s, i, p, remaining, after, out):
    # Instances of the player above ``after``, in increasing order; each option must leave enough later cards to
    # complete the three (the reference slices ``later[: len(later) - remaining + 1]``, Python's slice rules).
    held = np.sort(s.in_play[i, p, : s.in_play_count[i, p]].astype(np.int64))
    later = held[held > after]
    size = later.shape[0]
    stop = size - remaining + 1
    if stop < 0:
        stop = max(0, stop + size)
    stop = min(stop, size)
    accept = np.zeros(NUM_INSTANCES, dtype=np.bool_)
    for k in range(stop):
        accept[later[k]] = True
    return ops.in_play_options(s, i, p, accept, out, 0)


@kernel
def _opt_kriss(s, i, p, out):
    count = _hand_options(s, i, p, True, out, 0)
    return ops.in_play_options(s, i, p, NOT_ITEM_INSTANCE, out, count)


@kernel
def _opt_mirror_count(s, i, p, t, out):
    most = min(np.int64(s.reserve[i, p, t]), np.int64(s.crystals[i, p]), A.MAX_NUMBER)
    count = 0
    for x in range(1, most + 1):
        out[count] = NUMBER_ACTION[x]
        count += 1
    return count


@kernel
def _opt_mirror_to(s, i, p, source, number, out):
    if s.reserve[i, p, source] < number or s.crystals[i, p] < number:  # never so in play (X was chosen to fit)
        return 0
    count = 0
    for t in range(4):
        if t != source:
            out[count] = ENERGY_ACTION[t]
            count += 1
    return count


@kernel
def _opt_soul_water(s, i, p, instance, out):
    if not ops.instance_in_play(s, i, p, instance):  # never so in play; a position from a file may say otherwise
        return 0
    count = 0
    if ops.tokens_at(s, i, p, 0, WATER) > 0:
        out[count] = PAY_WATER_ACTION[0]
        count += 1
    for k in range(2):
        if ops.instance_in_play(s, i, p, AMULET_OF_WATER_INSTANCES[k]) and ops.tokens_at(s, i, p, k + 1, WATER) > 0:
            out[count] = PAY_WATER_ACTION[k + 1]
            count += 1
    return count


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    p = task[1]
    if kind == TREE_CHOICE:
        return _opt_tree(s, i, p, out)
    if kind == ORB_CHOICE:
        return _opt_orb(s, i, p, out)
    if kind == ORB_DECIDE:
        return _opt_orb_decide(s, i, p, out)
    if kind == CAULDRON_FEED:
        if not ops.instance_in_play(s, i, p, task[_CAULDRON_INSTANCE]):  # never so in play (a file may say otherwise)
            return 0
        return _energy_options(s, i, p, out)
    if kind == CROWN_CHOICE:
        return _opt_crown(s, i, p, out)
    if kind == CROWN_DISCARD_PICK:
        return _hand_options(s, i, p, False, out, 0)
    if kind == SKULL_SACRIFICE:
        return _opt_skull(s, i, p, task[_SKULL_REMAINING], task[_SKULL_AFTER], out)
    if kind == KRISS_TARGET:
        return _opt_kriss(s, i, p, out)
    if kind == MIRROR_FROM:
        return _energy_options(s, i, p, out)
    if kind == MIRROR_COUNT:
        return _opt_mirror_count(s, i, p, task[_MIRROR_COUNT_ENERGY], out)
    if kind == MIRROR_TO:
        return _opt_mirror_to(s, i, p, task[_MIRROR_TO_ENERGY], task[_MIRROR_TO_COUNT], out)
    if kind == SOUL_PASS:
        return _opt_soul_water(s, i, p, task[_SOUL_INSTANCE], out)
    raise ValueError("options: a step kind this module does not handle")


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    if kind == CROWN_DISCARD_PICK:
        return ops.hand_size(s, i, task[1]) > 1  # several_cards_in_hand
    if kind == KRISS_TARGET:
        return ops.hand_size(s, i, task[1]) > 0  # cards_in_hand
    return False


# ---------------------------------------------------------------------------- decisions: resolutions


@kernel
def _res_tree(s, i, p, action):
    if action == A.TREE_BUY_ENERGY:
        s.crystals[i, p] -= K.TREE_OF_LIGHT_CRYSTALS
        ops.thieving_fairies(s, i, p)  # after the cost (RULES.md 8.41)
        ops.gain_tokens_of_choice(s, i, p, K.TREE_OF_LIGHT_TOKENS, NO_VALUE)
    else:
        ops.thieving_fairies(s, i, p)  # the token discarded moves no crystal
        s.turn_flags[i] |= ops.TRANSMUTE_ABILITY
        ops.push(s, i, DISCARD_TOKENS, p, K.TREE_OF_LIGHT_DISCARD, 0)


@kernel
def _res_orb(s, i, p, action):
    if action == A.ORB_MILL:
        s.crystals[i, p] -= K.CRYSTAL_ORB_CRYSTALS
        ops.thieving_fairies(s, i, p)  # after the cost (RULES.md 8.41)
        ops.discard(s, i, ops.draw(s, i))
        return
    ops.thieving_fairies(s, i, p)  # looking costs nothing
    top = ops.draw(s, i)  # the top card, the discard pile reshuffled first if the draw pile is empty; it goes back
    s.draw_pile[i, s.draw_count[i]] = top
    s.draw_count[i] += 1
    s.orb_seen[i, 0] = p
    s.orb_seen[i, 1] = top
    ops.push(s, i, ORB_DECIDE, p, top)


@kernel
def _res_orb_decide(s, i, p, action):
    if action == A.ORB_PLAY:
        card = ops.draw(s, i)
        ops.to_limbo(s, i, card)
        ops.push(s, i, ENTER_PLAY, p, card, 0, ALL_ENERGY)
        ops.push(s, i, DISCARD_TOKENS, p, K.CRYSTAL_ORB_TOKENS, 0)


@kernel
def _res_cauldron(s, i, p, instance, action):
    t = ENERGY_OF_CHOICE[action]
    ops.remove_token(s, i, p, t, 1)
    ops.store_token(s, i, instance, t)
    row = STORED_ROW[instance]
    stored = s.stored[i, row].astype(np.int64)
    if stored.sum() >= K.GLUTTON_CAULDRON_TOKENS:
        ops.sacrifice(s, i, p, instance)
        ops.add_tokens(s, i, p, stored[0], stored[1], stored[2], stored[3])
        ops.gain_crystals(s, i, p, K.GLUTTON_CAULDRON_CRYSTALS)


@kernel
def _res_crown(s, i, p, action):
    if action == A.CROWN_DRAW:
        drawn = ops.draw(s, i)
        ops.hand_add(s, i, p, drawn)
        ops.gain_tokens_of_choice(s, i, p, max(0, PRESTIGE_OF[drawn]), NO_VALUE)
    else:
        ops.push(s, i, CROWN_DISCARD_PICK, p)


@kernel
def _res_crown_discard(s, i, p, action):
    chosen = CARD_OF_CHOICE[action]
    ops.hand_remove(s, i, p, chosen)
    ops.discard(s, i, chosen)
    ops.gain_tokens_of_choice(s, i, p, max(0, PRESTIGE_OF[chosen]), NO_VALUE)


@kernel
def _res_skull(s, i, p, remaining, action):
    instance = INSTANCE_OF_CHOICE[action]
    ops.sacrifice(s, i, p, instance)
    if remaining > 1:
        ops.push(s, i, SKULL_SACRIFICE, p, remaining - 1, instance)
    else:
        ops.gain_crystals(s, i, p, K.DRAGON_SKULL_CRYSTALS)


@kernel
def _res_kriss(s, i, p, action):
    if INSTANCE_OF_CHOICE[action] >= 0:
        ops.sacrifice(s, i, p, INSTANCE_OF_CHOICE[action])
    else:
        chosen = CARD_OF_CHOICE[action]
        ops.hand_remove(s, i, p, chosen)
        ops.discard(s, i, chosen)
    ops.gain_tokens_of_choice(s, i, p, K.NECROTIC_KRISS_TOKENS, NO_VALUE)


@kernel
def _res_mirror_to(s, i, p, source, number, action):
    target = ENERGY_OF_CHOICE[action]
    s.crystals[i, p] -= number
    ops.thieving_fairies(s, i, p)  # after the cost (RULES.md 8.41)
    ops.remove_token(s, i, p, source, number)
    ops.add_token(s, i, p, target, number)


@kernel
def _res_soul_water(s, i, p, instance, action):
    ops.spend_token(s, i, p, SOURCE_OF_WATER_PAYMENT[action], WATER)
    left = (p + 1) % ops.num_players(s)
    count = s.in_play_count[i, p]
    at = 0
    for k in range(count):
        if s.in_play[i, p, k] != instance:
            s.in_play[i, p, at] = s.in_play[i, p, k]
            at += 1
    for k in range(at, count):
        s.in_play[i, p, k] = 0
    s.in_play_count[i, p] = at
    ops.add_to_play(s, i, left, instance)  # even over the left player's gauge
    s.tapped[i, instance] = False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    p = task[1]
    if kind == TREE_CHOICE:
        _res_tree(s, i, p, action)
    elif kind == ORB_CHOICE:
        _res_orb(s, i, p, action)
    elif kind == ORB_DECIDE:
        _res_orb_decide(s, i, p, action)
    elif kind == CAULDRON_FEED:
        _res_cauldron(s, i, p, task[_CAULDRON_INSTANCE], action)
    elif kind == CROWN_CHOICE:
        _res_crown(s, i, p, action)
    elif kind == CROWN_DISCARD_PICK:
        _res_crown_discard(s, i, p, action)
    elif kind == SKULL_SACRIFICE:
        _res_skull(s, i, p, task[_SKULL_REMAINING], action)
    elif kind == KRISS_TARGET:
        _res_kriss(s, i, p, action)
    elif kind == MIRROR_FROM:
        ops.push(s, i, MIRROR_COUNT, p, ENERGY_OF_CHOICE[action])
    elif kind == MIRROR_COUNT:
        ops.push(s, i, MIRROR_TO, p, task[_MIRROR_COUNT_ENERGY], NUMBER_OF_CHOICE[action])
    elif kind == MIRROR_TO:
        _res_mirror_to(s, i, p, task[_MIRROR_TO_ENERGY], task[_MIRROR_TO_COUNT], action)
    elif kind == SOUL_PASS:
        _res_soul_water(s, i, p, task[_SOUL_INSTANCE], action)
    else:
        raise ValueError("resolve: a step kind this module does not handle")


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``): this module registers none."""
    raise ValueError("run_step: a step kind this module does not handle")


# ---------------------------------------------------------------------------- card hooks (engine/behaviour.py)


@kernel
def _count_in_play(s, i, player, familiars, besides):
    """The player's familiars (or items) in play, ``besides`` left out (``behaviour.other_items``: -1 for none)."""
    found = 0
    for k in range(s.in_play_count[i, player]):
        inst = s.in_play[i, player, k]
        if inst != besides and NOT_ITEM_INSTANCE[inst] == familiars:
            found += 1
    return found


@kernel
def _elemental_amulet(s, i, player, effects):
    if (effects >> EARTH) & 1:
        ops.gain_crystals(s, i, player, K.ELEMENTAL_AMULET_CRYSTALS)
    if (effects >> FIRE) & 1:
        drawn = ops.draw(s, i)
        if drawn != 0:
            ops.hand_add(s, i, player, drawn)
    if (effects >> AIR) & 1:
        ops.add_gauge(s, i, player, K.ELEMENTAL_AMULET_GAUGE)
    if (effects >> WATER) & 1:
        ops.gain_tokens_of_choice(s, i, player, K.ELEMENTAL_AMULET_TOKENS, NO_VALUE)


@kernel
def _sid_nightshade(s, i, player):
    n = ops.num_players(s)
    mine = s.crystals[i, player]
    for k in range(1, n):
        if not mine > s.crystals[i, (player + k) % n]:
            return
    for k in range(1, n):
        ops.transfer_crystals(s, i, (player + k) % n, player, K.SID_NIGHTSHADE_CRYSTALS)


@kernel
def on_summon(s, i, player, instance, effects):
    """``Behaviour.on_summon`` of the card of ``instance``; ``effects``: Elemental Amulet's paid types (bits)."""
    card = CARD_OF_INSTANCE[instance]
    n = ops.num_players(s)
    if card == Card.ELEMENTAL_AMULET:
        _elemental_amulet(s, i, player, effects)
    elif card == Card.VAMPIRIC_CROWN:
        ops.push(s, i, CROWN_CHOICE, player)
    elif card == Card.DEMON_OF_ARGOS:
        for k in range(1, n):
            q = (player + k) % n
            ops.add_gauge(s, i, q, -K.DEMON_OF_ARGOS_GAUGE)
            drawn = ops.draw(s, i)
            if drawn != 0:
                ops.hand_add(s, i, q, drawn)
    elif card == Card.AIR_ELEMENTAL:
        for k in range(1, n):
            q = (player + k) % n
            total = ops.reserve_total(s, i, q)
            for t in range(3):
                s.reserve[i, q, t] = 0
            s.reserve[i, q, 3] = total
    elif card == Card.CURSED_TREATISE_OF_ARUS:
        ops.add_gauge(s, i, player, K.CURSED_TREATISE_GAUGE)
        ops.gain_crystals(s, i, player, K.CURSED_TREATISE_CRYSTALS)
        ops.gain_tokens_of_choice(s, i, player, K.CURSED_TREATISE_TOKENS, NO_VALUE)
    elif card == Card.IDOL_OF_THE_FAMILIAR:
        ops.gain_crystals(s, i, player, K.IDOL_CRYSTALS)
    elif card == Card.PENDANT_OF_RAGNOR:
        ops.gain_tokens_of_choice(s, i, player, _count_in_play(s, i, player, False, instance), NO_VALUE)
    elif card == Card.SID_NIGHTSHADE:
        _sid_nightshade(s, i, player)
    elif card == Card.DAMNED_SOUL_OF_ONYS:
        ops.gain_crystals(s, i, player, K.DAMNED_SOUL_CRYSTALS)
        ops.add_token(s, i, player, WATER, 1)


@kernel
def _kriss_has_target(s, i, player):
    for c in range(1, s.hand.shape[2]):
        if s.hand[i, player, c] > 0 and not IS_ITEM_CARD[c]:
            return True
    return _count_in_play(s, i, player, True, -1) > 0


@kernel
def can_activate(s, i, player, instance):
    card = CARD_OF_INSTANCE[instance]
    if card == Card.TREE_OF_LIGHT:
        return s.crystals[i, player] >= K.TREE_OF_LIGHT_CRYSTALS or ops.spendable(s, i, player).sum() > 0
    if card == Card.CRYSTAL_ORB:
        return _top_card_available(s, i)
    if card == Card.GLUTTON_CAULDRON:
        return ops.reserve_total(s, i, player) > 0
    if card == Card.DRAGON_SKULL:
        return s.in_play_count[i, player] >= K.DRAGON_SKULL_CARDS
    if card == Card.IDOL_OF_THE_FAMILIAR:
        return True
    if card == Card.NECROTIC_KRISS:
        return _kriss_has_target(s, i, player)
    if card == Card.MIRROR_OF_THE_SEASONS:
        return s.crystals[i, player] >= 1 and ops.reserve_total(s, i, player) > 0
    if card == Card.DAMNED_SOUL_OF_ONYS:
        return ops.spendable(s, i, player)[WATER] > 0
    return False


@kernel
def activate(s, i, player, instance):
    card = CARD_OF_INSTANCE[instance]
    if card == Card.TREE_OF_LIGHT:
        ops.push(s, i, TREE_CHOICE, player)
    elif card == Card.CRYSTAL_ORB:
        ops.push(s, i, ORB_CHOICE, player)
    elif card == Card.GLUTTON_CAULDRON:
        ops.push(s, i, CAULDRON_FEED, player, instance)
    elif card == Card.DRAGON_SKULL:
        ops.push(s, i, SKULL_SACRIFICE, player, K.DRAGON_SKULL_CARDS, NO_VALUE)
    elif card == Card.IDOL_OF_THE_FAMILIAR:
        ops.gain_crystals(s, i, player, _count_in_play(s, i, player, True, -1))
    elif card == Card.NECROTIC_KRISS:
        ops.push(s, i, KRISS_TARGET, player)
    elif card == Card.MIRROR_OF_THE_SEASONS:
        ops.push(s, i, MIRROR_FROM, player)
    elif card == Card.DAMNED_SOUL_OF_ONYS:
        ops.push(s, i, SOUL_PASS, player, instance)
    else:
        raise ValueError("activate: the card has no activation")


@kernel
def _titus_deepgaze(s, i, player):
    # The Titus instances in play as the effect starts, in play order: each takes 1 crystal from every opponent,
    # and is sacrificed if one could not pay.
    titus = np.empty(2, dtype=np.int64)
    held = 0
    for k in range(s.in_play_count[i, player]):
        inst = s.in_play[i, player, k]
        if CARD_OF_INSTANCE[inst] == Card.TITUS_DEEPGAZE:
            titus[held] = inst
            held += 1
    n = ops.num_players(s)
    for m in range(held):
        unpaid = False
        for k in range(1, n):
            if ops.transfer_crystals(s, i, (player + k) % n, player, K.TITUS_CRYSTALS) == 0:
                unpaid = True
        if unpaid:
            ops.sacrifice(s, i, player, titus[m])


@kernel
def end_of_round(s, i, player, card, copies, reserve):
    """``Behaviour.end_of_round``; ``reserve``: the player's reserve as the round ended (int64 ``[4]``)."""
    if card == Card.TITUS_DEEPGAZE:
        _titus_deepgaze(s, i, player)
    elif card == Card.DAMNED_SOUL_OF_ONYS:
        ops.lose_crystals(s, i, player, K.DAMNED_SOUL_LOSS * copies)


@kernel
def season_change(s, i, player, card, copies, by_boots):
    """No card of 31-50 acts on a season change."""


@kernel
def end_of_game(s, i, player, card, copies):
    """Crystals the card gives at the end of the game."""
    if card == Card.LANTERN_OF_XIDIT:
        return K.LANTERN_PRESTIGE * ops.reserve_total(s, i, player) * copies
    if card == Card.SEALED_CHEST_OF_URM:
        return np.int64(K.SEALED_CHEST_PRESTIGE * copies if _count_in_play(s, i, player, True, -1) == 0 else 0)
    return np.int64(0)
