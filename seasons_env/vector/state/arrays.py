"""The array state: the whole position of B games as numpy arrays with a leading batch axis.

``ArrayState`` holds one array per field of a position (struct of arrays), each ``[B, ...]`` with a fixed
shape and a small integer dtype, so that array kernels can read and write many games at once. ``pack`` and
``pack_into`` write reference ``Game`` positions into rows; ``unpack`` builds the ``Game`` of a row, equal to
the one packed (``==``, ``to_dict()``, chance stream) and continuing identically. ``LAYOUT`` lists every field
(name, dtype, shape, meaning); ``docs/vector.md`` shows it with the bytes per game.

How the zones are held:

- hands and draft packs (always sorted by card id) as per-card counts ``[B, P, 51]``, indexed by card id;
- library sets as their cards in order, 0-padded; cards in play as instances in order plus a count;
- the draw pile (top card last), discard pile, limbo and deferred Hourglass tokens as fixed-capacity slots in
  order plus a count; tapped cards and draft-seen cards as per-instance flags and a bit mask;
- the pending steps as ``[B, STACK_DEPTH, STEP_WIDTH]`` int8 rows, bottom first (``step_codes.py``);
- the chance stream as its two uint64 (key, counter; ``engine/chance.py``).

Capacities come from the rules and the position format; a position past one (or one this layout cannot hold:
an unsorted hand, a version-1 generator) makes ``pack`` raise a ``ValueError`` naming the game and the field,
before any row is written. Nothing is ever truncated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from seasons_env.engine import steps
from seasons_env.engine.behaviour import BEHAVIOUR
from seasons_env.engine.chance import Chance
from seasons_env.engine.consistency import position_problems
from seasons_env.engine.data import (
    CARD_OF,
    DICE_PER_SEASON,
    GAUGE_MAX,
    LEVELS,
    LIBRARY_SET_SIZE,
    NUM_CARDS,
    NUM_INSTANCES,
    SEASONS,
)
from seasons_env.engine.machine import Game
from seasons_env.engine.state import check_num_players

from .step_codes import NO_VALUE, STACK_DEPTH, STEP_DTYPE, STEP_WIDTH, decode_step, encode_step

#: Cards in play per seat: one enters only while the gauge (at most 15) exceeds the cards in play, except the two
#: copies of Damned Soul of Onys, which pass to the left "even over their gauge" (RULES.md, card 50).
IN_PLAY_CAPACITY = GAUGE_MAX + 2
#: Cards waiting in limbo: each is named by a pending step (at most 4 each); random games hold at most 4.
LIMBO_CAPACITY = 16
#: Hourglass tokens due at the end of a turn: one entry per seat holding Hourglasses, per Boots season change.
DEFERRED_CAPACITY = 8
#: Card instances that store tokens (Amulet of Water, Glutton Cauldron): the rows of ``stored``.
STORING_INSTANCES: tuple[int, ...] = tuple(i for i in range(NUM_INSTANCES) if BEHAVIOUR[CARD_OF[i]].stores_tokens)
_STORING_ROW = {inst: k for k, inst in enumerate(STORING_INSTANCES)}
P = "P"  # the player axis in LAYOUT shapes


@dataclass(frozen=True)
class FieldSpec:
    """One field of the array state: per-game shape (``"P"`` is the player axis) and what it holds."""

    name: str
    dtype: type
    shape: tuple[int | str, ...]
    meaning: str

    def shape_for(self, num_players: int) -> tuple[int, ...]:
        return tuple(num_players if d == P else d for d in self.shape)

    def bytes_per_game(self, num_players: int) -> int:
        return int(np.prod(self.shape_for(num_players), dtype=np.int64)) * np.dtype(self.dtype).itemsize

    def fill(self) -> int:
        """The value of an empty row (-1 where 0 is a real seat, die or step value)."""
        return NO_VALUE if self.name in _MINUS_ONE else 0


_MINUS_ONE = {"first_player", "turn_player", "game_dice", "rolled", "orb_seen", "stack", "deferred_tokens"}

LAYOUT: tuple[FieldSpec, ...] = (
    FieldSpec("level", np.uint8, (), "index in `LEVELS` (apprentice, magician, archmage)"),
    FieldSpec("year", np.uint8, (), "1-3; 4 once Temporal Boots carried the marker past the end"),
    FieldSpec("position", np.uint8, (), "season wheel space 1-12"),
    FieldSpec("first_player", np.int8, (), "first player of the round"),
    FieldSpec("turn_player", np.int8, (), "whose turn it is; -1 between turns"),
    FieldSpec("turn_flags", np.uint8, (), "bit 0: transmute ability, bit 1: transmute bonus used"),
    FieldSpec("dice_season", np.uint8, (), "season (0-3) of the rolled dice"),
    FieldSpec("game_dice", np.int8, (4, DICE_PER_SEASON), "per season, the dice chosen at setup; -1 pads"),
    FieldSpec("rolled", np.int8, (DICE_PER_SEASON, 3), "this round's dice: die, face, taken by (-1: nobody)"),
    FieldSpec("rolled_count", np.uint8, (), "rows of `rolled` in use"),
    FieldSpec("crystals", np.int32, (P,), "crystals per seat"),
    FieldSpec("reserve", np.uint8, (P, 4), "reserve tokens per seat: water, earth, fire, air"),
    FieldSpec("gauge", np.uint8, (P,), "summoning gauge 0-15"),
    FieldSpec("bonuses_used", np.uint8, (P,), "bonuses used 0-3"),
    FieldSpec("hand", np.uint8, (P, NUM_CARDS + 1), "copies of each card id in hand (column 0 unused)"),
    FieldSpec("library", np.uint8, (P, 2, LIBRARY_SET_SIZE), "library sets of years 2 and 3, in order; 0 pads"),
    FieldSpec("in_play", np.uint8, (P, IN_PLAY_CAPACITY), "instances in play (`2 * (card - 1) + copy`), in order"),
    FieldSpec("in_play_count", np.uint8, (P,), "entries of `in_play` in use"),
    FieldSpec("tapped", np.bool_, (NUM_INSTANCES,), "tapped flag per card instance"),
    FieldSpec("stored", np.uint8, (len(STORING_INSTANCES), 4), "tokens on each storing instance (`STORING_INSTANCES`)"),
    FieldSpec("stored_present", np.bool_, (len(STORING_INSTANCES),), "the instance has a token record (in play)"),
    FieldSpec("draft_pack", np.uint8, (P, NUM_CARDS + 1), "copies of each card id in the draft pack held"),
    FieldSpec("draft_seen", np.uint64, (P,), "bit c: card c was seen in a pack and passed on"),
    FieldSpec("draw_pile", np.uint8, (NUM_INSTANCES,), "card ids, bottom first (the top card is last)"),
    FieldSpec("draw_count", np.uint8, (), "cards in the draw pile"),
    FieldSpec("discard_pile", np.uint8, (NUM_INSTANCES,), "card ids in the order discarded"),
    FieldSpec("discard_count", np.uint8, (), "cards in the discard pile"),
    FieldSpec("limbo", np.uint8, (LIMBO_CAPACITY,), "cards awaiting a pending step's decision, in order"),
    FieldSpec("limbo_count", np.uint8, (), "cards in limbo"),
    FieldSpec("deferred_tokens", np.int8, (DEFERRED_CAPACITY, 2), "Hourglass tokens due at the turn's end: seat, 1-2"),
    FieldSpec("deferred_count", np.uint8, (), "entries of `deferred_tokens` in use"),
    FieldSpec("orb_seen", np.int8, (2,), "Crystal Orb's look: seat, card; -1, -1 for none"),
    FieldSpec("stack", STEP_DTYPE, (STACK_DEPTH, STEP_WIDTH), "pending steps, bottom first (`step_codes.py`)"),
    FieldSpec("stack_depth", np.uint8, (), "pending steps; the decision asked is row `stack_depth - 1`"),
    FieldSpec("over", np.bool_, (), "the game is over"),
    FieldSpec("final_scores", np.int32, (P,), "final scores once over (0 before)"),
    FieldSpec("chance_key", np.uint64, (), "the chance stream's key"),
    FieldSpec("chance_counter", np.uint64, (), "draws made from the stream"),
    FieldSpec("overflow_check", np.bool_, (), "the reserve limit is due before the next step"),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in LAYOUT)
_SPEC = {f.name: f for f in LAYOUT}


@dataclass(eq=False)
class ArrayState:
    """The positions of a batch of ``num_players``-player games, one array per field (``LAYOUT``), batch first."""

    num_players: int
    level: np.ndarray
    year: np.ndarray
    position: np.ndarray
    first_player: np.ndarray
    turn_player: np.ndarray
    turn_flags: np.ndarray
    dice_season: np.ndarray
    game_dice: np.ndarray
    rolled: np.ndarray
    rolled_count: np.ndarray
    crystals: np.ndarray
    reserve: np.ndarray
    gauge: np.ndarray
    bonuses_used: np.ndarray
    hand: np.ndarray
    library: np.ndarray
    in_play: np.ndarray
    in_play_count: np.ndarray
    tapped: np.ndarray
    stored: np.ndarray
    stored_present: np.ndarray
    draft_pack: np.ndarray
    draft_seen: np.ndarray
    draw_pile: np.ndarray
    draw_count: np.ndarray
    discard_pile: np.ndarray
    discard_count: np.ndarray
    limbo: np.ndarray
    limbo_count: np.ndarray
    deferred_tokens: np.ndarray
    deferred_count: np.ndarray
    orb_seen: np.ndarray
    stack: np.ndarray
    stack_depth: np.ndarray
    over: np.ndarray
    final_scores: np.ndarray
    chance_key: np.ndarray
    chance_counter: np.ndarray
    overflow_check: np.ndarray

    @classmethod
    def empty(cls, batch_size: int, num_players: int) -> ArrayState:
        """``batch_size`` empty rows (every zone empty, no pending step): rows to ``pack_into``."""
        num_players = check_num_players(num_players)
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 0:
            raise ValueError(f"batch_size must be a non-negative int; got {batch_size!r}")
        arrays = {
            f.name: np.full((int(batch_size), *f.shape_for(num_players)), f.fill(), dtype=f.dtype) for f in LAYOUT
        }
        return cls(num_players=num_players, **arrays)

    @staticmethod
    def bytes_per_game(num_players: int) -> int:
        """Bytes one game takes in the array state (every field's row)."""
        num_players = check_num_players(num_players)
        return sum(f.bytes_per_game(num_players) for f in LAYOUT)

    @property
    def batch_size(self) -> int:
        return int(self.level.shape[0])

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in FIELD_NAMES)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field's array by name, in ``LAYOUT`` order."""
        return {name: getattr(self, name) for name in FIELD_NAMES}

    def copy(self) -> ArrayState:
        return ArrayState(num_players=self.num_players, **{k: v.copy() for k, v in self.arrays().items()})


