"""``python -m seasons_training``: data sets of a teacher's decisions, behaviour cloning, and self-play training."""

from __future__ import annotations

import signal
import warnings
from collections.abc import Callable
from pathlib import Path

import click

from seasons_env.cli import workers_option
from seasons_env.deprecation import RENAMED, deprecation_message
from seasons_env.engine import LEVELS


def _player_counts(value: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"give player counts 2-4 separated by commas; got {value!r}") from None
    if not counts or any(not 2 <= n <= 4 for n in counts):
        raise click.BadParameter(f"player counts must be 2, 3 or 4; got {value!r}")
    return counts


def _output_file(path: Path, option: str) -> None:
    """Make the output file's folder if it is missing (``--out runs/data.npz`` in a new folder, as ``seasons train
    --out`` makes its run folder), and refuse a file that cannot be written there, before any work."""
    from seasons_env.cli import check_output_option
    from seasons_env.files import OutputPathError, check_output_folder

    if not path.parent.exists():
        try:
            check_output_folder(path.parent)
        except OutputPathError as error:
            raise click.BadParameter(str(error), param_hint=option) from None
        path.parent.mkdir(parents=True, exist_ok=True)
    check_output_option(path, option.strip("'"))


def _run_folder_writable(out: Path) -> None:
    """Refuse a run folder that cannot be made or written, before the run is set up."""
    from seasons_env.files import OutputPathError, check_output_folder

    try:
        check_output_folder(out)
    except OutputPathError as error:
        raise click.BadParameter(str(error), param_hint="'--out'") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Training learned agents for seasons-env (the 'train' extra: torch, sb3-contrib)."""


@main.command()
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True, help="Games to play.")
@click.option(
    "--players", default="2", show_default=True, help="Player counts, comma-separated (game g uses the g-th in turn)."
)
@click.option("--level", type=click.Choice(LEVELS), default="archmage", show_default=True, help="Game level.")
@click.option("--teacher", default="heuristic", show_default=True, help="The agent whose decisions are recorded.")
@click.option(
    "--student",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="DAgger: a model that plays one seat of every game (the teacher still labels every decision).",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Game g uses seed SEED*1000003+g."
)
@workers_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The .npz file to write.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
def generate(
    games: int,
    players: str,
    level: str,
    teacher: str,
    student: Path | None,
    seed: int,
    workers: int,
    out: Path,
    progress: bool,
) -> None:
    """Record a teacher's decisions (observation, mask, action, seat, final margin) as a .npz data set."""
    import time

    from .data import DataConfig, generate, save_dataset

    _output_file(out, "'--out'")
    try:
        config = DataConfig(
            games=games,
            num_players=_player_counts(players),
            level=level,
            teacher=teacher,
            seed=seed,
            student=None if student is None else str(student),
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    start = time.perf_counter()
    data = generate(config, workers=workers, progress=progress)
    save_dataset(data, out, config)
    seconds = time.perf_counter() - start
    click.echo(f"{len(data['action'])} decisions of {games} games written to {out} in {seconds:.0f} s")


@main.command(name="clone")
@click.argument("data", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The model file to write.")
@click.option("--init", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None, help="Start here.")
@click.option("--epochs", type=click.IntRange(min=1), default=6, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=512, show_default=True)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=1e-3, show_default=True)
@click.option("--hidden", type=click.IntRange(min=1), default=512, show_default=True, help="Trunk width.")
@click.option("--layers", type=click.IntRange(min=1), default=2, show_default=True, help="Trunk depth.")
@click.option("--card-dim", type=click.IntRange(min=1), default=32, show_default=True, help="Card embedding size.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=2, show_default=True, help="torch threads.")
@click.option(
    "--device",
    type=click.Choice(["cpu", "cuda", "auto"]),
    default="cpu",
    show_default=True,
    help="Where to learn: cuda needs a GPU torch can see; auto takes one when there is one.",
)
def clone_command(
    data: tuple[Path, ...],
    out: Path,
    init: Path | None,
    epochs: int,
    batch_size: int,
    lr: float,
    hidden: int,
    layers: int,
    card_dim: int,
    seed: int,
    threads: int,
    device: str,
) -> None:
    """Behaviour cloning: fit the policy-value network to the decisions in DATA (one or more .npz files)."""
    from seasons_agents.network import CheckpointError, NetworkConfig

    from .clone import CloneConfig, clone
    from .errors import BadFileError, TrainingDiverged

    _output_file(out, "'--out'")
    try:  # the network's limits, a finite --lr and the seed's range are checked where they are defined
        config = CloneConfig(
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            seed=seed,
            threads=threads,
            network=NetworkConfig(card_dim=card_dim, hidden=hidden, layers=layers),
            device=device,
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    try:
        result = clone(list(data), out, config, init=init, log=click.echo)
    except (BadFileError, CheckpointError, TrainingDiverged) as error:  # a data set or model that cannot be used
        raise click.ClickException(str(error)) from None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    click.echo(f"best validation accuracy {result['best_valid_accuracy']:.4f}; model written to {out}")


@main.command()
@click.option(
    "--preset",
    type=click.Choice(["smoke", "fast", "quick", "full", "expert-smoke", "expert"]),
    default="quick",
    show_default=True,
    help="smoke: a minute (CI); fast: cloning on the batched core, then a short PPO against the heuristic; quick: the "
    "shipped model's recipe from nothing, about 2 hours; full: overnight; "
    "expert-smoke, expert: expert iteration from a model (docs/training.md).",
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Change any field of the configuration (repeatable), e.g. --set lr=3e-4 --set num_players=2,3.",
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="The run folder.")
@click.option("--resume", is_flag=True, help="Continue the run in --out: its unfinished stages, or PPO's checkpoint.")
@click.option("--steps", type=click.IntRange(min=1), default=None, help="PPO learner decisions (also on --resume).")
@click.option(
    "--init",
    default=None,
    help="Where PPO starts: 'warm' (the presets': data set, cloning and DAgger in the run folder first), "
    "'learned' (the newest shipped model), 'learned:VERSION' (a shipped one, e.g. learned:v2), a model file, "
    "or '' (a random network).",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
@click.option(
    "--backend",
    type=click.Choice(["sb3", "rllib"]),
    default="sb3",
    show_default=True,
    help="sb3: this trainer (PPO in torch over the batched env, BC warm start); rllib: Ray RLlib self-play "
    "(seasons_training.train_rllib, the rllib extra; --set FIELD=VALUE sets its --FIELD option).",
)
@click.pass_context
def train(
    ctx: click.Context,
    preset: str,
    overrides: tuple[str, ...],
    out: Path,
    resume: bool,
    steps: int | None,
    init: str | None,
    progress: bool,
    backend: str,
) -> None:
    """The recipe of docs/training.md in one command: a heuristic data set, behaviour cloning, one DAgger
    round, then self-play PPO against a league of snapshots, random and heuristic opponents (and ISMCTS, sparingly,
    with --set opponents=random,heuristic,ismcts; the full preset has it).

    The run folder gets config.json, the warm start's data.npz, bc.pt, dagger.npz and warm.pt with stages.json
    (each finished stage's file SHA-256 and wall time), then PPO's checkpoint.pt (every checkpoint_every steps,
    and on SIGTERM/Ctrl-C), policy.pt (for 'seasons arena --agents learned:OUT/policy.pt,...'), tb/
    (TensorBoard), history.jsonl and curve.png (win rate against the wall time since the run started). A stage
    stopped by SIGTERM/Ctrl-C runs again from its start on --resume; PPO continues from its checkpoint. A stopped
    run exits with status 130 (Ctrl-C) or 143 (SIGTERM).
    """
    preset_given = ctx.get_parameter_source("preset") is not click.core.ParameterSource.DEFAULT
    _run_folder_writable(out)
    if backend == "rllib":
        _train_rllib(preset, overrides, out, resume, steps, init)
        return
    from seasons_agents.network import CheckpointError

    from .config import init_model_file, make_config
    from .errors import BadFileError, TrainingDiverged
    from .pipeline import TrainingRun

    try:
        if resume:
            if overrides or init is not None:
                raise click.UsageError("--resume continues the run as configured: only --steps may change")
            run = TrainingRun.resume(out, log=click.echo, steps=steps)
            if preset_given:
                click.echo(_saved_preset_note(preset, run.config), err=True)
        else:
            extra = [*overrides, *([f"steps={steps}"] if steps is not None else [])]
            extra += [f"init={init}"] if init is not None else []
            config = _with_deprecations_shown(make_config, preset, extra)
            init_file = init_model_file(config.init)  # learned:v9: ValueError naming the shipped versions
            if init_file is not None and not init_file.is_file():
                raise ValueError(f"init: no such model file {config.init!r}")
            run = TrainingRun.start(out, config, log=click.echo)
    except (BadFileError, CheckpointError) as error:  # a file that cannot be used: bad data, status 1
        raise click.ClickException(str(error)) from None
    except (ValueError, FileNotFoundError) as error:  # an option's value: status 2
        raise click.UsageError(str(error)) from None
    try:
        result = run.run(progress=progress)
    except (BadFileError, CheckpointError, TrainingDiverged) as error:
        raise click.ClickException(str(error)) from None
    if result["stopped"]:  # by SIGTERM or Ctrl-C: the run says where it stopped; the status says why
        raise SystemExit(128 + (result.get("signal") or signal.SIGINT))
    click.echo(f"trained {result['steps']} steps; policy in {out / 'policy.pt'}, curve in {out / 'curve.png'}")


def _with_deprecations_shown(function: Callable, *args: object) -> object:
    """``function(*args)``, each distinct ``DeprecationWarning`` it raises printed once on stderr (Python hides
    them outside ``__main__``, and a command's user should see them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return function(*args)
        finally:  # shown even when a later value is refused
            for message in dict.fromkeys(str(w.message) for w in caught if w.category is DeprecationWarning):
                click.echo(f"warning: {message}", err=True)


def _saved_preset_note(preset: str, saved) -> str:
    """What ``--preset`` given with ``--resume`` does: nothing; the run continues with its saved configuration."""
    from .config import PRESETS

    chosen = PRESETS[preset].to_dict()
    differ = [name for name, value in saved.to_dict().items() if name != "steps" and chosen[name] != value]
    note = f"note: --preset {preset} is not applied: --resume continues with the configuration saved in the run"
    if differ:
        return f"{note} (it differs from {preset}'s in {', '.join(differ)})"
    return f"{note} (the same as {preset}'s but for steps)"


if __name__ == "__main__":
    main()


def _train_rllib(
    preset: str, overrides: tuple[str, ...], out: Path, resume: bool, steps: int | None, init: str | None
) -> None:
    """``seasons train --backend rllib``: the same presets and run folder, through ``training/train_rllib.py``."""
    if init is not None:
        raise click.BadParameter("the rllib backend starts from scratch (no --init)", param_hint="'--init'")
    argv = ["--preset", preset, "--out", str(out)]
    if resume:
        argv.append("--resume")
    if steps is not None:
        argv += ["--timesteps", str(steps)]
    shown: set[str] = set()
    for item in overrides:
        field, equals, value = item.partition("=")
        if not equals or not field:
            raise click.BadParameter(f"expected FIELD=VALUE; got {item!r}", param_hint="'--set'")
        if field.strip() in RENAMED:
            if any(other.partition("=")[0].strip() == RENAMED[field.strip()] for other in overrides):
                raise click.BadParameter(
                    f"give {RENAMED[field.strip()]}= only; {field.strip()}= is its deprecated name, and both were "
                    "given",
                    param_hint="'--set'",
                )
            message = deprecation_message(field.strip(), RENAMED[field.strip()], "--set")
            if message not in shown:
                click.echo(f"warning: {message}", err=True)
                shown.add(message)
            field = RENAMED[field.strip()]
        argv += [f"--{field.replace('_', '-')}", *value.split()]
    try:
        from . import train_rllib
    except ImportError as error:
        raise click.ClickException(
            f"the rllib backend needs Ray RLlib ({error}); install it with: pip install 'seasons-env[rllib]'"
        ) from None
    code = train_rllib.main(argv)
    if code:
        raise SystemExit(code)
