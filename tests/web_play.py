"""A ``seasons play --web`` server run in the test process (a thread), for the web tests."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from seasons_agents.web_game import WebGame
from seasons_agents.web_server import PlayServer, Table


@contextmanager
def web_server(
    tmp_path: Path,
    opponent: str = "random",
    num_players: int = 2,
    level: str = "archmage",
    seed: int = 1,
    seat: int = 0,
    record: Path | None = None,
    resume: Path | None = None,
    agent_factory=None,
) -> Iterator[PlayServer]:
    """A server with one game, listening on a free port; stopped at the end. The agents' seeds are the deal's (the
    command draws them at random), so that a test's game, its clicks given, is the same at every run."""
    if resume is not None:
        game = WebGame.resume(resume)
    else:
        record = record or tmp_path / "game.json"
        game = WebGame(opponent, num_players, level, seed, seat, record, agent_factory=agent_factory, agent_seed=seed)
    table = Table(
        game,
        lambda: WebGame(opponent, num_players, level, seed + 1, seat, tmp_path / "next.json", agent_seed=seed + 1),
    )
    server = PlayServer(table)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        table.game.stop()


def base_url(server: PlayServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def request(
    server: PlayServer,
    method: str,
    path: str,
    body: bytes | None = None,
    token: str | None = "",
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """``(status, body)`` of a request; ``token=""`` uses the server's, None sends none."""
    token = server.table.token if token == "" else token
    query = "" if token is None else f"?token={token}"
    sent = {"Content-Type": "application/json"} if body is not None else {}
    sent.update(headers or {})
    call = urllib.request.Request(base_url(server) + path + query, data=body, method=method, headers=sent)
    try:
        with urllib.request.urlopen(call, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def state(server: PlayServer) -> dict:
    status, body = request(server, "GET", "/api/state")
    assert status == 200, body
    return json.loads(body)


def act(server: PlayServer, action: int, move: int | None = None) -> tuple[int, dict]:
    """POST ``action`` at move number ``move`` (default: the game's current move, as the page sends it)."""
    move = state(server)["move"] if move is None else move
    status, body = request(server, "POST", "/api/action", json.dumps({"action": action, "move": move}).encode())
    return status, json.loads(body)
