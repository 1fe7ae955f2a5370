"""The asyncio and blocking adapters against scripted loopback peers: a silent peer times out, a
peer that hangs up during negotiation is a clear error, nothing listening is a ClientError."""
from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from kwire.network import aio
from kwire.network.blocking import BlockingConnection
from kwire.network.connection import ConnectionClosed, RequestTimedOut
from kwire.network.errors import ClientError


class Peer:
    """Accepts one connection on loopback; ``answer`` is b"" to hang up at once, None to stay silent."""

    def __init__(self, answer: bytes | None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.answer = answer
        self.done = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(10)
        connection, _ = self.listener.accept()
        with connection:
            connection.recv(4096)
            if self.answer is None:
                self.done.wait(10)
            else:
                connection.sendall(self.answer)

    def close(self) -> None:
        self.done.set()
        self.listener.close()


@pytest.mark.parametrize("answer", [None, b"", b"\x00\x00\x00\x20\x00\x00"], ids=["silent", "hang-up", "half-frame"])
def test_blocking_adapter(answer):
    peer = Peer(answer)
    try:
        expected = RequestTimedOut if answer is None else ConnectionClosed
        with pytest.raises(expected, match="timed out reading" if answer is None else "closed the connection"):
            BlockingConnection("127.0.0.1", peer.port, timeout=0.3)
    finally:
        peer.close()


@pytest.mark.parametrize("answer", [None, b"", b"\x00\x00\x00\x20\x00\x00"], ids=["silent", "hang-up", "half-frame"])
def test_aio_adapter(answer):
    peer = Peer(answer)
    try:
        expected = RequestTimedOut if answer is None else ConnectionClosed
        with pytest.raises(expected):
            asyncio.run(aio.connect("127.0.0.1", peer.port, timeout=0.3))
    finally:
        peer.close()


def test_nothing_listening():
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with pytest.raises(ClientError, match="cannot connect"):
        BlockingConnection("127.0.0.1", port, timeout=1)
    with pytest.raises(ClientError, match="cannot connect"):
        asyncio.run(aio.connect("127.0.0.1", port, timeout=1))
