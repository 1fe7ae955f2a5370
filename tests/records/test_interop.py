"""Magic 2 batches against independent implementations, every codec, both directions.

Writers and readers used as references: kafka-python 3 (``kafka.record``) and aiokafka, whose
record module ships both a C extension (``aiokafka.record._crecords``) and the pure-Python
classes it falls back to (``_DefaultRecordBatchPy`` ...); both are imported directly here, so
each test runs against all three without environment switches.
"""
from __future__ import annotations

import pytest

from kwire.records import (
    BatchReader,
    Codec,
    RecordBatchBuilder,
    TimestampType,
    decode_batch,
)
from tests.packages import KpBatch, KpBuilder, KpMemoryRecords, aiokafka_c, aiokafka_py

CODECS = list(Codec)

BUILDERS = {
    "kafka-python": KpBuilder,
    "aiokafka-c": aiokafka_c.DefaultRecordBatchBuilder,
    "aiokafka-py": aiokafka_py._DefaultRecordBatchBuilderPy,
}
READERS = {
    "kafka-python": KpBatch,
    "aiokafka-c": aiokafka_c.DefaultRecordBatch,
    "aiokafka-py": aiokafka_py._DefaultRecordBatchPy,
}

BASE_TS = 1_700_000_000_000


def sample_records(count: int = 300) -> list[tuple[int, bytes | None, bytes | None, list]]:
    """(timestamp, key, value, headers) covering null keys/values, headers, long and empty fields."""
    rows = []
    for i in range(count):
        key = None if i % 7 == 3 else b"key-%d" % i
        value = None if i % 11 == 5 else (b"v" * (i % 150)) + b"|%d" % i
        if i % 13 == 0:
            value = bytes(range(256)) * 3  # multi-byte length varints
        headers = []
        if i % 4 == 1:
            headers = [("trace", b"t%d" % i), ("empty", b""), ("null", None), ("ünï", b"\x00\xff")]
        # out-of-order timestamps give negative deltas
        rows.append((BASE_TS + (i * 37) % 5000 - 1000, key, value, headers))
    return rows


def build_with(builder_cls, codec: Codec, rows, *, producer=(-1, -1, -1), transactional=False) -> bytes:
    pid, epoch, seq = producer
    builder = builder_cls(2, int(codec), transactional, pid, epoch, seq, 10**9)
    for offset, (ts, key, value, headers) in enumerate(rows):
        assert builder.append(offset, ts, key, value, headers) is not None
    return bytes(builder.build())


def kwire_build(codec: Codec, rows, **options) -> bytes:
    builder = RecordBatchBuilder(codec=codec, **options)
    for ts, key, value, headers in rows:
        builder.append(ts, key, value, headers)
    return builder.build()


def as_rows(records):
    return [(r.timestamp, r.key, r.value, list(r.headers)) for r in records]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
@pytest.mark.parametrize("writer", BUILDERS)
def test_kwire_reads_batches_built_by_other_clients(writer, codec):
    rows = sample_records()
    wire = build_with(BUILDERS[writer], codec, rows, producer=(4242, 7, 1000), transactional=True)
    batch = decode_batch(wire)
    assert batch.crc_valid
    assert batch.compression == codec
    assert batch.magic == 2
    assert batch.record_count == len(rows)
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (4242, 7, 1000)
    assert batch.is_transactional and not batch.is_control
    assert batch.timestamp_type == TimestampType.CREATE_TIME
    assert batch.last_offset_delta == len(rows) - 1
    assert batch.base_timestamp == rows[0][0]
    assert batch.max_timestamp == max(r[0] for r in rows)
    assert as_rows(batch.records) == rows
    assert [r.offset for r in batch.records] == list(range(len(rows)))
    assert [r.offset_delta for r in batch.records] == list(range(len(rows)))
    assert [r.timestamp_delta for r in batch.records] == [r[0] - rows[0][0] for r in rows]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
@pytest.mark.parametrize("reader", READERS)
def test_batches_kwire_writes_read_back_equal_elsewhere(reader, codec):
    rows = sample_records()
    wire = kwire_build(codec, rows, producer_id=99, producer_epoch=3, base_sequence=17, is_transactional=True)
    other = READERS[reader](wire)
    assert other.validate_crc()
    assert other.compression_type == codec
    assert (other.producer_id, other.producer_epoch, other.base_sequence) == (99, 3, 17)
    assert other.is_transactional
    decoded = list(other)
    assert [(r.timestamp, r.key, r.value, list(r.headers)) for r in decoded] == rows
    assert [r.offset for r in decoded] == list(range(len(rows)))


def test_uncompressed_batch_is_byte_identical_to_kafka_python():
    rows = sample_records()
    theirs = build_with(KpBuilder, Codec.NONE, rows, producer=(5, 1, 0))
    # kafka-python writes base offset 0 and partition leader epoch 0 (a broker overwrites it)
    ours = kwire_build(
        Codec.NONE, rows, producer_id=5, producer_epoch=1, base_sequence=0, partition_leader_epoch=0
    )
    assert ours == theirs


def test_uncompressed_batch_is_byte_identical_to_aiokafka_c():
    rows = sample_records(50)
    theirs = build_with(aiokafka_c.DefaultRecordBatchBuilder, Codec.NONE, rows)
    ours = kwire_build(Codec.NONE, rows)  # aiokafka, like Kafka's producer, writes epoch -1
    assert ours == theirs


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
def test_header_fields_round_trip_through_kafka_python(codec):
    wire = kwire_build(
        codec,
        [(BASE_TS, b"k", b"v", [])],
        base_offset=123_456_789_000,
        partition_leader_epoch=41,
        producer_id=2**40,
        producer_epoch=32000,
        base_sequence=2**31 - 2,
    )
    other = KpBatch(wire)
    assert other.base_offset == 123_456_789_000
    assert other.leader_epoch == 41
    assert other.producer_id == 2**40
    assert other.producer_epoch == 32000
    assert other.base_sequence == 2**31 - 2
    assert [r.offset for r in other] == [123_456_789_000]


def test_log_append_time_matches_kafka_python():
    rows = [(BASE_TS + i, b"k", b"v%d" % i, []) for i in range(5)]
    wire = kwire_build(Codec.NONE, rows, log_append_time=BASE_TS + 99_999)
    ours = decode_batch(wire)
    theirs = KpBatch(wire)
    assert ours.timestamp_type == theirs.timestamp_type == TimestampType.LOG_APPEND_TIME
    # every record reports the broker's append time, kept in maxTimestamp
    assert [r.timestamp for r in ours] == [r.timestamp for r in theirs] == [BASE_TS + 99_999] * 5
    assert [r.timestamp_delta for r in ours] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
def test_back_to_back_batches_agree_with_kafka_python_memory_records(codec):
    buf = b""
    expected = []
    for n in range(4):
        rows = [(BASE_TS + n, b"b%d-%d" % (n, i), b"x" * i, []) for i in range(n * 10 + 1)]
        buf += kwire_build(codec, rows, base_offset=1000 * n)
        expected.append([(1000 * n + i, key, value) for i, (_, key, value, _) in enumerate(rows)])
    truncated = buf + kwire_build(codec, [(BASE_TS, b"tail", b"tail", [])])[:-5]

    reader = BatchReader(truncated)
    ours = [[(r.offset, r.key, r.value) for r in batch] for batch in reader]
    theirs = [[(r.offset, r.key, r.value) for r in batch] for batch in KpMemoryRecords(truncated)]
    assert ours == theirs == expected
    assert reader.truncated_at == len(buf)
    assert KpMemoryRecords(truncated).valid_bytes() == len(buf)
