"""The arena: seat rotation, ratings and intervals, files, resuming."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agents import arena as arena_module
from agents.arena import Arena, ArenaConfig, lineups, seating, summarize, wilson_interval
from agents.random_agent import RandomAgent


class FirstLegal(RandomAgent):
    """Always the first legal action (a weak, deterministic opponent for tests)."""

    name = "first"

    def act(self, view, seat, legal):
        return legal[0]


@pytest.fixture(autouse=True)
def _test_agents(monkeypatch):
    monkeypatch.setattr(arena_module, "agent_factories", lambda: {"random": RandomAgent, "first": FirstLegal})


def test_each_agent_plays_each_seat_equally() -> None:
    config = ArenaConfig(agents=("random", "first"), players=2, games=8)
    seats = [seating(config, g)[0] for g in range(8)]
    assert Counter((s, name) for lineup in seats for s, name in enumerate(lineup)) == {
        (0, "random"): 4,
        (1, "first"): 4,
        (0, "first"): 4,
        (1, "random"): 4,
    }
    # the two rotations of a block share the deal
    assert seating(config, 0)[1] == seating(config, 1)[1] != seating(config, 2)[1]


def test_lineups_cover_every_combination() -> None:
    assert lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert lineups(["a", "b"], 4) == [("a", "b", "a", "b")]


def test_wilson_interval() -> None:
    low, high = wilson_interval(97, 100)
    assert 0.914 < low < 0.916 and 0.989 < high < 0.991  # the textbook value for 97/100
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for n in (1, 3, 7, 1000):  # exact at the ends, and the interval always holds the observed rate
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
        for wins in range(0, n + 1, max(1, n // 10)):
            low, high = wilson_interval(wins, n)
            assert 0.0 <= low <= wins / n <= high <= 1.0


def test_crosstable_follows_the_games_winners() -> None:
    def record(index: int, seats: list[str], scores: list[int], winners: list[int]) -> dict:
        n = len(seats)
        return {
            "game_index": index,
            "seats": seats,
            "scores": scores,
            "winners": winners,
            "decisions": 100,
            "seconds_per_seat": [1.0] * n,
            "decisions_per_seat": [50] * n,
        }

    config = ArenaConfig(agents=("random", "first"), games=3)
    records = [
        record(0, ["random", "first"], [80, 80], [1]),  # equal scores, settled by the tie-break
        record(1, ["first", "random"], [90, 70], [0]),
        record(2, ["random", "first"], [60, 60], [0, 1]),  # a shared win
    ]
    summary = summarize(records, config)
    assert summary["crosstable"]["first"]["random"]["win_rate"] == pytest.approx(2.5 / 3)
    assert summary["crosstable"]["random"]["first"]["win_rate"] == pytest.approx(0.5 / 3)
    assert summary["agents"]["first"]["wins"] == 2.5 and summary["agents"]["random"]["wins"] == 0.5


def test_bad_configuration_names_the_field() -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        ArenaConfig(agents=("random", "nobody"))
    with pytest.raises(ValueError, match="distinct"):
        ArenaConfig(agents=("random", "random"))
    with pytest.raises(ValueError, match="players"):
        ArenaConfig(agents=("random", "first"), players=5)
    with pytest.raises(ValueError, match="level must be one of apprentice, magician, archmage; got 'expert'"):
        ArenaConfig(agents=("random", "first"), level="expert")
    with pytest.raises(ValueError, match="games"):
        ArenaConfig(agents=("random", "first"), games=0)


def test_tiny_arena_rates_and_writes_its_files(tmp_path) -> None:
    config = ArenaConfig(agents=("random", "first"), players=2, games=6, level="apprentice")
    summary = Arena(config, tmp_path).run(workers=1, progress=False)
    assert summary["games_played"] == 6
    assert {a: s["games"] for a, s in summary["agents"].items()} == {"random": 6, "first": 6}
    rating = summary["ratings"]["random"]
    assert rating["low"] < rating["mu"] < rating["high"]
    cross = summary["crosstable"]["random"]["first"]
    assert cross["games"] == 6 and cross["low"] <= cross["win_rate"] <= cross["high"]
    assert cross["win_rate"] + summary["crosstable"]["first"]["random"]["win_rate"] == pytest.approx(1.0)
    for name in ("results.json", "ratings.csv", "crosstable.csv", "arena.png", "games.jsonl", "config.json"):
        assert (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "arena.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "ratings.csv").read_text().splitlines()[0].startswith("agent,games,win_rate")


def test_interrupted_arena_resumes_to_the_same_totals(tmp_path) -> None:
    config = ArenaConfig(agents=("random", "first"), players=3, games=9, level="magician", seed=4)
    whole = Arena(config, tmp_path / "whole").run(workers=1, progress=False)
    part = Arena(config, tmp_path / "part")
    part.run(workers=1, progress=False, limit=4)  # interrupted after 4 games
    with (tmp_path / "part" / "games.jsonl").open("a") as sink:
        sink.write('{"game_index": 7, "seats": [')  # a line cut short by the interruption
    assert len(part.finished()) == 4
    resumed = part.run(workers=1, progress=False)
    assert resumed["games_played"] == 9

    def timeless(summary: dict) -> str:  # speeds are measured, so they differ between runs
        for stats in summary["agents"].values():
            stats.pop("decisions_per_second")
        return json.dumps(summary, sort_keys=True)

    assert timeless(resumed) == timeless(whole)


def test_resuming_with_other_settings_is_refused(tmp_path) -> None:
    Arena(ArenaConfig(agents=("random", "first"), games=2, level="apprentice"), tmp_path).run(progress=False)
    with pytest.raises(ValueError, match="other settings"):
        Arena(ArenaConfig(agents=("random", "first"), games=2, level="magician"), tmp_path).run(progress=False)


def test_arena_command_prints_ratings_and_resumes(tmp_path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    args = ["arena", "--agents", "random,first", "--games", "4", "--workers", "1", "--level", "apprentice"]
    args += ["--out", str(tmp_path), "--no-progress"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "4 games, 2 players, level apprentice" in result.output and "win rate of row against column" in result.output
    again = CliRunner().invoke(main, [*args[:4], "6", *args[5:]])
    assert again.exit_code == 0 and "6 games" in again.output
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 6


def test_arena_command_rejects_unknown_agents(tmp_path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["arena", "--agents", "random,wizard", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "unknown agent(s) wizard" in result.output
