"""Ctrl-C and SIGTERM during any agent's decision: no crash, no traceback, the record written, exit 130 or 143.

``seasons_env.interrupts`` holds the signals while compiled code runs (a handler raising inside one of numba's
callbacks into Python gave ``SystemError: KernelDispatcher(...) returned a result with an exception set`` or a
crash); the compiled searches run in bounded calls so that a stop takes effect within one of them. Tested in the
process (signals fired at a compiled search over and over) and on the installed commands (``seasons play``,
``seasons arena``), stopped while a compiled search thinks.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import threading
import time
import traceback
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from installed import start_installed

from seasons_agents import search_kernel
from seasons_agents.ismcts_kernel import compiled_ismcts
from seasons_agents.learned import shipped_model_path
from seasons_agents.policy_ismcts import compiled_search
from seasons_env import Game
from seasons_env.interrupts import HELD, Stopped, deliver_held, exit_status, held_signals
from seasons_env.replay import load_replay


def _search_view(seed: int = 3) -> tuple[Game, int]:
    """A determinized view at the first turn decision with a choice (after the draft and the library split)."""
    rng = np.random.default_rng(seed)
    game = Game.new(2, "archmage", seed=seed)
    while len(game.legal_action_list()) < 2 or game.pending_decision in ("draft_pick", "library_split"):
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    seat = game.current_player
    return game.determinize(seat, rng), seat


# ---------------------------------------------------------------------- the holding, without compiled code


def test_a_held_signal_reaches_its_handler_between_calls_and_when_the_block_is_left() -> None:
    caught: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: caught.append(signum))
    try:
        with held_signals():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # a handler would have run by now
            assert caught == []
            deliver_held()  # between two compiled calls
            assert caught == [signal.SIGTERM]
            os.kill(os.getpid(), signal.SIGTERM)
            with held_signals():  # nested: one block
                pass
            assert caught == [signal.SIGTERM]
        assert caught == [signal.SIGTERM, signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_held_raises_keyboard_interrupt_once_the_block_is_left_and_the_handler_is_back() -> None:
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), held_signals():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)
        reached = True
    assert reached
    assert signal.getsignal(signal.SIGINT) is handler
    assert exit_status(KeyboardInterrupt()) == 130 and exit_status(Stopped(signal.SIGTERM)) == 143


def test_a_handler_raising_as_the_signals_are_blocked_leaves_them_unblocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal that arrived just before the handlers are swapped runs its handler as soon as the blocking call
    returns; if that handler raises, the held signals must not stay blocked (processes started afterwards inherit the
    mask: they would ignore Ctrl-C and SIGTERM)."""
    real = signal.pthread_sigmask

    def raising_after_blocking(how: int, mask) -> set:
        previous = real(how, mask)
        if how == signal.SIG_BLOCK and set(mask) & set(HELD):
            raise KeyboardInterrupt  # the handler of a signal that was pending
        return previous

    monkeypatch.setattr(signal, "pthread_sigmask", raising_after_blocking)
    try:
        with pytest.raises(KeyboardInterrupt), held_signals():
            pass
        monkeypatch.undo()
        blocked = set(signal.pthread_sigmask(signal.SIG_BLOCK, ())) & set(HELD)
    finally:
        real(signal.SIG_UNBLOCK, HELD)  # whatever happened, the rest of the suite gets them unblocked
    assert not blocked, blocked


# ---------------------------------------------------------------------- compiled searches in this process


class _Interrupt(Exception):
    """What the test's handler raises (only while a search runs: the test's own lines are never interrupted)."""


def _fire_at(
    searches, seconds: float, interrupts: int = 0, limit: float = 60.0, unexpected: list[str] | None = None
) -> dict[str, int]:
    """Run ``searches()`` over and over for ``seconds`` while another thread sends SIGINT every ~0.5 ms; count each
    outcome by the exception's type (``ok`` for a search that finished). Goes on past ``seconds`` (up to ``limit``)
    until ``interrupts`` searches were interrupted: on a loaded machine fewer searches fit in the time. The traceback
    of every exception other than the handler's goes to ``unexpected``, so that a failure shows where it came from."""
    armed = threading.Event()
    done = threading.Event()

    def handler(signum: int, frame: object) -> None:
        if armed.is_set():
            armed.clear()
            raise _Interrupt

    def fire() -> None:
        while not done.is_set():
            if armed.is_set():
                os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.0005)

    previous = signal.signal(signal.SIGINT, handler)
    firing = threading.Thread(target=fire, daemon=True)
    firing.start()
    outcomes: dict[str, int] = {}
    try:
        start = time.monotonic()
        k = 0

        def going() -> bool:
            elapsed = time.monotonic() - start
            return elapsed < seconds or (outcomes.get("_Interrupt", 0) < interrupts and elapsed < limit)

        while going():
            k += 1
            try:
                armed.set()
                searches(k)
                armed.clear()
                name = "ok"
            except BaseException as error:  # every kind is counted: a SystemError is the failure looked for
                armed.clear()
                name = type(error).__name__
                if unexpected is not None and not isinstance(error, _Interrupt):
                    unexpected.append("".join(traceback.format_exception(error))[-4000:])
            outcomes[name] = outcomes.get(name, 0) + 1
    finally:
        done.set()
        firing.join()
        signal.signal(signal.SIGINT, previous)
    return outcomes


