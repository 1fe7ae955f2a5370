"""GeneratedStruct's entry points and the unsigned-varint reader: what the mutation run found
unchecked by the wire and record tests (tests/README.md)."""
from __future__ import annotations

import pytest

from kwire.generated import SaslHandshakeRequest
from kwire.wire.errors import DecodeError, UnsupportedVersionError
from kwire.wire.varint import read_uvarint

REQUEST = SaslHandshakeRequest(mechanism="PLAIN")
WIRE = REQUEST.encode(1)  # int16 length + "PLAIN"


@pytest.mark.parametrize("make", [bytes, bytearray, memoryview], ids=["bytes", "bytearray", "memoryview"])
def test_read_takes_any_buffer_and_returns_the_end(make) -> None:
    assert WIRE == b"\x00\x05PLAIN"
    assert SaslHandshakeRequest.read(make(b"\xff" + WIRE + b"\xee"), 1, 1) == (REQUEST, 1 + len(WIRE))


@pytest.mark.parametrize("pos", [-1, len(WIRE) + 1])
def test_read_refuses_a_start_outside_the_buffer(pos: int) -> None:
    with pytest.raises(DecodeError) as raised:
        SaslHandshakeRequest.read(WIRE, pos, 1)
    assert raised.value.offset == pos and raised.value.reason == f"start position {pos} is outside the buffer"


@pytest.mark.parametrize("version", [-1, 2, 99])
def test_decode_refuses_a_version_outside_the_valid_range(version: int) -> None:
    with pytest.raises(UnsupportedVersionError):
        SaslHandshakeRequest.decode(WIRE, version)


def test_unsigned_varint_errors_name_the_problem_and_the_offset() -> None:
    # the offset is where the varint starts (kwire.wire.varint reads every varint, bounded by ``end``)
    assert read_uvarint(b"\x00\xff\xff\xff\xff\x0f", 1, 6) == (2**32 - 1, 6)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\x00\x80\x80", 1, 3)
    assert (raised.value.reason, raised.value.offset) == ("truncated unsigned varint", 1)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\x00\x80\x80\x80\x80\x80\x01", 1, 7)
    assert (raised.value.reason, raised.value.offset) == ("unsigned varint is longer than 5 bytes", 1)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\xff\xff\xff\xff\x1f", 0, 5)
    assert (raised.value.reason, raised.value.offset) == ("unsigned varint exceeds 32 bits", 0)
