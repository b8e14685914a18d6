"""The kernels of ``engine/cards_basic.py``: the hooks of cards 1-30 and the step kinds they register (automatic
steps, decisions' options and resolutions) for one row of an array state. See ``machine.py`` for the dispatch and
``state_ops.py`` for the shared operations.

``KINDS_HANDLED`` names the step kinds this module implements: every kind its engine counterpart registers. Each hook
dispatches on the card id; a card without a given hook behaves as ``Behaviour``'s default (no effect,
``can_activate`` False, ``end_of_game`` 0).
"""

from __future__ import annotations

import numpy as np

from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.card_constants import (
    AMULET_OF_AIR_GAUGE,
    AMULET_OF_EARTH_CRYSTALS,
    AMULET_OF_FIRE_DRAWN,
    AMULET_OF_WATER_TOKENS,
    BALANCE_OF_ISHTAR_CRYSTALS,
    BALANCE_OF_ISHTAR_TOKENS,
    BEGGARS_HORN_MAX_TOKENS,
    BESPELLED_GRIMOIRE_TOKENS,
    DIE_OF_MALICE_CRYSTALS,
    DIVINE_CHALICE_DRAWN,
    FIGRIM_CRYSTALS,
    KAIRN_CRYSTALS,
    KAIRN_TOKENS,
    OLAFS_STATUE_CRYSTALS,
    POTION_OF_KNOWLEDGE_TOKENS,
    POTION_OF_LIFE_CRYSTALS,
    POTION_OF_POWER_GAUGE,
    RAGFIELDS_HELM_PRESTIGE,
    SCEPTER_CRYSTALS,
    WONDROUS_CHEST_CRYSTALS,
    WONDROUS_CHEST_MIN_TOKENS,
)
from seasons_env.engine.data import BASIC_CARDS, CARD_OF, FACES_PER_DIE, IS_ITEM, NUM_CARDS, NUM_INSTANCES, Card

from . import kernel
from .state_ops import (
    add_gauge,
    add_tokens,
    below,
    count_in_play,
    discard,
    draw,
    draw_into_limbo,
    from_limbo,
    gain_crystals,
    gain_tokens_of_choice,
    hand_add,
    hand_remove,
    hand_size,
    in_play_options,
    leave_play,
    lose_crystals,
    move_marker,
    num_players,
    push,
    push_row,
    put_into_play_free,
    reserve_total,
    sacrifice,
    spendable,
    transfer_crystals,
    transmute_bonus,
)
from .tables import NO_VALUE, STEP_WIDTH, column, width

# ---------------------------------------------------------------------------- step kinds

BALANCE_TYPE = steps.kind("balance_of_ishtar")
BOOTS_MOVE = steps.kind("temporal_boots")
CHALICE_PICK = steps.kind("divine_chalice")
SYLLAS_SACRIFICE = steps.kind("syllas_sacrifice")
NARIA_KEEP = steps.kind("naria_keep")
NARIA_GIVE = steps.kind("naria_give")
KAIRN_EFFECT = steps.kind("kairn_effect")
AMSUG_RETURN = steps.kind("amsug_return")
LEWIS_TARGET = steps.kind("lewis_greyface")
DREAMS_PICK = steps.kind("potion_of_dreams")
KEEP_ONE = steps.kind("keep_one")
PAYMENT = steps.kind("payment")
DISCARD_TOKENS = steps.kind("discard_tokens")

#: Step kinds (names from ``steps.KINDS``) whose rules this module implements: every kind ``engine/cards_basic.py``
#: registers (generated from the engine's registry, so a kind added there fails here until it is ported).
KINDS_HANDLED: tuple[str, ...] = steps.kinds_registered_by("seasons_env.engine.cards_basic")
#: Card ids whose hooks this module implements.
CARDS_HANDLED: tuple[int, ...] = BASIC_CARDS  # from the card data

# Where the arguments sit in a step row. ``push(s, i, kind, player, a0, ...)`` writes a0 at column 2, and the
# steps pushed here take their arguments in that order (checked below, so a layout change fails at import).
_CARDS = column("keep_one", "cards")
_CARDS_WIDTH = width("keep_one", "cards")
_GIVE_CARDS_WIDTH = width("naria_give", "cards")
_RECIPIENTS = column("naria_give", "recipients")
_RECIPIENTS_WIDTH = width("naria_give", "recipients")


