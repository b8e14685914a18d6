"""The ``--web`` part of ``seasons play``: checks its options and runs the server (``agents/web_server.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from seasons_env.deprecation import renamed_keywords
from seasons_env.files import OutputPathError, check_output_file, check_output_folder

from .web_server import DEFAULT_RECORD_FOLDER, run_web_game

#: Options a resumed game takes from its record; giving them with --resume is an error.
SETTINGS_OF_THE_RECORD = ("players", "level", "seed", "seat", "humans")


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE


@renamed_keywords
def play_web(
    ctx: click.Context,
    opponent: str,
    num_players: int,
    level: str,
    seed: int | None,
    seat: int,
    record_path: Path | None,
    port: int,
    open_browser: bool,
    humans: int,
    resume: Path | None,
) -> None:
    """Check the options of ``seasons play --web`` and serve the game until Ctrl-C or SIGTERM. ``players`` is the
    deprecated name of ``num_players``."""
    if resume is not None:
        given = [f"--{name}" for name in SETTINGS_OF_THE_RECORD if _given(ctx, name)]
        if given:
            raise click.BadParameter(
                f"a resumed game's {', '.join(given)} come from its record; leave them out", param_hint="'--resume'"
            )
    elif seat >= num_players:
        raise click.BadParameter(
            f"seat must be 0..{num_players - 1} with {num_players} players; got {seat}", param_hint="'--seat'"
        )
    elif humans > num_players:
        raise click.BadParameter(f"{humans} people cannot sit at {num_players} seats", param_hint="'--humans'")
    try:  # where the record goes, checked before the server starts (the default: a new file in results/play)
        if record_path is not None:
            check_output_file(record_path)
        elif resume is not None:
            check_output_file(resume)
        else:
            check_output_folder(DEFAULT_RECORD_FOLDER)
    except OutputPathError as error:
        raise click.BadParameter(
            str(error), param_hint="'--resume'" if record_path is None and resume else "'--record'"
        ) from None
    try:
        status = run_web_game(
            opponent if resume is None or _given(ctx, "opponent") else None,
            num_players,
            level,
            seed,
            seat,
            record_path,
            resume,
            port,
            open_browser,
            humans,
        )
    except ValueError as error:  # a record that cannot be resumed, a port in use
        raise click.ClickException(str(error)) from None
    except OSError as error:  # the record cannot be written
        raise click.FileError(str(error.filename or record_path or resume), hint=error.strerror or str(error)) from None
    if status:
        raise SystemExit(status)
