"""The browser front end: ``zerosum serve`` starts it (see ``app`` for the API)."""

from __future__ import annotations

import socket
import sys
from typing import TextIO

from zerosum.game import ZerosumError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, out: TextIO = sys.stdout) -> None:
    """Serve the app on ``host:port`` until interrupted; prints the URL once listening.

    Port 0 picks a free port. Raises :class:`ZerosumError` when the address cannot be bound.
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
    print(f"zerosum: serving on http://{shown}:{bound_port}/ (Ctrl-C stops)", file=out, flush=True)
    config = uvicorn.Config(create_app(), log_level="warning", ws="auto")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()
