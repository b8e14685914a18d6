"""Expert iteration (``seasons_training.expert``): the search's targets, the smoke preset trained, stopped by SIGTERM,
resumed to the same weights and evaluated, and bad settings and files refused by name."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace

import numpy as np
import pytest
import torch
from click.testing import CliRunner
from expert_rounds import one_round, retrained, written_without

from seasons_agents.ismcts import Node
from seasons_agents.network import NetworkConfig, PolicyValueNet, load_policy, save_policy
from seasons_env.engine.actions import NUM_ACTIONS
from seasons_training import expert
from seasons_training.cli import main as training_main
from seasons_training.config import make_config
from seasons_training.errors import BadFileError
from seasons_training.expert import SearchJob, search_game
from seasons_training.expert_rows import LATER_FIELDS
from seasons_training.expert_targets import completed_q_target, search_margin, tempered, value_target, visit_target
from seasons_training.pipeline import TrainingRun

torch.set_num_threads(1)


def _weights(path) -> dict:
    return load_policy(path)[0].state_dict()


@pytest.mark.parametrize(("players", "engine"), [(2, "kernels"), (3, "kernels"), (2, "reference")])
def test_search_targets_are_distributions_over_the_legal_actions_only(tmp_path, players: int, engine: str) -> None:
    torch.manual_seed(0)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    job = SearchJob(str(model), players, "apprentice", 5, 0, 6, exploration=1.5, sample_moves=3, engine=engine)
    rows = search_game(job)
    assert len(rows["seat"]) > 50 and rows["target"].shape == (len(rows["seat"]), NUM_ACTIONS)
    assert np.allclose(rows["target"].sum(axis=1), 1.0, atol=1e-5)
    assert (rows["target"][~rows["mask"]] == 0).all() and (rows["target"] >= 0).all()
    assert (rows["mask"].sum(axis=1) > 1).all()  # only decisions with a choice are searched
    # the visits of the search's iterations: multiples of 1/6 on the decisions searched at full budget
    assert np.allclose(np.round(rows["target"] * 6), rows["target"] * 6, atol=1e-4)
    assert set(rows["win"].tolist()) <= {0.0, np.float32(1 / players), 0.5, 1.0} and rows["win"].max() > 0
    # the search's value of each root, a margin within the clipped logistic's reach of the network's (|x| <= 200)
    assert np.isfinite(rows["search_margin"]).all() and np.abs(rows["search_margin"]).max() < 200
    assert len(np.unique(rows["search_margin"])) > 10
    again = search_game(job)
    assert all(np.array_equal(rows[k], again[k]) for k in rows)  # seeded: the same game and targets


def test_a_visit_target_ignores_children_of_actions_not_legal_at_the_root() -> None:
    root = Node()
    for action, visits in ((3, 2), (7, 6), (9, 4)):
        root.children[1 * NUM_ACTIONS + action] = child = Node()
        child.visits = visits
    root.children[0 * NUM_ACTIONS + 5] = Node()  # another seat's node: never counted for seat 1
    root.children[5].visits = 100
    target = visit_target(root, 1, [3, 7, 11])
    assert target[3] == pytest.approx(0.25) and target[7] == pytest.approx(0.75) and target.sum() == pytest.approx(1)
    assert target[9] == 0 and target[11] == 0 and target[5] == 0
    assert visit_target(Node(), 0, [1, 2])[[1, 2]].tolist() == [0.5, 0.5]  # nothing visited: uniform


def test_the_search_margin_turns_the_roots_mean_reward_back_into_a_margin() -> None:
    visits, rewards = np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS)
    visits[[2, 4, 9]], rewards[[2, 4, 9]] = (3, 1, 50), (1.5, 0.5, 40.0)  # action 9 is not legal: not counted
    assert search_margin(visits, rewards, [2, 4], baseline=12.0, scale=8.0) == pytest.approx(12.0)  # mean 0.5
    rewards[[2, 4]] = (3.0 * 0.75, 0.75)  # mean 0.75: logit 3 / 1 = ln 3
    assert search_margin(visits, rewards, [2, 4], baseline=-5.0, scale=8.0) == pytest.approx(-5.0 + 8.0 * np.log(3))
    rewards[[2, 4]] = (3.0, 1.0)  # every iteration won: clipped at 0.999
    assert search_margin(visits, rewards, [2, 4], baseline=0.0, scale=8.0) == pytest.approx(8.0 * np.log(999))
    assert search_margin(visits, rewards, [1, 3], baseline=7.0, scale=8.0) == 7.0  # nothing visited: the network's


def test_the_completed_q_target_shifts_the_prior_by_the_root_values() -> None:
    logits = np.zeros(NUM_ACTIONS, dtype=np.float32)
    visits, rewards = np.zeros(NUM_ACTIONS, dtype=np.int64), np.zeros(NUM_ACTIONS)
    logits[[1, 2, 3]] = (0.0, 0.0, np.log(2.0))
    logits[7] = 50.0  # not legal: never in the target
    # nothing visited: the prior itself
    assert np.allclose(completed_q_target(logits, visits, rewards, [1, 2, 3])[[1, 2, 3]], [0.25, 0.25, 0.5])
    # visits as the prior has them (no signal in the counts), but action 1's children scored more than action 2's:
    # completed Qs 0.6 and 0.4 rescale to 1 and 0, sigma = (50 + 10) * 0.1 * q, so the logits gain 6 and 0
    visits[[1, 2]], rewards[[1, 2]] = (10, 10), (6.0, 4.0)
    target = completed_q_target(logits, visits, rewards, [1, 2])
    assert target[1] == pytest.approx(np.exp(6) / (np.exp(6) + 1), rel=1e-5) and target.sum() == pytest.approx(1)
    assert target.dtype == np.float32 and target[7] == 0 and target[3] == 0
    # an unvisited action takes the mixed value: (0.5 + 20 * mean of visited Qs by prior) / 21 = 0.5 here
    target = completed_q_target(logits, visits, rewards, [1, 2, 3])
    shifted = np.array([0.0 + 6.0, 0.0, np.log(2.0) + 6.0 * (0.5 - 0.4) / 0.2])
    assert np.allclose(target[[1, 2, 3]], np.exp(shifted) / np.exp(shifted).sum(), rtol=1e-5)


@pytest.mark.parametrize("engine", ["kernels", "reference"])
def test_completed_q_targets_train_on_the_same_games_as_visit_targets(tmp_path, engine: str) -> None:
    """The policy target changes what a row trains on, not the game: the search's choice is played either way."""
    torch.manual_seed(0)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    job = SearchJob(str(model), 2, "apprentice", 5, 0, 6, exploration=1.5, sample_moves=3, engine=engine)
    rows = search_game(job)
    improved = search_game(replace(job, policy_target="completed-q"))
    for name in rows:
        if name != "target":
            assert np.array_equal(rows[name], improved[name]), name
    assert (
        np.allclose(improved["target"].sum(axis=1), 1.0, atol=1e-5) and (improved["target"][~rows["mask"]] == 0).all()
    )
    assert not np.allclose(improved["target"], rows["target"])  # not the visit counts: no multiples of 1/6
    assert not np.allclose(np.round(improved["target"] * 6), improved["target"] * 6, atol=1e-4)


