"""Who may talk to the server, and how much: the checks every request passes before the app.

The server has no login: whoever reaches it can make it search. So it answers only requests
meant for it, from pages it served itself:

- **Host**: the request's ``Host`` must name this server (``hosts``: the loopback names and
  the address it listens on). A page on another site that points its own name at 127.0.0.1
  (DNS rebinding) sends that name and is refused with 400.
- **Origin**: a browser names the page a request comes from on every websocket, every request
  that changes something and every cross-site fetch; when the header is there it must be this
  server itself (``http://`` or ``https://`` and the request's ``Host``), else 403 (a
  websocket is closed with code 4403). Clients that are not browsers (curl, scripts) send no
  ``Origin`` and pass.
- **Size**: a request body over ``max_body`` bytes is refused with 413 before the app parses
  it.
- **Headers** on every answer: a Content-Security-Policy that allows only this server's own
  scripts, styles, images and connections and no framing, ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY`` and ``Referrer-Policy: no-referrer``.

- **Rate**, per websocket (:class:`Budget`): at most ``MESSAGE_RATE`` messages a second
  (bursts of ``MESSAGE_BURST``) and ``SEARCH_RATE`` search starts a second (bursts of
  ``SEARCH_BURST``); a message past either is refused with an ``error`` event, and a client
  that goes on sending into refusals (``FLOOD_REFUSALS`` of them faster than
  ``REFUSAL_RATE`` a second are forgiven) is closed with 1008 (policy violation). A socket
  runs one search at a time and reads its next message only when it has answered the last,
  so the work a socket queues is bounded too.
- **Denials carry the headers**: a refused websocket gets an HTTP answer with the headers
  below (through the ASGI ``websocket.http.response`` extension, which uvicorn offers), not
  the server's bare 403; ``serve`` adds them to the server's own 400s too.

It is a plain ASGI middleware (not Starlette's ``BaseHTTPMiddleware``), so the app still hears
when a client disconnects.
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK: Final = ("127.0.0.1", "localhost", "::1")
"""The names of this machine that only its own programs can reach."""
MAX_BODY: Final = 64 * 1024
"""The largest request body accepted (bytes): a 2,000-move game is about 12 KB."""
HEADERS: Final = (
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
        b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
SHOWN: Final = 100
"""At most this many characters of a refused header go back in the message."""
MESSAGE_RATE: Final = 20.0
"""Websocket messages a second a client may send (the page sends a few a minute)."""
MESSAGE_BURST: Final = 40
SEARCH_RATE: Final = 2.0
"""Searches (think, compare) a second a websocket may start: each starts a process."""
SEARCH_BURST: Final = 5
REFUSAL_RATE: Final = 5.0
"""Refused messages a second that are forgiven; past ``FLOOD_REFUSALS`` unforgiven ones the
socket is closed."""
FLOOD_REFUSALS: Final = 100
POLICY_VIOLATION: Final = 1008
"""The websocket close code for a client that keeps flooding (RFC 6455)."""


class Verdict(enum.Enum):
    """What becomes of one websocket message."""

    TAKE = "take"
    REFUSE = "refuse"
    CLOSE = "close"


class Bucket:
    """A token bucket: ``burst`` tokens, refilled at ``rate`` a second."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._tokens = float(burst)
        self._when = clock()

    def take(self) -> bool:
        """Take a token if there is one."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._when) * self.rate)
        self._when = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Budget:
    """One websocket's budget (see the header): :meth:`take` for every message, then
    :meth:`take_search` for one that starts a search."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._messages = Bucket(MESSAGE_RATE, MESSAGE_BURST, clock)
        self._searches = Bucket(SEARCH_RATE, SEARCH_BURST, clock)
        self._patience = Bucket(REFUSAL_RATE, FLOOD_REFUSALS, clock)

    def take(self) -> Verdict:
        """The verdict on one more message: taken, refused, or the socket is to be closed."""
        if self._messages.take():
            return Verdict.TAKE
        return Verdict.REFUSE if self._patience.take() else Verdict.CLOSE

    def take_search(self) -> bool:
        """Whether a taken message may start a search now (a refusal counts as one)."""
        if self._searches.take():
            return True
        self._patience.take()
        return False

    @staticmethod
    def reason() -> str:
        return (
            f"too many messages: expected at most {MESSAGE_RATE:g} a second "
            f"(bursts of {MESSAGE_BURST}); a client that keeps sending is disconnected"
        )

    @staticmethod
    def search_reason() -> str:
        return (
            f"too many searches started: expected at most {SEARCH_RATE:g} a second "
            f"(bursts of {SEARCH_BURST}); a search started replaces the one running"
        )


