"""The ``seasons simulate`` command and the random-play loop behind it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from seasons_env import LEVELS
from seasons_env.cli import main
from seasons_env.simulate import play_random_game

TIMING_KEYS = {"wall_seconds", "games_per_second", "decisions_per_second", "workers"}


def run(*args: str):
    return CliRunner().invoke(main, ["simulate", *args], catch_exceptions=False)


@pytest.mark.parametrize("level", LEVELS)
def test_simulate_each_level(level: str, tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = run(
        "--games", "4", "--players", "3", "--level", level, "--seed", "11", "--json", str(out), "--no-progress"
    )
    assert result.exit_code == 0, result.output
    assert f"4 random games, 3 players, level {level}, seeds 11..14" in result.output
    for label in ("decisions per game", "winner score", "all scores", "win rate by seat", "shared wins", "games/s"):
        assert label in result.output
    assert len(re.findall(r"^\s+seat \d: ", result.output, flags=re.MULTILINE)) == 3

    summary = json.loads(out.read_text())
    assert summary["games"] == 4
    assert summary["players"] == 3
    assert summary["level"] == level
    assert summary["seeds"] == [11, 14]
    assert len(summary["wins_by_seat"]) == 3
    assert 4 <= sum(summary["wins_by_seat"]) <= 4 + 2 * summary["shared_wins"]
    assert summary["winner_score"]["max"] == summary["all_scores"]["max"]
    assert summary["winner_score"]["min"] >= summary["all_scores"]["min"]
    assert summary["decisions_per_game"]["min"] > 0

    # The summary reproduces the games one by one.
    games = [play_random_game(3, level, seed) for seed in range(11, 15)]
    assert summary["decisions_total"] == sum(g["decisions"] for g in games)
    assert summary["all_scores"]["max"] == max(max(g["scores"]) for g in games)


def test_simulate_defaults_and_progress() -> None:
    result = run("--games", "3")
    assert result.exit_code == 0, result.output
    assert "3 random games, 2 players, level archmage, seeds 0..2" in result.output


def test_every_game_command_defaults_to_the_same_level() -> None:
    """``simulate``, ``arena`` and ``play`` start from the same game (the full one, archmage) unless told."""
    import click

    context = click.Context(main)
    defaults = {
        name: next(p.default for p in main.get_command(context, name).params if p.name == "level")
        for name in ("simulate", "arena", "play")
    }
    assert set(defaults.values()) == {"archmage"}, defaults


def test_workers_do_not_change_results(tmp_path: Path) -> None:
    summaries = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        result = run("--games", "6", "--seed", "5", "--workers", workers, "--json", str(out), "--no-progress")
        assert result.exit_code == 0, result.output
        summaries.append({k: v for k, v in json.loads(out.read_text()).items() if k not in TIMING_KEYS})
    assert summaries[0] == summaries[1]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--players", "5"], "--players"),
        (["--players", "1"], "--players"),
        (["--players", "two"], "--players"),
        (["--games", "0"], "--games"),
        (["--level", "grandmaster"], "--level"),
        (["--seed", "-1"], "--seed"),
        (["--workers", "0"], "--workers"),
        (["--json", "/no/such/directory/summary.json"], "--json"),
    ],
)
def test_bad_arguments(args: list[str], option: str) -> None:
    result = CliRunner().invoke(main, ["simulate", "--no-progress", *args])
    assert result.exit_code != 0
    assert "Invalid value" in result.output
    assert option in result.output


def test_help_lists_options() -> None:
    result = CliRunner().invoke(main, ["simulate", "--help"])
    assert result.exit_code == 0
    for option in ("--players", "--games", "--level", "--seed", "--workers", "--json"):
        assert option in result.output


@pytest.mark.parametrize("level", LEVELS)
def test_play_random_game_is_deterministic(level: str) -> None:
    first = play_random_game(2, level, 123)
    assert first == play_random_game(2, level, 123)
    assert set(first) == {"seed", "scores", "winners", "decisions"}
    assert len(first["scores"]) == 2
    assert first["winners"] and set(first["winners"]) <= {0, 1}
    assert first["decisions"] > 0
    assert first["seed"] == 123
    others = [play_random_game(2, level, seed) for seed in range(124, 128)]
    assert any((o["scores"], o["decisions"]) != (first["scores"], first["decisions"]) for o in others)


@pytest.mark.parametrize("module", ["seasons_env.cli", "seasons_env"])
def test_python_dash_m_runs_every_command(module: str) -> None:
    """``python -m seasons_env.cli`` and ``python -m seasons_env`` know every command of ``seasons``."""
    import subprocess

    from installed import run_installed

    def python_m(*args: str) -> subprocess.CompletedProcess:
        return run_installed(args, module=module)

    listing = python_m("--help")
    assert listing.returncode == 0, listing.stderr
    assert main.commands and all(re.search(rf"^\s+{name}\b", listing.stdout, re.M) for name in main.commands)
    arena = python_m("arena", "--help")
    assert arena.returncode == 0, arena.stderr
    assert "--agents" in arena.stdout and "--out" in arena.stdout
