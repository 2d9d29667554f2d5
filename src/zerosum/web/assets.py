"""The page's files, served from memory on the event loop.

The page and its scripts are a few files of about 100 KB in all, read once when the app is
made. Serving them from memory in a coroutine takes no thread: a file served from disk
(Starlette's ``FileResponse`` and ``StaticFiles``) and a plain ``def`` route each hand their
work to a thread and back several times a request, and on a loaded machine every hand-over
waits for the thread to be scheduled and for the interpreter's lock (the page then took up to
half a second while a websocket flood ran, when the health check took a few milliseconds).
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from typing import Any, Final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_ASSETS: Final = 4 * 1024 * 1024
"""The most bytes the page's files may take in memory: far above their size, a guard against
a wrong folder."""


class AssetsTooLargeError(ValueError):
    """The folder given as the page's files holds more than :data:`MAX_ASSETS` bytes."""


@dataclass(frozen=True)
class Asset:
    """One file's answer."""

    body: bytes
    media_type: str
    etag: str
    """A strong validator: the first 16 hex digits of the body's SHA-256, quoted."""

    @classmethod
    def of(cls, name: str, body: bytes) -> Asset:
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if media_type.startswith("text/") or media_type in ("application/javascript",):
            media_type += "; charset=utf-8"
        return cls(body, media_type, f'"{hashlib.sha256(body).hexdigest()[:16]}"')


def load(folder: Traversable, prefix: str = "") -> dict[str, Asset]:
    """Every file under ``folder``, by its path relative to it (``boards/chess.js``). Raises
    :class:`AssetsTooLargeError` past :data:`MAX_ASSETS` bytes."""
    assets: dict[str, Asset] = {}
    total = 0
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        name = f"{prefix}{entry.name}"
        if entry.is_dir():
            found = load(entry, f"{name}/")
            total += sum(len(asset.body) for asset in found.values())
            assets.update(found)
        elif entry.is_file() and not entry.name.startswith("."):
            body = entry.read_bytes()
            total += len(body)
            assets[name] = Asset.of(entry.name, body)
        if total > MAX_ASSETS:
            raise AssetsTooLargeError(
                f"the page's files take over {MAX_ASSETS:,} bytes: expected the web app's "
                "static folder"
            )
    return assets


async def send_asset(scope: Scope, send: Send, asset: Asset | None) -> None:
    """Answer a ``GET`` or ``HEAD`` with ``asset`` (404 for ``None``; 304 when the request's
    ``If-None-Match`` names its tag; 405 for another method)."""
    method = scope.get("method", "GET")
    status, body, headers = 200, b"", [(b"cache-control", b"no-cache")]
    if method not in ("GET", "HEAD"):
        status, body = 405, b'{"detail":"Method Not Allowed"}'
        headers = [(b"allow", b"GET, HEAD"), (b"content-type", b"application/json")]
    elif asset is None:
        status, body = 404, b'{"detail":"Not Found"}'
        headers = [(b"content-type", b"application/json")]
    else:
        headers += [(b"etag", asset.etag.encode()), (b"content-type", asset.media_type.encode())]
        tags = dict(scope.get("headers", [])).get(b"if-none-match", b"").decode("latin-1")
        if asset.etag in (tag.strip() for tag in tags.split(",")):
            status = 304
        else:
            body = asset.body
    if status != 304:
        headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


class Assets:
    """An ASGI app that answers ``/<path>`` with the asset of that path (mounted under
    ``/static``: ``scope["path"]`` is then the path below the mount)."""

    def __init__(self, assets: dict[str, Asset]) -> None:
        self.assets = assets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError(f"the page's files answer HTTP requests, not {scope['type']!r}")
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):  # Starlette's Mount keeps the full path
            path = path[len(root) :]
        await send_asset(scope, send, self.assets.get(path.lstrip("/")))
