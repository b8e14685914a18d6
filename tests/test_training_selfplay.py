"""Training learned agents: data sets, behaviour cloning, the self-play games, the configuration, and the
smoke preset trained, killed, resumed and evaluated."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from click.testing import CliRunner
from dataset_rows import synthetic_rows
from installed import run_installed, start_installed

from seasons_agents.network import CheckpointError, load_policy
from seasons_env import Game
from seasons_training.cli import main as training_main
from seasons_training.config import PRESETS, TrainConfig, make_config
from seasons_training.data import DataConfig, final_margins, generate, load_dataset, save_dataset
from seasons_training.errors import BadFileError, TrainingDiverged
from seasons_training.pipeline import TrainingRun, file_sha256
from seasons_training.ppo import CHECKPOINT, League, Trainer, evaluate
from seasons_training.selfplay import Deal, SelfPlayGames
from seasons_training.snapshot_policy import SnapshotPolicy

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)


def test_final_margins() -> None:
    assert final_margins([10, 4, 7]) == [3, -6, -3]
    assert final_margins([5, 5]) == [0, 0]


def test_the_data_stage_plays_on_no_more_processes_than_games(monkeypatch) -> None:
    import seasons_training.data as data_module

    asked = []

    def here_only(function, jobs, processes, initializer=None):  # records the processes asked for, plays here
        asked.append(processes)
        yield from map(function, jobs)

    monkeypatch.setattr(data_module, "run_here_and_in_workers", here_only)
    generate(DataConfig(games=2, level="apprentice", teacher="random"), workers=16, progress=False)
    generate(DataConfig(games=1, level="apprentice", teacher="random"), workers=16, progress=False)
    assert asked == [2, 1]  # one game: this process alone


def test_generated_rows_are_the_teachers_legal_decisions_and_do_not_depend_on_workers(tmp_path) -> None:
    config = DataConfig(games=3, num_players=(2, 3), level="apprentice", seed=4)
    one = generate(config, workers=1, progress=False)
    two = generate(config, workers=2, progress=False)
    for name in one:
        assert np.array_equal(one[name], two[name]), name
    rows = len(one["action"])
    assert rows > 100 and one["mask"][np.arange(rows), one["action"].astype(int)].all()
    assert one["mask"].sum(1).min() >= 2  # forced decisions are left out
    assert set(np.unique(one["players"])) == {2, 3} and set(np.unique(one["game"])) == {0, 1, 2}
    # the margins are each seat's final margin in that game
    for g in range(3):
        rows_g = one["game"] == g
        n = int(one["players"][rows_g][0])
        game = Game.new(n, "apprentice", seed=4 * 1_000_003 + g)
        assert len(set(one["margin"][rows_g & (one["seat"] == 0)])) == 1 and game.num_players == n
    save_dataset(one, tmp_path / "d.npz", config)
    back = load_dataset(tmp_path / "d.npz")
    assert all(np.array_equal(back[k], one[k]) for k in one)
    broken = dict(one, action=np.zeros(rows, dtype=np.int16) + 313)
    save_dataset(broken, tmp_path / "bad.npz", config)
    with pytest.raises(ValueError, match="not legal under their mask"):
        load_dataset(tmp_path / "bad.npz")


class _Interrupted(BaseException):
    pass


@pytest.mark.parametrize("kind", ["data set", "searched rows"])
def test_ctrl_c_while_a_data_file_is_written_stops_and_leaves_no_file(tmp_path, monkeypatch, kind: str) -> None:
    """Ctrl-C inside zipfile's ``open`` (as it makes a member's compressor) left the archive unclosable: closing it
    raised a ValueError in place of the stop, and ``seasons train`` exited 1 with a traceback."""
    import zlib

    from seasons_training.expert_rows import save_rows

    compressobj = zlib.compressobj

    def compressor_interrupted(*args, **kwargs):
        monkeypatch.setattr(zlib, "compressobj", compressobj)  # the first member's only
        signal.raise_signal(signal.SIGINT)
        return compressobj(*args, **kwargs)

    def stop(signum: int, frame: object) -> None:
        raise _Interrupted(signum)

    rows = {"obs": np.zeros((3, 4), np.float32), "action": np.arange(3)}
    path = tmp_path / "rows.npz"
    monkeypatch.setattr(zlib, "compressobj", compressor_interrupted)
    previous = signal.signal(signal.SIGINT, stop)
    try:
        with pytest.raises(_Interrupted):
            if kind == "data set":
                save_dataset(rows, path, DataConfig(games=1))
            else:
                save_rows(rows, path)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary
    save_rows(rows, path) if kind != "data set" else save_dataset(rows, path, DataConfig(games=1))
    with np.load(path) as archive:
        assert np.array_equal(archive["action"], rows["action"])


def test_damaged_data_sets_are_refused_naming_the_file_and_the_field(tmp_path) -> None:
    """A truncated .npz gave BadZipFile, an .npy a TypeError, an empty file only 'Aborted!', a float mask failed
    deep inside training, NaN observations trained a 'loss nan' model, a game of -7 gave 'validation accuracy nan'."""
    good = synthetic_rows()

    def written(name: str, **changes) -> Path:
        path = tmp_path / name
        with open(path, "wb") as sink:
            np.savez_compressed(sink, **{**good, **changes})
        return path

    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(written("whole.npz").read_bytes()[:5000])
    npy = tmp_path / "obs.npy"
    np.save(npy, good["obs"])
    (tmp_path / "empty.npz").write_bytes(b"")
    nan_obs = good["obs"].copy()
    nan_obs[3, 7] = np.nan
    cases = [
        (truncated, "not a zip archive"),
        (npy, "not a zip archive"),
        (tmp_path / "empty.npz", "not a zip archive"),
        (written("float_mask.npz", mask=good["mask"].astype(np.float32)), "field mask must be bool"),
        (written("no_rows.npz", **{k: v[:0] for k, v in good.items()}), "holds no rows"),
        (written("nan.npz", obs=nan_obs), "field obs holds NaN or infinite values"),
        (written("inf.npz", margin=good["margin"] + np.inf), "field margin holds NaN or infinite values"),
        (written("game.npz", game=good["game"] - 7), "field game must be a game index"),
        (written("seat.npz", seat=good["seat"] + 1), "field seat must be a seat"),
        (written("short.npz", obs=good["obs"][:, :100]), r"field obs must have shape \(40, "),
    ]
    for path, message in cases:
        with pytest.raises(BadFileError, match=message) as caught:
            load_dataset(path)
        assert str(path) in str(caught.value)
    runner = CliRunner()
    for path, message in cases[:3]:
        model = tmp_path / "m.pt"
        result = runner.invoke(
            training_main, ["clone", str(path), "--out", str(model), "--hidden", "8", "--layers", "1"]
        )
        assert result.exit_code == 1 and message in result.output and str(path) in result.output, result.output
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
        assert not model.exists()
    back = load_dataset(written("fine.npz"))
    assert all(np.array_equal(back[name], good[name]) for name in good)


def test_data_config_names_bad_fields() -> None:
    with pytest.raises(ValueError, match=r"teacher: unknown agent .wizard.; known agents: "):
        DataConfig(teacher="wizard")
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4; got 5"):
        DataConfig(num_players=(5,))


def test_generate_clone_and_dagger_commands(tmp_path) -> None:
    """The commands as docs/training.md shows them, their outputs in folders that do not exist yet (made)."""
    runner = CliRunner()
    data = tmp_path / "runs" / "d.npz"
    args = ["generate", "--games", "4", "--level", "apprentice", "--workers", "1", "--no-progress", "--out", str(data)]
    result = runner.invoke(training_main, args)
    assert result.exit_code == 0, result.output
    model = tmp_path / "models" / "m.pt"
    args = ["clone", str(data), "--out", str(model), "--epochs", "2", "--hidden", "32", "--layers", "1"]
    result = runner.invoke(training_main, [*args, "--card-dim", "4", "--threads", "1"])
    assert result.exit_code == 0, result.output
    _net, info = load_policy(model)
    assert info["trained_by"] == "behaviour cloning" and len(info["history"]) == 2
    dagger = tmp_path / "dagger.npz"
    args = ["generate", "--games", "2", "--level", "apprentice", "--workers", "1", "--no-progress"]
    result = runner.invoke(training_main, [*args, "--student", str(model), "--out", str(dagger)])
    assert result.exit_code == 0, result.output
    assert len(load_dataset(dagger)["action"]) > 50
    result = runner.invoke(training_main, ["generate", "--players", "2,7", "--out", str(tmp_path / "x.npz")])
    assert result.exit_code != 0 and "player counts must be 2, 3 or 4" in result.output


def test_config_overrides_are_typed_and_bad_ones_named() -> None:
    config = make_config("smoke", ["lr=0.001", "num_players=2,3", "init=", "opponents=heuristic"])
    assert (
        config.lr == 0.001 and config.num_players == (2, 3) and config.init == "" and config.opponents == ("heuristic",)
    )
    for bad, message in [
        ("lx=1", "unknown field 'lx'"),
        ("lr=fast", "lr must be a number"),
        ("envs=2.5", "envs must be an integer"),
        ("num_players=5", "num_players: player counts must be 2, 3 or 4"),
        ("opponents=wizard", "opponents: fixed opponents are random, heuristic, ismcts; got wizard"),
        ("opponents=heuristic,random,heuristic", "opponents: each fixed opponent at most once"),
        ("ismcts_share=0", r"ismcts_share: must be in \(0, 1\]; got 0.0"),
        ("ismcts_share=1.5", r"ismcts_share: must be in \(0, 1\]; got 1.5"),
        ("ismcts_iterations=0", "ismcts_iterations: must be at least 1; got 0"),
        ("steps=0", "steps: must be at least 1"),
        ("engine=gpu", "engine: must be one of kernels, reference; got 'gpu'"),
        ("noequals", "write FIELD=VALUE"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_config("smoke", [bad])
    with pytest.raises(ValueError, match="preset: must be one of smoke, quick, fast, full"):
        make_config("huge")
    with pytest.raises(ValueError, match="lr: must be a number"):
        TrainConfig(lr="x")
    with pytest.raises(ValueError, match="unknown field"):
        TrainConfig.from_dict({"nope": 1})
    assert set(PRESETS) == {"smoke", "quick", "fast", "full", "expert-smoke", "expert"}
    # the command offers every preset, and only those
    train_options = {option.name: option for option in training_main.commands["train"].params}
    assert set(train_options["preset"].type.choices) == set(PRESETS)
    # ISMCTS joins a league only when named: the full preset names it, the others keep the measured league
    assert PRESETS["full"].opponents == ("random", "heuristic", "ismcts")
    assert PRESETS["quick"].opponents == PRESETS["smoke"].opponents == ("random", "heuristic")


def test_the_league_deals_ismcts_no_more_than_its_share() -> None:
    """PFSP would deal ISMCTS most of the games (the learner never beats it here); it gets ``ismcts_share`` of
    them, the others keeping their PFSP proportions; under its share it keeps its PFSP weight, and a league
    without ISMCTS is plain PFSP."""
    from seasons_agents.network import NetworkConfig, PolicyValueNet

    net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1))
    config = make_config("smoke", ["opponents=random,heuristic,ismcts", "ismcts_share=0.05"])

    def pfsp(league: League) -> np.ndarray:
        w = np.array([max(config.pfsp_floor, (1 - league.win_rate(n)) ** config.pfsp_power) for n in league.pool])
        return w / w.sum()

    league = League(config)
    league.add_snapshot(net)
    for _ in range(40):
        league.record("random", 1.0)
        league.record("heuristic", 0.5)
        league.record("ismcts", 0.0)
    k = league.pool.index("ismcts")
    plain, capped = pfsp(league), league.weights()
    assert plain[k] > 0.4 and capped[k] == pytest.approx(0.05) and capped.sum() == pytest.approx(1.0)
    others = [i for i in range(len(league.pool)) if i != k]
    assert capped[others] / capped[others].sum() == pytest.approx(plain[others] / plain[others].sum())
    rng = np.random.default_rng(0)
    dealt = [league.sample(rng) for _ in range(4000)]
    assert 0.04 < dealt.count("ismcts") / 4000 < 0.06
    for _ in range(200):  # now the learner beats it: its PFSP weight is under the share, and stays
        league.record("ismcts", 1.0)
    assert pfsp(league)[k] < 0.05 and np.array_equal(league.weights(), pfsp(league))
    plain_league = League(make_config("smoke", ["ismcts_share=0.05"]))
    plain_league.add_snapshot(net)
    plain_league.record("heuristic", 0.0)
    assert "ismcts" not in plain_league.pool and np.array_equal(plain_league.weights(), pfsp(plain_league))


def test_selfplay_games_stop_only_at_learner_decisions_and_resume_exactly() -> None:
    from seasons_agents.network import NetworkConfig, PolicyValueNet

    torch.manual_seed(0)
    net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)).eval()
    opponents = ["random", "heuristic", "snapshot:0"]

    def schedule(rng):
        players = int(rng.integers(2, 5))
        return Deal(players, int(rng.integers(players)), opponents[int(rng.integers(3))], int(rng.integers(2**40)))

    vec = SelfPlayGames(6, "apprentice", schedule, {"snapshot:0": SnapshotPolicy(net)}, seed=3)
    vec.start()
    twin = None
    finished = []
    rng = np.random.default_rng(0)
    for step in range(150):
        _obs, mask = vec.observe()
        for slot in range(6):
            assert vec.game(slot).current_player == vec.deals[slot].seat and mask[slot].sum() >= 2
        actions = [int(rng.choice(np.flatnonzero(m))) for m in mask]
        if step == 40:
            twin = SelfPlayGames(6, "apprentice", schedule, {"snapshot:0": SnapshotPolicy(net)}, seed=99)
            twin.load_state_dict(vec.state_dict())
            twin_actions = list(actions)
            twin_rng = np.random.default_rng(0)
            twin_rng.bit_generator.state = rng.bit_generator.state
        finished += vec.step(actions)
        if step == 40:
            twin.step(twin_actions)
        elif step > 40:
            twin.step([int(twin_rng.choice(np.flatnonzero(m))) for m in twin.observe()[1]])
            assert [twin.game(i).to_dict() for i in range(6)] == [vec.game(i).to_dict() for i in range(6)]
    assert finished and {r.opponent for r in finished} <= set(opponents)
    assert all(0 <= r.win <= 1 for r in finished)


def test_evaluation_rotates_seats_and_counts_every_game() -> None:
    from seasons_agents.network import NetworkConfig, PolicyValueNet

    net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1))
    result = evaluate(net, "random", games=4, players=2, level="apprentice", seed=0, slots=3)
    assert result["games"] == 4 and 0 <= result["low"] <= result["win_rate"] <= result["high"] <= 1


@pytest.mark.parametrize(
    "league", [[], ["opponents=random,heuristic,ismcts", "ismcts_iterations=4", "ismcts_share=0.5"]]
)
def test_a_stopped_run_resumes_to_the_same_weights(tmp_path, league: list[str]) -> None:
    """Stopped in the middle of a rollout: that rollout and its update finish, then the checkpoint; resumed from it,
    the same end as a run never stopped (with ISMCTS in the league too, its agents' state saved mid-game)."""
    config = make_config("smoke", ["steps=384", "eval_games=0", "checkpoint_every=10000", "init=", *league])
    straight = Trainer(tmp_path / "straight", config, log=lambda _: None)
    straight.run(progress=False)
    stopped = Trainer(tmp_path / "stopped", config, log=lambda _: None)
    collect = stopped._collect
    calls = []

    def collect_then_stop():
        calls.append(1)
        if len(calls) == 2:
            stopped._stop = True  # as SIGTERM does, in the middle of the second rollout
        return collect()

    stopped._collect = collect_then_stop
    result = stopped.run(progress=False)
    assert result["stopped"] and result["steps"] == 256 and len(calls) == 2
    resumed = Trainer.resume(tmp_path / "stopped", log=lambda _: None)
    assert resumed.steps == 256 and resumed.league.pool == stopped.league.pool
    if league:
        assert "ismcts" in {deal.opponent for deal in resumed.vec.deals}
    resumed.run(progress=False)
    assert resumed.steps == straight.steps == 384
    for name, tensor in straight.net.state_dict().items():
        assert torch.equal(tensor, resumed.net.state_dict()[name]), name
    assert resumed.league.stats == straight.league.stats


def test_smoke_preset_trains_is_killed_resumes_and_evaluates(tmp_path) -> None:
    """The CI run of the whole command from nothing (data set, clone, DAgger, PPO): SIGTERM after PPO's first
    checkpoint, then --resume to the end."""
    out = tmp_path / "run"
    command = ["train", "--preset", "smoke", "--out", str(out), "--no-progress"]
    process = start_installed(
        [*command, "--steps", "100000"], module="seasons_training", stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 120
    while not (out / CHECKPOINT).exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert process.poll() is None, process.stdout.read().decode()
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 128 + signal.SIGTERM, output  # stopped, not finished: the shell's status says so
    assert "stopped at step" in output
    saved = torch.load(out / CHECKPOINT, weights_only=True)
    steps, pool = saved["steps"], saved["league"]["pool"]
    assert steps >= 128 and steps % 128 == 0
    # the curve is drawn at each evaluation: the stopped run already has its first point (the warm-start model)
    assert (out / "curve.png").stat().st_size > 1000
    first_curve = (out / "curve.png").read_bytes()
    resumed = Trainer.resume(out, log=lambda _: None)
    assert resumed.steps == steps and resumed.league.pool == pool
    result = run_installed([*command, "--resume", "--steps", str(steps + 256)], module="seasons_training")
    assert result.returncode == 0, result.stdout + result.stderr
    final = torch.load(out / CHECKPOINT, weights_only=True)
    assert final["steps"] == steps + 256
    history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    assert history and {"random", "heuristic"} <= set(history[-1])
    stages = json.loads((out / "stages.json").read_text())["stages"]
    assert list(stages) == ["data", "clone", "dagger_data", "dagger", "ppo"]
    for name, record in stages.items():
        assert record["sha256"] == file_sha256(out / record["file"]), name
    # the curve starts at the warm-start model, after the stages' wall time, and runs on through the resume
    warm = sum(stages[name]["seconds"] for name in ("data", "clone", "dagger_data", "dagger"))
    assert history[0]["steps"] == 0 and history[0]["wall_time"] >= warm > 0
    times = [row["wall_time"] for row in history]
    assert times == sorted(times) and history[-1]["steps"] == steps + 256
    assert (out / "curve.png").read_bytes() != first_curve and (out / "policy.pt").is_file()
    assert any((out / "tb").iterdir())
    load_policy(out / "policy.pt")


def test_train_command_refuses_a_used_folder_and_bad_fields(tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(training_main, ["train", "--preset", "smoke", "--set", "lr=x", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "lr must be a number" in result.output
    result = runner.invoke(training_main, ["train", "--preset", "smoke", "--resume", "--out", str(tmp_path / "none")])
    assert result.exit_code != 0 and "no checkpoint to resume from" in result.output
    result = runner.invoke(training_main, ["train", "--init", str(tmp_path / "nope.pt"), "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and "init: no such model file" in result.output


def test_train_refuses_non_finite_numbers_a_seed_out_of_range_and_a_non_model_init_before_writing(tmp_path) -> None:
    """--set lr=inf or entropy=nan trained and saved NaN weights; seed=10**23 overflowed after setting up; init=<not a
    model> failed with a traceback after writing a config.json that made --resume fail again."""
    for text, message in [
        ("lr=inf", "lr: must be a finite number"),
        ("entropy=nan", "entropy: must be a finite number"),
        ("value_coef=inf", "value_coef: must be a finite number"),
        ("max_grad_norm=nan", "max_grad_norm: must be a finite number"),
        ("pfsp_power=inf", "pfsp_power: must be a finite number"),
        ("pfsp_floor=nan", "pfsp_floor: must be a finite number"),
        ("seed=99999999999999999999999", r"seed: must be in 0\.\.4294967295"),
        ("hidden=1000000", "hidden: must be at most 16384"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_config("smoke", [text])
    not_a_model = tmp_path / "passwd"
    not_a_model.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(CheckpointError, match="cannot be read as a policy checkpoint"):
        TrainingRun.start(tmp_path / "direct", make_config("smoke", [f"init={not_a_model}"]))
    assert not (tmp_path / "direct").exists()
    runner = CliRunner()
    result = runner.invoke(
        training_main, ["train", "--preset", "smoke", "--set", "lr=inf", "--out", str(tmp_path / "a")]
    )
    assert result.exit_code == 2 and "lr: must be a finite number" in result.output and not (tmp_path / "a").exists()
    args = ["train", "--preset", "smoke", "--set", f"init={not_a_model}", "--out", str(tmp_path / "b")]
    result = runner.invoke(training_main, args)
    assert result.exit_code == 1 and f"{not_a_model}: cannot be read" in result.output, result.output
    assert not (tmp_path / "b").exists()
    result = runner.invoke(training_main, ["clone", str(not_a_model), "--lr", "nan", "--out", str(tmp_path / "m.pt")])
    assert result.exit_code == 2 and "lr must be a positive finite number" in result.output, result.output


def test_a_loss_that_becomes_nan_stops_the_run_and_keeps_the_last_good_checkpoint(tmp_path) -> None:
    """Weights made NaN after the checkpoint of step 128: the next update's loss is NaN; the run stops with a message
    naming the checkpoint kept, and neither checkpoint.pt nor policy.pt is overwritten with NaN weights."""
    config = make_config("smoke", ["steps=384", "eval_games=0", "checkpoint_every=128", "init="])
    trainer = Trainer(tmp_path, config, log=lambda _: None)
    collect, calls = trainer._collect, []

    def collect_poisoned():
        calls.append(1)
        if len(calls) == 2:  # after the first update and its checkpoint
            with torch.no_grad():
                trainer.net.value.weight[0, 0] = float("nan")
        return collect()

    trainer._collect = collect_poisoned
    with pytest.raises(TrainingDiverged, match=r"the loss became nan.* keep the last good state, step 128"):
        trainer.run(progress=False)
    assert torch.load(tmp_path / CHECKPOINT, weights_only=True)["steps"] == 128
    load_policy(tmp_path / "policy.pt")  # finite weights (NaN ones are refused)
    assert Trainer.resume(tmp_path, log=lambda _: None).steps == 128


def test_a_diverged_run_exits_with_status_1_and_a_message(tmp_path, monkeypatch) -> None:
    """The command's side of the test above: a message naming the step, status 1, no traceback."""
    collect, calls = Trainer._collect, []

    def collect_poisoned(self):
        calls.append(1)
        if len(calls) == 2:
            with torch.no_grad():
                self.net.value.weight[0, 0] = float("inf")
        return collect(self)

    monkeypatch.setattr(Trainer, "_collect", collect_poisoned)
    args = ["train", "--preset", "smoke", "--init", "", "--out", str(tmp_path / "run"), "--no-progress"]
    args += ["--set", "eval_games=0", "--set", "checkpoint_every=128"]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 1 and "training diverged at step 128" in result.output, result.output
    assert isinstance(result.exception, SystemExit)  # click's exit, not an error's traceback


def test_seasons_train_is_the_same_command() -> None:
    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["train", "--help"])
    assert result.exit_code == 0 and "--preset" in result.output and "--resume" in result.output
