"""``seasons train`` from nothing: the warm-start stages (data set, cloning, DAgger) in the run folder, recorded
in stages.json, stopped by a signal in the middle of a stage and resumed with the finished stages skipped."""

from __future__ import annotations

import json
import os
import signal

import pytest
import torch
from click.testing import CliRunner

from seasons_agents.network import load_policy
from seasons_env.files import file_sha256
from seasons_training.cli import main as training_main
from seasons_training.config import make_config
from seasons_training.errors import BadFileError
from seasons_training.pipeline import STAGES, TrainingRun, read_stages, warm_stages
from seasons_training.ppo import CHECKPOINT, CHECKPOINT_FIELDS, Trainer

torch.set_num_threads(1)
# a short PPO stage: the stages before it are what these tests are about
SHORT = ["steps=128", "eval_games=2", "eval_every=10000", "checkpoint_every=10000"]


def test_a_run_stopped_during_a_stage_resumes_with_the_finished_stages_skipped(tmp_path) -> None:
    folder = tmp_path / "run"
    config = make_config("smoke", [*SHORT, "bc_epochs=2"])
    lines: list[str] = []
    handler = signal.getsignal(signal.SIGTERM)

    def stop_in_the_clone(line: str) -> None:
        lines.append(line)
        if line.startswith("epoch 1/2"):  # the clone's first epoch is done, its second not started
            os.kill(os.getpid(), signal.SIGTERM)

    result = TrainingRun.start(folder, config, log=stop_in_the_clone).run(progress=False)
    assert result["stopped"] and result["stopped_in"] == "clone"
    assert "stopped during stage clone; --resume runs it again from its start" in lines
    assert list(read_stages(folder)) == ["data"] and not (folder / "bc.pt").exists()
    assert not (folder / "checkpoint.pt").exists()
    assert signal.getsignal(signal.SIGTERM) is handler  # the stages' handler is gone
    data = folder / "data.npz"
    before = (file_sha256(data), data.stat().st_mtime_ns)

    def stop_in_the_dagger_data(line: str) -> None:
        lines.append(line)
        if line == "stage dagger_data: started":
            os.kill(os.getpid(), signal.SIGTERM)

    lines.clear()
    result = TrainingRun.resume(folder, log=stop_in_the_dagger_data).run(progress=False)
    assert result["stopped_in"] == "dagger_data" and list(read_stages(folder)) == ["data", "clone"]
    assert lines[0].startswith("stage data: finished before") and "stage clone: started" in lines
    bc = folder / "bc.pt"
    before_bc = (file_sha256(bc), bc.stat().st_mtime_ns)

    lines.clear()
    result = TrainingRun.resume(folder, log=lines.append).run(progress=False)
    assert not result["stopped"] and result["steps"] == 128
    assert [line for line in lines if "finished before" in line] == [
        line for line in lines if line.startswith(("stage data:", "stage clone:"))
    ]
    assert (file_sha256(data), data.stat().st_mtime_ns) == before
    assert (file_sha256(bc), bc.stat().st_mtime_ns) == before_bc
    stages = read_stages(folder)
    assert list(stages) == ["data", "clone", "dagger_data", "dagger", "ppo"]
    assert all(stages[s.name]["sha256"] == file_sha256(folder / s.file) for s in warm_stages(config))
    _net, info = load_policy(folder / "policy.pt")
    assert info["trained_by"] == "self-play PPO" and info["init"] == "warm"
    history = [json.loads(line) for line in (folder / "history.jsonl").read_text().splitlines()]
    assert [row["steps"] for row in history] == [0, 128]  # the warm-start model, then the end of PPO
    # a finished run has nothing left for the warm start: --resume goes to PPO's checkpoint
    assert TrainingRun.resume(folder, log=lines.append).trainer.steps == 128


def test_resume_names_a_missing_or_altered_stage_file_and_a_used_folder(tmp_path) -> None:
    folder = tmp_path / "run"
    config = make_config("smoke", [*SHORT, "dagger_games=0"])  # no DAgger round: PPO starts from bc.pt

    def stop_before_ppo(line: str) -> None:
        if line.startswith("warm start done"):
            os.kill(os.getpid(), signal.SIGINT)

    result = TrainingRun.start(folder, config, log=stop_before_ppo).run(progress=False)
    assert result["stopped_in"] == "ppo" and not (folder / "checkpoint.pt").exists()
    assert [s.name for s in warm_stages(config)] == list(read_stages(folder)) == ["data", "clone"]
    assert not (folder / "dagger.npz").exists() and not (folder / "warm.pt").exists()
    runner = CliRunner()
    resume = ["train", "--resume", "--out", str(folder), "--no-progress"]
    good = (folder / "bc.pt").read_bytes()
    (folder / "bc.pt").write_bytes(good + b"\0")
    result = runner.invoke(training_main, resume)
    assert result.exit_code != 0 and "bc.pt: changed since stage 'clone' wrote it" in result.output
    (folder / "bc.pt").unlink()
    result = runner.invoke(training_main, resume)
    assert result.exit_code != 0 and "bc.pt: missing, though stage 'clone' finished it" in result.output
    (folder / "bc.pt").write_bytes(good)
    result = runner.invoke(training_main, ["train", "--preset", "smoke", "--out", str(folder)])
    assert result.exit_code != 0 and "holds a run already" in result.output
    result = runner.invoke(training_main, [*resume, "--steps", "64"])
    assert result.exit_code == 0, result.output
    # one update of 8 games x 16 decisions passes 64 steps
    assert "warm start done" in result.output and "trained 128 steps" in result.output
    assert json.loads((folder / "config.json").read_text())["steps"] == 64
    records = json.loads((folder / STAGES).read_text())
    records["stages"]["clone"]["sha256"] = "../../etc"
    (folder / STAGES).write_text(json.dumps(records))
    with pytest.raises(ValueError, match=r"stages.json: stage 'clone': sha256 must be 64 lowercase hex digits"):
        read_stages(folder)