def test_the_value_target_mixes_the_final_margin_with_the_search_value_in_the_share_asked() -> None:
    margin, searched = np.array([40.0, -20.0, 0.0]), np.array([0.0, 20.0, np.nan])
    final = np.tanh(margin / 40)
    alone = value_target(margin, searched, 0.0)  # the NaN is not read
    assert alone.dtype == np.float32 and np.isfinite(alone).all() and np.allclose(alone, final)
    mixed = value_target(margin[:2], searched[:2], 0.25)
    assert mixed.dtype == np.float32 and np.allclose(mixed, 0.75 * final[:2] + 0.25 * np.tanh(searched[:2] / 40))
    assert np.allclose(value_target(margin[:2], searched[:2], 1.0), np.tanh(searched[:2] / 40))


def test_tempered_targets_sharpen_or_flatten_each_row_and_keep_zeros() -> None:
    target = np.array([[0.5, 0.25, 0.25, 0.0], [0.6, 0.4, 0.0, 0.0]], dtype=np.float32)
    assert tempered(target, 1.0) is target
    sharp = tempered(target, 0.5)  # squared, renormalised
    assert sharp.dtype == np.float32 and np.allclose(sharp[0], [2 / 3, 1 / 6, 1 / 6, 0]) and sharp[0, 3] == 0
    assert np.allclose(tempered(target, 2.0)[1], np.sqrt([0.6, 0.4, 0, 0]) / np.sqrt([0.6, 0.4]).sum())
    coldest = tempered(target, 0.001)  # no underflow to 0/0: the most visited action takes it all
    assert np.isfinite(coldest).all() and np.allclose(coldest.sum(axis=1), 1.0) and np.allclose(coldest[:, 0], 1.0)


