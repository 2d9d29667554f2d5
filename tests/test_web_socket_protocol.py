"""The websocket protocol ``serve`` runs reads no faster than the app takes messages.

Driven with a transport that records what the protocol asks of it, and a small ASGI app
whose steps the test releases one by one, so every check is on a state (the messages queued,
the bytes left unparsed, reading paused or not, the bytes the parser was handed), never on
time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from zerosum.web import server_config
from zerosum.web.socket_protocol import SLICE, GuardedWebSocketsProtocol

Message = MutableMapping[str, Any]
App = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]
FLOOD = 3000
"""Messages in the flood: about 100 KB, read by the server in one piece."""
THINK = b'{"action": "think", "time": 1}'
PROTOCOL: type[WebSocketsSansIOProtocol] = GuardedWebSocketsProtocol


class Transport(asyncio.Transport):
    """Records writes, pauses, half closes and closes."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.paused = False
        self.closing = False
        self.eof_written = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def write(self, data: Any) -> None:
        self.written += data

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof_written = True


def new_client() -> tuple[ClientProtocol, bytes]:
    """A websocket client and its handshake request, as bytes."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/live"))
    client.send_request(client.connect())
    return client, b"".join(client.data_to_send())


def frames(client: ClientProtocol, messages: int) -> bytes:
    """``messages`` thinks from ``client``, as the bytes it sends."""
    for _ in range(messages):
        client.send_text(THINK)
    return b"".join(client.data_to_send())


def connect(protocol_class: type[WebSocketsSansIOProtocol], app: App) -> tuple[Any, Transport]:
    config = server_config(app, log_config=None)
    protocol = protocol_class(config, ServerState(), {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


async def handshake(
    protocol: Any, transport: Transport, client: ClientProtocol, request: bytes
) -> None:
    """Send the handshake and feed the server's answer to ``client``; returns once open."""
    protocol.data_received(request)
    while b"\r\n\r\n" not in transport.written:
        await asyncio.sleep(0)
    client.receive_data(bytes(transport.written))
    transport.written.clear()
    assert client.events_received(), "the server answered the handshake"


def test_a_flood_read_in_one_piece_is_parsed_as_the_app_takes_it() -> None:
    async def scenario() -> None:
        take = asyncio.Event()
        taken: list[str] = []

        async def app(scope: Message, receive: Any, send: Any) -> None:
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await take.wait()
            while len(taken) < FLOOD:
                message = await receive()
                taken.append(message["text"])

        protocol, transport = connect(PROTOCOL, app)
        client, request = new_client()
        await handshake(protocol, transport, client, request)
        flood = frames(client, FLOOD)
        most = SLICE // (len(flood) // FLOOD) + 1  # the messages one slice can hold
        assert 10 * most < FLOOD
        protocol.data_received(flood)  # one read of the whole flood
        # Nothing taken yet: one slice parsed and queued, the rest waits unparsed, and the
        # socket reads no more.
        assert 1 <= protocol.queue.qsize() <= most
        assert protocol.unparsed >= len(flood) - SLICE
        assert transport.paused
        take.set()
        while len(taken) < FLOOD:
            await asyncio.sleep(0)
            assert protocol.queue.qsize() <= most
        assert taken == [THINK.decode()] * FLOOD  # every message, in order
        assert protocol.unparsed == 0 and not transport.paused  # reading again

    asyncio.run(scenario())


def test_what_a_client_sends_after_the_server_closed_is_dropped_unparsed() -> None:
    async def scenario() -> None:
        parsed: list[int] = []

        async def app(scope: Message, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            await receive()  # the first think: the client floods, the server closes
            await send({"type": "websocket.close", "code": 1008, "reason": "flooding"})
            await asyncio.Event().wait()  # the app lingers; the connection must not parse

        protocol, transport = connect(PROTOCOL, app)
        client, request = new_client()
        await handshake(protocol, transport, client, request)
        feed = protocol.conn.receive_data

        def spy(data: bytes | bytearray) -> None:
            parsed.append(len(data))
            feed(data)

        protocol.conn.receive_data = spy
        protocol.data_received(frames(client, 1))
        while not protocol.close_sent:
            await asyncio.sleep(0)
        parsed.clear()
        protocol.data_received(frames(client, FLOOD))  # the flood the client had sent meanwhile
        assert parsed == [] and protocol.unparsed == 0
        assert protocol.queue.qsize() <= 1  # at most the disconnect uvicorn queues on close
        assert transport.eof_written  # half closed: the client reads the close, then the end
        client.receive_data(bytes(transport.written))
        assert client.close_rcvd is not None and client.close_rcvd.code == 1008
        for task in list(protocol.tasks):
            task.cancel()

    asyncio.run(scenario())
