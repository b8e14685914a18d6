"""``seasons play --web``: a local HTTP server (standard library only) for one game in the browser.

Bound to 127.0.0.1 only, with a random token per run that every page and API request must carry
(``?token=T``). Requests from other origins are refused and no CORS header is ever sent; the Host header must
name this server (against DNS rebinding). The page's assets ship as package data (``agents/web/``) and the page
makes no request elsewhere (its content security policy forbids it). The API is described in ``docs/web.md``.
"""

from __future__ import annotations

import functools
import json
import secrets
import signal
import threading
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from seasons_env.replay import Replay, html_page, parse_record

from .web_game import WebGame, WebGameError, default_record_path, encode_state

HOST = "127.0.0.1"
#: Where a game without --record is recorded (a new file per game).
DEFAULT_RECORD_FOLDER = Path("results") / "play"
MAX_BODY = 4096
#: How long a POST waits for the agents before answering with the state as it is (the page then polls).
ANSWER_TIMEOUT = 120.0
#: The page's script and style by route: (package, file in its web folder, content type). The board drawing is the
#: library's, shared with the replay page.
ASSETS = {
    "/board.js": ("seasons_env", "board.js", "text/javascript; charset=utf-8"),
    "/play.js": ("seasons_agents", "play.js", "text/javascript; charset=utf-8"),
    "/play.css": ("seasons_agents", "play.css", "text/css; charset=utf-8"),
}
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The replay page is one file with its script and style inline (``seasons replay --html``).
REPLAY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


@functools.cache
def asset(name: str, package: str = "seasons_agents") -> bytes:
    return resources.files(package).joinpath("web", name).read_bytes()


