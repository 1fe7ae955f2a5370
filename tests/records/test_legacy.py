"""Legacy message sets (magic 0 and 1): kafka-python's and aiokafka's builders, messages built by
hand from the format description, and FetchResponses sent by a real broker (kafka-go fixtures)."""
from __future__ import annotations

import json
import struct
import zlib

import lz4.frame
import pytest

from kwire.generated import FetchResponse
from kwire.records import (
    BatchReader,
    Codec,
    LegacyBatch,
    RecordBatch,
    RecordsView,
    TimestampType,
    decode_legacy_message,
)
from kwire.wire.errors import CorruptRecordError, DecodeError
from tests.optional import later
from tests.packages import KpLegacyBatch, KpLegacyBuilder, KpMemoryRecords, aiokafka_c
from tests.paths import KAFKA_GO

aiokafka_legacy = later("aiokafka.record", "legacy_records")


ROWS = [
    (b"key-%d" % i if i % 3 else None, None if i == 4 else b"value-%d" % i * (i + 1))
    for i in range(12)
]
TS = 1_600_000_000_000


def kafka_python_set(magic: int, codec: Codec) -> bytes:
    builder = KpLegacyBuilder(magic, int(codec), 10**9)
    for offset, (key, value) in enumerate(ROWS):
        builder.append(offset, TS + offset, key, value)
    return bytes(builder.build())


def aiokafka_set(builder_cls, magic: int, codec: Codec) -> bytes:
    builder = builder_cls(magic, int(codec), 10**9)
    for offset, (key, value) in enumerate(ROWS):
        builder.append(offset, TS + offset, key, value)
    return bytes(builder.build())


def decoded(buf) -> list[tuple]:
    reader = BatchReader(buf)
    out = [(r.offset, r.timestamp, r.key, r.value) for batch in reader for r in batch]
    assert reader.truncated_at is None
    return out


def expected(magic: int) -> list[tuple]:
    return [(i, TS + i if magic else -1, key, value) for i, (key, value) in enumerate(ROWS)]


LEGACY_CASES = [(0, c) for c in (Codec.NONE, Codec.GZIP, Codec.SNAPPY)] + [
    (1, c) for c in (Codec.NONE, Codec.GZIP, Codec.SNAPPY, Codec.LZ4)
]


@pytest.mark.parametrize("magic, codec", LEGACY_CASES, ids=lambda v: str(getattr(v, "name", v)))
def test_kafka_python_legacy_sets(magic, codec):
    buf = kafka_python_set(magic, codec)
    assert decoded(buf) == expected(magic)
    theirs = [(r.offset, r.timestamp, r.key, r.value) for b in KpMemoryRecords(buf) for r in b]
    theirs = [(o, -1 if t is None else t, k, v) for o, t, k, v in theirs]
    assert decoded(buf) == theirs
    batches = list(BatchReader(buf))
    assert all(isinstance(b, LegacyBatch) and b.magic == magic for b in batches)
    assert all(b.compression == codec for b in batches)
    assert len(batches) == (len(ROWS) if codec == Codec.NONE else 1)
    expected_type = TimestampType.NO_TIMESTAMP_TYPE if magic == 0 else TimestampType.CREATE_TIME
    assert all(b.timestamp_type == expected_type for b in batches)


@pytest.mark.parametrize("magic, codec", LEGACY_CASES, ids=lambda v: str(getattr(v, "name", v)))
@pytest.mark.parametrize(
    "builder_cls",
    [aiokafka_c.LegacyRecordBatchBuilder, aiokafka_legacy._LegacyRecordBatchBuilderPy],
    ids=["aiokafka-c", "aiokafka-py"],
)
def test_aiokafka_legacy_sets(builder_cls, magic, codec):
    assert decoded(aiokafka_set(builder_cls, magic, codec)) == expected(magic)


def legacy_entry(offset, magic, attributes, key, value, timestamp=None) -> bytes:
    """One message set entry, written from the format description (CRC-32 by zlib)."""
    body = struct.pack(">bb", magic, attributes)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for field in (key, value):
        body += struct.pack(">i", -1) if field is None else struct.pack(">i", len(field)) + field
    message = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", offset, len(message)) + message


def test_v1_wrapper_relative_offsets_become_absolute():
    inner = b"".join(legacy_entry(i, 1, 0, None, b"m%d" % i, TS + i) for i in range(3))
    wrapper = legacy_entry(1002, 1, Codec.GZIP, None, zlib.compress(inner, wbits=31), TS + 9)
    batch = decode_legacy_message(wrapper)
    # the wrapper carries the last inner message's absolute offset
    assert [r.offset for r in batch] == [1000, 1001, 1002]
    assert [r.offset_delta for r in batch] == [0, 1, 2]
    assert batch.base_offset == 1000 and batch.last_offset == 1002 and batch.next_offset == 1003
    assert [r.timestamp for r in batch] == [TS, TS + 1, TS + 2]
    theirs = [(r.offset, r.value) for r in KpLegacyBatch(wrapper, 1)]
    assert [(r.offset, r.value) for r in batch] == theirs


