"""The websocket protocol ``serve`` runs: uvicorn's websockets protocol, made to read no faster
than the app handles messages, to drop what a client sends after the server closed on it, and
to carry the security headers on its own refusals.

uvicorn hands every byte it reads to the websockets parser at once: one read of up to 256 KB
of a flood (thousands of small messages) is parsed into thousands of queued messages in one
step of the event loop, and after the app has closed the socket (a client that kept flooding,
1008) it goes on parsing whatever the client still sends while it waits for the closing
handshake's answer. Here the bytes read wait unparsed, and the socket stops reading, while a
message the app has not taken is queued: a slice of ``SLICE`` bytes is parsed at a time and
only once the app has taken every message parsed before, so a connection holds at most one
slice's messages (a few of a flood's small ones) and one read's bytes, and the rest of a
flood waits in the operating system's buffers, where TCP makes the client wait. Once the
server has sent its close frame, the connection is half closed (the client reads the close
and sees the end of the stream) and every byte that arrives after it is dropped unparsed.

A message is parsed only when the app asks for one, so an app must keep receiving (the live
socket does) for the client's pings, pongs and close to be heard.
"""

from __future__ import annotations

from typing import Any, Final

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from zerosum.web.guard import HEADERS

SLICE: Final = 512
"""Bytes handed to the parser at a time: the page's messages are under 200 bytes; a large
message (up to the app's largest body) is parsed over several slices of one step."""


def _guarded(response: Any) -> Any:
    """A handshake's HTTP answer, with the security headers if it refuses the handshake."""
    if response.status_code != 101:
        for key, value in HEADERS:
            response.headers[key.decode()] = value.decode()
    return response


class GuardedWebSocketsProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol with the bounds of this module's header.

    Invariants: ``_unparsed`` holds the bytes read and not yet parsed; reading is paused
    while it is not empty or a message waits in ``queue``; nothing is parsed once the server
    has sent its close frame (``close_sent``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unparsed = bytearray()
        accept, reject = self.conn.accept, self.conn.reject
        self.conn.accept = lambda request: _guarded(accept(request))  # type: ignore[method-assign]
        self.conn.reject = lambda status, text: _guarded(reject(status, text))  # type: ignore[method-assign]

    @property
    def unparsed(self) -> int:
        """Bytes read from the client and not yet parsed."""
        return len(self._unparsed)

    def data_received(self, data: bytes) -> None:
        if self.close_sent:  # the server has closed: what the client still sends is dropped
            return
        self._unparsed += data
        self._pause()
        self._parse()

    def _pause(self) -> None:
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def _parse(self) -> None:
        """Parse slices until a message waits for the app or no byte is left; read again
        once every byte read is parsed and taken."""
        while self._unparsed and self.queue.empty() and not self.close_sent:
            piece = bytes(self._unparsed[:SLICE])
            del self._unparsed[:SLICE]
            super().data_received(piece)
            if self.transport.is_closing():  # a parse error or a close frame ended it
                self._unparsed.clear()
        if self.close_sent:
            self._unparsed.clear()
        if (
            not self._unparsed
            and self.queue.empty()
            and self.read_paused
            and not self.transport.is_closing()
        ):
            self.read_paused = False
            self.transport.resume_reading()

    async def receive(self) -> ASGIReceiveEvent:
        message = await self.queue.get()
        self._parse()
        return message

    async def send(self, message: ASGISendEvent) -> None:
        closing = message["type"] == "websocket.close" and not self.close_sent
        await super().send(message)
        if closing and self.close_sent and self.handshake_complete:
            # Half close: the client reads the close frame, then the end of the stream, and
            # closes; what it sends meanwhile is dropped (data_received), not parsed.
            self._unparsed.clear()
            if self.transport.can_write_eof() and not self.transport.is_closing():
                self.transport.write_eof()
