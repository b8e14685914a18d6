"""An arena's records file (``games.jsonl``): reading it back, checking every record against the arena's settings
and schedule, and replaying recorded games to check that the game bears them out."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from seasons_env import LEVELS, NUM_ACTIONS
from seasons_env.records import RecordError, parse_record
from seasons_env.replay import Replay

from .arena_config import ArenaConfig, ArenaFolderError, is_int, seating

#: How many recorded games a resumed run replays to check them (all of them when there are no more).
REPLAY_CHECKS = 500


@dataclass
class RecordFile:
    """What ``read_records`` found in a ``games.jsonl``."""

    path: Path
    records: dict[int, dict] = field(default_factory=dict)  # by game index, each game once
    lines: dict[int, int] = field(default_factory=dict)  # the line of each game's record, by game index
    notes: list[str] = field(default_factory=list)  # what was skipped: repeated games, a torn last line
    intact_bytes: bytes = b""  # the file without a torn last line, every line ending in a newline
    needs_repair: bool = False  # the file is not ``intact_bytes`` (a torn or unterminated last line)


def read_records(path: Path, config: ArenaConfig | None = None, vouched: bool = False) -> RecordFile:
    """Read and check every record of a ``games.jsonl``.

    With ``config``, every record must carry that arena's settings (``ArenaConfig.settings``) and the seats and
    seed the schedule gives its game index; records written before records carried their settings are
    accepted only when ``vouched`` (the folder's ``config.json`` names the same settings). Without ``config``,
    the records must agree with each other. A game recorded more than once counts once (the first line) when the
    records agree (timings aside), and is a conflict when they do not; a last line cut short by a kill (no
    newline at its end, not complete JSON) is skipped. Any other fault raises ``ArenaFolderError`` naming the
    file, the line and the fault."""
    path = Path(path)
    found = RecordFile(path)
    if not path.exists():
        return found
    data = path.read_bytes()
    expected = config.settings() if config is not None else None
    first_line: dict[int, int] = {}
    lines = data.split(b"\n")
    offset = 0
    for number, raw in enumerate(lines, start=1):
        unterminated = number == len(lines)  # the bytes after the last newline
        if unterminated and not raw:
            break
        where = f"{path} line {number}"
        if not raw.strip():
            offset += len(raw) + 1
            found.needs_repair |= unterminated
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            if unterminated:  # the write of this line was cut short: its game is replayed
                found.notes.append(f"{where} was cut short (an interrupted run); skipped, its game is replayed")
                found.needs_repair = True
                break
            raise ArenaFolderError(f"{where}: {decoding_fault(error)}") from None
        record_settings = check_record(value, where, config, vouched)
        if record_settings is not None:
            if expected is None:
                expected = record_settings
            elif record_settings != expected:
                raise ArenaFolderError(f"{where}: {_settings_fault(record_settings, expected)}")
        index = value["game_index"]
        if index in first_line and _game_content(value) != _game_content(found.records[index]):
            raise ArenaFolderError(
                f"{where} records game {index} again, with other results than line {first_line[index]} "
                f"(differing: {', '.join(_differing(value, found.records[index]))}): conflicting records of one "
                "game; keep the right line and remove the other"
            )
        if index in first_line:
            found.notes.append(
                f"{where} repeats game {index} (first recorded at line {first_line[index]}); counted once"
            )
        else:
            first_line[index] = number
            found.records[index] = value
            found.lines[index] = number
        offset += len(raw) + 1
        if unterminated:  # a complete record whose newline was not written yet
            found.needs_repair = True
    found.intact_bytes = data[:offset] if offset <= len(data) else data + b"\n"
    return found


#: Measurements that differ between two plays of one game; every other field of a record is the game itself.
_TIMINGS = ("seconds_per_seat",)


def _game_content(record: dict) -> dict:
    return {key: value for key, value in record.items() if key not in _TIMINGS}


def _differing(a: dict, b: dict) -> list[str]:
    return sorted(key for key in set(_game_content(a)) | set(_game_content(b)) if a.get(key) != b.get(key))


def replay_check(found: RecordFile, limit: int = REPLAY_CHECKS) -> str | None:
    """Replay the recorded games (all, or a sample of ``limit`` of them): every action must be legal and the game
    must end at the recorded scores and winners. ``ArenaFolderError`` names the line of a game that does not;
    returns what was checked, for the user, when there was something to check."""
    replayable = sorted(g for g, record in found.records.items() if "actions" in record)
    if not replayable:
        return None
    chosen = replayable
    if len(replayable) > limit:  # a sample, the same one for the same records
        chosen = sorted(random.Random(len(replayable)).sample(replayable, limit))
    for index in chosen:
        where = f"{found.path} line {found.lines[index]}"
        try:
            Replay(parse_record(found.records[index], where))
        except RecordError as error:
            raise ArenaFolderError(
                f"{error} (refused: a record the game does not bear out; remove that line to replay the game)"
            ) from None
    if len(chosen) == len(replayable):
        return None
    return (
        f"replayed a sample of {len(chosen)} of the {len(replayable)} recorded games in {found.path} to check them "
        "(every action legal, scores and winners as recorded)"
    )


def decoding_fault(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"not valid UTF-8 (byte 0x{error.object[error.start]:02x} at column {error.start + 1})"
    if isinstance(error, RecursionError):
        return "not a JSON record (nested too deeply)"
    if isinstance(error, json.JSONDecodeError):
        return f"not a JSON record ({error.msg} at column {error.colno})"
    return f"not a JSON record ({error})"


def _settings_fault(found: dict, expected: dict) -> str:
    differing = [key for key in expected if found.get(key) != expected[key]]
    differing += [key for key in found if key not in expected]
    shown = "; ".join(f"{key} {found.get(key)!r}, not {expected.get(key)!r}" for key in differing)
    return (
        f"recorded by another arena configuration ({shown}); its records cannot be counted with these, "
        "so use another folder for these settings, or the recorded settings to resume it"
    )


def _record_fields(players: int) -> dict[str, tuple[Callable[[object], bool], str]]:
    """The fields every record has, each with a check of its value and what the value must be."""

    def ints(value: object, length: int | None, low: int | None = None, high: int | None = None) -> bool:
        return (
            isinstance(value, list)
            and (length is None or len(value) == length)
            and all(is_int(v) and (low is None or v >= low) and (high is None or v <= high) for v in value)
        )

    def card_lists(value: object) -> bool:
        return isinstance(value, list) and len(value) in (0, players) and all(ints(v, None, 1, 50) for v in value)

    return {
        "seats": (
            lambda v: isinstance(v, list) and len(v) == players and all(isinstance(s, str) for s in v),
            f"a list of {players} agent names",
        ),
        "scores": (lambda v: ints(v, players), f"a list of {players} integers"),
        "winners": (
            lambda v: ints(v, None, 0, players - 1) and 1 <= len(v) == len(set(v)),
            f"a non-empty list of distinct seats 0..{players - 1}",
        ),
        "decisions": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
        "seconds_per_seat": (
            lambda v: (
                isinstance(v, list)
                and len(v) == players
                and all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x < math.inf for x in v)
            ),
            f"a list of {players} non-negative numbers",
        ),
        "decisions_per_seat": (lambda v: ints(v, players, 0), f"a list of {players} non-negative integers"),
        "decks": (card_lists, f"a list of {players} lists of cards 1..50 (or empty)"),
        "played": (card_lists, f"a list of {players} lists of cards 1..50 (or empty)"),
    }


def check_record(value: object, where: str, config: ArenaConfig | None = None, vouched: bool = False) -> dict | None:
    """Check one record (``where`` names its file and line in errors); return the settings it carries, or
    ``None`` for a record written before records carried them."""

    def fault(problem: str) -> ArenaFolderError:
        return ArenaFolderError(f"{where}: {problem}")

    def shown(v: object) -> str:
        text = repr(v)
        return text if len(text) <= 80 else text[:77] + "..."

    if not isinstance(value, dict):
        raise fault(f"a record must be a JSON object; got {'a list' if isinstance(value, list) else shown(value)}")
    for key in ("game_index", "seed", "num_players", "level", *_record_fields(2)):
        if key not in value:
            raise fault(f"missing key {key!r}")
    index, players = value["game_index"], value["num_players"]
    if not is_int(index) or index < 0:
        raise fault(f"'game_index' must be a non-negative integer; got {shown(index)}")
    if not is_int(players) or players not in (2, 3, 4):
        raise fault(f"'num_players' must be 2, 3 or 4; got {shown(players)}")
    if value["level"] not in LEVELS:
        raise fault(f"'level' must be one of {', '.join(LEVELS)}; got {shown(value['level'])}")
    if not is_int(value["seed"]) or value["seed"] < 0:
        raise fault(f"'seed' must be a non-negative integer; got {shown(value['seed'])}")
    for key, (valid, what) in _record_fields(players).items():
        if not valid(value[key]):
            raise fault(f"{key!r} must be {what}; got {shown(value[key])}")
    scores, winners = value["scores"], value["winners"]
    if any(scores[seat] != max(scores) for seat in winners):
        raise fault(
            f"'winners' {winners} contradict 'scores' {scores}: a winner must hold the top score "
            "(refused: the record does not agree with itself)"
        )
    if sum(value["decisions_per_seat"]) != value["decisions"]:
        raise fault(
            f"'decisions_per_seat' {value['decisions_per_seat']} do not add up to 'decisions' {value['decisions']}"
        )
    if "actions" in value:  # absent from records written before they kept the actions (not replayable)
        actions = value["actions"]
        if not (
            isinstance(actions, list)
            and len(actions) == value["decisions"]
            and all(is_int(a) and 0 <= a < NUM_ACTIONS for a in actions)
        ):
            raise fault(
                f"'actions' must be a list of {value['decisions']} action ids 0..{NUM_ACTIONS - 1} "
                f"(one per decision); got {shown(actions)}"
            )
    settings = value.get("config")
    if settings is not None and not isinstance(settings, dict):
        raise fault(f"'config' must be a JSON object of the arena's settings; got {shown(settings)}")
    if config is None:
        return settings
    if settings is None:
        if not vouched:
            raise fault(
                "the record carries no configuration (it was written before records did) and the folder's "
                "config.json is missing or names other settings, so nothing says which arena it belongs to; "
                "move it to a folder of its own"
            )
    elif settings != config.settings():
        raise fault(_settings_fault(settings, config.settings()))
    if (players, value["level"]) != (config.num_players, config.level):
        raise fault(
            f"a game of {players} players at level {value['level']!r} in an arena of {config.num_players} players "
            f"at level {config.level!r}"
        )
    seats, seed = seating(config, index)
    if value["seats"] != list(seats) or value["seed"] != seed:
        raise fault(
            f"seats {value['seats']} and seed {value['seed']} are not what the schedule gives game {index} "
            f"(seats {list(seats)}, seed {seed})"
        )
    return settings