if tuple(f.name for f in fields(ArrayState))[1:] != FIELD_NAMES:
    raise RuntimeError("ArrayState's array fields must be LAYOUT's, in its order")


# ---------------------------------------------------------------------------- packing


def pack(games: Sequence[Game]) -> ArrayState:
    """A new array state holding ``games`` (all with the same number of players), row i = ``games[i]``."""
    games = list(games)
    if not games:
        raise ValueError("pack needs at least one game (use ArrayState.empty for empty rows)")
    if not isinstance(games[0], Game):
        raise ValueError(f"game 0: expected a Game, got {type(games[0]).__name__}")
    state = ArrayState.empty(len(games), games[0].num_players)
    pack_into(state, range(len(games)), games)
    return state


def pack_into(state: ArrayState, rows: Sequence[int], games: Sequence[Game]) -> None:
    """Write ``games[k]`` into row ``rows[k]`` of ``state``; other rows are left as they are. Every game is
    checked first: on a ``ValueError`` (naming the game index and the field) no row has changed."""
    rows, games = list(rows), list(games)
    for r in rows:
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)):
            raise ValueError(f"pack_into: rows must be ints; got {r!r}")
    rows = [int(r) for r in rows]
    if len(rows) != len(games):
        raise ValueError(f"pack_into got {len(rows)} rows for {len(games)} games")
    if len(set(rows)) != len(rows):
        raise ValueError(f"pack_into: rows must be distinct; got {rows}")
    for r in rows:
        if not 0 <= r < state.batch_size:
            raise ValueError(f"pack_into: row {r} is outside the batch of {state.batch_size}")
    encoded = [_encode(game, k, state.num_players) for k, game in enumerate(games)]
    for r, values in zip(rows, encoded, strict=True):
        for name, value in values.items():
            getattr(state, name)[r] = value


