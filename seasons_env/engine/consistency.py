"""What makes a position whole: every card in exactly one place, dice that can be taken, pending steps whose
cards, cards in play and payments are really there, and a game that goes on to its end.

``position_problems`` lists what is wrong with a position, in the terms of the position format
(``docs/state_format.md``): ``Game.from_dict`` refuses a position with any problem (``serialization.py``), and
``validate.invariant_violations`` checks that every position random play reaches has none.

Cards outside the zones: a card drawn or being summoned waits in ``limbo`` for the step that decides its fate,
and every limbo card is named by exactly one such step (``LIMBO_CARD_ARGS``; Elemental Amulet waits for its set
of types without being named). A Crystal Orb's look names the draw pile's top card, which stays there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import chain

from . import card_constants as K
from . import steps
from .behaviour import BEHAVIOUR
from .data import CARD_NAMES, CARD_OF, LEVEL_CARDS, NUM_CARDS, Card
from .state import State

#: Pending steps holding limbo cards, and the arguments that name them.
LIMBO_CARD_ARGS: dict[int, str] = {
    steps.kind("keep_or_discard"): "card",
    steps.kind("keep_one"): "cards",
    steps.kind("divine_chalice"): "cards",
    steps.kind("naria_keep"): "cards",
    steps.kind("naria_give"): "cards",
    steps.kind("enter_play"): "card",
}
#: Elemental Amulet waits in limbo while its set of types is chosen; the step does not name it.
ELEMENTAL_CHOICE = steps.kind("elemental_amulet_set")
ORB_SEEN = steps.kind("crystal_orb_seen")
PAYMENT = steps.kind("payment")
WAIVE_COST = steps.kind("hand_of_fortune")
PAY_SOURCE = steps.kind("pay_source")
#: Steps the engine resolves as soon as it pushes them, on what the position holds at that moment: a position
#: can only have one as its next step (a payment under way, Elemental Amulet's set of types, the Orb's look).
NEXT_ONLY = (PAYMENT, WAIVE_COST, PAY_SOURCE, ELEMENTAL_CHOICE, ORB_SEEN)
#: Steps that name one of their player's cards in play, and which card it must be (0: any that stores tokens).
INSTANCE_ARGS: dict[int, tuple[str, int]] = {
    steps.kind("glutton_cauldron"): ("instance", Card.GLUTTON_CAULDRON),
    steps.kind("damned_soul_water"): ("instance", Card.DAMNED_SOUL_OF_ONYS),
    steps.kind("gain_energy"): ("onto", Card.AMULET_OF_WATER),
}
NARIA_GIVE = steps.kind("naria_give")
OVERFLOW = steps.kind("overflow")
GAIN_ENERGY = steps.kind("gain_energy")
#: The steps that carry the game on past the current round: the last pending step of a running game.
CONTINUATIONS = tuple(steps.kind(name) for name in ("start_round", "move_marker", "next_round", "game_end"))
#: Decisions pushed only when their player can answer them, and answered before anything else changes what they
#: need (each is asked at once): pending, they must have an option, or no history leads there. What each needs.
NEEDS_AN_OPTION: dict[int, str] = {
    steps.kind(name): needs
    for name, needs in (
        ("choose_die", "a die left to take and none taken yet"),
        ("overflow", "a reserve over its limit"),
        ("exchange_discard", "reserve tokens to give back"),
        ("discard_tokens", "tokens to discard"),
        ("balance_of_ishtar", "3 identical tokens"),
        ("tree_of_light", "3 crystals or a token"),
        ("crystal_orb", "a card in the draw or discard pile"),
        ("glutton_cauldron", "a reserve token to move onto it"),
        ("vampiric_crown_discard", "a card in hand"),
        ("potion_of_dreams", "a card in hand"),
        ("necrotic_kriss", "a familiar in hand or in play"),
        ("dragon_skull", "enough cards in play to sacrifice"),
        ("mirror_from", "a reserve token"),
        ("mirror_count", "a token of that type and a crystal"),
        ("mirror_to", "the tokens and crystals it exchanges"),
        ("damned_soul_water", "a water token"),
    )
}
MIRROR_FROM = steps.kind("mirror_from")
DREAMS = steps.kind("potion_of_dreams")
DRAFT_PICK = steps.kind("draft_pick")
DRAFT_PASS = steps.kind("draft_pass")
LIBRARY_SPLIT = steps.kind("library_split")
#: The most tokens a card in play can hold: Amulet of Water gets its tokens once; Glutton Cauldron is sacrificed
#: once it holds its number (``card_constants.py``).
MAX_STORED = {Card.AMULET_OF_WATER: K.AMULET_OF_WATER_TOKENS, Card.GLUTTON_CAULDRON: K.GLUTTON_CAULDRON_TOKENS - 1}


def level_cards(level: str) -> Counter:
    """The multiset of cards a game of this level is played with (two copies of each)."""
    return Counter({c: 2 for c in LEVEL_CARDS[level]})


@cache
def _level_counts(level: str) -> Counter:
    """``level_cards``, made once a level (the checks only read it)."""
    return level_cards(level)


@cache
def _zone_names(num_players: int) -> tuple[str, ...]:
    seats = ("hand", "library.year2", "library.year3", "draft_pack", "in_play")
    named = tuple(f"players[{p}].{zone}" for p in range(num_players) for zone in seats)
    return (*named, "draw_pile", "discard_pile", "limbo")


def _zone_cards(game: State) -> list[tuple[int, ...] | list[int]]:
    """The cards of every zone, in ``_zone_names``' order."""
    cards: list[tuple[int, ...] | list[int]] = []
    for p in range(game.num_players):
        in_play = tuple(CARD_OF[i] for i in game.in_play[p])
        cards += (game.hand[p], game.library[p][0], game.library[p][1], game.draft_pack[p], in_play)
    return [*cards, game.draw_pile, game.discard_pile, game.limbo]


