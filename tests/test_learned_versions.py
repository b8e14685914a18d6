"""Shipped models by version: ``learned:v1`` (the first shipped model) and ``learned`` (the newest) as agent specs."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import seasons_agents.learned as learned
from seasons_agents.learned import SHIPPED_MODELS, learned_model_path, newest_version, shipped_model_path
from seasons_env import Game
from seasons_env.cli import main
from seasons_env.engine import LEVELS
from seasons_env.registry import make_agent, parse_agent_spec

#: Decisions played of each game: past the draft and the library split, into the second or third year.
DECISIONS = 150


def test_v1_is_the_first_shipped_model_and_learned_the_newest() -> None:
    assert next(iter(SHIPPED_MODELS)) == "v1" and SHIPPED_MODELS["v1"] == "learned.pt"
    assert newest_version() == list(SHIPPED_MODELS)[-1]
    assert shipped_model_path("v1").name == "learned.pt" and shipped_model_path("v1").is_file()
    assert shipped_model_path() == shipped_model_path(newest_version())
    assert learned_model_path(None) == shipped_model_path() and learned_model_path("v1") == shipped_model_path("v1")
    assert make_agent("learned:v1", 0).model_path == shipped_model_path("v1")
    assert make_agent("learned", 0).model_path == shipped_model_path()


def test_learned_is_v3_and_v1_and_v2_stay_other_models() -> None:
    from seasons_agents.learned import model_digests

    assert newest_version() == "v3" and SHIPPED_MODELS["v3"] == "learned-v3.pt"
    assert make_agent("learned", 0).model_path == shipped_model_path("v3")
    digests = model_digests(["learned", "learned:v1", "learned:v2", "learned:v3"])
    assert digests["learned"] == digests["learned:v3"]
    assert len({digests["learned:v1"], digests["learned:v2"], digests["learned:v3"]}) == 3


def test_the_search_keeps_its_own_model_when_a_newer_one_ships() -> None:
    """``policy-ismcts`` searches over ``SEARCH_MODEL`` (v2), not the newest: the benchmark's frozen panel names it
    by that file, so shipping v3 changed neither the search nor the panel's protocol."""
    from seasons_agents.bench import benchmark_version
    from seasons_agents.learned import SEARCH_MODEL, model_digests

    assert SEARCH_MODEL == "v2" != newest_version()
    for spec in ("policy-ismcts", "policy-ismcts:3", "policy-gumbel:3"):
        assert make_agent(spec, 0).policy.model_path == shipped_model_path("v2")
    digests = model_digests(["policy-ismcts", "policy-gumbel:8", "learned:v2", "learned"])
    assert digests["policy-ismcts"] == digests["policy-gumbel:8"] == digests["learned:v2"] != digests["learned"]
    assert benchmark_version()[0] == "seasons-bench-1"


@pytest.mark.parametrize("backend", ["torch", "numpy"])
@pytest.mark.parametrize("spec", ["learned", "learned:v1"])
def test_each_version_loads_and_plays_legal_actions_at_every_level_and_player_count(
    spec: str, backend: str, monkeypatch
) -> None:
    monkeypatch.setattr(learned, "default_backend", lambda: backend)  # the spec's agent on that backend
    for level in LEVELS:
        for num_players in (2, 3, 4):
            agents = [make_agent(spec, seed=k) for k in range(num_players)]
            assert all(agent.backend == backend for agent in agents)
            game = Game.new(num_players, level, seed=7 * num_players)
            rng = np.random.default_rng(num_players)
            for _ in range(DECISIONS):
                if game.is_over:
                    break
                seat, legal = game.current_player, game.legal_action_list()
                action = agents[seat].act(game.determinize(seat, rng), seat, list(legal))
                assert action in legal, (spec, level, num_players, action)
                game.apply(action)