def _counts(cards: Sequence[int], where: str) -> list[int]:
    """Copies of each card id (index 0 unused) of a sorted zone; a ``ValueError`` if it is not sorted."""
    cards = [_card(c, where) for c in cards]
    if cards != sorted(cards):
        raise ValueError(f"{where} is not sorted by card id; the array state holds it as card counts")
    counts = [0] * (NUM_CARDS + 1)
    for c in cards:
        counts[c] += 1
    return counts


def _card(card: object, where: str) -> int:
    if isinstance(card, bool) or not isinstance(card, int) or not 1 <= card <= NUM_CARDS:
        raise ValueError(f"{where} holds {card!r}, not a card id 1..{NUM_CARDS}")
    return card


def _slots(values: Sequence, capacity: int, fill: object, where: str, what: str = "entries") -> list:
    """``values`` padded with ``fill`` to ``capacity``; a ``ValueError`` if there are more."""
    if len(values) > capacity:
        raise ValueError(f"{where} holds {len(values)} {what}; the array state holds at most {capacity}")
    return [*values, *[fill] * (capacity - len(values))]


def _die(die: object, where: str) -> int:
    if isinstance(die, bool) or not isinstance(die, int) or not 0 <= die < DICE_PER_SEASON:
        raise ValueError(f"{where} holds {die!r}, not a die 0..{DICE_PER_SEASON - 1}")
    return die


