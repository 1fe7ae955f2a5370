"""kwire.wire.varint against Kafka's own encodings.

The value/byte pairs are those of Kafka 3.8.0's ByteUtilsTest (testUnsignedVarintSerde,
testVarintSerde, testVarlongSerde; Apache License 2.0), where Java's negative unsigned ints are
written here as the unsigned values they stand for.
"""
from __future__ import annotations

import pytest

from kwire.wire.errors import DecodeError, EncodeError
from kwire.wire.varint import read_uvarint, read_zigzag, uvarint, uvarint_size, zigzag

UNSIGNED = [(0, "00"), (0xFFFFFFFF, "ffffffff0f"), (1, "01"), (63, "3f"), (2**32 - 64, "c0ffffff0f"), (64, "40"),
            (8191, "ff3f"), (2**32 - 8192, "80c0ffff0f"), (8192, "8040"), (2**32 - 8193, "ffbfffff0f"),
            (1048575, "ffff3f"), (1048576, "808040"), (2**31 - 1, "ffffffff07"), (2**31, "8080808008")]
ZIGZAG = [(0, "00"), (-1, "01"), (1, "02"), (63, "7e"), (-64, "7f"), (64, "8001"), (-65, "8101"), (8191, "fe7f"),
          (-8192, "ff7f"), (8192, "808001"), (-8193, "818001"), (1048575, "feff7f"), (-1048576, "ffff7f"),
          (1048576, "80808001"), (-1048577, "81808001"), (134217727, "feffff7f"), (-134217728, "ffffff7f"),
          (134217728, "8080808001"), (-134217729, "8180808001"), (2**31 - 1, "feffffff0f"),
          (-(2**31), "ffffffff0f")]
VARLONG_ONLY = [(17179869183, "feffffff7f")]


@pytest.mark.parametrize(("value", "wire"), UNSIGNED)
def test_unsigned_varints_as_kafka_writes_them(value, wire):
    data = bytes.fromhex(wire)
    assert uvarint(value) == data and uvarint_size(value) == len(data)
    assert read_uvarint(b"\xaa" + data + b"\xbb", 1, len(data) + 1) == (value, len(data) + 1)


@pytest.mark.parametrize(("value", "wire"), ZIGZAG + VARLONG_ONLY)
def test_zigzag_varints_and_varlongs_as_kafka_writes_them(value, wire):
    data = bytes.fromhex(wire)
    assert zigzag(value) == data
    assert read_zigzag(data, 0, len(data), True, 0) == (value, len(data))
    if (value, wire) in ZIGZAG:
        assert read_zigzag(data, 0, len(data), False, 0) == (value, len(data))


def test_a_value_spelled_in_more_bytes_than_it_needs_is_read_as_kafka_reads_it():
    assert read_uvarint(b"\x81\x00", 0, 2) == (1, 2)  # the compact count of an empty array
    assert read_zigzag(b"\x81\x00", 0, 2, False, 0) == (-1, 2)  # a null length


@pytest.mark.parametrize("reader", [lambda buf, end: read_uvarint(buf, 1, end),
                                    lambda buf, end: read_zigzag(buf, 1, end, False, 100)])
def test_a_varint_that_runs_past_its_end_names_its_offset(reader):
    data = b"\x00\x80\x80\x01"  # complete in the buffer, but the end bound comes first
    with pytest.raises(DecodeError) as failure:
        reader(data, 3)
    assert failure.value.offset in (1, 101)
    with pytest.raises(DecodeError) as failure:
        reader(data, 1)  # no byte at all
    assert failure.value.offset in (1, 101)  # where the varint would start (report base 0 or 100)


def test_over_long_and_out_of_range_varints_are_refused():
    with pytest.raises(DecodeError, match="longer than 5 bytes"):
        read_uvarint(b"\x80\x80\x80\x80\x80\x01", 0, 6)
    with pytest.raises(DecodeError, match="exceeds 32 bits"):
        read_uvarint(b"\xff\xff\xff\xff\x1f", 0, 5)
    with pytest.raises(DecodeError, match="longer than 5 bytes"):
        read_zigzag(b"\x80\x80\x80\x80\x80\x01", 0, 6, False, 0)
    with pytest.raises(DecodeError, match="out of int32 range"):
        read_zigzag(b"\xff\xff\xff\xff\x1f", 0, 5, False, 0)
    with pytest.raises(DecodeError, match="longer than 10 bytes"):
        read_zigzag(b"\x80" * 10 + b"\x01", 0, 11, True, 0)
    with pytest.raises(DecodeError, match="out of int64 range"):
        read_zigzag(b"\xff" * 9 + b"\x02", 0, 10, True, 0)
    with pytest.raises(EncodeError):
        uvarint(2**32)
