"""Bad bytes: CRC errors that name the batch, malformed records with a valid CRC, truncation,
and fuzzing that only ever sees kwire's own exceptions."""
from __future__ import annotations

import struct

import pytest
from crc32c import crc32c

from kwire.records import BatchReader, Codec, RecordBatchBuilder, decode_batch
from kwire.wire.errors import CorruptRecordError, DecodeError, KwireError
from tests.packages import HealthCheck, KpBuilder, given, settings, st
from tests.varints import zigzag


def raw_record(body: bytes) -> bytes:
    return zigzag(len(body)) + body


def record_body(key=b"k", value=b"v", headers=b"\x00", ts_delta=b"\x00", offset_delta=b"\x00") -> bytes:
    def sized(field):
        return zigzag(-1) if field is None else zigzag(len(field)) + field

    return b"\x00" + ts_delta + offset_delta + sized(key) + sized(value) + headers


def raw_batch(records: bytes, count: int, *, attributes: int = 0, base_offset: int = 0) -> bytes:
    """A v2 batch laid out from the format description, with a correct CRC-32C."""
    covered = struct.pack(">hiqqqhii", attributes, max(count - 1, 0), 1000, 1000, -1, -1, -1, count) + records
    return struct.pack(">qiibI", base_offset, 49 + len(records), 0, 2, crc32c(covered)) + covered


def sample_batch(base_offset=4242, codec=Codec.NONE) -> bytes:
    builder = RecordBatchBuilder(base_offset=base_offset, codec=codec)
    for i in range(5):
        builder.append(1000 + i, b"key%d" % i, b"value" * i, [("h", b"x")] if i % 2 else [])
    return builder.build()


def test_hand_laid_batch_decodes():
    batch = decode_batch(raw_batch(raw_record(record_body(key=None, value=b"hello")), 1, base_offset=9))
    (record,) = batch.records
    assert (record.offset, record.timestamp, record.key, record.value, record.headers) == (9, 1000, None, b"hello", [])


@pytest.mark.parametrize("codec", list(Codec), ids=lambda c: c.name.lower())
def test_every_flipped_byte_under_the_crc_is_a_crc_error_naming_the_batch(codec):
    first = sample_batch(base_offset=100, codec=codec)
    second = sample_batch(base_offset=4242, codec=codec)
    for index in range(21, len(second)):  # attributes .. end is what the CRC covers
        corrupted = bytearray(first + second)
        corrupted[len(first) + index] ^= 0x01
        reader = BatchReader(bytes(corrupted))
        with pytest.raises(CorruptRecordError) as info:
            list(reader)
        assert "CRC-32C mismatch" in info.value.reason
        assert "base offset 4242" in info.value.reason
        assert info.value.offset == len(first)


def test_partition_leader_epoch_is_outside_the_crc():
    wire = bytearray(sample_batch())
    wire[12:16] = struct.pack(">i", 77)  # brokers set it without recomputing the CRC
    assert decode_batch(bytes(wire)).partition_leader_epoch == 77


def test_crc_check_can_be_turned_off():
    wire = bytearray(sample_batch())
    wire[-1] ^= 0xFF
    batch = decode_batch(bytes(wire), verify_crc=False)
    assert not batch.crc_valid
    assert decode_batch(sample_batch(), verify_crc=False).crc_valid


def test_every_truncation_is_reported():
    wire = sample_batch()
    for cut in range(len(wire)):
        with pytest.raises(DecodeError) as info:
            decode_batch(wire[:cut])
        assert info.value.offset == 0
        reader = BatchReader(wire + wire[:cut])
        assert len(list(reader)) == 1
        assert reader.truncated_at == (len(wire) if cut else None)


GOOD = record_body()
MALFORMED = {
    "over-long varint": (b"\x80\x80\x80\x80\x80\x01" + GOOD, 1, "longer than 5 bytes"),
    "negative record length": (zigzag(-3) + GOOD, 1, "record length -3"),
    "record longer than batch": (zigzag(len(GOOD) + 5) + GOOD, 1, "does not fit"),
    "record shorter than fields": (zigzag(len(GOOD) - 1) + GOOD, 1, "fields take"),
    "negative key length": (raw_record(b"\x00\x00\x00" + zigzag(-2) + b"\x02v\x00"), 1, "key length -2"),
    "key past record end": (raw_record(b"\x00\x00\x00" + zigzag(40) + b"kkk\x02v\x00"), 1, "key length 40"),
    "value past record end": (raw_record(b"\x00\x00\x00\x01" + zigzag(9) + b"v\x00"), 1, "value length 9"),
    "negative header count": (raw_record(record_body(headers=zigzag(-1))), 1, "header count -1"),
    "huge header count": (raw_record(record_body(headers=zigzag(2**30))), 1, "header count"),
    "null header key": (raw_record(record_body(headers=zigzag(1) + zigzag(-1) + zigzag(-1))), 1,
                        "header key length -1"),
    "non-UTF-8 header key": (raw_record(record_body(headers=zigzag(1) + zigzag(1) + b"\xff" + zigzag(-1))), 1, "UTF-8"),
    "count above records": (raw_record(GOOD) * 2, 3, "truncated|claims"),
    "count below records": (raw_record(GOOD) * 3, 2, "left over"),
    "varlong timestamp out of range": (
        raw_record(b"\x00" + b"\xff" * 9 + b"\x7f" + b"\x00\x02k\x02v\x00"), 1, "varint is out of int64 range"
    ),
}


