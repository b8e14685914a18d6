"""The ``seasons`` command line."""

from __future__ import annotations

import functools
import json
import multiprocessing
import sys
import time
from pathlib import Path

import click
from tqdm import tqdm

from ..common.registry import plugin_commands
from ..common.simulate import format_summary, play_random_game, summarize
from ..common.version import __version__
from ..engine import LEVELS


class SeasonsCommands(click.Group):
    """The library's own commands plus those other packages add (``seasons_env.commands`` entry points: the arena
    and the terminal game come with the agents package), loaded only when named or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(plugin_commands()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        entry = plugin_commands().get(name)
        if entry is None:
            return None
        try:
            command = entry.load()
        except Exception as error:  # a plugin that fails to import: say which, instead of a traceback
            raise click.ClickException(f"the command {name!r} ({entry.value}) could not be loaded: {error}") from None
        if not isinstance(command, click.Command):
            raise click.ClickException(f"the entry point {entry.value} for {name!r} is not a click command")
        return command


@click.group(cls=SeasonsCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="seasons")
def main() -> None:
    """seasons-env: the rules engine for the board game Seasons."""


@main.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Players per game (2-4).")
@click.option("--games", type=click.IntRange(min=1), default=200, show_default=True, help="Number of games to play.")
@click.option(
    "--level", type=click.Choice(LEVELS), default="archmage", show_default=True, help="Game level (card set and draft)."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Game i (from 0) uses seed SEED+i, for both the game and the random player.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes; the results do not depend on it.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Also write the summary to this JSON file.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
def simulate(
    players: int, games: int, level: str, seed: int, workers: int, json_path: Path | None, progress: bool
) -> None:
    """Play random games (a uniformly random legal action at every decision) and print their statistics."""
    if json_path is not None:
        check_output_option(json_path, "--json")
    play = functools.partial(play_random_game, players, level)
    seeds = range(seed, seed + games)
    workers = min(workers, games)
    bar = tqdm(total=games, desc="games", unit="game", file=sys.stderr, disable=not progress, leave=False)
    start = time.perf_counter()
    results = []
    try:
        if workers == 1:
            for s in seeds:
                results.append(play(s))
                bar.update()
        else:
            chunksize = max(1, min(32, games // (workers * 8)))
            with multiprocessing.Pool(workers) as pool:
                for result in pool.imap(play, seeds, chunksize=chunksize):
                    results.append(result)
                    bar.update()
    finally:
        bar.close()
    seconds = time.perf_counter() - start

    summary = summarize(results, players, level, seed)
    summary["workers"] = workers
    summary["wall_seconds"] = seconds
    summary["games_per_second"] = games / seconds if seconds > 0 else float("inf")
    summary["decisions_per_second"] = summary["decisions_total"] / seconds if seconds > 0 else float("inf")
    click.echo(format_summary(summary))
    if json_path is not None:
        from ..storage.files import write_atomic

        try:
            write_atomic(json_path, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
        except OSError as exc:
            raise click.FileError(str(json_path), hint=exc.strerror or str(exc)) from exc
        click.echo(f"summary written to {json_path}")


@main.command()
@click.argument("record", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--game",
    type=click.IntRange(min=0),
    default=None,
    help="The game of a games.jsonl or arena folder: its game_index (its place from 0 in records without one). "
    "Default: the first.",
)
@click.option(
    "--seat",
    type=click.IntRange(0, 3),
    default=None,
    help="Show only what this seat may see (default: the god view, every hand shown).",
)
@click.option("--gif", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write an animated GIF.")
@click.option(
    "--mp4", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write an MP4 video (video extra)."
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write one self-contained HTML page: the board at every position, a slider, the scores over time.",
)
@click.option(
    "--png", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the picture of one position."
)
@click.option(
    "--at",
    type=click.IntRange(min=0),
    default=None,
    help="The position --png draws (0: before the first action). Default: the last.",
)
@click.option(
    "--fps", type=click.FloatRange(0.1, 60), default=2.0, show_default=True, help="Positions per second (GIF, MP4)."
)
@click.option(
    "--notable",
    is_flag=True,
    help="Pick the notable games of an arena (highest score, biggest upset) and print them; with --html, --gif, "
    "--mp4 or --png, write one file per game (OUT-highest-score.html, OUT-biggest-upset.html).",
)
def replay(
    record: Path,
    game: int | None,
    seat: int | None,
    gif: Path | None,
    mp4: Path | None,
    html: Path | None,
    png: Path | None,
    at: int | None,
    fps: float,
    notable: bool,
) -> None:
    """Replay a recorded game: step through it at the terminal, or write it as a GIF, an MP4, an HTML page or the
    picture of one position (PNG).

    RECORD is a record file ('seasons play --record'), a JSONL file of records or an arena folder (its
    games.jsonl). Every action is checked as it is replayed, and the game must end at the recorded scores.
    """
    from ..adapters.replay import (
        RecordError,
        Replay,
        notable_games,
        notable_outputs,
        parse_record,
        read_record_lines,
        select_game,
        step_through,
    )

    outputs = {"html": html, "gif": gif, "mp4": mp4, "png": png}
    if notable and game is not None:
        raise click.BadParameter("--game picks one game; --notable picks the notable ones: give one of them")
    names = ["highest_score", "biggest_upset"] if notable else [None]
    for kind, path in outputs.items():
        if path is not None:
            for name in names:
                check_output_option(notable_outputs(path, name) if name else path, f"--{kind}", REPLAY_SUFFIXES[kind])
    try:
        entries = read_record_lines(record)
        if notable:
            chosen = []
            found = notable_games([data for _, data in entries], [where for where, _ in entries])
            for name, info in found.items():
                if info is None:
                    click.echo(f"{name.replace('_', ' ')}: none (no game was won by the agent with fewer wins)")
                    continue
                where = entries[info["index"]][0]
                # the number --game takes (a record's game_index, else its place from 0), beside the file line
                number = info["index"] if info["game_index"] is None else info["game_index"]
                click.echo(f"{name.replace('_', ' ')}: game {number} (--game {number}; {where}): {info['reason']}")
                chosen.append((name, where, entries[info["index"]][1]))
            jobs = [(Replay(parse_record(data, where)), name) for name, where, data in chosen]
        else:
            where, data = select_game(entries, game)
            jobs = [(Replay(parse_record(data, where)), None)]
        for game_replay, _name in jobs:
            if at is not None and at >= len(game_replay):
                raise click.BadParameter(
                    f"position must be 0..{len(game_replay) - 1} for {game_replay.record.source}; got {at}",
                    param_hint="'--at'",
                )
            if seat is not None and seat >= game_replay.record.num_players:
                raise click.BadParameter(
                    f"seat must be 0..{game_replay.record.num_players - 1} for this {game_replay.record.num_players}"
                    f"-player game; got {seat}",
                    param_hint="'--seat'",
                )
        if not any(outputs.values()):
            if notable:
                return
            step_through(jobs[0][0], seat)
            return
        for game_replay, name in jobs:
            _write_replay_outputs(game_replay, outputs, name, seat, fps, at, notable_outputs)
    except RecordError as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:  # checked before the work, yet the disk may fill up or the folder go away meanwhile
        raise click.FileError(str(error.filename or "output"), hint=error.strerror or str(error)) from None


#: The file name endings each output of ``seasons replay`` must have (the format is never guessed from them).
REPLAY_SUFFIXES = {"html": (".html", ".htm"), "gif": (".gif",), "mp4": (".mp4",), "png": (".png",)}


#: ``--workers`` of the commands that play games on several processes (``seasons arena``, ``seasons bench``,
#: ``python -m seasons_training generate``): this process and N-1 it starts (``common.parallel``).
workers_option = click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Processes that play games: this one and N-1 it starts.",
)


def check_output_option(path: Path, option: str, suffixes: tuple[str, ...] = ()) -> None:
    """Refuse (``click.BadParameter``, exit 2) an output ``path`` that cannot be written, before any work starts;
    with ``suffixes``, also a file whose name does not end in one of them (a pipe or a device may have any name)."""
    from ..storage.files import OutputPathError, check_output_file

    try:
        check_output_file(path)
    except OutputPathError as error:
        raise click.BadParameter(str(error), param_hint=f"'{option}'") from None
    if suffixes and (not path.exists() or path.is_file()) and path.suffix.lower() not in suffixes:
        raise click.BadParameter(
            f"{path} does not end in {' or '.join(suffixes)}: {option} writes that format (name the file for it)",
            param_hint=f"'{option}'",
        )


def _write_replay_outputs(
    game_replay, outputs: dict, name: str | None, seat: int | None, fps: float, at: int | None, rename
) -> None:
    from ..adapters.replay import write_gif, write_html, write_mp4, write_png

    writers = {
        "html": lambda path: write_html(game_replay, path, seat),
        "gif": lambda path: write_gif(game_replay, path, seat, fps),
        "mp4": lambda path: write_mp4(game_replay, path, seat, fps),
        "png": lambda path: write_png(game_replay, path, seat, at),
    }
    for kind, path in outputs.items():
        if path is None:
            continue
        target = rename(path, name) if name is not None else path
        writers[kind](target)
        # on stderr when the file is a pipe or a device (--png /dev/stdout > x.png): not into the picture
        click.echo(
            f"{kind} written to {target} ({len(game_replay) - 1} actions of {game_replay.record.source})",
            err=not target.is_file(),
        )


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def info(as_json: bool) -> None:
    """Print the package's version, the versions of the state format, observation and action table, which extras
    are installed, and where the compiled kernels are cached."""
    from .info import collect, format_info

    report = collect()
    click.echo(json.dumps(report, indent=2) if as_json else format_info(report))


@main.command("compile")
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="STEP",
    help="Compile only this step (repeatable); 'seasons compile --check' lists the steps.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Only report whether the next run loads each step from the cache, and if not why (exit 1 if one is not); "
    "compiles and changes nothing.",
)
@click.option(
    "--prune",
    is_flag=True,
    help="Only delete the cached kernels of other sources (older versions, other checkouts' edits: the folders no "
    "current kernel module names) and say how much space that freed.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Compile in N worker processes at once (default: one per core this process may use; 1: in this process).",
)
@click.option(
    "--prebuild",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="FOLDER",
    help="Compile for numba's generic CPU (machine code any CPU of this architecture runs) into FOLDER, new or empty, "
    "instead of the cache: kernels to ship read only, as the package's prebuilt_kernels folder or named by "
    "SEASONS_PREBUILT_KERNELS.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
def compile_command(
    only: tuple[str, ...], check: bool, prune: bool, jobs: int | None, prebuild: Path | None, progress: bool
) -> None:
    """Compile the rules kernels and every other compiled part ahead of time (the compiled heuristic and the
    self-play snapshot policy when their packages are installed), so that the first game does not wait for it.

    The compiled code is cached on disk (see 'seasons info'); running it again loads it from there. Each kernel
    module gets a folder there for each version of the sources it imports, so an edit recompiles only the modules
    that import the edited file: '--prune' deletes the folders no current module names.
    """
    from ..vector.kernels import TRUST_VARIABLE, cache_problem
    from .compiling import cache_root, check_step, compile_steps, default_jobs, plan_workers, run_in_workers

    if prune:
        if check or only or prebuild is not None:
            raise click.UsageError("--prune deletes other sources' kernels and compiles nothing: give it alone")
        _prune_caches()
        return
    if prebuild is not None:
        if check:
            raise click.UsageError("--prebuild compiles into its own folder: it cannot be given with --check")
        _prebuild(prebuild, only, jobs, progress)
        return

    steps, errors = compile_steps()
    for error in errors:
        click.echo(f"warning: compile steps that could not be loaded: {error}", err=True)
    names = [step.name for step in steps]
    unknown = [name for name in only if name not in names]
    if unknown:
        raise click.BadParameter(
            f"unknown step {', '.join(map(repr, unknown))}; the steps are: {', '.join(names)}", param_hint="'--only'"
        )
    chosen = [step for step in steps if not only or step.name in only]
    if check:
        cold = 0
        for step in chosen:
            if step.beside is not None:  # another step's kernels: checked with it
                continue
            reason = check_step(step)
            cold += reason is not None
            state = "compiled" if reason is None else "cold"
            click.echo(f"{step.name:<16} {state:<9} {step.summary}")
            if reason is not None:
                click.echo(f"{'':<16} {'':<9} ({reason})")
        click.echo(f"cache: {cache_root()}")
        if cold:
            raise SystemExit(1)
        return
    problem = cache_problem()
    if problem:
        raise click.ClickException(
            f"the kernel cache would not be used: {problem}; make it yours and private (chmod 700) or set "
            f"{TRUST_VARIABLE}=1 to trust it"
        )
    plan = plan_workers(chosen, default_jobs() if jobs is None else jobs)
    chosen = [step for steps in plan for step in steps]  # a helping step left out with one process
    summaries = {step.name: step.summary for step in chosen}
    failed = []
    start = time.perf_counter()
    bar = tqdm(total=len(chosen), desc="compiling", unit="step", file=sys.stderr, disable=not progress)

    def done(name: str, seconds: float, error: str | None) -> None:
        if error is None:
            bar.write(f"{name}: {seconds:.1f} s ({summaries[name]})", file=sys.stderr)
        else:
            failed.append(f"{name}: {error}")
        bar.update()

    try:
        if len(plan) == 1:
            for step in plan[0]:
                bar.set_postfix_str(step.name)
                step_start = time.perf_counter()
                step.run()
                done(step.name, time.perf_counter() - step_start, None)
        else:
            bar.set_postfix_str(f"{len(plan)} processes")
            run_in_workers(plan, done)
    finally:
        bar.close()
    if failed:
        raise click.ClickException("steps that did not compile: " + "; ".join(failed))
    seconds = time.perf_counter() - start
    where = f" in {len(plan)} processes" if len(plan) > 1 else ""
    click.echo(f"compiled {len(chosen)} step(s){where} in {seconds:.1f} s; cache: {cache_root()}")


def _prebuild(folder: Path, only: tuple[str, ...], jobs: int | None, progress: bool) -> None:
    """``seasons compile --prebuild FOLDER``: this command again in a new process (numba reads its CPU settings when
    imported) with the generic CPU and FOLDER as the cache, then the folder's manifest, its folders made readable."""
    import os
    import subprocess

    from ..vector.kernels import PREBUILT_VARIABLE
    from ..vector.kernels.compile_locks import remove_lock_files
    from ..vector.kernels.disk_cache import PREBUILT_MANIFEST, prebuilt_magic

    # an existing prebuilt folder takes another Python version's kernels (their file names differ)
    before = prebuilt_magic(folder) if (folder / PREBUILT_MANIFEST).is_file() else None
    if folder.is_symlink() or (folder.exists() and before is None and any(folder.iterdir())):
        raise click.BadParameter(
            f"{folder} is neither empty nor a prebuilt kernels folder: give a new or empty folder",
            param_hint="'--prebuild'",
        )
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "NUMBA_CPU_NAME": "generic", "NUMBA_CPU_FEATURES": "", "SEASONS_KERNEL_CACHE": str(folder)}
    env[PREBUILT_VARIABLE] = "none"  # every kernel compiled, none loaded from another prebuilt folder
    command = [sys.executable, "-m", "seasons_env.cli", "compile", *(f"--only={name}" for name in only)]
    command += [f"--jobs={jobs}"] if jobs else []
    command += [] if progress else ["--no-progress"]
    if subprocess.run(command, env=env).returncode != 0:
        raise click.ClickException(f"compiling into {folder} failed (above)")
    remove_lock_files(str(folder))  # the compile locks of its processes, which have ended: not kernels
    manifest = "import json; from pathlib import Path; from seasons_env.vector.kernels.disk_cache import "
    manifest += f"write_prebuilt_manifest; print(json.dumps(write_prebuilt_manifest(Path({str(folder)!r}))))"
    written = subprocess.run([sys.executable, "-c", manifest], env=env, capture_output=True, text=True)
    if written.returncode != 0:
        raise click.ClickException(f"writing the manifest of {folder} failed: {written.stderr.strip()[-500:]}")
    if before is not None and list(before) != json.loads(written.stdout):
        raise click.ClickException(f"{folder} held kernels for {list(before)}, now {written.stdout.strip()}: mixed")
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    click.echo(f"prebuilt kernels for {written.stdout.strip()} in {folder}")


def _prune_caches() -> None:
    from .compiling import cache_root, delete_folder, folder_size, stale_cache_folders

    freed = 0
    try:
        stale = stale_cache_folders()
    except RuntimeError as error:
        raise click.ClickException(f"{error}; nothing deleted") from None
    for path in stale:
        size = folder_size(path)
        try:
            delete_folder(path)
        except OSError as error:
            raise click.ClickException(f"cannot delete the stale kernel cache {path}: {error}") from None
        freed += size
    click.echo(f"deleted {len(stale)} folder(s) of other sources' kernels, {freed / 1e6:.1f} MB; cache: {cache_root()}")


# Last, so that every command above is defined when the module runs as a script (python -m seasons_env.cli).
if __name__ == "__main__":  # pragma: no cover
    main()