@pytest.mark.parametrize("search", ["ismcts", "policy-ismcts"])
def test_signals_fired_at_a_compiled_search_only_ever_stop_it_cleanly(search: str) -> None:
    """Without the holding, about a quarter of these searches ended in a ``SystemError`` (the handler's exception
    raised inside numba's callback into Python) or a ``TypeError``; now each one stops with the handler's exception."""
    view, seat = _search_view()
    run = (compiled_ismcts() if search == "ismcts" else compiled_search(shipped_model_path())).run
    run(view, seat, 0, 4, 0.4, 5.0)  # loaded from the cache before the signals start
    unexpected: list[str] = []
    outcomes = _fire_at(lambda k: run(view, seat, k, 200, 0.4, 5.0), 3.0, 20, unexpected=unexpected)
    assert set(outcomes) <= {"_Interrupt", "ok"}, (outcomes, unexpected[:2])
    assert outcomes.get("_Interrupt", 0) >= 20, outcomes


def test_a_long_compiled_search_stops_within_a_fraction_of_a_second() -> None:
    """A million iterations (tens of seconds) stop within one call of ``_BUDGET_CALL`` iterations of the signal."""
    view, seat = _search_view()
    search = compiled_ismcts()
    search.run(view, seat, 0, 4, 0.4, 5.0)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            search.run(view, seat, 1, 1_000_000, 0.4, 5.0)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize("iterations", [300, 2000])
def test_a_search_in_bounded_calls_is_the_search_in_one_call(monkeypatch: pytest.MonkeyPatch, iterations: int) -> None:
    """The same visits and rewards in calls of 16 iterations (the first 24) as in one call, early stop included."""
    view, seat = _search_view(5)
    search = compiled_ismcts()
    found = []
    for call, offset in ((10**9, 0), (16, 8)):
        monkeypatch.setattr(search_kernel, "_BUDGET_CALL", call)
        monkeypatch.setattr(search_kernel, "_BUDGET_OFFSET", offset)
        found.append(search.run(view, seat, 7, iterations, 0.4, 5.0))
    (visits, rewards, ran), (visits2, rewards2, ran2) = found
    assert ran == ran2 and np.array_equal(visits, visits2) and np.array_equal(rewards, rewards2)
    assert ran <= iterations


# ---------------------------------------------------------------------- the installed commands