def host_name(header: str) -> str:
    """The name in a ``Host`` header, lower case, without port, brackets or trailing dot."""
    text = header.strip().lower()
    if text.startswith("["):  # [::1]:8000
        end = text.find("]")
        text = text[1:end] if end > 0 else text
    elif text.count(":") == 1:  # name:port (a bare IPv6 address has several colons)
        text = text.partition(":")[0]
    return text.rstrip(".")


def _shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


class Guard:
    """The checks above around ``app``; ``hosts=None`` accepts any ``Host`` (an app behind a
    proxy that checks names itself, or in-process tests)."""

    def __init__(
        self, app: ASGIApp, *, hosts: Iterable[str] | None = LOOPBACK, max_body: int = MAX_BODY
    ) -> None:
        self.app = app
        self.hosts = None if hosts is None else frozenset(host_name(h) for h in hosts)
        self.max_body = max_body

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """``(status, message)`` when the request must not reach the app, else ``None``."""
        headers = {
            key.decode("latin-1").lower(): value.decode("latin-1")
            for key, value in scope.get("headers", [])
        }
        host = headers.get("host", "").lower()
        if self.hosts is not None and host_name(host) not in self.hosts:
            allowed = ", ".join(sorted(self.hosts))
            return 400, (
                f"unexpected Host {_shown(host)}: expected one of {allowed} "
                "(zerosum serve --allow-host adds a name)"
            )
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in (f"http://{host}", f"https://{host}"):
            return 403, (
                f"a page of another site ({_shown(origin)}): expected a page served by this "
                f"server (http://{_shown(host)[1:-1]})"
            )
        if scope["type"] == "http":
            length = headers.get("content-length", "0")
            if not length.isdigit():
                return 400, f"bad Content-Length {_shown(length)}: expected a whole number"
            if int(length) > self.max_body:
                return 413, (
                    f"the request body has {int(length):,} bytes: expected at most "
                    f"{self.max_body:,}"
                )
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is not None:
            status, message = refused
            if scope["type"] == "websocket":
                await receive()  # websocket.connect
                if "websocket.http.response" in scope.get("extensions", {}):
                    await _answer(send, status, message, prefix="websocket.")
                else:  # a server without the extension answers its own bare 403
                    await send(
                        {"type": "websocket.close", "code": 4000 + status, "reason": message}
                    )
            else:
                await _answer(send, status, message)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        body = await self._body(receive)
        if body is None:
            await _answer(send, 413, f"the request body is over {self.max_body:,} bytes")
            return
        await self.app(scope, _replay(body, receive), _with_headers(send))

    async def _body(self, receive: Receive) -> bytes | None:
        """The whole body (``None`` past ``max_body``), whatever ``Content-Length`` said."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: the app will hear it
                return b"".join(chunks)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then the client's own messages (disconnect)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {key.lower() for key, _ in message.get("headers", [])}
            extra = [(key, value) for key, value in HEADERS if key not in present]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return sending


async def _answer(send: Send, status: int, message: str, *, prefix: str = "") -> None:
    """A JSON answer ``{"detail": message}`` with the security headers; ``prefix``
    ``websocket.`` sends it as a websocket's denial."""
    body = json.dumps({"detail": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *HEADERS,
    ]
    await send({"type": f"{prefix}http.response.start", "status": status, "headers": headers})
    await send({"type": f"{prefix}http.response.body", "body": body})
