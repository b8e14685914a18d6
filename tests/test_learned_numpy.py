"""The learned agent without torch: policy files read by the restricted reader, the network's forward in numpy
(agents/policy_numpy.py), the same actions as on torch, and the arena's default lineup where torch is missing."""

from __future__ import annotations

import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from installed import installed_environment, run_installed

from seasons_agents import HeuristicAgent, PolicyAgent, play_game
from seasons_agents.learned import shipped_model_path
from seasons_agents.policy_format import CheckpointError
from seasons_agents.policy_numpy import load_numpy_policy, read_policy_file
from seasons_env import Game
from seasons_env.encoding import OBSERVATION_SIZE, encode_observation


def _positions(count_per_game: int) -> tuple[np.ndarray, list[list[int]]]:
    """Observations and legal actions of positions of random games at every level and player count."""
    rng = np.random.default_rng(5)
    observations, legal_lists = [], []
    for k, level in enumerate(("apprentice", "magician", "archmage")):
        for players in (2, 3, 4):
            game = Game.new(players, level, seed=100 + 10 * k + players)
            taken = 0
            while not game.is_over and taken < count_per_game:
                legal = game.legal_action_list()
                observations.append(encode_observation(game, game.current_player))
                legal_lists.append(legal)
                taken += 1
                game.apply(int(rng.choice(legal)))
    return np.stack(observations).astype(np.float32), legal_lists