def _check_layout() -> None:
    for name in ("divine_chalice", "naria_keep"):
        if (column(name, "cards"), width(name, "cards")) != (_CARDS, _CARDS_WIDTH):
            raise RuntimeError(f"step {name!r}: its cards no longer sit where keep_one's do")
    expected = {
        ("naria_give", "cards"): 2,
        ("naria_give", "recipients"): 2 + _GIVE_CARDS_WIDTH,
        ("payment", "need"): 2,
        ("payment", "waivers"): 6,
        ("payment", "from_type"): 7,
        ("discard_tokens", "count"): 2,
        ("discard_tokens", "from_action"): 3,
    }
    for (name, arg), start in expected.items():
        if column(name, arg) != start:
            raise RuntimeError(f"step {name!r}: argument {arg!r} moved from column {start}")


_check_layout()

# ---------------------------------------------------------------------------- cards and actions

_AMULET_OF_AIR = int(Card.AMULET_OF_AIR)
_AMULET_OF_FIRE = int(Card.AMULET_OF_FIRE)
_AMULET_OF_EARTH = int(Card.AMULET_OF_EARTH)
_AMULET_OF_WATER = int(Card.AMULET_OF_WATER)
_BALANCE_OF_ISHTAR = int(Card.BALANCE_OF_ISHTAR)
_TEMPORAL_BOOTS = int(Card.TEMPORAL_BOOTS)
_PURSE_OF_IO = int(Card.PURSE_OF_IO)
_DIVINE_CHALICE = int(Card.DIVINE_CHALICE)
_SYLLAS = int(Card.SYLLAS_THE_FAITHFUL)
_FIGRIM = int(Card.FIGRIM_THE_AVARICIOUS)
_NARIA = int(Card.NARIA_THE_PROPHETESS)
_WONDROUS_CHEST = int(Card.WONDROUS_CHEST)
_BEGGARS_HORN = int(Card.BEGGARS_HORN)
_DIE_OF_MALICE = int(Card.DIE_OF_MALICE)
_KAIRN = int(Card.KAIRN_THE_DESTROYER)
_AMSUG = int(Card.AMSUG_LONGNECK)
_BESPELLED_GRIMOIRE = int(Card.BESPELLED_GRIMOIRE)
_RAGFIELDS_HELM = int(Card.RAGFIELDS_HELM)
_LEWIS = int(Card.LEWIS_GREYFACE)
_POTION_OF_POWER = int(Card.POTION_OF_POWER)
_POTION_OF_DREAMS = int(Card.POTION_OF_DREAMS)
_POTION_OF_KNOWLEDGE = int(Card.POTION_OF_KNOWLEDGE)
_POTION_OF_LIFE = int(Card.POTION_OF_LIFE)
_HOURGLASS = int(Card.HOURGLASS_OF_TIME)
_SCEPTER = int(Card.SCEPTER_OF_GREATNESS)
_OLAFS_STATUE = int(Card.OLAFS_BLESSED_STATUE)


def _choice_tables() -> tuple[np.ndarray, ...]:
    """Action ids and what they choose, from ``actions.py``'s pairs (never range arithmetic in a kernel):
    ``CHOSEN[action]``: the energy, card, instance, opponent offset or season move a choice action names (-1 for
    other actions); the choice actions by energy, card id, opponent offset, and by index of ``SEASON_MOVES``."""
    decoders = {
        "CHOOSE_ENERGY": A.energy_of_choice,
        "CHOOSE_CARD": A.card_of_choice,
        "CHOOSE_IN_PLAY": A.instance_of_choice,
        "CHOOSE_OPPONENT": A.opponent_offset_of_choice,
        "MOVE_SEASON": A.season_move_of_action,
    }
    chosen = np.full(A.NUM_ACTIONS, NO_VALUE, dtype=np.int64)
    offsets = 0
    for action in range(A.NUM_ACTIONS):
        name, _ = A.decode(action)
        if name in decoders:
            chosen[action] = decoders[name](action)
            offsets += name == "CHOOSE_OPPONENT"
    energy = np.array([A.choose_energy_action(t) for t in range(4)], dtype=np.int64)
    card = np.array([NO_VALUE, *(A.choose_card_action(c) for c in range(1, NUM_CARDS + 1))], dtype=np.int64)
    opponent = np.array([NO_VALUE, *(A.choose_opponent_action(o) for o in range(1, offsets + 1))], dtype=np.int64)
    move = np.array([A.move_season_action(m) for m in A.SEASON_MOVES], dtype=np.int64)
    return chosen, energy, card, opponent, move