def card_zones(game: State) -> list[tuple[str, tuple[int, ...] | list[int]]]:
    """Every zone that holds cards, named as in the position format, with its cards."""
    return list(zip(_zone_names(game.num_players), _zone_cards(game), strict=True))


def card_counts(game: State) -> Counter:
    """Every card the position holds, wherever it is."""
    return Counter(chain.from_iterable(_zone_cards(game)))


def out_of_game(game: State) -> list[int]:
    """The level's cards the position holds nowhere (none in a real game; a hand-written one may leave some out)."""
    held = [0] * (NUM_CARDS + 1)  # plain counts: to_dict writes this for every position
    for card in chain.from_iterable(_zone_cards(game)):
        held[card] += 1
    return [card for card in LEVEL_CARDS[game.level] for _ in range(2 - held[card])]


def _name(card: int) -> str:
    return f"card {card} ({CARD_NAMES.get(card, '?')})"


def card_problems(game: State, left_out: Counter | None) -> list[str]:
    """Every card of the level once per copy: in a zone, or (``left_out``) out of the game. ``left_out=None``: the
    cards not listed are out of the game, and only a card listed too often is a problem."""
    expected = _level_counts(game.level)
    found = card_counts(game)
    # items(), not Counter's ==, which is written in Python: the tests check this at every step of random play
    if found.items() == expected.items() and not left_out:
        return []
    problems = []
    for card, count in sorted(found.items()):
        if count > expected[card]:
            places = [zone for zone, cards in card_zones(game) for c in cards if c == card]
            copies = f"the {game.level} level has {expected[card]}" if expected[card] else f"not in a {game.level} game"
            problems.append(f"{_name(card)} is listed {count} times ({', '.join(places)}); {copies}")
    if left_out is not None:
        for card, count in sorted(left_out.items()):
            if found[card] + count > expected[card]:
                problems.append(f"out_of_game lists {_name(card)}, which is already listed {found[card]} time(s)")
        missing = expected - found - left_out
        if missing:
            shown = ", ".join(f"{_name(c)} x{n}" for c, n in sorted(missing.items()))
            problems.append(f"cards not accounted for (in no zone, nor in out_of_game): {shown}")
    return problems


