"""RLlib on a two-node Ray cluster on this machine (issue 14): the docs/distributed.md recipe, tested.

The head and a worker node with the custom resource ``seasons_worker`` are started with ``ray start --block``
(each node's processes stop when its ``ray start`` gets SIGTERM, so only the processes started here are
stopped), with token authentication and a fresh token of the test's own. A driver process (this file run as a
script, as a user's training script would be) connects with ``ray.init(address=...)``, places the env runner on
the worker node through that resource, trains one iteration, saves a checkpoint and restores it.
Select with ``pytest -m rllib``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra (pip install seasons-env[rllib]) is not installed")

pytestmark = pytest.mark.rllib

OBJECT_STORE_BYTES = 80 * 1024 * 1024
WORKER_RESOURCE = "seasons_worker"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not within {seconds} s")
        time.sleep(0.5)


def accepts_connections(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def processes_of(temp_dir: str) -> list[int]:
    """Pids of the processes whose command line names ``temp_dir`` (every process of the nodes started here)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if temp_dir.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # the process ended meanwhile
            continue
    return found


@pytest.fixture
def two_node_cluster(tmp_path):
    """The two nodes (yields the address and the environment a driver needs); stopped by pid, never by name."""
    token = tmp_path / "auth_token"
    token.write_text(secrets.token_hex(32))
    environment = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    # A loaded 2-core CI machine can starve a node's processes for seconds: give the health checks room before
    # the cluster declares a node dead (Ray's defaults: 5 failures of 10 s checks every 3 s).
    environment.update(RAY_health_check_failure_threshold="20", RAY_health_check_timeout_ms="30000")
    ray_cli = [sys.executable, "-m", "ray.scripts.scripts"]
    port = free_port()
    # A temp dir of its own: Ray's record of "the current cluster" stays out of /tmp/ray (a later bare ray.init()
    # must not look for this cluster), and it is short, as Ray's socket paths must be.
    temp_dir = tempfile.mkdtemp(prefix="ray")
    small = ["--block", "--disable-usage-stats", "--num-cpus=1", f"--object-store-memory={OBJECT_STORE_BYTES}"]
    small.append(f"--temp-dir={temp_dir}")
    nodes: list[subprocess.Popen] = []
    logs = [open(tmp_path / name, "w") for name in ("head.log", "worker.log")]  # noqa: SIM115 (closed below)

    def start(command: list[str], log) -> None:
        nodes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment))

    try:
        head = [*ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false"]
        start([*head, f"--ray-client-server-port={free_port()}", *small], logs[0])
        wait_for(lambda: accepts_connections(port), 60, "the head node")
        worker = [*ray_cli, "start", f"--address=127.0.0.1:{port}", f'--resources={{"{WORKER_RESOURCE}": 1}}']
        start([*worker, *small], logs[1])
        yield f"127.0.0.1:{port}", environment, temp_dir, tmp_path
    finally:
        for node in reversed(nodes):
            node.send_signal(signal.SIGTERM)  # ray start --block stops its node's processes on SIGTERM
        for node in reversed(nodes):
            try:
                node.wait(timeout=60)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait()
        for log in logs:
            log.close()
        # the nodes' own children (raylet, GCS, agents) exit shortly after; any still running is ended by pid
        try:
            wait_for(lambda: not processes_of(temp_dir), 30, "the nodes' processes to exit")
        except TimeoutError:
            for pid in processes_of(temp_dir):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp_dir, ignore_errors=True)


def drive(address: str, folder: Path) -> dict:
    """The driver: one iteration with the env runner on the worker node, then a checkpoint saved and restored."""
    import ray
    import torch
    from ray.rllib.algorithms.algorithm import Algorithm

    from seasons_env.rllib import SHARED_MODULE, default_ppo_config

    ray.init(address=address, log_to_driver=False)
    try:
        wait_for(lambda: ray.cluster_resources().get(WORKER_RESOURCE, 0) >= 1, 60, "the worker node")
        alive = [node for node in ray.nodes() if node["Alive"]]
        worker_nodes = [node["NodeID"] for node in alive if node["Resources"].get(WORKER_RESOURCE)]
        config = default_ppo_config(
            num_env_runners=1,
            custom_resources_per_env_runner={WORKER_RESOURCE: 1},
            num_envs_per_env_runner=16,
            rollout_fragment_length=16,
            minibatch_size=128,
            num_epochs=1,
            evaluation_interval=None,
        )
        algorithm = config.build_algo()
        try:
            placed = algorithm.env_runner_group.foreach_env_runner(
                lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
            )
            steps = algorithm.train()["env_runners"]["num_env_steps_sampled"]
            checkpoint = algorithm.save_to_path(folder / "checkpoint")
            weights = algorithm.get_module(SHARED_MODULE).network.state_dict()
        finally:
            algorithm.stop()
        restored = Algorithm.from_checkpoint(checkpoint)
        try:
            restored_weights = restored.get_module(SHARED_MODULE).network.state_dict()
            same_weights = all(torch.equal(value, weights[key]) for key, value in restored_weights.items())
            restored_placed = restored.env_runner_group.foreach_env_runner(
                lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
            )
            next_iteration = restored.train()["training_iteration"]
        finally:
            restored.stop()
    finally:
        ray.shutdown()
    return {
        "nodes": len(alive),
        "worker_nodes": worker_nodes,
        "placed": placed,
        "restored_placed": restored_placed,
        "steps": int(steps),
        "same_weights": same_weights,
        "next_iteration": int(next_iteration),
    }


def cluster_logs(temp_dir: str, node_logs: Path, lines: int = 40) -> str:
    """The last lines of the nodes' and the driver's logs: what a failed driver left behind (the driver may exit
    from inside Ray's core, printing no traceback)."""
    paths = [node_logs / "head.log", node_logs / "worker.log"]
    for pattern in ("raylet*.out", "raylet*.err", "gcs_server*.out", "gcs_server*.err", "python-core-driver-*.log"):
        paths.extend(sorted(Path(temp_dir).glob(f"session_*/logs/{pattern}")))
    parts = []
    for path in paths:
        try:
            tail = path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            continue
        parts.append(f"--- {path.name} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(parts)


def test_two_node_cluster_trains_on_the_worker_node_and_restores_a_checkpoint(two_node_cluster, tmp_path):
    address, environment, temp_dir, node_logs = two_node_cluster
    driver = subprocess.run(
        [sys.executable, __file__, address, str(tmp_path)],
        env=environment,
        timeout=240,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if driver.returncode != 0:
        pytest.fail(
            f"the driver exited with status {driver.returncode}; its output:\n{driver.stdout[-4000:]}\n"
            f"{cluster_logs(temp_dir, node_logs)}"
        )
    outcome = json.loads((tmp_path / "outcome.json").read_text())
    assert outcome["nodes"] == 2 and len(outcome["worker_nodes"]) == 1
    assert outcome["placed"] == outcome["worker_nodes"] == outcome["restored_placed"]
    assert outcome["steps"] == 16 * 16
    assert outcome["same_weights"]
    assert outcome["next_iteration"] == 2  # the restored algorithm continues from the saved iteration


if __name__ == "__main__":
    folder = Path(sys.argv[2])
    (folder / "outcome.json").write_text(json.dumps(drive(sys.argv[1], folder)))
