"""The whole recipe in one command: ``seasons train --preset quick --out RUN`` from nothing.

With ``init="warm"`` (every preset's) a run goes through these stages in the run folder, each writing one
file atomically:

1. ``data``: ``bc_games`` games of the heuristic in every seat (``seasons_training.data``) → ``data.npz``
2. ``clone``: behaviour cloning on it (``seasons_training.clone``; the ``hidden``/``layers``/``card_dim`` network,
   ``bc_epochs`` at ``bc_lr``) → ``bc.pt``
3. ``dagger_data``: ``dagger_games`` games where the clone plays one seat and the heuristic labels every
   decision → ``dagger.npz``
4. ``dagger``: the clone fine-tuned on those rows (``dagger_epochs`` at ``dagger_lr``) → ``warm.pt``
5. self-play PPO from ``warm.pt`` (``seasons_training.ppo.Trainer``: ``checkpoint.pt``, ``policy.pt``, ...), whose first
   evaluation is of ``warm.pt`` itself.

``dagger_games=0`` leaves out stages 3 and 4 (PPO starts from ``bc.pt``). Any other ``init`` (``learned``, a
model file, ``""``) goes straight to PPO. ``stages.json`` records each finished stage: its file's SHA-256, its
wall seconds and when it finished; the PPO stage is recorded there too when it reaches its steps.

``--resume``: a run with a PPO checkpoint continues from it exactly as ``seasons_training.ppo`` describes (the
warm-start files are not read again). Otherwise the finished stages are skipped after checking that each one's
file is still the one it wrote (a missing or altered file is an error naming it: restore it or start a new
run folder), and the first unfinished stage runs from its start: a stage stopped by SIGTERM or Ctrl-C is
discarded and played again whole (its games and epochs are seeded, so it makes the same file again).

Wall time: each stage's seconds are recorded; PPO's evaluations carry ``wall_time``, the seconds since the
run started with these stages included, so ``curve.png`` shows win rate against the whole run's wall time.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

from seasons_env.files import file_sha256, write_atomic

from .config import TrainConfig, config_json, init_model_file
from .device import resolve_device
from .errors import BadFileError, read_json
from .stages import Stage, warm_model_path, warm_stages

STAGES = "stages.json"
CONFIG = "config.json"
STAGES_FORMAT = "seasons-train-stages"
PPO_STAGE = "ppo"
EXPERT_STAGE = "expert"  # algorithm="expert": expert iteration in place of PPO (seasons_training.expert)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class StageStopped(BaseException):
    """SIGTERM or Ctrl-C (``signum``) during a warm-start stage (a BaseException, like KeyboardInterrupt: nothing
    catches it on the way out, and the data generation's worker pool is terminated as its ``with`` block exits)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stop(signum: int, frame: object) -> None:
    raise StageStopped(signum)


def read_stages(folder: Path) -> dict[str, dict]:
    """``stages.json``'s records (none if the file is absent), checked field by field."""
    path = Path(folder) / STAGES
    if not path.exists():
        return {}
    document = read_json(path, STAGES_FORMAT, "a stage record of 'seasons train'")
    records = document.get("stages")
    if not isinstance(records, dict):
        raise BadFileError(f"{path}: 'stages' must map stage names to records")
    known = {"data", "clone", "dagger_data", "dagger", PPO_STAGE, EXPERT_STAGE}
    for name, record in records.items():
        where = f"{path}: stage {name!r}"
        if name not in known:
            raise BadFileError(f"{where}: unknown stage; stages: {', '.join(sorted(known))}")
        if not isinstance(record, dict) or not isinstance(record.get("file"), str):
            raise BadFileError(f"{where}: a record needs 'file', 'sha256' and 'seconds'")
        if not isinstance(record.get("sha256"), str) or not _SHA256.fullmatch(record["sha256"]):
            raise BadFileError(f"{where}: sha256 must be 64 lowercase hex digits; got {record.get('sha256')!r}")
        seconds = record.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < float("inf"):
            raise BadFileError(f"{where}: seconds must be a number at least 0; got {seconds!r}")
    return records


def write_stages(folder: Path, records: dict[str, dict]) -> None:
    document = {"format": STAGES_FORMAT, "version": 1, "stages": records}
    write_atomic(Path(folder) / STAGES, (json.dumps(document, indent=2) + "\n").encode())


def check_finished(folder: Path, stage: Stage, record: dict) -> None:
    """A finished stage's file must be the one it wrote: a ``BadFileError`` naming the file otherwise."""
    path = Path(folder) / stage.file  # the stage's own file name: never a path read from stages.json
    if record["file"] != stage.file:
        raise BadFileError(
            f"{Path(folder) / STAGES}: stage {stage.name!r} names {record['file']!r}, not {stage.file!r}"
        )
    if not path.is_file():
        raise BadFileError(
            f"{path}: missing, though stage {stage.name!r} finished it (stages.json); restore it, or start the run "
            "again in a new folder"
        )
    if file_sha256(path) != record["sha256"]:
        raise BadFileError(
            f"{path}: changed since stage {stage.name!r} wrote it (its SHA-256 differs from stages.json); restore "
            "it, or start the run again in a new folder"
        )


class TrainingRun:
    """``TrainingRun(folder, config).run()`` from nothing, or ``TrainingRun.resume(folder).run()``."""

    def __init__(self, folder: Path, config: TrainConfig, log: Callable[[str], None] = print) -> None:
        self.folder, self.config, self.log = Path(folder), config, log
        self.trainer = None  # a Trainer resumed from its checkpoint, or made when the stages are done

    @classmethod
    def start(cls, folder: Path, config: TrainConfig, log: Callable[[str], None] = print) -> TrainingRun:
        """A new run in ``folder`` (made if needed); ``ValueError`` if the folder holds a run already."""
        from .ppo import CHECKPOINT

        folder = Path(folder)
        for name in (CHECKPOINT, STAGES, CONFIG):
            if (folder / name).exists():
                raise ValueError(
                    f"{folder} holds a run already ({name}): add --resume to continue it, or choose another --out"
                )
        resolve_device(config.device)  # cuda without a GPU: refused before anything is written
        init_file = init_model_file(config.init)
        if init_file is not None:  # a model file: read and checked before anything is written
            from seasons_agents.network import load_policy

            load_policy(init_file)  # CheckpointError naming the file and its fault
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / CONFIG, config_json(config).encode())
        return cls(folder, config, log)

    @classmethod
    def resume(cls, folder: Path, log: Callable[[str], None] = print, steps: int | None = None) -> TrainingRun:
        """The run in ``folder``: from its PPO checkpoint, else from its configuration and finished stages."""
        from .ppo import CHECKPOINT, Trainer

        folder = Path(folder)
        records = read_stages(folder)  # every file of the run is checked before any work: this one is read last
        if (folder / CHECKPOINT).is_file():
            trainer = Trainer.resume(folder, log=log, steps=steps)
            run = cls(folder, trainer.config, log)
            run.trainer = trainer
            return run
        path = folder / CONFIG
        if not path.is_file():
            raise FileNotFoundError(f"{folder / CHECKPOINT}: no checkpoint to resume from (nor a {CONFIG})")
        values = read_json(path)
        try:
            config = TrainConfig.from_dict(values, str(path))
        except ValueError as error:  # the message names the file and the field
            raise BadFileError(str(error)) from None
        resolve_device(config.device, f"{path}: device")  # a run set for cuda, resumed where there is none
        for stage in warm_stages(config):
            if stage.name in records:
                check_finished(folder, stage, records[stage.name])
        if steps is not None:
            config = TrainConfig.from_dict({**config.to_dict(), "steps": steps}, "--steps")
            write_atomic(path, config_json(config).encode())
        return cls(folder, config, log)

    def run(self, progress: bool = True) -> dict:
        """The stages not finished yet, then PPO; ``{"steps", "stopped", "history", "stopped_in", "signal"}``
        (``signal``: the number of the signal that stopped the run, or None)."""
        from .ppo import POLICY

        if self.config.algorithm == EXPERT_STAGE:
            return self._expert(progress)
        if self.trainer is None:
            stop = self._warm_start(progress)
            if stop is not None:
                return {"steps": 0, "stopped": True, "history": [], "stopped_in": stop[0], "signal": stop[1]}
        result = self.trainer.run(progress=progress)
        if not result["stopped"]:
            trainer, records = self.trainer, read_stages(self.folder)
            records[PPO_STAGE] = {
                "file": POLICY,
                "sha256": file_sha256(self.folder / POLICY),
                "seconds": trainer.wall_seconds - trainer.ppo_started_at,
                "steps": trainer.steps,
                "finished": _now(),
            }
            write_stages(self.folder, records)
        return {**result, "stopped_in": PPO_STAGE if result["stopped"] else None}

    def _expert(self, progress: bool) -> dict:
        """Expert iteration from its start or its ``expert.json``; recorded in ``stages.json`` when it finishes."""
        from .expert import POLICY, ExpertIteration

        expert = ExpertIteration(self.folder, self.config, log=self.log)
        result = expert.run(progress=progress)
        if not result["stopped"]:
            records = read_stages(self.folder)
            records[EXPERT_STAGE] = {
                "file": POLICY,
                "sha256": file_sha256(self.folder / POLICY),
                "seconds": expert.state["seconds"],
                "rounds": result["rounds"],
                "finished": _now(),
            }
            write_stages(self.folder, records)
        steps = expert.state["decisions"]
        return {**result, "steps": steps, "stopped_in": EXPERT_STAGE if result["stopped"] else None}

    def _warm_start(self, progress: bool) -> tuple[str, int] | None:
        """Run the unfinished warm-start stages and make the PPO trainer (under the same signal handlers, until
        the trainer's own take over); the name of the stage a signal stopped and the signal's number, or None."""
        from .ppo import Trainer

        previous = signal.signal(signal.SIGTERM, _raise_stop), signal.signal(signal.SIGINT, _raise_stop)
        stage = None
        try:
            for stage in warm_stages(self.config):
                records = read_stages(self.folder)
                if stage.name in records:
                    self.log(
                        f"stage {stage.name}: finished before ({stage.file}, {records[stage.name]['seconds']:.0f} s)"
                    )
                    continue
                self.log(f"stage {stage.name}: started")
                started = time.perf_counter()
                details = self._run_stage(stage, progress)
                seconds = time.perf_counter() - started
                path = self.folder / stage.file
                records[stage.name] = {
                    "file": stage.file,
                    "sha256": file_sha256(path),
                    "seconds": seconds,
                    **details,
                    "finished": _now(),
                }
                write_stages(self.folder, records)
                self.log(f"stage {stage.name}: {stage.file} written in {seconds:.0f} s")
            stage = None
            records = read_stages(self.folder)
            before = sum(records[done.name]["seconds"] for done in warm_stages(self.config))
            if warm_stages(self.config):
                self.log(f"warm start done in {before:.0f} s; PPO from {warm_model_path(self.config, self.folder)}")
            self.trainer = Trainer(self.folder, self.config, log=self.log, wall_start=before)
        except StageStopped as stop:
            if stage is None:
                self.log("stopped before PPO started; --resume starts it")
                return PPO_STAGE, stop.signum
            self.log(f"stopped during stage {stage.name}; --resume runs it again from its start")
            return stage.name, stop.signum
        finally:
            signal.signal(signal.SIGTERM, previous[0])
            signal.signal(signal.SIGINT, previous[1])
        return None

    def _run_stage(self, stage: Stage, progress: bool) -> dict:
        from seasons_agents.network import NetworkConfig

        from .clone import CloneConfig, clone
        from .data import DataConfig, generate, save_dataset

        c, folder = self.config, self.folder
        if stage.name in ("data", "dagger_data"):
            dagger = stage.name == "dagger_data"
            data_config = DataConfig(
                games=c.dagger_games if dagger else c.bc_games,
                num_players=c.num_players,
                level=c.level,
                seed=c.seed * 2 + (2 if dagger else 1),
                student=str(folder / "bc.pt") if dagger else None,
            )
            data = generate(data_config, workers=c.workers, progress=progress, batched=c.engine == "kernels")
            save_dataset(data, folder / stage.file, data_config)
            return {"games": data_config.games, "rows": len(data["action"])}
        dagger = stage.name == "dagger"
        clone_config = CloneConfig(
            epochs=c.dagger_epochs if dagger else c.bc_epochs,
            lr=c.dagger_lr if dagger else c.bc_lr,
            batch_size=c.bc_batch,
            seed=c.seed,
            threads=c.workers,
            network=NetworkConfig(card_dim=c.card_dim, hidden=c.hidden, layers=c.layers),
            device=c.device,
        )
        partial = folder / f".{stage.file}.partial"  # the best epoch so far: only a finished stage names it
        result = clone(
            [folder / ("dagger.npz" if dagger else "data.npz")],
            partial,
            clone_config,
            init=folder / "bc.pt" if dagger else None,
            log=self.log,
        )
        os.replace(partial, folder / stage.file)
        accuracy = result["best_valid_accuracy"]  # NaN when no game was held out: JSON has no NaN
        return {"best_valid_accuracy": accuracy if math.isfinite(accuracy) else None, "rows": result["train_rows"]}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
