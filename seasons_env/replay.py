"""Replays of recorded games: validate a record, rebuild every position, step through it in the terminal, write
an animation (GIF, MP4) or one self-contained HTML page with a slider.

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

import functools
import html
import io
import json
import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

import numpy as np

from . import ACTION_TABLE_VERSION, LEVELS, NUM_ACTIONS, Game, describe_action
from .engine import STATE_VERSION
from .files import replace_atomically, write_atomic
from .picture import SEAT_COLORS, board_view, draw_view
from .rendering import card_choice_is_public, render_text

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


# ---------------------------------------------------------------------------- rebuilding the positions


class Replay:
    """Every position of a recorded game: ``positions[k]`` is the game before ``record.actions[k]``, and the
    last one is after the last action."""

    def __init__(self, record: Record) -> None:
        self.record = record
        game = Game.new(record.num_players, record.level, seed=record.seed)
        positions = [game.clone()]
        for step, action in enumerate(record.actions):
            if game.is_over:
                raise RecordError(
                    f"{record.source}: step {step}: the game is over after {step} actions, but the record has "
                    f"{len(record.actions)}"
                )
            legal = game.legal_action_list()
            if action not in legal:
                shown = ", ".join(f"{a} ({describe_action(a)})" for a in legal[:6])
                more = f" and {len(legal) - 6} more" if len(legal) > 6 else ""
                raise RecordError(
                    f"{record.source}: step {step}: action {action} ({describe_action(action)}) is not legal for "
                    f"player {game.current_player}'s decision {game.pending_decision}; legal: {shown}{more}"
                )
            game.apply(action)
            positions.append(game.clone())
        self.positions = positions
        final = positions[-1]
        if record.scores is not None:
            if not final.is_over:
                raise RecordError(
                    f"{record.source}: the record gives final scores {list(record.scores)} but its "
                    f"{len(record.actions)} actions end before the game does"
                )
            if list(record.scores) != final.scores():
                raise RecordError(
                    f"{record.source}: the replayed game ends with scores {final.scores()}, the record says "
                    f"{list(record.scores)}"
                )
        if record.winners is not None and final.is_over and sorted(record.winners) != sorted(final.winners()):
            raise RecordError(
                f"{record.source}: the replayed game's winners are {final.winners()}, the record says "
                f"{list(record.winners)}"
            )

    def __len__(self) -> int:
        """The number of positions (actions + 1)."""
        return len(self.positions)

    @property
    def finished(self) -> bool:
        return self.positions[-1].is_over

    def seat_name(self, p: int) -> str:
        return f"player {p}" + (f" ({self.record.seats[p]})" if self.record.seats is not None else "")

    def move(self, k: int, seat: int | None = None) -> str:
        """What happens at position ``k``, as ``seat`` may know it (``None``: everything)."""
        game = self.positions[k]
        if k == len(self.record.actions):
            if game.is_over:
                winners = ", ".join(self.seat_name(p) for p in game.winners())
                return f"Game over. Final scores {game.scores()}; winner(s): {winners}"
            return "End of the record (the game was not finished)"
        return f"{self.seat_name(game.current_player)}, decision {game.pending_decision}, chose: {self.label(k, seat)}"

    def label(self, k: int, seat: int | None = None) -> str:
        """The label of action ``k``; another seat's choice of a card ``seat`` does not see is not named."""
        game, action = self.positions[k], self.record.actions[k]
        if seat is not None and game.current_player != seat and not card_choice_is_public(game, action):
            return f"chooses a card (not shown to player {seat})"
        return describe_action(action)

    def policy(self, k: int, seat: int | None = None) -> list[tuple[str, float]] | None:
        """The deciding policy's top actions at ``k`` (labels, probabilities), when the record holds them and
        ``seat`` may see them (its own decisions, or everything for ``None``)."""
        if self.record.policy is None or k >= len(self.record.actions) or self.record.policy[k] is None:
            return None
        if seat is not None and self.positions[k].current_player != seat:
            return None
        return [(describe_action(a), p) for a, p in self.record.policy[k][:5]]

    def score_history(self) -> list[list[int]]:
        """Each seat's score at every position (the score if the game ended there; the final score at the end)."""
        return [[int(s) for s in game.scores()] for game in self.positions]


