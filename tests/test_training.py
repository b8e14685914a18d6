"""The MaskablePPO training script runs end to end on a tiny budget."""

from __future__ import annotations

import json

import pytest

from seasons_training import train_maskable_ppo


@pytest.mark.parametrize("vec", ["batched", "dummy"])
def test_training_script_trains_saves_and_evaluates(tmp_path, capsys, vec: str) -> None:
    args = ["--level", "apprentice", "--timesteps", "256", "--n-steps", "128", "--eval-episodes", "3"]
    args += ["--vec", vec, "--envs", "4"]
    assert train_maskable_ppo.main([*args, "--out", str(tmp_path)]) == 0
    assert (tmp_path / "model.zip").stat().st_size > 1000
    results = json.loads((tmp_path / "evaluation.json").read_text())
    assert [row["opponents"] for row in results["evaluation"]] == ["random", "heuristic"]
    assert all(
        row["episodes"] == 3 and 0 <= row["low"] <= row["win_rate"] <= row["high"] <= 1 for row in results["evaluation"]
    )
    assert "vs heuristic: win rate" in capsys.readouterr().out


def test_seasons_train_backend_rllib_runs_the_rllib_route_with_the_same_presets(tmp_path, monkeypatch) -> None:
    """``seasons train --backend rllib`` hands the preset, the run folder, --resume, --steps and --set to
    training/train_rllib.py (whose own tests train for real)."""
    from click.testing import CliRunner

    from seasons_env.cli import main
    from seasons_training import train_rllib

    seen = []
    monkeypatch.setattr(train_rllib, "main", lambda argv: seen.append(argv) or 0)
    args = ["train", "--backend", "rllib", "--preset", "smoke", "--out", str(tmp_path), "--steps", "4096"]
    result = CliRunner().invoke(main, [*args, "--set", "num_envs=8", "--set", "hidden=64 64", "--resume"])
    assert result.exit_code == 0, result.output
    assert seen == [
        [
            "--preset",
            "smoke",
            "--out",
            str(tmp_path),
            "--resume",
            "--timesteps",
            "4096",
            "--num-envs",
            "8",
            "--hidden",
            "64",
            "64",
        ]
    ]
    result = CliRunner().invoke(main, [*args, "--init", "learned"])
    assert result.exit_code != 0 and "the rllib backend starts from scratch" in result.output
