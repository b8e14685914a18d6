"""Output files (seasons_env.files and every command that writes one): links, pipes and devices are written
through, never replaced, and a destination that cannot be written is refused before any work starts."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from seasons_env import Game
from seasons_env.cli import main
from seasons_env.files import write_atomic
from seasons_env.replay import make_record


def _record_file(folder: Path) -> Path:
    """A short unfinished game's record (a replay of it takes no time)."""
    game = Game.new(2, "apprentice", seed=2)
    rng = np.random.default_rng(2)
    actions = []
    for _ in range(6):
        legal = game.legal_action_list()
        actions.append(legal[int(rng.integers(len(legal)))])
        game.apply(actions[-1])
    path = folder / "record.json"
    path.write_text(json.dumps(make_record(2, "apprentice", 2, actions)))
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and /dev/null are POSIX")
def test_a_link_a_pipe_or_a_device_is_written_through_never_replaced(tmp_path: Path) -> None:
    # a symbolic link stays a link; the file it points to gets the new bytes, atomically
    target, link = tmp_path / "real.html", tmp_path / "link.html"
    target.write_bytes(b"old")
    link.symlink_to(target.name)
    write_atomic(link, b"new")
    assert link.is_symlink() and os.readlink(link) == target.name and target.read_bytes() == b"new"
    # and so through the command: --html onto a link
    result = CliRunner().invoke(main, ["replay", str(_record_file(tmp_path)), "--html", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and target.read_bytes().startswith(b"<!doctype html>")
    # a named pipe is written into (a reader gets the bytes), and is still a pipe; so through a link to one (as
    # /dev/stdout is when the output is piped)
    pipe, pipe_link = tmp_path / "pipe.gif", tmp_path / "stdout"
    os.mkfifo(pipe)
    pipe_link.symlink_to(pipe)
    for name in (pipe, pipe_link):
        received: list[bytes] = []
        reader = threading.Thread(target=lambda sink=received: sink.append(pipe.read_bytes()))
        reader.start()
        write_atomic(name, b"GIF89a...")
        reader.join(timeout=10)
        assert received == [b"GIF89a..."] and stat.S_ISFIFO(pipe.stat().st_mode) and pipe_link.is_symlink()
    # a character device is written into, never replaced by a regular file
    write_atomic("/dev/null", b"nothing")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    # anything else (a folder) is refused, naming it
    from seasons_env.files import OutputPathError

    with pytest.raises(OutputPathError, match=f"{tmp_path} is a folder, not a file"):
        write_atomic(tmp_path, b"x")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="/proc, a folder nobody can create files in, is Linux's")
def test_an_unwritable_destination_is_refused_before_any_work(tmp_path: Path) -> None:
    record = _record_file(tmp_path)
    plain_file = tmp_path / "plain.txt"
    plain_file.write_text("a file, not a folder")
    runner = CliRunner()
    cases = [
        # the game would be played and then lost at its end
        (["play", "--seed", "1", "--record", "/proc/game.json"], "'--record'", "/proc"),
        (["play", "--seed", "1", "--record", str(plain_file / "game.json")], "'--record'", "is a file, not a folder"),
        (["replay", str(record), "--png", "/proc/position.png"], "'--png'", "/proc"),
        (["replay", str(record), "--gif", "/proc/game.gif"], "'--gif'", "/proc"),
        (["arena", "--agents", "random,heuristic", "--games", "2", "--out", "/proc/arena"], "'--out'", "/proc"),
        (["arena", "--agents", "random,heuristic", "--out", str(plain_file / "arena")], "'--out'", "not a folder"),
        (["train", "--preset", "quick", "--out", "/proc/run"], "'--out'", "/proc"),
    ]
    for args, option, fault in cases:
        result = runner.invoke(main, args, input="q\n")
        assert result.exit_code == 2, (args, result.output, result.exception)
        assert option in result.output and fault in result.output and "Traceback" not in result.output, args
        assert "Seasons, 2 players" not in result.output  # no game was started
    assert sorted(path.name for path in tmp_path.iterdir()) == ["plain.txt", "record.json"]  # nothing written
