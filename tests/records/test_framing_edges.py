"""Errors and bounds of the records part that the second mutation sample (tests/README.md, the run of
2026-11-27) left alive: an unknown codec id, legacy messages cut short or with a broken inner CRC, a
record field of the wrong type, a control key out of range, and Arrow's 2 GiB cap on one set of
arrays. Batches come from kafka-python's builders or are laid out by hand from Kafka's documented
formats; checksums from Python's zlib (CRC-32) and kafka-python's CRC-32C."""
from __future__ import annotations

import gzip
import struct
import zlib

import pytest

from kwire.records import record_codec
from kwire.records.byte_writer import BytesWriter
from kwire.records.column_decoder import ColumnBuilder
from kwire.records.control import ControlRecordType, encode_control_key
from kwire.records.legacy import decode_legacy_message
from kwire.records.reader import iter_batches
from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError
from tests.optional import need_module

INT32_MAX = 2**31 - 1  # Arrow's binary arrays have int32 offsets
V2_HEADER = 61  # Kafka's v2 batch header; the records follow it
ATTRIBUTES_AT, CRC_AT = 21, 17
LOG_OVERHEAD = 12  # a legacy entry's offset (8) and size (4)


def kafka_python_batch(values: tuple[bytes, ...] = (b"v",)) -> bytes:
    records = need_module("kafka.record.default_records")
    builder = records.DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for delta, value in enumerate(values):
        builder.append(delta, 1_700_000_000_000, b"k", value, [])
    return bytes(builder.build())


def test_an_unknown_codec_id_points_at_its_batch() -> None:
    """Kafka's codec ids are 0-4 (attributes bits 0-2); 7 is none. The error points at the batch's
    own position, here behind a first batch. Kills ``xǁRecordBatchǁ_records_area__mutmut_10``."""
    crc32c = need_module("kafka.record.util").calc_crc32c
    first = kafka_python_batch()
    second = bytearray(kafka_python_batch((b"w",)))
    second[ATTRIBUTES_AT + 1] |= 0x07
    struct.pack_into(">I", second, CRC_AT, crc32c(bytes(second[ATTRIBUTES_AT:])))
    _, batch = iter_batches(first + bytes(second))
    with pytest.raises(DecodeError) as raised:
        _ = batch.records
    assert (raised.value.reason, raised.value.offset) == ("unknown compression codec id 7", len(first))


def legacy_message(offset: int, value: bytes, attributes: int = 0) -> bytes:
    """A magic 1 message from Kafka's documented layout: offset, size, crc (CRC-32 from the magic
    on), magic, attributes, timestamp, key (null), value."""
    body = struct.pack(">bbqi", 1, attributes, 1_700_000_000_000, -1) + struct.pack(">i", len(value)) + value
    return struct.pack(">qiI", offset, 4 + len(body), zlib.crc32(body)) + body


def test_a_legacy_header_one_byte_short_says_how_many_bytes_are_left() -> None:
    """Kills ``x_decode_legacy_message__mutmut_14`` (the reason dropped)."""
    message = legacy_message(3, b"value")
    with pytest.raises(DecodeError) as raised:
        decode_legacy_message(message[:LOG_OVERHEAD - 1], 0)
    assert (raised.value.reason, raised.value.offset) == ("legacy message header is truncated (11 bytes left)", 0)
    with pytest.raises(DecodeError) as past:  # exactly the 12 bytes: the header is read, its size is not there
        decode_legacy_message(message[:LOG_OVERHEAD], 0)
    assert "header is truncated" not in past.value.reason


def test_a_broken_inner_crc_says_where_in_the_decompressed_set() -> None:
    """A gzip wrapper (attributes codec 1) around two inner messages, the second's CRC broken:
    the error names the byte of the decompressed set where that message starts. Kills
    ``xǁLegacyBatchǁ_parse_inner__mutmut_39`` (no offset: "at byte None")."""
    first, second = legacy_message(0, b"a"), bytearray(legacy_message(1, b"b"))
    second[LOG_OVERHEAD] ^= 0xFF  # the CRC's first byte
    wrapper = legacy_message(1, gzip.compress(first + bytes(second)), attributes=1)
    intact = legacy_message(1, gzip.compress(first + legacy_message(1, b"b")), attributes=1)
    assert [record.value for record in decode_legacy_message(intact, 0).records] == [b"a", b"b"]
    with pytest.raises(CorruptRecordError) as raised:
        _ = decode_legacy_message(wrapper, 0).records
    assert raised.value.reason == (f"CRC-32 mismatch in the inner message at offset 1 (at byte {len(first)} of "
                                   "the decompressed message set of the wrapper at offset 1)")


def test_a_key_or_value_that_is_not_bytes_is_named() -> None:
    """Kills ``x_encode_record__mutmut_33`` (the key's path)."""
    for key, value, what, given in (("text", b"v", "key", "str"), (b"k", 3, "value", "int")):
        with pytest.raises(EncodeError) as raised:
            record_codec.encode_record(0, 0, key, value, [])
        assert raised.value.path == what
        assert str(raised.value).startswith(f"{what} must be bytes or None, not {given}")


def test_a_control_key_takes_an_int16_version_and_type() -> None:
    """Kafka's control key: version int16, type int16 (ControlRecordType.java). 32767 fits, 32768
    is refused with what went wrong. Kills ``x_encode_control_key__mutmut_6`` (no message)."""
    assert encode_control_key(ControlRecordType.COMMIT, 32767) == b"\x7f\xff\x00\x01"
    with pytest.raises(EncodeError) as raised:
        encode_control_key(ControlRecordType.COMMIT, 32768)
    assert raised.value.path == "key" and "control record key out of range" in str(raised.value)


class _Padded(BytesWriter):
    """Value bytes gathered so far, counted as if ``padding`` more were there: the size of a set of
    arrays near 2 GiB without holding 2 GiB."""

    padding = 0

    def __len__(self) -> int:
        return bytearray.__len__(self) + self.padding


def builder_with(padding: int) -> ColumnBuilder:
    builder = ColumnBuilder()
    builder.value_data = _Padded()
    builder.value_data.padding = padding
    return builder


def test_the_2_gib_cap_on_one_set_of_arrays_at_and_one_past_its_bound() -> None:
    """Keys, values and header bytes of one set of Arrow arrays fit int32 offsets: a region that
    brings them to exactly 2**31 - 1 bytes is taken, one more byte is refused where the region
    starts. The region starts past byte 0 of the buffer (its batch header before it). Kills
    ``xǁColumnBuilderǁdata_bytes__mutmut_3`` (values subtracted) and ``add_records__mutmut_24``
    (``limit + pos``)."""
    batch = kafka_python_batch((b"v1", b"v2"))
    pos, limit = V2_HEADER, len(batch)
    region = limit - pos
    args = (batch, pos, limit, 2, 0, 1_700_000_000_000, 0, False, 1000)
    at_bound = builder_with(INT32_MAX - region)
    at_bound.add_records(*args)
    assert at_bound.rows == 2
    past = builder_with(INT32_MAX - region + 1)
    with pytest.raises(DecodeError) as raised:
        past.add_records(*args)
    assert (raised.value.reason, raised.value.offset) == (
        "more than 2 GiB of keys, values and headers for one set of Arrow arrays", 1000 + pos)
    assert past.rows == 0
