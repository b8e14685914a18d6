"""The arena's pages: replays of its notable games and ``index.html``, which shows ``arena.png`` and links them.

The notable games are those of ``seasons_env.replay.notable_games``: the highest score of any seat, and the
biggest upset (the win of the weakest agent over the strongest it beat). Each is written as the replay page
``seasons replay --html`` writes (``replay-highest-score.html``, ``replay-biggest-upset.html``), and named in
``results.json``, at the foot of ``arena.png`` and on ``index.html``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from seasons_env.files import write_atomic
from seasons_env.replay import RecordError, Replay, notable_games, parse_record, write_html


def replay_file(name: str) -> str:
    """The file name of notable game ``name`` (``highest_score`` -> ``replay-highest-score.html``)."""
    return f"replay-{name.replace('_', '-')}.html"


def write_notable_replays(records: Sequence[dict], out_dir: Path) -> dict:
    """Write the replay page of each notable game into ``out_dir``; returns, by name, what ``results.json`` keeps:
    ``game_index``, ``seat``, ``score``, ``reason`` and ``replay`` (the file), or ``None`` where there is no such
    game (no upset). A game whose record cannot be replayed (an old record without its actions) is named with
    ``replay: None`` and the reason in ``note``."""
    if not records:
        return {}
    sources = [f"game {record.get('game_index', k)}" for k, record in enumerate(records)]
    found = notable_games(records, sources)
    notable: dict = {}
    for name, info in found.items():
        if info is None:
            notable[name] = None
            continue
        entry = {key: info[key] for key in ("game_index", "seat", "score", "reason")}
        try:
            game_replay = Replay(parse_record(records[info["index"]], sources[info["index"]]))
        except RecordError as error:
            notable[name] = {**entry, "replay": None, "note": str(error)}
            continue
        write_html(game_replay, out_dir / replay_file(name))
        notable[name] = {**entry, "replay": replay_file(name)}
    return notable


def notable_lines(notable: dict) -> list[str]:
    """One line per notable game, for the text summary and the foot of the picture."""
    lines = []
    for name, info in notable.items():
        label = name.replace("_", " ")
        if info is None:
            lines.append(f"{label}: none (no game was won by the agent with fewer wins)")
        else:
            where = info["replay"] or f"no replay ({info.get('note', 'record without actions')})"
            lines.append(f"{label}: {info['reason']} -> {where}")
    return lines


def write_index(summary: dict, out_dir: Path) -> None:
    """``index.html``: the arena's picture, its notable games with links to their replays, and its files."""
    config = summary["config"]
    title = f"Arena: {', '.join(config['agents'])}, {config['players']} players, level {config['level']}"
    items = []
    for name, info in summary.get("notable_games", {}).items():
        label = html.escape(name.replace("_", " "))
        if info is None:
            items.append(f"<li>{label}: none (no game was won by the agent with fewer wins)</li>")
        elif info["replay"]:
            link = html.escape(info["replay"], quote=True)
            items.append(f'<li>{label}: <a href="{link}">{html.escape(info["reason"])}</a></li>')
        else:
            items.append(f"<li>{label}: {html.escape(info['reason'])} (no replay: {html.escape(info['note'])})</li>")
    files = ["results.json", "ratings.csv", "crosstable.csv", "games.jsonl"]
    page = "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(title)}</title>",
            "<style>body{font-family:sans-serif;margin:2em;max-width:70em}img{max-width:100%}</style>",
            "</head><body>",
            f"<h1>{html.escape(title)}</h1>",
            f"<p>{summary['games_played']} games.</p>",
            '<img src="arena.png" alt="ratings with 95% intervals and the pairwise win rates">',
            "<h2>Notable games</h2>",
            f"<ul>{''.join(items) or '<li>none</li>'}</ul>",
            "<h2>Files</h2>",
            "<ul>" + "".join(f'<li><a href="{f}">{f}</a></li>' for f in files) + "</ul>",
            "</body></html>",
            "",
        ]
    )
    write_atomic(out_dir / "index.html", page.encode("utf-8"))