def _seat(seat: object, num_players: int, where: str) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"{where} names seat {seat!r}, not a seat 0..{num_players - 1}")
    return seat


def _bits(mask: int, size: int, where: str) -> list[bool]:
    if mask < 0 or mask >> size:
        raise ValueError(f"{where} is the bit mask {mask:#x}; the array state holds bits 0..{size - 1}")
    return [bool(mask >> i & 1) for i in range(size)]


def _encode(game: Game, index: int, num_players: int) -> dict[str, object]:
    """Every field's row for ``game`` (the ``index``-th game packed), checked against the layout."""
    at = f"game {index}"
    if not isinstance(game, Game):
        raise ValueError(f"{at}: expected a Game, got {type(game).__name__}")
    if game.num_players != num_players:
        raise ValueError(f"{at}: num_players is {game.num_players}; this array state holds {num_players}-player games")
    if not isinstance(game.chance, Chance):
        raise ValueError(
            f"{at}: rng is a version-1 position's numpy generator; the array state holds only the counter-based "
            "stream (engine/chance.py)"
        )
    n = num_players
    stored_rows = [[0] * 4 for _ in STORING_INSTANCES]
    stored_present = [False] * len(STORING_INSTANCES)
    for inst, tokens in game.stored.items():
        if inst not in _STORING_ROW:
            raise ValueError(f"{at}: stored holds tokens on instance {inst}, which is not a token store")
        stored_rows[_STORING_ROW[inst]] = list(tokens)
        stored_present[_STORING_ROW[inst]] = True
    players = range(n)
    values: dict[str, object] = {
        "level": LEVELS.index(game.level),
        "year": game.year,
        "position": game.position,
        "first_player": game.first_player,
        "turn_player": game.turn_player,
        "turn_flags": game.turn_flags,
        "dice_season": game.dice_season,
        "game_dice": [
            _slots(
                [_die(d, f"{at}: game_dice.{SEASONS[s]}") for d in game.game_dice[s]],
                DICE_PER_SEASON,
                NO_VALUE,
                f"{at}: game_dice.{SEASONS[s]}",
                "dice",
            )
            for s in range(len(SEASONS))
        ],
        "rolled": _slots([list(r) for r in game.rolled], DICE_PER_SEASON, [NO_VALUE] * 3, f"{at}: rolled", "dice"),
        "rolled_count": len(game.rolled),
        "crystals": list(game.crystals),
        "reserve": [list(r) for r in game.reserve],
        "gauge": list(game.gauge),
        "bonuses_used": list(game.bonuses_used),
        "hand": [_counts(game.hand[p], f"{at}: players[{p}].hand") for p in players],
        "library": [
            [
                _slots(
                    [_card(c, f"{at}: players[{p}].library") for c in game.library[p][y]],
                    LIBRARY_SET_SIZE,
                    0,
                    f"{at}: players[{p}].library.year{y + 2}",
                    "cards",
                )
                for y in range(2)
            ]
            for p in players
        ],
        "in_play": [
            _slots(list(game.in_play[p]), IN_PLAY_CAPACITY, 0, f"{at}: players[{p}].in_play", "cards") for p in players
        ],
        "in_play_count": [len(game.in_play[p]) for p in players],
        "tapped": _bits(game.tapped, NUM_INSTANCES, f"{at}: tapped"),
        "stored": stored_rows,
        "stored_present": stored_present,
        "draft_pack": [_counts(game.draft_pack[p], f"{at}: players[{p}].draft_pack") for p in players],
        "draft_seen": [game.draft_seen[p] for p in players],
        "draw_pile": _slots(
            [_card(c, f"{at}: draw_pile") for c in game.draw_pile], NUM_INSTANCES, 0, f"{at}: draw_pile"
        ),
        "draw_count": len(game.draw_pile),
        "discard_pile": _slots(
            [_card(c, f"{at}: discard_pile") for c in game.discard_pile], NUM_INSTANCES, 0, f"{at}: discard_pile"
        ),
        "discard_count": len(game.discard_pile),
        "limbo": _slots([_card(c, f"{at}: limbo") for c in game.limbo], LIMBO_CAPACITY, 0, f"{at}: limbo", "cards"),
        "limbo_count": len(game.limbo),
        "deferred_tokens": _slots(
            [list(d) for d in game.deferred_tokens], DEFERRED_CAPACITY, [NO_VALUE] * 2, f"{at}: deferred_tokens"
        ),
        "deferred_count": len(game.deferred_tokens),
        "orb_seen": [_seat(game.orb_seen[0], n, f"{at}: orb_seen"), game.orb_seen[1]] if game.orb_seen else [-1, -1],
        "stack": _slots(
            [encode_step(t, f"{at}: pending[{len(game.stack) - 1 - k}]") for k, t in enumerate(game.stack)],
            STACK_DEPTH,
            [NO_VALUE] * STEP_WIDTH,
            f"{at}: pending",
            "steps",
        ),
        "stack_depth": len(game.stack),
        "over": game.final_scores is not None,
        "final_scores": list(game.final_scores) if game.final_scores is not None else [0] * n,
        "chance_key": game.chance.key,
        "chance_counter": game.chance.counter,
        "overflow_check": game._overflow_check,
    }
    return {name: _checked(name, value, n, at) for name, value in values.items()}


