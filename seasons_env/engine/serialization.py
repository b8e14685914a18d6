"""The position format: ``to_dict`` and ``from_dict`` (``docs/state_format.md``).

A position is written as JSON-safe data: per-seat fields, the shared zones, the pending steps by name with
their named arguments, and the generator's state, so that a position read back continues exactly as the
original would. Reading checks every field and names the path of a bad one.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from . import steps
from .behaviour import BEHAVIOUR
from .chance import MASK64, Chance, LegacyChance
from .data import (
    CARD_OF,
    CARDS,
    DICE_PER_SEASON,
    ENERGIES,
    FACES_PER_DIE,
    GAUGE_MAX,
    LEVELS,
    MAX_BONUSES,
    NUM_YEARS,
    SEASONS,
    season_of,
)
from .state import TRANSMUTE_ABILITY, TRANSMUTE_BONUS_USED, ZERO4, State, check_num_players

STATE_FORMAT = "seasons-env/state"
CHANCE_STREAM = "splitmix64"
#: Far above the draws of any game (a few hundred); a position claiming more is not one of this engine's.
MAX_DRAWS = 2**40
#: 2: chance is a counter-based stream (``engine/chance.py``; ``rng`` holds its key and counter), and a decision
#: whose options hang on cards only its player sees is asked even with a single option
#: (``steps.StepKind.private``), so records of version 1 do not replay. Version-1 positions are read: their
#: ``rng`` (a numpy PCG64 state) goes on drawing as it did (``LegacyChance``).
STATE_VERSION = 2
READABLE_VERSIONS = (1, 2)

#: The bit generators a position may name, by an explicit table: a name read from a file is never looked up.
BIT_GENERATORS = {"PCG64": np.random.PCG64}
#: Bounds far above any reachable position, so that a position read from a file cannot blow up the engine:
#: a reserve is over its limit (7, or 10) only by the tokens of one gain, still to be discarded.
MAX_CRYSTALS = 100_000
MAX_TOKENS = 20

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
        "deferred_tokens": [list(x) for x in game.deferred_tokens],
        "orb_seen": {"player": game.orb_seen[0], "card": game.orb_seen[1]} if game.orb_seen else None,
        "pending": [_task_to_dict(t) for t in reversed(game.stack)],
        "final_scores": list(game.final_scores) if game.final_scores is not None else None,
        "rng": _chance_to_dict(game.chance),
    }


def _chance_to_dict(chance: Chance | LegacyChance) -> dict:
    if isinstance(chance, Chance):  # 64-bit key as a decimal string: JSON numbers lose precision
        return {"stream": CHANCE_STREAM, "key": str(chance.key), "counter": chance.counter}
    state = chance.generator().bit_generator.state
    return {
        "bit_generator": state["bit_generator"],
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": state["has_uint32"],
        "uinteger": state["uinteger"],
    }


def _chance(rng_data: object) -> Chance | LegacyChance:
    """The chance stream a position's ``rng`` field describes: the counter stream, or a version-1 PCG64 state."""
    if isinstance(rng_data, dict) and "stream" in rng_data:
        unknown = set(rng_data) - {"stream", "key", "counter"}
        if unknown:
            raise ValueError(f"state: field 'rng' has unknown keys {sorted(unknown)}")
        if rng_data["stream"] != CHANCE_STREAM:
            raise ValueError(f"state: field 'rng.stream' must be {CHANCE_STREAM!r}; got {rng_data['stream']!r}")
        key, counter = rng_data.get("key"), rng_data.get("counter", 0)
        if isinstance(key, str) and key.isascii() and key.isdigit():
            key = int(key)
        if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key <= MASK64:
            raise ValueError(f"state: field 'rng.key' must be a 64-bit unsigned int (a decimal string); got {key!r}")
        if isinstance(counter, bool) or not isinstance(counter, int) or not 0 <= counter < MAX_DRAWS:
            raise ValueError(f"state: field 'rng.counter' must be an int in 0..{MAX_DRAWS - 1}; got {counter!r}")
        return Chance(key, counter)
    return LegacyChance(_generator(rng_data))