def load_replay(path: Path, game: int | None = None) -> Replay:
    """Read, select, check and replay one game of a record file, JSONL file or arena folder."""
    where, data = select_game(read_record_lines(path), game)
    return Replay(parse_record(data, where))


# ---------------------------------------------------------------------------- record files


def write_record(path: Path, record: dict) -> None:
    """Write a record as one JSON file, atomically (after checking it as a replay would)."""
    parse_record(record, str(path))
    write_atomic(path, (json.dumps(record) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------- the terminal


TERMINAL_HELP = "Enter or n: next position; p: previous; a number: jump to that position; s: start; e: end; q: quit."


def step_through(replay: Replay, seat: int | None = None, input_stream: TextIO | None = None, output=None) -> None:
    """Show the positions one at a time at the terminal: next, previous, jump to a number, start, end, quit."""
    import sys

    stream_in = input_stream if input_stream is not None else sys.stdin
    stream_out = output if output is not None else sys.stdout
    last = len(replay) - 1
    k = 0

    def say(text: str = "") -> None:
        stream_out.write(text + "\n")
        stream_out.flush()

    say(f"Replay of {replay.record.source}: {last} actions. {TERMINAL_HELP}")
    while True:
        say()
        say(f"Position {k} of {last}")
        say(render_text(replay.positions[k], viewer=seat))
        say(f">> {replay.move(k, seat)}")
        stream_out.write("[n]ext, [p]revious, number, [s]tart, [e]nd, [q]uit: ")
        stream_out.flush()
        line = stream_in.readline()
        if not line:
            say()
            return
        command = line.strip().lower()
        if command in ("", "n", "next"):
            if k == last:
                say("This is the last position (q quits).")
            k = min(k + 1, last)
        elif command in ("p", "prev", "previous"):
            if k == 0:
                say("This is the first position.")
            k = max(k - 1, 0)
        elif command in ("s", "start"):
            k = 0
        elif command in ("e", "end"):
            k = last
        elif command in ("q", "quit", "exit"):
            return
        elif command.isascii() and command.isdigit():
            if int(command) > last:
                say(f"There is no position {command}: the positions are 0..{last}.")
            else:
                k = int(command)
        else:
            say(f"{line.strip()!r} is not a command. {TERMINAL_HELP}")


# ---------------------------------------------------------------------------- animations


def frames(replay: Replay, seat: int | None = None) -> Iterator:
    """The picture of every position (Pillow images)."""
    for game in replay.positions:
        yield draw_view(board_view(game, seat))


def write_gif(replay: Replay, path: Path, seat: int | None = None, fps: float = 2.0) -> None:
    """An animated GIF of the game (Pillow's GIF encoder), written atomically.

    The frames are streamed: each position is drawn, encoded and written before the next is drawn, so memory
    holds one picture (and the previous frame, to write only the part that changed) however long the game."""
    from PIL import GifImagePlugin, Image

    # One palette for the whole game, from a few positions spread over it: quantizing each frame on its own is
    # many times slower and makes the colours flicker. These few are drawn twice.
    sample = [draw_view(board_view(game, seat)) for game in replay.positions[:: max(1, len(replay) // 8)]]
    width, height = sample[0].size
    montage = Image.new("RGB", (width, height * len(sample)))
    for k, picture in enumerate(sample):
        montage.paste(picture, (0, height * k))
    palette = montage.quantize(255, method=Image.Quantize.MEDIANCUT)
    del sample, montage
    duration = round(1000 / fps)

    def write(temp: Path) -> None:
        previous = None
        with open(temp, "wb") as sink:
            for picture in frames(replay, seat):
                frame = picture.quantize(palette=palette, dither=Image.Dither.NONE)
                del picture
                if previous is None:  # the header: the canvas, the one palette, loop forever
                    header, _ = GifImagePlugin.getheader(frame.copy(), info={"loop": 0, "duration": duration})
                    sink.write(b"".join(header))
                indices = np.asarray(frame)
                box = (0, 0, width, height) if previous is None else _changed_box(previous, indices)
                sink.write(b"".join(GifImagePlugin.getdata(frame.crop(box), offset=box[:2], duration=duration)))
                previous = indices
            sink.write(b";")  # the GIF trailer

    replace_atomically(path, write)


def _changed_box(before: np.ndarray, after: np.ndarray) -> tuple[int, int, int, int]:
    """The smallest box (left, top, right, bottom) holding every pixel that changed; one pixel if none did (the
    frame still shows for its time)."""
    changed = before != after
    rows, columns = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
    if rows.size == 0:
        return 0, 0, 1, 1
    return int(columns[0]), int(rows[0]), int(columns[-1]) + 1, int(rows[-1]) + 1


def write_mp4(replay: Replay, path: Path, seat: int | None = None, fps: float = 2.0) -> None:
    """An H.264 MP4 of the game (imageio with its ffmpeg binary: the ``video`` extra), written atomically."""
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (imageio's ffmpeg plugin needs it)
    except ImportError:
        raise RecordError("--mp4 needs imageio and imageio-ffmpeg: pip install 'seasons-env[video]'") from None

    def write(temp: Path) -> None:
        writer = imageio.get_writer(
            temp, format="FFMPEG", mode="I", fps=fps, codec="libx264", macro_block_size=16, ffmpeg_log_level="error"
        )
        try:
            for image in frames(replay, seat):
                writer.append_data(np.asarray(image))
        finally:
            writer.close()

    replace_atomically(path, write)


def write_png(replay: Replay, path: Path, seat: int | None = None, at: int | None = None) -> None:
    """The picture of position ``at`` (default: the last), as a PNG written atomically."""
    last = len(replay) - 1
    at = last if at is None else at
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= last:
        raise RecordError(f"position must be 0..{last} for this record; got {at!r}")
    buffer = io.BytesIO()
    draw_view(board_view(replay.positions[at], seat)).save(buffer, format="PNG")
    write_atomic(path, buffer.getvalue())


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


# ---------------------------------------------------------------------------- the HTML page


def _hex(color: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in color)


def _score_chart(history: list[list[int]], num_players: int) -> str:
    """An SVG line chart of the scores over the game, with a cursor line the page moves."""
    width, height, left, top, bottom = 640, 170, 40, 12, 22
    low = min(min(row) for row in history)
    high = max(max(row) for row in history)
    if high == low:
        high = low + 1
    steps = max(1, len(history) - 1)

    def x(k: int) -> float:
        return left + (width - left - 10) * k / steps

    def y(score: int) -> float:
        return top + (height - top - bottom) * (high - score) / (high - low)

    parts = [
        f'<svg id="chart" role="img" aria-label="Scores over the game" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">',
        f'<rect x="{left}" y="{top}" width="{width - left - 10}" height="{height - top - bottom}" fill="#fff" '
        'stroke="#bbb"/>',
    ]
    if low < 0 < high:
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#ccc"/>')
    parts.append(f'<text x="{left - 4}" y="{y(high) + 4:.1f}" text-anchor="end" font-size="11">{high}</text>')
    parts.append(f'<text x="{left - 4}" y="{y(low) + 4:.1f}" text-anchor="end" font-size="11">{low}</text>')
    parts.append(f'<text x="{left}" y="{height - 6}" font-size="11">position 0</text>')
    parts.append(f'<text x="{width - 10}" y="{height - 6}" font-size="11" text-anchor="end">{steps}</text>')
    for p in range(num_players):
        points = " ".join(f"{x(k):.1f},{y(row[p]):.1f}" for k, row in enumerate(history))
        color = _hex(SEAT_COLORS[p])
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    for p in range(num_players):
        color = _hex(SEAT_COLORS[p])
        parts.append(f'<text x="{left + 6 + 70 * p}" y="{top + 13}" font-size="11" fill="{color}">player {p}</text>')
    parts.append(f'<line id="cursor" x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#222"/>')
    parts.append("</svg>")
    return "".join(parts)


@functools.cache
def _web_file(name: str) -> str:
    return resources.files("seasons_env").joinpath("web", name).read_text(encoding="utf-8")


def html_page(replay: Replay, seat: int | None = None) -> str:
    """One self-contained HTML page (no server, no network: a content security policy forbids any fetch)."""
    from .engine.data import GAUGE_MAX, MAX_BONUSES

    record = replay.record
    n = record.num_players
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise ValueError(f"seat must be None (god view) or a seat 0..{n - 1}; got {seat!r}")
    history = replay.score_history()
    steps = []
    for k, game in enumerate(replay.positions):
        steps.append({"view": board_view(game, seat), "move": replay.move(k, seat), "policy": replay.policy(k, seat)})
    chart_left, chart_width = 40, 640 - 40 - 10
    data = {
        "steps": steps,
        "seatNames": [replay.seat_name(p) for p in range(n)],
        "seatColors": [_hex(SEAT_COLORS[p]) for p in range(n)],
        "gaugeMax": GAUGE_MAX,
        "maxBonuses": MAX_BONUSES,
        "chart": {"left": chart_left, "width": chart_width},
    }
    # Inside <script>, "<" is escaped so that no text of the record can close the element.
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    seats = ", ".join(replay.seat_name(p) for p in range(n))
    view = "god view (every hand shown)" if seat is None else f"as seen by player {seat}"
    status = "finished" if replay.finished else "unfinished"
    # The seed deals everything hidden: a seat's view names it only once the game is over.
    seed = f", seed {record.seed}" if seat is None or replay.finished else ""
    meta = (
        f"{n} players, {record.level}{seed}: {seats}. {len(record.actions)} actions ({status} game), "
        f"{view}. Keys: left and right arrows."
    )
    title = f"Seasons replay: {record.source}"
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            f"<title>{html.escape(title)}</title>",
            f"<style>{_web_file('replay.css')}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>",
            f'<p id="meta">{html.escape(meta)}</p>',
            '<nav><button id="first" title="first position">|&lt;</button>'
            '<button id="prev">&lt; Previous</button>'
            '<input type="range" id="slider" min="0" value="0" aria-label="position">'
            '<button id="next">Next &gt;</button><button id="last" title="last position">&gt;|</button>'
            '<span id="counter"></span></nav>',
            '<div class="top"><div id="move"><div id="decision"></div><div id="scores"></div>'
            '<div id="policy-title" hidden>Policy\'s top actions:</div><ol id="policy"></ol></div>',
            f"<div><div>Scores over the game</div>{_score_chart(history, n)}</div></div>",
            '<div id="board"></div>',
            f'<script id="replay-data" type="application/json">{payload}</script>',
            f"<script>{_web_file('board.js')}</script>",  # the drawing the play page shares
            f"<script>{_web_file('replay.js')}</script>",
            "</body></html>",
        ]
    )


def write_html(replay: Replay, path: Path, seat: int | None = None) -> None:
    """The replay page, written atomically."""
    write_atomic(path, html_page(replay, seat).encode("utf-8"))


def _suffixed(path: Path, name: str) -> Path:
    return path.with_name(f"{path.stem}-{name}{path.suffix}")


def notable_outputs(path: Path, name: str) -> Path:
    """Where ``--notable`` writes the file of notable game ``name`` for an output option ``path``."""
    return _suffixed(Path(path), name.replace("_", "-"))


__all__ = [
    "Record",
    "RecordError",
    "Replay",
    "current_versions",
    "frames",
    "html_page",
    "load_replay",
    "make_record",
    "notable_games",
    "parse_record",
    "read_record_lines",
    "select_game",
    "step_through",
    "write_gif",
    "write_html",
    "write_mp4",
    "write_png",
    "write_record",
]
