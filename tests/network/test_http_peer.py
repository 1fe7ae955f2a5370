"""A peer that answers HTTP (a web server or proxy at the address given, as nginx answers 400 to
the binary request line a Kafka request is to it) is called that: one error saying so, from
both adapters, not a frame size of 1213486160 ("HTTP" read as a size prefix)."""
from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from kwire.network import aio
from kwire.network.blocking import BlockingConnection
from kwire.wire.errors import KwireError
from tests.network.livepeers import LOOPBACK, accepted

ANSWER = b"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
SAID = "the peer answered HTTP, not Kafka ('HTTP/1.1 400 Bad Request'): is this a Kafka listener's address?"


@pytest.fixture
def web_server():
    """Reads what a client sends first, answers 400 as an HTTP server does, closes."""
    listener = socket.create_server((LOOPBACK, 0))
    listener.settimeout(0.2)  # how soon the thread notices the end of the test
    stop = threading.Event()

    def serve() -> None:
        for conn in accepted(listener, stop):
            conn.settimeout(5)
            with conn:
                conn.recv(4096)
                conn.sendall(ANSWER)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    listener.close()


def test_the_blocking_adapter_says_the_peer_answered_http(web_server):
    with pytest.raises(KwireError) as raised:
        BlockingConnection(LOOPBACK, web_server, timeout=5)
    assert SAID in str(raised.value)


def test_the_asyncio_adapter_says_the_peer_answered_http(web_server):
    async def connect() -> None:
        await aio.connect(LOOPBACK, web_server, timeout=5)

    with pytest.raises(KwireError) as raised:
        asyncio.run(connect())
    assert SAID in str(raised.value)