def from_dict(cls: type[S], d: dict) -> S:
    """Read a position of class ``cls`` from ``to_dict`` data, its pending steps not yet run (``Game.from_dict`` runs
    them). Every key but ``num_players`` is optional (see the docs)."""
    if not isinstance(d, dict):
        raise ValueError(f"state must be a dict, got {type(d).__name__}")
    if d.get("format", STATE_FORMAT) != STATE_FORMAT or d.get("version", STATE_VERSION) not in READABLE_VERSIONS:
        raise ValueError(
            f"state: unsupported format/version {d.get('format')!r}/{d.get('version')!r}; this engine reads "
            f"{STATE_FORMAT!r} versions {', '.join(map(str, READABLE_VERSIONS))}"
        )
    if "num_players" not in d:
        raise ValueError("state: field 'num_players' is required")
    n = check_num_players(d["num_players"], "state: field 'num_players'")
    level = d.get("level", "magician")
    if level not in LEVELS:
        raise ValueError(f"state: field 'level' must be one of {LEVELS}; got {level!r}")
    rng_data = d.get("rng")
    game = cls.blank(n, level, Chance.from_seed(0) if rng_data is None else _chance(rng_data))
    game.year = _field_int(d, "year", 1, 1, NUM_YEARS + 1)
    game.position = _field_int(d, "position", 1, 1, 12)
    game.first_player = _field_int(d, "first_player", 0, 0, n - 1)
    turn_player = d.get("turn_player")
    game.turn_player = -1 if turn_player is None else _field_int(d, "turn_player", -1, -1, n - 1)
    turn = d.get("turn", {})
    game.turn_flags = (TRANSMUTE_ABILITY if turn.get("transmute_ability") else 0) | (
        TRANSMUTE_BONUS_USED if turn.get("transmute_bonus_used") else 0
    )
    if "game_dice" in d:
        game.game_dice = tuple(tuple(int(x) for x in d["game_dice"][s]) for s in SEASONS)
        for s, dice in enumerate(game.game_dice):
            if len(dice) != n + 1 or any(not 0 <= x < DICE_PER_SEASON for x in dice):
                raise ValueError(f"state: game_dice.{SEASONS[s]} must list {n + 1} dice of 0..4; got {dice}")
    rolled = []
    for k, r in enumerate(d.get("rolled", [])):
        die, face, owner = int(r["die"]), int(r["face"]), r.get("taken_by")
        if not (0 <= die < DICE_PER_SEASON and 0 <= face < FACES_PER_DIE):
            raise ValueError(f"state: rolled[{k}] has die {die} / face {face} out of range")
        rolled.append((die, face, -1 if owner is None else int(owner)))
    game.rolled = tuple(rolled)
    dice_season = d.get("dice_season", SEASONS[season_of(game.position)])
    if dice_season not in SEASONS:
        raise ValueError(f"state: field 'dice_season' must be one of {SEASONS}; got {dice_season!r}")
    game.dice_season = SEASONS.index(dice_season)
    players = d.get("players", [{}] * n)
    if len(players) != n:
        raise ValueError(f"state: field 'players' must have {n} entries; got {len(players)}")
    for p, pd in enumerate(players):
        game.crystals[p] = _field_int(pd, "crystals", 0, 0, MAX_CRYSTALS, f"players[{p}].")
        game.reserve[p] = _energy_tuple(pd.get("reserve", {}), f"players[{p}].reserve")
        game.gauge[p] = _field_int(pd, "summoning_gauge", 0, 0, GAUGE_MAX, f"players[{p}].")
        game.bonuses_used[p] = _field_int(pd, "bonuses_used", 0, 0, MAX_BONUSES, f"players[{p}].")
        game.hand[p] = tuple(sorted(_cards(pd.get("hand", []), f"players[{p}].hand")))
        library = pd.get("library", {})
        game.library[p] = (
            tuple(sorted(_cards(library.get("year2", []), f"players[{p}].library.year2"))),
            tuple(sorted(_cards(library.get("year3", []), f"players[{p}].library.year3"))),
        )
        game.draft_pack[p] = tuple(sorted(_cards(pd.get("draft_pack", []), f"players[{p}].draft_pack")))
        for c in _cards(pd.get("draft_seen", []), f"players[{p}].draft_seen"):
            game.draft_seen[p] |= 1 << c
        instances = []
        for k, entry in enumerate(pd.get("in_play", [])):
            if isinstance(entry, int):
                entry = {"card": entry}
            card = _cards([entry["card"]], f"players[{p}].in_play[{k}]")[0]
            copy_ = entry.get("copy")
            if copy_ is None:
                copy_ = 0 if 2 * (card - 1) not in _all_instances(game, instances) else 1
            inst = 2 * (card - 1) + int(copy_)
            if inst in _all_instances(game, instances):
                raise ValueError(f"state: players[{p}].in_play[{k}]: copy {copy_} of card {card} already in play")
            instances.append(inst)
            if entry.get("tapped"):
                game.tapped |= 1 << inst
            if entry.get("tokens") is not None:
                game.stored[inst] = _energy_tuple(entry["tokens"], f"players[{p}].in_play[{k}].tokens")
            elif BEHAVIOUR[card].stores_tokens:
                game.stored[inst] = ZERO4
        game.in_play[p] = tuple(instances)
    game.draw_pile = _cards(d.get("draw_pile", []), "draw_pile")
    game.discard_pile = _cards(d.get("discard_pile", []), "discard_pile")
    game.limbo = _cards(d.get("limbo", []), "limbo")
    game.deferred_tokens = tuple(tuple(int(v) for v in x) for x in d.get("deferred_tokens", []))
    orb_seen = d.get("orb_seen")
    game.orb_seen = () if orb_seen is None else (int(orb_seen["player"]), int(orb_seen["card"]))
    game.stack = [_task_from_dict(t, n, k) for k, t in enumerate(d.get("pending", []))][::-1]
    scores = d.get("final_scores")
    game.final_scores = tuple(int(s) for s in scores) if scores is not None else None
    if game.final_scores is None and not game.stack:
        raise ValueError("state: field 'pending' is empty but the game is not over (final_scores is null)")
    game.request_overflow_check()
    return game


