"""``seasons play --web``: a local HTTP server (standard library only) for one game in the browser.

Bound to 127.0.0.1 only, with a random token per run that every page and API request must carry: a script sends
it (``?token=T`` or ``Authorization: Bearer T``); a browser holds it in a cookie (HttpOnly, SameSite=Strict) that
the page's first load sets. The browser is opened on a one-time address (``/?once=CODE``), so that the token itself
never appears on a command line (which every local user can read). Requests from other origins are refused and no
CORS header is ever sent; the Host header must name this server (against DNS rebinding). The page's assets ship as
package data (``agents/web/``) and the page makes no request elsewhere (its content security policy forbids it).
The API is described in ``docs/web.md``.
"""

from __future__ import annotations

import functools
import json
import re
import secrets
import threading
import time
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from seasons_env.interrupts import exit_status, sigterm_stops
from seasons_env.replay import Replay, html_page, parse_record

from .web_connections import GuardedHandler, GuardedHTTPServer
from .web_game import StaleMoveError, WebGame, WebGameError, default_record_path, encode_state

HOST = "127.0.0.1"
#: Where a game without --record is recorded (a new file per game).
DEFAULT_RECORD_FOLDER = Path("results") / "play"
MAX_BODY = 4096
#: The deepest nesting of arrays and objects a request body may have (a body is a flat object; deeper ones are
#: refused before parsing, whatever the interpreter's recursion limit).
MAX_NESTING = 100


def nesting_depth(raw: bytes) -> int:
    """How deep the arrays and objects of the JSON text ``raw`` nest (brackets inside strings not counted); stops
    counting once past ``MAX_NESTING``."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                break
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


#: How long the one-time address the browser is opened on stays valid (it is valid once).
ONE_TIME_SECONDS = 300.0
#: How long a POST waits for the agents before answering with the state as it is (the page then polls).
ANSWER_TIMEOUT = 120.0
#: This package as it is imported (``seasons_agents`` once installed: the repository's folder name is not a package).
PACKAGE = __package__ or "seasons_agents"
#: The page's script and style by route: (package, file in its web folder, content type). The board drawing is the
#: library's, shared with the replay page.
ASSETS = {
    "/board.js": ("seasons_env", "board.js", "text/javascript; charset=utf-8"),
    "/play.js": (PACKAGE, "play.js", "text/javascript; charset=utf-8"),
    "/play.css": (PACKAGE, "play.css", "text/css; charset=utf-8"),
}
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The replay page is one file with its script and style inline (``seasons replay --html``).
REPLAY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


@functools.cache
def asset(name: str, package: str = PACKAGE) -> bytes:
    """A file of ``package``'s ``web`` folder (package data)."""
    return resources.files(package).joinpath("web", name).read_bytes()


