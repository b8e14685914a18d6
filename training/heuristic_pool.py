"""The heuristic seats' decisions of a round, answered in parallel: this process and ``workers`` others.

In self-play the heuristic opponent's decisions are by far the dearest part of a step (each is a determinized
copy of the game and a one-ply search in Python), and a round of ``SelfPlayGames`` asks many of them at once,
one per game waiting on a heuristic seat. ``HeuristicPool.decide`` splits such a round between this process and
its worker processes. A request carries everything its answer depends on: the agent's state (its generator and
its library-split plan), the position as its row's bytes (``VectorGame.row_bytes``), the seat and the legal
actions; the answer is the action and the agent's state afterwards. So the answers do not depend on which
process computed them or on how many workers there are: ``workers=0`` (everything here) gives the same games,
byte for byte.

The workers start on first use (fresh interpreters running ``serve``) and live until ``close()``; they ignore
Ctrl-C, which the training loop handles, and end when this process closes their input or ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for

from agents.heuristic import HeuristicAgent
from seasons_env.vector.arrays import game_of_row_bytes


@dataclass
class Request:
    """One heuristic decision: the agent (``HeuristicAgent.state_dict()``) plays ``seat`` of the game whose row
    is ``row`` (``VectorGame.row_bytes``; ``num_players``), among ``legal``. ``agent`` is replaced by the
    agent's state after the decision."""

    agent: dict
    row: bytes
    num_players: int
    seat: int
    legal: list[int]


_AGENT = HeuristicAgent(0)  # each process's agent, loaded with a request's state: no generator is built per decision


def decide(request: Request) -> tuple[int, dict]:
    """The agent's action and its state after it. Its view is the game determinized for its seat with the
    agent's own generator (nothing else draws from it but the draft's tie-breaks), so the answer depends on the
    request alone."""
    _AGENT.load_state_dict(request.agent)
    game = game_of_row_bytes(request.row, request.num_players)
    view = game.determinize(request.seat, _AGENT.rng)
    action = _AGENT.act(view, request.seat, request.legal)
    return int(action), _AGENT.state_dict()


def serve() -> None:
    """A worker's loop: lists of requests in on standard input, their answers out on standard output, until
    ``None`` or the end of the input."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it checkpoints, then closes us
    requests_in = Connection(os.dup(sys.stdin.fileno()), writable=False)
    answers_out = Connection(os.dup(sys.stdout.fileno()), readable=False)
    sys.stdout = sys.stderr  # nothing else may write into the answers' stream
    while True:
        try:
            requests = requests_in.recv()
        except EOFError:
            return
        if requests is None:
            return
        try:
            reply = ("ok", [decide(request) for request in requests])
        except Exception:  # sent back whole, to be raised in the parent
            reply = ("error", traceback.format_exc())
        try:
            answers_out.send(reply)
        except OSError:  # the parent is gone (its end of the pipe closed): nothing is waiting for the answer
            return


class _Pipes:
    """A worker's two pipes as one connection: requests to its standard input, answers from its output."""

    def __init__(self, process: subprocess.Popen) -> None:
        # Connections of their own descriptors (they close them); the Popen's file objects are not needed.
        self._out = Connection(os.dup(process.stdin.fileno()), readable=False)
        self._in = Connection(os.dup(process.stdout.fileno()), writable=False)
        process.stdin.close()
        process.stdout.close()

    def send(self, value: object) -> None:
        self._out.send(value)

    def recv(self) -> object:
        return self._in.recv()

    def poll(self) -> bool:
        return self._in.poll()

    def fileno(self) -> int:  # for ``multiprocessing.connection.wait``
        return self._in.fileno()

    def close(self) -> None:
        self._out.close()
        self._in.close()


class Submitted:
    """Requests under way: ``requests[:front]`` answered here, ``requests[back:]`` sent to workers (``busy``:
    each worker's share under way, as (start, end), or ``None``), the rest still to answer."""

    def __init__(self, requests: list[Request]) -> None:
        self.requests = requests
        self.actions: list[int | None] = [None] * len(requests)
        self.front, self.back = 0, len(requests)
        self.busy: list[tuple[int, int] | None] = []


