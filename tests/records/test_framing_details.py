"""Batch framing, legacy messages, record fields and decompression errors: what the mutation run's
sample left alive in kwire/records (tests/README.md). Batches and legacy messages here are written
by kafka-python or by hand from Kafka's documented layout; lz4, snappy and zstd data by their own
libraries."""
from __future__ import annotations

import struct

import cramjam
import lz4.frame
import pytest

from kwire.records import columns, record_codec, utf8_check
from kwire.records.batch import decode_batch
from kwire.records.builder import RecordBatchBuilder
from kwire.records.compression import Codec, compress, decompress
from kwire.records.legacy import decode_legacy_message
from kwire.records.reader import iter_batches, read_entry
from kwire.records.record import Record
from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError
from tests.packages import KpBuilder, KpLegacyBuilder
from tests.varints import zigzag

RECORD_COUNT_AT = 57  # Kafka's v2 batch header: baseOffset(8) ... baseSequence(4) recordsCount(4)


def kafka_batch(base_offset: int = 0, values: tuple[bytes, ...] = (b"v",)) -> bytes:
    builder = KpBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for delta, value in enumerate(values):
        builder.append(base_offset + delta, 1_700_000_000_000, None, value, [])
    return bytes(builder.build())


def record_bytes(key: bytes | None, key_length: int | None = None, headers: bytes = b"\x00") -> bytes:
    """One v2 record: attributes, timestampDelta, offsetDelta, key, value (null), headers."""
    length = key_length if key_length is not None else (-1 if key is None else len(key))
    body = b"\x00" + zigzag(0) + zigzag(0) + zigzag(length) + (key or b"") + zigzag(-1) + headers
    return zigzag(len(body)) + body


# --- v2 batches --------------------------------------------------------------------------------

def test_a_truncated_batch_header_says_how_many_bytes_are_left() -> None:
    with pytest.raises(DecodeError) as raised:
        decode_batch(b"\x00" * 12, 0)
    assert (raised.value.reason, raised.value.offset) == ("record batch header is truncated (12 bytes left)", 0)


def test_a_record_count_larger_than_the_records_area_is_refused() -> None:
    batch = bytearray(kafka_batch(values=(b"abc",)))
    struct.pack_into(">i", batch, RECORD_COUNT_AT, 1000)
    with pytest.raises(CorruptRecordError) as raised:
        _ = decode_batch(bytes(batch), 0, verify_crc=False).records
    records_area = len(batch) - 61  # Kafka's v2 header is 61 bytes
    assert raised.value.reason == (f"batch at base offset 0 claims 1000 records but has only {records_area} "
                                   "bytes of records")


def test_read_entry_refuses_a_header_that_stops_at_the_magic_byte() -> None:
    batch = kafka_batch()
    for pos, left in [(0, 16), (5, 16), (5, 11)]:  # the magic byte is byte 16 of both formats
        buf = b"\xee" * pos + batch
        with pytest.raises(DecodeError) as raised:
            read_entry(buf, pos, pos + left)
        assert (raised.value.reason, raised.value.offset) == (f"entry header is truncated ({left} bytes left)", pos)
    assert read_entry(b"\xee" * 5 + batch, 5).base_offset == 0


def test_a_damaged_size_in_front_of_a_valid_batch_is_reported() -> None:
    first, damaged, last = kafka_batch(0), bytearray(kafka_batch(1)), kafka_batch(2)
    struct.pack_into(">i", damaged, 8, 10_000)  # batchLength
    buf = first + bytes(damaged) + last
    batches = iter_batches(buf)
    with pytest.raises(CorruptRecordError) as raised:
        list(batches)
    pos = len(first)
    follow = len(buf) - pos - 12  # bytes after its offset and size fields
    assert raised.value.offset == pos
    assert raised.value.reason == (
        f"entry size 10000 runs past the end ({follow} bytes follow its header), but a valid batch starts "
        f"{len(damaged)} bytes after this entry: its size field is damaged")


# --- records -----------------------------------------------------------------------------------

def test_keys_with_two_byte_lengths() -> None:
    key = bytes(range(100))  # zigzag(100) takes two bytes
    data = record_bytes(key) + record_bytes(None)
    records = record_codec.read_records(data, 0, len(data), 2, 7, 1000)
    assert [r.key for r in records] == [key, None]
    bad = record_bytes(b"", key_length=-65)  # zigzag(-65) = 129: two bytes, negative
    with pytest.raises(DecodeError) as raised:
        record_codec.read_records(bad, 0, len(bad), 1, 7, 1000)
    assert "-65" in raised.value.reason


def test_headers_that_stop_before_the_record_does() -> None:
    header = zigzag(1) + b"h" + zigzag(-1)  # key "h", null value
    body = b"\x00" + zigzag(0) + zigzag(0) + zigzag(-1) + zigzag(-1) + zigzag(1) + header + b"\x00"
    data = zigzag(len(body)) + body  # one header, then one byte more inside the record
    with pytest.raises(DecodeError) as raised:
        record_codec.read_records(data, 0, len(data), 1, 0, 0)
    assert raised.value.reason == "record headers do not end where the record does"
    assert raised.value.offset == len(data) - 1


