"""The arena: seat rotation, ratings and intervals, files, resuming."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from installed import installed_environment, start_installed

from seasons_agents import arena as arena_module
from seasons_agents.arena import Arena, ArenaConfig, format_summary, lineups, seating, summarize, wilson_interval
from seasons_agents.arena_lock import process_start
from seasons_agents.random_agent import RandomAgent
from seasons_env import registry
from seasons_env.registry import register_agent


class FirstLegal(RandomAgent):
    """Always the first legal action (a weak, deterministic opponent for tests)."""

    name = "first"

    def act(self, view, seat, legal):
        return legal[0]


@pytest.fixture(autouse=True)
def _test_agents(monkeypatch):
    """Test agents are registered like any other (seasons_env.registry), in a registry forgotten afterwards."""
    monkeypatch.setattr(registry, "_agents", dict(registry.agent_entries()))
    register_agent("first", FirstLegal)


def test_each_agent_plays_each_seat_equally() -> None:
    config = ArenaConfig(agents=("random", "first"), num_players=2, games=8)
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
        ArenaConfig(agents=("random", "first"), num_players=5)
    with pytest.raises(ValueError, match="level must be one of apprentice, magician, archmage; got 'expert'"):
        ArenaConfig(agents=("random", "first"), level="expert")
    with pytest.raises(ValueError, match="games"):
        ArenaConfig(agents=("random", "first"), games=0)


def test_tiny_arena_rates_and_writes_its_files(tmp_path) -> None:
    config = ArenaConfig(agents=("random", "first"), num_players=2, games=6, level="apprentice")
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


def test_an_agent_seated_twice_in_every_game_has_no_rating_rather_than_the_prior(tmp_path) -> None:
    """Four players and two agents: each lineup repeats both, so no game is a rating event; the summary, the
    table, ratings.csv and the picture say there is no rating instead of showing the model's prior as one."""
    config = ArenaConfig(agents=("random", "first"), num_players=4, games=2, level="apprentice")
    arena = Arena(config, tmp_path)
    summary = arena.run(workers=1, progress=False)
    assert summary["games_played"] == 2 and summary["agents"]["random"]["games"] == 4
    for name in ("random", "first"):
        rating = summary["ratings"][name]
        assert rating["games"] == 0
        assert rating["mu"] is rating["sigma"] is rating["low"] is rating["high"] is rating["ordinal"] is None
    text = format_summary(summary)
    assert "25.00" not in text and "no rating event for that agent" in text
    rows = dict(line.split(",", 1) for line in (tmp_path / "ratings.csv").read_text().splitlines()[1:])
    assert rows["random"].endswith(",,,,,0")
    figure = arena_module.plot(summary, tmp_path / "again.png")
    assert sorted(t.get_text() for t in figure.axes[0].texts) == ["not rated", "not rated"]
    # three agents at 3 players alongside: ratings rest on the games each played
    config = ArenaConfig(agents=("random", "first", "heuristic"), num_players=3, games=3, level="apprentice")
    rated = Arena(config, tmp_path / "three").run(workers=1, progress=False)
    assert {name: r["games"] for name, r in rated["ratings"].items()} == {"random": 3, "first": 3, "heuristic": 3}
    assert all(r["low"] < r["mu"] < r["high"] for r in rated["ratings"].values())


def test_the_printed_table_keeps_long_names_aligned_and_slow_agents_speeds(tmp_path) -> None:
    """A name longer than the column (``policy-ismcts``) widens it instead of pushing its row out of line, and a
    search agent's decisions a second keep three significant figures (1.95, not 2)."""
    register_agent("first-legal-long-name", FirstLegal)
    config = ArenaConfig(agents=("random", "first-legal-long-name"), num_players=2, games=2, level="apprentice")
    summary = Arena(config, tmp_path).run(workers=1, progress=False)
    summary["agents"]["first-legal-long-name"]["decisions_per_second"] = 1.9466
    summary["agents"]["random"]["decisions_per_second"] = 154_097.2
    lines = format_summary(summary).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("agent"))
    header, rows = lines[start], {line.split()[0]: line for line in lines[start + 1 : start + 3]}
    assert len(rows) == 2 and all(len(row) == len(header) for row in rows.values())
    assert rows["first-legal-long-name"].startswith("first-legal-long-name ")
    assert rows["first-legal-long-name"].endswith(" 1.95") and rows["random"].endswith(" 154,097")