class Table:
    """What the server holds: the token, the one game, and how to start the next one when it is over."""

    def __init__(self, game: WebGame, new_game: Callable[[], WebGame], token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(18)
        self.game = game
        self._new_game = new_game
        self._lock = threading.Lock()
        self._one_time: tuple[str, float] | None = None  # the code the browser is opened with, and its deadline

    def one_time_code(self) -> str:
        """A new code for the address the browser is opened on, valid once for ``ONE_TIME_SECONDS`` (the only
        valid one: a new code replaces the last)."""
        code = secrets.token_urlsafe(18)
        with self._lock:
            self._one_time = (code, time.monotonic() + ONE_TIME_SECONDS)
        return code

    def redeem(self, code: str) -> bool:
        """Whether ``code`` is the one-time code, still valid; it is valid no more either way."""
        with self._lock:
            expected, self._one_time = self._one_time, None
        if expected is None or time.monotonic() > expected[1]:
            return False
        return secrets.compare_digest(code.encode("utf-8"), expected[0].encode("utf-8"))

    def is_token(self, value: str) -> bool:
        return secrets.compare_digest(value.encode("utf-8"), self.token.encode("utf-8"))

    def start_new_game(self) -> WebGame:
        with self._lock:
            if not self.game.game.is_over and self.game.error is None:
                raise WebGameError("the game is not over: finish it first (one game at a time)")
            old, self.game = self.game, self._new_game()
        old.stop()
        return self.game


class Handler(GuardedHandler):
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
        self.send_header("Referrer-Policy", "no-referrer")  # a script's address may carry the token
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
        return self._same_site() and self._authenticated()

    def _same_site(self) -> bool:
        """The Host names this server and the request comes from its own page or from no browser page at all;
        else answers 403 and returns False."""
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
        return True

    def _authenticated(self) -> bool:
        """The request carries the run's token: ``?token=T``, ``Authorization: Bearer T`` or the page's cookie;
        else answers 403 and returns False. A token that is given must be right (no falling back to the cookie)."""
        table = self.server.table
        given = parse_qs(urlsplit(self.path).query).get("token", [""])[-1]
        authorization = self.headers.get("Authorization", "")
        if not given and authorization.startswith("Bearer "):
            given = authorization.removeprefix("Bearer ").strip()
        good = table.is_token(given or self._cookie() or "\0")  # never empty: an empty token is no token
        if not good:
            self._error(HTTPStatus.FORBIDDEN, "wrong or missing token: open the address the command printed")
        return good

    def _cookie(self) -> str:
        """The value of this server's cookie in the request, or ''."""
        try:
            jar = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            return ""
        morsel = jar.get(self.server.cookie_name)
        return morsel.value if morsel is not None else ""

    def _enter(self) -> None:
        """``GET /`` with the one-time code (the address the browser was opened on) or the token in the address:
        answers with the cookie that carries the token and a redirect to the same page without either, so that
        the token stays out of the address bar and the browser's history. A used or expired code gets 403."""
        query = parse_qs(urlsplit(self.path).query)
        table = self.server.table
        if self.command != "GET":  # a HEAD (a link checker, a preview) does not spend the one-time code
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, "open the page's address with GET")
            return
        if "once" in query:
            if not table.redeem(query["once"][-1]):
                self._error(
                    HTTPStatus.FORBIDDEN,
                    "this one-time address was used already or has expired: open the address the command printed",
                )
                return
        elif not self._authenticated():
            return
        kept = {key: values[-1] for key, values in query.items() if key not in ("once", "token")}
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", "/" + (f"?{urlencode(kept)}" if kept else ""))
        self.send_header("Set-Cookie", f"{self.server.cookie_name}={table.token}; Path=/; HttpOnly; SameSite=Strict")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _body(self) -> dict | None:
        """The request's JSON object, or None after answering 400."""
        if "json" not in self.headers.get("Content-Type", ""):
            self._error(HTTPStatus.BAD_REQUEST, "the body must be JSON (Content-Type: application/json)")
            return None
        length = self.headers.get("Content-Length")
        if length is None or not re.fullmatch(r"[0-9]{1,9}", length):  # str.isdigit would take "²"
            shown = "none" if length is None else json.dumps(length[:40])
            self._error(HTTPStatus.BAD_REQUEST, f"the request needs a Content-Length of decimal digits; got {shown}")
            return None
        if int(length) > MAX_BODY:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is over {MAX_BODY} bytes")
            return None
        raw = self.read_body(int(length))
        if raw is None:
            self._error(
                HTTPStatus.REQUEST_TIMEOUT,
                f"the body did not arrive within {self.server.request_timeout:g} s ({length} bytes announced)",
            )
            return None
        if nesting_depth(raw) > MAX_NESTING:  # a limit of its own: the parser's depends on the recursion limit
            self._error(HTTPStatus.BAD_REQUEST, "the body is nested too deeply: it is a flat JSON object")
            return None
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {error}")
            return None
        except RecursionError:
            self._error(HTTPStatus.BAD_REQUEST, "the body is nested too deeply: it is a flat JSON object")
            return None
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object; got {type(body).__name__}")
            return None
        return body

    # ------------------------------------------------------------------ routes

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        self.server.request_read(self.request)
        route = urlsplit(self.path).path
        if route in ASSETS:
            package, name, content_type = ASSETS[route]
            self._send(HTTPStatus.OK, asset(name, package), content_type)
            return
        if route not in ("/", "/api/state", "/replay"):
            self._error(HTTPStatus.NOT_FOUND, f"no page {route}")
            return
        if route == "/" and {"once", "token"} & set(parse_qs(urlsplit(self.path).query)):
            if self._same_site():
                self._enter()
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
                unknown = sorted(set(body) - {"action", "move"})
                if unknown:
                    raise WebGameError(f'unknown field(s) {unknown}: the body is {{"action": ID, "move": N}}')
                if "action" not in body:
                    raise WebGameError('the body must name the action: {"action": ID, "move": N}')
                if "move" not in body:
                    raise WebGameError(
                        'the body must carry the move number the action answers: {"action": ID, "move": N}, '
                        "N the field move of GET /api/state"
                    )
                game = table.game
                game.play(body["action"], body["move"])
        except StaleMoveError as error:
            self._error(HTTPStatus.CONFLICT, str(error))
            return
        except WebGameError as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
            return
        game.wait(ANSWER_TIMEOUT)
        self._json(HTTPStatus.OK, encode_state(game.state()))

    def do_PUT(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "use GET /api/state or POST /api/action")

    do_DELETE = do_PATCH = do_OPTIONS = do_PUT  # no CORS preflight is ever answered


class PlayServer(GuardedHTTPServer):
    allow_reuse_address = True

    def __init__(self, table: Table, port: int = 0) -> None:
        self.table = table
        super().__init__((HOST, port), Handler)

    @property
    def url(self) -> str:
        """The address the command prints: the page, with the token a script uses for the API."""
        return f"http://{HOST}:{self.server_address[1]}/?token={self.table.token}"

    @property
    def cookie_name(self) -> str:
        """The cookie that carries the token in the browser (one per port: a browser shares the cookies of
        127.0.0.1 between ports)."""
        return f"seasons_play_{self.server_address[1]}"

    def browser_url(self) -> str:
        """A new one-time address of the page for the browser: the command line that opens the browser shows it,
        and it is worth nothing once the page has loaded."""
        return f"http://{HOST}:{self.server_address[1]}/?once={self.table.one_time_code()}"


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
        threading.Thread(target=webbrowser.open, args=(server.browser_url(),), daemon=True).start()
    status = 0
    try:
        with sigterm_stops():  # SIGTERM stops the server as Ctrl-C does
            server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt as stop:
        status = exit_status(stop)
    finally:
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
