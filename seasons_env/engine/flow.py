"""The flow of a game: the draft and the library split, rounds, dice, turns, seasons, years and the end.

A round is pushed as steps when it starts: ``choose_die`` for each seat, ``turn_start`` for each seat (the Die
of Malice window, the die's mandatory actions, then the ``turn`` menu), ``round_end_effects`` for each seat,
and ``move_marker``, which pushes the season-change effects, the library sets of a new year, and either
``next_round`` or ``game_end``. Each step kind is registered beside its functions; card effects are reached
through the behaviour registry (``behaviour.py``).
"""

from __future__ import annotations

from . import actions as A
from . import steps
from .behaviour import BEHAVIOUR, several_cards_held, several_cards_in_hand, thieving_fairies, turn_hangs_on_hand
from .data import (
    CARD_OF,
    DICE,
    FACES_PER_DIE,
    GAUGE_MAX,
    LIBRARY_SET_SIZE,
    MAX_BONUSES,
    NUM_YEARS,
    TRANSMUTE_RATE,
    Card,
    instance_of,
)
from .payment import EXCHANGE_DISCARD, GAIN_ENERGY, begin_summon_from_hand
from .state import TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED, State

Task = tuple

MALICE_INSTANCES = (instance_of(Card.DIE_OF_MALICE, 0), instance_of(Card.DIE_OF_MALICE, 1))
_ACTIVATABLE = frozenset(A.ACTIVATABLE_INSTANCES)  # instances with an activate action

# ---------------------------------------------------------------------------- the draft and the library split


def _opt_draft_pick(game: State, task: tuple) -> list[int]:
    return [A.choose_card_action(c) for c in sorted(set(game.draft_pack[task[1]]))]


def _res_draft_pick(game: State, task: tuple, action: int) -> None:
    p, card = task[1], A.card_of_choice(action)
    pack = list(game.draft_pack[p])
    pack.remove(card)
    game.draft_pack[p] = tuple(pack)
    game.hand_add(p, card)


DRAFT_PICK = steps.decision(
    "draft_pick",
    _opt_draft_pick,
    _res_draft_pick,
    doc="pick a card from the pack held",
    private=lambda game, task: len(game.draft_pack[task[1]]) > 1,
)


def _run_draft_pass(game: State, task: tuple) -> None:
    packs = game.draft_pack
    n = game.num_players
    for p in range(n):  # what each player saw and passed on (bit c for card c)
        for c in packs[p]:
            game.draft_seen[p] |= 1 << c
    game.draft_pack = [packs[(p - 1) % n] for p in range(n)]


DRAFT_PASS = steps.automatic("draft_pass", _run_draft_pass, doc="every pack passes to the left")


def library_steps(game: State) -> list[tuple]:
    """The library split of every player: 3 cards of the hand to year 2, then 3 to year 3."""
    tasks = []
    for p in range(game.num_players):
        tasks.extend((LIBRARY_SPLIT, p, 2) for _ in range(LIBRARY_SET_SIZE))
        tasks.extend((LIBRARY_SPLIT, p, 3) for _ in range(LIBRARY_SET_SIZE))
    return tasks


def _opt_library(game: State, task: tuple) -> list[int]:
    return [A.choose_card_action(c) for c in sorted(set(game.hand[task[1]]))]


def _res_library(game: State, task: tuple, action: int) -> None:
    p, year, card = task[1], task[2], A.card_of_choice(action)
    game.hand_remove(p, card)
    year2, year3 = game.library[p]
    if year == 2:
        year2 = tuple(sorted((*year2, card)))
    else:
        year3 = tuple(sorted((*year3, card)))
    game.library[p] = (year2, year3)


LIBRARY_SPLIT = steps.decision(
    "library_split",
    _opt_library,
    _res_library,
    ("year",),
    doc="put a card of the hand into the library set of a year",
    private=several_cards_in_hand,
)