def _pending_path(game: State, index: int) -> str:
    """The ``pending[k]`` path of ``game.stack[index]`` (the format lists the next step first)."""
    return f"pending[{len(game.stack) - 1 - index}] ({steps.spec(game.stack[index][0]).name})"


class _LazyPath:
    """``_pending_path``, written only if a problem names it (the checks run at every step of random play)."""

    __slots__ = ("game", "index")

    def __init__(self, game: State, index: int) -> None:
        self.game, self.index = game, index

    def __str__(self) -> str:
        return _pending_path(self.game, self.index)


def _arg(task: tuple, name: str) -> object:
    return task[2 + steps.spec(task[0]).args.index(name)]


def play_problems(game: State) -> list[str]:
    """Cards in play: each copy once, tokens only on cards that store them and no more than they can hold."""
    problems = []
    instances = [i for held in game.in_play for i in held]
    if len(instances) != len(set(instances)):
        twice = sorted({i for i in instances if instances.count(i) > 1})
        problems.append(f"copies in play more than once: {', '.join(_name(CARD_OF[i]) for i in twice)}")
    for p, held in enumerate(game.in_play):
        for inst in held:
            card = CARD_OF[inst]
            if BEHAVIOUR[card].stores_tokens and inst not in game.stored:
                problems.append(f"players[{p}].in_play: {_name(card)} stores tokens but has none recorded")
    for inst, tokens in game.stored.items():
        card = CARD_OF[inst]
        if inst not in instances or not BEHAVIOUR[card].stores_tokens:
            problems.append(f"tokens are stored on {_name(card)} copy {inst % 2}, which is not a token store in play")
        elif min(tokens) < 0 or sum(tokens) > MAX_STORED[card]:
            problems.append(f"{_name(card)} holds {tokens} tokens; it can hold 0..{MAX_STORED[card]}")
    return problems


def dice_problems(game: State) -> list[str]:
    """Each season's dice are distinct, so are the dice rolled (one more than players at most: the leftover die
    moves the marker), and each seat holds one at most."""
    problems = []
    for season, dice in enumerate(game.game_dice):
        if len(set(dice)) != len(dice):
            problems.append(f"game_dice of season {season} lists a die twice: {list(dice)}")
    dice = [d for d, _, _ in game.rolled]
    if len(set(dice)) != len(dice) or len(dice) > game.num_players + 1:
        problems.append(f"rolled lists dice {dice}: at most {game.num_players + 1} distinct dice")
    holders = [o for _, _, o in game.rolled if o >= 0]
    if len(set(holders)) != len(holders):
        problems.append(f"rolled: a seat has taken two dice (taken_by {holders})")
    return problems