def test_v1_wrapper_with_log_append_time_gives_inner_messages_its_timestamp():
    inner = b"".join(legacy_entry(i, 1, 0, None, b"m%d" % i, TS + i) for i in range(3))
    wrapper = legacy_entry(2, 1, Codec.GZIP | 0x08, None, zlib.compress(inner, wbits=31), TS + 500)
    batch = decode_legacy_message(wrapper)
    assert batch.timestamp_type == TimestampType.LOG_APPEND_TIME
    assert [r.timestamp for r in batch] == [TS + 500] * 3


def test_v0_wrapper_keeps_inner_offsets():
    inner = b"".join(legacy_entry(50 + i, 0, 0, b"k", b"m%d" % i) for i in range(3))
    batch = decode_legacy_message(legacy_entry(52, 0, Codec.GZIP, None, zlib.compress(inner, wbits=31)))
    assert [(r.offset, r.timestamp) for r in batch] == [(50, -1), (51, -1), (52, -1)]


def test_magic0_lz4_with_old_kafka_header_checksum_is_accepted():
    inner = b"".join(legacy_entry(i, 0, 0, None, b"m%d" % i) for i in range(3))
    frame = bytearray(lz4.frame.compress(inner, block_linked=False, store_size=False))
    frame[6] ^= 0x5A  # the descriptor checksum byte (no content size): wrong, as Kafka < 0.10 wrote it
    assert [r.value for r in decode_legacy_message(legacy_entry(2, 0, Codec.LZ4, None, bytes(frame)))] == [
        b"m0", b"m1", b"m2",
    ]
    # magic 1 checks the header checksum like Kafka does
    inner1 = b"".join(legacy_entry(i, 1, 0, None, b"m%d" % i, TS) for i in range(3))
    frame1 = bytearray(lz4.frame.compress(inner1, block_linked=False, store_size=False))
    frame1[6] ^= 0x5A
    with pytest.raises(DecodeError, match="lz4"):
        _ = decode_legacy_message(legacy_entry(2, 1, Codec.LZ4, None, bytes(frame1), TS)).records


def test_legacy_crc_mismatch_names_the_offset():
    entry = bytearray(legacy_entry(77, 1, 0, b"k", b"value", TS))
    entry[-1] ^= 1
    with pytest.raises(CorruptRecordError, match="offset 77") as info:
        decode_legacy_message(bytes(entry))
    assert info.value.offset == 0
    assert not decode_legacy_message(bytes(entry), verify_crc=False).crc_valid


@pytest.mark.parametrize(
    "entry, message",
    [
        (legacy_entry(3, 1, Codec.GZIP, None, None, TS), "null value"),
        (legacy_entry(3, 1, Codec.GZIP, None, zlib.compress(b"", wbits=31), TS), "no inner messages"),
        (
            legacy_entry(
                3, 1, Codec.GZIP, None,
                zlib.compress(legacy_entry(0, 1, Codec.GZIP, None, b"x", TS), wbits=31), TS,
            ),
            "must not be compressed",
        ),
        (
            legacy_entry(0, 1, Codec.GZIP, None,
                         zlib.compress(legacy_entry(0, 1, 0, None, b"x", TS)[:-2], wbits=31), TS),
            "truncated",
        ),
        (legacy_entry(3, 1, Codec.ZSTD, None, b"whatever", TS), "codec"),
        (
            legacy_entry(1, 1, Codec.GZIP, None,
                         zlib.compress(b"".join(legacy_entry(i, 1, 0, None, b"x", TS) for i in range(3)),
                                       wbits=31), TS),
            "below its last inner offset",
        ),
    ],
    ids=["null-value", "empty", "nested", "truncated-inner", "zstd", "wrapper-offset"],
)
def test_malformed_wrappers_raise(entry, message):
    with pytest.raises(DecodeError, match=message):
        _ = decode_legacy_message(entry).records


def test_inner_crc_is_checked():
    inner = bytearray(legacy_entry(0, 1, 0, None, b"payload", TS))
    inner[-1] ^= 0xFF
    wrapper = legacy_entry(0, 1, Codec.GZIP, None, zlib.compress(bytes(inner), wbits=31), TS)
    with pytest.raises(CorruptRecordError, match="CRC-32"):
        _ = decode_legacy_message(wrapper).records
    corrupted_value = b"payloa" + bytes([ord("d") ^ 0xFF])
    assert [r.value for r in decode_legacy_message(wrapper, verify_crc=False)] == [corrupted_value]