def test_the_numpy_network_gives_the_torch_network_s_actions_logits_and_values() -> None:
    torch = pytest.importorskip("torch")
    from seasons_agents.network import load_policy

    torch.set_num_threads(1)
    obs, legal_lists = _positions(300)
    net, info = load_policy(shipped_model_path())
    with torch.inference_mode():
        logits, values = (t.numpy() for t in net(torch.from_numpy(obs)))
    numpy_policy, numpy_info = load_numpy_policy(shipped_model_path())
    numpy_logits, numpy_values = numpy_policy(obs)
    assert numpy_info == info
    np.testing.assert_allclose(numpy_logits, logits, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(numpy_values, values, rtol=1e-5, atol=1e-5)
    chosen = [legal[int(np.argmax(logits[k][legal]))] for k, legal in enumerate(legal_lists)]
    numpy_chosen = [legal[int(np.argmax(numpy_logits[k][legal]))] for k, legal in enumerate(legal_lists)]
    assert len(chosen) > 2000 and sum(len(legal) > 1 for legal in legal_lists) > 1000
    assert numpy_chosen == chosen


@pytest.mark.parametrize("observation_version", [1, 2])
def test_every_term_of_a_random_network_is_computed_as_torch_does(tmp_path: Path, observation_version: int) -> None:
    """Every weight random (card embeddings in every zone, each pointer group, several trunk layers), both
    observation layouts, and a training checkpoint's policy read from inside it."""
    torch = pytest.importorskip("torch")
    from seasons_agents.network import NetworkConfig, PolicyValueNet, policy_payload

    torch.manual_seed(4)
    net = PolicyValueNet(NetworkConfig(card_dim=5, hidden=24, layers=3), observation_version)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0.0, 0.5)
    net.eval()
    torch.save({"policy": policy_payload(net, {"steps": 7}), "steps": 7}, tmp_path / "checkpoint.pt")
    obs, _ = _positions(40)
    with torch.inference_mode():
        logits, values = (t.numpy() for t in net(torch.from_numpy(obs)))
    numpy_policy, info = load_numpy_policy(tmp_path / "checkpoint.pt")
    numpy_logits, numpy_values = numpy_policy(obs)
    assert info == {"steps": 7} and np.abs(logits).max() > 1.0
    np.testing.assert_allclose(numpy_logits, logits, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(numpy_values, values, rtol=1e-5, atol=1e-5)


def test_the_restricted_reader_gives_torch_s_weights_exactly() -> None:
    torch = pytest.importorskip("torch")
    payload = torch.load(shipped_model_path(), map_location="cpu", weights_only=True)
    read = read_policy_file(shipped_model_path())
    assert {k: v for k, v in read.items() if k != "state_dict"} == {
        k: v for k, v in payload.items() if k != "state_dict"
    }
    assert list(read["state_dict"]) == list(payload["state_dict"])
    for name, tensor in payload["state_dict"].items():
        assert read["state_dict"][name].dtype == np.float32
        np.testing.assert_array_equal(read["state_dict"][name], tensor.numpy(), err_msg=name)


def test_the_agent_plays_the_same_games_on_either_backend() -> None:
    pytest.importorskip("torch")
    for seed, players in ((1, 2), (2, 3)):
        games = []
        for backend in ("torch", "numpy"):
            seats = [PolicyAgent(seed=0, backend=backend)] + [HeuristicAgent(seed=k) for k in range(1, players)]
            games.append(play_game(seats, level="archmage", seed=seed, agent_seed=seed))
        assert games[0].actions == games[1].actions and games[0].scores == games[1].scores


def _torch_archive(tmp_path: Path, data: bytes, storages: dict[str, bytes] | None = None) -> Path:
    """A file laid out as torch.save lays it out, holding the pickle ``data``."""
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", data)
        archive.writestr("model/byteorder", "little")
        for key, raw in (storages or {}).items():
            archive.writestr(f"model/data/{key}", raw)
    return path


class _Boom:
    def __reduce__(self):
        return (exec, ("raise SystemExit('code ran')",))


def _text(value: str) -> bytes:
    raw = value.encode()
    return b"X" + len(raw).to_bytes(4, "little") + raw


def _small_tuple(values: tuple[int, ...]) -> bytes:
    return b"(" + b"".join(b"K" + bytes([v]) for v in values) + b"t"


def _tensor_pickle(count: int, shape: tuple[int, ...], stride: tuple[int, ...], offset: int = 0) -> bytes:
    """The pickle of ``{"t": tensor}`` as torch writes it, opcode by opcode (protocol 2): a call of its rebuild
    function over a persistent reference to storage "0" of ``count`` floats."""
    storage = b"(" + _text("storage") + b"ctorch\nFloatStorage\n" + _text("0") + _text("cpu")
    storage += b"K" + bytes([count]) + b"tQ"
    hooks = b"ccollections\nOrderedDict\n)R"
    arguments = b"(" + storage + b"K" + bytes([offset]) + _small_tuple(shape) + _small_tuple(stride)
    arguments += b"\x89" + hooks + b"t"
    return b"\x80\x02}" + _text("t") + b"ctorch._utils\n_rebuild_tensor_v2\n" + arguments + b"Rs."


def test_files_that_are_not_plain_weights_are_refused_and_nothing_in_them_runs(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no such model file"):
        load_numpy_policy(tmp_path / "missing.pt")
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(CheckpointError, match=r"text\.pt: cannot be read as a policy checkpoint"):
        load_numpy_policy(tmp_path / "text.pt")
    evil = _torch_archive(tmp_path, pickle.dumps({"format": "seasons-policy", "x": _Boom()}, protocol=2))
    with pytest.raises(CheckpointError, match=r"builtin__?\.exec is not something a policy file holds"):
        load_numpy_policy(evil)
    good = _tensor_pickle(6, (2, 3), (3, 1))
    values = np.arange(6, dtype="<f4")
    assert read_policy_file(_torch_archive(tmp_path, good, {"0": values.tobytes()}))["t"].tolist() == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert read_policy_file(_torch_archive(tmp_path, _tensor_pickle(6, (3, 2), (1, 3)), {"0": values.tobytes()}))[
        "t"
    ].tolist() == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(CheckpointError, match="holds 20 bytes, not 6 values"):
        read_policy_file(_torch_archive(tmp_path, good, {"0": values[:5].tobytes()}))
    with pytest.raises(CheckpointError, match="storage '0' is missing"):
        read_policy_file(_torch_archive(tmp_path, good))
    with pytest.raises(CheckpointError, match="reaches past the end of its storage"):
        read_policy_file(_torch_archive(tmp_path, _tensor_pickle(6, (2, 3), (3, 1), 1), {"0": values.tobytes()}))
    with pytest.raises(CheckpointError, match="not a policy checkpoint"):
        load_numpy_policy(_torch_archive(tmp_path, good, {"0": values.tobytes()}))


def test_an_archive_with_a_compressed_member_is_refused_unread(tmp_path: Path) -> None:
    """torch.save stores members as they are: a compressed one could unpack to far more than the file holds."""
    path = tmp_path / "big.pt"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model/data.pkl", _tensor_pickle(6, (6,), (1,)))
        archive.writestr("model/data/0", bytes(24) * 1000)  # compresses to almost nothing
    assert path.stat().st_size < 1000
    with pytest.raises(CheckpointError, match=r"member 'model/data\.pkl' is compressed"):
        read_policy_file(path)


def test_a_policy_file_with_the_wrong_weights_is_named_with_its_fault(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from seasons_agents.network import NetworkConfig, PolicyValueNet, policy_payload

    payload = policy_payload(PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)))
    torch.save({**payload, "config": {"card_dim": 4, "hidden": 0, "layers": 1}}, tmp_path / "shape.pt")
    with pytest.raises(CheckpointError, match=r"hidden must be an integer in 1\.\.16384"):
        load_numpy_policy(tmp_path / "shape.pt")
    torch.save({**payload, "config": {"card_dim": 4, "hidden": 16, "layers": 2}}, tmp_path / "layers.pt")
    with pytest.raises(CheckpointError, match=r"layers\.pt: weights do not fit the network: missing \['trunk\.3"):
        load_numpy_policy(tmp_path / "layers.pt")
    torch.save({**payload, "observation_version": 0}, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="observation_version 0"):
        load_numpy_policy(tmp_path / "old.pt")


def test_without_torch_the_learned_agent_plays_on_numpy(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    agent = PolicyAgent(seed=0, model=shipped_model_path())
    assert agent.backend == "numpy"
    game = Game.new(2, "archmage", seed=3)
    obs = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)
    encode_observation(game, game.current_player, obs[0])
    assert agent.act(game, game.current_player, game.legal_action_list()) in game.legal_action_list()


def _without_torch(tmp_path: Path) -> dict[str, str]:
    """The environment of a process (and of the worker processes it starts) in which ``import torch`` fails."""
    shim = tmp_path / "no-torch"
    shim.mkdir()
    (shim / "torch.py").write_text("raise ImportError('torch is not installed in this test')\n")
    return {"PYTHONPATH": str(shim), "NUMBA_NUM_THREADS": "1"}


def test_the_arena_s_default_lineup_runs_without_torch(tmp_path: Path) -> None:
    """`seasons arena` seats the learned agent, the heuristic and random by default, with torch unimportable (in
    the worker processes too)."""
    env = _without_torch(tmp_path)
    check = "import sys, seasons_agents as a; print(a.PolicyAgent().backend, 'torch' in sys.modules and 'torch')"
    probe = subprocess.run(
        [sys.executable, "-c", check], env=installed_environment(env), cwd=tmp_path, capture_output=True, timeout=120
    )
    assert probe.returncode == 0 and probe.stdout.split() == [b"numpy", b"False"], probe.stderr
    args = ["arena", "--games", "6", "--workers", "2", "--no-progress", "--out", str(tmp_path / "arena")]
    result = run_installed(args, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0] for line in result.stdout.splitlines() if line.split()}
    assert {"learned", "heuristic", "random"} <= rows and "6 games, 2 players" in result.stdout