def pending_problems(game: State) -> list[str]:
    """Pending steps refer to what is there: limbo cards, the top card, cards in play, payable costs."""
    problems = []
    stack = game.stack
    if game.final_scores is not None:
        if stack:
            problems.append("final_scores is set (the game is over) but steps are pending")
        elif list(game.final_scores) != [game.score(p) for p in range(game.num_players)]:
            scores = [game.score(p) for p in range(game.num_players)]
            problems.append(f"final_scores {list(game.final_scores)} are not the position's scores {scores}")
        for p in range(game.num_players):  # no step is left to discard the tokens over the limit
            if sum(game.reserve[p]) > game.reserve_limit(p):
                problems.append(
                    f"players[{p}].reserve holds {sum(game.reserve[p])} tokens, over its limit of "
                    f"{game.reserve_limit(p)}, in a finished game"
                )
        return problems
    if not stack:
        return ["pending is empty but the game is not over (final_scores is null)"]
    if stack[0][0] not in CONTINUATIONS:
        names = ", ".join(steps.spec(k).name for k in CONTINUATIONS)
        problems.append(f"{_pending_path(game, 0)} is last: the last pending step must be one of {names}")
    unclaimed = Counter(game.limbo)  # limbo cards no pending step has named yet
    overflowing: set[int] = set()  # players with an overflow among the first pending steps
    stored_gains: Counter = Counter()  # tokens still to be gained onto each Amulet of Water
    for index in range(len(stack) - 1, -1, -1):  # in pending order
        task = stack[index]
        kind, player = task[0], task[1]
        where = _LazyPath(game, index)
        if kind == OVERFLOW:
            # The limit is applied before anything else: the overflows are the first steps, one per player.
            if index + len(overflowing) != len(stack) - 1 or player in overflowing:
                problems.append(f"{where}: overflow steps are the first pending steps, one per player")
            overflowing.add(player)
        if kind == GAIN_ENERGY and _arg(task, "onto") >= 0:
            stored_gains[_arg(task, "onto")] += _arg(task, "count")
        arg = LIMBO_CARD_ARGS.get(kind)
        held = () if arg is None else _arg(task, arg) if arg == "cards" else (_arg(task, arg),)
        if kind == ELEMENTAL_CHOICE:
            held = (Card.ELEMENTAL_AMULET,)
        for card in held:
            if unclaimed[card]:
                unclaimed[card] -= 1
            else:
                problems.append(f"{where} holds {_name(card)} in limbo, but limbo has no such card left")
        if kind == ORB_SEEN and (not game.draw_pile or _arg(task, "card") != game.draw_pile[-1]):
            problems.append(f"{where} names card {_arg(task, 'card')}, which is not the draw pile's top card")
        if kind in INSTANCE_ARGS:
            name, card = INSTANCE_ARGS[kind]
            inst = _arg(task, name)
            if not (name == "onto" and inst == -1) and (inst not in game.in_play[player] or CARD_OF[inst] != card):
                problems.append(
                    f"{where}: {name} {inst} is not a copy of {CARD_NAMES[card]} in play of player {player}"
                )
        if kind == NARIA_GIVE:
            recipients = _arg(task, "recipients")
            if player in recipients or len(set(recipients)) != len(recipients):
                problems.append(f"{where}: recipients {list(recipients)} must be distinct opponents of player {player}")
        if kind in NEXT_ONLY:
            problems.extend(_next_step_problems(game, index))
        for precondition in PRECONDITIONS.get(kind, ()):
            if problem := precondition(game, task):
                problems.append(f"{where}: {problem}")
                break
    for inst, count in sorted(stored_gains.items()):
        held = sum(game.stored.get(inst, ()))
        most = MAX_STORED[Card.AMULET_OF_WATER]
        if held + count > most:
            problems.append(
                f"an Amulet of Water holding {held} tokens cannot gain {count} more (it holds {most} at most)"
            )
    for card in sorted(unclaimed.elements()):
        problems.append(f"limbo holds {_name(card)}, but no pending step decides its fate")
    if game.orb_seen and (not game.draw_pile or game.orb_seen[1] != game.draw_pile[-1]):
        problems.append(f"orb_seen names card {game.orb_seen[1]}, which is not the draw pile's top card")
    return problems + _draft_problems(game)


def _has_an_option(game: State, task: tuple) -> str | None:
    if steps.OPTIONS[task[0]](game, task):
        return None
    return f"player {task[1]} has no option: it needs {NEEDS_AN_OPTION[task[0]]}"


def _has_a_crystal(game: State, task: tuple) -> str | None:
    return None if game.crystals[task[1]] >= 1 else f"player {task[1]} has no crystal to pay Mirror of the Seasons with"


