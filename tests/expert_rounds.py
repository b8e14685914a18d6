"""One round of expert iteration's smoke preset, played once and trained again under other settings: the same games,
another training, for the tests of what a setting changes in the training alone."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from seasons_env.files import file_sha256
from seasons_training import expert
from seasons_training.config import TrainConfig, make_config
from seasons_training.pipeline import TrainingRun


def one_round(folder: Path) -> TrainConfig:
    """Play and train round 1 of the smoke preset (16 iterations a decision) in ``folder``; its configuration."""
    config = make_config("expert-smoke", ["expert_rounds=1", "search_iterations=16"])
    TrainingRun.start(folder, config, log=lambda _: None).run(progress=False)
    return config


def retrained(tmp_path: Path, variants: dict[str, dict]) -> dict[str, expert.ExpertIteration]:
    """Round 1 played once, then trained again in a copy of its folder for each named variant (settings changed
    from the round's): each copy's run, its ``training`` figures and ``expert/model-0001.pt`` replaced."""
    config = one_round(tmp_path / "run")
    runs = {}
    for name, settings in variants.items():
        copy = shutil.copytree(tmp_path / "run", tmp_path / name)  # a round's training replaces its model
        runs[name] = expert.ExpertIteration(copy, replace(config, **settings), log=lambda _: None)
        runs[name]._train(1)
    return runs


def written_without(folder: Path, field: str) -> None:
    """Rewrite the games of the run in ``folder`` without ``field``, as a version older than the field wrote them
    (the run's record naming the files as they now are)."""
    names = sorted((folder / "expert").rglob("games-*.npz"))
    assert names
    for name in names:
        with np.load(name) as archive:
            rows = {k: archive[k] for k in archive.files if k != field}
        np.savez_compressed(name, **rows)
    record = json.loads((folder / "expert.json").read_text())
    record["files"] = {n: file_sha256(folder / n) for n in record["files"]}
    (folder / "expert.json").write_text(json.dumps(record))
