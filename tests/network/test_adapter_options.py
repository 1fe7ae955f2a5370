"""What the blocking and asyncio adapters pass on to the connection, seen from a peer on loopback.

The peer answers every ApiVersions request with a frame kio encodes (``tests/network/kio_broker.py``)
and keeps each request frame it reads. The client id is read out of those frames by hand, from
Kafka's RequestHeader layout (``RequestHeader.json``: RequestApiKey int16, RequestApiVersion int16,
CorrelationId int32, ClientId nullable string with an int16 length, in every header version), so no
kwire decoder is involved. The frame-size limit is tested at the size of the peer's answer and one
byte below it.
"""
from __future__ import annotations

import asyncio
import struct

import pytest

from kwire.wire.errors import DecodeError
from tests.network.livepeers import LOOPBACK
from tests.optional import need_module


@pytest.fixture
def kio_broker():
    need_module("kio")
    need_module("scramp")
    from tests.network import kio_broker

    return kio_broker


def client_id_of(frame: bytes) -> str | None:
    """RequestHeader's ClientId, read from the bytes: int16 length (-1: null), then the text."""
    (length,) = struct.unpack_from(">h", frame, 4 + 8)
    return None if length < 0 else frame[4 + 10:4 + 10 + length].decode("utf-8")


@pytest.fixture
def peer(kio_broker):
    """kio_broker's broker, left at answering ApiVersions: ``frames`` are the requests as they came."""
    with kio_broker.KioBroker() as server:
        yield server
    assert server.errors == []


def blocking_connect(port: int, **options) -> None:
    from kwire.network.blocking import BlockingConnection

    BlockingConnection(LOOPBACK, port, timeout=20, **options).close()


def aio_connect(port: int, **options) -> None:
    from kwire.network.aio import connect

    async def run() -> None:
        conn = await connect(LOOPBACK, port, timeout=20, **options)
        await conn.close()

    asyncio.run(run())


ADAPTERS = [blocking_connect, aio_connect]


@pytest.mark.parametrize("connect", ADAPTERS, ids=["blocking", "asyncio"])
def test_the_client_id_given_is_the_one_every_request_header_carries(peer, connect):
    """Kills ``blocking.xǁBlockingConnectionǁ__init____mutmut_16`` (``client_id`` not passed on)."""
    connect(peer.port)
    connect(peer.port, client_id="probe-7")
    assert [client_id_of(frame) for frame in peer.frames] == ["kwire", "probe-7"]


@pytest.mark.parametrize("connect", ADAPTERS, ids=["blocking", "asyncio"])
def test_the_frame_size_limit_given_holds_at_the_answer_size_and_refuses_one_byte_less(peer, connect):
    """Kills ``aio.x_connect__mutmut_40`` (``max_frame_bytes`` not passed on)."""
    connect(peer.port)
    [reply] = peer.replies
    size = len(reply) - 4  # the answer's size prefix: what the limit is compared with
    connect(peer.port, max_frame_bytes=size)
    with pytest.raises(DecodeError, match=f"response frame size {size} is outside 0..{size - 1}") as info:
        connect(peer.port, max_frame_bytes=size - 1)
    assert (info.value.path, info.value.offset) == ("frame size", 0)
    assert len(peer.replies) == 3