_CHOSEN, _CHOOSE_ENERGY, _CHOOSE_CARD, _CHOOSE_OPPONENT, _MOVE_SEASON = _choice_tables()
_SEASON_MOVES = np.array(A.SEASON_MOVES, dtype=np.int64)
_ON_RESERVE = -1  # gain_tokens_of_choice's ``onto`` for the reserve

#: Instances ``in_play_options`` may offer: any (Syllas the Faithful), magic items only (Amsug Longneck).
_ANY_INSTANCE = np.ones(NUM_INSTANCES, dtype=np.bool_)
_ITEM_INSTANCE = np.array([IS_ITEM[CARD_OF[inst]] for inst in range(NUM_INSTANCES)], dtype=np.bool_)
_IS_ITEM_CARD = np.array(IS_ITEM, dtype=np.bool_)
#: Kinds whose options are the distinct cards of their ``cards`` argument (drawn cards held in limbo).
_HOLDS_CARDS = np.zeros(len(steps.KINDS), dtype=np.bool_)
_HOLDS_CARDS[[CHALICE_PICK, NARIA_KEEP, NARIA_GIVE]] = True
#: Cards whose activation is always offered (the potions that cost nothing but themselves).
_ALWAYS_ACTIVE = np.zeros(NUM_CARDS + 1, dtype=np.bool_)
_ALWAYS_ACTIVE[[_POTION_OF_POWER, _POTION_OF_KNOWLEDGE, _POTION_OF_LIFE]] = True


# ---------------------------------------------------------------------------- helpers


@kernel
def _read_list(task, start, size, out):
    """The entries of a list argument (``size`` columns from ``start``, ended by -1) into ``out``; how many."""
    count = 0
    for k in range(size):
        value = task[start + k]
        if value == NO_VALUE:
            break
        out[count] = value
        count += 1
    return count


@kernel
def _remove_first(values, count, value):
    """Remove the first ``value`` of ``values[:count]`` (later entries move down); the new count."""
    for k in range(count):
        if values[k] == value:
            for m in range(k, count - 1):
                values[m] = values[m + 1]
            return count - 1
    raise ValueError("a card decision named a card its step does not hold")


@kernel
def _card_options(cards, count, out):
    """``behaviour.card_options``: a CHOOSE_CARD action per distinct card of ``cards[:count]``, by card id."""
    seen = np.zeros(NUM_CARDS + 1, dtype=np.bool_)
    for k in range(count):
        seen[cards[k]] = True
    n = 0
    for c in range(1, NUM_CARDS + 1):
        if seen[c]:
            out[n] = _CHOOSE_CARD[c]
            n += 1
    return n


@kernel
def _push_cards(s, i, kind, player, cards, count, recipients, recipient_count):
    """Push ``(kind, player, cards)`` (``recipients`` too when ``recipient_count`` > 0: naria_give)."""
    row = np.full(STEP_WIDTH, NO_VALUE, dtype=np.int64)
    row[0] = kind
    row[1] = player
    for k in range(count):
        row[_CARDS + k] = cards[k]
    for k in range(recipient_count):
        row[_RECIPIENTS + k] = recipients[k]
    push_row(s, i, row)


@kernel
def _push_drawn(s, i, kind, player, drawn):
    """Push ``(kind, player, drawn cards)``: the cards just drawn are the last ``drawn`` entries of limbo."""
    cards = np.empty(_CARDS_WIDTH, dtype=np.int64)
    first = np.int64(s.limbo_count[i]) - drawn
    for k in range(drawn):
        cards[k] = s.limbo[i, first + k]
    _push_cards(s, i, kind, player, cards, drawn, cards, 0)


@kernel
def _to_limbo(s, i, card):
    count = s.limbo_count[i]
    if count >= s.limbo.shape[1]:
        raise ValueError("the cards in limbo of a row passed the array state's capacity")
    s.limbo[i, count] = card
    s.limbo_count[i] = count + 1