def _start_game(args: list[str], cwd: Path) -> subprocess.Popen:
    """``seasons play ARGS`` with answers ready on its input (option 1, every time) and its output read line by line."""
    process = start_installed(
        ["play", *args],
        cwd=cwd,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    process.stdin.write("1\n" * 400)
    process.stdin.flush()
    return process


def _read_until(process: subprocess.Popen, marker: str, seconds: float) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + seconds
    for line in process.stdout:
        lines.append(line)
        if marker in line or time.monotonic() > deadline:
            break
    return lines


def _stop_while_thinking(args: list[str], marker: str, signum: int, cwd: Path) -> tuple[int, str, float]:
    """Start a game, wait for the line ``marker`` (from there on the agent's compiled search runs), send ``signum`` a
    second later; the exit status, the whole output and the seconds from the signal to the end."""
    process = _start_game(args, cwd)
    try:
        before = _read_until(process, marker, seconds=600)
        time.sleep(1.0)
        process.send_signal(signum)
        sent = time.monotonic()
        rest, _ = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    return process.returncode, "".join(before) + rest, took


def _check_stopped(status: int, output: str, took: float, signum: int, record: Path, actions: int) -> None:
    assert status == 128 + signum, output[-3000:]
    assert "Traceback" not in output and "Segmentation fault" not in output and "Aborted" not in output, output[-3000:]
    assert f"Game stopped by {signal.Signals(signum).name}" in output, output[-3000:]
    assert took < 15, f"{took:.1f} s from the signal to the end"
    replay = load_replay(record)  # every action legal
    assert len(replay.record.actions) >= actions  # the moves made before the signal


#: ISMCTS leaves the draft and the library split to the heuristic: it searches from the first turn, when the board
#: shows the season dice; policy-ISMCTS searches from the first draft pick on.
_SEARCHING_FROM = {"ismcts": "Dice (", "policy-ismcts": "You chose:"}


@pytest.mark.parametrize(
    ("agent", "signum"),
    [("ismcts:100000", signal.SIGINT), ("ismcts:100000", signal.SIGTERM), ("policy-ismcts:100000", signal.SIGINT)],
)
def test_a_game_stopped_while_a_compiled_search_thinks_writes_its_record(
    tmp_path: Path, agent: str, signum: int
) -> None:
    record = tmp_path / "game.json"
    marker = _SEARCHING_FROM[agent.partition(":")[0]]
    args = ["--vs", agent, "--seed", "4", "--record", str(record)]
    status, output, took = _stop_while_thinking(args, marker, signum, tmp_path)
    _check_stopped(status, output, took, signum, record, actions=10 if marker == "Dice (" else 1)


def test_ctrl_c_at_the_prompt_stops_the_game_with_status_130(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    process = start_installed(
        ["play", "--vs", "random", "--seed", "4", "--record", str(record)],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        before = _read_until(process, "Player 0 (you)", seconds=120)  # the options follow, then the prompt
        time.sleep(0.5)  # at the prompt, reading
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        rest, _ = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    output = "".join(before) + rest
    assert process.returncode == 130, output[-3000:]
    assert "Traceback" not in output and "Game stopped by SIGINT" in output, output[-3000:]
    assert took < 15
    load_replay(record)


def test_an_arena_stopped_while_a_compiled_search_thinks_exits_130(tmp_path: Path) -> None:
    """One game in the arena's own process (one worker): Ctrl-C while ISMCTS searches stops the run within a call of
    the bounded search, with the arena's message and status."""
    out = tmp_path / "arena"
    process = start_installed(
        [
            *("arena", "--agents", "ismcts:100000,random", "--games", "1", "--workers", "1", "--no-progress"),
            *("--seed", "3", "--out", str(out)),
        ],
        cwd=tmp_path,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 600
        while not (out / "games.jsonl").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(3.0)  # the draft (the heuristic's) is over: the search runs
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = process.communicate(timeout=120)
        took = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err and "arena stopped by SIGINT" in err, err
    assert took < 15, f"{took:.1f} s from the signal to the end"


def _start_train(args: list[str], cwd: Path) -> subprocess.Popen:
    return start_installed(
        ["train", *args, "--no-progress"],
        cwd=cwd,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_seasons_train_stopped_by_ctrl_c_in_a_warm_start_stage_exits_130_and_resumes(tmp_path: Path) -> None:
    """It exited 0, as if it had finished."""
    from seasons_training.pipeline import TrainingRun

    out = tmp_path / "run"
    process = _start_train(["--preset", "smoke", "--out", str(out)], tmp_path)
    try:
        before = _read_until(process, "stage data: started", seconds=300)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    output = "".join(before) + rest
    assert process.returncode == 130, output
    assert "Traceback" not in output and "--resume runs it again" in output, output
    assert TrainingRun.resume(out, log=lambda _: None).config.steps == 384  # resumable


def test_seasons_train_stopped_by_sigterm_in_ppo_exits_143_with_a_resumable_checkpoint(tmp_path: Path) -> None:
    from seasons_training.ppo import CHECKPOINT, Trainer

    out = tmp_path / "run"
    process = _start_train(["--preset", "smoke", "--init", "", "--steps", "100000", "--out", str(out)], tmp_path)
    try:
        deadline = time.monotonic() + 300
        while not (out / "history.jsonl").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # written once PPO's handlers are in place
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 143, output
    assert "Traceback" not in output and "stopped at step" in output, output
    assert (out / CHECKPOINT).is_file()
    assert Trainer.resume(out, log=lambda _: None).steps % 128 == 0


def _web_call(url: str, path: str, body: dict | None = None) -> dict:
    base, token = url.split("/?token=")
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    request = urllib.request.Request(f"{base}{path}?token={token}", data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def _web_call_ended_by_the_stop(url: str, move: dict) -> None:
    with contextlib.suppress(OSError, http.client.HTTPException):  # the server stops before it answers
        _web_call(url, "/api/action", move)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_web_server_stopped_while_a_compiled_search_thinks_keeps_the_record(tmp_path: Path, signum: int) -> None:
    """The agents think in a thread of the server: the server stops (130 or 143) with the game on disk, and the search
    under way ends with the process, without a crash."""
    record = tmp_path / "game.json"
    process = start_installed(
        ["play", "--web", "--no-browser", "--vs", "ismcts:100000", "--seed", "4", "--record", str(record)],
        cwd=tmp_path,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().strip()
        now = _web_call(url, "/api/state")
        while now["moves"] < 25:  # the draft and the library split (the agent's heuristic answers them)
            now = _web_call(url, "/api/action", {"action": now["legal"][0]["action"], "move": now["move"]})
        # answered once the agent's search is over: sent meanwhile
        move = {"action": now["legal"][0]["action"], "move": now["move"]}
        threading.Thread(target=_web_call_ended_by_the_stop, args=(url, move)).start()
        time.sleep(1.5)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err and "Segmentation fault" not in err, err
    assert "Server stopped" in out
    assert len(load_replay(record).record.actions) >= 25