# ---------------------------------------------------------------------------- a round: dice and turns


def _run_start_round(game: State, task: tuple) -> None:
    game.tapped = 0
    game.dice_season = game.season
    dice = game.game_dice[game.season]
    faces = game.chance.faces(len(dice), FACES_PER_DIE)
    game.rolled = tuple((d, f, -1) for d, f in zip(dice, faces, strict=True))
    order = game.turn_order()
    game.push(
        *((CHOOSE_DIE, p) for p in order),
        *((TURN_START, p) for p in order),
        *((ROUND_END_EFFECTS, p) for p in order),
        (MOVE_MARKER, 0),
    )


START_ROUND = steps.automatic("start_round", _run_start_round, doc="straighten cards, roll the season's dice")


def _opt_choose_die(game: State, task: tuple) -> list[int]:
    # One die per player; sorted. (Both always so in play; a position from a file may repeat the step or list
    # its game dice, so the rolled dice, in any order.)
    if any(owner == task[1] for _, _, owner in game.rolled):
        return []
    return sorted(A.take_die_action(d) for d, _, owner in game.rolled if owner < 0)


def _res_choose_die(game: State, task: tuple, action: int) -> None:
    die = A.die_of_action(action)
    game.rolled = tuple((d, f, task[1] if d == die else o) for d, f, o in game.rolled)


CHOOSE_DIE = steps.decision("choose_die", _opt_choose_die, _res_choose_die, doc="take one of the rolled dice")


def die_of(game: State, player: int) -> tuple[int, int] | None:
    """``(die, face)`` the player took this round."""
    for d, f, o in game.rolled:
        if o == player:
            return d, f
    return None


def _run_turn_start(game: State, task: tuple) -> None:
    p = task[1]
    game.turn_player = p
    game.turn_flags = 0
    if _untapped_malice(game, p):
        game.push((MALICE_WINDOW, p), (DIE_ACTIONS, p), (TURN, p))
    else:
        game.push((DIE_ACTIONS, p), (TURN, p))


TURN_START = steps.automatic("turn_start", _run_turn_start, doc="a player's turn begins")


def _untapped_malice(game: State, player: int) -> list[int]:
    return [i for i in game.in_play[player] if i in MALICE_INSTANCES and not game.tapped >> i & 1]


def _opt_malice(game: State, task: tuple) -> list[int]:
    # Two untapped copies are in the same state: one option (docs/rulings.md D2); the other is offered next.
    untapped = _untapped_malice(game, task[1])
    return [A.USE_DIE, A.activate_action(min(untapped))] if untapped else [A.USE_DIE]


def _res_malice(game: State, task: tuple, action: int) -> None:
    if action != A.USE_DIE:
        game.push(task)
        activate(game, task[1], A.instance_of_activation(action))


MALICE_WINDOW = steps.decision(
    "die_of_malice_window", _opt_malice, _res_malice, doc="activate Die of Malice before the die actions, or not"
)


def _run_die_actions(game: State, task: tuple) -> None:
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


DIE_ACTIONS = steps.automatic("die_actions", _run_die_actions, doc="the mandatory actions of the die taken")


def _draw_for_die(game: State, player: int) -> None:
    drawn = game.draw_into_limbo(1)
    if drawn:
        game.push((KEEP_OR_DISCARD, player, drawn[0]))


def _opt_draw_symbol(game: State, task: tuple) -> list[int]:
    # As when the step was pushed: a bonus left and two cards to draw (a position from a file may differ).
    if game.bonuses_used[task[1]] < MAX_BONUSES and len(game.draw_pile) + len(game.discard_pile) >= 2:
        return [A.DRAW_CARD, A.BONUS_DRAW]
    return [A.DRAW_CARD]


def _res_draw_symbol(game: State, task: tuple, action: int) -> None:
    p = task[1]
    if action == A.DRAW_CARD:
        _draw_for_die(game, p)
        return
    game.bonuses_used[p] += 1
    drawn = game.draw_into_limbo(2)
    if drawn:
        game.push((KEEP_ONE, p, drawn))