class Table:
    """What the server holds: the token, the one game, and how to start the next one when it is over."""

    def __init__(self, game: WebGame, new_game: Callable[[], WebGame], token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(18)
        self.game = game
        self._new_game = new_game
        self._lock = threading.Lock()

    def start_new_game(self) -> WebGame:
        with self._lock:
            if not self.game.game.is_over and self.game.error is None:
                raise WebGameError("the game is not over: finish it first (one game at a time)")
            old, self.game = self.game, self._new_game()
        old.stop()
        return self.game


class Handler(BaseHTTPRequestHandler):
    server: PlayServer
    server_version = "seasons-play"
    sys_version = ""

    # ------------------------------------------------------------------ plumbing

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the URL and the record, not every request

    def _send(self, status: int, body: bytes, content_type: str, policy: str = PAGE_POLICY) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the token is in the page's address
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Content-Security-Policy", policy)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, body: bytes) -> None:
        self._send(status, body, "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, json.dumps({"error": message}).encode("utf-8"))

    def _allowed(self) -> bool:
        """The Host names this server, the request comes from its own page (or from no browser page at all),
        and carries the run's token; else answers 403 and returns False."""
        port = self.server.server_address[1]
        hosts = {f"{HOST}:{port}", f"localhost:{port}"}
        if self.headers.get("Host") not in hosts:
            self._error(HTTPStatus.FORBIDDEN, "this server answers only requests to http://127.0.0.1:PORT")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin not in {f"http://{host}" for host in hosts}:
            self._error(HTTPStatus.FORBIDDEN, f"requests from other origins are refused (Origin {origin})")
            return False
        if self.headers.get("Sec-Fetch-Site") == "cross-site":
            self._error(HTTPStatus.FORBIDDEN, "requests from other sites are refused")
            return False
        token = parse_qs(urlsplit(self.path).query).get("token", [""])[-1]
        if not secrets.compare_digest(token.encode("utf-8"), self.server.table.token.encode("utf-8")):
            self._error(HTTPStatus.FORBIDDEN, "wrong or missing token: open the address the command printed")
            return False
        return True

    def _body(self) -> dict | None:
        """The request's JSON object, or None after answering 400."""
        if "json" not in self.headers.get("Content-Type", ""):
            self._error(HTTPStatus.BAD_REQUEST, "the body must be JSON (Content-Type: application/json)")
            return None
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._error(HTTPStatus.BAD_REQUEST, "the request needs a Content-Length")
            return None
        if int(length) > MAX_BODY:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is over {MAX_BODY} bytes")
            return None
        raw = self.rfile.read(int(length))
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {error}")
            return None
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object; got {type(body).__name__}")
            return None
        return body

    # ------------------------------------------------------------------ routes

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        route = urlsplit(self.path).path
        if route in ASSETS:
            package, name, content_type = ASSETS[route]
            self._send(HTTPStatus.OK, asset(name, package), content_type)
            return
        if route not in ("/", "/api/state", "/replay"):
            self._error(HTTPStatus.NOT_FOUND, f"no page {route}")
            return
        if not self._allowed():
            return
        if route == "/":
            self._send(HTTPStatus.OK, asset("play.html"), "text/html; charset=utf-8")
        elif route == "/api/state":
            self._json(HTTPStatus.OK, encode_state(self.server.table.game.state()))
        else:
            self._replay()

    def _replay(self) -> None:
        game = self.server.table.game
        if not game.game.is_over:
            self._error(HTTPStatus.BAD_REQUEST, "the replay page is there when the game is over")
            return
        everything = parse_qs(urlsplit(self.path).query).get("view", [""])[-1] == "all"
        replay = Replay(parse_record(game.record(), str(game.record_path)))
        page = html_page(replay, seat=None if everything else game.screen)
        self._send(HTTPStatus.OK, page.encode("utf-8"), "text/html; charset=utf-8", REPLAY_POLICY)

    def do_POST(self) -> None:
        route = urlsplit(self.path).path
        if route not in ("/api/action", "/api/new", "/api/pass"):
            self._error(HTTPStatus.NOT_FOUND, f"no API {route}")
            return
        if not self._allowed():
            return
        body = self._body()
        if body is None:
            return
        table = self.server.table
        try:
            if route in ("/api/new", "/api/pass"):
                if body:
                    raise WebGameError(f"{route} takes an empty object; got fields {sorted(body)}")
                if route == "/api/new":
                    game = table.start_new_game()
                else:
                    game = table.game
                    game.pass_screen()
            else:
                unknown = sorted(set(body) - {"action"})
                if unknown:
                    raise WebGameError(f'unknown field(s) {unknown}: the body is {{"action": ID}}')
                if "action" not in body:
                    raise WebGameError('the body must name the action: {"action": ID}')
                game = table.game
                game.play(body["action"])
        except WebGameError as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
            return
        game.wait(ANSWER_TIMEOUT)
        self._json(HTTPStatus.OK, encode_state(game.state()))

    def do_PUT(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "use GET /api/state or POST /api/action")

    do_DELETE = do_PATCH = do_OPTIONS = do_PUT  # no CORS preflight is ever answered


class PlayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, table: Table, port: int = 0) -> None:
        self.table = table
        super().__init__((HOST, port), Handler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/?token={self.table.token}"


class Stopped(Exception):
    """SIGTERM asked the server to stop."""


def _raise_stopped(signum: int, frame: object) -> None:
    raise Stopped


def serve(
    first: WebGame,
    new_game: Callable[[], WebGame],
    port: int,
    open_browser: bool,
    say: Callable[[str], None],
) -> int:
    """Serve ``first`` (then the games ``new_game()`` makes when the page asks for one) until Ctrl-C or SIGTERM;
    returns the exit status (0, or 128 + the signal's number)."""
    table = Table(first, new_game)
    try:
        server = PlayServer(table, port)
    except OSError as error:
        first.stop()
        raise ValueError(f"--port: cannot listen on {HOST}:{port}: {error.strerror or error}") from None
    say(server.url)
    say(f"Record: {first.record_path} (written after every move). Ctrl-C stops the server.")
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    previous = signal.signal(signal.SIGTERM, _raise_stopped)
    status = 0
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        status = 128 + signal.SIGINT
    except Stopped:
        status = 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        game = table.game
        game.stop()
        where = game.record_path
        if game.game.is_over:
            say(f"Server stopped. The record is in {where} (seasons replay {where}).")
        else:
            say(f"Server stopped. The game so far is in {where}: seasons play --web --resume {where} continues it.")
    return status


def run_web_game(
    opponent: str | None,
    num_players: int,
    level: str,
    seed: int | None,
    human_seat: int,
    record_path: Path | None,
    resume: Path | None,
    port: int,
    open_browser: bool,
    humans: int = 1,
    results: Path = DEFAULT_RECORD_FOLDER,
) -> int:
    """``seasons play --web``: a new game with people at ``humans`` seats from ``human_seat`` on (hot-seat when
    several) and agents ``opponent`` at the others; or, with ``resume``, the record's unfinished one (against
    ``opponent`` if given, else the agent the record names). ``ValueError`` names a bad record or port before
    anything is served. Each game after the first (from the page's "new game") gets a random seed and a new
    record file."""
    if resume is not None:
        first = WebGame.resume(resume, opponent=opponent, record_path=record_path)
    else:
        first_seed = seed if seed is not None else secrets.randbelow(2**31)
        target = record_path if record_path is not None else default_record_path(results, first_seed)
        seats = [(human_seat + k) % num_players for k in range(humans)]
        first = WebGame(opponent or "heuristic", num_players, level, first_seed, seats, target)

    def new_game() -> WebGame:
        game_seed = secrets.randbelow(2**31)
        return WebGame(
            first.opponent,
            first.num_players,
            first.level,
            game_seed,
            first.human_seats,
            default_record_path(results, game_seed),
        )

    def say(line: str) -> None:
        print(line, flush=True)

    return serve(first, new_game, port, open_browser, say)
