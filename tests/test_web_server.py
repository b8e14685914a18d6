"""The HTTP server of ``seasons play --web`` under hostile or careless clients: the page's token reaches the
browser through a one-time address and a cookie (never a command line); a body nested too deep or a strange
Content-Length gets 400; stalled or idle connections time out and cannot crowd out the player (real sockets on
127.0.0.1, bounded in number and time)."""

from __future__ import annotations

import http.client
import json
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
