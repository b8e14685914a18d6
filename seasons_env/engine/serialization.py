"""The position format: ``to_dict`` and ``from_dict`` (``docs/state_format.md``).

A position is written as JSON-safe data: per-seat fields, the shared zones, the pending steps by name with
their named arguments, and the generator's state, so that a position read back continues exactly as the
original would. A position read is untrusted input: ``POSITION`` (a schema, ``schema.py``) writes each field's
rule once — exact types, bounds, defaults, no unknown key — and ``consistency.py`` then checks that the position
is whole (every card once, dice, what the pending steps refer to). Every problem is a ``ValueError`` naming the
path of the field at fault (``players[1].reserve.water``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from . import actions as A
from . import card_constants as K
from . import steps
from .behaviour import BEHAVIOUR
from .chance import Chance, LegacyChance
from .consistency import MAX_STORED, out_of_game, position_problems
from .data import (
    BONUS_PENALTIES,
    CARD_NAMES,
    CARD_OF,
    CARDS,
    DICE_PER_SEASON,
    ENERGIES,
    FACES_PER_DIE,
    GAUGE_MAX,
    HAND_PENALTY,
    HAND_SIZE,
    IS_ITEM,
    LEVEL_CARDS,
    LEVELS,
    LIBRARY_SET_SIZE,
    MAX_BONUSES,
    NUM_CARDS,
    NUM_INSTANCES,
    NUM_YEARS,
    PRESTIGE,
    SEASONS,
    season_of,
)
from .schema import (
    Bool,
    Checked,
    Choice,
    Converted,
    Either,
    Field,
    FieldError,
    Fixed,
    Int,
    ListOf,
    Nullable,
    Record,
    Rule,
    Word,
    join_path,
    read,
)
from .state import TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED, ZERO4, State

STATE_FORMAT = "seasons-env/state"
#: Version 2: ``out_of_game``; chance is a counter-based stream (``engine/chance.py``: ``rng`` holds its key and
#: draw count); a decision whose options hang on cards only its player sees is asked even with a single option
#: (``steps.StepKind.private``), so records of version 1 do not replay. Version-1 positions are read: their
#: ``rng`` (a numpy PCG64 state) goes on drawing with the same calls as then (``LegacyChance``).
#: Version 3: Temporal Boots moving the marker past 12 of year 3 (and any season they change after that) triggers
#: season-change effects (ruling C1), so records of version 2 that did so do not replay; the fields are version
#: 2's, and version-2 positions are read as they are.
STATE_VERSION = 3
CHANCE_STREAM = "splitmix64"
#: Far above the draws of any game (a few hundred); a position claiming more is not one of this engine's.
MAX_DRAWS = 2**40

#: The bit generators a position may name, by an explicit table: a name read from a file is never looked up.
BIT_GENERATORS = {"PCG64": np.random.PCG64}
#: Bounds far above any reachable position, so that a position read from a file cannot blow up the engine:
#: a reserve is over its limit (7, or 10) only by the tokens of one gain, still to be discarded.
MAX_CRYSTALS = 100_000
MAX_TOKENS = 20
#: The most tokens one effect gains: Vampiric Crown (a card's prestige) or Pendant of Ragnor (the other items).
MAX_GAIN = max(max(PRESTIGE), 2 * sum(IS_ITEM))
#: Far above any reachable stack (a 4-player draft and library split pending: 70 steps).
MAX_PENDING = 256
MIN_SCORE = -(HAND_PENALTY * NUM_INSTANCES + max(BONUS_PENALTIES)) + NUM_INSTANCES * min(0, min(PRESTIGE))
MAX_SCORE = MAX_CRYSTALS + NUM_INSTANCES * max(PRESTIGE)

S = TypeVar("S", bound=State)


def to_dict(game: State) -> dict:
    """The whole position as JSON-safe data (``docs/state_format.md``)."""
    players = []
    for p in range(game.num_players):
        players.append(
            {
                "crystals": game.crystals[p],
                "reserve": _energy_dict(game.reserve[p]),
                "summoning_gauge": game.gauge[p],
                "bonuses_used": game.bonuses_used[p],
                "hand": list(game.hand[p]),
                "library": {"year2": list(game.library[p][0]), "year3": list(game.library[p][1])},
                "in_play": [
                    {
                        "card": CARD_OF[i],
                        "copy": i % 2,
                        "tapped": bool(game.tapped >> i & 1),
                        "tokens": _energy_dict(game.stored[i]) if i in game.stored else None,
                    }
                    for i in game.in_play[p]
                ],
                "draft_pack": list(game.draft_pack[p]),
                "draft_seen": [c for c in range(1, len(CARDS) + 1) if game.draft_seen[p] >> c & 1],
            }
        )
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "num_players": game.num_players,
        "level": game.level,
        "year": game.year,
        "position": game.position,
        "first_player": game.first_player,
        "turn_player": None if game.turn_player < 0 else game.turn_player,
        "turn": {
            "transmute_ability": bool(game.turn_flags & TRANSMUTE_ABILITY),
            "transmute_bonus_used": bool(game.turn_flags & TRANSMUTE_BONUS_USED),
        },
        "game_dice": {SEASONS[s]: list(d) for s, d in enumerate(game.game_dice)},
        "dice_season": SEASONS[game.dice_season],
        "rolled": [{"die": d, "face": f, "taken_by": o if o >= 0 else None} for d, f, o in game.rolled],
        "players": players,
        "draw_pile": list(game.draw_pile),
        "discard_pile": list(game.discard_pile),
        "limbo": list(game.limbo),
        "out_of_game": out_of_game(game),
        "deferred_tokens": [list(x) for x in game.deferred_tokens],
        "orb_seen": {"player": game.orb_seen[0], "card": game.orb_seen[1]} if game.orb_seen else None,
        "pending": [_task_to_dict(t) for t in reversed(game.stack)],
        "final_scores": list(game.final_scores) if game.final_scores is not None else None,
        "rng": _chance_to_dict(game.chance),
    }


def _energy_dict(tokens: Sequence[int]) -> dict[str, int]:
    return {e: int(tokens[i]) for i, e in enumerate(ENERGIES)}


def _to_json(value: object) -> object:
    return [_to_json(v) for v in value] if isinstance(value, tuple) else value


def _task_to_dict(task: tuple) -> dict:
    spec = steps.STEP_KINDS[task[0]]
    out = {"step": spec.name, "player": task[1]}
    for name, value in zip(spec.args, task[2:], strict=True):
        out[name] = _to_json(value)
    return out


# ---------------------------------------------------------------------------- the schema of a position


@dataclass(frozen=True)
class Context:
    """What the rules of the later fields depend on."""

    num_players: int
    level: str


_CARD_NUMBER = Int(1, NUM_CARDS)
_LEVEL_CARD_SETS = {level: frozenset(cards) for level, cards in LEVEL_CARDS.items()}


class CardId(Rule):
    """A card id of the game's level."""

    def read(self, value: object, path: str, context: Context) -> int:
        card = _CARD_NUMBER.read(value, path, context)
        if card not in _LEVEL_CARD_SETS[context.level]:
            raise FieldError(path, f"is card {card} ({CARD_NAMES[card]}), which is not in a {context.level} game")
        return card


