"""The HTTP server of ``seasons play --web`` under hostile or careless clients: the page's token reaches the
browser through a one-time address and a cookie (never a command line); a body nested too deep or a strange
Content-Length gets 400; stalled or idle connections time out and cannot crowd out the player (real sockets on
127.0.0.1, bounded in number and time)."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from web_play import web_server

from seasons_agents import web_server as server_module


def raw(
    server, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request as sent (no redirect followed, no token added): status, headers, body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def _path(address: str) -> str:
    """The path and query of an address."""
    parts = urlsplit(address)
    return f"{parts.path}?{parts.query}"


def _cookie_of(headers: http.client.HTTPMessage) -> str:
    """``name=value`` of the answer's Set-Cookie, after checking its attributes."""
    cookie = headers["Set-Cookie"]
    attributes = [part.strip() for part in cookie.split(";")]
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(attributes[1:]), cookie
    assert not any(part.lower().startswith(("max-age", "expires", "domain")) for part in attributes[1:]), cookie
    return attributes[0]


def test_the_one_time_address_is_exchanged_for_a_cookie_once(tmp_path: Path) -> None:
    with web_server(tmp_path) as server:
        token, port = server.table.token, server.server_address[1]
        address = server.browser_url()
        assert token not in address and address.startswith(f"http://127.0.0.1:{port}/?once=")
        path = _path(address) + "&pause=0"
        assert raw(server, "HEAD", path)[0] == 405  # does not spend the code
        status, headers, _ = raw(server, "GET", path)
        assert status == 303 and headers["Location"] == "/?pause=0"  # neither the code nor the token
        cookie = _cookie_of(headers)
        assert cookie == f"seasons_play_{port}={token}"
        # The code is spent: the same address again is refused, and so is a code that was never issued.
        status, _, body = raw(server, "GET", path)
        assert status == 403 and "used already or has expired" in json.loads(body)["error"]
        assert raw(server, "GET", "/?once=" + "x" * 24)[0] == 403
        # With the cookie: the page, the state, an action, the replay link's address; no token in any address.
        status, _, page = raw(server, "GET", "/?pause=0", {"Cookie": cookie})
        assert status == 200 and b"<script" in page
        status, _, body = raw(server, "GET", "/api/state?token=", {"Cookie": cookie})
        now = json.loads(body)
        assert status == 200 and now["legal"]
        sent = json.dumps({"action": now["legal"][0]["action"], "move": now["move"]}).encode()
        posted = {"Cookie": cookie, "Content-Type": "application/json"}
        assert raw(server, "POST", "/api/action", posted, sent)[0] == 200
        # Another value, another port's cookie, or a wrong token beside a good cookie: refused.
        for headers in (
            {"Cookie": f"seasons_play_{port}={token}x"},
            {"Cookie": f"seasons_play_{port + 1}={token}"},
            {"Cookie": "garbage;;=\x7f"},
        ):
            assert raw(server, "GET", "/api/state", headers)[0] == 403, headers
        assert raw(server, "GET", "/api/state?token=wrong", {"Cookie": cookie})[0] == 403


def test_a_one_time_code_expires_and_a_new_one_replaces_the_last(tmp_path: Path, monkeypatch) -> None:
    with web_server(tmp_path) as server:
        first, second = _path(server.browser_url()), _path(server.browser_url())
        assert raw(server, "GET", first)[0] == 403  # replaced by the second
        monkeypatch.setattr(server_module, "ONE_TIME_SECONDS", -1.0)
        assert raw(server, "GET", _path(server.browser_url()))[0] == 403  # expired
        assert raw(server, "GET", second)[0] == 403  # the newest code alone was valid, and it is spent now


def test_the_printed_address_sets_the_cookie_and_scripts_use_the_token(tmp_path: Path) -> None:
    with web_server(tmp_path) as server:
        token = server.table.token
        status, headers, _ = raw(server, "GET", f"/?token={token}&pause=5")
        assert status == 303 and headers["Location"] == "/?pause=5" and _cookie_of(headers).endswith(f"={token}")
        assert raw(server, "GET", "/?token=wrong")[0] == 403
        # A script: the token in the address, or in an Authorization header (which stays out of any log of addresses).
        assert raw(server, "GET", f"/api/state?token={token}")[0] == 200
        assert raw(server, "GET", "/api/state", {"Authorization": f"Bearer {token}"})[0] == 200
        assert raw(server, "GET", "/api/state", {"Authorization": f"Bearer {token}x"})[0] == 403
        assert raw(server, "GET", "/api/state", {"Authorization": token})[0] == 403
        assert raw(server, "GET", "/api/state")[0] == 403
        # The exchange too answers only this server's own host and origins.
        assert raw(server, "GET", f"/?token={token}", {"Origin": "http://evil.example"})[0] == 403
        assert raw(server, "GET", _path(server.browser_url()), {"Host": "evil.example:1"})[0] == 403


# ---------------------------------------------------------------------------- bodies the server cannot parse


def test_a_strange_content_length_or_a_deeply_nested_body_gets_400(tmp_path: Path, capfd) -> None:
    # With a higher recursion limit (another library may have raised it) the JSON parser reads any depth: the server's
    # own limit must refuse a deep body all the same.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        _strange_bodies(tmp_path, capfd)
    finally:
        sys.setrecursionlimit(limit)