DRAW_SYMBOL = steps.decision(
    "draw_symbol", _opt_draw_symbol, _res_draw_symbol, doc="the die's draw: draw 1, or use the draw bonus"
)


def _opt_keep_or_discard(game: State, task: tuple) -> list[int]:
    return [A.KEEP_CARD, A.DISCARD_CARD]


def _res_keep_or_discard(game: State, task: tuple, action: int) -> None:
    card = game.from_limbo(task[2])
    if action == A.KEEP_CARD:
        game.hand_add(task[1], card)
    else:
        game.discard(card)


KEEP_OR_DISCARD = steps.decision(
    "keep_or_discard", _opt_keep_or_discard, _res_keep_or_discard, ("card",), doc="keep or discard the drawn card"
)


def _opt_choose_from(game: State, task: tuple) -> list[int]:
    return [A.choose_card_action(c) for c in sorted(set(task[2]))]


def _res_keep_one(game: State, task: tuple, action: int) -> None:
    p, cards, keep = task[1], list(task[2]), A.card_of_choice(action)
    cards.remove(keep)
    game.hand_add(p, game.from_limbo(keep))
    for c in cards:
        game.discard(game.from_limbo(c))


KEEP_ONE = steps.decision(
    "keep_one",
    _opt_choose_from,
    _res_keep_one,
    ("cards",),
    doc="keep one of the drawn cards, discard the rest",
    private=several_cards_held,
)


# ---------------------------------------------------------------------------- the turn menu


def _opt_turn(game: State, task: tuple) -> list[int]:
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
        options.extend(map(A.summon_action, game.summonable_from_hand(p, sorted(set(game.hand[p])))))
    tapped = game.tapped
    offered = set()  # copies in the same state (untapped, same stored tokens) are one option (docs/rulings.md D2)
    for inst in sorted(game.in_play[p]):
        if inst in _ACTIVATABLE and not tapped >> inst & 1:
            card = CARD_OF[inst]
            state = (card, game.stored.get(inst))
            if state not in offered and BEHAVIOUR[card].can_activate(game, p, inst):
                offered.add(state)
                options.append(A.activate_action(inst))
    if game.turn_flags & TRANSMUTE_ABILITY:
        r = game.reserve[p]
        transmutes = A.TRANSMUTE_ACTIONS
        options.extend(transmutes[0][t] for t in range(4) if r[t])
        for source in game.amulet_sources(p):
            stored = game.tokens_at(p, source)
            options.extend(transmutes[source][t] for t in range(4) if stored[t])
    return options


def _res_turn(game: State, task: tuple, action: int) -> None:
    p = task[1]
    if action == A.END_TURN:
        _end_turn(game, p)
        return
    game.push(task)  # the turn goes on after this action
    if A.is_transmute(action):
        source, energy = A.transmute_of_action(action)
        game.spend_token(p, source, energy)
        game.crystals[p] += TRANSMUTE_RATE[game.season][energy] + game.transmute_bonus(p)
    elif A.is_summon(action):
        begin_summon_from_hand(game, p, A.card_of_summon(action))
    elif A.is_activation(action):
        activate(game, p, A.instance_of_activation(action))
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


def _end_turn(game: State, player: int) -> None:
    game.turn_flags = 0
    game.turn_player = -1  # between turns nobody's turn is under way (the observation's turn slice is empty)
    deferred, game.deferred_tokens = game.deferred_tokens, ()
    game.push(*((GAIN_ENERGY, q, count, -1, 0) for q, count in deferred))


