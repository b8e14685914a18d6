"""The ``fast`` preset's route: heuristic data sets played on the batched core (the same rows as the reference
path), DAgger rows there, and the preset itself at toy sizes from nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from installed import run_installed

from seasons_agents.network import NetworkConfig, PolicyValueNet, load_policy, save_policy
from seasons_training.config import PRESETS
from seasons_training.data import FIELDS, DataConfig, concatenate, generate, load_dataset, record_game, save_dataset
from seasons_training.data_compiled import blocks, compiled_teacher, record_block
from seasons_training.pipeline import file_sha256

torch.set_num_threads(1)


def reference_rows(config: DataConfig) -> dict[str, np.ndarray]:
    return concatenate([record_game((config, g)) for g in range(config.games)])


def test_heuristic_rows_on_the_batched_core_are_the_reference_paths_rows(tmp_path) -> None:
    """Every field of every row, in game order, for 2- and 3-player games: the compiled heuristic on the views
    ``determinize_into`` writes makes the reference heuristic's decisions with its draws."""
    config = DataConfig(games=4, num_players=(2, 3), level="apprentice", seed=4)
    assert compiled_teacher(config) and not compiled_teacher(DataConfig(teacher="random"))
    compiled, reference = record_block((config, 0, 4)), reference_rows(config)
    for name in FIELDS:
        assert compiled[name].dtype == reference[name].dtype, name
        assert np.array_equal(compiled[name], reference[name]), name
    # generate() takes this route for the heuristic, in blocks, whatever the workers
    assert blocks(70, 32) == [(0, 32), (32, 32), (64, 6)]
    generated = generate(config, workers=2, progress=False)
    assert all(np.array_equal(generated[name], reference[name]) for name in FIELDS)
    save_dataset(generated, tmp_path / "d.npz", config)
    back = load_dataset(tmp_path / "d.npz")
    assert all(np.array_equal(back[name], generated[name]) for name in FIELDS)


def test_dagger_rows_on_the_batched_core_are_the_reference_paths_rows(tmp_path) -> None:
    """The student plays seat ``g % players`` of game ``g`` greedily (one forward pass for the games waiting on it)
    and the heuristic labels its decisions too: the reference path's rows."""
    torch.manual_seed(0)
    student = tmp_path / "student.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)), student)
    config = DataConfig(games=3, level="apprentice", seed=9, student=str(student))
    compiled, reference = record_block((config, 0, 3)), reference_rows(config)
    for name in FIELDS:
        assert np.array_equal(compiled[name], reference[name]), name
    # the student's seat was played by the student: its labels are the heuristic's, not always its own moves
    student_rows = compiled["seat"] == compiled["game"] % 2
    assert student_rows.any() and (~student_rows).any()


def test_the_fast_preset_at_toy_sizes_runs_from_nothing(tmp_path) -> None:
    """The preset's stages (data, clone, PPO: no DAgger round) and its evaluations at its start and end."""
    fast = PRESETS["fast"]
    assert fast.dagger_games == 0 and fast.opponents == ("heuristic",) and fast.bc_batch > 512
    out = tmp_path / "run"
    toy = ["level=apprentice", "hidden=32", "layers=1", "card_dim=4", "bc_games=3", "bc_batch=64", "steps=256"]
    toy += ["envs=8", "rollout=16", "minibatch=64", "eval_games=2", "checkpoint_every=256", "eval_every=100000"]
    command = ["train", "--preset", "fast", "--out", str(out), "--no-progress"]
    for setting in toy:
        command += ["--set", setting]
    result = run_installed(command, module="seasons_training")
    assert result.returncode == 0, result.stdout + result.stderr
    stages = json.loads((out / "stages.json").read_text())["stages"]
    assert list(stages) == ["data", "clone", "ppo"]
    for name, record in stages.items():
        assert record["sha256"] == file_sha256(out / record["file"]), name
    history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    assert [row["steps"] for row in history] == [0, 256]
    assert {"random", "heuristic"} <= set(history[-1])
    config = json.loads((out / "config.json").read_text())
    assert config["bc_batch"] == 64 and config["opponents"] == ["heuristic"]
    load_policy(out / "policy.pt")


def test_the_data_speed_benchmark_compares_both_routes_on_the_same_rows() -> None:
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "data_speed.py"
    command = [sys.executable, str(script), "--games", "2", "--rounds", "1", "--level", "apprentice"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "same rows: True" in result.stdout and "median ratio" in result.stdout