def _strange_bodies(tmp_path: Path, capfd) -> None:
    with web_server(tmp_path) as server:
        token, before = server.table.token, (tmp_path / "game.json").read_bytes()
        sent = {"Content-Type": "application/json"}
        for length in ("²", "1³", "1_0", "+10", "-1", "1e3", "9" * 30):
            status, _, body = raw(server, "POST", f"/api/action?token={token}", {**sent, "Content-Length": length})
            assert status == 400, length
            assert "Content-Length of decimal digits" in json.loads(body)["error"]
        for nested in (b"[" * 1500 + b"]" * 1500, b'{"action": ' + b"[" * 1500 + b"]" * 1500 + b', "move": 0}'):
            status, _, body = raw(server, "POST", f"/api/action?token={token}", sent, nested)
            assert status == 400 and "nested too deeply" in json.loads(body)["error"]
        # Nested less deep than the server's limit: parsed, then refused by what it is (the message stays short).
        for depth in (50, server_module.MAX_NESTING - 1):
            nested = b'{"action": ' + b"[" * depth + b"]" * depth + b', "move": 0}'
            status, _, body = raw(server, "POST", f"/api/action?token={token}", sent, nested)
            message = json.loads(body)["error"]
            assert status == 400 and "action must be an integer" in message and len(message) < 200
        assert (tmp_path / "game.json").read_bytes() == before
    assert "Traceback" not in capfd.readouterr().err


# ---------------------------------------------------------------------------- slow, stalled and idle clients


def _connect(server) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10)
    client.settimeout(0.05)
    return client


def _closed_by_server(client: socket.socket, answers: dict | None = None) -> bool:
    """Whether the server has closed ``client`` (after any answer it sent: kept in ``answers[client]``); False
    while it is still open."""
    try:
        while chunk := client.recv(65536):
            if answers is not None:
                answers[client] = answers.get(client, b"") + chunk
        return True
    except TimeoutError:
        return False
    except ConnectionError:
        return True


def _handler_threads() -> int:
    return sum("process_request_thread" in thread.name for thread in threading.enumerate())


def test_stalled_requests_time_out_and_free_their_threads(tmp_path: Path) -> None:
    """A POST whose body stops, headers that trickle in byte by byte, a socket that sends nothing: each is closed
    after the request timeout (its thread ends), whatever the trickle; the player is answered meanwhile."""
    with web_server(tmp_path) as server:
        server.request_timeout = 1.0
        token, port = server.table.token, server.server_address[1]
        started = time.monotonic()
        stalled = [_connect(server) for _ in range(6)]
        for client in stalled[:3]:  # a body announced at 100 bytes, 10 sent
            client.sendall(
                f"POST /api/action?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"action":'.encode()
            )
        trickling = stalled[3]
        trickling.sendall(f"GET /api/state?token={token} HTTP/1.1\r\n".encode())
        assert raw(server, "GET", f"/api/state?token={token}")[0] == 200
        closed: dict[int, float] = {}
        answers: dict[socket.socket, bytes] = {}
        while len(closed) < len(stalled) and time.monotonic() - started < 6:
            if 3 not in closed:
                with contextlib.suppress(OSError):
                    trickling.send(b"X")  # a header that never ends, one byte every 50 ms
            for k, client in enumerate(stalled):
                if k not in closed and _closed_by_server(client, answers):
                    closed[k] = time.monotonic() - started
        assert sorted(closed) == list(range(len(stalled))), (
            f"still open after 6 s: {sorted(set(range(6)) - set(closed))}"
        )
        assert max(closed.values()) < 4, closed
        for client in stalled[:3]:  # the stalled bodies are told why
            assert answers[client].startswith(b"HTTP/1.0 408 ") and b"did not arrive within 1 s" in answers[client]
        deadline = time.monotonic() + 3
        while _handler_threads() > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _handler_threads() == 0 and server.open_connections() == 0
        for client in stalled:
            client.close()


def test_idle_sockets_beyond_the_cap_cannot_lock_the_player_out(tmp_path: Path) -> None:
    """Far more idle connections than the cap: the server keeps at most the cap open (dropping the longest
    waiting), and the player's requests are answered at once."""
    with web_server(tmp_path) as server:
        server.max_connections, server.request_timeout = 8, 30.0  # no timeout within the test: the cap alone acts
        token = server.table.token
        idle = [_connect(server) for _ in range(120)]
        try:
            started = time.monotonic()
            for _ in range(3):
                assert raw(server, "GET", f"/api/state?token={token}")[0] == 200
            assert time.monotonic() - started < 5
            still_open = sum(not _closed_by_server(client) for client in idle)
            assert still_open <= server.max_connections, still_open
            assert server.open_connections() <= server.max_connections
            deadline = time.monotonic() + 5  # the dropped connections' threads end as their reads return
            while _handler_threads() > server.max_connections and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _handler_threads() <= server.max_connections
        finally:
            for client in idle:
                client.close()


def test_the_documented_script_plays_a_whole_game(tmp_path: Path, capsys) -> None:
    """The script of docs/web.md, as written but for the address and the token, plays a game to its end."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "web.md").read_text(encoding="utf-8")
    (script,) = re.findall(r"```python[^\n]*\n(.*?)```", page, flags=re.DOTALL)
    with web_server(tmp_path, "random", 2, "apprentice", seed=5) as server:
        port, token = server.server_address[1], server.table.token
        assert 'url = "http://127.0.0.1:PORT"' in script and 'token = "TOKEN"' in script
        exec(script.replace(":PORT", f":{port}").replace('"TOKEN"', f'"{token}"'), {})
        record = json.loads((tmp_path / "game.json").read_text())
    assert capsys.readouterr().out.strip() == f"{record['scores']} {record['winners']}"