@pytest.mark.parametrize("hide_torch", [True, False])
def test_a_model_with_nan_weights_is_refused_before_any_game_in_one_line(tmp_path: Path, hide_torch: bool) -> None:
    """``seasons arena`` checks the model in its own process, on the backend it will play (numpy where torch is
    missing), and refuses it as a bad option: one line, status 2, no folder, no worker started."""
    pytest.importorskip("torch")
    from hostile_models import write_hostile_model
    from installed import run_installed

    model = write_hostile_model("nan", tmp_path / "nan.pt")
    env = {"PYTHONPATH": str(tmp_path / "no-torch")} if hide_torch else {}
    if hide_torch:
        (tmp_path / "no-torch").mkdir()
        (tmp_path / "no-torch" / "torch.py").write_text("raise ImportError('torch is not installed in this test')\n")
    out = tmp_path / "arena"
    args = ["arena", "--agents", f"learned:{model},random", "--games", "2", "--no-progress", "--out", str(out)]
    result = run_installed(args, env={"NUMBA_NUM_THREADS": "1", **env}, timeout=300)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert errors == [
        f"Error: Invalid value for '--agents': agents[0]: agent 'learned:{model}': {model}: state_dict: value.bias "
        "holds NaN or infinite values"
    ], result.stderr
    assert "Traceback" not in result.stderr + result.stdout and not out.exists()