def _seat_max(context: Context) -> int:
    return context.num_players - 1


def _seats(context: Context) -> int:
    return context.num_players


def _dice(context: Context) -> int:
    return context.num_players + 1


SEAT = Int(0, _seat_max)
ENERGY = Int(0, len(ENERGIES) - 1)
INSTANCE = Int(0, NUM_INSTANCES - 1)
CARD = CardId()


def cards(max_len: int, min_len: int = 0, as_tuple: bool = False) -> ListOf:
    return ListOf(CARD, max_len, min_len, as_tuple=as_tuple, what="cards")


def _token_total(tokens: dict, context: Context) -> str | None:
    total = sum(tokens.values())
    return f"holds {total} tokens; at most {MAX_TOKENS} are possible" if total > MAX_TOKENS else None


#: Tokens by type (a reserve, or a card's stored tokens), read as a (water, earth, fire, air) tuple.
TOKENS = Converted(
    Checked(Record({e: Field(Int(0, MAX_TOKENS), 0) for e in ENERGIES}), _token_total),
    lambda tokens, context: tuple(tokens[e] for e in ENERGIES),
)
#: An energy vector ``[water, earth, fire, air]`` (a cost being paid).
NEED = Fixed(*[Int(0, MAX_TOKENS)] * 4, what="[water, earth, fire, air] of counts")


