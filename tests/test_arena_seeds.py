"""Seeds an agent is given say nothing about the deal it plays, and a blind arena run keeps its seed secret until
it ends (issue 36 item 5)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from installed import run_installed

from seasons_agents import play_game
from seasons_agents.arena import Arena, ArenaConfig, agent_seed, play_one, seating, secret_seed
from seasons_agents.base import agent_streams
from seasons_agents.random_agent import RandomAgent
from seasons_env import Game, registry
from seasons_env.cli import main
from seasons_env.registry import register_agent

#: (seat seed given to ``make_agent``, seeds given to ``reset``, the hidden cards of each view) of every agent made.
SEEN: list[dict] = []


class Spy(RandomAgent):
    """A random player that keeps everything it is given."""

    name = "spy"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.given = {"made": seed, "reset": [], "views": []}
        SEEN.append(self.given)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.given["reset"].append(seed)

    def act(self, view: Game, seat: int, legal: list[int]) -> int:
        if len(self.given["views"]) < 3:
            self.given["views"].append(view.draw_pile[:])
        return super().act(view, seat, legal)


@pytest.fixture(autouse=True)
def _spy(monkeypatch):
    monkeypatch.setattr(registry, "_agents", dict(registry.agent_entries()))
    register_agent("spy", Spy)
    SEEN.clear()


def test_the_agents_seeds_and_views_come_from_their_own_stream() -> None:
    """The arena gave agents ``game_seed * 8 + k``, from which the deal follows. Now the agents' seeds and the
    redraws of their views are a function of ``agent_seed`` alone: another deal, the same seeds and redraws."""
    given = []
    for game_seed in (5, 6):
        SEEN.clear()
        play_game([Spy(), Spy()], "magician", seed=game_seed, agent_seed=11)
        given.append([(spy["reset"], spy["views"][0]) for spy in SEEN])
        assert all(spy["reset"][0] not in (game_seed * 8, game_seed * 8 + 1) for spy in SEEN)
    seeds = [[reset for reset, _ in g] for g in given]
    assert seeds[0] == seeds[1] == [[s] for s in agent_streams(11, 2)[0]]
    SEEN.clear()
    play_game([Spy(), Spy()], "magician", seed=5, agent_seed=12)
    assert [spy["reset"] for spy in SEEN] != seeds[0]


def test_the_arena_seeds_its_agents_apart_from_the_deal() -> None:
    config = ArenaConfig(agents=("spy", "random"), num_players=2, games=4, level="apprentice", seed=3)
    for game_index in range(4):
        SEEN.clear()
        record = play_one((config.fields(), game_index))
        _, deal = seating(config, game_index)
        assert record["seed"] == deal
        seat_seeds, _ = agent_streams(agent_seed(config, game_index), 2)
        spy = SEEN[0]
        assert spy["made"] in seat_seeds and spy["reset"] == [spy["made"]]
        assert all(spy["made"] not in (deal * 8 + k, deal) for k in range(2))


def _files(folder: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in sorted(folder.iterdir()) if path.is_file())


def test_a_blind_run_keeps_its_seed_secret_until_it_ends(tmp_path: Path) -> None:
    args = ["arena", "--agents", "random,spy", "--games", "4", "--level", "apprentice", "--no-progress"]
    args += ["--workers", "1", "--out", str(tmp_path), "--seed", "random"]
    runner = CliRunner()
    stopped = Arena.run

    def interrupted(self, workers=1, progress=True, limit=None):  # the first run stops after two games
        return stopped(self, workers, progress, limit=2)

    try:
        Arena.run = interrupted
        first = runner.invoke(main, args)
    finally:
        Arena.run = stopped
    assert first.exit_code == 0, first.output
    secret = int((tmp_path / "arena.secret").read_text())
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [r["game_index"] for r in records] == [0, 1]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["secret_seed"] == secret and str(secret) in first.output  # this run ended: revealed
    (tmp_path / "results.json").unlink()
    for name in ("index.html", "ratings.csv", "crosstable.csv", "arena.png"):
        (tmp_path / name).unlink()
    for path in tmp_path.glob("replay-*.html"):
        path.unlink()
    # While the run goes on, nothing but the secret file names the seed or a deal it gives another block.
    shown = _files(tmp_path).replace((tmp_path / "arena.secret").read_text(), "")
    assert str(secret) not in shown and json.loads((tmp_path / "config.json").read_text())["seed"] is None
    config = ArenaConfig(agents=("random", "spy"), num_players=2, games=4, level="apprentice", seed=secret, blind=True)
    later = seating(config, 2)[1]
    assert str(later) not in shown and all(r["seed"] != later for r in records)
    assert seating(config, 0)[1] != secret * 1_000_003  # a digest of the secret, not a line through it
    # Rerun: the same secret, the missing games, and the seed written with the results at the end.
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [r["seed"] for r in records] == [seating(config, g)[1] for g in range(4)]
    assert json.loads((tmp_path / "results.json").read_text())["secret_seed"] == secret
    assert f"blind run: its secret seed was {secret}" in second.output


def test_a_blind_run_refuses_a_folder_of_a_public_one(tmp_path: Path) -> None:
    config = ArenaConfig(agents=("random", "spy"), num_players=2, games=2, level="apprentice", seed=0)
    Arena(config, tmp_path).run(progress=False)
    args = ["arena", "--agents", "random,spy", "--games", "2", "--level", "apprentice", "--no-progress"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--seed", "random"])
    assert result.exit_code != 0 and "not blind" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "arena.secret").exists()
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "x"), "--seed", "sometimes"])
    assert result.exit_code == 2 and "or 'random'; got 'sometimes'" in result.output
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "arena.secret").write_text("12ab\n")
    (damaged / "arena.secret").chmod(0o600)
    result = CliRunner().invoke(main, [*args, "--out", str(damaged), "--seed", "random"])
    assert result.exit_code == 1 and "arena.secret: must hold the blind run's secret seed" in result.output
    assert "Traceback" not in result.output and sorted(p.name for p in damaged.iterdir()) == ["arena.secret"]


@pytest.mark.skipif(os.name != "posix", reason="owner-only file modes are POSIX")
def test_a_blind_runs_secret_is_private_from_its_creation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 item 2: the secret's file (its temporary too) is 0600 from the start, not made private after the
    rename: another user polling the folder never finds it readable."""
    renamed = []
    real_replace = os.replace

    def replace(source, target):  # the mode the file has when it takes the secret's name
        renamed.append((Path(target).name, stat.S_IMODE(os.stat(source).st_mode)))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    previous = os.umask(0o022)  # a usual umask: a plain new file would be 0644
    try:
        seed = secret_seed(tmp_path / "blind")
    finally:
        os.umask(previous)
    assert renamed == [("arena.secret", 0o600)]
    path = tmp_path / "blind" / "arena.secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and int(path.read_text()) == seed
    assert [p.name for p in path.parent.iterdir()] == ["arena.secret"]  # no temporary left