# ------------------------------------------------------------------------ kafka-go fixtures


def fetch_response_partitions(frame: bytes, version: int):
    """Walk a non-flexible FetchResponse (v4+) as WIRE_FACTS.md / Kafka's FetchResponse.json
    describe it; return (end position, [(topic, partition, high watermark, records start, end)])."""
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from(">" + fmt, frame, pos)
        pos += struct.calcsize(">" + fmt)
        return values[0] if len(values) == 1 else values

    assert take("i") == len(frame) - 4  # size prefix
    take("i")  # correlation id
    take("i")  # throttle_time_ms (v1+)
    if version >= 7:
        take("hi")  # error_code, session_id
    partitions = []
    for _ in range(take("i")):
        name_length = take("h")
        name = frame[pos:pos + name_length].decode("ascii")
        pos += name_length
        for _ in range(take("i")):
            index, _error, high_watermark = take("ihq")
            take("q")  # last_stable_offset (v4+)
            if version >= 5:
                take("q")  # log_start_offset
            aborted = take("i")
            for _ in range(max(aborted, 0)):
                take("qq")
            if version >= 11:
                take("i")  # preferred_read_replica
            size = take("i")
            partitions.append((name, index, high_watermark, pos, pos + size))
            pos += size
    return pos, partitions


def parse_fetch_response(frame: bytes):
    """Find the FetchResponse version whose layout consumes the frame exactly."""
    for version in (11, 7, 5, 4):
        try:
            end, partitions = fetch_response_partitions(frame, version)
        except (struct.error, UnicodeDecodeError, AssertionError):
            continue
        if end == len(frame):
            return version, partitions
    raise AssertionError("no FetchResponse v4..v11 layout fits")


FIXTURES = sorted(KAFKA_GO.glob("*.hex"))
GREEK = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta", b"theta"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_kafka_go_fetch_responses_decode_fully(path):
    frame = bytes.fromhex(path.read_text().strip())
    version, partitions = parse_fetch_response(frame)
    assert version == 7  # v7..v10 share this layout: session id, no preferred replica
    tokens = path.stem.split("-")
    (topic, _, high_watermark, start, end), = partitions
    reader = BatchReader(frame, start, end)  # every CRC is verified on the way
    batches = list(reader)
    assert reader.truncated_at is None and reader.position == end

    # message formats and compression as the file name lists them
    assert {b.magic for b in batches} == {int(t[1]) for t in tokens}
    assert {b.compression != Codec.NONE for b in batches} == {"c" in t for t in tokens}
    for batch in batches:
        assert isinstance(batch, RecordBatch if batch.magic == 2 else LegacyBatch)
        assert batch.compression in (Codec.NONE, Codec.GZIP)

    records = [r for b in batches for r in b]
    assert [r.offset for r in records] == list(range(high_watermark))
    for record in records:
        # kafka-go's test writes Greek-letter keys with {"count":0,"filler":<n-th Latin letter x 10>}
        document = json.loads(record.value)
        letter = "abcdefgh"[GREEK.index(record.key)]
        assert document == {"count": 0, "filler": letter * 10}
        assert 1_633_000_000_000 < record.timestamp < 1_634_000_000_000  # early October 2021
        assert record.headers == []


def test_kafka_go_mixed_fixture_agrees_with_kafka_python():
    frame = bytes.fromhex((KAFKA_GO / "v1-v1c-v2-v2c-v2b-v2b-v2b-v2bc-v1b-v1bc.hex").read_text().strip())
    _, [(_, _, _, start, end)] = parse_fetch_response(frame)
    ours = [(r.offset, r.timestamp, r.key, r.value) for b in BatchReader(frame, start, end) for r in b]
    theirs = [(r.offset, r.timestamp, r.key, r.value) for b in KpMemoryRecords(frame[start:end]) for r in b]
    assert ours == theirs
    assert len(ours) == 20


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_kafka_go_fetch_responses_through_the_generated_codec(path):
    frame = bytes.fromhex(path.read_text().strip())
    _, [(topic, index, high_watermark, start, end)] = parse_fetch_response(frame)
    response = FetchResponse.decode(frame[8:], 7)  # after size and ResponseHeader v0
    (topic_response,) = response.responses
    (partition,) = topic_response.partitions
    assert (topic_response.topic, partition.partition_index, partition.high_watermark) == (
        topic, index, high_watermark,
    )
    records = partition.records
    view = records if isinstance(records, RecordsView) else RecordsView(records)
    assert view == frame[start:end]
    assert [r.offset for b in view for r in b] == list(range(high_watermark))