def _limits(dtype: np.dtype) -> tuple[int, int]:
    return (0, 1) if dtype == np.bool_ else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))


#: Per field: dtype, its value range, and its per-game shape by number of players.
_CHECKS = {
    f.name: (np.dtype(f.dtype), *_limits(np.dtype(f.dtype)), {n: f.shape_for(n) for n in (2, 3, 4)}) for f in LAYOUT
}


def _checked(name: str, value: object, num_players: int, at: str) -> object:
    """``value`` as the field's dtype and per-game shape; a ``ValueError`` if it does not fit (never wrapped)."""
    dtype, low, high, shapes = _CHECKS[name]
    shape = shapes[num_players]
    is_bool = dtype == np.bool_
    if not shape:  # a scalar: checked as a Python value (a uint64 field goes past int64)
        if type(value) is not (bool if is_bool else int) or not low <= value <= high:
            what = "true or false" if is_bool else f"an int in {low}..{high} ({dtype.name})"
            raise ValueError(f"{at}: {name} must be {what}; got {value!r}")
        return value
    try:
        raw = np.asarray(value, dtype=object if dtype == np.uint64 else None)
    except (ValueError, OverflowError):  # ragged, or an int past 64 bits
        raw = np.array(value, dtype=object)
    if raw.shape != shape:
        raise ValueError(f"{at}: {name} has shape {raw.shape}; the layout's is {shape}")
    if raw.dtype == object:
        if not all(type(v) is int for v in raw.flat):
            raise ValueError(f"{at}: {name} must hold ints; got {value!r:.200}")
    elif raw.dtype.kind not in ("b" if is_bool else "iu"):
        raise ValueError(f"{at}: {name} must hold {'bools' if is_bool else 'ints'}; got {value!r:.200}")
    if not is_bool and raw.size:
        least, most = raw.min(), raw.max()
        if least < low or most > high:
            bad = least if least < low else most
            raise ValueError(f"{at}: {name} holds {bad}, outside {dtype.name} ({low}..{high})")
    return raw.astype(dtype)


