"""The connections of ``seasons play --web``'s server kept in bounds, so that slow or stalled clients cannot lock
the player out: each connection has ``request_timeout`` seconds to send its whole request (request line, headers
and body, however slowly the bytes come), and at most ``max_connections`` are open at once; when they are all
taken, the one that has waited longest for its request is dropped for the new one (an idle or stalled socket, never
a request being answered). Standard library only (``agents/web_server.py`` builds on it)."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Seconds a client has to send its whole request (the page's requests take milliseconds).
REQUEST_TIMEOUT = 10.0
#: Connections open at once (the page keeps two or three).
MAX_CONNECTIONS = 32
#: The answer when every connection is busy answering a request (none is merely waiting for one).
_BUSY_BODY = b'{"error": "the server is busy with other requests: try again"}'
BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


@dataclass
class _Connection:
    opened: float  # time.monotonic() when it was accepted
    reading: bool = True  # still sending its request


def _stop_reading(connection: socket.socket) -> None:
    """End the reads of ``connection`` (a blocked read returns at once); its thread then answers or closes it."""
    with contextlib.suppress(OSError):  # already closed by its thread
        connection.shutdown(socket.SHUT_RD)


class GuardedHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server whose connections are bounded in time while they send their request and in number.

    Its handler must call ``request_read`` once the request (with its body) is read, and read bodies with
    ``GuardedHandler.read_body``. ``service_actions`` (run by ``serve_forever`` every poll interval) cuts the late
    ones."""

    daemon_threads = True
    request_queue_size = 128  # the listen backlog: a burst of connections waits to be accepted, not refused
    request_timeout = REQUEST_TIMEOUT
    max_connections = MAX_CONNECTIONS

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self._connections: dict[socket.socket, _Connection] = {}
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        dropped = None
        with self._connections_lock:
            if len(self._connections) >= self.max_connections:
                waiting = [item for item in self._connections.items() if item[1].reading]
                if waiting:
                    dropped = min(waiting, key=lambda item: item[1].opened)[0]
                    del self._connections[dropped]
            busy = len(self._connections) >= self.max_connections
            if not busy:
                self._connections[request] = _Connection(time.monotonic())
        if dropped is not None:
            _stop_reading(dropped)
        if busy:  # every connection is being answered: this one is told so at once
            with contextlib.suppress(OSError):
                request.setblocking(False)  # the accepting thread never waits for a client
                request.send(BUSY)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def service_actions(self) -> None:
        """Cut the connections that have not sent their whole request within ``request_timeout``."""
        late_since = time.monotonic() - self.request_timeout
        with self._connections_lock:
            late = [c for c, state in self._connections.items() if state.reading and state.opened < late_since]
            for connection in late:
                self._connections[connection].reading = False
        for connection in late:
            _stop_reading(connection)

    def request_read(self, request: socket.socket) -> None:
        """The connection's request is read: it is being answered (no longer subject to the request timeout)."""
        with self._connections_lock:
            state = self._connections.get(request)
            if state is not None:
                state.reading = False

    def open_connections(self) -> int:
        with self._connections_lock:
            return len(self._connections)

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        with self._connections_lock:
            self._connections.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away or was too slow is no error of the server's; anything else is reported."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class GuardedHandler(BaseHTTPRequestHandler):
    """A request handler whose socket operations time out after the server's ``request_timeout``."""

    server: GuardedHTTPServer

    def setup(self) -> None:
        self.timeout = self.server.request_timeout  # StreamRequestHandler sets it on the socket
        super().setup()

    def read_body(self, length: int) -> bytes | None:
        """The ``length`` bytes of the body, or None if they do not all arrive in time (the connection is then cut
        or times out); the request counts as read either way."""
        try:
            body = self.rfile.read(length)
        except OSError:  # TimeoutError included
            body = b""
        self.server.request_read(self.request)
        return body if len(body) == length else None
