"""Training settings renamed or added: ``num_players`` (``players`` deprecated for one release) and ``device``."""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict

import pytest
import torch
from click.testing import CliRunner

from seasons_agents.network import FrozenPolicy, NetworkConfig, PolicyValueNet, masked_policy, policy_payload
from seasons_env.deprecation import renamed
from seasons_env.encoding import OBSERVATION_SIZE
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_training.cli import main as training_main
from seasons_training.clone import CloneConfig
from seasons_training.config import TrainConfig, config_json, make_config
from seasons_training.data import DataConfig
from seasons_training.device import on_cpu, resolve_device
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


def test_data_config_takes_num_players_and_players_with_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert DataConfig(num_players=(2, 3)).num_players == (2, 3) and DataConfig().num_players == (2,)
    with pytest.warns(DeprecationWarning, match="DataConfig: 'players' is deprecated .* use 'num_players'"):
        config = DataConfig(players=(3,))
    assert config.num_players == (3,) and "players" not in asdict(config)
    with pytest.raises(ValueError, match="DataConfig: give num_players= only"):
        DataConfig(num_players=(2,), players=(2,))


def test_a_saved_config_with_players_still_loads_and_both_names_are_refused() -> None:
    saved = {k: v for k, v in TrainConfig().to_dict().items() if k not in ("num_players", "device")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a file written by an older version: read as it is, no warning
        config = TrainConfig.from_dict({**saved, "players": [3, 4]}, "config.json")
    assert config.num_players == (3, 4) and config.device == "cpu"
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


def test_the_rllib_backend_maps_set_players_to_num_players_with_the_warning(tmp_path, monkeypatch) -> None:
    train_rllib = pytest.importorskip("seasons_training.train_rllib", reason="the rllib extra is not installed")
    seen: list[list[str]] = []
    monkeypatch.setattr(train_rllib, "main", lambda argv: seen.append(argv) or 0)  # the options, nothing trained
    args = ["train", "--backend", "rllib", "--preset", "smoke", "--set", "players=3", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 0, result.output
    assert seen[0][-2:] == ["--num-players", "3"] and train_rllib.parse_args(seen[0]).num_players == 3
    assert result.stderr.count("warning: --set: 'players' is deprecated") == 1
    result = CliRunner().invoke(training_main, [*args, "--set", "num_players=3"])
    assert result.exit_code == 2 and "give num_players= only" in result.output and len(seen) == 1


def test_a_run_folder_and_a_checkpoint_saved_with_players_resume(tmp_path) -> None:
    """A run folder's config.json and a PPO checkpoint written before the rename (``players``, no ``device``)."""
    folder = tmp_path / "run"
    config = make_config("smoke", ["init=", "eval_games=0", "num_players=2,3", "engine=reference"])
    TrainingRun.start(folder, config, log=lambda _: None)
    old = {k: v for k, v in config.to_dict().items() if k not in ("num_players", "device")}
    (folder / "config.json").write_text(json.dumps({**old, "players": [2, 3]}))
    assert TrainingRun.resume(folder, log=lambda _: None).config == config
    trainer = Trainer(folder, config, log=lambda _: None)
    trainer.save()
    state = torch.load(folder / CHECKPOINT, weights_only=True)
    torch.save({**state, "config": {**old, "players": [2, 3]}}, folder / CHECKPOINT)
    resumed = Trainer.resume(folder, log=lambda _: None)
    assert resumed.config == config and resumed.config.num_players == (2, 3)


def test_device_setting_resolves_here_and_cuda_without_a_gpu_is_refused(tmp_path, monkeypatch) -> None:
    """This machine has no GPU: ``auto`` is the CPU, ``cuda`` a clear error before anything is written."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert make_config("smoke").device == "cpu"
    assert resolve_device("cpu") == resolve_device("auto") == torch.device("cpu")
    with pytest.raises(ValueError, match="device: cuda was asked for, but torch sees no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="device: must be one of cpu, cuda, auto; got 'tpu'"):
        make_config("smoke", ["device=tpu"])
    with pytest.raises(ValueError, match="clone config: device must be one of cpu, cuda, auto"):
        CloneConfig(device="gpu")
    out = tmp_path / "run"
    result = CliRunner().invoke(
        training_main, ["train", "--preset", "smoke", "--set", "device=cuda", "--out", str(out)]
    )
    assert result.exit_code == 2, result.output
    assert "device: cuda was asked for, but torch sees no CUDA GPU" in result.output
    assert "Traceback" not in result.output and not (out / "config.json").exists()
    data = tmp_path / "data.npz"
    data.write_bytes(b"not read: the device is refused first")
    args = ["clone", str(data), "--device", "cuda", "--out", str(tmp_path / "bc.pt")]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 2 and "device: cuda was asked for" in result.output, result.output
    assert "Traceback" not in result.output and not (tmp_path / "bc.pt").exists()


def test_auto_device_trains_on_the_cpu_here_and_what_is_saved_is_on_the_cpu(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    config = make_config("smoke", ["init=", "eval_games=0", "device=auto", "engine=reference"])
    trainer = Trainer(tmp_path, config, log=lambda _: None)
    assert trainer.device == torch.device("cpu") and next(trainer.net.parameters()).device.type == "cpu"
    assert json.loads(config_json(config))["device"] == "auto"
    state = trainer.checkpoint_state()
    tensors = [state["policy"]["state_dict"], on_cpu(state["optimizer"])]
    assert all(t.device.type == "cpu" for group in tensors for t in _tensors(group))


def test_the_network_computes_where_its_weights_are() -> None:
    """No tensor of a forward pass is made on the CPU when the weights are elsewhere (the card table's zero row was):
    torch's ``meta`` device stands in for a GPU this machine does not have. What is saved is on the CPU."""
    net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)).to("meta")
    obs = torch.zeros(3, OBSERVATION_SIZE, device="meta")
    mask = torch.ones(3, NUM_ACTIONS, dtype=torch.bool, device="meta")
    for forward in (net.forward, net.forward_folded):
        logits, values = forward(obs)
        assert logits.device.type == values.device.type == "meta" and logits.shape == (3, NUM_ACTIONS)
        assert all(t.device.type == "meta" for t in masked_policy(logits, mask))
    frozen = FrozenPolicy(net)  # folded where the weights are
    assert {p.device.type for p in frozen.parameters()} == {"meta"}
    assert frozen(obs)[0].device.type == "meta"
    cpu_net = PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1))
    assert all(t.device.type == "cpu" for t in policy_payload(cpu_net)["state_dict"].values())


