"""Output files (seasons_env.files and every command that writes one): links, pipes and devices are written
through, never replaced, a destination that cannot be written is refused before any work starts, a file's mode
holds from its creation, and a killed writer's temporary is cleaned at the next write."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import stat
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from installed import run_installed

from seasons_env import Game
from seasons_env.cli import main
from seasons_env.files import STALE_SECONDS, current_umask, replace_atomically, temporary_pattern, write_atomic
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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a killed writer is simulated with a forked process")
def test_a_killed_writers_temporary_is_removed_at_the_next_write_and_nothing_else(tmp_path: Path) -> None:
    """Issue 44 item 15: kill -9 during a write leaves ``.NAME.XXXXXXXX.tmpSUFFIX``; the next write of NAME deletes
    it once no writer holds it, and keeps a live writer's temporary, young ones and every other file."""
    record = tmp_path / "game.json"
    write_atomic(record, b"{}\n")
    context = multiprocessing.get_context("fork")
    started = context.Event()

    def stalled_writer() -> None:  # a writer that is still at work: it holds its temporary's lock
        def write(temporary: Path) -> None:
            temporary.write_bytes(b'{"half": ')
            started.set()
            time.sleep(600)

        replace_atomically(record, write)

    writer = context.Process(target=stalled_writer, daemon=True)
    writer.start()
    try:
        assert started.wait(30)
        pattern = temporary_pattern(record)
        (held,) = [path for path in tmp_path.iterdir() if pattern.fullmatch(path.name)]
        old = time.time() - 2 * STALE_SECONDS
        dead = tmp_path / ".game.json.k2x_9qaz.tmp.json"  # a killed writer's: nobody holds it
        young = tmp_path / ".game.json.abcd1234.tmp.json"  # just made: its writer may not hold it yet
        others = [
            tmp_path / ".game.json.ABCD1234.tmp.json",  # not tempfile's letters
            tmp_path / ".game.json.abcd123.tmp.json",  # seven letters
            tmp_path / ".game.json.abcd1234.tmp.json.keep",
            tmp_path / ".other.json.abcd1234.tmp.json",  # another record's
            tmp_path / "game.json.bak",
            tmp_path / ".game.json.abcd1234.tmp.png",
        ]
        for path in [dead, young, *others]:
            path.write_bytes(b"x")
        for path in [held, dead, *others]:
            os.utime(path, (old, old))
        write_atomic(record, b'{"new": 1}\n')
        assert not dead.exists() and held.exists() and young.exists() and all(path.exists() for path in others)
        os.kill(writer.pid, signal.SIGKILL)  # kill -9: its lock goes with it, its temporary stays
        writer.join(30)
        assert held.exists()
        write_atomic(record, b'{"new": 2}\n')
        assert not held.exists() and young.exists() and all(path.exists() for path in others)
        assert record.read_bytes() == b'{"new": 2}\n'
    finally:
        if writer.is_alive():
            os.kill(writer.pid, signal.SIGKILL)
            writer.join(30)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="the umask is read from /proc/self/status")
def test_a_new_files_mode_is_found_without_changing_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 item 17: setting the umask to read it (``os.umask(0)``) would let another thread create a
    world-writable file in that moment; it is read from /proc/self/status instead."""
    previous = os.umask(0o027)
    try:

        def umask(mask: int) -> int:
            raise AssertionError(f"os.umask({mask:o}) called while writing a file")

        monkeypatch.setattr(os, "umask", umask)
        assert current_umask() == 0o027
        write_atomic(tmp_path / "new.txt", b"x")
        monkeypatch.undo()
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


@pytest.mark.skipif(os.name != "posix", reason="owner-only file modes are POSIX")
def test_a_mode_given_holds_from_the_files_creation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``write_atomic(..., mode=0o600)``: the temporary is never more open than the mode asked, and an existing
    file's wider mode is not kept."""
    path = tmp_path / "secret"
    path.write_bytes(b"old")
    path.chmod(0o644)
    seen = []
    real_replace = os.replace

    def replace(source, target):
        seen.append(stat.S_IMODE(os.stat(source).st_mode))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    write_atomic(path, b"new", mode=0o600)
    assert seen == [0o600] and stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_bytes() == b"new"


def _resumable_record(folder: Path, seed: int) -> dict:
    """The record of a web game one person has not finished (``seasons play --web --resume`` continues it)."""
    from seasons_agents.web_game import WebGame

    game = WebGame("random", 2, "apprentice", seed, [0], folder / f"web-{seed}.json")
    game.stop()
    return json.loads((folder / f"web-{seed}.json").read_text())


def test_resume_refuses_a_file_of_several_records_and_changes_nothing(tmp_path: Path) -> None:
    """Issue 44 item 4: resuming a JSON Lines file of three records wrote one record back over all three. A file
    of several records is refused (saying how to resume one of them), and left as it was; one record resumes."""
    lines = "".join(json.dumps(_resumable_record(tmp_path, seed)) + "\n" for seed in (1, 2, 3))
    for name in ("games.jsonl", "games.json"):  # JSON Lines under either suffix
        several = tmp_path / name
        several.write_text(lines)
        result = run_installed(["play", "--web", "--no-browser", "--resume", str(several)], timeout=120)
        assert result.returncode == 1, (result.stdout, result.stderr)
        assert f"{several} holds 3 records" in result.stderr and f"sed -n 1p {several} > game.json" in result.stderr
        assert "Traceback" not in result.stderr and result.stdout == "" and several.read_text() == lines
    from seasons_env.replay import read_game_file

    one = tmp_path / "one.jsonl"
    one.write_text(lines.splitlines(keepends=True)[1])
    assert read_game_file(one) == (f"{one} line 1", json.loads(lines.splitlines()[1]))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_resume_refuses_a_named_pipe_or_a_device_at_once(tmp_path: Path) -> None:
    """Issue 44 item 16: ``--resume`` of a named pipe waited for a writer without a word; anything but a regular
    file is refused at once, naming what it is."""
    pipe = tmp_path / "game.json"
    os.mkfifo(pipe)
    link = tmp_path / "link.json"
    link.symlink_to(pipe)
    for path, kind in ((pipe, "a named pipe"), (link, "a named pipe"), (Path("/dev/null"), "a character device")):
        result = run_installed(["play", "--web", "--no-browser", "--resume", str(path)], timeout=120)
        assert result.returncode == 1, (path, result.stdout, result.stderr)
        assert f"{path} is {kind}: a game is resumed from a regular file" in result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""
    assert stat.S_ISFIFO(pipe.stat().st_mode) and link.is_symlink()