# ---------------------------------------------------------------------------- unpacking


def unpack(state: ArrayState, i: int, check: bool = False) -> Game:
    """The ``Game`` of row ``i``: equal to the game packed there, chance stream included, with the same legal
    actions. ``check=True`` also runs the position format's consistency checks (for rows written by kernels)."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < state.batch_size:
        raise ValueError(f"unpack: row {i!r} is outside the batch of {state.batch_size}")
    row = {name: array[i].tolist() for name, array in state.arrays().items()}
    n = state.num_players
    game = Game.blank(n, LEVELS[row["level"]], Chance(row["chance_key"], row["chance_counter"]))
    game.year, game.position = row["year"], row["position"]
    game.first_player, game.turn_player = row["first_player"], row["turn_player"]
    game.turn_flags, game.dice_season = row["turn_flags"], row["dice_season"]
    game.game_dice = tuple(tuple(d for d in dice if d != NO_VALUE) for dice in row["game_dice"])
    game.rolled = tuple(tuple(r) for r in row["rolled"][: row["rolled_count"]])
    game.crystals = row["crystals"]
    game.reserve = [tuple(r) for r in row["reserve"]]
    game.gauge = row["gauge"]
    game.bonuses_used = row["bonuses_used"]
    game.hand = [_cards_of_counts(c) for c in row["hand"]]
    game.library = [tuple(tuple(c for c in cards if c) for cards in sets) for sets in row["library"]]
    game.in_play = [tuple(cards[:count]) for cards, count in zip(row["in_play"], row["in_play_count"], strict=True)]
    game.tapped = sum(1 << k for k, flag in enumerate(row["tapped"]) if flag)
    game.stored = {
        inst: tuple(row["stored"][k]) for k, inst in enumerate(STORING_INSTANCES) if row["stored_present"][k]
    }
    game.draft_pack = [_cards_of_counts(c) for c in row["draft_pack"]]
    game.draft_seen = row["draft_seen"]
    game.draw_pile = row["draw_pile"][: row["draw_count"]]
    game.discard_pile = row["discard_pile"][: row["discard_count"]]
    game.limbo = row["limbo"][: row["limbo_count"]]
    game.deferred_tokens = tuple(tuple(d) for d in row["deferred_tokens"][: row["deferred_count"]])
    game.orb_seen = tuple(row["orb_seen"]) if row["orb_seen"][0] != NO_VALUE else ()
    game.stack = [decode_step(r) for r in row["stack"][: row["stack_depth"]]]
    game.final_scores = tuple(row["final_scores"]) if row["over"] else None
    game._overflow_check = row["overflow_check"]
    if check:
        problems = position_problems(game, None)
        if problems:
            raise ValueError(f"row {i}: " + "; ".join(problems[:3]))
    # The legal options are what the decision on top offers now: the engine computed them just so.
    top = game.stack[-1] if game.stack else None
    options = steps.OPTIONS[top[0]] if top is not None else None
    game._legal = options(game, top) if options is not None else []
    return game


def _cards_of_counts(counts: list[int]) -> tuple[int, ...]:
    # most counts are 0: skipping them first makes this a third of the cost (unpack runs for every heuristic seat's
    # decision in self-play)
    return tuple([card for card, copies in enumerate(counts) if copies for _ in range(copies)])


def layout_markdown(num_players: int = 4) -> str:
    """The field table of ``docs/vector.md``: name, dtype, per-game shape, bytes at ``num_players``, meaning."""
    lines = [
        f"| field | dtype | shape per game | bytes ({num_players} players) | meaning |",
        "|---|---|---|---|---|",
    ]
    for f in LAYOUT:
        shape = "[" + ", ".join(str(d) for d in f.shape) + "]" if f.shape else "scalar"
        lines.append(
            f"| `{f.name}` | {np.dtype(f.dtype).name} | {shape} | {f.bytes_per_game(num_players)} | {f.meaning} |"
        )
    lines.append(f"| **total** | | | **{ArrayState.bytes_per_game(num_players)}** | |")
    return "\n".join(lines)