@kernel
def _other_items(s, i, player, instance):
    """``behaviour.other_items``: items the player has in play besides ``instance``."""
    found = 0
    for k in range(s.in_play_count[i, player]):
        inst = s.in_play[i, player, k]
        if inst != instance and _IS_ITEM_CARD[inst // 2 + 1]:
            found += 1
    return found


# ---------------------------------------------------------------------------- step kinds


@kernel
def run_step(s, i, kind, task):
    """Run the automatic step ``task`` (popped; its kind is in ``KINDS_HANDLED``)."""
    if kind == KAIRN_EFFECT:
        player = task[1]
        n = num_players(s)
        for k in range(1, n):
            lose_crystals(s, i, (player + k) % n, KAIRN_CRYSTALS)
    else:
        raise ValueError("run_step: a step kind this module does not handle")


@kernel
def options(s, i, kind, task, out):
    """Write the decision's legal action ids into ``out``, sorted and distinct; return how many."""
    player = task[1]
    if kind == BALANCE_TYPE:
        available = spendable(s, i, player)
        n = 0
        for t in range(4):
            if available[t] >= BALANCE_OF_ISHTAR_TOKENS:
                out[n] = _CHOOSE_ENERGY[t]
                n += 1
        return n
    if kind == BOOTS_MOVE:
        absolute = (np.int64(s.year[i]) - 1) * 12 + np.int64(s.position[i]) - 1
        n = 0
        for k in range(_SEASON_MOVES.shape[0]):
            if absolute + _SEASON_MOVES[k] >= 0:
                out[n] = _MOVE_SEASON[k]
                n += 1
        return n
    if _HOLDS_CARDS[kind]:
        cards = np.empty(_CARDS_WIDTH, dtype=np.int64)
        size = _GIVE_CARDS_WIDTH if kind == NARIA_GIVE else _CARDS_WIDTH
        return _card_options(cards, _read_list(task, _CARDS, size, cards), out)
    if kind == SYLLAS_SACRIFICE:
        return in_play_options(s, i, player, _ANY_INSTANCE, out, 0)
    if kind == AMSUG_RETURN:
        return in_play_options(s, i, player, _ITEM_INSTANCE, out, 0)
    if kind == LEWIS_TARGET:
        n = num_players(s)
        for offset in range(1, n):
            out[offset - 1] = _CHOOSE_OPPONENT[offset]
        return n - 1
    if kind == DREAMS_PICK:
        n = 0
        for c in range(1, NUM_CARDS + 1):
            if s.hand[i, player, c] > 0:
                out[n] = _CHOOSE_CARD[c]
                n += 1
        return n
    if i >= 0:  # always: the machine never calls this for an unhandled kind
        raise ValueError("options: a step kind this module does not handle")
    return 0


@kernel
def private(s, i, kind, task):
    """``StepKind.private``: whether the decision's options may hang on cards only its player sees."""
    if _HOLDS_CARDS[kind]:
        return task[_CARDS + 1] != NO_VALUE  # several_cards_held: more than one drawn card
    if kind == DREAMS_PICK:
        return hand_size(s, i, task[1]) > 1  # several_cards_in_hand
    return False


@kernel
def resolve(s, i, kind, task, action):
    """Resolve the decision ``task`` (popped) with the legal ``action``."""
    player = task[1]
    if kind == BALANCE_TYPE:
        t = _CHOSEN[action]
        bonus = transmute_bonus(s, i, player)
        gain_crystals(s, i, player, BALANCE_OF_ISHTAR_CRYSTALS + BALANCE_OF_ISHTAR_TOKENS * bonus)
        need = np.zeros(4, dtype=np.int64)
        need[t] = BALANCE_OF_ISHTAR_TOKENS
        push(s, i, PAYMENT, player, need[0], need[1], need[2], need[3], 0, 0)
    elif kind == BOOTS_MOVE:
        move_marker(s, i, _CHOSEN[action], True)
    elif kind == CHALICE_PICK:
        cards = np.empty(_CARDS_WIDTH, dtype=np.int64)
        chosen = _CHOSEN[action]
        count = _remove_first(cards, _read_list(task, _CARDS, _CARDS_WIDTH, cards), chosen)
        for k in range(count):
            discard(s, i, from_limbo(s, i, cards[k]))
        put_into_play_free(s, i, player, chosen)
    elif kind == SYLLAS_SACRIFICE:
        sacrifice(s, i, player, _CHOSEN[action])
    elif kind == NARIA_KEEP:
        cards = np.empty(_CARDS_WIDTH, dtype=np.int64)
        keep = _CHOSEN[action]
        count = _remove_first(cards, _read_list(task, _CARDS, _CARDS_WIDTH, cards), keep)
        hand_add(s, i, player, from_limbo(s, i, keep))
        if count > 0:
            n = num_players(s)
            opponents = np.empty(_RECIPIENTS_WIDTH, dtype=np.int64)
            for k in range(1, n):
                opponents[k - 1] = (player + k) % n
            _push_cards(s, i, NARIA_GIVE, player, cards, count, opponents, n - 1)
    elif kind == NARIA_GIVE:
        cards = np.empty(_GIVE_CARDS_WIDTH, dtype=np.int64)
        recipients = np.empty(_RECIPIENTS_WIDTH, dtype=np.int64)
        given = _CHOSEN[action]
        count = _remove_first(cards, _read_list(task, _CARDS, _GIVE_CARDS_WIDTH, cards), given)
        recipient_count = _read_list(task, _RECIPIENTS, _RECIPIENTS_WIDTH, recipients)
        hand_add(s, i, recipients[0], from_limbo(s, i, given))
        if count > 0 and recipient_count > 1:
            _push_cards(s, i, NARIA_GIVE, player, cards, count, recipients[1:], recipient_count - 1)
        else:
            for k in range(count):  # cannot happen: Naria draws one card per player
                discard(s, i, from_limbo(s, i, cards[k]))
    elif kind == AMSUG_RETURN:
        leave_play(s, i, player, _CHOSEN[action], True)
    elif kind == LEWIS_TARGET:
        target = (player + _CHOSEN[action]) % num_players(s)
        r = s.reserve[i, target]
        add_tokens(s, i, player, np.int64(r[0]), np.int64(r[1]), np.int64(r[2]), np.int64(r[3]))
    elif kind == DREAMS_PICK:
        chosen = _CHOSEN[action]
        hand_remove(s, i, player, chosen)
        _to_limbo(s, i, chosen)
        put_into_play_free(s, i, player, chosen)
    else:
        raise ValueError("resolve: a step kind this module does not handle")


# ---------------------------------------------------------------------------- card hooks (engine/behaviour.py)


@kernel
def on_summon(s, i, player, instance, effects):
    """``Behaviour.on_summon`` of the card of ``instance``; ``effects``: Elemental Amulet's paid types (bits)."""
    card = instance // 2 + 1
    n = num_players(s)
    if card == _AMULET_OF_AIR:
        add_gauge(s, i, player, AMULET_OF_AIR_GAUGE)
    elif card == _AMULET_OF_FIRE:
        drawn = draw_into_limbo(s, i, AMULET_OF_FIRE_DRAWN)
        if drawn > 0:
            _push_drawn(s, i, KEEP_ONE, player, drawn)
    elif card == _AMULET_OF_EARTH:
        gain_crystals(s, i, player, AMULET_OF_EARTH_CRYSTALS)
    elif card == _AMULET_OF_WATER:
        gain_tokens_of_choice(s, i, player, AMULET_OF_WATER_TOKENS, instance)
    elif card == _TEMPORAL_BOOTS:
        push(s, i, BOOTS_MOVE, player)
    elif card == _DIVINE_CHALICE:
        drawn = draw_into_limbo(s, i, DIVINE_CHALICE_DRAWN)
        if drawn > 0:
            _push_drawn(s, i, CHALICE_PICK, player, drawn)
    elif card == _SYLLAS:
        for k in range(n - 1, 0, -1):  # the first opponent (to the left) decides first
            push(s, i, SYLLAS_SACRIFICE, (player + k) % n)
    elif card == _NARIA:
        drawn = draw_into_limbo(s, i, n)
        if drawn > 0:
            _push_drawn(s, i, NARIA_KEEP, player, drawn)
    elif card == _AMSUG:
        for k in range(n - 1, 0, -1):  # the player first, then the opponents from its left
            push(s, i, AMSUG_RETURN, (player + k) % n)
        push(s, i, AMSUG_RETURN, player)
    elif card == _BESPELLED_GRIMOIRE:
        gain_tokens_of_choice(s, i, player, BESPELLED_GRIMOIRE_TOKENS, _ON_RESERVE)
    elif card == _LEWIS:
        push(s, i, LEWIS_TARGET, player)
    elif card == _SCEPTER:
        gain_crystals(s, i, player, SCEPTER_CRYSTALS * _other_items(s, i, player, instance))
    elif card == _OLAFS_STATUE:
        gain_crystals(s, i, player, OLAFS_STATUE_CRYSTALS)


@kernel
def can_activate(s, i, player, instance):
    card = instance // 2 + 1
    if card == _BALANCE_OF_ISHTAR:
        return spendable(s, i, player).max() >= BALANCE_OF_ISHTAR_TOKENS
    if card == _KAIRN:
        return spendable(s, i, player).sum() >= KAIRN_TOKENS
    if _ALWAYS_ACTIVE[card]:
        return True
    if card == _POTION_OF_DREAMS:
        # Offered only with a card in hand and room, counting the slot the potion frees.
        return hand_size(s, i, player) > 0 and s.gauge[i, player] >= s.in_play_count[i, player]
    return False


@kernel
def activate(s, i, player, instance):
    card = instance // 2 + 1
    if card == _BALANCE_OF_ISHTAR:
        push(s, i, BALANCE_TYPE, player)
    elif card == _DIE_OF_MALICE:
        gain_crystals(s, i, player, DIE_OF_MALICE_CRYSTALS)
        face = below(s, i, FACES_PER_DIE)
        for k in range(s.rolled_count[i]):
            if s.rolled[i, k, 2] == player:
                s.rolled[i, k, 1] = face
    elif card == _KAIRN:
        push(s, i, KAIRN_EFFECT, player)
        push(s, i, DISCARD_TOKENS, player, KAIRN_TOKENS, 0)
    elif card == _POTION_OF_POWER:
        sacrifice(s, i, player, instance)
        drawn = draw(s, i)
        if drawn != 0:
            hand_add(s, i, player, drawn)
        add_gauge(s, i, player, POTION_OF_POWER_GAUGE)
    elif card == _POTION_OF_DREAMS:
        sacrifice(s, i, player, instance)
        for t in range(4):
            s.reserve[i, player, t] = 0
        push(s, i, DREAMS_PICK, player)
    elif card == _POTION_OF_KNOWLEDGE:
        sacrifice(s, i, player, instance)
        gain_tokens_of_choice(s, i, player, POTION_OF_KNOWLEDGE_TOKENS, _ON_RESERVE)
    elif card == _POTION_OF_LIFE:
        sacrifice(s, i, player, instance)
        tokens = reserve_total(s, i, player)
        for t in range(4):
            s.reserve[i, player, t] = 0
        # Purse of Io counts; the transmute bonus does not (RULES.md 8.26).
        gain_crystals(s, i, player, tokens * (POTION_OF_LIFE_CRYSTALS + count_in_play(s, i, player, _PURSE_OF_IO)))
    else:
        raise ValueError("activate: a card without an activation")


@kernel
def end_of_round(s, i, player, card, copies, reserve):
    """``Behaviour.end_of_round``; ``reserve``: the player's reserve as the round ended (int64 ``[4]``)."""
    total = reserve[0] + reserve[1] + reserve[2] + reserve[3]
    if card == _WONDROUS_CHEST and total >= WONDROUS_CHEST_MIN_TOKENS:
        gain_crystals(s, i, player, WONDROUS_CHEST_CRYSTALS * copies)
    elif card == _BEGGARS_HORN and total <= BEGGARS_HORN_MAX_TOKENS:
        gain_tokens_of_choice(s, i, player, copies, _ON_RESERVE)


@kernel
def season_change(s, i, player, card, copies, by_boots):
    if card == _FIGRIM:
        n = num_players(s)
        for _ in range(copies):
            for k in range(1, n):
                transfer_crystals(s, i, (player + k) % n, player, FIGRIM_CRYSTALS)
    elif card == _HOURGLASS:
        if by_boots:  # Ruling (RULES.md 8.7): tokens from a Boots season change arrive at the end of the turn
            count = s.deferred_count[i]
            if count >= s.deferred_tokens.shape[1]:
                raise ValueError("the deferred Hourglass tokens of a row passed the array state's capacity")
            s.deferred_tokens[i, count, 0] = player
            s.deferred_tokens[i, count, 1] = copies
            s.deferred_count[i] = count + 1
        else:
            gain_tokens_of_choice(s, i, player, copies, _ON_RESERVE)


@kernel
def end_of_game(s, i, player, card, copies):
    """Crystals the card gives at the end of the game."""
    if card == _RAGFIELDS_HELM:
        mine = s.in_play_count[i, player]
        n = num_players(s)
        for k in range(1, n):
            if mine <= s.in_play_count[i, (player + k) % n]:
                return np.int64(0)
        return np.int64(RAGFIELDS_HELM_PRESTIGE * copies)
    return np.int64(0)
