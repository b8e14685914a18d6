"""``seasons bench AGENT``: rate any agent on the benchmark's frozen scale (``seasons_agents.bench``)."""

from __future__ import annotations

from pathlib import Path

import click

from seasons_env.cli import workers_option
from seasons_env.engine import LEVELS
from seasons_env.files import OutputPathError

from .arena import ArenaFolderError
from .bench import PANEL, PLAYER_COUNTS, SAMPLES, BenchVersionError
from .bench_run import markdown, run_bench


def _player_counts(value: str) -> tuple[int, ...]:
    words = [word.strip() for word in value.split(",") if word.strip()]
    if not words or any(word not in {str(c) for c in PLAYER_COUNTS} for word in words):
        raise click.BadParameter(
            f"player counts among {', '.join(map(str, PLAYER_COUNTS))}, comma-separated; got {value!r}",
            param_hint="'--players'",
        )
    return tuple(sorted({int(word) for word in words}))


HELP = (
    "Rate AGENT on the benchmark's frozen scale.\n\n"
    "AGENT is any agent spec: a registered name (heuristic, learned:v1), path/to/file.py:ClassName, "
    "package.module:ClassName or a model file. It plays each agent of the reference panel "
    f"({', '.join(PANEL)}) in turn, that agent in every other seat, seats rotated, on the bench's fixed deals; its "
    "rating (Elo points, random = 0, with a 95% interval) is fitted against the panel's frozen ratings, so it "
    "compares across runs, machines and papers. Writes report.json, report.md and report.html into the folder; "
    "rerun with the same folder to resume."
)


@click.command(help=HELP)
@click.argument("agent")
@click.option(
    "--quick",
    "sample",
    flag_value="quick",
    default=True,
    help=f"{SAMPLES['quick']} games against each panel agent at each player count (wide intervals).  [default]",
)
@click.option(
    "--full",
    "sample",
    flag_value="full",
    help=f"{SAMPLES['full']} games against each panel agent at each player count.",
)
@click.option(
    "--players",
    "player_counts",
    default=",".join(map(str, PLAYER_COUNTS)),
    show_default=True,
    help="Player counts to play, comma-separated.",
)
@click.option("--level", type=click.Choice(LEVELS), default="archmage", show_default=True, help="Game level.")
@click.option(
    "--seed",
    type=click.Choice(["public", "random"]),
    default="public",
    show_default=True,
    help="The bench's public deals, or 'random' for deals drawn from a secret seed (a blind run, for leaderboards).",
)
@workers_option
@click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="Results folder (default: results/bench-AGENT)."
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars on stderr.")
def bench(
    agent: str,
    sample: str,
    player_counts: str,
    level: str,
    seed: str,
    workers: int,
    out: Path | None,
    progress: bool,
) -> None:
    counts = _player_counts(player_counts)
    folder = out or Path("results") / ("bench-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in agent))
    try:
        report = run_bench(
            agent,
            folder,
            sample=sample,
            player_counts=counts,
            level=level,
            blind=seed == "random",
            workers=workers,
            progress=progress,
        )
    except BenchVersionError as error:
        raise click.ClickException(str(error)) from None
    except OutputPathError as error:
        raise click.BadParameter(str(error), param_hint="'--out'") from None
    except ArenaFolderError as error:
        raise click.ClickException(str(error)) from None
    except ValueError as error:  # the message names AGENT or the option at fault
        raise click.UsageError(str(error)) from None
    click.echo(markdown(report))
    click.echo(f"report written to {folder}/ (report.json, report.md, report.html)")