def _spawned_workers(parent: int) -> list[int]:
    """The pool workers of process ``parent`` (its children that multiprocessing's spawn started), from /proc."""
    workers = []
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) if entry.name.isdigit() else 0
            spawned = ppid == parent and b"spawn_main" in (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):  # a process that ended while being read
            continue
        if spawned:
            workers.append(int(entry.name))
    return workers


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the worker processes from /proc")
def test_sigterm_stops_the_workers_and_says_how_to_resume(tmp_path) -> None:
    """SIGTERM to the arena (a job scheduler's stop, ``kill``) ends its worker processes with it, instead of leaving
    them to play their game on as orphans and print tracebacks; the command says how to resume, exit 128 + 15."""
    # --workers 3: three processes play, the arena's own and the two it starts
    args = ["arena", "--agents", "ismcts,random", "--games", "400", "--workers", "3", "--level", "apprentice"]
    # stderr to a file, not a pipe: orphaned workers would hold a pipe open after the arena itself ended
    with (tmp_path / "stderr.txt").open("w") as log:
        run = start_installed([*args, "--no-progress", "--out", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=log)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(workers := _spawned_workers(run.pid)) < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
        assert len(workers) == 2, "the arena did not start its two workers"
        time.sleep(3)  # into their games (400 games with ISMCTS at 3,000 iterations: minutes)
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=60)
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        outlived = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    finally:
        run.kill()
        for pid in workers:  # whatever the outcome, no worker of this test keeps running (a pid still a worker)
            with contextlib.suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert run.returncode == 128 + signal.SIGTERM, stderr
    assert not outlived, "a worker outlived the stopped arena"
    assert "arena stopped by SIGTERM" in stderr and "run the same command again to resume" in stderr
    assert "Traceback" not in stderr, stderr


def test_interrupted_arena_resumes_to_the_same_totals(tmp_path) -> None:
    config = ArenaConfig(agents=("random", "first"), num_players=3, games=9, level="magician", seed=4)
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
    assert not (tmp_path / "arena.lock").exists()  # a clean run leaves no lock file behind
    again = CliRunner().invoke(main, [*args[:4], "6", *args[5:]])
    assert again.exit_code == 0 and "6 games" in again.output
    assert "resuming: 4 of 6 games are already recorded" in again.stderr
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 6
    # the same command once more plays nothing, and says that the results are the stored ones
    stored = CliRunner().invoke(main, [*args[:4], "6", *args[5:]])
    assert stored.exit_code == 0 and "6 games" in stored.output
    assert "all 6 games are already recorded" in stored.stderr and "none was played" in stored.stderr
    assert not (tmp_path / "arena.lock").exists()


def test_arena_help_lists_every_agent() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    for command in ("arena", "play"):
        shown = CliRunner().invoke(main, [command, "--help"]).output
        assert "Agents:" in shown, command
        listed = shown.split("Agents:")[1]
        for entry in registry.agent_entries().values():
            assert entry.usage() in listed, (command, entry.name)


def test_a_lock_deleted_by_a_releasing_run_is_not_held(tmp_path, monkeypatch) -> None:
    """A run that opened the lock file just before the holder released (and deleted) it locks the file it opened;
    it must notice that the file is gone and lock the new one, or two runs could hold "the" lock at once."""
    from seasons_agents import arena_lock

    first = arena_module.FolderLock(tmp_path)
    first.acquire()
    assert (tmp_path / "arena.lock").read_text().split()[0] == str(os.getpid())
    first.release()
    assert not (tmp_path / "arena.lock").exists()
    real_open, opened = os.open, []

    def open_then_released(path, flags, mode=0o777):
        handle = real_open(path, flags, mode)
        if not opened:  # the holder releases (deletes the file) right after this run opened it
            opened.append(handle)
            os.unlink(path)
        return handle

    second, third = arena_module.FolderLock(tmp_path), arena_module.FolderLock(tmp_path)
    monkeypatch.setattr(arena_lock.os, "open", open_then_released)
    second.acquire()
    monkeypatch.undo()
    try:
        assert (tmp_path / "arena.lock").exists()
        with pytest.raises(arena_module.ArenaFolderError, match="in use by another arena run"):
            third.acquire()
    finally:
        second.release()