def _owed(need: tuple, context: Context) -> str | None:
    return None if sum(need) else "must owe at least 1 token"


#: The most cards a ``keep_one`` or ``divine_chalice`` step holds: Amulet of Fire's and Divine Chalice's draws. A layout
#: size: the step rows' columns (``vector/step_codes.py``) and the position format's bound follow it, so a larger draw
#: is a change of both (a smaller one fits).
DRAWN_CARDS = 4
if max(K.AMULET_OF_FIRE_DRAWN, K.DIVINE_CHALICE_DRAWN) > DRAWN_CARDS:
    raise RuntimeError(f"card_constants: a draw of more than {DRAWN_CARDS} cards needs wider steps (DRAWN_CARDS)")
#: The most tokens one ``discard_tokens`` step discards (Kairn, Tree of Light, Crystal Orb).
MAX_DISCARDED = max(K.KAIRN_TOKENS, K.TREE_OF_LIGHT_DISCARD, K.CRYSTAL_ORB_TOKENS)

#: The arguments of each pending step, by step name, in the order of ``steps.KINDS``' registered ``args``.
STEP_ARGS: dict[str, dict[str, Rule]] = {
    "draft_pick": {},
    "draft_pass": {},
    "library_split": {"year": Int(2, NUM_YEARS)},
    "start_round": {},
    "choose_die": {},
    "turn_start": {},
    "die_of_malice_window": {},
    "die_actions": {},
    "draw_symbol": {},
    "keep_or_discard": {"card": CARD},
    "keep_one": {"cards": cards(DRAWN_CARDS, 1, as_tuple=True)},
    "turn": {},
    "gain_energy": {"count": Int(1, MAX_GAIN), "onto": Int(-1, NUM_INSTANCES - 1), "from_type": ENERGY},
    "overflow": {"from_type": ENERGY},
    "exchange_discard": {"count": Int(1, 2), "from_type": ENERGY},
    "elemental_amulet_set": {},
    "payment": {"need": NEED, "waivers": Int(0, 2), "from_type": ENERGY},
    "hand_of_fortune": {"need": NEED, "waivers": Int(1, 2), "from_type": ENERGY},
    "pay_source": {"need": Checked(NEED, _owed), "from_source": Int(0, A.NUM_SOURCES - 1)},
    "discard_tokens": {"count": Int(1, MAX_DISCARDED), "from_action": Int(0, A.pay_action(A.NUM_SOURCES - 1, 3))},
    "enter_play": {"card": CARD, "from_hand": Int(0, 1), "effects": Int(0, 15)},
    "after_summon": {"instance": INSTANCE},
    "round_end_effects": {},
    "move_marker": {},
    "season_change": {"by_boots": Int(0, 1)},
    "join_library": {"year": Int(2, NUM_YEARS)},
    "next_round": {},
    "game_end": {},
    "balance_of_ishtar": {},
    "temporal_boots": {},
    "divine_chalice": {"cards": cards(DRAWN_CARDS, 1, as_tuple=True)},
    "syllas_sacrifice": {},
    "naria_keep": {"cards": cards(4, 1, as_tuple=True)},
    "naria_give": {"cards": cards(3, 1, as_tuple=True), "recipients": ListOf(SEAT, 3, 1, as_tuple=True)},
    "kairn_effect": {},
    "amsug_return": {},
    "lewis_greyface": {},
    "potion_of_dreams": {},
    "tree_of_light": {},
    "crystal_orb": {},
    "crystal_orb_seen": {"card": CARD},
    "glutton_cauldron": {"instance": INSTANCE},
    "vampiric_crown": {},
    "vampiric_crown_discard": {},
    "dragon_skull": {"remaining": Int(1, K.DRAGON_SKULL_CARDS), "after": Int(-1, NUM_INSTANCES - 1)},
    "necrotic_kriss": {},
    "mirror_from": {},
    "mirror_count": {"energy": ENERGY},
    "mirror_to": {"energy": ENERGY, "count": Int(1, A.MAX_NUMBER)},
    "damned_soul_water": {"instance": INSTANCE},
}
_STEP_RECORDS = {
    name: Record({"step": Field(Choice((name,))), "player": Field(SEAT, 0), **{a: Field(r) for a, r in args.items()}})
    for name, args in STEP_ARGS.items()
}