def test_a_round_trains_on_the_tempered_targets_of_the_same_games(tmp_path) -> None:
    """``expert_target_temperature`` changes what the network is trained towards, not the games: the same round's
    rows, with sharper targets below 1 (the entropy the round reports) and the same at 1."""
    runs = retrained(tmp_path, {f"at-{t}": {"expert_target_temperature": t} for t in (1.0, 0.5)})
    entropies = {name: run.training["target_entropy"] for name, run in runs.items()}
    assert 0 < entropies["at-0.5"] < entropies["at-1.0"] - 0.05, entropies
    with pytest.raises(ValueError, match="expert_target_temperature: must be positive"):
        make_config("expert-smoke", ["expert_target_temperature=0"])


@pytest.mark.parametrize("field", list(LATER_FIELDS))
def test_a_round_whose_setting_needs_a_later_field_refuses_games_written_without_it(tmp_path, field: str) -> None:
    """Games written before a row field existed load with NaN there; a round whose setting trains on that field
    refuses them, naming the run's record, the setting and what the games lack; with the setting at 0 it trains."""
    setting, what, _ = LATER_FIELDS[field]
    folder = tmp_path / "run"
    config = one_round(folder)
    for name in sorted((folder / "expert").rglob("games-*.npz")):
        assert np.isfinite(expert.load_rows(name)[field]).all()
    written_without(folder, field)
    for name in sorted((folder / "expert").rglob("games-*.npz")):
        assert np.isnan(expert.load_rows(name)[field]).all()
    needing = expert.ExpertIteration(folder, replace(config, **{setting: 0.5}), log=lambda _: None)
    refusal = rf"expert\.json: {setting} is 0\.5, but games of rounds 1-1 were written without {what}"
    with pytest.raises(BadFileError, match=refusal):
        needing._train(1)
    expert.ExpertIteration(folder, config, log=lambda _: None)._train(1)


def test_expert_smoke_preset_trains_is_stopped_resumes_to_the_same_weights_and_evaluates(tmp_path, monkeypatch) -> None:
    """Games in chunks of one: SIGTERM after round 2's first chunk; the resumed run plays the rest and ends with the
    weights of a run never stopped (with two workers, not one), its history the same rounds."""
    monkeypatch.setattr(expert, "CHUNK_GAMES", 1)
    config = make_config("expert-smoke")
    quiet = lambda _: None  # noqa: E731
    # the unbroken run has two worker processes: the rows do not depend on them
    whole = TrainingRun.start(tmp_path / "whole", replace(config, workers=2), log=quiet).run(progress=False)
    assert not whole["stopped"] and [row["round"] for row in whole["history"]] == [0, 1, 2]

    chunks, save = [], expert.save_rows

    def save_and_stop(rows: dict, path) -> None:  # SIGTERM as round 2's first chunk is written
        save(rows, path)
        chunks.append(path.relative_to(tmp_path / "stopped").as_posix())
        if len(chunks) == 3:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(expert, "save_rows", save_and_stop)
    stopped = TrainingRun.start(tmp_path / "stopped", config, log=quiet).run(progress=False)
    assert stopped["stopped"] and stopped["stopped_in"] == "expert"
    assert chunks == [f"expert/round-000{r}/games-000{k}.npz" for r, k in ((1, 0), (1, 1), (2, 0))]
    state = json.loads((tmp_path / "stopped" / "expert.json").read_text())
    assert (state["round"], state["phase"]) == (2, "generate") and chunks[2] in state["files"]
    resumed = TrainingRun.resume(tmp_path / "stopped", log=quiet).run(progress=False)
    assert not resumed["stopped"] and chunks[3:] == ["expert/round-0002/games-0001.npz"]  # only what was left

    for a, b in ((tmp_path / "whole", tmp_path / "stopped"),):
        weights_a, weights_b = _weights(a / "policy.pt"), _weights(b / "policy.pt")
        assert all(torch.equal(weights_a[k], weights_b[k]) for k in weights_a)
        assert not all(torch.equal(weights_a[k], _weights(a / "expert/model-0000.pt")[k]) for k in weights_a)
        rows_a = [json.loads(line) for line in (a / "history.jsonl").read_text().splitlines()]
        rows_b = [json.loads(line) for line in (b / "history.jsonl").read_text().splitlines()]
        for row_a, row_b in zip(rows_a, rows_b, strict=True):
            assert row_a["round"] == row_b["round"] and row_a["steps"] == row_b["steps"]
            assert row_a["heuristic"] == row_b["heuristic"] and row_a["random"]["games"] == 4
            assert row_a["train"] == {} or row_a["train"]["policy_loss"] == row_b["train"]["policy_loss"]
        assert (b / "curve.png").is_file() and json.loads((b / "stages.json").read_text())["stages"]["expert"]
    assert not (tmp_path / "stopped" / "expert" / "round-0001").exists()  # outside the window of 2: deleted