def test_arena_command_rejects_unknown_agents(tmp_path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["arena", "--agents", "random,wizard", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "agents[1]: unknown agent 'wizard'; known agents: " in result.output


# ---------------------------------------------------------------------------- records never lost or miscounted


class LastLegal(RandomAgent):
    """Always the last legal action (a third deterministic agent)."""

    name = "last"

    def act(self, view, seat, legal):
        return legal[-1]


def _child_env() -> dict[str, str]:
    """The environment of a child Python that imports the installed packages (not the checkout's folders)."""
    return installed_environment()


def _lines(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text(encoding="utf-8").splitlines()]


def _config(**overrides) -> ArenaConfig:
    settings = {"agents": ("random", "first"), "num_players": 2, "games": 4, "level": "apprentice", "seed": 3}
    return ArenaConfig(**{**settings, **overrides})


def test_a_smaller_games_keeps_every_record_and_reports_on_the_first_n(tmp_path) -> None:
    Arena(_config(games=6), tmp_path).run(progress=False)
    summary = Arena(_config(games=2), tmp_path).run(progress=False)
    assert summary["games_played"] == 2
    assert sorted(r["game_index"] for r in _lines(tmp_path)) == list(range(6))  # nothing deleted
    assert [r["game_index"] for r in Arena(_config(games=2), tmp_path).finished()] == [0, 1]
    grown = Arena(_config(games=7), tmp_path)
    grown.run(progress=False)
    # growing again plays only the missing game: the 6 kept records are reused, none is counted twice
    assert sorted(r["game_index"] for r in _lines(tmp_path)) == list(range(7))


@pytest.mark.parametrize("kill_at", ["open for writing", "fsync", "replace"])
def test_a_kill_while_repairing_the_records_loses_none(tmp_path, monkeypatch, kill_at) -> None:
    """A run killed while it rewrites games.jsonl (here: to drop a torn last line) leaves every record."""
    import builtins
    import contextlib
    import io
    import os

    Arena(_config(), tmp_path).run(progress=False)
    games_file = tmp_path / "games.jsonl"
    with games_file.open("a") as sink:
        sink.write('{"game_index": 9, "seats": [')  # torn by an earlier kill
    before = games_file.read_bytes()

    kills = []

    def killed(*args, **kwargs):
        kills.append(kill_at)
        raise KeyboardInterrupt  # what a kill at this point does to the rewrite

    real_open = builtins.open

    def open_then_killed(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if str(file) == str(games_file) and "w" in mode:  # opened for a rewrite in place: truncated already
            handle.close()
            killed()
        return handle

    with monkeypatch.context() as patch:
        if kill_at == "open for writing":
            patch.setattr(builtins, "open", open_then_killed)
            patch.setattr(io, "open", open_then_killed)
        else:
            patch.setattr(os, kill_at, killed)
        with contextlib.suppress(KeyboardInterrupt):
            Arena(_config(), tmp_path).run(progress=False)
    assert kills or kill_at == "open for writing"  # the repair reached this point (a rewrite in place never may)
    after = games_file.read_bytes()
    assert after == before or after == before[: before.rindex(b"\n") + 1]  # old file, or the repaired one
    assert [r["game_index"] for r in Arena(_config(), tmp_path).finished()] == [0, 1, 2, 3]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_each_game_is_on_disk_before_the_next_is_played(tmp_path, monkeypatch) -> None:
    played = []
    real_play_one = arena_module.play_one

    def play_and_look(job):
        lines = (tmp_path / "games.jsonl").read_text().splitlines() if (tmp_path / "games.jsonl").exists() else []
        assert len(lines) == len(played)  # every earlier game already written out (flushed), and complete
        played.append(job[1])
        return real_play_one(job)

    monkeypatch.setattr(arena_module, "play_one", play_and_look)
    Arena(_config(), tmp_path).run(progress=False)
    assert played == [0, 1, 2, 3]


def test_a_second_run_on_the_same_folder_is_refused_naming_the_holder(tmp_path) -> None:
    import os
    import subprocess

    Arena(_config(), tmp_path).run(progress=False)
    holder = arena_module.FolderLock(tmp_path)
    holder.acquire()
    try:
        with pytest.raises(arena_module.ArenaFolderError, match=f"in use by another arena run \\(pid {os.getpid()}"):
            Arena(_config(games=6), tmp_path).run(progress=False)
    finally:
        holder.release()
    # another process holding the folder is named by its pid
    script = "import sys, time; from seasons_agents.arena import FolderLock; FolderLock(sys.argv[1]).acquire(); "
    script += "print('held', flush=True); time.sleep(60)"
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=_child_env(), cwd=tmp_path
    )
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(arena_module.ArenaFolderError, match=f"pid {child.pid}"):
            Arena(_config(games=6), tmp_path).run(progress=False)
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    # the holder was killed: its lock is stale and is taken over, saying so
    arena = Arena(_config(games=6), tmp_path)
    assert arena.run(progress=False)["games_played"] == 6
    assert any(f"pid {child.pid}" in note and "no longer running" in note for note in arena.notes)
    assert len(_lines(tmp_path)) == 6


def test_a_duplicated_game_is_counted_once(tmp_path) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    games_file = tmp_path / "games.jsonl"
    lines = games_file.read_text().splitlines()
    games_file.write_text("\n".join([*lines, lines[1], lines[2], lines[1]]) + "\n")
    arena = Arena(_config(), tmp_path)
    assert [r["game_index"] for r in arena.finished()] == [0, 1, 2, 3]
    summary = arena.run(progress=False)
    assert summary["games_played"] == 4 and summary["crosstable"]["random"]["first"]["games"] == 4
    assert any("line 5" in note and "game 1" in note for note in arena.notes)


def test_records_carry_their_configuration_and_actions(tmp_path) -> None:
    from seasons_env import ACTION_TABLE_VERSION, Game, __version__

    Arena(_config(), tmp_path).run(progress=False)
    for record in _lines(tmp_path):
        assert record["config"] == {
            "agents": ["random", "first"],
            "players": 2,
            "level": "apprentice",
            "seed": 3,
            "seasons_env_version": __version__,
            "state_version": Game.new(2, "magician", 0).to_dict()["version"],
            "action_table_version": ACTION_TABLE_VERSION,
        }
        game = Game.new(record["num_players"], record["level"], record["seed"])  # the actions replay the game
        for action in record["actions"]:
            game.apply(action)
        assert game.is_over and game.scores() == record["scores"] and len(record["actions"]) == record["decisions"]


@pytest.mark.parametrize(
    ("change", "field"),
    [({"num_players": 3}, "players"), ({"level": "magician"}, "level"), ({"seed": 4}, "seed")],
)
def test_records_of_another_configuration_are_refused_even_without_config_json(tmp_path, change, field) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    (tmp_path / "config.json").unlink()
    before = (tmp_path / "games.jsonl").read_bytes()
    with pytest.raises(arena_module.ArenaFolderError, match=rf"games\.jsonl line 1: .*{field}"):
        Arena(_config(**change), tmp_path).run(progress=False)
    assert (tmp_path / "games.jsonl").read_bytes() == before
    assert Arena(_config(), tmp_path).run(progress=False)["games_played"] == 4  # its own settings resume it


def test_records_of_another_engine_version_are_refused(tmp_path) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    games_file = tmp_path / "games.jsonl"
    records = _lines(tmp_path)
    records[2]["config"]["action_table_version"] += 1
    games_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "config.json").unlink()
    with pytest.raises(arena_module.ArenaFolderError, match=r"games\.jsonl line 3: .*action_table_version"):
        Arena(_config(), tmp_path).finished()


def test_old_records_without_configuration_or_actions_are_read_when_config_json_vouches(tmp_path) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    records = _lines(tmp_path)
    for record in records:  # as the arena wrote them before records carried these fields
        del record["config"], record["actions"]
    (tmp_path / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "config.json").write_text(json.dumps(_config().to_dict()))
    assert Arena(_config(games=6), tmp_path).run(progress=False)["games_played"] == 6
    (tmp_path / "config.json").unlink()  # now nothing says which arena the old records belong to
    with pytest.raises(arena_module.ArenaFolderError, match=r"games\.jsonl line 1: .*no configuration"):
        Arena(_config(num_players=3), tmp_path).finished()


MALFORMED = {
    "missing key": (lambda r: {k: v for k, v in r.items() if k != "scores"}, "missing key 'scores'"),
    "a list": (lambda r: [r], "must be a JSON object; got a list"),
    "string index": (lambda r: {**r, "game_index": "1"}, "'game_index' must be a non-negative integer; got '1'"),
    "bool index": (lambda r: {**r, "game_index": True}, "'game_index' must be a non-negative integer; got True"),
    "negative index": (lambda r: {**r, "game_index": -1}, "'game_index' must be a non-negative integer; got -1"),
    "scores of strings": (lambda r: {**r, "scores": ["9", "8"]}, "'scores' must be a list of 2 integers"),
    "winner out of range": (lambda r: {**r, "winners": [5]}, "'winners' must be"),
    "seats swapped": (lambda r: {**r, "seats": r["seats"][::-1]}, "seats"),
    "bad action": (lambda r: {**r, "actions": ["x"]}, "'actions' must be"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_line_names_the_file_the_line_and_the_fault(tmp_path, case) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    Arena(_config(), tmp_path).run(progress=False)
    games_file = tmp_path / "games.jsonl"
    lines = games_file.read_text().splitlines()
    damage, message = MALFORMED[case]
    lines[1] = json.dumps(damage(json.loads(lines[1])))
    games_file.write_text("\n".join(lines) + "\n")
    with pytest.raises(arena_module.ArenaFolderError) as error:
        Arena(_config(), tmp_path).finished()
    assert f"{games_file} line 2: " in str(error.value) and message in str(error.value)
    args = ["arena", "--agents", "random,first", "--games", "4", "--level", "apprentice", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--no-progress", "--workers", "1"])
    assert result.exit_code != 0 and "line 2: " in result.output and message in result.output
    assert "--out" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("damage", [b"\xff\xfe{}", b"{not json}", b"[[[" * 50000], ids=["utf-8", "json", "deep"])
def test_undecodable_lines_are_named_and_a_torn_last_line_is_replayed(tmp_path, damage) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    games_file = tmp_path / "games.jsonl"
    whole = games_file.read_bytes()
    first, rest = whole.split(b"\n", 1)
    games_file.write_bytes(first + b"\n" + damage + b"\n" + rest)
    with pytest.raises(arena_module.ArenaFolderError, match=r"games\.jsonl line 2: not (valid UTF-8|a JSON)"):
        Arena(_config(), tmp_path).finished()
    # the same damage as the last line, with no newline after it, is a write cut short: skipped and replayed
    last_start = whole.rstrip(b"\n").rindex(b"\n") + 1
    games_file.write_bytes(whole[:last_start] + whole[last_start:][:37] + damage[:3])
    arena = Arena(_config(), tmp_path)
    assert [r["game_index"] for r in arena.finished()] == [0, 1, 2]
    assert arena.run(progress=False)["games_played"] == 4
    assert games_file.read_bytes().count(b"\n") == 4 and [r["game_index"] for r in _lines(tmp_path)] == [0, 1, 2, 3]


def test_three_agents_with_unmet_pairs_plot_blank_cells_and_print_the_summary(tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    register_agent("last", LastLegal)
    args = ["arena", "--agents", "random,first,last", "--games", "2", "--workers", "1", "--level", "apprentice"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "2 games, 2 players, level apprentice" in result.output and "win rate of row against column" in result.output
    assert (tmp_path / "arena.png").read_bytes()[:4] == b"\x89PNG"

    summary = json.loads((tmp_path / "results.json").read_text())
    figure = arena_module.plot(summary, tmp_path / "again.png")
    left, right = figure.axes[:2]

    def top_to_bottom(axes) -> list[str]:
        labels = [
            (axes.transData.transform((0, y))[1], t.get_text())
            for y, t in zip(axes.get_yticks(), axes.get_yticklabels(), strict=True)
        ]
        return [text for _, text in sorted(labels, reverse=True)]

    assert top_to_bottom(left) == top_to_bottom(right) and sorted(top_to_bottom(left)) == ["first", "last", "random"]
    title = figure.get_suptitle()
    assert "2 games" in title and "2 players" in title and "level apprentice" in title
    rows = top_to_bottom(right)
    cells = right.images[0].get_array()
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])) for t in right.texts}
    for i, a in enumerate(rows):
        for j, b in enumerate(rows):
            met = a != b and summary["crosstable"][a][b]["games"] > 0
            assert bool(cells.mask[i, j]) != met or a == b  # unmet pairs (and the diagonal) are blank
            assert ((i, j) in texts) == met


def test_plotting_leaves_the_matplotlib_backend_alone(tmp_path) -> None:
    import subprocess

    summary = Arena(_config(), tmp_path).run(progress=False)
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    script = (
        "import json, sys, matplotlib; matplotlib.use('svg'); from seasons_agents.arena import plot; "
        "plot(json.load(open(sys.argv[1])), sys.argv[2]); print(matplotlib.get_backend())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "summary.json"), str(tmp_path / "p.png")],
        capture_output=True,
        text=True,
        check=True,
        env=_child_env(),
        cwd=tmp_path,
    )
    assert out.stdout.strip() == "svg"
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_the_arena_writes_replays_of_its_notable_games_and_links_them(tmp_path) -> None:
    from seasons_env.replay import Replay, parse_record

    config = ArenaConfig(agents=("random", "first"), games=6, level="apprentice")
    summary = Arena(config, tmp_path).run(workers=1, progress=False)
    notable = json.loads((tmp_path / "results.json").read_text())["notable_games"]
    assert notable == summary["notable_games"] and set(notable) == {"highest_score", "biggest_upset"}
    best = max(summary_records := Arena(config, tmp_path).finished(), key=lambda r: max(r["scores"]))
    high = notable["highest_score"]
    assert (high["game_index"], high["score"]) == (best["game_index"], max(best["scores"]))
    page = (tmp_path / high["replay"]).read_text()
    assert page.startswith("<!doctype html>") and "<script" in page
    # the page is the replay of that very game: it ends at the recorded scores
    assert Replay(parse_record(best, "best")).positions[-1].scores() == best["scores"]
    index = (tmp_path / "index.html").read_text()
    assert f'href="{high["replay"]}"' in index and 'src="arena.png"' in index
    assert "notable games" in format_summary(summary) and high["replay"] in format_summary(summary)
    assert len(summary_records) == 6


# ---------------------------------------------------------------------------- sizes, workers, specs (issue 29)


def test_games_are_made_lazily_and_counts_above_the_maximum_are_refused(tmp_path) -> None:
    """An arena of millions of games holds no list of them (10**8 took 3.7 GB before playing one)."""
    import tracemalloc

    import matplotlib.figure  # noqa: F401  (imported before measuring: only the run's own memory is measured)
    import openskill.models  # noqa: F401

    arena = Arena(_config(games=2_000_000), tmp_path)
    tracemalloc.start()
    try:
        arena.run(progress=False, limit=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30_000_000, f"{peak:,} bytes"  # 6 MB measured; a list of the missing games took 80 MB
    assert len(_lines(tmp_path)) == 1
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["arena", "--games", "10000001", "--out", str(tmp_path / "big")])
    assert result.exit_code == 2 and "'--games'" in result.output and "1<=x<=10000000" in result.output
    with pytest.raises(ValueError, match=r"games must be 1\.\.10000000; got 99999999999999999999"):
        _config(games=99999999999999999999)
    assert not (tmp_path / "big").exists()


def test_no_more_processes_than_games_to_play(tmp_path, monkeypatch) -> None:
    asked = []

    def here_only(function, jobs, processes, initializer=None, on_result=None):  # records the processes, plays here
        asked.append(processes)
        for job in jobs:
            on_result(result := function(job))
            yield result

    monkeypatch.setattr(arena_module, "run_here_and_in_workers", here_only)
    Arena(_config(games=2), tmp_path).run(workers=16, progress=False)
    Arena(_config(games=3), tmp_path).run(workers=16, progress=False)  # one game left to play: this process alone
    assert asked == [2, 1]


def test_every_agent_spec_is_checked_before_the_folder_is_made(tmp_path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    out = tmp_path / "new"
    result = CliRunner().invoke(main, ["arena", "--agents", "random,rllib:/nonexistent", "--out", str(out)])
    assert result.exit_code == 2 and "agents[1]: agent 'rllib:/nonexistent'" in result.output
    assert "/nonexistent is not a folder" in result.output and "Traceback" not in result.output
    assert not out.exists()


def _rewrite_line(folder, number: int, change) -> None:
    lines = (folder / "games.jsonl").read_text().splitlines()
    lines[number - 1] = json.dumps(change(json.loads(lines[number - 1])))
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")


def _illegal_first_action(record: dict) -> dict:
    from seasons_env import Game

    legal = Game.new(record["num_players"], record["level"], seed=record["seed"]).legal_action_list()
    return {**record, "actions": [min(set(range(len(legal) + 1)) - set(legal)), *record["actions"][1:]]}


@pytest.mark.parametrize(
    ("change", "fault"),
    [
        (lambda r: {**r, "winners": [0], "scores": [10, 20]}, "'winners' [0] contradict 'scores' [10, 20]"),
        (_illegal_first_action, "step 0: action"),
        (lambda r: {**r, "scores": [r["scores"][0] + 1, r["scores"][1]]}, "ends with scores"),
        ("conflict", "records game 1 again, with other results than line 2 (differing: scores)"),
    ],
    ids=["winners-against-scores", "illegal-action", "scores-not-borne-out", "conflicting-duplicate"],
)
def test_records_that_do_not_bear_out_are_refused_on_resume(tmp_path, change, fault) -> None:
    Arena(_config(), tmp_path).run(progress=False)
    if change == "conflict":
        lines = (tmp_path / "games.jsonl").read_text().splitlines()
        other = json.loads(lines[1])
        other["scores"] = [s + 5 for s in other["scores"]]
        (tmp_path / "games.jsonl").write_text("\n".join([*lines, json.dumps(other)]) + "\n")
    else:
        _rewrite_line(tmp_path, 2, change)
    before = (tmp_path / "games.jsonl").read_bytes()
    with pytest.raises(arena_module.ArenaFolderError, match="line") as refused:
        Arena(_config(games=6), tmp_path).run(progress=False)
    assert fault in str(refused.value)
    assert (tmp_path / "games.jsonl").read_bytes() == before  # nothing played or written


def test_a_stale_lock_is_taken_over_only_from_a_process_that_is_not_its_arena(tmp_path) -> None:
    import subprocess

    Arena(_config(), tmp_path).run(progress=False)
    lock = tmp_path / "arena.lock"
    # pid 1 is running, but nothing says it is an arena of this folder: refused, not taken as "interrupted"
    lock.write_text("1\n")
    with pytest.raises(arena_module.ArenaFolderError, match="names pid 1, which is running, and nothing tells"):
        Arena(_config(games=6), tmp_path).run(progress=False)
    # pid 1 with another start time than the one recorded: another process; taken over, saying so
    lock.write_text(f"1 {int(process_start(1)) + 1}\n")
    arena = Arena(_config(games=5), tmp_path)
    arena.run(progress=False)
    assert any("from pid 1: that pid is now another process" in note for note in arena.notes)
    # a live process with the start time recorded is the run that wrote the lock: refused
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = process_start(child.pid)
        assert started is not None
        lock.write_text(f"{child.pid} {started}\n")
        with pytest.raises(arena_module.ArenaFolderError, match=f"names pid {child.pid}, which is still running"):
            Arena(_config(games=6), tmp_path).run(progress=False)
    finally:
        child.kill()
        child.wait()
    assert len(_lines(tmp_path)) == 5


def test_the_win_rate_table_keeps_long_agent_names_apart() -> None:
    long_names = ("learned-runs-x-policy-pt-one", "learned-runs-x-policy-pt-two")
    for name in long_names:
        register_agent(name, FirstLegal)
    config = ArenaConfig(agents=("random", *long_names), games=2)
    records = [
        {
            "game_index": 0,
            "seats": ["random", long_names[0]],
            "scores": [10, 20],
            "winners": [1],
            "decisions": 2,
            "seconds_per_seat": [1.0, 1.0],
            "decisions_per_seat": [1, 1],
        }
    ]
    text = format_summary(summarize(records, config))
    lines = text.splitlines()
    start = lines.index("win rate of row against column [Wilson 95%]:")
    header = lines[start + 1]
    assert header.split() == [a for a in arena_module.rating_order(summarize(records, config))]
    for row in lines[start + 2 : start + 5]:
        name, *cells = row.split("  ")  # every column is set off by two spaces at least
        assert name.strip() in config.agents and len([c for c in cells if c.strip()]) == 3, row


def test_players_is_the_deprecated_name_of_num_players() -> None:
    """``ArenaConfig(players=...)`` and ``config.players`` still work for one release, each with a
    ``DeprecationWarning`` naming ``num_players``; giving both names is an error."""
    with pytest.warns(DeprecationWarning, match="num_players"):
        config = ArenaConfig(agents=("random", "heuristic"), players=3)
    assert config == ArenaConfig(agents=("random", "heuristic"), num_players=3)
    with pytest.warns(DeprecationWarning, match="num_players"):
        assert config.players == 3
    with pytest.raises(ValueError, match="num_players= only"):
        ArenaConfig(agents=("random", "heuristic"), num_players=3, players=3)
    assert ArenaConfig(agents=("random", "heuristic")).num_players == 2
    assert config.to_dict()["players"] == 3  # the records' key is a file format, unchanged
