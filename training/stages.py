"""The warm-start stages of ``seasons train`` (``seasons_training.pipeline``) by name and file: what the pipeline
runs before PPO, and where PPO (``seasons_training.ppo``) finds the model they leave."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import TrainConfig


@dataclass(frozen=True)
class Stage:
    name: str
    file: str  # written in the run folder


def warm_stages(config: TrainConfig) -> list[Stage]:
    """The stages before PPO, in order (none unless ``init`` is ``"warm"``)."""
    if config.init != "warm":
        return []
    stages = [Stage("data", "data.npz"), Stage("clone", "bc.pt")]
    if config.dagger_games:
        stages += [Stage("dagger_data", "dagger.npz"), Stage("dagger", "warm.pt")]
    return stages


def warm_model_path(config: TrainConfig, folder: Path) -> Path:
    """The model PPO starts from when ``init`` is ``"warm"``: the last warm-start stage's file."""
    return Path(folder) / warm_stages(config)[-1].file
