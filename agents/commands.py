"""The ``seasons`` commands that need agents: the arena and the game at the terminal.

They are added to the library's ``seasons`` command through the ``seasons_env.commands`` entry points, so the
library does not import this package.
"""

from __future__ import annotations

import functools
import signal
from pathlib import Path

import click

from seasons_env.cli import check_output_option, workers_option
from seasons_env.engine import LEVELS
from seasons_env.files import OutputPathError
from seasons_env.interrupts import exit_status, sigterm_stops
from seasons_env.registry import agent_entries, make_agent, parse_agent_spec
from seasons_env.replay import MAX_SEED

from .arena import MAX_ARENA_SEED, MAX_GAMES, Arena, ArenaConfig, ArenaFolderError, format_summary, secret_seed
from .human import run_terminal_game


def _agent_list(value: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    if len(names) < 2:
        raise click.BadParameter(f"name at least 2 agents separated by commas; got {value!r}")
    return names


class ListsAgents(click.Command):
    """A command whose help ends with the agent specs it accepts (read from the registry when the help is shown, so
    agents added by plugins are listed too)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        with formatter.section("Agents"):
            formatter.write_dl([(entry.usage(), entry.summary) for _, entry in sorted(agent_entries().items())])


class ArenaSeed(click.ParamType):
    """An integer 0..``MAX_ARENA_SEED``, or ``random`` for a blind run (a secret seed, revealed when the run ends)."""

    name = "SEED|random"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        text = str(value).strip()
        if text == "random":
            return text
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif text.isascii() and text.isdigit():
            number = int(text)
        else:
            number = -1
        if not 0 <= number <= MAX_ARENA_SEED:
            self.fail(
                f"must be an integer 0..{MAX_ARENA_SEED} (every game's seed must fit in 64 bits) or 'random'; "
                f"got {value!r}",
                param,
                ctx,
            )
        return number


@click.command(cls=ListsAgents)
@click.option(
    "--agents",
    "agent_names",
    default="learned,heuristic,random",
    show_default=True,
    help="Comma-separated agent specs (listed under Agents below).",
)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Players per game (2-4).")
@click.option(
    "--games",
    type=click.IntRange(1, MAX_GAMES),
    default=200,
    show_default=True,
    help=f"Games in the whole arena (at most {MAX_GAMES:,}).",
)
@click.option("--level", type=click.Choice(LEVELS), default="archmage", show_default=True, help="Game level.")
@click.option(
    "--seed",
    type=ArenaSeed(),
    default="0",
    show_default=True,
    help=f"Seed of the whole schedule (0..{MAX_ARENA_SEED}: every game's seed must fit in 64 bits; public: anyone can "
    "rebuild its deals), or 'random' for a blind run: a secret seed drawn at the start and written to results.json "
    "when the run ends.",
)
@workers_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Results folder (default: results/arena-AGENTS-Np-LEVEL). Rerun with the same folder to resume.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
def arena(
    agent_names: str,
    players: int,
    games: int,
    level: str,
    seed: int | str,
    workers: int,
    out: Path | None,
    progress: bool,
) -> None:
    """Play agents against each other with seats rotated, rate them, and write the results.

    Writes games.jsonl (one line per finished game: an interrupted run resumes from it), results.json,
    ratings.csv, crosstable.csv and arena.png into the results folder. Records are never deleted (a smaller
    --games reports on the first games), and one folder takes one run at a time. --seed random makes a blind run:
    nobody can know its deals in advance; rerun with --seed random and the same folder to resume it.
    """
    names = _agent_list(agent_names)
    out = out or Path("results") / f"arena-{'-'.join(names)}-{players}p-{level}"
    blind = seed == "random"
    try:
        ArenaConfig(agents=names, num_players=players, games=games, level=level)  # the settings, before any file
        if blind:
            seed = secret_seed(out)  # a resumed blind run keeps its secret
        config = ArenaConfig(agents=names, num_players=players, games=games, level=level, seed=seed, blind=blind)
    except ArenaFolderError as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        raise click.FileError(str(error.filename or out), hint=error.strerror or str(error)) from None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--agents'") from None
    runner = Arena(config, out)
    try:
        runner.check_writable()  # before any game is played
    except OutputPathError as error:
        raise click.BadParameter(str(error), param_hint="'--out'") from None
    try:
        summary = runner.run(workers=workers, progress=progress)
    except ArenaFolderError as error:  # damaged or foreign records, other settings, a run in progress
        raise click.ClickException(str(error)) from None
    except OSError as error:  # the folder cannot be written (permissions, a full disk)
        raise click.FileError(str(error.filename or out), hint=error.strerror or str(error)) from None
    except KeyboardInterrupt as stop:  # SIGTERM (ArenaStopped) or Ctrl-C: the workers are stopped, the games kept
        signum = getattr(stop, "signum", signal.SIGINT)
        click.echo(
            f"arena stopped by {signal.Signals(signum).name}: every finished game is in {out / 'games.jsonl'}; "
            "run the same command again to resume",
            err=True,
        )
        raise SystemExit(128 + signum) from None
    finally:
        for note in runner.notes:
            click.echo(note, err=True)
    click.echo(format_summary(summary))
    files = "index.html, results.json, ratings.csv, crosstable.csv, arena.png, replay-*.html, games.jsonl"
    click.echo(f"\nresults written to {out}/ ({files})")


@click.command(cls=ListsAgents)
@click.option(
    "--vs", "opponent", default="heuristic", show_default=True, help="The agent in the other seats (see Agents below)."
)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Players per game (2-4).")
@click.option("--level", type=click.Choice(LEVELS), default="archmage", show_default=True, help="Game level.")
@click.option(
    "--seed", type=click.IntRange(0, MAX_SEED - 1), default=None, help="Seed of the deal (random if not given)."
)
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True, help="Your seat (0 plays first).")
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the game's record (every action, for 'seasons replay') to this JSON file, also if you quit.",
)
@click.option("--web", is_flag=True, help="Play in the browser: a local server on 127.0.0.1 (docs/web.md).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="--web: port (0: any free).")
@click.option("--no-browser", is_flag=True, help="--web: print the address without opening a browser.")
@click.option(
    "--humans",
    type=click.IntRange(1, 4),
    default=1,
    show_default=True,
    help="--web: people at one screen (hot-seat), from --seat on; agents play the other seats.",
)
@click.option(
    "--resume",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="--web: continue the unfinished game of this record file, of one record (written back to it, or to --record).",
)
@click.pass_context
def play(
    ctx: click.Context,
    opponent: str,
    players: int,
    level: str,
    seed: int | None,
    seat: int,
    record_path: Path | None,
    web: bool,
    port: int,
    no_browser: bool,
    humans: int,
    resume: Path | None,
) -> None:
    """Play a game at the terminal against agents: numbered options, 'h' for help, 'q' to quit.

    Ctrl-C or SIGTERM stops the game too, at a prompt or while an agent thinks (exit status 130 or 143); --record
    then holds the game so far.

    With --web, in the browser: the address (with its token) is the first line printed."""
    try:
        parse_agent_spec(opponent, "--vs")
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--vs'") from None
    if web:
        from .web_commands import play_web  # the server is loaded only for --web

        play_web(ctx, opponent, players, level, seed, seat, record_path, port, not no_browser, humans, resume)
        return
    for name in ("port", "no_browser", "humans", "resume"):
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
            raise click.BadParameter("is an option of --web", param_hint=f"'--{name.replace('_', '-')}'")
    if seat >= players:
        raise click.BadParameter(
            f"seat must be 0..{players - 1} with {players} players; got {seat}", param_hint="'--seat'"
        )
    if record_path is not None:
        check_output_option(record_path, "--record")  # before the game, which would otherwise be lost at its end
    try:
        with sigterm_stops():
            run_terminal_game(
                functools.partial(make_agent, opponent),
                num_players=players,
                level=level,
                seed=seed,
                human_seat=seat,
                record_path=record_path,
            )
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: the game's goodbye (and record) is written
        raise SystemExit(exit_status(stop)) from None
