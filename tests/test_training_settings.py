"""Training settings renamed: ``num_players`` (``players`` deprecated for one release)."""

from __future__ import annotations

import json
import warnings

import pytest
import torch
from click.testing import CliRunner

from seasons_env.deprecation import renamed
from seasons_training.cli import main as training_main
from seasons_training.config import TrainConfig, make_config
from seasons_training.pipeline import TrainingRun
from seasons_training.ppo import CHECKPOINT, Trainer


def test_num_players_is_the_field_and_players_its_deprecated_override() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name: no warning
        assert make_config("smoke", ["num_players=2,3"]).num_players == (2, 3)
    with pytest.warns(DeprecationWarning, match=r"--set: 'players' is deprecated .* use 'num_players'"):
        assert make_config("smoke", ["players=3,4"]).num_players == (3, 4)
    for both in (["players=2", "num_players=3"], ["num_players=3", "players=2"]):
        with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="give num_players= only; players="):
            make_config("smoke", both)
    with pytest.raises(ValueError, match="num_players: player counts must be 2, 3 or 4"):
        make_config("smoke", ["num_players=5"])
    assert "players" not in TrainConfig().to_dict() and TrainConfig().to_dict()["num_players"] == [2]


def test_a_saved_config_with_players_still_loads_and_both_names_are_refused() -> None:
    saved = {k: v for k, v in TrainConfig().to_dict().items() if k != "num_players"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a file written by an older version: read as it is, no warning
        config = TrainConfig.from_dict({**saved, "players": [3, 4]}, "config.json")
    assert config.num_players == (3, 4)
    with pytest.raises(ValueError, match=r"config\.json: give 'num_players' only; 'players' is its deprecated name"):
        TrainConfig.from_dict({**saved, "players": [2], "num_players": [2]}, "config.json")
    with pytest.warns(DeprecationWarning, match="x: 'players' is deprecated"):
        assert renamed({"players": 2}, "x") == {"num_players": 2}


def test_train_command_prints_the_players_deprecation_once_on_stderr(tmp_path) -> None:
    args = ["train", "--preset", "smoke", "--set", "players=2", "--set", "players=2,3", "--no-progress"]
    # refused after the settings were read (no such init model): nothing trains, the warning is shown
    result = CliRunner().invoke(training_main, [*args, "--init", str(tmp_path / "no.pt"), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "init: no such model file" in result.output, result.output
    warning = "warning: --set: 'players' is deprecated and will be removed in the next release; use 'num_players'"
    assert result.stderr.count(warning) == 1, result.stderr
    args = ["train", "--set", "players=2", "--set", "num_players=2", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 2 and "give num_players= only" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()


def test_a_run_folder_and_a_checkpoint_saved_with_players_resume(tmp_path) -> None:
    """A run folder's config.json and a PPO checkpoint written before the rename (``players``)."""
    folder = tmp_path / "run"
    config = make_config("smoke", ["init=", "eval_games=0", "num_players=2,3", "engine=reference"])
    TrainingRun.start(folder, config, log=lambda _: None)
    old = {k: v for k, v in config.to_dict().items() if k != "num_players"}
    (folder / "config.json").write_text(json.dumps({**old, "players": [2, 3]}))
    assert TrainingRun.resume(folder, log=lambda _: None).config == config
    trainer = Trainer(folder, config, log=lambda _: None)
    trainer.save()
    state = torch.load(folder / CHECKPOINT, weights_only=True)
    torch.save({**state, "config": {**old, "players": [2, 3]}}, folder / CHECKPOINT)
    resumed = Trainer.resume(folder, log=lambda _: None)
    assert resumed.config == config and resumed.config.num_players == (2, 3)
