"""Running the benchmark (``seasons_agents.bench``) into a folder, and its report: ``report.json``, a Markdown table
ready for a paper (``report.md``) and a page with the agent's place among the panel (``report.html``).

A run is one arena per player count (``2p/``, ``3p/``, ``4p/`` in the folder), so it resumes like the arena: run
the same command again with the same folder, and a ``--full`` run after a ``--quick`` one plays only the games the
quick one did not.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path

from seasons_env.files import check_output_folder, write_atomic
from seasons_env.registry import parse_agent_spec

from .arena import Arena, secret_seed
from .arena_config import ArenaConfig
from .bench import DEAL_SEED, PANEL, PLAYER_COUNTS, benchmark_version, games_per_count, rate_agent
from .learned import model_digests

#: The report's format (``report.json``'s ``schema``), documented on the benchmarking page.
REPORT_SCHEMA = 1


def run_bench(
    agent: str,
    out_dir: Path | str,
    *,
    sample: str = "quick",
    player_counts: Sequence[int] = PLAYER_COUNTS,
    level: str = "archmage",
    blind: bool = False,
    workers: int = 2,
    progress: bool = True,
    scales: Path | None = None,
) -> dict:
    """Rate ``agent`` (any agent spec) on the frozen scale: play the missing games into ``out_dir``, then write and
    return the report. ``blind`` draws each player count's deals from a secret seed (kept in the folder, so a rerun
    resumes) instead of the public ones. ``BenchVersionError`` if no frozen scale fits this installation."""
    out_dir = Path(out_dir)
    parse_agent_spec(agent, "AGENT")  # a bad spec is named before anything else is looked at
    name, frozen = benchmark_version(level, scales)
    if not player_counts or any(count not in PLAYER_COUNTS for count in player_counts):
        raise ValueError(f"player counts must be among {list(PLAYER_COUNTS)}; got {list(player_counts)}")
    check_output_folder(out_dir)
    opponents = tuple(p for p in PANEL if p != agent)  # a panel agent is rated against the rest of the panel
    games = games_per_count(sample) // len(PANEL) * len(opponents)
    records = {}
    for count in sorted(set(player_counts)):
        folder = out_dir / f"{count}p"
        seed = secret_seed(folder) if blind else DEAL_SEED + count
        config = ArenaConfig(
            agents=(agent, *opponents), num_players=count, games=games, level=level, seed=seed, blind=blind, focus=True
        )
        arena = Arena(config, folder)
        arena.run(workers=workers, progress=progress)
        records[count] = arena.finished()
    report = {
        "schema": REPORT_SCHEMA,
        "benchmark": name,
        "agent": agent,
        "agent_files": model_digests([agent]),
        "sample": sample,
        "mode": "blind" if blind else "public",
        "level": level,
        "player_counts": sorted(set(player_counts)),
        **rate_agent(records, agent, frozen["ratings"]),
        "panel": frozen["ratings"],
        "protocol": frozen["protocol"],
    }
    write_report(report, out_dir)
    return report


def _rating(entry: dict) -> str:
    return f"{entry['rating']:,.0f} [{entry['low']:,.0f}, {entry['high']:,.0f}]"


def markdown(report: dict) -> str:
    """The report as Markdown tables: the ratings, then the win rates against each panel agent."""
    counts = [str(c) for c in report["player_counts"]]
    lines = [
        f"**{report['benchmark']}**, {report['sample']} sample, {report['mode']} deals, {report['level']}: "
        f"`{report['agent']}` rates **{_rating(report['overall'])}** (Elo points, random = 0, 95% interval)",
        "",
        "| players | rating [95%] | games |",
        "|---|---|---|",
        f"| all | {_rating(report['overall'])} | {report['overall']['games']} |",
        *(f"| {c} | {_rating(report['by_players'][c])} | {report['by_players'][c]['games']} |" for c in counts),
        "",
        "| against | " + " | ".join(f"{c} players: win rate [95%], mean score" for c in counts) + " |",
        "|---|" + "---|" * len(counts),
    ]
    for name, rows in report["opponents"].items():
        cells = []
        for c in counts:
            row = rows.get(c)
            cells.append(
                "-"
                if row is None
                else f"{row['win_rate']:.1%} [{row['low']:.1%}, {row['high']:.1%}], "
                f"{row['mean_score']:.0f} vs {row['panel_mean_score']:.0f}"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_png(report: dict) -> bytes:
    """The agent among the panel at each player count: frozen ratings with intervals, the agent's in colour."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    counts = [str(c) for c in report["player_counts"]]
    figure = Figure(figsize=(4.2 * len(counts), 3.6), layout="constrained")
    for k, count in enumerate(counts):
        axes = figure.add_subplot(1, len(counts), k + 1)
        rows = sorted(report["panel"][count].items(), key=lambda item: item[1]["rating"])
        agent = report["agent"] if len(report["agent"]) <= 28 else "..." + report["agent"][-25:]
        rows.append((agent, report["by_players"][count]))
        rows.sort(key=lambda item: item[1]["rating"])
        for y, (_, entry) in enumerate(rows):
            mine = entry is report["by_players"][count]
            error = [[entry["rating"] - entry["low"]], [entry["high"] - entry["rating"]]]
            axes.errorbar(entry["rating"], y, xerr=error, fmt="o", color="tab:red" if mine else "tab:gray")
        axes.set_yticks(range(len(rows)), [name for name, _ in rows])
        axes.set_title(f"{count} players")
        axes.set_xlabel("rating (Elo points, random = 0)")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def page(report: dict) -> str:
    """A self-contained HTML page: the headline, the plot and the tables."""
    picture = base64.b64encode(plot_png(report)).decode()
    rows = "".join(
        f"<tr><td>{html.escape(c)}</td><td>{html.escape(_rating(report['by_players'][c]))}</td></tr>"
        for c in map(str, report["player_counts"])
    )
    return (
        "<!doctype html><html lang='en'><meta charset='utf-8'>"
        f"<title>{html.escape(report['benchmark'])}: {html.escape(report['agent'])}</title>"
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}td,th{padding:.2em .8em}</style>"
        f"<h1>{html.escape(report['agent'])} on {html.escape(report['benchmark'])}</h1>"
        f"<p>Rating <b>{html.escape(_rating(report['overall']))}</b> (Elo points, random = 0, 95% interval), "
        f"{html.escape(report['sample'])} sample, {html.escape(report['mode'])} deals, "
        f"{html.escape(report['level'])}.</p>"
        f"<img alt='the agent among the panel' src='data:image/png;base64,{picture}'>"
        f"<table><tr><th>players</th><th>rating [95%]</th></tr>{rows}</table>"
        f"<pre>{html.escape(markdown(report))}</pre></html>\n"
    )


def write_report(report: dict, out_dir: Path) -> None:
    """``report.json``, ``report.md`` and ``report.html`` in ``out_dir``, each written atomically."""
    write_atomic(out_dir / "report.json", (json.dumps(report, indent=2) + "\n").encode())
    write_atomic(out_dir / "report.md", markdown(report).encode())
    write_atomic(out_dir / "report.html", page(report).encode())