def test_warm_start_fields_are_checked_by_name(tmp_path) -> None:
    for bad, message in [
        ("bc_games=0", "bc_games: must be at least 1"),
        ("bc_epochs=0", "bc_epochs: must be at least 1"),
        ("dagger_games=-1", "dagger_games: must be at least 0"),
        ("dagger_epochs=0", "dagger_epochs: must be at least 1"),
        ("bc_lr=0", "bc_lr: must be positive"),
        ("dagger_lr=-1e-4", "dagger_lr: must be positive"),
        ("workers=two", "workers must be an integer"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_config("quick", [bad])
    quick = make_config("quick")
    assert (quick.init, quick.bc_games, quick.bc_epochs, quick.hidden) == ("warm", 4000, 3, 256)
    assert (quick.dagger_games, quick.dagger_epochs, quick.dagger_lr) == (2000, 2, 3e-4)
    assert make_config("full").num_players == (2, 3, 4)
    # PPO alone with init warm needs the warm start's model
    with pytest.raises(ValueError, match=r"init: 'warm' starts from .*warm.pt, which the warm-start stages write"):
        Trainer(tmp_path, make_config("smoke"), log=lambda _: None)
    # another init leaves the warm start out
    assert warm_stages(make_config("smoke", ["init=learned"])) == []


def test_a_damaged_run_folder_is_refused_naming_the_file_and_the_field(tmp_path) -> None:
    """A checkpoint missing a key gave KeyError, stages.json holding [] a traceback after the work, 'abc' steps and
    another generator's state messages naming neither file nor field; --preset with --resume was silently ignored.
    Each is refused before anything is written (exit status 1 from the command, no traceback)."""
    folder = tmp_path / "run"
    folder.mkdir()
    Trainer(folder, make_config("smoke", ["init=", "eval_games=0"]), log=lambda _: None).save()
    good = torch.load(folder / CHECKPOINT, weights_only=True)
    path = str(folder / CHECKPOINT)

    def refused(state: dict, message: str) -> None:
        torch.save(state, folder / CHECKPOINT)
        before = {p.name: p.read_bytes() for p in folder.iterdir()}
        with pytest.raises(BadFileError, match=message) as caught:
            TrainingRun.resume(folder, log=lambda _: None)
        assert path in str(caught.value)
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == before

    for key in CHECKPOINT_FIELDS:
        refused({k: v for k, v in good.items() if k != key}, rf"missing field\(s\) {key}$")
    refused({**good, "steps": "abc"}, "steps must be an integer at least 0; got 'abc'")
    refused({**good, "rng": {**good["rng"], "bit_generator": "MT19937"}}, "rng: .*PCG64")
    refused({**good, "torch_rng": torch.zeros(3, dtype=torch.uint8)}, "torch_rng: ")
    refused({**good, "league": {**good["league"], "pool": ["snapshot7"]}}, "league: pool must list")
    refused({**good, "league": {k: v for k, v in good["league"].items() if k != "stats"}}, "league: missing 'stats'")
    refused({**good, "optimizer": {"state": {}, "param_groups": []}}, "optimizer: ")
    refused({**good, "config": {**good["config"], "lr": float("nan")}}, "config: lr: must be a finite number")
    refused({**good, "history": [{"steps": 1}]}, "history must be a list of evaluation rows")
    torch.save(good, folder / CHECKPOINT)
    (folder / STAGES).write_text("[]")
    with pytest.raises(BadFileError, match=r"stages\.json: not a stage record"):
        TrainingRun.resume(folder, log=lambda _: None)
    result = CliRunner().invoke(training_main, ["train", "--resume", "--out", str(folder), "--no-progress"])
    assert result.exit_code == 1 and "stages.json: not a stage record" in result.output, result.output
    (folder / STAGES).unlink()
    torch.save({k: v for k, v in good.items() if k != "games"}, folder / CHECKPOINT)
    result = CliRunner().invoke(training_main, ["train", "--resume", "--out", str(folder), "--no-progress"])
    assert result.exit_code == 1 and "missing field(s) games" in result.output, result.output
    torch.save(good, folder / CHECKPOINT)
    args = ["train", "--preset", "quick", "--resume", "--steps", "128", "--out", str(folder), "--no-progress"]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 0, result.output + result.stderr
    assert "note: --preset quick is not applied: --resume continues with the configuration saved" in result.stderr


def test_the_smoke_preset_from_an_empty_kernel_cache_compiles_no_rules_or_heuristic_kernels(tmp_path) -> None:
    """The smoke preset plays on the reference engine, its data set game by game: a new user's first ``seasons
    train`` runs in seconds instead of waiting minutes for numba (only the policy's small forward-pass kernels, which
    its evaluation uses, compile)."""
    from installed import run_installed

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    out = tmp_path / "smoke"
    done = run_installed(
        ["train", "--preset", "smoke", "--out", str(out), "--no-progress"],
        env={"SEASONS_KERNEL_CACHE": str(cache), "SEASONS_PREBUILT_KERNELS": "none", "NUMBA_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert (out / "policy.pt").exists()
    compiled = sorted(str(path.relative_to(cache)) for path in cache.rglob("*.nbi"))
    assert compiled, "the evaluation's forward pass compiles: the cache is where this test looks"
    assert all("policy_kernel." in name for name in compiled), compiled