def activate(game: State, player: int, instance: int) -> None:
    """Activate a card: it taps, its cost is paid, the opponents' Thieving Fairies take their due, then its effect
    resolves (RULES.md 8.41). A cost in tokens or cards moves no crystal, so the Fairies are paid at once; a card
    whose cost may be crystals pays the Fairies itself once that cost is paid (``Behaviour.crystal_cost``)."""
    game.tapped |= 1 << instance
    behaviour = BEHAVIOUR[CARD_OF[instance]]
    if not behaviour.crystal_cost:
        thieving_fairies(game, player)
    behaviour.activate(game, player, instance)


TURN = steps.decision(
    "turn", _opt_turn, _res_turn, doc="the free actions of a turn, until it ends", private=turn_hangs_on_hand
)


# ---------------------------------------------------------------------------- end of round, seasons, years, end of game


#: The end-of-round cards, in the order their effects run.
ROUND_EFFECT_ORDER = (Card.TITUS_DEEPGAZE, Card.DAMNED_SOUL_OF_ONYS, Card.WONDROUS_CHEST, Card.BEGGARS_HORN)


def _run_round_end_effects(game: State, task: tuple) -> None:
    p = task[1]
    held = [CARD_OF[i] for i in game.in_play[p]]
    # Conditions are read once for the player (several copies add up); effects run in ROUND_EFFECT_ORDER.
    effects = [(card, held.count(card)) for card in ROUND_EFFECT_ORDER if card in held]
    snapshot = game.reserve[p]
    for card, copies in effects:
        BEHAVIOUR[card].end_of_round(game, p, copies, snapshot)


ROUND_END_EFFECTS = steps.automatic("round_end_effects", _run_round_end_effects, doc="a player's end-of-round cards")


def _run_move_marker(game: State, task: tuple) -> None:
    if game.year > NUM_YEARS:  # Temporal Boots carried the marker past the end: the leftover die moves nothing
        game.push((GAME_END, 0))
        return
    leftover = [(d, f) for d, f, o in game.rolled if o < 0]
    pips = DICE[game.dice_season][leftover[0][0]][leftover[0][1]].pips if leftover else 0
    game.move_marker(pips, by_boots=False)


MOVE_MARKER = steps.automatic("move_marker", _run_move_marker, doc="the leftover die moves the season marker")


def _run_season_change(game: State, task: tuple) -> None:
    _, p, by_boots = task
    held = [CARD_OF[i] for i in game.in_play[p]]
    for card in sorted(set(held)):
        BEHAVIOUR[card].season_change(game, p, held.count(card), bool(by_boots))


SEASON_CHANGE = steps.automatic(
    "season_change", _run_season_change, ("by_boots",), doc="a player's season-change cards"
)


def _run_join_library(game: State, task: tuple) -> None:
    game.year = task[2]
    index = task[2] - 2
    for p in game.turn_order():
        sets = list(game.library[p])
        if sets[index]:
            game.hand[p] = tuple(sorted((*game.hand[p], *sets[index])))
            sets[index] = ()
            game.library[p] = tuple(sets)


JOIN_LIBRARY = steps.automatic(
    "join_library", _run_join_library, ("year",), doc="the year advances; its library sets join the hands"
)


def _run_next_round(game: State, task: tuple) -> None:
    game.first_player = (game.first_player + 1) % game.num_players
    game.turn_player = -1
    game.push((START_ROUND, 0))


NEXT_ROUND = steps.automatic("next_round", _run_next_round, doc="the first player passes to the left")


def _run_game_end(game: State, task: tuple) -> None:
    bonuses = []
    for p in range(game.num_players):
        held = [CARD_OF[i] for i in game.in_play[p]]
        bonuses.append(sum(BEHAVIOUR[c].end_of_game(game, p, held.count(c)) for c in sorted(set(held))))
    for p, extra in enumerate(bonuses):
        game.crystals[p] += extra
    game.final_scores = tuple(game.score(p) for p in range(game.num_players))
    game.stack.clear()
    game.turn_player = -1


GAME_END = steps.automatic("game_end", _run_game_end, doc="end-of-game cards, then scoring")
