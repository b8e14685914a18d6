"""Records of games: what a record holds, checking one (``parse_record``), making and writing one, and reading
records from files. ``seasons_env.replay`` rebuilds and shows the games they record.

A *record* is a JSON object: one line of an arena's ``games.jsonl`` or the file ``seasons play --record`` writes.

| key | type | |
|---|---|---|
| ``num_players`` | int 2..4 | required |
| ``level`` | ``"apprentice"``, ``"magician"`` or ``"archmage"`` | required |
| ``seed`` | int 0..2**64-1 | required: the game is ``Game.new(num_players, level, seed=seed)`` |
| ``actions`` | list of action ids | required: every decision of the game, in order |
| ``seats`` | list of names, one per seat | optional (agent names) |
| ``scores`` | list of ints, one per seat | optional: the final scores; the replay must end there |
| ``winners`` | list of seats | optional: checked against the replayed game when given |
| ``game_index`` | int | optional (arena records): what ``--game N`` selects |
| ``action_table_version``, ``state_version`` | int | optional: must equal this engine's when given |
| ``policy`` | list, one per action | optional: ``null`` or ``[[action, probability], ...]`` of the deciding policy |

Everything read is untrusted: a record is checked field by field, and every action must be legal at its step
(``RecordError`` names the source, the field or the step). The versions are also read from ``config``, where an
arena record keeps them. Other keys (an arena's timings, decks...) are ignored.
"""

from __future__ import annotations

import json
import numbers
import os
import shlex
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..engine import LEVELS, STATE_VERSION
from ..engine.actions import ACTION_TABLE_VERSION, NUM_ACTIONS
from .files import file_kind, write_atomic

MAX_ACTIONS = 50_000  # seasons_agents.base.play_game's limit: no real game comes near it
MAX_SEED = 2**64
MAX_POLICY_ENTRIES = 32  # top actions kept per step


class RecordError(ValueError):
    """A record that cannot be replayed: says which file/line, which field or which step, and what is wrong."""


def current_versions() -> dict[str, int]:
    """This engine's action table and position format versions, as a record stores them."""
    return {"action_table_version": ACTION_TABLE_VERSION, "state_version": STATE_VERSION}


@dataclass(frozen=True)
class Record:
    """A validated record (see the module docstring)."""

    num_players: int
    level: str
    seed: int
    actions: tuple[int, ...]
    seats: tuple[str, ...] | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None
    game_index: int | None = None
    policy: tuple[tuple[tuple[int, float], ...] | None, ...] | None = None
    source: str = "record"


def make_record(
    num_players: int,
    level: str,
    seed: int,
    actions: Sequence[int],
    *,
    seats: Sequence[str] | None = None,
    scores: Sequence[int] | None = None,
    winners: Sequence[int] | None = None,
) -> dict:
    """A record dict of a game (with this engine's versions), checked as a replay would check it."""
    record: dict = {"num_players": num_players, "level": level, "seed": seed, "actions": [int(a) for a in actions]}
    if seats is not None:
        record["seats"] = list(seats)
    if scores is not None:
        record["scores"] = [int(s) for s in scores]
    if winners is not None:
        record["winners"] = [int(p) for p in winners]
    record.update(current_versions())
    parse_record(record)
    return record