class Step(Rule):
    """A pending step ``{"step": name, "player": seat, ...arguments}``, read as a task tuple."""

    def read(self, value: object, path: str, context: Context) -> tuple:
        if not isinstance(value, dict):
            raise FieldError(
                path, f"must be an object {{'step': name, 'player': seat, ...}}; got {type(value).__name__}"
            )
        name = value.get("step")
        if not isinstance(name, str) or name not in _STEP_RECORDS:
            raise FieldError(join_path(path, "step"), f"{name!r:.60} is not a known step (docs/state_format.md)")
        fields = _STEP_RECORDS[name].read(value, path, context)
        return (steps.kind(name), fields["player"], *(fields[a] for a in STEP_ARGS[name]))


class InPlay(Rule):
    """A card in play: ``{"card", "copy", "tapped", "tokens"}``, or a bare card id (first free copy, untapped)."""

    ENTRY = Record(
        {
            "card": Field(CARD),
            "copy": Field(Nullable(Int(0, 1)), None),
            "tapped": Field(Bool(), False),
            "tokens": Field(Nullable(TOKENS), None),
        }
    )

    def read(self, value: object, path: str, context: Context) -> dict:
        if isinstance(value, int) and not isinstance(value, bool):
            value = {"card": value}
        return self.ENTRY.read(value, path, context)


PLAYER = Record(
    {
        "crystals": Field(Int(0, MAX_CRYSTALS), 0),
        "reserve": Field(TOKENS, {}),
        "summoning_gauge": Field(Int(0, GAUGE_MAX), 0),
        "bonuses_used": Field(Int(0, MAX_BONUSES), 0),
        "hand": Field(cards(NUM_INSTANCES), []),
        "library": Field(
            Record({"year2": Field(cards(LIBRARY_SET_SIZE), []), "year3": Field(cards(LIBRARY_SET_SIZE), [])}), {}
        ),
        "in_play": Field(ListOf(InPlay(), NUM_INSTANCES), []),
        "draft_pack": Field(cards(HAND_SIZE), []),
        "draft_seen": Field(ListOf(CARD, NUM_CARDS, unique=True, what="cards"), []),
    }
)

#: Version 1's ``rng``: a numpy PCG64 state.
LEGACY_RNG = Record(
    {
        "bit_generator": Field(Choice(tuple(BIT_GENERATORS)), "PCG64"),
        "state": Field(Word(128)),
        "inc": Field(Word(128)),
        "has_uint32": Field(Int(0, 1), 0),
        "uinteger": Field(Int(0, 2**32 - 1), 0),
    }
)
#: Version 2's ``rng``: the counter-based stream's key and draw count.
CHANCE = Record(
    {
        "stream": Field(Choice((CHANCE_STREAM,))),
        "key": Field(Word(64)),
        "counter": Field(Int(0, MAX_DRAWS - 1), 0),
    }
)


def _rng_rule(rng: object) -> Rule:
    """A version-2 or -3 position's ``rng``: the chance stream, or a version-1 generator read and written again (so
    a position keeps its future dice whatever version wrote it)."""
    if isinstance(rng, dict) and not {"stream", "key", "counter"}.isdisjoint(rng):
        return CHANCE
    return LEGACY_RNG