def test_an_unknown_version_is_named_with_the_known_ones(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"agents\[0\]: agent 'learned:v9': no shipped model 'v9'; the shipped "):
        parse_agent_spec("learned:v9", "agents[0]")
    with pytest.raises(ValueError, match=r"the shipped models are v1, v2, v3 \('learned' is the newest, v3\)"):
        shipped_model_path("v0")
    args = ["arena", "--agents", "learned:v9,random", "--no-progress", "--out", str(tmp_path / "a")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0 and "no shipped model 'v9'; the shipped models are v1, v2, v3" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "a").exists()
    result = CliRunner().invoke(main, ["play", "--vs", "learned:v8", "--level", "apprentice"], input="1\n")
    assert result.exit_code != 0 and "no shipped model 'v8'" in result.output and "Traceback" not in result.output


def test_arena_and_play_take_the_versioned_name(tmp_path) -> None:
    args = ["arena", "--agents", "learned:v1,learned", "--games", "2", "--workers", "1", "--level", "apprentice"]
    result = CliRunner().invoke(main, [*args, "--no-progress", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "learned:v1" in result.output
    result = CliRunner().invoke(
        main, ["play", "--vs", "learned:v1", "--seed", "5", "--level", "apprentice"], input="1\n" * 400
    )
    assert result.exit_code == 0, result.output
    assert "Final scores: player 0 (you)" in result.output


# ---------------------------------------------------------------------------- layouts

#: The digest of each released observation layout (``observation_layout_digest``), frozen here: a change to a layout
#: (a slice, a feature of a die or an opponent, a decision kind, a card) fails this test. Make the change a new
#: observation version, and add its digest here, instead of changing a released one under its old number.
RELEASED_LAYOUTS = {
    1: "a700f54d6045929ac500fd2fe395a8384fa27d43bb3ccb9262269d00c59e4f5e",
    2: "5c96cc18f3f53dd214787bf97ad7d566ffaad939366a1bab537885a9732ecc8a",
}


def test_each_released_observation_layout_is_frozen() -> None:
    from seasons_agents.policy_format import LEGACY_LAYOUTS
    from seasons_env.encoding import (
        OBSERVATION_SIZES,
        RELEASED_OBSERVATION_LAYOUTS,
        observation_layout_digest,
        observation_layout_table,
    )

    assert sorted(OBSERVATION_SIZES) == sorted(RELEASED_LAYOUTS), "a new observation version: freeze its digest here"
    for version, digest in RELEASED_LAYOUTS.items():
        assert observation_layout_digest(version) == digest, f"observation layout {version} changed"
    assert LEGACY_LAYOUTS == RELEASED_OBSERVATION_LAYOUTS == RELEASED_LAYOUTS  # what older files were made for
    table = observation_layout_table(1)
    assert "slice decision_kind 0 " in table and "slice piles" not in table
    assert "slice piles" in observation_layout_table()


def test_the_shipped_models_record_their_layout_and_still_read_their_weights() -> None:
    torch = pytest.importorskip("torch")
    from seasons_agents.policy_format import CHECKPOINT_VERSION
    from seasons_env.encoding import observation_layout_digest
    from seasons_env.engine.actions import ACTION_TABLE_VERSION

    for version in SHIPPED_MODELS:
        payload = torch.load(shipped_model_path(version), weights_only=True)
        assert payload["version"] == CHECKPOINT_VERSION == 2
        assert payload["observation_layout"] == observation_layout_digest(payload["observation_version"])
        assert payload["action_table_version"] == ACTION_TABLE_VERSION


def _tiny_model(path) -> dict:
    torch = pytest.importorskip("torch")
    from seasons_agents.network import NetworkConfig, PolicyValueNet, policy_payload

    payload = policy_payload(PolicyValueNet(NetworkConfig(card_dim=2, hidden=4, layers=1)))
    torch.save(payload, path)
    return payload


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_a_model_made_for_another_layout_is_refused_naming_both(tmp_path, backend: str) -> None:
    torch = pytest.importorskip("torch")
    from seasons_agents.learned import load_cached
    from seasons_agents.policy_format import CheckpointError

    payload = _tiny_model(tmp_path / "ok.pt")
    assert payload["observation_layout"] == RELEASED_LAYOUTS[payload["observation_version"]]
    load_cached(tmp_path / "ok.pt", backend)
    torch.save({**payload, "observation_layout": "0123456789abcdef" * 4}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError) as refusal:
        load_cached(tmp_path / "other.pt", backend)
    message = str(refusal.value)
    version = payload["observation_version"]
    assert f"other.pt: made for another observation layout: the model's observation version {version} has layout " in (
        message
    )
    assert "'0123456789abcdef'" in message
    assert f"this code's version {version} has layout '{RELEASED_LAYOUTS[version][:16]}'" in message
    without = {k: v for k, v in payload.items() if k != "observation_layout"}
    for number, missing in enumerate((without, {**payload, "observation_layout": 2})):
        torch.save(missing, tmp_path / f"missing{number}.pt")
        with pytest.raises(CheckpointError, match="observation_layout must be the digest of the observation layout"):
            load_cached(tmp_path / f"missing{number}.pt", backend)


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_a_layout_changed_under_the_same_version_refuses_the_models_made_before(tmp_path, monkeypatch, backend) -> None:
    """A decision kind added without a new observation version: models made before (with the digest, or of checkpoint
    version 1 without it) are refused, not read with shifted inputs."""
    torch = pytest.importorskip("torch")
    import seasons_env.encoding as encoding
    from seasons_agents.learned import load_cached
    from seasons_agents.policy_format import CheckpointError

    payload = _tiny_model(tmp_path / "new.pt")
    legacy = {k: v for k, v in payload.items() if k != "observation_layout"}
    torch.save({**legacy, "version": 1}, tmp_path / "legacy.pt")
    load_cached(tmp_path / "legacy.pt", backend)  # a file from before layouts were recorded: today's layouts
    monkeypatch.setattr(encoding, "DECISION_KINDS", [*encoding.DECISION_KINDS, encoding.DECISION_KINDS[0]])
    learned._cached_policy.cache_clear()  # loaded above: load again
    for name in ("new.pt", "legacy.pt"):
        with pytest.raises(CheckpointError, match=rf"{name}: made for another observation layout: .* has layout "):
            load_cached(tmp_path / name, backend)


def test_models_saved_by_training_record_their_layout(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    from dataset_rows import synthetic_rows

    from seasons_agents.network import NetworkConfig
    from seasons_env.encoding import OBSERVATION_VERSION, observation_layout_digest
    from seasons_training.clone import CloneConfig, clone

    np.savez(tmp_path / "d.npz", **synthetic_rows(16, rows_per_game=4))
    config = CloneConfig(epochs=1, batch_size=8, threads=1, network=NetworkConfig(card_dim=2, hidden=4, layers=1))
    clone([tmp_path / "d.npz"], tmp_path / "m.pt", config, log=lambda _: None)
    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    assert payload["observation_version"] == OBSERVATION_VERSION and payload["version"] == 2
    assert payload["observation_layout"] == observation_layout_digest()


def test_an_exported_rllib_network_records_its_layout_and_another_layout_is_refused(tmp_path) -> None:
    pytest.importorskip("torch")
    import json

    from seasons_env.encoding import OBSERVATION_SIZE, OBSERVATION_VERSION, observation_layout_digest
    from seasons_env.masked_mlp import MaskedActorCritic, export_network, load_network, network_versions

    current = RELEASED_LAYOUTS[OBSERVATION_VERSION]
    assert network_versions()["observation_layout"] == observation_layout_digest() == current
    folder = export_network(MaskedActorCritic(OBSERVATION_SIZE, 314, hidden=(8,)), tmp_path / "policy")
    description = json.loads((folder / "network.json").read_text())
    assert description["versions"]["observation_layout"] == observation_layout_digest()
    load_network(folder)
    legacy = {k: v for k, v in description["versions"].items() if k != "observation_layout"}
    (folder / "network.json").write_text(json.dumps({**description, "versions": legacy}))
    load_network(folder)  # exported before networks recorded their layout: version 2's released layout
    other = {**description["versions"], "observation_layout": "0123456789abcdef" * 4}
    (folder / "network.json").write_text(json.dumps({**description, "versions": other}))
    refused = rf"trained on versions .*'0123456789ab\.\.\..*this code has .*'{current[:12]}"
    with pytest.raises(ValueError, match=refused):
        load_network(folder)
