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


def test_learned_is_v2_and_v1_stays_another_model() -> None:
    from seasons_agents.learned import model_digests

    assert newest_version() == "v2" and SHIPPED_MODELS["v2"] == "learned-v2.pt"
    assert make_agent("learned", 0).model_path == shipped_model_path("v2")
    digests = model_digests(["learned", "learned:v1", "learned:v2"])
    assert digests["learned"] == digests["learned:v2"] != digests["learned:v1"]


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
    with pytest.raises(ValueError, match=r"the shipped models are v1, v2 \('learned' is the newest, v2\)"):
        shipped_model_path("v0")
    args = ["arena", "--agents", "learned:v9,random", "--no-progress", "--out", str(tmp_path / "a")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0 and "no shipped model 'v9'; the shipped models are v1, v2" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "a").exists()
    result = CliRunner().invoke(main, ["play", "--vs", "learned:v3", "--level", "apprentice"], input="1\n")
    assert result.exit_code != 0 and "no shipped model 'v3'" in result.output and "Traceback" not in result.output


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