def test_bad_expert_settings_are_named_and_nothing_is_written(tmp_path) -> None:
    for text, message in [
        ("expert_games=0", "expert_games: must be at least 1"),
        ("expert_rounds=-1", "expert_rounds: must be at least 1"),
        ("search_iterations=0", "search_iterations: must be at least 1"),
        ("search_exploration=0", "search_exploration: must be positive"),
        ("search_sample_moves=-2", "search_sample_moves: must be at least 0"),
        ("expert_lr=nan", "expert_lr: must be a finite number"),
        ("expert_batch=1", "expert_batch: must be at least 2"),
        ("algorithm=a2c", "algorithm: must be one of ppo, expert"),
        ("init=warm", "init: expert iteration starts from a model"),
        ("expert_search=gpu", "expert_search: must be one of kernels, reference"),
        ("expert_value_mix=1.5", "expert_value_mix: must be from 0 to 1"),
        ("expert_policy_target=soft", "expert_policy_target: must be one of visits, completed-q"),
        ("expert_value_mix=-0.1", "expert_value_mix: must be from 0 to 1"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_config("expert-smoke", [text])
    args = ["train", "--preset", "expert", "--set", "expert_window=0", "--out", str(tmp_path / "a")]
    result = CliRunner().invoke(training_main, args)
    assert result.exit_code == 2 and "expert_window: must be at least 1" in result.output
    assert not (tmp_path / "a").exists()


def test_a_resume_refuses_a_damaged_record_or_an_altered_file_naming_it(tmp_path) -> None:
    config = make_config("expert-smoke", ["expert_rounds=1"])
    TrainingRun.start(tmp_path / "run", config, log=lambda _: None).run(progress=False)
    record = tmp_path / "run" / "expert.json"
    state = json.loads(record.read_text())
    model = tmp_path / "run" / "expert" / "model-0001.pt"
    model.write_bytes(model.read_bytes() + b"x")
    with pytest.raises(BadFileError, match=r"model-0001\.pt: changed since the run wrote it"):
        TrainingRun.resume(tmp_path / "run", log=lambda _: None).run(progress=False)
    record.write_text(json.dumps({**state, "files": {"../../etc/passwd": "0" * 64}}))
    with pytest.raises(BadFileError, match="is not a file of this stage"):
        TrainingRun.resume(tmp_path / "run", log=lambda _: None).run(progress=False)
    record.write_text(json.dumps({**state, "phase": "dance"}))
    with pytest.raises(BadFileError, match="phase must be one of"):
        TrainingRun.resume(tmp_path / "run", log=lambda _: None).run(progress=False)


def test_the_search_as_steps_is_the_search_and_games_searched_together_are_valid(tmp_path) -> None:
    """``search_steps`` answered one request at a time builds the root ``search`` builds; games searched together
    (one forward pass over every game's requests) give valid targets, the same on a second call."""
    from seasons_agents.policy_ismcts import PolicyISMCTSAgent
    from seasons_env import Game

    torch.manual_seed(1)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    game = Game.new(3, "apprentice", seed=2)
    seat = game.current_player
    roots = []
    for steps in (False, True):
        agent = PolicyISMCTSAgent(seed=4, model=model, iterations=12, backend="numpy", engine="reference")
        view = game.determinize(seat, np.random.default_rng(0))
        roots.append(agent._drive(agent.search_steps(view, seat)) if steps else agent.search(view, seat))
    assert {k: c.visits for k, c in roots[0].children.items()} == {k: c.visits for k, c in roots[1].children.items()}
    assert sum(c.visits for c in roots[0].children.values()) == 12
    jobs = [
        SearchJob(str(model), n, "apprentice", n, n, iterations=3, exploration=1.5, sample_moves=2, engine="reference")
        for n in (2, 3, 4)
    ]
    first, second = expert.search_games(jobs), expert.search_games(jobs)
    for rows, again, job in zip(first, second, jobs, strict=True):
        assert (rows["players"] == job.players).all() and (rows["game"] == job.game).all()
        assert np.allclose(rows["target"].sum(axis=1), 1.0, atol=1e-5) and (rows["target"][~rows["mask"]] == 0).all()
        assert all(np.array_equal(rows[k], again[k]) for k in rows)


@pytest.mark.parametrize("players", [2, 4])
def test_the_compiled_games_rows_are_those_of_the_compiled_agent_on_the_reference_game(tmp_path, players: int) -> None:
    """``expert_search="kernels"`` plays its games on the rules kernels (the game, its views and observations as array
    rows); the same job played on the reference ``Game`` by a ``PolicyISMCTSAgent(engine="kernels")`` (views by
    ``Game.determinize``, observations by ``encode_observation``) from the same draws gives the same rows, byte for
    byte."""
    from seasons_agents.policy_ismcts import PolicyISMCTSAgent

    torch.manual_seed(2)
    model = tmp_path / "small.pt"
    save_policy(PolicyValueNet(NetworkConfig(card_dim=8, hidden=32, layers=1)), model)
    job = SearchJob(str(model), players, "archmage", 9, 0, 5, exploration=1.5, sample_moves=6, engine="kernels")
    rows = search_game(job)
    agent = PolicyISMCTSAgent(seed=job.seed, model=model, iterations=5, exploration=1.5, engine="kernels")
    with pytest.raises(StopIteration) as done:
        next(expert._game_steps(job, agent))  # the compiled agent asks the driver nothing
    expected = done.value.value
    assert len(rows["seat"]) > 100 and set(rows) == set(expected)
    for name in rows:
        assert rows[name].dtype == expected[name].dtype and np.array_equal(rows[name], expected[name]), name


def test_the_value_error_benchmark_reads_a_runs_games_and_compares_models(tmp_path) -> None:
    """benchmarks/value_error.py on a smoke run's games: each model's error and agreement, the paired difference;
    a glob matching nothing is refused in one line."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "value_error.py"
    folder = tmp_path / "run"
    TrainingRun.start(folder, make_config("expert-smoke", ["expert_rounds=1"]), log=lambda _: None).run(progress=False)
    models = [str(folder / "expert" / f"model-000{r}.pt") for r in (0, 1)]
    games = str(folder / "expert" / "round-0001" / "games-*.npz")
    done = subprocess.run([sys.executable, str(script), games, *models], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("1 files, 2 games,") and lines[1].startswith("the search's root value: error")
    assert all(
        any(line.startswith(f"{m}: value error ") and "top action = the target's" in line for line in lines)
        for m in models
    )
    assert lines[-1].startswith(f"{models[0]} minus {models[1]}: ") and lines[-1].endswith("(paired by game)")
    missing = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "none-*.npz"), models[0]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2 and "no files match" in missing.stderr and "Traceback" not in missing.stderr