def _has_room(game: State, task: tuple) -> str | None:
    if game.has_room(task[1]):
        return None
    return f"player {task[1]} has no room in play for the card Potion of Dreams puts there"


def _orb_look_recorded(game: State, task: tuple) -> str | None:
    card = _arg(task, "card")
    return None if game.orb_seen == (task[1], card) else f"orb_seen must record player {task[1]}'s look at card {card}"


#: What must hold for a step to be pending at all (what the engine checked when it pushed it), by kind: checks in
#: order, each giving the problem or None; the first problem is the one reported (the later checks assume it holds).
PRECONDITIONS: dict[int, tuple[Callable[[State, tuple], str | None], ...]] = {
    kind: (_has_an_option,) for kind in NEEDS_AN_OPTION
}
for _kind, _check in ((MIRROR_FROM, _has_a_crystal), (DREAMS, _has_room), (ORB_SEEN, _orb_look_recorded)):
    PRECONDITIONS[_kind] = (*PRECONDITIONS.get(_kind, ()), _check)


def _draft_problems(game: State) -> list[str]:
    """Every pick takes a card of the pack its player holds then (the packs pass to the left between rounds of
    picks), every library split a card of the hand, and no card is left in a pack that no pick will take."""
    sizes = [len(pack) for pack in game.draft_pack]
    picks = [0] * game.num_players
    splits = [0] * game.num_players
    problems = []
    for index in range(len(game.stack) - 1, -1, -1):  # in pending order
        kind, p = game.stack[index][0], game.stack[index][1]
        if kind == DRAFT_PICK:
            if not sizes[p]:
                problems.append(f"{_pending_path(game, index)}: player {p} holds no card of a draft pack to pick")
            sizes[p] = max(0, sizes[p] - 1)
            picks[p] += 1
        elif kind == DRAFT_PASS:
            sizes = [sizes[(q - 1) % game.num_players] for q in range(game.num_players)]
        elif kind == LIBRARY_SPLIT:
            splits[p] += 1
    if sum(sizes) and not problems:  # (a pick without a card is reported already)
        problems.append(f"draft packs hold {sum(sizes)} card(s) that no pending draft_pick takes")
    for p in range(game.num_players):
        if splits[p] > len(game.hand[p]) + picks[p]:
            problems.append(
                f"player {p} has {splits[p]} library_split steps pending but {len(game.hand[p])} card(s) in hand and "
                f"{picks[p]} still to draft"
            )
    return problems


def _next_step_problems(game: State, index: int) -> list[str]:
    """A step of ``NEXT_ONLY``: it must be the next step, and what it needs must be there (tokens to pay)."""
    task = game.stack[index]
    where, kind, p = _pending_path(game, index), task[0], task[1]
    if index != len(game.stack) - 1:
        return [f"{where} can only be the next step (pending[0]): the engine resolves it as soon as it is pushed"]
    if kind == ORB_SEEN:
        return []  # its card is checked against the draw pile's top
    if any(sum(game.reserve[q]) > game.reserve_limit(q) for q in range(game.num_players)):
        return [f"{where} cannot wait while a reserve is over its limit (the overflow comes first)"]
    available = game.spendable(p)
    if kind == ELEMENTAL_CHOICE:
        return [] if any(available) else [f"{where}: player {p} holds no token to pay Elemental Amulet with"]
    need = _arg(task, "need")
    waivers = 0 if kind == PAY_SOURCE or sum(need) <= 1 else _arg(task, "waivers")
    short = sum(max(0, need[t] - available[t]) for t in range(4))
    if short > waivers:
        return [f"{where}: player {p} cannot pay {list(need)} with {available}"]
    return []


def position_problems(game: State, left_out: Counter | None = None) -> list[str]:
    """Everything that makes ``game`` not a position of Seasons (empty when it is whole); ``left_out``: the
    cards out of the game (``None``: those the position does not list)."""
    return card_problems(game, left_out) + play_problems(game) + dice_problems(game) + pending_problems(game)