def test_records_compare_by_their_fields() -> None:
    a = Record(3, 1000, b"k", b"v", [("h", b"1")], 3, 0)
    assert a == Record(3, 1000, b"k", b"v", [("h", b"1")], 3, 0)
    assert a != Record(3, 1000, b"k", b"w", [("h", b"1")], 3, 0)


def test_a_bad_timestamp_names_the_field() -> None:
    builder = RecordBatchBuilder(base_offset=0)
    with pytest.raises(EncodeError) as raised:
        builder.append(2**63, None, b"v")
    assert raised.value.path == "timestamp"


# --- legacy messages ---------------------------------------------------------------------------

def kafka_legacy(magic: int) -> bytes:
    builder = KpLegacyBuilder(magic, 0, 1 << 20)
    builder.append(5, 1_700_000_000_000 if magic else None, b"key", b"value")
    return bytes(builder.build())


def test_a_legacy_key_length_that_does_not_fit_points_at_the_length() -> None:
    message = bytearray(kafka_legacy(1))
    key_length_at = 12 + 4 + 1 + 1 + 8  # offset, size; crc, magic, attributes, timestamp
    struct.pack_into(">i", message, key_length_at, 1000)
    with pytest.raises(CorruptRecordError) as raised:
        decode_legacy_message(bytes(message), 0, verify_crc=False)
    assert raised.value.offset == key_length_at
    assert raised.value.reason.startswith("legacy message key length 1000 does not fit")


def test_a_legacy_record_keeps_its_attributes() -> None:
    message = bytearray(kafka_legacy(1))
    message[12 + 4 + 1] = 0x08  # attributes: timestamp type LogAppendTime, no codec
    [record] = decode_legacy_message(bytes(message), 0, verify_crc=False).records
    assert (record.offset, record.key, record.value, record.attributes) == (5, b"key", b"value", 0x08)


# --- compression -------------------------------------------------------------------------------

def test_compress_names_the_codec_argument() -> None:
    with pytest.raises(EncodeError) as raised:
        compress("brotli", b"x")
    assert raised.value.path == "codec"


def test_a_truncated_lz4_frame_bigger_than_one_chunk() -> None:
    data = bytes(range(256)) * 20_000  # 5 MB: several decompression steps
    frame = lz4.frame.compress(data)
    assert decompress(Codec.LZ4, frame, len(data), offset=3) == data
    with pytest.raises(DecodeError) as raised:
        decompress(Codec.LZ4, frame[:-20], len(data), offset=3)
    assert (raised.value.reason, raised.value.offset) == ("lz4 data does not decompress: the frame is truncated", 3)


def test_lenient_lz4_header_that_no_checksum_repairs_is_a_decode_error() -> None:
    frame = bytearray(lz4.frame.compress(b"payload"))
    frame[4] = 0x00  # FLG: version 00, which no checksum byte makes valid
    with pytest.raises(DecodeError):
        decompress(Codec.LZ4, bytes(frame), 100, offset=0, lenient_lz4_header=True)


def test_snappy_errors_carry_the_detail_and_the_offset() -> None:
    with pytest.raises(DecodeError) as raised:
        decompress(Codec.SNAPPY, b"\xff\xff\xff\xff\xff\xff", 100, offset=9)
    try:
        cramjam.snappy.decompress_raw_len(b"\xff\xff\xff\xff\xff\xff")
    except Exception as exc:  # what cramjam itself says
        detail = str(exc)
    assert (raised.value.reason, raised.value.offset) == (f"snappy data does not decompress: {detail}", 9)
    block = bytes(cramjam.snappy.compress_raw(b"a" * 1000))
    with pytest.raises(DecodeError) as raised:
        decompress(Codec.SNAPPY, block, 999, offset=9)
    assert (raised.value.reason, raised.value.offset) == (
        "decompressed data exceeds the cap of 999 bytes (reached 1000)", 9)


def test_a_truncated_xerial_header_points_at_the_data() -> None:
    with pytest.raises(DecodeError) as raised:
        decompress(Codec.SNAPPY, b"\x82SNAPPY\x00\x00\x00", 100, offset=61)
    assert (raised.value.reason, raised.value.offset) == (
        "snappy data does not decompress: the xerial header is truncated", 61)


# --- the compiled column decoder's choice and its UTF-8 check ----------------------------------

def test_choosing_python_skips_the_compiled_decoder(monkeypatch) -> None:
    monkeypatch.setenv(columns.CHOICE_VARIABLE, "python")
    assert columns.load_compiled() == (None, f"{columns.CHOICE_VARIABLE}=python")


@pytest.mark.parametrize("text", [
    b"\xdf\xbf\xff", b"\xc2\x80\xc1", b"\xdf\xc0", b"\xe0\x9f\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"ok \xdf\xbf \xef\xbf\xbf \xf4\x8f\xbf\xbf", b"\xf0\x90\x80", b"\xc2",
])
def test_utf8_check_agrees_with_python(text: bytes) -> None:
    try:
        text.decode("utf-8")
        expected = -1
    except UnicodeDecodeError as exc:
        expected = exc.start
    assert utf8_check.utf8_error(text, 0, len(text)) == expected
