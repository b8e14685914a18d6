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
            answers = [decide(request) for request in requests]
        except Exception:  # sent back whole, to be raised in the parent
            answers_out.send(("error", traceback.format_exc()))
        else:
            answers_out.send(("ok", answers))


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

    def close(self) -> None:
        self._out.close()
        self._in.close()


@dataclass
class Submitted:
    """Requests under way: those to answer here, and each worker's share as sent."""

    here: list[Request]
    sent: list[tuple[_Pipes, list[Request]]]

    @property
    def requests(self) -> list[Request]:
        """Every request, in the order given (and of the actions ``collect`` returns)."""
        return self.here + [request for _, part in self.sent for request in part]


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
        """Send the workers their shares of ``requests`` now; ``collect`` answers the rest here and gathers theirs
        (in between, this process is free for other work)."""
        requests = list(requests)
        if self.workers == 0 or len(requests) < 2:
            return Submitted(requests, [])
        self._start()
        # Contiguous shares, the first for this process (it needs no pickling): one each, as even as can be.
        shares = self.workers + 1
        bounds = [len(requests) * k // shares for k in range(shares + 1)]
        sent = []
        for k, connection in enumerate(self._connections, start=1):
            part = requests[bounds[k] : bounds[k + 1]]
            if part:
                connection.send(part)
                sent.append((connection, part))
        return Submitted(requests[: bounds[1]], sent)

    def collect(self, submitted: Submitted) -> list[int]:
        """The actions of the requests ``submit`` was given, in their order."""
        actions = [self._here(request) for request in submitted.here]
        for connection, part in submitted.sent:
            try:
                status, answers = connection.recv()
            except EOFError:
                self.close()
                raise RuntimeError("a heuristic worker process ended unexpectedly") from None
            if status != "ok":
                self.close()
                raise RuntimeError(f"a heuristic worker failed:\n{answers}")
            for request, (action, agent) in zip(part, answers, strict=True):
                request.agent = agent
                actions.append(action)
        return actions

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
