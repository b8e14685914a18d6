"""``seasons play --web`` as a user runs it: the installed console script started from a temporary folder (no
``PYTHONPATH``, not in the checkout, ``tests/installed.py``). Every file the page references loads; a killed
server's record resumes to the same position; Ctrl-C and SIGTERM stop it with the record kept."""

from __future__ import annotations

import http.cookiejar
import json
import re
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from installed import start_installed

from seasons_env.replay import Replay, parse_record


def _start(args: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    """The installed ``seasons play --web --no-browser ARGS`` started in ``cwd``, and the address it printed."""
    process = start_installed(
        ["play", "--web", "--no-browser", *args],
        cwd=cwd,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = process.stdout.readline().strip()
    if not (url.startswith("http://127.0.0.1:") and "/?token=" in url):
        process.kill()
        raise AssertionError(f"no address printed: {url!r} {process.communicate()[1]}")
    return process, url


def _http(url: str, path: str, body: dict | None = None) -> dict:
    base, token = url.split("/?token=")
    data = None if body is None else json.dumps(body).encode()
    call = urllib.request.Request(
        f"{base}{path}?token={token}", data=data, headers={"Content-Type": "application/json"} if data else {}
    )
    with urllib.request.urlopen(call, timeout=60) as response:
        return json.loads(response.read())


def _act(url: str, now: dict, action: int) -> dict:
    """Play ``action`` in the position ``now`` (a state the server answered)."""
    return _http(url, "/api/action", {"action": action, "move": now["move"]})


def _references(page: str, content_type: str) -> set[str]:
    """The files an HTML page or a style sheet references (scripts, style sheets, icons, images, fonts); inline
    ``data:`` addresses are not files."""
    if "css" in content_type:
        found = re.findall(r"""url\(\s*['"]?([^'")]+)""", page)
        found += re.findall(r"""@import\s+['"]([^'"]+)""", page)
    else:
        found = re.findall(r"""<(?:script|img|source|link)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)""", page)
        found += re.findall(r"""<[^>]+\bsrcset\s*=\s*["']([^"'\s]+)""", page)
    return {address for address in found if not address.startswith("data:")}


def test_the_installed_command_serves_every_file_the_page_references(tmp_path: Path) -> None:
    process, url = _start(["--vs", "random", "--seed", "3", "--record", str(tmp_path / "game.json")], tmp_path)
    try:
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with browser.open(url, timeout=30) as response:
            assert response.status == 200
            page = response.read().decode("utf-8")
            page_address = response.url
        pending = [urllib.parse.urljoin(page_address, address) for address in _references(page, "text/html")]
        assert len(pending) >= 3, pending  # board.js, play.js, play.css at least
        loaded: dict[str, int] = {}
        while pending:
            address = pending.pop()
            if address in loaded:
                continue
            assert address.startswith(url.split("/?")[0] + "/"), f"the page references another server: {address}"
            with browser.open(address, timeout=30) as response:
                body = response.read()
                assert response.status == 200 and body, f"{address}: status {response.status}, {len(body)} bytes"
                loaded[address] = len(body)
                kind = response.headers.get("Content-Type", "")
            if "css" in kind:
                pending += [urllib.parse.urljoin(address, ref) for ref in _references(body.decode("utf-8"), kind)]
        assert {urllib.parse.urlsplit(address).path for address in loaded} >= {"/board.js", "/play.js", "/play.css"}
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err and "Error" not in err, err


def test_the_browser_is_opened_on_a_one_time_address_not_the_token(tmp_path: Path) -> None:
    """The address the browser gets is on its command line (``/proc/PID/cmdline``, readable by every local user):
    it holds a one-time code, exchanged for the token in a cookie on the first load, not the token."""
    seen = tmp_path / "browser-arguments.txt"
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {seen}.part && mv {seen}.part {seen}\n')
    browser.chmod(0o755)
    process = start_installed(
        ["play", "--web", "--vs", "random", "--seed", "4", "--record", str(tmp_path / "game.json")],
        cwd=tmp_path,
        env={"BROWSER": str(browser), "NUMBA_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        printed = process.stdout.readline().strip()
        token = printed.split("/?token=")[-1]
        deadline = time.monotonic() + 30
        while not seen.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        arguments = seen.read_text().split()
        assert len(token) >= 20 and len(arguments) == 1 and token not in arguments[0], (printed, arguments)
        opened = arguments[0]
        assert opened.startswith(printed.split("/?")[0] + "/?once="), opened
        jar = http.cookiejar.CookieJar()
        page = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with page.open(opened, timeout=30) as response:
            assert response.status == 200 and b"<script" in response.read()
            assert "once=" not in response.url and token not in response.url
        assert [cookie.value for cookie in jar] == [token]
        with page.open(printed.split("/?")[0] + "/api/state", timeout=30) as response:
            assert json.loads(response.read())["legal"]  # the cookie alone authenticates the page's requests
        with pytest.raises(urllib.error.HTTPError) as spent:
            urllib.request.urlopen(opened, timeout=30)
        assert spent.value.code == 403
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err


def test_a_killed_servers_record_resumes_to_the_same_position(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    process, url = _start(
        ["--vs", "random", "--players", "3", "--seat", "1", "--seed", "9", "--record", str(record)], tmp_path
    )
    try:
        rng = np.random.default_rng(1)
        now = _http(url, "/api/state")
        for _ in range(25):
            now = _act(url, now, now["legal"][int(rng.integers(len(now["legal"])))]["action"])
        before = _http(url, "/api/state")
    finally:
        process.kill()  # SIGKILL: no chance to save anything more
        process.wait()
    assert before["moves"] > 25 and before["current_player"] == 1
    saved = json.loads(record.read_text())
    assert len(saved["actions"]) == before["moves"] and saved["seats"][1] == "human"
    process, url = _start(["--resume", str(record)], tmp_path)
    try:
        after = _http(url, "/api/state")
        assert after == before
        now = _act(url, after, after["legal"][0]["action"])
        assert now["moves"] > after["moves"]
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    assert f"seasons play --web --resume {record}" in out
    resumed = json.loads(record.read_text())
    assert resumed["actions"][: len(saved["actions"])] == saved["actions"]
    assert len(resumed["actions"]) == now["moves"]
    Replay(parse_record(resumed))  # every action legal


def test_ctrl_c_stops_the_server_and_keeps_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    process, url = _start(["--vs", "random", "--seed", "2", "--record", str(record)], tmp_path)
    try:
        first = _http(url, "/api/state")
        now = _act(url, first, first["legal"][0]["action"])
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGINT and "Traceback" not in err
    assert "Server stopped" in out and len(json.loads(record.read_text())["actions"]) == now["moves"]
