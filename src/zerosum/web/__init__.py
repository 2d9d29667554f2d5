"""The browser front end: ``zerosum serve`` starts it (see ``app`` for the API)."""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Sequence
from typing import TextIO

from zerosum.game import ZerosumError
from zerosum.web.guard import LOOPBACK, MAX_BODY

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
    config = uvicorn.Config(app, log_level="warning", ws="auto", ws_max_size=MAX_BODY)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()