def _position_fields(version: int) -> dict[str, Field]:
    dice = ListOf(Int(0, DICE_PER_SEASON - 1), _dice, _dice, unique=True, what="dice (one more than players)")
    fields = {
        "format": Field(Choice((STATE_FORMAT,)), STATE_FORMAT),
        "version": Field(Int(1, STATE_VERSION), STATE_VERSION),
        "num_players": Field(Int(2, 4)),
        "level": Field(Choice(LEVELS), "magician"),
        "year": Field(Int(1, NUM_YEARS + 1), 1),
        "position": Field(Int(1, 12), 1),
        "first_player": Field(SEAT, 0),
        "turn_player": Field(Nullable(SEAT), None),
        "turn": Field(
            Record({"transmute_ability": Field(Bool(), False), "transmute_bonus_used": Field(Bool(), False)}), {}
        ),
        "game_dice": Field(
            Record({s: Field(dice, lambda context: list(range(context.num_players + 1))) for s in SEASONS}), {}
        ),
        "dice_season": Field(Nullable(Choice(SEASONS)), None),
        "rolled": Field(
            ListOf(
                Record(
                    {
                        "die": Field(Int(0, DICE_PER_SEASON - 1)),
                        "face": Field(Int(0, FACES_PER_DIE - 1)),
                        "taken_by": Field(Nullable(SEAT), None),
                    }
                ),
                DICE_PER_SEASON,
                what="dice",
            ),
            [],
        ),
        "players": Field(ListOf(PLAYER, _seats, _seats, what="players (one per seat)"), lambda c: [{}] * c.num_players),
        "draw_pile": Field(cards(NUM_INSTANCES), []),
        "discard_pile": Field(cards(NUM_INSTANCES), []),
        "limbo": Field(cards(NUM_INSTANCES), []),
        "out_of_game": Field(Nullable(cards(NUM_INSTANCES)), None),
        "deferred_tokens": Field(ListOf(Fixed(SEAT, Int(1, 2), what="[seat, tokens 1..2]"), NUM_INSTANCES), []),
        "orb_seen": Field(Nullable(Record({"player": Field(SEAT), "card": Field(CARD)})), None),
        "pending": Field(ListOf(Step(), MAX_PENDING, what="steps"), []),
        "final_scores": Field(Nullable(ListOf(Int(MIN_SCORE, MAX_SCORE), _seats, _seats, what="scores")), None),
        "rng": Field(Nullable(Either(_rng_rule)), None),
    }
    if version == 1:
        del fields["out_of_game"]
        fields["rng"] = Field(Nullable(LEGACY_RNG), None)
    return fields


#: The schema of a position, by format version.
POSITION = {version: Record(_position_fields(version)) for version in range(1, STATE_VERSION + 1)}


# ---------------------------------------------------------------------------- reading a position


def from_dict(cls: type[S], d: dict) -> S:
    """Read a position of class ``cls`` from ``to_dict`` data, its pending steps not yet run (``Game.from_dict`` runs
    them). Every key but ``num_players`` is optional (see the docs); a ``ValueError`` names a bad field."""
    if not isinstance(d, dict):
        raise ValueError(f"state must be a dict, got {type(d).__name__}")
    if "num_players" not in d:
        raise ValueError("state: the top level lacks the required key 'num_players'")
    # The fields the others depend on first (their rules need no context).
    head = {key: d[key] for key in ("format", "version", "num_players", "level") if key in d}
    head = read(Record({k: POSITION[STATE_VERSION].fields[k] for k in head}), head, None, "state")
    version = head.get("version", STATE_VERSION)
    context = Context(head["num_players"], head.get("level", "magician"))
    data = read(POSITION[version], d, context, "state")
    game = _build(cls, data)
    left_out = Counter(data["out_of_game"]) if data.get("out_of_game") is not None else None
    problems = position_problems(game, left_out)
    if problems:
        raise ValueError(
            "state: " + "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
        )
    game.request_overflow_check()
    return game


