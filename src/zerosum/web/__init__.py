"""The browser front end: ``zerosum serve`` starts it (see ``app`` for the API)."""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from zerosum.game import ZerosumError
from zerosum.web.guard import HEADERS, LOOPBACK, MAX_BODY

if TYPE_CHECKING:
    import uvicorn

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (a loopback name or address)."""
    if host.lower() in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    max_searches: int | None = None,
    allow_hosts: Sequence[str] = (),
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> None:
    """Serve the app on ``host:port`` until interrupted; prints the URL once listening.

    Port 0 picks a free port. The app answers only requests naming the loopback names,
    ``host`` or one of ``allow_hosts`` in their ``Host`` (DNS rebinding); a ``host`` other
    machines can reach gets a warning on ``err``, as the app has no login. ``max_searches``:
    searches at once (default: the number of CPUs). Raises :class:`ZerosumError` when the
    address cannot be bound.
    """
    import uvicorn

    from zerosum.web.app import create_app

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise ZerosumError(
            f"cannot listen on {host}:{port} ({error.strerror}): expected a free port "
            "(--port) on an address of this machine (--host)"
        ) from None
    listener.listen(128)
    bound_port = listener.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    hosts = [*LOOPBACK, host, *allow_hosts]
    if not is_loopback(host):
        print(
            f"zerosum: warning: listening on {host}, which other machines may reach: the app "
            "has no login, so anyone who reaches it can make it search. It answers only to "
            f"the names {', '.join(hosts)} (--allow-host adds one).",
            file=err,
            flush=True,
        )
    print(f"zerosum: serving on http://{shown}:{bound_port}/ (Ctrl-C stops)", file=out, flush=True)
    app = create_app(hosts=hosts, max_searches=max_searches)
    server = uvicorn.Server(server_config(app))
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()


def server_config(app: Any, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration ``serve`` runs ``app`` with (``options`` override it): h11
    and the websockets protocol with the security headers on the server's own refusals (a
    malformed request or websocket handshake never reaches the app, whose ``Guard`` adds them
    to everything else), websocket messages bounded to the app's largest body and read no
    faster than the app takes them (:mod:`zerosum.web.socket_protocol`)."""
    import uvicorn

    settings: dict[str, Any] = {
        "log_level": "warning",
        "http": _protocol(),
        "ws": _websocket_protocol(),
        "ws_max_size": MAX_BODY,
        **options,
    }
    return uvicorn.Config(app, **settings)


def _protocol() -> type[Any]:
    """uvicorn's h11 protocol whose own 400 answer carries the security headers."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            body = msg.encode("ascii", "replace")
            headers = [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *HEADERS,
            ]
            event = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
            self.transport.write(self.conn.send(event))
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
            self.transport.close()

    return GuardedH11Protocol


def _websocket_protocol() -> type[Any] | str:
    """uvicorn's websockets protocol, bounded as :mod:`zerosum.web.socket_protocol` says (it
    reads no faster than the app handles messages, and its own refusals of a handshake carry
    the security headers); uvicorn's choice if it has no such protocol."""
    try:
        from zerosum.web.socket_protocol import GuardedWebSocketsProtocol
    except ImportError:  # no websockets library: uvicorn picks what it has
        return "auto"
    return GuardedWebSocketsProtocol