@pytest.mark.skipif(os.name != "posix", reason="owner-only file modes are POSIX")
def test_a_blind_run_refuses_to_resume_with_a_secret_others_can_read(tmp_path: Path) -> None:
    """Issue 44 item 2: a kept secret that other users can read is refused (the run may no longer be blind) with
    what to do, and nothing is changed; made private again, the run resumes with it."""
    folder = tmp_path / "blind"
    seed = secret_seed(folder)
    secret = folder / "arena.secret"
    secret.chmod(0o644)
    args = ["arena", "--agents", "random,heuristic", "--games", "1", "--level", "apprentice", "--no-progress"]
    args += ["--workers", "1", "--out", str(folder), "--seed", "random"]
    result = run_installed(args, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "can be read by other users (mode 0644, must be 0600)" in result.stderr
    assert f"chmod 600 {secret}" in result.stderr and "another folder" in result.stderr
    assert "Traceback" not in result.stderr
    assert stat.S_IMODE(secret.stat().st_mode) == 0o644 and [p.name for p in folder.iterdir()] == ["arena.secret"]
    secret.chmod(0o600)
    assert secret_seed(folder) == seed
    link = tmp_path / "link"
    link.mkdir()
    (link / "arena.secret").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="cannot read"):
        secret_seed(link)


def test_the_agents_stream_reveals_no_deal_of_a_public_run() -> None:
    """The agents' seeds of a public run are digests of the arena's seed and the game: none is a deal's seed or
    the old ``deal * 8 + seat``."""
    config = ArenaConfig(agents=("random", "spy"), num_players=2, games=4, seed=7)
    seeds = {agent_seed(config, g) for g in range(4)}
    deals = {seating(config, g)[1] for g in range(4)}
    assert len(seeds) == 4 and not seeds & deals and not {d * 8 + k for d in deals for k in range(2)} & seeds
    assert np.all(np.array(sorted(seeds)) < 2**63)