def _int(value: object, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RecordError(f"{field} must be an int {lo}..{hi}; got {value!r}")
    if not lo <= value <= hi:
        raise RecordError(f"{field} must be an int {lo}..{hi}; got {value}")
    return int(value)


def _list(value: object, field: str, length: int | None = None, limit: int | None = None) -> list:
    if not isinstance(value, list):
        raise RecordError(f"{field} must be a list; got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise RecordError(f"{field} must hold {length} entries (one per seat); got {len(value)}")
    if limit is not None and len(value) > limit:
        raise RecordError(f"{field} holds {len(value)} entries; at most {limit} are accepted")
    return value


def parse_record(data: object, source: str = "record") -> Record:
    """Check a record (parsed JSON, untrusted) and return it typed; ``RecordError`` names ``source`` and the field."""
    try:
        return _parse_record(data, source)
    except RecordError as error:
        raise RecordError(f"{source}: {error}") from None


def _parse_record(data: object, source: str) -> Record:
    if not isinstance(data, Mapping):
        raise RecordError(f"a record must be a JSON object; got {type(data).__name__}")
    for key in ("num_players", "level", "seed", "actions"):
        if key not in data:
            hint = " (a record without its actions, such as an older arena's, cannot be replayed)" * (key == "actions")
            raise RecordError(f"field {key!r} is missing{hint}")
    settings = data.get("config", {})  # an arena record keeps its versions with its settings
    if not isinstance(settings, Mapping):
        raise RecordError(f"config must be a JSON object; got {type(settings).__name__}")
    for prefix, holder in (("", data), ("config.", settings)):
        for key, expected in current_versions().items():
            if key in holder:
                found = _int(holder[key], prefix + key, 0, 2**31 - 1)
                if found != expected:
                    raise RecordError(
                        f"{prefix}{key} is {found} but this engine's is {expected}: the record was made by another "
                        "version"
                    )
    n = _int(data["num_players"], "num_players", 2, 4)
    level = data["level"]
    if level not in LEVELS:
        raise RecordError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    seed = _int(data["seed"], "seed", 0, MAX_SEED - 1)
    actions = tuple(
        _int(a, f"actions[{k}]", 0, NUM_ACTIONS - 1)
        for k, a in enumerate(_list(data["actions"], "actions", limit=MAX_ACTIONS))
    )
    seats = scores = winners = game_index = policy = None
    if data.get("seats") is not None:
        seats = tuple(_list(data["seats"], "seats", length=n))
        for k, name in enumerate(seats):
            if not isinstance(name, str) or len(name) > 100:
                raise RecordError(f"seats[{k}] must be a name (a string of at most 100 characters); got {name!r}")
    if data.get("scores") is not None:
        scores = tuple(
            _int(s, f"scores[{k}]", -(10**6), 10**6) for k, s in enumerate(_list(data["scores"], "scores", n))
        )
    if data.get("winners") is not None:
        winners = _winners(data["winners"], "winners", n)
    if data.get("game_index") is not None:
        game_index = _int(data["game_index"], "game_index", 0, 2**63 - 1)
    if data.get("policy") is not None:
        entries = _list(data["policy"], "policy", length=len(actions))
        policy = tuple(_policy_entry(entry, f"policy[{k}]") for k, entry in enumerate(entries))
    return Record(n, level, seed, actions, seats, scores, winners, game_index, policy, source)


def _winners(value: object, field: str, num_players: int) -> tuple[int, ...]:
    """A game's winners: one seat or more, each once."""
    seats = _list(value, field, limit=num_players)
    winners = tuple(_int(p, f"{field}[{k}]", 0, num_players - 1) for k, p in enumerate(seats))
    if not winners or len(set(winners)) != len(winners):
        raise RecordError(f"{field} must list at least one seat 0..{num_players - 1}, each once; got {list(winners)}")
    return winners


def _policy_entry(entry: object, field: str) -> tuple[tuple[int, float], ...] | None:
    if entry is None:
        return None
    pairs = []
    for k, pair in enumerate(_list(entry, field, limit=NUM_ACTIONS)):
        where = f"{field}[{k}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise RecordError(f"{where} must be a pair [action, probability]; got {pair!r}")
        action = _int(pair[0], f"{where}[0]", 0, NUM_ACTIONS - 1)
        prob = pair[1]
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not (0.0 <= prob <= 1.0):
            raise RecordError(f"{where}[1] must be a probability 0..1; got {prob!r}")
        pairs.append((action, float(prob)))
    pairs.sort(key=lambda pair: (-pair[1], pair[0]))
    return tuple(pairs[:MAX_POLICY_ENTRIES])


# ---------------------------------------------------------------------------- reading records from files


def read_record_lines(path: Path) -> list[tuple[str, dict]]:
    """The raw records of a record file (one JSON object), a JSONL file (one per line, e.g. ``games.jsonl``; also
    under another suffix such as ``.json``: one object per line is read as JSON Lines) or an arena folder (its
    ``games.jsonl``), each with its source (``file line N``). A torn last line (a run killed while writing it: no
    newline at its end) is skipped, as the arena does."""
    path = Path(path)
    if path.is_dir():
        path = path / "games.jsonl"
        if not path.is_file():
            raise RecordError(f"{path.parent} is a folder without games.jsonl: give an arena folder or a record file")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror or error}") from None
    if path.suffix != ".jsonl":
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise RecordError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
        except (json.JSONDecodeError, ValueError) as error:
            if not _json_lines(raw, error):
                several = " (several records go one JSON object per line, as in a .jsonl file)" * (
                    isinstance(error, json.JSONDecodeError) and error.msg == "Extra data"
                )
                raise RecordError(f"{path}: not a JSON record ({error}){several}") from None
            # JSON Lines under another name (a games.jsonl renamed .json): read as JSON Lines.
        except RecursionError:
            raise RecordError(f"{path}: not a JSON record (nested too deeply)") from None
        else:
            if not isinstance(data, dict):
                raise RecordError(f"{path}: a record file holds one JSON object; got {type(data).__name__}")
            return [(str(path), data)]
    entries = []
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        torn = number == len(lines)  # the last piece has no newline after it
        try:
            data = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as error:
            if torn:
                continue
            raise RecordError(f"{where}: not UTF-8 text ({error.reason} at byte {error.start})") from None
        except (json.JSONDecodeError, ValueError, RecursionError) as error:
            if torn:
                continue
            fault = "nested too deeply" if isinstance(error, RecursionError) else error
            raise RecordError(f"{where}: not a JSON record ({fault})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{where}: a record must be a JSON object; got {type(data).__name__}")
        entries.append((where, data))
    if not entries:
        raise RecordError(f"{path} holds no records")
    return entries


def read_game_file(path: Path) -> tuple[str, dict]:
    """The record of a file that a game continues from and is written back to (``seasons play --web --resume``),
    with its source. Refused with ``RecordError``: anything but a regular file (reading a named pipe would wait
    for a writer; a device or a folder cannot take the record back), and a file of several records (writing the
    one game back would lose the others)."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # through links
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise RecordError(
            f"{path} is {file_kind(mode)}: a game is resumed from a regular file holding its record (and written "
            "back into it)"
        )
    entries = read_record_lines(path)
    if len(entries) > 1:
        first_line = entries[0][0].rsplit(" line ", 1)[-1]
        raise RecordError(
            f"{path} holds {len(entries)} records; a game is resumed from a file of one record, into which it is "
            f"written back (the other records would be lost): copy the game's line into a file of its own, for "
            f"example the first: sed -n {first_line}p {shlex.quote(str(path))} > game.json, and resume that"
        )
    return entries[0]


def _json_lines(raw: bytes, error: ValueError) -> bool:
    """Whether a file that is not one JSON value is JSON Lines: it has extra data after a first line that is a
    JSON object on its own."""
    if not isinstance(error, json.JSONDecodeError) or error.msg != "Extra data":
        return False
    first = next((line for line in raw.split(b"\n") if line.strip()), b"")
    try:
        return isinstance(json.loads(first.decode("utf-8")), dict)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False


def select_game(entries: Sequence[tuple[str, dict]], game: int | None) -> tuple[str, dict]:
    """The record of game ``game``: the one with that ``game_index`` when the records carry one, else the
    ``game``-th record (from 0). ``None`` picks the only (or first) record."""
    if game is None:
        return entries[0]
    indexed = [(where, data) for where, data in entries if isinstance(data.get("game_index"), int)]
    if indexed:
        for where, data in indexed:
            if data["game_index"] == game and not isinstance(data["game_index"], bool):
                return where, data
        known = sorted({data["game_index"] for _, data in indexed})
        shown = ", ".join(map(str, known[:10])) + (" ..." if len(known) > 10 else "")
        raise RecordError(f"no record has game_index {game}; the records hold {shown}")
    if not 0 <= game < len(entries):
        raise RecordError(f"game {game} does not exist: the file holds {len(entries)} records (0..{len(entries) - 1})")
    return entries[game]


# ---------------------------------------------------------------------------- record files


def write_record(path: Path, record: dict) -> None:
    """Write a record as one JSON file, atomically (after checking it as a replay would)."""
    parse_record(record, str(path))
    write_atomic(path, (json.dumps(record) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------- notable games


def _scores_of(record: Mapping, where: str) -> list[int]:
    scores = record.get("scores")
    if not isinstance(scores, list) or not scores:
        raise RecordError(f"{where}: field 'scores' must be a list of ints; got {scores!r}")
    return [_int(s, f"{where}: scores[{k}]", -(10**6), 10**6) for k, s in enumerate(scores)]


def notable_games(records: Sequence[Mapping], sources: Sequence[str] | None = None) -> dict:
    """The arena's notable games: ``highest_score`` (the game with the highest score of any seat) and
    ``biggest_upset`` (the win whose winner's agent has the lowest overall win rate compared with the best
    agent it beat; ``None`` when no game was won by the weaker agent). Each is a dict with ``index`` (position in
    ``records``), ``game_index``, ``seat``, ``score`` and ``reason``. Records are untrusted: bad ``scores``,
    ``seats`` or ``winners`` raise ``RecordError`` naming the record (``sources[i]`` when given, such as
    ``games.jsonl line 3``, else ``record i``)."""
    if not records:
        raise RecordError("no records to choose from")
    parsed = []
    if sources is not None and len(sources) != len(records):
        raise ValueError(f"sources must name every record: {len(sources)} names for {len(records)} records")
    for index, record in enumerate(records):
        where = sources[index] if sources is not None else f"record {index}"
        if not isinstance(record, Mapping):
            raise RecordError(f"{where}: a record must be a JSON object; got {type(record).__name__}")
        scores = _scores_of(record, where)
        seats = record.get("seats")
        if seats is not None and (
            not isinstance(seats, list) or len(seats) != len(scores) or not all(isinstance(s, str) for s in seats)
        ):
            raise RecordError(f"{where}: field 'seats' must list one agent name per seat; got {seats!r}")
        winners = record.get("winners")
        if winners is None:
            best = max(scores)
            winners = [p for p, s in enumerate(scores) if s == best]
        else:
            try:
                winners = list(_winners(winners, "winners", len(scores)))
            except RecordError as error:
                raise RecordError(f"{where}: {error}") from None
        parsed.append((index, record, scores, seats, winners))

    def game_index(record: Mapping) -> int | None:
        value = record.get("game_index")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    index, record, scores, seats, _ = max(parsed, key=lambda item: (max(item[2]), -item[0]))
    seat = scores.index(max(scores))
    who = f"player {seat}" + (f" ({seats[seat]})" if seats else "")
    result: dict = {
        "highest_score": {
            "index": index,
            "game_index": game_index(record),
            "seat": seat,
            "score": scores[seat],
            "reason": f"{who} scored {scores[seat]}, the highest score of the {len(records)} games",
        },
        "biggest_upset": None,
    }
    # Overall win rate of each agent over its seats (a shared win counts for every winner).
    seats_played: dict[str, int] = {}
    seats_won: dict[str, int] = {}
    for _, _, _, seats, winners in parsed:
        if seats is None:
            continue
        for p, name in enumerate(seats):
            seats_played[name] = seats_played.get(name, 0) + 1
            seats_won[name] = seats_won.get(name, 0) + (p in winners)
    rate = {name: seats_won[name] / seats_played[name] for name in seats_played}
    best = None
    for index, record, scores, seats, winners in parsed:
        if seats is None:
            continue
        winner = min(winners, key=lambda p: (rate[seats[p]], p))
        losers = [p for p in range(len(seats)) if p not in winners and seats[p] != seats[winner]]
        if not losers:
            continue
        beaten = max(losers, key=lambda p: (rate[seats[p]], -p))
        gap = rate[seats[beaten]] - rate[seats[winner]]
        if gap > 0 and (best is None or gap > best[0]):
            best = (gap, index, record, winner, beaten, seats, scores)
    if best is not None:
        gap, index, record, winner, beaten, seats, scores = best
        result["biggest_upset"] = {
            "index": index,
            "game_index": game_index(record),
            "seat": winner,
            "score": scores[winner],
            "reason": (
                f"player {winner} ({seats[winner]}, {rate[seats[winner]]:.0%} wins overall) beat player {beaten} "
                f"({seats[beaten]}, {rate[seats[beaten]]:.0%} wins overall), {scores[winner]} to {scores[beaten]}"
            ),
        }
    return result