def _build(cls: type[S], data: dict) -> S:
    """The position that schema-checked data describes (its consistency is checked afterwards)."""
    n = data["num_players"]
    rng = data["rng"]
    if rng is None:
        chance = Chance.from_seed(0)
    elif "stream" in rng:
        chance = Chance(rng["key"], rng["counter"])
    else:
        chance = LegacyChance(_generator(rng))
    game = cls.blank(n, data["level"], chance)
    game.year, game.position, game.first_player = data["year"], data["position"], data["first_player"]
    game.turn_player = -1 if data["turn_player"] is None else data["turn_player"]
    turn = data["turn"]
    game.turn_flags = (TRANSMUTE_ABILITY if turn["transmute_ability"] else 0) | (
        TRANSMUTE_BONUS_USED if turn["transmute_bonus_used"] else 0
    )
    game.game_dice = tuple(tuple(data["game_dice"][s]) for s in SEASONS)
    game.rolled = tuple((r["die"], r["face"], -1 if r["taken_by"] is None else r["taken_by"]) for r in data["rolled"])
    season = data["dice_season"]
    game.dice_season = season_of(game.position) if season is None else SEASONS.index(season)
    for p, pd in enumerate(data["players"]):
        game.crystals[p] = pd["crystals"]
        game.reserve[p] = pd["reserve"]
        game.gauge[p] = pd["summoning_gauge"]
        game.bonuses_used[p] = pd["bonuses_used"]
        game.hand[p] = tuple(sorted(pd["hand"]))
        game.library[p] = (tuple(sorted(pd["library"]["year2"])), tuple(sorted(pd["library"]["year3"])))
        game.draft_pack[p] = tuple(sorted(pd["draft_pack"]))
        for c in pd["draft_seen"]:
            game.draft_seen[p] |= 1 << c
    # Cards in play after every hand: a bare id takes the first copy free in any seat's play.
    for p, pd in enumerate(data["players"]):
        game.in_play[p] = tuple(_instance(game, p, k, entry) for k, entry in enumerate(pd["in_play"]))
    game.draw_pile, game.discard_pile, game.limbo = data["draw_pile"], data["discard_pile"], data["limbo"]
    game.deferred_tokens = tuple(data["deferred_tokens"])
    orb_seen = data["orb_seen"]
    game.orb_seen = () if orb_seen is None else (orb_seen["player"], orb_seen["card"])
    game.stack = data["pending"][::-1]
    scores = data["final_scores"]
    game.final_scores = None if scores is None else tuple(scores)
    return game


def _instance(game: State, player: int, k: int, entry: dict) -> int:
    """Put one ``in_play`` entry into play (its tapped state and stored tokens); returns its instance."""
    path = f"players[{player}].in_play[{k}]"
    card, copy_ = entry["card"], entry["copy"]
    lo = 2 * (card - 1)
    taken = {i for held in game.in_play for i in held}
    if copy_ is None:
        copy_ = 0 if lo not in taken else 1
    inst = lo + copy_
    if inst in taken:
        raise FieldError(path, f"is copy {copy_} of card {card} ({CARD_NAMES[card]}), already in play", "state")
    game.in_play[player] = (*game.in_play[player], inst)
    if entry["tapped"]:
        game.tapped |= 1 << inst
    tokens = entry["tokens"]
    if not BEHAVIOUR[card].stores_tokens:
        if tokens is not None:
            raise FieldError(f"{path}.tokens", f"must be null: {CARD_NAMES[card]} stores no tokens", "state")
        return inst
    tokens = ZERO4 if tokens is None else tokens
    if sum(tokens) > MAX_STORED[card]:
        raise FieldError(
            f"{path}.tokens",
            f"holds {sum(tokens)} tokens; {CARD_NAMES[card]} holds at most {MAX_STORED[card]}",
            "state",
        )
    game.stored[inst] = tokens
    return inst


def _chance_to_dict(chance: Chance | LegacyChance) -> dict:
    if isinstance(chance, Chance):  # the 64-bit key as a decimal string: JSON numbers lose precision
        return {"stream": CHANCE_STREAM, "key": str(chance.key), "counter": chance.counter}
    state = chance.generator().bit_generator.state  # a version-1 position's generator, written as it was read
    return {
        "bit_generator": state["bit_generator"],
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": state["has_uint32"],
        "uinteger": state["uinteger"],
    }


def _generator(rng: dict) -> np.random.Generator:
    """The generator a position's ``rng`` field describes (only the bit generators of ``BIT_GENERATORS``)."""
    name = rng["bit_generator"]
    bit_generator = BIT_GENERATORS[name](0)  # a fixed seed: the state is replaced at once
    bit_generator.state = {
        "bit_generator": name,
        "state": {"state": rng["state"], "inc": rng["inc"]},
        "has_uint32": rng["has_uint32"],
        "uinteger": rng["uinteger"],
    }
    return np.random.Generator(bit_generator)