@pytest.mark.parametrize("records, count, message", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_records_with_valid_crc_raise_decode_error(records, count, message):
    wire = b"\x00" * 7 + raw_batch(records, count)  # not at position 0: offsets must be absolute
    batch = decode_batch(wire, 7)
    with pytest.raises(DecodeError, match=message) as info:
        _ = batch.records
    # the offset points into the batch (at the end for a field that should continue past it)
    assert info.value.offset is not None and 7 <= info.value.offset <= len(wire)


@pytest.mark.parametrize(
    "wire, error, message",
    [
        (raw_batch(b"", 0)[:8] + struct.pack(">i", 48) + raw_batch(b"", 0)[12:], CorruptRecordError,
         "below the minimum"),
        (raw_batch(b"", -1), CorruptRecordError, "negative record count"),
        (raw_batch(b"\x00" * 10, 1, attributes=5), DecodeError, "codec id 5"),
    ],
    ids=["short-length", "negative-count", "unknown-codec"],
)
def test_malformed_headers(wire, error, message):
    with pytest.raises(error, match=message):
        _ = decode_batch(wire).records


def test_unknown_magic_in_a_record_stream():
    wire = bytearray(sample_batch())
    wire[16] = 3
    with pytest.raises(CorruptRecordError, match="magic 3"):
        list(BatchReader(bytes(wire)))


def test_entry_size_below_minimum_is_corrupt_not_truncated():
    with pytest.raises(CorruptRecordError, match="entry size 5"):
        list(BatchReader(struct.pack(">qi", 0, 5) + b"\x00" * 40))


# ------------------------------------------------------------------------------------ fuzzing

VALID = [sample_batch(codec=c) for c in Codec]


def decode_everything(data: bytes) -> None:
    for batch in BatchReader(data, verify_crc=False, max_decompressed_size=1 << 20):
        for record in batch.records:
            _ = (record.key, record.value, record.headers)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(VALID),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
    st.integers(0, 10_000),
)
def test_mutated_batches_raise_only_kwire_errors(wire, flips, cut):
    data = bytearray(wire)
    for index, byte in flips:
        data[index % len(data)] = byte
    data = bytes(data[: max(len(data) - cut % 40, 0)])
    try:
        decode_everything(data)
    except KwireError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_kwire_errors(data):
    try:
        decode_everything(data)
    except KwireError:
        pass


@pytest.mark.parametrize("claimed", [0, 8, 9, 10])
def test_a_record_count_at_and_past_what_the_bytes_can_hold(claimed):
    """Nine records of the smallest size (7 bytes: length, attributes, both deltas, null key, null
    value, no headers), written by kafka-python; the count field then says 0, 8, 9 or 10."""
    builder = KpBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=-1,
                                        producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    for offset in range(9):
        builder.append(offset, timestamp=1_700_000_000_000, key=None, value=None, headers=[])
    wire = bytearray(builder.build())
    assert len(wire) == 61 + 9 * 7  # the batch header, then 63 bytes of records
    struct.pack_into(">i", wire, 57, claimed)  # recordCount, the last field of the header
    batch = decode_batch(bytes(wire), 0, verify_crc=False)
    if claimed == 0:
        assert batch.records == []  # Kafka never looks at the records of an empty batch
    elif claimed == 9:
        assert [(r.offset, r.key, r.value) for r in batch.records] == [(i, None, None) for i in range(9)]
    elif claimed == 8:
        with pytest.raises(DecodeError, match="left over"):
            _ = batch.records
    else:  # refused from the count alone: 10 records need at least 70 bytes
        with pytest.raises(CorruptRecordError, match="^batch at base offset 0 claims 10 records but has only "
                                                     "63 bytes of records") as raised:
            _ = batch.records
        assert raised.value.offset == 0