class HeuristicPool:
    """Answers lists of heuristic ``Request``\\ s here and in ``workers`` worker processes (0: here only)."""

    def __init__(self, workers: int = 0) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"heuristic workers must be an int >= 0; got {workers!r}")
        self.workers = workers
        self._processes: list[subprocess.Popen] = []
        self._connections: list[_Pipes] = []

    def decide(self, requests: Sequence[Request]) -> list[int]:
        """The action of every request, in order; each request's agent is replaced by its state afterwards."""
        return self.collect(self.submit(requests))

    def submit(self, requests: Sequence[Request]) -> Submitted:
        """Send each worker a first share of ``requests`` now; ``collect`` answers the rest (in between, this
        process is free for other work)."""
        submitted = Submitted(list(requests))
        if self.workers and len(submitted.requests) >= 2:
            self._start()
            submitted.busy = [None] * self.workers
            self._feed(submitted)
        return submitted

    def collect(self, submitted: Submitted) -> list[int]:
        """The actions of the requests ``submit`` was given, in their order. This process answers them from the
        front while the workers take shares from the back, each a new one as soon as it is done, so that all
        finish about together whatever the requests cost."""
        requests, actions = submitted.requests, submitted.actions
        while True:
            if submitted.front < submitted.back:
                request = requests[submitted.front]
                actions[submitted.front] = self._here(request)
                submitted.front += 1
                ready = [k for k, share in enumerate(submitted.busy) if share and self._connections[k].poll()]
            elif any(submitted.busy):
                waiting = [self._connections[k] for k, share in enumerate(submitted.busy) if share]
                ready = [self._connections.index(c) for c in wait_for(waiting)]
            else:
                return actions
            for k in ready:
                self._receive(submitted, k)
            self._feed(submitted)

    def _feed(self, submitted: Submitted) -> None:
        """Give every idle worker the next share from the back: its even share of what is left (guided
        scheduling: large at first, single requests at the end)."""
        for k, share in enumerate(submitted.busy):
            left = submitted.back - submitted.front
            if share is not None or left < 2:  # the last request is this process's: no round trip for it
                continue
            size = max(1, left // (self.workers + 1))
            start = submitted.back - size
            self._connections[k].send(submitted.requests[start : submitted.back])
            submitted.busy[k] = (start, submitted.back)
            submitted.back = start

    def _receive(self, submitted: Submitted, k: int) -> None:
        start, end = submitted.busy[k]
        try:
            status, answers = self._connections[k].recv()
        except EOFError:
            self.close()
            raise RuntimeError("a heuristic worker process ended unexpectedly") from None
        if status != "ok":
            self.close()
            raise RuntimeError(f"a heuristic worker failed:\n{answers}")
        for index, (action, agent) in zip(range(start, end), answers, strict=True):
            submitted.requests[index].agent = agent
            submitted.actions[index] = action
        submitted.busy[k] = None

    @staticmethod
    def _here(request: Request) -> int:
        action, request.agent = decide(request)
        return action

    def _start(self) -> None:
        if self._processes:
            return
        # A fresh interpreter running only ``serve`` (not multiprocessing's spawn, which would import the
        # caller's main script again, nor fork, unsafe under torch's threads), on the same import path.
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        for _ in range(self.workers):
            process = subprocess.Popen(
                [sys.executable, "-c", "from training.heuristic_pool import serve; serve()"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=environment,
            )
            self._processes.append(process)
            self._connections.append(_Pipes(process))

    def close(self) -> None:
        """End the worker processes (started again if the pool is used after)."""
        for connection in self._connections:
            with contextlib.suppress(OSError):  # a worker already gone
                connection.send(None)
            connection.close()
        for process in self._processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes, self._connections = [], []

    def __enter__(self) -> HeuristicPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a pool dropped without close(): its workers still end
        with contextlib.suppress(Exception):  # at interpreter exit modules may already be gone
            self.close()