def test_on_cpu_moves_every_tensor_of_nested_state() -> None:
    state = {"a": [torch.ones(2), (torch.zeros(1), 3)], "b": {"c": torch.ones(1, requires_grad=True)}, "d": "x"}
    moved = on_cpu(state)
    assert moved["d"] == "x" and moved["a"][1][1] == 3 and not moved["b"]["c"].requires_grad
    assert all(t.device.type == "cpu" for t in _tensors(moved))


def _tensors(value: object) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def test_init_names_a_shipped_model_by_version(tmp_path) -> None:
    """``init=learned:VERSION`` starts from that shipped model (``learned`` from the newest); an unknown version is
    refused naming the shipped ones, before the run folder exists."""
    from seasons_agents.learned import newest_version, shipped_model_path
    from seasons_agents.network import load_policy
    from seasons_training.config import init_model_file
    from seasons_training.ppo import initial_network

    assert init_model_file("learned:v2") == shipped_model_path("v2") != shipped_model_path()
    assert init_model_file("learned") == shipped_model_path(newest_version())
    assert init_model_file("") is None and init_model_file("warm") is None
    assert init_model_file(str(tmp_path / "m.pt")) == tmp_path / "m.pt"
    with pytest.raises(ValueError, match=r"no shipped model 'v9'; the shipped models are v1, v2"):
        init_model_file("learned:v9")
    config = make_config("expert-smoke", ["init=learned:v2"])
    started, expected = initial_network(config, tmp_path).state_dict(), load_policy(shipped_model_path("v2"))[0]
    assert all(torch.equal(started[k], value) for k, value in expected.state_dict().items())
    args = ["train", "--preset", "expert-smoke", "--init", "learned:v9", "--out", str(tmp_path / "r"), "--no-progress"]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 2 and "no shipped model 'v9'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()