def _generator(rng_data: object) -> np.random.Generator:
    """The generator a position's ``rng`` field describes (only the bit generators of ``BIT_GENERATORS``)."""
    if not isinstance(rng_data, dict):
        raise ValueError(f"state: field 'rng' must be a dict; got {type(rng_data).__name__}")
    unknown = set(rng_data) - {"bit_generator", "state", "inc", "has_uint32", "uinteger"}
    if unknown:
        raise ValueError(f"state: field 'rng' has unknown keys {sorted(unknown)}")
    name = rng_data.get("bit_generator", "PCG64")
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise ValueError(f"state: field 'rng.bit_generator' must be one of {sorted(BIT_GENERATORS)}; got {name!r}")
    values = {}
    for key, default, bound in (
        ("state", None, 2**128),
        ("inc", None, 2**128),
        ("has_uint32", 0, 2),
        ("uinteger", 0, 2**32),
    ):
        raw = rng_data.get(key, default)
        if raw is None:
            raise ValueError(f"state: field 'rng.{key}' is required")
        if isinstance(raw, str) and raw.isascii() and raw.isdigit() and key in ("state", "inc"):
            raw = int(raw)  # to_dict writes the 128-bit words as decimal strings (JSON numbers lose precision)
        if isinstance(raw, bool) or not isinstance(raw, numbers.Integral) or not 0 <= raw < bound:
            raise ValueError(f"state: field 'rng.{key}' must be an int in 0..{bound - 1}; got {raw!r}")
        values[key] = int(raw)
    bit_generator = BIT_GENERATORS[name](0)  # a fixed seed: the state is replaced at once
    bit_generator.state = {
        "bit_generator": name,
        "state": {"state": values["state"], "inc": values["inc"]},
        "has_uint32": values["has_uint32"],
        "uinteger": values["uinteger"],
    }
    return np.random.Generator(bit_generator)


def _field_int(d: dict, key: str, default: int, lo: int, hi: int | None, prefix: str = "") -> int:
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"state: field '{prefix}{key}' must be an int; got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"state: field '{prefix}{key}' must be in {lo}..{hi if hi is not None else ''}; got {value}")
    return int(value)


def _energy_dict(tokens: Sequence[int]) -> dict[str, int]:
    return {e: int(tokens[i]) for i, e in enumerate(ENERGIES)}


def _energy_tuple(value: dict, what: str) -> tuple[int, int, int, int]:
    if not isinstance(value, dict) or set(value) - set(ENERGIES):
        raise ValueError(f"state: {what} must map energy names {ENERGIES} to counts; got {value!r}")
    for e in ENERGIES:
        count = value.get(e, 0)
        if isinstance(count, bool) or not isinstance(count, numbers.Integral):
            raise ValueError(f"state: {what}.{e} must be an int; got {count!r}")
        if not 0 <= count <= MAX_TOKENS:
            raise ValueError(f"state: {what}.{e} must be in 0..{MAX_TOKENS}; got {count}")
    tokens = tuple(int(value.get(e, 0)) for e in ENERGIES)
    if sum(tokens) > MAX_TOKENS:
        raise ValueError(f"state: {what} holds {sum(tokens)} tokens; at most {MAX_TOKENS} are possible")
    return tokens


def _cards(values: Iterable, what: str) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 1 <= v <= len(CARDS):
            raise ValueError(f"state: {what} must list card ids 1..{len(CARDS)}; got {v!r}")
        out.append(int(v))
    return out


def _all_instances(game: State, pending: list[int]) -> set[int]:
    return {i for t in game.in_play for i in t} | set(pending)


def _to_json(value: object) -> object:
    return [_to_json(v) for v in value] if isinstance(value, tuple) else value


def _from_json(value: object) -> object:
    return tuple(_from_json(v) for v in value) if isinstance(value, list) else int(value)


def _task_to_dict(task: tuple) -> dict:
    spec = steps.STEP_KINDS[task[0]]
    out = {"step": spec.name, "player": task[1]}
    for name, value in zip(spec.args, task[2:], strict=True):
        out[name] = _to_json(value)
    return out


def _task_from_dict(entry: dict, n: int, k: int) -> tuple:
    name = entry.get("step")
    spec = steps.STEP_BY_NAME.get(name)
    if spec is None:
        raise ValueError(f"state: pending[{k}].step {name!r} is not a known step")
    player = entry.get("player", 0)
    if not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"state: pending[{k}].player must be a seat 0..{n - 1}; got {player!r}")
    missing = [a for a in spec.args if a not in entry]
    if missing:
        raise ValueError(f"state: pending[{k}] ({name}) lacks {', '.join(missing)}")
    return (spec.kind, player, *(_from_json(entry[a]) for a in spec.args))
