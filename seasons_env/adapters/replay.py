"""Replays of recorded games: rebuild every position of a record (``seasons_env.records`` says what a record
holds and checks it), step through it in the terminal, write an animation (GIF, MP4) or one self-contained HTML
page with a slider.

Every action of a record must be legal at its step (``RecordError`` names the source and the step). The names of
``seasons_env.records`` are importable from here as well.
"""

from __future__ import annotations

import functools
import html
import io
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TextIO

import numpy as np

from ..display.picture import SEAT_COLORS, board_view, draw_view
from ..display.rendering import card_choice_is_public, decision_words, render_text
from ..engine import Game, describe_action
from ..storage.files import replace_atomically, write_atomic
from ..storage.records import (
    MAX_ACTIONS,
    MAX_POLICY_ENTRIES,
    MAX_SEED,
    Record,
    RecordError,
    current_versions,
    make_record,
    notable_games,
    parse_record,
    read_game_file,
    read_record_lines,
    select_game,
    write_record,
)

__all__ = [
    "MAX_ACTIONS",
    "MAX_POLICY_ENTRIES",
    "MAX_SEED",
    "TERMINAL_HELP",
    "Record",
    "RecordError",
    "Replay",
    "current_versions",
    "frames",
    "html_page",
    "load_replay",
    "make_record",
    "notable_games",
    "notable_outputs",
    "parse_record",
    "read_game_file",
    "read_record_lines",
    "select_game",
    "step_through",
    "write_gif",
    "write_html",
    "write_mp4",
    "write_png",
    "write_record",
]


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
                scores = ", ".join(f"{self.seat_name(p)} {score}" for p, score in enumerate(game.scores()))
                winners = ", ".join(self.seat_name(p) for p in game.winners())
                won = "winners" if len(game.winners()) > 1 else "winner"
                return f"Game over. Final scores: {scores}; {won}: {winners}"
            return "End of the record (the game was not finished)"
        kind = decision_words(game.pending_decision)
        return f"{self.seat_name(game.current_player)} ({kind}) chose: {self.label(k, seat)}"

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
    from ..engine.data import GAUGE_MAX, MAX_BONUSES

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
